/* The CPU's NTT as the tests call it, on raw limbs. */
#ifndef ZKP_TESTS_NTT_SUPPORT_H
#define ZKP_TESTS_NTT_SUPPORT_H

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ntt/ntt.h"

/* test_F_cpu_ntt(a, log_n, kind, root, shift): the CPU's transform (ntt/ntt.h)
 * of the 2^log_n elements at a on a domain built on root, with shift NULL
 * or the coset's: the reference of the GPU tests and of the prover's H step. */
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
