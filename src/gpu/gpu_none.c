/* The GPU layer of a build without CUDA (ZKPIPE_ENABLE_CUDA=OFF, or AUTO on
 * a machine without nvcc): every entry point of gpu.h answers
 * ZKPIPE_ERR_UNSUPPORTED and says why, so callers need no #ifdef. */
#include "gpu/gpu.h"

#define NO_CUDA_(diag) \
    zkp_diag_fail(diag, ZKPIPE_ERR_UNSUPPORTED, "this zkpipe was built without CUDA (ZKPIPE_ENABLE_CUDA)")

int zkp_gpu_built(void) { return 0; }
void zkp_gpu_prefer_eager_loading(void) {}

const char *zkp_gpu_mem_category_name(zkp_gpu_mem_category c) {
    static const char *const names[ZKP_GPU_MEM_COUNT_] = {"bases", "abc", "scalars", "scratch",
                                                           "cached"};
    return (unsigned)c < ZKP_GPU_MEM_COUNT_ ? names[c] : "unknown";
}

zkpipe_status zkp_gpu_device_count(unsigned *count, zkp_diag *diag) {
    *count = 0;
    return NO_CUDA_(diag);
}

zkpipe_status zkp_gpu_device_info(zkp_gpu_info *info, unsigned ordinal, zkp_diag *diag) {
    (void)info;
    (void)ordinal;
    return NO_CUDA_(diag);
}

zkpipe_status zkp_gpu_open(zkp_gpu **out, unsigned ordinal, zkp_diag *diag) {
    *out = NULL;
    (void)ordinal;
    return NO_CUDA_(diag);
}

/* No context or buffer can exist in this build, so these see only NULL. */
void zkp_gpu_close(zkp_gpu *g) { (void)g; }
unsigned zkp_gpu_ordinal(const zkp_gpu *g) {
    (void)g;
    return 0;
}
void zkp_gpu_stats_get(const zkp_gpu *g, zkp_gpu_stats *out) {
    (void)g;
    *out = (zkp_gpu_stats){{0}, 0, 0, 0, 0, 0};
}
zkpipe_status zkp_gpu_check(zkp_gpu *g, zkp_diag *diag) {
    (void)g;
    return NO_CUDA_(diag);
}
void zkp_gpu_test_fault(zkp_gpu *g) { (void)g; }
void zkp_gpu_set_memory_budget(zkp_gpu *g, uint64_t bytes) {
    (void)g;
    (void)bytes;
}
uint64_t zkp_gpu_memory_budget(const zkp_gpu *g) {
    (void)g;
    return 0;
}
void zkp_gpu_set_upload_reserve(zkp_gpu *g, uint64_t bytes) {
    (void)g;
    (void)bytes;
}
void zkp_gpu_set_cache(zkp_gpu *g, int on) {
    (void)g;
    (void)on;
}
uint64_t zkp_gpu_release_cached(zkp_gpu *g) {
    (void)g;
    return 0;
}
zkpipe_status zkp_gpu_buf_alloc(zkp_gpu *g, zkp_gpu_buf **out, size_t bytes,
                                zkp_gpu_mem_category cat, zkp_diag *diag) {
    (void)g;
    (void)bytes;
    (void)cat;
    *out = NULL;
    return NO_CUDA_(diag);
}
void zkp_gpu_buf_free(zkp_gpu_buf *b) { (void)b; }
size_t zkp_gpu_buf_bytes(const zkp_gpu_buf *b) {
    (void)b;
    return 0;
}
zkp_gpu *zkp_gpu_buf_gpu(const zkp_gpu_buf *b) {
    (void)b;
    return NULL;
}
zkpipe_status zkp_gpu_room(zkp_gpu *g, uint64_t *bytes, zkp_diag *diag) {
    (void)g;
    *bytes = 0;
    return NO_CUDA_(diag);
}
zkpipe_status zkp_gpu_buf_upload(zkp_gpu_buf *dst, size_t offset, const void *src, size_t bytes,
                                 zkp_diag *diag) {
    (void)dst, (void)offset, (void)src, (void)bytes;
    return NO_CUDA_(diag);
}
zkpipe_status zkp_gpu_buf_upload_async(zkp_gpu_buf *dst, size_t offset, const void *src,
                                       size_t bytes, zkp_diag *diag) {
    (void)dst, (void)offset, (void)src, (void)bytes;
    return NO_CUDA_(diag);
}
zkpipe_status zkp_gpu_buf_download(void *dst, const zkp_gpu_buf *src, size_t offset, size_t bytes,
                                   zkp_diag *diag) {
    (void)dst, (void)offset, (void)src, (void)bytes;
    return NO_CUDA_(diag);
}
uint64_t zkp_gpu_csr_bytes(const zkp_gpu_csr_src *src) {
    (void)src;
    return 0;
}
zkpipe_status zkp_gpu_csr_upload(zkp_gpu *g, zkp_gpu_csr **out, const zkp_gpu_csr_src *src,
                                 zkp_diag *diag) {
    (void)g, (void)src;
    *out = NULL;
    return NO_CUDA_(diag);
}
void zkp_gpu_csr_free(zkp_gpu_csr *c) { (void)c; }

zkpipe_status zkp_gpu_gather_scalars(zkp_gpu_buf **out, const zkp_gpu_buf *src,
                                     const zkp_gpu_buf *cols, size_t n, zkp_diag *diag) {
    (void)src, (void)cols, (void)n;
    *out = NULL;
    return NO_CUDA_(diag);
}

#define NTT_NONE_(F)                                                                          \
    zkpipe_status F##_gpu_ntt(zkp_gpu *g, uint64_t *a, unsigned log_n, int kind,              \
                              const uint64_t *root, const uint64_t *shift, zkp_diag *diag) {  \
        (void)g, (void)a, (void)log_n, (void)kind, (void)root, (void)shift;                   \
        return NO_CUDA_(diag);                                                                \
    }                                                                                         \
    zkpipe_status F##_gpu_ntt_dev(zkp_gpu *g, zkp_gpu_buf *a, unsigned log_n, int kind,       \
                                  const uint64_t *root, const uint64_t *shift, zkp_diag *diag) { \
        (void)g, (void)a, (void)log_n, (void)kind, (void)root, (void)shift;                   \
        return NO_CUDA_(diag);                                                                \
    }                                                                                         \
    zkpipe_status F##_gpu_h_evals(zkp_gpu *g, zkp_gpu_buf **h, const uint64_t *abc,           \
                                  unsigned log_n, const uint64_t *root, const uint64_t *shift, \
                                  int coefficients, zkp_diag *diag) {                         \
        (void)g, (void)abc, (void)log_n, (void)root, (void)shift, (void)coefficients;         \
        *h = NULL;                                                                            \
        return NO_CUDA_(diag);                                                                \
    }                                                                                         \
    zkpipe_status F##_gpu_h_evals_csr(zkp_gpu *g, zkp_gpu_buf **h, const zkp_gpu_csr *csr,    \
                                      const zkp_gpu_buf *witness, unsigned log_n,             \
                                      const uint64_t *root, const uint64_t *shift,            \
                                      int coefficients, zkp_diag *diag) {                     \
        (void)g, (void)csr, (void)witness, (void)log_n, (void)root, (void)shift,              \
            (void)coefficients;                                                               \
        *h = NULL;                                                                            \
        return NO_CUDA_(diag);                                                                \
    }
NTT_NONE_(bn254_fr)
NTT_NONE_(bls12_381_fr)

zkpipe_status zkp_gpu_host_register(void *p, size_t bytes, zkp_diag *diag) {
    (void)p, (void)bytes;
    return NO_CUDA_(diag);
}
void zkp_gpu_host_unregister(void *p, size_t bytes) { (void)p, (void)bytes; }
uint64_t zkp_gpu_host_registered_bytes(void) { return 0; }
void zkp_gpu_host_register_stats(uint64_t *calls, double *seconds) {
    *calls = 0;
    *seconds = 0;
}

void zkp_gpu_bases_free(zkp_gpu_bases *b) { (void)b; }
size_t zkp_gpu_bases_count(const zkp_gpu_bases *b) {
    (void)b;
    return 0;
}
zkpipe_status zkp_gpu_bases_fill(zkp_gpu_bases *b, const void *pts, size_t n, zkp_diag *diag) {
    (void)b, (void)pts, (void)n;
    return NO_CUDA_(diag);
}
zkpipe_status zkp_gpu_bases_trim(zkp_gpu_bases *b, uint64_t *freed, zkp_diag *diag) {
    (void)b;
    *freed = 0;
    return NO_CUDA_(diag);
}

#define MSM_NONE_(G)                                                                              \
    zkpipe_status G##_gpu_bases_upload(zkp_gpu *g, zkp_gpu_bases **out, const void *bases,       \
                                       size_t n, zkp_diag *diag) {                               \
        (void)g, (void)bases, (void)n;                                                            \
        *out = NULL;                                                                              \
        return NO_CUDA_(diag);                                                                    \
    }                                                                                             \
    zkpipe_status G##_gpu_bases_window(zkp_gpu *g, zkp_gpu_bases **out, size_t capacity,         \
                                       zkp_diag *diag) {                                          \
        (void)g, (void)capacity;                                                                  \
        *out = NULL;                                                                              \
        return NO_CUDA_(diag);                                                                    \
    }                                                                                             \
    zkpipe_status G##_gpu_msm(zkp_gpu *g, void *out, const zkp_gpu_bases *bases, size_t first,    \
                              const uint64_t *scalars, size_t n, zkp_diag *diag) {                \
        (void)g, (void)out, (void)bases, (void)first, (void)scalars, (void)n;                     \
        return NO_CUDA_(diag);                                                                    \
    }                                                                                             \
    zkpipe_status G##_gpu_msm_dev(zkp_gpu *g, void *out, const zkp_gpu_bases *bases,              \
                                  size_t first, const zkp_gpu_buf *scalars, size_t scalars_first, \
                                  size_t n, zkp_diag *diag) {                                     \
        (void)g, (void)out, (void)bases, (void)first, (void)scalars, (void)scalars_first, (void)n; \
        return NO_CUDA_(diag);                                                                    \
    }
MSM_NONE_(bn254_g1)
MSM_NONE_(bls12_381_g1)
MSM_NONE_(bn254_g2)
MSM_NONE_(bls12_381_g2)

void zkp_gpu_fixed_base_free(zkp_gpu_fixed_base *fb) { (void)fb; }
#define FB_NONE_(G)                                                                            \
    zkpipe_status G##_gpu_fixed_base_new(zkp_gpu *g, zkp_gpu_fixed_base **out, const void *table, \
                                         unsigned w, unsigned nwin, zkp_diag *diag) {             \
        (void)g, (void)table, (void)w, (void)nwin;                                                \
        *out = NULL;                                                                              \
        return NO_CUDA_(diag);                                                                    \
    }                                                                                             \
    zkpipe_status G##_gpu_fixed_base_eval(zkp_gpu_fixed_base *fb, void *out,                      \
                                          const uint64_t *scalars, size_t n, zkp_diag *diag) {    \
        (void)fb, (void)out, (void)scalars, (void)n;                                              \
        return NO_CUDA_(diag);                                                                    \
    }
FB_NONE_(bls12_381_g1)
FB_NONE_(bls12_381_g2)

zkpipe_status zkp_gpu_host_field_op(int field, int op, uint64_t *out, const uint64_t *a,
                                    const uint64_t *b) {
    (void)field, (void)op, (void)out, (void)a, (void)b;
    return ZKPIPE_ERR_UNSUPPORTED;
}
zkpipe_status zkp_gpu_host_madd(int group, uint64_t *acc, const uint64_t *p) {
    (void)group, (void)acc, (void)p;
    return ZKPIPE_ERR_UNSUPPORTED;
}
#define MSM_HOST_NONE_(G)                                                                          \
    zkpipe_status G##_gpu_host_msm_digits(size_t m, size_t n, unsigned copies, unsigned shift,     \
                                          const uint64_t *scalar, zkp_gpu_msm_digits *out) {       \
        (void)m, (void)n, (void)copies, (void)shift, (void)scalar, (void)out;                      \
        return ZKPIPE_ERR_UNSUPPORTED;                                                             \
    }                                                                                              \
    zkpipe_status G##_gpu_host_bucket_sums(const void *buckets, unsigned sets, uint32_t per_set,  \
                                           uint32_t len, void *out) {                              \
        (void)buckets, (void)sets, (void)per_set, (void)len, (void)out;                            \
        return ZKPIPE_ERR_UNSUPPORTED;                                                             \
    }
MSM_HOST_NONE_(bn254_g1)
MSM_HOST_NONE_(bls12_381_g1)
MSM_HOST_NONE_(bn254_g2)
MSM_HOST_NONE_(bls12_381_g2)
zkpipe_status zkp_gpu_dev_field_op(zkp_gpu *g, int field, int op, uint64_t *out, const uint64_t *a,
                                   const uint64_t *b, size_t n, zkp_diag *diag) {
    (void)g, (void)field, (void)op, (void)out, (void)a, (void)b, (void)n;
    return NO_CUDA_(diag);
}
