/* Diagnostics: the human-readable half of an error.
 *
 * A status code says what kind of thing went wrong; a zkp_diag says where
 * and by how much ("witness.wtns: section 2 (witness values): expected
 * 320 bytes (10 x 32), found 316"). Parsers and the prover take an optional
 * zkp_diag * (NULL when the caller only wants the status) and fill it on
 * failure. It is a fixed buffer, so reporting an error never allocates. */
#ifndef ZKP_UTIL_DIAG_H
#define ZKP_UTIL_DIAG_H

#include "util/util.h"

#define ZKP_DIAG_MAX 512

typedef struct {
    char msg[ZKP_DIAG_MAX];
} zkp_diag;

#if defined(__GNUC__) || defined(__clang__)
#define ZKP_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define ZKP_PRINTF(a, b)
#endif

/* Writes the message (truncated to fit) when d is not NULL and returns st,
 * so a failure path reads: return zkp_diag_fail(d, ZKPIPE_ERR_X, "...", ...). */
zkpipe_status zkp_diag_fail(zkp_diag *d, zkpipe_status st, const char *fmt, ...) ZKP_PRINTF(3, 4);

/* Prefixes the current message with "prefix: " (for example a file name
 * added by an outer layer). No-op when d is NULL. */
void zkp_diag_prefix(zkp_diag *d, const char *prefix);

#endif
