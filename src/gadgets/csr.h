/* A synthesized circuit in the engine's form: the R1CS as compressed sparse
 * rows over one column space, and the witness vector that goes with it.
 *
 * The back end behind zkp_cs_csr records, per constraint, the rows of A, B
 * and C the way bellperson's prover sees a constraint, and the values of
 * every variable. Its modes (zkp_cs_csr_init's what):
 *   - ZKP_CSR_MATRICES | ZKP_CSR_WITNESS: shape and values, to compile a
 *     circuit once and to prove it;
 *   - ZKP_CSR_MATRICES: the shape alone (pre-compiling a circuit shape);
 *   - ZKP_CSR_WITNESS: the values alone, no matrices (proving once the
 *     shape is known: the rows are then not needed again);
 *   - ZKP_CSR_COUNTS: neither, only each matrix's non-zero count and the A
 *     and B column densities, in memory of one bit per variable (a 32 GiB
 *     partition's figures on a small machine).
 *
 * A row is stored as bellpepper's LinearCombination holds it when the
 * prover evaluates it: the terms of one variable merged into one (their
 * coefficients added), inputs before aux variables, each kind in index
 * order, and the terms whose coefficient is zero left out (the prover's
 * eval skips them and counts no density for them). So a row's entries, and
 * the matrices' non-zero counts and column densities, are bellperson's
 * prover's and cuzk's pre-compiled circuit's.
 *
 * zkp_cs_csr_finish closes the system as bellperson's prover does after
 * synthesis (FACTS 1.4): one constraint per input i, A = input_i, B = C = 0,
 * appended after the circuit's own; and only then numbers the columns,
 * input i as column i and aux variable j as column num_inputs + j. Rows are
 * recorded with the variable's kind and index and renumbered at finish,
 * because inputs are allocated between constraints (pack_into_inputs) and
 * num_inputs is not known until synthesis ends. The witness is the column
 * vector: inputs (ONE first) then aux, which is also a snarkjs witness for
 * the key coefficients below (n_public = num_inputs - 1). */
#ifndef ZKP_GADGETS_CSR_H
#define ZKP_GADGETS_CSR_H

#include <stddef.h>
#include <stdint.h>

#include "gadgets/cs.h"
#include "groth16/bls12_381_groth16.h"
#include "util/alloc.h"

enum { ZKP_CSR_MATRICES = 1, ZKP_CSR_WITNESS = 2, ZKP_CSR_COUNTS = 4 };
enum { ZKP_CSR_A = 0, ZKP_CSR_B = 1, ZKP_CSR_C = 2 };

/* One matrix. Row i holds entries row_ptr[i] .. row_ptr[i + 1] - 1 of col
 * and val; values are in Montgomery form. Before finish, col holds
 * zkp_vars (kind and index); after, column numbers. */
typedef struct {
    uint64_t *row_ptr; /* rows + 1 */
    uint32_t *col;
    zkp_fr *val;
    size_t nnz;
    size_t rows_cap, cap;
} zkp_csr_matrix;

typedef struct {
    zkp_cs cs;
    unsigned what;      /* ZKP_CSR_* */
    zkp_csr_matrix m[3]; /* A, B, C */
    zkp_fr *inputs, *aux; /* Montgomery form */
    size_t inputs_cap, aux_cap;
    zkp_lc_term *scratch; /* one combination, being merged */
    size_t scratch_cap;
    /* ZKP_CSR_COUNTS: entries per matrix, and one bit per input and per aux
     * variable that has an entry in A (used[0]) or B (used[1]) */
    uint64_t count[3];
    uint64_t *used_in[2], *used_aux[2];
    size_t used_in_words[2], used_aux_words[2];
    int finished;
    uint64_t n_rows; /* after finish: the circuit's constraints + num_inputs */
    uint32_t n_cols; /* after finish: num_inputs + num_aux */
    /* zkp_cs_csr_witness_into: the caller's witness vector and its shape */
    bls12_381_fr_t *into;
    uint32_t into_inputs, into_aux;
    /* zkp_cs_csr_matrices_from: where the matrices come from (NULL: the C
     * library's heap) */
    const zkp_allocator *alloc;
    zkp_mem_category cat;
    /* A slice (zkp_cs_csr_slice): its matrices are another's, written in
     * a reserved range, and never grow. */
    int slice;
} zkp_cs_csr;

/* The zkp_cs inside points back at r: init it where it will stay. */
void zkp_cs_csr_init(zkp_cs_csr *r, unsigned what);

/* For the witness-only mode, before synthesis: the values go straight into
 * the caller's vector w of n_inputs + n_aux elements (inputs, ONE first,
 * then aux: the prover's witness), which must outlive r, instead of arrays
 * that grow; finish then checks the counts and leaves w in canonical form
 * (4 limbs each), the witness prove_start takes, with no copy. A variable
 * past either count fails synthesis with ZKPIPE_ERR_OUT_OF_RANGE; other
 * counts at finish are ZKPIPE_ERR_SIZE_MISMATCH. Returns
 * ZKPIPE_ERR_INVALID_ARGUMENT (nothing changed) for another mode or after
 * a variable was allocated. So a prover that knows its key's shape puts the
 * witness in memory it took from its budget, once. */
ZKP_WARN_UNUSED zkpipe_status zkp_cs_csr_witness_into(zkp_cs_csr *r, uint64_t *w,
                                                      uint32_t n_inputs, uint32_t n_aux);
/* For the matrices mode, before synthesis: the matrices come from alloc
 * under cat instead of the C library's heap, sized for rows rows (with the
 * input constraints) and nnz[m] entries of matrix m, which a count of the
 * same system gives (n_rows and zkp_cs_csr_nnz after a ZKP_CSR_COUNTS
 * finish). So a caller whose allocator charges a budget pays for the
 * matrices before they fill, and nothing is copied while they grow. A
 * system larger than announced still grows, through alloc (a copy, then
 * the old buffer freed). ZKPIPE_ERR_NO_MEMORY (nothing kept), or
 * ZKPIPE_ERR_INVALID_ARGUMENT without matrices or once a constraint is
 * recorded. */
ZKP_WARN_UNUSED zkpipe_status zkp_cs_csr_matrices_from(zkp_cs_csr *r, const zkp_allocator *alloc,
                                                       zkp_mem_category cat, uint64_t rows,
                                                       const uint64_t nnz[3]);
void zkp_cs_csr_free(zkp_cs_csr *r);

/* Appends the input constraints and numbers the columns. Returns the
 * system's first failure if synthesis failed, ZKPIPE_ERR_OUT_OF_RANGE if
 * the columns do not fit 32 bits, ZKPIPE_ERR_INVALID_ARGUMENT if called
 * twice. After it no more variables or constraints may be added. */
ZKP_WARN_UNUSED zkpipe_status zkp_cs_csr_finish(zkp_cs_csr *r);

/* After finish, with matrices and witness: 1 when every row holds
 * ((A w)(B w) = C w); otherwise 0 and *first_bad the first row that does
 * not (0, and 0 returned, when the system was not finished or lacks
 * either). */
int zkp_cs_csr_check(const zkp_cs_csr *r, uint64_t *first_bad);

/* After finish, with the witness (kept by r, not written into a caller's
 * vector): the n_cols values in canonical form (4 limbs each, as the
 * prover takes them) into out (nothing written otherwise). */
void zkp_cs_csr_witness(const zkp_cs_csr *r, uint64_t *out);

/* After finish, with matrices: the entries of A and B as a Groth16 key's
 * coefficient list (groth16_impl.h: values coefficient·R², A's rows then
 * B's); out NULL only counts. Returns the count, nnz(A) + nnz(B); 0 without
 * matrices, before finish, or for more rows than a key can number (2^32). */
size_t zkp_cs_csr_key_coefs(const zkp_cs_csr *r, bls12_381_g16_coef_t *out);

/* Slices: the same system recorded on several threads, each part of it
 * into a back end of its own. A part is a run of constraints whose
 * variables are numbered as they would be after the parts before it (the
 * synthesis sets its counters there, as zkp_fil_porep_circuit_mt does).
 *
 * With matrices (and no witness), the parts go straight into r's arrays:
 * zkp_cs_csr_reserve makes room for rows rows and nnz entries in all, then
 * zkp_cs_csr_slice makes a back end writing rows [row0, row_end) with the
 * entries [nnz0[m], nnz_end[m]) of each matrix, which must fill that range
 * exactly (its arrays never grow: an entry past it fails the slice's
 * system with ZKPIPE_ERR_NO_MEMORY). With counts (and no witness), a slice
 * counts apart. zkp_cs_csr_slice_join then checks the slice and adds it
 * to r: ZKPIPE_ERR_INVALID_ARGUMENT when its matrices did not fill their
 * range, ZKPIPE_ERR_NO_MEMORY when a count's bitmaps do not fit. Slices of
 * disjoint ranges may be recorded at once; the joins are made one at a
 * time, in any order, after r's own constraints of those rows, and before
 * r records more. Either way the slice is freed; a slice that
 * zkp_cs_csr_slice refused (left zeroed) joins as ZKPIPE_ERR_INVALID_ARGUMENT. */
ZKP_WARN_UNUSED zkpipe_status zkp_cs_csr_reserve(zkp_cs_csr *r, uint64_t rows,
                                                 const uint64_t nnz[3]);
ZKP_WARN_UNUSED zkpipe_status zkp_cs_csr_slice(zkp_cs_csr *slice, const zkp_cs_csr *r,
                                               uint64_t row0, uint64_t row_end,
                                               const uint64_t nnz0[3], const uint64_t nnz_end[3]);
ZKP_WARN_UNUSED zkpipe_status zkp_cs_csr_slice_join(zkp_cs_csr *r, zkp_cs_csr *slice);

/* After finish, with matrices or counts: the entries of matrix m. */
uint64_t zkp_cs_csr_nnz(const zkp_cs_csr *r, int m);

/* After finish, with matrices or counts: how many columns of A and of B have an entry,
 * among the inputs and among the aux variables (the density bitmaps of
 * bellperson's prover: its A-aux, B-input and B-aux densities, and the
 * A-input density, which the input constraints make full). */
typedef struct {
    uint64_t a_input, a_aux, b_input, b_aux;
} zkp_csr_density;
ZKP_WARN_UNUSED zkpipe_status zkp_cs_csr_density(const zkp_cs_csr *r, zkp_csr_density *out);

#endif
