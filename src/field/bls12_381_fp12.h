/* bls12_381_fp12 = bls12_381_fp6[w]/(w^2 - v): see fp12_impl.h. */
#ifndef ZKP_FIELD_BLS12_381_FP12_H
#define ZKP_FIELD_BLS12_381_FP12_H

#include "field/bls12_381_fp6.h"

#define FP12_NAME bls12_381_fp12
#define FP12_FP6 bls12_381_fp6
#define FP12_FP2 bls12_381_fp2
#define FP12_PARAM BLS12_381
#include "field/fp12_impl.h"
#undef FP12_NAME
#undef FP12_FP6
#undef FP12_FP2
#undef FP12_PARAM

#endif
