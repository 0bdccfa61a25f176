/* BLS12-381: y^2 = x^3 + 4 over Fp, G2 on the M-type twist
 * y^2 = x^3 + 4(1 + u) over Fp2 (xi = 1 + u), seed x = -0xd201000000010000;
 * the Miller loop runs over |x| and conjugates at the end. */
#include "pairing/bls12_381_pairing.h"

/* 3b' = 12 xi: xi·a costs two additions, and 12 = 4·3 three more. The
 * generator asserts that the twist constant is 12 xi. */
static inline void bls12_381_mul_by_b3_(bls12_381_fp2_t *r, const bls12_381_fp2_t *a) {
    bls12_381_fp2_t t, t3;
    bls12_381_fp6_mul_xi(&t, a);
    bls12_381_fp2_dbl(&t3, &t);
    bls12_381_fp2_add(&t3, &t3, &t);
    bls12_381_fp2_dbl(&t3, &t3);
    bls12_381_fp2_dbl(r, &t3);
}

#define PAIRING_NAME bls12_381
#define PAIRING_FP bls12_381_fp
#define PAIRING_FP2 bls12_381_fp2
#define PAIRING_FP12 bls12_381_fp12
#define PAIRING_PARAM BLS12_381
#define PAIRING_TWIST_D 0
#define PAIRING_FAMILY_BN 0
#define PAIRING_G1_B 4
#define PAIRING_MUL_BY_B3 bls12_381_mul_by_b3_
#include "pairing/pairing_body.h"
