/* The resident MSM bases: what does not depend on the group. */
#include <stdio.h>
#include <stdlib.h>

#include "gpu/gpu_msm.cuh"

using namespace zkp_cuda;

extern "C" {

void zkp_gpu_bases_free(zkp_gpu_bases *b) {
    if (!b) return;
    (void)cudaSetDevice((int)b->g->ordinal);
    dev_free(b->g, b->ptr, b->bytes, ZKP_GPU_MEM_BASES);
    delete b;
}

size_t zkp_gpu_bases_count(const zkp_gpu_bases *b) { return b ? b->n : 0; }

zkpipe_status zkp_gpu_bases_fill(zkp_gpu_bases *b, const void *pts, size_t n, zkp_diag *diag) {
    if (!b || (!pts && n))
        return zkp_diag_fail(diag, ZKPIPE_ERR_INVALID_ARGUMENT, "GPU bases: NULL argument");
    if (b->copies != 1 || n > b->bytes / b->point_bytes)
        return zkp_diag_fail(diag, ZKPIPE_ERR_OUT_OF_RANGE,
                             "GPU bases: %zu points into a window of %zu", n,
                             b->copies == 1 ? b->bytes / b->point_bytes : (size_t)0);
    zkp_gpu *g = b->g;
    zkpipe_status st = bind(g, diag);
    if (st != ZKPIPE_OK) return st;
    busy_scope busy(g);
    /* On the compute stream, behind the MSMs over the window's last
     * points, which every MSM entry point waits for before it returns. */
    st = copy_h2d(g, b->ptr, pts, n * b->point_bytes, g->compute, diag);
    if (st != ZKPIPE_OK) return st;
    ZKP_CUDA_TRY(diag, cudaStreamSynchronize(g->compute));
    b->n = n;
    return ZKPIPE_OK;
}

zkpipe_status zkp_gpu_bases_trim(zkp_gpu_bases *b, uint64_t *freed, zkp_diag *diag) {
    *freed = 0;
    if (!b) return zkp_diag_fail(diag, ZKPIPE_ERR_INVALID_ARGUMENT, "GPU bases: NULL argument");
    if (b->copies == 1 || !b->copies_idle) return ZKPIPE_OK;
    zkp_gpu *g = b->g;
    zkpipe_status st = bind(g, diag);
    if (st != ZKPIPE_OK) return st;
    busy_scope busy(g);
    const size_t keep = b->n * b->point_bytes;
    void *p = nullptr;
    zkp_diag full = {{0}};
    st = dev_alloc(g, &p, keep, ZKP_GPU_MEM_BASES, &full);
    /* No room for the points' buffer: the copies stay until a later try. */
    if (st == ZKPIPE_ERR_NO_MEMORY) return ZKPIPE_OK;
    if (st != ZKPIPE_OK) {
        if (diag) *diag = full;
        return st;
    }
    /* Copy 0 is the points as uploaded. */
    cudaError_t e = cudaMemcpyAsync(p, b->ptr, keep, cudaMemcpyDeviceToDevice, g->compute);
    if (e == cudaSuccess) e = cudaStreamSynchronize(g->compute);
    if (e != cudaSuccess) {
        dev_free(g, p, keep, ZKP_GPU_MEM_BASES);
        return cuda_fail(diag, e, "cudaMemcpyAsync of the points without their copies", __FILE__,
                         __LINE__);
    }
    dev_free(g, b->ptr, b->bytes, ZKP_GPU_MEM_BASES);
    *freed = b->bytes - keep;
    if (getenv("ZKPIPE_GPU_TRACE"))
        fprintf(stderr, "gpu bases: %u copies of %zu points unused by an MSM over them: %.2f GiB "
                "given back\n", b->copies, b->n, (double)*freed / 1073741824.0);
    b->ptr = p;
    b->bytes = keep;
    b->copies = 1;
    b->shift = 0;
    b->copies_idle = false;
    return ZKPIPE_OK;
}

} /* extern "C" */
