/* The pre-compiled circuit over bls12_381. See circuit.h. */
#ifndef ZKP_CIRCUIT_BLS12_381_CIRCUIT_H
#define ZKP_CIRCUIT_BLS12_381_CIRCUIT_H

#include "groth16/bls12_381_groth16.h"

#define CIR_CURVE bls12_381
#define CIR_FR bls12_381_fr
#include "circuit/circuit_impl.h"
#undef CIR_CURVE
#undef CIR_FR

#endif
