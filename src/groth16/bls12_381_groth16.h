/* Groth16 over BLS12-381 (snarkjs bls12381). See groth16.h. */
#ifndef ZKP_GROTH16_BLS12_381_GROTH16_H
#define ZKP_GROTH16_BLS12_381_GROTH16_H

#include "curve/bls12_381_g1.h"
#include "curve/bls12_381_g2.h"
#include "field/bls12_381_fr.h"

#define G16_CURVE bls12_381
#define G16_G1 bls12_381_g1
#define G16_G2 bls12_381_g2
#define G16_FR bls12_381_fr
#include "groth16/groth16_impl.h"
#undef G16_CURVE
#undef G16_G1
#undef G16_G2
#undef G16_FR

#endif
