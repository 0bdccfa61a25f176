/* The group bn254_g2: the r-torsion of the D-type sextic twist
 * y^2 = x^3 + 3/(9 + u) over bn254_fq2, whose order is r c2 with c2 = 2p - r.
 * See curve.h for the contract. */
#ifndef ZKP_CURVE_BN254_G2_H
#define ZKP_CURVE_BN254_G2_H

#include "field/bn254_fq2.h"
#include "field/bn254_fr.h"

#define EC_NAME bn254_g2
#define EC_FIELD bn254_fq2
#define EC_PARAM BN254_G2
#include "curve/ec_impl.h"
#undef EC_NAME
#undef EC_FIELD
#undef EC_PARAM

/* psi = twist o Frobenius o untwist, an endomorphism of the twist that acts
 * on bn254_g2 as multiplication by p mod r = 6x^2. Constant time. */
void bn254_g2_psi(bn254_g2_jacobian_t *r, const bn254_g2_jacobian_t *p);

#endif
