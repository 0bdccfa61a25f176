/* Pairing benchmarks: the Miller loop, the final exponentiation and the
 * whole pairing of the two generators, for both curves. The final
 * exponentiation is chained (f = final_exp(f)), so its input changes every
 * iteration and nothing can be hoisted out of the loop. */
#include "bench.h"
#include "curve/curve.h"
#include "pairing/pairing.h"

#define PAIRING_BENCHES(C, F12)                                              \
    static void bench_##C##_miller_loop(uint64_t iters) {                   \
        C##_g1_affine_t p;                                                   \
        C##_g2_affine_t q;                                                   \
        F12##_t f;                                                           \
        C##_g1_generator(&p);                                                \
        C##_g2_generator(&q);                                                \
        for (uint64_t i = 0; i < iters; i++) {                               \
            C##_miller_loop(&f, &p, &q, 1);                                  \
            bench_consume(&f, sizeof f);                                     \
        }                                                                    \
    }                                                                        \
    static void bench_##C##_final_exp(uint64_t iters) {                     \
        C##_g1_affine_t p;                                                   \
        C##_g2_affine_t q;                                                   \
        F12##_t f;                                                           \
        C##_g1_generator(&p);                                                \
        C##_g2_generator(&q);                                                \
        C##_miller_loop(&f, &p, &q, 1);                                      \
        for (uint64_t i = 0; i < iters; i++) C##_final_exp(&f, &f);          \
        bench_consume(&f, sizeof f);                                         \
    }                                                                        \
    static void bench_##C##_pairing(uint64_t iters) {                       \
        C##_g1_affine_t p;                                                   \
        C##_g2_affine_t q;                                                   \
        F12##_t f;                                                           \
        C##_g1_generator(&p);                                                \
        C##_g2_generator(&q);                                                \
        for (uint64_t i = 0; i < iters; i++) {                               \
            C##_pairing(&f, &p, &q);                                         \
            bench_consume(&f, sizeof f);                                     \
        }                                                                    \
    }

PAIRING_BENCHES(bn254, bn254_fq12)
PAIRING_BENCHES(bls12_381, bls12_381_fp12)

#define CASES(C)                                                                            \
    {"pairing", #C "_miller_loop", bench_##C##_miller_loop},                                \
        {"pairing", #C "_final_exp", bench_##C##_final_exp}, {"pairing", #C "_pairing", bench_##C##_pairing}

const bench_case bench_pairing_cases[] = {
    CASES(bn254),
    CASES(bls12_381),
};
const size_t bench_pairing_count = sizeof bench_pairing_cases / sizeof bench_pairing_cases[0];
