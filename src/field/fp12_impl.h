/* Generic quadratic extension Fp12 = Fp6[w]/(w^2 - v): the inline half.
 *
 * Instantiated by the tower header with
 *
 *     #define FP12_NAME  bn254_fq12  (prefix of the type and functions)
 *     #define FP12_FP6   bn254_fq6
 *     #define FP12_FP2   bn254_fq2
 *     #define FP12_PARAM BN254       (prefix of the constants in tower_params.h)
 *     #include "field/fp12_impl.h"
 *
 * and in exactly one .c file per curve, fp12_body.h after it.
 *
 * An element is c0 + c1·w with c0, c1 in Fp6. Since w^2 = v and v^3 = xi,
 * w^6 = xi, and the element is also sum_i e_i w^i over Fp2 with
 * (e0, e1, e2, e3, e4, e5) = (c0.c0, c1.c0, c0.c1, c1.c1, c0.c2, c1.c2);
 * the Frobenius, the sparse line products and the cyclotomic squaring are
 * easiest to read in that basis. Same rules as field.h: outputs may alias
 * inputs, constant time unless _var, coefficients fully reduced.
 *
 *   F12_set_zero, F12_set_one, F12_is_zero, F12_is_one, F12_eq, F12_cmov
 *   F12_add, F12_sub, F12_neg
 *   F12_conj(r, a)        c0 - c1 w, the p^6-power Frobenius; on the
 *                         cyclotomic subgroup (the pairing's target group)
 *                         it is the inverse
 *   F12_mul               Karatsuba, 3 Fp6 products
 *   F12_sqr               complex squaring, 2 Fp6 products
 *   F12_inv, F12_inv_var  one Fp inversion down the tower; 0 maps to 0
 *   F12_frobenius(r, a, k)   r = a^(p^k), k = 1, 2, 3
 *   F12_mul_by_034(r, a, c0, c3, c4)   r = a·(c0 + c3 w + c4 w^3)
 *   F12_mul_by_014(r, a, c0, c1, c4)   r = a·(c0 + c1 w^2 + c4 w^3)
 *                         the sparse values of Miller-loop lines on D-type
 *                         and M-type twists respectively; the digits name
 *                         the nonzero slots of (c0.c0, c0.c1, c0.c2, c1.c0,
 *                         c1.c1, c1.c2), which hold w^0, w^2, w^4, w^1, w^3,
 *                         w^5
 *   F12_cyclotomic_sqr(r, a)            Granger-Scott
 *   F12_cyclotomic_pow_digits(r, a, d, n)   signed-digit exponentiation
 *   F12_cyclotomic_exp_x(r, a)          r = a^x for the curve seed x
 *   F12_pow(r, a, exp, limbs)           any a, public exponent (slow)
 *
 * The cyclotomic operations require a in the cyclotomic subgroup
 * G = {a : a^(p^4 - p^2 + 1) = 1}, which holds for every value after the easy
 * part of the final exponentiation, a^((p^6 - 1)(p^2 + 1)). */
#include "field/tower_params.h"

#define F12_T ZKP_CAT(FP12_NAME, _t)
#define F12_FN(op) ZKP_CAT(ZKP_CAT(FP12_NAME, _), op)
#define F6_T ZKP_CAT(FP12_FP6, _t)
#define F6_FN(op) ZKP_CAT(ZKP_CAT(FP12_FP6, _), op)
#define F2_T ZKP_CAT(FP12_FP2, _t)

typedef struct {
    F6_T c0, c1;
} F12_T;

static inline int F12_FN(is_reduced)(const F12_T *a) {
    return F6_FN(is_reduced)(&a->c0) && F6_FN(is_reduced)(&a->c1);
}
static inline void F12_FN(set_zero)(F12_T *r) {
    F6_FN(set_zero)(&r->c0);
    F6_FN(set_zero)(&r->c1);
}
static inline void F12_FN(set_one)(F12_T *r) {
    F6_FN(set_one)(&r->c0);
    F6_FN(set_zero)(&r->c1);
}
static inline int F12_FN(is_zero)(const F12_T *a) { return F6_FN(is_zero)(&a->c0) & F6_FN(is_zero)(&a->c1); }
static inline int F12_FN(is_one)(const F12_T *a) { return F6_FN(is_one)(&a->c0) & F6_FN(is_zero)(&a->c1); }
static inline int F12_FN(eq)(const F12_T *a, const F12_T *b) {
    return F6_FN(eq)(&a->c0, &b->c0) & F6_FN(eq)(&a->c1, &b->c1);
}
static inline void F12_FN(cmov)(F12_T *r, const F12_T *a, int flag) {
    F6_FN(cmov)(&r->c0, &a->c0, flag);
    F6_FN(cmov)(&r->c1, &a->c1, flag);
}
static inline void F12_FN(add)(F12_T *r, const F12_T *a, const F12_T *b) {
    F6_FN(add)(&r->c0, &a->c0, &b->c0);
    F6_FN(add)(&r->c1, &a->c1, &b->c1);
}
static inline void F12_FN(sub)(F12_T *r, const F12_T *a, const F12_T *b) {
    F6_FN(sub)(&r->c0, &a->c0, &b->c0);
    F6_FN(sub)(&r->c1, &a->c1, &b->c1);
}
static inline void F12_FN(neg)(F12_T *r, const F12_T *a) {
    F6_FN(neg)(&r->c0, &a->c0);
    F6_FN(neg)(&r->c1, &a->c1);
}
static inline void F12_FN(conj)(F12_T *r, const F12_T *a) {
    r->c0 = a->c0;
    F6_FN(neg)(&r->c1, &a->c1);
}

/* Out-of-line operations (fp12_body.h). */
void F12_FN(mul)(F12_T *r, const F12_T *a, const F12_T *b);
void F12_FN(sqr)(F12_T *r, const F12_T *a);
void F12_FN(inv)(F12_T *r, const F12_T *a);
void F12_FN(inv_var)(F12_T *r, const F12_T *a);
/* On input k is 1, 2 or 3. */
void F12_FN(frobenius)(F12_T *r, const F12_T *a, unsigned k);
void F12_FN(mul_by_034)(F12_T *r, const F12_T *a, const F2_T *c0, const F2_T *c3, const F2_T *c4);
void F12_FN(mul_by_014)(F12_T *r, const F12_T *a, const F2_T *c0, const F2_T *c1, const F2_T *c4);
/* On input a is in the cyclotomic subgroup (see above). */
void F12_FN(cyclotomic_sqr)(F12_T *r, const F12_T *a);
/* r = a^e with e = sum d[i] 2^(n-1-i): the digits come most significant
 * first, are public, odd or zero, |d[i]| <= 15, and d[0] != 0. On input a is
 * in the cyclotomic subgroup, where conj gives the inverse for the negative
 * digits. */
void F12_FN(cyclotomic_pow_digits)(F12_T *r, const F12_T *a, const int8_t *d, size_t n);
/* On input a is in the cyclotomic subgroup. */
void F12_FN(cyclotomic_exp_x)(F12_T *r, const F12_T *a);
void F12_FN(pow)(F12_T *r, const F12_T *a, const uint64_t *exp, size_t exp_limbs);

#undef F12_T
#undef F12_FN
#undef F6_T
#undef F6_FN
#undef F2_T
