/* Poseidon benchmarks: one hash of arity 2, 4, 8, 11 and 36 per operation,
 * in the optimised form (the one zkp_poseidon_hash uses) and the plain
 * form. Each digest becomes the first input of the next hash, so the
 * figure is the latency of one hash on one core; hashes per second are
 * 10^9 / ns. The constants are made on the first call (the harness's
 * calibration run), so the samples time only hashing. */
#include <stdlib.h>

#include "bench.h"
#include "hash/poseidon.h"

static void bench_poseidon_run_(unsigned arity, int plain, uint64_t iters) {
    const zkp_poseidon_params *p;
    if (zkp_poseidon_params_get(&p, arity) != ZKPIPE_OK) abort();
    bls12_381_fr_t in[ZKP_POSEIDON_MAX_ARITY];
    for (unsigned i = 0; i < arity; i++) bls12_381_fr_set_u64(&in[i], 0x9e3779b97f4a7c15ULL * (i + 1));
    for (uint64_t i = 0; i < iters; i++) {
        if (plain)
            zkp_poseidon_hash_plain(&in[0], p, in);
        else
            zkp_poseidon_hash(&in[0], p, in);
    }
    bench_consume(in, sizeof in);
}

#define POSEIDON_BENCH(ARITY)                                                                           \
    static void bench_poseidon_##ARITY(uint64_t iters) { bench_poseidon_run_(ARITY, 0, iters); }       \
    static void bench_poseidon_##ARITY##_plain(uint64_t iters) { bench_poseidon_run_(ARITY, 1, iters); }

POSEIDON_BENCH(2)
POSEIDON_BENCH(4)
POSEIDON_BENCH(8)
POSEIDON_BENCH(11)
POSEIDON_BENCH(36)

const bench_case bench_poseidon_cases[] = {
    {"hash", "poseidon_a2", bench_poseidon_2},         {"hash", "poseidon_a2_plain", bench_poseidon_2_plain},
    {"hash", "poseidon_a4", bench_poseidon_4},         {"hash", "poseidon_a4_plain", bench_poseidon_4_plain},
    {"hash", "poseidon_a8", bench_poseidon_8},         {"hash", "poseidon_a8_plain", bench_poseidon_8_plain},
    {"hash", "poseidon_a11", bench_poseidon_11},       {"hash", "poseidon_a11_plain", bench_poseidon_11_plain},
    {"hash", "poseidon_a36", bench_poseidon_36},       {"hash", "poseidon_a36_plain", bench_poseidon_36_plain},
};
const size_t bench_poseidon_count = sizeof bench_poseidon_cases / sizeof bench_poseidon_cases[0];
