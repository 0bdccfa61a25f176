/* bls12_381_fp6 = bls12_381_fp2[v]/(v^3 - xi), xi = 1 + u: see fp6_impl.h. */
#ifndef ZKP_FIELD_BLS12_381_FP6_H
#define ZKP_FIELD_BLS12_381_FP6_H

#include "field/bls12_381_fp2.h"

#define FP6_NAME bls12_381_fp6
#define FP6_BASE bls12_381_fp2
#define FP6_PRIME bls12_381_fp
#define FP6_PRIME_PARAM BLS12_381_FP
#define FP6_PARAM BLS12_381
#include "field/fp6_impl.h"
#undef FP6_NAME
#undef FP6_BASE
#undef FP6_PRIME
#undef FP6_PRIME_PARAM
#undef FP6_PARAM

#endif
