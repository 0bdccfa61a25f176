/* bellperson's Groth16 files over BLS12-381, as Filecoin publishes them:
 * verifying keys (.vk), parameters (.params) and proofs (192 bytes per
 * partition). Both directions.
 *
 * Points use the ZCash serialization (curve/encoding.h): big-endian
 * coordinates, flags in the top three bits of byte 0, the Fp2 imaginary part
 * first. Uncompressed in keys (G1 96 bytes, G2 192), compressed in proofs
 * (G1 48, G2 96). Lengths are u32 big-endian.
 *
 *   .vk      alpha_g1 G1, beta_g1 G1, beta_g2 G2, gamma_g2 G2, delta_g1 G1,
 *            delta_g2 G2, ic_len u32, ic_len × G1          868 + 96·ic_len bytes
 *   .params  the .vk bytes, then five sections, each a u32 count and that
 *            many points: h (G1, domain size − 1: τ^i·Z(τ)/δ, the coefficient
 *            basis), l (G1, one per aux variable), a (G1), b_g1 (G1), b_g2
 *            (G2). a, b_g1 and b_g2 omit the variables whose column is zero
 *            (their point would be the identity). No trailer, no checksum.
 *   proof    A (G1 compressed) ‖ B (G2 compressed) ‖ C (G1 compressed);
 *            a proof of P partitions is P such proofs in partition order.
 *
 * What is checked, as bellperson does and more:
 *   - every point: its encoding (flags, length), coordinates < p, on the
 *     curve, and in the prime-order subgroup. bellperson's mapped loader,
 *     which Filecoin uses, skips the subgroup check of the five sections;
 *     zkpipe does it unless told not to (curve_only below).
 *   - the identity is rejected where bellperson rejects it: in ic, in all
 *     five sections and in all three proof points. The six fixed points of
 *     a verifying key may be the identity, as bellperson reads them.
 *   - sizes: every count against the bytes that remain, in 64-bit
 *     overflow-checked arithmetic, before anything is allocated or any point
 *     is touched. A .vk must end where its ic ends; a .params file must end
 *     where its b_g2 ends.
 *   - the shape every generated file has: ic not empty, h one less than a
 *     power of two (OUT_OF_RANGE), b_g1 and b_g2 of one length, a at least
 *     as long as ic (SIZE_MISMATCH).
 * Every failure has its own status and a message naming the file, the part
 * and the point's index. A rejected identity is ZKPIPE_ERR_BAD_ENCODING (its
 * flag is not allowed there).
 *
 * Loading a .params file (tens of gigabytes for a 32 GiB sector) maps it:
 * zkp_bp_params_load reads and checks the verifying key and the five section
 * headers only. The points of a section are decoded when asked for
 * (zkp_bp_params_section), in batches on nthreads threads, into memory from
 * the caller's allocator charged as ZKP_MEM_KEY, so the engine can charge a
 * key's decoded sections to a reservation from its pool. Decoding is the
 * expensive step (the subgroup check dominates); its time and points per
 * second are kept per section. */
#ifndef ZKP_FORMATS_BELLPERSON_H
#define ZKP_FORMATS_BELLPERSON_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "curve/bls12_381_g1.h"
#include "curve/bls12_381_g2.h"
#include "groth16/groth16.h"
#include "util/alloc.h"
#include "util/diag.h"
#include "util/mapped_file.h"

#define ZKP_BP_G1_BYTES 96
#define ZKP_BP_G2_BYTES 192
#define ZKP_BP_G1_COMPRESSED_BYTES 48
#define ZKP_BP_G2_COMPRESSED_BYTES 96
/* The six fixed points and ic_len. */
#define ZKP_BP_VK_FIXED_BYTES (3 * ZKP_BP_G1_BYTES + 3 * ZKP_BP_G2_BYTES + 4)
#define ZKP_BP_PROOF_BYTES (2 * ZKP_BP_G1_COMPRESSED_BYTES + ZKP_BP_G2_COMPRESSED_BYTES)

/* ---- verifying keys */

typedef struct {
    bls12_381_g1_affine_t alpha_g1, beta_g1, delta_g1;
    bls12_381_g2_affine_t beta_g2, gamma_g2, delta_g2;
    uint32_t n_ic;                   /* public inputs + 1 (input 0 is the constant one) */
    bls12_381_g1_affine_t *ic;       /* n_ic points, from alloc (ZKP_MEM_KEY) */
    const zkp_allocator *alloc;
} zkp_bp_vk;

/* The bytes of a verifying key with n_ic ic points: 868 + 96·n_ic. */
uint64_t zkp_bp_vk_bytes(uint32_t n_ic);

/* Parses the verifying key at the start of data[0..len); *used (may be NULL)
 * receives its length. exact: the key must fill data exactly (a .vk file);
 * otherwise more bytes may follow (the start of a .params file). name (may be
 * NULL) prefixes messages; alloc NULL = the default allocator. On failure
 * *vk is left empty. */
ZKP_WARN_UNUSED zkpipe_status zkp_bp_vk_parse(zkp_bp_vk *vk, const uint8_t *data, size_t len,
                                              int exact, size_t *used, const char *name,
                                              const zkp_allocator *alloc, zkp_diag *diag);

/* Frees ic; *vk is left empty. Accepts an empty key. */
void zkp_bp_vk_free(zkp_bp_vk *vk);

/* Writes the key's zkp_bp_vk_bytes(vk->n_ic) bytes to out. An identity in ic
 * is refused with ZKPIPE_ERR_INVALID_ARGUMENT (no reader would take it back);
 * nothing else can fail. */
ZKP_WARN_UNUSED zkpipe_status zkp_bp_vk_encode(uint8_t *out, size_t out_len, const zkp_bp_vk *vk,
                                               zkp_diag *diag);

/* The verifying key in the form zkp_g16_verify takes; its ic borrows vk's
 * (out->owned = NULL), so vk must outlive it. Verification is the same
 * equation for bellperson's keys and snarkjs's. */
void zkp_bp_vk_to_g16(zkp_g16_vk *out, const zkp_bp_vk *vk);

/* bellperson's verifying key of a zkpipe proving key, borrowing pk's ic
 * (vk->alloc = NULL, vk->ic points into pk: do not zkp_bp_vk_free it). */
void zkp_bp_vk_from_g16_pk(zkp_bp_vk *vk, const bls12_381_g16_pk_t *pk);

/* ---- parameters */

typedef enum {
    ZKP_BP_H = 0,
    ZKP_BP_L,
    ZKP_BP_A,
    ZKP_BP_B_G1,
    ZKP_BP_B_G2,
    ZKP_BP_SECTION_COUNT
} zkp_bp_section;

/* "h", "l", "a", "b_g1", "b_g2". */
const char *zkp_bp_section_name(zkp_bp_section s);

/* What opens each section of a .params file: its point count, a big-endian
 * u32; for a writer that makes the file a section at a time. */
#define ZKP_BP_COUNT_BYTES 4
void zkp_bp_put_count(uint8_t out[ZKP_BP_COUNT_BYTES], uint32_t count);

/* Who pays for the pages of a mapped file while a section is decoded from
 * it (the engine: the key's reservation). charge gets the section's span of
 * the mapping, whole pages (offset and len from the start of the file),
 * before any of its points is read, and may read them in itself; a failure
 * stops the decode with its status. discharge gets the same span back in
 * pieces, in order, each once its pages have left the process's resident
 * set again (MADV_DONTNEED: the page cache keeps them), whether the decode
 * succeeded or not (or the charge failed: it may have read some in). So at
 * most one section of the file is resident at a time, and always paid
 * for. */
typedef struct {
    zkpipe_status (*charge)(void *ctx, const zkp_mapped_file *file, size_t offset, size_t len);
    void (*discharge)(void *ctx, size_t offset, size_t len);
    void *ctx;
} zkp_bp_file_pages;

typedef struct {
    const zkp_allocator *alloc; /* decoded sections and ic; NULL = the default */
    unsigned nthreads;          /* decoding; 0 = every online CPU */
    /* 1: the five sections' points are checked on the curve but not in the
     * subgroup, which is most of the decoding's cost (about 130 doublings
     * a point). For a file whose source is trusted otherwise (Filecoin's
     * published digests, or made here), by a prover that verifies what it
     * proves (filecoin/c2.h). The verifying key is always checked whole. */
    int curve_only;
    /* NULL: nobody is told; a decoded section's pages still leave the
     * resident set. Used only for a file zkp_bp_params_load mapped. */
    const zkp_bp_file_pages *pages;
} zkp_bp_params_options;

/* The time one section's decoding took (every point decoded and checked). */
typedef struct {
    uint64_t points;
    double seconds;
} zkp_bp_decode_stats;

typedef struct {
    zkp_bp_vk vk;
    size_t file_size;
    struct {
        uint64_t offset; /* of the first point, from the start of the file */
        uint32_t count;
        unsigned elem;   /* 96 or 192 bytes */
    } sec[ZKP_BP_SECTION_COUNT];
    /* Decoded points (bls12_381_g1_affine_t or _g2_affine_t), NULL until
     * zkp_bp_params_section decodes them; from opt.alloc, ZKP_MEM_KEY. */
    void *points[ZKP_BP_SECTION_COUNT];
    zkp_bp_decode_stats stats[ZKP_BP_SECTION_COUNT];
    const uint8_t *data; /* the file's bytes: the mapping, or the caller's */
    zkp_mapped_file file; /* what zkp_bp_params_load mapped */
    zkp_bp_params_options opt;
    char name[256];       /* for messages */
    pthread_mutex_t lock; /* serializes decoding */
    int lock_init;
} zkp_bp_params;

/* Parses the verifying key and the five section headers of data[0..len)
 * (which must outlive *p), checking every point of the key and every
 * length; decodes no section point. On failure *p is left empty. */
ZKP_WARN_UNUSED zkpipe_status zkp_bp_params_parse(zkp_bp_params *p, const uint8_t *data,
                                                  size_t len, const char *name,
                                                  const zkp_bp_params_options *opt,
                                                  zkp_diag *diag);

/* Maps path and parses it; the mapping lives until zkp_bp_params_free. */
ZKP_WARN_UNUSED zkpipe_status zkp_bp_params_load(zkp_bp_params *p, const char *path,
                                                 const zkp_bp_params_options *opt, zkp_diag *diag);

/* Drops every page of the mapping from the process's resident set (the
 * page cache keeps them; a later read faults them back in): what parsing
 * the header read, before sections are decoded under opt.pages. */
void zkp_bp_params_drop_pages(zkp_bp_params *p);

/* A digest of what identifies a parameter file cheaply: its size, the
 * verifying key's bytes and every section's length (util/fnv.h). The
 * engine binds a registered key to it. */
uint64_t zkp_bp_params_header_digest(const zkp_bp_params *p);

/* Unmaps the file zkp_bp_params_load mapped, so that a key made from the
 * decoded sections holds only those: a section not decoded by then can no
 * longer be (zkp_bp_params_section and _check_section fail with
 * ZKPIPE_ERR_INVALID_ARGUMENT). Thread-safe. */
void zkp_bp_params_unmap(zkp_bp_params *p);

/* The decoded points of section s (count in p->sec[s].count), decoding them
 * on first use: every point checked as the header says, the first bad one
 * (lowest index, whatever the thread count) reported. *out is NULL for an
 * empty section. Thread-safe. */
ZKP_WARN_UNUSED zkpipe_status zkp_bp_params_section(zkp_bp_params *p, zkp_bp_section s,
                                                    const void **out, zkp_diag *diag);

/* The memory the decoded points of section s take, for a reservation made
 * before zkp_bp_params_section: count × 96 bytes (G1) or 192 (G2), the
 * size of the file's points (Montgomery-form limbs instead of big-endian
 * bytes). */
size_t zkp_bp_params_section_bytes(const zkp_bp_params *p, zkp_bp_section s);

/* Checks every point of section s as zkp_bp_params_section does, without
 * keeping them (for a file too big to decode whole); stats (may be NULL)
 * receives the cost. */
ZKP_WARN_UNUSED zkpipe_status zkp_bp_params_check_section(zkp_bp_params *p, zkp_bp_section s,
                                                          zkp_bp_decode_stats *stats,
                                                          zkp_diag *diag);

/* Frees the decoded sections of s (keeps the mapping). */
void zkp_bp_params_drop_section(zkp_bp_params *p, zkp_bp_section s);

/* Frees everything and unmaps the file; *p is left empty. Accepts an empty
 * one. */
void zkp_bp_params_free(zkp_bp_params *p);

/* What to write as a .params file. Points are in memory (affine, Montgomery
 * form). a, b_g1 and b_g2 are dense over the variables (inputs, then aux)
 * with the identity where a column is zero: the writer leaves those out, as
 * bellperson's generator does. h and l must hold no identity. */
typedef struct {
    const zkp_bp_vk *vk;
    const bls12_381_g1_affine_t *h;
    size_t n_h;
    const bls12_381_g1_affine_t *l;
    size_t n_l;
    const bls12_381_g1_affine_t *a;
    const bls12_381_g1_affine_t *b_g1;
    const bls12_381_g2_affine_t *b_g2;
    size_t n_vars; /* entries of a, b_g1 and b_g2 */
} zkp_bp_params_src;

/* The file size of src, overflow-checked (ZKPIPE_ERR_OUT_OF_RANGE when a
 * count does not fit bellperson's u32 or the size does not fit size_t). */
ZKP_WARN_UNUSED zkpipe_status zkp_bp_params_size(const zkp_bp_params_src *src, size_t *out,
                                                 zkp_diag *diag);

/* bellperson's h query (τ^i·Z(τ)/δ for i < n − 1, the coefficient basis)
 * from a zkpipe key's H query, which is matched to evaluations on snarkjs's
 * coset g·H (groth16.h): with ω the domain's root and Z = g^n − 1,
 *
 *     h_bp[i] = Z·g^i · Σ_j ω^(i·j) · H[j]
 *
 * a discrete Fourier transform over G1, n/2·log2(n) scalar multiplications
 * (about a minute on one core for n = 2^17), on nthreads threads. out holds
 * pk->domain_size − 1 points. Scratch of n Jacobian points comes from alloc
 * (ZKP_MEM_SCRATCH). */
ZKP_WARN_UNUSED zkpipe_status zkp_bp_h_from_g16_pk(bls12_381_g1_affine_t *out,
                                                   const bls12_381_g16_pk_t *pk, unsigned nthreads,
                                                   const zkp_allocator *alloc, zkp_diag *diag);

/* The .params source of a zkpipe key: its verifying key (*vk, borrowing
 * pk's ic), h from zkp_bp_h_from_g16_pk into h (pk->domain_size − 1
 * points, the caller's), l from the L query of the private signals, a, b_g1
 * and b_g2 from the key's dense queries (a key with column lists, groth16.h,
 * is refused: ZKPIPE_ERR_INVALID_ARGUMENT). */
ZKP_WARN_UNUSED zkpipe_status zkp_bp_params_src_from_g16_pk(zkp_bp_params_src *src, zkp_bp_vk *vk,
                                                            bls12_381_g1_affine_t *h,
                                                            const bls12_381_g16_pk_t *pk,
                                                            unsigned nthreads,
                                                            const zkp_allocator *alloc,
                                                            zkp_diag *diag);

/* Encodes src into out[0..out_len), out_len = zkp_bp_params_size. An
 * identity in ic, h or l is refused (ZKPIPE_ERR_INVALID_ARGUMENT). */
ZKP_WARN_UNUSED zkpipe_status zkp_bp_params_encode(uint8_t *out, size_t out_len,
                                                   const zkp_bp_params_src *src, zkp_diag *diag);

/* Encodes src into a buffer from alloc (ZKP_MEM_SCRATCH) and writes it to
 * path atomically (util/fileio.h). */
ZKP_WARN_UNUSED zkpipe_status zkp_bp_params_write(const char *path, const zkp_bp_params_src *src,
                                                  const zkp_allocator *alloc, zkp_diag *diag);

/* Writes vk as a .vk file, atomically. */
ZKP_WARN_UNUSED zkpipe_status zkp_bp_vk_write(const char *path, const zkp_bp_vk *vk,
                                              zkp_diag *diag);

/* ---- proofs */

/* Decodes one 192-byte proof: each point decompressed and checked (flags,
 * coordinates, curve, subgroup), the identity refused. The message names the
 * point ("A", "B", "C"). */
ZKP_WARN_UNUSED zkpipe_status zkp_bp_proof_decode(bls12_381_g16_proof_t *proof,
                                                  const uint8_t in[ZKP_BP_PROOF_BYTES],
                                                  zkp_diag *diag);

/* Encodes one proof. An identity point is refused (ZKPIPE_ERR_INVALID_ARGUMENT):
 * no reader would take it back. */
ZKP_WARN_UNUSED zkpipe_status zkp_bp_proof_encode(uint8_t out[ZKP_BP_PROOF_BYTES],
                                                  const bls12_381_g16_proof_t *proof,
                                                  zkp_diag *diag);

/* A multi-partition proof: len must be a non-zero multiple of 192 and n_max
 * at least len / 192; proofs[i] receives partition i. The message names the
 * partition. *n the count decoded. */
ZKP_WARN_UNUSED zkpipe_status zkp_bp_proofs_decode(bls12_381_g16_proof_t *proofs, size_t n_max,
                                                   size_t *n, const uint8_t *in, size_t len,
                                                   zkp_diag *diag);

#endif
