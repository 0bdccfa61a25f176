#include "curve/bls12_381_g2.h"

#define EC_NAME bls12_381_g2
#define EC_FIELD bls12_381_fp2
#define EC_PARAM BLS12_381_G2
#define EC_SCALAR bls12_381_fr
#define EC_SCALAR_PARAM BLS12_381_FR
#include "curve/ec_body.h"

/* For the M-type twist E': y^2 = x^3 + b xi, untwisting is
 * (x, y) -> (x / w^2, y / w^3) with w^6 = xi, so compared with a D-type
 * twist the Frobenius correction factors are inverted:
 * psi(x, y) = (conj(x) xi^(-(p-1)/3), conj(y) xi^(-(p-1)/2)), xi = 1 + u.
 * tools/gen_curve_params.py derives both constants and checks that psi maps
 * E' to itself and satisfies psi^2 - t psi + p = 0. */
void bls12_381_g2_psi(bls12_381_g2_jacobian_t *r, const bls12_381_g2_jacobian_t *p) {
    static const bls12_381_fp2_t cx = BLS12_381_G2_PSI_CX, cy = BLS12_381_G2_PSI_CY;
    bls12_381_fp2_conj(&r->x, &p->x);
    bls12_381_fp2_mul(&r->x, &r->x, &cx);
    bls12_381_fp2_conj(&r->y, &p->y);
    bls12_381_fp2_mul(&r->y, &r->y, &cy);
    bls12_381_fp2_conj(&r->z, &p->z);
}

/* r = [x] p = -[|x|] p for the (negative) BLS12-381 seed x. */
static void bls12_381_g2_mul_by_x_var(bls12_381_g2_jacobian_t *r, const bls12_381_g2_jacobian_t *p) {
    static const uint64_t x_abs = BLS12_381_X_ABS;
    bls12_381_g2_mul_var(r, p, &x_abs, BLS12_381_X_ABS_BITS);
    bls12_381_g2_neg(r, r);
}

/* Scott, "A note on group membership tests for G1, G2 and GT on BLS
 * pairing-friendly curves" (2021): P in G2 iff psi(P) = [x] P. The
 * endomorphism psi - [x] has degree x^2 - t x + p = p - x = r h1, and
 * gcd(r h1, r h2) = r (checked by tools/gen_curve_params.py), so its kernel
 * meets E'(Fp2) exactly in G2. */
int bls12_381_g2_in_subgroup_var(const bls12_381_g2_jacobian_t *p) {
    bls12_381_g2_jacobian_t a, b;
    bls12_381_g2_psi(&a, p);
    bls12_381_g2_mul_by_x_var(&b, p);
    return bls12_381_g2_eq(&a, &b);
}

/* Budroni and Pintore, "Efficient hash maps to G2 on BLS curves" (2017), in
 * the form of the hash-to-curve draft's clear_cofactor for BLS12-381 G2:
 *     [x^2 - x - 1] P + [x - 1] psi(P) + psi^2(2P) = [h_eff] P,
 * h_eff = 3 (x^2 - 1) h2, with two multiplications by the 64-bit x instead
 * of one by the 636-bit h_eff. The order of operations below gives
 * psi^2(2P) - psi(P) + [x]([x] P + psi(P)) - [x] P - P. */
void bls12_381_g2_clear_cofactor_var(bls12_381_g2_jacobian_t *r, const bls12_381_g2_jacobian_t *p) {
    bls12_381_g2_jacobian_t t1, t2, t3;
    bls12_381_g2_mul_by_x_var(&t1, p);
    bls12_381_g2_psi(&t2, p);
    bls12_381_g2_dbl(&t3, p);
    bls12_381_g2_psi(&t3, &t3);
    bls12_381_g2_psi(&t3, &t3);
    bls12_381_g2_sub(&t3, &t3, &t2);
    bls12_381_g2_add(&t2, &t1, &t2);
    bls12_381_g2_mul_by_x_var(&t2, &t2);
    bls12_381_g2_add(&t3, &t3, &t2);
    bls12_381_g2_sub(&t3, &t3, &t1);
    bls12_381_g2_sub(r, &t3, p);
}
