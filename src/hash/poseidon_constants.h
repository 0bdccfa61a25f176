/* How the Poseidon constants are derived (used by poseidon.c at start-up,
 * and by the tests that check each step on its own).
 *
 * Matrices are n x n arrays of bls12_381_fr_t, row-major. Nothing here is
 * on a hot path: the functions run once per arity, on public values, so
 * they use the variable-time inversion. Widths are at most
 * ZKP_POSEIDON_MAX_WIDTH. */
#ifndef ZKP_HASH_POSEIDON_CONSTANTS_H
#define ZKP_HASH_POSEIDON_CONSTANTS_H

#include <stddef.h>

#include "field/bls12_381_fr.h"
#include "hash/poseidon.h"

/* The round constants of the Poseidon paper's Grain LFSR for a prime field
 * of 255 bits, the x^5 S-box, width t and the given round numbers: out
 * receives (r_f + r_p) * t elements, round by round. The 80-bit seed is
 * field type 1 (2 bits), S-box 1 (4 bits), field size 255 (12 bits), t (12
 * bits), r_f (10 bits), r_p (10 bits), thirty ones, each field most
 * significant bit first; the LFSR runs b[i+80] = b[i+62] ^ b[i+51] ^
 * b[i+38] ^ b[i+23] ^ b[i+13] ^ b[i], its first 160 bits are discarded, and
 * it is read self-shrinking (of each pair of bits, the second is output when
 * the first is 1). Each candidate is 255 output bits read as a big-endian
 * integer; candidates >= r are skipped. */
void zkp_poseidon_grain_constants(bls12_381_fr_t *out, unsigned t, unsigned r_f, unsigned r_p);

/* m = the t x t Cauchy matrix M[i][j] = 1 / (x_i + y_j) with x_i = i and
 * y_j = t + j, neptune's MDS matrix. */
void zkp_poseidon_cauchy_mds(bls12_381_fr_t *m, unsigned t);

/* inv = m^-1 by Gauss-Jordan elimination. ZKPIPE_ERR_NOT_INVERTIBLE when
 * m is singular (inv is then undefined), ZKPIPE_ERR_NO_MEMORY when its
 * working copy cannot be allocated. inv and m must not overlap. */
ZKP_WARN_UNUSED zkpipe_status zkp_poseidon_matrix_invert(bls12_381_fr_t *inv, const bls12_381_fr_t *m, unsigned n);

/* r = a * b. r must not overlap a or b. */
void zkp_poseidon_matrix_mul(bls12_381_fr_t *r, const bls12_381_fr_t *a, const bls12_381_fr_t *b, unsigned n);

/* r = m * v (v a column vector). r must not overlap v. */
void zkp_poseidon_matrix_apply(bls12_381_fr_t *r, const bls12_381_fr_t *m, const bls12_381_fr_t *v, unsigned n);

/* neptune's compressed round constants (see zkp_poseidon_params in
 * poseidon.h for their layout): out receives r_f * t + r_p elements made
 * from the plain round constants rc ((r_f + r_p) * t) and M^-1. The
 * constants of a round are moved to the round before it by M^-1, which
 * turns an addition before an S-box layer into one after the previous
 * S-box layer; through a partial round only element 0 meets the S-box, so
 * everything but element 0 keeps moving back, and each partial round keeps
 * a single scalar. */
void zkp_poseidon_compress_round_constants(bls12_381_fr_t *out, const bls12_381_fr_t *rc,
                                           const bls12_381_fr_t *mds_inv, unsigned t, unsigned r_f,
                                           unsigned r_p);

/* neptune's factoring of base (transpose(M) for the hash) over n partial
 * rounds, in the row-vector convention state' = state * matrix: base =
 * P * S where P keeps element 0 and S is sparse (dense first row and first
 * column, identity elsewhere). P touches neither element 0 nor anything the
 * S-box of a partial round reads, so it moves into the round before, whose
 * matrix becomes base * P; repeated n times from the last partial round
 * backwards, this leaves pre_sparse for the full round before the partial
 * rounds and one S per partial round, stored as w_hat (n rows of t: the
 * first column) and v_rest (n rows of t - 1: the first row after its first
 * element), in round order. ZKPIPE_ERR_NOT_INVERTIBLE when a minor is
 * singular, ZKPIPE_ERR_NO_MEMORY when the working matrices cannot be
 * allocated. */
ZKP_WARN_UNUSED zkpipe_status zkp_poseidon_factor_sparse(bls12_381_fr_t *pre_sparse, bls12_381_fr_t *w_hat,
                                               bls12_381_fr_t *v_rest, const bls12_381_fr_t *base, unsigned t,
                                               unsigned n);

#endif
