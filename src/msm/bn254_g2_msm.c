#include "msm/bn254_g2_msm.h"

#define MSM_G bn254_g2
#define MSM_BITS BN254_FR_BITS
#include "msm/msm_body.h"
