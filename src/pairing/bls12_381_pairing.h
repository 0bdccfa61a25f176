/* The optimal ate pairing on BLS12-381: see pairing.h. */
#ifndef ZKP_PAIRING_BLS12_381_PAIRING_H
#define ZKP_PAIRING_BLS12_381_PAIRING_H

#include "curve/bls12_381_g1.h"
#include "curve/bls12_381_g2.h"
#include "field/bls12_381_fp12.h"

#define PAIRING_NAME bls12_381
#define PAIRING_FP bls12_381_fp
#define PAIRING_FP2 bls12_381_fp2
#define PAIRING_FP12 bls12_381_fp12
#include "pairing/pairing_impl.h"
#undef PAIRING_NAME
#undef PAIRING_FP
#undef PAIRING_FP2
#undef PAIRING_FP12

#endif
