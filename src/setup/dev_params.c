/* INSECURE development parameters for a recorded circuit (dev_params.h).
 *
 * The order of work: draw the toxic waste; the Lagrange values L_i(tau)
 * of the rows (threaded chunks, one batch inversion each); the columns
 * u, v, w (one pass over the entries of each of A, B and C, the three
 * matrices on three threads); then every point section cut into batches
 * of DEV_BATCH scalars, each batch's scalars computed where it runs and
 * turned into points by the fixed-base tables: straight into the output
 * arrays (zkp_dev_params_generate), or serialized into a chunk of the file
 * that is written before the next chunk is made (zkp_dev_params_make_files),
 * so that the points of a 32 GiB sector's key never sit in memory. With a
 * GPU the sections go a chunk at a time instead: the chunk's scalars on
 * every thread, its points in one device call over the same tables
 * (gpu/gpu.h), then the serialization on every thread. */
#include "setup/dev_params.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "curve/curve.h"
#include "curve/encoding.h"
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
    /* With options.gpu: t1 and t2 on the device, and a chunk's scalars and
     * points on the host around each call (DEV_CHUNK of each; the points'
     * room is for G2's, the larger). */
    zkp_gpu_fixed_base *fb_gpu_g1, *fb_gpu_g2;
    fr_t *gpu_scalars;
    void *gpu_points;
    uint8_t *scratch;  /* per thread */
    size_t scratch_per_thread;
    void *dst[SEC_COUNT];
    struct {
        int sec;
        size_t count, first_unit;
    } sec[SEC_COUNT];
    size_t nsec, nunits;
    /* Streamed files hold a, b_g1 and b_g2 only for the nonzero columns:
     * map[sec][k] is the variable of the section's k-th point. */
    uint32_t *map[SEC_COUNT];
    size_t map_len[SEC_COUNT];
    /* The lowest aux variable whose l is the identity, UINT64_MAX if none. */
    _Atomic uint64_t unconstrained;
    _Atomic uint64_t done;
    uint64_t total, next_report;
    unsigned nthreads;
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

/* The scratch of one thread: the batch's scalars, the batch inversion's
 * two arrays, its points (for the streamed files), then the fixed-base
 * evaluation's own. */
typedef struct {
    fr_t *k, *den, *inv;
    void *pts, *fb;
} batch_scratch;

static batch_scratch scratch_of_(const dev_ctx *c, unsigned tid) {
    uint8_t *p = c->scratch + (size_t)tid * c->scratch_per_thread;
    batch_scratch b;
    b.k = (fr_t *)p;
    b.den = b.k + DEV_BATCH;
    b.inv = b.den + DEV_BATCH;
    b.pts = b.inv + DEV_BATCH;
    b.fb = (uint8_t *)b.pts + DEV_BATCH * sizeof(g2_t);
    return b;
}

/* The column of point i of section sec: i itself, or where the section
 * keeps only the nonzero columns, the i-th of them. */
static size_t column_(const dev_ctx *c, int sec, size_t i) {
    return c->map[sec] ? c->map[sec][i] : i;
}

static void note_unconstrained_(dev_ctx *c, uint64_t j) {
    uint64_t cur = atomic_load(&c->unconstrained);
    while (j < cur && !atomic_compare_exchange_weak(&c->unconstrained, &cur, j)) {
    }
}

/* The scalars of points lo .. lo + n of section sec (n <= DEV_BATCH) into
 * k, canonical. */
static void batch_scalars_(dev_ctx *c, const batch_scratch *b, int sec, size_t lo, size_t n,
                           fr_t *k) {
    fr_t *den = b->den, *inv = b->inv;
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
        for (size_t i = 0; i < n; i++) k[i] = c->uvw[0][column_(c, sec, lo + i)];
        break;
    case SEC_B1:
    case SEC_B2:
        for (size_t i = 0; i < n; i++) k[i] = c->uvw[1][column_(c, sec, lo + i)];
        break;
    case SEC_IC:
        for (size_t i = 0; i < n; i++) ext_(c, lo + i, &c->inv_gamma, &k[i]);
        break;
    default: /* SEC_L: the aux variables, after the inputs */
        for (size_t i = 0; i < n; i++) {
            ext_(c, c->n_in + lo + i, &c->inv_delta, &k[i]);
            /* bellperson refuses a circuit with an aux variable in no row:
             * its l would be the identity, and no proof could use it. */
            if (bls12_381_fr_is_zero(&k[i])) note_unconstrained_(c, lo + i);
        }
        break;
    }
    for (size_t i = 0; i < n; i++) bls12_381_fr_from_mont(&k[i], &k[i]);
}

/* Points lo .. lo + n of section sec (n <= DEV_BATCH) into dst, on the
 * CPU. */
static void batch_points_(dev_ctx *c, const batch_scratch *b, int sec, size_t lo, size_t n,
                          void *dst) {
    fr_t *k = b->k;
    batch_scalars_(c, b, sec, lo, n, k);
    if (sec == SEC_B2)
        bls12_381_g2_fb_eval(&c->t2, dst, k[0].l, n, DEV_BATCH, b->fb);
    else
        bls12_381_g1_fb_eval(&c->t1, dst, k[0].l, n, DEV_BATCH, b->fb);
}

static void count_done_(dev_ctx *c, unsigned tid, size_t n) {
    uint64_t done = atomic_fetch_add(&c->done, n) + n;
    /* Thread 0 is the caller's, so the callback runs on one thread only. */
    if (tid == 0 && c->opt->progress && done >= c->next_report) {
        c->opt->progress(c->opt->progress_ctx, done, c->total);
        c->next_report = done + c->total / 100 + 1;
    }
}

/* ---- Points on the GPU (options.gpu) */

/* Points per chunk of a section: made by every thread, serialized where
 * they are made, then written while no point waits in memory; on the GPU,
 * one device call. 2^19 G2 points are 96 MiB of file. */
#define DEV_CHUNK ((size_t)DEV_BATCH << 10)

typedef struct {
    dev_ctx *c;
    int sec;
    size_t first, count; /* points first .. first + count of the section */
} gpu_chunk_job;

static void gpu_scalars_unit_(void *arg, unsigned tid, size_t unit) {
    gpu_chunk_job *j = arg;
    size_t lo = unit * DEV_BATCH, n = j->count - lo < DEV_BATCH ? j->count - lo : DEV_BATCH;
    batch_scratch b = scratch_of_(j->c, tid);
    batch_scalars_(j->c, &b, j->sec, j->first + lo, n, j->c->gpu_scalars + lo);
}

/* Points first .. first + count (count <= DEV_CHUNK) of section sec into
 * dst: the scalars on every thread, the points in one device call. */
static zkpipe_status gpu_chunk_(dev_ctx *c, int sec, size_t first, size_t count, void *dst,
                                zkp_diag *diag) {
    gpu_chunk_job j = {c, sec, first, count};
    zkp_parallel_for(c->nthreads, (count + DEV_BATCH - 1) / DEV_BATCH, gpu_scalars_unit_, &j);
    const uint64_t *k = c->gpu_scalars[0].l;
    return sec == SEC_B2 ? bls12_381_g2_gpu_fixed_base_eval(c->fb_gpu_g2, dst, k, count, diag)
                         : bls12_381_g1_gpu_fixed_base_eval(c->fb_gpu_g1, dst, k, count, diag);
}

/* Both tables on the device and the host's chunk of scalars, with room for
 * a chunk's points where they are not made in place (after tables_and_vk_). */
static zkpipe_status gpu_begin_(dev_ctx *c, zkp_gpu *g, int points_room, zkp_diag *diag) {
    zkpipe_status st = bls12_381_g1_gpu_fixed_base_new(g, &c->fb_gpu_g1, c->t1.t, c->t1.w,
                                                       c->t1.nwin, diag);
    if (st == ZKPIPE_OK)
        st = bls12_381_g2_gpu_fixed_base_new(g, &c->fb_gpu_g2, c->t2.t, c->t2.w, c->t2.nwin,
                                             diag);
    if (st != ZKPIPE_OK) return st;
    if (!(c->gpu_scalars = zkp_alloc(c->alloc, DEV_CHUNK * sizeof(fr_t), ZKP_MEM_SCRATCH)) ||
        (points_room &&
         !(c->gpu_points = zkp_alloc(c->alloc, DEV_CHUNK * sizeof(g2_t), ZKP_MEM_SCRATCH))))
        return zkp_diag_fail(diag, ZKPIPE_ERR_NO_MEMORY, "dev params: out of memory");
    return ZKPIPE_OK;
}

/* The in-memory form on the CPU: every section's points in its output
 * array. */
static void points_unit_(void *arg, unsigned tid, size_t unit) {
    dev_ctx *c = arg;
    size_t s = 0;
    while (s + 1 < c->nsec && unit >= c->sec[s + 1].first_unit) s++;
    const int sec = c->sec[s].sec;
    const size_t lo = (unit - c->sec[s].first_unit) * DEV_BATCH;
    const size_t n = c->sec[s].count - lo < DEV_BATCH ? c->sec[s].count - lo : DEV_BATCH;
    const size_t elem = sec == SEC_B2 ? sizeof(g2_t) : sizeof(g1_t);
    batch_scratch b = scratch_of_(c, tid);
    batch_points_(c, &b, sec, lo, n, (uint8_t *)c->dst[sec] + lo * elem);
    count_done_(c, tid, n);
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

/* The columns at tau of matrix m: u, v or w (unit m of three). */
static void columns_unit_(void *arg, unsigned tid, size_t m) {
    (void)tid;
    dev_ctx *c = arg;
    const zkp_csr_matrix *mat = &c->r->m[m];
    fr_t *col = c->uvw[m], t;
    memset(col, 0, (size_t)c->cols * sizeof *col);
    for (uint64_t i = 0; i < c->rows; i++)
        for (uint64_t e = mat->row_ptr[i]; e < mat->row_ptr[i + 1]; e++) {
            bls12_381_fr_mul(&t, &mat->val[e], &c->lag[i]);
            bls12_381_fr_add(&col[mat->col[e]], &col[mat->col[e]], &t);
        }
}

/* The setup every form shares: checks r, draws the toxic waste, computes
 * the Lagrange values and the columns at tau. On failure c holds nothing
 * that release_ would not free. */
static zkpipe_status prepare_(dev_ctx *c, const zkp_cs_csr *r, const zkp_dev_params_options *opt,
                              zkp_diag *diag) {
    if (!r || !r->finished || !(r->what & ZKP_CSR_MATRICES))
        return zkp_diag_fail(diag, ZKPIPE_ERR_INVALID_ARGUMENT,
                             "dev params: the constraint system is not finished or has no "
                             "matrices");
    unsigned log_n = zkp_bp_log_domain(r->n_rows);
    if (log_n > DEV_MAX_LOG || r->n_cols > UINT32_MAX - 1)
        return zkp_diag_fail(diag, ZKPIPE_ERR_OUT_OF_RANGE,
                             "dev params: %llu rows and %llu variables exceed a domain of 2^%d",
                             (unsigned long long)r->n_rows, (unsigned long long)r->n_cols,
                             DEV_MAX_LOG);
    c->nthreads = opt->nthreads ? opt->nthreads : online_cpus_();
    if (c->nthreads > ZKP_PARALLEL_MAX_THREADS) c->nthreads = ZKP_PARALLEL_MAX_THREADS;
    c->r = r;
    c->opt = opt;
    c->alloc = opt->alloc;
    c->n = 1ULL << log_n;
    c->rows = r->n_rows;
    c->cols = r->n_cols;
    c->n_in = r->cs.num_inputs;
    atomic_store(&c->unconstrained, UINT64_MAX);

    /* The toxic waste: ChaCha20 under the seed or under 32 fresh bytes. tau
     * must lie off the 2n-th roots of unity (for the Lagrange values and the
     * coset's), which a random tau misses but a test must not rely on. */
    uint8_t key[32];
    zkpipe_status st;
    if (opt->seed)
        memcpy(key, opt->seed, sizeof key);
    else if ((st = zkp_random_bytes(key, sizeof key)) != ZKPIPE_OK)
        return zkp_diag_fail(diag, st, "dev params: the OS random source failed");
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
    if (st != ZKPIPE_OK)
        return zkp_diag_fail(diag, st, "dev params: no root of unity of order 2^%u", log_n + 1);
    bls12_381_fr_sqr(&c->omega_2n_5_sq, &c->omega_2n_5);

    int failed = 0;
    size_t lag_scratch = 2 * DEV_LCHUNK * sizeof(fr_t);
    c->lag = get_(c->alloc, (size_t)c->rows, sizeof(fr_t), ZKP_MEM_SCRATCH, &failed);
    for (int m = 0; m < 3; m++)
        c->uvw[m] = get_(c->alloc, (size_t)c->cols, sizeof(fr_t), ZKP_MEM_SCRATCH, &failed);
    c->scratch = get_(c->alloc, c->nthreads, lag_scratch, ZKP_MEM_SCRATCH, &failed);
    c->scratch_per_thread = lag_scratch;
    if (failed)
        return zkp_diag_fail(diag, ZKPIPE_ERR_NO_MEMORY,
                             "dev params: cannot allocate the arrays of %llu variables and a "
                             "domain of 2^%u",
                             (unsigned long long)c->cols, log_n);
    size_t lunits = (size_t)((c->rows + DEV_LCHUNK - 1) / DEV_LCHUNK);
    zkp_parallel_for(c->nthreads, lunits, lagrange_unit_, c);
    zkp_parallel_for(c->nthreads < 3 ? c->nthreads : 3, 3, columns_unit_, c);
    /* Only the columns are needed from here on. */
    zkp_free(c->alloc, c->lag, (size_t)c->rows * sizeof(fr_t), ZKP_MEM_SCRATCH);
    c->lag = NULL;
    zkp_free(c->alloc, c->scratch, c->nthreads * lag_scratch, ZKP_MEM_SCRATCH);
    c->scratch = NULL;
    c->scratch_per_thread = 0;
    return ZKPIPE_OK;
}

/* The fixed-base tables for g1_points and g2_points points, each thread's
 * batch scratch, the six fixed points of the verifying key and its ic
 * (into vk, whose ic is allocated here). */
static zkpipe_status tables_and_vk_(dev_ctx *c, size_t g1_points, size_t g2_points, zkp_bp_vk *vk,
                                    zkp_diag *diag) {
    const zkp_allocator *al = c->alloc;
    zkpipe_status st = bls12_381_g1_fb_table_init(&c->t1, g1_points + 3 + c->n_in, c->nthreads, al);
    if (st == ZKPIPE_OK) st = bls12_381_g2_fb_table_init(&c->t2, g2_points + 3, c->nthreads, al);
    int failed = 0;
    if (st == ZKPIPE_OK) {
        size_t fb1 = bls12_381_g1_fb_scratch_bytes(&c->t1, DEV_BATCH),
               fb2 = bls12_381_g2_fb_scratch_bytes(&c->t2, DEV_BATCH);
        size_t bytes = 3 * DEV_BATCH * sizeof(fr_t) + DEV_BATCH * sizeof(g2_t) +
                       (fb1 > fb2 ? fb1 : fb2);
        c->scratch_per_thread = (bytes + 63) & ~(size_t)63;
        c->scratch = get_(al, c->nthreads, c->scratch_per_thread, ZKP_MEM_SCRATCH, &failed);
        vk->alloc = al;
        vk->n_ic = (uint32_t)c->n_in;
        vk->ic = get_(al, (size_t)c->n_in, sizeof(g1_t), ZKP_MEM_KEY, &failed);
    }
    if (failed || st != ZKPIPE_OK)
        return zkp_diag_fail(diag, st == ZKPIPE_OK ? ZKPIPE_ERR_NO_MEMORY : st,
                             "dev params: cannot allocate the fixed-base tables");
    fr_t k1[3], k2[3];
    bls12_381_fr_from_mont(&k1[0], &c->alpha);
    bls12_381_fr_from_mont(&k1[1], &c->beta);
    bls12_381_fr_from_mont(&k1[2], &c->delta);
    bls12_381_fr_from_mont(&k2[0], &c->beta);
    bls12_381_fr_from_mont(&k2[1], &c->gamma);
    bls12_381_fr_from_mont(&k2[2], &c->delta);
    g1_t g1[3];
    g2_t g2[3];
    batch_scratch b = scratch_of_(c, 0);
    bls12_381_g1_fb_eval(&c->t1, g1, k1[0].l, 3, DEV_BATCH, b.fb);
    bls12_381_g2_fb_eval(&c->t2, g2, k2[0].l, 3, DEV_BATCH, b.fb);
    vk->alpha_g1 = g1[0];
    vk->beta_g1 = g1[1];
    vk->delta_g1 = g1[2];
    vk->beta_g2 = g2[0];
    vk->gamma_g2 = g2[1];
    vk->delta_g2 = g2[2];
    for (size_t lo = 0; lo < c->n_in; lo += DEV_BATCH) {
        size_t n = c->n_in - lo < DEV_BATCH ? (size_t)c->n_in - lo : DEV_BATCH;
        batch_points_(c, &b, SEC_IC, lo, n, vk->ic + lo);
    }
    return ZKPIPE_OK;
}

static zkpipe_status unconstrained_(const dev_ctx *c, zkp_diag *diag) {
    uint64_t j = atomic_load(&c->unconstrained);
    if (j == UINT64_MAX) return ZKPIPE_OK;
    return zkp_diag_fail(diag, ZKPIPE_ERR_INVALID_ARGUMENT,
                         "dev params: aux variable %llu appears in no constraint "
                         "(bellperson's UnconstrainedVariable)",
                         (unsigned long long)j);
}

/* Frees what prepare_ and the forms allocated, and wipes the toxic waste. */
static void release_(dev_ctx *c) {
    const zkp_allocator *al = c->alloc;
    bls12_381_g1_fb_table_free(&c->t1, al);
    bls12_381_g2_fb_table_free(&c->t2, al);
    zkp_gpu_fixed_base_free(c->fb_gpu_g1);
    zkp_gpu_fixed_base_free(c->fb_gpu_g2);
    zkp_free(al, c->gpu_scalars, DEV_CHUNK * sizeof(fr_t), ZKP_MEM_SCRATCH);
    zkp_free(al, c->gpu_points, DEV_CHUNK * sizeof(g2_t), ZKP_MEM_SCRATCH);
    zkp_free(al, c->scratch, c->nthreads * c->scratch_per_thread, ZKP_MEM_SCRATCH);
    zkp_free(al, c->lag, (size_t)c->rows * sizeof(fr_t), ZKP_MEM_SCRATCH);
    for (int m = 0; m < 3; m++)
        zkp_free(al, c->uvw[m], (size_t)c->cols * sizeof(fr_t), ZKP_MEM_SCRATCH);
    for (int s = 0; s < SEC_COUNT; s++)
        zkp_free(al, c->map[s], c->map_len[s] * sizeof(uint32_t), ZKP_MEM_SCRATCH);
    memset(c, 0, sizeof *c); /* the toxic waste */
    free(c);
}

zkpipe_status zkp_dev_params_generate(zkp_dev_params *out, const zkp_cs_csr *r,
                                      const zkp_dev_params_options *opt, zkp_diag *diag) {
    static const zkp_dev_params_options defaults = {0};
    if (!opt) opt = &defaults;
    memset(out, 0, sizeof *out);
    double t0 = now_();
    dev_ctx *c = calloc(1, sizeof *c);
    if (!c) return zkp_diag_fail(diag, ZKPIPE_ERR_NO_MEMORY, "dev params: out of memory");
    zkpipe_status st = prepare_(c, r, opt, diag);
    if (st != ZKPIPE_OK) goto done;
    out->alloc = opt->alloc;
    out->log_domain = zkp_bp_log_domain(r->n_rows);
    out->domain_size = (uint32_t)c->n;
    out->num_inputs = r->cs.num_inputs;
    out->num_aux = r->cs.num_aux;
    const zkp_allocator *al = opt->alloc;

    int failed = 0;
    size_t cols = (size_t)c->cols, n_aux = (size_t)out->num_aux;
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
    if (failed) {
        st = zkp_diag_fail(diag, ZKPIPE_ERR_NO_MEMORY,
                           "dev params: cannot allocate the points of %llu variables and a "
                           "domain of 2^%u",
                           (unsigned long long)c->cols, out->log_domain);
        goto done;
    }

    /* The sections, in the order the threads take them (the G2 one early,
     * since its batches are the slowest). */
    const struct {
        int sec;
        size_t count;
        void *dst;
    } secs[] = {
        {SEC_B2, cols, out->b_g2},
        {SEC_H, (size_t)c->n - 1, out->h},
        {SEC_H_COSET, opt->prover_key ? (size_t)c->n : 0, out->h_coset},
        {SEC_A, cols, out->a},
        {SEC_B1, cols, out->b_g1},
        {SEC_L, n_aux, out->l},
    };
    size_t g1_points = 0, g2_points = 0;
    for (size_t i = 0; i < sizeof secs / sizeof secs[0]; i++) {
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
    if ((st = tables_and_vk_(c, g1_points, g2_points, &out->vk, diag)) != ZKPIPE_OK) goto done;
    if (opt->gpu) {
        if ((st = gpu_begin_(c, opt->gpu, 0, diag)) != ZKPIPE_OK) goto done;
        for (size_t s = 0; s < c->nsec && st == ZKPIPE_OK; s++) {
            const int sec = c->sec[s].sec;
            const size_t count = c->sec[s].count;
            const size_t elem = sec == SEC_B2 ? sizeof(g2_t) : sizeof(g1_t);
            for (size_t first = 0; first < count && st == ZKPIPE_OK; first += DEV_CHUNK) {
                size_t n = count - first < DEV_CHUNK ? count - first : DEV_CHUNK;
                st = gpu_chunk_(c, sec, first, n, (uint8_t *)c->dst[sec] + first * elem, diag);
                if (st == ZKPIPE_OK) count_done_(c, 0, n);
            }
        }
        if (st != ZKPIPE_OK) goto done;
    } else {
        zkp_parallel_for(c->nthreads, c->nunits, points_unit_, c);
    }
    if (opt->progress) opt->progress(opt->progress_ctx, c->total, c->total);
    if ((st = unconstrained_(c, diag)) != ZKPIPE_OK) goto done;

    if (opt->prover_key) {
        /* Each row where the prover's domain finds it (bp_key.h). */
        if (zkp_bp_key_coefs(r, out->log_domain, out->coefs) != n_coefs) {
            st = zkp_diag_fail(diag, ZKPIPE_ERR_INVALID_ARGUMENT,
                               "dev params: the coefficients do not fit a key");
            goto done;
        }
        bls12_381_g16_pk_t *pk = &out->pk;
        pk->n_vars = (uint32_t)cols;
        pk->n_public = (uint32_t)(c->n_in - 1);
        pk->domain_size = (uint32_t)c->n;
        pk->log_domain = out->log_domain;
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
    release_(c);
    return st;
}

/* ---- the files, written as they are made */

typedef struct {
    dev_ctx *c;
    int sec;
    size_t first, count; /* this chunk: points first .. first + count of the section */
    uint8_t *bytes;      /* count serialized points */
} chunk_job;

/* Points lo .. lo + n of the chunk, from pts, into the chunk's bytes. */
static void serialize_(const chunk_job *j, unsigned tid, size_t lo, size_t n, const void *pts) {
    for (size_t i = 0; i < n; i++) {
        if (j->sec == SEC_B2)
            bls12_381_g2_affine_serialize(j->bytes + (lo + i) * ZKP_BP_G2_BYTES,
                                          (const g2_t *)pts + i);
        else
            bls12_381_g1_affine_serialize(j->bytes + (lo + i) * ZKP_BP_G1_BYTES,
                                          (const g1_t *)pts + i);
    }
    count_done_(j->c, tid, n);
}

static void chunk_unit_(void *arg, unsigned tid, size_t unit) {
    chunk_job *j = arg;
    dev_ctx *c = j->c;
    size_t lo = unit * DEV_BATCH, n = j->count - lo < DEV_BATCH ? j->count - lo : DEV_BATCH;
    batch_scratch b = scratch_of_(c, tid);
    batch_points_(c, &b, j->sec, j->first + lo, n, b.pts);
    serialize_(j, tid, lo, n, b.pts);
}

/* The same for a chunk whose points the GPU made (c->gpu_points). */
static void serialize_unit_(void *arg, unsigned tid, size_t unit) {
    chunk_job *j = arg;
    size_t lo = unit * DEV_BATCH, n = j->count - lo < DEV_BATCH ? j->count - lo : DEV_BATCH;
    size_t elem = j->sec == SEC_B2 ? sizeof(g2_t) : sizeof(g1_t);
    serialize_(j, tid, lo, n, (const uint8_t *)j->c->gpu_points + lo * elem);
}

typedef struct {
    dev_ctx *c;
    const zkp_bp_vk *vk;
    const size_t *counts; /* per bellperson section */
    uint8_t *bytes[2];    /* each DEV_CHUNK G2 points, or the vk */
} files_job;

/* The file's chunks are written on a thread of their own while the next
 * chunk is made into the other buffer, so the writing no longer adds its
 * whole time to the making (most where a GPU makes the points). One write
 * is in flight at a time, in the file's order. */
typedef struct {
    int fd;
    const char *path;
    pthread_mutex_t lk;
    pthread_cond_t cv;
    const uint8_t *data; /* the write in flight, NULL when none */
    size_t len;
    int stop, threaded;
    zkpipe_status st; /* the first failed write's, with its message */
    zkp_diag diag;
    pthread_t thread;
} bg_writer;

static void *bg_writer_main_(void *arg) {
    bg_writer *w = arg;
    pthread_mutex_lock(&w->lk);
    for (;;) {
        while (!w->data && !w->stop) pthread_cond_wait(&w->cv, &w->lk);
        if (!w->data) break;
        zkpipe_status st = w->st;
        pthread_mutex_unlock(&w->lk);
        zkp_diag d = {{0}};
        if (st == ZKPIPE_OK) st = zkp_write_fd(w->fd, w->data, w->len, w->path, &d);
        pthread_mutex_lock(&w->lk);
        if (st != ZKPIPE_OK && w->st == ZKPIPE_OK) {
            w->st = st;
            w->diag = d;
        }
        w->data = NULL;
        pthread_cond_broadcast(&w->cv);
    }
    pthread_mutex_unlock(&w->lk);
    return NULL;
}

static void bg_start_(bg_writer *w, int fd, const char *path) {
    memset(w, 0, sizeof *w);
    w->fd = fd;
    w->path = path;
    pthread_mutex_init(&w->lk, NULL);
    pthread_cond_init(&w->cv, NULL);
    /* Without a thread every write is made where it is asked for. */
    w->threaded = pthread_create(&w->thread, NULL, bg_writer_main_, w) == 0;
}

/* Waits for the write in flight; the status of every write so far. */
static zkpipe_status bg_wait_(bg_writer *w, zkp_diag *diag) {
    pthread_mutex_lock(&w->lk);
    while (w->data) pthread_cond_wait(&w->cv, &w->lk);
    zkpipe_status st = w->st;
    if (st != ZKPIPE_OK && diag) *diag = w->diag;
    pthread_mutex_unlock(&w->lk);
    return st;
}

/* Writes data[0..len) after the write in flight; data must stay as it is
 * until the next bg_wait_ returns. */
static zkpipe_status bg_write_(bg_writer *w, const uint8_t *data, size_t len, zkp_diag *diag) {
    zkpipe_status st = bg_wait_(w, diag);
    if (st != ZKPIPE_OK || !w->threaded) {
        return st == ZKPIPE_OK ? zkp_write_fd(w->fd, data, len, w->path, diag) : st;
    }
    pthread_mutex_lock(&w->lk);
    w->data = data;
    w->len = len;
    pthread_cond_broadcast(&w->cv);
    pthread_mutex_unlock(&w->lk);
    return ZKPIPE_OK;
}

/* Waits for the last write, ends the thread; its status, or st if that
 * failed first. */
static zkpipe_status bg_finish_(bg_writer *w, zkpipe_status st, zkp_diag *diag) {
    zkpipe_status wst = bg_wait_(w, st == ZKPIPE_OK ? diag : NULL);
    if (w->threaded) {
        pthread_mutex_lock(&w->lk);
        w->stop = 1;
        pthread_cond_broadcast(&w->cv);
        pthread_mutex_unlock(&w->lk);
        pthread_join(w->thread, NULL);
    }
    pthread_cond_destroy(&w->cv);
    pthread_mutex_destroy(&w->lk);
    return st != ZKPIPE_OK ? st : wst;
}

static const int file_order_[ZKP_BP_SECTION_COUNT] = {SEC_H, SEC_L, SEC_A, SEC_B1, SEC_B2};

static zkpipe_status write_params_(void *ctx, int fd, const char *path, zkp_diag *diag) {
    files_job *f = ctx;
    dev_ctx *c = f->c;
    bg_writer w;
    bg_start_(&w, fd, path);
    unsigned k = 0; /* chunks handed to the writer: the next goes to bytes[k & 1] */
    size_t vk_bytes = (size_t)zkp_bp_vk_bytes(f->vk->n_ic);
    zkpipe_status st = zkp_bp_vk_encode(f->bytes[k & 1], vk_bytes, f->vk, diag);
    if (st == ZKPIPE_OK) st = bg_write_(&w, f->bytes[k++ & 1], vk_bytes, diag);
    for (int s = 0; s < ZKP_BP_SECTION_COUNT && st == ZKPIPE_OK; s++) {
        const int sec = file_order_[s];
        const size_t count = f->counts[s], elem = sec == SEC_B2 ? ZKP_BP_G2_BYTES : ZKP_BP_G1_BYTES;
        uint8_t len[ZKP_BP_COUNT_BYTES];
        zkp_bp_put_count(len, (uint32_t)count);
        if ((st = bg_wait_(&w, diag)) == ZKPIPE_OK)
            st = zkp_write_fd(fd, len, sizeof len, path, diag);
        for (size_t first = 0; first < count && st == ZKPIPE_OK; first += DEV_CHUNK) {
            chunk_job j = {c, sec, first, count - first < DEV_CHUNK ? count - first : DEV_CHUNK,
                           f->bytes[k & 1]};
            size_t units = (j.count + DEV_BATCH - 1) / DEV_BATCH;
            if (c->fb_gpu_g1) {
                if ((st = gpu_chunk_(c, sec, first, j.count, c->gpu_points, diag)) != ZKPIPE_OK)
                    break;
                zkp_parallel_for(c->nthreads, units, serialize_unit_, &j);
            } else {
                zkp_parallel_for(c->nthreads, units, chunk_unit_, &j);
            }
            if (sec == SEC_L && (st = unconstrained_(c, diag)) != ZKPIPE_OK) break;
            st = bg_write_(&w, f->bytes[k++ & 1], j.count * elem, diag);
        }
    }
    return bg_finish_(&w, st, diag);
}

/* The nonzero columns of uvw[m] into c->map[sec]; their count. */
static int map_nonzero_(dev_ctx *c, int sec, int m) {
    size_t k = 0;
    for (uint64_t j = 0; j < c->cols; j++) k += !bls12_381_fr_is_zero(&c->uvw[m][j]);
    c->map_len[sec] = k;
    if (!k) return 0;
    if (!(c->map[sec] = zkp_alloc(c->alloc, k * sizeof(uint32_t), ZKP_MEM_SCRATCH))) return -1;
    k = 0;
    for (uint64_t j = 0; j < c->cols; j++)
        if (!bls12_381_fr_is_zero(&c->uvw[m][j])) c->map[sec][k++] = (uint32_t)j;
    return 0;
}

zkpipe_status zkp_dev_params_make_files(const zkp_cs_csr *r, const zkp_dev_params_options *opt,
                                        const char *params_path, const char *vk_path,
                                        zkp_dev_params_made *made, zkp_diag *diag) {
    static const zkp_dev_params_options defaults = {0};
    if (!opt) opt = &defaults;
    if (made) memset(made, 0, sizeof *made);
    double t0 = now_();
    zkp_output outs[2];
    memset(outs, 0, sizeof outs);
    zkpipe_status st;
    if ((st = zkp_output_open(&outs[0], params_path, diag)) != ZKPIPE_OK ||
        (st = zkp_output_open(&outs[1], vk_path, diag)) != ZKPIPE_OK) {
        zkp_output_close(&outs[0]);
        return st;
    }
    if (zkp_output_same(&outs[0], &outs[1])) {
        zkp_output_close(&outs[0]);
        zkp_output_close(&outs[1]);
        return zkp_diag_fail(diag, ZKPIPE_ERR_INVALID_ARGUMENT, "%s and %s are one file",
                             params_path, vk_path);
    }
    zkp_bp_vk vk;
    memset(&vk, 0, sizeof vk);
    uint8_t *bytes = NULL;
    size_t nbytes = 0;
    dev_ctx *c = calloc(1, sizeof *c);
    if (!c) {
        st = zkp_diag_fail(diag, ZKPIPE_ERR_NO_MEMORY, "dev params: out of memory");
        goto done;
    }
    if ((st = prepare_(c, r, opt, diag)) != ZKPIPE_OK) goto done;
    if (map_nonzero_(c, SEC_A, 0) != 0 || map_nonzero_(c, SEC_B1, 1) != 0) {
        st = zkp_diag_fail(diag, ZKPIPE_ERR_NO_MEMORY, "dev params: out of memory");
        goto done;
    }
    /* b_g2 has b_g1's columns: share the map (release_ frees it once).
     * prepare_ bounds the domain by 2^31 and the variables by 2^32 - 1, so
     * every count fits bellperson's u32. */
    size_t counts[ZKP_BP_SECTION_COUNT] = {(size_t)c->n - 1, (size_t)r->cs.num_aux,
                                           c->map_len[SEC_A], c->map_len[SEC_B1],
                                           c->map_len[SEC_B1]};
    for (int s = 0; s < ZKP_BP_SECTION_COUNT; s++) c->total += counts[s];
    if ((st = tables_and_vk_(c, counts[0] + counts[1] + counts[2] + counts[3], counts[4], &vk,
                             diag)) != ZKPIPE_OK)
        goto done;
    if (opt->gpu && (st = gpu_begin_(c, opt->gpu, 1, diag)) != ZKPIPE_OK) goto done;
    size_t vk_bytes = (size_t)zkp_bp_vk_bytes(vk.n_ic);
    nbytes = DEV_CHUNK * ZKP_BP_G2_BYTES > vk_bytes ? DEV_CHUNK * ZKP_BP_G2_BYTES : vk_bytes;
    if (!(bytes = zkp_alloc(opt->alloc, 2 * nbytes, ZKP_MEM_SCRATCH))) {
        st = zkp_diag_fail(diag, ZKPIPE_ERR_NO_MEMORY, "dev params: out of memory");
        goto done;
    }
    c->map[SEC_B2] = c->map[SEC_B1];
    files_job f = {c, &vk, counts, {bytes, bytes + nbytes}};
    st = zkp_output_stage_stream(&outs[0], write_params_, &f, diag);
    c->map[SEC_B2] = NULL;
    if (opt->progress && st == ZKPIPE_OK) opt->progress(opt->progress_ctx, c->total, c->total);
    /* The .vk is the start of the .params file. */
    if (st == ZKPIPE_OK && (st = zkp_bp_vk_encode(bytes, vk_bytes, &vk, diag)) == ZKPIPE_OK &&
        (st = zkp_output_stage(&outs[1], bytes, vk_bytes, diag)) == ZKPIPE_OK)
        st = zkp_output_commit(outs, 2, diag);
    if (st == ZKPIPE_OK && made) {
        made->log_domain = zkp_bp_log_domain(r->n_rows);
        for (int s = 0; s < ZKP_BP_SECTION_COUNT; s++) made->points[s] = counts[s];
        made->seconds = now_() - t0;
    }
done:
    zkp_output_close(&outs[0]);
    zkp_output_close(&outs[1]);
    zkp_free(opt->alloc, bytes, 2 * nbytes, ZKP_MEM_SCRATCH);
    zkp_bp_vk_free(&vk);
    if (c) release_(c);
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
