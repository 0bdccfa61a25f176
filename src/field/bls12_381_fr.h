/* The field bls12_381_fr: see field.h for the contract. */
#ifndef ZKP_FIELD_BLS12_381_FR_H
#define ZKP_FIELD_BLS12_381_FR_H

#define FP_NAME bls12_381_fr
#define FP_PARAM BLS12_381_FR
#include "field/fp_impl.h"
#undef FP_NAME
#undef FP_PARAM

#endif
