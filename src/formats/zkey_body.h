/* The per-curve half of the zkey parser: everything after the curve is known
 * from the header's primes. Included by zkey.c once per curve, with
 *
 *     #define ZK_CURVE     bn254       (prefix of the g16 types; the pk union member)
 *     #define ZK_G1        bn254_g1
 *     #define ZK_G2        bn254_g2
 *     #define ZK_FQ        bn254_fq    (the base prime field)
 *     #define ZK_FQ_PARAM  BN254_FQ
 *     #define ZK_FR        bn254_fr
 *     #define ZK_FR_PARAM  BN254_FR
 *
 * and zkey.c's curve-neutral helpers (zkey_ctx, zkey_own, zkey_place_points,
 * zkey_check_points, ...) in scope. It defines static ZK_CURVE_zkey_parse
 * and undefines every macro above. */
#define ZK_FN(op) ZKP_CAT(ZKP_CAT(ZK_CURVE, _zkey_), op)
#define ZK_PK ZKP_CAT(ZK_CURVE, _g16_pk_t)
#define ZK_COEF ZKP_CAT(ZK_CURVE, _g16_coef_t)
#define ZK_G1A ZKP_CAT(ZK_G1, _affine_t)
#define ZK_G2A ZKP_CAT(ZK_G2, _affine_t)
#define ZK_FRT ZKP_CAT(ZK_FR, _t)
#define ZK_FR_FN(op) ZKP_CAT(ZKP_CAT(ZK_FR, _), op)
#define ZK_Q_BYTES ZKP_CAT(ZK_FQ_PARAM, _BYTES)
#define ZK_R_BYTES ZKP_CAT(ZK_FR_PARAM, _BYTES)

/* The file's point layout is the affine types' memory layout (zkey.h). */
_Static_assert(sizeof(ZK_G1A) == 2 * ZK_Q_BYTES, "G1 affine is x, y with no padding");
_Static_assert(sizeof(ZK_G2A) == 4 * ZK_Q_BYTES, "G2 affine is x.c0, x.c1, y.c0, y.c1");
_Static_assert(sizeof(ZK_FRT) == ZK_R_BYTES, "scalar is its little-endian bytes");

#define ZP_GROUP ZK_G1
#define ZP_BASE ZK_FQ
#include "formats/zkey_points_impl.h"
#define ZP_GROUP ZK_G2
#define ZP_BASE ZK_FQ
#include "formats/zkey_points_impl.h"

/* Decodes a header point with every check, subgroup included: these few
 * points enter every proof and every verification. */
#define ZK_HEADER_POINT(group, dst, what)                                                          \
    do {                                                                                           \
        zkpipe_status st_ = ZKP_CAT(group, _affine_from_circom)(&(dst), pos);                      \
        if (st_ != ZKPIPE_OK) return zkey_header_point_fail(ctx, st_, what, diag);                 \
        pos += sizeof(dst);                                                                        \
    } while (0)

/* Section 4 into an array of coefficient entries. On input the section's
 * size is exactly 4 + n_coefs × (12 + r bytes). */
static zkpipe_status ZK_FN(coefs)(zkp_zkey *key, zkey_ctx *ctx, ZK_PK *pk, zkp_diag *diag) {
    const uint8_t *p = zkp_binfile_body(ctx->bf, &ctx->sec[ZKEY_COEFS]);
    size_t n = zkp_le32(p);
    p += 4;
    pk->coefs = NULL;
    pk->n_coefs = n;
    if (n == 0) return ZKPIPE_OK;
    size_t bytes;
    if (zkp_mul_overflow(n, sizeof(ZK_COEF), &bytes)) {
        return zkp_diag_fail(diag, ZKPIPE_ERR_NO_MEMORY,
                             "%s: section 4 (coefficients): %zu entries do not fit in memory",
                             ctx->name, n);
    }
    ZK_COEF *coefs = zkey_own(key, ctx, bytes, "coefficients", diag);
    if (!coefs) return ZKPIPE_ERR_NO_MEMORY;
    for (size_t i = 0; i < n; i++, p += 12 + ZK_R_BYTES) {
        ZK_COEF *c = &coefs[i];
        c->matrix = zkp_le32(p);
        c->constraint = zkp_le32(p + 4);
        c->signal = zkp_le32(p + 8);
        if (c->matrix > 1) {
            return zkp_diag_fail(diag, ZKPIPE_ERR_OUT_OF_RANGE,
                                 "%s: section 4 (coefficients): entry %zu: matrix %" PRIu32
                                 ", expected 0 (A) or 1 (B)",
                                 ctx->name, i, c->matrix);
        }
        if (c->constraint >= pk->domain_size) {
            return zkp_diag_fail(diag, ZKPIPE_ERR_OUT_OF_RANGE,
                                 "%s: section 4 (coefficients): entry %zu: constraint %" PRIu32
                                 " is outside the domain of size %" PRIu32,
                                 ctx->name, i, c->constraint, pk->domain_size);
        }
        if (c->signal >= pk->n_vars) {
            return zkp_diag_fail(diag, ZKPIPE_ERR_OUT_OF_RANGE,
                                 "%s: section 4 (coefficients): entry %zu: signal %" PRIu32
                                 " but the key has %" PRIu32 " variables",
                                 ctx->name, i, c->signal, pk->n_vars);
        }
        /* The raw bytes are the element's representation (groth16_impl.h):
         * no conversion, only the range check. */
        for (int l = 0; l < ZK_R_BYTES / 8; l++) c->value.l[l] = zkp_le64(p + 12 + 8 * l);
        if (!ZK_FR_FN(is_reduced)(&c->value)) {
            return zkp_diag_fail(diag, ZKPIPE_ERR_NON_CANONICAL,
                                 "%s: section 4 (coefficients): entry %zu: value is not below "
                                 "the scalar field modulus r",
                                 ctx->name, i);
        }
    }
    pk->coefs = coefs;
    return ZKPIPE_OK;
}

/* On input: ctx->sec holds every section (2..10 found exactly once), the
 * header's primes are this curve's and hdr_used bytes of section 2 (n8q, q,
 * n8r, r) are consumed. */
static zkpipe_status ZK_FN(parse)(zkp_zkey *key, zkey_ctx *ctx, size_t hdr_used, zkp_diag *diag) {
    ZK_PK *pk = &key->pk.ZK_CURVE;
    const size_t g1 = sizeof(ZK_G1A), g2 = sizeof(ZK_G2A);
    zkpipe_status st;

    const zkp_binfile_section *hs = &ctx->sec[ZKEY_HEADER];
    st =
        zkp_binfile_expect_size(ctx->bf, hs, "header", hdr_used + 12 + 3 * g1 + 3 * g2, 0, 0, diag);
    if (st != ZKPIPE_OK) return st;
    const uint8_t *pos = zkp_binfile_body(ctx->bf, hs) + hdr_used;
    pk->n_vars = zkp_le32(pos);
    pk->n_public = zkp_le32(pos + 4);
    pk->domain_size = zkp_le32(pos + 8);
    pos += 12;
    if ((uint64_t)pk->n_public + 1 > pk->n_vars) {
        return zkp_diag_fail(diag, ZKPIPE_ERR_OUT_OF_RANGE,
                             "%s: section 2 (header): %" PRIu32
                             " public signals need at least %" PRIu64
                             " variables, the key has %" PRIu32,
                             ctx->name, pk->n_public, (uint64_t)pk->n_public + 1, pk->n_vars);
    }
    uint32_t d = pk->domain_size;
    unsigned log_d = d ? (unsigned)__builtin_ctz(d) : 0;
    if (d < 2 || (d & (d - 1)) != 0 || log_d > ZKP_CAT(ZK_FR_PARAM, _TWO_ADICITY)) {
        return zkp_diag_fail(diag, ZKPIPE_ERR_OUT_OF_RANGE,
                             "%s: section 2 (header): domain size %" PRIu32
                             " is not a power of two between 2 and 2^%d",
                             ctx->name, d, ZKP_CAT(ZK_FR_PARAM, _TWO_ADICITY));
    }
    pk->log_domain = log_d;

    /* snarkjs's order, which is not the order of the pk struct. */
    ZK_HEADER_POINT(ZK_G1, pk->alpha1, "vk_alpha_1");
    ZK_HEADER_POINT(ZK_G1, pk->beta1, "vk_beta_1");
    ZK_HEADER_POINT(ZK_G2, pk->beta2, "vk_beta_2");
    ZK_HEADER_POINT(ZK_G2, pk->gamma2, "vk_gamma_2");
    ZK_HEADER_POINT(ZK_G1, pk->delta1, "vk_delta_1");
    ZK_HEADER_POINT(ZK_G2, pk->delta2, "vk_delta_2");

    /* Every size before any allocation: a count in the header can then
     * never make us allocate more than the file holds. */
    const zkp_binfile_section *cs = &ctx->sec[ZKEY_COEFS];
    if (cs->size < 4) {
        return zkp_diag_fail(diag, ZKPIPE_ERR_SECTION_SIZE,
                             "%s: section 4 (coefficients): %zu bytes, too short to hold the count",
                             ctx->name, cs->size);
    }
    const size_t n_private = (size_t)pk->n_vars - pk->n_public - 1;
    const struct {
        int section;
        size_t fixed;
        uint64_t count;
        size_t elem;
    } sizes[] = {
        {ZKEY_IC, 0, (uint64_t)pk->n_public + 1, g1},
        {ZKEY_COEFS, 4, zkp_le32(zkp_binfile_body(ctx->bf, cs)), 12 + ZK_R_BYTES},
        {ZKEY_A, 0, pk->n_vars, g1},
        {ZKEY_B1, 0, pk->n_vars, g1},
        {ZKEY_B2, 0, pk->n_vars, g2},
        {ZKEY_C, 0, n_private, g1},
        {ZKEY_H, 0, pk->domain_size, g1},
    };
    for (size_t i = 0; i < ZKP_ARRAY_LEN(sizes); i++) {
        st = zkp_binfile_expect_size(ctx->bf, &ctx->sec[sizes[i].section],
                                     zkey_section_name(sizes[i].section), sizes[i].fixed,
                                     sizes[i].count, sizes[i].elem, diag);
        if (st != ZKPIPE_OK) return st;
    }

    if ((st = ZK_FN(coefs)(key, ctx, pk, diag)) != ZKPIPE_OK) return st;

    /* IC enters every verification, so it is always subgroup-checked; the
     * rest only on request (zkey.h). */
    const zkey_point_check_fn check_g1 = ZKP_CAT(ZK_G1, _zkey_check_point);
    const zkey_point_check_fn check_g2 = ZKP_CAT(ZK_G2, _zkey_check_point);
    const size_t align1 = _Alignof(ZK_G1A), align2 = _Alignof(ZK_G2A);
    const int sub = ctx->opt.check_subgroup;
    const struct {
        int section;
        size_t count;
        size_t elem;
        size_t align;
        zkey_point_check_fn check;
        int subgroup;
    } points[] = {
        {ZKEY_IC, (size_t)pk->n_public + 1, g1, align1, check_g1, 1},
        {ZKEY_A, pk->n_vars, g1, align1, check_g1, sub},
        {ZKEY_B1, pk->n_vars, g1, align1, check_g1, sub},
        {ZKEY_B2, pk->n_vars, g2, align2, check_g2, sub},
        {ZKEY_C, n_private, g1, align1, check_g1, sub},
        {ZKEY_H, pk->domain_size, g1, align1, check_g1, sub},
    };
    const void *where[ZKP_ARRAY_LEN(points)];
    for (size_t i = 0; i < ZKP_ARRAY_LEN(points); i++) {
        st = zkey_place_points(key, ctx, points[i].section, points[i].align, &where[i], diag);
        if (st != ZKPIPE_OK) return st;
        st = zkey_check_points(ctx, points[i].section, where[i], points[i].count, points[i].elem,
                               points[i].check, points[i].subgroup, diag);
        if (st != ZKPIPE_OK) return st;
    }
    pk->ic = where[0];
    pk->a = where[1];
    pk->b1 = where[2];
    pk->b2 = where[3];
    pk->c = where[4];
    pk->h = where[5];
    return ZKPIPE_OK;
}


#undef ZK_HEADER_POINT
#undef ZK_FN
#undef ZK_PK
#undef ZK_COEF
#undef ZK_G1A
#undef ZK_G2A
#undef ZK_FRT
#undef ZK_FR_FN
#undef ZK_Q_BYTES
#undef ZK_R_BYTES
#undef ZK_CURVE
#undef ZK_G1
#undef ZK_G2
#undef ZK_FQ
#undef ZK_FQ_PARAM
#undef ZK_FR
#undef ZK_FR_PARAM
