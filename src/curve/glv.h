/* The GLV endomorphism of the G1 and G2 groups (Gallant, Lambert and
 * Vanstone, "Faster point multiplication on elliptic curves with efficient
 * endomorphisms", CRYPTO 2001).
 *
 * On y^2 = x^3 + b over Fq with q = 1 mod 3, phi(x, y) = (beta x, y) for a
 * primitive cube root of unity beta in Fq maps the curve to itself, and on
 * the group of order r it acts as multiplication by a cube root of unity
 * lambda mod r (lambda^2 + lambda + 1 = 0 mod r). Of the two choices of
 * lambda, one belongs to beta and the other to beta^2; the pairs below are
 * the matching ones. A scalar k splits as k = k1 + lambda k2 (mod r) with
 * |k1|, |k2| < 2^127, so [k] P = [k1] P + [k2] phi(P) with half-length
 * scalars, and phi costs one field multiplication.
 *
 * The decomposition (GLV section 4, with Babai rounding). The lattice
 * L = {(a, b) : a + lambda b = 0 mod r} has a short basis v1 = (a1, b1),
 * v2 = (a2, b2) with det D = a1 b2 - a2 b1 = +-r. Writing (k, 0) =
 * x1 v1 + x2 v2 gives x1 = k b2 / D, x2 = -k b1 / D; with c_i the nearest
 * integers, (k1, k2) = (k, 0) - c1 v1 - c2 v2 lies in (k, 0) + L, so
 * k1 + lambda k2 = k mod r, and |k1| <= (|a1| + |a2|) max |x_i - c_i|, and
 * likewise for k2. The division is a multiplication: g1 = round(2^256 b2 / D)
 * and g2 = round(-2^256 b1 / D) (the signs of v1 and v2 are chosen so both
 * are positive), c_i = floor((k g_i + 2^255) / 2^256), which is within
 * 1/2 + k / 2^257 of x_i. For k < r that bounds |k1| and |k2| below
 * 2^126.05 on BN254 and 2^126.97 on BLS12-381: both fit a signed 128-bit
 * integer. Since k1 and k2 fit 128 bits, the products c_i a_i and c_i b_i
 * only matter mod 2^128, so the basis is stored mod 2^128.
 *
 * How the constants were derived (Python, integers only): beta =
 * g^((q - 1)/3) mod q and lambda = h^((r - 1)/3) mod r for the least g, h
 * whose powers are not 1; lambda was replaced by lambda^2 when
 * phi(G) != [lambda] G for the standard generator G. The basis is the
 * extended Euclidean algorithm on (r, lambda) stopped at the first remainder
 * below sqrt(r) (GLV section 4): v1 from that row, v2 the shorter of its
 * neighbours; a + lambda b = 0 mod r and |D| = r were asserted for both.
 * The bounds above were computed from the basis and checked on 200000
 * random scalars, on 1000 scalars in [r, 2^F_BITS) reduced first, and on
 * 0, 1, r - 1, lambda, r - lambda. For BLS12-381 beta is the one of
 * curve_params.h (sigma), lambda = -x^2 mod r, and the basis is
 * (1, -(x^2 - 1)), (x^2, 1). tests/test_msm.c checks phi(P) = [lambda] P on
 * random points, beta^3 = 1, lambda^2 + lambda + 1 = 0 mod r and the
 * decomposition.
 *
 * G2 lies on the twist y^2 = x^3 + b' over Fq2, where the same map with a
 * cube root of unity of Fq (both coefficients of x multiplied by it) is an
 * automorphism too, and it preserves G2 (r divides the twist's order only
 * once), so it acts there as lambda or lambda^2. On both curves it is the
 * other root, beta^2, that acts as the lambda above, so G2 shares G1's
 * decomposition constants and only beta differs: phi then costs two Fq
 * multiplications against an Fq2 addition's dozens. */
#ifndef ZKP_CURVE_GLV_H
#define ZKP_CURVE_GLV_H

#include <stdint.h>

#include "curve/bls12_381_g1.h"
#include "curve/bls12_381_g2.h"
#include "curve/bn254_g1.h"
#include "curve/bn254_g2.h"

/* Bits of a signed half-scalar: -2^127 <= k1, k2 < 2^127. */
#define ZKP_GLV_BITS 128

/* BN254: beta in Montgomery form (x 2^256 mod q); lambda canonical. */
#define BN254_G1_GLV_BETA {{0x3350c88e13e80b9cULL, 0x7dce557cdb5e56b9ULL, 0x6001b4b8b615564aULL, 0x2682e617020217e0ULL}}
#define BN254_G1_GLV_LAMBDA {0xb8ca0b2d36636f23ULL, 0xcc37a73fec2bc5e9ULL, 0x048b6e193fd84104ULL, 0x30644e72e131a029ULL}
/* v1 = (0x6f4d8248eeb859fc8211bbeb7d4f1128, -0x89d3256894d213e3),
 * v2 = (0x89d3256894d213e3, 0x6f4d8248eeb859fd0be4e1541221250b), D = r. */
#define BN254_G1_GLV_PARAMS                                                                      \
    {BN254_FR_MODULUS,                                                                          \
     {0x5398fd0300ff6565ULL, 0x4ccef014a773d2d2ULL, 0x0000000000000002ULL},                      \
     {0xd91d232ec7e0b3d7ULL, 0x0000000000000002ULL, 0x0000000000000000ULL},                      \
     {0x8211bbeb7d4f1128ULL, 0x6f4d8248eeb859fcULL},                                             \
     {0x762cda976b2dec1dULL, 0xffffffffffffffffULL},                                             \
     {0x89d3256894d213e3ULL, 0x0000000000000000ULL},                                             \
     {0x0be4e1541221250bULL, 0x6f4d8248eeb859fdULL}}

/* BLS12-381: beta is BLS12_381_G1_BETA (curve_params.h); lambda = -x^2 mod r. */
#define BLS12_381_G1_GLV_BETA BLS12_381_G1_BETA
#define BLS12_381_G1_GLV_LAMBDA {0xfffffffe00000001ULL, 0xa7780001fffcb7fcULL, 0x3339d80809a1d804ULL, 0x73eda753299d7d48ULL}
/* v1 = (1, -(x^2 - 1)), v2 = (x^2, 1) with x^2 = 0xac45a4010001a4020000000100000000,
 * D = r. */
#define BLS12_381_G1_GLV_PARAMS                                                                  \
    {BLS12_381_FR_MODULUS,                                                                      \
     {0x0000000000000002ULL, 0x0000000000000000ULL, 0x0000000000000000ULL},                      \
     {0x63f6e522f6cfee2eULL, 0x7c6becf1e01faaddULL, 0x0000000000000001ULL},                      \
     {0x0000000000000001ULL, 0x0000000000000000ULL},                                             \
     {0xffffffff00000001ULL, 0x53ba5bfefffe5bfdULL},                                             \
     {0x0000000100000000ULL, 0xac45a4010001a402ULL},                                             \
     {0x0000000000000001ULL, 0x0000000000000000ULL}}

/* G2: beta^2 of the G1 root (Montgomery form), with G1's lambda and basis. */
#define BN254_G2_GLV_BETA {{0x71930c11d782e155ULL, 0xa6bb947cffbe3323ULL, 0xaa303344d4741444ULL, 0x2c3b3f0d26594943ULL}}
#define BN254_G2_GLV_LAMBDA BN254_G1_GLV_LAMBDA
#define BLS12_381_G2_GLV_BETA                                                                       \
    {{0xcd03c9e48671f071ULL, 0x5dab22461fcda5d2ULL, 0x587042afd3851b95ULL, 0x8eb60ebe01bacb9eULL, \
      0x03f97d6e83d050d2ULL, 0x18f0206554638741ULL}}
#define BLS12_381_G2_GLV_LAMBDA BLS12_381_G1_GLV_LAMBDA

/* The decomposition constants of one group; limbs little-endian. */
typedef struct {
    uint64_t r[4];          /* the group order */
    uint64_t g1[3], g2[3];  /* round(2^256 b2 / D), round(-2^256 b1 / D) */
    uint64_t a1[2], b1[2];  /* v1 mod 2^128 */
    uint64_t a2[2], b2[2];  /* v2 mod 2^128 */
} zkp_glv_params;

extern const zkp_glv_params zkp_glv_bn254_g1;
extern const zkp_glv_params zkp_glv_bls12_381_g1;
/* G2 shares them (see above). */
#define zkp_glv_bn254_g2 zkp_glv_bn254_g1
#define zkp_glv_bls12_381_g2 zkp_glv_bls12_381_g1

/* k1 and k2 with k1 + lambda k2 = k mod r, as 128-bit two's complement
 * integers: out[0], out[1] hold k1 and out[2], out[3] hold k2, low limb
 * first. On input k < 2r (every k below 2^F_BITS of either scalar field
 * is); k is reduced mod r first, which changes nothing on the group of
 * order r. Variable time. */
void zkp_glv_decompose(uint64_t out[4], const uint64_t k[4], const zkp_glv_params *p);

/* phi on affine points: (beta x, y); (0, 0) stays (0, 0). */
static inline void bn254_g1_affine_glv_phi(bn254_g1_affine_t *r, const bn254_g1_affine_t *p) {
    static const bn254_fq_t beta = BN254_G1_GLV_BETA;
    bn254_fq_mul(&r->x, &p->x, &beta);
    r->y = p->y;
}

static inline void bls12_381_g1_affine_glv_phi(bls12_381_g1_affine_t *r, const bls12_381_g1_affine_t *p) {
    static const bls12_381_fp_t beta = BLS12_381_G1_GLV_BETA;
    bls12_381_fp_mul(&r->x, &p->x, &beta);
    r->y = p->y;
}

static inline void bn254_g2_affine_glv_phi(bn254_g2_affine_t *r, const bn254_g2_affine_t *p) {
    static const bn254_fq_t beta = BN254_G2_GLV_BETA;
    bn254_fq2_mul_base(&r->x, &p->x, &beta);
    r->y = p->y;
}

static inline void bls12_381_g2_affine_glv_phi(bls12_381_g2_affine_t *r, const bls12_381_g2_affine_t *p) {
    static const bls12_381_fp_t beta = BLS12_381_G2_GLV_BETA;
    bls12_381_fp2_mul_base(&r->x, &p->x, &beta);
    r->y = p->y;
}

#endif
