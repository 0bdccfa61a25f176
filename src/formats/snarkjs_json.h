/* snarkjs Groth16 JSON files: proof.json, public.json, verification_key.json,
 * for both curves ("bn128" and "bls12381").
 *
 * Readers. Each takes the document text[0..len) (not necessarily
 * NUL-terminated), a name for messages (the file name; NULL for "input") and
 * an optional diag, treats the text as hostile, and never crashes or reads
 * outside it. Texts longer than ZKP_SNARKJS_MAX_TEXT are refused before
 * anything is allocated. On failure the output is left empty (nothing to
 * release) and the status says what was wrong:
 *   ZKPIPE_ERR_OUT_OF_RANGE      text longer than ZKP_SNARKJS_MAX_TEXT
 *   ZKPIPE_ERR_PARSE             not JSON (also: duplicate member names, too
 *                                deep), or a required member missing, or a
 *                                value of the wrong JSON type (a number where
 *                                a string is needed, nPublic not a
 *                                non-negative integer, ...)
 *   ZKPIPE_ERR_UNSUPPORTED       protocol other than "groth16", unknown curve
 *   ZKPIPE_ERR_BAD_ENCODING      an array of the wrong length (a point, a
 *                                coordinate, vk_alphabeta_12), a string that
 *                                is not a decimal number (empty, a sign,
 *                                spaces, other characters), a z coordinate
 *                                other than 0 or 1, a vk_alphabeta_12 that is
 *                                not e(vk_alpha_1, vk_beta_2)
 *   ZKPIPE_ERR_NON_CANONICAL     a decimal number >= p (coordinates) or >= r
 *                                (public inputs), or written with leading
 *                                zeros ("007")
 *   ZKPIPE_ERR_NOT_ON_CURVE, ZKPIPE_ERR_NOT_IN_SUBGROUP   a bad point
 *   ZKPIPE_ERR_SIZE_MISMATCH     nPublic != len(IC) - 1
 *   ZKPIPE_ERR_NO_MEMORY, ZKPIPE_ERR_INVALID_ARGUMENT
 * The diag message names the file and the member ("proof.json: pi_b[1][0]:
 * ..."). Members other than the ones read are ignored, as snarkjs does. Points
 * are the decimal encodings of curve/encoding.h: [x, y, z] with z = "1", or
 * z = "0" for the point at infinity, and [x, y] without z; G2 coordinates are
 * [c0, c1] pairs.
 *
 * Writers produce the bytes snarkjs's command line writes (bfj with
 * {space: 1}, the same as JSON.stringify(value, null, 1) except that an empty
 * array is "[\n]" rather than "[]"), with no trailing newline, so that files
 * written by either tool compare equal byte for byte. The output is a malloc'd
 * NUL-terminated buffer (*len bytes, not counting the NUL) for the caller to
 * free(). They fail only for ZKPIPE_ERR_NO_MEMORY and
 * ZKPIPE_ERR_INVALID_ARGUMENT (NULL pointers, an unknown curve, a vk without
 * its IC array). */
#ifndef ZKP_FORMATS_SNARKJS_JSON_H
#define ZKP_FORMATS_SNARKJS_JSON_H

#include <stddef.h>

#include "groth16/groth16.h"
#include "util/diag.h"
#include "util/util.h"

/* The largest text any reader accepts: 64 MiB (a key with about 200,000
 * public inputs). */
#define ZKP_SNARKJS_MAX_TEXT ((size_t)64 << 20)

/* proof.json: {"pi_a": G1, "pi_b": G2, "pi_c": G1, "protocol": "groth16",
 * "curve": name}. The curve comes from the file. */
ZKP_WARN_UNUSED zkpipe_status zkp_snarkjs_read_proof(const char *text, size_t len, const char *name,
                                                     zkp_g16_proof *out, zkp_diag *d);

/* The same for a proof checked against a key of curve expected: a file
 * without "curve" (rapidsnark writes none) is read as that curve, and one
 * that names another curve fails with ZKPIPE_ERR_WRONG_CURVE. */
ZKP_WARN_UNUSED zkpipe_status zkp_snarkjs_read_proof_for(const char *text, size_t len,
                                                         const char *name, zkpipe_curve expected,
                                                         zkp_g16_proof *out, zkp_diag *d);

/* public.json: an array of decimal strings, each an integer < r of curve
 * (the file does not say which curve: the caller takes it from the key).
 * Leading zeros are accepted ("007" is 7), as snarkjs accepts them.
 * A value >= r is ZKPIPE_ERR_NON_CANONICAL, never reduced: x and x + r must
 * not both be accepted as the same public input. On success out->values is
 * malloc'd (NULL when n = 0); release with zkp_g16_public_release. */
ZKP_WARN_UNUSED zkpipe_status zkp_snarkjs_read_public(const char *text, size_t len, const char *name,
                                                      zkpipe_curve curve, zkp_g16_public *out,
                                                      zkp_diag *d);

/* verification_key.json: {"protocol": "groth16", "curve", "nPublic",
 * "vk_alpha_1", "vk_beta_2", "vk_gamma_2", "vk_delta_2", "vk_alphabeta_12",
 * "IC": [G1 × (nPublic + 1)]}. Every point is validated. vk_alphabeta_12 is
 * optional; when present it must be 2 × 3 × 2 canonical decimals < p and
 * equal e(vk_alpha_1, vk_beta_2) as ffjavascript computes it (see
 * zkp_snarkjs_write_vk). On success the IC array is malloc'd and
 * owned by out (out->owned); release with zkp_g16_vk_release. */
ZKP_WARN_UNUSED zkpipe_status zkp_snarkjs_read_vk(const char *text, size_t len, const char *name,
                                                  zkp_g16_vk *out, zkp_diag *d);

ZKP_WARN_UNUSED zkpipe_status zkp_snarkjs_write_proof(const zkp_g16_proof *proof, char **out,
                                                      size_t *len);

/* Writes the n values of pub, which must be canonical (< r). */
ZKP_WARN_UNUSED zkpipe_status zkp_snarkjs_write_public(const zkp_g16_public *pub, char **out,
                                                       size_t *len);

/* Writes the key as `snarkjs zkey export verificationkey` does, with
 * vk_alphabeta_12 = e(vk_alpha_1, vk_beta_2) computed here as ffjavascript
 * computes it, in its Fp12 layout: [c0, c1] of Fp6 = [c0, c1, c2] of Fp2 =
 * [c0, c1], with Fp12 = Fp6[w]/(w^2 - v), Fp6 = Fp2[v]/(v^3 - xi) (the tower
 * of field/fp12_impl.h, the same as ffjavascript's). ffjavascript's pairing
 * is a fixed power of the exact reduced pairing of pairing.h: e^(2x(6x^2 +
 * 3x + 1)) on BN254 (x the curve seed) and e^3 on BLS12-381, from the hard
 * parts of its final exponentiations; vk_alphabeta_12 is that value, here as
 * in files snarkjs writes. */
ZKP_WARN_UNUSED zkpipe_status zkp_snarkjs_write_vk(const zkp_g16_vk *vk, char **out, size_t *len);

#endif
