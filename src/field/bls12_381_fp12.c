#include "field/bls12_381_fp12.h"

#define FP12_NAME bls12_381_fp12
#define FP12_FP6 bls12_381_fp6
#define FP12_FP2 bls12_381_fp2
#define FP12_PARAM BLS12_381
#include "field/fp12_body.h"
