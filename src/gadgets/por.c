/* Merkle inclusion (see por.h). */
#include "gadgets/por.h"

#include <stdlib.h>
#include <string.h>

#include "gadgets/label.h" /* constraint::equal */
#include "gadgets/multipack.h"
#include "gadgets/poseidon.h"
#include "gadgets/sha256.h"

typedef bls12_381_fr_t fr_t;

#define POR_MAX_ARITY 16
#define POR_MAX_LEVELS 64
#define POR_MAX_BITS (POR_MAX_LEVELS * 4) /* log2(16) per level */

/* An allocated number: a variable and its value. */
typedef struct {
    zkp_var var;
    fr_t value;
} num_;

static void fail_(zkp_cs *cs, zkpipe_status st) {
    if (cs->status == ZKPIPE_OK) cs->status = st;
}

static num_ alloc_(zkp_cs *cs, const fr_t *value) {
    num_ n = {zkp_cs_alloc(cs, value), *value};
    return n;
}

/* insertion.rs's pick: a new c = cond ? a : b, with (b - a) * cond = b - c. */
static num_ pick_(zkp_cs *cs, const zkp_bool *cond, const num_ *a, const num_ *b) {
    num_ c = alloc_(cs, cond->value ? &a->value : &b->value);
    fr_t one;
    bls12_381_fr_set_one(&one);
    zkp_lc la, lb, lc;
    zkp_lc_init_for(&la, cs);
    zkp_lc_init_for(&lb, cs);
    zkp_lc_init_for(&lc, cs);
    zkp_lc_add_one(&la, b->var);
    zkp_lc_sub_one(&la, a->var);
    zkp_bool_lc(&lb, cond, &one);
    zkp_lc_add_one(&lc, b->var);
    zkp_lc_sub_one(&lc, c.var);
    zkp_cs_enforce(cs, &la, &lb, &lc);
    zkp_lc_free(&la);
    zkp_lc_free(&lb);
    zkp_lc_free(&lc);
    return c;
}

/* Inserting x into s[0 .. size - 2] at position bits (least significant
 * first) gives out[0 .. size - 1]. The cases of insertion.rs, in its order:
 * a position is picked from its candidates one bit at a time, and where two
 * positions need the same test of b0 and b1 together, that test (AND or
 * NOR of the two bits) is one new bit. */
static void insert_2_(zkp_cs *cs, num_ *out, const num_ *x, const zkp_bool *bit, const num_ *s) {
    out[0] = pick_(cs, &bit[0], &s[0], x);
    out[1] = pick_(cs, &bit[0], x, &s[0]);
}

static void insert_4_(zkp_cs *cs, num_ *out, const num_ *x, const zkp_bool *bit, const num_ *s) {
    const zkp_bool *b0 = &bit[0], *b1 = &bit[1];
    const num_ *a = x, *b = &s[0], *c = &s[1], *d = &s[2];
    num_ t;
    t = pick_(cs, b0, b, a);
    out[0] = pick_(cs, b1, b, &t);
    t = pick_(cs, b0, a, b);
    out[1] = pick_(cs, b1, c, &t);
    t = pick_(cs, b0, d, a);
    out[2] = pick_(cs, b1, &t, c);
    t = pick_(cs, b0, a, d);
    out[3] = pick_(cs, b1, &t, d);
}

static void insert_8_(zkp_cs *cs, num_ *out, const num_ *x, const zkp_bool *bit, const num_ *s) {
    const zkp_bool *b0 = &bit[0], *b1 = &bit[1], *b2 = &bit[2];
    const num_ *a = x, *b = &s[0], *c = &s[1], *d = &s[2], *e = &s[3], *f = &s[4], *g = &s[5],
               *h = &s[6];
    zkp_bool n0 = zkp_bool_not(b0), n1 = zkp_bool_not(b1);
    zkp_bool b0_nor_b1 = zkp_bool_and(cs, &n0, &n1); /* (1 - b0) * (1 - b1) = r */
    zkp_bool b0_and_b1 = zkp_bool_and(cs, b0, b1);   /* b0 * b1 = r */
    num_ t, u;
    t = pick_(cs, &b0_nor_b1, a, b);
    out[0] = pick_(cs, b2, b, &t);

    t = pick_(cs, b0, a, b);
    u = pick_(cs, b1, c, &t);
    out[1] = pick_(cs, b2, c, &u);

    t = pick_(cs, b0, d, a);
    u = pick_(cs, b1, &t, c);
    out[2] = pick_(cs, b2, d, &u);

    t = pick_(cs, &b0_and_b1, a, d);
    out[3] = pick_(cs, b2, e, &t);

    t = pick_(cs, &b0_nor_b1, a, f);
    out[4] = pick_(cs, b2, &t, e);

    t = pick_(cs, b0, a, f);
    u = pick_(cs, b1, g, &t);
    out[5] = pick_(cs, b2, &u, f);

    t = pick_(cs, b0, h, a);
    u = pick_(cs, b1, &t, g);
    out[6] = pick_(cs, b2, &u, g);

    t = pick_(cs, &b0_and_b1, a, h);
    out[7] = pick_(cs, b2, &t, h);
}

/* Any other power of two: for each output position, the candidate at that
 * position for each possible index, selected by a binary tree of picks
 * (most significant bit first): size - 1 picks per position. */
static void insert_general_(zkp_cs *cs, num_ *out, const num_ *x, const zkp_bool *bit,
                            unsigned n_bits, const num_ *s) {
    const unsigned size = 1u << n_bits;
    for (unsigned pos = 0; pos < size; pos++) {
        num_ state[POR_MAX_ARITY];
        for (unsigned index = 0; index < size; index++)
            state[index] = pos < index ? s[pos] : pos == index ? *x : s[pos - 1];
        unsigned half = size / 2;
        for (unsigned k = n_bits; k-- > 0; half /= 2)
            for (unsigned j = 0; j < half; j++)
                state[j] = pick_(cs, &bit[k], &state[half + j], &state[j]);
        out[pos] = state[0];
    }
}

/* filecoin-hashers' Sha256 hash_multi_leaf_circuit: every value's bits
 * first, then one SHA-256 over their little-endian bytes, the digest's
 * first 254 little-endian bits packed. */
static num_ sha256_level_(zkp_cs *cs, const num_ *in, unsigned arity) {
    num_ out = {ZKP_VAR_ONE, {{0}}};
    zkp_bool *msg = malloc((size_t)arity * 256 * sizeof *msg);
    if (!msg) {
        fail_(cs, ZKPIPE_ERR_NO_MEMORY);
        return out;
    }
    for (unsigned k = 0; k < arity; k++) {
        zkp_bool value_bits[256];
        zkp_num_to_bits_le(cs, in[k].var, &in[k].value, value_bits);
        value_bits[255] = zkp_bool_const(0);
        for (unsigned byte = 0; byte < 32; byte++)
            for (unsigned i = 0; i < 8; i++)
                msg[256 * k + 8 * byte + i] = value_bits[8 * byte + 7 - i];
    }
    zkp_bool digest[256], le[256];
    zkp_sha256_gadget(cs, msg, (size_t)arity * 256, digest);
    free(msg);
    for (unsigned byte = 0; byte < 32; byte++)
        for (unsigned i = 0; i < 8; i++) le[8 * byte + i] = digest[8 * byte + 7 - i];
    out.var = zkp_pack_bits(cs, le, ZKP_FR_CAPACITY, &out.value);
    return out;
}

static unsigned log2_arity_(unsigned arity) {
    unsigned b = 0;
    while ((1u << b) < arity) b++;
    return (1u << b) == arity ? b : 0;
}

static zkpipe_status check_levels_(zkp_por_hash hash, const zkp_por_level *levels, size_t n) {
    if (n > POR_MAX_LEVELS) return ZKPIPE_ERR_INVALID_ARGUMENT;
    for (size_t l = 0; l < n; l++) {
        unsigned a = levels[l].arity;
        if (a < 2 || a > POR_MAX_ARITY || log2_arity_(a) == 0 || levels[l].index >= a ||
            !levels[l].siblings)
            return ZKPIPE_ERR_INVALID_ARGUMENT;
        if (hash == ZKP_POR_POSEIDON && zkp_poseidon_gadget_constraints(a) == 0)
            return ZKPIPE_ERR_UNSUPPORTED;
    }
    return ZKPIPE_OK;
}

/* The levels from cur up; the position bits go to bits (*n_bits of them). */
static num_ levels_(zkp_cs *cs, zkp_por_hash hash, const zkp_por_level *levels, size_t n, num_ cur,
                    zkp_bool *bits, size_t *n_bits) {
    *n_bits = 0;
    for (size_t l = 0; l < n; l++) {
        const zkp_por_level *lv = &levels[l];
        const unsigned a = lv->arity, nb = log2_arity_(a);
        zkp_bool *ib = bits + *n_bits;
        for (unsigned i = 0; i < nb; i++) ib[i] = zkp_bool_alloc(cs, (lv->index >> i) & 1);
        *n_bits += nb;
        num_ sib[POR_MAX_ARITY - 1], ins[POR_MAX_ARITY];
        for (unsigned i = 0; i + 1 < a; i++) sib[i] = alloc_(cs, &lv->siblings[i]);
        if (a == 2)
            insert_2_(cs, ins, &cur, ib, sib);
        else if (a == 4)
            insert_4_(cs, ins, &cur, ib, sib);
        else if (a == 8)
            insert_8_(cs, ins, &cur, ib, sib);
        else
            insert_general_(cs, ins, &cur, ib, nb, sib);
        if (hash == ZKP_POR_SHA256) {
            cur = sha256_level_(cs, ins, a);
        } else {
            zkp_var vars[POR_MAX_ARITY];
            fr_t vals[POR_MAX_ARITY];
            for (unsigned i = 0; i < a; i++) {
                vars[i] = ins[i].var;
                vals[i] = ins[i].value;
            }
            cur.var = zkp_poseidon_gadget(cs, a, vars, vals, &cur.value);
        }
    }
    return cur;
}

/* What both forms share: the levels checked first (on failure cs fails
 * and nothing is added: levels_ok_ returns 0), then the leaf hashed up
 * them and the path's index made public (up_). */
static int levels_ok_(zkp_cs *cs, zkp_por_hash hash, const zkp_por_level *levels,
                      size_t n_levels) {
    if (cs->status != ZKPIPE_OK) return 0;
    zkpipe_status st = check_levels_(hash, levels, n_levels);
    if (st != ZKPIPE_OK) {
        fail_(cs, st);
        return 0;
    }
    return 1;
}

static num_ up_(zkp_cs *cs, zkp_por_hash hash, const zkp_por_level *levels, size_t n_levels,
                num_ cur) {
    zkp_bool bits[POR_MAX_BITS];
    size_t n_bits;
    cur = levels_(cs, hash, levels, n_levels, cur, bits, &n_bits);
    zkp_pack_into_inputs(cs, bits, n_bits);
    return cur;
}

void zkp_por_gadget(zkp_cs *cs, zkp_por_hash hash, const zkp_por_level *levels, size_t n_levels,
                    zkp_var leaf, const zkp_fr *leaf_value, zkp_var root, zkp_fr *computed_root) {
    if (!levels_ok_(cs, hash, levels, n_levels)) return;
    num_ cur = up_(cs, hash, levels, n_levels, (num_){leaf, *leaf_value});
    zkp_constraint_equal(cs, cur.var, root);
    if (computed_root) *computed_root = cur.value;
}

void zkp_por_circuit(zkp_cs *cs, zkp_por_hash hash, const zkp_por_level *levels, size_t n_levels,
                     const zkp_fr *leaf_value, const zkp_fr *root_value, int public_root,
                     zkp_fr *computed_root) {
    if (!levels_ok_(cs, hash, levels, n_levels)) return;
    num_ cur = up_(cs, hash, levels, n_levels, alloc_(cs, leaf_value));
    zkp_var root = zkp_cs_alloc(cs, root_value);
    zkp_constraint_equal(cs, cur.var, root);
    if (public_root) {
        zkp_var in = zkp_cs_alloc_input(cs, root_value);
        zkp_constraint_equal(cs, in, root); /* AllocatedNum::inputize */
    }
    if (computed_root) *computed_root = cur.value;
}
