/* The pre-compiled circuit over bn254. See circuit.h. */
#ifndef ZKP_CIRCUIT_BN254_CIRCUIT_H
#define ZKP_CIRCUIT_BN254_CIRCUIT_H

#include "groth16/bn254_groth16.h"

#define CIR_CURVE bn254
#define CIR_FR bn254_fr
#include "circuit/circuit_impl.h"
#undef CIR_CURVE
#undef CIR_FR

#endif
