#include "msm/bls12_381_g1_msm.h"

#define MSM_G bls12_381_g1
#define MSM_BITS BLS12_381_FR_BITS
#define MSM_FIELD bls12_381_fp
#define MSM_GLV zkp_glv_bls12_381_g1
#include "msm/msm_body.h"
