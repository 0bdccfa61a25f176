/* Eight elements of F[u]/(u^2 + 1) at once with AVX-512 IFMA, over the
 * eight-lane prime field of fp8_ifma_body.h: the G2 counterpart of that
 * file, with the same function names and contract so that one MSM kernel
 * body serves both. Instantiated by a file compiled for avx512f and
 * avx512ifma, after the base field's instantiation:
 *
 *     #define FP28_NAME  bn254_fq2x8  (prefix of the types and functions)
 *     #define FP28_BASE  bn254_fq8    (the eight-lane base field)
 *     #define FP28_FIELD bn254_fq2    (the scalar field of field/fp2_impl.h)
 *     #include "field/fp2x8_ifma_body.h"
 *
 * A value is c0 + c1 u, each coefficient an eight-lane base value; in
 * memory an element is its two coefficients one after the other, as in the
 * scalar field. */
#include <immintrin.h>

#include "util/util.h"

#define FP28_T ZKP_CAT(FP28_NAME, _t)
#define FP28_CTX ZKP_CAT(FP28_NAME, _ctx)
#define FP28_FN(op) ZKP_CAT(ZKP_CAT(FP28_NAME, _), op)
#define FP28_B_T ZKP_CAT(FP28_BASE, _t)
#define FP28_B(op) ZKP_CAT(ZKP_CAT(FP28_BASE, _), op)
/* Bytes from c0 to c1 of an element in memory. */
#define FP28_C1_OFF_ ((long long)sizeof(ZKP_CAT(FP28_FIELD, _t)) / 2)

typedef struct {
    FP28_B_T c0, c1;
} FP28_T;

typedef ZKP_CAT(FP28_BASE, _ctx) FP28_CTX;

static inline void FP28_FN(ctx_init)(FP28_CTX *c) { FP28_B(ctx_init)(c); }

static inline void FP28_FN(gather)(FP28_T *r, __m512i addr, const FP28_CTX *c) {
    FP28_B(gather)(&r->c0, addr, c);
    FP28_B(gather)(&r->c1, _mm512_add_epi64(addr, _mm512_set1_epi64(FP28_C1_OFF_)), c);
}

static inline void FP28_FN(scatter)(__m512i addr, const FP28_T *a, const FP28_CTX *c) {
    FP28_B(scatter)(addr, &a->c0, c);
    FP28_B(scatter)(_mm512_add_epi64(addr, _mm512_set1_epi64(FP28_C1_OFF_)), &a->c1, c);
}

static inline void FP28_FN(sub)(FP28_T *r, const FP28_T *a, const FP28_T *b, const FP28_CTX *c) {
    FP28_B(sub)(&r->c0, &a->c0, &b->c0, c);
    FP28_B(sub)(&r->c1, &a->c1, &b->c1, c);
}

/* Karatsuba: three base products. r may alias a and/or b. */
static inline void FP28_FN(mul)(FP28_T *r, const FP28_T *a, const FP28_T *b, const FP28_CTX *c) {
    FP28_B_T v0, v1, sa, sb;
    FP28_B(mul)(&v0, &a->c0, &b->c0, c);
    FP28_B(mul)(&v1, &a->c1, &b->c1, c);
    FP28_B(add)(&sa, &a->c0, &a->c1, c);
    FP28_B(add)(&sb, &b->c0, &b->c1, c);
    FP28_B(mul)(&sa, &sa, &sb, c);
    FP28_B(sub)(&r->c0, &v0, &v1, c);
    FP28_B(sub)(&sa, &sa, &v0, c);
    FP28_B(sub)(&r->c1, &sa, &v1, c);
}

/* (a0 + a1 u)^2 = (a0 + a1)(a0 - a1) + 2 a0 a1 u: two base products. */
static inline void FP28_FN(sqr)(FP28_T *r, const FP28_T *a, const FP28_CTX *c) {
    FP28_B_T s, d, m;
    FP28_B(add)(&s, &a->c0, &a->c1, c);
    FP28_B(sub)(&d, &a->c0, &a->c1, c);
    FP28_B(mul)(&m, &a->c0, &a->c1, c);
    FP28_B(mul)(&r->c0, &s, &d, c);
    FP28_B(add)(&r->c1, &m, &m, c);
}

#undef FP28_T
#undef FP28_CTX
#undef FP28_FN
#undef FP28_B_T
#undef FP28_B
#undef FP28_C1_OFF_
