/* bls12_381_fp2 = bls12_381_fp[u]/(u^2 + 1): see fp2_impl.h. */
#ifndef ZKP_FIELD_BLS12_381_FP2_H
#define ZKP_FIELD_BLS12_381_FP2_H

#include "field/bls12_381_fp.h"

#define FP2_NAME bls12_381_fp2
#define FP2_BASE bls12_381_fp
#include "field/fp2_impl.h"
#undef FP2_NAME
#undef FP2_BASE

#endif
