/* Lane addresses for the eight-lane IFMA arithmetic (fp8_ifma_body.h),
 * which gathers and scatters through a vector of byte addresses. Only for
 * files compiled for avx512f. */
#ifndef ZKP_FIELD_IFMA_LANES_H
#define ZKP_FIELD_IFMA_LANES_H

#include <immintrin.h>
#include <stdint.h>

/* (0, step, 2 step, ..., 7 step). */
static inline __m512i zkp_ifma_steps(long long step) {
    return _mm512_set_epi64(7 * step, 6 * step, 5 * step, 4 * step, 3 * step, 2 * step, step, 0);
}

/* The byte addresses base, base + stride, ..., base + 7 stride. */
static inline __m512i zkp_ifma_lanes(const void *base, long long stride) {
    return _mm512_add_epi64(_mm512_set1_epi64((long long)(uintptr_t)base), zkp_ifma_steps(stride));
}

#endif
