/* The benchmark harness (not a test: nothing here asserts a time).
 *
 * A benchmark is a function that performs `iters` repetitions of one
 * operation. The harness calibrates iters so one sample lasts about
 * 20 ms, takes BENCH_SAMPLES samples and reports the median time per
 * operation, so a noisy neighbour moves the result less than a mean would. */
#ifndef ZKP_BENCH_BENCH_H
#define ZKP_BENCH_BENCH_H

#include <stddef.h>
#include <stdint.h>

#define BENCH_SAMPLES 11

typedef void (*bench_fn)(uint64_t iters);

typedef struct {
    const char *group; /* e.g. "field", "curve", "pairing", "hash" */
    const char *name;  /* e.g. "bls12_381_fp_mul" */
    bench_fn fn;
} bench_case;

/* Each bench_*.c file exports its table through one of these. */
extern const bench_case bench_field_cases[];
extern const size_t bench_field_count;
extern const bench_case bench_curve_cases[];
extern const size_t bench_curve_count;
extern const bench_case bench_pairing_cases[];
extern const size_t bench_pairing_count;
extern const bench_case bench_ntt_cases[];
extern const size_t bench_ntt_count;
extern const bench_case bench_msm_cases[];
extern const size_t bench_msm_count;
extern const bench_case bench_hash_cases[];
extern const size_t bench_hash_count;
extern const bench_case bench_poseidon_cases[];
extern const size_t bench_poseidon_count;

/* Keeps the compiler from discarding a result. */
static inline void bench_consume(const void *p, size_t len) {
    __asm__ volatile("" : : "r"(p), "r"(len) : "memory");
}

#endif
