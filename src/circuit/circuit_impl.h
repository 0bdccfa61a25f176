/* Generic pre-compiled circuit over one curve: types and declarations.
 * Instantiated by each curve's header (bn254_circuit.h,
 * bls12_381_circuit.h) with
 *
 *     #define CIR_CURVE bn254   (prefix; the Groth16 key type C_g16_pk_t)
 *     #define CIR_FR bn254_fr   (the scalar field)
 *     #include "circuit/circuit_impl.h"
 *
 * and in one .c file per curve, circuit_body.h after it. See circuit.h. */
#include <stddef.h>
#include <stdint.h>

#include "util/alloc.h"
#include "util/diag.h"

#define CIR_FN(op) ZKP_CAT(ZKP_CAT(CIR_CURVE, _csr_), op)
#define CIR_T ZKP_CAT(CIR_CURVE, _csr_t)
#define CIR_PK ZKP_CAT(CIR_CURVE, _g16_pk_t)
#define CIR_FRT ZKP_CAT(CIR_FR, _t)

#ifndef ZKP_CIRCUIT_DICT_MAX
/* Distinct coefficient values up to which entries name their value by a
 * 16-bit index into a table (CIR_T's dict). */
#define ZKP_CIRCUIT_DICT_MAX 65536u
#endif

/* A and B in compressed sparse rows. Row i of matrix m holds the entries
 * row_ptr[m][i] .. row_ptr[m][i + 1] - 1 of col[m] and of the values.
 * Values keep the key's raw form (coefficient·R²), so that one Montgomery
 * product with a canonical witness value gives the product in Montgomery
 * form, as in the prover's own synthesis.
 *
 * Circuits use few distinct coefficients: ±1, powers of two for packing,
 * hash constants. With at most ZKP_CIRCUIT_DICT_MAX of them, entry k's
 * value is dict[vidx[m][k]] and val is NULL: 6 bytes an entry instead of
 * 36, which at 32 GiB (440 M entries) is 2.6 GB instead of 15.8, and what
 * synthesis streams through per partition shrinks likewise. Otherwise
 * val[m][k] holds it and vidx and dict are NULL.
 *
 * Everything lives in one allocation (category csr) of CIR_FN(bytes)
 * bytes. */
typedef struct {
    uint32_t n_rows; /* the key's domain size */
    uint32_t n_cols; /* the key's variable count */
    size_t nnz[2];
    uint64_t *row_ptr[2];
    uint32_t *col[2];
    CIR_FRT *val[2];
    uint16_t *vidx[2];
    CIR_FRT *dict;
    size_t n_dict;
    /* Bit j of density[m] is set when column j of matrix m has an entry: the
     * variables whose A (or B) query matters. A key property, so it is
     * computed once here rather than per witness. */
    uint64_t *density[2];
    void *mem;
    size_t mem_bytes;
    const zkp_allocator *alloc;
} CIR_T;

/* Bytes CIR_FN(build) allocates for pk, so the caller can reserve them
 * first (a pass over the coefficients to count the distinct values); 0 if
 * pk is too large to compile. */
size_t CIR_FN(bytes)(const CIR_PK *pk);

/* Compiles the key's coefficient list (counting sort by row, stable, so the
 * entries of a row keep the key's order). ZKPIPE_ERR_NO_MEMORY if the
 * allocator refuses. */
ZKP_WARN_UNUSED zkpipe_status CIR_FN(build)(CIR_T *csr, const CIR_PK *pk,
                                            const zkp_allocator *alloc, zkp_diag *diag);

void CIR_FN(free)(CIR_T *csr);

/* a = A·w, b = B·w and c = a∘b for rows [lo, hi), written to abc (a at
 * abc[i], b at abc[n_rows + i], c at abc[2 n_rows + i]). w holds n_cols
 * canonical scalars (4 limbs each). Rows are independent, so any split of
 * the rows over threads gives the same result. */
void CIR_FN(synthesize_rows)(const CIR_T *csr, const uint64_t *w, CIR_FRT *abc, size_t lo, size_t hi);

/* All rows on nthreads threads (util/parallel.h). */
void CIR_FN(synthesize)(const CIR_T *csr, const uint64_t *w, CIR_FRT *abc, unsigned nthreads);

/* 1 if column j of matrix m (0: A, 1: B) has an entry. */
static inline int CIR_FN(column_used)(const CIR_T *csr, unsigned m, uint32_t j) {
    return (int)((csr->density[m][j / 64] >> (j % 64)) & 1);
}

#undef CIR_FN
#undef CIR_T
#undef CIR_PK
#undef CIR_FRT
