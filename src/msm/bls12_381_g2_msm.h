/* MSM over the group bls12_381_g2. See msm.h for the contract. */
#ifndef ZKP_MSM_BLS12_381_G2_MSM_H
#define ZKP_MSM_BLS12_381_G2_MSM_H

#include "curve/bls12_381_g2.h"
#include "curve/glv.h"

#define MSM_G bls12_381_g2
#define MSM_BITS BLS12_381_FR_BITS
#define MSM_FIELD bls12_381_fp2
#define MSM_GLV zkp_glv_bls12_381_g2
#include "msm/msm_impl.h"
#undef MSM_G
#undef MSM_BITS
#undef MSM_FIELD
#undef MSM_GLV

#endif
