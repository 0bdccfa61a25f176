#include "curve/bls12_381_g1.h"

#define EC_NAME bls12_381_g1
#define EC_FIELD bls12_381_fp
#define EC_PARAM BLS12_381_G1
#define EC_SCALAR bls12_381_fr
#define EC_SCALAR_PARAM BLS12_381_FR
#include "curve/ec_body.h"

/* (beta X, Y, Z) has affine x = beta X / Z^2: sigma needs no inversion. */
void bls12_381_g1_sigma(bls12_381_g1_jacobian_t *r, const bls12_381_g1_jacobian_t *p) {
    static const bls12_381_fp_t beta = BLS12_381_G1_BETA;
    bls12_381_fp_mul(&r->x, &p->x, &beta);
    r->y = p->y;
    r->z = p->z;
}

/* Scott, "A note on group membership tests for G1, G2 and GT on BLS
 * pairing-friendly curves" (2021): P in G1 iff sigma(P) = [-x^2] P. Since
 * sigma^2 + sigma + 1 = 0, the endomorphism sigma + [x^2] has degree
 * x^4 - x^2 + 1 = r, so its kernel is exactly G1. [-x^2] P is computed as
 * -[|x|]([|x|] P): two 64-bit multiplications by a scalar of weight 6. */
int bls12_381_g1_in_subgroup_var(const bls12_381_g1_jacobian_t *p) {
    static const uint64_t x_abs = BLS12_381_X_ABS;
    bls12_381_g1_jacobian_t a, b;
    bls12_381_g1_mul_var(&b, p, &x_abs, BLS12_381_X_ABS_BITS);
    bls12_381_g1_mul_var(&b, &b, &x_abs, BLS12_381_X_ABS_BITS);
    bls12_381_g1_neg(&b, &b);
    bls12_381_g1_sigma(&a, p);
    return bls12_381_g1_eq(&a, &b);
}

/* Multiplication by h1 = #E(Fp) / r, which r does not divide. */
void bls12_381_g1_clear_cofactor_var(bls12_381_g1_jacobian_t *r, const bls12_381_g1_jacobian_t *p) {
    static const uint64_t h1[] = BLS12_381_G1_COFACTOR;
    bls12_381_g1_mul_var(r, p, h1, BLS12_381_G1_COFACTOR_BITS);
}
