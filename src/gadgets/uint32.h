/* 32-bit words of booleans, as bellperson's UInt32 gadget builds them, and
 * MultiEq, which folds the equality checks of several additions into one
 * constraint.
 *
 * Bits are least significant first. Rotations and shifts only rename bits
 * (no constraint); xor, ch and maj work bit by bit (boolean.h); addmany
 * allocates the bits of the whole sum (ceil(log2(n * (2^32 - 1))) of them,
 * each with its booleanity constraint), keeps the low 32 and hands the
 * equation "sum of the operands = sum of the result bits" to a MultiEq.
 *
 * MultiEq. Each equation of k bits is added to a running pair of
 * combinations at weight 2^(bits used so far); when the next one would
 * reach Fr's capacity (254 bits) the pair is enforced as lhs * ONE = rhs
 * first, and the rest is enforced by zkp_multieq_finish. */
#ifndef ZKP_GADGETS_UINT32_H
#define ZKP_GADGETS_UINT32_H

#include <stddef.h>
#include <stdint.h>

#include "gadgets/boolean.h"

typedef struct {
    zkp_bool bits[32]; /* least significant first */
    uint32_t value;
} zkp_u32;

typedef struct {
    zkp_cs *cs;
    zkp_lc lhs, rhs;
    unsigned bits_used;
    zkp_lc sum, bits; /* addmany's scratch, reused so that its growth is paid once */
} zkp_multieq;

#define ZKP_MULTIEQ_CAPACITY 254 /* BLS12-381 Fr: 255-bit modulus */

void zkp_multieq_init(zkp_multieq *m, zkp_cs *cs);
/* Adds lhs = rhs, an equation between numbers below 2^num_bits. */
void zkp_multieq_enforce_equal(zkp_multieq *m, unsigned num_bits, const zkp_lc *lhs,
                               const zkp_lc *rhs);
/* Enforces what is pending and frees the combinations. */
void zkp_multieq_finish(zkp_multieq *m);

zkp_u32 zkp_u32_const(uint32_t value);
/* 32 new private bits (32 constraints). */
zkp_u32 zkp_u32_alloc(zkp_cs *cs, uint32_t value);
/* From / to 32 booleans, most significant first. */
zkp_u32 zkp_u32_from_bits_be(const zkp_bool bits[32]);
void zkp_u32_to_bits_be(const zkp_u32 *w, zkp_bool bits[32]);
zkp_u32 zkp_u32_rotr(const zkp_u32 *w, unsigned by);
zkp_u32 zkp_u32_shr(const zkp_u32 *w, unsigned by);
zkp_u32 zkp_u32_xor(zkp_cs *cs, const zkp_u32 *a, const zkp_u32 *b);
zkp_u32 zkp_u32_sha256_ch(zkp_cs *cs, const zkp_u32 *a, const zkp_u32 *b, const zkp_u32 *c);
zkp_u32 zkp_u32_sha256_maj(zkp_cs *cs, const zkp_u32 *a, const zkp_u32 *b, const zkp_u32 *c);
/* The sum of 2 to 10 words modulo 2^32. All constant: a constant, nothing
 * allocated. */
zkp_u32 zkp_u32_addmany(zkp_multieq *m, const zkp_u32 *ops, size_t n);

#endif
