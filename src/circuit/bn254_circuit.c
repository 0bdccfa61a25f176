#include "circuit/bn254_circuit.h"

#define CIR_CURVE bn254
#define CIR_FR bn254_fr
#include "circuit/circuit_body.h"
