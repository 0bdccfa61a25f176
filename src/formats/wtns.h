/* Witness files (.wtns), as circom's witness generators and snarkjs write them.
 *
 *     binfile magic "wtns", version 2
 *     section 1 (header): u32 n8, prime (n8 bytes LE), u32 nWitness
 *     section 2 (values): nWitness × n8 bytes, each a canonical LE scalar
 *
 * Accepted: n8 = 32 and the prime equal to r of BN254 or BLS12-381 (the
 * scalar field; anything else is ZKPIPE_ERR_WRONG_CURVE), section 1 exactly
 * 4 + n8 + 4 bytes, section 2 exactly nWitness × n8 bytes
 * (ZKPIPE_ERR_SECTION_SIZE), every value < r (ZKPIPE_ERR_NON_CANONICAL,
 * naming the index) and at least one value (w_0, the constant 1;
 * ZKPIPE_ERR_OUT_OF_RANGE otherwise).
 *
 * The values are copied out rather than borrowed: section 2 starts at file
 * offset 76 in every real file, which is not 8-byte aligned, and the prover
 * reads them as uint64_t limbs. */
#ifndef ZKP_FORMATS_WTNS_H
#define ZKP_FORMATS_WTNS_H

#include <stddef.h>
#include <stdint.h>

#include "util/alloc.h"
#include "util/diag.h"
#include "zkpipe/curve.h"

typedef struct zkp_wtns {
    zkpipe_curve curve;
    size_t n_vars;
    /* 4 little-endian limbs per value, canonical (< r), n_vars values; from
     * zkp_alloc(alloc, values_bytes, ZKP_MEM_WITNESS). */
    uint64_t *values;
    size_t values_bytes;
    const zkp_allocator *alloc; /* what values came from; NULL = the default */
} zkp_wtns;

/* Parses data[0..len) (name for messages; may be NULL). alloc may be NULL
 * (the default allocator). On failure *out is left empty (safe to free). */
ZKP_WARN_UNUSED zkpipe_status zkp_wtns_parse(zkp_wtns *out, const uint8_t *data, size_t len,
                                             const char *name, const zkp_allocator *alloc,
                                             zkp_diag *diag);

/* Maps the file at path, parses it and unmaps it again. Adds ZKPIPE_ERR_IO. */
ZKP_WARN_UNUSED zkpipe_status zkp_wtns_load(zkp_wtns *out, const char *path,
                                            const zkp_allocator *alloc, zkp_diag *diag);

/* Frees the values; *w is left empty. Accepts an empty *w. */
void zkp_wtns_free(zkp_wtns *w);

#endif
