/* INSECURE development parameters: a Groth16 setup, done in one process
 * from toxic waste that this process knows, for a circuit recorded through
 * the CSR back end (gadgets/csr.h). Anyone who has the toxic waste (the
 * seed, or this process's memory) can forge proofs, so these keys are for
 * tests and development only, never for a real network. Every message that
 * names such a key says INSECURE; bellperson's files have no field in which
 * to say it, so the names the command line gives them say it instead,
 * except the Filecoin names, which must be exact for Filecoin's tools to
 * find them.
 *
 * The setup is bellperson's generator's (groth16/generator.rs), so the
 * files are what bellperson would have written for the same circuit and
 * toxic waste (with the standard generators of G1 and G2, where bellperson
 * draws random ones):
 *   - the domain is the smallest power of two n >= the rows, input
 *     constraints included (zkp_cs_csr_finish appends them), and its root
 *     of unity is bellperson's: the 7-family of BLS12-381's Fr;
 *   - u_j, v_j, w_j, the A, B and C columns of variable j at tau, are
 *     sum_i coefficient_i · L_i(tau) over the Lagrange basis of that domain;
 *   - a_j = [u_j]G1, b_g1_j = [v_j]G1, b_g2_j = [v_j]G2, dense over the
 *     variables (inputs, then aux), the identity where the column is empty:
 *     the writer leaves those out, so the a, b_g1 and b_g2 sections are as
 *     long as the CSR's A and B column densities;
 *   - ic_j = [(beta u_j + alpha v_j + w_j)/gamma] for the inputs, l_j the
 *     same over delta for the aux variables; an aux variable whose l is the
 *     identity (it appears in no row) is refused, as bellperson refuses it
 *     (UnconstrainedVariable);
 *   - h_i = [tau^i · (tau^n - 1)/delta] for i < n - 1, the coefficient
 *     basis.
 *
 * With prover_key set, it also makes a key zkpipe's own prover takes in
 * snarkjs's form (groth16.h), sharing every point but H: its coefficients
 * are placed as setup/bp_key.h places them, and its H query is matched to
 * the coset the prover evaluates on, made from the same tau. So a proof
 * from that key verifies with the written .vk, independently of the
 * coefficient-basis key that bp_key.h makes from the written sections.
 *
 * Cost: one fixed-base multiplication per point (msm/fixed_base_impl.h,
 * batch-affine, on nthreads threads, or for G1 on a GPU when options.gpu
 * is set): n + 3·(variables) G1 points (n more with prover_key) and
 * (variables) G2 points, plus one pass over each matrix's entries (one
 * thread a matrix).
 * Big arrays come from the caller's allocator: the points as ZKP_MEM_KEY,
 * the Lagrange values, the columns and the tables as ZKP_MEM_SCRATCH. */
#ifndef ZKP_SETUP_DEV_PARAMS_H
#define ZKP_SETUP_DEV_PARAMS_H

#include <stddef.h>
#include <stdint.h>

#include "formats/bellperson.h"
#include "gadgets/csr.h"
#include "gpu/gpu.h"
#include "groth16/bls12_381_groth16.h"
#include "util/alloc.h"
#include "util/diag.h"

/* Progress of a long generation: done of total points so far. Called from
 * one thread at a time, at most about a hundred times. */
typedef void (*zkp_dev_params_progress_fn)(void *ctx, uint64_t done, uint64_t total);

typedef struct {
    /* The toxic waste: ChaCha20's keystream under this 32-byte key (the
     * same seed gives the same files: tests), or NULL for a key drawn from
     * the OS CSPRNG and forgotten (the command line's default). */
    const uint8_t *seed;
    unsigned nthreads;          /* 0 = every online CPU */
    const zkp_allocator *alloc; /* NULL = the default allocator */
    int prover_key;             /* also fill pk (above) */
    zkp_dev_params_progress_fn progress; /* may be NULL */
    void *progress_ctx;
    /* A GPU context for the G1 points (gpu/gpu.h: the same table, the
     * same points bit for bit), or NULL: every point on the CPU. The G2
     * points stay on the CPU either way. */
    zkp_gpu *gpu;
} zkp_dev_params_options;

typedef struct {
    unsigned log_domain;
    uint32_t domain_size;
    uint64_t num_inputs, num_aux; /* inputs count ONE */
    /* bellperson's verifying key; its ic (num_inputs points) is owned. */
    zkp_bp_vk vk;
    bls12_381_g1_affine_t *h; /* domain_size - 1: bellperson's basis */
    bls12_381_g1_affine_t *l; /* num_aux */
    /* num_inputs + num_aux each, the identity where the column is empty */
    bls12_381_g1_affine_t *a, *b_g1;
    bls12_381_g2_affine_t *b_g2;
    /* With prover_key: zkpipe's key, borrowing the arrays above, and its own
     * coefficients and coset H query (domain_size). */
    bls12_381_g16_pk_t pk;
    bls12_381_g16_coef_t *coefs;
    bls12_381_g1_affine_t *h_coset;
    double seconds; /* the generation's wall time */
    const zkp_allocator *alloc;
} zkp_dev_params;

/* Makes the parameters of the finished system r (zkp_cs_csr_finish, with
 * ZKP_CSR_MATRICES).
 * On output: ZKPIPE_OK and *out filled, to be freed with
 * zkp_dev_params_free; or *out left empty and
 *   ZKPIPE_ERR_INVALID_ARGUMENT  r is not finished or has no matrices, or an
 *                                aux variable is unconstrained (named)
 *   ZKPIPE_ERR_OUT_OF_RANGE      more than 2^31 rows or 2^32 - 1 variables
 *   ZKPIPE_ERR_RANDOM            the OS CSPRNG failed
 *   ZKPIPE_ERR_NO_MEMORY */
ZKP_WARN_UNUSED zkpipe_status zkp_dev_params_generate(zkp_dev_params *out, const zkp_cs_csr *r,
                                                      const zkp_dev_params_options *opt,
                                                      zkp_diag *diag);

/* Frees what generate allocated; *p is left empty. Accepts an empty one. */
void zkp_dev_params_free(zkp_dev_params *p);

/* What to write (formats/bellperson.h), borrowing p. */
void zkp_dev_params_src(zkp_bp_params_src *src, const zkp_dev_params *p);

/* What zkp_dev_params_make_files wrote. */
typedef struct {
    unsigned log_domain;
    uint64_t points[ZKP_BP_SECTION_COUNT]; /* per section, as written */
    double seconds;                        /* generation and writing */
} zkp_dev_params_made;

/* Makes the parameters of r as zkp_dev_params_generate does (the same seed
 * gives the same points) and writes them as bellperson's .params and .vk,
 * both or neither (util/fileio.h: each to a temporary beside it, then
 * renamed into place together), without holding the points: each section
 * is made a chunk at a time, serialized where it is made and written before
 * the next chunk, and a, b_g1 and b_g2 are made for the nonzero columns
 * only (the others would be identities, which the file leaves out). So the
 * memory it takes beside r's matrices is the three columns at tau (32 bytes
 * each a variable), the Lagrange values while the columns are summed (32
 * bytes a row), the fixed-base tables and one chunk: about 17 GB at the
 * peak for a 32 GiB sector's partition, whose file is about 47 GB. made
 * (may be NULL)
 * receives the counts and the time. The statuses of generate, and
 *   ZKPIPE_ERR_IO           an output cannot be written (named)
 *   ZKPIPE_ERR_UNSUPPORTED  an output is a device or FIFO
 *   ZKPIPE_ERR_INVALID_ARGUMENT  the two paths are one file */
ZKP_WARN_UNUSED zkpipe_status zkp_dev_params_make_files(const zkp_cs_csr *r,
                                                        const zkp_dev_params_options *opt,
                                                        const char *params_path,
                                                        const char *vk_path,
                                                        zkp_dev_params_made *made,
                                                        zkp_diag *diag);

#endif
