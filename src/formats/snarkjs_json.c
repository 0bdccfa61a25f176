/* snarkjs Groth16 JSON files; see snarkjs_json.h. */
#include "formats/snarkjs_json.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "curve/curve.h"
#include "curve/encoding.h"
#include "field/field.h"
#include "pairing/pairing.h"
#include "util/json.h"

/* ---- The two curves behind one table ---------------------------------------
 *
 * The readers and writers are curve-neutral; what differs is a handful of
 * calls, wrapped here to take untyped pointers into the zkp_g16_* unions. */

/* Room for an Fp12 element of either curve: 12 base-field elements. */
typedef union {
    bn254_fq12_t bn254;
    bls12_381_fp12_t bls12_381;
} gt_any;

typedef struct {
    zkpipe_curve curve;
    const char *name; /* snarkjs's curve name */
    size_t g1_size;   /* sizeof the affine G1 point, for the IC array */
    zkpipe_status (*g1_from_dec)(void *p, const char *const *dec, size_t count);
    zkpipe_status (*g2_from_dec)(void *p, const char *const *dec, size_t count);
    zkpipe_status (*g1_to_dec)(char out[][ZKP_DEC_MAX], size_t count, const void *p);
    zkpipe_status (*g2_to_dec)(char out[][ZKP_DEC_MAX], size_t count, const void *p);
    /* Base field element i (0..11) of an Fp12 value, in ffjavascript's order. */
    zkpipe_status (*fp12_coeff_from_dec)(gt_any *f, int i, const char *s, size_t len);
    size_t (*fp12_coeff_to_dec)(char *out, size_t cap, const gt_any *f, int i);
    /* r = ffjavascript's pairing value for (p, q): see snarkjs_gt_ below. */
    void (*pairing)(gt_any *r, const void *p, const void *q);
    int (*gt_eq)(const gt_any *a, const gt_any *b);
    /* Scalars: canonical limbs <-> decimal, < r. */
    zkpipe_status (*fr_from_dec)(uint64_t out[4], const char *s, size_t len);
    size_t (*fr_to_dec)(char *out, size_t cap, const uint64_t in[4]);
} curve_ops;

/* snarkjs's vk_alphabeta_12 is ffjavascript's pairing, which is not the exact
 * reduced pairing e = f^((p^12 - 1)/r) that pairing.h computes but a fixed
 * power of it, from the hard parts of the final exponentiations in wasmcurves:
 *   BN254      e^(2x(6x^2 + 3x + 1)) = e^(12x^3 + 6x^2 + 2x), the chain of
 *              Fuentes-Castaneda, Knapp and Rodriguez-Henriquez (x the seed)
 *   BLS12-381  e^3, the chain of Hayashida, Hayasaka and Teruya
 * (checked against values ffjavascript computed, in the tests). Both maps are
 * bijections of GT, so e(alpha1, beta2) stays determined by the file. */
static void bn254_snarkjs_gt_(bn254_fq12_t *e) {
    bn254_fq12_t a, b, c, t;
    bn254_fq12_cyclotomic_exp_x(&a, e); /* e^x */
    bn254_fq12_cyclotomic_exp_x(&b, &a); /* e^(x^2) */
    bn254_fq12_cyclotomic_exp_x(&c, &b); /* e^(x^3) */
    /* c^12 · b^6 · a^2 = (c^2 · b)^6 · a^2 */
    bn254_fq12_cyclotomic_sqr(&t, &c);
    bn254_fq12_mul(&t, &t, &b);          /* c^2 b */
    bn254_fq12_cyclotomic_sqr(&c, &t);   /* (c^2 b)^2 */
    bn254_fq12_mul(&t, &c, &t);          /* (c^2 b)^3 */
    bn254_fq12_cyclotomic_sqr(&t, &t);   /* (c^2 b)^6 */
    bn254_fq12_cyclotomic_sqr(&a, &a);   /* a^2 */
    bn254_fq12_mul(e, &t, &a);
}

static void bls12_381_snarkjs_gt_(bls12_381_fp12_t *e) {
    bls12_381_fp12_t t;
    bls12_381_fp12_cyclotomic_sqr(&t, e);
    bls12_381_fp12_mul(e, &t, e);
}

/* The Fp12 tower is c0 + c1·w over Fp6 = c0 + c1·v + c2·v^2 over Fp2 = c0 +
 * c1·u, stored as nested structs of the base field, so the twelve base-field
 * elements lie in memory in exactly ffjavascript's nesting order
 * ([[[c000, c001], [c010, c011], [c020, c021]], [[c100, ...]]]). */
#define SJ_CURVE_OPS(C, FP, FP12, FR, CURVE, NAME)                                                 \
    _Static_assert(sizeof(ZKP_CAT(FP12, _t)) == 12 * sizeof(ZKP_CAT(FP, _t)), "Fp12 layout");    \
    _Static_assert(sizeof(ZKP_CAT(FR, _t)) == 4 * sizeof(uint64_t), "Fr layout");                \
    static zkpipe_status C##_sj_g1_from_dec(void *p, const char *const *dec, size_t count) {     \
        return C##_g1_affine_from_dec(p, dec, count);                                              \
    }                                                                                              \
    static zkpipe_status C##_sj_g2_from_dec(void *p, const char *const *dec, size_t count) {     \
        return C##_g2_affine_from_dec(p, dec, count);                                              \
    }                                                                                              \
    static zkpipe_status C##_sj_g1_to_dec(char out[][ZKP_DEC_MAX], size_t count, const void *p) { \
        return C##_g1_affine_to_dec(out, count, p);                                                \
    }                                                                                              \
    static zkpipe_status C##_sj_g2_to_dec(char out[][ZKP_DEC_MAX], size_t count, const void *p) { \
        return C##_g2_affine_to_dec(out, count, p);                                                \
    }                                                                                              \
    static zkpipe_status C##_sj_fp12_coeff_from_dec(gt_any *f, int i, const char *s, size_t len) { \
        ZKP_CAT(FP, _t) *e = (ZKP_CAT(FP, _t) *)(void *)&f->C;                                     \
        return ZKP_CAT(FP, _from_dec)(&e[i], s, len);                                              \
    }                                                                                              \
    static size_t C##_sj_fp12_coeff_to_dec(char *out, size_t cap, const gt_any *f, int i) {      \
        const ZKP_CAT(FP, _t) *e = (const ZKP_CAT(FP, _t) *)(const void *)&f->C;                   \
        return ZKP_CAT(FP, _to_dec)(out, cap, &e[i]);                                              \
    }                                                                                              \
    static void C##_sj_pairing(gt_any *r, const void *p, const void *q) {                         \
        C##_pairing(&r->C, p, q);                                                                  \
        C##_snarkjs_gt_(&r->C);                                                                    \
    }                                                                                              \
    static int C##_sj_gt_eq(const gt_any *a, const gt_any *b) { return C##_gt_eq(&a->C, &b->C); } \
    static zkpipe_status C##_sj_fr_from_dec(uint64_t out[4], const char *s, size_t len) {        \
        ZKP_CAT(FR, _t) m, c;                                                                      \
        zkpipe_status st = ZKP_CAT(FR, _from_dec)(&m, s, len);                                     \
        if (st != ZKPIPE_OK) return st;                                                            \
        ZKP_CAT(FR, _from_mont)(&c, &m);                                                           \
        memcpy(out, c.l, sizeof c.l);                                                              \
        return ZKPIPE_OK;                                                                          \
    }                                                                                              \
    static size_t C##_sj_fr_to_dec(char *out, size_t cap, const uint64_t in[4]) {                \
        ZKP_CAT(FR, _t) c, m;                                                                      \
        memcpy(c.l, in, sizeof c.l);                                                               \
        if (!ZKP_CAT(FR, _is_reduced)(&c)) return 0;                                               \
        ZKP_CAT(FR, _to_mont)(&m, &c);                                                             \
        return ZKP_CAT(FR, _to_dec)(out, cap, &m);                                                 \
    }                                                                                              \
    static const curve_ops C##_sj_ops = {                                                          \
        .curve = CURVE,                                                                            \
        .name = NAME,                                                                              \
        .g1_size = sizeof(C##_g1_affine_t),                                                        \
        .g1_from_dec = C##_sj_g1_from_dec,                                                         \
        .g2_from_dec = C##_sj_g2_from_dec,                                                         \
        .g1_to_dec = C##_sj_g1_to_dec,                                                             \
        .g2_to_dec = C##_sj_g2_to_dec,                                                             \
        .fp12_coeff_from_dec = C##_sj_fp12_coeff_from_dec,                                         \
        .fp12_coeff_to_dec = C##_sj_fp12_coeff_to_dec,                                             \
        .pairing = C##_sj_pairing,                                                                 \
        .gt_eq = C##_sj_gt_eq,                                                                     \
        .fr_from_dec = C##_sj_fr_from_dec,                                                         \
        .fr_to_dec = C##_sj_fr_to_dec,                                                             \
    };

SJ_CURVE_OPS(bn254, bn254_fq, bn254_fq12, bn254_fr, ZKPIPE_CURVE_BN254, "bn128")
SJ_CURVE_OPS(bls12_381, bls12_381_fp, bls12_381_fp12, bls12_381_fr, ZKPIPE_CURVE_BLS12_381, "bls12381")
#undef SJ_CURVE_OPS

static const curve_ops *ops_for(zkpipe_curve c) {
    switch (c) {
    case ZKPIPE_CURVE_BN254:
        return &bn254_sj_ops;
    case ZKPIPE_CURVE_BLS12_381:
        return &bls12_381_sj_ops;
    default:
        return NULL;
    }
}

/* ---- Reading ---------------------------------------------------------------- */

/* One read in progress: the file's name for messages and the caller's diag. */
typedef struct {
    const char *file;
    zkp_diag *d;
} rd;

static zkpipe_status rd_fail(const rd *r, zkpipe_status st, const char *fmt, ...) ZKP_PRINTF(3, 4);
static zkpipe_status rd_fail(const rd *r, zkpipe_status st, const char *fmt, ...) {
    if (r->d) {
        char msg[ZKP_DIAG_MAX];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(msg, sizeof msg, fmt, ap);
        va_end(ap);
        zkp_diag_fail(r->d, st, "%s: %s", r->file, msg);
    }
    return st;
}

/* Decimal strings longer than this are >= 10^120, beyond p of either curve. */
#define DEC_DIGITS_MAX 120

static const char *json_type_name(const zkp_json *v) {
    if (v == NULL) return "missing";
    switch (zkp_json_type_of(v)) {
    case ZKP_JSON_NULL:
        return "null";
    case ZKP_JSON_BOOL:
        return "a boolean";
    case ZKP_JSON_NUMBER:
        return "a number";
    case ZKP_JSON_STRING:
        return "a string";
    case ZKP_JSON_ARRAY:
        return "an array";
    case ZKP_JSON_OBJECT:
        return "an object";
    }
    return "?";
}

/* A decimal string: its text in *s. The characters and the form are checked
 * here, with distinct statuses; the value range is the field's to check.
 * Leading zeros are refused in points (snarkjs never writes them, and a
 * proof or key has one spelling), but accepted in public inputs when
 * zeros_ok, as snarkjs's BigInt() accepts them: people write those files
 * by hand. *s then skips them, and the digit limit applies to what is left. */
static zkpipe_status rd_dec_(const rd *r, const zkp_json *v, const char *where, const char **s,
                             int zeros_ok) {
    if (zkp_json_type_of(v) != ZKP_JSON_STRING || v == NULL)
        return rd_fail(r, ZKPIPE_ERR_PARSE, "%s: expected a decimal string, found %s", where,
                       json_type_name(v));
    size_t n = 0;
    const char *t = zkp_json_string(v, &n);
    if (n == 0) return rd_fail(r, ZKPIPE_ERR_BAD_ENCODING, "%s: empty string", where);
    for (size_t i = 0; i < n; i++)
        if (t[i] < '0' || t[i] > '9')
            return rd_fail(r, ZKPIPE_ERR_BAD_ENCODING,
                           "%s: not a decimal number (character %zu is 0x%02x)", where, i,
                           (unsigned)(unsigned char)t[i]);
    if (zeros_ok) {
        while (n > 1 && t[0] == '0') {
            t++;
            n--;
        }
    }
    if (n > 1 && t[0] == '0')
        return rd_fail(r, ZKPIPE_ERR_NON_CANONICAL, "%s: decimal number with a leading zero",
                       where);
    if (n > DEC_DIGITS_MAX)
        return rd_fail(r, ZKPIPE_ERR_NON_CANONICAL, "%s: %zu digits, beyond the field", where, n);
    *s = t;
    return ZKPIPE_OK;
}

static zkpipe_status rd_dec(const rd *r, const zkp_json *v, const char *where, const char **s) {
    return rd_dec_(r, v, where, s, 0);
}

/* An array of 2 or 3 elements (a point: [x, y] or [x, y, z]). */
static zkpipe_status rd_point_array(const rd *r, const zkp_json *v, const char *where, size_t *n) {
    if (zkp_json_type_of(v) != ZKP_JSON_ARRAY || v == NULL)
        return rd_fail(r, ZKPIPE_ERR_PARSE, "%s: expected a point (an array), found %s", where,
                       json_type_name(v));
    *n = zkp_json_len(v);
    if (*n != 2 && *n != 3)
        return rd_fail(r, ZKPIPE_ERR_BAD_ENCODING, "%s: a point has 3 coordinates, found %zu",
                       where, *n);
    return ZKPIPE_OK;
}

static zkpipe_status rd_point_status(const rd *r, zkpipe_status st, const char *where,
                                     const char *field) {
    switch (st) {
    case ZKPIPE_OK:
        return st;
    case ZKPIPE_ERR_NON_CANONICAL:
        return rd_fail(r, st, "%s: coordinate not below the %s modulus p", where, field);
    case ZKPIPE_ERR_NOT_ON_CURVE:
        return rd_fail(r, st, "%s: point is not on the curve", where);
    case ZKPIPE_ERR_NOT_IN_SUBGROUP:
        return rd_fail(r, st, "%s: point is not in the prime-order subgroup", where);
    case ZKPIPE_ERR_BAD_ENCODING:
        return rd_fail(r, st, "%s: bad point encoding (z must be 1, or 0 for infinity)", where);
    default:
        return rd_fail(r, st, "%s: %s", where, zkpipe_strerror(st));
    }
}

static zkpipe_status rd_g1(const rd *r, const curve_ops *ops, const zkp_json *v, const char *where,
                           void *out) {
    size_t n = 0;
    zkpipe_status st = rd_point_array(r, v, where, &n);
    if (st != ZKPIPE_OK) return st;
    const char *dec[3];
    for (size_t i = 0; i < n; i++) {
        char w[96];
        snprintf(w, sizeof w, "%s[%zu]", where, i);
        st = rd_dec(r, zkp_json_at(v, i), w, &dec[i]);
        if (st != ZKPIPE_OK) return st;
    }
    return rd_point_status(r, ops->g1_from_dec(out, dec, n), where, "base field");
}

static zkpipe_status rd_g2(const rd *r, const curve_ops *ops, const zkp_json *v, const char *where,
                           void *out) {
    size_t n = 0;
    zkpipe_status st = rd_point_array(r, v, where, &n);
    if (st != ZKPIPE_OK) return st;
    const char *dec[6];
    for (size_t i = 0; i < n; i++) {
        const zkp_json *c = zkp_json_at(v, i);
        char w[96];
        snprintf(w, sizeof w, "%s[%zu]", where, i);
        if (zkp_json_type_of(c) != ZKP_JSON_ARRAY)
            return rd_fail(r, ZKPIPE_ERR_PARSE, "%s: expected an Fp2 pair [c0, c1], found %s", w,
                           json_type_name(c));
        if (zkp_json_len(c) != 2)
            return rd_fail(r, ZKPIPE_ERR_BAD_ENCODING, "%s: an Fp2 pair has 2 elements, found %zu",
                           w, zkp_json_len(c));
        for (size_t j = 0; j < 2; j++) {
            char w2[100];
            snprintf(w2, sizeof w2, "%s[%zu]", w, j);
            st = rd_dec(r, zkp_json_at(c, j), w2, &dec[2 * i + j]);
            if (st != ZKPIPE_OK) return st;
        }
    }
    return rd_point_status(r, ops->g2_from_dec(out, dec, 2 * n), where, "base field");
}

/* A member that must be a string equal to one of the accepted values. */
static zkpipe_status rd_string_member(const rd *r, const zkp_json *root, const char *key,
                                      const char **s) {
    const zkp_json *v = zkp_json_get(root, key);
    if (v == NULL) return rd_fail(r, ZKPIPE_ERR_PARSE, "member \"%s\" is missing", key);
    if (zkp_json_type_of(v) != ZKP_JSON_STRING)
        return rd_fail(r, ZKPIPE_ERR_PARSE, "%s: expected a string, found %s", key,
                       json_type_name(v));
    size_t n = 0;
    *s = zkp_json_string(v, &n);
    if (strlen(*s) != n) *s = NULL; /* an embedded NUL: matches no name */
    return ZKPIPE_OK;
}

static zkpipe_status rd_protocol(const rd *r, const zkp_json *root) {
    const char *s = NULL;
    zkpipe_status st = rd_string_member(r, root, "protocol", &s);
    if (st != ZKPIPE_OK) return st;
    if (s == NULL || strcmp(s, "groth16") != 0)
        return rd_fail(r, ZKPIPE_ERR_UNSUPPORTED, "protocol \"%.64s\" is not groth16",
                       s ? s : "(contains NUL)");
    return ZKPIPE_OK;
}

static zkpipe_status rd_curve(const rd *r, const zkp_json *root, const curve_ops **ops) {
    const char *s = NULL;
    zkpipe_status st = rd_string_member(r, root, "curve", &s);
    if (st != ZKPIPE_OK) return st;
    zkpipe_curve c;
    if (s == NULL || zkpipe_curve_from_name(&c, s) != ZKPIPE_OK || (*ops = ops_for(c)) == NULL)
        return rd_fail(r, ZKPIPE_ERR_UNSUPPORTED,
                       "curve \"%.64s\" is not supported (bn128 or bls12381)",
                       s ? s : "(contains NUL)");
    return ZKPIPE_OK;
}

/* Parses the document, refusing oversized texts before allocating. */
static zkpipe_status rd_parse(const rd *r, zkp_json **root, const char *text, size_t len) {
    *root = NULL;
    if (text == NULL && len > 0) return rd_fail(r, ZKPIPE_ERR_INVALID_ARGUMENT, "NULL text");
    if (len > ZKP_SNARKJS_MAX_TEXT)
        return rd_fail(r, ZKPIPE_ERR_OUT_OF_RANGE, "%zu bytes, more than the limit of %zu", len,
                       ZKP_SNARKJS_MAX_TEXT);
    /* snarkjs files nest at most four deep; allow some slack for members
     * this reader ignores. */
    zkp_json_limits lim = {.max_depth = 16, .max_memory = 0};
    zkp_json_error err;
    zkpipe_status st = zkp_json_parse_report(root, text, len, &lim, &err);
    if (st == ZKPIPE_ERR_PARSE)
        return rd_fail(r, st, "not valid JSON: %s at byte %zu", err.reason, err.offset);
    if (st != ZKPIPE_OK) return rd_fail(r, st, "%s", zkpipe_strerror(st));
    return ZKPIPE_OK;
}

static zkpipe_status rd_object(const rd *r, const zkp_json *root) {
    if (zkp_json_type_of(root) != ZKP_JSON_OBJECT)
        return rd_fail(r, ZKPIPE_ERR_PARSE, "expected a JSON object, found %s",
                       json_type_name(root));
    return ZKPIPE_OK;
}

static void *proof_g1(zkp_g16_proof *p, int which) {
    if (p->curve == ZKPIPE_CURVE_BN254) return which ? (void *)&p->u.bn254.c : (void *)&p->u.bn254.a;
    return which ? (void *)&p->u.bls12_381.c : (void *)&p->u.bls12_381.a;
}

zkpipe_status zkp_snarkjs_read_proof(const char *text, size_t len, const char *name,
                                     zkp_g16_proof *out, zkp_diag *d) {
    return zkp_snarkjs_read_proof_for(text, len, name, (zkpipe_curve)0, out, d);
}

zkpipe_status zkp_snarkjs_read_proof_for(const char *text, size_t len, const char *name,
                                         zkpipe_curve expected, zkp_g16_proof *out, zkp_diag *d) {
    rd r = {name ? name : "input", d};
    if (out == NULL) return rd_fail(&r, ZKPIPE_ERR_INVALID_ARGUMENT, "NULL output");
    memset(out, 0, sizeof *out);
    zkp_json *root;
    zkpipe_status st = rd_parse(&r, &root, text, len);
    if (st != ZKPIPE_OK) return st;
    const curve_ops *ops = NULL;
    zkp_g16_proof p;
    memset(&p, 0, sizeof p);
    if ((st = rd_object(&r, root)) != ZKPIPE_OK) goto done;
    if ((st = rd_protocol(&r, root)) != ZKPIPE_OK) goto done;
    if (expected && zkp_json_get(root, "curve") == NULL) {
        /* rapidsnark writes no "curve"; snarkjs then goes by the key's. */
        ops = ops_for(expected);
        if (ops == NULL) {
            st = rd_fail(&r, ZKPIPE_ERR_UNSUPPORTED, "unsupported curve");
            goto done;
        }
    } else if ((st = rd_curve(&r, root, &ops)) != ZKPIPE_OK) {
        goto done;
    } else if (expected && ops->curve != expected) {
        st = rd_fail(&r, ZKPIPE_ERR_WRONG_CURVE, "the proof is for %s, the key for %s",
                     zkpipe_curve_name(ops->curve), zkpipe_curve_name(expected));
        goto done;
    }
    p.curve = ops->curve;
    static const char *const keys[] = {"pi_a", "pi_b", "pi_c"};
    for (int i = 0; i < 3; i++) {
        const zkp_json *v = zkp_json_get(root, keys[i]);
        if (v == NULL) {
            st = rd_fail(&r, ZKPIPE_ERR_PARSE, "member \"%s\" is missing", keys[i]);
            goto done;
        }
        if (i == 1)
            st = rd_g2(&r, ops, v, keys[i],
                       p.curve == ZKPIPE_CURVE_BN254 ? (void *)&p.u.bn254.b
                                                     : (void *)&p.u.bls12_381.b);
        else
            st = rd_g1(&r, ops, v, keys[i], proof_g1(&p, i == 2));
        if (st != ZKPIPE_OK) goto done;
    }
    *out = p;
done:
    zkp_json_free(root);
    return st;
}

zkpipe_status zkp_snarkjs_read_public(const char *text, size_t len, const char *name,
                                      zkpipe_curve curve, zkp_g16_public *out, zkp_diag *d) {
    rd r = {name ? name : "input", d};
    if (out == NULL) return rd_fail(&r, ZKPIPE_ERR_INVALID_ARGUMENT, "NULL output");
    memset(out, 0, sizeof *out);
    const curve_ops *ops = ops_for(curve);
    if (ops == NULL) return rd_fail(&r, ZKPIPE_ERR_INVALID_ARGUMENT, "unknown curve %d", (int)curve);
    zkp_json *root;
    zkpipe_status st = rd_parse(&r, &root, text, len);
    if (st != ZKPIPE_OK) return st;
    uint64_t *values = NULL;
    size_t n = 0;
    if (zkp_json_type_of(root) != ZKP_JSON_ARRAY) {
        st = rd_fail(&r, ZKPIPE_ERR_PARSE, "expected an array of decimal strings, found %s",
                     json_type_name(root));
        goto done;
    }
    n = zkp_json_len(root);
    if (n > 0) {
        /* n is at most len / 3 (each element is at least `"0",`). */
        size_t bytes;
        if (zkp_mul_overflow(n, 4 * sizeof(uint64_t), &bytes)) {
            st = rd_fail(&r, ZKPIPE_ERR_NO_MEMORY, "%zu public inputs", n);
            goto done;
        }
        values = malloc(bytes);
        if (values == NULL) {
            st = rd_fail(&r, ZKPIPE_ERR_NO_MEMORY, "%zu public inputs", n);
            goto done;
        }
    }
    for (size_t i = 0; i < n; i++) {
        char w[48];
        snprintf(w, sizeof w, "[%zu]", i);
        const char *s = NULL;
        if ((st = rd_dec_(&r, zkp_json_at(root, i), w, &s, 1)) != ZKPIPE_OK) goto done;
        st = ops->fr_from_dec(&values[4 * i], s, strlen(s));
        if (st == ZKPIPE_ERR_NON_CANONICAL) {
            st = rd_fail(&r, st,
                         "%s: public input is not below the %s scalar field modulus r "
                         "(values are never reduced)",
                         w, ops->name);
            goto done;
        }
        if (st != ZKPIPE_OK) {
            st = rd_fail(&r, st, "%s: %s", w, zkpipe_strerror(st));
            goto done;
        }
    }
    out->curve = curve;
    out->n = n;
    out->values = values;
    values = NULL;
done:
    free(values);
    zkp_json_free(root);
    return st;
}

/* nPublic: a JSON number that is a non-negative integer (no sign, fraction
 * or exponent). Values too large for a size_t saturate to SIZE_MAX, which
 * then fails the comparison with the IC length. */
static zkpipe_status rd_npublic(const rd *r, const zkp_json *root, size_t *n) {
    const zkp_json *v = zkp_json_get(root, "nPublic");
    if (v == NULL) return rd_fail(r, ZKPIPE_ERR_PARSE, "member \"nPublic\" is missing");
    const char *t = zkp_json_number_text(v);
    if (t == NULL)
        return rd_fail(r, ZKPIPE_ERR_PARSE, "nPublic: expected a number, found %s",
                       json_type_name(v));
    size_t acc = 0;
    for (const char *p = t; *p; p++) {
        if (*p < '0' || *p > '9')
            return rd_fail(r, ZKPIPE_ERR_PARSE, "nPublic: %.40s is not a non-negative integer", t);
        if (acc > (SIZE_MAX - 9) / 10)
            acc = SIZE_MAX;
        else
            acc = acc * 10 + (size_t)(*p - '0');
    }
    *n = acc;
    return ZKPIPE_OK;
}

/* vk_alphabeta_12: [[[c000, c001], [c010, c011], [c020, c021]], [[...], ...]]. */
static zkpipe_status rd_alphabeta(const rd *r, const curve_ops *ops, const zkp_json *v,
                                  gt_any *f) {
    static const char key[] = "vk_alphabeta_12";
    if (zkp_json_type_of(v) != ZKP_JSON_ARRAY)
        return rd_fail(r, ZKPIPE_ERR_PARSE, "%s: expected an array, found %s", key,
                       json_type_name(v));
    if (zkp_json_len(v) != 2)
        return rd_fail(r, ZKPIPE_ERR_BAD_ENCODING, "%s: an Fp12 value has 2 elements, found %zu",
                       key, zkp_json_len(v));
    for (size_t i = 0; i < 2; i++) {
        const zkp_json *a = zkp_json_at(v, i);
        if (zkp_json_type_of(a) != ZKP_JSON_ARRAY)
            return rd_fail(r, ZKPIPE_ERR_PARSE, "%s[%zu]: expected an array, found %s", key, i,
                           json_type_name(a));
        if (zkp_json_len(a) != 3)
            return rd_fail(r, ZKPIPE_ERR_BAD_ENCODING,
                           "%s[%zu]: an Fp6 value has 3 elements, found %zu", key, i,
                           zkp_json_len(a));
        for (size_t j = 0; j < 3; j++) {
            const zkp_json *b = zkp_json_at(a, j);
            if (zkp_json_type_of(b) != ZKP_JSON_ARRAY)
                return rd_fail(r, ZKPIPE_ERR_PARSE, "%s[%zu][%zu]: expected an array, found %s",
                               key, i, j, json_type_name(b));
            if (zkp_json_len(b) != 2)
                return rd_fail(r, ZKPIPE_ERR_BAD_ENCODING,
                               "%s[%zu][%zu]: an Fp2 value has 2 elements, found %zu", key, i, j,
                               zkp_json_len(b));
            for (size_t k = 0; k < 2; k++) {
                char w[64];
                snprintf(w, sizeof w, "%s[%zu][%zu][%zu]", key, i, j, k);
                const char *s = NULL;
                zkpipe_status st = rd_dec(r, zkp_json_at(b, k), w, &s);
                if (st != ZKPIPE_OK) return st;
                st = ops->fp12_coeff_from_dec(f, (int)(6 * i + 2 * j + k), s, strlen(s));
                if (st == ZKPIPE_ERR_NON_CANONICAL)
                    return rd_fail(r, st, "%s: not below the base field modulus p", w);
                if (st != ZKPIPE_OK) return rd_fail(r, st, "%s: %s", w, zkpipe_strerror(st));
            }
        }
    }
    return ZKPIPE_OK;
}

zkpipe_status zkp_snarkjs_read_vk(const char *text, size_t len, const char *name, zkp_g16_vk *out,
                                  zkp_diag *d) {
    rd r = {name ? name : "input", d};
    if (out == NULL) return rd_fail(&r, ZKPIPE_ERR_INVALID_ARGUMENT, "NULL output");
    memset(out, 0, sizeof *out);
    zkp_json *root;
    zkpipe_status st = rd_parse(&r, &root, text, len);
    if (st != ZKPIPE_OK) return st;
    const curve_ops *ops = NULL;
    void *ic = NULL;
    zkp_g16_vk vk;
    memset(&vk, 0, sizeof vk);
    if ((st = rd_object(&r, root)) != ZKPIPE_OK) goto done;
    if ((st = rd_protocol(&r, root)) != ZKPIPE_OK) goto done;
    if ((st = rd_curve(&r, root, &ops)) != ZKPIPE_OK) goto done;
    vk.curve = ops->curve;

    size_t n_public = 0;
    if ((st = rd_npublic(&r, root, &n_public)) != ZKPIPE_OK) goto done;
    const zkp_json *ic_json = zkp_json_get(root, "IC");
    if (ic_json == NULL) {
        st = rd_fail(&r, ZKPIPE_ERR_PARSE, "member \"IC\" is missing");
        goto done;
    }
    if (zkp_json_type_of(ic_json) != ZKP_JSON_ARRAY) {
        st = rd_fail(&r, ZKPIPE_ERR_PARSE, "IC: expected an array of points, found %s",
                     json_type_name(ic_json));
        goto done;
    }
    size_t n_ic = zkp_json_len(ic_json);
    if (n_ic == 0 || n_public != n_ic - 1 || n_public > UINT32_MAX) {
        st = rd_fail(&r, ZKPIPE_ERR_SIZE_MISMATCH,
                     "nPublic is %zu but IC has %zu points (nPublic + 1 expected)", n_public, n_ic);
        goto done;
    }

    /* The fixed points first (cheap to reject a bad file before allocating). */
    void *alpha1, *beta2, *gamma2, *delta2;
    if (vk.curve == ZKPIPE_CURVE_BN254) {
        vk.u.bn254.n_public = (uint32_t)n_public;
        alpha1 = &vk.u.bn254.alpha1;
        beta2 = &vk.u.bn254.beta2;
        gamma2 = &vk.u.bn254.gamma2;
        delta2 = &vk.u.bn254.delta2;
    } else {
        vk.u.bls12_381.n_public = (uint32_t)n_public;
        alpha1 = &vk.u.bls12_381.alpha1;
        beta2 = &vk.u.bls12_381.beta2;
        gamma2 = &vk.u.bls12_381.gamma2;
        delta2 = &vk.u.bls12_381.delta2;
    }
    static const char *const keys[] = {"vk_alpha_1", "vk_beta_2", "vk_gamma_2", "vk_delta_2"};
    void *const dst[] = {alpha1, beta2, gamma2, delta2};
    for (int i = 0; i < 4; i++) {
        const zkp_json *v = zkp_json_get(root, keys[i]);
        if (v == NULL) {
            st = rd_fail(&r, ZKPIPE_ERR_PARSE, "member \"%s\" is missing", keys[i]);
            goto done;
        }
        st = i == 0 ? rd_g1(&r, ops, v, keys[i], dst[i]) : rd_g2(&r, ops, v, keys[i], dst[i]);
        if (st != ZKPIPE_OK) goto done;
    }

    size_t bytes;
    if (zkp_mul_overflow(n_ic, ops->g1_size, &bytes) || (ic = malloc(bytes)) == NULL) {
        st = rd_fail(&r, ZKPIPE_ERR_NO_MEMORY, "IC: %zu points", n_ic);
        goto done;
    }
    for (size_t i = 0; i < n_ic; i++) {
        char w[48];
        snprintf(w, sizeof w, "IC[%zu]", i);
        st = rd_g1(&r, ops, zkp_json_at(ic_json, i), w, (char *)ic + i * ops->g1_size);
        if (st != ZKPIPE_OK) goto done;
    }

    const zkp_json *ab = zkp_json_get(root, "vk_alphabeta_12");
    if (ab != NULL) {
        gt_any want, got;
        memset(&want, 0, sizeof want);
        if ((st = rd_alphabeta(&r, ops, ab, &want)) != ZKPIPE_OK) goto done;
        ops->pairing(&got, alpha1, beta2);
        if (!ops->gt_eq(&got, &want)) {
            st = rd_fail(&r, ZKPIPE_ERR_BAD_ENCODING,
                         "vk_alphabeta_12 is not e(vk_alpha_1, vk_beta_2)");
            goto done;
        }
    }

    if (vk.curve == ZKPIPE_CURVE_BN254)
        vk.u.bn254.ic = ic;
    else
        vk.u.bls12_381.ic = ic;
    vk.owned = ic;
    ic = NULL;
    *out = vk;
done:
    free(ic);
    zkp_json_free(root);
    return st;
}

/* ---- Writing -----------------------------------------------------------------
 *
 * A small emitter of bfj's {space: 1} layout: every array or object element on
 * its own line, indented one space per level, ": " after member names, and the
 * closing bracket on its own line (also for an empty container, "[\n]"). */

#define JW_MAX_DEPTH 8

typedef struct {
    char *buf;
    size_t len, cap;
    int oom;
    int depth;
    size_t count[JW_MAX_DEPTH];
} jw;

static void jw_raw(jw *w, const char *s, size_t n) {
    if (w->oom) return;
    if (w->cap - w->len < n + 1) {
        size_t need, cap = w->cap ? w->cap : 1024;
        if (zkp_add_overflow(w->len, n + 1, &need)) {
            w->oom = 1;
            return;
        }
        while (cap < need) {
            if (cap > SIZE_MAX / 2) {
                w->oom = 1;
                return;
            }
            cap *= 2;
        }
        char *nb = realloc(w->buf, cap);
        if (nb == NULL) {
            w->oom = 1;
            return;
        }
        w->buf = nb;
        w->cap = cap;
    }
    memcpy(w->buf + w->len, s, n);
    w->len += n;
    w->buf[w->len] = '\0';
}

static void jw_s(jw *w, const char *s) { jw_raw(w, s, strlen(s)); }

static void jw_newline(jw *w, int depth) {
    jw_raw(w, "\n", 1);
    for (int i = 0; i < depth; i++) jw_raw(w, " ", 1);
}

/* Before each element of the current container. */
static void jw_item(jw *w) {
    if (w->depth == 0) return;
    if (w->count[w->depth - 1]++ > 0) jw_raw(w, ",", 1);
    jw_newline(w, w->depth);
}

static void jw_open(jw *w, const char *bracket) {
    jw_s(w, bracket);
    if (w->depth >= JW_MAX_DEPTH) {
        w->oom = 1; /* never happens: snarkjs files nest four deep */
        return;
    }
    w->count[w->depth++] = 0;
}

static void jw_close(jw *w, const char *bracket) {
    if (w->depth == 0) return;
    w->depth--;
    jw_newline(w, w->depth);
    jw_s(w, bracket);
}

static void jw_key(jw *w, const char *key) {
    jw_item(w);
    jw_raw(w, "\"", 1);
    jw_s(w, key);
    jw_raw(w, "\": ", 3);
}

/* A string that needs no escaping (decimal digits, curve and protocol names). */
static void jw_str(jw *w, const char *s) {
    jw_item(w);
    jw_raw(w, "\"", 1);
    jw_s(w, s);
    jw_raw(w, "\"", 1);
}

static void jw_g1(jw *w, const curve_ops *ops, const void *p) {
    char dec[3][ZKP_DEC_MAX];
    if (ops->g1_to_dec(dec, 3, p) != ZKPIPE_OK) {
        w->oom = 1; /* cannot happen: to_dec fails only on a wrong count */
        return;
    }
    jw_open(w, "[");
    for (int i = 0; i < 3; i++) jw_str(w, dec[i]);
    jw_close(w, "]");
}

static void jw_g2(jw *w, const curve_ops *ops, const void *p) {
    char dec[6][ZKP_DEC_MAX];
    if (ops->g2_to_dec(dec, 6, p) != ZKPIPE_OK) {
        w->oom = 1;
        return;
    }
    jw_open(w, "[");
    for (int i = 0; i < 3; i++) {
        jw_item(w);
        jw_open(w, "[");
        jw_str(w, dec[2 * i]);
        jw_str(w, dec[2 * i + 1]);
        jw_close(w, "]");
    }
    jw_close(w, "]");
}

static zkpipe_status jw_finish(jw *w, char **out, size_t *len) {
    if (w->oom || w->buf == NULL) {
        free(w->buf);
        return ZKPIPE_ERR_NO_MEMORY;
    }
    *out = w->buf;
    *len = w->len;
    return ZKPIPE_OK;
}

static zkpipe_status wr_check(const void *in, char **out, size_t *len) {
    if (out) *out = NULL;
    if (len) *len = 0;
    return in && out && len ? ZKPIPE_OK : ZKPIPE_ERR_INVALID_ARGUMENT;
}

zkpipe_status zkp_snarkjs_write_proof(const zkp_g16_proof *proof, char **out, size_t *len) {
    zkpipe_status st = wr_check(proof, out, len);
    if (st != ZKPIPE_OK) return st;
    const curve_ops *ops = ops_for(proof->curve);
    if (ops == NULL) return ZKPIPE_ERR_INVALID_ARGUMENT;
    int bn = proof->curve == ZKPIPE_CURVE_BN254;
    jw w = {0};
    jw_open(&w, "{");
    jw_key(&w, "pi_a");
    jw_g1(&w, ops, bn ? (const void *)&proof->u.bn254.a : (const void *)&proof->u.bls12_381.a);
    jw_key(&w, "pi_b");
    jw_g2(&w, ops, bn ? (const void *)&proof->u.bn254.b : (const void *)&proof->u.bls12_381.b);
    jw_key(&w, "pi_c");
    jw_g1(&w, ops, bn ? (const void *)&proof->u.bn254.c : (const void *)&proof->u.bls12_381.c);
    jw_key(&w, "protocol");
    jw_raw(&w, "\"groth16\"", 9);
    jw_key(&w, "curve");
    jw_raw(&w, "\"", 1);
    jw_s(&w, ops->name);
    jw_raw(&w, "\"", 1);
    jw_close(&w, "}");
    return jw_finish(&w, out, len);
}

zkpipe_status zkp_snarkjs_write_public(const zkp_g16_public *pub, char **out, size_t *len) {
    zkpipe_status st = wr_check(pub, out, len);
    if (st != ZKPIPE_OK) return st;
    const curve_ops *ops = ops_for(pub->curve);
    if (ops == NULL || (pub->n > 0 && pub->values == NULL)) return ZKPIPE_ERR_INVALID_ARGUMENT;
    jw w = {0};
    jw_open(&w, "[");
    for (size_t i = 0; i < pub->n; i++) {
        char dec[ZKP_DEC_MAX];
        if (ops->fr_to_dec(dec, sizeof dec, &pub->values[4 * i]) == 0) {
            free(w.buf);
            return ZKPIPE_ERR_INVALID_ARGUMENT; /* not < r */
        }
        jw_str(&w, dec);
    }
    jw_close(&w, "]");
    return jw_finish(&w, out, len);
}

zkpipe_status zkp_snarkjs_write_vk(const zkp_g16_vk *vk, char **out, size_t *len) {
    zkpipe_status st = wr_check(vk, out, len);
    if (st != ZKPIPE_OK) return st;
    const curve_ops *ops = ops_for(vk->curve);
    if (ops == NULL) return ZKPIPE_ERR_INVALID_ARGUMENT;
    int bn = vk->curve == ZKPIPE_CURVE_BN254;
    uint32_t n_public = bn ? vk->u.bn254.n_public : vk->u.bls12_381.n_public;
    const void *ic = bn ? (const void *)vk->u.bn254.ic : (const void *)vk->u.bls12_381.ic;
    if (ic == NULL) return ZKPIPE_ERR_INVALID_ARGUMENT;
    const void *alpha1 = bn ? (const void *)&vk->u.bn254.alpha1 : (const void *)&vk->u.bls12_381.alpha1;
    const void *beta2 = bn ? (const void *)&vk->u.bn254.beta2 : (const void *)&vk->u.bls12_381.beta2;
    const void *g2s[3] = {
        beta2,
        bn ? (const void *)&vk->u.bn254.gamma2 : (const void *)&vk->u.bls12_381.gamma2,
        bn ? (const void *)&vk->u.bn254.delta2 : (const void *)&vk->u.bls12_381.delta2,
    };
    static const char *const g2_keys[3] = {"vk_beta_2", "vk_gamma_2", "vk_delta_2"};

    gt_any ab;
    ops->pairing(&ab, alpha1, beta2);

    jw w = {0};
    jw_open(&w, "{");
    jw_key(&w, "protocol");
    jw_raw(&w, "\"groth16\"", 9);
    jw_key(&w, "curve");
    jw_raw(&w, "\"", 1);
    jw_s(&w, ops->name);
    jw_raw(&w, "\"", 1);
    jw_key(&w, "nPublic");
    char num[24];
    snprintf(num, sizeof num, "%u", (unsigned)n_public);
    jw_s(&w, num);
    jw_key(&w, "vk_alpha_1");
    jw_g1(&w, ops, alpha1);
    for (int i = 0; i < 3; i++) {
        jw_key(&w, g2_keys[i]);
        jw_g2(&w, ops, g2s[i]);
    }
    jw_key(&w, "vk_alphabeta_12");
    jw_open(&w, "[");
    for (int i = 0; i < 2; i++) {
        jw_item(&w);
        jw_open(&w, "[");
        for (int j = 0; j < 3; j++) {
            jw_item(&w);
            jw_open(&w, "[");
            for (int k = 0; k < 2; k++) {
                char dec[ZKP_DEC_MAX];
                if (ops->fp12_coeff_to_dec(dec, sizeof dec, &ab, 6 * i + 2 * j + k) == 0)
                    w.oom = 1; /* cannot happen: ZKP_DEC_MAX holds any element */
                else
                    jw_str(&w, dec);
            }
            jw_close(&w, "]");
        }
        jw_close(&w, "]");
    }
    jw_close(&w, "]");
    jw_key(&w, "IC");
    jw_open(&w, "[");
    for (size_t i = 0; i <= n_public; i++) {
        jw_item(&w);
        jw_g1(&w, ops, (const char *)ic + i * ops->g1_size);
    }
    jw_close(&w, "]");
    jw_close(&w, "}");
    return jw_finish(&w, out, len);
}
