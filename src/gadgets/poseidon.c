/* neptune's legacy Poseidon circuit (see poseidon.h): the template of each
 * arity, built once by running the circuit's steps over symbolic linear
 * combinations, and the hash that walks it. */
#include "gadgets/poseidon.h"

#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

typedef bls12_381_fr_t fr_t;

/* ------------------------------------------------------------ the template */

/* Slots: 0 is ONE, 1 .. arity the preimage, then one per step, in the order
 * the steps allocate. Step s allocates slot 1 + arity + s and enforces
 * constraint s; its a, b and c terms are terms [row[3s], row[3s+1]),
 * [row[3s+1], row[3s+2]) and [row[3s+2], row[3s+3]), and c's first term is
 * the new slot with coefficient one (the rest are constants on ONE). */
typedef struct {
    unsigned arity;
    uint32_t steps;
    uint32_t *row;
    uint32_t *term_slot;
    fr_t *term_coeff;
} template_;

/* A state element while the template is built: a variable (one slot) or a
 * combination of slots. A combination keeps a dense coefficient per slot,
 * whether the slot is present, and the present slots in the order they
 * first appeared, so that merging a term costs O(1) and a term whose
 * coefficient cancels stays present (with zero), as in bellpepper. */
typedef struct {
    int is_var;
    uint32_t var;
    uint32_t n, *slots;
    fr_t *coeff;
    uint8_t *present;
} elt_;

typedef struct {
    const zkp_poseidon_params *p;
    unsigned t;
    uint32_t n_slots, next_slot;
    elt_ *cur, *next;      /* t each */
    const fr_t *constants; /* the next compressed round constant */
    unsigned round;        /* rounds whose matrix has been applied */
    /* the template being written */
    uint32_t *row;
    uint32_t *term_slot;
    fr_t *term_coeff;
    size_t n_terms, cap_terms;
    int oom;
} builder_;

static void elt_clear_(elt_ *e) {
    for (uint32_t k = 0; k < e->n; k++) e->present[e->slots[k]] = 0;
    e->n = 0;
    e->is_var = 0;
}

static void elt_add_term_(elt_ *e, uint32_t slot, const fr_t *c) {
    if (e->present[slot]) {
        bls12_381_fr_add(&e->coeff[slot], &e->coeff[slot], c);
        return;
    }
    e->present[slot] = 1;
    e->coeff[slot] = *c;
    e->slots[e->n++] = slot;
}

/* dst += scale * src (dst a combination). A variable enters as itself
 * scaled, as neptune turns it into a combination before scaling. */
static void elt_add_scaled_(elt_ *dst, const elt_ *src, const fr_t *scale) {
    if (src->is_var) {
        elt_add_term_(dst, src->var, scale);
        return;
    }
    fr_t c;
    for (uint32_t k = 0; k < src->n; k++) {
        bls12_381_fr_mul(&c, &src->coeff[src->slots[k]], scale);
        elt_add_term_(dst, src->slots[k], &c);
    }
}

static void elt_set_var_(elt_ *e, uint32_t slot) {
    elt_clear_(e);
    e->is_var = 1;
    e->var = slot;
}

/* The combination value * ONE. */
static void elt_set_constant_(elt_ *e, const fr_t *value) {
    elt_clear_(e);
    elt_add_term_(e, 0, value);
}

static void emit_(builder_ *b, uint32_t slot, const fr_t *c) {
    if (b->n_terms == b->cap_terms) {
        size_t cap = b->cap_terms ? 2 * b->cap_terms : 1024;
        uint32_t *s = realloc(b->term_slot, cap * sizeof *s);
        if (s) b->term_slot = s;
        fr_t *f = realloc(b->term_coeff, cap * sizeof *f);
        if (f) b->term_coeff = f;
        if (!s || !f) {
            b->oom = 1;
            return;
        }
        b->cap_terms = cap;
    }
    b->term_slot[b->n_terms] = slot;
    b->term_coeff[b->n_terms] = *c;
    b->n_terms++;
}

static void emit_one_(builder_ *b, uint32_t slot) {
    fr_t one;
    bls12_381_fr_set_one(&one);
    emit_(b, slot, &one);
}

static void emit_elt_(builder_ *b, const elt_ *e) {
    if (e->is_var) {
        emit_one_(b, e->var);
        return;
    }
    for (uint32_t k = 0; k < e->n; k++) emit_(b, e->slots[k], &e->coeff[e->slots[k]]);
}

/* Starts the step that allocates a new slot: marks where its a begins. */
static uint32_t step_begin_(builder_ *b) {
    uint32_t slot = b->next_slot++;
    uint32_t step = slot - 1 - b->p->arity;
    b->row[3 * (size_t)step] = (uint32_t)b->n_terms;
    return slot;
}

static void mark_(builder_ *b, uint32_t slot, unsigned which) {
    uint32_t step = slot - 1 - b->p->arity;
    b->row[3 * (size_t)step + which] = (uint32_t)b->n_terms;
}

/* neptune's ensure_allocated with enforcement: combination * ONE = v. */
static uint32_t ensure_var_(builder_ *b, const elt_ *e) {
    if (e->is_var) return e->var;
    uint32_t v = step_begin_(b);
    emit_elt_(b, e);
    mark_(b, v, 1);
    emit_one_(b, 0);
    mark_(b, v, 2);
    emit_one_(b, v);
    return v;
}

/* x * x = v */
static uint32_t square_(builder_ *b, uint32_t x) {
    uint32_t v = step_begin_(b);
    emit_one_(b, x);
    mark_(b, v, 1);
    emit_one_(b, x);
    mark_(b, v, 2);
    emit_one_(b, v);
    return v;
}

/* square_sum: (x + k) * (x + k) = v */
static uint32_t square_sum_(builder_ *b, uint32_t x, const fr_t *k) {
    uint32_t v = step_begin_(b);
    emit_one_(b, x);
    emit_(b, 0, k);
    mark_(b, v, 1);
    emit_one_(b, x);
    emit_(b, 0, k);
    mark_(b, v, 2);
    emit_one_(b, v);
    return v;
}

/* mul_sum: (x + pre) * y = v - post, with pre and post present or not. */
static uint32_t mul_sum_(builder_ *b, uint32_t y, uint32_t x, const fr_t *pre, const fr_t *post) {
    uint32_t v = step_begin_(b);
    emit_one_(b, x);
    if (pre) emit_(b, 0, pre);
    mark_(b, v, 1);
    emit_one_(b, y);
    mark_(b, v, 2);
    emit_one_(b, v);
    if (post) {
        fr_t neg;
        bls12_381_fr_neg(&neg, post);
        emit_(b, 0, &neg);
    }
    return v;
}

/* The S-box of an element outside the first round, then its post-round
 * constant (NULL: none). */
static void sbox_(builder_ *b, elt_ *e, const fr_t *post) {
    uint32_t l = ensure_var_(b, e);
    uint32_t l2 = square_(b, l);
    uint32_t l4 = square_(b, l2);
    elt_set_var_(e, mul_sum_(b, l4, l, NULL, post));
}

/* The matrix product that ends round b->round: the pre-sparse matrix at
 * round R_F/2 - 1, the sparse matrix of each partial round, M elsewhere;
 * dense ones are applied as state'[j] = sum_i state[i] * m[i][j]. */
static void product_(builder_ *b) {
    const zkp_poseidon_params *p = b->p;
    const unsigned t = b->t, half = p->half_full_rounds;
    for (unsigned j = 0; j < t; j++) elt_clear_(&b->next[j]);
    if (b->round >= half && b->round < half + p->partial_rounds) {
        const unsigned k = b->round - half;
        const fr_t *w_hat = p->sparse_w_hat + (size_t)k * t,
                   *v_rest = p->sparse_v_rest + (size_t)k * (t - 1);
        fr_t one;
        bls12_381_fr_set_one(&one);
        for (unsigned i = 0; i < t; i++) elt_add_scaled_(&b->next[0], &b->cur[i], &w_hat[i]);
        for (unsigned j = 1; j < t; j++) {
            elt_add_scaled_(&b->next[j], &b->cur[j], &one);
            elt_add_scaled_(&b->next[j], &b->cur[0], &v_rest[j - 1]);
        }
    } else {
        const fr_t *m = b->round == half - 1 ? p->pre_sparse_matrix : p->mds;
        for (unsigned j = 0; j < t; j++)
            for (unsigned i = 0; i < t; i++)
                elt_add_scaled_(&b->next[j], &b->cur[i], &m[(size_t)i * t + j]);
    }
    elt_ *swap = b->cur;
    b->cur = b->next;
    b->next = swap;
    b->round++;
}

static void full_round_(builder_ *b, int first, int last) {
    const unsigned t = b->t;
    const fr_t *pre = NULL, *post = NULL;
    if (first) {
        pre = b->constants;
        b->constants += t;
    }
    if (first || !last) {
        post = b->constants;
        b->constants += t;
    }
    for (unsigned i = 0; i < t; i++) {
        elt_ *e = &b->cur[i];
        if (first && i == 0) {
            /* The tag is a constant: its S-box is computed, not enforced. */
            fr_t x = b->p->domain_tag, x2, x4;
            bls12_381_fr_add(&x, &x, &pre[0]);
            bls12_381_fr_sqr(&x2, &x);
            bls12_381_fr_sqr(&x4, &x2);
            bls12_381_fr_mul(&x, &x, &x4);
            bls12_381_fr_add(&x, &x, &post[0]);
            elt_set_constant_(e, &x);
        } else if (first) {
            /* A preimage variable: its round constant goes into the square. */
            uint32_t l = e->var;
            uint32_t l2 = square_sum_(b, l, &pre[i]);
            uint32_t l4 = square_(b, l2);
            elt_set_var_(e, mul_sum_(b, l4, l, &pre[i], &post[i]));
        } else {
            sbox_(b, e, post ? &post[i] : NULL);
        }
    }
    product_(b);
}

static void partial_round_(builder_ *b) {
    const fr_t *key = b->constants++;
    sbox_(b, &b->cur[0], key);
    product_(b);
}

static uint32_t steps_of_(const zkp_poseidon_params *p) {
    return 3 * p->arity + 4 * (p->width * (p->full_rounds - 1) + p->partial_rounds) + 1;
}

static zkpipe_status template_build_(template_ **out, const zkp_poseidon_params *p) {
    builder_ b;
    memset(&b, 0, sizeof b);
    b.p = p;
    b.t = p->width;
    const uint32_t steps = steps_of_(p);
    b.n_slots = 1 + p->arity + steps;
    b.next_slot = 1 + p->arity;
    b.constants = p->compressed_round_constants;

    zkpipe_status st = ZKPIPE_ERR_NO_MEMORY;
    template_ *tp = NULL;
    elt_ *elts = calloc(2 * (size_t)b.t, sizeof *elts);
    b.row = malloc((3 * (size_t)steps + 1) * sizeof *b.row);
    if (!elts || !b.row) goto done;
    for (unsigned k = 0; k < 2 * b.t; k++) {
        elts[k].slots = malloc(b.n_slots * sizeof *elts[k].slots);
        elts[k].coeff = malloc(b.n_slots * sizeof *elts[k].coeff);
        elts[k].present = calloc(b.n_slots, 1);
        if (!elts[k].slots || !elts[k].coeff || !elts[k].present) goto done;
    }
    b.cur = elts;
    b.next = elts + b.t;

    /* The tag (a constant), then the preimage variables. */
    elt_set_constant_(&b.cur[0], &p->domain_tag);
    for (unsigned i = 1; i < b.t; i++) elt_set_var_(&b.cur[i], i);

    full_round_(&b, 1, 0);
    for (unsigned r = 1; r < p->half_full_rounds; r++) full_round_(&b, 0, 0);
    for (unsigned r = 0; r < p->partial_rounds; r++) partial_round_(&b);
    for (unsigned r = 0; r + 1 < p->half_full_rounds; r++) full_round_(&b, 0, 0);
    full_round_(&b, 0, 1);
    /* The digest: element 1, forced into a variable even if it were one. */
    {
        uint32_t v = step_begin_(&b);
        emit_elt_(&b, &b.cur[1]);
        mark_(&b, v, 1);
        emit_one_(&b, 0);
        mark_(&b, v, 2);
        emit_one_(&b, v);
    }
    if (b.oom) goto done;
    /* The steps are neptune's count and every constant was used once. */
    assert(b.next_slot == b.n_slots);
    assert(b.constants ==
           p->compressed_round_constants + (size_t)p->full_rounds * b.t + p->partial_rounds);
    b.row[3 * (size_t)steps] = (uint32_t)b.n_terms;

    tp = malloc(sizeof *tp);
    if (!tp) goto done;
    tp->arity = p->arity;
    tp->steps = steps;
    tp->row = b.row;
    tp->term_slot = b.term_slot;
    tp->term_coeff = b.term_coeff;
    b.row = NULL;
    b.term_slot = NULL;
    b.term_coeff = NULL;
    *out = tp;
    st = ZKPIPE_OK;
done:
    if (elts)
        for (unsigned k = 0; k < 2 * b.t; k++) {
            free(elts[k].slots);
            free(elts[k].coeff);
            free(elts[k].present);
        }
    free(elts);
    free(b.row);
    free(b.term_slot);
    free(b.term_coeff);
    return st;
}

/* Made once per arity, under the lock; read without it once published. */
static template_ *_Atomic templates[ZKP_POSEIDON_MAX_ARITY + 1];
static pthread_mutex_t templates_lock = PTHREAD_MUTEX_INITIALIZER;

static zkpipe_status template_get_(const template_ **out, unsigned arity) {
    if (arity > ZKP_POSEIDON_MAX_ARITY) return ZKPIPE_ERR_UNSUPPORTED;
    template_ *tp = atomic_load_explicit(&templates[arity], memory_order_acquire);
    if (tp) {
        *out = tp;
        return ZKPIPE_OK;
    }
    const zkp_poseidon_params *p;
    zkpipe_status st = zkp_poseidon_params_get(&p, arity);
    if (st != ZKPIPE_OK) return st;
    pthread_mutex_lock(&templates_lock);
    tp = atomic_load_explicit(&templates[arity], memory_order_relaxed);
    if (!tp) {
        st = template_build_(&tp, p);
        if (st == ZKPIPE_OK) atomic_store_explicit(&templates[arity], tp, memory_order_release);
    }
    pthread_mutex_unlock(&templates_lock);
    if (st == ZKPIPE_OK) *out = tp;
    return st;
}

uint64_t zkp_poseidon_gadget_constraints(unsigned arity) {
    const template_ *tp;
    return template_get_(&tp, arity) == ZKPIPE_OK ? tp->steps : 0;
}

/* ------------------------------------------------------------ the hash */

static void eval_(fr_t *r, const template_ *tp, const fr_t *val, uint32_t from, uint32_t to) {
    fr_t prod;
    bls12_381_fr_set_zero(r);
    for (uint32_t k = from; k < to; k++) {
        bls12_381_fr_mul(&prod, &tp->term_coeff[k], &val[tp->term_slot[k]]);
        bls12_381_fr_add(r, r, &prod);
    }
}

static void lc_fill_(zkp_lc *lc, const template_ *tp, const zkp_var *var, uint32_t from,
                     uint32_t to) {
    zkp_lc_clear(lc);
    for (uint32_t k = from; k < to; k++) zkp_lc_add(lc, var[tp->term_slot[k]], &tp->term_coeff[k]);
}

zkp_var zkp_poseidon_gadget(zkp_cs *cs, unsigned arity, const zkp_var *preimage,
                            const zkp_fr *preimage_values, zkp_fr *digest_value) {
    if (cs->status != ZKPIPE_OK) return ZKP_VAR_ONE;
    const template_ *tp;
    zkpipe_status st = template_get_(&tp, arity);
    if (st != ZKPIPE_OK) {
        cs->status = st;
        return ZKP_VAR_ONE;
    }
    const size_t n_slots = 1 + (size_t)arity + tp->steps;
    fr_t *val = malloc(n_slots * sizeof *val);
    zkp_var *var = malloc(n_slots * sizeof *var);
    if (!val || !var) {
        free(val);
        free(var);
        cs->status = ZKPIPE_ERR_NO_MEMORY;
        return ZKP_VAR_ONE;
    }
    bls12_381_fr_set_one(&val[0]);
    var[0] = ZKP_VAR_ONE;
    for (unsigned i = 0; i < arity; i++) {
        val[1 + i] = preimage_values[i];
        var[1 + i] = preimage[i];
    }
    zkp_lc a, b, c;
    zkp_lc_init_for(&a, cs);
    zkp_lc_init_for(&b, cs);
    zkp_lc_init_for(&c, cs);
    const uint32_t *row = tp->row;
    for (uint32_t s = 0; s < tp->steps; s++, row += 3) {
        const size_t slot = 1 + (size_t)arity + s;
        /* c = the new variable + constants: its value is a * b - the rest. */
        fr_t va, vb, rest;
        eval_(&va, tp, val, row[0], row[1]);
        eval_(&vb, tp, val, row[1], row[2]);
        eval_(&rest, tp, val, row[2] + 1, row[3]);
        bls12_381_fr_mul(&val[slot], &va, &vb);
        bls12_381_fr_sub(&val[slot], &val[slot], &rest);
        var[slot] = zkp_cs_alloc(cs, &val[slot]);
        if (zkp_cs_wants_lcs(cs)) {
            lc_fill_(&a, tp, var, row[0], row[1]);
            lc_fill_(&b, tp, var, row[1], row[2]);
            lc_fill_(&c, tp, var, row[2], row[3]);
        }
        zkp_cs_enforce(cs, &a, &b, &c);
    }
    zkp_lc_free(&a);
    zkp_lc_free(&b);
    zkp_lc_free(&c);
    zkp_var out = var[n_slots - 1];
    if (digest_value) *digest_value = val[n_slots - 1];
    free(val);
    free(var);
    return cs->status == ZKPIPE_OK ? out : ZKP_VAR_ONE;
}
