#include "formats/wtns.h"

#include <inttypes.h>
#include <string.h>

#include "formats/binfile.h"
#include "util/mapped_file.h"

#define WTNS_VERSION 2
#define WTNS_SECTION_HEADER 1
#define WTNS_SECTION_VALUES 2
#define WTNS_N8 32

zkpipe_status zkp_wtns_parse(zkp_wtns *out, const uint8_t *data, size_t len, const char *name,
                             const zkp_allocator *alloc, zkp_diag *diag) {
    memset(out, 0, sizeof *out);
    zkp_binfile bf;
    zkpipe_status st = zkp_binfile_parse(&bf, data, len, "wtns", WTNS_VERSION, name, diag);
    if (st != ZKPIPE_OK) return st;
    name = bf.name;

    zkp_binfile_section hdr, vals;
    if ((st = zkp_binfile_unique(&bf, WTNS_SECTION_HEADER, "header", &hdr, diag)) != ZKPIPE_OK)
        return st;
    if ((st = zkp_binfile_unique(&bf, WTNS_SECTION_VALUES, "values", &vals, diag)) != ZKPIPE_OK)
        return st;

    zkpipe_curve curve;
    if ((st = zkp_formats_fr_header(&bf, &hdr, 4 + WTNS_N8 + 4, &curve, diag)) != ZKPIPE_OK)
        return st;
    const uint8_t *h = zkp_binfile_body(&bf, &hdr);
    uint32_t n_vars = zkp_le32(h + 4 + WTNS_N8);
    if (n_vars == 0) {
        return zkp_diag_fail(diag, ZKPIPE_ERR_OUT_OF_RANGE,
                             "%s: section 1 (header): 0 witness values; a witness holds at least "
                             "the constant 1",
                             name);
    }
    if ((st = zkp_binfile_expect_size(&bf, &vals, "values", 0, n_vars, WTNS_N8, diag)) != ZKPIPE_OK)
        return st;

    /* The section size equals n_vars × 32, so the allocation is bounded by
     * the file's length. */
    size_t bytes = vals.size;
    uint64_t *values = zkp_alloc(alloc, bytes, ZKP_MEM_WITNESS);
    if (!values) {
        return zkp_diag_fail(diag, ZKPIPE_ERR_NO_MEMORY,
                             "%s: cannot allocate %zu bytes for %" PRIu32 " witness values", name,
                             bytes, n_vars);
    }
    const uint8_t *v = zkp_binfile_body(&bf, &vals);
    for (size_t i = 0; i < n_vars; i++) {
        if (!zkp_formats_fr_is_canonical(curve, v + WTNS_N8 * i)) {
            zkp_free(alloc, values, bytes, ZKP_MEM_WITNESS);
            return zkp_diag_fail(diag, ZKPIPE_ERR_NON_CANONICAL,
                                 "%s: section 2 (values): value %zu is not below the %s scalar "
                                 "field modulus r",
                                 name, i, zkp_formats_curve_name(curve));
        }
        zkp_formats_load_fr_limbs(values + 4 * i, v + WTNS_N8 * i);
    }

    out->curve = curve;
    out->n_vars = n_vars;
    out->values = values;
    out->values_bytes = bytes;
    out->alloc = alloc;
    return ZKPIPE_OK;
}

zkpipe_status zkp_wtns_load(zkp_wtns *out, const char *path, const zkp_allocator *alloc,
                            zkp_diag *diag) {
    memset(out, 0, sizeof *out);
    zkp_mapped_file mf;
    zkpipe_status st = zkp_mapped_file_open(&mf, path, diag);
    if (st != ZKPIPE_OK) return st;
    st = zkp_wtns_parse(out, mf.data, mf.size, path, alloc, diag);
    zkp_mapped_file_close(&mf);
    return st;
}

void zkp_wtns_free(zkp_wtns *w) {
    if (!w) return;
    zkp_free(w->alloc, w->values, w->values_bytes, ZKP_MEM_WITNESS);
    memset(w, 0, sizeof *w);
}
