/* The G2 MSM of BLS12-381 on the device: gpu_msm_body.cuh over
 * bls12_381_fp2, with scalars of BLS12-381's r. */
#include "gpu/gpu_msm_body.cuh"

ZKP_GPU_MSM_DEFINE(bls12_381_g2, bls12_381_fp2, BLS12_381_FR_BITS, ZKP_GPU_GROUP_BLS12_381_G2)
