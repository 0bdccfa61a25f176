/* bn254_fq2 = bn254_fq[u]/(u^2 + 1): see fp2_impl.h. */
#ifndef ZKP_FIELD_BN254_FQ2_H
#define ZKP_FIELD_BN254_FQ2_H

#include "field/bn254_fq.h"

#define FP2_NAME bn254_fq2
#define FP2_BASE bn254_fq
#include "field/fp2_impl.h"
#undef FP2_NAME
#undef FP2_BASE

#endif
