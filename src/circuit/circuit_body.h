/* Generic pre-compiled circuit: the code. See circuit_impl.h. */
#include <stdlib.h>
#include <string.h>

#include "util/parallel.h"

#define CIR_FN(op) ZKP_CAT(ZKP_CAT(CIR_CURVE, _csr_), op)
#define CIR_T ZKP_CAT(CIR_CURVE, _csr_t)
#define CIR_PK ZKP_CAT(CIR_CURVE, _g16_pk_t)
#define CIR_FRT ZKP_CAT(CIR_FR, _t)
#define CIR_F(op) ZKP_CAT(ZKP_CAT(CIR_FR, _), op)
/* How many entries ahead a row's dot product asks for the witness value it
 * will need. The witness is read at the columns' whim (86 MB at 2 KiB, 4
 * GB at 32 GiB, far past the caches), so without it each entry waits for
 * memory: at 2 KiB a partition's a, b, c took 1.3 to 1.9 s on one core,
 * and 0.5 to 0.65 s with it (a loaded 2-core VM; 16 and 32 ahead alike).
 * The column array is padded with as many zeros, so the look-ahead past
 * the last entry asks for the constant one's value. */
#define CIR_PREFETCH 16

/* The layout of the one allocation: per matrix the row pointers, columns,
 * values (or their indices when n_dict > 0) and density words, then the
 * dictionary, each 64-byte aligned. With csr NULL it only counts; the
 * count is overflow-checked since keys come from files. */
static size_t CIR_FN(layout_)(CIR_T *csr, unsigned char *mem, const CIR_PK *pk, const size_t nnz[2],
                              size_t n_dict) {
    size_t at = 0, words = ((size_t)pk->n_vars + 63) / 64;
    size_t value_bytes = n_dict ? sizeof(uint16_t) : sizeof(CIR_FRT);
    for (unsigned m = 0; m < 3; m++) {
        size_t parts[4] = {0, 0, 0, 0};
        if (m < 2) {
            parts[0] = ((size_t)pk->domain_size + 1) * sizeof(uint64_t);
            parts[1] = (nnz[m] + CIR_PREFETCH) * sizeof(uint32_t);
            parts[2] = nnz[m] * value_bytes;
            parts[3] = words * sizeof(uint64_t);
        } else {
            parts[0] = n_dict * sizeof(CIR_FRT);
        }
        void *ptrs[4];
        for (unsigned k = 0; k < 4; k++) {
            ptrs[k] = mem ? mem + at : NULL;
            size_t rounded;
            if (zkp_add_overflow(parts[k], 63, &rounded) ||
                zkp_add_overflow(at, rounded & ~(size_t)63, &at))
                return 0;
        }
        if (!csr) continue;
        if (m == 2) {
            csr->dict = n_dict ? ptrs[0] : NULL;
            continue;
        }
        csr->row_ptr[m] = ptrs[0];
        csr->col[m] = ptrs[1];
        csr->val[m] = n_dict ? NULL : ptrs[2];
        csr->vidx[m] = n_dict ? ptrs[2] : NULL;
        csr->density[m] = ptrs[3];
    }
    return at;
}

static void CIR_FN(count_)(const CIR_PK *pk, size_t nnz[2]) {
    nnz[0] = nnz[1] = 0;
    for (size_t k = 0; k < pk->n_coefs; k++) nnz[pk->coefs[k].matrix != 0]++;
}

/* The distinct coefficient values, found with an open-addressed hash table
 * of twice the dictionary's room (small: it lives in malloc memory while
 * the key compiles). */
#define CIR_DICT_SLOTS (2 * ZKP_CIRCUIT_DICT_MAX)
typedef struct {
    uint32_t *slot; /* 1 + the value's index, or 0 for an empty slot */
    CIR_FRT *vals;
    size_t n;
    long last; /* the index found last: runs of one value (±1) skip the hash */
} CIR_FN(dict_);

static size_t CIR_FN(dict_hash_)(const CIR_FRT *v) {
    uint64_t h = v->l[0] ^ (v->l[1] * 0x9e3779b97f4a7c15u) ^ (v->l[2] * 0xc2b2ae3d27d4eb4fu) ^
                 (v->l[3] * 0x165667b19e3779f9u);
    h *= 0xff51afd7ed558ccdu;
    return (size_t)(h >> 32) & (CIR_DICT_SLOTS - 1);
}

/* v's index, added when new (add); -1 once the dictionary is full. */
static long CIR_FN(dict_find_)(CIR_FN(dict_) *d, const CIR_FRT *v, int add) {
    if (d->last >= 0 && CIR_F(eq)(&d->vals[d->last], v)) return d->last;
    for (size_t i = CIR_FN(dict_hash_)(v);; i = (i + 1) & (CIR_DICT_SLOTS - 1)) {
        uint32_t s = d->slot[i];
        if (s == 0) {
            if (!add || d->n == ZKP_CIRCUIT_DICT_MAX) return -1;
            d->vals[d->n] = *v;
            d->slot[i] = (uint32_t)++d->n;
            return d->last = (long)d->n - 1;
        }
        if (CIR_F(eq)(&d->vals[s - 1], v)) return d->last = (long)s - 1;
    }
}

/* The dictionary of pk's values in d, or d->n = 0 when there are more than
 * it holds. ZKPIPE_ERR_NO_MEMORY when its table could not be allocated. */
static zkpipe_status CIR_FN(dict_build_)(CIR_FN(dict_) *d, const CIR_PK *pk) {
    d->n = 0;
    d->last = -1;
    d->slot = calloc(CIR_DICT_SLOTS, sizeof *d->slot);
    d->vals = malloc(ZKP_CIRCUIT_DICT_MAX * sizeof *d->vals);
    if (!d->slot || !d->vals) return ZKPIPE_ERR_NO_MEMORY;
    for (size_t k = 0; k < pk->n_coefs; k++)
        if (CIR_FN(dict_find_)(d, &pk->coefs[k].value, 1) < 0) {
            d->n = 0;
            break;
        }
    return ZKPIPE_OK;
}

static void CIR_FN(dict_free_)(CIR_FN(dict_) *d) {
    free(d->slot);
    free(d->vals);
    memset(d, 0, sizeof *d);
}

size_t CIR_FN(bytes)(const CIR_PK *pk) {
    size_t nnz[2];
    CIR_FN(count_)(pk, nnz);
    CIR_FN(dict_) d;
    if (CIR_FN(dict_build_)(&d, pk) != ZKPIPE_OK) d.n = 0;
    size_t n_dict = d.n;
    CIR_FN(dict_free_)(&d);
    return CIR_FN(layout_)(NULL, NULL, pk, nnz, n_dict);
}

zkpipe_status CIR_FN(build)(CIR_T *csr, const CIR_PK *pk, const zkp_allocator *alloc,
                            zkp_diag *diag) {
    memset(csr, 0, sizeof *csr);
    size_t nnz[2];
    CIR_FN(count_)(pk, nnz);
    CIR_FN(dict_) d;
    if (CIR_FN(dict_build_)(&d, pk) != ZKPIPE_OK) {
        CIR_FN(dict_free_)(&d);
        return zkp_diag_fail(diag, ZKPIPE_ERR_NO_MEMORY,
                             "cannot allocate the table of the circuit's coefficients");
    }
    size_t bytes = CIR_FN(layout_)(NULL, NULL, pk, nnz, d.n);
    unsigned char *mem = bytes ? zkp_alloc(alloc, bytes, ZKP_MEM_CSR) : NULL;
    if (!mem) {
        CIR_FN(dict_free_)(&d);
        if (bytes == 0)
            return zkp_diag_fail(diag, ZKPIPE_ERR_OUT_OF_RANGE, "the key is too large to compile");
        return zkp_diag_fail(diag, ZKPIPE_ERR_NO_MEMORY, "cannot allocate %zu bytes for the circuit",
                             bytes);
    }
    CIR_FN(layout_)(csr, mem, pk, nnz, d.n);
    csr->n_rows = pk->domain_size;
    csr->n_cols = pk->n_vars;
    csr->nnz[0] = nnz[0];
    csr->nnz[1] = nnz[1];
    csr->n_dict = d.n;
    if (d.n) memcpy(csr->dict, d.vals, d.n * sizeof *csr->dict);
    csr->mem = mem;
    csr->mem_bytes = bytes;
    csr->alloc = alloc;
    size_t words = ((size_t)pk->n_vars + 63) / 64;
    for (unsigned m = 0; m < 2; m++) {
        memset(csr->row_ptr[m], 0, ((size_t)csr->n_rows + 1) * sizeof(uint64_t));
        memset(csr->density[m], 0, words * sizeof(uint64_t));
        memset(csr->col[m] + nnz[m], 0, CIR_PREFETCH * sizeof(uint32_t));
    }
    /* Counting sort by row: count into row_ptr[i + 1], prefix-sum, then
     * place each entry at its row's next free slot (row_ptr[i] advances and
     * is shifted back afterwards). */
    for (size_t k = 0; k < pk->n_coefs; k++) {
        const ZKP_CAT(CIR_CURVE, _g16_coef_t) *e = &pk->coefs[k];
        csr->row_ptr[e->matrix != 0][e->constraint + 1]++;
    }
    for (unsigned m = 0; m < 2; m++)
        for (size_t i = 0; i < csr->n_rows; i++) csr->row_ptr[m][i + 1] += csr->row_ptr[m][i];
    for (size_t k = 0; k < pk->n_coefs; k++) {
        const ZKP_CAT(CIR_CURVE, _g16_coef_t) *e = &pk->coefs[k];
        unsigned m = e->matrix != 0;
        uint64_t at = csr->row_ptr[m][e->constraint]++;
        csr->col[m][at] = e->signal;
        if (d.n)
            csr->vidx[m][at] = (uint16_t)CIR_FN(dict_find_)(&d, &e->value, 0);
        else
            csr->val[m][at] = e->value;
        csr->density[m][e->signal / 64] |= (uint64_t)1 << (e->signal % 64);
    }
    for (unsigned m = 0; m < 2; m++) {
        memmove(csr->row_ptr[m] + 1, csr->row_ptr[m], (size_t)csr->n_rows * sizeof(uint64_t));
        csr->row_ptr[m][0] = 0;
    }
    CIR_FN(dict_free_)(&d);
    return ZKPIPE_OK;
}

void CIR_FN(free)(CIR_T *csr) {
    if (!csr) return;
    zkp_free(csr->alloc, csr->mem, csr->mem_bytes, ZKP_MEM_CSR);
    memset(csr, 0, sizeof *csr);
}

static void CIR_FN(row_dot_)(CIR_FRT *out, const CIR_T *csr, unsigned m, size_t i, const CIR_FRT *w) {
    CIR_FRT acc, t;
    CIR_F(set_zero)(&acc);
    const uint32_t *col = csr->col[m];
    uint64_t lo = csr->row_ptr[m][i], hi = csr->row_ptr[m][i + 1];
    if (csr->dict) {
        const uint16_t *vidx = csr->vidx[m];
        for (uint64_t k = lo; k < hi; k++) {
            __builtin_prefetch(&w[col[k + CIR_PREFETCH]]);
            CIR_F(mul)(&t, &csr->dict[vidx[k]], &w[col[k]]);
            CIR_F(add)(&acc, &acc, &t);
        }
    } else {
        const CIR_FRT *val = csr->val[m];
        for (uint64_t k = lo; k < hi; k++) {
            __builtin_prefetch(&w[col[k + CIR_PREFETCH]]);
            CIR_F(mul)(&t, &val[k], &w[col[k]]);
            CIR_F(add)(&acc, &acc, &t);
        }
    }
    *out = acc;
}

void CIR_FN(synthesize_rows)(const CIR_T *csr, const uint64_t *w, CIR_FRT *abc, size_t lo, size_t hi) {
    const CIR_FRT *wf = (const CIR_FRT *)(const void *)w;
    size_t n = csr->n_rows;
    for (size_t i = lo; i < hi; i++) {
        CIR_FN(row_dot_)(&abc[i], csr, 0, i, wf);
        CIR_FN(row_dot_)(&abc[n + i], csr, 1, i, wf);
        CIR_F(mul)(&abc[2 * n + i], &abc[i], &abc[n + i]);
    }
}

typedef struct {
    const CIR_T *csr;
    const uint64_t *w;
    CIR_FRT *abc;
    size_t units;
} CIR_FN(job_);

static void CIR_FN(unit_)(void *ctx, unsigned tid, size_t u) {
    const CIR_FN(job_) *j = ctx;
    (void)tid;
    size_t n = j->csr->n_rows;
    CIR_FN(synthesize_rows)(j->csr, j->w, j->abc, n * u / j->units, n * (u + 1) / j->units);
}

void CIR_FN(synthesize)(const CIR_T *csr, const uint64_t *w, CIR_FRT *abc, unsigned nthreads) {
    /* A few units per thread even out rows of different weights. */
    size_t units = (size_t)(nthreads ? nthreads : 1) * 4;
    if (units > csr->n_rows) units = csr->n_rows ? csr->n_rows : 1;
    CIR_FN(job_) j = {csr, w, abc, units};
    zkp_parallel_for(nthreads ? nthreads : 1, units, CIR_FN(unit_), &j);
}

#undef CIR_PREFETCH
#undef CIR_DICT_SLOTS
#undef CIR_FN
#undef CIR_T
#undef CIR_PK
#undef CIR_FRT
#undef CIR_F
