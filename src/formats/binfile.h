/* The iden3 "binfile" container shared by .r1cs, .wtns and .zkey.
 *
 * Layout, every integer little-endian:
 *
 *     magic    4 bytes ("r1cs", "wtns", "zkey")
 *     version  u32
 *     nSections u32
 *     nSections times: type u32, size u64, then size bytes of body
 *
 * Sections may come in any order (snarkjs writes the zkey's section 10
 * before section 4) and a reader looks them up by type. zkp_binfile_parse
 * checks the magic, the version and that every section header and body lies
 * inside the file, so afterwards any byte inside a section body may be read
 * without further checks on the container; each format then checks its own
 * section sizes against the counts in its header.
 *
 * The parsed table holds offsets into the caller's bytes and owns nothing. */
#ifndef ZKP_FORMATS_BINFILE_H
#define ZKP_FORMATS_BINFILE_H

#include <stddef.h>
#include <stdint.h>

#include "util/diag.h"
#include "zkpipe/curve.h"

/* Real files have at most 10 (a zkey); the bound keeps the table a fixed
 * array, so parsing the container never allocates. */
#define ZKP_BINFILE_MAX_SECTIONS 64
#define ZKP_BINFILE_HEADER_BYTES 12
#define ZKP_BINFILE_SECTION_HEADER_BYTES 12

typedef struct {
    uint32_t type;
    size_t offset; /* of the body, from the start of the file */
    size_t size;   /* of the body */
} zkp_binfile_section;

typedef struct {
    const uint8_t *data;
    size_t len;
    const char *name; /* for messages: the path, or what the caller calls the bytes */
    uint32_t version;
    uint32_t n_sections;
    zkp_binfile_section sections[ZKP_BINFILE_MAX_SECTIONS];
} zkp_binfile;

/* Parses the container in data[0..len): magic must equal the four bytes of
 * magic, the version must equal version. name (may be NULL) prefixes every
 * message. Errors: ZKPIPE_ERR_BAD_MAGIC, ZKPIPE_ERR_BAD_VERSION,
 * ZKPIPE_ERR_TRUNCATED (a header or a body past the end of the file, with the
 * offsets), ZKPIPE_ERR_OUT_OF_RANGE (more than ZKP_BINFILE_MAX_SECTIONS
 * sections). Bytes after the last section are ignored, as iden3's readers do. */
ZKP_WARN_UNUSED zkpipe_status zkp_binfile_parse(zkp_binfile *bf, const uint8_t *data, size_t len,
                                                const char magic[4], uint32_t version,
                                                const char *name, zkp_diag *diag);

/* Number of sections of the given type. */
unsigned zkp_binfile_count(const zkp_binfile *bf, uint32_t type);

/* The one section of the given type; what names it in messages ("section 2
 * (header)"). Missing or present more than once: ZKPIPE_ERR_SECTION_MISSING. */
ZKP_WARN_UNUSED zkpipe_status zkp_binfile_unique(const zkp_binfile *bf, uint32_t type,
                                                 const char *what, zkp_binfile_section *out,
                                                 zkp_diag *diag);

static inline const uint8_t *zkp_binfile_body(const zkp_binfile *bf, const zkp_binfile_section *s) {
    return bf->data + s->offset;
}

/* Checks s->size == fixed + count × elem, overflow-checked. Otherwise
 * ZKPIPE_ERR_SECTION_SIZE: "<name>: section 2 (values): expected 320 bytes
 * (10 × 32), found 316". Call it before allocating anything from count.
 * elem = 0 checks a fixed size alone. */
ZKP_WARN_UNUSED zkpipe_status zkp_binfile_expect_size(const zkp_binfile *bf,
                                                      const zkp_binfile_section *s,
                                                      const char *what, size_t fixed,
                                                      uint64_t count, size_t elem, zkp_diag *diag);

/* Unaligned little-endian loads: bodies sit at arbitrary offsets. */
static inline uint32_t zkp_le32(const uint8_t *p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static inline uint64_t zkp_le64(const uint8_t *p) {
    return (uint64_t)zkp_le32(p) | (uint64_t)zkp_le32(p + 4) << 32;
}

/* ---- Primes, shared by the three formats: each header names its field as
 * a byte count n8 and the prime in n8 little-endian bytes. */

/* Which curve has the prime as its scalar field r (n8 = 32). 0 if none. */
int zkp_formats_curve_of_r(const uint8_t *prime, size_t n8, zkpipe_curve *out);

/* The header that .wtns and .r1cs share: u32 n8, then the prime, then
 * fields of their own, header_bytes in all (computed for n8 = 32). Checks
 * that n8 is 32 (the scalar fields of both curves), that the section is
 * exactly header_bytes long, and that the prime is r of bn254 or bls12_381;
 * each with its own status and a message naming the section. */
ZKP_WARN_UNUSED zkpipe_status zkp_formats_fr_header(const zkp_binfile *bf,
                                                    const zkp_binfile_section *hdr,
                                                    size_t header_bytes, zkpipe_curve *curve,
                                                    zkp_diag *diag);
/* Which curve has the prime as its base field q (n8 = 32 or 48). 0 if none. */
int zkp_formats_curve_of_q(const uint8_t *prime, size_t n8, zkpipe_curve *out);
/* "bn254" or "bls12_381". */
const char *zkp_formats_curve_name(zkpipe_curve curve);

/* 1 if the 32 little-endian bytes hold a value < r of the curve. */
int zkp_formats_fr_is_canonical(zkpipe_curve curve, const uint8_t value[32]);

/* The 4 limbs of a 32-byte little-endian value (no range check). */
static inline void zkp_formats_load_fr_limbs(uint64_t out[4], const uint8_t in[32]) {
    for (int i = 0; i < 4; i++) out[i] = zkp_le64(in + 8 * i);
}

#endif
