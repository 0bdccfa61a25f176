/* Poseidon over BLS12-381 Fr, as neptune defines it for Filecoin.
 *
 * The instance. For an arity a the state has width t = a + 1. state[0] holds
 * the domain tag of neptune's HashType::MerkleTree, 2^a - 1, and state[1..a]
 * the preimage; the digest is state[1] after the permutation. The S-box is
 * x^5. The permutation runs R_F / 2 full rounds, R_P partial rounds and
 * R_F / 2 full rounds; a round adds t round constants, applies the S-box
 * (to every element in a full round, to element 0 in a partial round) and
 * multiplies the state by the MDS matrix. R_F = 8 for every arity; R_P is
 * 55 (a = 2), 56 (a = 4), 57 (a = 8, 11), 59 (a = 16, 24) and 60 (a = 36),
 * the Standard strength of neptune. Filecoin's PoRep uses a = 2 (comm_r,
 * the columns of two-layer sectors), 8 (tree_c and tree_r_last) and 11
 * (the columns of eleven-layer sectors); its hashers also offer 4, 16, 24
 * and 36 (hash_md).
 *
 * The constants. Nothing is pasted in: the first zkp_poseidon_params_get
 * of an arity derives that arity's constants (hash/poseidon_constants.h):
 * the round constants from the Grain LFSR of the Poseidon paper, the
 * Cauchy MDS matrix M[i][j] = 1 / (i + t + j) and its inverse, and from
 * those the optimised form below. Later calls return the same object, on
 * any thread; it lives until the process ends.
 *
 * Two forms, one function. zkp_poseidon_permute_plain is the permutation
 * as written above. zkp_poseidon_permute_optimized computes the same
 * permutation with neptune's statically preprocessed constants ("optimized
 * static" mode): the round constants of every round but the first are
 * pushed back through M^-1 so that they are added after the S-box, the
 * partial rounds' constants shrink to one scalar per round, and the dense
 * M of the partial rounds is factored into sparse matrices (dense first
 * row and column, identity elsewhere) plus one dense pre-sparse matrix
 * used in the last full round before them. A partial round then costs
 * about 2t multiplications instead of t^2, so the optimised form is the
 * fast one, and zkp_poseidon_hash uses it. The intermediate states of the
 * two forms differ (only the final state agrees); the optimised form's
 * states are the values that Filecoin's circuit (neptune's legacy
 * circuit, kept for the existing trusted setups) allocates as witnesses,
 * so zkp_poseidon_permute_optimized can record them.
 *
 * Elements are bls12_381_fr_t in Montgomery form (field/field.h). The hash
 * functions do not allocate and may run concurrently on any threads. */
#ifndef ZKP_HASH_POSEIDON_H
#define ZKP_HASH_POSEIDON_H

#include <stddef.h>
#include <stdint.h>

#include "field/bls12_381_fr.h"
#include "util/diag.h"

/* The largest arity in the table of poseidon.c; states fit in arrays of
 * ZKP_POSEIDON_MAX_WIDTH elements. */
#define ZKP_POSEIDON_MAX_ARITY 36
#define ZKP_POSEIDON_MAX_WIDTH (ZKP_POSEIDON_MAX_ARITY + 1)

/* The constants of one arity. Matrices are width x width, row-major
 * (element [i][j] at i * width + j). All arrays are owned by the params
 * object and never change after it is returned. */
typedef struct zkp_poseidon_params {
    unsigned arity;
    unsigned width;            /* arity + 1 */
    unsigned full_rounds;      /* R_F, even */
    unsigned half_full_rounds; /* R_F / 2 */
    unsigned partial_rounds;   /* R_P */
    bls12_381_fr_t domain_tag; /* 2^arity - 1 */

    /* The plain form. */
    const bls12_381_fr_t *round_constants; /* (R_F + R_P) rows of width, round by round */
    const bls12_381_fr_t *mds;             /* M, applied as state = M * state; symmetric */
    const bls12_381_fr_t *mds_inv;         /* M^-1 */

    /* The optimised form, in the order it is consumed (neptune's
     * compressed_round_constants): width constants added before the first
     * S-box layer; then width post-S-box constants for each of the first
     * R_F / 2 full rounds; one post-S-box scalar (for element 0) per partial
     * round; width post-S-box constants for each of the last R_F / 2 full
     * rounds except the last, which has none. R_F * width + R_P in all. */
    const bls12_381_fr_t *compressed_round_constants;
    /* The matrix of full round R_F / 2 - 1 (the last before the partial
     * rounds), applied to the state as a row vector: state'[j] =
     * sum_i state[i] * pre_sparse_matrix[i][j]. */
    const bls12_381_fr_t *pre_sparse_matrix;
    /* The matrix of partial round k (0 <= k < R_P), also applied as a row
     * vector, has column 0 equal to sparse_w_hat[k * width .. + width],
     * row 0 beyond column 0 equal to sparse_v_rest[k * (width - 1) .. +
     * width - 1], and the identity elsewhere:
     *   state'[0] = sum_i w_hat[i] * state[i]
     *   state'[j] = state[j] + v_rest[j - 1] * state[0]      (j >= 1)
     * These are neptune's sparse_matrixes, factored from transpose(M). */
    const bls12_381_fr_t *sparse_w_hat;
    const bls12_381_fr_t *sparse_v_rest;
} zkp_poseidon_params;

/* On output *out is the constants of `arity`, made on the first call for
 * that arity. ZKPIPE_ERR_UNSUPPORTED for an arity not in the table (2, 4,
 * 8, 11, 16, 24, 36), ZKPIPE_ERR_NO_MEMORY if they could not be made (a later call
 * tries again). Thread-safe. */
ZKP_WARN_UNUSED zkpipe_status zkp_poseidon_params_get(const zkp_poseidon_params **out, unsigned arity);

/* Makes the constants of every arity in the table now, so that the first
 * hash of each does not pay for them (a few milliseconds for the small
 * arities, about a tenth of a second for 36). */
ZKP_WARN_UNUSED zkpipe_status zkp_poseidon_init_all(void);

/* The permutation, plain form. state has p->width elements. */
void zkp_poseidon_permute_plain(const zkp_poseidon_params *p, bls12_381_fr_t *state);

/* The permutation, optimised form. When trace is not NULL it receives the
 * state entering each round, before any addition of that round:
 * trace[r * width + i] for rounds r = 0 .. R_F + R_P - 1 (round 0's entry
 * is the input state). Only the final state equals the plain form's. */
void zkp_poseidon_permute_optimized(const zkp_poseidon_params *p, bls12_381_fr_t *state,
                                    bls12_381_fr_t *trace);

/* *out = the digest of preimage[0 .. arity - 1]: the domain tag and the
 * preimage through the optimised permutation, then state[1]. */
void zkp_poseidon_hash(bls12_381_fr_t *out, const zkp_poseidon_params *p, const bls12_381_fr_t *preimage);

/* The same digest through the plain permutation (the reference). */
void zkp_poseidon_hash_plain(bls12_381_fr_t *out, const zkp_poseidon_params *p,
                             const bls12_381_fr_t *preimage);

/* The digest of arity values given as 32-byte little-endian canonical
 * encodings (Filecoin's PoseidonDomain), preimage[32 * k .. 32 * k + 31]
 * for element k, into out (32 bytes, canonical little-endian). A value >= r
 * is rejected with ZKPIPE_ERR_NON_CANONICAL and a message naming the
 * element; out is then left alone. */
ZKP_WARN_UNUSED zkpipe_status zkp_poseidon_hash_bytes(uint8_t out[32], unsigned arity, const uint8_t *preimage,
                                                      zkp_diag *diag);

#endif
