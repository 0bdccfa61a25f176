/* Fixed-base scalar multiplication of a group's generator, for the key
 * generators (synthetic/ and setup/): millions of points [k_i] G with one
 * G. Included once per group by each generator's body, with
 *
 *     #define FB_G     bn254_g2    (the group prefix)
 *     #define FB_F     bn254_fq2   (its coordinate field)
 *     #define FB_BITS  254         (bits of the scalars, all < 2^FB_BITS)
 *
 * It defines static FB_G_fb_* functions and undefines the three macros.
 *
 * The table holds, for each window of w bits, the affine points
 * [d·2^(w·win)] G for d = 1 .. 2^(w-1). A scalar in signed digits
 * d_win in [-2^(w-1), 2^(w-1)] is then a sum of one table point (or its
 * negative) per window: no doublings at all. The sums run over a batch of
 * scalars in lockstep, one window at a time, in affine coordinates: every
 * addition of the step shares one field inversion (Montgomery's trick),
 * which makes an addition about 6 multiplications instead of the 11 of a
 * mixed Jacobian one, and the results come out affine, as the file wants
 * them. Everything here is variable time: the scalars are the setup's toxic
 * waste, which a synthetic key does not keep secret anyway. */
#include <stdlib.h>
#include <string.h>

#include "msm/fixed_base_digit.h"
#include "util/alloc.h"
#include "util/parallel.h"

#define FB_AFF ZKP_CAT(FB_G, _affine_t)
#define FB_JAC ZKP_CAT(FB_G, _jacobian_t)
#define FB_FT ZKP_CAT(FB_F, _t)
#define FB_FN(op) ZKP_CAT(ZKP_CAT(FB_G, _fb_), op)
#define FB_GF(op) ZKP_CAT(ZKP_CAT(FB_G, _), op)
#define FB_FF(op) ZKP_CAT(ZKP_CAT(FB_F, _), op)

/* Entries are built in runs from a point computed by a scalar
 * multiplication; the run is long enough to hide that cost. */
#define FB_BUILD_RUN 4096

typedef struct {
    unsigned w, nwin;
    size_t per_win; /* 2^(w-1) */
    FB_AFF *t;      /* nwin × per_win */
    size_t bytes;
} FB_FN(table_t);

/* The window width that minimises the work for npoints scalars: nwin·N
 * batch additions plus nwin·2^(w-1) table entries at about three times
 * the cost of an addition each, with the table under 64 MiB. */
static unsigned FB_FN(choose_w)(size_t npoints) {
    unsigned best = 4;
    double best_cost = -1;
    for (unsigned w = 4; w <= 16; w++) {
        unsigned nwin = (FB_BITS + 1 + w - 1) / w;
        size_t entries = (size_t)nwin << (w - 1);
        if (entries * sizeof(FB_AFF) > ((size_t)64 << 20)) break;
        double cost = (double)nwin * (3.0 * (double)((size_t)1 << (w - 1)) + (double)npoints);
        if (best_cost < 0 || cost < best_cost) {
            best_cost = cost;
            best = w;
        }
    }
    return best;
}

typedef struct {
    FB_FN(table_t) * tab;
    const FB_AFF *wbase; /* nwin: [2^(w·win)] G */
    FB_JAC *tmp;         /* FB_BUILD_RUN per thread */
    size_t runs_per_win;
} FB_FN(build_ctx_t);

static void FB_FN(build_unit_)(void *arg, unsigned tid, size_t unit) {
    FB_FN(build_ctx_t) *c = arg;
    const FB_FN(table_t) *tab = c->tab;
    size_t win = unit / c->runs_per_win, lo = (unit % c->runs_per_win) * FB_BUILD_RUN;
    size_t hi = lo + FB_BUILD_RUN < tab->per_win ? lo + FB_BUILD_RUN : tab->per_win;
    FB_JAC *tmp = c->tmp + (size_t)tid * FB_BUILD_RUN;
    const FB_AFF *b = &c->wbase[win];
    /* Entry i of the window is [i + 1] b. */
    FB_JAC acc;
    FB_GF(from_affine)(&acc, b);
    if (lo) {
        uint64_t k = (uint64_t)lo + 1;
        FB_GF(mul_var)(&acc, &acc, &k, 64);
    }
    for (size_t i = lo; i < hi; i++) {
        tmp[i - lo] = acc;
        FB_GF(add_affine)(&acc, &acc, b);
    }
    FB_GF(batch_to_affine_var)(tab->t + win * tab->per_win + lo, tmp, hi - lo);
}

/* Builds the table of the generator for about npoints multiplications, in
 * memory from alloc (NULL: the default allocator), charged as scratch. */
static zkpipe_status FB_FN(table_init)(FB_FN(table_t) * tab, size_t npoints, unsigned nthreads,
                                       const zkp_allocator *alloc) {
    memset(tab, 0, sizeof *tab);
    tab->w = FB_FN(choose_w)(npoints);
    tab->nwin = (FB_BITS + 1 + tab->w - 1) / tab->w;
    tab->per_win = (size_t)1 << (tab->w - 1);
    tab->bytes = (size_t)tab->nwin * tab->per_win * sizeof(FB_AFF);
    tab->t = zkp_alloc(alloc, tab->bytes, ZKP_MEM_SCRATCH);
    FB_AFF *wbase = malloc(tab->nwin * sizeof *wbase);
    if (nthreads > ZKP_PARALLEL_MAX_THREADS) nthreads = ZKP_PARALLEL_MAX_THREADS;
    FB_JAC *tmp = malloc((size_t)nthreads * FB_BUILD_RUN * sizeof *tmp);
    if (!tab->t || !wbase || !tmp) {
        zkp_free(alloc, tab->t, tab->bytes, ZKP_MEM_SCRATCH);
        free(wbase);
        free(tmp);
        memset(tab, 0, sizeof *tab);
        return ZKPIPE_ERR_NO_MEMORY;
    }
    FB_JAC b;
    FB_GF(generator)(&wbase[0]);
    FB_GF(from_affine)(&b, &wbase[0]);
    for (unsigned win = 1; win < tab->nwin; win++) {
        for (unsigned i = 0; i < tab->w; i++) FB_GF(dbl)(&b, &b);
        FB_GF(to_affine)(&wbase[win], &b);
    }
    FB_FN(build_ctx_t) c = {tab, wbase, tmp, (tab->per_win + FB_BUILD_RUN - 1) / FB_BUILD_RUN};
    zkp_parallel_for(nthreads, (size_t)tab->nwin * c.runs_per_win, FB_FN(build_unit_), &c);
    free(wbase);
    free(tmp);
    return ZKPIPE_OK;
}

static void FB_FN(table_free)(FB_FN(table_t) * tab, const zkp_allocator *alloc) {
    zkp_free(alloc, tab->t, tab->bytes, ZKP_MEM_SCRATCH);
    memset(tab, 0, sizeof *tab);
}

/* Scratch for batches of up to `batch` scalars: the accumulators, the
 * points added in one step, the differences of x and their inverses, the
 * indices of the accumulators that take part in the step, the infinity
 * flags and the digits. */
static size_t FB_FN(scratch_bytes)(const FB_FN(table_t) * tab, size_t batch) {
    return batch * (2 * sizeof(FB_AFF) + 2 * sizeof(FB_FT) + sizeof(uint32_t) + 1 +
                    tab->nwin * sizeof(int32_t)) +
           64;
}

/* Signed digits of k (4 limbs, k < 2^FB_BITS) in windows of w bits
 * (fixed_base_digit.h): the top window never carries out because
 * nwin·w >= FB_BITS + 1. */
static void FB_FN(digits_)(int32_t *d, const uint64_t k[4], unsigned w, unsigned nwin) {
    uint32_t carry = 0;
    for (unsigned win = 0; win < nwin; win++) d[win] = zkp_fb_digit(k, win, w, &carry);
}

/* out[i] = [k_i] G for n <= batch scalars (4 canonical limbs each), affine,
 * infinity as (0, 0). scratch: FB_FN(scratch_bytes)(tab, batch) bytes. */
static void FB_FN(eval)(const FB_FN(table_t) * tab, FB_AFF *out, const uint64_t *scalars, size_t n,
                        size_t batch, void *scratch) {
    uint8_t *p = (uint8_t *)(((uintptr_t)scratch + 63) & ~(uintptr_t)63);
    FB_AFF *add = (FB_AFF *)p;
    p += batch * sizeof(FB_AFF);
    FB_FT *dx = (FB_FT *)p;
    p += batch * sizeof(FB_FT);
    FB_FT *inv = (FB_FT *)p;
    p += batch * sizeof(FB_FT);
    int32_t *dig = (int32_t *)p;
    p += batch * tab->nwin * sizeof(int32_t);
    uint32_t *idx = (uint32_t *)p;
    p += batch * sizeof(uint32_t);
    uint8_t *inf = p;
    /* The accumulators are the output itself. */
    FB_AFF *acc = out;
    const unsigned nwin = tab->nwin;
    for (size_t i = 0; i < n; i++) {
        FB_FN(digits_)(dig + i * nwin, scalars + 4 * i, tab->w, nwin);
        inf[i] = 1;
    }
    for (unsigned win = 0; win < nwin; win++) {
        const FB_AFF *row = tab->t + (size_t)win * tab->per_win;
        size_t cnt = 0;
        for (size_t i = 0; i < n; i++) {
            /* The table is larger than the caches: ask for the entry a
             * few scalars ahead. */
            if (i + 8 < n) {
                int32_t da = dig[(i + 8) * nwin + win];
                if (da) __builtin_prefetch(&row[(da < 0 ? -da : da) - 1]);
            }
            int32_t d = dig[i * nwin + win];
            if (!d) continue;
            FB_AFF q = row[(d < 0 ? -d : d) - 1];
            if (d < 0) FB_FF(neg)(&q.y, &q.y);
            if (inf[i]) {
                acc[i] = q;
                inf[i] = 0;
                continue;
            }
            if (FB_FF(eq)(&acc[i].x, &q.x)) {
                /* acc = ±q: a doubling or infinity, which the batch formula
                 * cannot do; the complete Jacobian addition can. */
                FB_JAC j;
                FB_GF(from_affine)(&j, &acc[i]);
                FB_GF(add_affine)(&j, &j, &q);
                if (FB_GF(is_infinity)(&j))
                    inf[i] = 1;
                else
                    FB_GF(to_affine)(&acc[i], &j);
                continue;
            }
            add[cnt] = q;
            idx[cnt] = (uint32_t)i;
            FB_FF(sub)(&dx[cnt], &q.x, &acc[i].x);
            cnt++;
        }
        if (!cnt) continue;
        FB_FF(batch_inv_var)(inv, dx, cnt);
        for (size_t c = 0; c < cnt; c++) {
            FB_AFF *a = &acc[idx[c]];
            const FB_AFF *q = &add[c];
            FB_FT lambda, x3, t;
            FB_FF(sub)(&t, &q->y, &a->y);
            FB_FF(mul)(&lambda, &t, &inv[c]);
            FB_FF(sqr)(&x3, &lambda);
            FB_FF(sub)(&x3, &x3, &a->x);
            FB_FF(sub)(&x3, &x3, &q->x);
            FB_FF(sub)(&t, &a->x, &x3);
            FB_FF(mul)(&t, &t, &lambda);
            FB_FF(sub)(&a->y, &t, &a->y);
            a->x = x3;
        }
    }
    for (size_t i = 0; i < n; i++)
        if (inf[i]) FB_GF(affine_set_infinity)(&acc[i]);
}

#undef FB_BUILD_RUN
#undef FB_AFF
#undef FB_JAC
#undef FB_FT
#undef FB_FN
#undef FB_GF
#undef FB_FF
#undef FB_G
#undef FB_F
#undef FB_BITS
