/* The group bls12_381_g2: the r-torsion of the M-type sextic twist
 * y^2 = x^3 + 4(1 + u) over bls12_381_fp2, whose order is r h2. See curve.h
 * for the contract. */
#ifndef ZKP_CURVE_BLS12_381_G2_H
#define ZKP_CURVE_BLS12_381_G2_H

#include "field/bls12_381_fp2.h"
#include "field/bls12_381_fr.h"

#define EC_NAME bls12_381_g2
#define EC_FIELD bls12_381_fp2
#define EC_PARAM BLS12_381_G2
#include "curve/ec_impl.h"
#undef EC_NAME
#undef EC_FIELD
#undef EC_PARAM

/* psi = twist o Frobenius o untwist, an endomorphism of the twist that acts
 * on bls12_381_g2 as multiplication by p mod r = x. Constant time. */
void bls12_381_g2_psi(bls12_381_g2_jacobian_t *r, const bls12_381_g2_jacobian_t *p);

#endif
