#include "field/bn254_fr.h"

#define FP_NAME bn254_fr
#define FP_PARAM BN254_FR
#include "field/fp_body.h"
