#include "field/bn254_fq2.h"

#define FP2_NAME bn254_fq2
#define FP2_BASE bn254_fq
#define FP2_BASE_PARAM BN254_FQ
#include "field/fp2_body.h"
