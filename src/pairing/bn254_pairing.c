/* BN254: y^2 = x^3 + 3 over Fq, G2 on the D-type twist y^2 = x^3 + 3/xi over
 * Fq2 with xi = 9 + u, seed x = 4965661367192848881 (positive); the Miller
 * loop runs over 6x + 2. */
#include "pairing/bn254_pairing.h"

#include "pairing/pairing_params.h"

/* 3b' = 9/xi has no small form, so it is one Fq2 product by a constant. */
static inline void bn254_mul_by_b3_(bn254_fq2_t *r, const bn254_fq2_t *a) {
    static const bn254_fq2_t b3 = BN254_TWIST_B3;
    bn254_fq2_mul(r, a, &b3);
}

#define PAIRING_NAME bn254
#define PAIRING_FP bn254_fq
#define PAIRING_FP2 bn254_fq2
#define PAIRING_FP12 bn254_fq12
#define PAIRING_PARAM BN254
#define PAIRING_TWIST_D 1
#define PAIRING_FAMILY_BN 1
#define PAIRING_G1_B 3
#define PAIRING_MUL_BY_B3 bn254_mul_by_b3_
#include "pairing/pairing_body.h"
