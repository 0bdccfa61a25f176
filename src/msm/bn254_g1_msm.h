/* MSM over the group bn254_g1. See msm.h for the contract. */
#ifndef ZKP_MSM_BN254_G1_MSM_H
#define ZKP_MSM_BN254_G1_MSM_H

#include "curve/bn254_g1.h"
#include "curve/glv.h"

#define MSM_G bn254_g1
#define MSM_BITS BN254_FR_BITS
#define MSM_FIELD bn254_fq
#define MSM_GLV zkp_glv_bn254_g1
#include "msm/msm_impl.h"
#undef MSM_G
#undef MSM_BITS
#undef MSM_FIELD
#undef MSM_GLV

#endif
