/* The Groth16 prover and verifier for bn254: the generic body, instantiated. */
#include "groth16/bn254_groth16.h"
#include "groth16/backend.h"
#include "pairing/bn254_pairing.h"

#define G16_CURVE bn254
#define G16_G1 bn254_g1
#define G16_G2 bn254_g2
#define G16_FR bn254_fr
#define G16_FR_PARAM BN254_FR
#define G16_CURVE_ID ZKPIPE_CURVE_BN254
#include "groth16/groth16_body.h"
