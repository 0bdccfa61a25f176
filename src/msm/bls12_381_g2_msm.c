#include "msm/bls12_381_g2_msm.h"

#define MSM_G bls12_381_g2
#define MSM_BITS BLS12_381_FR_BITS
#define MSM_FIELD bls12_381_fp2
#define MSM_GLV zkp_glv_bls12_381_g2
#include "msm/msm_body.h"
