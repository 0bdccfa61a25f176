#include "circuit/bls12_381_circuit.h"

#define CIR_CURVE bls12_381
#define CIR_FR bls12_381_fr
#include "circuit/circuit_body.h"
