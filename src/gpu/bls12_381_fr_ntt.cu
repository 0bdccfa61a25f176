/* The NTT of BLS12-381's scalar field on the device: gpu_ntt_body.cuh for
 * bls12_381_fr, and its entry points of gpu.h. */
#include "gpu/gpu_ntt_body.cuh"

ZKP_GPU_NTT_DEFINE(bls12_381_fr, zkp_cuda::bls12_381_fr, BLS12_381_FR_TWO_ADICITY)
