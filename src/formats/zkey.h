/* Groth16 proving keys (.zkey), as snarkjs writes them.
 *
 *     binfile magic "zkey", version 1
 *     1  protocol: u32, 1 = Groth16 (anything else: ZKPIPE_ERR_UNSUPPORTED)
 *     2  header: u32 n8q, q, u32 n8r, r, u32 nVars, u32 nPublic,
 *        u32 domainSize, then vk_alpha_1 (G1), vk_beta_1 (G1), vk_beta_2 (G2),
 *        vk_gamma_2 (G2), vk_delta_1 (G1), vk_delta_2 (G2)
 *     3  IC: nPublic + 1 G1 points
 *     4  coefficients: u32 nCoefs, then nCoefs × (u32 matrix, u32 constraint,
 *        u32 signal, n8r-byte value = coefficient·R² mod r, little-endian)
 *     5  A: nVars G1          6  B1: nVars G1          7  B2: nVars G2
 *     8  C: nVars − nPublic − 1 G1                     9  H: domainSize G1
 *     10 MPC contributions: must be present once; its contents are not read
 *
 * Points are in the circom layout (curve/encoding.h): Montgomery-form
 * coordinates, little-endian, x then y, c0 before c1, infinity all zeros.
 * On a little-endian machine that is byte for byte the in-memory layout of
 * the G1/G2 affine types, so a point section whose bytes are 8-byte aligned
 * is used where it lies (in the mapping) and any other is copied once into
 * allocator memory (ZKP_MEM_KEY).
 *
 * Validation, each failure with its own status and a message naming the
 * file, the section and the numbers:
 *   - (q, r) are BN254's or BLS12-381's and n8q, n8r fit them (WRONG_CURVE)
 *   - nPublic + 1 <= nVars; domainSize a power of two in [2, 2^(2-adicity)]
 *     (OUT_OF_RANGE)
 *   - every section size equals count × element size, overflow-checked
 *     (SECTION_SIZE), all before anything is allocated
 *   - every coordinate < q (NON_CANONICAL); every point on the curve or the
 *     all-zero infinity (NOT_ON_CURVE)
 *   - alpha, beta, gamma, delta and the IC points in the prime-order
 *     subgroup (NOT_IN_SUBGROUP); A, B1, B2, C and H only when
 *     check_subgroup is set: about 100 µs per BLS12-381 point, and the prover
 *     verifies every proof it makes, which catches a bad base anyway
 *   - coefficients: matrix 0 or 1, constraint < domainSize, signal < nVars
 *     (OUT_OF_RANGE), value < r (NON_CANONICAL)
 * The point checks of the large sections run on nthreads threads. */
#ifndef ZKP_FORMATS_ZKEY_H
#define ZKP_FORMATS_ZKEY_H

#include <stddef.h>
#include <stdint.h>

#include "formats/wtns.h"
#include "groth16/groth16.h"
#include "util/alloc.h"
#include "util/diag.h"
#include "util/mapped_file.h"

typedef struct {
    const zkp_allocator *alloc; /* copies and the coefficient array; NULL = default */
    unsigned nthreads;          /* point checks; 0 = every online CPU */
    int check_subgroup;         /* also subgroup-check A, B1, B2, C and H */
} zkp_zkey_options;

/* Buffers a key owns: at most the coefficients and six point sections. */
#define ZKP_ZKEY_MAX_OWNED 8

typedef struct zkp_zkey {
    zkpipe_curve curve;
    union {
        bn254_g16_pk_t bn254;
        bls12_381_g16_pk_t bls12_381;
    } pk;
    size_t file_size;
    /* Bit t set when section t's points are used in place (not copied). */
    uint32_t in_place_sections;
    zkp_mapped_file file; /* what zkp_zkey_load mapped; empty after zkp_zkey_parse */
    const zkp_allocator *alloc;
    struct {
        void *ptr;
        size_t bytes;
    } owned[ZKP_ZKEY_MAX_OWNED]; /* ZKP_MEM_KEY */
    unsigned n_owned;
} zkp_zkey;

/* Parses data[0..len). The key may point into data, which must outlive it
 * (for fuzzing and tests; files go through zkp_zkey_load). name (may be NULL)
 * prefixes messages; opt may be NULL (defaults). On failure *key is left
 * empty and owns nothing. */
ZKP_WARN_UNUSED zkpipe_status zkp_zkey_parse(zkp_zkey *key, const uint8_t *data, size_t len,
                                             const char *name, const zkp_zkey_options *opt,
                                             zkp_diag *diag);

/* Maps path and parses it; the mapping lives until zkp_zkey_free. */
ZKP_WARN_UNUSED zkpipe_status zkp_zkey_load(zkp_zkey *key, const char *path,
                                            const zkp_zkey_options *opt, zkp_diag *diag);

/* Frees the copies, unmaps the file; *key is left empty. Accepts an empty key. */
/* A digest of what identifies a key cheaply: the section table (every
 * section's type and size) and the bodies of the protocol and header
 * sections (curve, dimensions, alpha, beta, gamma, delta). Reads a few
 * hundred bytes of data[0..len) whatever the key's size. FNV-1a, 64 bits:
 * it tells a changed file from the one registered, and is no defence
 * against someone who may write the file (they may write any key). */
ZKP_WARN_UNUSED zkpipe_status zkp_zkey_header_digest(const uint8_t *data, size_t len,
                                                     const char *name, uint64_t *out,
                                                     zkp_diag *diag);

void zkp_zkey_free(zkp_zkey *key);

/* The proving key in the curve-tagged form the prover takes; its arrays
 * borrow the key's storage, so the key must outlive it. */
void zkp_zkey_pk(const zkp_zkey *key, zkp_g16_pk *out);

/* The verification key; out->u's ic borrows the key's IC (out->owned = NULL),
 * so the key must outlive it. */
void zkp_zkey_vk(const zkp_zkey *key, zkp_g16_vk *out);

uint32_t zkp_zkey_n_vars(const zkp_zkey *key);
uint32_t zkp_zkey_n_public(const zkp_zkey *key);

/* Whether the witness fits the key: the same curve (ZKPIPE_ERR_WRONG_CURVE)
 * and the same number of variables (ZKPIPE_ERR_SIZE_MISMATCH), the message
 * naming both. */
ZKP_WARN_UNUSED zkpipe_status zkp_wtns_check_zkey(const zkp_wtns *w, const zkp_zkey *key,
                                                  zkp_diag *diag);

#endif
