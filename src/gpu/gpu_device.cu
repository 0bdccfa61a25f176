/* Devices, contexts, buffers and their books; the device arithmetic's
 * entry points for the tests. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <new>
#include <type_traits>

#include "gpu/gpu_curve.cuh"
#include "gpu/gpu_internal.cuh"

namespace zkp_cuda {

zkpipe_status cuda_fail(zkp_diag *diag, cudaError_t e, const char *call, const char *file,
                        int line) {
    (void)cudaGetLastError(); /* clear the error so the next call starts clean */
    zkpipe_status st = e == cudaErrorMemoryAllocation ? ZKPIPE_ERR_NO_MEMORY
                       : e == cudaErrorNoDevice || e == cudaErrorInsufficientDriver ||
                               e == cudaErrorNotSupported
                           ? ZKPIPE_ERR_NO_DEVICE
                           : ZKPIPE_ERR_DEVICE;
    const char *base = strrchr(file, '/');
    return zkp_diag_fail(diag, st, "CUDA: %s failed: %s (%s, at %s:%d)", call, cudaGetErrorString(e),
                         cudaGetErrorName(e), base ? base + 1 : file, line);
}

static uint64_t now_ns() {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

busy_scope::busy_scope(zkp_gpu *g_) : g(g_), t0(now_ns()) {}
busy_scope::~busy_scope() { g->busy_ns.fetch_add(now_ns() - t0, std::memory_order_relaxed); }

zkpipe_status bind(zkp_gpu *g, zkp_diag *diag) {
    ZKP_CUDA_TRY(diag, cudaSetDevice((int)g->ordinal));
    return ZKPIPE_OK;
}

/* ---- The cache of freed working buffers (zkp_gpu_set_cache) ---- */

/* A cached buffer serves a request of up to an eighth less than its size:
 * a partition's scratch varies with its witness by a few percent. */
static bool fits_(size_t have, size_t want) { return have >= want && have - want <= want / 8; }

/* Takes the smallest cached buffer that fits bytes, moving its size from
 * the cache's books to cat's. */
static bool cache_take_(zkp_gpu *g, void **p, size_t bytes, zkp_gpu_mem_category cat) {
    zkp_gpu_cache &c = g->cache;
    std::lock_guard<std::mutex> lock(c.mu);
    int best = -1;
    for (int i = 0; i < c.n_free; i++)
        if (fits_(c.free_[i].bytes, bytes) && (best < 0 || c.free_[i].bytes < c.free_[best].bytes))
            best = i;
    if (best < 0) return false;
    zkp_gpu_cache::block b = c.free_[best];
    if (b.bytes != bytes) {
        if (c.n_lent == zkp_gpu_cache::MAX) return false;
        c.lent[c.n_lent++] = b;
    }
    c.free_[best] = c.free_[--c.n_free];
    g->live[ZKP_GPU_MEM_CACHED].fetch_sub(b.bytes, std::memory_order_relaxed);
    g->live[cat].fetch_add(b.bytes, std::memory_order_relaxed);
    *p = b.p;
    return true;
}

/* The size booked for p, allocated for a request of bytes: its own where
 * the cache lent it for less. */
static size_t booked_size_(zkp_gpu *g, void *p, size_t bytes) {
    zkp_gpu_cache &c = g->cache;
    std::lock_guard<std::mutex> lock(c.mu);
    for (int i = 0; i < c.n_lent; i++)
        if (c.lent[i].p == p) {
            size_t have = c.lent[i].bytes;
            c.lent[i] = c.lent[--c.n_lent];
            return have;
        }
    return bytes;
}

static bool cache_put_(zkp_gpu *g, void *p, size_t bytes, zkp_gpu_mem_category cat) {
    zkp_gpu_cache &c = g->cache;
    std::lock_guard<std::mutex> lock(c.mu);
    if (!c.on || cat == ZKP_GPU_MEM_BASES || c.n_free == zkp_gpu_cache::MAX) return false;
    c.free_[c.n_free++] = {p, bytes};
    g->live[cat].fetch_sub(bytes, std::memory_order_relaxed);
    g->live[ZKP_GPU_MEM_CACHED].fetch_add(bytes, std::memory_order_relaxed);
    return true;
}

/* Gives the largest cached buffer back to the driver: its bytes, 0 when
 * none is cached. */
static size_t cache_evict_one_(zkp_gpu *g) {
    zkp_gpu_cache::block b;
    {
        zkp_gpu_cache &c = g->cache;
        std::lock_guard<std::mutex> lock(c.mu);
        if (c.n_free == 0) return 0;
        int big = 0;
        for (int i = 1; i < c.n_free; i++)
            if (c.free_[i].bytes > c.free_[big].bytes) big = i;
        b = c.free_[big];
        c.free_[big] = c.free_[--c.n_free];
    }
    (void)cudaFree(b.p);
    g->live[ZKP_GPU_MEM_CACHED].fetch_sub(b.bytes, std::memory_order_relaxed);
    g->live_total.fetch_sub(b.bytes, std::memory_order_relaxed);
    return b.bytes;
}

zkpipe_status dev_alloc(zkp_gpu *g, void **p, size_t bytes, zkp_gpu_mem_category cat,
                        zkp_diag *diag) {
    *p = nullptr;
    if (bytes == 0) return ZKPIPE_OK;
    if (cat != ZKP_GPU_MEM_BASES && cache_take_(g, p, bytes, cat)) return ZKPIPE_OK;
    /* The bytes are booked first, against the budget, so that two
     * allocations racing for its last bytes cannot both pass it. Cached
     * buffers make room first. */
    uint64_t budget = g->budget.load(std::memory_order_relaxed);
    uint64_t held = g->live_total.load(std::memory_order_relaxed), total;
    for (;;) {
        total = held + bytes;
        if (!budget || (total >= held && total <= budget)) {
            if (g->live_total.compare_exchange_weak(held, total, std::memory_order_relaxed)) break;
            continue;
        }
        if (!cache_evict_one_(g))
            return zkp_diag_fail(diag, ZKPIPE_ERR_NO_MEMORY,
                                 "GPU %u: %zu bytes (%s) would pass the device memory budget of "
                                 "%llu bytes, %llu of which are held",
                                 g->ordinal, bytes, zkp_gpu_mem_category_name(cat),
                                 (unsigned long long)budget, (unsigned long long)held);
        held = g->live_total.load(std::memory_order_relaxed);
    }
    cudaError_t e = cudaMalloc(p, bytes);
    if (e == cudaErrorMemoryAllocation && zkp_gpu_release_cached(g)) {
        (void)cudaGetLastError();
        e = cudaMalloc(p, bytes);
    }
    if (e != cudaSuccess) {
        *p = nullptr;
        g->live_total.fetch_sub(bytes, std::memory_order_relaxed);
        char what[96];
        snprintf(what, sizeof what, "cudaMalloc of %zu bytes (%s)", bytes,
                 zkp_gpu_mem_category_name(cat));
        return cuda_fail(diag, e, what, __FILE__, __LINE__);
    }
    g->live[cat].fetch_add(bytes, std::memory_order_relaxed);
    /* What is held now, not total: a failed cudaMalloc gave the cache back
     * since total was booked, and the peak must not count those bytes
     * beside the new ones. */
    uint64_t now = g->live_total.load(std::memory_order_relaxed);
    uint64_t peak = g->peak_total.load(std::memory_order_relaxed);
    while (now > peak && !g->peak_total.compare_exchange_weak(peak, now)) {
    }
    return ZKPIPE_OK;
}

void dev_free(zkp_gpu *g, void *p, size_t bytes, zkp_gpu_mem_category cat) {
    if (!p) return;
    bytes = booked_size_(g, p, bytes);
    if (cache_put_(g, p, bytes, cat)) return;
    /* A free cannot fail in a way the caller could act on; a sticky error
     * from an earlier fault is reported by the next checked call. */
    (void)cudaFree(p);
    g->live[cat].fetch_sub(bytes, std::memory_order_relaxed);
    g->live_total.fetch_sub(bytes, std::memory_order_relaxed);
}

zkpipe_status usable_free_bytes(zkp_gpu *g, size_t *out, zkp_diag *diag) {
    size_t free_b = 0, total_b = 0;
    ZKP_CUDA_TRY(diag, cudaMemGetInfo(&free_b, &total_b));
    /* Cached buffers are free to whoever needs the room. */
    uint64_t cached = g->live[ZKP_GPU_MEM_CACHED].load(std::memory_order_relaxed);
    free_b += cached;
    uint64_t budget = g->budget.load(std::memory_order_relaxed);
    uint64_t reserve = g->reserve.load(std::memory_order_relaxed);
    uint64_t held = g->live_total.load(std::memory_order_relaxed);
    held = held > cached ? held - cached : 0;
    free_b = free_b > reserve ? free_b - (size_t)reserve : 0;
    if (budget) {
        uint64_t keep = held + reserve;
        uint64_t left = keep < budget ? budget - keep : 0;
        if (left < free_b) free_b = (size_t)left;
    }
    *out = free_b;
    return ZKPIPE_OK;
}

zkpipe_status copies_room(zkp_gpu *g, size_t *out, zkp_diag *diag) {
    size_t free_b = 0;
    zkpipe_status st = usable_free_bytes(g, &free_b, diag);
    if (st != ZKPIPE_OK) return st;
    double share = g->reserve.load(std::memory_order_relaxed) ? 0.9 : 0.6;
    *out = (size_t)(share * (double)free_b);
    return ZKPIPE_OK;
}

zkpipe_status buf_ready_on(const zkp_gpu_buf *b, cudaStream_t s, zkp_diag *diag) {
    if (b->uploaded) ZKP_CUDA_TRY(diag, cudaStreamWaitEvent(s, b->uploaded, 0));
    return ZKPIPE_OK;
}

zkpipe_status copy_h2d(zkp_gpu *g, void *dst, const void *src, size_t bytes, cudaStream_t s,
                       zkp_diag *diag) {
    ZKP_CUDA_TRY(diag, cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice, s));
    g->h2d.fetch_add(bytes, std::memory_order_relaxed);
    return ZKPIPE_OK;
}

zkpipe_status copy_d2h(zkp_gpu *g, void *dst, const void *src, size_t bytes, cudaStream_t s,
                       zkp_diag *diag) {
    ZKP_CUDA_TRY(diag, cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToHost, s));
    g->d2h.fetch_add(bytes, std::memory_order_relaxed);
    return ZKPIPE_OK;
}

} /* namespace zkp_cuda */

using namespace zkp_cuda;

extern "C" {

int zkp_gpu_built(void) { return 1; }

void zkp_gpu_prefer_eager_loading(void) { (void)setenv("CUDA_MODULE_LOADING", "EAGER", 0); }

const char *zkp_gpu_mem_category_name(zkp_gpu_mem_category c) {
    static const char *const names[ZKP_GPU_MEM_COUNT_] = {"bases", "abc", "scalars", "scratch",
                                                           "cached"};
    return (unsigned)c < ZKP_GPU_MEM_COUNT_ ? names[c] : "unknown";
}

zkpipe_status zkp_gpu_device_count(unsigned *count, zkp_diag *diag) {
    *count = 0;
    int n = 0;
    cudaError_t e = cudaGetDeviceCount(&n);
    if (e != cudaSuccess) {
        (void)cudaGetLastError();
        return zkp_diag_fail(diag, ZKPIPE_ERR_NO_DEVICE, "no usable GPU: %s (%s)",
                             cudaGetErrorString(e), cudaGetErrorName(e));
    }
    if (n <= 0) return zkp_diag_fail(diag, ZKPIPE_ERR_NO_DEVICE, "no usable GPU: the driver lists none");
    *count = (unsigned)n;
    return ZKPIPE_OK;
}

zkpipe_status zkp_gpu_device_info(zkp_gpu_info *info, unsigned ordinal, zkp_diag *diag) {
    memset(info, 0, sizeof *info);
    unsigned n;
    zkpipe_status st = zkp_gpu_device_count(&n, diag);
    if (st != ZKPIPE_OK) return st;
    if (ordinal >= n)
        return zkp_diag_fail(diag, ZKPIPE_ERR_NO_DEVICE, "no GPU %u: the driver lists %u", ordinal, n);
    cudaDeviceProp prop;
    ZKP_CUDA_TRY(diag, cudaGetDeviceProperties(&prop, (int)ordinal));
    info->ordinal = ordinal;
    size_t len = strnlen(prop.name, sizeof prop.name);
    if (len >= sizeof info->name) len = sizeof info->name - 1;
    memcpy(info->name, prop.name, len);
    info->name[len] = 0;
    info->cc_major = prop.major;
    info->cc_minor = prop.minor;
    info->multiprocessors = (unsigned)prop.multiProcessorCount;
    ZKP_CUDA_TRY(diag, cudaSetDevice((int)ordinal));
    size_t free_b = 0, total_b = 0;
    ZKP_CUDA_TRY(diag, cudaMemGetInfo(&free_b, &total_b));
    info->free_bytes = free_b;
    info->total_bytes = total_b;
    return ZKPIPE_OK;
}

zkpipe_status zkp_gpu_open(zkp_gpu **out, unsigned ordinal, zkp_diag *diag) {
    *out = nullptr;
    zkp_gpu_info info;
    zkpipe_status st = zkp_gpu_device_info(&info, ordinal, diag);
    if (st != ZKPIPE_OK) return st;
    if (info.cc_major < 8)
        return zkp_diag_fail(diag, ZKPIPE_ERR_NO_DEVICE,
                             "GPU %u (%s) has compute capability %d.%d; zkpipe needs 8.0 or newer",
                             ordinal, info.name, info.cc_major, info.cc_minor);
    zkp_gpu *g = new (std::nothrow) zkp_gpu();
    if (!g) return ZKPIPE_ERR_NO_MEMORY;
    g->ordinal = ordinal;
    g->multiprocessors = info.multiprocessors;
    for (auto &l : g->live) l = 0;
    g->live_total = g->peak_total = g->h2d = g->d2h = g->busy_ns = 0;
    g->upload = g->compute = g->download = nullptr;
    ZKP_CUDA_GOTO(diag, st, fail, cudaSetDevice((int)ordinal));
    ZKP_CUDA_GOTO(diag, st, fail, cudaStreamCreateWithFlags(&g->upload, cudaStreamNonBlocking));
    ZKP_CUDA_GOTO(diag, st, fail, cudaStreamCreateWithFlags(&g->compute, cudaStreamNonBlocking));
    ZKP_CUDA_GOTO(diag, st, fail, cudaStreamCreateWithFlags(&g->download, cudaStreamNonBlocking));
    *out = g;
    return ZKPIPE_OK;
fail:
    zkp_gpu_close(g);
    return st;
}

void zkp_gpu_close(zkp_gpu *g) {
    if (!g) return;
    (void)cudaSetDevice((int)g->ordinal);
    zkp_gpu_set_cache(g, 0);
    for (cudaStream_t s : {g->upload, g->compute, g->download})
        if (s) (void)cudaStreamDestroy(s);
    delete g;
}

unsigned zkp_gpu_ordinal(const zkp_gpu *g) { return g->ordinal; }

void zkp_gpu_set_memory_budget(zkp_gpu *g, uint64_t bytes) {
    g->budget.store(bytes, std::memory_order_relaxed);
}

uint64_t zkp_gpu_memory_budget(const zkp_gpu *g) {
    return g->budget.load(std::memory_order_relaxed);
}

void zkp_gpu_set_upload_reserve(zkp_gpu *g, uint64_t bytes) {
    g->reserve.store(bytes, std::memory_order_relaxed);
}

void zkp_gpu_set_cache(zkp_gpu *g, int on) {
    {
        std::lock_guard<std::mutex> lock(g->cache.mu);
        g->cache.on = on != 0;
    }
    if (!on) (void)zkp_gpu_release_cached(g);
}

uint64_t zkp_gpu_release_cached(zkp_gpu *g) {
    (void)cudaSetDevice((int)g->ordinal);
    uint64_t released = 0;
    for (size_t n; (n = cache_evict_one_(g)) != 0;) released += n;
    return released;
}

void zkp_gpu_stats_get(const zkp_gpu *g, zkp_gpu_stats *out) {
    memset(out, 0, sizeof *out);
    for (int i = 0; i < ZKP_GPU_MEM_COUNT_; i++) out->live_bytes[i] = g->live[i].load();
    out->live_total = g->live_total.load();
    out->peak_total = g->peak_total.load();
    out->h2d_bytes = g->h2d.load();
    out->d2h_bytes = g->d2h.load();
    out->busy_seconds = (double)g->busy_ns.load() * 1e-9;
}

/* A refused call's error was read and cleared where it failed
 * (cuda_fail), so whatever the device reports now is a kernel's fault,
 * which CUDA repeats to every call from then on. */
zkpipe_status zkp_gpu_check(zkp_gpu *g, zkp_diag *diag) {
    zkpipe_status st = bind(g, diag);
    if (st == ZKPIPE_OK) ZKP_CUDA_TRY(diag, cudaDeviceSynchronize());
    return st;
}

static __global__ void trap_kernel() { __trap(); }

void zkp_gpu_test_fault(zkp_gpu *g) {
    if (cudaSetDevice((int)g->ordinal) != cudaSuccess) return;
    trap_kernel<<<1, 1, 0, g->compute>>>();
}

zkpipe_status zkp_gpu_buf_alloc(zkp_gpu *g, zkp_gpu_buf **out, size_t bytes,
                                zkp_gpu_mem_category cat, zkp_diag *diag) {
    *out = nullptr;
    zkpipe_status st = bind(g, diag);
    if (st != ZKPIPE_OK) return st;
    zkp_gpu_buf *b = new (std::nothrow) zkp_gpu_buf();
    if (!b) return ZKPIPE_ERR_NO_MEMORY;
    b->g = g;
    b->bytes = bytes;
    b->cat = cat;
    st = dev_alloc(g, &b->ptr, bytes, cat, diag);
    if (st != ZKPIPE_OK) {
        delete b;
        return st;
    }
    *out = b;
    return ZKPIPE_OK;
}

void zkp_gpu_buf_free(zkp_gpu_buf *b) {
    if (!b) return;
    (void)cudaSetDevice((int)b->g->ordinal);
    if (b->uploaded) {
        /* The host memory of a queued upload stays the caller's only until
         * the copy is done. */
        (void)cudaEventSynchronize(b->uploaded);
        (void)cudaEventDestroy(b->uploaded);
    }
    /* A cached buffer may be lent again at once: the work queued on it,
     * which cudaFree would have waited for, must be done. */
    (void)cudaStreamSynchronize(b->g->compute);
    (void)cudaStreamSynchronize(b->g->download);
    dev_free(b->g, b->ptr, b->bytes, b->cat);
    delete b;
}

size_t zkp_gpu_buf_bytes(const zkp_gpu_buf *b) { return b->bytes; }

zkp_gpu *zkp_gpu_buf_gpu(const zkp_gpu_buf *b) { return b->g; }

zkpipe_status zkp_gpu_room(zkp_gpu *g, uint64_t *bytes, zkp_diag *diag) {
    *bytes = 0;
    zkpipe_status st = bind(g, diag);
    size_t room = 0;
    if (st == ZKPIPE_OK) st = usable_free_bytes(g, &room, diag);
    if (st == ZKPIPE_OK) *bytes = room;
    return st;
}

static std::atomic<uint64_t> host_registered_{0};
static std::atomic<uint64_t> register_calls_{0}, register_ns_{0};

zkpipe_status zkp_gpu_host_register(void *p, size_t bytes, zkp_diag *diag) {
    if (!p || !bytes) return ZKPIPE_ERR_INVALID_ARGUMENT;
    uint64_t t0 = now_ns();
    cudaError_t e = cudaHostRegister(p, bytes, cudaHostRegisterPortable);
    register_calls_.fetch_add(1, std::memory_order_relaxed);
    register_ns_.fetch_add(now_ns() - t0, std::memory_order_relaxed);
    if (e != cudaSuccess) return cuda_fail(diag, e, "cudaHostRegister", __FILE__, __LINE__);
    host_registered_.fetch_add(bytes, std::memory_order_relaxed);
    return ZKPIPE_OK;
}

void zkp_gpu_host_unregister(void *p, size_t bytes) {
    if (!p) return;
    uint64_t t0 = now_ns();
    cudaError_t e = cudaHostUnregister(p);
    register_calls_.fetch_add(1, std::memory_order_relaxed);
    register_ns_.fetch_add(now_ns() - t0, std::memory_order_relaxed);
    /* Nothing to do about a failure: the memory is about to go anyway. */
    if (e == cudaSuccess)
        host_registered_.fetch_sub(bytes, std::memory_order_relaxed);
    else
        (void)cudaGetLastError();
}

uint64_t zkp_gpu_host_registered_bytes(void) { return host_registered_.load(); }

void zkp_gpu_host_register_stats(uint64_t *calls, double *seconds) {
    *calls = register_calls_.load();
    *seconds = 1e-9 * (double)register_ns_.load();
}

/* One copy between a device buffer and host memory, whole, on its own
 * stream: the range is checked against the buffer first. */
static zkpipe_status buf_copy_(const zkp_gpu_buf *b, size_t offset, void *host, size_t bytes,
                               int up, zkp_diag *diag) {
    if (offset > b->bytes || bytes > b->bytes - offset)
        return zkp_diag_fail(diag, ZKPIPE_ERR_OUT_OF_RANGE,
                             "%s of %zu bytes at %zu in a device buffer of %zu",
                             up ? "upload" : "download", bytes, offset, b->bytes);
    zkp_gpu *g = b->g;
    zkpipe_status st = bind(g, diag);
    if (st != ZKPIPE_OK) return st;
    busy_scope busy(g);
    char *dev = (char *)b->ptr + offset;
    cudaStream_t s = up ? g->upload : g->download;
    if ((st = buf_ready_on(b, s, diag)) != ZKPIPE_OK) return st;
    st = up ? copy_h2d(g, dev, host, bytes, s, diag) : copy_d2h(g, host, dev, bytes, s, diag);
    if (st != ZKPIPE_OK) return st;
    ZKP_CUDA_TRY(diag, cudaStreamSynchronize(s));
    return ZKPIPE_OK;
}

zkpipe_status zkp_gpu_buf_upload(zkp_gpu_buf *dst, size_t offset, const void *src, size_t bytes,
                                 zkp_diag *diag) {
    return buf_copy_(dst, offset, (void *)src, bytes, 1, diag);
}

zkpipe_status zkp_gpu_buf_download(void *dst, const zkp_gpu_buf *src, size_t offset, size_t bytes,
                                   zkp_diag *diag) {
    return buf_copy_(src, offset, dst, bytes, 0, diag);
}

zkpipe_status zkp_gpu_buf_upload_async(zkp_gpu_buf *b, size_t offset, const void *src, size_t bytes,
                                       zkp_diag *diag) {
    if (offset > b->bytes || bytes > b->bytes - offset)
        return zkp_diag_fail(diag, ZKPIPE_ERR_OUT_OF_RANGE,
                             "upload of %zu bytes at %zu in a device buffer of %zu", bytes, offset,
                             b->bytes);
    zkp_gpu *g = b->g;
    zkpipe_status st = bind(g, diag);
    if (st != ZKPIPE_OK) return st;
    if (!b->uploaded)
        ZKP_CUDA_TRY(diag, cudaEventCreateWithFlags(&b->uploaded, cudaEventDisableTiming));
    if ((st = copy_h2d(g, (char *)b->ptr + offset, src, bytes, g->upload, diag)) != ZKPIPE_OK)
        return st;
    ZKP_CUDA_TRY(diag, cudaEventRecord(b->uploaded, g->upload));
    return ZKPIPE_OK;
}

} /* extern "C" */

namespace {

/* One 32-byte scalar a thread, as two 16-byte words. */
__global__ void gather_kernel(uint4 *out, const uint4 *src, size_t n_src, const uint32_t *cols,
                              size_t n) {
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    size_t j = cols[i];
    uint4 zero = make_uint4(0, 0, 0, 0);
    out[2 * i] = j < n_src ? src[2 * j] : zero;
    out[2 * i + 1] = j < n_src ? src[2 * j + 1] : zero;
}

} /* namespace */

extern "C" {

zkpipe_status zkp_gpu_gather_scalars(zkp_gpu_buf **out, const zkp_gpu_buf *src,
                                     const zkp_gpu_buf *cols, size_t n, zkp_diag *diag) {
    *out = nullptr;
    if (cols->bytes / sizeof(uint32_t) < n)
        return zkp_diag_fail(diag, ZKPIPE_ERR_OUT_OF_RANGE,
                             "gathering %zu scalars through a list of %zu indices", n,
                             cols->bytes / sizeof(uint32_t));
    zkp_gpu *g = src->g;
    zkp_gpu_buf *b;
    zkpipe_status st = zkp_gpu_buf_alloc(g, &b, n ? n * 32 : 32, ZKP_GPU_MEM_SCALARS, diag);
    if (st != ZKPIPE_OK) return st;
    busy_scope busy(g);
    if ((st = buf_ready_on(src, g->compute, diag)) == ZKPIPE_OK &&
        (st = buf_ready_on(cols, g->compute, diag)) == ZKPIPE_OK && n) {
        gather_kernel<<<blocks_for(n, 256), 256, 0, g->compute>>>(
            (uint4 *)b->ptr, (const uint4 *)src->ptr, src->bytes / 32,
            (const uint32_t *)cols->ptr, n);
        cudaError_t e = cudaGetLastError();
        if (e != cudaSuccess)
            st = cuda_fail(diag, e, "launch of gather_kernel", __FILE__, __LINE__);
    }
    if (st != ZKPIPE_OK) {
        zkp_gpu_buf_free(b);
        return st;
    }
    *out = b;
    return ZKPIPE_OK;
}

/* The device copy of one array of a compiled circuit, in a buffer of its
 * own (at least 4 bytes, so an empty matrix has one). */
static zkpipe_status csr_part_(zkp_gpu *g, zkp_gpu_buf **out, const void *src, size_t bytes,
                               zkp_diag *diag) {
    zkpipe_status st = zkp_gpu_buf_alloc(g, out, bytes ? bytes : 4, ZKP_GPU_MEM_BASES, diag);
    if (st == ZKPIPE_OK && bytes) st = zkp_gpu_buf_upload(*out, 0, src, bytes, diag);
    return st;
}

/* Each matrix's row offsets, columns and values, then the table. */
static void csr_sizes_(const zkp_gpu_csr_src *src, size_t sizes[7]) {
    for (int m = 0; m < 2; m++) {
        sizes[3 * m] = ((size_t)src->n_rows + 1) * sizeof(uint64_t);
        sizes[3 * m + 1] = src->nnz[m] * sizeof(uint32_t);
        sizes[3 * m + 2] = src->nnz[m] * (src->vidx[0] ? sizeof(uint16_t) : 32);
    }
    sizes[6] = src->vidx[0] ? src->n_dict * 32 : 0;
}

uint64_t zkp_gpu_csr_bytes(const zkp_gpu_csr_src *src) {
    size_t sizes[7];
    csr_sizes_(src, sizes);
    uint64_t total = 0;
    for (size_t b : sizes) total += b ? b : 4;
    return total;
}

zkpipe_status zkp_gpu_csr_upload(zkp_gpu *g, zkp_gpu_csr **out, const zkp_gpu_csr_src *src,
                                 zkp_diag *diag) {
    *out = nullptr;
    zkp_gpu_csr *c = (zkp_gpu_csr *)calloc(1, sizeof *c);
    if (!c) return zkp_diag_fail(diag, ZKPIPE_ERR_NO_MEMORY, "cannot allocate a device circuit");
    c->g = g;
    c->n_rows = src->n_rows;
    size_t sizes[7];
    csr_sizes_(src, sizes);
    zkpipe_status st = ZKPIPE_OK;
    for (int m = 0; m < 2 && st == ZKPIPE_OK; m++) {
        const void *vals = src->vidx[0] ? (const void *)src->vidx[m] : src->val[m];
        if ((st = csr_part_(g, &c->row_ptr[m], src->row_ptr[m], sizes[3 * m], diag)) ==
                ZKPIPE_OK &&
            (st = csr_part_(g, &c->col[m], src->col[m], sizes[3 * m + 1], diag)) == ZKPIPE_OK)
            st = csr_part_(g, &c->vals[m], vals, sizes[3 * m + 2], diag);
    }
    if (st == ZKPIPE_OK && src->vidx[0]) st = csr_part_(g, &c->dict, src->dict, sizes[6], diag);
    if (st != ZKPIPE_OK) {
        zkp_diag_prefix(diag, "uploading the compiled circuit");
        zkp_gpu_csr_free(c);
        return st;
    }
    *out = c;
    return ZKPIPE_OK;
}

void zkp_gpu_csr_free(zkp_gpu_csr *c) {
    if (!c) return;
    for (int m = 0; m < 2; m++) {
        zkp_gpu_buf_free(c->row_ptr[m]);
        zkp_gpu_buf_free(c->col[m]);
        zkp_gpu_buf_free(c->vals[m]);
    }
    zkp_gpu_buf_free(c->dict);
    free(c);
}

} /* extern "C" */

/* ---- The arithmetic on the host and on the device, for the tests ---- */

namespace {

template <class F>
struct is_prime_field : std::false_type {};
template <class P>
struct is_prime_field<fp<P>> : std::true_type {};

/* Op 7 is a·b by Shoup's product with b as the factor's Montgomery form,
 * as the NTT's tables hold theirs: op 0's value. The prime fields only. */
template <class F>
ZKP_GPU_HD F field_op(int op, const F &a, const F &b) {
    switch (op) {
    case 0: return a * b;
    case 1: return a + b;
    case 2: return a - b;
    case 3: return a.from_mont();
    case 4: return a.to_mont();
    case 5: return a.sqr();
    default:
        if constexpr (is_prime_field<F>::value)
            if (op == 7) return F::mul_shoup(a, F::shoup_of(b));
        return a.inv();
    }
}

template <class F>
void host_field_op(int op, uint64_t *out, const uint64_t *a, const uint64_t *b) {
    F x, y;
    memcpy(&x, a, sizeof x);
    memcpy(&y, b, sizeof y);
    F r = field_op(op, x, y);
    memcpy(out, &r, sizeof r);
}

template <class F>
__global__ void field_op_kernel(int op, F *out, const F *a, const F *b, size_t n) {
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = field_op(op, a[i], b[i]);
}

template <class F>
zkpipe_status dev_field_op(zkp_gpu *g, int op, uint64_t *out, const uint64_t *a,
                           const uint64_t *b, size_t n, zkp_diag *diag) {
    size_t bytes = n * sizeof(F);
    void *d[3] = {nullptr, nullptr, nullptr};
    zkpipe_status st = ZKPIPE_OK;
    for (int i = 0; i < 3 && st == ZKPIPE_OK; i++) st = dev_alloc(g, &d[i], bytes, ZKP_GPU_MEM_SCRATCH, diag);
    if (st == ZKPIPE_OK) st = copy_h2d(g, d[1], a, bytes, g->compute, diag);
    if (st == ZKPIPE_OK) st = copy_h2d(g, d[2], b, bytes, g->compute, diag);
    if (st == ZKPIPE_OK && n) {
        field_op_kernel<F><<<blocks_for(n, 128), 128, 0, g->compute>>>(op, (F *)d[0], (const F *)d[1],
                                                                       (const F *)d[2], n);
        cudaError_t e = cudaGetLastError();
        if (e != cudaSuccess) st = cuda_fail(diag, e, "launch of field_op_kernel", __FILE__, __LINE__);
    }
    if (st == ZKPIPE_OK) st = copy_d2h(g, out, d[0], bytes, g->compute, diag);
    if (st == ZKPIPE_OK) {
        cudaError_t e = cudaStreamSynchronize(g->compute);
        if (e != cudaSuccess) st = cuda_fail(diag, e, "cudaStreamSynchronize", __FILE__, __LINE__);
    }
    for (void *p : d) dev_free(g, p, bytes, ZKP_GPU_MEM_SCRATCH);
    return st;
}

template <class F>
void host_madd(uint64_t *acc, const uint64_t *p) {
    xyzz<F> r;
    affine<F> a;
    memcpy(&r, acc, sizeof r);
    memcpy(&a, p, sizeof a);
    r.add_affine(a);
    memcpy(acc, &r, sizeof r);
}

} /* namespace */

extern "C" {

zkpipe_status zkp_gpu_host_field_op(int field, int op, uint64_t *out, const uint64_t *a,
                                    const uint64_t *b) {
    if (op < 0 || op > 7 || (op == 7 && field > 3)) return ZKPIPE_ERR_INVALID_ARGUMENT;
    switch (field) {
    case 0: host_field_op<bn254_fq>(op, out, a, b); return ZKPIPE_OK;
    case 1: host_field_op<bn254_fr>(op, out, a, b); return ZKPIPE_OK;
    case 2: host_field_op<bls12_381_fp>(op, out, a, b); return ZKPIPE_OK;
    case 3: host_field_op<bls12_381_fr>(op, out, a, b); return ZKPIPE_OK;
    case 4: host_field_op<bn254_fq2>(op, out, a, b); return ZKPIPE_OK;
    case 5: host_field_op<bls12_381_fp2>(op, out, a, b); return ZKPIPE_OK;
    default: return ZKPIPE_ERR_INVALID_ARGUMENT;
    }
}

zkpipe_status zkp_gpu_host_madd(int group, uint64_t *acc, const uint64_t *p) {
    switch (group) {
    case 0: host_madd<bn254_fq>(acc, p); return ZKPIPE_OK;
    case 1: host_madd<bls12_381_fp>(acc, p); return ZKPIPE_OK;
    case 2: host_madd<bn254_fq2>(acc, p); return ZKPIPE_OK;
    case 3: host_madd<bls12_381_fp2>(acc, p); return ZKPIPE_OK;
    default: return ZKPIPE_ERR_INVALID_ARGUMENT;
    }
}

zkpipe_status zkp_gpu_dev_field_op(zkp_gpu *g, int field, int op, uint64_t *out, const uint64_t *a,
                                   const uint64_t *b, size_t n, zkp_diag *diag) {
    if (op < 0 || op > 7) return ZKPIPE_ERR_INVALID_ARGUMENT;
    zkpipe_status st = bind(g, diag);
    if (st != ZKPIPE_OK) return st;
    busy_scope busy(g);
    switch (field) {
    case 0: return dev_field_op<bn254_fq>(g, op, out, a, b, n, diag);
    case 1: return dev_field_op<bn254_fr>(g, op, out, a, b, n, diag);
    case 2: return dev_field_op<bls12_381_fp>(g, op, out, a, b, n, diag);
    case 3: return dev_field_op<bls12_381_fr>(g, op, out, a, b, n, diag);
    default: return ZKPIPE_ERR_INVALID_ARGUMENT;
    }
}

} /* extern "C" */
