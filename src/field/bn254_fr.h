/* The field bn254_fr: see field.h for the contract. */
#ifndef ZKP_FIELD_BN254_FR_H
#define ZKP_FIELD_BN254_FR_H

#define FP_NAME bn254_fr
#define FP_PARAM BN254_FR
#include "field/fp_impl.h"
#undef FP_NAME
#undef FP_PARAM

#endif
