/* Constraint systems (.r1cs), as circom writes them.
 *
 *     binfile magic "r1cs", version 1
 *     section 1 (header): u32 n8, prime (n8 bytes LE), u32 nWires,
 *         u32 nPubOut, u32 nPubIn, u32 nPrvIn, u64 nLabels, u32 nConstraints
 *     section 2 (constraints): nConstraints × (A, B, C), each linear
 *         combination u32 nTerms then nTerms × (u32 wireId, n8-byte LE
 *         canonical coefficient)
 *     section 3 (wire-to-label map): nWires × u64
 *     sections 4 and 5: custom gates (PLONK only); tolerated, not read
 *
 * Accepted: n8 = 32 and the prime equal to r of BN254 or BLS12-381
 * (ZKPIPE_ERR_WRONG_CURVE), a header of exactly n8 + 32 bytes, a constraint
 * section that the walk covers exactly (every term inside it; the walk ends
 * at its last byte: ZKPIPE_ERR_SECTION_SIZE otherwise), every wireId <
 * nWires (ZKPIPE_ERR_OUT_OF_RANGE), every coefficient < r
 * (ZKPIPE_ERR_NON_CANONICAL), a map of exactly nWires × 8 bytes, and
 * 1 + nPubOut + nPubIn + nPrvIn <= nWires (ZKPIPE_ERR_OUT_OF_RANGE).
 *
 * The constraints are not copied: the parsed value views section 2 where it
 * lies (the caller's bytes, or the mapping zkp_r1cs_load keeps), and the
 * iterator below decodes it on the fly for a later pass such as a CSR
 * builder. Every iteration is safe because the parse walked the same bytes. */
#ifndef ZKP_FORMATS_R1CS_H
#define ZKP_FORMATS_R1CS_H

#include <stddef.h>
#include <stdint.h>

#include "formats/binfile.h"
#include "util/diag.h"
#include "util/mapped_file.h"
#include "zkpipe/curve.h"

/* A term is a u32 wire index then a 32-byte coefficient. */
#define ZKP_R1CS_COEF_BYTES 32
#define ZKP_R1CS_TERM_BYTES (4 + ZKP_R1CS_COEF_BYTES)

enum { ZKP_R1CS_A = 0, ZKP_R1CS_B = 1, ZKP_R1CS_C = 2 };

typedef struct zkp_r1cs {
    zkpipe_curve curve;
    uint32_t n_wires; /* including wire 0, the constant 1 */
    uint32_t n_pub_out, n_pub_in, n_prv_in;
    uint64_t n_labels;
    uint32_t n_constraints;
    uint64_t n_terms[3];        /* terms of A, B and C over all constraints */
    const uint8_t *constraints; /* section 2, borrowed */
    size_t constraints_size;
    const uint8_t *wire_labels; /* section 3: n_wires little-endian u64, unaligned */
    int has_custom_gates;       /* section 4 or 5 present */
    zkp_mapped_file file;       /* what zkp_r1cs_load mapped; empty after zkp_r1cs_parse */
} zkp_r1cs;

/* Parses data[0..len); the value borrows data, which must outlive it.
 * name (may be NULL) prefixes messages. On failure *out is left empty. */
ZKP_WARN_UNUSED zkpipe_status zkp_r1cs_parse(zkp_r1cs *out, const uint8_t *data, size_t len,
                                             const char *name, zkp_diag *diag);

/* Maps path and parses it; the mapping lives until zkp_r1cs_free. */
ZKP_WARN_UNUSED zkpipe_status zkp_r1cs_load(zkp_r1cs *out, const char *path, zkp_diag *diag);

/* Unmaps what load mapped; *r is left empty. Accepts an empty *r. */
void zkp_r1cs_free(zkp_r1cs *r);

/* Label of wire i < n_wires (section 3). */
static inline uint64_t zkp_r1cs_wire_label(const zkp_r1cs *r, uint32_t i) {
    return zkp_le64(r->wire_labels + 8 * (size_t)i);
}

/* ---- Iteration over the constraints, in file order. */

/* One linear combination: n_terms terms starting at terms. */
typedef struct {
    const uint8_t *terms;
    uint32_t n_terms;
} zkp_r1cs_lc;

static inline uint32_t zkp_r1cs_term_wire(const zkp_r1cs_lc *lc, uint32_t k) {
    return zkp_le32(lc->terms + (size_t)k * ZKP_R1CS_TERM_BYTES);
}
/* The coefficient's 32 little-endian canonical bytes (< r). */
static inline const uint8_t *zkp_r1cs_term_coef(const zkp_r1cs_lc *lc, uint32_t k) {
    return lc->terms + (size_t)k * ZKP_R1CS_TERM_BYTES + 4;
}
/* The coefficient as 4 little-endian limbs, canonical (< r). */
static inline void zkp_r1cs_term_coef_limbs(const zkp_r1cs_lc *lc, uint32_t k, uint64_t out[4]) {
    zkp_formats_load_fr_limbs(out, zkp_r1cs_term_coef(lc, k));
}

/* The constraint A·B = C: lc[ZKP_R1CS_A], lc[ZKP_R1CS_B], lc[ZKP_R1CS_C]. */
typedef struct {
    zkp_r1cs_lc lc[3];
} zkp_r1cs_constraint;

typedef struct {
    const uint8_t *pos, *end;
    uint32_t index; /* of the constraint the next call returns */
    uint32_t count;
} zkp_r1cs_iter;

void zkp_r1cs_iter_init(zkp_r1cs_iter *it, const zkp_r1cs *r);

/* Fills *c with constraint it->index and advances: 1, or 0 after the last
 * constraint. */
int zkp_r1cs_iter_next(zkp_r1cs_iter *it, zkp_r1cs_constraint *c);

#endif
