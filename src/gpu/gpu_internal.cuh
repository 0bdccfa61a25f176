/* What the .cu files of the GPU layer share: the context, device buffers
 * with their accounting, and the checked CUDA call.
 *
 * A context holds three streams, as the copy engines and the compute
 * engine run side by side: upload, compute and download. Work on them is
 * ordered with events, never with a device-wide synchronisation. */
#ifndef ZKP_GPU_GPU_INTERNAL_CUH
#define ZKP_GPU_GPU_INTERNAL_CUH

#include <cuda_runtime.h>

#include <stdio.h>
#include <stdlib.h>

#include <atomic>
#include <mutex>

#include "gpu/gpu.h"

/* Freed working buffers kept for reuse (zkp_gpu_set_cache), and those lent
 * out again for a request smaller than the buffer, whose free must book
 * the buffer's own size. Fixed arrays: a partition frees a few dozen. */
struct zkp_gpu_cache {
    static constexpr int MAX = 64;
    struct block {
        void *p;
        size_t bytes;
    };
    std::mutex mu;
    bool on = false;
    int n_free = 0, n_lent = 0;
    block free_[MAX], lent[MAX];
};

struct zkp_gpu {
    unsigned ordinal;
    cudaStream_t upload, compute, download;
    unsigned multiprocessors;
    std::atomic<uint64_t> live[ZKP_GPU_MEM_COUNT_];
    std::atomic<uint64_t> live_total, peak_total;
    std::atomic<uint64_t> h2d, d2h;
    std::atomic<uint64_t> busy_ns;
    std::atomic<uint64_t> budget;  /* zkp_gpu_set_memory_budget; 0: none */
    std::atomic<uint64_t> reserve; /* zkp_gpu_set_upload_reserve */
    zkp_gpu_cache cache;
};

struct zkp_gpu_buf {
    zkp_gpu *g;
    void *ptr;
    size_t bytes;
    zkp_gpu_mem_category cat;
    /* Recorded after an asynchronous upload (zkp_gpu_buf_upload_async);
     * null until the first. */
    cudaEvent_t uploaded;
};

/* A compiled circuit on the device (gpu.h): per matrix the row offsets,
 * the columns and the values (16-bit indices into dict, or the values
 * themselves when dict is null). */
struct zkp_gpu_csr {
    zkp_gpu *g;
    uint32_t n_rows;
    zkp_gpu_buf *row_ptr[2], *col[2], *vals[2], *dict;
};

namespace zkp_cuda {

/* The failure of one CUDA call as a status and a message naming it. The
 * sticky error state is read and cleared, so the context stays usable
 * after a recoverable error (an allocation that did not fit). */
zkpipe_status cuda_fail(zkp_diag *diag, cudaError_t e, const char *call, const char *file,
                        int line);

/* Device memory through the context's books. */
zkpipe_status dev_alloc(zkp_gpu *g, void **p, size_t bytes, zkp_gpu_mem_category cat,
                        zkp_diag *diag);
void dev_free(zkp_gpu *g, void *p, size_t bytes, zkp_gpu_mem_category cat);

/* The device memory an upload of bases may still size its copies for: what
 * the driver reports free and, under a budget, no more than is left of it,
 * in either case once the upload reserve is set aside. */
zkpipe_status usable_free_bytes(zkp_gpu *g, size_t *out, zkp_diag *diag);

/* What an upload of bases may fill with precomputed copies: 60 % of
 * usable_free_bytes where no upload reserve is set, the rest left for the
 * MSMs' own scratch; 90 % where one is, since the reserve already holds a
 * partition's working set. At 0.6 the H set of a half partition (2^26)
 * could not have its eleven copies on a 141 GB device beside the reserve:
 * about 62 GB of room for 71. */
zkpipe_status copies_room(zkp_gpu *g, size_t *out, zkp_diag *diag);

/* Makes the current thread's device g's, the first step of every entry
 * point: the CUDA runtime keeps the current device per thread, and the
 * engine's workers may call from any thread. */
zkpipe_status bind(zkp_gpu *g, zkp_diag *diag);

/* Charges the wall time of one entry point to the context's busy time. */
struct busy_scope {
    zkp_gpu *g;
    uint64_t t0;
    explicit busy_scope(zkp_gpu *g_);
    ~busy_scope();
};

/* Makes stream s wait for b's last asynchronous upload, if any: the first
 * step of device work that reads b. */
zkpipe_status buf_ready_on(const zkp_gpu_buf *b, cudaStream_t s, zkp_diag *diag);

/* Host-to-device and back on the context's streams, counted. */
zkpipe_status copy_h2d(zkp_gpu *g, void *dst, const void *src, size_t bytes, cudaStream_t s,
                       zkp_diag *diag);
zkpipe_status copy_d2h(zkp_gpu *g, void *dst, const void *src, size_t bytes, cudaStream_t s,
                       zkp_diag *diag);

/* Step times of one operation on stderr when ZKPIPE_GPU_TRACE is set:
 * events recorded on one stream between the steps, read once at the end,
 * so the trace adds no synchronisation of its own. */
struct trace {
    static constexpr int MAX = 12;
    bool on;
    int count = 0;
    const char *title;
    const char *names[MAX];
    cudaEvent_t ev[MAX];
    cudaStream_t s;
    trace(cudaStream_t s_, const char *title_)
        : on(getenv("ZKPIPE_GPU_TRACE") != nullptr), title(title_), s(s_) {
        mark("start");
    }
    void mark(const char *name) {
        if (!on || count == MAX || cudaEventCreate(&ev[count]) != cudaSuccess) return;
        names[count] = name;
        (void)cudaEventRecord(ev[count], s);
        count++;
    }
    void print(const char *what) {
        if (!on) return;
        (void)cudaEventSynchronize(ev[count - 1]);
        fprintf(stderr, "%s: %s:", title, what);
        for (int i = 1; i < count; i++) {
            float ms = 0;
            (void)cudaEventElapsedTime(&ms, ev[i - 1], ev[i]);
            fprintf(stderr, " %s %.2f ms%s", names[i], ms, i + 1 < count ? "," : "\n");
        }
    }
    ~trace() {
        for (int i = 0; i < count; i++) (void)cudaEventDestroy(ev[i]);
    }
};

/* OK for cudaSuccess, else the failure of what. */
static inline zkpipe_status cuda_status(zkp_diag *diag, cudaError_t e, const char *what,
                                        const char *file, int line) {
    return e == cudaSuccess ? ZKPIPE_OK : cuda_fail(diag, e, what, file, line);
}

/* Blocks of threads to cover n items, for a one-dimensional launch. */
static inline unsigned blocks_for(size_t n, unsigned threads) {
    return (unsigned)((n + threads - 1) / threads);
}

} /* namespace zkp_cuda */

/* Runs a CUDA call and returns from the enclosing function with its
 * failure; for functions that own nothing yet, or that free through a
 * scope guard. */
#define ZKP_CUDA_TRY(diag, call)                                                    \
    do {                                                                            \
        cudaError_t e_ = (call);                                                    \
        if (e_ != cudaSuccess) return zkp_cuda::cuda_fail(diag, e_, #call, __FILE__, __LINE__); \
    } while (0)

/* The same, setting st and jumping to the function's cleanup label. */
#define ZKP_CUDA_GOTO(diag, st, label, call)                                      \
    do {                                                                          \
        cudaError_t e_ = (call);                                                  \
        if (e_ != cudaSuccess) {                                                  \
            st = zkp_cuda::cuda_fail(diag, e_, #call, __FILE__, __LINE__);         \
            goto label;                                                           \
        }                                                                         \
    } while (0)

/* After a kernel launch: a bad configuration shows here, a fault at the
 * next synchronisation. */
#define ZKP_CUDA_LAUNCHED(diag, kernel)                                                      \
    do {                                                                                     \
        zkpipe_status s_ = ZKP_CUDA_LAUNCH_STATUS(diag, kernel);                             \
        if (s_ != ZKPIPE_OK) return s_;                                                      \
    } while (0)

/* The same as a status, for code that goes to its cleanup label. */
#define ZKP_CUDA_LAUNCH_STATUS(diag, kernel)                                          \
    zkp_cuda::cuda_status(diag, cudaGetLastError(), "launch of " #kernel, __FILE__, __LINE__)

#endif
