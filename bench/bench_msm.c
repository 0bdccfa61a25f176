/* MSM benchmarks: bls12_381_g1, bn254_g1 and bn254_g2 at 2^12, 2^14 and 2^16 points with
 * uniform scalars below r, on 1 and 2 threads, and the split path
 * (zeros skipped, ones batch-added, Pippenger on the rest) at 2^16 on
 * witness-like scalars (about 70% zeros, 20% ones, 10% uniform), and on
 * signed witness-like scalars (70% zeros, 10% ones, 10% small values below
 * 2^40, 10% small negatives r - v): circuits hold many negatives, which are
 * full-width as integers, and the GLV split of the G1 groups turns them
 * back into short ones.
 *
 * One operation is one whole MSM, so the reported ns/op divided by the n in
 * the case name is the cost per point. Inputs are built once per case from a
 * fixed seed (bases: a walk through distinct multiples of the generator),
 * and scratch is allocated once, outside the timed loop, as the engine's
 * pool would provide it. */
#include <stdlib.h>

#include "bench.h"
#include "curve/curve.h"
#include "msm/msm.h"
#include "util/splitmix.h"

static uint64_t bench_msm_rng_ = 0x243f6a8885a308d3ULL;

/* splitmix64: fixed-seed inputs, so runs compare. */
static uint64_t bench_msm_u64(void) { return zkp_splitmix64(&bench_msm_rng_); }

/* A uniform value below the modulus r (nbits bits), by rejection. */
static void bench_msm_scalar(uint64_t *k, const uint64_t *r, unsigned nbits) {
    for (;;) {
        for (int i = 0; i < 4; i++) k[i] = bench_msm_u64();
        k[3] &= (~(uint64_t)0) >> (256 - nbits);
        int i = 3;
        while (i >= 0 && k[i] == r[i]) i--;
        if (i >= 0 && k[i] < r[i]) return;
    }
}

enum { BENCH_MSM_LOG_MAX = 16 };

#define MSM_BENCHES(G, FR)                                                                   \
    static G##_affine_t *G##_bm_bases_;                                                     \
    static uint64_t *G##_bm_scalars_, *G##_bm_witness_, *G##_bm_signed_;                    \
    static void G##_bm_setup_(void) {                                                       \
        if (G##_bm_bases_) return;                                                          \
        static const uint64_t r[4] = FR##_MODULUS;                                          \
        size_t n = (size_t)1 << BENCH_MSM_LOG_MAX;                                          \
        G##_affine_t g;                                                                     \
        G##_jacobian_t gj, step, cur;                                                       \
        G##_jacobian_t *tmp = malloc(n * sizeof *tmp);                                      \
        G##_bm_bases_ = malloc(n * sizeof *G##_bm_bases_);                                  \
        G##_bm_scalars_ = malloc(4 * n * sizeof(uint64_t));                                 \
        G##_bm_witness_ = calloc(4 * n, sizeof(uint64_t));                                  \
        G##_bm_signed_ = calloc(4 * n, sizeof(uint64_t));                                   \
        if (!tmp || !G##_bm_bases_ || !G##_bm_scalars_ || !G##_bm_witness_ || !G##_bm_signed_) \
            abort();                                                                        \
        uint64_t k[4];                                                                      \
        G##_generator(&g);                                                                  \
        G##_from_affine(&gj, &g);                                                           \
        bench_msm_scalar(k, r, FR##_BITS);                                                  \
        G##_mul_var(&step, &gj, k, FR##_BITS);                                              \
        bench_msm_scalar(k, r, FR##_BITS);                                                  \
        G##_mul_var(&cur, &gj, k, FR##_BITS);                                               \
        for (size_t i = 0; i < n; i++) {                                                    \
            G##_add(&cur, &cur, &step);                                                     \
            tmp[i] = cur;                                                                   \
        }                                                                                   \
        G##_batch_to_affine_var(G##_bm_bases_, tmp, n);                                     \
        free(tmp);                                                                          \
        for (size_t i = 0; i < n; i++) {                                                    \
            bench_msm_scalar(G##_bm_scalars_ + 4 * i, r, FR##_BITS);                        \
            uint64_t x = bench_msm_u64() % 10;                                              \
            if (x >= 9)                                                                     \
                bench_msm_scalar(G##_bm_witness_ + 4 * i, r, FR##_BITS);                    \
            else if (x >= 7)                                                                \
                G##_bm_witness_[4 * i] = 1;                                                 \
        }                                                                                   \
        /* Drawn after the others, so their inputs stay as they were. */                    \
        for (size_t i = 0; i < n; i++) {                                                    \
            uint64_t x = bench_msm_u64() % 10, v = bench_msm_u64() >> 24;                   \
            uint64_t *w = G##_bm_signed_ + 4 * i;                                           \
            if (x == 9) {                                                                   \
                for (int j = 0; j < 4; j++) w[j] = r[j];                                    \
                w[0] -= v + 1; /* r[0] > 2^40 for both fields: no borrow */                 \
            } else if (x == 8) {                                                            \
                w[0] = v;                                                                   \
            } else if (x == 7) {                                                            \
                w[0] = 1;                                                                   \
            }                                                                               \
        }                                                                                   \
    }                                                                                       \
    static void G##_bm_run_(uint64_t iters, unsigned logn, unsigned nthreads, int split) {  \
        G##_bm_setup_();                                                                    \
        size_t n = (size_t)1 << logn;                                                       \
        size_t len = G##_msm_scratch_bytes(n, nthreads);                                    \
        void *scratch = malloc(len);                                                        \
        if (!scratch) abort();                                                              \
        G##_jacobian_t out;                                                                 \
        zkpipe_status s = ZKPIPE_OK;                                                        \
        for (uint64_t it = 0; it < iters && s == ZKPIPE_OK; it++) {                         \
            if (split)                                                                      \
                s = G##_msm_split_var(&out, NULL, G##_bm_bases_,                            \
                                      split == 2 ? G##_bm_signed_ : G##_bm_witness_, n,      \
                                      nthreads, scratch, len);                              \
            else                                                                            \
                s = G##_msm_mt_var(&out, G##_bm_bases_, G##_bm_scalars_, n, nthreads, scratch,  \
                               len);                                                        \
            bench_consume(&out, sizeof out);                                                \
        }                                                                                   \
        free(scratch);                                                                      \
        if (s != ZKPIPE_OK) abort();                                                        \
    }                                                                                       \
    static void bench_##G##_msm_12_t1(uint64_t it) { G##_bm_run_(it, 12, 1, 0); }          \
    static void bench_##G##_msm_12_t2(uint64_t it) { G##_bm_run_(it, 12, 2, 0); }          \
    static void bench_##G##_msm_14_t1(uint64_t it) { G##_bm_run_(it, 14, 1, 0); }          \
    static void bench_##G##_msm_14_t2(uint64_t it) { G##_bm_run_(it, 14, 2, 0); }          \
    static void bench_##G##_msm_16_t1(uint64_t it) { G##_bm_run_(it, 16, 1, 0); }          \
    static void bench_##G##_msm_16_t2(uint64_t it) { G##_bm_run_(it, 16, 2, 0); }          \
    static void bench_##G##_msm_split_16_t1(uint64_t it) { G##_bm_run_(it, 16, 1, 1); }    \
    static void bench_##G##_msm_split_16_t2(uint64_t it) { G##_bm_run_(it, 16, 2, 1); }    \
    static void bench_##G##_msm_signed_16_t1(uint64_t it) { G##_bm_run_(it, 16, 1, 2); }   \
    static void bench_##G##_msm_signed_16_t2(uint64_t it) { G##_bm_run_(it, 16, 2, 2); }

MSM_BENCHES(bls12_381_g1, BLS12_381_FR)
MSM_BENCHES(bn254_g1, BN254_FR)
MSM_BENCHES(bn254_g2, BN254_FR)

#define MSM_CASES(G)                                                        \
    {"msm", #G "_msm_n4096_t1", bench_##G##_msm_12_t1},                     \
        {"msm", #G "_msm_n4096_t2", bench_##G##_msm_12_t2},                 \
        {"msm", #G "_msm_n16384_t1", bench_##G##_msm_14_t1},                \
        {"msm", #G "_msm_n16384_t2", bench_##G##_msm_14_t2},                \
        {"msm", #G "_msm_n65536_t1", bench_##G##_msm_16_t1},                \
        {"msm", #G "_msm_n65536_t2", bench_##G##_msm_16_t2},                \
        {"msm", #G "_msm_split_witness_n65536_t1", bench_##G##_msm_split_16_t1}, \
        {"msm", #G "_msm_split_witness_n65536_t2", bench_##G##_msm_split_16_t2}, \
        {"msm", #G "_msm_split_signed_n65536_t1", bench_##G##_msm_signed_16_t1}, \
        {"msm", #G "_msm_split_signed_n65536_t2", bench_##G##_msm_signed_16_t2}

const bench_case bench_msm_cases[] = {MSM_CASES(bls12_381_g1), MSM_CASES(bn254_g1),
                                      MSM_CASES(bn254_g2)};
const size_t bench_msm_count = sizeof bench_msm_cases / sizeof bench_msm_cases[0];
