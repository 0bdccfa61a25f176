/* Generic Groth16 over one pairing curve: the code. Included once per curve,
 * after groth16_impl.h and groth16/backend.h, with the same macros. See groth16.h for the
 * conventions this follows. */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "msm/msm.h"
#include "ntt/ntt.h"
#include "util/parallel.h"
#include "util/rand.h"

#define G16_FN(op) ZKP_CAT(ZKP_CAT(G16_CURVE, _g16_), op)
#define G16_T(name) ZKP_CAT(ZKP_CAT(G16_CURVE, _g16_), name)
#define G16_G1A ZKP_CAT(G16_G1, _affine_t)
#define G16_G2A ZKP_CAT(G16_G2, _affine_t)
#define G16_G1J ZKP_CAT(G16_G1, _jacobian_t)
#define G16_G2J ZKP_CAT(G16_G2, _jacobian_t)
#define G16_FRT ZKP_CAT(G16_FR, _t)
#define G1_(op) ZKP_CAT(ZKP_CAT(G16_G1, _), op)
#define G2_(op) ZKP_CAT(ZKP_CAT(G16_G2, _), op)
#define FR_(op) ZKP_CAT(ZKP_CAT(G16_FR, _), op)
#define NTT_(op) ZKP_CAT(ZKP_CAT(G16_FR, _ntt_), op)
#define PR_(op) ZKP_CAT(ZKP_CAT(G16_CURVE, _), op)
#define G16_FR_BITS ZKP_CAT(G16_FR_PARAM, _BITS)
#define G16_FR_TWO_ADICITY ZKP_CAT(G16_FR_PARAM, _TWO_ADICITY)

/* Both scalar fields fit four limbs, the layout of .wtns values and of the
 * MSM scalars. */
_Static_assert(sizeof(G16_FRT) == 4 * sizeof(uint64_t), "scalar field of four limbs");

struct G16_T(pending_s) {
    const G16_T(pk_t) *pk;
    zkp_buffer witness; /* n_vars canonical scalars */
    zkp_g16_prove_opts opts;
    unsigned nthreads;
    G16_G1J a, b1, c; /* c already holds the L and H sums */
    G16_G2J b2;
    int b2_done; /* the backend ran the B2 MSM in prove_start (backend.h) */
    int on_device; /* prove_start ran on a device: finalize's scratch is the B2 MSM's alone */
    zkp_g16_timings timings;
};

static double G16_FN(now_)(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Stage bookkeeping shared by both halves: checks for cancellation, reports
 * progress and charges the elapsed time to the stage that just ended. */
typedef struct {
    zkp_g16_timings *timings;
    const zkp_g16_prove_opts *opts;
    int stage; /* -1 before the first */
    double since;
} G16_T(clock_t);

static zkpipe_status G16_FN(enter_)(G16_T(clock_t) *ck, zkp_g16_stage next, zkp_diag *diag) {
    double t = G16_FN(now_)();
    if (ck->stage >= 0) ck->timings->seconds[ck->stage] += t - ck->since;
    ck->since = t;
    ck->stage = (int)next;
    if (ck->opts->cancel && atomic_load_explicit(ck->opts->cancel, memory_order_relaxed))
        return zkp_diag_fail(diag, ZKPIPE_ERR_CANCELLED, "cancelled before stage \"%s\"",
                             zkp_g16_stage_label(next));
    if (ck->opts->progress) ck->opts->progress(ck->opts->progress_ctx, next);
    return ZKPIPE_OK;
}

static void G16_FN(leave_)(G16_T(clock_t) *ck) {
    if (ck->stage >= 0) ck->timings->seconds[ck->stage] += G16_FN(now_)() - ck->since;
    ck->stage = -1;
}

/* The primitive 2^log_n-th root of unity of snarkjs's family (powers of
 * 5^((r-1)/2^S)); for bn254_fr that is the field's own. */
static zkpipe_status G16_FN(snarkjs_root_)(G16_FRT *root, unsigned log_n) {
    G16_FRT five;
    FR_(set_u64)(&five, 5);
    return NTT_(root_from_generator)(root, &five, log_n);
}

/* snarkjs's coset shift for a domain of 2^log_n points: w_{2n}, or 5^2
 * when 2n exceeds the 2-adicity (ffjavascript's Fr.shift). */
static zkpipe_status G16_FN(coset_shift_)(G16_FRT *g, unsigned log_n) {
    if (log_n >= G16_FR_TWO_ADICITY) {
        FR_(set_u64)(g, 25);
        return ZKPIPE_OK;
    }
    return G16_FN(snarkjs_root_)(g, log_n + 1);
}

/* p = p / Z with Z = g^n - 1, the vanishing polynomial on the coset g·H:
 * the H sum of a key in the coefficient basis, whose scalars were h's
 * coefficients times Z (groth16.h: H). */
static void G16_FN(divide_by_z_)(G16_G1J *p, const G16_FRT *g, unsigned log_n) {
    G16_FRT z, one;
    uint64_t n = (uint64_t)1 << log_n;
    FR_(pow)(&z, g, &n, 1);
    FR_(set_one)(&one);
    FR_(sub)(&z, &z, &one);
    FR_(inv_var)(&z, &z);
    FR_(from_mont)(&z, &z);
    G1_(mul_var)(p, p, z.l, 256);
}

/* a_i and b_i from the coefficient section, c_i = a_i b_i. The witness is
 * canonical and each coefficient carries an extra R, so one Montgomery
 * product gives coef·w in Montgomery form (see coef_t). */
static void G16_FN(synthesize_)(G16_FRT *a, G16_FRT *b, G16_FRT *c, const G16_T(pk_t) *pk,
                                const G16_FRT *w) {
    size_t n = pk->domain_size;
    memset(a, 0, n * sizeof *a);
    memset(b, 0, n * sizeof *b);
    for (size_t k = 0; k < pk->n_coefs; k++) {
        const G16_T(coef_t) *e = &pk->coefs[k];
        G16_FRT t;
        FR_(mul)(&t, &e->value, &w[e->signal]);
        G16_FRT *row = e->matrix == 0 ? &a[e->constraint] : &b[e->constraint];
        FR_(add)(row, row, &t);
    }
    for (size_t i = 0; i < n; i++) FR_(mul)(&c[i], &a[i], &b[i]);
}

/* Evaluations over the domain to evaluations over the coset g·H, in place:
 * interpolate to bit-reversed coefficients, then evaluate on the coset back
 * to natural order, with no permutation pass (see ntt.h). */
static zkpipe_status G16_FN(to_coset_)(const ZKP_CAT(G16_FR, _ntt_domain_t) * dom, G16_FRT *v,
                                       const G16_FRT *g, unsigned nthreads) {
    zkpipe_status s = NTT_(transform)(dom, v, dom->n, ZKP_NTT_INVERSE_NR, NULL, nthreads);
    if (s != ZKPIPE_OK) return s;
    return NTT_(transform)(dom, v, dom->n, ZKP_NTT_FORWARD_RN, g, nthreads);
}

/* The elementwise steps of the H step, as canonical MSM scalars over a, in
 * ranges of this many elements spread over the threads:
 *   H_EVALS       a_j = a_j b_j - c_j, h's values on the coset;
 *   H_PRODUCT     a_j = a_j b_j, AB's values on the coset;
 *   H_DIFFERENCE  a_j = a_j - c_j with c in Montgomery form and a already
 *                 canonical: the coefficients of AB mod (x^n - g^n) less
 *                 those of C (G16_FN(cpu_h_scalars) says why). */
#define G16_H_UNIT_ 4096

#define G16_H_EVALS_ 0
#define G16_H_PRODUCT_ 1
#define G16_H_DIFFERENCE_ 2

typedef struct {
    G16_FRT *a;
    const G16_FRT *b, *c;
    size_t n;
    int step;
} G16_T(h_ctx_);

static void G16_FN(h_unit_)(void *arg, unsigned tid, size_t unit) {
    G16_T(h_ctx_) *x = arg;
    (void)tid;
    size_t lo = unit * G16_H_UNIT_, hi = lo + G16_H_UNIT_ < x->n ? lo + G16_H_UNIT_ : x->n;
    for (size_t i = lo; i < hi; i++) {
        G16_FRT h;
        if (x->step == G16_H_DIFFERENCE_) {
            FR_(from_mont)(&h, &x->c[i]);
            FR_(sub)(&x->a[i], &x->a[i], &h);
            continue;
        }
        FR_(mul)(&h, &x->a[i], &x->b[i]);
        if (x->step == G16_H_EVALS_) FR_(sub)(&h, &h, &x->c[i]);
        FR_(from_mont)(&x->a[i], &h);
    }
}

static void G16_FN(h_step_)(G16_FRT *a, const G16_FRT *b, const G16_FRT *c, size_t n, int step,
                            unsigned nthreads) {
    G16_T(h_ctx_) x = {a, b, c, n, step};
    zkp_parallel_for(nthreads, (n + G16_H_UNIT_ - 1) / G16_H_UNIT_, G16_FN(h_unit_), &x);
}

/* The CPU backend's H step (backend.h): h_j on the coset, as canonical MSM
 * scalars, written over a; for a key in the coefficient basis, h's
 * coefficients times Z (groth16.h: H).
 *
 * Those take six transforms, not the seven of interpolating h back from
 * the coset. With A, B, C the interpolants of a, b, c (degree < n) and H =
 * (AB - C)/(x^n - 1), the scalars are the coefficients of (AB - C) mod
 * (x^n - g^n) = H·(g^n - 1). Reduction mod x^n - g^n is linear and leaves
 * C as it is, so they are (AB mod (x^n - g^n)) - C: the inverse coset
 * transform of AB's values on the coset, less C's coefficients, which the
 * interpolation of c gives. c is interpolated and never evaluated on the
 * coset. */
zkpipe_status G16_FN(cpu_h_scalars)(const zkp_g16_rkey *k, zkp_g16_scalars *h, uint64_t *abc,
                                    const uint64_t *root_l, const uint64_t *shift_l,
                                    const zkp_g16_cpu_work *w, zkp_diag *diag) {
    const G16_T(pk_t) *pk = &k->pk->u.G16_CURVE;
    unsigned log_n = pk->log_domain;
    size_t n = pk->domain_size;
    G16_FRT root, shift, *a = (G16_FRT *)abc, *b = a + n, *c = b + n;
    memcpy(root.l, root_l, sizeof root.l);
    memcpy(shift.l, shift_l, sizeof shift.l);
    ZKP_CAT(G16_FR, _ntt_options_t) o = {0};
    o.root = &root;
    size_t dbytes = NTT_(domain_bytes_opt)(log_n, &o);
    void *dmem = zkp_alloc(w->alloc, dbytes, ZKP_MEM_SCRATCH);
    if (!dmem)
        return zkp_diag_fail(diag, ZKPIPE_ERR_NO_MEMORY, "cannot allocate %zu bytes of NTT tables",
                             dbytes);
    ZKP_CAT(G16_FR, _ntt_domain_t) dom;
    zkpipe_status s = NTT_(domain_init_opt)(&dom, log_n, &o, dmem, dbytes);
    if (s == ZKPIPE_OK) s = G16_FN(to_coset_)(&dom, a, &shift, w->nthreads);
    if (s == ZKPIPE_OK) s = G16_FN(to_coset_)(&dom, b, &shift, w->nthreads);
    if (s == ZKPIPE_OK && !pk->h_coefficients) {
        s = G16_FN(to_coset_)(&dom, c, &shift, w->nthreads);
        if (s == ZKPIPE_OK) G16_FN(h_step_)(a, b, c, n, G16_H_EVALS_, w->nthreads);
    } else if (s == ZKPIPE_OK) {
        /* AB's and C's coefficients, both in bit-reversed order, and one
         * reversal pass for the difference. */
        s = NTT_(transform)(&dom, c, n, ZKP_NTT_INVERSE_NR, NULL, w->nthreads);
        if (s == ZKPIPE_OK) {
            G16_FN(h_step_)(a, b, NULL, n, G16_H_PRODUCT_, w->nthreads);
            s = NTT_(transform)(&dom, a, n, ZKP_NTT_INVERSE_NR, &shift, w->nthreads);
        }
        if (s == ZKPIPE_OK) {
            G16_FN(h_step_)(a, NULL, c, n, G16_H_DIFFERENCE_, w->nthreads);
            s = NTT_(transform)(&dom, a, n, ZKP_NTT_BIT_REVERSE, NULL, w->nthreads);
        }
    }
    NTT_(domain_clear)(&dom);
    zkp_free(w->alloc, dmem, dbytes, ZKP_MEM_SCRATCH);
    if (s != ZKPIPE_OK) return s;
    h->host = abc;
    h->dev = NULL;
    return ZKPIPE_OK;
}

/* Bytes at the front of the MSM scratch for len gathered witness values,
 * 64-byte aligned. */
static size_t G16_FN(gather_bytes_)(size_t len) {
    return (len * sizeof(G16_FRT) + 63) & ~(size_t)63;
}

size_t G16_FN(msm_scratch_bytes)(const G16_T(pk_t) *pk, unsigned nthreads) {
    size_t n = pk->domain_size, n_vars = pk->n_vars;
    size_t g1 = G1_(msm_scratch_bytes)(n > n_vars ? n : n_vars, nthreads);
    size_t g2 = G2_(msm_scratch_bytes)(n_vars, nthreads);
    size_t gather = pk->a_cols ? pk->a_len : 0;
    if (pk->b_cols && pk->b_len > gather) gather = pk->b_len;
    return (g1 > g2 ? g1 : g2) + G16_FN(gather_bytes_)(gather);
}

size_t G16_FN(b2_scratch_bytes)(const G16_T(pk_t) *pk, unsigned nthreads) {
    size_t n = G16_FN(b_count)(pk);
    return G2_(msm_scratch_bytes)(n, nthreads) + G16_FN(gather_bytes_)(pk->b_cols ? n : 0);
}

/* The witness values an MSM over a key's base set reads: the witness
 * itself for a dense set (cols NULL), else the values of the listed
 * variables, gathered into the front of the scratch (which the MSM is then
 * given less of). */
typedef struct {
    const uint64_t *scalars;
    size_t n;
    void *scratch;
    size_t scratch_bytes;
} G16_T(msm_in_);

typedef struct {
    uint64_t *dst;
    const uint64_t *src;
    const uint32_t *cols;
    size_t n;
} G16_T(gather_ctx_);

#define G16_GATHER_UNIT_ ((size_t)1 << 16)

static void G16_FN(gather_unit_)(void *arg, unsigned tid, size_t unit) {
    (void)tid;
    G16_T(gather_ctx_) *x = arg;
    size_t lo = unit * G16_GATHER_UNIT_, hi = lo + G16_GATHER_UNIT_;
    if (hi > x->n) hi = x->n;
    for (size_t i = lo; i < hi; i++) memcpy(x->dst + 4 * i, x->src + 4 * (size_t)x->cols[i], 32);
}

static G16_T(msm_in_) G16_FN(msm_input_)(const uint64_t *witness, size_t n,
                                         const uint32_t *cols, size_t len, unsigned nthreads,
                                         void *scratch, size_t scratch_bytes) {
    G16_T(msm_in_) in = {witness, n, scratch, scratch_bytes};
    if (!cols) return in;
    size_t skip = G16_FN(gather_bytes_)(len);
    G16_T(gather_ctx_) x = {scratch, witness, cols, len};
    zkp_parallel_for(nthreads, (len + G16_GATHER_UNIT_ - 1) / G16_GATHER_UNIT_,
                     G16_FN(gather_unit_), &x);
    in.scalars = scratch;
    in.n = len;
    in.scratch = (unsigned char *)scratch + skip;
    in.scratch_bytes = scratch_bytes - skip;
    return in;
}

/* The CPU backend's G1 MSMs (backend.h): Pippenger over the H values, and
 * the 0/1/tail split over the witness, whose values are mostly 0 and 1. */
zkpipe_status G16_FN(cpu_msm_g1)(const zkp_g16_rkey *k, void *out, zkp_g16_base_set set,
                                 const zkp_g16_scalars *s, size_t first, size_t n,
                                 const zkp_g16_cpu_work *w, zkp_diag *diag) {
    (void)diag;
    const G16_T(pk_t) *pk = &k->pk->u.G16_CURVE;
    const uint64_t *scalars = n ? s->host + 4 * first : s->host;
    if (set == ZKP_G16_SET_H)
        return G1_(msm_mt_var)(out, pk->h, scalars, n, w->nthreads, w->scratch, w->scratch_bytes);
    if (set != ZKP_G16_SET_A && set != ZKP_G16_SET_B1 && set != ZKP_G16_SET_L)
        return ZKPIPE_ERR_INVALID_ARGUMENT;
    zkp_msm_stats stats;
    if (set == ZKP_G16_SET_L) /* empty (NULL bases, n == 0) without private signals */
        return G1_(msm_split_var)(out, &stats, pk->c, scalars, n, w->nthreads, w->scratch,
                                  w->scratch_bytes);
    /* A and B1 run over the whole witness (first 0, n n_vars). */
    int is_a = set == ZKP_G16_SET_A;
    G16_T(msm_in_) in = G16_FN(msm_input_)(scalars, n, is_a ? pk->a_cols : pk->b_cols,
                                           is_a ? pk->a_len : pk->b_len, w->nthreads,
                                           w->scratch, w->scratch_bytes);
    return G1_(msm_split_var)(out, &stats, is_a ? pk->a : pk->b1, in.scalars, in.n, w->nthreads,
                              in.scratch, in.scratch_bytes);
}

void G16_FN(pending_free)(G16_T(pending_t) *p) {
    if (!p) return;
    zkp_g16_release_witness(&p->witness, &p->opts);
    free(p);
}

/* The pending handle, before any work: takes over the witness, or
 * releases it on failure. */
static zkpipe_status G16_FN(pending_new_)(G16_T(pending_t) **out, const G16_T(pk_t) *pk,
                                          zkp_buffer *witness, const zkp_g16_prove_opts *opts,
                                          zkp_diag *diag) {
    static const zkp_g16_prove_opts default_opts = {0};
    *out = NULL;
    G16_T(pending_t) *p = calloc(1, sizeof *p);
    if (!p) {
        zkp_g16_release_witness(witness, opts);
        return ZKPIPE_ERR_NO_MEMORY;
    }
    p->witness = *witness;
    witness->ptr = NULL;
    witness->bytes = 0;
    p->pk = pk;
    p->opts = opts ? *opts : default_opts;
    p->nthreads = zkp_g16_threads(&p->opts);
    size_t n_vars = pk->n_vars;
    if (!p->witness.ptr || p->witness.bytes != n_vars * sizeof(G16_FRT)) {
        zkpipe_status st = zkp_diag_fail(diag, ZKPIPE_ERR_SIZE_MISMATCH,
                                         "witness has %zu bytes; the key needs %zu values (%zu bytes)",
                                         p->witness.bytes, n_vars, n_vars * sizeof(G16_FRT));
        G16_FN(pending_free)(p);
        return st;
    }
    *out = p;
    return ZKPIPE_OK;
}


/* From a, b, c on the domain: the H values on the coset, then the four G1
 * MSMs, on the backend of opts->rkey (the CPU without one). abc is
 * released once h no longer needs a, b and c. */
static zkpipe_status G16_FN(start_from_abc_)(G16_T(pending_t) *p, zkp_buffer *abc,
                                             G16_T(clock_t) *ck, zkp_diag *diag) {
    const G16_T(pk_t) *pk = p->pk;
    const zkp_allocator *al = p->opts.alloc;
    size_t n_vars = pk->n_vars;
    const uint64_t *wl = ((const G16_FRT *)p->witness.ptr)[0].l;
    /* The CPU's ready key is made here: the key is where the CPU reads it. */
    zkp_g16_backend cpu_be = {.ops = &zkp_g16_cpu_ops, .name = "cpu", .g2_on_cpu = 1};
    zkp_g16_pk whole = {.curve = G16_CURVE_ID};
    whole.u.G16_CURVE = *pk;
    zkp_g16_rkey cpu_key = {.be = &cpu_be, .pk = &whole};
    const zkp_g16_rkey *rk = p->opts.rkey ? p->opts.rkey : &cpu_key;
    const zkp_g16_backend_ops *ops = rk->be->ops;
    int on_cpu = ops == &zkp_g16_cpu_ops;
    p->on_device = !on_cpu;
    /* The GPU needs no MSM scratch in host memory. */
    size_t scratch_bytes = on_cpu ? G16_FN(msm_scratch_bytes)(pk, p->nthreads) : 0;
    void *scratch = scratch_bytes ? zkp_alloc(al, scratch_bytes, ZKP_MEM_SCRATCH) : NULL;
    zkp_g16_cpu_work work = {p->nthreads, scratch, scratch_bytes, al};
    zkp_g16_scalars hv = {NULL, NULL}, ws = {NULL, NULL};
    /* The witness's copy queued before the device was free, if any: the
     * device's MSMs read it from here on. */
    ws.dev = p->opts.witness_on_device;
    p->opts.witness_on_device = NULL;
    zkpipe_status st;
    if (ws.dev && (zkp_gpu_buf_gpu(ws.dev) != zkp_g16_backend_gpu(rk->be) ||
                   zkp_gpu_buf_bytes(ws.dev) != n_vars * sizeof(G16_FRT))) {
        zkp_gpu_buf_free(ws.dev);
        ws.dev = NULL;
        st = zkp_diag_fail(diag, ZKPIPE_ERR_INVALID_ARGUMENT,
                           "prove_start: the witness on the device is not this proof's");
        goto done;
    }
    if (scratch_bytes && !scratch) {
        st = zkp_diag_fail(diag, ZKPIPE_ERR_NO_MEMORY, "cannot allocate %zu bytes of MSM scratch",
                           scratch_bytes);
        goto done;
    }
    if (rk != &cpu_key && (rk->pk->curve != G16_CURVE_ID || &rk->pk->u.G16_CURVE != pk)) {
        st = zkp_diag_fail(diag, ZKPIPE_ERR_INVALID_ARGUMENT,
                           "prove_start: the ready key was made from another key");
        goto done;
    }
    if ((st = G16_FN(enter_)(ck, ZKP_G16_NTT, diag)) != ZKPIPE_OK) goto done;
    G16_FRT root, shift;
    if ((st = G16_FN(snarkjs_root_)(&root, pk->log_domain)) != ZKPIPE_OK ||
        (st = G16_FN(coset_shift_)(&shift, pk->log_domain)) != ZKPIPE_OK)
        goto done;
    if (abc->ptr) {
        st = ops->h_scalars(rk, &hv, (uint64_t *)abc->ptr, root.l, shift.l, &work, diag);
    } else if (!rk->csr || !ops->h_scalars_circuit) {
        st = zkp_diag_fail(diag, ZKPIPE_ERR_INVALID_ARGUMENT,
                           "prove_start: no a, b, c, and no circuit on the device to make them");
    } else if (ws.dev || (st = ops->witness_scalars(rk->be, &ws, wl, n_vars, diag)) == ZKPIPE_OK) {
        /* Made on the device from the witness, which goes there first. */
        st = ops->h_scalars_circuit(rk, &hv, &ws, root.l, shift.l, diag);
    }
    if (st != ZKPIPE_OK) goto done;
    /* A device holds its own copy of the H values: a, b and c go back now. */
    if (hv.dev) zkp_buffer_release(abc);

    /* The witness goes where the MSMs read it, once; a device's copy of it
     * is queued now and runs beside the H MSM. */
    if ((st = G16_FN(enter_)(ck, ZKP_G16_MSM_H, diag)) != ZKPIPE_OK) goto done;
    if (!ws.host && !ws.dev &&
        (st = ops->witness_scalars(rk->be, &ws, wl, n_vars, diag)) != ZKPIPE_OK)
        goto done;
    G16_G1J hsum;
    if ((st = ops->msm_g1(rk, &hsum, ZKP_G16_SET_H, &hv, 0, G16_FN(h_len)(pk), &work, diag)) !=
        ZKPIPE_OK)
        goto done;
    if (pk->h_coefficients) G16_FN(divide_by_z_)(&hsum, &shift, pk->log_domain);
    /* h is summed: a, b and c go back before the witness MSMs. */
    ops->scalars_free(&hv);
    zkp_buffer_release(abc);

    if ((st = G16_FN(enter_)(ck, ZKP_G16_MSM_A, diag)) != ZKPIPE_OK ||
        (st = ops->msm_g1(rk, &p->a, ZKP_G16_SET_A, &ws, 0, n_vars, &work, diag)) != ZKPIPE_OK)
        goto done;
    if ((st = G16_FN(enter_)(ck, ZKP_G16_MSM_B1, diag)) != ZKPIPE_OK ||
        (st = ops->msm_g1(rk, &p->b1, ZKP_G16_SET_B1, &ws, 0, n_vars, &work, diag)) != ZKPIPE_OK)
        goto done;
    /* L runs over the private part of the witness, after the public inputs
     * and the constant one. */
    if ((st = G16_FN(enter_)(ck, ZKP_G16_MSM_C, diag)) != ZKPIPE_OK) goto done;
    st = ops->msm_g1(rk, &p->c, ZKP_G16_SET_L, &ws, pk->n_public + 1, n_vars - pk->n_public - 1,
                     &work, diag);
    if (st != ZKPIPE_OK) goto done;
    if (rk->b2) {
        if ((st = G16_FN(enter_)(ck, ZKP_G16_MSM_B2, diag)) != ZKPIPE_OK ||
            (st = ops->msm_g2(rk, &p->b2, &ws, diag)) != ZKPIPE_OK)
            goto done;
        p->b2_done = 1;
    }
    G1_(add)(&p->c, &p->c, &hsum);
    G16_FN(leave_)(ck);
done:
    ops->scalars_free(&hv);
    ops->scalars_free(&ws);
    zkp_free(al, scratch, scratch_bytes, ZKP_MEM_SCRATCH);
    zkp_buffer_release(abc);
    if (st == ZKPIPE_ERR_INVALID_ARGUMENT || st == ZKPIPE_ERR_NO_MEMORY)
        if (!diag || !diag->msg[0]) st = zkp_diag_fail(diag, st, "prove_start: %s", zkpipe_strerror(st));
    return st;
}

zkpipe_status G16_FN(prove_start_abc)(G16_T(pending_t) **out, const G16_T(pk_t) *pk,
                                      zkp_buffer *witness, zkp_buffer *abc,
                                      const zkp_g16_prove_opts *opts, zkp_diag *diag) {
    if (out) *out = NULL;
    if (!out || !pk || !witness || !abc) {
        zkp_g16_release_witness(witness, opts);
        if (abc) zkp_buffer_release(abc);
        return ZKPIPE_ERR_INVALID_ARGUMENT;
    }
    G16_T(pending_t) *p;
    zkpipe_status st = G16_FN(pending_new_)(&p, pk, witness, opts, diag);
    /* No a, b, c at all: the ready key makes them on its device. */
    int on_device = !abc->ptr && !abc->bytes && opts && opts->rkey && opts->rkey->csr;
    if (st == ZKPIPE_OK && !on_device &&
        (!abc->ptr || abc->bytes != 3 * (size_t)pk->domain_size * sizeof(G16_FRT)))
        st = zkp_diag_fail(diag, ZKPIPE_ERR_SIZE_MISMATCH,
                           "a, b, c have %zu bytes; the key's domain needs %zu", abc->bytes,
                           3 * (size_t)pk->domain_size * sizeof(G16_FRT));
    if (st == ZKPIPE_OK) {
        G16_T(clock_t) ck = {&p->timings, &p->opts, -1, 0};
        st = G16_FN(start_from_abc_)(p, abc, &ck, diag);
    }
    zkp_buffer_release(abc);
    if (st != ZKPIPE_OK) {
        G16_FN(pending_free)(p);
        return st;
    }
    *out = p;
    return ZKPIPE_OK;
}

zkpipe_status G16_FN(prove_start)(G16_T(pending_t) **out, const G16_T(pk_t) *pk,
                                  zkp_buffer *witness, const zkp_g16_prove_opts *opts,
                                  zkp_diag *diag) {
    if (out) *out = NULL;
    if (!out || !pk || !witness) {
        zkp_g16_release_witness(witness, opts);
        return ZKPIPE_ERR_INVALID_ARGUMENT;
    }
    G16_T(pending_t) *p;
    zkpipe_status st = G16_FN(pending_new_)(&p, pk, witness, opts, diag);
    if (st != ZKPIPE_OK) return st;
    /* 3n elements of 32 bytes cannot overflow for a validated key (n <= 2^32). */
    zkp_buffer abc = {NULL, 3 * (size_t)pk->domain_size * sizeof(G16_FRT), ZKP_MEM_ABC,
                      p->opts.alloc};
    G16_T(clock_t) ck = {&p->timings, &p->opts, -1, 0};
    if ((st = G16_FN(enter_)(&ck, ZKP_G16_SYNTHESIZE, diag)) == ZKPIPE_OK) {
        abc.ptr = zkp_alloc(abc.alloc, abc.bytes, ZKP_MEM_ABC);
        if (!abc.ptr) {
            st = zkp_diag_fail(diag, ZKPIPE_ERR_NO_MEMORY, "cannot allocate %zu bytes for a, b, c",
                               abc.bytes);
        } else {
            G16_FRT *a = abc.ptr;
            size_t n = pk->domain_size;
            G16_FN(synthesize_)(a, a + n, a + 2 * n, pk, (const G16_FRT *)p->witness.ptr);
            st = G16_FN(start_from_abc_)(p, &abc, &ck, diag);
        }
    }
    zkp_buffer_release(&abc);
    if (st != ZKPIPE_OK) {
        G16_FN(pending_free)(p);
        return st;
    }
    *out = p;
    return ZKPIPE_OK;
}

/* A uniformly random nonzero scalar, both as a field element and as
 * canonical limbs. */
static zkpipe_status G16_FN(random_scalar_)(G16_FRT *mont, G16_FRT *canon) {
    do {
        zkpipe_status s = FR_(random)(mont);
        if (s != ZKPIPE_OK) return s;
    } while (FR_(is_zero)(mont));
    FR_(from_mont)(canon, mont);
    return ZKPIPE_OK;
}

zkpipe_status G16_FN(prove_finalize)(G16_T(proof_t) *proof, G16_T(pending_t) *p,
                                     zkp_g16_timings *timings, zkp_diag *diag) {
    if (!proof || !p) {
        G16_FN(pending_free)(p);
        return ZKPIPE_ERR_INVALID_ARGUMENT;
    }
    const G16_T(pk_t) *pk = p->pk;
    const zkp_allocator *al = p->opts.alloc;
    G16_T(clock_t) ck = {&p->timings, &p->opts, -1, 0};
    /* The B2 MSM, unless the backend ran it in prove_start. */
    size_t scratch_bytes = p->b2_done     ? 0
                           : p->on_device ? G16_FN(b2_scratch_bytes)(pk, p->nthreads)
                                          : G16_FN(msm_scratch_bytes)(pk, p->nthreads);
    void *scratch = zkp_alloc(al, scratch_bytes, ZKP_MEM_SCRATCH);
    zkpipe_status st = ZKPIPE_OK;
    if (scratch_bytes && !scratch) {
        st = zkp_diag_fail(diag, ZKPIPE_ERR_NO_MEMORY, "cannot allocate %zu bytes of MSM scratch",
                           scratch_bytes);
        goto done;
    }
    G16_G2J b2 = p->b2;
    if (!p->b2_done) {
        if ((st = G16_FN(enter_)(&ck, ZKP_G16_MSM_B2, diag)) != ZKPIPE_OK) goto done;
        zkp_msm_stats stats;
        G16_T(msm_in_) in =
            G16_FN(msm_input_)(((const G16_FRT *)p->witness.ptr)[0].l, pk->n_vars, pk->b_cols,
                               pk->b_len, p->nthreads, scratch, scratch_bytes);
        st = G2_(msm_split_var)(&b2, &stats, pk->b2, in.scalars, in.n, p->nthreads, in.scratch,
                                in.scratch_bytes);
        if (st != ZKPIPE_OK) goto done;
    }

    if ((st = G16_FN(enter_)(&ck, ZKP_G16_ASSEMBLE, diag)) != ZKPIPE_OK) goto done;
    G16_FRT r, s, r_k, s_k, rs, rs_k;
    if (p->opts.test_fixed_rs) {
        memcpy(r_k.l, p->opts.test_fixed_rs, sizeof r_k.l);
        memcpy(s_k.l, p->opts.test_fixed_rs + 4, sizeof s_k.l);
        FR_(to_mont)(&r, &r_k);
        FR_(to_mont)(&s, &s_k);
    } else if ((st = G16_FN(random_scalar_)(&r, &r_k)) != ZKPIPE_OK ||
               (st = G16_FN(random_scalar_)(&s, &s_k)) != ZKPIPE_OK) {
        st = zkp_diag_fail(diag, st, "cannot draw the blinding scalars r and s");
        goto done;
    }
    FR_(mul)(&rs, &r, &s);
    FR_(neg)(&rs, &rs);
    FR_(from_mont)(&rs_k, &rs);

    /* r and s are secret: constant-time multiplications only. */
    G16_G1J delta1, t1, a, b1, c;
    G16_G2J t2, b;
    G1_(from_affine)(&delta1, &pk->delta1);
    /* A = alpha1 + a + r delta1 */
    G1_(mul)(&t1, &delta1, r_k.l, G16_FR_BITS);
    G1_(add_affine)(&a, &p->a, &pk->alpha1);
    G1_(add)(&a, &a, &t1);
    /* B = beta2 + b2 + s delta2, and B1 = beta1 + b1 + s delta1 in G1 */
    G2_(from_affine)(&t2, &pk->delta2);
    G2_(mul)(&t2, &t2, s_k.l, G16_FR_BITS);
    G2_(add_affine)(&b, &b2, &pk->beta2);
    G2_(add)(&b, &b, &t2);
    G1_(mul)(&t1, &delta1, s_k.l, G16_FR_BITS);
    G1_(add_affine)(&b1, &p->b1, &pk->beta1);
    G1_(add)(&b1, &b1, &t1);
    /* C = (L + H) + s A + r B1 - r s delta1 */
    c = p->c;
    G1_(mul)(&t1, &a, s_k.l, G16_FR_BITS);
    G1_(add)(&c, &c, &t1);
    G1_(mul)(&t1, &b1, r_k.l, G16_FR_BITS);
    G1_(add)(&c, &c, &t1);
    G1_(mul)(&t1, &delta1, rs_k.l, G16_FR_BITS);
    G1_(add)(&c, &c, &t1);
    G1_(to_affine)(&proof->a, &a);
    G2_(to_affine)(&proof->b, &b);
    G1_(to_affine)(&proof->c, &c);
    /* Wipe the blinding values: with them and the proof, the witness-
     * dependent parts could be recovered. */
    memset(&r, 0, sizeof r);
    memset(&s, 0, sizeof s);
    memset(&r_k, 0, sizeof r_k);
    memset(&s_k, 0, sizeof s_k);
    memset(&rs, 0, sizeof rs);
    memset(&rs_k, 0, sizeof rs_k);
    G16_FN(leave_)(&ck);

done:
    zkp_free(al, scratch, scratch_bytes, ZKP_MEM_SCRATCH);
    if (st == ZKPIPE_OK && timings) *timings = p->timings;
    G16_FN(pending_free)(p);
    return st;
}

void G16_FN(pk_vk)(G16_T(vk_t) *vk, const G16_T(pk_t) *pk) {
    vk->n_public = pk->n_public;
    vk->alpha1 = pk->alpha1;
    vk->beta2 = pk->beta2;
    vk->gamma2 = pk->gamma2;
    vk->delta2 = pk->delta2;
    vk->ic = pk->ic;
}

/* 1 if the limbs are a canonical scalar (< r). */
static int G16_FN(scalar_is_canonical_)(const uint64_t k[4]) {
    G16_FRT t;
    memcpy(t.l, k, sizeof t.l);
    return FR_(is_reduced)(&t);
}

static zkpipe_status G16_FN(check_g1_)(const G16_G1A *p, const char *name, zkp_diag *diag) {
    if (!G1_(affine_is_on_curve)(p))
        return zkp_diag_fail(diag, ZKPIPE_ERR_NOT_ON_CURVE, "proof point %s is not on the curve", name);
    if (!G1_(affine_in_subgroup_var)(p))
        return zkp_diag_fail(diag, ZKPIPE_ERR_NOT_IN_SUBGROUP,
                             "proof point %s is not in the prime-order subgroup", name);
    return ZKPIPE_OK;
}

zkpipe_status G16_FN(verify)(const G16_T(vk_t) *vk, const uint64_t *pub, size_t n_pub,
                             const G16_T(proof_t) *proof, zkp_diag *diag) {
    if (!vk || !proof || (n_pub && !pub)) return ZKPIPE_ERR_INVALID_ARGUMENT;
    if (n_pub != vk->n_public)
        return zkp_diag_fail(diag, ZKPIPE_ERR_SIZE_MISMATCH,
                             "%zu public inputs given; the verification key expects %u", n_pub,
                             (unsigned)vk->n_public);
    for (size_t i = 0; i < n_pub; i++)
        if (!G16_FN(scalar_is_canonical_)(pub + 4 * i))
            return zkp_diag_fail(diag, ZKPIPE_ERR_NON_CANONICAL,
                                 "public input %zu is not below the group order r", i);
    zkpipe_status st;
    if ((st = G16_FN(check_g1_)(&proof->a, "pi_a", diag)) != ZKPIPE_OK) return st;
    if ((st = G16_FN(check_g1_)(&proof->c, "pi_c", diag)) != ZKPIPE_OK) return st;
    if (!G2_(affine_is_on_curve)(&proof->b))
        return zkp_diag_fail(diag, ZKPIPE_ERR_NOT_ON_CURVE, "proof point pi_b is not on the curve");
    if (!G2_(affine_in_subgroup_var)(&proof->b))
        return zkp_diag_fail(diag, ZKPIPE_ERR_NOT_IN_SUBGROUP,
                             "proof point pi_b is not in the prime-order subgroup");

    /* vk_x = ic_0 + sum x_i ic_i; the inputs are public, so _var is fine. */
    G16_G1J x, t;
    G1_(from_affine)(&x, &vk->ic[0]);
    for (size_t i = 0; i < n_pub; i++) {
        G1_(from_affine)(&t, &vk->ic[i + 1]);
        G1_(mul_var)(&t, &t, pub + 4 * i, G16_FR_BITS);
        G1_(add)(&x, &x, &t);
    }
    G16_G1A p1[4];
    G16_G2A q2[4];
    G1_(affine_neg)(&p1[0], &proof->a);
    q2[0] = proof->b;
    p1[1] = vk->alpha1;
    q2[1] = vk->beta2;
    G1_(to_affine)(&p1[2], &x);
    q2[2] = vk->gamma2;
    p1[3] = proof->c;
    q2[3] = vk->delta2;
    if (!PR_(pairing_product_is_one)(p1, q2, 4))
        return zkp_diag_fail(diag, ZKPIPE_ERR_PROOF_INVALID, "the pairing check failed");
    return ZKPIPE_OK;
}

#undef G16_H_UNIT_
#undef G16_H_EVALS_
#undef G16_H_PRODUCT_
#undef G16_H_DIFFERENCE_
#undef G16_GATHER_UNIT_
#undef G16_FN
#undef G16_T
#undef G16_G1A
#undef G16_G2A
#undef G16_G1J
#undef G16_G2J
#undef G16_FRT
#undef G1_
#undef G2_
#undef FR_
#undef NTT_
#undef PR_
#undef G16_FR_BITS
#undef G16_FR_TWO_ADICITY
