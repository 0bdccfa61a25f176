/* zkpipe's prover key for a circuit recorded through the CSR back end
 * (gadgets/csr.h) and bellperson's parameters of that circuit: Filecoin's
 * published .params files, or development ones (setup/dev_params.h).
 *
 * A .params file holds points only; the circuit supplies the rest:
 *   - the coefficients, from the CSR's rows. bellperson interpolates over
 *     the domain of its 7-family root w7, zkpipe's prover over the 5-family
 *     root w5 = w7^k (groth16.h). Row i is placed at position i·k^-1 mod n,
 *     so that w5^(position) = w7^i and the prover's polynomials are
 *     bellperson's; k is odd (both roots are primitive), so this is a
 *     permutation of the domain.
 *   - the columns the a, b_g1 and b_g2 sections skip: bellperson's
 *     generator leaves out the points of empty columns, so those sections
 *     are as long as the A and B column densities. The key keeps them so,
 *     with the list of the columns they hold (groth16.h: a_cols, b_cols),
 *     and the MSMs gather the witness values of those columns; at 32 GiB
 *     that is 33 M points of B where the circuit has 130 M variables.
 *   - the H query stays in bellperson's coefficient basis (h_coefficients:
 *     the prover interpolates h back from its coset, groth16.h).
 *
 * Before a key is made, the file's section lengths are checked against the
 * circuit (zkp_bp_params_fit): a file made for another circuit is refused
 * with the lengths that differ, before any point is decoded. The check
 * needs only counts, so it runs on the count-only back end for a 32 GiB
 * partition. */
#ifndef ZKP_SETUP_BP_KEY_H
#define ZKP_SETUP_BP_KEY_H

#include <stddef.h>
#include <stdint.h>

#include "formats/bellperson.h"
#include "gadgets/csr.h"
#include "groth16/bls12_381_groth16.h"
#include "util/alloc.h"
#include "util/diag.h"

/* The smallest log2 of a domain holding rows rows. */
unsigned zkp_bp_log_domain(uint64_t rows);

/* The section lengths a .params file of the finished system r (matrices or
 * counts) has: the verifying key's ic and the five sections, in
 * zkp_bp_section order. ZKPIPE_ERR_INVALID_ARGUMENT when r is not finished
 * or has neither matrices nor counts. */
typedef struct {
    uint64_t n_ic;
    uint64_t sec[ZKP_BP_SECTION_COUNT];
} zkp_bp_shape;
ZKP_WARN_UNUSED zkpipe_status zkp_bp_shape_of(zkp_bp_shape *out, const zkp_cs_csr *r,
                                              zkp_diag *diag);

/* ZKPIPE_OK when the parameters p have the lengths of r's; otherwise
 * ZKPIPE_ERR_SIZE_MISMATCH and a message naming p's file, each part that
 * differs, and both lengths. */
ZKP_WARN_UNUSED zkpipe_status zkp_bp_params_fit(const zkp_bp_params *p, const zkp_cs_csr *r,
                                                zkp_diag *diag);

/* r's A and B coefficients as a Groth16 key's list (zkp_cs_csr_key_coefs),
 * each row moved to its position in the prover's domain of 2^log_n (see
 * above). out NULL only counts. Returns the count, 0 when r has no
 * matrices or log_n is too small for its rows. */
size_t zkp_bp_key_coefs(const zkp_cs_csr *r, unsigned log_n, bls12_381_g16_coef_t *out);

typedef struct {
    bls12_381_g16_pk_t pk; /* borrows the verifying key, the sections and the arrays below */
    bls12_381_g16_coef_t *coefs;
    /* The columns the a and the b_g1/b_g2 sections hold, in the key's
     * pk.a_cols and pk.b_cols (NULL where a section was dense already). */
    uint32_t *a_cols, *b_cols;
    size_t n_cols;
    const zkp_allocator *alloc;
} zkp_bp_key;

/* The key of the finished system r (with matrices) for the verifying key
 * vk and the five sections sec[s] of count[s] points (zkp_bp_section order;
 * the caller keeps them alive as long as the key: every section is
 * borrowed). The a, b_g1 and b_g2 sections are taken either as bellperson
 * writes them (as long as the density, with a column list from alloc,
 * ZKP_MEM_KEY) or dense (one point per variable). On failure *k is left
 * empty and:
 *   ZKPIPE_ERR_INVALID_ARGUMENT  r is not finished or has no matrices
 *   ZKPIPE_ERR_SIZE_MISMATCH     a length is not r's (the message says which)
 *   ZKPIPE_ERR_OUT_OF_RANGE      r has more rows or variables than a key numbers
 *   ZKPIPE_ERR_NO_MEMORY */
ZKP_WARN_UNUSED zkpipe_status zkp_bp_key_init(zkp_bp_key *k, const zkp_cs_csr *r,
                                              const zkp_bp_vk *vk,
                                              const void *const sec[ZKP_BP_SECTION_COUNT],
                                              const size_t count[ZKP_BP_SECTION_COUNT],
                                              const zkp_allocator *alloc, zkp_diag *diag);

/* zkp_bp_key_init in two steps, for a caller that wants r's matrices gone
 * before the file's sections are decoded (filecoin/c2.h: the matrices of a
 * PoRep partition are hundreds of MB to GB):
 *   1. zkp_bp_key_circuit_init: what the key takes from r (its domain and
 *      shape, the columns A and B use, the coefficients, from alloc under
 *      ZKP_MEM_KEY); r may go then. INVALID_ARGUMENT, OUT_OF_RANGE or
 *      NO_MEMORY as zkp_bp_key_init; on failure *c is left empty.
 *   2. zkp_bp_key_init_from: the key of c and the sections, as
 *      zkp_bp_key_init (SIZE_MISMATCH, NO_MEMORY); on success the key takes
 *      c's coefficients. Free c after either way. */
typedef struct {
    unsigned log_n;
    size_t n_cols, n_in, n_aux;
    uint64_t *used_a, *used_b; /* one bit per column with an entry in A, in B */
    size_t n_used_a, n_used_b;
    bls12_381_g16_coef_t *coefs;
    size_t n_coefs;
    const zkp_allocator *alloc;
} zkp_bp_key_circuit;

ZKP_WARN_UNUSED zkpipe_status zkp_bp_key_circuit_init(zkp_bp_key_circuit *c, const zkp_cs_csr *r,
                                                      const zkp_allocator *alloc,
                                                      zkp_diag *diag);
ZKP_WARN_UNUSED zkpipe_status zkp_bp_key_init_from(zkp_bp_key *k, zkp_bp_key_circuit *c,
                                                   const zkp_bp_vk *vk,
                                                   const void *const sec[ZKP_BP_SECTION_COUNT],
                                                   const size_t count[ZKP_BP_SECTION_COUNT],
                                                   const zkp_allocator *alloc, zkp_diag *diag);
void zkp_bp_key_circuit_free(zkp_bp_key_circuit *c);

/* Frees what the key made; *k is left empty. Accepts an empty one. */
void zkp_bp_key_free(zkp_bp_key *k);

/* Frees the key's coefficients once a compiled circuit (circuit/) holds
 * them: the engine synthesizes through that, and at 32 GiB the list takes
 * 21 GB. prove_start, which synthesizes from the list, cannot take the key
 * afterwards (prove_start_abc can). */
void zkp_bp_key_drop_coefs(zkp_bp_key *k);

#endif
