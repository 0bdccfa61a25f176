/* Groth16 over BN254 (alt_bn128, snarkjs bn128). See groth16.h. */
#ifndef ZKP_GROTH16_BN254_GROTH16_H
#define ZKP_GROTH16_BN254_GROTH16_H

#include "curve/bn254_g1.h"
#include "curve/bn254_g2.h"
#include "field/bn254_fr.h"

#define G16_CURVE bn254
#define G16_G1 bn254_g1
#define G16_G2 bn254_g2
#define G16_FR bn254_fr
#include "groth16/groth16_impl.h"
#undef G16_CURVE
#undef G16_G1
#undef G16_G2
#undef G16_FR

#endif
