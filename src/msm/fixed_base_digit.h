/* The signed digits of the fixed-base multiplication (fixed_base_impl.h),
 * one window at a time, for the CPU and for the device (gpu/
 * gpu_fixed_base.cu) alike, so that both take a scalar apart the same way
 * and make the same points from the same table.
 *
 * A scalar k (4 little-endian limbs, k < 2^(nwin·w - 1)) is the sum over
 * the windows of d_win·2^(w·win) with d_win in [-2^(w-1), 2^(w-1)]: a
 * window's w bits plus the carry from the window below, taken as negative
 * (2^w less it, carrying one up) when above half. The top window never
 * carries out when nwin·w >= the scalar's bits + 1. */
#ifndef ZKP_MSM_FIXED_BASE_DIGIT_H
#define ZKP_MSM_FIXED_BASE_DIGIT_H

#include <stdint.h>

#ifdef __CUDACC__
#define ZKP_FB_HD __host__ __device__ __forceinline__
#else
#define ZKP_FB_HD static inline
#endif

/* Digit win of k in windows of w bits (2 <= w <= 31), given the carry out
 * of window win - 1 in *carry (0 for window 0), which it updates. */
ZKP_FB_HD int32_t zkp_fb_digit(const uint64_t k[4], unsigned win, unsigned w, uint32_t *carry) {
    const uint32_t half = (uint32_t)1 << (w - 1), mask = ((uint32_t)1 << w) - 1;
    unsigned pos = win * w, limb = pos / 64, sh = pos % 64;
    uint64_t bits = 0;
    if (limb < 4) {
        bits = k[limb] >> sh;
        if (sh + w > 64 && limb + 1 < 4) bits |= k[limb + 1] << (64 - sh);
    }
    uint32_t v = ((uint32_t)bits & mask) + *carry;
    *carry = v > half;
    return v > half ? (int32_t)v - (int32_t)(mask + 1) : (int32_t)v;
}

#undef ZKP_FB_HD

#endif
