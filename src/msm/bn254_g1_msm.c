#include "msm/bn254_g1_msm.h"

#define MSM_G bn254_g1
#define MSM_BITS BN254_FR_BITS
#define MSM_FIELD bn254_fq
#define MSM_GLV zkp_glv_bn254_g1
#include "msm/msm_body.h"
