/* Curve benchmarks for the four groups: the Jacobian group law (add,
 * dbl, mixed add_affine), the XYZZ mixed addition of the MSM buckets and a
 * constant-time scalar multiplication by a 255-bit scalar. Each group-law
 * case is a dependent chain (x = x op y), as for the field benchmarks. The
 * operands are distinct multiples of the generator, so the unified formulas
 * never meet an exceptional case (they would not branch on one anyway). */
#include "bench.h"
#include "curve/curve.h"

/* An arbitrary 255-bit scalar (its top bit is bit 254). */
static const uint64_t bench_scalar255[4] = {0x9e3779b97f4a7c15ULL, 0xbf58476d1ce4e5b9ULL,
                                            0x94d049bb133111ebULL, 0x4f1bbcdcbfa53e0aULL};

#define CURVE_BENCHES(G)                                                     \
    /* x = g, y = 2g, both Jacobian with z != 1. */                          \
    static void G##_bench_points_(G##_jacobian_t *x, G##_jacobian_t *y) {   \
        G##_affine_t g;                                                      \
        G##_generator(&g);                                                   \
        G##_from_affine(x, &g);                                              \
        G##_dbl(y, x);                                                       \
        G##_add(x, x, y);                                                    \
    }                                                                        \
    static void bench_##G##_add(uint64_t iters) {                           \
        G##_jacobian_t x, y;                                                 \
        G##_bench_points_(&x, &y);                                           \
        for (uint64_t i = 0; i < iters; i++) G##_add(&x, &x, &y);            \
        bench_consume(&x, sizeof x);                                         \
    }                                                                        \
    static void bench_##G##_dbl(uint64_t iters) {                           \
        G##_jacobian_t x, y;                                                 \
        G##_bench_points_(&x, &y);                                           \
        for (uint64_t i = 0; i < iters; i++) G##_dbl(&x, &x);                \
        bench_consume(&x, sizeof x);                                         \
    }                                                                        \
    static void bench_##G##_add_affine(uint64_t iters) {                    \
        G##_jacobian_t x, y;                                                 \
        G##_affine_t g;                                                      \
        G##_bench_points_(&x, &y);                                           \
        G##_generator(&g);                                                   \
        for (uint64_t i = 0; i < iters; i++) G##_add_affine(&x, &x, &g);     \
        bench_consume(&x, sizeof x);                                         \
    }                                                                        \
    static void bench_##G##_xyzz_add_affine(uint64_t iters) {               \
        G##_affine_t g;                                                      \
        G##_xyzz_t x;                                                        \
        G##_generator(&g);                                                   \
        G##_xyzz_from_affine(&x, &g);                                        \
        G##_xyzz_dbl(&x, &x);                                                \
        for (uint64_t i = 0; i < iters; i++) G##_xyzz_add_affine(&x, &x, &g); \
        bench_consume(&x, sizeof x);                                         \
    }                                                                        \
    static void bench_##G##_mul(uint64_t iters) {                           \
        G##_jacobian_t x, y;                                                 \
        G##_bench_points_(&x, &y);                                           \
        for (uint64_t i = 0; i < iters; i++) G##_mul(&x, &x, bench_scalar255, 255); \
        bench_consume(&x, sizeof x);                                         \
    }

CURVE_BENCHES(bn254_g1)
CURVE_BENCHES(bn254_g2)
CURVE_BENCHES(bls12_381_g1)
CURVE_BENCHES(bls12_381_g2)

#define CASES(G)                                                                                \
    {"curve", #G "_add", bench_##G##_add}, {"curve", #G "_dbl", bench_##G##_dbl},               \
        {"curve", #G "_add_affine", bench_##G##_add_affine},                                    \
        {"curve", #G "_xyzz_add_affine", bench_##G##_xyzz_add_affine},                          \
        {"curve", #G "_mul", bench_##G##_mul}

const bench_case bench_curve_cases[] = {
    CASES(bn254_g1),
    CASES(bn254_g2),
    CASES(bls12_381_g1),
    CASES(bls12_381_g2),
};
const size_t bench_curve_count = sizeof bench_curve_cases / sizeof bench_curve_cases[0];
