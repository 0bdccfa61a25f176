/* The AVX-512 IFMA bucket kernels: see msm_ifma.h. This file alone is
 * compiled for avx512f and avx512ifma (CMakeLists.txt); nothing in it runs
 * unless zkp_cpu_use_ifma is set. */
#include "msm/msm_ifma.h"

#ifdef ZKP_HAVE_X86_ASM

#include "msm/msm_util.h"

#define FP8_NAME bn254_fq8
#define FP8_FIELD bn254_fq
#define FP8_PARAM BN254_FQ
#define FP8_N 5
#include "field/fp8_ifma_body.h"
#undef FP8_NAME
#undef FP8_FIELD
#undef FP8_PARAM
#undef FP8_N

#define FP8_NAME bls12_381_fp8
#define FP8_FIELD bls12_381_fp
#define FP8_PARAM BLS12_381_FP
#define FP8_N 8
#include "field/fp8_ifma_body.h"
#undef FP8_NAME
#undef FP8_FIELD
#undef FP8_PARAM
#undef FP8_N

#define FP28_NAME bn254_fq2x8
#define FP28_BASE bn254_fq8
#define FP28_FIELD bn254_fq2
#include "field/fp2x8_ifma_body.h"
#undef FP28_NAME
#undef FP28_BASE
#undef FP28_FIELD

#define FP28_NAME bls12_381_fp2x8
#define FP28_BASE bls12_381_fp8
#define FP28_FIELD bls12_381_fp2
#include "field/fp2x8_ifma_body.h"
#undef FP28_NAME
#undef FP28_BASE
#undef FP28_FIELD

#define MSM_G bn254_g1
#define MSM_FIELD bn254_fq
#define MSM_VEC bn254_fq8
#include "msm/msm_ifma_body.h"
#undef MSM_G
#undef MSM_FIELD
#undef MSM_VEC

#define MSM_G bls12_381_g1
#define MSM_FIELD bls12_381_fp
#define MSM_VEC bls12_381_fp8
#include "msm/msm_ifma_body.h"
#undef MSM_G
#undef MSM_FIELD
#undef MSM_VEC

#define MSM_G bn254_g2
#define MSM_FIELD bn254_fq2
#define MSM_VEC bn254_fq2x8
#include "msm/msm_ifma_body.h"
#undef MSM_G
#undef MSM_FIELD
#undef MSM_VEC

#define MSM_G bls12_381_g2
#define MSM_FIELD bls12_381_fp2
#define MSM_VEC bls12_381_fp2x8
#include "msm/msm_ifma_body.h"
#undef MSM_G
#undef MSM_FIELD
#undef MSM_VEC

#define ZKP_IFMA_MUL_SUB8_(field, v)                                                                \
    void zkp_ifma_##field##_mul_sub8(field##_t r[8], field##_t s[8], const field##_t a[8],          \
                                     const field##_t b[8]) {                                        \
        v##_ctx c;                                                                                  \
        v##_ctx_init(&c);                                                                           \
        const long long fs = (long long)sizeof(field##_t);                                          \
        v##_t va, vb, vr, vs;                                                                       \
        v##_gather(&va, zkp_ifma_lanes(a, fs), &c);                                                 \
        v##_gather(&vb, zkp_ifma_lanes(b, fs), &c);                                                 \
        v##_mul(&vr, &va, &vb, &c);                                                                 \
        v##_sub(&vs, &va, &vb, &c);                                                                 \
        v##_scatter(zkp_ifma_lanes(r, fs), &vr, &c);                                                \
        v##_scatter(zkp_ifma_lanes(s, fs), &vs, &c);                                                \
    }
ZKP_IFMA_MUL_SUB8_(bn254_fq, bn254_fq8)
ZKP_IFMA_MUL_SUB8_(bls12_381_fp, bls12_381_fp8)
ZKP_IFMA_MUL_SUB8_(bn254_fq2, bn254_fq2x8)
ZKP_IFMA_MUL_SUB8_(bls12_381_fp2, bls12_381_fp2x8)

#endif
