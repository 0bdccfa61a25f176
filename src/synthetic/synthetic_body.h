/* The per-curve half of the synthetic key generator (see synthetic.h).
 * Included once per curve, by bn254_synthetic.c and bls12_381_synthetic.c,
 * with
 *
 *     #define SY_CURVE    bn254
 *     #define SY_G1       bn254_g1
 *     #define SY_G2       bn254_g2
 *     #define SY_FQ       bn254_fq     (G1's coordinates)
 *     #define SY_FQ2      bn254_fq2    (G2's coordinates)
 *     #define SY_FR       bn254_fr
 *     #define SY_FR_PARAM BN254_FR
 *
 * It defines SY_CURVE_synthetic_fill_zkey, _fill_wtns and _fixed_base_g1/g2
 * (synthetic_internal.h).
 *
 * The setup in field terms, with L_i the Lagrange polynomials of the
 * n-th roots of unity and u_j, v_j, w_j the A, B, C columns of signal j
 * evaluated at tau:
 *     A_j = u_j, B_j = v_j (G1 and G2), IC_j = (beta u_j + alpha v_j + w_j)/gamma,
 *     C_j = (beta u_j + alpha v_j + w_j)/delta for the private j,
 *     H_j = L^{2n}_{2j+1}(tau)/delta.
 * The H query is what snarkjs takes from the powers of tau (the odd
 * Lagrange points of the 2n domain): the prover's h_j are the values of
 * a·b - c on the coset, that is at the odd 2n-th roots, where it is
 * P(x) = A(x)B(x) - C(x); P has degree < 2n and vanishes at the even ones,
 * so sum_j h_j L^{2n}_{2j+1}(tau) = P(tau) = h(tau) Z(tau), the term the
 * proof's C needs. */
#include <stdlib.h>
#include <string.h>

#include "curve/curve.h"
#include "field/field.h"
#include "ntt/ntt.h"
#include "util/parallel.h"

#define SY_FN(op) ZKP_CAT(ZKP_CAT(SY_CURVE, _synthetic_), op)
#define SY_T(name) ZKP_CAT(ZKP_CAT(SY_CURVE, _sy_), name)
#define SY_G1A ZKP_CAT(SY_G1, _affine_t)
#define SY_G2A ZKP_CAT(SY_G2, _affine_t)
#define SY_FRT ZKP_CAT(SY_FR, _t)
#define FR_(op) ZKP_CAT(ZKP_CAT(SY_FR, _), op)
#define SY_FR_BITS ZKP_CAT(SY_FR_PARAM, _BITS)

#define FB_G SY_G1
#define FB_F SY_FQ
#define FB_BITS SY_FR_BITS
#include "msm/fixed_base_impl.h"
#define FB_G SY_G2
#define FB_F SY_FQ2
#define FB_BITS SY_FR_BITS
#include "msm/fixed_base_impl.h"

#define G1FB_(op) ZKP_CAT(ZKP_CAT(SY_G1, _fb_), op)
#define G2FB_(op) ZKP_CAT(ZKP_CAT(SY_G2, _fb_), op)

_Static_assert(sizeof(SY_FRT) == 32, "scalars of 32 bytes, as the files hold them");

/* Lagrange values per unit of work, and points per batch: a batch shares
 * one inversion per window, which 512 additions amortise well. */
#define SY_LCHUNK 4096
#define SY_BATCH 512

/* The whole setup: the toxic waste and what is derived from it. */
typedef struct {
    const zkp_synth_layout *l;
    uint8_t *file;
    SY_FRT tau, alpha, beta, gamma, delta, inv_gamma, inv_delta;
    SY_FRT omega_n, omega_2n, omega_2n_sq;
    SY_FRT ln_scale;  /* (tau^n - 1)/n */
    SY_FRT h_scale;   /* (tau^2n - 1)/(2n delta) */
    SY_FRT w_one;     /* w_0: -sum k_i L_i */
    SY_FRT *lag;      /* L_i(tau), i < n */
    SY_FRT *partial;  /* per Lagrange unit: its share of w_one */
    const G1FB_(table_t) * t1;
    const G2FB_(table_t) * t2;
    /* Per thread. */
    uint8_t *scratch;
    size_t scratch_per_thread;
    /* The point sections, cut into batches. */
    struct {
        int section;
        size_t count;
        size_t first_unit;
    } sec[6];
    size_t nsec;
} SY_T(ctx_t);

/* Lagrange values L_i(tau) = ln_scale · omega_n^i / (tau - omega_n^i) for
 * one chunk, and the chunk's share of w_one. */
static void SY_FN(lagrange_unit_)(void *arg, unsigned tid, size_t unit) {
    SY_T(ctx_t) *c = arg;
    SY_FRT *den = (SY_FRT *)(c->scratch + (size_t)tid * c->scratch_per_thread);
    size_t lo = unit * SY_LCHUNK, hi = lo + SY_LCHUNK < c->l->n ? lo + SY_LCHUNK : c->l->n;
    SY_FRT x;
    uint64_t e = lo;
    FR_(pow)(&x, &c->omega_n, &e, 1);
    for (size_t i = lo; i < hi; i++) {
        c->lag[i] = x; /* the power, until the product below */
        FR_(sub)(&den[i - lo], &c->tau, &x);
        FR_(mul)(&x, &x, &c->omega_n);
    }
    SY_FRT *inv = den + SY_LCHUNK;
    FR_(batch_inv_var)(inv, den, hi - lo);
    SY_FRT sum, k;
    FR_(set_zero)(&sum);
    for (size_t i = lo; i < hi; i++) {
        FR_(mul)(&c->lag[i], &c->lag[i], &inv[i - lo]);
        FR_(mul)(&c->lag[i], &c->lag[i], &c->ln_scale);
        if (i < c->l->m) {
            FR_(set_u64)(&k, (uint64_t)i + 1);
            FR_(mul)(&k, &k, &c->lag[i]);
            FR_(add)(&sum, &sum, &k);
        }
    }
    c->partial[unit] = sum;
}

/* The A, B and C columns of signal j at tau (synthetic.h's circuit). */
static void SY_FN(columns_)(const SY_T(ctx_t) * c, size_t j, SY_FRT *u, SY_FRT *v, SY_FRT *w) {
    const SY_FRT *L = c->lag;
    const size_t m = c->l->m;
    FR_(set_zero)(v);
    FR_(set_zero)(w);
    switch (j) {
    case 0: /* the constant: public row m; -k_i in every chain row's C */
        *u = L[m];
        *w = c->w_one;
        break;
    case 1: /* out = x_m: public row m + 1; C of the last chain row */
        *u = L[m + 1];
        *w = L[m - 1];
        break;
    case 2: /* x_0: A and B of row 0, public row m + 2 */
        FR_(add)(u, &L[0], &L[m + 2]);
        *v = L[0];
        break;
    default: /* x_i, i = j - 2: A and B of row i, C of row i - 1 */
        *u = L[j - 2];
        *v = L[j - 2];
        *w = L[j - 3];
        break;
    }
}

/* (beta u + alpha v + w) · scale: the IC and C queries. */
static void SY_FN(lc_)(const SY_T(ctx_t) * c, size_t j, const SY_FRT *scale, SY_FRT *out) {
    SY_FRT u, v, w, t;
    SY_FN(columns_)(c, j, &u, &v, &w);
    FR_(mul)(&t, &c->beta, &u);
    FR_(mul)(&v, &c->alpha, &v);
    FR_(add)(&t, &t, &v);
    FR_(add)(&t, &t, &w);
    FR_(mul)(out, &t, scale);
}

/* One batch of one point section: the scalars, their points, and the
 * points copied into the file. */
static void SY_FN(points_unit_)(void *arg, unsigned tid, size_t unit) {
    SY_T(ctx_t) *c = arg;
    size_t s = 0;
    while (s + 1 < c->nsec && unit >= c->sec[s + 1].first_unit) s++;
    const int section = c->sec[s].section;
    const size_t lo = (unit - c->sec[s].first_unit) * SY_BATCH;
    const size_t n = c->sec[s].count - lo < SY_BATCH ? c->sec[s].count - lo : SY_BATCH;

    uint8_t *p = c->scratch + (size_t)tid * c->scratch_per_thread;
    SY_FRT *k = (SY_FRT *)p;
    p += SY_BATCH * sizeof(SY_FRT);
    SY_FRT *den = (SY_FRT *)p;
    p += SY_BATCH * sizeof(SY_FRT);
    SY_FRT *inv = (SY_FRT *)p;
    p += SY_BATCH * sizeof(SY_FRT);
    void *pts = p;
    p += SY_BATCH * sizeof(SY_G2A);
    void *fb = p;

    switch (section) {
    case ZKP_SYNTH_SEC_IC:
        for (size_t i = 0; i < n; i++) SY_FN(lc_)(c, lo + i, &c->inv_gamma, &k[i]);
        break;
    case ZKP_SYNTH_SEC_A:
    case ZKP_SYNTH_SEC_B1:
    case ZKP_SYNTH_SEC_B2:
        for (size_t i = 0; i < n; i++) {
            SY_FRT u, v, w;
            SY_FN(columns_)(c, lo + i, &u, &v, &w);
            k[i] = section == ZKP_SYNTH_SEC_A ? u : v;
        }
        break;
    case ZKP_SYNTH_SEC_C: /* the private signals, from j = n_public + 1 */
        for (size_t i = 0; i < n; i++)
            SY_FN(lc_)(c, lo + i + ZKP_SYNTH_N_PUBLIC + 1, &c->inv_delta, &k[i]);
        break;
    case ZKP_SYNTH_SEC_H: {
        /* h_scale · x / (tau - x) at x = omega_2n^(2j+1) */
        SY_FRT x;
        uint64_t e = 2 * (uint64_t)lo + 1;
        FR_(pow)(&x, &c->omega_2n, &e, 1);
        for (size_t i = 0; i < n; i++) {
            k[i] = x;
            FR_(sub)(&den[i], &c->tau, &x);
            FR_(mul)(&x, &x, &c->omega_2n_sq);
        }
        FR_(batch_inv_var)(inv, den, n);
        for (size_t i = 0; i < n; i++) {
            FR_(mul)(&k[i], &k[i], &inv[i]);
            FR_(mul)(&k[i], &k[i], &c->h_scale);
        }
        break;
    }
    }
    for (size_t i = 0; i < n; i++) FR_(from_mont)(&k[i], &k[i]);

    uint8_t *dst = c->file + c->l->off[section];
    if (section == ZKP_SYNTH_SEC_B2) {
        G2FB_(eval)(c->t2, pts, k[0].l, n, SY_BATCH, fb);
        memcpy(dst + lo * sizeof(SY_G2A), pts, n * sizeof(SY_G2A));
    } else {
        G1FB_(eval)(c->t1, pts, k[0].l, n, SY_BATCH, fb);
        memcpy(dst + lo * sizeof(SY_G1A), pts, n * sizeof(SY_G1A));
    }
}

/* A nonzero scalar from the generator, in Montgomery form. */
static void SY_FN(draw_)(SY_FRT *out, uint64_t *state) {
    do {
        SY_FRT t;
        zkp_synth_scalar(t.l, state);
        FR_(to_mont)(out, &t);
    } while (FR_(is_zero)(out));
}

static void SY_FN(put_prime_)(uint8_t *p, const uint64_t *limbs, size_t bytes) {
    for (size_t i = 0; i < bytes / 8; i++) zkp_synth_put64(p + 8 * i, limbs[i]);
}

static void SY_FN(put_scalar_)(uint8_t *p, const SY_FRT *canonical) {
    for (int i = 0; i < 4; i++) zkp_synth_put64(p + 8 * i, canonical->l[i]);
}

/* Section 2: the primes, the dimensions and the six key points. */
static void SY_FN(header_)(SY_T(ctx_t) * c, void *scratch) {
    const zkp_synth_layout *l = c->l;
    uint8_t *p = c->file + l->off[ZKP_SYNTH_SEC_HEADER];
    zkp_synth_put32(p, (uint32_t)l->q_bytes);
    SY_FN(put_prime_)(p + 4, ZKP_CAT(SY_FQ, _modulus).l, l->q_bytes);
    p += 4 + l->q_bytes;
    zkp_synth_put32(p, 32);
    SY_FN(put_prime_)(p + 4, FR_(modulus).l, 32);
    p += 36;
    zkp_synth_put32(p, l->n_vars);
    zkp_synth_put32(p + 4, ZKP_SYNTH_N_PUBLIC);
    zkp_synth_put32(p + 8, l->n);
    p += 12;

    SY_FRT k1[3], k2[3];
    FR_(from_mont)(&k1[0], &c->alpha);
    FR_(from_mont)(&k1[1], &c->beta);
    FR_(from_mont)(&k1[2], &c->delta);
    FR_(from_mont)(&k2[0], &c->beta);
    FR_(from_mont)(&k2[1], &c->gamma);
    FR_(from_mont)(&k2[2], &c->delta);
    SY_G1A g1[3];
    SY_G2A g2[3];
    G1FB_(eval)(c->t1, g1, k1[0].l, 3, SY_BATCH, scratch);
    G2FB_(eval)(c->t2, g2, k2[0].l, 3, SY_BATCH, scratch);
    /* snarkjs's order: alpha1, beta1, beta2, gamma2, delta1, delta2. */
    const void *order[6] = {&g1[0], &g1[1], &g2[0], &g2[1], &g1[2], &g2[2]};
    const size_t size[6] = {sizeof(SY_G1A), sizeof(SY_G1A), sizeof(SY_G2A),
                            sizeof(SY_G2A), sizeof(SY_G1A), sizeof(SY_G2A)};
    for (int i = 0; i < 6; i++) {
        memcpy(p, order[i], size[i]);
        p += size[i];
    }
}

/* Section 4: A and B of every chain row (coefficient 1: x_i · x_i), then
 * the public rows, as snarkjs lists them. */
static void SY_FN(coefs_)(const SY_T(ctx_t) * c) {
    const zkp_synth_layout *l = c->l;
    uint8_t *p = c->file + l->off[ZKP_SYNTH_SEC_COEFS];
    /* coefficient · R^2 mod r, which is the Montgomery product of the
     * Montgomery form of the coefficient with R^2 (groth16_impl.h). */
    SY_FRT one, raw;
    FR_(set_one)(&one);
    FR_(mul)(&raw, &one, &FR_(r2_mont));
    uint8_t value[32];
    SY_FN(put_scalar_)(value, &raw);
    zkp_synth_put32(p, l->n_coefs);
    p += 4;
    for (uint32_t i = 0; i < l->m; i++) {
        uint32_t signal = ZKP_SYNTH_N_PUBLIC + i; /* x_0 is signal 2, x_i is 2 + i */
        for (uint32_t mat = 0; mat < 2; mat++) {
            zkp_synth_put32(p, mat);
            zkp_synth_put32(p + 4, i);
            zkp_synth_put32(p + 8, signal);
            memcpy(p + 12, value, 32);
            p += 44;
        }
    }
    for (uint32_t s = 0; s <= ZKP_SYNTH_N_PUBLIC; s++) {
        zkp_synth_put32(p, 0);
        zkp_synth_put32(p + 4, l->m + s);
        zkp_synth_put32(p + 8, s);
        memcpy(p + 12, value, 32);
        p += 44;
    }
}

zkpipe_status SY_FN(fill_zkey)(uint8_t *file, const zkp_synth_layout *l, uint64_t seed,
                               unsigned nthreads) {
    SY_T(ctx_t) c;
    memset(&c, 0, sizeof c);
    c.l = l;
    c.file = file;
    if (nthreads > ZKP_PARALLEL_MAX_THREADS) nthreads = ZKP_PARALLEL_MAX_THREADS;

    /* The toxic waste. tau must lie outside the 2n-th roots of unity, or
     * the Lagrange values below would divide by zero. */
    uint64_t state = seed;
    SY_FRT five, t;
    FR_(set_u64)(&five, 5);
    zkpipe_status st = ZKP_CAT(SY_FR, _ntt_root_from_generator)(&c.omega_n, &five, l->log_n);
    if (st == ZKPIPE_OK)
        st = ZKP_CAT(SY_FR, _ntt_root_from_generator)(&c.omega_2n, &five, l->log_n + 1);
    if (st != ZKPIPE_OK) return st;
    FR_(sqr)(&c.omega_2n_sq, &c.omega_2n);
    uint64_t n_exp = l->n, n2_exp = 2 * (uint64_t)l->n;
    SY_FRT tau_n, tau_2n;
    do {
        SY_FN(draw_)(&c.tau, &state);
        FR_(pow)(&tau_n, &c.tau, &n_exp, 1);
        FR_(sqr)(&tau_2n, &tau_n);
    } while (FR_(is_one)(&tau_2n));
    SY_FN(draw_)(&c.alpha, &state);
    SY_FN(draw_)(&c.beta, &state);
    SY_FN(draw_)(&c.gamma, &state);
    SY_FN(draw_)(&c.delta, &state);
    FR_(inv_var)(&c.inv_gamma, &c.gamma);
    FR_(inv_var)(&c.inv_delta, &c.delta);
    FR_(set_one)(&t);
    FR_(sub)(&c.ln_scale, &tau_n, &t);
    FR_(sub)(&c.h_scale, &tau_2n, &t);
    FR_(set_u64)(&t, n_exp);
    FR_(inv_var)(&t, &t);
    FR_(mul)(&c.ln_scale, &c.ln_scale, &t);
    FR_(set_u64)(&t, n2_exp);
    FR_(inv_var)(&t, &t);
    FR_(mul)(&c.h_scale, &c.h_scale, &t);
    FR_(mul)(&c.h_scale, &c.h_scale, &c.inv_delta);

    /* The point sections, in the order they are listed to the threads. */
    const struct {
        int section;
        size_t count;
    } secs[6] = {
        {ZKP_SYNTH_SEC_H, l->n},
        {ZKP_SYNTH_SEC_B2, l->n_vars},
        {ZKP_SYNTH_SEC_A, l->n_vars},
        {ZKP_SYNTH_SEC_B1, l->n_vars},
        {ZKP_SYNTH_SEC_C, (size_t)l->n_vars - ZKP_SYNTH_N_PUBLIC - 1},
        {ZKP_SYNTH_SEC_IC, ZKP_SYNTH_N_PUBLIC + 1},
    };
    size_t nunits = 0, g1_points = 6, g2_points = 3;
    for (size_t i = 0; i < 6; i++) {
        if (!secs[i].count) continue;
        c.sec[c.nsec].section = secs[i].section;
        c.sec[c.nsec].count = secs[i].count;
        c.sec[c.nsec].first_unit = nunits;
        c.nsec++;
        nunits += (secs[i].count + SY_BATCH - 1) / SY_BATCH;
        if (secs[i].section == ZKP_SYNTH_SEC_B2)
            g2_points += secs[i].count;
        else
            g1_points += secs[i].count;
    }

    G1FB_(table_t) t1;
    G2FB_(table_t) t2;
    memset(&t1, 0, sizeof t1);
    memset(&t2, 0, sizeof t2);
    size_t lunits = ((size_t)l->n + SY_LCHUNK - 1) / SY_LCHUNK;
    c.lag = malloc((size_t)l->n * sizeof(SY_FRT));
    c.partial = malloc(lunits * sizeof(SY_FRT));
    st = c.lag && c.partial ? ZKPIPE_OK : ZKPIPE_ERR_NO_MEMORY;
    if (st == ZKPIPE_OK) st = G1FB_(table_init)(&t1, g1_points, nthreads, NULL);
    if (st == ZKPIPE_OK) st = G2FB_(table_init)(&t2, g2_points, nthreads, NULL);
    if (st == ZKPIPE_OK) {
        size_t fb1 = G1FB_(scratch_bytes)(&t1, SY_BATCH), fb2 = G2FB_(scratch_bytes)(&t2, SY_BATCH);
        size_t pts = 3 * SY_BATCH * sizeof(SY_FRT) + SY_BATCH * sizeof(SY_G2A) +
                     (fb1 > fb2 ? fb1 : fb2);
        size_t lag = 2 * SY_LCHUNK * sizeof(SY_FRT);
        c.scratch_per_thread = ((pts > lag ? pts : lag) + 63) & ~(size_t)63;
        c.scratch = malloc(c.scratch_per_thread * nthreads);
        if (!c.scratch) st = ZKPIPE_ERR_NO_MEMORY;
    }
    if (st == ZKPIPE_OK) {
        c.t1 = &t1;
        c.t2 = &t2;
        zkp_parallel_for(nthreads, lunits, SY_FN(lagrange_unit_), &c);
        FR_(set_zero)(&c.w_one);
        for (size_t u = 0; u < lunits; u++) FR_(add)(&c.w_one, &c.w_one, &c.partial[u]);
        FR_(neg)(&c.w_one, &c.w_one);
        SY_FN(header_)(&c, c.scratch);
        SY_FN(coefs_)(&c);
        zkp_parallel_for(nthreads, nunits, SY_FN(points_unit_), &c);
    }
    free(c.scratch);
    free(c.lag);
    free(c.partial);
    G1FB_(table_free)(&t1, NULL);
    G2FB_(table_free)(&t2, NULL);
    return st;
}

void SY_FN(fill_wtns)(uint8_t *out, const zkp_synth_layout *l, uint64_t seed, uint64_t index) {
    uint64_t state = zkp_synth_witness_state(seed, index);
    SY_FRT x, k, v;
    zkp_synth_scalar(x.l, &state);
    FR_(to_mont)(&x, &x);
    /* w_0 = 1, w_2 = x_0, w_{2+i} = x_i, w_1 = x_m. */
    FR_(set_one)(&v);
    FR_(from_mont)(&v, &v);
    SY_FN(put_scalar_)(out, &v);
    FR_(from_mont)(&v, &x);
    SY_FN(put_scalar_)(out + 2 * 32, &v);
    for (uint32_t i = 0; i < l->m; i++) {
        FR_(sqr)(&x, &x);
        FR_(set_u64)(&k, (uint64_t)i + 1);
        FR_(add)(&x, &x, &k);
        FR_(from_mont)(&v, &x);
        size_t at = i + 1 < l->m ? ZKP_SYNTH_N_PUBLIC + 1 + (size_t)i : 1;
        SY_FN(put_scalar_)(out + 32 * at, &v);
    }
}

/* One table for n scalars, then the batches one after another. */
#define SY_FIXED_BASE(group, tabfn, aff)                                                           \
    zkpipe_status SY_FN(ZKP_CAT(fixed_base_, group))(void *out, const uint64_t *scalars, size_t n, \
                                                     unsigned nthreads) {                          \
        tabfn(table_t) tab;                                                                        \
        zkpipe_status st = tabfn(table_init)(&tab, n, nthreads ? nthreads : 1, NULL);              \
        if (st != ZKPIPE_OK) return st;                                                            \
        void *scratch = malloc(tabfn(scratch_bytes)(&tab, SY_BATCH));                              \
        if (!scratch) {                                                                            \
            tabfn(table_free)(&tab, NULL);                                                         \
            return ZKPIPE_ERR_NO_MEMORY;                                                           \
        }                                                                                          \
        for (size_t lo = 0; lo < n; lo += SY_BATCH)                                                \
            tabfn(eval)(&tab, (aff *)out + lo, scalars + 4 * lo,                                   \
                        n - lo < SY_BATCH ? n - lo : SY_BATCH, SY_BATCH, scratch);                 \
        free(scratch);                                                                             \
        tabfn(table_free)(&tab, NULL);                                                             \
        return ZKPIPE_OK;                                                                          \
    }
SY_FIXED_BASE(g1, G1FB_, SY_G1A)
SY_FIXED_BASE(g2, G2FB_, SY_G2A)
#undef SY_FIXED_BASE

#undef SY_FN
#undef SY_T
#undef SY_G1A
#undef SY_G2A
#undef SY_FRT
#undef FR_
#undef SY_FR_BITS
#undef G1FB_
#undef G2FB_
#undef SY_LCHUNK
#undef SY_BATCH
#undef SY_CURVE
#undef SY_G1
#undef SY_G2
#undef SY_FQ
#undef SY_FQ2
#undef SY_FR
#undef SY_FR_PARAM
