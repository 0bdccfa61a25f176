/* The group bn254_g1: y^2 = x^3 + 3 over bn254_fq, of prime order r
 * (cofactor 1). See curve.h for the contract. */
#ifndef ZKP_CURVE_BN254_G1_H
#define ZKP_CURVE_BN254_G1_H

#include "field/bn254_fq.h"
#include "field/bn254_fr.h"

#define EC_NAME bn254_g1
#define EC_FIELD bn254_fq
#define EC_PARAM BN254_G1
#include "curve/ec_impl.h"
#undef EC_NAME
#undef EC_FIELD
#undef EC_PARAM

#endif
