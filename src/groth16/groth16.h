/* Groth16: the contract, and the curve-neutral wrappers.
 *
 * Each curve C (bn254, bls12_381) has its own types and functions, from the
 * one generic body (groth16_impl.h, groth16_body.h): C_g16_pk_t,
 * C_g16_vk_t, C_g16_proof_t, C_g16_prove_start, ... The wrappers below hold
 * a value of either curve, tagged with its zkpipe_curve, for the layers
 * that pick the curve from a file at run time (formats, cli, engine).
 *
 * Conventions: snarkjs and rapidsnark zkeys, followed exactly.
 *   - Witness w: n_vars scalars, w_0 = 1, then the n_public public signals,
 *     then the private ones. Scalars are four little-endian uint64_t limbs in
 *     canonical form (the .wtns encoding), each < r.
 *   - Synthesis: a_i = sum over the A entries of row i of coef·w_signal,
 *     b_i likewise, c_i = a_i·b_i (circom constraints are A·B = C, so C·w
 *     equals a∘b for a satisfying witness, and the zkey stores no C matrix).
 *     Rows n_constraints .. n_constraints + n_public hold the entries snarkjs
 *     adds so that every public signal appears in A (they are part of the
 *     coefficient section).
 *   - H: a, b, c are interpolated over the domain of size n and evaluated
 *     on the coset g·H with g = w_{2n} (the 2n-th root of snarkjs's family:
 *     5 generates it on both curves), or g = 25 when log n equals the field's
 *     2-adicity. h_j = a'_j·b'_j − c'_j on that coset, in natural order, is
 *     the scalar of the key's H base j: the key has already folded in the
 *     division by Z = g^n − 1 = −2.
 *     A key whose H query is in bellperson's coefficient basis
 *     (h_coefficients) takes h's coefficients instead: the same values
 *     interpolated back from the coset (an inverse coset NTT, which is
 *     linear, so it runs on the canonical values as they are), summed over
 *     the n − 1 points, and the sum multiplied by 1/Z once. The polynomial
 *     and so its coefficients do not depend on the coset, so these are
 *     bellperson's own.
 *   - Assembly, with r and s uniform from the OS CSPRNG:
 *         A = alpha1 + sum_j w_j·a_j + r·delta1
 *         B = beta2 + sum_j w_j·b2_j + s·delta2      (B1 likewise in G1)
 *         C = sum_{j > n_public} w_j·c_j + sum_j h_j·h_j
 *             + s·A + r·B1 − r·s·delta1
 *   - Verification: e(A, B) = e(alpha1, beta2)·e(vk_x, gamma2)·e(C, delta2)
 *     with vk_x = ic_0 + sum_i x_i·ic_i over the public inputs x_i < r.
 */
#ifndef ZKP_GROTH16_GROTH16_H
#define ZKP_GROTH16_GROTH16_H

#include "groth16/bls12_381_groth16.h"
#include "groth16/bn254_groth16.h"
#include "zkpipe/curve.h"

/* A proving key of either curve (borrowing its arrays, like C_g16_pk_t). */
typedef struct {
    zkpipe_curve curve;
    union {
        bn254_g16_pk_t bn254;
        bls12_381_g16_pk_t bls12_381;
    } u;
} zkp_g16_pk;

typedef struct {
    zkpipe_curve curve;
    union {
        bn254_g16_proof_t bn254;
        bls12_381_g16_proof_t bls12_381;
    } u;
} zkp_g16_proof;

/* A verification key of either curve. When owned is not NULL the key's ic
 * array lives in it and zkp_g16_vk_release frees it. */
typedef struct {
    zkpipe_curve curve;
    union {
        bn254_g16_vk_t bn254;
        bls12_381_g16_vk_t bls12_381;
    } u;
    void *owned;
} zkp_g16_vk;

void zkp_g16_vk_release(zkp_g16_vk *vk);

/* Public inputs: n canonical scalars (4 limbs each, < r of the curve). */
typedef struct {
    zkpipe_curve curve;
    size_t n;
    uint64_t *values; /* 4·n limbs, malloc'd; zkp_g16_public_release frees */
} zkp_g16_public;

void zkp_g16_public_release(zkp_g16_public *pub);

/* The curve-dispatching forms of C_g16_prove_start, C_g16_prove_start_abc,
 * C_g16_prove_finalize,
 * C_g16_verify and C_g16_pk_vk: the same contracts. A pending handle
 * remembers its curve. ERR_WRONG_CURVE when the arguments' curves differ. */
typedef struct zkp_g16_pending zkp_g16_pending;

ZKP_WARN_UNUSED zkpipe_status zkp_g16_prove_start(zkp_g16_pending **out, const zkp_g16_pk *pk,
                                                  zkp_buffer *witness,
                                                  const zkp_g16_prove_opts *opts, zkp_diag *diag);
ZKP_WARN_UNUSED zkpipe_status zkp_g16_prove_start_abc(zkp_g16_pending **out, const zkp_g16_pk *pk,
                                                      zkp_buffer *witness, zkp_buffer *abc,
                                                      const zkp_g16_prove_opts *opts,
                                                      zkp_diag *diag);
ZKP_WARN_UNUSED zkpipe_status zkp_g16_prove_finalize(zkp_g16_proof *proof, zkp_g16_pending *p,
                                                     zkp_g16_timings *timings, zkp_diag *diag);
void zkp_g16_pending_free(zkp_g16_pending *p);
ZKP_WARN_UNUSED zkpipe_status zkp_g16_verify(const zkp_g16_vk *vk, const zkp_g16_public *pub,
                                             const zkp_g16_proof *proof, zkp_diag *diag);
/* The verification key of pk, borrowing its ic (owned = NULL). */
void zkp_g16_pk_vk(zkp_g16_vk *vk, const zkp_g16_pk *pk);

#endif
