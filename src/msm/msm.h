/* The multi-scalar multiplication contract.
 *
 * For each group G in {bn254_g1, bn254_g2, bls12_381_g1, bls12_381_g2} (see
 * curve/curve.h) this layer computes
 *
 *     out = sum_{i < n} [k_i] P_i
 *
 * for n affine bases P_i (G_affine_t; (0, 0) is the point at infinity and is
 * allowed) and n scalars k_i. The header of each group (bn254_g1_msm.h, ...)
 * instantiates the one generic body, msm_impl.h; the code is written once in
 * msm_body.h.
 *
 * Scalars. Each k_i is four little-endian uint64_t limbs in canonical form
 * (not Montgomery): the output of F_from_mont of the scalar field (bn254_fr,
 * bls12_381_fr), so scalars[4 i .. 4 i + 3] is k_i. On input every k_i is
 * below 2^F_BITS of that field (values below r always are); a value in
 * [r, 2^F_BITS) is multiplied as the integer it is, which is the same point
 * because every base is expected in the group of order r.
 *
 * Timing. Every MSM here is variable time in the scalars: Pippenger picks a
 * bucket by the scalar's digits, and the split path branches on 0 and 1.
 * Groth16 provers run their MSMs this way; a caller that needs constant time
 * must use G_mul per point instead.
 *
 * The GLV form (every group here; see curve/glv.h). These groups have an
 * endomorphism phi(x, y) = (beta x, y), beta in Fq, that acts as a scalar lambda,
 * and each k_i splits as k1 + lambda k2 mod r with |k1|, |k2| < 2^127. The
 * MSM then runs over 2n points, P_i with k1 and phi(P_i) with k2, in half
 * as many windows: each window adds twice the points (phi costs one field
 * multiplication per point and window, so the bases are read as they are
 * and nothing is stored per base), and the bucket reductions per point
 * halve. Where that pays depends on n and the thread count; the cost model
 * (zkp_msm_choose) decides per call, so every entry point below may run
 * either form. The decomposed scalars, 32 bytes per point, live in the
 * caller's scratch. On G2, phi multiplies both coefficients of x by beta:
 * two Fq multiplications against the dozens of an Fq2 bucket addition.
 *
 * Scratch memory. The caller owns it (the engine hands pool memory):
 *   G_msm_scratch_bytes(n, nthreads)  bytes that G_msm_var, G_msm_mt_var and
 *                     G_msm_split_var need for n points on nthreads threads; any
 *                     alignment is accepted (the functions align inside).
 *                     0 when n is small enough for the straight path. For
 *                     every group it includes 32 bytes per point (of one
 *                     split block, up to ZKP_MSM_GLV_MAX_N) for the GLV form.
 * A scratch_len below that value is refused with ZKPIPE_ERR_INVALID_ARGUMENT
 * before any work, as is nthreads = 0 or a NULL pointer with n > 0.
 *
 * Entry points (status returns; *out is a Jacobian point):
 *   G_msm_var(out, bases, scalars, n, scratch, scratch_len)
 *                     single-threaded: G_msm_mt_var with nthreads = 1
 *   G_msm_mt_var(out, bases, scalars, n, nthreads, scratch, scratch_len)
 *                     Pippenger with signed digits, windows and point
 *                     ranges spread over nthreads pthreads (1 = no thread is
 *                     created). n < ZKP_MSM_SMALL_N takes the straight path:
 *                     one G_mul_var per point
 *   G_msm_split_var(out, stats, bases, scalars, n, nthreads, scratch, scratch_len)
 *                     for witness-like scalars: zeros are skipped, bases with
 *                     scalar exactly 1 are summed with plain mixed additions,
 *                     and only the rest (the tail) goes through Pippenger.
 *                     stats (optional, may be NULL) receives the counts
 * Every entry point returns the same point for any nthreads; the Jacobian
 * coordinates may differ (compare with G_eq).
 *
 * Building blocks, for an engine that runs the work on its own threads:
 *   G_msm_pippenger_scratch_bytes(n, c, nthreads)
 *   G_msm_pippenger_var(out, bases, scalars, idx, n, c, nthreads, scratch, len)
 *                     Pippenger with a given window width c in
 *                     [1, ZKP_MSM_MAX_C], no small-n shortcut; idx (optional)
 *                     selects the points: point j is bases[idx[j]] with
 *                     scalar idx[j]
 *   G_msm_num_windows(c)   windows of width c that cover the scalar
 *   G_msm_window_var(out, buckets, bases, scalars, idx, lo, hi, c, w)
 *                     the work unit: out = sum over points j in [lo, hi) of
 *                     [d_w(k_j)] P_j, with d_w the signed digit of window w
 *                     and buckets caller memory for 2^(c-1) XYZZ points
 *   G_msm_combine_windows(out, sums, nwin, c)
 *                     out = sum_w 2^(w c) sums[w], by doubling (Horner)
 *   G_msm_sum_affine_var(acc, bases, idx, lo, hi)
 *                     acc += sum of the bases j in [lo, hi) (the batch add)
 * and for every group the GLV form's counterparts:
 *   G_msm_pippenger_glv_scratch_bytes(n, c, nthreads)
 *   G_msm_pippenger_glv_var(out, bases, scalars, idx, n, c, nthreads, scratch, len)
 *                     the same contract as G_msm_pippenger_var, c being the
 *                     width of the windows over the 128-bit halves
 *   G_msm_glv_num_windows(c)
 *   G_msm_window_glv_batch_var(out, work, bases, ks, idx, lo, hi, c, w)
 *                     the work unit over decomposed scalars ks
 *
 * Window size. zkp_msm_choose_c(n, nthreads, nbits) picks c from a cost
 * model, documented at its definition in msm_util.c; zkp_msm_choose_glv_c
 * does the same for the GLV form and zkp_msm_choose picks the form. */
#ifndef ZKP_MSM_MSM_H
#define ZKP_MSM_MSM_H

#include "msm/bls12_381_g1_msm.h"
#include "msm/bls12_381_g2_msm.h"
#include "msm/bn254_g1_msm.h"
#include "msm/bn254_g2_msm.h"

#endif
