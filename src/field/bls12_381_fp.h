/* The field bls12_381_fp: see field.h for the contract. */
#ifndef ZKP_FIELD_BLS12_381_FP_H
#define ZKP_FIELD_BLS12_381_FP_H

#define FP_NAME bls12_381_fp
#define FP_PARAM BLS12_381_FP
#include "field/fp_impl.h"
#undef FP_NAME
#undef FP_PARAM

#endif
