/* The Groth16 prover and verifier for bls12_381: the generic body, instantiated. */
#include "groth16/bls12_381_groth16.h"
#include "groth16/backend.h"
#include "pairing/bls12_381_pairing.h"

#define G16_CURVE bls12_381
#define G16_G1 bls12_381_g1
#define G16_G2 bls12_381_g2
#define G16_FR bls12_381_fr
#define G16_FR_PARAM BLS12_381_FR
#define G16_CURVE_ID ZKPIPE_CURVE_BLS12_381
#include "groth16/groth16_body.h"
