/* The group bls12_381_g1: the r-torsion of y^2 = x^3 + 4 over bls12_381_fp,
 * whose order is r h1 with h1 = (x - 1)^2 / 3. See curve.h for the contract. */
#ifndef ZKP_CURVE_BLS12_381_G1_H
#define ZKP_CURVE_BLS12_381_G1_H

#include "field/bls12_381_fp.h"
#include "field/bls12_381_fr.h"

#define EC_NAME bls12_381_g1
#define EC_FIELD bls12_381_fp
#define EC_PARAM BLS12_381_G1
#include "curve/ec_impl.h"
#undef EC_NAME
#undef EC_FIELD
#undef EC_PARAM

/* sigma(x, y) = (beta x, y) for the cube root of unity beta in curve_params.h,
 * an endomorphism that acts on bls12_381_g1 as multiplication by -x^2 mod r.
 * Constant time. */
void bls12_381_g1_sigma(bls12_381_g1_jacobian_t *r, const bls12_381_g1_jacobian_t *p);

#endif
