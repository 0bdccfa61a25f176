/* MSM over the group bn254_g2. See msm.h for the contract. */
#ifndef ZKP_MSM_BN254_G2_MSM_H
#define ZKP_MSM_BN254_G2_MSM_H

#include "curve/bn254_g2.h"
#include "curve/glv.h"

#define MSM_G bn254_g2
#define MSM_BITS BN254_FR_BITS
#define MSM_FIELD bn254_fq2
#define MSM_GLV zkp_glv_bn254_g2
#include "msm/msm_impl.h"
#undef MSM_G
#undef MSM_BITS
#undef MSM_FIELD
#undef MSM_GLV

#endif
