#include <string.h>

#include "curve/curve.h"
#include "curve/wnaf.h"
#include "field/field.h"
#include "test.h"

/* Field elements from the seeded test generator (replayable), by rejection
 * on the bit length of p. */
#define DEFINE_TEST_RAND_FP(F, FK)                                              \
    static void test_rand_##F(F##_t *r) {                                       \
        do {                                                                    \
            test_rng_bytes(r->l, sizeof r->l);                                  \
            r->l[FK##_LIMBS - 1] &= (~(uint64_t)0) >> (64 * FK##_LIMBS - FK##_BITS); \
        } while (!F##_is_reduced(r));                                           \
    }
DEFINE_TEST_RAND_FP(bn254_fq, BN254_FQ)
DEFINE_TEST_RAND_FP(bls12_381_fp, BLS12_381_FP)
static void test_rand_bn254_fq2(bn254_fq2_t *r) {
    test_rand_bn254_fq(&r->c0);
    test_rand_bn254_fq(&r->c1);
}
static void test_rand_bls12_381_fp2(bls12_381_fp2_t *r) {
    test_rand_bls12_381_fp(&r->c0);
    test_rand_bls12_381_fp(&r->c1);
}

#define G bn254_g1
#define GF bn254_fq
#define GS bn254_fr
#define GSK BN254_FR
#define G_COFACTOR_ONE 1
#define test_rand_field test_rand_bn254_fq
#include "curve_props_impl.h"

#define G bn254_g2
#define GF bn254_fq2
#define GS bn254_fr
#define GSK BN254_FR
#define G_COFACTOR_ONE 0
#define test_rand_field test_rand_bn254_fq2
#include "curve_props_impl.h"

#define G bls12_381_g1
#define GF bls12_381_fp
#define GS bls12_381_fr
#define GSK BLS12_381_FR
#define G_COFACTOR_ONE 0
#define test_rand_field test_rand_bls12_381_fp
#include "curve_props_impl.h"

#define G bls12_381_g2
#define GF bls12_381_fp2
#define GS bls12_381_fr
#define GSK BLS12_381_FR
#define G_COFACTOR_ONE 0
#define test_rand_field test_rand_bls12_381_fp2
#include "curve_props_impl.h"

TEST_CASE(bn254_g1_generator) { test_bn254_g1_generator(); }
TEST_CASE(bn254_g1_group_laws) { test_bn254_g1_group_laws(); }
TEST_CASE(bn254_g1_infinity_handling) { test_bn254_g1_infinity_handling(); }
TEST_CASE(bn254_g1_xyzz_matches_jacobian) { test_bn254_g1_xyzz_matches_jacobian(); }
TEST_CASE(bn254_g1_to_affine_batch) { test_bn254_g1_to_affine_batch(); }
TEST_CASE(bn254_g1_mul_matches_reference) { test_bn254_g1_mul_matches_reference(); }
TEST_CASE(bn254_g1_mul_edge_scalars) { test_bn254_g1_mul_edge_scalars(); }
TEST_CASE(bn254_g1_mul_composes) { test_bn254_g1_mul_composes(); }
TEST_CASE(bn254_g1_on_curve_rejects_tweaked) { test_bn254_g1_on_curve_rejects_tweaked(); }
TEST_CASE(bn254_g1_subgroup_accepts_and_rejects) { test_bn254_g1_subgroup_accepts_and_rejects(); }
TEST_CASE(bn254_g1_subgroup_fast_matches_slow) { test_bn254_g1_subgroup_fast_matches_slow(); }
TEST_CASE(bn254_g1_clear_cofactor) { test_bn254_g1_clear_cofactor(); }

TEST_CASE(bn254_g2_generator) { test_bn254_g2_generator(); }
TEST_CASE(bn254_g2_group_laws) { test_bn254_g2_group_laws(); }
TEST_CASE(bn254_g2_infinity_handling) { test_bn254_g2_infinity_handling(); }
TEST_CASE(bn254_g2_xyzz_matches_jacobian) { test_bn254_g2_xyzz_matches_jacobian(); }
TEST_CASE(bn254_g2_to_affine_batch) { test_bn254_g2_to_affine_batch(); }
TEST_CASE(bn254_g2_mul_matches_reference) { test_bn254_g2_mul_matches_reference(); }
TEST_CASE(bn254_g2_mul_edge_scalars) { test_bn254_g2_mul_edge_scalars(); }
TEST_CASE(bn254_g2_mul_composes) { test_bn254_g2_mul_composes(); }
TEST_CASE(bn254_g2_on_curve_rejects_tweaked) { test_bn254_g2_on_curve_rejects_tweaked(); }
TEST_CASE(bn254_g2_subgroup_accepts_and_rejects) { test_bn254_g2_subgroup_accepts_and_rejects(); }
TEST_CASE(bn254_g2_subgroup_fast_matches_slow) { test_bn254_g2_subgroup_fast_matches_slow(); }
TEST_CASE(bn254_g2_clear_cofactor) { test_bn254_g2_clear_cofactor(); }

TEST_CASE(bls12_381_g1_generator) { test_bls12_381_g1_generator(); }
TEST_CASE(bls12_381_g1_group_laws) { test_bls12_381_g1_group_laws(); }
TEST_CASE(bls12_381_g1_infinity_handling) { test_bls12_381_g1_infinity_handling(); }
TEST_CASE(bls12_381_g1_xyzz_matches_jacobian) { test_bls12_381_g1_xyzz_matches_jacobian(); }
TEST_CASE(bls12_381_g1_to_affine_batch) { test_bls12_381_g1_to_affine_batch(); }
TEST_CASE(bls12_381_g1_mul_matches_reference) { test_bls12_381_g1_mul_matches_reference(); }
TEST_CASE(bls12_381_g1_mul_edge_scalars) { test_bls12_381_g1_mul_edge_scalars(); }
TEST_CASE(bls12_381_g1_mul_composes) { test_bls12_381_g1_mul_composes(); }
TEST_CASE(bls12_381_g1_on_curve_rejects_tweaked) { test_bls12_381_g1_on_curve_rejects_tweaked(); }
TEST_CASE(bls12_381_g1_subgroup_accepts_and_rejects) { test_bls12_381_g1_subgroup_accepts_and_rejects(); }
TEST_CASE(bls12_381_g1_subgroup_fast_matches_slow) { test_bls12_381_g1_subgroup_fast_matches_slow(); }
TEST_CASE(bls12_381_g1_clear_cofactor) { test_bls12_381_g1_clear_cofactor(); }

TEST_CASE(bls12_381_g2_generator) { test_bls12_381_g2_generator(); }
TEST_CASE(bls12_381_g2_group_laws) { test_bls12_381_g2_group_laws(); }
TEST_CASE(bls12_381_g2_infinity_handling) { test_bls12_381_g2_infinity_handling(); }
TEST_CASE(bls12_381_g2_xyzz_matches_jacobian) { test_bls12_381_g2_xyzz_matches_jacobian(); }
TEST_CASE(bls12_381_g2_to_affine_batch) { test_bls12_381_g2_to_affine_batch(); }
TEST_CASE(bls12_381_g2_mul_matches_reference) { test_bls12_381_g2_mul_matches_reference(); }
TEST_CASE(bls12_381_g2_mul_edge_scalars) { test_bls12_381_g2_mul_edge_scalars(); }
TEST_CASE(bls12_381_g2_mul_composes) { test_bls12_381_g2_mul_composes(); }
TEST_CASE(bls12_381_g2_on_curve_rejects_tweaked) { test_bls12_381_g2_on_curve_rejects_tweaked(); }
TEST_CASE(bls12_381_g2_subgroup_accepts_and_rejects) { test_bls12_381_g2_subgroup_accepts_and_rejects(); }
TEST_CASE(bls12_381_g2_subgroup_fast_matches_slow) { test_bls12_381_g2_subgroup_fast_matches_slow(); }
TEST_CASE(bls12_381_g2_clear_cofactor) { test_bls12_381_g2_clear_cofactor(); }

/* ---------------------------------------------------------------- endomorphisms */

/* sigma acts on G1 as [-x^2 mod r] (the eigenvalue is formed in Fr here, not
 * taken from curve_params.h), has order 3 on the whole curve, and keeps points
 * on the curve. */
TEST_CASE(bls12_381_g1_sigma_eigenvalue) {
    bls12_381_fr_t lam, lam_c;
    bls12_381_fr_set_u64(&lam, BLS12_381_X_ABS);
    bls12_381_fr_sqr(&lam, &lam);
    bls12_381_fr_neg(&lam, &lam);
    bls12_381_fr_from_mont(&lam_c, &lam);
    for (unsigned it = 0; it < test_iters(6); it++) {
        bls12_381_g1_jacobian_t p, s, t;
        test_bls12_381_g1_rand_group_jac(&p);
        bls12_381_g1_sigma(&s, &p);
        bls12_381_g1_mul_var(&t, &p, lam_c.l, BLS12_381_FR_BITS);
        ASSERT(bls12_381_g1_eq(&s, &t));
        test_bls12_381_g1_rand_curve_jac(&p);
        bls12_381_g1_sigma(&s, &p);
        ASSERT(bls12_381_g1_is_on_curve(&s));
        ASSERT(!bls12_381_g1_eq(&s, &p));
        bls12_381_g1_sigma(&s, &s);
        bls12_381_g1_sigma(&s, &s);
        ASSERT(bls12_381_g1_eq(&s, &p));
    }
}

/* On G2 psi is multiplication by p (the Frobenius eigenvalue); on the whole
 * twist it satisfies psi^2 - [t] psi + [p] = 0. t_abs_minus is |t| and
 * t_negative its sign. */
#define PSI_EIGENVALUE_TEST(G, GF, t_abs, t_bits, t_negative)                          \
    do {                                                                              \
        for (unsigned it = 0; it < test_iters(4); it++) {                             \
            G##_jacobian_t pt, a, b, c;                                               \
            test_##G##_rand_group_jac(&pt);                                           \
            G##_psi(&a, &pt);                                                         \
            G##_mul_var(&b, &pt, GF##_modulus.l, (size_t)(8 * sizeof GF##_modulus.l)); \
            ASSERT(G##_eq(&a, &b));                                                   \
            test_##G##_rand_curve_jac(&pt);                                           \
            G##_psi(&a, &pt);                                                         \
            ASSERT(G##_is_on_curve(&a));                                              \
            G##_psi(&c, &a);                                                          \
            G##_mul_var(&b, &a, t_abs, t_bits);                                       \
            if (t_negative) G##_neg(&b, &b);                                          \
            G##_sub(&c, &c, &b);                                                      \
            G##_mul_var(&b, &pt, GF##_modulus.l, (size_t)(8 * sizeof GF##_modulus.l)); \
            G##_add(&c, &c, &b);                                                      \
            ASSERT(G##_is_infinity(&c));                                              \
        }                                                                             \
    } while (0)

TEST_CASE(bn254_g2_psi_eigenvalue) {
    /* t = 6x^2 + 1 */
    uint64_t t[2] = BN254_G2_PSI_EIGEN;
    t[0] += 1; /* the low limb of 6x^2 is even, so no carry */
    PSI_EIGENVALUE_TEST(bn254_g2, bn254_fq, t, 127, 0);
}

TEST_CASE(bls12_381_g2_psi_eigenvalue) {
    /* t = x + 1 = -(|x| - 1) */
    uint64_t t = BLS12_381_X_ABS - 1;
    PSI_EIGENVALUE_TEST(bls12_381_g2, bls12_381_fp, &t, 64, 1);
}

/* The psi-based clearing is exactly [h_eff] P on the whole twist. */
TEST_CASE(bls12_381_g2_clear_cofactor_is_h_eff) {
    static const uint64_t h_eff[] = BLS12_381_G2_H_EFF;
    for (unsigned it = 0; it < test_iters(3); it++) {
        bls12_381_g2_jacobian_t p, a, b;
        test_bls12_381_g2_rand_curve_jac(&p);
        bls12_381_g2_clear_cofactor_var(&a, &p);
        bls12_381_g2_mul_var(&b, &p, h_eff, BLS12_381_G2_H_EFF_BITS);
        ASSERT(bls12_381_g2_eq(&a, &b));
    }
}

/* ---------------------------------------------------------------- wNAF */

/* Checks the recoding's promises and rebuilds the value from the digits, in
 * n limbs of two's complement (Horner from the top digit). */
static void check_wnaf(const uint64_t *k, size_t nbits, unsigned w, size_t n) {
    int8_t digits[ZKP_WNAF_MAX_BITS + 1];
    uint64_t acc[8] = {0}, want[8] = {0};
    size_t len = zkp_wnaf_recode_var(digits, k, nbits, w);
    ASSERT(len <= nbits + 1);
    size_t last_nonzero = (size_t)-1;
    for (size_t i = 0; i <= nbits; i++) {
        int d = digits[i];
        if (i >= len) {
            ASSERT_EQ_INT(d, 0);
            continue;
        }
        if (d == 0) continue;
        ASSERT_MSG((d & 1) && d < (1 << (w - 1)) && d > -(1 << (w - 1)), "digit %d at %zu (w = %u)", d, i, w);
        ASSERT_MSG(last_nonzero == (size_t)-1 || i - last_nonzero >= w,
                   "digits too close at %zu (w = %u)", i, w);
        last_nonzero = i;
    }
    if (len) ASSERT(digits[len - 1] != 0);
    for (size_t i = len; i-- > 0;) {
        uint64_t carry = 0; /* acc = 2 acc + digit */
        for (size_t j = 0; j < n; j++) {
            uint64_t top = acc[j] >> 63;
            acc[j] = (acc[j] << 1) | carry;
            carry = top;
        }
        uint64_t add = (uint64_t)(int64_t)digits[i], ext = digits[i] < 0 ? ~(uint64_t)0 : 0;
        carry = 0;
        for (size_t j = 0; j < n; j++) {
            zkp_u128 s = (zkp_u128)acc[j] + (j == 0 ? add : ext) + carry;
            acc[j] = (uint64_t)s;
            carry = (uint64_t)(s >> 64);
        }
    }
    for (size_t i = 0; i < nbits; i++) want[i / 64] |= ((k[i / 64] >> (i % 64)) & 1) << (i % 64);
    ASSERT_MEM_EQ(acc, want, n * sizeof(uint64_t));
}

TEST_CASE(curve_wnaf_recode) {
    for (unsigned w = 2; w <= 8; w++)
        for (uint64_t k = 0; k < 4096; k++) check_wnaf(&k, 12, w, 1);
    for (unsigned it = 0; it < test_iters(500); it++) {
        uint64_t k[6];
        test_rng_bytes(k, sizeof k);
        size_t nbits = 1 + (size_t)(test_rng_u64() % 384);
        unsigned w = 2 + (unsigned)(test_rng_u64() % 7);
        check_wnaf(k, nbits, w, 7);
    }
    uint64_t ones[6];
    memset(ones, 0xff, sizeof ones);
    check_wnaf(ones, 384, 5, 7);
}
