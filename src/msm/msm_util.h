/* The group-independent half of the MSM layer: the counts of the split path,
 * the window-size cost model and the small thread driver. See msm.h. */
#ifndef ZKP_MSM_MSM_UTIL_H
#define ZKP_MSM_MSM_UTIL_H

#include <stddef.h>
#include <stdint.h>

#include "util/util.h"

/* Scalars are four 64-bit limbs for both scalar fields. */
#define ZKP_MSM_SCALAR_LIMBS 4
/* Widest window: the bucket array of one thread is 2^(c-1) points, and
 * wider windows only pay off far beyond the sizes a CPU MSM sees. */
#define ZKP_MSM_MAX_C 16
/* The widest window and the most points for the GLV form (the cost model
 * in msm_util.c says why). */
#define ZKP_MSM_GLV_MAX_C 13
#define ZKP_MSM_GLV_MAX_N ((size_t)1 << 17)
/* Most windows any c in [1, ZKP_MSM_MAX_C] needs for a 256-bit scalar. */
#define ZKP_MSM_MAX_WINDOWS 257
/* Below this many points (or tail points in the split) a wNAF
 * multiplication per point beats building buckets. */
#define ZKP_MSM_SMALL_N 32
/* Pending additions gathered for one shared inversion in the batch-affine
 * bucket kernel: enough that the inversion (~100 multiplications) costs
 * under one multiplication per addition. */
#ifndef ZKP_MSM_BATCH
#define ZKP_MSM_BATCH 256
#endif
/* The smallest batch a window with few buckets completes at: below it the
 * inversion outweighs what the affine form saves. */
#define ZKP_MSM_BATCH_MIN 32
/* The split path indexes its tail with 32-bit indices, so it works through
 * blocks of at most this many points. */
#define ZKP_MSM_SPLIT_BLOCK ((size_t)1 << 31)

/* What G_msm_split_var saw: every point is counted in exactly one field. */
typedef struct {
    size_t zeros; /* scalar 0: skipped */
    size_t ones;  /* scalar 1: summed by the batch add */
    size_t tail;  /* anything else: Pippenger (or the straight path when few) */
} zkp_msm_stats;

/* The window width for n points on nthreads threads and nbits-bit scalars,
 * in [1, ZKP_MSM_MAX_C]; nondecreasing in n. */
unsigned zkp_msm_choose_c(size_t n, unsigned nthreads, unsigned nbits);

/* The same for the GLV form of the MSM: 2n points whose scalars are
 * glv_bits-bit two's complement integers, the second n of them computed by
 * the endomorphism. In [1, ZKP_MSM_GLV_MAX_C]; nondecreasing in n. */
unsigned zkp_msm_choose_glv_c(size_t n, unsigned nthreads, unsigned glv_bits);

/* How to run Pippenger over n points: with or without the endomorphism, and
 * the window width. glv_bits = 0 for a group without one. glv is 0 for
 * n > ZKP_MSM_GLV_MAX_N, and c is zkp_msm_choose_c or zkp_msm_choose_glv_c
 * of the form chosen. */
typedef struct {
    unsigned c;
    int glv;
} zkp_msm_plan;
zkp_msm_plan zkp_msm_choose(size_t n, unsigned nthreads, unsigned nbits, unsigned glv_bits);

/* How many point ranges each window is cut into so that nthreads threads
 * have work: 1 while there are at least as many windows as threads. */
size_t zkp_msm_chunks_per_window(unsigned nwin, unsigned nthreads);

/* Rounds p up to a multiple of 64 bytes (a cache line). */
static inline uintptr_t zkp_msm_align64(uintptr_t p) { return (p + 63) & ~(uintptr_t)63; }

/* The signed digit of window w (width c, 1 <= c <= 16) of the 256-bit scalar
 * k: d = v + b - 2^c t, where v holds bits [w c, w c + c) of k, b is bit
 * w c - 1 (0 for w = 0) and t is the top bit of v. Each window reads its own
 * c + 1 bits, so windows need no carry passed between them and can run in any
 * order or in parallel; the sum over w of d_w 2^(w c) telescopes to k as long
 * as the top window's bit W c - 1 is 0. Digits lie in [-2^(c-1), 2^(c-1)]:
 * a nonnegative digit is at most (2^(c-1) - 1) + 1 and a negative one at
 * least 2^(c-1) - 2^c. */
static inline int32_t zkp_msm_digit(const uint64_t *k, unsigned c, unsigned w) {
    size_t pos = (size_t)w * c;
    uint64_t v = 0, b = 0;
    if (pos < 256) {
        size_t limb = pos / 64, off = pos % 64;
        v = k[limb] >> off;
        if (off + c > 64 && limb + 1 < ZKP_MSM_SCALAR_LIMBS) v |= k[limb + 1] << (64 - off);
        v &= ((uint64_t)1 << c) - 1;
    }
    if (pos > 0 && pos - 1 < 256) b = (k[(pos - 1) / 64] >> ((pos - 1) % 64)) & 1;
    uint64_t t = v >> (c - 1);
    return (int32_t)v + (int32_t)b - (int32_t)(t << c);
}

/* The same signed digit for a 128-bit two's complement scalar k (k[0] low),
 * read as sign-extended: window w covers bits [w c, w c + c) and looks at
 * bit w c - 1. The digits telescope to k when -2^(W c - 1) <= k < 2^(W c - 1)
 * for W windows: the bits [0, W c) read as unsigned are k + 2^(W c) for
 * negative k, and the top window's borrow, bit W c - 1 (the sign), takes
 * 2^(W c) away again. Needs w c < 128. */
static inline int32_t zkp_msm_digit_s128(const uint64_t *k, unsigned c, unsigned w) {
    unsigned pos = w * c;
    __int128 v = (__int128)(((unsigned __int128)k[1] << 64) | k[0]);
    /* u: bit pos - 1 (0 below bit 0) then the c bits of the window. */
    uint64_t u = pos ? (uint64_t)(v >> (pos - 1)) : (uint64_t)k[0] << 1;
    u &= ((uint64_t)2 << c) - 1;
    return (int32_t)((u >> 1) + (u & 1)) - (int32_t)((u >> c) << c);
}

#endif
