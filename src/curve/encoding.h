/* Point encodings: the contract.
 *
 * Every decoder validates completely and returns a distinct status for each
 * way an input can be wrong: ZKPIPE_ERR_BAD_ENCODING (length, flag bits,
 * characters), ZKPIPE_ERR_NON_CANONICAL (a coordinate >= p),
 * ZKPIPE_ERR_NOT_ON_CURVE and ZKPIPE_ERR_NOT_IN_SUBGROUP. On error the output
 * point is left untouched. Encoders never fail on a valid point.
 *
 * For every group G of both curves (bn254_g1, bn254_g2, bls12_381_g1,
 * bls12_381_g2), with D = 1 for G1 and 2 for G2 and W the byte width of
 * the base field (32 for BN254, 48 for BLS12-381):
 *
 *   G_affine_from_circom(p, in[2·D·W]) / G_affine_to_circom(out, p)
 *       The circom/snarkjs binary layout: each base-field element as its
 *       Montgomery form in little-endian bytes, x then y, c0 before c1;
 *       infinity is all zeros.
 *   G_affine_from_dec(p, dec, count) / G_affine_to_dec(out, count, p)
 *       snarkjs JSON coordinates as base-10 strings: count = 2·D (x, y) or
 *       3·D (x, y, z with z = 1, or z = 0 for infinity). to_dec writes 3·D
 *       strings in snarkjs's form: z = 1, and (0, 1, 0) for infinity.
 *
 * For BLS12-381 only, the ZCash/blst serialization (big-endian, flag bits in
 * the top three bits of the first byte, Fp2 imaginary part first):
 *
 *   bls12_381_g1_affine_compress(out[48], p) / _uncompress(p, in[48])
 *   bls12_381_g1_affine_serialize(out[96], p) / _deserialize(p, in[96])
 *   bls12_381_g2_affine_compress(out[96], p) / _uncompress(p, in[96])
 *   bls12_381_g2_affine_serialize(out[192], p) / _deserialize(p, in[192])
 *
 * Every decoder checks the point on the curve and in the prime-order
 * subgroup, except _deserialize_on_curve, which skips the subgroup check
 * (its cost dominates decoding: about 130 doublings per point) for bulk
 * points whose source is trusted otherwise (bellperson.h).
 */
#ifndef ZKP_CURVE_ENCODING_H
#define ZKP_CURVE_ENCODING_H

#include <stddef.h>
#include <stdint.h>

#include "curve/curve.h"

/* Room for one base-10 coordinate of either curve and its terminator. */
#define ZKP_DEC_MAX 128

#define ZKP_ENCODING_DECLARE(G, D, W)                                                               \
    ZKP_WARN_UNUSED zkpipe_status G##_affine_from_circom(G##_affine_t *p, const uint8_t in[2 * D * W]); \
    void G##_affine_to_circom(uint8_t out[2 * D * W], const G##_affine_t *p);                        \
    ZKP_WARN_UNUSED zkpipe_status G##_affine_from_dec(G##_affine_t *p, const char *const *dec,       \
                                                      size_t count);                                 \
    ZKP_WARN_UNUSED zkpipe_status G##_affine_to_dec(char out[][ZKP_DEC_MAX], size_t count,          \
                                                    const G##_affine_t *p);

ZKP_ENCODING_DECLARE(bn254_g1, 1, 32)
ZKP_ENCODING_DECLARE(bn254_g2, 2, 32)
ZKP_ENCODING_DECLARE(bls12_381_g1, 1, 48)
ZKP_ENCODING_DECLARE(bls12_381_g2, 2, 48)
#undef ZKP_ENCODING_DECLARE

#define ZKP_ZCASH_DECLARE(G, D)                                                                      \
    void G##_affine_compress(uint8_t out[48 * D], const G##_affine_t *p);                            \
    ZKP_WARN_UNUSED zkpipe_status G##_affine_uncompress(G##_affine_t *p, const uint8_t in[48 * D]); \
    void G##_affine_serialize(uint8_t out[96 * D], const G##_affine_t *p);                           \
    ZKP_WARN_UNUSED zkpipe_status G##_affine_deserialize(G##_affine_t *p, const uint8_t in[96 * D]); \
    ZKP_WARN_UNUSED zkpipe_status G##_affine_deserialize_on_curve(G##_affine_t *p,                   \
                                                                  const uint8_t in[96 * D]);

ZKP_ZCASH_DECLARE(bls12_381_g1, 1)
ZKP_ZCASH_DECLARE(bls12_381_g2, 2)
#undef ZKP_ZCASH_DECLARE

#endif
