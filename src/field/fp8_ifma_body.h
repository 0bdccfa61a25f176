/* Eight field elements at once with AVX-512 IFMA: the arithmetic that the
 * vectorised MSM kernels (msm/msm_ifma.c) are made of.
 *
 * Instantiated per field by a file compiled for avx512f and avx512ifma,
 * never included on its own:
 *
 *     #define FP8_NAME  bn254_fq8   (prefix of the types and functions)
 *     #define FP8_FIELD bn254_fq    (the scalar field of field/fp_impl.h)
 *     #define FP8_PARAM BN254_FQ    (its prefix in field_params.h)
 *     #define FP8_N     5           (52-bit limbs; 52 FP8_N >= 64 W)
 *     #include "field/fp8_ifma_body.h"
 *
 * and its functions may run only where zkp_cpu_use_ifma says so.
 *
 * Layout. An FP8 value holds element e of eight in lane e of FP8_N vectors,
 * limb i (bits [52 i, 52 i + 52)) in vector i: IFMA multiplies the low 52
 * bits of each 64-bit lane and adds either half of the 104-bit product to an
 * accumulator, so a 52-bit radix leaves 12 bits of every accumulator for
 * carries and no carry needs to move until the end of a multiplication.
 *
 * The values are the scalar field's own Montgomery form, a R mod p with
 * R = 2^(64 W) for W 64-bit limbs, fully reduced, so loading is only a
 * change of radix and the kernels can mix vector and scalar arithmetic.
 * Dividing by R takes FP8_N - 1 Montgomery rounds of 52 bits and a last
 * round of the FP8_TOP_ bits that remain (48 for 4 limbs, 20 for 6), after
 * which the result is shifted down by FP8_TOP_ bits once.
 *
 * Lazy reduction. Where 4p < R (every field here but BLS12-381's Fr, whose
 * p has 255 bits), values between operations are only kept below 2p: the
 * Montgomery product of two such values is below (4p^2 + R p) / R < 2p
 * without the final subtraction, and add and sub reduce by 2p. scatter
 * subtracts p once more where needed, so memory only ever holds the
 * canonical form. With a 255-bit p every result is reduced below p.
 *
 * Not constant time in the sense of the scalar field's guarantees: the
 * arithmetic has no branches on values, but the loads and stores gather
 * from and scatter to addresses the caller gives (the MSM's buckets). */
#include <immintrin.h>
#include <stdint.h>
#include <string.h>

#include "field/ifma_lanes.h"
#include "field/limbs.h"
#include "util/util.h"

#define FP8_T ZKP_CAT(FP8_NAME, _t)
#define FP8_CTX ZKP_CAT(FP8_NAME, _ctx)
#define FP8_FN(op) ZKP_CAT(ZKP_CAT(FP8_NAME, _), op)
#define FP8_SF ZKP_CAT(FP8_FIELD, _t)
#define FP8_W ((int)(sizeof(FP8_SF) / sizeof(uint64_t)))
#define FP8_TOP_ (64 * FP8_W - 52 * (FP8_N - 1))
#define FP8_MASK_ ((1ULL << 52) - 1)
#define FP8_LAZY_ (ZKP_CAT(FP8_PARAM, _BITS) <= 64 * FP8_W - 2)

typedef struct {
    __m512i l[FP8_N];
} FP8_T;

/* The modulus in 52-bit limbs, the bound values are kept below (2p, or p
 * where the lazy form does not fit) and n0 = -p^(-1) mod 2^52, broadcast. */
typedef struct {
    __m512i p[FP8_N], bound[FP8_N];
    __m512i n0, mask, top_mask;
} FP8_CTX;

/* r = a in every lane. */
static inline void FP8_FN(set1)(FP8_T *r, const FP8_SF *a) {
#pragma GCC unroll 8
    for (int i = 0; i < FP8_N; i++) {
        int q = 52 * i / 64, s = 52 * i % 64;
        uint64_t v = a->l[q] >> s;
        if (s > 12 && q + 1 < FP8_W) v |= a->l[q + 1] << (64 - s);
        r->l[i] = _mm512_set1_epi64((long long)(v & FP8_MASK_));
    }
}

static inline void FP8_FN(ctx_init)(FP8_CTX *c) {
    _Static_assert(52 * FP8_N >= 64 * FP8_W && FP8_TOP_ > 0 && FP8_TOP_ < 52,
                   "the 52-bit limbs must cover the 64-bit ones with a partial last round");
    FP8_T t;
    FP8_FN(set1)(&t, &ZKP_CAT(FP8_FIELD, _modulus));
    memcpy(c->p, t.l, sizeof c->p);
    /* 2p fits the 64-bit limbs wherever the lazy form is used. */
    FP8_SF bound = ZKP_CAT(FP8_FIELD, _modulus);
    if (FP8_LAZY_) (void)zkp_limbs_add(bound.l, bound.l, bound.l, (size_t)FP8_W);
    FP8_FN(set1)(&t, &bound);
    memcpy(c->bound, t.l, sizeof c->bound);
    /* -p^(-1) mod 2^52 is the 64-bit n0 reduced. */
    c->n0 = _mm512_set1_epi64((long long)(ZKP_CAT(FP8_PARAM, _N0) & FP8_MASK_));
    c->mask = _mm512_set1_epi64((long long)FP8_MASK_);
    c->top_mask = _mm512_set1_epi64((long long)((1ULL << FP8_TOP_) - 1));
}

/* r = the FP8_W 64-bit limbs at w[0..FP8_W) in 52-bit limbs. */
static inline void FP8_FN(from_words_)(FP8_T *r, const __m512i *w, const FP8_CTX *c) {
#pragma GCC unroll 8
    for (int i = 0; i < FP8_N; i++) {
        int q = 52 * i / 64, s = 52 * i % 64;
        __m512i v = _mm512_srli_epi64(w[q], (unsigned)s);
        if (s > 12 && q + 1 < FP8_W) v = _mm512_or_si512(v, _mm512_slli_epi64(w[q + 1], (unsigned)(64 - s)));
        r->l[i] = _mm512_and_si512(v, c->mask);
    }
}

/* w[0..FP8_W) = a in 64-bit limbs. */
static inline void FP8_FN(to_words_)(__m512i *w, const FP8_T *a) {
#pragma GCC unroll 8
    for (int q = 0; q < FP8_W; q++) {
        __m512i v = _mm512_setzero_si512();
#pragma GCC unroll 8
        for (int i = 0; i < FP8_N; i++) {
            int lo = 52 * i - 64 * q;
            if (lo >= 64 || lo + 52 <= 0) continue;
            v = _mm512_or_si512(v, lo >= 0 ? _mm512_slli_epi64(a->l[i], (unsigned)lo)
                                           : _mm512_srli_epi64(a->l[i], (unsigned)-lo));
        }
        w[q] = v;
    }
}

/* r = the eight elements at the byte addresses in addr. */
static inline void FP8_FN(gather)(FP8_T *r, __m512i addr, const FP8_CTX *c) {
    __m512i w[FP8_W];
#pragma GCC unroll 8
    for (int q = 0; q < FP8_W; q++)
        w[q] = _mm512_i64gather_epi64(_mm512_add_epi64(addr, _mm512_set1_epi64(8 * q)), NULL, 1);
    FP8_FN(from_words_)(r, w, c);
}


/* r = a - m where that is >= 0, else a; on input a < 2m in 52-bit limbs. */
static inline void FP8_FN(reduce_once_)(FP8_T *r, const FP8_T *a, const __m512i *m, const FP8_CTX *c) {
    FP8_T s;
    __m512i borrow = _mm512_setzero_si512();
#pragma GCC unroll 8
    for (int i = 0; i < FP8_N; i++) {
        __m512i x = _mm512_add_epi64(_mm512_sub_epi64(a->l[i], m[i]), borrow);
        s.l[i] = _mm512_and_si512(x, c->mask);
        borrow = _mm512_srai_epi64(x, 52);
    }
    __mmask8 ge = _mm512_cmpeq_epi64_mask(borrow, _mm512_setzero_si512());
#pragma GCC unroll 8
    for (int i = 0; i < FP8_N; i++) r->l[i] = _mm512_mask_blend_epi64(ge, a->l[i], s.l[i]);
}

/* w = a below p, in 64-bit limbs: what memory holds. */
static inline void FP8_FN(canonical_words_)(__m512i *w, const FP8_T *a, const FP8_CTX *c) {
    if (FP8_LAZY_) {
        FP8_T t;
        FP8_FN(reduce_once_)(&t, a, c->p, c);
        FP8_FN(to_words_)(w, &t);
    } else {
        FP8_FN(to_words_)(w, a);
    }
}

/* The eight elements at the byte addresses in addr = a. Lanes that share an
 * address leave the value of the highest of them. */
static inline void FP8_FN(scatter)(__m512i addr, const FP8_T *a, const FP8_CTX *c) {
    __m512i w[FP8_W];
    FP8_FN(canonical_words_)(w, a, c);
#pragma GCC unroll 8
    for (int q = 0; q < FP8_W; q++)
        _mm512_i64scatter_epi64(NULL, _mm512_add_epi64(addr, _mm512_set1_epi64(8 * q)), w[q], 1);
}

#if ZKP_CAT(FP8_PARAM, _LIMBS) == 4
/* The same for eight elements that lie one after the other at p: four
 * loads and a transpose by two rounds of two-source permutes, where the
 * gathers would load each limb of each element on its own. */
static inline void FP8_FN(load_seq)(FP8_T *r, const FP8_SF *p, const FP8_CTX *c) {
    const __m512i lo4 = _mm512_set_epi64(13, 9, 5, 1, 12, 8, 4, 0), hi4 = _mm512_set_epi64(15, 11, 7, 3, 14, 10, 6, 2);
    const __m512i lo8 = _mm512_set_epi64(11, 10, 9, 8, 3, 2, 1, 0), hi8 = _mm512_set_epi64(15, 14, 13, 12, 7, 6, 5, 4);
    const __m512i *v = (const __m512i *)(const void *)p;
    __m512i v0 = _mm512_loadu_si512(v), v1 = _mm512_loadu_si512(v + 1);
    __m512i v2 = _mm512_loadu_si512(v + 2), v3 = _mm512_loadu_si512(v + 3);
    /* t0: limbs 0, 1 of elements 0-3; t1: limbs 2, 3; t2, t3 the same for 4-7. */
    __m512i t0 = _mm512_permutex2var_epi64(v0, lo4, v1), t1 = _mm512_permutex2var_epi64(v0, hi4, v1);
    __m512i t2 = _mm512_permutex2var_epi64(v2, lo4, v3), t3 = _mm512_permutex2var_epi64(v2, hi4, v3);
    __m512i w[4] = {_mm512_permutex2var_epi64(t0, lo8, t2), _mm512_permutex2var_epi64(t0, hi8, t2),
                    _mm512_permutex2var_epi64(t1, lo8, t3), _mm512_permutex2var_epi64(t1, hi8, t3)};
    FP8_FN(from_words_)(r, w, c);
}

/* The inverse of load_seq. */
static inline void FP8_FN(store_seq)(FP8_SF *p, const FP8_T *a, const FP8_CTX *c) {
    const __m512i lo4 = _mm512_set_epi64(11, 3, 10, 2, 9, 1, 8, 0), hi4 = _mm512_set_epi64(15, 7, 14, 6, 13, 5, 12, 4);
    __m512i w[4];
    FP8_FN(canonical_words_)(w, a, c);
    /* Interleave limbs 0 and 1 (and 2 and 3) of each element, then pairs. */
    __m512i t0 = _mm512_permutex2var_epi64(w[0], lo4, w[1]), t1 = _mm512_permutex2var_epi64(w[0], hi4, w[1]);
    __m512i t2 = _mm512_permutex2var_epi64(w[2], lo4, w[3]), t3 = _mm512_permutex2var_epi64(w[2], hi4, w[3]);
    const __m512i plo = _mm512_set_epi64(11, 10, 3, 2, 9, 8, 1, 0), phi = _mm512_set_epi64(15, 14, 7, 6, 13, 12, 5, 4);
    __m512i *v = (__m512i *)(void *)p;
    _mm512_storeu_si512(v, _mm512_permutex2var_epi64(t0, plo, t2));
    _mm512_storeu_si512(v + 1, _mm512_permutex2var_epi64(t0, phi, t2));
    _mm512_storeu_si512(v + 2, _mm512_permutex2var_epi64(t1, plo, t3));
    _mm512_storeu_si512(v + 3, _mm512_permutex2var_epi64(t1, phi, t3));
}
#endif

/* r = a b / R mod p. r may alias a and/or b. */
static inline void FP8_FN(mul)(FP8_T *r, const FP8_T *a, const FP8_T *b, const FP8_CTX *c) {
    const __m512i zero = _mm512_setzero_si512();
    __m512i t[2 * FP8_N];
#pragma GCC unroll 16
    for (int k = 0; k < 2 * FP8_N; k++) t[k] = zero;
    /* Every column gathers at most 2 FP8_N halves below 2^52 here and two
     * more per Montgomery round, so no accumulator nears 2^64. */
#pragma GCC unroll 8
    for (int i = 0; i < FP8_N; i++) {
#pragma GCC unroll 8
        for (int j = 0; j < FP8_N; j++) {
            t[i + j] = _mm512_madd52lo_epu64(t[i + j], a->l[i], b->l[j]);
            t[i + j + 1] = _mm512_madd52hi_epu64(t[i + j + 1], a->l[i], b->l[j]);
        }
    }
    /* Rounds of 52 bits: m clears column r (its low 52 bits, with the carry
     * of the columns below already in it), whose carry moves up. */
#pragma GCC unroll 8
    for (int r0 = 0; r0 < FP8_N - 1; r0++) {
        __m512i m = _mm512_madd52lo_epu64(zero, t[r0], c->n0);
#pragma GCC unroll 8
        for (int j = 0; j < FP8_N; j++) {
            t[r0 + j] = _mm512_madd52lo_epu64(t[r0 + j], m, c->p[j]);
            t[r0 + j + 1] = _mm512_madd52hi_epu64(t[r0 + j + 1], m, c->p[j]);
        }
        t[r0 + 1] = _mm512_add_epi64(t[r0 + 1], _mm512_srli_epi64(t[r0], 52));
    }
    /* The last round clears only the low FP8_TOP_ bits of column N - 1. */
    {
        __m512i m = _mm512_and_si512(_mm512_madd52lo_epu64(zero, t[FP8_N - 1], c->n0), c->top_mask);
#pragma GCC unroll 8
        for (int j = 0; j < FP8_N; j++) {
            t[FP8_N - 1 + j] = _mm512_madd52lo_epu64(t[FP8_N - 1 + j], m, c->p[j]);
            t[FP8_N + j] = _mm512_madd52hi_epu64(t[FP8_N + j], m, c->p[j]);
        }
    }
    /* Columns N - 1 .. 2N - 1 to 52-bit limbs, then down by FP8_TOP_ bits. */
    __m512i carry = zero;
#pragma GCC unroll 16
    for (int k = FP8_N - 1; k < 2 * FP8_N; k++) {
        __m512i x = _mm512_add_epi64(t[k], carry);
        t[k] = _mm512_and_si512(x, c->mask);
        carry = _mm512_srli_epi64(x, 52);
    }
    FP8_T u;
#pragma GCC unroll 8
    for (int i = 0; i < FP8_N; i++) {
        __m512i lo = _mm512_srli_epi64(t[FP8_N - 1 + i], FP8_TOP_);
        __m512i hi = _mm512_slli_epi64(t[FP8_N + i], 52 - FP8_TOP_);
        u.l[i] = _mm512_and_si512(_mm512_or_si512(lo, hi), c->mask);
    }
    /* (a b + m p) / R < a b / R + p: below 2p, and reduced below p unless
     * the lazy form keeps it below 2p as it is. */
    if (FP8_LAZY_)
        *r = u;
    else
        FP8_FN(reduce_once_)(r, &u, c->p, c);
}

static inline void FP8_FN(sqr)(FP8_T *r, const FP8_T *a, const FP8_CTX *c) { FP8_FN(mul)(r, a, a, c); }

/* r = a + b mod p, below the bound. r may alias a and/or b. */
static inline void FP8_FN(add)(FP8_T *r, const FP8_T *a, const FP8_T *b, const FP8_CTX *c) {
    FP8_T s;
    __m512i carry = _mm512_setzero_si512();
#pragma GCC unroll 8
    for (int i = 0; i < FP8_N; i++) {
        __m512i x = _mm512_add_epi64(_mm512_add_epi64(a->l[i], b->l[i]), carry);
        s.l[i] = _mm512_and_si512(x, c->mask);
        carry = _mm512_srli_epi64(x, 52);
    }
    /* a + b < 2 bound <= 4p < 2^(52 N): no carry leaves the top limb. */
    FP8_FN(reduce_once_)(r, &s, c->bound, c);
}

/* r = a - b mod p, below the bound. r may alias a and/or b. */
static inline void FP8_FN(sub)(FP8_T *r, const FP8_T *a, const FP8_T *b, const FP8_CTX *c) {
    FP8_T d;
    __m512i borrow = _mm512_setzero_si512();
#pragma GCC unroll 8
    for (int i = 0; i < FP8_N; i++) {
        __m512i x = _mm512_add_epi64(_mm512_sub_epi64(a->l[i], b->l[i]), borrow);
        d.l[i] = _mm512_and_si512(x, c->mask);
        borrow = _mm512_srai_epi64(x, 52);
    }
    /* borrow is all ones where a < b: add the bound there; the carry out
     * of the top limb cancels the 2^(52 N) the subtraction borrowed. */
    __m512i carry = _mm512_setzero_si512();
#pragma GCC unroll 8
    for (int i = 0; i < FP8_N; i++) {
        __m512i x = _mm512_add_epi64(_mm512_add_epi64(d.l[i], _mm512_and_si512(c->bound[i], borrow)), carry);
        r->l[i] = _mm512_and_si512(x, c->mask);
        carry = _mm512_srli_epi64(x, 52);
    }
}

#undef FP8_T
#undef FP8_CTX
#undef FP8_FN
#undef FP8_SF
#undef FP8_W
#undef FP8_TOP_
#undef FP8_MASK_
#undef FP8_LAZY_
