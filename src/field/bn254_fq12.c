#include "field/bn254_fq12.h"

#define FP12_NAME bn254_fq12
#define FP12_FP6 bn254_fq6
#define FP12_FP2 bn254_fq2
#define FP12_PARAM BN254
#include "field/fp12_body.h"
