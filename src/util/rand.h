/* Random bytes from the OS CSPRNG (getrandom). Used for the Groth16 blinding
 * values r and s and for randomized tests; never seeded by us. */
#ifndef ZKP_UTIL_RAND_H
#define ZKP_UTIL_RAND_H

#include <stddef.h>

#include "util/util.h"

/* Fills buf[0..len) or returns ZKPIPE_ERR_RANDOM; never returns partial data. */
ZKP_WARN_UNUSED zkpipe_status zkp_random_bytes(void *buf, size_t len);

#endif
