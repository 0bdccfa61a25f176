/* Generic cubic extension Fp6 = Fp2[v]/(v^3 - xi): the inline half.
 *
 * Both curves build Fp6 over their Fp2 with a non-residue xi = c + u of the
 * same shape (c = 9 for BN254, c = 1 for BLS12-381); the generator asserts
 * that xi is neither a square nor a cube in Fp2, which makes v^3 - xi (and
 * w^2 - v one level up) irreducible. Instantiated by the tower header with
 *
 *     #define FP6_NAME  bn254_fq6   (prefix of the type and functions)
 *     #define FP6_BASE  bn254_fq2   (the quadratic extension below)
 *     #define FP6_PRIME bn254_fq    (the prime field at the bottom)
 *     #define FP6_PRIME_PARAM BN254_FQ   (its constants in field_params.h)
 *     #define FP6_PARAM BN254       (prefix of the constants in tower_params.h)
 *     #include "field/fp6_impl.h"
 *
 * and in exactly one .c file per curve, fp6_body.h after it.
 *
 * An element is c0 + c1·v + c2·v^2 with c0, c1, c2 in Fp2. The operations
 * follow the field contract in field.h: outputs may alias inputs, everything
 * without a _var suffix is constant time, and every coefficient stays fully
 * reduced.
 *
 *   F6_set_zero, F6_set_one, F6_is_zero, F6_is_one, F6_eq, F6_cmov
 *   F6_add, F6_sub, F6_dbl, F6_neg
 *   F6_mul      Karatsuba, 6 Fp2 products
 *   F6_sqr      Chung-Hasan SQR2, 2 Fp2 products and 3 Fp2 squarings
 *   F6_inv      one Fp2 inversion (so one Fp inversion); 0 maps to 0
 *   F6_inv_var  the same through the variable-time Fp inversion
 *   F6_mul_by_nonresidue(r, a)   r = a·v
 *   F6_mul_xi(r, a)              r = xi·a for a in Fp2
 *   F6_mul_fp2(r, a, b)          r = a·b for b in Fp2
 *   F6_mul_by_01(r, a, b0, b1)   r = a·(b0 + b1 v)   (line functions)
 *   F6_mul_by_1(r, a, b1)        r = a·(b1 v)
 *   F6_frobenius(r, a, k)        r = a^(p^k), k = 1, 2, 3
 *   F6_pow(r, a, exp, limbs)     public exponent, little-endian limbs
 *
 * Lazy reduction. The products above (and those of Fp12) are built from
 * double-precision values: a product of two base-field elements is kept as
 * the 2N-limb integer a·b, sums and differences of such products are formed
 * at that width, and one Montgomery reduction per output coefficient brings
 * the result back, instead of one per product (Aranha, Karabina, Longa,
 * Gebotys, Lopez, "Faster explicit formulas for computing pairings over
 * ordinary curves", EUROCRYPT 2011, section 3). An Fp6 product thus takes
 * 18 double-width products but 6 reductions instead of 18. The wfp*_t
 * types and the wfp*_ helpers below are that machinery; they are internal
 * to the towers (and the pairing's point arithmetic may use them). The
 * wide product and the reduction dispatch on zkp_cpu_use_adx to the kernels
 * of mont_x86.c, like F_mul; the rest is portable C. */
#include "field/limbs.h"
#include "field/tower_params.h"
#include "util/cpu.h"
#ifdef ZKP_HAVE_X86_ASM
#include "field/mont_x86.h"
#endif

#define F6_T ZKP_CAT(FP6_NAME, _t)
#define F6_FN(op) ZKP_CAT(ZKP_CAT(FP6_NAME, _), op)
#define F2_T ZKP_CAT(FP6_BASE, _t)
#define F2_FN(op) ZKP_CAT(ZKP_CAT(FP6_BASE, _), op)
#define F1_T ZKP_CAT(FP6_PRIME, _t)
#define F1_FN(op) ZKP_CAT(ZKP_CAT(FP6_PRIME, _), op)
#define F6_XI_C0 ZKP_CAT(FP6_PARAM, _TOWER_XI_C0)
#define FD_N ZKP_CAT(FP6_PRIME_PARAM, _LIMBS)
#define FD_N0 ZKP_CAT(FP6_PRIME_PARAM, _N0)
#define WFP_T ZKP_CAT(FP6_NAME, _wfp_t)
#define WFP2_T ZKP_CAT(FP6_NAME, _wfp2_t)
#define WFP6_T ZKP_CAT(FP6_NAME, _wfp6_t)
#if defined(__clang__)
#define F6_UNROLL _Pragma("unroll")
#elif defined(__GNUC__)
#define F6_UNROLL _Pragma("GCC unroll 16")
#else
#define F6_UNROLL
#endif

typedef struct {
    F2_T c0, c1, c2;
} F6_T;

#ifndef ZKP_FIELD_TOWER_CARRY_DEFINED
#define ZKP_FIELD_TOWER_CARRY_DEFINED
/* Carry chains for the double-precision code. Unlike zkp_addc, the carry
 * travels as an unsigned char, the type of the intrinsics' carry-in, which
 * lets GCC keep more of a chain in the carry flag instead of materialising
 * it between limbs. */
#ifdef ZKP_LIMBS_ADC
typedef unsigned char zkp_tower_carry;
static inline zkp_tower_carry zkp_tower_adc(uint64_t *r, uint64_t a, uint64_t b, zkp_tower_carry c) {
    unsigned long long out;
    c = _addcarry_u64(c, a, b, &out);
    *r = out;
    return c;
}
static inline zkp_tower_carry zkp_tower_sbb(uint64_t *r, uint64_t a, uint64_t b, zkp_tower_carry c) {
    unsigned long long out;
    c = _subborrow_u64(c, a, b, &out);
    *r = out;
    return c;
}
#else
typedef uint64_t zkp_tower_carry;
static inline zkp_tower_carry zkp_tower_adc(uint64_t *r, uint64_t a, uint64_t b, zkp_tower_carry c) {
    return zkp_addc(r, a, b, c);
}
static inline zkp_tower_carry zkp_tower_sbb(uint64_t *r, uint64_t a, uint64_t b, zkp_tower_carry c) {
    return zkp_subb(r, a, b, c);
}
#endif
#endif

/* ---- Double precision ---------------------------------------------------
 *
 * A WFP_T holds an integer T in [0, pR), R = 2^(64N), as 2N limbs; it
 * stands for the field element T/R mod p, which Montgomery reduction
 * (wfp_redc_) returns. A product of two Montgomery forms aR, bR is abR^2,
 * whose reduction is abR, the Montgomery form of ab, so products enter this
 * representation without a conversion. Sums and differences are taken
 * modulo pR, which keeps the range and does not change T/R mod p.
 *
 * Products are formed from factors below 2p (reduced elements, or sums of
 * two), so they are below 4p^2, and 4p < R for both curves (the generator
 * asserts it), so every product is below pR. */
typedef struct {
    uint64_t l[2 * FD_N];
} WFP_T;
typedef struct {
    WFP_T c0, c1;
} WFP2_T;
typedef struct {
    WFP2_T c0, c1, c2;
} WFP6_T;

/* 1 if T < pR, the range every WFP_T keeps: its high half is below p. */
static inline int F6_FN(wfp_is_bounded_)(const WFP_T *a) {
    return (int)zkp_limbs_lt(&a->l[FD_N], F1_FN(modulus).l, FD_N);
}

/* r = a·b as integers. On input a·b < pR (factors below 2p suffice).
 * Operand scanning: each row adds the low halves of a·b_i with one carry
 * chain and then the high halves, one limb up, with a second, so that each
 * chain can live in the carry flag. */
static inline void F6_FN(wfp_mul_portable_)(WFP_T *r, const F1_T *a, const F1_T *b) {
    uint64_t t[2 * FD_N], lo[FD_N], hi[FD_N];
    zkp_tower_carry c;
    F6_UNROLL
    for (int j = 0; j < FD_N; j++) {
        zkp_u128 m = (zkp_u128)a->l[j] * b->l[0];
        lo[j] = (uint64_t)m;
        hi[j] = (uint64_t)(m >> 64);
    }
    t[0] = lo[0];
    c = 0;
    F6_UNROLL
    for (int j = 1; j < FD_N; j++) c = zkp_tower_adc(&t[j], lo[j], hi[j - 1], c);
    t[FD_N] = hi[FD_N - 1] + c;
    F6_UNROLL
    for (int i = 1; i < FD_N; i++) {
        F6_UNROLL
        for (int j = 0; j < FD_N; j++) {
            zkp_u128 m = (zkp_u128)a->l[j] * b->l[i];
            lo[j] = (uint64_t)m;
            hi[j] = (uint64_t)(m >> 64);
        }
        c = 0;
        F6_UNROLL
        for (int j = 0; j < FD_N; j++) c = zkp_tower_adc(&t[i + j], t[i + j], lo[j], c);
        uint64_t top = c;
        c = 0;
        F6_UNROLL
        for (int j = 1; j < FD_N; j++) c = zkp_tower_adc(&t[i + j], t[i + j], hi[j - 1], c);
        /* The partial sum fits in i + N + 1 limbs, so this cannot wrap. */
        t[i + FD_N] = hi[FD_N - 1] + top + c;
    }
    F6_UNROLL
    for (int j = 0; j < 2 * FD_N; j++) r->l[j] = t[j];
    ZKP_VERIFY_CHECK(F6_FN(wfp_is_bounded_)(r));
}

/* r = T/R mod p, reduced, for T < pR: N rounds of adding m·p (m chosen to
 * clear the lowest limb) and dropping that limb leave (T + M p)/R < 2p, and
 * one conditional subtraction finishes. */
static inline void F6_FN(wfp_redc_portable_)(F1_T *r, const WFP_T *a) {
    const uint64_t *p = F1_FN(modulus).l;
    ZKP_VERIFY_CHECK(F6_FN(wfp_is_bounded_)(a));
    uint64_t t[2 * FD_N], lo[FD_N], hi[FD_N], pend = 0;
    zkp_tower_carry c;
    F6_UNROLL
    for (int j = 0; j < 2 * FD_N; j++) t[j] = a->l[j];
    F6_UNROLL
    for (int i = 0; i < FD_N; i++) {
        uint64_t m = t[i] * FD_N0;
        F6_UNROLL
        for (int j = 0; j < FD_N; j++) {
            zkp_u128 x = (zkp_u128)m * p[j];
            lo[j] = (uint64_t)x;
            hi[j] = (uint64_t)(x >> 64);
        }
        c = 0;
        F6_UNROLL
        for (int j = 0; j < FD_N; j++) c = zkp_tower_adc(&t[i + j], t[i + j], lo[j], c);
        uint64_t c1 = c;
        c = 0;
        F6_UNROLL
        for (int j = 1; j < FD_N; j++) c = zkp_tower_adc(&t[i + j], t[i + j], hi[j - 1], c);
        /* Limb i + N takes the top high half, both chains' carries and the
         * carry left over from the previous round; its own carry waits for
         * the next round. hi <= 2^64 - 2, so hi + c1 does not wrap. The
         * total stays below 2pR < 2^(128N), so no carry is left at the end. */
        uint64_t d = zkp_tower_adc(&t[i + FD_N], t[i + FD_N], hi[FD_N - 1] + c1, c);
        uint64_t e = zkp_tower_adc(&t[i + FD_N], t[i + FD_N], pend, 0);
        pend = d + e;
    }
    uint64_t s[FD_N];
    c = 0;
    F6_UNROLL
    for (int j = 0; j < FD_N; j++) c = zkp_tower_sbb(&s[j], t[FD_N + j], p[j], c);
    uint64_t keep_t = zkp_ct_mask(c);
    ZKP_VERIFY_CHECK(pend == 0);
    F6_UNROLL
    for (int j = 0; j < FD_N; j++) r->l[j] = (t[FD_N + j] & keep_t) | (s[j] & ~keep_t);
}

/* The dispatchers, as F_mul does it: on the ADX path the two halves are the
 * mulx/adcx/adox kernels of mont_x86.c (about 2.5x faster than the C above
 * for 6 limbs, and the reason lazy reduction pays on that path at all: with
 * the C halves a product plus its share of a reduction costs more than one
 * whole ADX Montgomery product). */
static inline void F6_FN(wfp_mul_)(WFP_T *r, const F1_T *a, const F1_T *b) {
#if defined(ZKP_HAVE_X86_ASM) && (FD_N == 4 || FD_N == 6)
    if (ZKP_LIKELY(zkp_cpu_use_adx)) {
        ZKP_CAT(ZKP_CAT(zkp_mul_wide_, FD_N), _adx)(r->l, a->l, b->l);
        ZKP_VERIFY_CHECK(F6_FN(wfp_is_bounded_)(r));
        return;
    }
#endif
    F6_FN(wfp_mul_portable_)(r, a, b);
}

static inline void F6_FN(wfp_redc_)(F1_T *r, const WFP_T *a) {
#if defined(ZKP_HAVE_X86_ASM) && (FD_N == 4 || FD_N == 6)
    if (ZKP_LIKELY(zkp_cpu_use_adx)) {
        ZKP_VERIFY_CHECK(F6_FN(wfp_is_bounded_)(a));
        ZKP_CAT(ZKP_CAT(zkp_redc_, FD_N), _adx)(r->l, a->l, F1_FN(modulus).l, FD_N0);
        return;
    }
#endif
    F6_FN(wfp_redc_portable_)(r, a);
}

/* r = a + b mod pR. Subtracting pR only touches the high half. */
static inline void F6_FN(wfp_add_)(WFP_T *r, const WFP_T *a, const WFP_T *b) {
    uint64_t t[2 * FD_N], s[FD_N];
    ZKP_VERIFY_CHECK(F6_FN(wfp_is_bounded_)(a) && F6_FN(wfp_is_bounded_)(b));
#if defined(ZKP_HAVE_X86_ASM) && FD_N == 6
    /* On the ADX path the high half, with its conditional subtraction, is
     * the inline asm of mont_x86.h, which the compiler cannot vectorise
     * into store-forwarding stalls (see there). Writing the low half of r
     * first is safe for r == a or r == b: the asm reads only high limbs.
     * For 4 limbs the C below measured faster (BN254 Fp12 products 5-15%),
     * so it stays. */
    if (ZKP_LIKELY(zkp_cpu_use_adx)) {
        zkp_tower_carry cl = 0;
        F6_UNROLL
        for (int j = 0; j < FD_N; j++) cl = zkp_tower_adc(&r->l[j], a->l[j], b->l[j], cl);
        ZKP_CAT(ZKP_CAT(zkp_add_mod_c_, FD_N), _x86)(&r->l[FD_N], &a->l[FD_N], &b->l[FD_N],
                                                      F1_FN(modulus).l, cl);
        return;
    }
#endif
    zkp_tower_carry c = 0;
    F6_UNROLL
    for (int j = 0; j < 2 * FD_N; j++) c = zkp_tower_adc(&t[j], a->l[j], b->l[j], c);
    /* 2pR < 2^(128N): no carry out. */
    c = 0;
    F6_UNROLL
    for (int j = 0; j < FD_N; j++) c = zkp_tower_sbb(&s[j], t[FD_N + j], F1_FN(modulus).l[j], c);
    uint64_t keep_t = zkp_ct_mask(c);
    F6_UNROLL
    for (int j = 0; j < FD_N; j++) r->l[j] = t[j];
    F6_UNROLL
    for (int j = 0; j < FD_N; j++) r->l[FD_N + j] = (t[FD_N + j] & keep_t) | (s[j] & ~keep_t);
}

/* r = a - b mod pR: on a borrow, add pR (p to the high half). */
static inline void F6_FN(wfp_sub_)(WFP_T *r, const WFP_T *a, const WFP_T *b) {
    uint64_t t[2 * FD_N], p_masked[FD_N];
    ZKP_VERIFY_CHECK(F6_FN(wfp_is_bounded_)(a) && F6_FN(wfp_is_bounded_)(b));
#if defined(ZKP_HAVE_X86_ASM) && FD_N == 6
    /* As in wfp_add_. The high half a_h - b_h - borrow is above -p (a_h >= 0,
     * b_h < p), as the asm requires. */
    if (ZKP_LIKELY(zkp_cpu_use_adx)) {
        zkp_tower_carry cl = 0;
        F6_UNROLL
        for (int j = 0; j < FD_N; j++) cl = zkp_tower_sbb(&r->l[j], a->l[j], b->l[j], cl);
        ZKP_CAT(ZKP_CAT(zkp_sub_mod_c_, FD_N), _x86)(&r->l[FD_N], &a->l[FD_N], &b->l[FD_N],
                                                      F1_FN(modulus).l, cl);
        return;
    }
#endif
    zkp_tower_carry c = 0;
    F6_UNROLL
    for (int j = 0; j < 2 * FD_N; j++) c = zkp_tower_sbb(&t[j], a->l[j], b->l[j], c);
    uint64_t mask = zkp_ct_mask(c);
    F6_UNROLL
    for (int j = 0; j < FD_N; j++) p_masked[j] = F1_FN(modulus).l[j] & mask;
    F6_UNROLL
    for (int j = 0; j < FD_N; j++) r->l[j] = t[j];
    c = 0;
    F6_UNROLL
    for (int j = 0; j < FD_N; j++) c = zkp_tower_adc(&r->l[FD_N + j], t[FD_N + j], p_masked[j], c);
}

/* Exact a - b for a >= b, as in the Karatsuba middle term. */
static inline void F6_FN(wfp_sub_exact_)(WFP_T *r, const WFP_T *a, const WFP_T *b) {
    zkp_tower_carry c = 0;
    F6_UNROLL
    for (int j = 0; j < 2 * FD_N; j++) c = zkp_tower_sbb(&r->l[j], a->l[j], b->l[j], c);
    ZKP_VERIFY_CHECK(c == 0);
}

/* a + b and p - b + a on limbs, without reduction: results below 2p, only
 * for use as factors of wfp_mul_. */
static inline void F6_FN(fp_add_nr_)(F1_T *r, const F1_T *a, const F1_T *b) {
    zkp_tower_carry c = 0;
    F6_UNROLL
    for (int j = 0; j < FD_N; j++) c = zkp_tower_adc(&r->l[j], a->l[j], b->l[j], c);
}
static inline void F6_FN(fp_sub_nr_)(F1_T *r, const F1_T *a, const F1_T *b) {
    uint64_t t[FD_N];
    zkp_tower_carry c = 0;
    F6_UNROLL
    for (int j = 0; j < FD_N; j++) c = zkp_tower_sbb(&t[j], F1_FN(modulus).l[j], b->l[j], c);
    c = 0;
    F6_UNROLL
    for (int j = 0; j < FD_N; j++) c = zkp_tower_adc(&r->l[j], t[j], a->l[j], c);
}

/* Fp2 at double precision: Karatsuba, three wide products. With
 * t0 = a0 b0, t1 = a1 b1, t2 = (a0 + a1)(b0 + b1): c1 = t2 - t0 - t1 equals
 * a0 b1 + a1 b0 < 2p^2 exactly, so its subtractions need no correction; c0
 * = t0 - t1 is taken modulo pR. On input a, b are reduced. */
static inline void F6_FN(wfp2_mul_)(WFP2_T *r, const F2_T *a, const F2_T *b) {
    WFP_T t0, t1, t2;
    F1_T sa, sb;
    F6_FN(wfp_mul_)(&t0, &a->c0, &b->c0);
    F6_FN(wfp_mul_)(&t1, &a->c1, &b->c1);
    F6_FN(fp_add_nr_)(&sa, &a->c0, &a->c1);
    F6_FN(fp_add_nr_)(&sb, &b->c0, &b->c1);
    F6_FN(wfp_mul_)(&t2, &sa, &sb);
    F6_FN(wfp_sub_exact_)(&t2, &t2, &t0);
    F6_FN(wfp_sub_exact_)(&r->c1, &t2, &t1);
    F6_FN(wfp_sub_)(&r->c0, &t0, &t1);
}

/* (a0 + a1 u)^2 = (a0 + a1)(a0 - a1) + 2 a0 a1 u, with a0 - a1 formed as
 * a0 + p - a1 so that both factors stay nonnegative and below 2p. On input
 * a is reduced. */
static inline void F6_FN(wfp2_sqr_)(WFP2_T *r, const F2_T *a) {
    F1_T s, d;
    F6_FN(fp_add_nr_)(&s, &a->c0, &a->c1);
    F6_FN(fp_sub_nr_)(&d, &a->c0, &a->c1);
    F6_FN(wfp_mul_)(&r->c0, &s, &d);
    F6_FN(fp_add_nr_)(&s, &a->c0, &a->c0);
    F6_FN(wfp_mul_)(&r->c1, &s, &a->c1);
}

static inline void F6_FN(wfp2_add_)(WFP2_T *r, const WFP2_T *a, const WFP2_T *b) {
    F6_FN(wfp_add_)(&r->c0, &a->c0, &b->c0);
    F6_FN(wfp_add_)(&r->c1, &a->c1, &b->c1);
}
static inline void F6_FN(wfp2_sub_)(WFP2_T *r, const WFP2_T *a, const WFP2_T *b) {
    F6_FN(wfp_sub_)(&r->c0, &a->c0, &b->c0);
    F6_FN(wfp_sub_)(&r->c1, &a->c1, &b->c1);
}
static inline void F6_FN(wfp2_redc_)(F2_T *r, const WFP2_T *a) {
    F6_FN(wfp_redc_)(&r->c0, &a->c0);
    F6_FN(wfp_redc_)(&r->c1, &a->c1);
}

/* r = c·a mod pR for the small constant c of xi (see base_mul_xi_c0_). */
static inline void F6_FN(wfp_mul_xi_c0_)(WFP_T *r, const WFP_T *a) {
    WFP_T acc = *a;
    int started = 0;
    for (int i = 7; i >= 0; i--) {
        if (started) F6_FN(wfp_add_)(&acc, &acc, &acc);
        if ((F6_XI_C0 >> i) & 1) {
            if (started) F6_FN(wfp_add_)(&acc, &acc, a);
            started = 1;
        }
    }
    *r = acc;
}

/* r = xi·a at double precision: (c a0 - a1) + (a0 + c a1) u. */
static inline void F6_FN(wfp2_mul_xi_)(WFP2_T *r, const WFP2_T *a) {
    WFP_T t0, t1;
    F6_FN(wfp_mul_xi_c0_)(&t0, &a->c0);
    F6_FN(wfp_mul_xi_c0_)(&t1, &a->c1);
    F6_FN(wfp_sub_)(&t0, &t0, &a->c1);
    F6_FN(wfp_add_)(&r->c1, &t1, &a->c0);
    r->c0 = t0;
}

static inline void F6_FN(wfp6_add_)(WFP6_T *r, const WFP6_T *a, const WFP6_T *b) {
    F6_FN(wfp2_add_)(&r->c0, &a->c0, &b->c0);
    F6_FN(wfp2_add_)(&r->c1, &a->c1, &b->c1);
    F6_FN(wfp2_add_)(&r->c2, &a->c2, &b->c2);
}
static inline void F6_FN(wfp6_sub_)(WFP6_T *r, const WFP6_T *a, const WFP6_T *b) {
    F6_FN(wfp2_sub_)(&r->c0, &a->c0, &b->c0);
    F6_FN(wfp2_sub_)(&r->c1, &a->c1, &b->c1);
    F6_FN(wfp2_sub_)(&r->c2, &a->c2, &b->c2);
}
/* r = a·v: (xi a2, a0, a1). */
static inline void F6_FN(wfp6_mul_by_nonresidue_)(WFP6_T *r, const WFP6_T *a) {
    WFP2_T t;
    F6_FN(wfp2_mul_xi_)(&t, &a->c2);
    r->c2 = a->c1;
    r->c1 = a->c0;
    r->c0 = t;
}
static inline void F6_FN(wfp6_redc_)(F6_T *r, const WFP6_T *a) {
    F6_FN(wfp2_redc_)(&r->c0, &a->c0);
    F6_FN(wfp2_redc_)(&r->c1, &a->c1);
    F6_FN(wfp2_redc_)(&r->c2, &a->c2);
}

static inline int F6_FN(is_reduced)(const F6_T *a) {
    return F2_FN(is_reduced)(&a->c0) && F2_FN(is_reduced)(&a->c1) && F2_FN(is_reduced)(&a->c2);
}
static inline void F6_FN(set_zero)(F6_T *r) {
    F2_FN(set_zero)(&r->c0);
    F2_FN(set_zero)(&r->c1);
    F2_FN(set_zero)(&r->c2);
}
static inline void F6_FN(set_one)(F6_T *r) {
    F2_FN(set_one)(&r->c0);
    F2_FN(set_zero)(&r->c1);
    F2_FN(set_zero)(&r->c2);
}
static inline int F6_FN(is_zero)(const F6_T *a) {
    return F2_FN(is_zero)(&a->c0) & F2_FN(is_zero)(&a->c1) & F2_FN(is_zero)(&a->c2);
}
static inline int F6_FN(is_one)(const F6_T *a) {
    return F2_FN(is_one)(&a->c0) & F2_FN(is_zero)(&a->c1) & F2_FN(is_zero)(&a->c2);
}
static inline int F6_FN(eq)(const F6_T *a, const F6_T *b) {
    return F2_FN(eq)(&a->c0, &b->c0) & F2_FN(eq)(&a->c1, &b->c1) & F2_FN(eq)(&a->c2, &b->c2);
}
static inline void F6_FN(cmov)(F6_T *r, const F6_T *a, int flag) {
    F2_FN(cmov)(&r->c0, &a->c0, flag);
    F2_FN(cmov)(&r->c1, &a->c1, flag);
    F2_FN(cmov)(&r->c2, &a->c2, flag);
}
static inline void F6_FN(add)(F6_T *r, const F6_T *a, const F6_T *b) {
    F2_FN(add)(&r->c0, &a->c0, &b->c0);
    F2_FN(add)(&r->c1, &a->c1, &b->c1);
    F2_FN(add)(&r->c2, &a->c2, &b->c2);
}
static inline void F6_FN(sub)(F6_T *r, const F6_T *a, const F6_T *b) {
    F2_FN(sub)(&r->c0, &a->c0, &b->c0);
    F2_FN(sub)(&r->c1, &a->c1, &b->c1);
    F2_FN(sub)(&r->c2, &a->c2, &b->c2);
}
static inline void F6_FN(dbl)(F6_T *r, const F6_T *a) {
    F2_FN(dbl)(&r->c0, &a->c0);
    F2_FN(dbl)(&r->c1, &a->c1);
    F2_FN(dbl)(&r->c2, &a->c2);
}
static inline void F6_FN(neg)(F6_T *r, const F6_T *a) {
    F2_FN(neg)(&r->c0, &a->c0);
    F2_FN(neg)(&r->c1, &a->c1);
    F2_FN(neg)(&r->c2, &a->c2);
}

/* r = c·a for the small public constant c of xi. The loop runs over the bits
 * of a compile-time constant, so after inlining it is a fixed chain of
 * doublings and additions (three and one for c = 9, nothing for c = 1), far
 * cheaper than a Montgomery product. */
static inline void F6_FN(base_mul_xi_c0_)(F1_T *r, const F1_T *a) {
    F1_T acc = *a;
    int started = 0;
    for (int i = 7; i >= 0; i--) {
        if (started) F2_FN(base_add_)(&acc, &acc, &acc);
        if ((F6_XI_C0 >> i) & 1) {
            if (started) F2_FN(base_add_)(&acc, &acc, a);
            started = 1;
        }
    }
    *r = acc;
}

/* r = xi·a for a in Fp2: (a0 + a1 u)(c + u) = (c a0 - a1) + (a0 + c a1) u. */
static inline void F6_FN(mul_xi)(F2_T *r, const F2_T *a) {
    F1_T t0, t1;
    F6_FN(base_mul_xi_c0_)(&t0, &a->c0);
    F6_FN(base_mul_xi_c0_)(&t1, &a->c1);
    F2_FN(base_sub_)(&t0, &t0, &a->c1);
    F2_FN(base_add_)(&r->c1, &t1, &a->c0);
    r->c0 = t0;
}

/* r = a·v: the coefficients rotate up and v^3 = xi wraps the top one. */
static inline void F6_FN(mul_by_nonresidue)(F6_T *r, const F6_T *a) {
    F2_T t;
    F6_FN(mul_xi)(&t, &a->c2);
    r->c2 = a->c1;
    r->c1 = a->c0;
    r->c0 = t;
}

static inline void F6_FN(mul_fp2)(F6_T *r, const F6_T *a, const F2_T *b) {
    F2_FN(mul)(&r->c0, &a->c0, b);
    F2_FN(mul)(&r->c1, &a->c1, b);
    F2_FN(mul)(&r->c2, &a->c2, b);
}

/* Out-of-line operations (fp6_body.h). The wfp6_* products are the lazy
 * halves of mul, sqr and the sparse products, for the Fp12 code: they leave
 * the result at double precision. On input the Fp6 operands are reduced. */
void F6_FN(wfp6_mul_)(WFP6_T *r, const F6_T *a, const F6_T *b);
void F6_FN(wfp6_sqr_)(WFP6_T *r, const F6_T *a);
void F6_FN(wfp6_mul_fp2_)(WFP6_T *r, const F6_T *a, const F2_T *b);
void F6_FN(wfp6_mul_by_01_)(WFP6_T *r, const F6_T *a, const F2_T *b0, const F2_T *b1);
void F6_FN(wfp6_mul_by_1_)(WFP6_T *r, const F6_T *a, const F2_T *b1);
void F6_FN(mul)(F6_T *r, const F6_T *a, const F6_T *b);
void F6_FN(sqr)(F6_T *r, const F6_T *a);
void F6_FN(mul_by_01)(F6_T *r, const F6_T *a, const F2_T *b0, const F2_T *b1);
void F6_FN(mul_by_1)(F6_T *r, const F6_T *a, const F2_T *b1);
void F6_FN(inv)(F6_T *r, const F6_T *a);
void F6_FN(inv_var)(F6_T *r, const F6_T *a);
/* On input k is 1, 2 or 3. */
void F6_FN(frobenius)(F6_T *r, const F6_T *a, unsigned k);
void F6_FN(pow)(F6_T *r, const F6_T *a, const uint64_t *exp, size_t exp_limbs);

#undef F6_T
#undef F6_FN
#undef F2_T
#undef F2_FN
#undef F1_T
#undef F1_FN
#undef F6_XI_C0
#undef FD_N
#undef FD_N0
#undef WFP_T
#undef WFP2_T
#undef WFP6_T
#undef F6_UNROLL
