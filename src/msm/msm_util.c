/* The group-independent half of the MSM layer.
 *
 * Threads come from util/parallel.h, the shared fork-join driver: the units
 * of one MSM share nothing but the counter that hands them out; each writes
 * only its own output slot and the bucket array of the thread that runs it
 * (indexed by tid). */
#include "msm/msm_util.h"


/* Cost model for the window width c, in units of one field multiplication.
 *
 * With signed digits a window of width c has 2^(c-1) buckets, and
 * W = ceil((nbits + 1) / c) windows cover an nbits-bit scalar (one bit more
 * than the scalar because the top window must absorb the last carry). One
 * window over m points costs
 *   - m mixed XYZZ bucket additions, about 8M + 2S ~ 10 units each, and
 *   - the running-sum reduction: two XYZZ additions per bucket,
 *     12M + 2S ~ 14 units each, so 2^(c-1) * 28 = 14 * 2^c units.
 * The final combination (nbits doublings, W additions) does not depend on c
 * enough to matter. With T threads the windows are the work units; when
 * T > W each window is cut into ch = ceil(T / W) point ranges, each range
 * paying its own reduction. The wall time is then the number of rounds,
 * ceil(W ch / T), times the cost of one unit, 10 n / ch + 14 * 2^c. The
 * model ignores caches: past the L2 size the bucket array thrashes, which
 * ZKP_MSM_MAX_C bounds. The smallest c of minimal cost wins. */
#ifndef ZKP_MSM_ADD_COST
#define ZKP_MSM_ADD_COST 10.0
#endif

unsigned zkp_msm_choose_c(size_t n, unsigned nthreads, unsigned nbits) {
    if (nthreads == 0) nthreads = 1;
    unsigned best = 1;
    double best_cost = 0;
    for (unsigned c = 1; c <= ZKP_MSM_MAX_C; c++) {
        unsigned nwin = (nbits + 1 + c - 1) / c;
        double ch = (double)zkp_msm_chunks_per_window(nwin, nthreads);
        double rounds = (double)(((size_t)nwin * (size_t)ch + nthreads - 1) / nthreads);
        double cost = rounds * (ZKP_MSM_ADD_COST * (double)n / ch + 14.0 * (double)((size_t)1 << c));
        if (c == 1 || cost < best_cost) {
            best = c;
            best_cost = cost;
        }
    }
    return best;
}

size_t zkp_msm_chunks_per_window(unsigned nwin, unsigned nthreads) {
    if (nwin == 0 || nthreads <= nwin) return 1;
    return ((size_t)nthreads + nwin - 1) / nwin;
}
