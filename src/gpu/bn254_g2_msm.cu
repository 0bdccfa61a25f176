/* The G2 MSM of BN254 on the device: gpu_msm_body.cuh over bn254_fq2, with
 * scalars of BN254's r. */
#include "gpu/gpu_msm_body.cuh"

ZKP_GPU_MSM_DEFINE(bn254_g2, bn254_fq2, BN254_FR_BITS, ZKP_GPU_GROUP_BN254_G2)
