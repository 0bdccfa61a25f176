#include "formats/r1cs.h"

#include <inttypes.h>
#include <string.h>

#define R1CS_VERSION 1
#define R1CS_SECTION_HEADER 1
#define R1CS_SECTION_CONSTRAINTS 2
#define R1CS_SECTION_WIRE_MAP 3
#define R1CS_SECTION_CUSTOM_GATES_LIST 4
#define R1CS_SECTION_CUSTOM_GATES_USES 5
/* n8, then nWires, nPubOut, nPubIn, nPrvIn, nLabels (u64), nConstraints. */
#define R1CS_HEADER_BYTES (4 + ZKP_R1CS_COEF_BYTES + 4 * 4 + 8 + 4)

static const char lc_name[3] = {'A', 'B', 'C'};

/* Walks section 2 once, checking everything the iterator later relies on:
 * each term inside the section, wire indices, canonical coefficients, and
 * that the last constraint ends exactly at the section's end. */
static zkpipe_status walk_constraints(zkp_r1cs *r, const char *name, zkp_diag *diag) {
    const uint8_t *base = r->constraints, *pos = base, *end = base + r->constraints_size;
    for (uint32_t i = 0; i < r->n_constraints; i++) {
        for (int m = 0; m < 3; m++) {
            if (end - pos < 4) {
                return zkp_diag_fail(diag, ZKPIPE_ERR_SECTION_SIZE,
                                     "%s: section 2 (constraints): constraint %" PRIu32
                                     " of %" PRIu32 ", %c: term count at byte %td runs past the "
                                     "section's %zu bytes",
                                     name, i, r->n_constraints, lc_name[m], pos - base,
                                     r->constraints_size);
            }
            uint32_t n_terms = zkp_le32(pos);
            pos += 4;
            size_t bytes;
            if (zkp_mul_overflow(n_terms, (size_t)ZKP_R1CS_TERM_BYTES, &bytes) ||
                bytes > (size_t)(end - pos)) {
                return zkp_diag_fail(diag, ZKPIPE_ERR_SECTION_SIZE,
                                     "%s: section 2 (constraints): constraint %" PRIu32
                                     ", %c: %" PRIu32 " terms (%" PRIu32
                                     " × %d bytes) at byte %td, only %td bytes remain",
                                     name, i, lc_name[m], n_terms, n_terms, ZKP_R1CS_TERM_BYTES,
                                     pos - base, end - pos);
            }
            for (uint32_t k = 0; k < n_terms; k++, pos += ZKP_R1CS_TERM_BYTES) {
                uint32_t wire = zkp_le32(pos);
                if (wire >= r->n_wires) {
                    return zkp_diag_fail(diag, ZKPIPE_ERR_OUT_OF_RANGE,
                                         "%s: section 2 (constraints): constraint %" PRIu32
                                         ", %c, term %" PRIu32 ": wire %" PRIu32
                                         " but the header has %" PRIu32 " wires",
                                         name, i, lc_name[m], k, wire, r->n_wires);
                }
                if (!zkp_formats_fr_is_canonical(r->curve, pos + 4)) {
                    return zkp_diag_fail(diag, ZKPIPE_ERR_NON_CANONICAL,
                                         "%s: section 2 (constraints): constraint %" PRIu32
                                         ", %c, term %" PRIu32
                                         ": coefficient is not below the %s scalar field modulus",
                                         name, i, lc_name[m], k, zkp_formats_curve_name(r->curve));
                }
            }
            r->n_terms[m] += n_terms;
        }
    }
    if (pos != end) {
        return zkp_diag_fail(diag, ZKPIPE_ERR_SECTION_SIZE,
                             "%s: section 2 (constraints): %" PRIu32
                             " constraints end at byte %td, the section has %zu bytes",
                             name, r->n_constraints, pos - base, r->constraints_size);
    }
    return ZKPIPE_OK;
}

zkpipe_status zkp_r1cs_parse(zkp_r1cs *out, const uint8_t *data, size_t len, const char *name,
                             zkp_diag *diag) {
    memset(out, 0, sizeof *out);
    zkp_binfile bf;
    zkpipe_status st = zkp_binfile_parse(&bf, data, len, "r1cs", R1CS_VERSION, name, diag);
    if (st != ZKPIPE_OK) return st;
    name = bf.name;

    zkp_binfile_section hdr, cons, map;
    if ((st = zkp_binfile_unique(&bf, R1CS_SECTION_HEADER, "header", &hdr, diag)) != ZKPIPE_OK ||
        (st = zkp_binfile_unique(&bf, R1CS_SECTION_CONSTRAINTS, "constraints", &cons, diag)) !=
            ZKPIPE_OK ||
        (st = zkp_binfile_unique(&bf, R1CS_SECTION_WIRE_MAP, "wire-to-label map", &map, diag)) !=
            ZKPIPE_OK)
        return st;

    zkp_r1cs r = {0};
    if ((st = zkp_formats_fr_header(&bf, &hdr, R1CS_HEADER_BYTES, &r.curve, diag)) != ZKPIPE_OK)
        return st;
    const uint8_t *counts = zkp_binfile_body(&bf, &hdr) + 4 + ZKP_R1CS_COEF_BYTES;
    r.n_wires = zkp_le32(counts);
    r.n_pub_out = zkp_le32(counts + 4);
    r.n_pub_in = zkp_le32(counts + 8);
    r.n_prv_in = zkp_le32(counts + 12);
    r.n_labels = zkp_le64(counts + 16);
    r.n_constraints = zkp_le32(counts + 24);

    /* In 64 bits the sum of four u32 cannot wrap. */
    uint64_t named = 1 + (uint64_t)r.n_pub_out + r.n_pub_in + r.n_prv_in;
    if (named > r.n_wires) {
        return zkp_diag_fail(diag, ZKPIPE_ERR_OUT_OF_RANGE,
                             "%s: section 1 (header): 1 + %" PRIu32 " outputs + %" PRIu32
                             " public inputs + %" PRIu32 " private inputs = %" PRIu64
                             " exceeds the %" PRIu32 " wires",
                             name, r.n_pub_out, r.n_pub_in, r.n_prv_in, named, r.n_wires);
    }

    if ((st = zkp_binfile_expect_size(&bf, &map, "wire-to-label map", 0, r.n_wires, 8, diag)) !=
        ZKPIPE_OK)
        return st;
    r.wire_labels = zkp_binfile_body(&bf, &map);

    r.constraints = zkp_binfile_body(&bf, &cons);
    r.constraints_size = cons.size;
    if ((st = walk_constraints(&r, name, diag)) != ZKPIPE_OK) return st;

    r.has_custom_gates = zkp_binfile_count(&bf, R1CS_SECTION_CUSTOM_GATES_LIST) +
                             zkp_binfile_count(&bf, R1CS_SECTION_CUSTOM_GATES_USES) >
                         0;
    *out = r;
    return ZKPIPE_OK;
}

zkpipe_status zkp_r1cs_load(zkp_r1cs *out, const char *path, zkp_diag *diag) {
    memset(out, 0, sizeof *out);
    zkp_mapped_file mf;
    zkpipe_status st = zkp_mapped_file_open(&mf, path, diag);
    if (st != ZKPIPE_OK) return st;
    st = zkp_r1cs_parse(out, mf.data, mf.size, path, diag);
    if (st != ZKPIPE_OK) {
        zkp_mapped_file_close(&mf);
        return st;
    }
    out->file = mf;
    return ZKPIPE_OK;
}

void zkp_r1cs_free(zkp_r1cs *r) {
    if (!r) return;
    zkp_mapped_file_close(&r->file);
    memset(r, 0, sizeof *r);
}

void zkp_r1cs_iter_init(zkp_r1cs_iter *it, const zkp_r1cs *r) {
    it->pos = r->constraints;
    it->end = r->constraints ? r->constraints + r->constraints_size : NULL;
    it->index = 0;
    it->count = r->n_constraints;
}

int zkp_r1cs_iter_next(zkp_r1cs_iter *it, zkp_r1cs_constraint *c) {
    if (it->index >= it->count) return 0;
    /* The parse checked these bytes; the iterator only decodes them. */
    for (int m = 0; m < 3; m++) {
        c->lc[m].n_terms = zkp_le32(it->pos);
        c->lc[m].terms = it->pos + 4;
        it->pos += 4 + (size_t)c->lc[m].n_terms * ZKP_R1CS_TERM_BYTES;
    }
    it->index++;
    return 1;
}
