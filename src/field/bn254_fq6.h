/* bn254_fq6 = bn254_fq2[v]/(v^3 - xi), xi = 9 + u: see fp6_impl.h. */
#ifndef ZKP_FIELD_BN254_FQ6_H
#define ZKP_FIELD_BN254_FQ6_H

#include "field/bn254_fq2.h"

#define FP6_NAME bn254_fq6
#define FP6_BASE bn254_fq2
#define FP6_PRIME bn254_fq
#define FP6_PRIME_PARAM BN254_FQ
#define FP6_PARAM BN254
#include "field/fp6_impl.h"
#undef FP6_NAME
#undef FP6_BASE
#undef FP6_PRIME
#undef FP6_PRIME_PARAM
#undef FP6_PARAM

#endif
