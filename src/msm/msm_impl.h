/* Generic MSM over one group: the declarations. Instantiated by each group's
 * msm header, never included on its own:
 *
 *     #define MSM_G    bn254_g1       (the group: its types and operations)
 *     #define MSM_BITS BN254_FR_BITS  (bit length of the scalar field modulus)
 *     #define MSM_FIELD bn254_fq      (the coordinate field)
 *     #define MSM_GLV  zkp_glv_bn254_g1  (optional: the decomposition
 *                                      constants of curve/glv.h, for a group
 *                                      with the endomorphism G_affine_glv_phi)
 *     #include "msm/msm_impl.h"
 *
 * and in exactly one .c file per group, msm_body.h after it with the same
 * macros. See msm.h for the contract. */
#include <stddef.h>
#include <stdint.h>

#include "msm/msm_util.h"
#include "util/util.h"

#define MSM_AFF ZKP_CAT(MSM_G, _affine_t)
#define MSM_JAC ZKP_CAT(MSM_G, _jacobian_t)
#define MSM_XYZZ ZKP_CAT(MSM_G, _xyzz_t)
#define MSM_FN(op) ZKP_CAT(ZKP_CAT(MSM_G, _), op)

/* Bytes of scratch for n points on nthreads threads (G_msm_var, G_msm_mt_var and
 * G_msm_split_var). */
size_t MSM_FN(msm_scratch_bytes)(size_t n, unsigned nthreads);

ZKP_WARN_UNUSED zkpipe_status MSM_FN(msm_var)(MSM_JAC *out, const MSM_AFF *bases, const uint64_t *scalars,
                                          size_t n, void *scratch, size_t scratch_len);

ZKP_WARN_UNUSED zkpipe_status MSM_FN(msm_mt_var)(MSM_JAC *out, const MSM_AFF *bases,
                                             const uint64_t *scalars, size_t n, unsigned nthreads,
                                             void *scratch, size_t scratch_len);

ZKP_WARN_UNUSED zkpipe_status MSM_FN(msm_split_var)(MSM_JAC *out, zkp_msm_stats *stats,
                                                const MSM_AFF *bases, const uint64_t *scalars,
                                                size_t n, unsigned nthreads, void *scratch,
                                                size_t scratch_len);

/* Bytes of scratch G_msm_pippenger_var needs for window width c. */
size_t MSM_FN(msm_pippenger_scratch_bytes)(size_t n, unsigned c, unsigned nthreads);

ZKP_WARN_UNUSED zkpipe_status MSM_FN(msm_pippenger_var)(MSM_JAC *out, const MSM_AFF *bases,
                                                    const uint64_t *scalars, const uint32_t *idx,
                                                    size_t n, unsigned c, unsigned nthreads,
                                                    void *scratch, size_t scratch_len);

/* Windows of width c that cover a scalar of MSM_BITS bits plus the carry. */
static inline unsigned MSM_FN(msm_num_windows)(unsigned c) { return (MSM_BITS + 1 + c - 1) / c; }

/* On input buckets has room for 2^(c-1) XYZZ points (its contents are
 * ignored) and 1 <= c <= ZKP_MSM_MAX_C, w < G_msm_num_windows(c). */
void MSM_FN(msm_window_var)(MSM_JAC *out, MSM_XYZZ *buckets, const MSM_AFF *bases,
                            const uint64_t *scalars, const uint32_t *idx, size_t lo, size_t hi,
                            unsigned c, unsigned w);

/* The same unit with batch-affine buckets (msm_body.h explains them), in
 * work memory of G_msm_window_work_bytes(c) bytes aligned to 64. The
 * Pippenger driver runs this one; msm_window_var stays as the reference. */
size_t MSM_FN(msm_window_work_bytes)(unsigned c);
void MSM_FN(msm_window_batch_var)(MSM_JAC *out, void *work, const MSM_AFF *bases,
                                  const uint64_t *scalars, const uint32_t *idx, size_t lo, size_t hi,
                                  unsigned c, unsigned w);

void MSM_FN(msm_combine_windows)(MSM_JAC *out, const MSM_JAC *sums, unsigned nwin, unsigned c);

#ifdef MSM_GLV
/* The GLV form (msm.h): windows of width c over the 128-bit halves. */
static inline unsigned MSM_FN(msm_glv_num_windows)(unsigned c) { return (ZKP_GLV_BITS + c - 1) / c; }

/* Bytes of scratch G_msm_pippenger_glv_var needs: Pippenger's for width c
 * plus 32 bytes per point for the decomposed scalars. */
size_t MSM_FN(msm_pippenger_glv_scratch_bytes)(size_t n, unsigned c, unsigned nthreads);

ZKP_WARN_UNUSED zkpipe_status MSM_FN(msm_pippenger_glv_var)(MSM_JAC *out, const MSM_AFF *bases,
                                                        const uint64_t *scalars, const uint32_t *idx,
                                                        size_t n, unsigned c, unsigned nthreads,
                                                        void *scratch, size_t scratch_len);

/* The work unit of the GLV form: out = sum over points j in [lo, hi) of
 * [d_w(k1_j)] P_j + [d_w(k2_j)] phi(P_j), where ks[4 j .. 4 j + 3] holds
 * k1_j and k2_j as zkp_glv_decompose writes them (indexed by j, not by
 * idx[j]), P_j = bases[idx ? idx[j] : j] and w < G_msm_glv_num_windows(c).
 * work as for G_msm_window_batch_var. */
void MSM_FN(msm_window_glv_batch_var)(MSM_JAC *out, void *work, const MSM_AFF *bases,
                                      const uint64_t *ks, const uint32_t *idx, size_t lo, size_t hi,
                                      unsigned c, unsigned w);
#endif

void MSM_FN(msm_sum_affine_var)(MSM_XYZZ *acc, const MSM_AFF *bases, const uint32_t *idx, size_t lo,
                                size_t hi);

#undef MSM_AFF
#undef MSM_JAC
#undef MSM_XYZZ
#undef MSM_FN
