#include "field/bls12_381_fr.h"

#define FP_NAME bls12_381_fr
#define FP_PARAM BLS12_381_FR
#include "field/fp_body.h"
