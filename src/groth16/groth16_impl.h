/* Generic Groth16 over one pairing curve: types and declarations.
 *
 * Instantiated by each curve's header (bn254_groth16.h, bls12_381_groth16.h),
 * never included on its own:
 *
 *     #define G16_CURVE bn254      (prefix of the types and functions)
 *     #define G16_G1 bn254_g1      (the groups and the scalar field)
 *     #define G16_G2 bn254_g2
 *     #define G16_FR bn254_fr
 *     #include "groth16/groth16_impl.h"
 *
 * and in exactly one .c file per curve, groth16_body.h after it. The names
 * are the curve's, then _g16_: bn254_g16_pk_t, bn254_g16_prove_start. See
 * groth16.h for the conventions (snarkjs/rapidsnark zkeys). */
#include <stddef.h>
#include <stdint.h>

#include "groth16/groth16_common.h"
#include "util/alloc.h"
#include "util/diag.h"
#include "util/util.h"

#define G16_FN(op) ZKP_CAT(ZKP_CAT(G16_CURVE, _g16_), op)
#define G16_T(name) ZKP_CAT(ZKP_CAT(G16_CURVE, _g16_), name)
#define G16_G1A ZKP_CAT(G16_G1, _affine_t)
#define G16_G2A ZKP_CAT(G16_G2, _affine_t)
#define G16_FRT ZKP_CAT(G16_FR, _t)

/* One nonzero entry of the A or B matrix (zkey section 4). */
typedef struct {
    uint32_t matrix;     /* 0: A, 1: B */
    uint32_t constraint; /* row, < domain_size */
    uint32_t signal;     /* column, < n_vars */
    /* The raw snarkjs value: coefficient·R² mod r, held as a field
     * element's representation (so it is coefficient·R as a value). Then
     * F_mul(value, w) with w in canonical (non-Montgomery) form is exactly
     * coefficient·w in Montgomery form: synthesis multiplies the witness
     * as it comes from the .wtns file, with no conversion pass. */
    G16_FRT value;
} G16_T(coef_t);

/* A proving key in snarkjs's layout. Every pointer refers to storage owned by
 * whoever built the key (the zkey loader); the key only borrows it. */
typedef struct {
    uint32_t n_vars;      /* witness length, counting the constant 1 at index 0 */
    uint32_t n_public;    /* public signals (outputs, then public inputs) */
    uint32_t domain_size; /* n = 2^log_domain >= constraints + n_public + 1 */
    uint32_t log_domain;
    G16_G1A alpha1, beta1, delta1;
    G16_G2A beta2, gamma2, delta2;
    const G16_G1A *ic;               /* n_public + 1 */
    const G16_T(coef_t) *coefs;      /* n_coefs entries of A and B */
    size_t n_coefs;
    const G16_G1A *a;                /* A_j(tau), per variable or per a_cols entry */
    const G16_G1A *b1;               /* B_j(tau) in G1, per variable or per b_cols entry */
    const G16_G2A *b2;               /* B_j(tau) in G2, likewise */
    /* The columns of a (and of b1 and b2) when the key keeps only the
     * variables whose column of A (of B) has an entry, as bellperson's
     * .params files do: point i is variable a_cols[i] (ascending, < n_vars),
     * a_len points in all. NULL: one point per variable, the identity where
     * a column is empty (zkeys). A 32 GiB PoRep partition uses 33 M of its
     * 130 M variables in B, so the sparse form saves 28 GB of G1 and G2
     * points in host and device memory; the MSMs gather the witness values
     * of the listed variables instead. */
    const uint32_t *a_cols;
    size_t a_len;
    const uint32_t *b_cols;
    size_t b_len;
    const G16_G1A *c;                /* n_vars - n_public - 1: the L query of the private signals */
    /* The H query, in one of two bases (groth16.h: H):
     *   h_coefficients = 0: domain_size points matched to the evaluations
     *     on snarkjs's coset, with 1/Z folded in (zkeys);
     *   h_coefficients = 1: domain_size - 1 points, [tau^i Z(tau)/delta],
     *     matched to h's coefficients (bellperson's .params files). */
    const G16_G1A *h;
    int h_coefficients;
} G16_T(pk_t);

/* The points of a and of b1 (and b2): per variable, or as many as are listed. */
static inline size_t G16_FN(a_count)(const G16_T(pk_t) *pk) {
    return pk->a_cols ? pk->a_len : pk->n_vars;
}
static inline size_t G16_FN(b_count)(const G16_T(pk_t) *pk) {
    return pk->b_cols ? pk->b_len : pk->n_vars;
}

/* The points of pk's H query. */
static inline size_t G16_FN(h_len)(const G16_T(pk_t) *pk) {
    return (size_t)pk->domain_size - (pk->h_coefficients ? 1 : 0);
}

/* A verification key. ic borrows storage like pk_t's pointers. */
typedef struct {
    uint32_t n_public;
    G16_G1A alpha1;
    G16_G2A beta2, gamma2, delta2;
    const G16_G1A *ic; /* n_public + 1 */
} G16_T(vk_t);

typedef struct {
    G16_G1A a;
    G16_G2A b;
    G16_G1A c;
} G16_T(proof_t);

/* The work of prove_start that prove_finalize completes. It owns the witness
 * and every partial result; it borrows the key, which must outlive it. */
typedef struct G16_T(pending_s) G16_T(pending_t);

/* Synthesis, the H polynomial and the four G1 MSMs.
 *
 * On input: pk is a validated key; witness holds pk->n_vars canonical
 * scalars (4 limbs each, each < r) and its ownership moves to the pending
 * handle (witness->ptr is NULL on return, whatever the status).
 * On output: ZKPIPE_OK and *out a handle for prove_finalize; or an error
 * (ERR_SIZE_MISMATCH for a witness of the wrong length, ERR_NO_MEMORY,
 * ERR_CANCELLED) with *out NULL, diag saying why, and nothing leaked. */
ZKP_WARN_UNUSED zkpipe_status G16_FN(prove_start)(G16_T(pending_t) **out, const G16_T(pk_t) *pk,
                                                  zkp_buffer *witness,
                                                  const zkp_g16_prove_opts *opts, zkp_diag *diag);

/* prove_start with a, b and c computed by the caller (the engine's
 * synthesis stage, circuit/): abc holds 3·domain_size elements in
 * Montgomery form, a then b then c, c_i = a_i·b_i. Its ownership moves to
 * the prover like the witness's, and it is freed as soon as the H
 * polynomial no longer needs it, before the MSMs. An empty abc (ptr NULL,
 * bytes 0) is taken when opts->rkey holds the key's circuit on its device
 * (backend.h: zkp_g16_rkey_load_with_circuit): a, b and c are made there from
 * the witness. */
ZKP_WARN_UNUSED zkpipe_status G16_FN(prove_start_abc)(G16_T(pending_t) **out, const G16_T(pk_t) *pk,
                                                      zkp_buffer *witness, zkp_buffer *abc,
                                                      const zkp_g16_prove_opts *opts,
                                                      zkp_diag *diag);

/* The MSM scratch both halves take from opts->alloc on the CPU, in bytes,
 * for pk on nthreads threads: the larger of what the G1 MSMs and the G2 MSM
 * need, plus room for the gathered witness values of a sparse key's
 * longest column list. One size for both means one size class, so a pool
 * recycles the region prove_start gives back for prove_finalize instead of
 * exchanging two regions on every proof. */
size_t G16_FN(msm_scratch_bytes)(const G16_T(pk_t) *pk, unsigned nthreads);

/* The scratch prove_finalize takes after a prove_start on a device (a
 * GPU), which needs none in host memory: the B2 MSM's alone, for a
 * backend that left it to the CPU (0 is taken when it did not). */
size_t G16_FN(b2_scratch_bytes)(const G16_T(pk_t) *pk, unsigned nthreads);

/* The G2 MSM, fresh r and s from the OS CSPRNG, and the assembly. Always
 * consumes p (freed on every path). timings (optional) receives the time
 * of every stage of the proof. */
ZKP_WARN_UNUSED zkpipe_status G16_FN(prove_finalize)(G16_T(proof_t) *proof, G16_T(pending_t) *p,
                                                     zkp_g16_timings *timings, zkp_diag *diag);

/* Frees a handle without finishing it (cancellation, errors). NULL is a no-op. */
void G16_FN(pending_free)(G16_T(pending_t) *p);

/* Checks the proof against the key and n_pub public inputs (canonical
 * scalars, 4 limbs each). ZKPIPE_OK when it verifies; ERR_PROOF_INVALID when
 * the pairing equation fails; ERR_SIZE_MISMATCH for the wrong input count;
 * ERR_NON_CANONICAL for an input >= r; ERR_NOT_ON_CURVE or
 * ERR_NOT_IN_SUBGROUP for a bad proof point. */
ZKP_WARN_UNUSED zkpipe_status G16_FN(verify)(const G16_T(vk_t) *vk, const uint64_t *pub, size_t n_pub,
                                             const G16_T(proof_t) *proof, zkp_diag *diag);

/* The verification key of a proving key (borrowing its ic). */
void G16_FN(pk_vk)(G16_T(vk_t) *vk, const G16_T(pk_t) *pk);

#undef G16_FN
#undef G16_T
#undef G16_G1A
#undef G16_G2A
#undef G16_FRT
