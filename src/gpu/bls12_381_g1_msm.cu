/* The G1 MSM of BLS12-381 on the device: gpu_msm_body.cuh over
 * bls12_381_fp, with scalars of BLS12-381's r. */
#include "gpu/gpu_msm_body.cuh"

ZKP_GPU_MSM_DEFINE(bls12_381_g1, bls12_381_fp, BLS12_381_FR_BITS, ZKP_GPU_GROUP_BLS12_381_G1)
