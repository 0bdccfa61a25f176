#include "field/bn254_fq6.h"

#define FP6_NAME bn254_fq6
#define FP6_BASE bn254_fq2
#define FP6_PRIME bn254_fq
#define FP6_PRIME_PARAM BN254_FQ
#define FP6_PARAM BN254
#include "field/fp6_body.h"
