#include "field/bn254_fq.h"

#define FP_NAME bn254_fq
#define FP_PARAM BN254_FQ
#include "field/fp_body.h"
