/* What the MSMs of the four groups share: the resident bases and a scope
 * guard for device memory.
 *
 * The bases of one group live in device memory as `copies` arrays of n
 * affine points each, in the CPU layout: array q holds 2^(q·shift)·P_i.
 * With copies = 1 they are the key's points as uploaded. With more copies
 * a window of the scalar above bit shift becomes a window of the same width
 * over a shifted copy, so the windows share the sets of buckets of one
 * copy's windows (one, with a copy per window) and the bucket reduction
 * runs once per set instead of once per window. */
#ifndef ZKP_GPU_GPU_MSM_CUH
#define ZKP_GPU_GPU_MSM_CUH

#include "gpu/gpu_horner.h"
#include "gpu/gpu_internal.cuh"

struct zkp_gpu_bases {
    zkp_gpu *g;
    void *ptr;           /* copies · n affine points */
    size_t bytes;        /* of ptr, charged to ZKP_GPU_MEM_BASES */
    size_t n;            /* points per copy */
    unsigned point_bytes;
    int group;           /* ZKP_GPU_GROUP_*: whose points these are, to refuse a mix-up */
    unsigned copies;     /* 1 when nothing was precomputed */
    unsigned shift;      /* copy q is 2^(q·shift) times the point */
    /* Whether the last MSM over all n points planned without the copies:
     * what an MSM, which only reads the set, leaves for
     * zkp_gpu_bases_trim. */
    mutable bool copies_idle;
};

namespace zkp_cuda {

/* Device memory owned by a scope: freed, with its accounting, on every way
 * out of the function that holds it. The caller makes sure no kernel still
 * uses it by then (it synchronises its stream before the guards go). */
struct dev_mem {
    zkp_gpu *g;
    zkp_gpu_mem_category cat;
    void *p = nullptr;
    size_t bytes = 0;
    dev_mem(zkp_gpu *g_, zkp_gpu_mem_category c) : g(g_), cat(c) {}
    dev_mem(const dev_mem &) = delete;
    dev_mem &operator=(const dev_mem &) = delete;
    ~dev_mem() { release(); }
    zkpipe_status alloc(size_t b, zkp_diag *diag) {
        release();
        zkpipe_status st = dev_alloc(g, &p, b, cat, diag);
        if (st == ZKPIPE_OK) bytes = b;
        return st;
    }
    void release() {
        dev_free(g, p, bytes, cat);
        p = nullptr;
        bytes = 0;
    }
    template <class T>
    T *as() const {
        return (T *)p;
    }
};

} /* namespace zkp_cuda */

#endif
