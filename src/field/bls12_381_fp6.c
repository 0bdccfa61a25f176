#include "field/bls12_381_fp6.h"

#define FP6_NAME bls12_381_fp6
#define FP6_BASE bls12_381_fp2
#define FP6_PRIME bls12_381_fp
#define FP6_PRIME_PARAM BLS12_381_FP
#define FP6_PARAM BLS12_381
#include "field/fp6_body.h"
