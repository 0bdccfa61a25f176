/* The field bn254_fq: see field.h for the contract. */
#ifndef ZKP_FIELD_BN254_FQ_H
#define ZKP_FIELD_BN254_FQ_H

#define FP_NAME bn254_fq
#define FP_PARAM BN254_FQ
#include "field/fp_impl.h"
#undef FP_NAME
#undef FP_PARAM

#endif
