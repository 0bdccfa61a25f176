/* Generic quadratic extension F[u]/(u^2 + 1) over a prime field F with
 * p = 3 mod 4 (so -1 is a non-residue): the inline half. Both BN254 and
 * BLS12-381 build their Fp2 this way. Instantiated by the tower header with
 *
 *     #define FP2_NAME bn254_fq2   (prefix of the type and functions)
 *     #define FP2_BASE bn254_fq    (the prime field)
 *     #define FP2_BASE_PARAM BN254_FQ
 *
 * An element is c0 + c1·u. The operations mirror the prime-field contract in
 * field.h (same names, same constant-time rules), so the curve template can
 * run over F and F2 alike. */
#include <stdint.h>

#include "util/cpu.h"
#include "util/util.h"
#ifdef ZKP_HAVE_X86_ASM
#include "field/mont_x86.h"
#endif

#define F2_T ZKP_CAT(FP2_NAME, _t)
#define F2_FN(op) ZKP_CAT(ZKP_CAT(FP2_NAME, _), op)
#define B_T ZKP_CAT(FP2_BASE, _t)
#define B_FN(op) ZKP_CAT(ZKP_CAT(FP2_BASE, _), op)
#define B_N ((int)(sizeof(B_T) / sizeof(uint64_t)))
#if defined(__GNUC__) || defined(__clang__)
#define ZKP_F2_INLINE static inline __attribute__((always_inline))
#else
#define ZKP_F2_INLINE static inline
#endif

typedef struct {
    B_T c0, c1;
} F2_T;

/* n0 = -p^(-1) mod 2^64 of the base field, for the kernels. The header
 * instantiating this template names the base field but not its constants'
 * prefix, so n0 is derived from p here: Newton's iteration x <- x(2 - px)
 * doubles the number of correct low bits (p·p = 1 mod 8 for odd p, so 3
 * bits to start, 96 after five steps). With p a constant the compiler
 * folds it to a constant. */
static inline uint64_t F2_FN(base_n0_)(void) {
    const uint64_t p0 = B_FN(modulus).l[0];
    uint64_t x = p0;
    for (int i = 0; i < 5; i++) x *= 2 - p0 * x;
    return (uint64_t)0 - x;
}

/* Base-field addition, subtraction and negation for the towers: on the ADX
 * path, the inline-asm forms of mont_x86.h, which take about half the time
 * of F_add and F_sub (see there why); otherwise F_add, F_sub and F_neg,
 * the reference. Same contract as those. Only moduli of 4 or 6 limbs with
 * a spare bit reach Fp2 (BN254 Fq, BLS12-381 Fp). */
ZKP_F2_INLINE void F2_FN(base_add_)(B_T *r, const B_T *a, const B_T *b) {
#ifdef ZKP_HAVE_X86_ASM
    if (ZKP_LIKELY(zkp_cpu_use_adx)) {
        ZKP_VERIFY_CHECK(B_FN(is_reduced)(a) && B_FN(is_reduced)(b));
        zkp_add_mod_x86(r->l, a->l, b->l, B_FN(modulus).l, B_N);
        return;
    }
#endif
    B_FN(add)(r, a, b);
}
ZKP_F2_INLINE void F2_FN(base_sub_)(B_T *r, const B_T *a, const B_T *b) {
#ifdef ZKP_HAVE_X86_ASM
    if (ZKP_LIKELY(zkp_cpu_use_adx)) {
        ZKP_VERIFY_CHECK(B_FN(is_reduced)(a) && B_FN(is_reduced)(b));
        zkp_sub_mod_x86(r->l, a->l, b->l, B_FN(modulus).l, B_N);
        return;
    }
#endif
    B_FN(sub)(r, a, b);
}
/* 0 - a mod p, which is 0 for a = 0 as F_neg requires. */
ZKP_F2_INLINE void F2_FN(base_neg_)(B_T *r, const B_T *a) {
#ifdef ZKP_HAVE_X86_ASM
    if (ZKP_LIKELY(zkp_cpu_use_adx)) {
        static const B_T zero;
        ZKP_VERIFY_CHECK(B_FN(is_reduced)(a));
        zkp_sub_mod_x86(r->l, zero.l, a->l, B_FN(modulus).l, B_N);
        return;
    }
#endif
    B_FN(neg)(r, a);
}

static inline int F2_FN(is_reduced)(const F2_T *a) {
    return B_FN(is_reduced)(&a->c0) && B_FN(is_reduced)(&a->c1);
}
static inline void F2_FN(set_zero)(F2_T *r) {
    B_FN(set_zero)(&r->c0);
    B_FN(set_zero)(&r->c1);
}
static inline void F2_FN(set_one)(F2_T *r) {
    B_FN(set_one)(&r->c0);
    B_FN(set_zero)(&r->c1);
}
static inline int F2_FN(is_zero)(const F2_T *a) { return B_FN(is_zero)(&a->c0) & B_FN(is_zero)(&a->c1); }
static inline int F2_FN(is_one)(const F2_T *a) { return B_FN(is_one)(&a->c0) & B_FN(is_zero)(&a->c1); }
static inline int F2_FN(eq)(const F2_T *a, const F2_T *b) {
    return B_FN(eq)(&a->c0, &b->c0) & B_FN(eq)(&a->c1, &b->c1);
}
static inline void F2_FN(cmov)(F2_T *r, const F2_T *a, int flag) {
    B_FN(cmov)(&r->c0, &a->c0, flag);
    B_FN(cmov)(&r->c1, &a->c1, flag);
}
static inline void F2_FN(add)(F2_T *r, const F2_T *a, const F2_T *b) {
    F2_FN(base_add_)(&r->c0, &a->c0, &b->c0);
    F2_FN(base_add_)(&r->c1, &a->c1, &b->c1);
}
static inline void F2_FN(sub)(F2_T *r, const F2_T *a, const F2_T *b) {
    F2_FN(base_sub_)(&r->c0, &a->c0, &b->c0);
    F2_FN(base_sub_)(&r->c1, &a->c1, &b->c1);
}
static inline void F2_FN(dbl)(F2_T *r, const F2_T *a) {
    F2_FN(base_add_)(&r->c0, &a->c0, &a->c0);
    F2_FN(base_add_)(&r->c1, &a->c1, &a->c1);
}
static inline void F2_FN(half)(F2_T *r, const F2_T *a) {
    B_FN(half)(&r->c0, &a->c0);
    B_FN(half)(&r->c1, &a->c1);
}
static inline void F2_FN(neg)(F2_T *r, const F2_T *a) {
    F2_FN(base_neg_)(&r->c0, &a->c0);
    F2_FN(base_neg_)(&r->c1, &a->c1);
}
/* The conjugate c0 - c1·u, which is also the p-power Frobenius. */
static inline void F2_FN(conj)(F2_T *r, const F2_T *a) {
    r->c0 = a->c0;
    F2_FN(base_neg_)(&r->c1, &a->c1);
}
static inline void F2_FN(mul_base)(F2_T *r, const F2_T *a, const B_T *b) {
    B_FN(mul)(&r->c0, &a->c0, b);
    B_FN(mul)(&r->c1, &a->c1, b);
}

/* Karatsuba: three base products instead of four, using u^2 = -1:
 * (a0 + a1 u)(b0 + b1 u) = (a0 b0 - a1 b1) + ((a0 + a1)(b0 + b1) - a0 b0 - a1 b1) u. */
static inline void F2_FN(mul)(F2_T *r, const F2_T *a, const F2_T *b) {
#ifdef ZKP_HAVE_X86_ASM
    /* On the ADX path for 6 limbs, the same Karatsuba with the three
     * products at double width and two reductions (mont_x86.c): 10% faster
     * than three ADX Montgomery products. For 4 limbs the saved reduction
     * is smaller than the cost of the extra calls and glue (measured 12%
     * slower), so BN254 keeps the form below. The kernel sees an element
     * as its 2N limbs, c0 then c1. */
    _Static_assert(sizeof(F2_T) == 2 * sizeof(B_T), "Fp2 elements are two packed coefficients");
    if (B_N == 6 && ZKP_LIKELY(zkp_cpu_use_adx)) {
        ZKP_VERIFY_CHECK(F2_FN(is_reduced)(a) && F2_FN(is_reduced)(b));
        zkp_fp2_mul_6_adx((uint64_t *)(void *)r, (const uint64_t *)(const void *)a,
                          (const uint64_t *)(const void *)b, B_FN(modulus).l, F2_FN(base_n0_)());
        return;
    }
#endif
    B_T t0, t1, s0, s1;
    B_FN(mul)(&t0, &a->c0, &b->c0);
    B_FN(mul)(&t1, &a->c1, &b->c1);
    F2_FN(base_add_)(&s0, &a->c0, &a->c1);
    F2_FN(base_add_)(&s1, &b->c0, &b->c1);
    B_FN(mul)(&s0, &s0, &s1);
    F2_FN(base_sub_)(&r->c0, &t0, &t1);
    F2_FN(base_sub_)(&s0, &s0, &t0);
    F2_FN(base_sub_)(&r->c1, &s0, &t1);
}

/* Complex squaring: (a0 + a1 u)^2 = (a0 + a1)(a0 - a1) + 2 a0 a1 u. */
static inline void F2_FN(sqr)(F2_T *r, const F2_T *a) {
    B_T s, d, m;
    F2_FN(base_add_)(&s, &a->c0, &a->c1);
    F2_FN(base_sub_)(&d, &a->c0, &a->c1);
    B_FN(mul)(&m, &a->c0, &a->c1);
    B_FN(mul)(&r->c0, &s, &d);
    F2_FN(base_add_)(&r->c1, &m, &m);
}

/* Out-of-line operations (fp2_body.h). */
void F2_FN(inv)(F2_T *r, const F2_T *a);
void F2_FN(inv_var)(F2_T *r, const F2_T *a);
/* On input out and in do not overlap; zeros map to zero. */
void F2_FN(batch_inv_var)(F2_T *out, const F2_T *in, size_t n);
void F2_FN(pow)(F2_T *r, const F2_T *a, const uint64_t *exp, size_t exp_limbs);
int F2_FN(sqrt_var)(F2_T *r, const F2_T *a);
int F2_FN(legendre_var)(const F2_T *a);
ZKP_WARN_UNUSED zkpipe_status F2_FN(random)(F2_T *r);

#undef F2_T
#undef F2_FN
#undef B_T
#undef B_FN
#undef B_N
#undef ZKP_F2_INLINE
