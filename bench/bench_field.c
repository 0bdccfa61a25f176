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

static void bench_bls12_381_fp2_mul(uint64_t iters) {
    bls12_381_fp2_t x, y;
    bls12_381_fp_set_u64(&x.c0, 3);
    bls12_381_fp_set_u64(&x.c1, 5);
    bls12_381_fp_set_u64(&y.c0, 7);
    bls12_381_fp_neg(&y.c1, &x.c1);
    for (uint64_t i = 0; i < iters; i++) bls12_381_fp2_mul(&x, &x, &y);
    bench_consume(&x, sizeof x);
}

static void bench_bls12_381_fp2_sqr(uint64_t iters) {
    bls12_381_fp2_t x;
    bls12_381_fp_set_u64(&x.c0, 3);
    bls12_381_fp_set_u64(&x.c1, 5);
    for (uint64_t i = 0; i < iters; i++) bls12_381_fp2_sqr(&x, &x);
    bench_consume(&x, sizeof x);
}

#define CASES(F)                                                                        \
    {"field", #F "_mul", bench_##F##_mul}, {"field", #F "_sqr", bench_##F##_sqr},       \
        {"field", #F "_add", bench_##F##_add}, {"field", #F "_inv", bench_##F##_inv}, \
        {"field", #F "_inv_var", bench_##F##_inv_var}

const bench_case bench_field_cases[] = {
    CASES(bn254_fq),
    CASES(bn254_fr),
    CASES(bls12_381_fp),
    CASES(bls12_381_fr),
    {"field", "bls12_381_fp2_mul", bench_bls12_381_fp2_mul},
    {"field", "bls12_381_fp2_sqr", bench_bls12_381_fp2_sqr},
};
const size_t bench_field_count = sizeof bench_field_cases / sizeof bench_field_cases[0];
