#include "curve/bn254_g2.h"

#define EC_NAME bn254_g2
#define EC_FIELD bn254_fq2
#define EC_PARAM BN254_G2
#define EC_SCALAR bn254_fr
#define EC_SCALAR_PARAM BN254_FR
#include "curve/ec_body.h"

/* For the D-type twist E': y^2 = x^3 + b/xi, untwisting is
 * (x, y) -> (x w^2, y w^3) with w^6 = xi in Fq12. Frobenius on the untwisted
 * point and twisting back give psi(x, y) = (conj(x) xi^((p-1)/3),
 * conj(y) xi^((p-1)/2)), since conj is the Frobenius of Fq2 and
 * w^(2p) = w^2 xi^((p-1)/3), w^(3p) = w^3 xi^((p-1)/2). In Jacobian
 * coordinates conj(Z) takes care of the denominators.
 * tools/gen_curve_params.py derives the two constants and checks that psi
 * maps E' to itself and satisfies psi^2 - t psi + p = 0. */
void bn254_g2_psi(bn254_g2_jacobian_t *r, const bn254_g2_jacobian_t *p) {
    static const bn254_fq2_t cx = BN254_G2_PSI_CX, cy = BN254_G2_PSI_CY;
    bn254_fq2_conj(&r->x, &p->x);
    bn254_fq2_mul(&r->x, &r->x, &cx);
    bn254_fq2_conj(&r->y, &p->y);
    bn254_fq2_mul(&r->y, &r->y, &cy);
    bn254_fq2_conj(&r->z, &p->z);
}

/* El Housni, Guillevic and Piellard, "Co-factor clearing and subgroup
 * membership testing on pairing-friendly curves" (2022): on a BN curve,
 * P in G2 iff psi(P) = [6x^2] P. The test is exact: psi satisfies
 * psi^2 - t psi + p = 0 with t = 6x^2 + 1, so the endomorphism psi - [6x^2]
 * has degree (6x^2)^2 - t 6x^2 + p = p - 6x^2 = p + 1 - t = r. Its kernel has
 * r points and contains G2, so it is G2. */
int bn254_g2_in_subgroup_var(const bn254_g2_jacobian_t *p) {
    static const uint64_t six_x2[] = BN254_G2_PSI_EIGEN;
    bn254_g2_jacobian_t a, b;
    bn254_g2_psi(&a, p);
    bn254_g2_mul_var(&b, p, six_x2, BN254_G2_PSI_EIGEN_BITS);
    return bn254_g2_eq(&a, &b);
}

/* Multiplication by c2 = 2p - r: E'(Fq2) has order r c2 and r does not
 * divide c2, so [c2] P lies in the r-torsion, which is G2. */
void bn254_g2_clear_cofactor_var(bn254_g2_jacobian_t *r, const bn254_g2_jacobian_t *p) {
    static const uint64_t c2[] = BN254_G2_COFACTOR;
    bn254_g2_mul_var(r, p, c2, BN254_G2_COFACTOR_BITS);
}
