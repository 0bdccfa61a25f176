/* Field benchmarks: a dependent chain (x = x op y) so each result feeds the
 * next and the figure is latency per operation, the quantity that bounds
 * point formulas and the pairing. */
#include "bench.h"
#include "field/field.h"

#define FIELD_BENCHES(F)                                                  \
    static void bench_##F##_mul(uint64_t iters) {                        \
        F##_t x, y;                                                       \
        F##_set_u64(&x, 0x1234567);                                       \
        F##_set_u64(&y, 0x89abcdef);                                      \
        F##_neg(&y, &y);                                                  \
        for (uint64_t i = 0; i < iters; i++) F##_mul(&x, &x, &y);         \
        bench_consume(&x, sizeof x);                                      \
    }                                                                     \
    static void bench_##F##_sqr(uint64_t iters) {                        \
        F##_t x;                                                          \
        F##_set_u64(&x, 0x1234567);                                       \
        for (uint64_t i = 0; i < iters; i++) F##_sqr(&x, &x);             \
        bench_consume(&x, sizeof x);                                      \
    }                                                                     \
    static void bench_##F##_add(uint64_t iters) {                        \
        F##_t x, y;                                                       \
        F##_set_u64(&x, 0x1234567);                                       \
        F##_set_u64(&y, 0x89abcdef);                                      \
        F##_neg(&y, &y);                                                  \
        for (uint64_t i = 0; i < iters; i++) F##_add(&x, &x, &y);         \
        bench_consume(&x, sizeof x);                                      \
    }                                                                     \
    static void bench_##F##_inv(uint64_t iters) {                        \
        F##_t x;                                                          \
        F##_set_u64(&x, 0x1234567);                                       \
        for (uint64_t i = 0; i < iters; i++) F##_inv(&x, &x);             \
        bench_consume(&x, sizeof x);                                      \
    }                                                                     \
    static void bench_##F##_inv_var(uint64_t iters) {                    \
        F##_t x;                                                          \
        F##_set_u64(&x, 0x1234567);                                       \
        for (uint64_t i = 0; i < iters; i++) F##_inv_var(&x, &x);         \
        bench_consume(&x, sizeof x);                                      \
    }

FIELD_BENCHES(bn254_fq)
FIELD_BENCHES(bn254_fr)
FIELD_BENCHES(bls12_381_fp)
FIELD_BENCHES(bls12_381_fr)

/* Tower benchmarks, for both curves. The operands are fixed small values
 * of each coefficient, which exercise the same code as any other. */
#define TOWER_BENCHES(C, F1, F2, F6, F12)                                   \
    static void C##_bench_fp2_(F2##_t *x, uint64_t k) {                    \
        F1##_set_u64(&x->c0, 3 + k);                                       \
        F1##_set_u64(&x->c1, 5 + k);                                       \
        F1##_neg(&x->c1, &x->c1);                                          \
    }                                                                      \
    static void C##_bench_fp12_(F12##_t *x, uint64_t k) {                  \
        C##_bench_fp2_(&x->c0.c0, k);                                      \
        C##_bench_fp2_(&x->c0.c1, k + 1);                                  \
        C##_bench_fp2_(&x->c0.c2, k + 2);                                  \
        C##_bench_fp2_(&x->c1.c0, k + 3);                                  \
        C##_bench_fp2_(&x->c1.c1, k + 4);                                  \
        C##_bench_fp2_(&x->c1.c2, k + 5);                                  \
    }                                                                      \
    static void bench_##F2##_mul(uint64_t iters) {                         \
        F2##_t x, y;                                                       \
        C##_bench_fp2_(&x, 0);                                             \
        C##_bench_fp2_(&y, 7);                                             \
        for (uint64_t i = 0; i < iters; i++) F2##_mul(&x, &x, &y);         \
        bench_consume(&x, sizeof x);                                       \
    }                                                                      \
    static void bench_##F2##_sqr(uint64_t iters) {                         \
        F2##_t x;                                                          \
        C##_bench_fp2_(&x, 0);                                             \
        for (uint64_t i = 0; i < iters; i++) F2##_sqr(&x, &x);             \
        bench_consume(&x, sizeof x);                                       \
    }                                                                      \
    static void bench_##F6##_mul(uint64_t iters) {                         \
        F12##_t x, y;                                                      \
        C##_bench_fp12_(&x, 0);                                            \
        C##_bench_fp12_(&y, 11);                                           \
        for (uint64_t i = 0; i < iters; i++) F6##_mul(&x.c0, &x.c0, &y.c1); \
        bench_consume(&x, sizeof x);                                       \
    }                                                                      \
    static void bench_##F6##_sqr(uint64_t iters) {                         \
        F12##_t x;                                                         \
        C##_bench_fp12_(&x, 0);                                            \
        for (uint64_t i = 0; i < iters; i++) F6##_sqr(&x.c0, &x.c0);       \
        bench_consume(&x, sizeof x);                                       \
    }                                                                      \
    static void bench_##F12##_mul(uint64_t iters) {                        \
        F12##_t x, y;                                                      \
        C##_bench_fp12_(&x, 0);                                            \
        C##_bench_fp12_(&y, 11);                                           \
        for (uint64_t i = 0; i < iters; i++) F12##_mul(&x, &x, &y);        \
        bench_consume(&x, sizeof x);                                       \
    }                                                                      \
    static void bench_##F12##_sqr(uint64_t iters) {                        \
        F12##_t x;                                                         \
        C##_bench_fp12_(&x, 0);                                            \
        for (uint64_t i = 0; i < iters; i++) F12##_sqr(&x, &x);            \
        bench_consume(&x, sizeof x);                                       \
    }                                                                      \
    /* Timed on an arbitrary element: the cost does not depend on whether \
     * it lies in the cyclotomic subgroup. */                              \
    static void bench_##F12##_cyclotomic_sqr(uint64_t iters) {             \
        F12##_t x;                                                         \
        C##_bench_fp12_(&x, 0);                                            \
        for (uint64_t i = 0; i < iters; i++) F12##_cyclotomic_sqr(&x, &x); \
        bench_consume(&x, sizeof x);                                       \
    }                                                                      \
    static void bench_##F12##_mul_by_line(uint64_t iters) {                \
        F12##_t x, y;                                                      \
        C##_bench_fp12_(&x, 0);                                            \
        C##_bench_fp12_(&y, 11);                                           \
        for (uint64_t i = 0; i < iters; i++)                               \
            F12##_mul_by_line_(&x, &y.c0.c0, &y.c0.c1, &y.c1.c1);          \
        bench_consume(&x, sizeof x);                                       \
    }                                                                      \
    static void bench_##F12##_inv(uint64_t iters) {                        \
        F12##_t x;                                                         \
        C##_bench_fp12_(&x, 0);                                            \
        for (uint64_t i = 0; i < iters; i++) F12##_inv(&x, &x);            \
        bench_consume(&x, sizeof x);                                       \
    }

/* The sparse line product each curve's Miller loop uses (D-type twist for
 * BN254, M-type for BLS12-381). */
#define bn254_fq12_mul_by_line_(x, a, b, c) bn254_fq12_mul_by_034(x, x, a, b, c)
#define bls12_381_fp12_mul_by_line_(x, a, b, c) bls12_381_fp12_mul_by_014(x, x, a, b, c)

TOWER_BENCHES(bn254, bn254_fq, bn254_fq2, bn254_fq6, bn254_fq12)
TOWER_BENCHES(bls12_381, bls12_381_fp, bls12_381_fp2, bls12_381_fp6, bls12_381_fp12)

#define CASES(F)                                                                        \
    {"field", #F "_mul", bench_##F##_mul}, {"field", #F "_sqr", bench_##F##_sqr},       \
        {"field", #F "_add", bench_##F##_add}, {"field", #F "_inv", bench_##F##_inv}, \
        {"field", #F "_inv_var", bench_##F##_inv_var}

#define TOWER_CASES(F2, F6, F12)                                                                \
    {"field", #F2 "_mul", bench_##F2##_mul}, {"field", #F2 "_sqr", bench_##F2##_sqr},                   \
        {"field", #F6 "_mul", bench_##F6##_mul}, {"field", #F6 "_sqr", bench_##F6##_sqr},               \
        {"field", #F12 "_mul", bench_##F12##_mul}, {"field", #F12 "_sqr", bench_##F12##_sqr},           \
        {"field", #F12 "_cyclotomic_sqr", bench_##F12##_cyclotomic_sqr},                                \
        {"field", #F12 "_mul_by_line", bench_##F12##_mul_by_line}, {"field", #F12 "_inv", bench_##F12##_inv}

const bench_case bench_field_cases[] = {
    CASES(bn254_fq),
    CASES(bn254_fr),
    CASES(bls12_381_fp),
    CASES(bls12_381_fr),
    TOWER_CASES(bn254_fq2, bn254_fq6, bn254_fq12),
    TOWER_CASES(bls12_381_fp2, bls12_381_fp6, bls12_381_fp12),
};
const size_t bench_field_count = sizeof bench_field_cases / sizeof bench_field_cases[0];
