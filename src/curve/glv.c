#include "curve/glv.h"

const zkp_glv_params zkp_glv_bn254_g1 = BN254_G1_GLV_PARAMS;
const zkp_glv_params zkp_glv_bls12_381_g1 = BLS12_381_G1_GLV_PARAMS;

typedef unsigned __int128 glv_u128_;

/* floor((k g + 2^255) / 2^256) for k < r and g < 2^192. The quotient is
 * below 2^128 (about k b2 / r < |b2|), so only limbs 4 and 5 of the 448-bit
 * product are kept. */
static glv_u128_ glv_round_(const uint64_t k[4], const uint64_t g[3]) {
    uint64_t t[7] = {0, 0, 0, 0, 0, 0, 0};
    for (int i = 0; i < 4; i++) {
        uint64_t carry = 0;
        for (int j = 0; j < 3; j++) {
            glv_u128_ s = (glv_u128_)k[i] * g[j] + t[i + j] + carry;
            t[i + j] = (uint64_t)s;
            carry = (uint64_t)(s >> 64);
        }
        t[i + 3] = carry;
    }
    /* + 2^255: rounds to nearest instead of down. */
    glv_u128_ s = (glv_u128_)t[3] + ((uint64_t)1 << 63);
    s = (s >> 64) + t[4];
    uint64_t lo = (uint64_t)s;
    s = (s >> 64) + t[5];
    return ((glv_u128_)(uint64_t)s << 64) | lo;
}

static glv_u128_ glv_load_(const uint64_t v[2]) { return ((glv_u128_)v[1] << 64) | v[0]; }

void zkp_glv_decompose(uint64_t out[4], const uint64_t k_in[4], const zkp_glv_params *p) {
    /* k mod r: k < 2r, so at most one subtraction. */
    uint64_t k[4], d[4], borrow = 0;
    for (int i = 0; i < 4; i++) {
        glv_u128_ s = (glv_u128_)k_in[i] - p->r[i] - borrow;
        d[i] = (uint64_t)s;
        borrow = (uint64_t)(s >> 64) & 1;
    }
    for (int i = 0; i < 4; i++) k[i] = borrow ? k_in[i] : d[i];
    glv_u128_ c1 = glv_round_(k, p->g1), c2 = glv_round_(k, p->g2);
    /* k1 = k - c1 a1 - c2 a2 and k2 = -c1 b1 - c2 b2 are below 2^127 in
     * absolute value, so arithmetic mod 2^128 gives their two's complement. */
    glv_u128_ k1 = glv_load_(k) - c1 * glv_load_(p->a1) - c2 * glv_load_(p->a2);
    glv_u128_ k2 = (glv_u128_)0 - c1 * glv_load_(p->b1) - c2 * glv_load_(p->b2);
    out[0] = (uint64_t)k1;
    out[1] = (uint64_t)(k1 >> 64);
    out[2] = (uint64_t)k2;
    out[3] = (uint64_t)(k2 >> 64);
}
