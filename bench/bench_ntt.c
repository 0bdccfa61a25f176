/* NTT benchmarks: one forward transform (natural order in and out) of 2^16
 * and 2^20 points per operation, on one thread and on every online core.
 * The domain and the data are set up once per case, on the first call
 * (the harness's calibration run), so the samples time only transforms;
 * transforming the same array over and over keeps it full of unrelated
 * field elements, which is all the timing needs. */
#include <stdlib.h>
#include <unistd.h>

#include "bench.h"
#include "ntt/ntt.h"

static unsigned bench_ntt_cores(void) {
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n < 1 ? 1 : (unsigned)n;
}

#define NTT_BENCH(F, LOG, TAG, THREADS)                                                          \
    static void bench_##F##_ntt_##LOG##_##TAG(uint64_t iters) {                                  \
        static F##_ntt_domain_t dom;                                                             \
        static F##_t *a;                                                                         \
        if (a == NULL) {                                                                         \
            size_t bytes = F##_ntt_domain_bytes(LOG), n = (size_t)1 << (LOG);                    \
            void *mem = malloc(bytes);                                                           \
            a = malloc(n * sizeof *a);                                                           \
            if (mem == NULL || a == NULL || F##_ntt_domain_init(&dom, LOG, mem, bytes)) abort(); \
            for (size_t i = 0; i < n; i++) F##_set_u64(&a[i], i * 0x9e3779b97f4a7c15ULL);        \
        }                                                                                        \
        for (uint64_t i = 0; i < iters; i++)                                                     \
            if (F##_ntt_forward_mt(&dom, a, dom.n, (THREADS)) != ZKPIPE_OK) abort();             \
        bench_consume(a, sizeof *a);                                                             \
    }

#define NTT_BENCHES(F)                       \
    NTT_BENCH(F, 16, t1, 1)                  \
    NTT_BENCH(F, 16, all, bench_ntt_cores()) \
    NTT_BENCH(F, 20, t1, 1)                  \
    NTT_BENCH(F, 20, all, bench_ntt_cores())

NTT_BENCHES(bn254_fr)
NTT_BENCHES(bls12_381_fr)

#define CASES(F)                                                   \
    {"ntt", #F "_ntt_forward_2^16_t1", bench_##F##_ntt_16_t1},     \
    {"ntt", #F "_ntt_forward_2^16_all", bench_##F##_ntt_16_all},   \
    {"ntt", #F "_ntt_forward_2^20_t1", bench_##F##_ntt_20_t1},     \
    {"ntt", #F "_ntt_forward_2^20_all", bench_##F##_ntt_20_all}

const bench_case bench_ntt_cases[] = {
    CASES(bn254_fr),
    CASES(bls12_381_fr),
};
const size_t bench_ntt_count = sizeof bench_ntt_cases / sizeof bench_ntt_cases[0];
