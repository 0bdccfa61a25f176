#include "curve/bn254_g1.h"

#define EC_NAME bn254_g1
#define EC_FIELD bn254_fq
#define EC_PARAM BN254_G1
#define EC_SCALAR bn254_fr
#define EC_SCALAR_PARAM BN254_FR
#include "curve/ec_body.h"

/* E(Fq) has prime order r, so every point on the curve is in G1; checking
 * the curve equation keeps a caller that skipped it safe. */
int bn254_g1_in_subgroup_var(const bn254_g1_jacobian_t *p) { return bn254_g1_is_on_curve(p); }

void bn254_g1_clear_cofactor_var(bn254_g1_jacobian_t *r, const bn254_g1_jacobian_t *p) { *r = *p; }
