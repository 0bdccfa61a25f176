/* The NTT of BN254's scalar field on the device: gpu_ntt_body.cuh for
 * bn254_fr, and its entry points of gpu.h. */
#include "gpu/gpu_ntt_body.cuh"

ZKP_GPU_NTT_DEFINE(bn254_fr, zkp_cuda::bn254_fr, BN254_FR_TWO_ADICITY)
