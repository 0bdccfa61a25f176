/* The binary formats layer: the binfile container, .wtns, .r1cs and .zkey.
 *
 * Valid files are built in memory by a small writer (sections as separate
 * byte buffers, assembled on demand), with points made by the curve layer,
 * so each malformed variant is one edit away from a valid file. Every parse
 * reads from a heap copy of exactly the file's length, so AddressSanitizer
 * turns any read past the end into a failure. Real files made by circom and
 * snarkjs are tested too when tests/fixtures/<shape>_small_<curve>/ exist. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "curve/curve.h"
#include "curve/encoding.h"
#include "field/field.h"
#include "formats/binfile.h"
#include "formats/r1cs.h"
#include "formats/wtns.h"
#include "formats/zkey.h"
#include "test.h"
#include "test_support.h"
#include "util/mapped_file.h"
#include "zkpipe/curve.h"

/* ------------------------------------------------------------ bytes */

typedef struct {
    uint8_t *p;
    size_t len, cap;
} tbuf;

static void tb_put(tbuf *b, const void *data, size_t n) {
    if (b->len + n > b->cap) {
        size_t cap = b->cap ? b->cap : 64;
        while (cap < b->len + n) cap *= 2;
        b->p = realloc(b->p, cap);
        ASSERT(b->p != NULL);
        b->cap = cap;
    }
    if (n) memcpy(b->p + b->len, data, n);
    b->len += n;
}
static void tb_u32(tbuf *b, uint32_t v) {
    uint8_t t[4];
    for (int i = 0; i < 4; i++) t[i] = (uint8_t)(v >> (8 * i));
    tb_put(b, t, 4);
}
static void tb_u64(tbuf *b, uint64_t v) {
    tb_u32(b, (uint32_t)v);
    tb_u32(b, (uint32_t)(v >> 32));
}
static void tb_limbs(tbuf *b, const uint64_t *limbs, size_t n) {
    for (size_t i = 0; i < n; i++) tb_u64(b, limbs[i]);
}
static void tb_free(tbuf *b) {
    free(b->p);
    memset(b, 0, sizeof *b);
}
static void put_le32(uint8_t *p, uint32_t v) {
    for (int i = 0; i < 4; i++) p[i] = (uint8_t)(v >> (8 * i));
}
static void put_le64(uint8_t *p, uint64_t v) {
    put_le32(p, (uint32_t)v);
    put_le32(p + 4, (uint32_t)(v >> 32));
}

/* ------------------------------------------------------------ binfile writer */

#define TMAX_SECS 16

typedef struct {
    uint32_t type;
    tbuf body;
} tsec;

typedef struct {
    char magic[4];
    uint32_t version;
    unsigned n;
    tsec s[TMAX_SECS];
} tfile;

static void tf_init(tfile *f, const char *magic, uint32_t version) {
    memset(f, 0, sizeof *f);
    memcpy(f->magic, magic, 4);
    f->version = version;
}
static tbuf *tf_add(tfile *f, uint32_t type) {
    ASSERT(f->n < TMAX_SECS);
    f->s[f->n].type = type;
    memset(&f->s[f->n].body, 0, sizeof(tbuf));
    return &f->s[f->n++].body;
}
static tbuf *tf_body(tfile *f, uint32_t type) {
    for (unsigned i = 0; i < f->n; i++)
        if (f->s[i].type == type) return &f->s[i].body;
    test_fail(__FILE__, __LINE__, "no section %u in the test file", type);
}
static void tf_remove(tfile *f, uint32_t type) {
    for (unsigned i = 0; i < f->n; i++) {
        if (f->s[i].type != type) continue;
        tb_free(&f->s[i].body);
        memmove(&f->s[i], &f->s[i + 1], (f->n - i - 1) * sizeof(tsec));
        f->n--;
        return;
    }
}
static void tf_duplicate(tfile *f, uint32_t type) {
    tbuf *src = tf_body(f, type);
    tbuf copy = {0};
    tb_put(&copy, src->p, src->len);
    tbuf *dst = tf_add(f, type);
    *dst = copy;
}
static void tf_copy(tfile *dst, const tfile *src) {
    *dst = *src;
    for (unsigned i = 0; i < src->n; i++) {
        memset(&dst->s[i].body, 0, sizeof(tbuf));
        tb_put(&dst->s[i].body, src->s[i].body.p, src->s[i].body.len);
    }
}
static void tf_free(tfile *f) {
    for (unsigned i = 0; i < f->n; i++) tb_free(&f->s[i].body);
    f->n = 0;
}

/* A serialized file and the offsets where one part ends and the next
 * begins: the end of the file header, and each section's header and body. */
typedef struct {
    uint8_t *p;
    size_t len;
    size_t bounds[2 * TMAX_SECS + 2];
    size_t nbounds;
    size_t section_at[TMAX_SECS]; /* offset of section i's header */
} tbytes;

static void tf_build(const tfile *f, tbytes *out) {
    tbuf b = {0};
    memset(out, 0, sizeof *out);
    tb_put(&b, f->magic, 4);
    tb_u32(&b, f->version);
    tb_u32(&b, f->n);
    out->bounds[out->nbounds++] = b.len;
    for (unsigned i = 0; i < f->n; i++) {
        out->section_at[i] = b.len;
        tb_u32(&b, f->s[i].type);
        tb_u64(&b, f->s[i].body.len);
        out->bounds[out->nbounds++] = b.len;
        tb_put(&b, f->s[i].body.p, f->s[i].body.len);
        out->bounds[out->nbounds++] = b.len;
    }
    out->p = b.p;
    out->len = b.len;
}
static void tbytes_free(tbytes *t) {
    free(t->p);
    memset(t, 0, sizeof *t);
}

/* An exact-length heap copy (at least one byte allocated, so an empty file
 * still has a valid pointer); ASan flags a read at p[len]. */
static uint8_t *exact_copy(const uint8_t *data, size_t len) {
    uint8_t *p = malloc(len ? len : 1);
    ASSERT(p != NULL);
    if (len) memcpy(p, data, len);
    return p;
}

static int contains(const char *haystack, const char *needle) {
    return strstr(haystack, needle) != NULL;
}

/* ------------------------------------------------------------ curves */

typedef struct {
    zkpipe_curve curve;
    const char *name;
    size_t q_bytes;
    const uint64_t *q; /* limbs of the base field modulus */
    const uint64_t *r; /* limbs of the scalar field modulus */
    unsigned two_adicity;
} tcurve;

static const tcurve tcurves[2] = {
    {ZKPIPE_CURVE_BN254, "bn254", 32, bn254_fq_modulus.l, bn254_fr_modulus.l, BN254_FR_TWO_ADICITY},
    {ZKPIPE_CURVE_BLS12_381, "bls12_381", 48, bls12_381_fp_modulus.l, bls12_381_fr_modulus.l,
     BLS12_381_FR_TWO_ADICITY},
};

static size_t g1_bytes(const tcurve *c) { return 2 * c->q_bytes; }
static size_t g2_bytes(const tcurve *c) { return 4 * c->q_bytes; }

/* A few points [k]G per group and curve, made once: the sections cycle
 * through them. Entry 0 is the point at infinity (all zeros). */
#define TPOOL 8
static uint8_t g1_pool[2][TPOOL][96];
static uint8_t g2_pool[2][TPOOL][192];
static int pool_ready[2];

static void scalar_be(uint8_t out[32], uint64_t k) {
    memset(out, 0, 32);
    for (int i = 0; i < 8; i++) out[31 - i] = (uint8_t)(k >> (8 * i));
}

static void make_pool(const tcurve *c) {
    int ci = c->curve == ZKPIPE_CURVE_BN254 ? 0 : 1;
    if (pool_ready[ci]) return;
    zkpipe_g1 g1, p1;
    zkpipe_g2 g2, p2;
    ASSERT_OK(zkpipe_g1_generator(c->curve, &g1));
    ASSERT_OK(zkpipe_g2_generator(c->curve, &g2));
    memset(g1_pool[ci][0], 0, sizeof g1_pool[ci][0]);
    memset(g2_pool[ci][0], 0, sizeof g2_pool[ci][0]);
    for (int k = 1; k < TPOOL; k++) {
        uint8_t s[32];
        scalar_be(s, (uint64_t)k * 0x9e3779b97f4a7c15ULL);
        ASSERT_OK(zkpipe_g1_mul(c->curve, &p1, &g1, s));
        ASSERT_OK(zkpipe_g2_mul(c->curve, &p2, &g2, s));
        ASSERT_OK(zkpipe_g1_encode(c->curve, g1_pool[ci][k], 96, ZKPIPE_ENCODING_CIRCOM, &p1));
        ASSERT_OK(zkpipe_g2_encode(c->curve, g2_pool[ci][k], 192, ZKPIPE_ENCODING_CIRCOM, &p2));
    }
    pool_ready[ci] = 1;
}
static const uint8_t *g1_point(const tcurve *c, size_t k) {
    make_pool(c);
    return g1_pool[c->curve == ZKPIPE_CURVE_BN254 ? 0 : 1][k % TPOOL];
}
static const uint8_t *g2_point(const tcurve *c, size_t k) {
    make_pool(c);
    return g2_pool[c->curve == ZKPIPE_CURVE_BN254 ? 0 : 1][k % TPOOL];
}

/* A point on the curve but outside the prime-order subgroup, in the circom
 * layout: a random x whose x^3 + b is a square, and its root; such a point
 * lies in the subgroup with probability 1/cofactor, so try until one does
 * not. (bn254_g1 has cofactor 1 and no such point.) */
#define DEFINE_OFF_SUBGROUP(G, F, BASE)                                                            \
    static void G##_off_subgroup(uint8_t *out) {                                                   \
        for (;;) {                                                                                 \
            G##_affine_t p;                                                                        \
            BASE##_t *coord = (BASE##_t *)&p.x;                                                    \
            for (size_t i = 0; i < sizeof(p.x) / sizeof(BASE##_t); i++)                            \
                BASE##_set_u64(&coord[i], test_rng_u64());                                         \
            F##_t rhs;                                                                             \
            F##_sqr(&rhs, &p.x);                                                                   \
            F##_mul(&rhs, &rhs, &p.x);                                                             \
            F##_add(&rhs, &rhs, &G##_b);                                                           \
            if (!F##_sqrt_var(&p.y, &rhs)) continue;                                               \
            ASSERT(G##_affine_is_on_curve(&p));                                                    \
            if (G##_affine_in_subgroup_var(&p)) continue;                                          \
            G##_affine_to_circom(out, &p);                                                         \
            return;                                                                                \
        }                                                                                          \
    }
DEFINE_OFF_SUBGROUP(bls12_381_g1, bls12_381_fp, bls12_381_fp)
DEFINE_OFF_SUBGROUP(bls12_381_g2, bls12_381_fp2, bls12_381_fp)
DEFINE_OFF_SUBGROUP(bn254_g2, bn254_fq2, bn254_fq)
#undef DEFINE_OFF_SUBGROUP

/* A canonical scalar below 2^252 (so below r of both curves), from the
 * test generator. */
static void random_scalar(uint64_t out[4]) {
    for (int i = 0; i < 4; i++) out[i] = test_rng_u64();
    out[3] &= 0x0fffffffffffffffULL;
}

/* ------------------------------------------------------------ wtns writer */

static void build_wtns(tfile *f, const tcurve *c, uint32_t n, uint64_t *values /* 4n, out */) {
    tf_init(f, "wtns", 2);
    tbuf *h = tf_add(f, 1);
    tb_u32(h, 32);
    tb_limbs(h, c->r, 4);
    tb_u32(h, n);
    tbuf *v = tf_add(f, 2);
    for (uint32_t i = 0; i < n; i++) {
        uint64_t x[4];
        random_scalar(x);
        if (i == 0) memcpy(x, (uint64_t[4]){1, 0, 0, 0}, sizeof x);
        if (i == n - 1 && n > 1) { /* the largest canonical value: r - 1 */
            memcpy(x, c->r, sizeof x);
            x[0] -= 1;
        }
        tb_limbs(v, x, 4);
        if (values) memcpy(values + 4 * i, x, sizeof x);
    }
}

static zkpipe_status wtns_status(const tfile *f, zkp_diag *d) {
    tbytes t;
    tf_build(f, &t);
    uint8_t *copy = exact_copy(t.p, t.len);
    zkp_wtns w;
    zkpipe_status st = zkp_wtns_parse(&w, copy, t.len, "witness.wtns", NULL, d);
    zkp_wtns_free(&w);
    free(copy);
    tbytes_free(&t);
    return st;
}

/* ------------------------------------------------------------ r1cs writer */

/* The coefficient of term k of linear combination m of constraint i:
 * deterministic, so the iteration test can recompute it. */
static void r1cs_coef(const tcurve *c, uint32_t i, int m, uint32_t k, uint64_t out[4]) {
    out[0] = 1 + i * 1000 + (uint64_t)m * 100 + k;
    out[1] = out[2] = out[3] = 0;
    if (i == 0 && m == 0 && k == 0) { /* r - 1: the largest canonical value */
        memcpy(out, c->r, 4 * sizeof(uint64_t));
        out[0] -= 1;
    }
}
static uint32_t r1cs_nterms(uint32_t i, int m) { return m == 0 ? 1 + i % 3 : m == 1 ? 1 : i % 2; }
static uint32_t r1cs_wire(uint32_t i, int m, uint32_t k, uint32_t n_wires) {
    return (uint32_t)((i * 7 + (uint32_t)m * 3 + k) % n_wires);
}

typedef struct {
    uint32_t n_wires, n_pub_out, n_pub_in, n_prv_in, n_constraints;
    uint64_t n_labels;
} r1cs_dims;

static const r1cs_dims r1cs_default = {9, 1, 2, 3, 5, 12};

static void build_r1cs(tfile *f, const tcurve *c, const r1cs_dims *dm) {
    tf_init(f, "r1cs", 1);
    tbuf *h = tf_add(f, 1);
    tb_u32(h, 32);
    tb_limbs(h, c->r, 4);
    tb_u32(h, dm->n_wires);
    tb_u32(h, dm->n_pub_out);
    tb_u32(h, dm->n_pub_in);
    tb_u32(h, dm->n_prv_in);
    tb_u64(h, dm->n_labels);
    tb_u32(h, dm->n_constraints);
    tbuf *cs = tf_add(f, 2);
    for (uint32_t i = 0; i < dm->n_constraints; i++) {
        for (int m = 0; m < 3; m++) {
            uint32_t n = r1cs_nterms(i, m);
            tb_u32(cs, n);
            for (uint32_t k = 0; k < n; k++) {
                uint64_t coef[4];
                r1cs_coef(c, i, m, k, coef);
                tb_u32(cs, r1cs_wire(i, m, k, dm->n_wires));
                tb_limbs(cs, coef, 4);
            }
        }
    }
    tbuf *map = tf_add(f, 3);
    for (uint32_t w = 0; w < dm->n_wires; w++) tb_u64(map, (uint64_t)w * 2 % dm->n_labels);
}

static zkpipe_status r1cs_status(const tfile *f, zkp_diag *d) {
    tbytes t;
    tf_build(f, &t);
    uint8_t *copy = exact_copy(t.p, t.len);
    zkp_r1cs r;
    zkpipe_status st = zkp_r1cs_parse(&r, copy, t.len, "circuit.r1cs", d);
    zkp_r1cs_free(&r);
    free(copy);
    tbytes_free(&t);
    return st;
}

/* ------------------------------------------------------------ zkey writer */

enum { S_PROTOCOL = 1, S_HEADER, S_IC, S_COEFS, S_A, S_B1, S_B2, S_C, S_H, S_CONTRIB };

typedef struct {
    uint32_t n_vars, n_public, domain;
} zkey_dims;

static const zkey_dims zkey_default = {7, 2, 8};

/* The header's byte offsets of its fields, given the curve. */
static size_t hdr_off_nvars(const tcurve *c) { return 4 + c->q_bytes + 4 + 32; }
static size_t hdr_off_points(const tcurve *c) { return hdr_off_nvars(c) + 12; }

/* Section order as snarkjs's zkey new writes it: 10 and 9 come early. */
static void build_zkey(tfile *f, const tcurve *c, const zkey_dims *dm) {
    tf_init(f, "zkey", 1);
    tb_u32(tf_add(f, S_PROTOCOL), 1);

    tbuf *h = tf_add(f, S_HEADER);
    tb_u32(h, (uint32_t)c->q_bytes);
    tb_limbs(h, c->q, c->q_bytes / 8);
    tb_u32(h, 32);
    tb_limbs(h, c->r, 4);
    tb_u32(h, dm->n_vars);
    tb_u32(h, dm->n_public);
    tb_u32(h, dm->domain);
    tb_put(h, g1_point(c, 1), g1_bytes(c)); /* alpha1 */
    tb_put(h, g1_point(c, 2), g1_bytes(c)); /* beta1 */
    tb_put(h, g2_point(c, 2), g2_bytes(c)); /* beta2 */
    tb_put(h, g2_point(c, 3), g2_bytes(c)); /* gamma2 */
    tb_put(h, g1_point(c, 4), g1_bytes(c)); /* delta1 */
    tb_put(h, g2_point(c, 4), g2_bytes(c)); /* delta2 */

    tb_u32(tf_add(f, S_CONTRIB), 0);

    tbuf *hs = tf_add(f, S_H);
    for (uint32_t i = 0; i < dm->domain; i++) tb_put(hs, g1_point(c, 3 + i), g1_bytes(c));

    tbuf *co = tf_add(f, S_COEFS);
    uint32_t n_coefs = dm->n_vars + 1;
    tb_u32(co, n_coefs);
    for (uint32_t i = 0; i < n_coefs; i++) {
        uint64_t v[4];
        random_scalar(v);
        if (i == n_coefs - 1) { /* r - 1 */
            memcpy(v, c->r, sizeof v);
            v[0] -= 1;
        }
        tb_u32(co, i % 2);
        tb_u32(co, i % dm->domain);
        tb_u32(co, i % dm->n_vars);
        tb_limbs(co, v, 4);
    }

    tbuf *ic = tf_add(f, S_IC);
    for (uint32_t i = 0; i <= dm->n_public; i++) tb_put(ic, g1_point(c, 1 + i), g1_bytes(c));
    /* A[0] is the point at infinity, as snarkjs writes for an unused signal. */
    tbuf *a = tf_add(f, S_A);
    for (uint32_t i = 0; i < dm->n_vars; i++) tb_put(a, g1_point(c, i), g1_bytes(c));
    tbuf *b1 = tf_add(f, S_B1);
    for (uint32_t i = 0; i < dm->n_vars; i++) tb_put(b1, g1_point(c, 5 + i), g1_bytes(c));
    tbuf *b2 = tf_add(f, S_B2);
    for (uint32_t i = 0; i < dm->n_vars; i++) tb_put(b2, g2_point(c, i), g2_bytes(c));
    tbuf *cc = tf_add(f, S_C);
    for (uint32_t i = 0; i + dm->n_public + 1 < dm->n_vars; i++)
        tb_put(cc, g1_point(c, 2 + i), g1_bytes(c));
}

static zkpipe_status zkey_status_opt(const tfile *f, const zkp_zkey_options *opt, zkp_diag *d) {
    tbytes t;
    tf_build(f, &t);
    uint8_t *copy = exact_copy(t.p, t.len);
    zkp_zkey key;
    zkpipe_status st = zkp_zkey_parse(&key, copy, t.len, "circuit.zkey", opt, d);
    zkp_zkey_free(&key);
    free(copy);
    tbytes_free(&t);
    return st;
}
static zkpipe_status zkey_status(const tfile *f, zkp_diag *d) {
    return zkey_status_opt(f, NULL, d);
}

/* The points of section s as the key holds them, and their count. */
static const void *pk_points(const zkp_zkey *key, int s) {
    if (key->curve == ZKPIPE_CURVE_BN254) {
        const bn254_g16_pk_t *pk = &key->pk.bn254;
        switch (s) {
        case S_IC:
            return pk->ic;
        case S_A:
            return pk->a;
        case S_B1:
            return pk->b1;
        case S_B2:
            return pk->b2;
        case S_C:
            return pk->c;
        case S_H:
            return pk->h;
        }
    } else {
        const bls12_381_g16_pk_t *pk = &key->pk.bls12_381;
        switch (s) {
        case S_IC:
            return pk->ic;
        case S_A:
            return pk->a;
        case S_B1:
            return pk->b1;
        case S_B2:
            return pk->b2;
        case S_C:
            return pk->c;
        case S_H:
            return pk->h;
        }
    }
    return NULL;
}

/* ------------------------------------------------------------ binfile */

TEST_CASE(formats_binfile_parses_sections) {
    tfile f;
    tf_init(&f, "test", 3);
    tb_u32(tf_add(&f, 7), 0xdeadbeef);
    tf_add(&f, 2); /* empty */
    tb_u64(tf_add(&f, 9), 42);
    tbytes t;
    tf_build(&f, &t);
    uint8_t *copy = exact_copy(t.p, t.len);
    zkp_binfile bf;
    zkp_diag d = {{0}};
    ASSERT_OK(zkp_binfile_parse(&bf, copy, t.len, "test", 3, "x.bin", &d));
    ASSERT_EQ_U64(bf.n_sections, 3);
    zkp_binfile_section s;
    ASSERT_OK(zkp_binfile_unique(&bf, 7, "seven", &s, &d));
    ASSERT_EQ_U64(s.size, 4);
    ASSERT_EQ_U64(zkp_le32(zkp_binfile_body(&bf, &s)), 0xdeadbeef);
    ASSERT_OK(zkp_binfile_unique(&bf, 2, "two", &s, &d));
    ASSERT_EQ_U64(s.size, 0);
    ASSERT_OK(zkp_binfile_unique(&bf, 9, "nine", &s, &d));
    ASSERT_EQ_U64(zkp_le64(zkp_binfile_body(&bf, &s)), 42);
    ASSERT_EQ_STATUS(zkp_binfile_unique(&bf, 1, "one", &s, &d), ZKPIPE_ERR_SECTION_MISSING);
    ASSERT_MSG(contains(d.msg, "x.bin: section 1 (one) is missing"), "%s", d.msg);
    ASSERT_OK(zkp_binfile_expect_size(&bf, &s, "nine", 0, 1, 8, &d));
    ASSERT_OK(zkp_binfile_expect_size(&bf, &s, "nine", 8, 0, 0, &d));
    ASSERT_EQ_STATUS(zkp_binfile_expect_size(&bf, &s, "nine", 0, 2, 4, &d), ZKPIPE_OK);
    ASSERT_EQ_STATUS(zkp_binfile_expect_size(&bf, &s, "nine", 0, 3, 4, &d),
                     ZKPIPE_ERR_SECTION_SIZE);
    ASSERT_MSG(contains(d.msg, "section 9 (nine): expected 12 bytes (3 × 4), found 8"), "%s",
               d.msg);
    /* Products that wrap a 64-bit size are reported, not truncated. */
    ASSERT_EQ_STATUS(zkp_binfile_expect_size(&bf, &s, "nine", 0, UINT64_C(1) << 62, 8, &d),
                     ZKPIPE_ERR_SECTION_SIZE);
    ASSERT_MSG(contains(d.msg, "overflows"), "%s", d.msg);
    ASSERT_EQ_STATUS(zkp_binfile_expect_size(&bf, &s, "nine", SIZE_MAX, 1, 1, &d),
                     ZKPIPE_ERR_SECTION_SIZE);
    /* Trailing bytes after the last section are ignored, as iden3's readers do. */
    uint8_t *longer = malloc(t.len + 3);
    memcpy(longer, t.p, t.len);
    memset(longer + t.len, 0xee, 3);
    ASSERT_OK(zkp_binfile_parse(&bf, longer, t.len + 3, "test", 3, "x.bin", &d));
    free(longer);
    /* Duplicates. */
    tf_duplicate(&f, 7);
    tbytes t2;
    tf_build(&f, &t2);
    ASSERT_OK(zkp_binfile_parse(&bf, t2.p, t2.len, "test", 3, "x.bin", &d));
    ASSERT_EQ_U64(zkp_binfile_count(&bf, 7), 2);
    ASSERT_EQ_STATUS(zkp_binfile_unique(&bf, 7, "seven", &s, &d), ZKPIPE_ERR_SECTION_MISSING);
    ASSERT_MSG(contains(d.msg, "appears 2 times"), "%s", d.msg);
    tbytes_free(&t2);
    free(copy);
    tbytes_free(&t);
    tf_free(&f);
}

TEST_CASE(formats_binfile_rejects_bad_containers) {
    tfile f;
    tf_init(&f, "test", 1);
    tb_u32(tf_add(&f, 1), 5);
    tb_u64(tf_add(&f, 2), 6);
    tbytes t;
    tf_build(&f, &t);
    zkp_binfile bf;
    zkp_diag d = {{0}};

    /* Every shorter length fails as truncated, and only that way. */
    for (size_t cut = 0; cut < t.len; cut++) {
        uint8_t *p = exact_copy(t.p, cut);
        ASSERT_EQ_STATUS(zkp_binfile_parse(&bf, p, cut, "test", 1, "x.bin", &d),
                         ZKPIPE_ERR_TRUNCATED);
        free(p);
    }
    ASSERT_EQ_STATUS(zkp_binfile_parse(&bf, NULL, 0, "test", 1, "x.bin", &d), ZKPIPE_ERR_TRUNCATED);

    uint8_t *p = exact_copy(t.p, t.len);
    p[0] = 'T';
    ASSERT_EQ_STATUS(zkp_binfile_parse(&bf, p, t.len, "test", 1, "x.bin", &d),
                     ZKPIPE_ERR_BAD_MAGIC);
    ASSERT_MSG(contains(d.msg, "x.bin") && contains(d.msg, "\"Test\""), "%s", d.msg);
    p[0] = 't';
    put_le32(p + 4, 2);
    ASSERT_EQ_STATUS(zkp_binfile_parse(&bf, p, t.len, "test", 1, "x.bin", &d),
                     ZKPIPE_ERR_BAD_VERSION);
    ASSERT_MSG(contains(d.msg, "version 2"), "%s", d.msg);
    put_le32(p + 4, 1);
    /* More sections than the bound, and more than the file holds. */
    put_le32(p + 8, ZKP_BINFILE_MAX_SECTIONS + 1);
    ASSERT_EQ_STATUS(zkp_binfile_parse(&bf, p, t.len, "test", 1, "x.bin", &d),
                     ZKPIPE_ERR_OUT_OF_RANGE);
    put_le32(p + 8, 0xffffffff);
    ASSERT_EQ_STATUS(zkp_binfile_parse(&bf, p, t.len, "test", 1, "x.bin", &d),
                     ZKPIPE_ERR_OUT_OF_RANGE);
    put_le32(p + 8, 3);
    ASSERT_EQ_STATUS(zkp_binfile_parse(&bf, p, t.len, "test", 1, "x.bin", &d),
                     ZKPIPE_ERR_TRUNCATED);
    ASSERT_MSG(contains(d.msg, "#3 of 3"), "%s", d.msg);
    put_le32(p + 8, 2);
    ASSERT_OK(zkp_binfile_parse(&bf, p, t.len, "test", 1, "x.bin", &d));
    /* Section sizes one past the end, and ones that would wrap offset + size. */
    size_t size_at = t.section_at[1] + 4;
    put_le64(p + size_at, 9);
    ASSERT_EQ_STATUS(zkp_binfile_parse(&bf, p, t.len, "test", 1, "x.bin", &d),
                     ZKPIPE_ERR_TRUNCATED);
    ASSERT_MSG(contains(d.msg, "declares 9 bytes, but only 8 remain"), "%s", d.msg);
    const uint64_t huge[] = {UINT64_MAX, UINT64_MAX - 20, UINT64_C(1) << 63, UINT64_C(1) << 32};
    for (size_t i = 0; i < ZKP_ARRAY_LEN(huge); i++) {
        put_le64(p + size_at, huge[i]);
        ASSERT_EQ_STATUS(zkp_binfile_parse(&bf, p, t.len, "test", 1, "x.bin", &d),
                         ZKPIPE_ERR_TRUNCATED);
        put_le64(p + t.section_at[0] + 4, huge[i]);
        ASSERT_EQ_STATUS(zkp_binfile_parse(&bf, p, t.len, "test", 1, "x.bin", &d),
                         ZKPIPE_ERR_TRUNCATED);
        put_le64(p + t.section_at[0] + 4, 4);
    }
    /* Section 1's size too small by 2: the walk lands inside its body and
     * reads garbage as the next header. The message names the section
     * whose size is suspect, never the garbage as a section number. */
    put_le64(p + size_at, 8);
    uint8_t *q = exact_copy(p, t.len);
    put_le64(q + t.section_at[0] + 4, 2);
    put_le32(q + t.section_at[0] + 12 + 2, 0xdeadbeef);
    ASSERT_EQ_STATUS(zkp_binfile_parse(&bf, q, t.len, "test", 1, "x.bin", &d), ZKPIPE_ERR_TRUNCATED);
    ASSERT_MSG(contains(d.msg, "no valid section header #2 of 2") &&
                   contains(d.msg, "the size of section 1 (#1, 2 bytes") &&
                   !contains(d.msg, "section 3735928559"),
               "%s", d.msg);
    free(q);
    free(p);
    tbytes_free(&t);
    tf_free(&f);
}

/* ------------------------------------------------------------ mapped files */

static void make_tmpdir(char *out, size_t cap) {
    const char *base = getenv("TMPDIR");
    if (base == NULL || base[0] == '\0') base = "/tmp";
    snprintf(out, cap, "%s/zkp_formats_XXXXXX", base);
    ASSERT_MSG(mkdtemp(out) != NULL, "mkdtemp(%s): %s", out, strerror(errno));
}
static void write_file(const char *path, const void *data, size_t len) {
    FILE *fp = fopen(path, "wb");
    ASSERT_MSG(fp != NULL, "fopen(%s): %s", path, strerror(errno));
    ASSERT(fwrite(data, 1, len, fp) == len);
    ASSERT(fclose(fp) == 0);
}

TEST_CASE(formats_mapped_file_open_close) {
    char dir[256], path[300];
    make_tmpdir(dir, sizeof dir);
    snprintf(path, sizeof path, "%s/data.bin", dir);
    uint8_t bytes[5000];
    test_rng_bytes(bytes, sizeof bytes);
    write_file(path, bytes, sizeof bytes);
    zkp_mapped_file mf;
    zkp_diag d = {{0}};
    ASSERT_OK(zkp_mapped_file_open(&mf, path, &d));
    ASSERT_EQ_U64(mf.size, sizeof bytes);
    ASSERT_MEM_EQ(mf.data, bytes, sizeof bytes);
    zkp_mapped_file_close(&mf);
    ASSERT(mf.data == NULL && mf.size == 0);
    zkp_mapped_file_close(&mf); /* twice is harmless */

    /* An empty file maps to a valid pointer and size 0. */
    write_file(path, bytes, 0);
    ASSERT_OK(zkp_mapped_file_open(&mf, path, &d));
    ASSERT(mf.data != NULL);
    ASSERT_EQ_U64(mf.size, 0);
    zkp_mapped_file_close(&mf);
    /* The parsers then report it as truncated, naming the file. */
    zkp_wtns w;
    ASSERT_EQ_STATUS(zkp_wtns_load(&w, path, NULL, &d), ZKPIPE_ERR_TRUNCATED);
    ASSERT_MSG(contains(d.msg, path), "%s", d.msg);
    unlink(path);

    /* A missing file and a directory: I/O errors naming the path. */
    ASSERT_EQ_STATUS(zkp_mapped_file_open(&mf, path, &d), ZKPIPE_ERR_IO);
    ASSERT_MSG(contains(d.msg, path) && contains(d.msg, "No such file"), "%s", d.msg);
    ASSERT_EQ_STATUS(zkp_mapped_file_open(&mf, dir, &d), ZKPIPE_ERR_IO);
    ASSERT_MSG(contains(d.msg, dir) && contains(d.msg, "not a regular file"), "%s", d.msg);
    zkp_zkey key;
    ASSERT_EQ_STATUS(zkp_zkey_load(&key, path, NULL, &d), ZKPIPE_ERR_IO);
    zkp_r1cs r;
    ASSERT_EQ_STATUS(zkp_r1cs_load(&r, path, &d), ZKPIPE_ERR_IO);
    ASSERT_EQ_STATUS(zkp_wtns_load(&w, path, NULL, &d), ZKPIPE_ERR_IO);
    rmdir(dir);
}

/* ------------------------------------------------------------ wtns */

TEST_CASE(formats_wtns_round_trip) {
    for (int ci = 0; ci < 2; ci++) {
        const tcurve *c = &tcurves[ci];
        const uint32_t n = 10;
        uint64_t expect[40];
        tfile f;
        build_wtns(&f, c, n, expect);
        tbytes t;
        tf_build(&f, &t);
        /* Every alignment of the input: section 2 is unaligned in real files. */
        for (size_t shift = 0; shift < 8; shift++) {
            uint8_t *buf = malloc(t.len + shift);
            memcpy(buf + shift, t.p, t.len);
            zkp_wtns w;
            zkp_diag d = {{0}};
            ASSERT_OK(zkp_wtns_parse(&w, buf + shift, t.len, "witness.wtns", NULL, &d));
            ASSERT_EQ_INT(w.curve, c->curve);
            ASSERT_EQ_U64(w.n_vars, n);
            ASSERT_MEM_EQ(w.values, expect, sizeof expect);
            ASSERT((uintptr_t)w.values % 8 == 0);
            zkp_wtns_free(&w);
            ASSERT(w.values == NULL);
            free(buf);
        }

        /* Through a file. */
        char dir[256], path[300];
        make_tmpdir(dir, sizeof dir);
        snprintf(path, sizeof path, "%s/witness.wtns", dir);
        write_file(path, t.p, t.len);
        zkp_wtns w;
        zkp_diag d = {{0}};
        ASSERT_OK(zkp_wtns_load(&w, path, NULL, &d));
        ASSERT_EQ_U64(w.n_vars, n);
        ASSERT_MEM_EQ(w.values, expect, sizeof expect);
        zkp_wtns_free(&w);
        unlink(path);
        rmdir(dir);
        tbytes_free(&t);
        tf_free(&f);
    }
}

TEST_CASE(formats_wtns_truncated_anywhere) {
    tfile f;
    build_wtns(&f, &tcurves[1], 10, NULL);
    tbytes t;
    tf_build(&f, &t);
    zkp_diag d = {{0}};
    /* Every section boundary, then every byte (the file is small). */
    for (size_t i = 0; i < t.nbounds; i++) {
        if (t.bounds[i] >= t.len) continue;
        uint8_t *p = exact_copy(t.p, t.bounds[i]);
        zkp_wtns w;
        ASSERT_EQ_STATUS(zkp_wtns_parse(&w, p, t.bounds[i], "witness.wtns", NULL, &d),
                         ZKPIPE_ERR_TRUNCATED);
        free(p);
    }
    for (size_t cut = 0; cut < t.len; cut++) {
        uint8_t *p = exact_copy(t.p, cut);
        zkp_wtns w;
        ASSERT_EQ_STATUS(zkp_wtns_parse(&w, p, cut, "witness.wtns", NULL, &d),
                         ZKPIPE_ERR_TRUNCATED);
        ASSERT(w.values == NULL);
        free(p);
    }
    tbytes_free(&t);
    tf_free(&f);
}

TEST_CASE(formats_wtns_malformed) {
    for (int ci = 0; ci < 2; ci++) {
        const tcurve *c = &tcurves[ci];
        tfile good, f;
        build_wtns(&good, c, 10, NULL);
        zkp_diag d = {{0}};
        ASSERT_OK(wtns_status(&good, &d));

        tf_copy(&f, &good);
        memcpy(f.magic, "zkey", 4);
        ASSERT_EQ_STATUS(wtns_status(&f, &d), ZKPIPE_ERR_BAD_MAGIC);
        tf_free(&f);

        tf_copy(&f, &good);
        f.version = 1;
        ASSERT_EQ_STATUS(wtns_status(&f, &d), ZKPIPE_ERR_BAD_VERSION);
        tf_free(&f);

        /* The size message, exactly as documented. */
        tf_copy(&f, &good);
        tf_body(&f, 2)->len -= 4;
        ASSERT_EQ_STATUS(wtns_status(&f, &d), ZKPIPE_ERR_SECTION_SIZE);
        ASSERT_STR_EQ(d.msg,
                      "witness.wtns: section 2 (values): expected 320 bytes (10 × 32), found 316");
        tf_free(&f);
        for (int delta = -1; delta <= 1; delta += 2) {
            tf_copy(&f, &good);
            if (delta > 0)
                tb_put(tf_body(&f, 2), "x", 1);
            else
                tf_body(&f, 2)->len--;
            ASSERT_EQ_STATUS(wtns_status(&f, &d), ZKPIPE_ERR_SECTION_SIZE);
            tf_free(&f);
            tf_copy(&f, &good);
            if (delta > 0)
                tb_put(tf_body(&f, 1), "x", 1);
            else
                tf_body(&f, 1)->len--;
            ASSERT_EQ_STATUS(wtns_status(&f, &d), ZKPIPE_ERR_SECTION_SIZE);
            ASSERT_MSG(contains(d.msg, "section 1 (header)"), "%s", d.msg);
            tf_free(&f);
        }
        /* Counts whose product with 32 wraps 32 bits: the section holds the
         * wrapped size, which a 32-bit product would accept. */
        const uint32_t counts[] = {0x08000001u, 0x80000000u, 0xffffffffu};
        for (size_t i = 0; i < ZKP_ARRAY_LEN(counts); i++) {
            tf_copy(&f, &good);
            put_le32(tf_body(&f, 1)->p + 36, counts[i]);
            tf_body(&f, 2)->len = (uint32_t)(counts[i] * 32u);
            if (tf_body(&f, 2)->len > 320) tf_body(&f, 2)->len = 320;
            ASSERT_EQ_STATUS(wtns_status(&f, &d), ZKPIPE_ERR_SECTION_SIZE);
            tf_free(&f);
        }
        tf_copy(&f, &good);
        put_le32(tf_body(&f, 1)->p + 36, 0);
        tf_body(&f, 2)->len = 0;
        ASSERT_EQ_STATUS(wtns_status(&f, &d), ZKPIPE_ERR_OUT_OF_RANGE);
        tf_free(&f);

        /* Primes: the other curve's base field, a small prime, a wider n8. */
        tf_copy(&f, &good);
        tbuf *h = tf_body(&f, 1);
        for (int l = 0; l < 4; l++) put_le64(h->p + 4 + 8 * l, tcurves[ci].q[l]);
        ASSERT_EQ_STATUS(wtns_status(&f, &d), ZKPIPE_ERR_WRONG_CURVE);
        memset(h->p + 4, 0, 32);
        put_le64(h->p + 4, 0xffffffff00000001ULL); /* Goldilocks */
        ASSERT_EQ_STATUS(wtns_status(&f, &d), ZKPIPE_ERR_WRONG_CURVE);
        put_le32(h->p, 8);
        ASSERT_EQ_STATUS(wtns_status(&f, &d), ZKPIPE_ERR_WRONG_CURVE);
        put_le32(h->p, 48);
        ASSERT_EQ_STATUS(wtns_status(&f, &d), ZKPIPE_ERR_WRONG_CURVE);
        tf_free(&f);
        tf_copy(&f, &good);
        tf_body(&f, 1)->len = 3;
        ASSERT_EQ_STATUS(wtns_status(&f, &d), ZKPIPE_ERR_SECTION_SIZE);
        tf_free(&f);

        /* Values: exactly r, and all ones. */
        tf_copy(&f, &good);
        uint8_t *v = tf_body(&f, 2)->p;
        for (int l = 0; l < 4; l++) put_le64(v + 32 * 7 + 8 * l, c->r[l]);
        ASSERT_EQ_STATUS(wtns_status(&f, &d), ZKPIPE_ERR_NON_CANONICAL);
        ASSERT_MSG(contains(d.msg, "value 7"), "%s", d.msg);
        memset(v + 32 * 3, 0xff, 32);
        ASSERT_EQ_STATUS(wtns_status(&f, &d), ZKPIPE_ERR_NON_CANONICAL);
        ASSERT_MSG(contains(d.msg, "value 3"), "%s", d.msg);
        tf_free(&f);

        /* Missing and duplicated sections. */
        for (uint32_t s = 1; s <= 2; s++) {
            tf_copy(&f, &good);
            tf_remove(&f, s);
            ASSERT_EQ_STATUS(wtns_status(&f, &d), ZKPIPE_ERR_SECTION_MISSING);
            tf_free(&f);
            tf_copy(&f, &good);
            tf_duplicate(&f, s);
            ASSERT_EQ_STATUS(wtns_status(&f, &d), ZKPIPE_ERR_SECTION_MISSING);
            tf_free(&f);
        }
        tf_free(&good);
    }
}

/* Allocation goes through the allocator passed in, under ZKP_MEM_WITNESS. */
typedef struct {
    size_t live, calls;
    zkp_mem_category last;
} counting_ctx;
static void *counting_alloc(void *ctx, size_t bytes, zkp_mem_category cat) {
    counting_ctx *c = ctx;
    c->live += bytes;
    c->calls++;
    c->last = cat;
    return zkp_default_allocator()->alloc(NULL, bytes, cat);
}
static void counting_free(void *ctx, void *p, size_t bytes, zkp_mem_category cat) {
    counting_ctx *c = ctx;
    c->live -= bytes;
    zkp_default_allocator()->free(NULL, p, bytes, cat);
}

TEST_CASE(formats_wtns_uses_the_allocator) {
    counting_ctx cc = {0};
    zkp_allocator a = {counting_alloc, counting_free, &cc};
    tfile f;
    build_wtns(&f, &tcurves[0], 5, NULL);
    tbytes t;
    tf_build(&f, &t);
    zkp_wtns w;
    ASSERT_OK(zkp_wtns_parse(&w, t.p, t.len, NULL, &a, NULL));
    ASSERT_EQ_U64(cc.live, 5 * 32);
    ASSERT_EQ_INT(cc.last, ZKP_MEM_WITNESS);
    zkp_wtns_free(&w);
    ASSERT_EQ_U64(cc.live, 0);
    /* A non-canonical value fails after the allocation: nothing leaks. */
    memset(t.p + t.len - 32, 0xff, 32);
    ASSERT_EQ_STATUS(zkp_wtns_parse(&w, t.p, t.len, NULL, &a, NULL), ZKPIPE_ERR_NON_CANONICAL);
    ASSERT_EQ_U64(cc.live, 0);
    tbytes_free(&t);
    tf_free(&f);
}

/* ------------------------------------------------------------ r1cs */

TEST_CASE(formats_r1cs_round_trip_and_iteration) {
    for (int ci = 0; ci < 2; ci++) {
        const tcurve *c = &tcurves[ci];
        const r1cs_dims *dm = &r1cs_default;
        tfile f;
        build_r1cs(&f, c, dm);
        /* Custom-gate sections (PLONK) are tolerated and flagged. */
        for (int custom = 0; custom < 2; custom++) {
            if (custom) {
                tb_u32(tf_add(&f, 4), 0);
                tb_u32(tf_add(&f, 5), 0);
            }
            tbytes t;
            tf_build(&f, &t);
            uint8_t *copy = exact_copy(t.p, t.len);
            zkp_r1cs r;
            zkp_diag d = {{0}};
            ASSERT_OK(zkp_r1cs_parse(&r, copy, t.len, "circuit.r1cs", &d));
            ASSERT_EQ_INT(r.curve, c->curve);
            ASSERT_EQ_U64(r.n_wires, dm->n_wires);
            ASSERT_EQ_U64(r.n_pub_out, dm->n_pub_out);
            ASSERT_EQ_U64(r.n_pub_in, dm->n_pub_in);
            ASSERT_EQ_U64(r.n_prv_in, dm->n_prv_in);
            ASSERT_EQ_U64(r.n_labels, dm->n_labels);
            ASSERT_EQ_U64(r.n_constraints, dm->n_constraints);
            ASSERT_EQ_INT(r.has_custom_gates, custom);
            for (uint32_t w = 0; w < dm->n_wires; w++)
                ASSERT_EQ_U64(zkp_r1cs_wire_label(&r, w), (uint64_t)w * 2 % dm->n_labels);

            uint64_t totals[3] = {0};
            zkp_r1cs_iter it;
            zkp_r1cs_constraint con;
            zkp_r1cs_iter_init(&it, &r);
            uint32_t i = 0;
            while (zkp_r1cs_iter_next(&it, &con)) {
                for (int m = 0; m < 3; m++) {
                    ASSERT_EQ_U64(con.lc[m].n_terms, r1cs_nterms(i, m));
                    for (uint32_t k = 0; k < con.lc[m].n_terms; k++) {
                        uint64_t want[4], got[4];
                        r1cs_coef(c, i, m, k, want);
                        zkp_r1cs_term_coef_limbs(&con.lc[m], k, got);
                        ASSERT_MEM_EQ(got, want, sizeof want);
                        ASSERT_EQ_U64(zkp_r1cs_term_wire(&con.lc[m], k),
                                      r1cs_wire(i, m, k, dm->n_wires));
                    }
                    totals[m] += con.lc[m].n_terms;
                }
                i++;
            }
            ASSERT_EQ_U64(i, dm->n_constraints);
            ASSERT(!zkp_r1cs_iter_next(&it, &con));
            for (int m = 0; m < 3; m++) ASSERT_EQ_U64(r.n_terms[m], totals[m]);
            zkp_r1cs_free(&r);
            free(copy);

            /* Through a file: the view stays valid while the key is loaded. */
            char dir[256], path[300];
            make_tmpdir(dir, sizeof dir);
            snprintf(path, sizeof path, "%s/circuit.r1cs", dir);
            write_file(path, t.p, t.len);
            ASSERT_OK(zkp_r1cs_load(&r, path, &d));
            zkp_r1cs_iter_init(&it, &r);
            uint32_t count = 0;
            while (zkp_r1cs_iter_next(&it, &con)) count++;
            ASSERT_EQ_U64(count, dm->n_constraints);
            zkp_r1cs_free(&r);
            unlink(path);
            rmdir(dir);
            tbytes_free(&t);
        }
        tf_free(&f);
    }
}

TEST_CASE(formats_r1cs_truncated_anywhere) {
    for (int ci = 0; ci < 2; ci++) {
        tfile f;
        build_r1cs(&f, &tcurves[ci], &r1cs_default);
        tbytes t;
        tf_build(&f, &t);
        zkp_diag d = {{0}};
        for (size_t cut = 0; cut < t.len; cut++) {
            uint8_t *p = exact_copy(t.p, cut);
            zkp_r1cs r;
            ASSERT_EQ_STATUS(zkp_r1cs_parse(&r, p, cut, "circuit.r1cs", &d), ZKPIPE_ERR_TRUNCATED);
            free(p);
        }
        tbytes_free(&t);
        tf_free(&f);
    }
}

TEST_CASE(formats_r1cs_malformed) {
    for (int ci = 0; ci < 2; ci++) {
        const tcurve *c = &tcurves[ci];
        const r1cs_dims *dm = &r1cs_default;
        tfile good, f;
        build_r1cs(&good, c, dm);
        zkp_diag d = {{0}};
        ASSERT_OK(r1cs_status(&good, &d));

        tf_copy(&f, &good);
        memcpy(f.magic, "wtns", 4);
        ASSERT_EQ_STATUS(r1cs_status(&f, &d), ZKPIPE_ERR_BAD_MAGIC);
        f.magic[0] = 'r', f.magic[1] = '1', f.magic[2] = 'c', f.magic[3] = 's';
        f.version = 2;
        ASSERT_EQ_STATUS(r1cs_status(&f, &d), ZKPIPE_ERR_BAD_VERSION);
        tf_free(&f);

        /* Header: size off by one either way, foreign prime, other n8. */
        tf_copy(&f, &good);
        tb_put(tf_body(&f, 1), "x", 1);
        ASSERT_EQ_STATUS(r1cs_status(&f, &d), ZKPIPE_ERR_SECTION_SIZE);
        tf_body(&f, 1)->len -= 2;
        ASSERT_EQ_STATUS(r1cs_status(&f, &d), ZKPIPE_ERR_SECTION_SIZE);
        tf_body(&f, 1)->len = 2;
        ASSERT_EQ_STATUS(r1cs_status(&f, &d), ZKPIPE_ERR_SECTION_SIZE);
        tf_free(&f);
        tf_copy(&f, &good);
        put_le64(tf_body(&f, 1)->p + 4, c->r[0] + 2);
        ASSERT_EQ_STATUS(r1cs_status(&f, &d), ZKPIPE_ERR_WRONG_CURVE);
        put_le32(tf_body(&f, 1)->p, 48);
        ASSERT_EQ_STATUS(r1cs_status(&f, &d), ZKPIPE_ERR_WRONG_CURVE);
        tf_free(&f);

        /* Counts: named wires exceeding the wires, with u32 sums that wrap. */
        const size_t counts_at = 4 + 32;
        tf_copy(&f, &good);
        put_le32(tf_body(&f, 1)->p + counts_at + 12, dm->n_wires - 3); /* 1 + 1 + 2 + 6 > 9 */
        ASSERT_EQ_STATUS(r1cs_status(&f, &d), ZKPIPE_ERR_OUT_OF_RANGE);
        put_le32(tf_body(&f, 1)->p + counts_at + 4, 0xffffffffu);
        put_le32(tf_body(&f, 1)->p + counts_at + 8, 0xffffffffu);
        put_le32(tf_body(&f, 1)->p + counts_at + 12, 4);
        ASSERT_EQ_STATUS(r1cs_status(&f, &d), ZKPIPE_ERR_OUT_OF_RANGE);
        tf_free(&f);

        /* Wire map: off by one; a count whose × 8 wraps 32 bits. */
        tf_copy(&f, &good);
        tf_body(&f, 3)->len--;
        ASSERT_EQ_STATUS(r1cs_status(&f, &d), ZKPIPE_ERR_SECTION_SIZE);
        ASSERT_MSG(
            contains(d.msg, "section 3 (wire-to-label map): expected 72 bytes (9 × 8), found 71"),
            "%s", d.msg);
        tf_free(&f);
        tf_copy(&f, &good);
        put_le32(tf_body(&f, 1)->p + counts_at, 0x20000001u);
        tf_body(&f, 3)->len = 8;
        ASSERT_EQ_STATUS(r1cs_status(&f, &d), ZKPIPE_ERR_SECTION_SIZE);
        tf_free(&f);

        /* Constraints: a trailing byte; one byte short; more constraints
         * than the section holds; a term count far past the end. */
        tf_copy(&f, &good);
        tb_put(tf_body(&f, 2), "x", 1);
        ASSERT_EQ_STATUS(r1cs_status(&f, &d), ZKPIPE_ERR_SECTION_SIZE);
        ASSERT_MSG(contains(d.msg, "section 2 (constraints)"), "%s", d.msg);
        tf_body(&f, 2)->len -= 2;
        ASSERT_EQ_STATUS(r1cs_status(&f, &d), ZKPIPE_ERR_SECTION_SIZE);
        tf_free(&f);
        tf_copy(&f, &good);
        put_le32(tf_body(&f, 1)->p + counts_at + 24, dm->n_constraints + 1);
        ASSERT_EQ_STATUS(r1cs_status(&f, &d), ZKPIPE_ERR_SECTION_SIZE);
        put_le32(tf_body(&f, 1)->p + counts_at + 24, 0xffffffffu);
        ASSERT_EQ_STATUS(r1cs_status(&f, &d), ZKPIPE_ERR_SECTION_SIZE);
        put_le32(tf_body(&f, 1)->p + counts_at + 24, dm->n_constraints - 1);
        ASSERT_EQ_STATUS(r1cs_status(&f, &d), ZKPIPE_ERR_SECTION_SIZE); /* walk ends early */
        tf_free(&f);
        /* The last one times 36 wraps 32 bits to 32. */
        const uint32_t huge_terms[] = {0xffffffffu, 0x80000000u, 0x071c71c8u};
        for (size_t i = 0; i < ZKP_ARRAY_LEN(huge_terms); i++) {
            tf_copy(&f, &good);
            put_le32(tf_body(&f, 2)->p, huge_terms[i]);
            ASSERT_EQ_STATUS(r1cs_status(&f, &d), ZKPIPE_ERR_SECTION_SIZE);
            tf_free(&f);
        }

        /* Terms: wire index = nWires; coefficient = r. The first term of
         * constraint 0 (A) sits at byte 4; its coefficient at 8. */
        tf_copy(&f, &good);
        put_le32(tf_body(&f, 2)->p + 4, dm->n_wires);
        ASSERT_EQ_STATUS(r1cs_status(&f, &d), ZKPIPE_ERR_OUT_OF_RANGE);
        ASSERT_MSG(contains(d.msg, "constraint 0, A, term 0: wire 9"), "%s", d.msg);
        put_le32(tf_body(&f, 2)->p + 4, dm->n_wires - 1);
        ASSERT_OK(r1cs_status(&f, &d));
        for (int l = 0; l < 4; l++) put_le64(tf_body(&f, 2)->p + 8 + 8 * l, c->r[l]);
        ASSERT_EQ_STATUS(r1cs_status(&f, &d), ZKPIPE_ERR_NON_CANONICAL);
        tf_free(&f);

        /* Sections 1, 2, 3 each exactly once. */
        for (uint32_t s = 1; s <= 3; s++) {
            tf_copy(&f, &good);
            tf_remove(&f, s);
            ASSERT_EQ_STATUS(r1cs_status(&f, &d), ZKPIPE_ERR_SECTION_MISSING);
            tf_free(&f);
            tf_copy(&f, &good);
            tf_duplicate(&f, s);
            ASSERT_EQ_STATUS(r1cs_status(&f, &d), ZKPIPE_ERR_SECTION_MISSING);
            tf_free(&f);
        }
        tf_free(&good);
    }
}

/* ------------------------------------------------------------ zkey */

static void check_zkey_contents(const zkp_zkey *key, tfile *f, const tcurve *c,
                                const zkey_dims *dm) {
    ASSERT_EQ_INT(key->curve, c->curve);
    zkp_g16_pk pk;
    zkp_zkey_pk(key, &pk);
    ASSERT_EQ_INT(pk.curve, c->curve);
    ASSERT_EQ_U64(zkp_zkey_n_vars(key), dm->n_vars);
    ASSERT_EQ_U64(zkp_zkey_n_public(key), dm->n_public);
    const uint8_t *hdr = tf_body(f, S_HEADER)->p + hdr_off_points(c);
    const size_t g1 = g1_bytes(c), g2 = g2_bytes(c);
    const void *alpha1, *beta1, *beta2, *gamma2, *delta1, *delta2;
    uint32_t domain, log_domain;
    size_t n_coefs;
    const uint8_t *coefs;
    size_t coef_size;
    if (c->curve == ZKPIPE_CURVE_BN254) {
        const bn254_g16_pk_t *p = &key->pk.bn254;
        alpha1 = &p->alpha1, beta1 = &p->beta1, beta2 = &p->beta2, gamma2 = &p->gamma2;
        delta1 = &p->delta1, delta2 = &p->delta2;
        domain = p->domain_size, log_domain = p->log_domain, n_coefs = p->n_coefs;
        coefs = (const uint8_t *)p->coefs, coef_size = sizeof p->coefs[0];
        ASSERT(pk.u.bn254.a == p->a && pk.u.bn254.h == p->h && pk.u.bn254.coefs == p->coefs);
    } else {
        const bls12_381_g16_pk_t *p = &key->pk.bls12_381;
        alpha1 = &p->alpha1, beta1 = &p->beta1, beta2 = &p->beta2, gamma2 = &p->gamma2;
        delta1 = &p->delta1, delta2 = &p->delta2;
        domain = p->domain_size, log_domain = p->log_domain, n_coefs = p->n_coefs;
        coefs = (const uint8_t *)p->coefs, coef_size = sizeof p->coefs[0];
        ASSERT(pk.u.bls12_381.b2 == p->b2 && pk.u.bls12_381.ic == p->ic &&
               pk.u.bls12_381.n_vars == p->n_vars);
    }
    ASSERT_EQ_U64(domain, dm->domain);
    ASSERT_EQ_U64(1u << log_domain, dm->domain);
    ASSERT_MEM_EQ(alpha1, hdr, g1);
    ASSERT_MEM_EQ(beta1, hdr + g1, g1);
    ASSERT_MEM_EQ(beta2, hdr + 2 * g1, g2);
    ASSERT_MEM_EQ(gamma2, hdr + 2 * g1 + g2, g2);
    ASSERT_MEM_EQ(delta1, hdr + 2 * g1 + 2 * g2, g1);
    ASSERT_MEM_EQ(delta2, hdr + 3 * g1 + 2 * g2, g2);
    const int sections[] = {S_IC, S_A, S_B1, S_B2, S_C, S_H};
    for (size_t i = 0; i < ZKP_ARRAY_LEN(sections); i++) {
        tbuf *b = tf_body(f, (uint32_t)sections[i]);
        const void *pts = pk_points(key, sections[i]);
        if (b->len == 0) {
            ASSERT(pts == NULL);
            continue;
        }
        ASSERT_MEM_EQ(pts, b->p, b->len);
        ASSERT((uintptr_t)pts % 8 == 0);
    }
    /* Coefficients: the fields, and the raw value bytes as the element. */
    tbuf *cb = tf_body(f, S_COEFS);
    ASSERT_EQ_U64(n_coefs, zkp_le32(cb->p));
    for (size_t i = 0; i < n_coefs; i++) {
        const uint8_t *src = cb->p + 4 + i * 44;
        const uint8_t *entry = coefs + i * coef_size;
        uint32_t fields[3];
        memcpy(fields, entry, sizeof fields);
        ASSERT_EQ_U64(fields[0], zkp_le32(src));
        ASSERT_EQ_U64(fields[1], zkp_le32(src + 4));
        ASSERT_EQ_U64(fields[2], zkp_le32(src + 8));
        uint64_t value[4];
        memcpy(value, entry + coef_size - 32, 32);
        for (int l = 0; l < 4; l++) ASSERT_EQ_U64(value[l], zkp_le64(src + 12 + 8 * l));
    }
    /* The verification key borrows the IC. */
    zkp_g16_vk vk;
    zkp_zkey_vk(key, &vk);
    ASSERT_EQ_INT(vk.curve, c->curve);
    ASSERT(vk.owned == NULL);
    if (c->curve == ZKPIPE_CURVE_BN254) {
        ASSERT_EQ_U64(vk.u.bn254.n_public, dm->n_public);
        ASSERT(vk.u.bn254.ic == key->pk.bn254.ic);
        ASSERT_MEM_EQ(&vk.u.bn254.delta2, delta2, g2);
        ASSERT_MEM_EQ(&vk.u.bn254.alpha1, alpha1, g1);
    } else {
        ASSERT_EQ_U64(vk.u.bls12_381.n_public, dm->n_public);
        ASSERT(vk.u.bls12_381.ic == key->pk.bls12_381.ic);
        ASSERT_MEM_EQ(&vk.u.bls12_381.gamma2, gamma2, g2);
        ASSERT_MEM_EQ(&vk.u.bls12_381.beta2, beta2, g2);
    }
}

TEST_CASE(formats_zkey_round_trip_in_place_and_copied) {
    for (int ci = 0; ci < 2; ci++) {
        const tcurve *c = &tcurves[ci];
        const zkey_dims *dm = &zkey_default;
        tfile f;
        build_zkey(&f, c, dm);
        tbytes t;
        tf_build(&f, &t);
        counting_ctx cc = {0};
        zkp_allocator a = {counting_alloc, counting_free, &cc};
        /* Each shift of the input moves every section to another alignment:
         * a section is used in place exactly when its bytes are 8-aligned. */
        for (size_t shift = 0; shift < 8; shift++) {
            uint8_t *buf = malloc(t.len + shift);
            memcpy(buf + shift, t.p, t.len);
            const uint8_t *data = buf + shift;
            zkp_zkey key;
            zkp_diag d = {{0}};
            zkp_zkey_options opt = {&a, (unsigned)(1 + shift % 3), (int)(shift & 1)};
            ASSERT_OK(zkp_zkey_parse(&key, data, t.len, "circuit.zkey", &opt, &d));
            ASSERT_EQ_U64(key.file_size, t.len);
            check_zkey_contents(&key, &f, c, dm);
            const int sections[] = {S_IC, S_A, S_B1, S_B2, S_C, S_H};
            for (size_t i = 0; i < ZKP_ARRAY_LEN(sections); i++) {
                int s = sections[i];
                unsigned idx = 0;
                while (f.s[idx].type != (uint32_t)s) idx++;
                const uint8_t *body = data + t.section_at[idx] + 12;
                int aligned = (uintptr_t)body % 8 == 0;
                ASSERT_EQ_INT(!!(key.in_place_sections & (1u << s)), aligned);
                ASSERT_EQ_INT(pk_points(&key, s) == (const void *)body, aligned);
            }
            ASSERT(cc.live > 0); /* the coefficient array at least */
            zkp_zkey_free(&key);
            ASSERT_EQ_U64(cc.live, 0);
            free(buf);
        }

        /* Through a file: page-aligned, so in place exactly at 8-aligned offsets. */
        char dir[256], path[300];
        make_tmpdir(dir, sizeof dir);
        snprintf(path, sizeof path, "%s/circuit.zkey", dir);
        write_file(path, t.p, t.len);
        zkp_zkey key;
        zkp_diag d = {{0}};
        zkp_zkey_options opt = {NULL, 0, 1};
        ASSERT_OK(zkp_zkey_load(&key, path, &opt, &d));
        check_zkey_contents(&key, &f, c, dm);
        for (unsigned i = 0; i < f.n; i++) {
            uint32_t s = f.s[i].type;
            if (s == S_IC || (s >= S_A && s <= S_H))
                ASSERT_EQ_INT(!!(key.in_place_sections & (1u << s)),
                              (t.section_at[i] + 12) % 8 == 0);
        }
        zkp_zkey_free(&key);
        zkp_zkey_free(&key); /* an empty key frees as a no-op */
        unlink(path);
        rmdir(dir);
        tbytes_free(&t);
        tf_free(&f);
    }
}

TEST_CASE(formats_zkey_truncated_at_boundaries_and_random_offsets) {
    for (int ci = 0; ci < 2; ci++) {
        tfile f;
        build_zkey(&f, &tcurves[ci], &zkey_default);
        tbytes t;
        tf_build(&f, &t);
        zkp_diag d = {{0}};
        for (size_t i = 0; i < t.nbounds; i++) {
            for (int near = -1; near <= 1; near++) {
                size_t cut = t.bounds[i] + (size_t)near;
                if (t.bounds[i] == 0 && near < 0) continue;
                if (cut >= t.len) continue;
                uint8_t *p = exact_copy(t.p, cut);
                zkp_zkey key;
                ASSERT_EQ_STATUS(zkp_zkey_parse(&key, p, cut, "circuit.zkey", NULL, &d),
                                 ZKPIPE_ERR_TRUNCATED);
                ASSERT_MSG(contains(d.msg, "circuit.zkey"), "%s", d.msg);
                free(p);
            }
        }
        for (unsigned k = 0; k < test_iters(200); k++) {
            size_t cut = test_rng_u64() % t.len;
            uint8_t *p = exact_copy(t.p, cut);
            zkp_zkey key;
            ASSERT_EQ_STATUS(zkp_zkey_parse(&key, p, cut, "circuit.zkey", NULL, &d),
                             ZKPIPE_ERR_TRUNCATED);
            free(p);
        }
        tbytes_free(&t);
        tf_free(&f);
    }
}

TEST_CASE(formats_zkey_malformed_header) {
    for (int ci = 0; ci < 2; ci++) {
        const tcurve *c = &tcurves[ci];
        const tcurve *other = &tcurves[1 - ci];
        tfile good, f;
        build_zkey(&good, c, &zkey_default);
        zkp_diag d = {{0}};
        ASSERT_OK(zkey_status(&good, &d));

        tf_copy(&f, &good);
        memcpy(f.magic, "r1cs", 4);
        ASSERT_EQ_STATUS(zkey_status(&f, &d), ZKPIPE_ERR_BAD_MAGIC);
        memcpy(f.magic, "zkey", 4);
        f.version = 2;
        ASSERT_EQ_STATUS(zkey_status(&f, &d), ZKPIPE_ERR_BAD_VERSION);
        tf_free(&f);

        /* Protocol: PLONK (2), FFLONK (10); a protocol section of 5 bytes. */
        tf_copy(&f, &good);
        put_le32(tf_body(&f, S_PROTOCOL)->p, 2);
        ASSERT_EQ_STATUS(zkey_status(&f, &d), ZKPIPE_ERR_UNSUPPORTED);
        ASSERT_MSG(contains(d.msg, "protocol 2"), "%s", d.msg);
        put_le32(tf_body(&f, S_PROTOCOL)->p, 10);
        ASSERT_EQ_STATUS(zkey_status(&f, &d), ZKPIPE_ERR_UNSUPPORTED);
        put_le32(tf_body(&f, S_PROTOCOL)->p, 1);
        tb_put(tf_body(&f, S_PROTOCOL), "x", 1);
        ASSERT_EQ_STATUS(zkey_status(&f, &d), ZKPIPE_ERR_SECTION_SIZE);
        tf_free(&f);

        /* Primes. q of no curve; r of the other curve; n8q of the other
         * curve (with its q: then r does not match); n8r != 32. */
        tbuf *h;
        tf_copy(&f, &good);
        h = tf_body(&f, S_HEADER);
        h->p[4] ^= 2;
        ASSERT_EQ_STATUS(zkey_status(&f, &d), ZKPIPE_ERR_WRONG_CURVE);
        ASSERT_MSG(contains(d.msg, "q is not"), "%s", d.msg);
        tf_free(&f);
        tf_copy(&f, &good);
        h = tf_body(&f, S_HEADER);
        for (int l = 0; l < 4; l++) put_le64(h->p + 4 + c->q_bytes + 4 + 8 * l, other->r[l]);
        ASSERT_EQ_STATUS(zkey_status(&f, &d), ZKPIPE_ERR_WRONG_CURVE);
        ASSERT_MSG(contains(d.msg, "r is not"), "%s", d.msg);
        tf_free(&f);
        tf_copy(&f, &good);
        h = tf_body(&f, S_HEADER);
        put_le32(h->p + 4 + c->q_bytes, 48);
        ASSERT_EQ_STATUS(zkey_status(&f, &d), ZKPIPE_ERR_WRONG_CURVE);
        put_le32(h->p, 40);
        ASSERT_EQ_STATUS(zkey_status(&f, &d), ZKPIPE_ERR_WRONG_CURVE);
        /* The other curve's n8q with this curve's q bytes: q does not match. */
        put_le32(h->p, (uint32_t)other->q_bytes);
        ASSERT_EQ_STATUS(zkey_status(&f, &d), ZKPIPE_ERR_WRONG_CURVE);
        tf_free(&f);
        /* A header cut inside the primes. */
        const size_t cuts[] = {
            0, 3, 4, 4 + c->q_bytes - 1, 4 + c->q_bytes + 3, 4 + c->q_bytes + 4 + 31};
        for (size_t i = 0; i < ZKP_ARRAY_LEN(cuts); i++) {
            tf_copy(&f, &good);
            tf_body(&f, S_HEADER)->len = cuts[i];
            ASSERT_EQ_STATUS(zkey_status(&f, &d), ZKPIPE_ERR_SECTION_SIZE);
            ASSERT_MSG(contains(d.msg, "section 2 (header)"), "%s", d.msg);
            tf_free(&f);
        }
        for (int delta = -1; delta <= 1; delta += 2) {
            tf_copy(&f, &good);
            if (delta > 0)
                tb_put(tf_body(&f, S_HEADER), "x", 1);
            else
                tf_body(&f, S_HEADER)->len--;
            ASSERT_EQ_STATUS(zkey_status(&f, &d), ZKPIPE_ERR_SECTION_SIZE);
            tf_free(&f);
        }

        /* Dimensions. */
        const size_t nv = hdr_off_nvars(c);
        const struct {
            uint32_t n_vars, n_public, domain;
        } bad_dims[] = {
            {7, 7, 8},           /* nPublic + 1 > nVars */
            {7, 0xffffffffu, 8}, /* nPublic + 1 wraps 32 bits */
            {0, 0, 8},           /* no variables at all */
            {7, 2, 6},           /* not a power of two */
            {7, 2, 1},           /* below 2 */
            {7, 2, 0},           {7, 2, 0x80000001u},
        };
        for (size_t i = 0; i < ZKP_ARRAY_LEN(bad_dims); i++) {
            tf_copy(&f, &good);
            h = tf_body(&f, S_HEADER);
            put_le32(h->p + nv, bad_dims[i].n_vars);
            put_le32(h->p + nv + 4, bad_dims[i].n_public);
            put_le32(h->p + nv + 8, bad_dims[i].domain);
            ASSERT_EQ_STATUS(zkey_status(&f, &d), ZKPIPE_ERR_OUT_OF_RANGE);
            tf_free(&f);
        }
        /* Above the 2-adicity: only BN254's (28) is below 32 bits. */
        if (c->two_adicity < 32) {
            tf_copy(&f, &good);
            put_le32(tf_body(&f, S_HEADER)->p + nv + 8, 1u << (c->two_adicity + 1));
            ASSERT_EQ_STATUS(zkey_status(&f, &d), ZKPIPE_ERR_OUT_OF_RANGE);
            ASSERT_MSG(contains(d.msg, "2^28"), "%s", d.msg);
            tf_free(&f);
        }
        tf_free(&good);
    }
}

TEST_CASE(formats_zkey_section_sizes) {
    for (int ci = 0; ci < 2; ci++) {
        const tcurve *c = &tcurves[ci];
        const zkey_dims *dm = &zkey_default;
        tfile good, f;
        build_zkey(&good, c, dm);
        zkp_diag d = {{0}};

        /* Each counted section one byte long or short, and one element short. */
        const struct {
            int section;
            const char *name;
            size_t elem;
        } secs[] = {
            {S_IC, "IC", g1_bytes(c)}, {S_COEFS, "coefficients", 44}, {S_A, "A", g1_bytes(c)},
            {S_B1, "B1", g1_bytes(c)}, {S_B2, "B2", g2_bytes(c)},     {S_C, "C", g1_bytes(c)},
            {S_H, "H", g1_bytes(c)},
        };
        for (size_t i = 0; i < ZKP_ARRAY_LEN(secs); i++) {
            char want[64];
            snprintf(want, sizeof want, "section %d (%s): expected", secs[i].section, secs[i].name);
            tf_copy(&f, &good);
            tb_put(tf_body(&f, (uint32_t)secs[i].section), "x", 1);
            ASSERT_EQ_STATUS(zkey_status(&f, &d), ZKPIPE_ERR_SECTION_SIZE);
            ASSERT_MSG(contains(d.msg, want), "%s", d.msg);
            tf_body(&f, (uint32_t)secs[i].section)->len -= 2;
            ASSERT_EQ_STATUS(zkey_status(&f, &d), ZKPIPE_ERR_SECTION_SIZE);
            tf_body(&f, (uint32_t)secs[i].section)->len -= secs[i].elem - 1;
            ASSERT_EQ_STATUS(zkey_status(&f, &d), ZKPIPE_ERR_SECTION_SIZE);
            tf_free(&f);
        }
        /* One exact message: A of 7 BN254/BLS points. */
        tf_copy(&f, &good);
        tf_body(&f, S_A)->len--;
        ASSERT_EQ_STATUS(zkey_status(&f, &d), ZKPIPE_ERR_SECTION_SIZE);
        char want[160];
        snprintf(want, sizeof want,
                 "circuit.zkey: section 5 (A): expected %zu bytes (7 × %zu), found %zu",
                 7 * g1_bytes(c), g1_bytes(c), 7 * g1_bytes(c) - 1);
        ASSERT_STR_EQ(d.msg, want);
        tf_free(&f);
        /* A coefficient section too short for its count. */
        tf_copy(&f, &good);
        tf_body(&f, S_COEFS)->len = 3;
        ASSERT_EQ_STATUS(zkey_status(&f, &d), ZKPIPE_ERR_SECTION_SIZE);
        tf_free(&f);

        /* Counts whose products exceed 32 bits: nVars 2^31 (× 64 or 96
         * bytes), nCoefs 2^32 - 1 (× 44), domain 2^27 (× H's point size).
         * Each must fail on the size, before anything is allocated. */
        counting_ctx cc = {0};
        zkp_allocator a = {counting_alloc, counting_free, &cc};
        zkp_zkey_options opt = {&a, 1, 0};
        const size_t nv = hdr_off_nvars(c);
        tf_copy(&f, &good);
        put_le32(tf_body(&f, S_HEADER)->p + nv, 0x80000000u);
        ASSERT_EQ_STATUS(zkey_status_opt(&f, &opt, &d), ZKPIPE_ERR_SECTION_SIZE);
        ASSERT_MSG(contains(d.msg, "2147483648 ×"), "%s", d.msg);
        tf_free(&f);
        tf_copy(&f, &good);
        put_le32(tf_body(&f, S_COEFS)->p, 0xffffffffu);
        ASSERT_EQ_STATUS(zkey_status_opt(&f, &opt, &d), ZKPIPE_ERR_SECTION_SIZE);
        tf_free(&f);
        tf_copy(&f, &good);
        put_le32(tf_body(&f, S_HEADER)->p + nv + 8, 1u << 27);
        ASSERT_EQ_STATUS(zkey_status_opt(&f, &opt, &d), ZKPIPE_ERR_SECTION_SIZE);
        ASSERT_MSG(contains(d.msg, "section 9 (H)"), "%s", d.msg);
        tf_free(&f);
        ASSERT_EQ_U64(cc.calls, 0);

        /* Empty C: every variable public. */
        zkey_dims all_public = {3, 2, 4};
        tfile ap;
        build_zkey(&ap, c, &all_public);
        ASSERT_EQ_U64(tf_body(&ap, S_C)->len, 0);
        tbytes t;
        tf_build(&ap, &t);
        zkp_zkey key;
        ASSERT_OK(zkp_zkey_parse(&key, t.p, t.len, "circuit.zkey", NULL, &d));
        ASSERT(pk_points(&key, S_C) == NULL);
        zkp_zkey_free(&key);
        tbytes_free(&t);
        tf_free(&ap);

        /* Every section exactly once, 10 included. */
        for (uint32_t s = S_PROTOCOL; s <= S_CONTRIB; s++) {
            tf_copy(&f, &good);
            tf_remove(&f, s);
            ASSERT_EQ_STATUS(zkey_status(&f, &d), ZKPIPE_ERR_SECTION_MISSING);
            tf_free(&f);
            tf_copy(&f, &good);
            tf_duplicate(&f, s);
            ASSERT_EQ_STATUS(zkey_status(&f, &d), ZKPIPE_ERR_SECTION_MISSING);
            tf_free(&f);
        }
        /* Unknown sections are ignored. */
        tf_copy(&f, &good);
        tb_u32(tf_add(&f, 11), 7);
        ASSERT_OK(zkey_status(&f, &d));
        tf_free(&f);
        tf_free(&good);
    }
}

/* Breaks coordinate `coord` (0 = x or x.c0, ...) of the point at byte
 * offset `at` of body b by writing q there, the smallest non-canonical value. */
static void write_q(uint8_t *at, const tcurve *c) {
    for (size_t l = 0; l < c->q_bytes / 8; l++) put_le64(at + 8 * l, c->q[l]);
}

TEST_CASE(formats_zkey_bad_points) {
    for (int ci = 0; ci < 2; ci++) {
        const tcurve *c = &tcurves[ci];
        tfile good, f;
        build_zkey(&good, c, &zkey_default);
        zkp_diag d = {{0}};
        const size_t g1 = g1_bytes(c), g2 = g2_bytes(c);

        /* Header points: each one non-canonical in its last coordinate,
         * then off the curve. */
        const struct {
            const char *name;
            size_t off, size;
        } hp[] = {
            {"vk_alpha_1", 0, g1},
            {"vk_beta_1", g1, g1},
            {"vk_beta_2", 2 * g1, g2},
            {"vk_gamma_2", 2 * g1 + g2, g2},
            {"vk_delta_1", 2 * g1 + 2 * g2, g1},
            {"vk_delta_2", 3 * g1 + 2 * g2, g2},
        };
        for (size_t i = 0; i < ZKP_ARRAY_LEN(hp); i++) {
            uint8_t *pt;
            tf_copy(&f, &good);
            pt = tf_body(&f, S_HEADER)->p + hdr_off_points(c) + hp[i].off;
            write_q(pt + hp[i].size - c->q_bytes, c);
            ASSERT_EQ_STATUS(zkey_status(&f, &d), ZKPIPE_ERR_NON_CANONICAL);
            ASSERT_MSG(contains(d.msg, hp[i].name), "%s", d.msg);
            tf_free(&f);
            tf_copy(&f, &good);
            pt = tf_body(&f, S_HEADER)->p + hdr_off_points(c) + hp[i].off;
            pt[hp[i].size - c->q_bytes] ^= 1; /* y (or y.c0's low byte) changes */
            ASSERT_EQ_STATUS(zkey_status(&f, &d), ZKPIPE_ERR_NOT_ON_CURVE);
            ASSERT_MSG(contains(d.msg, "section 2 (header)") && contains(d.msg, hp[i].name), "%s",
                       d.msg);
            tf_free(&f);
        }

        /* Point sections: point 1 broken in each coordinate in turn. */
        const struct {
            int section;
            const char *name;
            size_t size;
        } ps[] = {{S_IC, "IC", g1}, {S_A, "A", g1}, {S_B1, "B1", g1},
                  {S_B2, "B2", g2}, {S_C, "C", g1}, {S_H, "H", g1}};
        for (size_t i = 0; i < ZKP_ARRAY_LEN(ps); i++) {
            char want[80];
            snprintf(want, sizeof want, "section %d (%s): point 1 of", ps[i].section, ps[i].name);
            for (size_t coord = 0; coord < ps[i].size / c->q_bytes; coord++) {
                tf_copy(&f, &good);
                write_q(tf_body(&f, (uint32_t)ps[i].section)->p + ps[i].size + coord * c->q_bytes,
                        c);
                ASSERT_EQ_STATUS(zkey_status(&f, &d), ZKPIPE_ERR_NON_CANONICAL);
                ASSERT_MSG(contains(d.msg, want), "%s", d.msg);
                tf_free(&f);
                tf_copy(&f, &good);
                tf_body(&f, (uint32_t)ps[i].section)->p[ps[i].size + coord * c->q_bytes] ^= 4;
                ASSERT_EQ_STATUS(zkey_status(&f, &d), ZKPIPE_ERR_NOT_ON_CURVE);
                ASSERT_MSG(contains(d.msg, want), "%s", d.msg);
                tf_free(&f);
            }
            /* A nonzero coordinate beside zeros is not the infinity. */
            tf_copy(&f, &good);
            uint8_t *pt = tf_body(&f, (uint32_t)ps[i].section)->p + ps[i].size;
            memset(pt, 0, ps[i].size);
            pt[0] = 1;
            ASSERT_EQ_STATUS(zkey_status(&f, &d), ZKPIPE_ERR_NOT_ON_CURVE);
            memset(pt, 0, ps[i].size); /* all zeros: infinity, accepted */
            ASSERT_OK(zkey_status(&f, &d));
            tf_free(&f);
        }
        tf_free(&good);
    }
}

TEST_CASE(formats_zkey_subgroup_checks) {
    for (int ci = 0; ci < 2; ci++) {
        const tcurve *c = &tcurves[ci];
        tfile good, f;
        build_zkey(&good, c, &zkey_default);
        zkp_diag d = {{0}};
        const size_t g1 = g1_bytes(c), g2 = g2_bytes(c);
        uint8_t bad1[96], bad2[192];
        int have_g1 = c->curve == ZKPIPE_CURVE_BLS12_381; /* bn254_g1 has cofactor 1 */
        if (have_g1) bls12_381_g1_off_subgroup(bad1);
        if (c->curve == ZKPIPE_CURVE_BN254)
            bn254_g2_off_subgroup(bad2);
        else
            bls12_381_g2_off_subgroup(bad2);
        zkp_zkey_options check = {NULL, 2, 1}, nocheck = {NULL, 2, 0};

        /* Header G2 points and B2: always, and only with the option. */
        tf_copy(&f, &good);
        memcpy(tf_body(&f, S_HEADER)->p + hdr_off_points(c) + 2 * g1, bad2, g2);
        ASSERT_EQ_STATUS(zkey_status_opt(&f, &nocheck, &d), ZKPIPE_ERR_NOT_IN_SUBGROUP);
        ASSERT_MSG(contains(d.msg, "vk_beta_2"), "%s", d.msg);
        tf_free(&f);
        tf_copy(&f, &good);
        memcpy(tf_body(&f, S_B2)->p + 3 * g2, bad2, g2);
        ASSERT_OK(zkey_status_opt(&f, &nocheck, &d));
        ASSERT_EQ_STATUS(zkey_status_opt(&f, &check, &d), ZKPIPE_ERR_NOT_IN_SUBGROUP);
        ASSERT_MSG(contains(d.msg, "section 7 (B2): point 3 of 7"), "%s", d.msg);
        tf_free(&f);

        if (!have_g1) {
            tf_free(&good);
            continue;
        }
        /* G1: alpha and IC always; A, B1, C, H only with the option. */
        tf_copy(&f, &good);
        memcpy(tf_body(&f, S_HEADER)->p + hdr_off_points(c), bad1, g1);
        ASSERT_EQ_STATUS(zkey_status_opt(&f, &nocheck, &d), ZKPIPE_ERR_NOT_IN_SUBGROUP);
        ASSERT_MSG(contains(d.msg, "vk_alpha_1"), "%s", d.msg);
        tf_free(&f);
        tf_copy(&f, &good);
        memcpy(tf_body(&f, S_IC)->p + 2 * g1, bad1, g1);
        ASSERT_EQ_STATUS(zkey_status_opt(&f, &nocheck, &d), ZKPIPE_ERR_NOT_IN_SUBGROUP);
        ASSERT_MSG(contains(d.msg, "section 3 (IC): point 2 of 3"), "%s", d.msg);
        tf_free(&f);
        const int sections[] = {S_A, S_B1, S_C, S_H};
        for (size_t i = 0; i < ZKP_ARRAY_LEN(sections); i++) {
            tf_copy(&f, &good);
            memcpy(tf_body(&f, (uint32_t)sections[i])->p, bad1, g1);
            ASSERT_OK(zkey_status_opt(&f, &nocheck, &d));
            ASSERT_EQ_STATUS(zkey_status_opt(&f, &check, &d), ZKPIPE_ERR_NOT_IN_SUBGROUP);
            tf_free(&f);
        }
        tf_free(&good);
    }
}

TEST_CASE(formats_zkey_bad_coefficients) {
    for (int ci = 0; ci < 2; ci++) {
        const tcurve *c = &tcurves[ci];
        const zkey_dims *dm = &zkey_default;
        tfile good, f;
        build_zkey(&good, c, dm);
        zkp_diag d = {{0}};
        /* Entry 3 of section 4: matrix, constraint, signal, value. */
        const size_t at = 4 + 3 * 44;
        const struct {
            size_t field;
            uint32_t value;
            zkpipe_status want;
            const char *msg;
        } cases[] = {
            {0, 2, ZKPIPE_ERR_OUT_OF_RANGE, "entry 3: matrix 2"},
            {0, 0xffffffffu, ZKPIPE_ERR_OUT_OF_RANGE, "matrix"},
            {4, dm->domain, ZKPIPE_ERR_OUT_OF_RANGE,
             "entry 3: constraint 8 is outside the domain of size 8"},
            {8, dm->n_vars, ZKPIPE_ERR_OUT_OF_RANGE,
             "entry 3: signal 7 but the key has 7 variables"},
            {8, dm->n_vars - 1, ZKPIPE_OK, ""},
            {4, dm->domain - 1, ZKPIPE_OK, ""},
        };
        for (size_t i = 0; i < ZKP_ARRAY_LEN(cases); i++) {
            tf_copy(&f, &good);
            put_le32(tf_body(&f, S_COEFS)->p + at + cases[i].field, cases[i].value);
            ASSERT_EQ_STATUS(zkey_status(&f, &d), cases[i].want);
            if (cases[i].want != ZKPIPE_OK) ASSERT_MSG(contains(d.msg, cases[i].msg), "%s", d.msg);
            tf_free(&f);
        }
        tf_copy(&f, &good);
        for (int l = 0; l < 4; l++) put_le64(tf_body(&f, S_COEFS)->p + at + 12 + 8 * l, c->r[l]);
        ASSERT_EQ_STATUS(zkey_status(&f, &d), ZKPIPE_ERR_NON_CANONICAL);
        ASSERT_MSG(contains(d.msg, "section 4 (coefficients): entry 3"), "%s", d.msg);
        tf_free(&f);
        /* No coefficients at all is a valid (if useless) key. */
        tf_copy(&f, &good);
        put_le32(tf_body(&f, S_COEFS)->p, 0);
        tf_body(&f, S_COEFS)->len = 4;
        ASSERT_OK(zkey_status(&f, &d));
        tf_free(&f);
        tf_free(&good);
    }
}

/* The threaded check reports the lowest bad index for any thread count. */
TEST_CASE(formats_zkey_threads_report_first_bad_point) {
    const tcurve *c = &tcurves[0];
    const zkey_dims dm = {7, 2, 1u << 15};
    tfile good;
    build_zkey(&good, c, &dm);
    const size_t g1 = g1_bytes(c);
    const unsigned threads[] = {1, 2, 3, 8, 0};
    const size_t bad_sets[][2] = {{20000, 30000}, {5, 32767}, {32767, 32766}, {4096, 4095}};
    for (size_t s = 0; s < ZKP_ARRAY_LEN(bad_sets); s++) {
        tfile f;
        tf_copy(&f, &good);
        uint8_t *h = tf_body(&f, S_H)->p;
        for (int k = 0; k < 2; k++) h[bad_sets[s][k] * g1 + 40] ^= 1;
        size_t first = bad_sets[s][0] < bad_sets[s][1] ? bad_sets[s][0] : bad_sets[s][1];
        char want[80];
        snprintf(want, sizeof want, "section 9 (H): point %zu of 32768", first);
        for (size_t t = 0; t < ZKP_ARRAY_LEN(threads); t++) {
            zkp_zkey_options opt = {NULL, threads[t], 0};
            zkp_diag d = {{0}};
            ASSERT_EQ_STATUS(zkey_status_opt(&f, &opt, &d), ZKPIPE_ERR_NOT_ON_CURVE);
            ASSERT_MSG(contains(d.msg, want), "%u threads: %s", threads[t], d.msg);
        }
        tf_free(&f);
    }
    zkp_zkey_options opt = {NULL, 4, 0};
    ASSERT_OK(zkey_status_opt(&good, &opt, NULL));
    tf_free(&good);
}

TEST_CASE(formats_wtns_check_zkey) {
    tfile fk, fw;
    build_zkey(&fk, &tcurves[0], &zkey_default);
    tbytes tk;
    tf_build(&fk, &tk);
    zkp_zkey key;
    zkp_diag d = {{0}};
    ASSERT_OK(zkp_zkey_parse(&key, tk.p, tk.len, "circuit.zkey", NULL, &d));

    for (int ci = 0; ci < 2; ci++) {
        for (uint32_t n = 6; n <= 8; n++) {
            build_wtns(&fw, &tcurves[ci], n, NULL);
            tbytes tw;
            tf_build(&fw, &tw);
            zkp_wtns w;
            ASSERT_OK(zkp_wtns_parse(&w, tw.p, tw.len, "witness.wtns", NULL, &d));
            zkpipe_status want = ci != 0                    ? ZKPIPE_ERR_WRONG_CURVE
                                 : n != zkey_default.n_vars ? ZKPIPE_ERR_SIZE_MISMATCH
                                                            : ZKPIPE_OK;
            ASSERT_EQ_STATUS(zkp_wtns_check_zkey(&w, &key, &d), want);
            if (want == ZKPIPE_ERR_SIZE_MISMATCH) {
                char msg[32];
                snprintf(msg, sizeof msg, "%u values", n);
                ASSERT_MSG(contains(d.msg, msg) && contains(d.msg, "7 variables"), "%s", d.msg);
            }
            if (want == ZKPIPE_ERR_WRONG_CURVE)
                ASSERT_MSG(contains(d.msg, "bls12_381") && contains(d.msg, "bn254"), "%s", d.msg);
            zkp_wtns_free(&w);
            tbytes_free(&tw);
            tf_free(&fw);
        }
    }
    zkp_zkey_free(&key);
    tbytes_free(&tk);
    tf_free(&fk);
}

/* ------------------------------------------------------------ real fixtures */

static const char *const fixture_dirs[] = {
    "fixtures/poseidon_small_bn128",
    "fixtures/poseidon_small_bls12381",
    "fixtures/merkle_small_bn128",
    "fixtures/merkle_small_bls12381",
};

/* A fixture counts once every file the tests read is there: gen.sh writes
 * them one by one, so a directory may be incomplete while it runs. */
static int fixture_present(const char *dir) {
    const char *files[] = {"circuit.zkey", "witness.wtns", "circuit.r1cs", "r1cs_info.txt",
                           "verification_key.json"};
    for (size_t i = 0; i < ZKP_ARRAY_LEN(files); i++) {
        char rel[200];
        snprintf(rel, sizeof rel, "%s/%s", dir, files[i]);
        struct stat st;
        if (stat(test_data_path(rel), &st) != 0 || st.st_size == 0) return 0;
    }
    return 1;
}

/* A path under tests/ copied out of test_data_path's static buffers. */
static void fixture_path(char *out, size_t cap, const char *dir, const char *file) {
    char rel[200];
    snprintf(rel, sizeof rel, "%s/%s", dir, file);
    snprintf(out, cap, "%s", test_data_path(rel));
}

/* "# of Wires: 1234" and friends from snarkjs r1cs info. */
static uint64_t info_count(const char *dir, const char *label) {
    char path[512];
    fixture_path(path, sizeof path, dir, "r1cs_info.txt");
    FILE *fp = fopen(path, "r");
    ASSERT_MSG(fp != NULL, "%s: %s", path, strerror(errno));
    char line[256];
    uint64_t value = UINT64_MAX;
    size_t ll = strlen(label);
    while (fgets(line, sizeof line, fp)) {
        char *at = strstr(line, label);
        if (at && at[ll] == ':') value = strtoull(at + ll + 1, NULL, 10);
    }
    fclose(fp);
    ASSERT_MSG(value != UINT64_MAX, "%s: no \"%s\" line", path, label);
    return value;
}

/* Checks <A, w>·<B, w> = <C, w> for every constraint: the iteration API,
 * the coefficients and the witness values all have to be right. */
#define DEFINE_R1CS_SATISFIED(FR)                                                                  \
    static void FR##_r1cs_satisfied(const zkp_r1cs *r, const zkp_wtns *w) {                        \
        zkp_r1cs_iter it;                                                                          \
        zkp_r1cs_constraint con;                                                                   \
        zkp_r1cs_iter_init(&it, r);                                                                \
        uint32_t i = 0;                                                                            \
        while (zkp_r1cs_iter_next(&it, &con)) {                                                    \
            FR##_t sum[3];                                                                         \
            for (int m = 0; m < 3; m++) {                                                          \
                FR##_set_zero(&sum[m]);                                                            \
                for (uint32_t k = 0; k < con.lc[m].n_terms; k++) {                                 \
                    FR##_t coef, val, prod;                                                        \
                    zkp_r1cs_term_coef_limbs(&con.lc[m], k, coef.l);                               \
                    memcpy(val.l, w->values + 4 * zkp_r1cs_term_wire(&con.lc[m], k),               \
                           sizeof val.l);                                                          \
                    FR##_to_mont(&coef, &coef);                                                    \
                    FR##_mul(&prod, &coef, &val); /* Montgomery × canonical: canonical */         \
                    FR##_add(&sum[m], &sum[m], &prod);                                             \
                }                                                                                  \
            }                                                                                      \
            FR##_t ab; /* canonical again: Montgomery(sum A) × canonical sum B */                 \
            FR##_to_mont(&ab, &sum[0]);                                                            \
            FR##_mul(&ab, &ab, &sum[1]);                                                           \
            ASSERT_MSG(FR##_eq(&ab, &sum[2]), "constraint %u is not satisfied", i);                \
            i++;                                                                                   \
        }                                                                                          \
        ASSERT_EQ_U64(i, r->n_constraints);                                                        \
    }
DEFINE_R1CS_SATISFIED(bn254_fr)
DEFINE_R1CS_SATISFIED(bls12_381_fr)
#undef DEFINE_R1CS_SATISFIED

/* The snarkjs verification key's IC and alpha against the zkey's. */
static void check_vk_json(const char *dir, const zkp_zkey *key) {
    char rel[200];
    snprintf(rel, sizeof rel, "%s/verification_key.json", dir);
    zkp_json *root = test_load_json(rel);
    const zkp_json *npub = zkp_json_get(root, "nPublic");
    ASSERT(npub != NULL);
    ASSERT_EQ_U64(strtoull(zkp_json_number_text(npub), NULL, 10), zkp_zkey_n_public(key));
    const zkp_json *ic = zkp_json_get(root, "IC");
    ASSERT(ic != NULL);
    ASSERT_EQ_U64(zkp_json_len(ic), zkp_zkey_n_public(key) + 1);
    size_t g1 = key->curve == ZKPIPE_CURVE_BN254 ? 64 : 96;
    const uint8_t *ic_bytes = pk_points(key, S_IC);
    for (size_t i = 0; i < zkp_json_len(ic); i++) {
        const zkp_json *pt = zkp_json_at(ic, i);
        const char *coords[3];
        for (size_t k = 0; k < 3; k++) coords[k] = zkp_json_string(zkp_json_at(pt, k), NULL);
        zkpipe_g1 p;
        ASSERT_OK(zkpipe_g1_from_decimal(key->curve, &p, coords, 3));
        uint8_t enc[96];
        ASSERT_OK(zkpipe_g1_encode(key->curve, enc, sizeof enc, ZKPIPE_ENCODING_CIRCOM, &p));
        ASSERT_MEM_EQ(ic_bytes + i * g1, enc, g1);
    }
    zkp_json_free(root);
}

TEST_CASE(formats_fixtures_load) {
    int found = 0;
    for (size_t i = 0; i < ZKP_ARRAY_LEN(fixture_dirs); i++) {
        const char *dir = fixture_dirs[i];
        if (!fixture_present(dir)) continue;
        found++;
        char zpath[512], wpath[512], rpath[512];
        fixture_path(zpath, sizeof zpath, dir, "circuit.zkey");
        fixture_path(wpath, sizeof wpath, dir, "witness.wtns");
        fixture_path(rpath, sizeof rpath, dir, "circuit.r1cs");
        zkpipe_curve want_curve =
            strstr(dir, "bn128") ? ZKPIPE_CURVE_BN254 : ZKPIPE_CURVE_BLS12_381;

        zkp_diag d = {{0}};
        zkp_zkey key;
        /* Full subgroup checks on one key per curve (they are slow under the
         * sanitizers): a real key passes them. */
        zkp_zkey_options opt = {NULL, 0, strstr(dir, "poseidon") != NULL};
        ASSERT_MSG(zkp_zkey_load(&key, zpath, &opt, &d) == ZKPIPE_OK, "%s", d.msg);
        zkp_wtns w;
        ASSERT_MSG(zkp_wtns_load(&w, wpath, NULL, &d) == ZKPIPE_OK, "%s", d.msg);
        zkp_r1cs r;
        ASSERT_MSG(zkp_r1cs_load(&r, rpath, &d) == ZKPIPE_OK, "%s", d.msg);
        ASSERT_EQ_INT(key.curve, want_curve);
        ASSERT_EQ_INT(w.curve, want_curve);
        ASSERT_EQ_INT(r.curve, want_curve);
        ASSERT_OK(zkp_wtns_check_zkey(&w, &key, &d));

        /* The r1cs against snarkjs's own reading of it. */
        ASSERT_EQ_U64(r.n_wires, info_count(dir, "# of Wires"));
        ASSERT_EQ_U64(r.n_constraints, info_count(dir, "# of Constraints"));
        ASSERT_EQ_U64(r.n_prv_in, info_count(dir, "# of Private Inputs"));
        ASSERT_EQ_U64(r.n_pub_in, info_count(dir, "# of Public Inputs"));
        ASSERT_EQ_U64(r.n_pub_out, info_count(dir, "# of Outputs"));
        ASSERT_EQ_U64(r.n_labels, info_count(dir, "# of Labels"));
        ASSERT(!r.has_custom_gates);

        /* The three files against each other. */
        zkp_g16_pk pk;
        zkp_zkey_pk(&key, &pk);
        uint32_t n_public = zkp_zkey_n_public(&key);
        ASSERT_EQ_U64(zkp_zkey_n_vars(&key), r.n_wires);
        ASSERT_EQ_U64(w.n_vars, r.n_wires);
        ASSERT_EQ_U64(n_public, r.n_pub_out + r.n_pub_in);
        uint32_t domain =
            want_curve == ZKPIPE_CURVE_BN254 ? pk.u.bn254.domain_size : pk.u.bls12_381.domain_size;
        size_t n_coefs =
            want_curve == ZKPIPE_CURVE_BN254 ? pk.u.bn254.n_coefs : pk.u.bls12_381.n_coefs;
        ASSERT((uint64_t)r.n_constraints + n_public + 1 <= domain);
        ASSERT(domain / 2 < (uint64_t)r.n_constraints + n_public + 1); /* the smallest that fits */
        /* snarkjs: every A and B term, plus one A entry per public signal and the constant. */
        ASSERT_EQ_U64(n_coefs, r.n_terms[0] + r.n_terms[1] + n_public + 1);
        ASSERT_EQ_U64(w.values[0], 1);
        ASSERT(w.values[1] == 0 && w.values[2] == 0 && w.values[3] == 0);
        if (want_curve == ZKPIPE_CURVE_BN254)
            bn254_fr_r1cs_satisfied(&r, &w);
        else
            bls12_381_fr_r1cs_satisfied(&r, &w);
        check_vk_json(dir, &key);

        zkp_r1cs_free(&r);
        zkp_wtns_free(&w);
        zkp_zkey_free(&key);
    }
    if (!found) test_skip("no circom/snarkjs fixtures under tests/fixtures yet");
}

/* Parses the first cut bytes of a real file of kind k (0 zkey, 1 wtns,
 * 2 r1cs) from an exact-length copy and expects ERR_TRUNCATED. */
static void expect_fixture_truncated(int k, const uint8_t *data, size_t size, size_t cut,
                                     const char *path) {
    uint8_t *p = exact_copy(data, cut);
    zkp_diag d = {{0}};
    zkpipe_status st;
    if (k == 0) {
        zkp_zkey key;
        st = zkp_zkey_parse(&key, p, cut, path, NULL, &d);
    } else if (k == 1) {
        zkp_wtns w;
        st = zkp_wtns_parse(&w, p, cut, path, NULL, &d);
    } else {
        zkp_r1cs r;
        st = zkp_r1cs_parse(&r, p, cut, path, &d);
    }
    ASSERT_MSG(st == ZKPIPE_ERR_TRUNCATED, "%s cut at %zu of %zu: %s (%s)", path, cut, size,
               zkpipe_status_name(st), d.msg);
    free(p);
}

/* Truncating a real file at any section boundary (and next to it) fails as
 * truncated, for each of the three formats. */
TEST_CASE(formats_fixtures_truncated) {
    int found = 0;
    for (size_t i = 0; i < ZKP_ARRAY_LEN(fixture_dirs); i++) {
        const char *dir = fixture_dirs[i];
        if (!fixture_present(dir)) continue;
        found++;
        const char *files[] = {"circuit.zkey", "witness.wtns", "circuit.r1cs"};
        const char *magics[] = {"zkey", "wtns", "r1cs"};
        const uint32_t versions[] = {1, 2, 1};
        for (int k = 0; k < 3; k++) {
            char path[512];
            fixture_path(path, sizeof path, dir, files[k]);
            zkp_mapped_file mf;
            zkp_diag d = {{0}};
            ASSERT_MSG(zkp_mapped_file_open(&mf, path, &d) == ZKPIPE_OK, "%s", d.msg);
            zkp_binfile bf;
            ASSERT_OK(zkp_binfile_parse(&bf, mf.data, mf.size, magics[k], versions[k], path, &d));
            /* Cuts: the end of the file header, each section's header start,
             * body start and body end, one byte either side, and a few at
             * random. */
            for (uint32_t s = 0; s <= bf.n_sections; s++) {
                size_t points[3] = {ZKP_BINFILE_HEADER_BYTES, 0, 0};
                size_t np = 1;
                if (s < bf.n_sections) {
                    points[0] = bf.sections[s].offset - ZKP_BINFILE_SECTION_HEADER_BYTES;
                    points[1] = bf.sections[s].offset;
                    points[2] = bf.sections[s].offset + bf.sections[s].size;
                    np = 3;
                }
                for (size_t p = 0; p < np; p++)
                    for (int delta = -1; delta <= 1; delta++)
                        if (points[p] + (size_t)delta < mf.size)
                            expect_fixture_truncated(k, mf.data, mf.size, points[p] + (size_t)delta,
                                                     path);
            }
            for (unsigned r = 0; r < test_iters(20); r++)
                expect_fixture_truncated(k, mf.data, mf.size, test_rng_u64() % mf.size, path);
            zkp_mapped_file_close(&mf);
        }
    }
    if (!found) test_skip("no circom/snarkjs fixtures under tests/fixtures yet");
}
