/* The resident MSM bases: what does not depend on the group. */
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

} /* extern "C" */
