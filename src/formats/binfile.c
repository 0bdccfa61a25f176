#include "formats/binfile.h"

#include <inttypes.h>
#include <string.h>

#include "field/field.h"

/* Printable form of four magic bytes for a message: non-printing bytes
 * become '.', so a binary file's garbage cannot break the message. */
static void magic_printable(char out[5], const uint8_t *in) {
    for (int i = 0; i < 4; i++) out[i] = (in[i] >= 0x20 && in[i] < 0x7f) ? (char)in[i] : '.';
    out[4] = 0;
}

zkpipe_status zkp_binfile_parse(zkp_binfile *bf, const uint8_t *data, size_t len,
                                const char magic[4], uint32_t version, const char *name,
                                zkp_diag *diag) {
    memset(bf, 0, sizeof *bf);
    if (!name) name = "(memory)";
    bf->data = data;
    bf->len = len;
    bf->name = name;
    if (!data && len) return zkp_diag_fail(diag, ZKPIPE_ERR_INVALID_ARGUMENT, "%s: no data", name);

    char want[5];
    magic_printable(want, (const uint8_t *)magic);
    /* A file too short to hold the magic is reported as truncated, not as
     * the wrong kind: the magic may simply be cut off. */
    if (len >= 4 && memcmp(data, magic, 4) != 0) {
        char got[5];
        magic_printable(got, data);
        return zkp_diag_fail(diag, ZKPIPE_ERR_BAD_MAGIC,
                             "%s: not a .%s file: magic is \"%s\", expected \"%s\"", name, want,
                             got, want);
    }
    if (len < ZKP_BINFILE_HEADER_BYTES) {
        return zkp_diag_fail(diag, ZKPIPE_ERR_TRUNCATED,
                             "%s: file is %zu bytes, shorter than the %d-byte .%s header", name,
                             len, ZKP_BINFILE_HEADER_BYTES, want);
    }
    bf->version = zkp_le32(data + 4);
    if (bf->version != version) {
        return zkp_diag_fail(diag, ZKPIPE_ERR_BAD_VERSION,
                             "%s: .%s version %" PRIu32 ", only version %" PRIu32 " is supported",
                             name, want, bf->version, version);
    }
    uint32_t n = zkp_le32(data + 8);
    if (n > ZKP_BINFILE_MAX_SECTIONS) {
        return zkp_diag_fail(diag, ZKPIPE_ERR_OUT_OF_RANGE,
                             "%s: header declares %" PRIu32 " sections, at most %d are accepted",
                             name, n, ZKP_BINFILE_MAX_SECTIONS);
    }

    /* pos <= len holds throughout, so len - pos never wraps. */
    size_t pos = ZKP_BINFILE_HEADER_BYTES;
    for (uint32_t i = 0; i < n; i++) {
        if (len - pos < ZKP_BINFILE_SECTION_HEADER_BYTES) {
            return zkp_diag_fail(diag, ZKPIPE_ERR_TRUNCATED,
                                 "%s: header of section #%" PRIu32 " of %" PRIu32
                                 " at offset %zu needs %d bytes, the file ends at %zu",
                                 name, i + 1, n, pos, ZKP_BINFILE_SECTION_HEADER_BYTES, len);
        }
        uint32_t type = zkp_le32(data + pos);
        uint64_t size = zkp_le64(data + pos + 4);
        size_t body = pos + ZKP_BINFILE_SECTION_HEADER_BYTES;
        if (size > (uint64_t)(len - body)) {
            /* A type no iden3 format uses means this is no section header:
             * the size of the section before it sent the walk into its
             * body, or the header is damaged. Its "type" would only be a
             * nonsense section number in the message. */
            if (type > ZKP_BINFILE_MAX_SECTIONS && i > 0) {
                const zkp_binfile_section *prev = &bf->sections[i - 1];
                return zkp_diag_fail(diag, ZKPIPE_ERR_TRUNCATED,
                                     "%s: no valid section header #%" PRIu32 " of %" PRIu32
                                     " at offset %zu (its type and size fields read %" PRIu32
                                     " and %" PRIu64 " bytes, past the end of the %zu-byte "
                                     "file): the size of section %" PRIu32 " (#%" PRIu32
                                     ", %zu bytes at offset %zu) is likely wrong, or the "
                                     "file is damaged there",
                                     name, i + 1, n, pos, type, size, len, prev->type, i,
                                     prev->size, prev->offset);
            }
            if (type > ZKP_BINFILE_MAX_SECTIONS) {
                return zkp_diag_fail(diag, ZKPIPE_ERR_TRUNCATED,
                                     "%s: no valid section header #%" PRIu32 " of %" PRIu32
                                     " at offset %zu (its type and size fields read %" PRIu32
                                     " and %" PRIu64 " bytes, past the end of the %zu-byte "
                                     "file): the file is damaged there",
                                     name, i + 1, n, pos, type, size, len);
            }
            return zkp_diag_fail(diag, ZKPIPE_ERR_TRUNCATED,
                                 "%s: section %" PRIu32 " (#%" PRIu32 " of %" PRIu32
                                 ") at offset %zu declares %" PRIu64
                                 " bytes, but only %zu remain (file is %zu bytes)",
                                 name, type, i + 1, n, body, size, len - body, len);
        }
        bf->sections[i].type = type;
        bf->sections[i].offset = body;
        bf->sections[i].size = (size_t)size;
        pos = body + (size_t)size;
    }
    bf->n_sections = n;
    return ZKPIPE_OK;
}

unsigned zkp_binfile_count(const zkp_binfile *bf, uint32_t type) {
    unsigned count = 0;
    for (uint32_t i = 0; i < bf->n_sections; i++) count += bf->sections[i].type == type;
    return count;
}

zkpipe_status zkp_binfile_unique(const zkp_binfile *bf, uint32_t type, const char *what,
                                 zkp_binfile_section *out, zkp_diag *diag) {
    unsigned count = zkp_binfile_count(bf, type);
    if (count != 1) {
        if (count == 0) {
            return zkp_diag_fail(diag, ZKPIPE_ERR_SECTION_MISSING,
                                 "%s: section %" PRIu32 " (%s) is missing", bf->name, type, what);
        }
        return zkp_diag_fail(diag, ZKPIPE_ERR_SECTION_MISSING,
                             "%s: section %" PRIu32 " (%s) appears %u times, expected once",
                             bf->name, type, what, count);
    }
    for (uint32_t i = 0; i < bf->n_sections; i++) {
        if (bf->sections[i].type == type) *out = bf->sections[i];
    }
    return ZKPIPE_OK;
}

zkpipe_status zkp_binfile_expect_size(const zkp_binfile *bf, const zkp_binfile_section *s,
                                      const char *what, size_t fixed, uint64_t count, size_t elem,
                                      zkp_diag *diag) {
    size_t product, expected;
    int overflow = count > SIZE_MAX || zkp_mul_overflow((size_t)count, elem, &product) ||
                   zkp_add_overflow(fixed, product, &expected);
    if (overflow) {
        return zkp_diag_fail(diag, ZKPIPE_ERR_SECTION_SIZE,
                             "%s: section %" PRIu32 " (%s): %" PRIu64
                             " × %zu bytes overflows a size, found %zu bytes",
                             bf->name, s->type, what, count, elem, s->size);
    }
    if (s->size == expected) return ZKPIPE_OK;
    if (elem == 0) {
        return zkp_diag_fail(diag, ZKPIPE_ERR_SECTION_SIZE,
                             "%s: section %" PRIu32 " (%s): expected %zu bytes, found %zu",
                             bf->name, s->type, what, expected, s->size);
    }
    if (fixed == 0) {
        return zkp_diag_fail(diag, ZKPIPE_ERR_SECTION_SIZE,
                             "%s: section %" PRIu32 " (%s): expected %zu bytes (%" PRIu64
                             " × %zu), found %zu",
                             bf->name, s->type, what, expected, count, elem, s->size);
    }
    return zkp_diag_fail(diag, ZKPIPE_ERR_SECTION_SIZE,
                         "%s: section %" PRIu32 " (%s): expected %zu bytes (%zu + %" PRIu64
                         " × %zu), found %zu",
                         bf->name, s->type, what, expected, fixed, count, elem, s->size);
}

/* ---- primes */

/* n limbs of little-endian bytes against a modulus given as limbs. */
static int prime_equals(const uint8_t *prime, size_t n8, const uint64_t *modulus, size_t limbs) {
    if (n8 != 8 * limbs) return 0;
    for (size_t i = 0; i < limbs; i++)
        if (zkp_le64(prime + 8 * i) != modulus[i]) return 0;
    return 1;
}

int zkp_formats_curve_of_r(const uint8_t *prime, size_t n8, zkpipe_curve *out) {
    if (prime_equals(prime, n8, bn254_fr_modulus.l, BN254_FR_LIMBS)) {
        *out = ZKPIPE_CURVE_BN254;
        return 1;
    }
    if (prime_equals(prime, n8, bls12_381_fr_modulus.l, BLS12_381_FR_LIMBS)) {
        *out = ZKPIPE_CURVE_BLS12_381;
        return 1;
    }
    return 0;
}

int zkp_formats_curve_of_q(const uint8_t *prime, size_t n8, zkpipe_curve *out) {
    if (prime_equals(prime, n8, bn254_fq_modulus.l, BN254_FQ_LIMBS)) {
        *out = ZKPIPE_CURVE_BN254;
        return 1;
    }
    if (prime_equals(prime, n8, bls12_381_fp_modulus.l, BLS12_381_FP_LIMBS)) {
        *out = ZKPIPE_CURVE_BLS12_381;
        return 1;
    }
    return 0;
}

const char *zkp_formats_curve_name(zkpipe_curve curve) {
    switch (curve) {
    case ZKPIPE_CURVE_BN254:
        return "bn254";
    case ZKPIPE_CURVE_BLS12_381:
        return "bls12_381";
    default:
        return "unknown curve";
    }
}

int zkp_formats_fr_is_canonical(zkpipe_curve curve, const uint8_t value[32]) {
    uint64_t v[4];
    zkp_formats_load_fr_limbs(v, value);
    const uint64_t *r = curve == ZKPIPE_CURVE_BN254 ? bn254_fr_modulus.l : bls12_381_fr_modulus.l;
    return (int)zkp_limbs_lt(v, r, 4);
}

zkpipe_status zkp_formats_fr_header(const zkp_binfile *bf, const zkp_binfile_section *hdr,
                                    size_t header_bytes, zkpipe_curve *curve, zkp_diag *diag) {
    /* The header's size depends on n8, so read n8 first, then check the
     * whole size before reading the prime. */
    const uint8_t *h = zkp_binfile_body(bf, hdr);
    if (hdr->size < 4)
        return zkp_diag_fail(diag, ZKPIPE_ERR_SECTION_SIZE,
                             "%s: section 1 (header): %zu bytes, too short to hold n8", bf->name,
                             hdr->size);
    uint32_t n8 = zkp_le32(h);
    if (n8 != 32)
        return zkp_diag_fail(diag, ZKPIPE_ERR_WRONG_CURVE,
                             "%s: section 1 (header): field elements of %" PRIu32
                             " bytes; only the 32-byte scalar fields of bn254 and bls12_381 are "
                             "supported",
                             bf->name, n8);
    zkpipe_status st = zkp_binfile_expect_size(bf, hdr, "header", header_bytes, 0, 0, diag);
    if (st != ZKPIPE_OK) return st;
    if (!zkp_formats_curve_of_r(h + 4, n8, curve))
        return zkp_diag_fail(diag, ZKPIPE_ERR_WRONG_CURVE,
                             "%s: section 1 (header): the prime is not the scalar field of bn254 "
                             "or bls12_381",
                             bf->name);
    return ZKPIPE_OK;
}
