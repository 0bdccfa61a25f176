/* Fixed-base multiplication on the device (gpu.h): millions of points
 * [k_i] G with one G, for the development setup (setup/dev_params.h).
 *
 * The table is the CPU's (msm/fixed_base_impl.h), uploaded once: for each
 * window of w bits the affine points [d·2^(w·win)] G for d = 1 .. 2^(w-1),
 * so a scalar in signed digits is a sum of one table point (or its
 * negative) per window, with no doublings. One thread takes one scalar:
 * its digits as the CPU takes them (msm/fixed_base_digit.h), one mixed
 * XYZZ addition per nonzero digit, then one inversion for the affine
 * result. The CPU shares its inversions across a batch (Montgomery's
 * trick); here a thread's own Fermat inversion costs about three times its
 * additions, and the whole is still far below the time the host takes to
 * make the scalars and write the points, so the simpler form stays.
 * Variable time, as on the CPU: the scalars are the toxic waste of a key
 * that is insecure by design.
 *
 * One generic body over the coordinate field, instantiated per group at the
 * end of this file (BLS12-381 G1 and G2, the groups of the setup; G2's
 * inversion is one in the base field, through the norm). */
#include <new>

#include "gpu/gpu_curve.cuh"
#include "gpu/gpu_internal.cuh"
#include "msm/fixed_base_digit.h"

struct zkp_gpu_fixed_base {
    zkp_gpu *g;
    int group; /* ZKP_GPU_FB_* of the instantiation that made it */
    unsigned w, nwin;
    void *table; /* nwin << (w - 1) affine points */
    size_t table_bytes;
    void *io; /* the scalars, then the points, of the largest call so far */
    size_t io_bytes;
};

namespace zkp_cuda {

enum { FB_GROUP_BLS12_381_G1 = 1, FB_GROUP_BLS12_381_G2 };

/* The windows must cover 256 bits: a canonical scalar has at most 255
 * (both scalar fields), and the last window takes the carry out of it. */
static const unsigned FB_SCALAR_BITS = 256;

template <class F>
__global__ void fixed_base_kernel_(affine<F> *out, const uint64_t *scalars,
                                   const affine<F> *table, unsigned w, unsigned nwin, size_t n) {
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    uint64_t k[4];
#pragma unroll
    for (int l = 0; l < 4; l++) k[l] = scalars[4 * i + l];
    uint32_t carry = 0;
    xyzz<F> acc = xyzz<F>::inf();
    for (unsigned win = 0; win < nwin; win++) {
        int32_t d = zkp_fb_digit(k, win, w, &carry);
        if (!d) continue;
        affine<F> q = table[((size_t)win << (w - 1)) + (d < 0 ? -d : d) - 1];
        acc.add_affine(d < 0 ? q.neg() : q);
    }
    affine<F> r;
    if (acc.is_inf()) {
        r.x = F::zero();
        r.y = F::zero();
    } else {
        /* One inversion for both: with t = 1/(ZZ·ZZZ), 1/ZZ = t·ZZZ and
         * 1/ZZZ = t·ZZ. */
        F t = (acc.zz * acc.zzz).inv();
        r.x = acc.x * (t * acc.zzz);
        r.y = acc.y * (t * acc.zz);
    }
    out[i] = r;
}

template <class F>
static zkpipe_status fixed_base_new_(zkp_gpu *g, zkp_gpu_fixed_base **out, int group,
                                     const void *table, unsigned w, unsigned nwin,
                                     zkp_diag *diag) {
    *out = nullptr;
    if (!g || !table)
        return zkp_diag_fail(diag, ZKPIPE_ERR_INVALID_ARGUMENT, "GPU fixed base: NULL argument");
    if (w < 2 || w > 24 || (size_t)nwin * w < FB_SCALAR_BITS || nwin > FB_SCALAR_BITS)
        return zkp_diag_fail(diag, ZKPIPE_ERR_OUT_OF_RANGE,
                             "GPU fixed base: %u windows of %u bits do not fit 256-bit scalars",
                             nwin, w);
    zkpipe_status st = bind(g, diag);
    if (st != ZKPIPE_OK) return st;
    busy_scope busy(g);
    zkp_gpu_fixed_base *fb = new (std::nothrow) zkp_gpu_fixed_base();
    if (!fb) return zkp_diag_fail(diag, ZKPIPE_ERR_NO_MEMORY, "GPU fixed base: out of memory");
    fb->g = g;
    fb->group = group;
    fb->w = w;
    fb->nwin = nwin;
    size_t bytes = ((size_t)nwin << (w - 1)) * sizeof(affine<F>);
    if ((st = dev_alloc(g, &fb->table, bytes, ZKP_GPU_MEM_BASES, diag)) != ZKPIPE_OK) {
        delete fb;
        return st;
    }
    fb->table_bytes = bytes;
    if ((st = copy_h2d(g, fb->table, table, bytes, g->compute, diag)) == ZKPIPE_OK) {
        cudaError_t e = cudaStreamSynchronize(g->compute);
        if (e != cudaSuccess) st = cuda_fail(diag, e, "cudaStreamSynchronize", __FILE__, __LINE__);
    }
    if (st != ZKPIPE_OK) {
        zkp_gpu_fixed_base_free(fb);
        return st;
    }
    *out = fb;
    return ZKPIPE_OK;
}

template <class F>
static zkpipe_status fixed_base_eval_(zkp_gpu_fixed_base *fb, int group, void *out,
                                      const uint64_t *scalars, size_t n, zkp_diag *diag) {
    if (!fb || ((!out || !scalars) && n))
        return zkp_diag_fail(diag, ZKPIPE_ERR_INVALID_ARGUMENT, "GPU fixed base: NULL argument");
    if (fb->group != group)
        return zkp_diag_fail(diag, ZKPIPE_ERR_INVALID_ARGUMENT,
                             "GPU fixed base: the table is another group's");
    if (!n) return ZKPIPE_OK;
    zkp_gpu *g = fb->g;
    zkpipe_status st = bind(g, diag);
    if (st != ZKPIPE_OK) return st;
    busy_scope busy(g);
    const size_t scalar_bytes = n * 4 * sizeof(uint64_t), point_bytes = n * sizeof(affine<F>);
    if (scalar_bytes + point_bytes > fb->io_bytes) {
        dev_free(g, fb->io, fb->io_bytes, ZKP_GPU_MEM_SCRATCH);
        fb->io = nullptr;
        fb->io_bytes = 0;
        if ((st = dev_alloc(g, &fb->io, scalar_bytes + point_bytes, ZKP_GPU_MEM_SCRATCH, diag)) !=
            ZKPIPE_OK)
            return st;
        fb->io_bytes = scalar_bytes + point_bytes;
    }
    uint64_t *dk = (uint64_t *)fb->io;
    affine<F> *dp = (affine<F> *)((char *)fb->io + scalar_bytes);
    if ((st = copy_h2d(g, dk, scalars, scalar_bytes, g->compute, diag)) != ZKPIPE_OK) return st;
    const unsigned threads = 128;
    fixed_base_kernel_<F><<<blocks_for(n, threads), threads, 0, g->compute>>>(
        dp, dk, (const affine<F> *)fb->table, fb->w, fb->nwin, n);
    ZKP_CUDA_LAUNCHED(diag, fixed_base_kernel_);
    if ((st = copy_d2h(g, out, dp, point_bytes, g->compute, diag)) != ZKPIPE_OK) return st;
    ZKP_CUDA_TRY(diag, cudaStreamSynchronize(g->compute));
    return ZKPIPE_OK;
}

} /* namespace zkp_cuda */

using namespace zkp_cuda;

extern "C" {

void zkp_gpu_fixed_base_free(zkp_gpu_fixed_base *fb) {
    if (!fb) return;
    (void)cudaSetDevice((int)fb->g->ordinal);
    /* Every call synchronises before it returns, so no kernel reads these. */
    dev_free(fb->g, fb->table, fb->table_bytes, ZKP_GPU_MEM_BASES);
    dev_free(fb->g, fb->io, fb->io_bytes, ZKP_GPU_MEM_SCRATCH);
    delete fb;
}

#define ZKP_GPU_FB_DEFINE_(G, F, TAG)                                                           \
    zkpipe_status G##_gpu_fixed_base_new(zkp_gpu *g, zkp_gpu_fixed_base **out,               \
                                         const void *table, unsigned w, unsigned nwin,        \
                                         zkp_diag *diag) {                                    \
        return fixed_base_new_<F>(g, out, TAG, table, w, nwin, diag);                         \
    }                                                                                         \
    zkpipe_status G##_gpu_fixed_base_eval(zkp_gpu_fixed_base *fb, void *out,                  \
                                          const uint64_t *scalars, size_t n, zkp_diag *diag) { \
        return fixed_base_eval_<F>(fb, TAG, out, scalars, n, diag);                           \
    }
ZKP_GPU_FB_DEFINE_(bls12_381_g1, bls12_381_fp, FB_GROUP_BLS12_381_G1)
ZKP_GPU_FB_DEFINE_(bls12_381_g2, bls12_381_fp2, FB_GROUP_BLS12_381_G2)
#undef ZKP_GPU_FB_DEFINE_

} /* extern "C" */
