/* INSECURE development parameters for a recorded circuit (dev_params.h).
 *
 * The order of work: draw the toxic waste; the Lagrange values L_i(tau)
 * of the rows (threaded chunks, one batch inversion each); the columns
 * u, v, w (one serial pass over the entries of A, B and C); then every
 * point section cut into batches of SY_BATCH scalars, each batch's scalars
 * computed where it runs and turned into points by the fixed-base tables,
 * straight into the output arrays. */
#include "setup/dev_params.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "curve/curve.h"
#include "field/field.h"
#include "hash/chacha.h"
#include "ntt/ntt.h"
#include "setup/bp_key.h"
#include "util/fileio.h"
#include "util/parallel.h"
#include "util/rand.h"

#define FB_G bls12_381_g1
#define FB_F bls12_381_fp
#define FB_BITS BLS12_381_FR_BITS
#include "msm/fixed_base_impl.h"
#define FB_G bls12_381_g2
#define FB_F bls12_381_fp2
#define FB_BITS BLS12_381_FR_BITS
#include "msm/fixed_base_impl.h"

typedef bls12_381_fr_t fr_t;
typedef bls12_381_g1_affine_t g1_t;
typedef bls12_381_g2_affine_t g2_t;

/* Lagrange values per unit of work, and points per batch (a batch shares
 * one inversion per window of the fixed-base tables). */
#define DEV_LCHUNK 4096
#define DEV_BATCH 512
/* The most rows: a domain of 2^31 (bellperson's h count and zkpipe's
 * domain_size are 32-bit). */
#define DEV_MAX_LOG 31

enum { SEC_H, SEC_H_COSET, SEC_A, SEC_B1, SEC_B2, SEC_IC, SEC_L, SEC_COUNT };

typedef struct {
    const zkp_cs_csr *r;
    const zkp_allocator *alloc;
    uint64_t n, rows, cols, n_in;
    fr_t tau, alpha, beta, gamma, delta, inv_gamma, inv_delta;
    fr_t omega;        /* bellperson's n-th root (the 7-family) */
    fr_t omega_2n_5;   /* the prover's 2n-th root (the 5-family): its coset */
    fr_t omega_2n_5_sq;
    fr_t ln_scale;     /* (tau^n - 1)/n */
    fr_t hb_scale;     /* (tau^n - 1)/delta: bellperson's h */
    fr_t hc_scale;     /* (tau^2n - 1)/(2n delta): the coset H query */
    fr_t *lag;         /* L_i(tau), i < rows */
    fr_t *uvw[3];      /* the columns at tau, cols each */
    bls12_381_g1_fb_table_t t1;
    bls12_381_g2_fb_table_t t2;
    uint8_t *scratch;  /* per thread */
    size_t scratch_per_thread;
    void *dst[SEC_COUNT];
    struct {
        int sec;
        size_t count, first_unit;
    } sec[SEC_COUNT];
    size_t nsec, nunits;
    _Atomic uint64_t done;
    uint64_t total, next_report;
    const zkp_dev_params_options *opt;
} dev_ctx;

/* ---- the toxic waste */

/* A uniform nonzero scalar in Montgomery form: 255 random bits, redrawn
 * until below r. */
static void draw_(fr_t *out, zkp_chacha_rng *rng) {
    for (;;) {
        fr_t t;
        for (int i = 0; i < 4; i++) t.l[i] = zkp_chacha_rng_u64(rng);
        t.l[3] &= ~(1ULL << 63);
        if (!bls12_381_fr_is_reduced(&t)) continue;
        bls12_381_fr_to_mont(out, &t);
        if (!bls12_381_fr_is_zero(out)) return;
    }
}

/* ---- Lagrange values: L_i(tau) = ln_scale · w^i / (tau - w^i) */

static void lagrange_unit_(void *arg, unsigned tid, size_t unit) {
    dev_ctx *c = arg;
    fr_t *den = (fr_t *)(c->scratch + (size_t)tid * c->scratch_per_thread), *inv = den + DEV_LCHUNK;
    uint64_t lo = (uint64_t)unit * DEV_LCHUNK;
    uint64_t hi = lo + DEV_LCHUNK < c->rows ? lo + DEV_LCHUNK : c->rows;
    fr_t x;
    bls12_381_fr_pow(&x, &c->omega, &lo, 1);
    for (uint64_t i = lo; i < hi; i++) {
        c->lag[i] = x;
        bls12_381_fr_sub(&den[i - lo], &c->tau, &x);
        bls12_381_fr_mul(&x, &x, &c->omega);
    }
    bls12_381_fr_batch_inv_var(inv, den, (size_t)(hi - lo));
    for (uint64_t i = lo; i < hi; i++) {
        bls12_381_fr_mul(&c->lag[i], &c->lag[i], &inv[i - lo]);
        bls12_381_fr_mul(&c->lag[i], &c->lag[i], &c->ln_scale);
    }
}

/* ---- the point sections */

/* (beta u_j + alpha v_j + w_j) · scale: the IC and L queries. */
static void ext_(const dev_ctx *c, uint64_t j, const fr_t *scale, fr_t *out) {
    fr_t t, s;
    bls12_381_fr_mul(&t, &c->beta, &c->uvw[0][j]);
    bls12_381_fr_mul(&s, &c->alpha, &c->uvw[1][j]);
    bls12_381_fr_add(&t, &t, &s);
    bls12_381_fr_add(&t, &t, &c->uvw[2][j]);
    bls12_381_fr_mul(out, &t, scale);
}

static void points_unit_(void *arg, unsigned tid, size_t unit) {
    dev_ctx *c = arg;
    size_t s = 0;
    while (s + 1 < c->nsec && unit >= c->sec[s + 1].first_unit) s++;
    const int sec = c->sec[s].sec;
    const size_t lo = (unit - c->sec[s].first_unit) * DEV_BATCH;
    const size_t n = c->sec[s].count - lo < DEV_BATCH ? c->sec[s].count - lo : DEV_BATCH;

    uint8_t *p = c->scratch + (size_t)tid * c->scratch_per_thread;
    fr_t *k = (fr_t *)p, *den = k + DEV_BATCH, *inv = den + DEV_BATCH;
    void *fb = inv + DEV_BATCH;
    fr_t x;
    uint64_t e;
    switch (sec) {
    case SEC_H: /* tau^i · (tau^n - 1)/delta */
        e = lo;
        bls12_381_fr_pow(&x, &c->tau, &e, 1);
        bls12_381_fr_mul(&x, &x, &c->hb_scale);
        for (size_t i = 0; i < n; i++) {
            k[i] = x;
            bls12_381_fr_mul(&x, &x, &c->tau);
        }
        break;
    case SEC_H_COSET: /* hc_scale · x / (tau - x) at x = w2n^(2j + 1) (synthetic_body.h) */
        e = 2 * (uint64_t)lo + 1;
        bls12_381_fr_pow(&x, &c->omega_2n_5, &e, 1);
        for (size_t i = 0; i < n; i++) {
            k[i] = x;
            bls12_381_fr_sub(&den[i], &c->tau, &x);
            bls12_381_fr_mul(&x, &x, &c->omega_2n_5_sq);
        }
        bls12_381_fr_batch_inv_var(inv, den, n);
        for (size_t i = 0; i < n; i++) {
            bls12_381_fr_mul(&k[i], &k[i], &inv[i]);
            bls12_381_fr_mul(&k[i], &k[i], &c->hc_scale);
        }
        break;
    case SEC_A:
        memcpy(k, &c->uvw[0][lo], n * sizeof *k);
        break;
    case SEC_B1:
    case SEC_B2:
        memcpy(k, &c->uvw[1][lo], n * sizeof *k);
        break;
    case SEC_IC:
        for (size_t i = 0; i < n; i++) ext_(c, lo + i, &c->inv_gamma, &k[i]);
        break;
    default: /* SEC_L: the aux variables, after the inputs */
        for (size_t i = 0; i < n; i++) ext_(c, c->n_in + lo + i, &c->inv_delta, &k[i]);
        break;
    }
    for (size_t i = 0; i < n; i++) bls12_381_fr_from_mont(&k[i], &k[i]);
    if (sec == SEC_B2)
        bls12_381_g2_fb_eval(&c->t2, (g2_t *)c->dst[sec] + lo, k[0].l, n, DEV_BATCH, fb);
    else
        bls12_381_g1_fb_eval(&c->t1, (g1_t *)c->dst[sec] + lo, k[0].l, n, DEV_BATCH, fb);

    uint64_t done = atomic_fetch_add(&c->done, n) + n;
    /* Thread 0 is the caller's, so the callback runs on one thread only. */
    if (tid == 0 && c->opt->progress && done >= c->next_report) {
        c->opt->progress(c->opt->progress_ctx, done, c->total);
        c->next_report = done + c->total / 100 + 1;
    }
}

/* ---- allocation */

static void *get_(const zkp_allocator *a, size_t count, size_t size, zkp_mem_category cat,
                  int *failed) {
    if (!count) return NULL;
    void *p = zkp_alloc(a, count * size, cat);
    if (!p) *failed = 1;
    return p;
}

void zkp_dev_params_free(zkp_dev_params *p) {
    if (!p) return;
    const zkp_allocator *a = p->alloc;
    size_t cols = (size_t)(p->num_inputs + p->num_aux);
    zkp_bp_vk_free(&p->vk);
    size_t n_h = p->domain_size ? (size_t)p->domain_size - 1 : 0;
    zkp_free(a, p->h, n_h * sizeof(g1_t), ZKP_MEM_KEY);
    zkp_free(a, p->l, (size_t)p->num_aux * sizeof(g1_t), ZKP_MEM_KEY);
    zkp_free(a, p->a, cols * sizeof(g1_t), ZKP_MEM_KEY);
    zkp_free(a, p->b_g1, cols * sizeof(g1_t), ZKP_MEM_KEY);
    zkp_free(a, p->b_g2, cols * sizeof(g2_t), ZKP_MEM_KEY);
    zkp_free(a, p->coefs, p->pk.n_coefs * sizeof(bls12_381_g16_coef_t), ZKP_MEM_KEY);
    zkp_free(a, p->h_coset, (size_t)p->domain_size * sizeof(g1_t), ZKP_MEM_KEY);
    memset(p, 0, sizeof *p);
}

static unsigned online_cpus_(void) {
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (unsigned)n : 1;
}

static double now_(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

zkpipe_status zkp_dev_params_generate(zkp_dev_params *out, const zkp_cs_csr *r,
                                      const zkp_dev_params_options *opt, zkp_diag *diag) {
    static const zkp_dev_params_options defaults = {0};
    if (!opt) opt = &defaults;
    memset(out, 0, sizeof *out);
    if (!r || !r->finished || !(r->what & ZKP_CSR_MATRICES))
        return zkp_diag_fail(diag, ZKPIPE_ERR_INVALID_ARGUMENT,
                             "dev params: the constraint system is not finished or has no "
                             "matrices");
    double t0 = now_();
    unsigned log_n = zkp_bp_log_domain(r->n_rows);
    if (log_n > DEV_MAX_LOG || r->n_cols > UINT32_MAX - 1)
        return zkp_diag_fail(diag, ZKPIPE_ERR_OUT_OF_RANGE,
                             "dev params: %llu rows and %llu variables exceed a domain of 2^%d",
                             (unsigned long long)r->n_rows, (unsigned long long)r->n_cols,
                             DEV_MAX_LOG);
    unsigned nthreads = opt->nthreads ? opt->nthreads : online_cpus_();
    if (nthreads > ZKP_PARALLEL_MAX_THREADS) nthreads = ZKP_PARALLEL_MAX_THREADS;

    dev_ctx *c = calloc(1, sizeof *c);
    if (!c) return zkp_diag_fail(diag, ZKPIPE_ERR_NO_MEMORY, "dev params: out of memory");
    c->r = r;
    c->opt = opt;
    c->alloc = opt->alloc;
    c->n = 1ULL << log_n;
    c->rows = r->n_rows;
    c->cols = r->n_cols;
    c->n_in = r->cs.num_inputs;
    out->alloc = opt->alloc;
    out->log_domain = log_n;
    out->domain_size = (uint32_t)c->n;
    out->num_inputs = r->cs.num_inputs;
    out->num_aux = r->cs.num_aux;
    const zkp_allocator *al = opt->alloc;
    zkpipe_status st = ZKPIPE_OK;

    /* The toxic waste: ChaCha20 under the seed or under 32 fresh bytes. tau
     * must lie off the 2n-th roots of unity (for the Lagrange values and the
     * coset's), which a random tau misses but a test must not rely on. */
    uint8_t key[32];
    if (opt->seed)
        memcpy(key, opt->seed, sizeof key);
    else if ((st = zkp_random_bytes(key, sizeof key)) != ZKPIPE_OK) {
        free(c);
        return zkp_diag_fail(diag, st, "dev params: the OS random source failed");
    }
    zkp_chacha_rng rng;
    zkp_chacha_rng_init(&rng, key, 20);
    memset(key, 0, sizeof key);
    fr_t one, t, tau_n, tau_2n, seven, five;
    bls12_381_fr_set_one(&one);
    do {
        draw_(&c->tau, &rng);
        bls12_381_fr_pow(&tau_n, &c->tau, &c->n, 1);
        bls12_381_fr_sqr(&tau_2n, &tau_n);
    } while (bls12_381_fr_is_one(&tau_2n));
    draw_(&c->alpha, &rng);
    draw_(&c->beta, &rng);
    draw_(&c->gamma, &rng);
    draw_(&c->delta, &rng);
    memset(&rng, 0, sizeof rng);
    bls12_381_fr_inv_var(&c->inv_gamma, &c->gamma);
    bls12_381_fr_inv_var(&c->inv_delta, &c->delta);
    bls12_381_fr_sub(&c->ln_scale, &tau_n, &one);
    bls12_381_fr_mul(&c->hb_scale, &c->ln_scale, &c->inv_delta);
    bls12_381_fr_set_u64(&t, c->n);
    bls12_381_fr_inv_var(&t, &t);
    bls12_381_fr_mul(&c->ln_scale, &c->ln_scale, &t);
    bls12_381_fr_sub(&c->hc_scale, &tau_2n, &one);
    bls12_381_fr_set_u64(&t, 2 * c->n);
    bls12_381_fr_inv_var(&t, &t);
    bls12_381_fr_mul(&c->hc_scale, &c->hc_scale, &t);
    bls12_381_fr_mul(&c->hc_scale, &c->hc_scale, &c->inv_delta);
    bls12_381_fr_set_u64(&seven, 7);
    bls12_381_fr_set_u64(&five, 5);
    st = bls12_381_fr_ntt_root_from_generator(&c->omega, &seven, log_n);
    if (st == ZKPIPE_OK)
        st = bls12_381_fr_ntt_root_from_generator(&c->omega_2n_5, &five, log_n + 1);
    if (st != ZKPIPE_OK) {
        free(c);
        return zkp_diag_fail(diag, st, "dev params: no root of unity of order 2^%u", log_n + 1);
    }
    bls12_381_fr_sqr(&c->omega_2n_5_sq, &c->omega_2n_5);

    /* Memory: the outputs, then the working arrays. */
    int failed = 0;
    size_t cols = (size_t)c->cols, n_aux = (size_t)out->num_aux;
    out->vk.alloc = al;
    out->vk.n_ic = (uint32_t)c->n_in;
    out->vk.ic = get_(al, (size_t)c->n_in, sizeof(g1_t), ZKP_MEM_KEY, &failed);
    out->h = get_(al, (size_t)c->n - 1, sizeof(g1_t), ZKP_MEM_KEY, &failed);
    out->l = get_(al, n_aux, sizeof(g1_t), ZKP_MEM_KEY, &failed);
    out->a = get_(al, cols, sizeof(g1_t), ZKP_MEM_KEY, &failed);
    out->b_g1 = get_(al, cols, sizeof(g1_t), ZKP_MEM_KEY, &failed);
    out->b_g2 = get_(al, cols, sizeof(g2_t), ZKP_MEM_KEY, &failed);
    size_t n_coefs = 0;
    if (opt->prover_key) {
        n_coefs = zkp_cs_csr_key_coefs(r, NULL);
        out->pk.n_coefs = n_coefs;
        out->coefs = get_(al, n_coefs, sizeof *out->coefs, ZKP_MEM_KEY, &failed);
        out->h_coset = get_(al, (size_t)c->n, sizeof(g1_t), ZKP_MEM_KEY, &failed);
    }
    c->lag = get_(al, (size_t)c->rows, sizeof(fr_t), ZKP_MEM_SCRATCH, &failed);
    for (int m = 0; m < 3; m++) c->uvw[m] = get_(al, cols, sizeof(fr_t), ZKP_MEM_SCRATCH, &failed);

    /* The sections, in the order the threads take them (the G2 one early,
     * since its batches are the slowest). */
    const struct {
        int sec;
        size_t count;
        void *dst;
    } secs[SEC_COUNT] = {
        {SEC_B2, cols, out->b_g2},
        {SEC_H, (size_t)c->n - 1, out->h},
        {SEC_H_COSET, opt->prover_key ? (size_t)c->n : 0, out->h_coset},
        {SEC_A, cols, out->a},
        {SEC_B1, cols, out->b_g1},
        {SEC_IC, (size_t)c->n_in, out->vk.ic},
        {SEC_L, n_aux, out->l},
    };
    size_t g1_points = 6, g2_points = 3;
    for (int i = 0; i < SEC_COUNT; i++) {
        if (!secs[i].count) continue;
        c->sec[c->nsec].sec = secs[i].sec;
        c->sec[c->nsec].count = secs[i].count;
        c->sec[c->nsec].first_unit = c->nunits;
        c->dst[secs[i].sec] = secs[i].dst;
        c->nsec++;
        c->nunits += (secs[i].count + DEV_BATCH - 1) / DEV_BATCH;
        c->total += secs[i].count;
        if (secs[i].sec == SEC_B2)
            g2_points += secs[i].count;
        else
            g1_points += secs[i].count;
    }
    c->next_report = 0;
    if (!failed) st = bls12_381_g1_fb_table_init(&c->t1, g1_points, nthreads, al);
    if (!failed && st == ZKPIPE_OK)
        st = bls12_381_g2_fb_table_init(&c->t2, g2_points, nthreads, al);
    if (!failed && st == ZKPIPE_OK) {
        size_t fb1 = bls12_381_g1_fb_scratch_bytes(&c->t1, DEV_BATCH),
               fb2 = bls12_381_g2_fb_scratch_bytes(&c->t2, DEV_BATCH);
        size_t pts = 3 * DEV_BATCH * sizeof(fr_t) + (fb1 > fb2 ? fb1 : fb2);
        size_t lag = 2 * DEV_LCHUNK * sizeof(fr_t);
        c->scratch_per_thread = ((pts > lag ? pts : lag) + 63) & ~(size_t)63;
        c->scratch = get_(al, nthreads, c->scratch_per_thread, ZKP_MEM_SCRATCH, &failed);
    }
    if (failed || st != ZKPIPE_OK) {
        if (st == ZKPIPE_OK) st = ZKPIPE_ERR_NO_MEMORY;
        zkp_diag_fail(diag, st, "dev params: cannot allocate the arrays of %llu variables and a "
                      "domain of 2^%u", (unsigned long long)c->cols, log_n);
        goto done;
    }

    /* The columns at tau. */
    size_t lunits = (size_t)((c->rows + DEV_LCHUNK - 1) / DEV_LCHUNK);
    zkp_parallel_for(nthreads, lunits, lagrange_unit_, c);
    for (int m = 0; m < 3; m++) {
        const zkp_csr_matrix *mat = &r->m[m];
        fr_t *col = c->uvw[m];
        memset(col, 0, cols * sizeof *col);
        for (uint64_t i = 0; i < c->rows; i++)
            for (uint64_t e = mat->row_ptr[i]; e < mat->row_ptr[i + 1]; e++) {
                bls12_381_fr_mul(&t, &mat->val[e], &c->lag[i]);
                bls12_381_fr_add(&col[mat->col[e]], &col[mat->col[e]], &t);
            }
    }

    /* The six fixed points, then every section. */
    {
        fr_t k1[3], k2[3];
        bls12_381_fr_from_mont(&k1[0], &c->alpha);
        bls12_381_fr_from_mont(&k1[1], &c->beta);
        bls12_381_fr_from_mont(&k1[2], &c->delta);
        bls12_381_fr_from_mont(&k2[0], &c->beta);
        bls12_381_fr_from_mont(&k2[1], &c->gamma);
        bls12_381_fr_from_mont(&k2[2], &c->delta);
        g1_t g1[3];
        g2_t g2[3];
        void *fb = c->scratch + 3 * DEV_BATCH * sizeof(fr_t);
        bls12_381_g1_fb_eval(&c->t1, g1, k1[0].l, 3, DEV_BATCH, fb);
        bls12_381_g2_fb_eval(&c->t2, g2, k2[0].l, 3, DEV_BATCH, fb);
        out->vk.alpha_g1 = g1[0];
        out->vk.beta_g1 = g1[1];
        out->vk.delta_g1 = g1[2];
        out->vk.beta_g2 = g2[0];
        out->vk.gamma_g2 = g2[1];
        out->vk.delta_g2 = g2[2];
    }
    zkp_parallel_for(nthreads, c->nunits, points_unit_, c);
    if (opt->progress) opt->progress(opt->progress_ctx, c->total, c->total);

    /* bellperson refuses a circuit with an aux variable in no row: its l
     * would be the identity, and no proof could use the variable. */
    for (size_t j = 0; j < n_aux; j++)
        if (bls12_381_g1_affine_is_infinity(&out->l[j])) {
            st = zkp_diag_fail(diag, ZKPIPE_ERR_INVALID_ARGUMENT,
                               "dev params: aux variable %zu appears in no constraint "
                               "(bellperson's UnconstrainedVariable)", j);
            goto done;
        }

    if (opt->prover_key) {
        /* Each row where the prover's domain finds it (bp_key.h). */
        if (zkp_bp_key_coefs(r, log_n, out->coefs) != n_coefs) {
            st = zkp_diag_fail(diag, ZKPIPE_ERR_INVALID_ARGUMENT,
                               "dev params: the coefficients do not fit a key");
            goto done;
        }
        bls12_381_g16_pk_t *pk = &out->pk;
        pk->n_vars = (uint32_t)cols;
        pk->n_public = (uint32_t)(c->n_in - 1);
        pk->domain_size = (uint32_t)c->n;
        pk->log_domain = log_n;
        pk->alpha1 = out->vk.alpha_g1;
        pk->beta1 = out->vk.beta_g1;
        pk->delta1 = out->vk.delta_g1;
        pk->beta2 = out->vk.beta_g2;
        pk->gamma2 = out->vk.gamma_g2;
        pk->delta2 = out->vk.delta_g2;
        pk->ic = out->vk.ic;
        pk->coefs = out->coefs;
        pk->a = out->a;
        pk->b1 = out->b_g1;
        pk->b2 = out->b_g2;
        pk->c = out->l;
        pk->h = out->h_coset;
    }
    out->seconds = now_() - t0;

done:
    if (st != ZKPIPE_OK) zkp_dev_params_free(out);
    bls12_381_g1_fb_table_free(&c->t1, al);
    bls12_381_g2_fb_table_free(&c->t2, al);
    zkp_free(al, c->scratch, nthreads * c->scratch_per_thread, ZKP_MEM_SCRATCH);
    zkp_free(al, c->lag, (size_t)c->rows * sizeof(fr_t), ZKP_MEM_SCRATCH);
    for (int m = 0; m < 3; m++) zkp_free(al, c->uvw[m], cols * sizeof(fr_t), ZKP_MEM_SCRATCH);
    memset(c, 0, sizeof *c); /* the toxic waste */
    free(c);
    return st;
}

void zkp_dev_params_src(zkp_bp_params_src *src, const zkp_dev_params *p) {
    memset(src, 0, sizeof *src);
    src->vk = &p->vk;
    src->h = p->h;
    src->n_h = p->domain_size ? (size_t)p->domain_size - 1 : 0;
    src->l = p->l;
    src->n_l = (size_t)p->num_aux;
    src->a = p->a;
    src->b_g1 = p->b_g1;
    src->b_g2 = p->b_g2;
    src->n_vars = (size_t)(p->num_inputs + p->num_aux);
}

zkpipe_status zkp_dev_params_write(const zkp_dev_params *p, const char *params_path,
                                   const char *vk_path, const zkp_allocator *alloc,
                                   zkp_diag *diag) {
    zkp_bp_params_src src;
    zkp_dev_params_src(&src, p);
    size_t bytes = 0, vk_bytes = (size_t)zkp_bp_vk_bytes(p->vk.n_ic);
    zkpipe_status st = zkp_bp_params_size(&src, &bytes, diag);
    if (st != ZKPIPE_OK) return st;
    zkp_output outs[2];
    memset(outs, 0, sizeof outs);
    if ((st = zkp_output_open(&outs[0], params_path, diag)) != ZKPIPE_OK ||
        (st = zkp_output_open(&outs[1], vk_path, diag)) != ZKPIPE_OK) {
        zkp_output_close(&outs[0]);
        return st;
    }
    uint8_t *buf = NULL;
    if (zkp_output_same(&outs[0], &outs[1])) {
        st = zkp_diag_fail(diag, ZKPIPE_ERR_INVALID_ARGUMENT, "%s and %s are one file",
                           params_path, vk_path);
    } else if (!(buf = zkp_alloc(alloc, bytes, ZKP_MEM_SCRATCH))) {
        st = zkp_diag_fail(diag, ZKPIPE_ERR_NO_MEMORY, "%s: cannot allocate %zu bytes",
                           params_path, bytes);
    } else if ((st = zkp_bp_params_encode(buf, bytes, &src, diag)) != ZKPIPE_OK) {
        zkp_diag_prefix(diag, params_path);
    } else if ((st = zkp_output_stage(&outs[0], buf, bytes, diag)) == ZKPIPE_OK &&
               (st = zkp_output_stage(&outs[1], buf, vk_bytes, diag)) == ZKPIPE_OK) {
        /* The .vk is the start of the .params file. */
        st = zkp_output_commit(outs, 2, diag);
    }
    zkp_output_close(&outs[0]);
    zkp_output_close(&outs[1]);
    zkp_free(alloc, buf, bytes, ZKP_MEM_SCRATCH);
    return st;
}
