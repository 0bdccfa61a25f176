/* The public curve API (include/zkpipe/curve.h), used only through its
 * header, the way a verifier outside the library would. */
#include <string.h>

#include "test.h"
#include "zkpipe/curve.h"

static const zkpipe_curve curves[] = {ZKPIPE_CURVE_BN254, ZKPIPE_CURVE_BLS12_381};

static void random_scalar(uint8_t s[32]) {
    test_rng_bytes(s, 32);
    s[0] &= 0x0f; /* below both group orders, so a != 0 mod r almost surely */
}

/* Bilinearity through the public calls: e([a]P, [b]Q) == e([b][a]P, Q). */
TEST_CASE(curve_api_bilinearity_and_checks) {
    for (size_t c = 0; c < 2; c++) {
        zkpipe_curve cv = curves[c];
        zkpipe_g1 g1, ag1, abg1, neg;
        zkpipe_g2 g2, bg2;
        zkpipe_gt e1, e2, one_check;
        uint8_t a[32], b[32];
        random_scalar(a);
        random_scalar(b);
        ASSERT_OK(zkpipe_g1_generator(cv, &g1));
        ASSERT_OK(zkpipe_g2_generator(cv, &g2));
        ASSERT_OK(zkpipe_g1_mul(cv, &ag1, &g1, a));
        ASSERT_OK(zkpipe_g2_mul(cv, &bg2, &g2, b));
        ASSERT_OK(zkpipe_g1_mul(cv, &abg1, &ag1, b));
        ASSERT_OK(zkpipe_pairing(cv, &e1, &ag1, &bg2));
        ASSERT_OK(zkpipe_pairing(cv, &e2, &abg1, &g2));
        int eq = -1;
        ASSERT_OK(zkpipe_gt_eq(cv, &eq, &e1, &e2));
        ASSERT_EQ_INT(eq, 1);
        ASSERT_OK(zkpipe_pairing(cv, &one_check, &g1, &g2));
        ASSERT_OK(zkpipe_gt_eq(cv, &eq, &e1, &one_check));
        ASSERT_EQ_INT(eq, 0);
        /* e(aP, bQ) · e(-abP, Q) == 1, as one multi-pairing; and not 1 without the negation. */
        zkpipe_g1 ps[2];
        zkpipe_g2 qs[2] = {bg2, g2};
        ASSERT_OK(zkpipe_g1_neg(cv, &neg, &abg1));
        ps[0] = ag1;
        ps[1] = neg;
        int ok = -1;
        ASSERT_OK(zkpipe_pairing_check(cv, &ok, ps, qs, 2));
        ASSERT_EQ_INT(ok, 1);
        ps[1] = abg1;
        ASSERT_OK(zkpipe_pairing_check(cv, &ok, ps, qs, 2));
        ASSERT_EQ_INT(ok, 0);
        ASSERT_OK(zkpipe_pairing_check(cv, &ok, ps, qs, 0));
        ASSERT_EQ_INT(ok, 1);
        /* GT product: e(P, Q)^2 == e(2P, Q) */
        zkpipe_g1 two_g1;
        zkpipe_gt sq;
        ASSERT_OK(zkpipe_g1_add(cv, &two_g1, &g1, &g1));
        ASSERT_OK(zkpipe_gt_mul(cv, &sq, &one_check, &one_check));
        ASSERT_OK(zkpipe_pairing(cv, &e1, &two_g1, &g2));
        ASSERT_OK(zkpipe_gt_eq(cv, &eq, &sq, &e1));
        ASSERT_EQ_INT(eq, 1);
        /* P + (-P) is infinity, and it encodes as all zeros in the circom layout. */
        zkpipe_g1 sum, inf;
        ASSERT_OK(zkpipe_g1_neg(cv, &neg, &ag1));
        ASSERT_OK(zkpipe_g1_add(cv, &sum, &ag1, &neg));
        ASSERT_OK(zkpipe_g1_infinity(cv, &inf));
        ASSERT_OK(zkpipe_g1_eq(cv, &eq, &sum, &inf));
        ASSERT_EQ_INT(eq, 1);
    }
}

TEST_CASE(curve_api_encodings_roundtrip) {
    static const zkpipe_encoding encs[] = {ZKPIPE_ENCODING_CIRCOM, ZKPIPE_ENCODING_ZCASH_COMPRESSED,
                                           ZKPIPE_ENCODING_ZCASH_UNCOMPRESSED};
    for (size_t c = 0; c < 2; c++) {
        zkpipe_curve cv = curves[c];
        zkpipe_g1 p, back;
        zkpipe_g2 q, qback;
        uint8_t k[32], buf[256];
        random_scalar(k);
        ASSERT_OK(zkpipe_g1_generator(cv, &p));
        ASSERT_OK(zkpipe_g1_mul(cv, &p, &p, k));
        ASSERT_OK(zkpipe_g2_generator(cv, &q));
        ASSERT_OK(zkpipe_g2_mul(cv, &q, &q, k));
        for (size_t e = 0; e < 3; e++) {
            size_t n1 = zkpipe_g1_encoded_size(cv, encs[e]), n2 = zkpipe_g2_encoded_size(cv, encs[e]);
            int eq = 0;
            if (cv == ZKPIPE_CURVE_BN254 && encs[e] != ZKPIPE_ENCODING_CIRCOM) {
                ASSERT_EQ_U64(n1, 0);
                ASSERT_EQ_STATUS(zkpipe_g1_encode(cv, buf, sizeof buf, encs[e], &p), ZKPIPE_ERR_UNSUPPORTED);
                ASSERT_EQ_STATUS(zkpipe_g1_decode(cv, &back, encs[e], buf, 48), ZKPIPE_ERR_UNSUPPORTED);
                continue;
            }
            ASSERT(n1 > 0 && n2 == 2 * n1);
            ASSERT_OK(zkpipe_g1_encode(cv, buf, sizeof buf, encs[e], &p));
            ASSERT_OK(zkpipe_g1_decode(cv, &back, encs[e], buf, n1));
            ASSERT_OK(zkpipe_g1_eq(cv, &eq, &back, &p));
            ASSERT_EQ_INT(eq, 1);
            ASSERT_EQ_STATUS(zkpipe_g1_decode(cv, &back, encs[e], buf, n1 - 1), ZKPIPE_ERR_BAD_ENCODING);
            ASSERT_EQ_STATUS(zkpipe_g1_encode(cv, buf, n1 - 1, encs[e], &p), ZKPIPE_ERR_INVALID_ARGUMENT);
            ASSERT_OK(zkpipe_g2_encode(cv, buf, sizeof buf, encs[e], &q));
            ASSERT_OK(zkpipe_g2_decode(cv, &qback, encs[e], buf, n2));
            ASSERT_OK(zkpipe_g2_eq(cv, &eq, &qback, &q));
            ASSERT_EQ_INT(eq, 1);
        }
        /* Decimal strings, snarkjs style. */
        char dec[6][ZKPIPE_DECIMAL_MAX];
        const char *ptrs[6];
        int eq = 0;
        ASSERT_OK(zkpipe_g1_to_decimal(cv, dec, 3, &p));
        for (int i = 0; i < 3; i++) ptrs[i] = dec[i];
        ASSERT_OK(zkpipe_g1_from_decimal(cv, &back, ptrs, 3));
        ASSERT_OK(zkpipe_g1_eq(cv, &eq, &back, &p));
        ASSERT_EQ_INT(eq, 1);
        ASSERT_OK(zkpipe_g2_to_decimal(cv, dec, 6, &q));
        for (int i = 0; i < 6; i++) ptrs[i] = dec[i];
        ASSERT_OK(zkpipe_g2_from_decimal(cv, &qback, ptrs, 6));
        ASSERT_OK(zkpipe_g2_eq(cv, &eq, &qback, &q));
        ASSERT_EQ_INT(eq, 1);
    }
}

TEST_CASE(curve_api_rejects_bad_arguments) {
    zkpipe_curve cv;
    zkpipe_g1 p;
    zkpipe_gt gt;
    int eq;
    ASSERT_OK(zkpipe_curve_from_name(&cv, "bn128"));
    ASSERT_EQ_INT(cv, ZKPIPE_CURVE_BN254);
    ASSERT_OK(zkpipe_curve_from_name(&cv, "BLS12381"));
    ASSERT_EQ_INT(cv, ZKPIPE_CURVE_BLS12_381);
    ASSERT_STR_EQ(zkpipe_curve_name(ZKPIPE_CURVE_BLS12_381), "bls12381");
    ASSERT_EQ_STATUS(zkpipe_curve_from_name(&cv, "secp256k1"), ZKPIPE_ERR_UNSUPPORTED);
    ASSERT_EQ_STATUS(zkpipe_curve_from_name(NULL, "bn128"), ZKPIPE_ERR_INVALID_ARGUMENT);
    ASSERT_EQ_STATUS(zkpipe_g1_generator((zkpipe_curve)7, &p), ZKPIPE_ERR_UNSUPPORTED);
    ASSERT_EQ_STATUS(zkpipe_g1_generator(ZKPIPE_CURVE_BN254, NULL), ZKPIPE_ERR_INVALID_ARGUMENT);
    ASSERT_EQ_STATUS(zkpipe_gt_eq((zkpipe_curve)0, &eq, &gt, &gt), ZKPIPE_ERR_UNSUPPORTED);
    ASSERT_EQ_U64(zkpipe_g1_encoded_size((zkpipe_curve)9, ZKPIPE_ENCODING_CIRCOM), 0);
    uint8_t junk[96];
    memset(junk, 0x5a, sizeof junk);
    ASSERT_EQ_STATUS(zkpipe_g1_decode(ZKPIPE_CURVE_BLS12_381, &p, (zkpipe_encoding)42, junk, 96),
                     ZKPIPE_ERR_UNSUPPORTED);
    const char *bad[3] = {"1", "2", "1"}; /* (1, 2) is BN254's generator but not on BLS12-381 */
    ASSERT_OK(zkpipe_g1_from_decimal(ZKPIPE_CURVE_BN254, &p, bad, 3));
    ASSERT_EQ_STATUS(zkpipe_g1_from_decimal(ZKPIPE_CURVE_BLS12_381, &p, bad, 3), ZKPIPE_ERR_NOT_ON_CURVE);
}
