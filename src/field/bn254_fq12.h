/* bn254_fq12 = bn254_fq6[w]/(w^2 - v): see fp12_impl.h. */
#ifndef ZKP_FIELD_BN254_FQ12_H
#define ZKP_FIELD_BN254_FQ12_H

#include "field/bn254_fq6.h"

#define FP12_NAME bn254_fq12
#define FP12_FP6 bn254_fq6
#define FP12_FP2 bn254_fq2
#define FP12_PARAM BN254
#include "field/fp12_impl.h"
#undef FP12_NAME
#undef FP12_FP6
#undef FP12_FP2
#undef FP12_PARAM

#endif
