/* The CSR and witness back end (see csr.h). */
#include "gadgets/csr.h"

#include <stdlib.h>
#include <string.h>

#include "gadgets/cs_backend.h"

typedef bls12_381_fr_t fr_t;

/* The order of bellpepper's terms: inputs before aux, each by index. With
 * the input bit flipped, a plain comparison of zkp_vars gives it. */
static uint32_t order_key_(zkp_var v) { return v ^ ZKP_VAR_INPUT_BIT; }

static int term_cmp_(const void *x, const void *y) {
    uint32_t a = order_key_(((const zkp_lc_term *)x)->var);
    uint32_t b = order_key_(((const zkp_lc_term *)y)->var);
    return (a > b) - (a < b);
}

static void sort_terms_(zkp_lc_term *t, size_t n) {
    if (n > 24) {
        qsort(t, n, sizeof *t, term_cmp_);
        return;
    }
    for (size_t i = 1; i < n; i++) { /* the gadgets' combinations are mostly short */
        zkp_lc_term x = t[i];
        size_t j = i;
        while (j > 0 && order_key_(t[j - 1].var) > order_key_(x.var)) {
            t[j] = t[j - 1];
            j--;
        }
        t[j] = x;
    }
}

/* zkp_cs_grow for a matrix array: from r's allocator when it has one; a
 * slice's never grow (they are another's). */
static int grow_(const zkp_cs_csr *r, void **p, size_t *cap, size_t need, size_t elem) {
    if (r->slice) return need <= *cap;
    if (!r->alloc) return zkp_cs_grow(p, cap, need, elem);
    if (need <= *cap) return 1;
    size_t ncap = *cap ? *cap : 64;
    while (ncap < need) {
        if (ncap > SIZE_MAX / 2 / elem) return 0;
        ncap *= 2;
    }
    void *q = zkp_alloc(r->alloc, ncap * elem, r->cat);
    if (!q) return 0;
    if (*cap) memcpy(q, *p, *cap * elem);
    zkp_free(r->alloc, *p, *cap * elem, r->cat);
    *p = q;
    *cap = ncap;
    return 1;
}

static void release_(const zkp_cs_csr *r, void *p, size_t bytes) {
    if (r->alloc)
        zkp_free(r->alloc, p, bytes, r->cat);
    else
        free(p);
}

/* Appends one entry to the current (last) row of matrix m. */
static int push_entry_(const zkp_cs_csr *r, zkp_csr_matrix *mat, zkp_var var, const fr_t *coeff) {
    size_t cap = mat->cap;
    if (!grow_(r, (void **)&mat->col, &cap, mat->nnz + 1, sizeof *mat->col)) return 0;
    cap = mat->cap;
    if (!grow_(r, (void **)&mat->val, &cap, mat->nnz + 1, sizeof *mat->val)) return 0;
    mat->cap = cap;
    mat->col[mat->nnz] = var;
    mat->val[mat->nnz] = *coeff;
    mat->nnz++;
    return 1;
}

/* Closes row `row` of matrix m. */
static int end_row_(const zkp_cs_csr *r, zkp_csr_matrix *mat, uint64_t row) {
    if (!grow_(r, (void **)&mat->row_ptr, &mat->rows_cap, (size_t)row + 2, sizeof *mat->row_ptr))
        return 0;
    if (row == 0) mat->row_ptr[0] = 0;
    mat->row_ptr[row + 1] = mat->nnz;
    return 1;
}

/* Marks v as used in matrix m (0: A, 1: B), growing the bitmap. */
static int mark_used_(zkp_cs_csr *r, int m, zkp_var v) {
    uint64_t **bits = zkp_var_is_input(v) ? &r->used_in[m] : &r->used_aux[m];
    size_t *words = zkp_var_is_input(v) ? &r->used_in_words[m] : &r->used_aux_words[m];
    size_t w = zkp_var_index(v) / 64;
    if (w >= *words) {
        size_t nw = *words ? *words : 16;
        while (nw <= w) nw *= 2;
        uint64_t *q = realloc(*bits, nw * sizeof *q);
        if (!q) return 0;
        memset(q + *words, 0, (nw - *words) * sizeof *q);
        *bits = q;
        *words = nw;
    }
    (*bits)[w] |= 1ull << (zkp_var_index(v) % 64);
    return 1;
}

/* One entry of matrix m: stored, or counted. */
static int add_entry_(zkp_cs_csr *r, int m, zkp_var var, const fr_t *coeff) {
    if (r->what & ZKP_CSR_MATRICES) return push_entry_(r, &r->m[m], var, coeff);
    r->count[m]++;
    return m == ZKP_CSR_C || mark_used_(r, m, var);
}

/* One combination as a row: sorted, one term per variable, no zeros. */
static int append_lc_(zkp_cs_csr *r, int m, const zkp_lc *lc) {
    if (!zkp_cs_grow((void **)&r->scratch, &r->scratch_cap, lc->len ? lc->len : 1, sizeof *r->scratch))
        return 0;
    memcpy(r->scratch, lc->terms, (size_t)lc->len * sizeof *r->scratch);
    sort_terms_(r->scratch, lc->len);
    for (size_t i = 0; i < lc->len;) {
        fr_t sum = r->scratch[i].coeff;
        size_t j = i + 1;
        for (; j < lc->len && r->scratch[j].var == r->scratch[i].var; j++)
            bls12_381_fr_add(&sum, &sum, &r->scratch[j].coeff);
        if (!bls12_381_fr_is_zero(&sum) && !add_entry_(r, m, r->scratch[i].var, &sum)) return 0;
        i = j;
    }
    return 1;
}

static zkpipe_status csr_alloc_(void *ctx, int is_input, uint32_t index, const zkp_fr *value) {
    zkp_cs_csr *r = ctx;
    if (!(r->what & ZKP_CSR_WITNESS)) return ZKPIPE_OK;
    if (r->into) {
        if (index >= (is_input ? r->into_inputs : r->into_aux)) return ZKPIPE_ERR_OUT_OF_RANGE;
        r->into[is_input ? index : r->into_inputs + index] = *value;
        return ZKPIPE_OK;
    }
    return is_input ? zkp_cs_store_value(&r->inputs, &r->inputs_cap, index, value)
                    : zkp_cs_store_value(&r->aux, &r->aux_cap, index, value);
}

static zkpipe_status csr_enforce_(void *ctx, uint64_t index, const zkp_lc *a, const zkp_lc *b,
                                  const zkp_lc *c) {
    zkp_cs_csr *r = ctx;
    const zkp_lc *abc[3] = {a, b, c};
    for (int m = 0; m < 3; m++) {
        if (!append_lc_(r, m, abc[m])) return ZKPIPE_ERR_NO_MEMORY;
        if ((r->what & ZKP_CSR_MATRICES) && !end_row_(r, &r->m[m], index))
            return ZKPIPE_ERR_NO_MEMORY;
    }
    return ZKPIPE_OK;
}

static const zkp_cs_backend csr_backend_ = {csr_alloc_, csr_enforce_};
/* Without matrices or counts (the witness alone) no combination is read,
 * and gadgets build none. */
static const zkp_cs_backend csr_values_backend_ = {csr_alloc_, NULL};

static const zkp_cs_backend *csr_backend_for_(unsigned what) {
    return what & (ZKP_CSR_MATRICES | ZKP_CSR_COUNTS) ? &csr_backend_ : &csr_values_backend_;
}

void zkp_cs_csr_init(zkp_cs_csr *r, unsigned what) {
    memset(r, 0, sizeof *r);
    r->what = what & (ZKP_CSR_MATRICES | ZKP_CSR_WITNESS | ZKP_CSR_COUNTS);
    if (r->what & ZKP_CSR_MATRICES) r->what &= ~(unsigned)ZKP_CSR_COUNTS; /* the rows say it all */
    zkp_cs_init(&r->cs, csr_backend_for_(r->what), r);
}

zkpipe_status zkp_cs_csr_matrices_from(zkp_cs_csr *r, const zkp_allocator *alloc,
                                       zkp_mem_category cat, uint64_t rows,
                                       const uint64_t nnz[3]) {
    if (!(r->what & ZKP_CSR_MATRICES) || r->alloc || r->cs.num_constraints || !alloc)
        return ZKPIPE_ERR_INVALID_ARGUMENT;
    for (int m = 0; m < 3; m++)
        if (r->m[m].rows_cap || r->m[m].cap) return ZKPIPE_ERR_INVALID_ARGUMENT;
    if (rows >= SIZE_MAX / sizeof(uint64_t) - 1) return ZKPIPE_ERR_NO_MEMORY;
    r->alloc = alloc;
    r->cat = cat;
    for (int m = 0; m < 3; m++) {
        zkp_csr_matrix *mat = &r->m[m];
        size_t n = nnz[m] ? (size_t)nnz[m] : 1;
        if (nnz[m] >= SIZE_MAX / sizeof *mat->val) goto oom;
        /* Exactly what was announced: grow_ would round up to a power of
         * two, up to twice the bytes. */
        mat->row_ptr = zkp_alloc(alloc, ((size_t)rows + 1) * sizeof *mat->row_ptr, cat);
        if (!mat->row_ptr) goto oom;
        mat->rows_cap = (size_t)rows + 1;
        mat->col = zkp_alloc(alloc, n * sizeof *mat->col, cat);
        mat->val = zkp_alloc(alloc, n * sizeof *mat->val, cat);
        if (!mat->col || !mat->val) goto oom;
        mat->cap = n;
    }
    return ZKPIPE_OK;
oom:
    for (int m = 0; m < 3; m++) {
        zkp_csr_matrix *mat = &r->m[m];
        zkp_free(alloc, mat->row_ptr, mat->rows_cap * sizeof *mat->row_ptr, cat);
        zkp_free(alloc, mat->col, (nnz[m] ? (size_t)nnz[m] : 1) * sizeof *mat->col, cat);
        zkp_free(alloc, mat->val, (nnz[m] ? (size_t)nnz[m] : 1) * sizeof *mat->val, cat);
        memset(mat, 0, sizeof *mat);
    }
    r->alloc = NULL;
    return ZKPIPE_ERR_NO_MEMORY;
}

void zkp_cs_csr_free(zkp_cs_csr *r) {
    for (int m = 0; m < 3; m++) {
        release_(r, r->m[m].row_ptr, r->m[m].rows_cap * sizeof *r->m[m].row_ptr);
        release_(r, r->m[m].col, r->m[m].cap * sizeof *r->m[m].col);
        release_(r, r->m[m].val, r->m[m].cap * sizeof *r->m[m].val);
    }
    free(r->inputs);
    free(r->aux);
    free(r->scratch);
    for (int m = 0; m < 2; m++) {
        free(r->used_in[m]);
        free(r->used_aux[m]);
    }
    memset(r, 0, sizeof *r);
}

zkpipe_status zkp_cs_csr_witness_into(zkp_cs_csr *r, uint64_t *w, uint32_t n_inputs,
                                      uint32_t n_aux) {
    if (r->what != ZKP_CSR_WITNESS || r->finished || r->cs.num_inputs > 1 || r->cs.num_aux ||
        !w || n_inputs == 0)
        return ZKPIPE_ERR_INVALID_ARGUMENT;
    r->into = (fr_t *)(void *)w;
    r->into_inputs = n_inputs;
    r->into_aux = n_aux;
    /* ONE, which zkp_cs_init allocated before the vector was known. */
    bls12_381_fr_set_one(&r->into[0]);
    return ZKPIPE_OK;
}

zkpipe_status zkp_cs_csr_finish(zkp_cs_csr *r) {
    if (r->finished) return ZKPIPE_ERR_INVALID_ARGUMENT;
    if (r->cs.status != ZKPIPE_OK) return r->cs.status;
    uint64_t n_in = r->cs.num_inputs, n_aux = r->cs.num_aux;
    if (n_in + n_aux > UINT32_MAX) return ZKPIPE_ERR_OUT_OF_RANGE;
    if (r->into) {
        if (n_in != r->into_inputs || n_aux != r->into_aux) return ZKPIPE_ERR_SIZE_MISMATCH;
        for (uint64_t j = 0; j < n_in + n_aux; j++) bls12_381_fr_from_mont(&r->into[j], &r->into[j]);
    }
    uint64_t rows = r->cs.num_constraints;
    if (r->what & ZKP_CSR_MATRICES) {
        fr_t one;
        bls12_381_fr_set_one(&one);
        /* A = input_i, B = C = 0; ONE is always there, so every matrix
         * ends up with row pointers even for a circuit with no constraint */
        for (uint64_t i = 0; i < n_in; i++, rows++) {
            if (!push_entry_(r, &r->m[ZKP_CSR_A], (zkp_var)i | ZKP_VAR_INPUT_BIT, &one))
                return ZKPIPE_ERR_NO_MEMORY;
            for (int m = 0; m < 3; m++)
                if (!end_row_(r, &r->m[m], rows)) return ZKPIPE_ERR_NO_MEMORY;
        }
        for (int m = 0; m < 3; m++) {
            zkp_csr_matrix *mat = &r->m[m];
            for (size_t k = 0; k < mat->nnz; k++) {
                zkp_var v = mat->col[k];
                mat->col[k] = zkp_var_is_input(v) ? zkp_var_index(v)
                                                  : (uint32_t)(n_in + zkp_var_index(v));
            }
        }
    } else {
        fr_t one;
        bls12_381_fr_set_one(&one);
        if (r->what & ZKP_CSR_COUNTS)
            for (uint64_t i = 0; i < n_in; i++)
                if (!add_entry_(r, ZKP_CSR_A, (zkp_var)i | ZKP_VAR_INPUT_BIT, &one))
                    return ZKPIPE_ERR_NO_MEMORY;
        rows += n_in;
    }
    r->n_rows = rows;
    r->n_cols = (uint32_t)(n_in + n_aux);
    r->finished = 1;
    return ZKPIPE_OK;
}

zkpipe_status zkp_cs_csr_reserve(zkp_cs_csr *r, uint64_t rows, const uint64_t nnz[3]) {
    if (!(r->what & ZKP_CSR_MATRICES) || r->slice || r->finished)
        return ZKPIPE_ERR_INVALID_ARGUMENT;
    if (rows >= SIZE_MAX / sizeof(uint64_t) - 1) return ZKPIPE_ERR_NO_MEMORY;
    for (int m = 0; m < 3; m++) {
        zkp_csr_matrix *mat = &r->m[m];
        size_t cap = mat->cap;
        if (nnz[m] >= SIZE_MAX / sizeof *mat->val ||
            !grow_(r, (void **)&mat->row_ptr, &mat->rows_cap, (size_t)rows + 1,
                   sizeof *mat->row_ptr) ||
            !grow_(r, (void **)&mat->col, &cap, (size_t)nnz[m], sizeof *mat->col))
            return ZKPIPE_ERR_NO_MEMORY;
        cap = mat->cap;
        if (!grow_(r, (void **)&mat->val, &cap, (size_t)nnz[m], sizeof *mat->val))
            return ZKPIPE_ERR_NO_MEMORY;
        mat->cap = cap;
    }
    return ZKPIPE_OK;
}

zkpipe_status zkp_cs_csr_slice(zkp_cs_csr *slice, const zkp_cs_csr *r, uint64_t row0,
                               uint64_t row_end, const uint64_t nnz0[3],
                               const uint64_t nnz_end[3]) {
    memset(slice, 0, sizeof *slice);
    if (r->slice || r->finished || (r->what & ZKP_CSR_WITNESS) || row_end < row0)
        return ZKPIPE_ERR_INVALID_ARGUMENT;
    if (r->what & ZKP_CSR_MATRICES)
        for (int m = 0; m < 3; m++)
            if (row_end + 1 > r->m[m].rows_cap || nnz_end[m] < nnz0[m] ||
                nnz_end[m] > r->m[m].cap)
                return ZKPIPE_ERR_INVALID_ARGUMENT;
    zkp_cs_init(&slice->cs, r->cs.backend, slice);
    slice->what = r->what;
    slice->slice = 1;
    if (!(r->what & ZKP_CSR_MATRICES)) return ZKPIPE_OK; /* counts of its own */
    for (int m = 0; m < 3; m++) {
        slice->m[m] = r->m[m];
        slice->m[m].nnz = (size_t)nnz0[m];
        slice->m[m].cap = (size_t)nnz_end[m];
        slice->m[m].rows_cap = (size_t)row_end + 1;
    }
    slice->n_rows = row_end; /* the row its matrices must reach, for the join */
    return ZKPIPE_OK;
}

/* dst |= src, dst growing to src's words. 0 when that fails. */
static int or_bits_(uint64_t **dst, size_t *dst_words, const uint64_t *src, size_t src_words) {
    if (src_words > *dst_words) {
        uint64_t *q = realloc(*dst, src_words * sizeof *q);
        if (!q) return 0;
        memset(q + *dst_words, 0, (src_words - *dst_words) * sizeof *q);
        *dst = q;
        *dst_words = src_words;
    }
    for (size_t w = 0; w < src_words; w++) (*dst)[w] |= src[w];
    return 1;
}

zkpipe_status zkp_cs_csr_slice_join(zkp_cs_csr *r, zkp_cs_csr *slice) {
    if (!slice->slice) return ZKPIPE_ERR_INVALID_ARGUMENT; /* never made */
    zkpipe_status st = slice->cs.status;
    if (st == ZKPIPE_OK && (r->what & ZKP_CSR_MATRICES)) {
        for (int m = 0; m < 3 && st == ZKPIPE_OK; m++)
            if (slice->m[m].nnz != slice->m[m].cap ||
                slice->m[m].row_ptr[slice->n_rows] != slice->m[m].nnz)
                st = ZKPIPE_ERR_INVALID_ARGUMENT;
        for (int m = 0; m < 3 && st == ZKPIPE_OK; m++)
            if (slice->m[m].nnz > r->m[m].nnz) r->m[m].nnz = slice->m[m].nnz;
    } else if (st == ZKPIPE_OK) {
        for (int m = 0; m < 3; m++) r->count[m] += slice->count[m];
        for (int m = 0; m < 2 && st == ZKPIPE_OK; m++)
            if (!or_bits_(&r->used_in[m], &r->used_in_words[m], slice->used_in[m],
                          slice->used_in_words[m]) ||
                !or_bits_(&r->used_aux[m], &r->used_aux_words[m], slice->used_aux[m],
                          slice->used_aux_words[m]))
                st = ZKPIPE_ERR_NO_MEMORY;
    }
    /* Its matrices are r's: only what is its own goes. */
    free(slice->scratch);
    for (int m = 0; m < 2; m++) {
        free(slice->used_in[m]);
        free(slice->used_aux[m]);
    }
    memset(slice, 0, sizeof *slice);
    return st;
}

static const fr_t *column_value_(const zkp_cs_csr *r, uint32_t col) {
    return col < r->cs.num_inputs ? &r->inputs[col] : &r->aux[col - r->cs.num_inputs];
}

static void row_dot_(const zkp_cs_csr *r, const zkp_csr_matrix *mat, uint64_t row, fr_t *out) {
    bls12_381_fr_set_zero(out);
    for (uint64_t k = mat->row_ptr[row]; k < mat->row_ptr[row + 1]; k++) {
        fr_t t;
        bls12_381_fr_mul(&t, &mat->val[k], column_value_(r, mat->col[k]));
        bls12_381_fr_add(out, out, &t);
    }
}

int zkp_cs_csr_check(const zkp_cs_csr *r, uint64_t *first_bad) {
    const unsigned both = ZKP_CSR_MATRICES | ZKP_CSR_WITNESS;
    if (!r->finished || (r->what & both) != both) { /* nothing to check against */
        if (first_bad) *first_bad = 0;
        return 0;
    }
    for (uint64_t i = 0; i < r->n_rows; i++) {
        fr_t a, b, c, ab;
        row_dot_(r, &r->m[ZKP_CSR_A], i, &a);
        row_dot_(r, &r->m[ZKP_CSR_B], i, &b);
        row_dot_(r, &r->m[ZKP_CSR_C], i, &c);
        bls12_381_fr_mul(&ab, &a, &b);
        if (!bls12_381_fr_eq(&ab, &c)) {
            if (first_bad) *first_bad = i;
            return 0;
        }
    }
    return 1;
}

void zkp_cs_csr_witness(const zkp_cs_csr *r, uint64_t *out) {
    if (!r->finished || !(r->what & ZKP_CSR_WITNESS) || r->into) return;
    for (uint32_t j = 0; j < r->n_cols; j++) {
        fr_t v;
        bls12_381_fr_from_mont(&v, column_value_(r, j));
        memcpy(out + 4 * (size_t)j, v.l, sizeof v.l);
    }
}

size_t zkp_cs_csr_key_coefs(const zkp_cs_csr *r, bls12_381_g16_coef_t *out) {
    size_t n = 0;
    if (!r->finished || !(r->what & ZKP_CSR_MATRICES) || r->n_rows > UINT32_MAX) return 0;
    for (uint32_t m = 0; m < 2; m++) {
        const zkp_csr_matrix *mat = &r->m[m];
        for (uint64_t i = 0; i < r->n_rows; i++)
            for (uint64_t k = mat->row_ptr[i]; k < mat->row_ptr[i + 1]; k++, n++) {
                if (!out) continue;
                out[n].matrix = m;
                out[n].constraint = (uint32_t)i;
                out[n].signal = mat->col[k];
                /* coefficient·R: one Montgomery product with R² makes it ·R² */
                bls12_381_fr_mul(&out[n].value, &mat->val[k], &bls12_381_fr_r2_mont);
            }
    }
    return n;
}

uint64_t zkp_cs_csr_nnz(const zkp_cs_csr *r, int m) {
    return (r->what & ZKP_CSR_MATRICES) ? r->m[m].nnz : r->count[m];
}

static uint64_t popcount_(const uint64_t *bits, size_t words) {
    uint64_t n = 0;
    for (size_t i = 0; i < words; i++) n += (uint64_t)__builtin_popcountll(bits[i]);
    return n;
}

zkpipe_status zkp_cs_csr_density(const zkp_cs_csr *r, zkp_csr_density *out) {
    memset(out, 0, sizeof *out);
    if (!(r->what & ZKP_CSR_MATRICES)) {
        out->a_input = popcount_(r->used_in[0], r->used_in_words[0]);
        out->a_aux = popcount_(r->used_aux[0], r->used_aux_words[0]);
        out->b_input = popcount_(r->used_in[1], r->used_in_words[1]);
        out->b_aux = popcount_(r->used_aux[1], r->used_aux_words[1]);
        return ZKPIPE_OK;
    }
    size_t words = ((size_t)r->n_cols + 63) / 64;
    uint64_t *bits = calloc(words ? words : 1, sizeof *bits);
    if (!bits) return ZKPIPE_ERR_NO_MEMORY;
    for (int m = 0; m < 2; m++) {
        const zkp_csr_matrix *mat = &r->m[m];
        memset(bits, 0, words * sizeof *bits);
        for (size_t k = 0; k < mat->nnz; k++) bits[mat->col[k] / 64] |= 1ull << (mat->col[k] % 64);
        uint64_t in = 0, aux = 0;
        for (uint32_t j = 0; j < r->n_cols; j++) {
            int set = (int)((bits[j / 64] >> (j % 64)) & 1);
            if (j < r->cs.num_inputs) in += (uint64_t)set;
            else aux += (uint64_t)set;
        }
        if (m == 0) out->a_input = in, out->a_aux = aux;
        else out->b_input = in, out->b_aux = aux;
    }
    free(bits);
    return ZKPIPE_OK;
}
