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
#include "ntt_support.h"
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

#endif
