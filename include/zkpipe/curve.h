/* zkpipe low-level curve API: points, encodings and pairings of BN254 and
 * BLS12-381, for verifiers and tests.
 *
 * The curve is chosen at run time by a zkpipe_curve value, the context
 * argument of every call. Points are value types of fixed size large enough
 * for either curve; only values produced by this API are meaningful in them.
 * Every point this API returns is on the curve and in the prime-order
 * subgroup: decoders check both. Functions return ZKPIPE_OK or an error
 * status and never abort.
 *
 * Argument order: curve, outputs, inputs; each length right after its array.
 *
 * Scalars are 32-byte big-endian integers. Scalar multiplication is constant
 * time in the scalar; every other function may take time that depends on its
 * (public) inputs. */
#ifndef ZKPIPE_CURVE_H
#define ZKPIPE_CURVE_H

#include <stddef.h>
#include <stdint.h>

#include "zkpipe/zkpipe.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
    ZKPIPE_CURVE_BN254 = 1,     /* alt_bn128, snarkjs "bn128" */
    ZKPIPE_CURVE_BLS12_381 = 2, /* snarkjs "bls12381", Filecoin, ZCash */
} zkpipe_curve;

/* Affine points of G1 and G2, and elements of the target group GT. */
typedef struct {
    uint64_t opaque[12];
} zkpipe_g1;
typedef struct {
    uint64_t opaque[24];
} zkpipe_g2;
typedef struct {
    uint64_t opaque[72];
} zkpipe_gt;

typedef enum {
    /* snarkjs/circom binary: Montgomery-form little-endian coordinates, x then
     * y (c0 before c1), infinity all zeros. 64/128 bytes (BN254 G1/G2),
     * 96/192 (BLS12-381). */
    ZKPIPE_ENCODING_CIRCOM = 1,
    /* ZCash/blst compressed: 48 (G1) or 96 (G2) bytes. BLS12-381 only. */
    ZKPIPE_ENCODING_ZCASH_COMPRESSED = 2,
    /* ZCash/blst uncompressed: 96 (G1) or 192 (G2) bytes. BLS12-381 only. */
    ZKPIPE_ENCODING_ZCASH_UNCOMPRESSED = 3,
} zkpipe_encoding;

/* Parses "bn128"/"bn254"/"alt_bn128" and "bls12381"/"bls12_381"/"bls12-381". */
ZKPIPE_API ZKPIPE_WARN_UNUSED zkpipe_status zkpipe_curve_from_name(zkpipe_curve *out, const char *name);
ZKPIPE_API const char *zkpipe_curve_name(zkpipe_curve curve);

/* Encoded size in bytes, or 0 if the encoding does not apply to the curve. */
ZKPIPE_API size_t zkpipe_g1_encoded_size(zkpipe_curve curve, zkpipe_encoding enc);
ZKPIPE_API size_t zkpipe_g2_encoded_size(zkpipe_curve curve, zkpipe_encoding enc);

ZKPIPE_API ZKPIPE_WARN_UNUSED zkpipe_status zkpipe_g1_generator(zkpipe_curve curve, zkpipe_g1 *out);
ZKPIPE_API ZKPIPE_WARN_UNUSED zkpipe_status zkpipe_g2_generator(zkpipe_curve curve, zkpipe_g2 *out);
ZKPIPE_API ZKPIPE_WARN_UNUSED zkpipe_status zkpipe_g1_infinity(zkpipe_curve curve, zkpipe_g1 *out);
ZKPIPE_API ZKPIPE_WARN_UNUSED zkpipe_status zkpipe_g2_infinity(zkpipe_curve curve, zkpipe_g2 *out);

ZKPIPE_API ZKPIPE_WARN_UNUSED zkpipe_status zkpipe_g1_add(zkpipe_curve curve, zkpipe_g1 *out,
                                                          const zkpipe_g1 *a, const zkpipe_g1 *b);
ZKPIPE_API ZKPIPE_WARN_UNUSED zkpipe_status zkpipe_g2_add(zkpipe_curve curve, zkpipe_g2 *out,
                                                          const zkpipe_g2 *a, const zkpipe_g2 *b);
ZKPIPE_API ZKPIPE_WARN_UNUSED zkpipe_status zkpipe_g1_neg(zkpipe_curve curve, zkpipe_g1 *out,
                                                          const zkpipe_g1 *a);
ZKPIPE_API ZKPIPE_WARN_UNUSED zkpipe_status zkpipe_g2_neg(zkpipe_curve curve, zkpipe_g2 *out,
                                                          const zkpipe_g2 *a);
/* out = [scalar] a, for any 256-bit scalar (reduced mod r implicitly). */
ZKPIPE_API ZKPIPE_WARN_UNUSED zkpipe_status zkpipe_g1_mul(zkpipe_curve curve, zkpipe_g1 *out,
                                                          const zkpipe_g1 *a,
                                                          const uint8_t scalar_be[32]);
ZKPIPE_API ZKPIPE_WARN_UNUSED zkpipe_status zkpipe_g2_mul(zkpipe_curve curve, zkpipe_g2 *out,
                                                          const zkpipe_g2 *a,
                                                          const uint8_t scalar_be[32]);
/* *equal = 1 when a == b, else 0. */
ZKPIPE_API ZKPIPE_WARN_UNUSED zkpipe_status zkpipe_g1_eq(zkpipe_curve curve, int *equal,
                                                         const zkpipe_g1 *a, const zkpipe_g1 *b);
ZKPIPE_API ZKPIPE_WARN_UNUSED zkpipe_status zkpipe_g2_eq(zkpipe_curve curve, int *equal,
                                                         const zkpipe_g2 *a, const zkpipe_g2 *b);

/* Binary encodings. decode checks length, canonical coordinates, the curve
 * equation and the subgroup, each with its own status. */
ZKPIPE_API ZKPIPE_WARN_UNUSED zkpipe_status zkpipe_g1_decode(zkpipe_curve curve, zkpipe_g1 *out,
                                                             zkpipe_encoding enc,
                                                             const uint8_t *in, size_t in_len);
ZKPIPE_API ZKPIPE_WARN_UNUSED zkpipe_status zkpipe_g2_decode(zkpipe_curve curve, zkpipe_g2 *out,
                                                             zkpipe_encoding enc,
                                                             const uint8_t *in, size_t in_len);
/* Writes exactly zkpipe_gX_encoded_size(curve, enc) bytes; out_cap must allow them. */
ZKPIPE_API ZKPIPE_WARN_UNUSED zkpipe_status zkpipe_g1_encode(zkpipe_curve curve, uint8_t *out,
                                                             size_t out_cap, zkpipe_encoding enc,
                                                             const zkpipe_g1 *p);
ZKPIPE_API ZKPIPE_WARN_UNUSED zkpipe_status zkpipe_g2_encode(zkpipe_curve curve, uint8_t *out,
                                                             size_t out_cap, zkpipe_encoding enc,
                                                             const zkpipe_g2 *p);

/* snarkjs JSON coordinates: base-10 strings. G1 takes 2 (x, y) or 3
 * (x, y, z with z = "1", or "0" for infinity) strings; G2 takes 4 or 6
 * (each coordinate as c0, c1). */
ZKPIPE_API ZKPIPE_WARN_UNUSED zkpipe_status zkpipe_g1_from_decimal(zkpipe_curve curve, zkpipe_g1 *out,
                                                                   const char *const *coords,
                                                                   size_t count);
ZKPIPE_API ZKPIPE_WARN_UNUSED zkpipe_status zkpipe_g2_from_decimal(zkpipe_curve curve, zkpipe_g2 *out,
                                                                   const char *const *coords,
                                                                   size_t count);
/* Writes 3 (G1) or 6 (G2) strings as snarkjs does, each into a buffer of
 * ZKPIPE_DECIMAL_MAX bytes. */
#define ZKPIPE_DECIMAL_MAX 128
ZKPIPE_API ZKPIPE_WARN_UNUSED zkpipe_status zkpipe_g1_to_decimal(zkpipe_curve curve,
                                                                 char out[][ZKPIPE_DECIMAL_MAX],
                                                                 size_t count, const zkpipe_g1 *p);
ZKPIPE_API ZKPIPE_WARN_UNUSED zkpipe_status zkpipe_g2_to_decimal(zkpipe_curve curve,
                                                                 char out[][ZKPIPE_DECIMAL_MAX],
                                                                 size_t count, const zkpipe_g2 *p);

/* out = e(p, q), the reduced optimal ate pairing (exponent (p^12 - 1)/r). */
ZKPIPE_API ZKPIPE_WARN_UNUSED zkpipe_status zkpipe_pairing(zkpipe_curve curve, zkpipe_gt *out,
                                                           const zkpipe_g1 *p, const zkpipe_g2 *q);
/* *is_one = 1 when the product of e(p[i], q[i]) over i < n is 1: one shared
 * Miller loop and one final exponentiation. */
ZKPIPE_API ZKPIPE_WARN_UNUSED zkpipe_status zkpipe_pairing_check(zkpipe_curve curve, int *is_one,
                                                                 const zkpipe_g1 *p,
                                                                 const zkpipe_g2 *q, size_t n);
ZKPIPE_API ZKPIPE_WARN_UNUSED zkpipe_status zkpipe_gt_eq(zkpipe_curve curve, int *equal,
                                                         const zkpipe_gt *a, const zkpipe_gt *b);
/* out = a · b in GT. */
ZKPIPE_API ZKPIPE_WARN_UNUSED zkpipe_status zkpipe_gt_mul(zkpipe_curve curve, zkpipe_gt *out,
                                                          const zkpipe_gt *a, const zkpipe_gt *b);

#ifdef __cplusplus
}
#endif
#endif
