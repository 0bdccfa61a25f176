/* The group-independent half of the MSM layer.
 *
 * Threads come from util/parallel.h, the shared fork-join driver: the units
 * of one MSM share nothing but the counter that hands them out; each writes
 * only its own output slot and the bucket array of the thread that runs it
 * (indexed by tid). */
#include "msm/msm_util.h"


/* Cost model for the window width c, in relative units: 10 for one bucket
 * addition.
 *
 * With signed digits a window of width c has 2^(c-1) buckets, and
 * W = ceil((nbits + 1) / c) windows cover an nbits-bit scalar (one bit more
 * than the scalar because the top window must absorb the last carry). One
 * window over m points costs
 *   - m bucket additions, 10 units each (batch-affine, about 6.5
 *     multiplications), and
 *   - the reduction, about 28 units per bucket, so 2^(c-1) * 28 = 14 * 2^c.
 *     The model was first written for XYZZ buckets (an addition 8M + 2S,
 *     the reduction two XYZZ additions of 12M + 2S per bucket); the
 *     batch-affine kernel made both cheaper in about the same proportion
 *     (the reduction, in lanes, costs two affine additions per bucket plus a
 *     share of the lanes' inversions, about 17 multiplications); 20 and
 *     14 in its place moved prove times on 2 cores by less than the noise.
 * The final combination (nbits doublings, W additions) does not depend on c
 * enough to matter. With T threads the windows are the work units; when
 * T > W each window is cut into ch = ceil(T / W) point ranges, each range
 * paying its own reduction. The wall time is then the number of rounds,
 * ceil(W ch / T), times the cost of one unit, 10 n / ch + 14 * 2^c. The
 * model ignores caches: past the L2 size the bucket array thrashes, which
 * ZKP_MSM_MAX_C bounds. The smallest c of minimal cost wins.
 *
 * The GLV form has 2n points with glv_bits-bit signed scalars, so
 * W = ceil(glv_bits / c) (two's complement digits need no carry bit): half
 * the windows, each with twice the bucket additions plus phi, one
 * multiplication per point (about 1.5 units against an addition's 10: the
 * batch-affine addition the kernel runs costs about 7 multiplications).
 * The additions stay about the same in number and the reductions halve;
 * the wider c that 2n points afford cuts the additions by about
 * c / (c + 1). Against that stand phi and the decomposition, once per point
 * (about one multiplication, measured, so 1.5 units on the same scale)
 * spread over the threads, and the coarser work units: a GLV window is twice the work of a plain one, so
 * with T threads near or above W the rounds balance worse.
 *
 * Two limits keep the model to what was measured (docs/PERFORMANCE.md,
 * "GLV in the G1 MSMs"). Windows wider than 13 bits make the bucket array
 * of a thread 2^13 affine points or more (0.5 to 0.75 MiB, with the side
 * buckets and tags beside it), which crowds a 1 MiB L2: each further bit
 * then cost roughly 10 % per addition in the sweeps, which the model
 * leaves out. The GLV form, which asks for wider windows than the plain one
 * at the same n, is held to ZKP_MSM_GLV_MAX_C. And above
 * ZKP_MSM_GLV_MAX_N points the GLV form was no faster than the plain one
 * (it needs the wide windows to gain), so it is not considered there; that
 * also bounds its scratch (32 bytes a point) to 4 MiB.
 *
 * With more than one thread the GLV form must also widen the window. At
 * the same c the two forms do about the same work (the reductions saved pay
 * for phi), and the GLV form hands it out in half as many, twice as long
 * units, so the threads finish less evenly: on 2 threads at 2^14 points
 * (c = 11 for both) it measured the same CPU time and 3-5 % more wall time. */
#ifndef ZKP_MSM_ADD_COST
#define ZKP_MSM_ADD_COST 10.0
#endif
#ifndef ZKP_MSM_PHI_COST
#define ZKP_MSM_PHI_COST 1.5
#endif
#ifndef ZKP_MSM_DECOMPOSE_COST
#define ZKP_MSM_DECOMPOSE_COST 1.5
#endif

static double zkp_msm_cost_(size_t n, unsigned nthreads, unsigned nwin, unsigned c, double per_point) {
    double ch = (double)zkp_msm_chunks_per_window(nwin, nthreads);
    double rounds = (double)(((size_t)nwin * (size_t)ch + nthreads - 1) / nthreads);
    return rounds * (per_point * (double)n / ch + 14.0 * (double)((size_t)1 << c));
}

/* The c of least cost (the smallest on ties) and that cost. */
static unsigned zkp_msm_best_c_(size_t n, unsigned nthreads, unsigned bits, int glv, double *cost_out) {
    if (nthreads == 0) nthreads = 1;
    unsigned best = 1;
    double best_cost = 0;
    for (unsigned c = 1; c <= (glv ? ZKP_MSM_GLV_MAX_C : ZKP_MSM_MAX_C); c++) {
        double cost = glv ? zkp_msm_cost_(n, nthreads, (bits + c - 1) / c, c,
                                          2 * ZKP_MSM_ADD_COST + ZKP_MSM_PHI_COST)
                          : zkp_msm_cost_(n, nthreads, (bits + 1 + c - 1) / c, c, ZKP_MSM_ADD_COST);
        if (c == 1 || cost < best_cost) {
            best = c;
            best_cost = cost;
        }
    }
    if (glv) best_cost += ZKP_MSM_DECOMPOSE_COST * (double)n / nthreads;
    if (cost_out) *cost_out = best_cost;
    return best;
}

unsigned zkp_msm_choose_c(size_t n, unsigned nthreads, unsigned nbits) {
    return zkp_msm_best_c_(n, nthreads, nbits, 0, NULL);
}

unsigned zkp_msm_choose_glv_c(size_t n, unsigned nthreads, unsigned glv_bits) {
    return zkp_msm_best_c_(n, nthreads, glv_bits, 1, NULL);
}

zkp_msm_plan zkp_msm_choose(size_t n, unsigned nthreads, unsigned nbits, unsigned glv_bits) {
    zkp_msm_plan plan;
    double plain_cost, glv_cost;
    plan.c = zkp_msm_best_c_(n, nthreads, nbits, 0, &plain_cost);
    plan.glv = 0;
    if (glv_bits > 0 && n <= ZKP_MSM_GLV_MAX_N) {
        unsigned c = zkp_msm_best_c_(n, nthreads, glv_bits, 1, &glv_cost);
        if (glv_cost < plain_cost && (nthreads <= 1 || c > plan.c)) {
            plan.c = c;
            plan.glv = 1;
        }
    }
    return plan;
}

size_t zkp_msm_chunks_per_window(unsigned nwin, unsigned nthreads) {
    if (nwin == 0 || nthreads <= nwin) return 1;
    return ((size_t)nthreads + nwin - 1) / nwin;
}
