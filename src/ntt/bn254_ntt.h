/* The NTT over bn254_fr, the scalar field of BN254 (alt_bn128): see ntt.h. */
#ifndef ZKP_NTT_BN254_NTT_H
#define ZKP_NTT_BN254_NTT_H

#include "field/bn254_fr.h"

#define NTT_FIELD bn254_fr
#define NTT_PARAM BN254_FR
#include "ntt/ntt_impl.h"
#undef NTT_FIELD
#undef NTT_PARAM

#endif
