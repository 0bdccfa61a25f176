/* Booleans in a constraint system, as bellpepper's boolean gadgets define
 * them: the same cases, the same allocations and the same constraints, in
 * the same order (a circuit built from them has bellperson's R1CS).
 *
 * A zkp_bool is a constant, an allocated bit, or the negation of one. The
 * negation and the constants are free: they only change the linear
 * combination a boolean stands for (zkp_bool_lc). Every operation that
 * allocates adds exactly one variable and one constraint per allocated bit,
 * except maj (two of each: it allocates b AND c for its own constraint). */
#ifndef ZKP_GADGETS_BOOLEAN_H
#define ZKP_GADGETS_BOOLEAN_H

#include <stdint.h>

#include "gadgets/cs.h"

enum { ZKP_BOOL_CONST = 0, ZKP_BOOL_IS = 1, ZKP_BOOL_NOT = 2 };

typedef struct {
    zkp_var var;   /* the allocated bit (IS and NOT) */
    uint8_t kind;  /* ZKP_BOOL_* */
    uint8_t value; /* this boolean's value: for NOT, the negation of the bit */
} zkp_bool;

static inline zkp_bool zkp_bool_const(int value) {
    zkp_bool b = {ZKP_VAR_ONE, ZKP_BOOL_CONST, (uint8_t)(value != 0)};
    return b;
}
static inline int zkp_bool_is_const(const zkp_bool *b) { return b->kind == ZKP_BOOL_CONST; }
zkp_bool zkp_bool_not(const zkp_bool *b);

/* A new private bit with its booleanity constraint (1 - x) * x = 0. */
zkp_bool zkp_bool_alloc(zkp_cs *cs, int value);

/* The 64 bits of value, least significant first, each a new private bit
 * (bellpepper's u64_into_boolean_vec_le; what Filecoin's UInt64::alloc of a
 * challenge allocates): 64 variables, 64 constraints. */
void zkp_bool_alloc_u64_le(zkp_cs *cs, uint64_t value, zkp_bool bits[64]);

/* lc += coeff * b (a constant true is coeff * ONE; NOT x is coeff*ONE - coeff*x). */
void zkp_bool_lc(zkp_lc *lc, const zkp_bool *b, const zkp_fr *coeff);

zkp_bool zkp_bool_xor(zkp_cs *cs, const zkp_bool *a, const zkp_bool *b);
zkp_bool zkp_bool_and(zkp_cs *cs, const zkp_bool *a, const zkp_bool *b);
/* SHA-256's ch = (a AND b) XOR (NOT a AND c) and maj = majority(a, b, c),
 * each one allocated bit and one constraint in the general case (maj also
 * allocates b AND c). */
zkp_bool zkp_bool_sha256_ch(zkp_cs *cs, const zkp_bool *a, const zkp_bool *b, const zkp_bool *c);
zkp_bool zkp_bool_sha256_maj(zkp_cs *cs, const zkp_bool *a, const zkp_bool *b, const zkp_bool *c);

#endif
