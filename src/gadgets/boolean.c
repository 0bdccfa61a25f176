/* Boolean gadgets (see boolean.h). */
#include "gadgets/boolean.h"

typedef bls12_381_fr_t fr_t;

static fr_t fr_bit_(int v) {
    fr_t r;
    if (v)
        bls12_381_fr_set_one(&r);
    else
        bls12_381_fr_set_zero(&r);
    return r;
}

static zkp_bool is_(zkp_var var, int value) {
    zkp_bool b = {var, ZKP_BOOL_IS, (uint8_t)(value != 0)};
    return b;
}

zkp_bool zkp_bool_not(const zkp_bool *b) {
    zkp_bool r = *b;
    r.value ^= 1;
    if (b->kind == ZKP_BOOL_IS) r.kind = ZKP_BOOL_NOT;
    else if (b->kind == ZKP_BOOL_NOT) r.kind = ZKP_BOOL_IS;
    return r;
}

void zkp_bool_lc(zkp_lc *lc, const zkp_bool *b, const zkp_fr *coeff) {
    if (b->kind == ZKP_BOOL_CONST) {
        if (b->value) zkp_lc_add(lc, ZKP_VAR_ONE, coeff);
    } else if (b->kind == ZKP_BOOL_IS) {
        zkp_lc_add(lc, b->var, coeff);
    } else {
        fr_t neg;
        bls12_381_fr_neg(&neg, coeff);
        zkp_lc_add(lc, ZKP_VAR_ONE, coeff);
        zkp_lc_add(lc, b->var, &neg);
    }
}

/* The three combinations of one constraint, on the stack. */
typedef struct {
    zkp_lc a, b, c;
} abc_t;

static void abc_init_(abc_t *t, const zkp_cs *cs) {
    zkp_lc_init_for(&t->a, cs);
    zkp_lc_init_for(&t->b, cs);
    zkp_lc_init_for(&t->c, cs);
}

static void abc_enforce_(zkp_cs *cs, abc_t *t) {
    zkp_cs_enforce(cs, &t->a, &t->b, &t->c);
    zkp_lc_free(&t->a);
    zkp_lc_free(&t->b);
    zkp_lc_free(&t->c);
}

zkp_bool zkp_bool_alloc(zkp_cs *cs, int value) {
    fr_t v = fr_bit_(value);
    zkp_var x = zkp_cs_alloc(cs, &v);
    abc_t t;
    abc_init_(&t, cs);
    zkp_lc_add_one(&t.a, ZKP_VAR_ONE); /* (1 - x) * x = 0 */
    zkp_lc_sub_one(&t.a, x);
    zkp_lc_add_one(&t.b, x);
    abc_enforce_(cs, &t);
    return is_(x, value);
}

void zkp_bool_alloc_u64_le(zkp_cs *cs, uint64_t value, zkp_bool bits[64]) {
    for (int i = 0; i < 64; i++) bits[i] = zkp_bool_alloc(cs, (int)(value >> i) & 1);
}

/* The four operations on two allocated bits (the variables x and y, with
 * values vx and vy); each allocates the result and enforces one constraint. */
static zkp_bool bits_xor_(zkp_cs *cs, zkp_var x, int vx, zkp_var y, int vy) {
    int v = vx ^ vy;
    fr_t fv = fr_bit_(v);
    zkp_var r = zkp_cs_alloc(cs, &fv);
    abc_t t; /* (2x) * y = x + y - r */
    abc_init_(&t, cs);
    zkp_lc_add_one(&t.a, x);
    zkp_lc_add_one(&t.a, x);
    zkp_lc_add_one(&t.b, y);
    zkp_lc_add_one(&t.c, x);
    zkp_lc_add_one(&t.c, y);
    zkp_lc_sub_one(&t.c, r);
    abc_enforce_(cs, &t);
    return is_(r, v);
}

static zkp_bool bits_and_(zkp_cs *cs, zkp_var x, int vx, zkp_var y, int vy) {
    int v = vx & vy;
    fr_t fv = fr_bit_(v);
    zkp_var r = zkp_cs_alloc(cs, &fv);
    abc_t t; /* x * y = r */
    abc_init_(&t, cs);
    zkp_lc_add_one(&t.a, x);
    zkp_lc_add_one(&t.b, y);
    zkp_lc_add_one(&t.c, r);
    abc_enforce_(cs, &t);
    return is_(r, v);
}

static zkp_bool bits_and_not_(zkp_cs *cs, zkp_var x, int vx, zkp_var y, int vy) {
    int v = vx & (!vy);
    fr_t fv = fr_bit_(v);
    zkp_var r = zkp_cs_alloc(cs, &fv);
    abc_t t; /* x * (1 - y) = r */
    abc_init_(&t, cs);
    zkp_lc_add_one(&t.a, x);
    zkp_lc_add_one(&t.b, ZKP_VAR_ONE);
    zkp_lc_sub_one(&t.b, y);
    zkp_lc_add_one(&t.c, r);
    abc_enforce_(cs, &t);
    return is_(r, v);
}

static zkp_bool bits_nor_(zkp_cs *cs, zkp_var x, int vx, zkp_var y, int vy) {
    int v = (!vx) & (!vy);
    fr_t fv = fr_bit_(v);
    zkp_var r = zkp_cs_alloc(cs, &fv);
    abc_t t; /* (1 - x) * (1 - y) = r */
    abc_init_(&t, cs);
    zkp_lc_add_one(&t.a, ZKP_VAR_ONE);
    zkp_lc_sub_one(&t.a, x);
    zkp_lc_add_one(&t.b, ZKP_VAR_ONE);
    zkp_lc_sub_one(&t.b, y);
    zkp_lc_add_one(&t.c, r);
    abc_enforce_(cs, &t);
    return is_(r, v);
}

/* The value of the allocated bit under a (non-constant) boolean. */
static int bit_value_(const zkp_bool *b) { return b->kind == ZKP_BOOL_NOT ? !b->value : b->value; }

zkp_bool zkp_bool_xor(zkp_cs *cs, const zkp_bool *a, const zkp_bool *b) {
    if (a->kind == ZKP_BOOL_CONST && !a->value) return *b;
    if (b->kind == ZKP_BOOL_CONST && !b->value) return *a;
    if (a->kind == ZKP_BOOL_CONST) return zkp_bool_not(b); /* a is true */
    if (b->kind == ZKP_BOOL_CONST) return zkp_bool_not(a);
    if (a->kind == b->kind) /* x ^ y, or (not x) ^ (not y) = x ^ y */
        return bits_xor_(cs, a->var, bit_value_(a), b->var, bit_value_(b));
    /* one IS, one NOT: not(is ^ bit of not), the IS operand first */
    const zkp_bool *is = a->kind == ZKP_BOOL_IS ? a : b;
    const zkp_bool *nt = a->kind == ZKP_BOOL_IS ? b : a;
    zkp_bool r = bits_xor_(cs, is->var, bit_value_(is), nt->var, bit_value_(nt));
    return zkp_bool_not(&r);
}

zkp_bool zkp_bool_and(zkp_cs *cs, const zkp_bool *a, const zkp_bool *b) {
    if ((a->kind == ZKP_BOOL_CONST && !a->value) || (b->kind == ZKP_BOOL_CONST && !b->value))
        return zkp_bool_const(0);
    if (a->kind == ZKP_BOOL_CONST) return *b; /* a is true */
    if (b->kind == ZKP_BOOL_CONST) return *a;
    if (a->kind != b->kind) { /* is AND NOT bit */
        const zkp_bool *is = a->kind == ZKP_BOOL_IS ? a : b;
        const zkp_bool *nt = a->kind == ZKP_BOOL_IS ? b : a;
        return bits_and_not_(cs, is->var, bit_value_(is), nt->var, bit_value_(nt));
    }
    if (a->kind == ZKP_BOOL_NOT) return bits_nor_(cs, a->var, bit_value_(a), b->var, bit_value_(b));
    return bits_and_(cs, a->var, bit_value_(a), b->var, bit_value_(b));
}

static int is_false_(const zkp_bool *b) { return b->kind == ZKP_BOOL_CONST && !b->value; }
static int is_true_(const zkp_bool *b) { return b->kind == ZKP_BOOL_CONST && b->value; }

zkp_bool zkp_bool_sha256_ch(zkp_cs *cs, const zkp_bool *a, const zkp_bool *b, const zkp_bool *c) {
    int v = (a->value & b->value) ^ ((!a->value) & c->value);
    /* bellpepper's cases, in its order */
    if (zkp_bool_is_const(a) && zkp_bool_is_const(b) && zkp_bool_is_const(c))
        return zkp_bool_const(v);
    if (is_false_(a)) return *c;
    if (is_false_(b)) {
        zkp_bool na = zkp_bool_not(a);
        return zkp_bool_and(cs, &na, c);
    }
    if (is_false_(c)) return zkp_bool_and(cs, a, b);
    if (is_true_(c)) {
        zkp_bool nb = zkp_bool_not(b);
        zkp_bool r = zkp_bool_and(cs, a, &nb);
        return zkp_bool_not(&r);
    }
    if (is_true_(b)) {
        zkp_bool na = zkp_bool_not(a), nc = zkp_bool_not(c);
        zkp_bool r = zkp_bool_and(cs, &na, &nc);
        return zkp_bool_not(&r);
    }
    /* general case (a may be the constant true): (b - c) * a = ch - c */
    fr_t fv = fr_bit_(v), one, minus_one;
    bls12_381_fr_set_one(&one);
    bls12_381_fr_neg(&minus_one, &one);
    zkp_var ch = zkp_cs_alloc(cs, &fv);
    abc_t t;
    abc_init_(&t, cs);
    zkp_bool_lc(&t.a, b, &one);
    zkp_bool_lc(&t.a, c, &minus_one);
    zkp_bool_lc(&t.b, a, &one);
    zkp_lc_add_one(&t.c, ch);
    zkp_bool_lc(&t.c, c, &minus_one);
    abc_enforce_(cs, &t);
    return is_(ch, v);
}

zkp_bool zkp_bool_sha256_maj(zkp_cs *cs, const zkp_bool *a, const zkp_bool *b, const zkp_bool *c) {
    int v = (a->value & b->value) ^ (a->value & c->value) ^ (b->value & c->value);
    if (zkp_bool_is_const(a) && zkp_bool_is_const(b) && zkp_bool_is_const(c))
        return zkp_bool_const(v);
    if (is_false_(a)) return zkp_bool_and(cs, b, c);
    if (is_false_(b)) return zkp_bool_and(cs, a, c);
    if (is_false_(c)) return zkp_bool_and(cs, a, b);
    const zkp_bool *x = NULL, *y = NULL; /* maj(x, y, true) = not(not x AND not y) */
    if (is_true_(c)) x = a, y = b;
    else if (is_true_(b)) x = a, y = c;
    else if (is_true_(a)) x = b, y = c;
    if (x) {
        zkp_bool nx = zkp_bool_not(x), ny = zkp_bool_not(y);
        zkp_bool r = zkp_bool_and(cs, &nx, &ny);
        return zkp_bool_not(&r);
    }
    /* general case: maj allocated first, then bc = b AND c, then
     * (2bc - b - c) * a = bc - maj */
    fr_t fv = fr_bit_(v), one, minus_one;
    bls12_381_fr_set_one(&one);
    bls12_381_fr_neg(&minus_one, &one);
    zkp_var maj = zkp_cs_alloc(cs, &fv);
    zkp_bool bc = zkp_bool_and(cs, b, c);
    abc_t t;
    abc_init_(&t, cs);
    zkp_bool_lc(&t.a, &bc, &one);
    zkp_bool_lc(&t.a, &bc, &one);
    zkp_bool_lc(&t.a, b, &minus_one);
    zkp_bool_lc(&t.a, c, &minus_one);
    zkp_bool_lc(&t.b, a, &one);
    zkp_bool_lc(&t.c, &bc, &one);
    zkp_lc_sub_one(&t.c, maj);
    abc_enforce_(cs, &t);
    return is_(maj, v);
}
