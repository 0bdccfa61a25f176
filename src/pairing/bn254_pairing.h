/* The optimal ate pairing on BN254 (alt_bn128): see pairing.h. */
#ifndef ZKP_PAIRING_BN254_PAIRING_H
#define ZKP_PAIRING_BN254_PAIRING_H

#include "curve/bn254_g1.h"
#include "curve/bn254_g2.h"
#include "field/bn254_fq12.h"

#define PAIRING_NAME bn254
#define PAIRING_FP bn254_fq
#define PAIRING_FP2 bn254_fq2
#define PAIRING_FP12 bn254_fq12
#include "pairing/pairing_impl.h"
#undef PAIRING_NAME
#undef PAIRING_FP
#undef PAIRING_FP2
#undef PAIRING_FP12

#endif
