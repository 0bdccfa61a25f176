#include "field/bls12_381_fp.h"

#define FP_NAME bls12_381_fp
#define FP_PARAM BLS12_381_FP
#include "field/fp_body.h"
