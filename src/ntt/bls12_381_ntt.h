/* The NTT over bls12_381_fr, the scalar field of BLS12-381: see ntt.h. */
#ifndef ZKP_NTT_BLS12_381_NTT_H
#define ZKP_NTT_BLS12_381_NTT_H

#include "field/bls12_381_fr.h"

#define NTT_FIELD bls12_381_fr
#define NTT_PARAM BLS12_381_FR
#include "ntt/ntt_impl.h"
#undef NTT_FIELD
#undef NTT_PARAM

#endif
