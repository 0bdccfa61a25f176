#include "msm/bn254_g2_msm.h"

#define MSM_G bn254_g2
#define MSM_BITS BN254_FR_BITS
#define MSM_FIELD bn254_fq2
#define MSM_GLV zkp_glv_bn254_g2
#include "msm/msm_body.h"
