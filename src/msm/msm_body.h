/* Generic MSM over one group: the out-of-line half. Included once per group,
 * by that group's .c file, after the group's msm header and with the same
 * MSM_* macros set (see msm_impl.h and the contract in msm.h).
 *
 * Pippenger's bucket method, as done here. Each scalar is cut into W windows
 * of c bits with signed digits d in [-2^(c-1), 2^(c-1)] (zkp_msm_digit), so
 * a window needs only 2^(c-1) buckets: a negative digit adds the negated base
 * to bucket |d|, and negating an affine point costs one field negation. For
 * window w the points are added into their buckets with mixed XYZZ additions
 * (8M + 2S), then the running-sum trick gives sum_j j B_j with two XYZZ
 * additions per bucket: walking j down from the top, R accumulates B_j and S
 * accumulates R, so B_j is counted j times. The window sums S_w are combined
 * as sum_w 2^(w c) S_w by Horner's rule (c doublings per window).
 *
 * Edge cases meet the _var additions only where they are rare: a base at
 * infinity is skipped by the mixed addition, and a bucket that meets P and P
 * (or P and -P) takes the doubling (or infinity) branch. */
#include <string.h>

#include "msm/msm_ifma.h"
#include "util/cpu.h"
#include "util/parallel.h"

#define MSM_AFF ZKP_CAT(MSM_G, _affine_t)
#define MSM_JAC ZKP_CAT(MSM_G, _jacobian_t)
#define MSM_XYZZ ZKP_CAT(MSM_G, _xyzz_t)
#define MSM_FN(op) ZKP_CAT(ZKP_CAT(MSM_G, _), op)

/* ---------------------------------------------------------------- kernels */

void MSM_FN(msm_window_var)(MSM_JAC *out, MSM_XYZZ *buckets, const MSM_AFF *bases,
                            const uint64_t *scalars, const uint32_t *idx, size_t lo, size_t hi,
                            unsigned c, unsigned w) {
    /* A first pass over the digits finds the highest bucket in use, so only
     * buckets [0, top) are cleared and reduced. Windows whose digits are
     * small (the top window, or witness-like scalars) then cost nothing
     * per bucket; the extra digit extraction is a few shifts per point
     * against a mixed addition of dozens of multiplications. */
    size_t top = 0;
    for (size_t j = lo; j < hi; j++) {
        size_t i = idx ? idx[j] : j;
        int32_t d = zkp_msm_digit(scalars + ZKP_MSM_SCALAR_LIMBS * i, c, w);
        size_t b = (size_t)(d < 0 ? -(int64_t)d : d);
        if (b > top) top = b;
    }
    /* All-zero limbs have ZZ = ZZZ = 0: the point at infinity in XYZZ. */
    memset(buckets, 0, top * sizeof *buckets);
    for (size_t j = lo; j < hi; j++) {
        size_t i = idx ? idx[j] : j;
        int32_t d = zkp_msm_digit(scalars + ZKP_MSM_SCALAR_LIMBS * i, c, w);
        if (d == 0) continue;
        if (d > 0) {
            size_t b = (size_t)d;
            MSM_FN(xyzz_add_affine_var)(&buckets[b - 1], &buckets[b - 1], &bases[i]);
        } else {
            size_t b = (size_t)(-(int64_t)d);
            MSM_AFF neg;
            MSM_FN(affine_neg)(&neg, &bases[i]);
            MSM_FN(xyzz_add_affine_var)(&buckets[b - 1], &buckets[b - 1], &neg);
        }
    }
    MSM_XYZZ run, sum;
    MSM_FN(xyzz_set_infinity)(&run);
    MSM_FN(xyzz_set_infinity)(&sum);
    for (size_t b = top; b >= 1; b--) {
        MSM_FN(xyzz_add_var)(&run, &run, &buckets[b - 1]);
        MSM_FN(xyzz_add_var)(&sum, &sum, &run);
    }
    MSM_FN(xyzz_to_jacobian)(out, &sum);
}

/* The batch-affine form of the same work unit. Buckets are affine points,
 * and additions into them are gathered into batches of up to
 * ZKP_MSM_BATCH distinct buckets: one inversion (Montgomery's trick) serves
 * the whole batch, so an addition costs about 5M + 1S instead of the mixed
 * XYZZ addition's 8M + 2S.
 *
 * A point whose bucket already has an addition pending in the batch (its
 * affine value is not known yet) waits in a deferred list of up to
 * ZKP_MSM_BATCH points and joins the next batch. This is not rare: with
 * 2^(c-1) buckets the j-th addition of a batch finds its bucket pending with
 * probability about j / 2^(c-1), so at c = 11 one point in six meets a
 * pending bucket. Sending those to an XYZZ side bucket instead cost a mixed
 * addition each and, since most side buckets then held something, one more
 * XYZZ addition per bucket in the reduction: about a sixth of the window's
 * work at 2^14 points. A point with the bucket's x (doubling or
 * cancelling, which the affine formula cannot take), or one that finds the
 * deferred list full, still goes to the side bucket of the same index; the
 * reduction sums affine and side bucket of each index. */
#define MSM_F ZKP_CAT(MSM_FIELD, _t)
#define MSM_FF(op) ZKP_CAT(ZKP_CAT(MSM_FIELD, _), op)
/* Segments of the bucket reduction (msm_reduce_lanes_). */
#define MSM_LANES_ 32

typedef struct {
    MSM_AFF *aff;     /* 2^(c-1) affine buckets */
    MSM_XYZZ *side;   /* 2^(c-1) XYZZ side buckets */
    uint32_t *tag;    /* 0: empty; 1: holds a point; else the last batch that added to it */
    MSM_AFF **dst;    /* the batch: the point each pending addition adds to */
    const MSM_AFF **src; /* and the point it adds */
    MSM_AFF *pts;     /* copies of the points the bucket pushes add */
    MSM_F *den, *pre; /* x differences and their prefix products */
    MSM_AFF *lane;    /* the reduction's running and total sums, 2 per lane */
    uint32_t *dbidx;  /* the deferred list: bucket of each waiting point */
    MSM_AFF *dpts;    /* the waiting points */
} MSM_FN(msm_batch_work_);

static size_t MSM_FN(msm_batch_layout_)(MSM_FN(msm_batch_work_) *wk, unsigned char *mem, unsigned c) {
    size_t nb = (size_t)1 << (c - 1), at = 0;
#define MSM_CARVE_(field, count)                                              \
    do {                                                                      \
        if (wk) wk->field = (void *)(mem + at);                               \
        at += zkp_msm_align64((count) * sizeof(*((MSM_FN(msm_batch_work_) *)0)->field)); \
    } while (0)
    MSM_CARVE_(aff, nb);
    MSM_CARVE_(side, nb);
    MSM_CARVE_(tag, nb);
    MSM_CARVE_(dst, ZKP_MSM_BATCH);
    MSM_CARVE_(src, ZKP_MSM_BATCH);
    MSM_CARVE_(pts, ZKP_MSM_BATCH);
    MSM_CARVE_(den, ZKP_MSM_BATCH);
    MSM_CARVE_(pre, ZKP_MSM_BATCH);
    MSM_CARVE_(dbidx, ZKP_MSM_BATCH);
    MSM_CARVE_(dpts, ZKP_MSM_BATCH);
    MSM_CARVE_(lane, 2 * MSM_LANES_);
#undef MSM_CARVE_
    return at;
}

/* Completes the k pending additions *dst[j] += *src[j], whose x
 * differences den[j] = src.x - dst.x are in place and nonzero: eight at a
 * time with AVX-512 IFMA where the CPU has it (msm_ifma.h), for batches
 * large enough that the padding of the last row does not dominate. */
static void MSM_FN(msm_batch_flush_)(MSM_FN(msm_batch_work_) *wk, size_t k) {
    if (k == 0) return;
#ifdef ZKP_HAVE_X86_ASM
    if (zkp_cpu_use_ifma && k >= ZKP_MSM_IFMA_MIN_BATCH) {
        MSM_FN(msm_ifma_batch_add)(wk->dst, wk->src, wk->den, k);
        return;
    }
#endif
    wk->pre[0] = wk->den[0];
    for (size_t j = 1; j < k; j++) MSM_FF(mul)(&wk->pre[j], &wk->pre[j - 1], &wk->den[j]);
    MSM_F inv, dinv, lam, t;
    MSM_FF(inv_var)(&inv, &wk->pre[k - 1]);
    for (size_t j = k; j-- > 0;) {
        /* inv = 1 / (den[0] ... den[j]) here. */
        if (j > 0) {
            MSM_FF(mul)(&dinv, &inv, &wk->pre[j - 1]);
            MSM_FF(mul)(&inv, &inv, &wk->den[j]);
        } else {
            dinv = inv;
        }
        MSM_AFF *b = wk->dst[j];
        const MSM_AFF *p = wk->src[j];
        /* lambda = (y2 - y1) / (x2 - x1), x3 = lambda^2 - x1 - x2,
         * y3 = lambda (x1 - x3) - y1 */
        MSM_FF(sub)(&lam, &p->y, &b->y);
        MSM_FF(mul)(&lam, &lam, &dinv);
        MSM_FF(sqr)(&t, &lam);
        MSM_FF(sub)(&t, &t, &b->x);
        MSM_FF(sub)(&t, &t, &p->x);
        MSM_FF(sub)(&b->x, &b->x, &t);
        MSM_FF(mul)(&b->x, &b->x, &lam);
        MSM_FF(sub)(&b->y, &b->x, &b->y);
        b->x = t;
    }
}

/* The per-window state of the batch kernel between the pushes. */
typedef struct {
    size_t k;       /* pending additions in the batch */
    size_t limit;   /* the batch is completed when k reaches this */
    size_t ndefer;  /* points in the deferred list */
    uint32_t batch; /* the current batch number; tag 1 marks a bucket that
                     * holds a point with nothing pending, so numbers start at 2 */
} MSM_FN(msm_batch_state_);

static inline void MSM_FN(msm_batch_begin_)(MSM_FN(msm_batch_work_) *wk, MSM_FN(msm_batch_state_) *st,
                                            size_t top) {
    memset(wk->side, 0, top * sizeof *wk->side);
    memset(wk->tag, 0, top * sizeof *wk->tag);
    st->k = 0;
    st->ndefer = 0;
    st->batch = 2;
    /* A window with few buckets (the top window, where the digits take few
     * values) meets a pending bucket more often the fuller the batch is.
     * Completing the batch at half the buckets keeps that near one point
     * in four. */
    st->limit = top / 2;
    if (st->limit < ZKP_MSM_BATCH_MIN) st->limit = ZKP_MSM_BATCH_MIN;
    if (st->limit > ZKP_MSM_BATCH) st->limit = ZKP_MSM_BATCH;
}

/* Bucket b (0-based) += p, p not at infinity, for a bucket with nothing
 * pending: into the empty bucket, the side bucket, or the batch. The batch
 * may be left full; the callers flush it. */
static inline void MSM_FN(msm_batch_place_)(MSM_FN(msm_batch_work_) *wk, MSM_FN(msm_batch_state_) *st,
                                            size_t b, const MSM_AFF *p) {
    if (wk->tag[b] == 0) {
        wk->aff[b] = *p;
        wk->tag[b] = 1;
        return;
    }
    if (MSM_FF(eq)(&wk->aff[b].x, &p->x)) {
        MSM_FN(xyzz_add_affine_var)(&wk->side[b], &wk->side[b], p);
        return;
    }
    size_t k = st->k++;
    wk->tag[b] = st->batch;
    wk->dst[k] = &wk->aff[b];
    wk->pts[k] = *p;
    wk->src[k] = &wk->pts[k];
    MSM_FF(sub)(&wk->den[k], &p->x, &wk->aff[b].x);
}

/* Completes the batch, opens the next one and moves the deferred points
 * into it. None of their buckets is pending once the batch is complete, so
 * the first of them always gets in and the list shrinks; the ones that meet
 * a bucket another of them has just made pending wait again. The list holds
 * at most ZKP_MSM_BATCH points, so the new batch cannot overflow. */
static void MSM_FN(msm_batch_next_)(MSM_FN(msm_batch_work_) *wk, MSM_FN(msm_batch_state_) *st) {
    MSM_FN(msm_batch_flush_)(wk, st->k);
    st->k = 0;
    st->batch++;
    size_t keep = 0;
    for (size_t j = 0; j < st->ndefer; j++) {
        size_t b = wk->dbidx[j];
        if (wk->tag[b] == st->batch) {
            wk->dbidx[keep] = (uint32_t)b;
            wk->dpts[keep++] = wk->dpts[j];
        } else {
            MSM_FN(msm_batch_place_)(wk, st, b, &wk->dpts[j]);
        }
    }
    st->ndefer = keep;
}

/* Bucket b (0-based) += p, p not at infinity. */
static inline void MSM_FN(msm_batch_push_)(MSM_FN(msm_batch_work_) *wk, MSM_FN(msm_batch_state_) *st,
                                           size_t b, const MSM_AFF *p) {
    /* With the deferred list full, a batch that has gathered enough
     * additions to be worth its inversion is completed early, which frees
     * the bucket and most of the list. Where the digits take only a handful
     * of values (the top window of the GLV half-scalars), the list fills
     * with points that wait on the same few buckets, and sending them all
     * to the side buckets cost a third of that window's points an XYZZ
     * addition. A smaller batch still goes to the side bucket. */
    if (wk->tag[b] == st->batch && st->ndefer == ZKP_MSM_BATCH && st->k >= ZKP_MSM_BATCH_MIN / 2) {
        do MSM_FN(msm_batch_next_)(wk, st);
        while (st->k >= st->limit);
    }
    if (wk->tag[b] == st->batch) {
        if (st->ndefer == ZKP_MSM_BATCH) {
            MSM_FN(xyzz_add_affine_var)(&wk->side[b], &wk->side[b], p);
        } else {
            wk->dbidx[st->ndefer] = (uint32_t)b;
            wk->dpts[st->ndefer++] = *p;
        }
        return;
    }
    MSM_FN(msm_batch_place_)(wk, st, b, p);
    while (st->k >= st->limit) MSM_FN(msm_batch_next_)(wk, st);
}

/* acc += p on affine points, either of which may be infinity (*acc_inf
 * says for acc). Additions that the affine formula takes are queued in the
 * batch (at most ZKP_MSM_BATCH before a flush); doubling and cancelling,
 * rare here, are done at once in Jacobian form. */
static void MSM_FN(msm_lane_add_)(MSM_FN(msm_batch_work_) *wk, size_t *k, MSM_AFF *acc, int *acc_inf,
                                  const MSM_AFF *p) {
    if (*acc_inf) {
        *acc = *p;
        *acc_inf = 0;
        return;
    }
    if (MSM_FF(eq)(&acc->x, &p->x)) {
        MSM_JAC a, b;
        MSM_FN(from_affine)(&a, acc);
        MSM_FN(from_affine)(&b, p);
        MSM_FN(add)(&a, &a, &b);
        MSM_FN(batch_to_affine_var)(acc, &a, 1);
        *acc_inf = MSM_FN(is_infinity)(&a);
        return;
    }
    wk->dst[*k] = acc;
    wk->src[*k] = p;
    MSM_FF(sub)(&wk->den[*k], &p->x, &acc->x);
    ++*k;
}

/* The reduction sum over b of (b + 1) B_b for buckets [0, top), the
 * running-sum way but with affine additions. Run on its own, the running
 * sum is a chain: each addition needs the one before, so it cannot share
 * an inversion and costs two XYZZ additions per bucket (about 24
 * multiplications), a fifth of a window's work at c = 11. Cut into
 * MSM_LANES_ segments of len buckets, the segments' running sums advance in
 * lockstep, one bucket per step, and the additions of a step share one
 * inversion: two affine additions per bucket, about 12 multiplications, plus
 * two inversions per step. Segment s holds buckets [s len, (s + 1) len) and
 * gives R_s (its sum) and S_s = sum over its buckets of (b - s len + 1) B_b,
 * so the total is sum_s S_s + len sum_s s R_s; the last sum is a running
 * sum over the lanes. */
static void MSM_FN(msm_reduce_lanes_)(MSM_JAC *out, MSM_FN(msm_batch_work_) *wk, size_t top) {
    size_t len = (top + MSM_LANES_ - 1) / MSM_LANES_;
    MSM_AFF *run = wk->lane, *sum = wk->lane + MSM_LANES_;
    int run_inf[MSM_LANES_], sum_inf[MSM_LANES_];
    for (size_t s = 0; s < MSM_LANES_; s++) run_inf[s] = sum_inf[s] = 1;
    for (size_t j = len; j-- > 0;) {
        size_t k = 0;
        for (size_t s = 0; s < MSM_LANES_; s++) {
            size_t b = s * len + j;
            if (b < top && wk->tag[b]) MSM_FN(msm_lane_add_)(wk, &k, &run[s], &run_inf[s], &wk->aff[b]);
        }
        MSM_FN(msm_batch_flush_)(wk, k);
        k = 0;
        for (size_t s = 0; s < MSM_LANES_; s++)
            if (!run_inf[s]) MSM_FN(msm_lane_add_)(wk, &k, &sum[s], &sum_inf[s], &run[s]);
        MSM_FN(msm_batch_flush_)(wk, k);
    }
    MSM_XYZZ lanes_run, lanes_sum, total;
    MSM_FN(xyzz_set_infinity)(&lanes_run);
    MSM_FN(xyzz_set_infinity)(&lanes_sum);
    MSM_FN(xyzz_set_infinity)(&total);
    for (size_t s = MSM_LANES_; s-- > 1;) {
        if (!run_inf[s]) MSM_FN(xyzz_add_affine_var)(&lanes_run, &lanes_run, &run[s]);
        MSM_FN(xyzz_add_var)(&lanes_sum, &lanes_sum, &lanes_run);
    }
    for (size_t s = 0; s < MSM_LANES_; s++)
        if (!sum_inf[s]) MSM_FN(xyzz_add_affine_var)(&total, &total, &sum[s]);
    /* total + len lanes_sum, len by doublings and additions (len < 2^16). */
    MSM_JAC t, scaled;
    uint64_t kl[ZKP_MSM_SCALAR_LIMBS] = {len, 0, 0, 0};
    MSM_FN(xyzz_to_jacobian)(&t, &lanes_sum);
    MSM_FN(mul_var)(&scaled, &t, kl, 16);
    MSM_FN(xyzz_to_jacobian)(&t, &total);
    MSM_FN(add)(out, &t, &scaled);
}

/* Folds each non-empty side bucket into its affine bucket, one inversion
 * each: the lanes add affine buckets only. Side buckets are rare since
 * conflicts wait for the next batch. */
static void MSM_FN(msm_fold_side_)(MSM_FN(msm_batch_work_) *wk, size_t top) {
    for (size_t b = 0; b < top; b++) {
        if (MSM_FN(xyzz_is_infinity)(&wk->side[b])) continue;
        MSM_XYZZ t = wk->side[b];
        if (wk->tag[b]) MSM_FN(xyzz_add_affine_var)(&t, &t, &wk->aff[b]);
        MSM_JAC j;
        MSM_FN(xyzz_to_jacobian)(&j, &t);
        MSM_FN(batch_to_affine_var)(&wk->aff[b], &j, 1);
        wk->tag[b] = !MSM_FN(is_infinity)(&j);
    }
}

/* Completes the batch and the deferred points, and reduces buckets
 * [0, top) into out: in lanes, or, for few buckets, where the lanes would
 * have only a few steps each, by the plain XYZZ running sum. */
static void MSM_FN(msm_batch_end_)(MSM_JAC *out, MSM_FN(msm_batch_work_) *wk, MSM_FN(msm_batch_state_) *st,
                                   size_t top) {
    while (st->ndefer > 0) MSM_FN(msm_batch_next_)(wk, st);
    MSM_FN(msm_batch_flush_)(wk, st->k);
    if (top >= 8 * MSM_LANES_) {
        MSM_FN(msm_fold_side_)(wk, top);
        MSM_FN(msm_reduce_lanes_)(out, wk, top);
        return;
    }
    MSM_XYZZ run, sum;
    MSM_FN(xyzz_set_infinity)(&run);
    MSM_FN(xyzz_set_infinity)(&sum);
    for (size_t b = top; b >= 1; b--) {
        if (wk->tag[b - 1]) MSM_FN(xyzz_add_affine_var)(&run, &run, &wk->aff[b - 1]);
        MSM_FN(xyzz_add_var)(&run, &run, &wk->side[b - 1]);
        MSM_FN(xyzz_add_var)(&sum, &sum, &run);
    }
    MSM_FN(xyzz_to_jacobian)(out, &sum);
}

void MSM_FN(msm_window_batch_var)(MSM_JAC *out, void *work, const MSM_AFF *bases,
                                  const uint64_t *scalars, const uint32_t *idx, size_t lo, size_t hi,
                                  unsigned c, unsigned w) {
    MSM_FN(msm_batch_work_) wk;
    MSM_FN(msm_batch_state_) st;
    MSM_FN(msm_batch_layout_)(&wk, work, c);
    size_t top = 0;
    for (size_t j = lo; j < hi; j++) {
        size_t i = idx ? idx[j] : j;
        int32_t d = zkp_msm_digit(scalars + ZKP_MSM_SCALAR_LIMBS * i, c, w);
        size_t b = (size_t)(d < 0 ? -(int64_t)d : d);
        if (b > top) top = b;
    }
    MSM_FN(msm_batch_begin_)(&wk, &st, top);
    for (size_t j = lo; j < hi; j++) {
        size_t i = idx ? idx[j] : j;
        int32_t d = zkp_msm_digit(scalars + ZKP_MSM_SCALAR_LIMBS * i, c, w);
        if (d == 0 || MSM_FN(affine_is_infinity)(&bases[i])) continue;
        MSM_AFF p = bases[i];
        if (d < 0) MSM_FN(affine_neg)(&p, &p);
        MSM_FN(msm_batch_push_)(&wk, &st, (size_t)(d < 0 ? -(int64_t)d : d) - 1, &p);
    }
    MSM_FN(msm_batch_end_)(out, &wk, &st, top);
}

#ifdef MSM_GLV
/* Each point feeds two buckets per window: P_j by the digit of k1 and
 * phi(P_j) by the digit of k2, phi computed here (one multiplication)
 * rather than stored, so the bases are read as they are. */
void MSM_FN(msm_window_glv_batch_var)(MSM_JAC *out, void *work, const MSM_AFF *bases,
                                      const uint64_t *ks, const uint32_t *idx, size_t lo, size_t hi,
                                      unsigned c, unsigned w) {
    MSM_FN(msm_batch_work_) wk;
    MSM_FN(msm_batch_state_) st;
    MSM_FN(msm_batch_layout_)(&wk, work, c);
    size_t top = 0;
    for (size_t j = lo; j < hi; j++) {
        int32_t d1 = zkp_msm_digit_s128(ks + 4 * j, c, w), d2 = zkp_msm_digit_s128(ks + 4 * j + 2, c, w);
        size_t b1 = (size_t)(d1 < 0 ? -(int64_t)d1 : d1), b2 = (size_t)(d2 < 0 ? -(int64_t)d2 : d2);
        if (b1 > top) top = b1;
        if (b2 > top) top = b2;
    }
    MSM_FN(msm_batch_begin_)(&wk, &st, top);
    for (size_t j = lo; j < hi; j++) {
        size_t i = idx ? idx[j] : j;
        int32_t d1 = zkp_msm_digit_s128(ks + 4 * j, c, w), d2 = zkp_msm_digit_s128(ks + 4 * j + 2, c, w);
        if ((d1 | d2) == 0 || MSM_FN(affine_is_infinity)(&bases[i])) continue;
        MSM_AFF p;
        if (d1 != 0) {
            p = bases[i];
            if (d1 < 0) MSM_FN(affine_neg)(&p, &p);
            MSM_FN(msm_batch_push_)(&wk, &st, (size_t)(d1 < 0 ? -(int64_t)d1 : d1) - 1, &p);
        }
        if (d2 != 0) {
            MSM_FN(affine_glv_phi)(&p, &bases[i]);
            if (d2 < 0) MSM_FN(affine_neg)(&p, &p);
            MSM_FN(msm_batch_push_)(&wk, &st, (size_t)(d2 < 0 ? -(int64_t)d2 : d2) - 1, &p);
        }
    }
    MSM_FN(msm_batch_end_)(out, &wk, &st, top);
}
#endif

size_t MSM_FN(msm_window_work_bytes)(unsigned c) {
    if (c < 1 || c > ZKP_MSM_MAX_C) return 0;
    return MSM_FN(msm_batch_layout_)(NULL, NULL, c);
}

#undef MSM_F
#undef MSM_FF
#undef MSM_LANES_

void MSM_FN(msm_combine_windows)(MSM_JAC *out, const MSM_JAC *sums, unsigned nwin, unsigned c) {
    MSM_JAC acc;
    MSM_FN(set_infinity)(&acc);
    for (unsigned w = nwin; w-- > 0;) {
        if (w + 1 < nwin)
            for (unsigned i = 0; i < c; i++) MSM_FN(dbl)(&acc, &acc);
        MSM_FN(add)(&acc, &acc, &sums[w]);
    }
    *out = acc;
}

void MSM_FN(msm_sum_affine_var)(MSM_XYZZ *acc, const MSM_AFF *bases, const uint32_t *idx, size_t lo,
                                size_t hi) {
    for (size_t j = lo; j < hi; j++)
        MSM_FN(xyzz_add_affine_var)(acc, acc, &bases[idx ? idx[j] : j]);
}

/* The straight path for a few points: one wNAF multiplication each. With
 * skip01 set, scalars 0 and 1 are left out (the split path has handled them). */
static void MSM_FN(msm_straight_)(MSM_JAC *out, const MSM_AFF *bases, const uint64_t *scalars,
                                  size_t n, int skip01) {
    MSM_JAC acc, p, t;
    MSM_FN(set_infinity)(&acc);
    for (size_t i = 0; i < n; i++) {
        const uint64_t *k = scalars + ZKP_MSM_SCALAR_LIMBS * i;
        uint64_t high = k[1] | k[2] | k[3];
        if (high == 0 && (k[0] == 0 || (skip01 && k[0] == 1))) continue;
        MSM_FN(from_affine)(&p, &bases[i]);
        MSM_FN(mul_var)(&t, &p, k, MSM_BITS);
        MSM_FN(add)(&acc, &acc, &t);
    }
    *out = acc;
}

/* ---------------------------------------------------------------- scratch */

#ifdef MSM_GLV
#define MSM_GLV_BITS_ ZKP_GLV_BITS
#else
#define MSM_GLV_BITS_ 0
#endif

/* Partial sums: one per (window, chunk) unit. Units never exceed
 * W ceil(T / W) <= W + T - 1, and W <= ZKP_MSM_MAX_WINDOWS for any c. */
static size_t MSM_FN(msm_slots_bytes_)(unsigned nthreads) {
    return zkp_msm_align64(((size_t)ZKP_MSM_MAX_WINDOWS + nthreads) * sizeof(MSM_JAC));
}

static size_t MSM_FN(msm_bucket_stride_)(unsigned c) { return MSM_FN(msm_window_work_bytes)(c); }

size_t MSM_FN(msm_pippenger_scratch_bytes)(size_t n, unsigned c, unsigned nthreads) {
    (void)n; /* the buckets, not the points, take the memory */
    if (c < 1 || c > ZKP_MSM_MAX_C || nthreads == 0) return 0;
    /* 64 bytes of slack let the caller's buffer start anywhere. */
    return 64 + MSM_FN(msm_slots_bytes_)(nthreads) + (size_t)nthreads * MSM_FN(msm_bucket_stride_)(c);
}

#ifdef MSM_GLV
/* The decomposed scalars follow Pippenger's part: k1 and k2 of each point,
 * 32 bytes, as zkp_glv_decompose writes them. */
size_t MSM_FN(msm_pippenger_glv_scratch_bytes)(size_t n, unsigned c, unsigned nthreads) {
    size_t a = MSM_FN(msm_pippenger_scratch_bytes)(n, c, nthreads), ks, total;
    if (a == 0) return 0;
    if (zkp_mul_overflow(n, 4 * sizeof(uint64_t), &ks) || zkp_add_overflow(a, ks, &total)) return SIZE_MAX;
    return total;
}
#endif

/* Scratch for Pippenger over at most n points as the entry points run it,
 * which may take either form: enough for the plain form at the width chosen
 * for n and, with the endomorphism, for the GLV form at its width for as
 * many points as it may take. Widths are nondecreasing in n, so any smaller
 * set of points fits as well. */
static size_t MSM_FN(msm_pip_any_bytes_)(size_t n, unsigned nthreads) {
    size_t a = MSM_FN(msm_pippenger_scratch_bytes)(n, zkp_msm_choose_c(n, nthreads, MSM_BITS), nthreads);
#ifdef MSM_GLV
    size_t m = n < ZKP_MSM_GLV_MAX_N ? n : ZKP_MSM_GLV_MAX_N;
    size_t g = MSM_FN(msm_pippenger_glv_scratch_bytes)(m, zkp_msm_choose_glv_c(m, nthreads, MSM_GLV_BITS_),
                                                       nthreads);
    if (g > a) a = g;
#endif
    return a;
}

/* The split path lays out, after aligning: the index array (ones from the
 * front, tail from the back) of one block, the batch-add partials, then
 * Pippenger's scratch for the block. */
static size_t MSM_FN(msm_split_index_bytes_)(size_t n) {
    if (n > ZKP_MSM_SPLIT_BLOCK) n = ZKP_MSM_SPLIT_BLOCK;
    return zkp_msm_align64(n * sizeof(uint32_t));
}

static size_t MSM_FN(msm_ones_bytes_)(unsigned nthreads) {
    return zkp_msm_align64((size_t)nthreads * sizeof(MSM_XYZZ));
}

size_t MSM_FN(msm_scratch_bytes)(size_t n, unsigned nthreads) {
    if (n < ZKP_MSM_SMALL_N) return 0;
    if (nthreads == 0) nthreads = 1;
    size_t block = n > ZKP_MSM_SPLIT_BLOCK ? ZKP_MSM_SPLIT_BLOCK : n;
    size_t a = MSM_FN(msm_pip_any_bytes_)(block, nthreads);
    size_t total;
    /* The split path aligns the buffer once more before Pippenger's part,
     * hence another 64 bytes of slack. */
    if (a == SIZE_MAX || zkp_add_overflow(a + 64, MSM_FN(msm_split_index_bytes_)(n), &total) ||
        zkp_add_overflow(total, MSM_FN(msm_ones_bytes_)(nthreads), &total))
        return SIZE_MAX;
    /* G_msm_mt_var on more than one block runs Pippenger over all n points,
     * in the plain form (n is past ZKP_MSM_GLV_MAX_N) at the width chosen
     * for n. */
    if (n > block) {
        size_t b = MSM_FN(msm_pippenger_scratch_bytes)(n, zkp_msm_choose_c(n, nthreads, MSM_BITS),
                                                       nthreads);
        if (b > total) total = b;
    }
    return total;
}

/* ---------------------------------------------------------------- Pippenger */

typedef struct {
    const MSM_AFF *bases;
    const uint64_t *scalars; /* the plain form's scalars, or the decomposed ones */
    const uint32_t *idx;
    size_t n, ch, stride;
    unsigned c;
    MSM_JAC *slots;
    unsigned char *buckets;
} MSM_FN(msm_pip_ctx_);

static void MSM_FN(msm_pip_unit_)(void *arg, unsigned tid, size_t unit) {
    MSM_FN(msm_pip_ctx_) *x = arg;
    size_t w = unit / x->ch, j = unit % x->ch;
    size_t lo = (size_t)((unsigned __int128)x->n * j / x->ch);
    size_t hi = (size_t)((unsigned __int128)x->n * (j + 1) / x->ch);
    MSM_FN(msm_window_batch_var)(&x->slots[unit], x->buckets + (size_t)tid * x->stride, x->bases,
                                 x->scalars, x->idx, lo, hi, x->c, (unsigned)w);
}

/* Lays out Pippenger's part of the scratch, runs every (window, chunk)
 * unit and combines the windows. */
static void MSM_FN(msm_pip_run_)(MSM_JAC *out, MSM_FN(msm_pip_ctx_) *x, unsigned nwin, unsigned nthreads,
                                 void *scratch, zkp_unit_fn unit) {
    x->ch = zkp_msm_chunks_per_window(nwin, nthreads);
    x->stride = MSM_FN(msm_bucket_stride_)(x->c);
    x->slots = (MSM_JAC *)zkp_msm_align64((uintptr_t)scratch);
    x->buckets = (unsigned char *)x->slots + MSM_FN(msm_slots_bytes_)(nthreads);
    zkp_parallel_for(nthreads, (size_t)nwin * x->ch, unit, x);
    /* Fold the chunks of each window into slot w, in a fixed order. Slot w
     * is free by then: it held a chunk of window w / ch <= w, already read. */
    for (size_t w = 0; w < nwin; w++) {
        MSM_JAC s = x->slots[w * x->ch];
        for (size_t j = 1; j < x->ch; j++) MSM_FN(add)(&s, &s, &x->slots[w * x->ch + j]);
        x->slots[w] = s;
    }
    MSM_FN(msm_combine_windows)(out, x->slots, nwin, x->c);
}

zkpipe_status MSM_FN(msm_pippenger_var)(MSM_JAC *out, const MSM_AFF *bases, const uint64_t *scalars,
                                    const uint32_t *idx, size_t n, unsigned c, unsigned nthreads,
                                    void *scratch, size_t scratch_len) {
    if (!out || c < 1 || c > ZKP_MSM_MAX_C || nthreads == 0) return ZKPIPE_ERR_INVALID_ARGUMENT;
    if (n > 0 && (!bases || !scalars)) return ZKPIPE_ERR_INVALID_ARGUMENT;
    size_t need = MSM_FN(msm_pippenger_scratch_bytes)(n, c, nthreads);
    if (!scratch || scratch_len < need) return ZKPIPE_ERR_INVALID_ARGUMENT;
    MSM_FN(msm_pip_ctx_) x;
    x.bases = bases;
    x.scalars = scalars;
    x.idx = idx;
    x.n = n;
    x.c = c;
    MSM_FN(msm_pip_run_)(out, &x, MSM_FN(msm_num_windows)(c), nthreads, scratch, MSM_FN(msm_pip_unit_));
    return ZKPIPE_OK;
}

#ifdef MSM_GLV
static void MSM_FN(msm_glv_unit_)(void *arg, unsigned tid, size_t unit) {
    MSM_FN(msm_pip_ctx_) *x = arg;
    size_t w = unit / x->ch, j = unit % x->ch;
    size_t lo = (size_t)((unsigned __int128)x->n * j / x->ch);
    size_t hi = (size_t)((unsigned __int128)x->n * (j + 1) / x->ch);
    MSM_FN(msm_window_glv_batch_var)(&x->slots[unit], x->buckets + (size_t)tid * x->stride, x->bases,
                                     x->scalars, x->idx, lo, hi, x->c, (unsigned)w);
}

/* Points per unit of the decomposition: enough to dwarf a unit's hand-out,
 * few enough to spread 2^16 points over several threads. */
#define MSM_GLV_DEC_UNIT_ 4096

typedef struct {
    const uint64_t *scalars;
    const uint32_t *idx;
    uint64_t *ks;
    size_t n;
} MSM_FN(msm_glv_dec_ctx_);

static void MSM_FN(msm_glv_dec_unit_)(void *arg, unsigned tid, size_t unit) {
    MSM_FN(msm_glv_dec_ctx_) *x = arg;
    (void)tid;
    size_t lo = unit * MSM_GLV_DEC_UNIT_, hi = lo + MSM_GLV_DEC_UNIT_;
    if (hi > x->n) hi = x->n;
    for (size_t j = lo; j < hi; j++) {
        size_t i = x->idx ? x->idx[j] : j;
        zkp_glv_decompose(x->ks + 4 * j, x->scalars + ZKP_MSM_SCALAR_LIMBS * i, &MSM_GLV);
    }
}

zkpipe_status MSM_FN(msm_pippenger_glv_var)(MSM_JAC *out, const MSM_AFF *bases, const uint64_t *scalars,
                                        const uint32_t *idx, size_t n, unsigned c, unsigned nthreads,
                                        void *scratch, size_t scratch_len) {
    if (!out || c < 1 || c > ZKP_MSM_MAX_C || nthreads == 0) return ZKPIPE_ERR_INVALID_ARGUMENT;
    if (n > 0 && (!bases || !scalars)) return ZKPIPE_ERR_INVALID_ARGUMENT;
    size_t need = MSM_FN(msm_pippenger_glv_scratch_bytes)(n, c, nthreads);
    if (!scratch || scratch_len < need || need == SIZE_MAX) return ZKPIPE_ERR_INVALID_ARGUMENT;
    /* The decomposed scalars go after Pippenger's part, whose 64 bytes of
     * slack pay for aligning the start. */
    unsigned char *base = (unsigned char *)zkp_msm_align64((uintptr_t)scratch);
    MSM_FN(msm_glv_dec_ctx_) sp;
    sp.scalars = scalars;
    sp.idx = idx;
    sp.ks = (uint64_t *)(void *)(base + MSM_FN(msm_slots_bytes_)(nthreads) +
                                 (size_t)nthreads * MSM_FN(msm_bucket_stride_)(c));
    sp.n = n;
    zkp_parallel_for(nthreads, (n + MSM_GLV_DEC_UNIT_ - 1) / MSM_GLV_DEC_UNIT_,
                     MSM_FN(msm_glv_dec_unit_), &sp);
    MSM_FN(msm_pip_ctx_) x;
    x.bases = bases;
    x.scalars = sp.ks;
    x.idx = idx;
    x.n = n;
    x.c = c;
    MSM_FN(msm_pip_run_)(out, &x, MSM_FN(msm_glv_num_windows)(c), nthreads, scratch, MSM_FN(msm_glv_unit_));
    return ZKPIPE_OK;
}
#endif

/* Pippenger over n points (bases[idx[j]] when idx is given) in the form and
 * width the cost model picks, with c never above the widths that scratch
 * was sized for (msm_pip_any_bytes_ of sized_n points). */
static zkpipe_status MSM_FN(msm_pip_auto_)(MSM_JAC *out, const MSM_AFF *bases, const uint64_t *scalars,
                                           const uint32_t *idx, size_t n, size_t sized_n,
                                           unsigned nthreads, void *scratch, size_t scratch_len) {
    zkp_msm_plan plan = zkp_msm_choose(n, nthreads, MSM_BITS, MSM_GLV_BITS_);
#ifdef MSM_GLV
    if (plan.glv) {
        unsigned cmax = zkp_msm_choose_glv_c(sized_n < ZKP_MSM_GLV_MAX_N ? sized_n : ZKP_MSM_GLV_MAX_N,
                                             nthreads, MSM_GLV_BITS_);
        return MSM_FN(msm_pippenger_glv_var)(out, bases, scalars, idx, n, plan.c < cmax ? plan.c : cmax,
                                             nthreads, scratch, scratch_len);
    }
#endif
    unsigned cmax = zkp_msm_choose_c(sized_n, nthreads, MSM_BITS);
    return MSM_FN(msm_pippenger_var)(out, bases, scalars, idx, n, plan.c < cmax ? plan.c : cmax, nthreads,
                                     scratch, scratch_len);
}

/* ---------------------------------------------------------------- entry points */

zkpipe_status MSM_FN(msm_mt_var)(MSM_JAC *out, const MSM_AFF *bases, const uint64_t *scalars, size_t n,
                             unsigned nthreads, void *scratch, size_t scratch_len) {
    if (!out || nthreads == 0) return ZKPIPE_ERR_INVALID_ARGUMENT;
    if (n > 0 && (!bases || !scalars)) return ZKPIPE_ERR_INVALID_ARGUMENT;
    if (scratch_len < MSM_FN(msm_scratch_bytes)(n, nthreads)) return ZKPIPE_ERR_INVALID_ARGUMENT;
    if (n < ZKP_MSM_SMALL_N) {
        MSM_FN(msm_straight_)(out, bases, scalars, n, 0);
        return ZKPIPE_OK;
    }
    return MSM_FN(msm_pip_auto_)(out, bases, scalars, NULL, n, n, nthreads, scratch, scratch_len);
}

zkpipe_status MSM_FN(msm_var)(MSM_JAC *out, const MSM_AFF *bases, const uint64_t *scalars, size_t n,
                          void *scratch, size_t scratch_len) {
    return MSM_FN(msm_mt_var)(out, bases, scalars, n, 1, scratch, scratch_len);
}

typedef struct {
    const MSM_AFF *bases;
    const uint32_t *idx;
    size_t n, nunits;
    MSM_XYZZ *acc;
} MSM_FN(msm_ones_ctx_);

static void MSM_FN(msm_ones_unit_)(void *arg, unsigned tid, size_t unit) {
    MSM_FN(msm_ones_ctx_) *x = arg;
    (void)tid;
    size_t lo = (size_t)((unsigned __int128)x->n * unit / x->nunits);
    size_t hi = (size_t)((unsigned __int128)x->n * (unit + 1) / x->nunits);
    MSM_FN(xyzz_set_infinity)(&x->acc[unit]);
    MSM_FN(msm_sum_affine_var)(&x->acc[unit], x->bases, x->idx, lo, hi);
}

/* One block of at most ZKP_MSM_SPLIT_BLOCK points, so 32-bit indices do. */
static zkpipe_status MSM_FN(msm_split_block_)(MSM_JAC *out, zkp_msm_stats *st, const MSM_AFF *bases,
                                              const uint64_t *scalars, size_t n, unsigned nthreads,
                                              size_t n_total, unsigned char *mem, size_t mem_len) {
    size_t zeros = 0, ones = 0, tail = 0;
    for (size_t i = 0; i < n; i++) {
        const uint64_t *k = scalars + ZKP_MSM_SCALAR_LIMBS * i;
        uint64_t high = k[1] | k[2] | k[3];
        if (high != 0 || k[0] > 1)
            tail++;
        else if (k[0] == 0)
            zeros++;
        else
            ones++;
    }
    st->zeros += zeros;
    st->ones += ones;
    st->tail += tail;
    MSM_JAC acc;
    MSM_FN(set_infinity)(&acc);
    if (n < ZKP_MSM_SMALL_N || (ones < ZKP_MSM_SMALL_N && tail < ZKP_MSM_SMALL_N)) {
        /* Too few for either phase to need memory: one pass does both. */
        MSM_XYZZ s;
        MSM_FN(xyzz_set_infinity)(&s);
        for (size_t i = 0; i < n; i++) {
            const uint64_t *k = scalars + ZKP_MSM_SCALAR_LIMBS * i;
            if ((k[1] | k[2] | k[3]) == 0 && k[0] == 1) MSM_FN(xyzz_add_affine_var)(&s, &s, &bases[i]);
        }
        MSM_FN(xyzz_to_jacobian)(&acc, &s);
        MSM_JAC t;
        MSM_FN(msm_straight_)(&t, bases, scalars, n, 1);
        MSM_FN(add)(out, &acc, &t);
        return ZKPIPE_OK;
    }
    uint32_t *idx = (uint32_t *)(void *)mem;
    size_t idx_bytes = MSM_FN(msm_split_index_bytes_)(n);
    MSM_XYZZ *ones_acc = (MSM_XYZZ *)(void *)(mem + idx_bytes);
    unsigned char *pip = mem + idx_bytes + MSM_FN(msm_ones_bytes_)(nthreads);
    size_t pip_len = mem_len - (size_t)(pip - mem);
    /* Ones fill idx from the front and the tail from the back, both in
     * ascending point order. */
    size_t fo = 0, bt = n - tail;
    for (size_t i = 0; i < n; i++) {
        const uint64_t *k = scalars + ZKP_MSM_SCALAR_LIMBS * i;
        uint64_t high = k[1] | k[2] | k[3];
        if (high == 0 && k[0] == 0) continue;
        if (high == 0 && k[0] == 1)
            idx[fo++] = (uint32_t)i;
        else
            idx[bt++] = (uint32_t)i;
    }
    /* The batch add: plain mixed additions, in up to nthreads ranges. */
    if (ones > 0) {
        MSM_FN(msm_ones_ctx_) x;
        x.bases = bases;
        x.idx = idx;
        x.n = ones;
        x.nunits = ones >= (size_t)nthreads * 1024 ? nthreads : 1;
        x.acc = ones_acc;
        zkp_parallel_for(nthreads, x.nunits, MSM_FN(msm_ones_unit_), &x);
        MSM_XYZZ s = ones_acc[0];
        for (size_t u = 1; u < x.nunits; u++) MSM_FN(xyzz_add_var)(&s, &s, &ones_acc[u]);
        MSM_FN(xyzz_to_jacobian)(&acc, &s);
    }
    if (tail > 0) {
        const uint32_t *tidx = idx + (n - tail);
        MSM_JAC t;
        if (tail < ZKP_MSM_SMALL_N) {
            MSM_FN(set_infinity)(&t);
            for (size_t j = 0; j < tail; j++) {
                MSM_JAC p, q;
                MSM_FN(from_affine)(&p, &bases[tidx[j]]);
                MSM_FN(mul_var)(&q, &p, scalars + ZKP_MSM_SCALAR_LIMBS * tidx[j], MSM_BITS);
                MSM_FN(add)(&t, &t, &q);
            }
        } else {
            /* The form and c are chosen for the tail, but c never wider than
             * for the whole input, whose scratch size the caller was told. */
            zkpipe_status s = MSM_FN(msm_pip_auto_)(&t, bases, scalars, tidx, tail,
                                                    n_total > ZKP_MSM_SPLIT_BLOCK ? ZKP_MSM_SPLIT_BLOCK : n_total,
                                                    nthreads, pip, pip_len);
            if (s != ZKPIPE_OK) return s;
        }
        MSM_FN(add)(&acc, &acc, &t);
    }
    *out = acc;
    return ZKPIPE_OK;
}

zkpipe_status MSM_FN(msm_split_var)(MSM_JAC *out, zkp_msm_stats *stats, const MSM_AFF *bases,
                                const uint64_t *scalars, size_t n, unsigned nthreads, void *scratch,
                                size_t scratch_len) {
    if (!out || nthreads == 0) return ZKPIPE_ERR_INVALID_ARGUMENT;
    if (n > 0 && (!bases || !scalars)) return ZKPIPE_ERR_INVALID_ARGUMENT;
    size_t need = MSM_FN(msm_scratch_bytes)(n, nthreads);
    if (scratch_len < need || (need > 0 && !scratch)) return ZKPIPE_ERR_INVALID_ARGUMENT;
    zkp_msm_stats st = {0, 0, 0};
    unsigned char *mem = need ? (unsigned char *)zkp_msm_align64((uintptr_t)scratch) : NULL;
    size_t mem_len = need ? scratch_len - (size_t)(mem - (unsigned char *)scratch) : 0;
    MSM_JAC acc, part;
    MSM_FN(set_infinity)(&acc);
    for (size_t at = 0; at < n; at += ZKP_MSM_SPLIT_BLOCK) {
        size_t len = n - at < ZKP_MSM_SPLIT_BLOCK ? n - at : ZKP_MSM_SPLIT_BLOCK;
        zkpipe_status s = MSM_FN(msm_split_block_)(&part, &st, bases + at,
                                                   scalars + ZKP_MSM_SCALAR_LIMBS * at, len, nthreads,
                                                   n, mem, mem_len);
        if (s != ZKPIPE_OK) return s;
        MSM_FN(add)(&acc, &acc, &part);
    }
    *out = acc;
    if (stats) *stats = st;
    return ZKPIPE_OK;
}

#ifdef MSM_GLV
#undef MSM_GLV_DEC_UNIT_
#endif
#undef MSM_GLV_BITS_
#undef MSM_AFF
#undef MSM_JAC
#undef MSM_XYZZ
#undef MSM_FN
