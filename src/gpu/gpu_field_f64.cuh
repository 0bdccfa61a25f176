/* The Montgomery product on the double-precision pipe: a second multiplier
 * for the four prime fields, with the same inputs and outputs as
 * fp::operator* (a·b·R^(-1) mod p, R = 2^(32N), canonical).
 *
 * Why. The device kernels are bound by the integer multiplier's wide
 * multiply-adds (docs/PERFORMANCE.md, "Where the time goes"): four cycles
 * of the FMA-heavy pipe for a 32 x 32-bit product. An H100 or H200 also has
 * a full-rate FP64 pipe, idle in those kernels, whose fused multiply-add
 * takes two cycles and whose 53-bit significand holds a 48 x 48-bit
 * product in two of them: 2.25 times the bits of a wide multiply-add for
 * each cycle of its pipe. The adds that sum the products' halves run on the
 * integer ALU pipe beside it.
 *
 * An element is K limbs of 48 bits held as exact doubles (8 for 381 bits,
 * 6 for 254 and 255). A limb product x·y (x, y < 2^48) takes three FP64
 * instructions, all rounding to nearest, so that the host (C's fma) and
 * the device give the same bits:
 *
 *   hi = fma(x, y, C1)       C1 = 1.5·2^100: hi = C1 + m·2^48, m the
 *                            nearest integer to x·y / 2^48;
 *   s  = (C1 + C3) - hi      C3 = 1.5·2^52: s = C3 - m·2^48, exact;
 *   lo = fma(x, y, s)        lo = C3 + l, l = x·y - m·2^48, |l| <= 2^47.
 *
 * hi stays in the binade [2^100, 2^101), whose unit is 2^48, and lo in
 * [2^52, 2^53), whose unit is 1; so their bit patterns as integers are
 * bits(C1) + m and bits(C3) + l. Those patterns are summed into 64-bit
 * integer columns (weight 2^(48k)) as they are; each column starts at minus
 * the patterns' offsets that it will hold when it is read, a constant of
 * the loop structure, so the sums come out true. A column holds at most
 * 4K terms below 2^48 in size, far inside 64 bits; the offsets wrap, which
 * unsigned arithmetic makes exact.
 *
 * Montgomery's reduction then runs column by column over digits of 48
 * bits, the last one narrower so that the digits make R exactly (8 x 48 =
 * 384; 5 x 48 + 16 = 256): at column i, the digit d = col_i mod 2^w, q =
 * d·(-p^-1) mod 2^w on the integer pipe, and q·p added from column i,
 * which clears the digit; a full digit's column then carries up. The value
 * left is T/R with T = a·b + Q·p, Q < R, below p²/R + p < 2p for a, b < p;
 * it sits in the columns from the last digit's on, shifted by the digit's
 * width, and one conditional subtraction makes it canonical. */
#ifndef ZKP_GPU_GPU_FIELD_F64_CUH
#define ZKP_GPU_GPU_FIELD_F64_CUH

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gpu/gpu_field.cuh"

namespace zkp_cuda {
namespace f64 {

constexpr int W = 48;
constexpr uint64_t MASK = ((uint64_t)1 << W) - 1;
/* 1.5·2^100, 1.5·2^52 and their sum, which is exact (bits 51 to 100). */
constexpr double C1 = 1901475900342344102245054808064.0;
constexpr double C3 = 6755399441055744.0;
constexpr double C13 = C1 + C3;
/* Their bit patterns: exponent 1123 and 1075, top fraction bit set. */
constexpr uint64_t BITS_C1 = ((uint64_t)(1023 + 100) << 52) | ((uint64_t)1 << 51);
constexpr uint64_t BITS_C3 = ((uint64_t)(1023 + 52) << 52) | ((uint64_t)1 << 51);
/* 2^52, whose pattern with v in the low 48 bits is 2^52 + v. */
constexpr double TWO52 = 4503599627370496.0;
constexpr uint64_t BITS_TWO52 = (uint64_t)(1023 + 52) << 52;

/* The shape of a field's product: K limbs hold an element, and RD digits
 * of the reduction make R, the last one LAST_W bits wide. */
template <class P>
struct shape {
    static_assert(P::BITS + 1 <= 32 * P::N, "T/R < 2p must fit the words");
    static constexpr int K = (P::BITS + W - 1) / W;
    static constexpr int RD = (32 * P::N + W - 1) / W;
    static constexpr int LAST_W = 32 * P::N - W * (RD - 1);
    static_assert(RD <= K, "the reduction's columns stay within the product's");
};

/* Whether field type F is a prime field (an fp, not an extension), which
 * has the FP64 product. */
template <class F>
struct serves {
    static constexpr bool value = false;
};
template <class P>
struct serves<fp<P>> {
    static constexpr bool value = true;
};

/* Whether the kernels that can split their products between the two pipes
 * should (ZKPIPE_GPU_FP64_PRODUCTS=1): the G1 bucket additions (gpu_msm_body.cuh)
 * and the NTT's radix-4 quads (gpu_ntt_body.cuh). A trial switch, read at each
 * launch; the results are the same either way. */
inline bool wanted() {
    const char *v = getenv("ZKPIPE_GPU_FP64_PRODUCTS");
    return v != nullptr && v[0] == '1';
}

ZKP_GPU_HD uint64_t bits_of(double x) {
#ifdef __CUDA_ARCH__
    return (uint64_t)__double_as_longlong(x);
#else
    uint64_t u;
    memcpy(&u, &x, sizeof u);
    return u;
#endif
}

ZKP_GPU_HD double of_bits(uint64_t u) {
#ifdef __CUDA_ARCH__
    return __longlong_as_double((long long)u);
#else
    double x;
    memcpy(&x, &u, sizeof x);
    return x;
#endif
}

ZKP_GPU_HD double fma_rn(double x, double y, double z) {
#ifdef __CUDA_ARCH__
    return __fma_rn(x, y, z);
#else
    return fma(x, y, z);
#endif
}

/* Written out so that nvcc cannot contract it with a product. */
ZKP_GPU_HD double sub_rn(double x, double y) {
#ifdef __CUDA_ARCH__
    return __dsub_rn(x, y);
#else
    return x - y;
#endif
}

/* v < 2^48 as an exact double. */
ZKP_GPU_HD double limb_to_f64(uint64_t v) { return sub_rn(of_bits(BITS_TWO52 | v), TWO52); }

/* Bits [48i, 48i + 48) of a value in 32-bit words: limb i starts at bit 0
 * or 16 of word 3i/2 and ends within the next word. */
ZKP_GPU_HD constexpr uint64_t limb_of(uint32_t w0, uint32_t w1, int i) {
    const int sh = W * i % 32;
    return (((uint64_t)w1 << (32 - sh)) | (w0 >> sh)) & MASK;
}

/* The limb p_j of the modulus, as a double, folded to a constant. */
template <class P>
ZKP_GPU_HD constexpr double modulus_limb(int j) {
    return (double)limb_of(P::p(W * j / 32), W * j / 32 + 1 < P::N ? P::p(W * j / 32 + 1) : 0, j);
}

/* The offsets that column k holds when it is read: bits(C3) for every low
 * half and bits(C1) for every high half summed into it. Low halves of a_i·b_j
 * land on i + j and high halves on i + j + 1, and the reduction's q_i·p_j
 * the same. */
template <int K, int RD>
ZKP_GPU_HD constexpr uint64_t column_offset(int k) {
    uint64_t lo = 0, hi = 0;
    for (int j = 0; j < K; j++) {
        for (int i = 0; i < K; i++) lo += i + j == k, hi += i + j + 1 == k;
        for (int i = 0; i < RD; i++) lo += i + j == k, hi += i + j + 1 == k;
    }
    return lo * BITS_C3 + hi * BITS_C1;
}

/* x·y into the columns: l (with its offset) to lo, m to hi. */
ZKP_GPU_HD void product(double x, double y, uint64_t &lo, uint64_t &hi) {
    const double h = fma_rn(x, y, C1);
    const double l = fma_rn(x, y, sub_rn(C13, h));
    lo += bits_of(l);
    hi += bits_of(h);
}

ZKP_GPU_HD uint64_t carry_of(uint64_t v) { return (uint64_t)((int64_t)v >> W); }

/* a·b·R^(-1) mod p, canonical, for a, b < p in Montgomery form. */
template <class F>
ZKP_GPU_HD F mul(const F &a, const F &b) {
    typedef typename F::params P;
    constexpr int K = shape<P>::K, RD = shape<P>::RD, LAST_W = shape<P>::LAST_W, N = F::N;
    double x[K], y[K];
#pragma unroll
    for (int i = 0; i < K; i++) {
        const int k = W * i / 32;
        x[i] = limb_to_f64(limb_of(a.w[k], k + 1 < N ? a.w[k + 1] : 0, i));
        y[i] = limb_to_f64(limb_of(b.w[k], k + 1 < N ? b.w[k + 1] : 0, i));
    }
    uint64_t col[2 * K + 1];
#pragma unroll
    for (int k = 0; k <= 2 * K; k++) col[k] = (uint64_t)0 - column_offset<K, RD>(k);
#pragma unroll
    for (int i = 0; i < K; i++)
#pragma unroll
        for (int j = 0; j < K; j++) product(x[i], y[j], col[i + j], col[i + j + 1]);
#pragma unroll
    for (int i = 0; i < RD; i++) {
        /* Column i holds all but q_i·p_0's low half, whose offset it has
         * already taken; the offsets are multiples of 2^51, so its digit is
         * already the true one. */
        const uint64_t mask = i + 1 < RD ? MASK : ((uint64_t)1 << LAST_W) - 1;
        const uint64_t d = col[i] & mask;
        const double q = limb_to_f64((d * (uint64_t)P::n0_64) & mask);
#pragma unroll
        for (int j = 0; j < K; j++) product(q, modulus_limb<P>(j), col[i + j], col[i + j + 1]);
        /* A full digit is now 0 and its column carries up. */
        if (i + 1 < RD) col[i + 1] += carry_of(col[i]);
    }
    /* T/R from column RD - 1 on: carry the columns into limbs, then take
     * the words LAST_W bits up. */
    constexpr int NL = 2 * K + 1 - (RD - 1);
    uint64_t r[NL];
#pragma unroll
    for (int k = 0; k < NL; k++) {
        const uint64_t v = col[RD - 1 + k];
        r[k] = v & MASK;
        if (k + 1 < NL) col[RD + k] += carry_of(v);
    }
    F out;
#pragma unroll
    for (int w = 0; w < N; w++) {
        const int bit = 32 * w + LAST_W, k = bit / W, sh = bit % W;
        uint64_t v = r[k] >> sh;
        if (sh > W - 32) v |= r[k + 1] << (W - sh);
        out.w[w] = (uint32_t)v;
    }
    return F::reduce_once(out);
}

/* Product I of a formula that puts the products of ranks below SPLIT on
 * the FP64 pipe, for fields that have it, and the rest on the integer
 * multiplier: how the bucket additions and the NTT's quads share the two
 * pipes. */
template <int SPLIT, int I, class F>
ZKP_GPU_HD F split_mul(const F &u, const F &v) {
    if constexpr (I < SPLIT && serves<F>::value)
        return mul(u, v);
    else
        return u * v;
}

} /* namespace f64 */
} /* namespace zkp_cuda */

#endif
