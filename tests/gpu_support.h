/* The GPU tests' access to a device.
 *
 * test_gpu_open() returns a context on GPU 0 (ZKPIPE_TEST_GPU picks
 * another). Where there is none, or the build has no CUDA, it ends the case
 * as skipped with one line that says why; with ZKPIPE_TEST_REQUIRE_GPU=1
 * (make test-gpu) the same finding fails the case instead, so a GPU run
 * cannot pass by skipping everything. The caller closes the context. */
#ifndef ZKP_TESTS_GPU_SUPPORT_H
#define ZKP_TESTS_GPU_SUPPORT_H

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gpu/gpu.h"
#include "ntt/ntt.h"
#include "test.h"

static inline zkp_gpu *test_gpu_open(void) {
    const char *req = getenv("ZKPIPE_TEST_REQUIRE_GPU");
    int required = req && req[0] == '1';
    const char *which = getenv("ZKPIPE_TEST_GPU");
    unsigned ordinal = which ? (unsigned)strtoul(which, NULL, 10) : 0;
    zkp_diag diag = {{0}};
    zkp_gpu *g = NULL;
    zkpipe_status st = zkp_gpu_open(&g, ordinal, &diag);
    if (st == ZKPIPE_OK) return g;
    if (required) test_fail(__FILE__, __LINE__, "no GPU for the GPU suite: %s", diag.msg);
    test_skip(st == ZKPIPE_ERR_UNSUPPORTED ? "no GPU: this build has no CUDA backend"
                                           : "no GPU: no CUDA device on this machine");
}

/* test_F_cpu_ntt(a, log_n, kind, root, shift): the CPU's transform (ntt/ntt.h)
 * of the 2^log_n elements at a on a domain built on root, with shift NULL
 * or the coset's; the GPU tests' reference. */
#define TEST_CPU_NTT_DEFINE(F)                                                                    \
    static zkpipe_status test_##F##_cpu_ntt(uint64_t *a, unsigned log_n, int kind,               \
                                            const uint64_t *root, const uint64_t *shift) {       \
        F##_ntt_options_t o;                                                                     \
        memset(&o, 0, sizeof o);                                                                 \
        o.root = (const F##_t *)root;                                                            \
        size_t bytes = F##_ntt_domain_bytes_opt(log_n, &o);                                      \
        void *mem = malloc(bytes);                                                               \
        if (!mem) return ZKPIPE_ERR_NO_MEMORY;                                                   \
        F##_ntt_domain_t d;                                                                      \
        long cpus = sysconf(_SC_NPROCESSORS_ONLN);                                               \
        unsigned nthreads = cpus < 1 ? 1 : cpus > 16 ? 16 : (unsigned)cpus;                      \
        zkpipe_status st = F##_ntt_domain_init_opt(&d, log_n, &o, mem, bytes);                   \
        if (st == ZKPIPE_OK)                                                                     \
            st = F##_ntt_transform(&d, (F##_t *)a, d.n, (zkp_ntt_kind)kind,                      \
                                   (const F##_t *)shift, nthreads);                              \
        free(mem);                                                                               \
        return st;                                                                               \
    }

#endif
