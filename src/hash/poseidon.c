/* Poseidon over BLS12-381 Fr: the table of arities, the constants made on
 * first use, and the two forms of the permutation. See poseidon.h. */
#include "hash/poseidon.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "hash/poseidon_constants.h"

typedef bls12_381_fr_t fr_t;

/* ------------------------------------------------------------ the table */

/* neptune's Standard strength: R_F and R_P from its round-number search
 * for a 256-bit prime and 128-bit security with its margin. Filecoin's
 * PoRep uses 2, 8 and 11; its hashers also name 4, 16, 24 and 36 (36 is
 * the arity of hash_md). Another arity is one more line here, with
 * ZKP_POSEIDON_MAX_ARITY raised to match if it is larger. */
static const struct {
    unsigned arity, full_rounds, partial_rounds;
} poseidon_shapes[] = {
    {2, 8, 55},
    {4, 8, 56},
    {8, 8, 57},
    {11, 8, 57},
    {16, 8, 59},
    {24, 8, 59},
    {36, 8, 60},
};
#define POSEIDON_SHAPES (sizeof poseidon_shapes / sizeof poseidon_shapes[0])

/* Made once per arity, under the lock; read without it once published. */
static zkp_poseidon_params *_Atomic poseidon_made[POSEIDON_SHAPES];
static pthread_mutex_t poseidon_make_lock = PTHREAD_MUTEX_INITIALIZER;

/* One allocation holds the struct and every array after it. */
static zkpipe_status poseidon_make_(zkp_poseidon_params **out, unsigned arity, unsigned r_f, unsigned r_p) {
    const unsigned t = arity + 1;
    const size_t tt = (size_t)t * t;
    const size_t n_rc = (size_t)(r_f + r_p) * t, n_crc = (size_t)r_f * t + r_p;
    const size_t n_w = (size_t)r_p * t, n_v = (size_t)r_p * (t - 1);
    const size_t elems = n_rc + 3 * tt + n_crc + n_w + n_v;
    zkp_poseidon_params *p = malloc(sizeof *p + elems * sizeof(fr_t));
    if (!p) return ZKPIPE_ERR_NO_MEMORY;
    fr_t *rc = (fr_t *)(p + 1), *mds = rc + n_rc, *mds_inv = mds + tt, *crc = mds_inv + tt;
    fr_t *pre_sparse = crc + n_crc, *w_hat = pre_sparse + tt, *v_rest = w_hat + n_w;

    p->arity = arity;
    p->width = t;
    p->full_rounds = r_f;
    p->half_full_rounds = r_f / 2;
    p->partial_rounds = r_p;
    bls12_381_fr_set_u64(&p->domain_tag, (UINT64_C(1) << arity) - 1);

    zkp_poseidon_grain_constants(rc, t, r_f, r_p);
    zkp_poseidon_cauchy_mds(mds, t);
    zkpipe_status st = zkp_poseidon_matrix_invert(mds_inv, mds, t);
    if (st == ZKPIPE_OK) {
        zkp_poseidon_compress_round_constants(crc, rc, mds_inv, t, r_f, r_p);
        /* The sparse form works on row vectors, so it factors M^T; the
         * Cauchy matrix here is symmetric, but the transpose keeps the
         * derivation right for any M. */
        fr_t *mds_t = malloc(tt * sizeof(fr_t));
        if (!mds_t) {
            st = ZKPIPE_ERR_NO_MEMORY;
        } else {
            for (unsigned i = 0; i < t; i++)
                for (unsigned j = 0; j < t; j++) mds_t[j * t + i] = mds[i * t + j];
            st = zkp_poseidon_factor_sparse(pre_sparse, w_hat, v_rest, mds_t, t, r_p);
            free(mds_t);
        }
    }
    if (st != ZKPIPE_OK) {
        free(p);
        return st;
    }
    p->round_constants = rc;
    p->mds = mds;
    p->mds_inv = mds_inv;
    p->compressed_round_constants = crc;
    p->pre_sparse_matrix = pre_sparse;
    p->sparse_w_hat = w_hat;
    p->sparse_v_rest = v_rest;
    *out = p;
    return ZKPIPE_OK;
}

zkpipe_status zkp_poseidon_params_get(const zkp_poseidon_params **out, unsigned arity) {
    size_t k = 0;
    while (k < POSEIDON_SHAPES && poseidon_shapes[k].arity != arity) k++;
    if (k == POSEIDON_SHAPES) return ZKPIPE_ERR_UNSUPPORTED;
    zkp_poseidon_params *p = atomic_load_explicit(&poseidon_made[k], memory_order_acquire);
    if (p) {
        *out = p;
        return ZKPIPE_OK;
    }
    zkpipe_status st = ZKPIPE_OK;
    pthread_mutex_lock(&poseidon_make_lock);
    p = atomic_load_explicit(&poseidon_made[k], memory_order_relaxed);
    if (!p) {
        st = poseidon_make_(&p, arity, poseidon_shapes[k].full_rounds, poseidon_shapes[k].partial_rounds);
        if (st == ZKPIPE_OK) atomic_store_explicit(&poseidon_made[k], p, memory_order_release);
    }
    pthread_mutex_unlock(&poseidon_make_lock);
    if (st == ZKPIPE_OK) *out = p;
    return st;
}

zkpipe_status zkp_poseidon_init_all(void) {
    for (size_t k = 0; k < POSEIDON_SHAPES; k++) {
        const zkp_poseidon_params *p;
        zkpipe_status st = zkp_poseidon_params_get(&p, poseidon_shapes[k].arity);
        if (st != ZKPIPE_OK) return st;
    }
    return ZKPIPE_OK;
}

/* ------------------------------------------------------------ rounds */

static inline void sbox_(fr_t *x) {
    fr_t x2, x4;
    bls12_381_fr_sqr(&x2, x);
    bls12_381_fr_sqr(&x4, &x2);
    bls12_381_fr_mul(x, x, &x4);
}

/* s = m * s, m row-major (a column vector times the matrix's rows). */
static inline void apply_columns_(fr_t *s, const fr_t *m, unsigned t) {
    fr_t r[ZKP_POSEIDON_MAX_WIDTH], prod;
    for (unsigned i = 0; i < t; i++) {
        const fr_t *row = m + (size_t)i * t;
        bls12_381_fr_mul(&r[i], &row[0], &s[0]);
        for (unsigned j = 1; j < t; j++) {
            bls12_381_fr_mul(&prod, &row[j], &s[j]);
            bls12_381_fr_add(&r[i], &r[i], &prod);
        }
    }
    memcpy(s, r, t * sizeof(fr_t));
}

/* s = s * m, s a row vector. */
static inline void apply_rows_(fr_t *s, const fr_t *m, unsigned t) {
    fr_t r[ZKP_POSEIDON_MAX_WIDTH], prod;
    for (unsigned j = 0; j < t; j++) bls12_381_fr_mul(&r[j], &s[0], &m[j]);
    for (unsigned i = 1; i < t; i++)
        for (unsigned j = 0; j < t; j++) {
            bls12_381_fr_mul(&prod, &s[i], &m[(size_t)i * t + j]);
            bls12_381_fr_add(&r[j], &r[j], &prod);
        }
    memcpy(s, r, t * sizeof(fr_t));
}

/* s = s * S_k for the sparse matrix of partial round k. */
static inline void apply_sparse_(fr_t *s, const fr_t *w_hat, const fr_t *v_rest, unsigned t) {
    fr_t s0 = s[0], acc, prod;
    bls12_381_fr_mul(&acc, &w_hat[0], &s[0]);
    for (unsigned i = 1; i < t; i++) {
        bls12_381_fr_mul(&prod, &w_hat[i], &s[i]);
        bls12_381_fr_add(&acc, &acc, &prod);
        bls12_381_fr_mul(&prod, &v_rest[i - 1], &s0);
        bls12_381_fr_add(&s[i], &s[i], &prod);
    }
    s[0] = acc;
}

void zkp_poseidon_permute_plain(const zkp_poseidon_params *p, fr_t *s) {
    const unsigned t = p->width, half = p->half_full_rounds, rounds = p->full_rounds + p->partial_rounds;
    const fr_t *c = p->round_constants;
    for (unsigned r = 0; r < rounds; r++, c += t) {
        const int full = r < half || r >= half + p->partial_rounds;
        for (unsigned i = 0; i < t; i++) bls12_381_fr_add(&s[i], &s[i], &c[i]);
        if (full)
            for (unsigned i = 0; i < t; i++) sbox_(&s[i]);
        else
            sbox_(&s[0]);
        apply_columns_(s, p->mds, t);
    }
}

/* The body of the optimised permutation; the entry point below calls it
 * with each table width as a constant, so each width gets its own copy
 * with the inner loops' bounds known. */
static inline __attribute__((always_inline)) void permute_optimized_(const zkp_poseidon_params *p, fr_t *s,
                                                                      fr_t *trace, const unsigned t) {
    const unsigned half = p->half_full_rounds, r_p = p->partial_rounds;
    const fr_t *c = p->compressed_round_constants;
    unsigned round = 0;
#define POSEIDON_TRACE_()                                                        \
    do {                                                                          \
        if (trace) memcpy(trace + (size_t)round * t, s, t * sizeof(fr_t));        \
        round++;                                                                  \
    } while (0)

    /* The first full rounds: round 0 alone adds constants before its
     * S-boxes; every one adds the next round's (moved back) after them. */
    for (unsigned r = 0; r < half; r++) {
        POSEIDON_TRACE_();
        if (r == 0) {
            for (unsigned i = 0; i < t; i++) bls12_381_fr_add(&s[i], &s[i], &c[i]);
            c += t;
        }
        for (unsigned i = 0; i < t; i++) {
            sbox_(&s[i]);
            bls12_381_fr_add(&s[i], &s[i], &c[i]);
        }
        c += t;
        if (r + 1 < half)
            apply_columns_(s, p->mds, t);
        else
            apply_rows_(s, p->pre_sparse_matrix, t);
    }
    for (unsigned k = 0; k < r_p; k++) {
        POSEIDON_TRACE_();
        sbox_(&s[0]);
        bls12_381_fr_add(&s[0], &s[0], &c[k]);
        apply_sparse_(s, p->sparse_w_hat + (size_t)k * t, p->sparse_v_rest + (size_t)k * (t - 1), t);
    }
    c += r_p;
    for (unsigned r = 0; r < half; r++) {
        POSEIDON_TRACE_();
        for (unsigned i = 0; i < t; i++) sbox_(&s[i]);
        if (r + 1 < half) {
            for (unsigned i = 0; i < t; i++) bls12_381_fr_add(&s[i], &s[i], &c[i]);
            c += t;
        }
        apply_columns_(s, p->mds, t);
    }
#undef POSEIDON_TRACE_
}

void zkp_poseidon_permute_optimized(const zkp_poseidon_params *p, fr_t *s, fr_t *trace) {
    switch (p->width) {
    case 3: permute_optimized_(p, s, trace, 3); break;
    case 5: permute_optimized_(p, s, trace, 5); break;
    case 9: permute_optimized_(p, s, trace, 9); break;
    case 12: permute_optimized_(p, s, trace, 12); break;
    default: permute_optimized_(p, s, trace, p->width); break;
    }
}

/* ------------------------------------------------------------ hashing */

static inline void load_(fr_t *s, const zkp_poseidon_params *p, const fr_t *preimage) {
    s[0] = p->domain_tag;
    memcpy(&s[1], preimage, p->arity * sizeof(fr_t));
}

void zkp_poseidon_hash(fr_t *out, const zkp_poseidon_params *p, const fr_t *preimage) {
    fr_t s[ZKP_POSEIDON_MAX_WIDTH];
    load_(s, p, preimage);
    zkp_poseidon_permute_optimized(p, s, NULL);
    *out = s[1];
}

void zkp_poseidon_hash_plain(fr_t *out, const zkp_poseidon_params *p, const fr_t *preimage) {
    fr_t s[ZKP_POSEIDON_MAX_WIDTH];
    load_(s, p, preimage);
    zkp_poseidon_permute_plain(p, s);
    *out = s[1];
}

zkpipe_status zkp_poseidon_hash_bytes(uint8_t out[32], unsigned arity, const uint8_t *preimage, zkp_diag *diag) {
    const zkp_poseidon_params *p;
    zkpipe_status st = zkp_poseidon_params_get(&p, arity);
    if (st != ZKPIPE_OK) return zkp_diag_fail(diag, st, "Poseidon: arity %u is not available", arity);
    fr_t s[ZKP_POSEIDON_MAX_WIDTH];
    s[0] = p->domain_tag;
    for (unsigned k = 0; k < arity; k++)
        if (bls12_381_fr_from_bytes_le(&s[k + 1], preimage + (size_t)32 * k) != ZKPIPE_OK)
            return zkp_diag_fail(diag, ZKPIPE_ERR_NON_CANONICAL,
                                 "Poseidon: preimage element %u of %u is not a canonical field element (>= r)", k,
                                 arity);
    zkp_poseidon_permute_optimized(p, s, NULL);
    bls12_381_fr_to_bytes_le(out, &s[1]);
    return ZKPIPE_OK;
}
