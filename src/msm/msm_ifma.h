/* The bucket additions with AVX-512 IFMA (msm_ifma.c), for G1 and G2 of
 * both curves, and the vector field arithmetic under them exposed for the
 * tests.
 *
 * Callers check zkp_cpu_use_ifma (util/cpu.h) first: these functions exist
 * only in x86-64 builds (ZKP_HAVE_X86_ASM) and must not run on a CPU
 * without avx512f and avx512ifma. */
#ifndef ZKP_MSM_MSM_IFMA_H
#define ZKP_MSM_MSM_IFMA_H

#include <stddef.h>

#include "curve/bls12_381_g1.h"
#include "curve/bls12_381_g2.h"
#include "curve/bn254_g1.h"
#include "curve/bn254_g2.h"

#ifdef ZKP_HAVE_X86_ASM

/* Fewer pending additions than this are left to the scalar flush: a row
 * of eight lanes costs about what eight scalar additions do only once the
 * padding of the last row is small against the rest. */
#define ZKP_MSM_IFMA_MIN_BATCH 32

/* *dst[j] += *src[j] for j < k <= ZKP_MSM_BATCH, on affine points that are
 * not at infinity, with den[j] = src[j].x - dst[j].x nonzero; no two dst
 * the same and no dst among the src. The same contract as the scalar
 * batch flush in msm_body.h, which it replaces. */
void bn254_g1_msm_ifma_batch_add(bn254_g1_affine_t *const *dst, const bn254_g1_affine_t *const *src,
                                 const bn254_fq_t *den, size_t k);
void bls12_381_g1_msm_ifma_batch_add(bls12_381_g1_affine_t *const *dst, const bls12_381_g1_affine_t *const *src,
                                     const bls12_381_fp_t *den, size_t k);
void bn254_g2_msm_ifma_batch_add(bn254_g2_affine_t *const *dst, const bn254_g2_affine_t *const *src,
                                 const bn254_fq2_t *den, size_t k);
void bls12_381_g2_msm_ifma_batch_add(bls12_381_g2_affine_t *const *dst, const bls12_381_g2_affine_t *const *src,
                                     const bls12_381_fp2_t *den, size_t k);

/* r[e] = a[e] b[e] and s[e] = a[e] - b[e] for e < 8, through the eight-lane
 * arithmetic; a, b in Montgomery form, reduced. */
void zkp_ifma_bn254_fq_mul_sub8(bn254_fq_t r[8], bn254_fq_t s[8], const bn254_fq_t a[8], const bn254_fq_t b[8]);
void zkp_ifma_bls12_381_fp_mul_sub8(bls12_381_fp_t r[8], bls12_381_fp_t s[8], const bls12_381_fp_t a[8],
                                    const bls12_381_fp_t b[8]);
void zkp_ifma_bn254_fq2_mul_sub8(bn254_fq2_t r[8], bn254_fq2_t s[8], const bn254_fq2_t a[8], const bn254_fq2_t b[8]);
void zkp_ifma_bls12_381_fp2_mul_sub8(bls12_381_fp2_t r[8], bls12_381_fp2_t s[8], const bls12_381_fp2_t a[8],
                                     const bls12_381_fp2_t b[8]);

#endif
#endif
