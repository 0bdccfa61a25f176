/* The constraint system's front end, linear combinations and the recorder. */
#include "gadgets/cs.h"
#include "gadgets/cs_backend.h"

#include <stdlib.h>
#include <string.h>

typedef bls12_381_fr_t fr_t;

void zkp_lc_init(zkp_lc *lc) {
    lc->terms = lc->inline_terms;
    lc->len = 0;
    lc->cap = ZKP_LC_INLINE;
    lc->oom = 0;
    lc->inert = 0;
}

void zkp_lc_init_for(zkp_lc *lc, const zkp_cs *cs) {
    zkp_lc_init(lc);
    lc->inert = !zkp_cs_wants_lcs(cs);
}

void zkp_lc_clear(zkp_lc *lc) {
    lc->len = 0;
    lc->oom = 0;
}

void zkp_lc_free(zkp_lc *lc) {
    int inert = lc->inert;
    if (lc->terms != lc->inline_terms) free(lc->terms);
    zkp_lc_init(lc);
    lc->inert = inert;
}

static int lc_reserve_(zkp_lc *lc, uint32_t more) {
    if (lc->len + (uint64_t)more <= lc->cap) return 1;
    uint64_t ncap = (uint64_t)lc->cap * 2;
    while (ncap < lc->len + (uint64_t)more) ncap *= 2;
    if (ncap > UINT32_MAX) {
        lc->oom = 1;
        return 0;
    }
    zkp_lc_term *t = malloc((size_t)ncap * sizeof *t);
    if (!t) {
        lc->oom = 1;
        return 0;
    }
    memcpy(t, lc->terms, (size_t)lc->len * sizeof *t);
    if (lc->terms != lc->inline_terms) free(lc->terms);
    lc->terms = t;
    lc->cap = (uint32_t)ncap;
    return 1;
}

void zkp_lc_add(zkp_lc *lc, zkp_var var, const zkp_fr *coeff) {
    if (lc->inert || !lc_reserve_(lc, 1)) return;
    lc->terms[lc->len].var = var;
    lc->terms[lc->len].coeff = *coeff;
    lc->len++;
}

void zkp_lc_add_one(zkp_lc *lc, zkp_var var) {
    if (lc->inert) return;
    fr_t one;
    bls12_381_fr_set_one(&one);
    zkp_lc_add(lc, var, &one);
}

void zkp_lc_sub_one(zkp_lc *lc, zkp_var var) {
    if (lc->inert) return;
    fr_t minus_one;
    bls12_381_fr_set_one(&minus_one);
    bls12_381_fr_neg(&minus_one, &minus_one);
    zkp_lc_add(lc, var, &minus_one);
}

void zkp_lc_add_lc(zkp_lc *lc, const zkp_lc *other, const zkp_fr *scale) {
    if (lc->inert) return;
    if (other->oom) lc->oom = 1;
    if (!lc_reserve_(lc, other->len)) return;
    for (uint32_t i = 0; i < other->len; i++) {
        zkp_lc_term *t = &lc->terms[lc->len + i];
        t->var = other->terms[i].var;
        if (scale)
            bls12_381_fr_mul(&t->coeff, &other->terms[i].coeff, scale);
        else
            t->coeff = other->terms[i].coeff;
    }
    lc->len += other->len;
}

/* ---- front end ---- */

static void cs_fail_(zkp_cs *cs, zkpipe_status st) {
    if (cs->status == ZKPIPE_OK) cs->status = st;
}

static zkp_var cs_alloc_(zkp_cs *cs, int is_input, const zkp_fr *value) {
    if (cs->status != ZKPIPE_OK) return ZKP_VAR_ONE;
    uint64_t *count = is_input ? &cs->num_inputs : &cs->num_aux;
    if (*count > ZKP_VAR_MAX_INDEX) {
        cs_fail_(cs, ZKPIPE_ERR_OUT_OF_RANGE);
        return ZKP_VAR_ONE;
    }
    uint32_t index = (uint32_t)*count;
    if (cs->backend) {
        zkpipe_status st = cs->backend->alloc(cs->ctx, is_input, index, value);
        if (st != ZKPIPE_OK) {
            cs_fail_(cs, st);
            return ZKP_VAR_ONE;
        }
    }
    (*count)++;
    return is_input ? (index | ZKP_VAR_INPUT_BIT) : index;
}

void zkp_cs_init(zkp_cs *cs, const zkp_cs_backend *backend, void *ctx) {
    cs->backend = backend;
    cs->ctx = ctx;
    cs->num_inputs = cs->num_aux = cs->num_constraints = 0;
    cs->status = ZKPIPE_OK;
    fr_t one;
    bls12_381_fr_set_one(&one);
    (void)cs_alloc_(cs, 1, &one); /* input 0 is ONE */
}

zkp_var zkp_cs_alloc(zkp_cs *cs, const zkp_fr *value) { return cs_alloc_(cs, 0, value); }
zkp_var zkp_cs_alloc_input(zkp_cs *cs, const zkp_fr *value) { return cs_alloc_(cs, 1, value); }

void zkp_cs_enforce(zkp_cs *cs, const zkp_lc *a, const zkp_lc *b, const zkp_lc *c) {
    if (cs->status != ZKPIPE_OK) return;
    if (a->oom || b->oom || c->oom) {
        cs_fail_(cs, ZKPIPE_ERR_NO_MEMORY);
        return;
    }
    if (zkp_cs_wants_lcs(cs)) {
        zkpipe_status st = cs->backend->enforce(cs->ctx, cs->num_constraints, a, b, c);
        if (st != ZKPIPE_OK) {
            cs_fail_(cs, st);
            return;
        }
    }
    cs->num_constraints++;
}

/* ---- the recorder ---- */

int zkp_cs_grow(void **p, size_t *cap, size_t need, size_t elem) {
    if (need <= *cap) return 1;
    size_t ncap = *cap ? *cap : 64;
    while (ncap < need) {
        if (ncap > SIZE_MAX / 2 / elem) return 0;
        ncap *= 2;
    }
    void *q = realloc(*p, ncap * elem);
    if (!q) return 0;
    *p = q;
    *cap = ncap;
    return 1;
}

zkpipe_status zkp_cs_store_value(zkp_fr **vals, size_t *cap, uint32_t index, const zkp_fr *value) {
    if (!zkp_cs_grow((void **)vals, cap, (size_t)index + 1, sizeof(zkp_fr))) return ZKPIPE_ERR_NO_MEMORY;
    (*vals)[index] = *value;
    return ZKPIPE_OK;
}

static zkpipe_status rec_alloc_(void *ctx, int is_input, uint32_t index, const zkp_fr *value) {
    zkp_cs_recorder *rec = ctx;
    return is_input ? zkp_cs_store_value(&rec->inputs, &rec->inputs_cap, index, value)
                    : zkp_cs_store_value(&rec->aux, &rec->aux_cap, index, value);
}

static zkpipe_status rec_enforce_(void *ctx, uint64_t index, const zkp_lc *a, const zkp_lc *b,
                                  const zkp_lc *c) {
    zkp_cs_recorder *rec = ctx;
    size_t n = (size_t)a->len + b->len + c->len;
    if (!zkp_cs_grow((void **)&rec->row, &rec->row_cap, (size_t)(3 * index + 4), sizeof(uint64_t)) ||
        !zkp_cs_grow((void **)&rec->terms, &rec->terms_cap, rec->terms_len + n, sizeof(zkp_lc_term)))
        return ZKPIPE_ERR_NO_MEMORY;
    const zkp_lc *abc[3] = {a, b, c};
    if (index == 0) rec->row[0] = 0;
    for (int m = 0; m < 3; m++) {
        memcpy(rec->terms + rec->terms_len, abc[m]->terms,
               (size_t)abc[m]->len * sizeof(zkp_lc_term));
        rec->terms_len += abc[m]->len;
        rec->row[3 * index + (uint64_t)m + 1] = rec->terms_len;
    }
    return ZKPIPE_OK;
}

static const zkp_cs_backend recorder_backend_ = {rec_alloc_, rec_enforce_};

void zkp_cs_recorder_init(zkp_cs_recorder *rec) {
    memset(rec, 0, sizeof *rec);
    zkp_cs_init(&rec->cs, &recorder_backend_, rec);
}

void zkp_cs_recorder_free(zkp_cs_recorder *rec) {
    free(rec->inputs);
    free(rec->aux);
    free(rec->row);
    free(rec->terms);
    memset(rec, 0, sizeof *rec);
}

zkp_fr *zkp_cs_recorder_value(zkp_cs_recorder *rec, zkp_var v) {
    uint32_t i = zkp_var_index(v);
    if (zkp_var_is_input(v)) return i < rec->cs.num_inputs ? &rec->inputs[i] : NULL;
    return i < rec->cs.num_aux ? &rec->aux[i] : NULL;
}

static void eval_(const zkp_cs_recorder *rec, uint64_t from, uint64_t to, fr_t *out) {
    bls12_381_fr_set_zero(out);
    for (uint64_t k = from; k < to; k++) {
        const zkp_lc_term *t = &rec->terms[k];
        uint32_t i = zkp_var_index(t->var);
        const fr_t *v = zkp_var_is_input(t->var) ? &rec->inputs[i] : &rec->aux[i];
        fr_t p;
        bls12_381_fr_mul(&p, v, &t->coeff);
        bls12_381_fr_add(out, out, &p);
    }
}

int zkp_cs_recorder_check(const zkp_cs_recorder *rec, uint64_t *first_unsatisfied) {
    for (uint64_t k = 0; k < rec->cs.num_constraints; k++) {
        const uint64_t *r = &rec->row[3 * k];
        fr_t a, b, c, ab;
        eval_(rec, r[0], r[1], &a);
        eval_(rec, r[1], r[2], &b);
        eval_(rec, r[2], r[3], &c);
        bls12_381_fr_mul(&ab, &a, &b);
        if (!bls12_381_fr_eq(&ab, &c)) {
            if (first_unsatisfied) *first_unsatisfied = k;
            return 0;
        }
    }
    return 1;
}
