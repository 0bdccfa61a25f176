/* The Montgomery product on the double-precision pipe: a second multiplier
 * for the prime fields, in 48-bit limbs (BLS12-381's p in 8, the 256-bit
 * fields in 6). For BLS12-381's p, whose 384 bits are 8 limbs exactly, it
 * takes and gives what fp::operator* does.
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
 * A limb product x·y (x, y < 2^48, as exact doubles) in three FP64
 * instructions, all rounding to nearest, so that the host (C's fma) and the
 * device give the same bits:
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
 * the patterns' offsets that will have reached it when it is read, a
 * constant of the loop structure, so the sums come out true. A column
 * holds at most 4K terms below 2^52 in size, far inside 64 bits; the
 * offsets wrap, which unsigned arithmetic makes exact.
 *
 * Montgomery's reduction then runs column by column (R64 = 2^(48K)): at
 * column i, the digit d = col_i mod 2^48 (the carry goes up), q = d·(-p^-1)
 * mod 2^48 on the integer pipe, and q·p added from column i, which clears
 * it. With a, b < p and 4p < R64 the result is below 2p, and one
 * conditional subtraction makes it canonical as fp's. */
#ifndef ZKP_GPU_GPU_FIELD_F64_CUH
#define ZKP_GPU_GPU_FIELD_F64_CUH

#include <math.h>
#include <stdint.h>
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

/* The limbs of a field: K of them with 4p < R64 = 2^(48K), which keeps a
 * product of two values below 2p. Where 48K is the integer product's
 * 32N bits (BLS12-381's p), R64 = R and the FP64 product takes and gives
 * the same Montgomery form; elsewhere (the 256-bit fields, R64 = 2^288)
 * a·b·R64^(-1) takes one factor in the form x·R64 (to_form64) to give a·b
 * in the usual form. */
template <class P>
struct shape {
    static constexpr int K = (P::BITS + 2 + W - 1) / W;
    static constexpr bool same_r = W * K == 32 * P::N;
};

/* Whether field type F is a prime field (an fp, not an extension), which
 * has the FP64 product, and whether that product is a drop-in for its own. */
template <class F>
struct prime {
    static constexpr bool value = false;
};
template <class P>
struct prime<fp<P>> {
    static constexpr bool value = true;
};
template <class F>
struct serves {
    static constexpr bool value = false;
};
template <class P>
struct serves<fp<P>> {
    static constexpr bool value = shape<P>::same_r;
};

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
 * land on i + j and high halves on i + j + 1; the reduction's q_i·p_j the
 * same, except that q_k·p_0's low half is taken out of column k as it is
 * formed (mul, below), so it is not counted. */
template <int K>
ZKP_GPU_HD constexpr uint64_t column_offset(int k) {
    uint64_t lo = 0, hi = 0;
    for (int i = 0; i < K; i++)
        for (int j = 0; j < K; j++) {
            lo += (i + j == k) + (i + j == k && j != 0);
            hi += 2 * (i + j + 1 == k);
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

/* a·b·R64^(-1) mod p, canonical, for a, b < p. */
template <class F>
ZKP_GPU_HD F mul(const F &a, const F &b) {
    typedef typename F::params P;
    constexpr int K = shape<P>::K, N = F::N;
    const uint64_t n0 = ((uint64_t)P::n0_64) & MASK;
    double x[K], y[K];
#pragma unroll
    for (int i = 0; i < K; i++) {
        const int k = W * i / 32;
        x[i] = limb_to_f64(limb_of(a.w[k], k + 1 < N ? a.w[k + 1] : 0, i));
        y[i] = limb_to_f64(limb_of(b.w[k], k + 1 < N ? b.w[k + 1] : 0, i));
    }
    uint64_t col[2 * K + 1];
#pragma unroll
    for (int k = 0; k <= 2 * K; k++) col[k] = (uint64_t)0 - column_offset<K>(k);
#pragma unroll
    for (int i = 0; i < K; i++)
#pragma unroll
        for (int j = 0; j < K; j++) product(x[i], y[j], col[i + j], col[i + j + 1]);
#pragma unroll
    for (int i = 0; i < K; i++) {
        /* Column i is complete: its digit, its carry, and q. */
        const uint64_t v = col[i], d = v & MASK;
        col[i + 1] += (uint64_t)((int64_t)(v - d) >> W);
        const uint64_t q = (d * n0) & MASK;
        const double qf = limb_to_f64(q);
        /* q·p_0 = m·2^48 + l with d + l = 0 or 2^48 (q was chosen so): the
         * second carries one. */
        uint64_t l0 = 0;
        product(qf, modulus_limb<P>(0), l0, col[i + 1]);
        col[i + 1] += (uint64_t)((int64_t)(d + l0 - BITS_C3) >> W);
#pragma unroll
        for (int j = 1; j < K; j++) product(qf, modulus_limb<P>(j), col[i + j], col[i + j + 1]);
    }
    /* Columns K to 2K - 1 hold the result, below 2p < 2^(48K): carry them
     * into limbs, then into words. */
    uint64_t r[K];
#pragma unroll
    for (int k = K; k < 2 * K; k++) {
        const uint64_t v = col[k];
        r[k - K] = v & MASK;
        col[k + 1] += (uint64_t)((int64_t)(v - r[k - K]) >> W);
    }
    F out;
#pragma unroll
    for (int w = 0; w < N; w++) {
        const int bit = 32 * w, k = bit / W, sh = bit % W;
        uint64_t v = r[k] >> sh;
        if (sh > W - 32 && k + 1 < K) v |= r[k + 1] << (W - sh);
        out.w[w] = (uint32_t)v;
    }
    return F::reduce_once(out);
}

/* b·R64/R mod p: the factor that mul turns into a·b in the usual form.
 * 2^(48K - 32N) by doublings of R mod p, then one product; for tables and
 * constants, not for every product. */
template <class F>
ZKP_GPU_HD F to_form64(const F &b) {
    typedef typename F::params P;
    if constexpr (shape<P>::same_r) {
        return b;
    } else {
        F c = F::one(); /* its words are R mod p */
        for (int i = 0; i < W * shape<P>::K - 32 * F::N; i++) c = c + c;
        return b * c;
    }
}

} /* namespace f64 */
} /* namespace zkp_cuda */

#endif
