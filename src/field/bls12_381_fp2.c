#include "field/bls12_381_fp2.h"

#define FP2_NAME bls12_381_fp2
#define FP2_BASE bls12_381_fp
#define FP2_BASE_PARAM BLS12_381_FP
#include "field/fp2_body.h"
