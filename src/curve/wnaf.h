/* Signed-digit recoding of public scalars, shared by the variable-time
 * scalar multiplications of every group. */
#ifndef ZKP_CURVE_WNAF_H
#define ZKP_CURVE_WNAF_H

#include <stddef.h>
#include <stdint.h>

/* The longest scalar the recoder accepts; the BLS12-381 G2 h_eff (636 bits)
 * is the longest one zkpipe multiplies by. */
#define ZKP_WNAF_MAX_BITS 1024

/* Width-w non-adjacent form of the scalar held in the low nbits bits of the
 * little-endian limbs k (ceil(nbits / 64) limbs are read; bits at and above
 * nbits are ignored).
 *
 * On input 2 <= w <= 8, nbits <= ZKP_WNAF_MAX_BITS, and digits has room for
 * nbits + 1 entries. On output sum(digits[i] 2^i) equals the scalar, every
 * nonzero digit is odd with |digit| < 2^(w-1), any w consecutive digits hold
 * at most one nonzero, and the return value is one more than the index of the
 * highest nonzero digit (0 for a zero scalar). Not constant time. */
size_t zkp_wnaf_recode_var(int8_t *digits, const uint64_t *k, size_t nbits, unsigned w);

#endif
