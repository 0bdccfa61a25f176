/* Prime fields on the device: one template for the four fields, host and
 * device alike.
 *
 * An element is N = 2·LIMBS little-endian 32-bit words in Montgomery form
 * with R = 2^(32·N), which is R = 2^(64·LIMBS) of the CPU fields: on a
 * little-endian host the words of an element are exactly the bytes of the
 * CPU's 64-bit limbs (field/field.h), so arrays of elements and of affine
 * points cross between host and device with no conversion at all.
 *
 * Every constant comes from field/field_params.h, the header that
 * tools/gen_field_params.py writes for the CPU code: the modulus, R mod p,
 * R^2 mod p and -p^(-1) mod 2^64, whose low word is -p^(-1) mod 2^32, the
 * factor of the 32-bit Montgomery reduction. Nothing is copied by hand.
 *
 * The words are 32 bits because that is the width of the GPU's integer
 * multiplier: a 64-bit product costs four 32-bit ones there. The multiply
 * is CIOS Montgomery (Koç, Acar and Kaliski), one row of the product and one
 * row of the reduction per word of b. On the device it runs as chains of
 * PTX multiply-add instructions that carry through the condition code; on
 * the host (the unit tests compare it with field/ there) the same schedule
 * runs in 64-bit C arithmetic. Both give the same bits.
 *
 * Preconditions, as in field.h: every input is reduced (< p), and so is
 * every output. Each modulus leaves its top bit clear (254, 255 or 381 bits
 * in 256 or 384), so a + b never carries out of the top word and the
 * product's running sum fits N + 1 words. None of this is constant time:
 * the device holds public data (bases) and witness scalars that the host
 * hands it anyway; the CPU keeps the secret-dependent work (r, s). */
#ifndef ZKP_GPU_GPU_FIELD_CUH
#define ZKP_GPU_GPU_FIELD_CUH

#include <stdint.h>

#include "field/field_params.h"

#define ZKP_GPU_HD __host__ __device__ __forceinline__

/* The parameter block of one field, from its field_params.h prefix. The
 * functions fold to immediates once the loops that call them unroll. */
#define ZKP_GPU_FIELD_PARAMS(name, PARAM)                                                 \
    struct name {                                                                         \
        static constexpr int N = 2 * PARAM##_LIMBS;                                       \
        static constexpr int BITS = PARAM##_BITS;                                         \
        static constexpr uint32_t n0 = (uint32_t)PARAM##_N0;                              \
        ZKP_GPU_HD static constexpr uint32_t p(int i) {                                   \
            constexpr uint64_t l_[] = PARAM##_MODULUS;                                    \
            return (uint32_t)(l_[i / 2] >> (32 * (i & 1)));                               \
        }                                                                                 \
        ZKP_GPU_HD static constexpr uint32_t one(int i) {                                 \
            constexpr uint64_t l_[] = PARAM##_R1;                                         \
            return (uint32_t)(l_[i / 2] >> (32 * (i & 1)));                               \
        }                                                                                 \
        ZKP_GPU_HD static constexpr uint32_t r2(int i) {                                  \
            constexpr uint64_t l_[] = PARAM##_R2;                                         \
            return (uint32_t)(l_[i / 2] >> (32 * (i & 1)));                               \
        }                                                                                 \
    }

namespace zkp_cuda {

ZKP_GPU_FIELD_PARAMS(bn254_fq_params, BN254_FQ);
ZKP_GPU_FIELD_PARAMS(bn254_fr_params, BN254_FR);
ZKP_GPU_FIELD_PARAMS(bls12_381_fp_params, BLS12_381_FP);
ZKP_GPU_FIELD_PARAMS(bls12_381_fr_params, BLS12_381_FR);

/* Add with carry out and in, through the condition code on the device. */
ZKP_GPU_HD uint32_t addc_(uint32_t a, uint32_t b, uint32_t *carry) {
    uint64_t s = (uint64_t)a + b + *carry;
    *carry = (uint32_t)(s >> 32);
    return (uint32_t)s;
}

ZKP_GPU_HD uint32_t subb_(uint32_t a, uint32_t b, uint32_t *borrow) {
    uint64_t d = (uint64_t)a - b - *borrow;
    *borrow = (uint32_t)(d >> 63);
    return (uint32_t)d;
}

template <class P>
struct fp {
    static constexpr int N = P::N;
    uint32_t w[N];

    ZKP_GPU_HD static fp zero() {
        fp r;
#pragma unroll
        for (int i = 0; i < N; i++) r.w[i] = 0;
        return r;
    }
    ZKP_GPU_HD static fp one() {
        fp r;
#pragma unroll
        for (int i = 0; i < N; i++) r.w[i] = P::one(i);
        return r;
    }
    ZKP_GPU_HD bool is_zero() const {
        uint32_t acc = 0;
#pragma unroll
        for (int i = 0; i < N; i++) acc |= w[i];
        return acc == 0;
    }
    ZKP_GPU_HD bool operator==(const fp &b) const {
        uint32_t acc = 0;
#pragma unroll
        for (int i = 0; i < N; i++) acc |= w[i] ^ b.w[i];
        return acc == 0;
    }
    ZKP_GPU_HD bool operator!=(const fp &b) const { return !(*this == b); }

    /* r = a - p if a >= p, for a < 2p (which fits N words). */
    ZKP_GPU_HD static fp reduce_once(const fp &a) {
        fp d;
        uint32_t borrow = 0;
#pragma unroll
        for (int i = 0; i < N; i++) d.w[i] = subb_(a.w[i], P::p(i), &borrow);
        return borrow ? a : d;
    }

    ZKP_GPU_HD friend fp operator+(const fp &a, const fp &b) {
        fp s;
        uint32_t carry = 0;
#pragma unroll
        for (int i = 0; i < N; i++) s.w[i] = addc_(a.w[i], b.w[i], &carry);
        return reduce_once(s);
    }

    ZKP_GPU_HD friend fp operator-(const fp &a, const fp &b) {
        fp d;
        uint32_t borrow = 0;
#pragma unroll
        for (int i = 0; i < N; i++) d.w[i] = subb_(a.w[i], b.w[i], &borrow);
        if (borrow) {
            uint32_t carry = 0;
#pragma unroll
            for (int i = 0; i < N; i++) d.w[i] = addc_(d.w[i], P::p(i), &carry);
        }
        return d;
    }

    ZKP_GPU_HD fp neg() const { return is_zero() ? *this : zero() - *this; }
    ZKP_GPU_HD fp dbl() const { return *this + *this; }

    /* a·b·R^(-1) mod p. */
    ZKP_GPU_HD friend fp operator*(const fp &a, const fp &b) { return mont_mul(a, b); }
    ZKP_GPU_HD fp sqr() const { return mont_mul(*this, *this); }

    /* The canonical value of a Montgomery element (a·R^(-1)), and back. */
    ZKP_GPU_HD fp from_mont() const {
        fp one_;
#pragma unroll
        for (int i = 0; i < N; i++) one_.w[i] = i == 0 ? 1u : 0u;
        return mont_mul(*this, one_);
    }
    ZKP_GPU_HD fp to_mont() const {
        fp r2_;
#pragma unroll
        for (int i = 0; i < N; i++) r2_.w[i] = P::r2(i);
        return mont_mul(*this, r2_);
    }

    ZKP_GPU_HD static fp mont_mul(const fp &a, const fp &b) {
#ifdef __CUDA_ARCH__
        return mont_mul_ptx(a, b);
#else
        return mont_mul_c(a, b);
#endif
    }

    /* CIOS in portable C: t accumulates a·b[i] and then m·p, and shifts down
     * one word per round; t stays below 2p, so it fits N words plus one
     * extra word that is at most 1. */
    ZKP_GPU_HD static fp mont_mul_c(const fp &a, const fp &b) {
        uint32_t t[N + 2];
#pragma unroll
        for (int i = 0; i < N + 2; i++) t[i] = 0;
#pragma unroll
        for (int i = 0; i < N; i++) {
            uint64_t carry = 0;
#pragma unroll
            for (int j = 0; j < N; j++) {
                uint64_t s = (uint64_t)a.w[j] * b.w[i] + t[j] + carry;
                t[j] = (uint32_t)s;
                carry = s >> 32;
            }
            uint64_t s = (uint64_t)t[N] + carry;
            t[N] = (uint32_t)s;
            t[N + 1] = (uint32_t)(s >> 32);
            uint32_t m = t[0] * P::n0;
            s = (uint64_t)m * P::p(0) + t[0];
            carry = s >> 32;
#pragma unroll
            for (int j = 1; j < N; j++) {
                s = (uint64_t)m * P::p(j) + t[j] + carry;
                t[j - 1] = (uint32_t)s;
                carry = s >> 32;
            }
            s = (uint64_t)t[N] + carry;
            t[N - 1] = (uint32_t)s;
            t[N] = t[N + 1] + (uint32_t)(s >> 32);
        }
        fp r;
#pragma unroll
        for (int i = 0; i < N; i++) r.w[i] = t[i];
        /* t < 2p and the spare top bit keeps t[N] = 0. */
        return reduce_once(r);
    }

#ifdef __CUDA_ARCH__
    /* The same CIOS rounds, with each row a chain of mad.lo/mad.hi that
     * carries through the condition code. Row i adds a·b_i: the low halves
     * of a_j·b_i land on word j and the high halves on word j + 1, so it
     * runs as two chains (lows, then highs) over t. The reduction row adds
     * m·p the same way and drops word 0, which the choice of m made zero. */
    __device__ __forceinline__ static fp mont_mul_ptx(const fp &a, const fp &b) {
        uint32_t t[N + 2];
#pragma unroll
        for (int i = 0; i < N + 2; i++) t[i] = 0;
#pragma unroll
        for (int i = 0; i < N; i++) {
            const uint32_t bi = b.w[i];
            /* t += lo(a·bi) */
            asm volatile("mad.lo.cc.u32 %0, %1, %2, %0;" : "+r"(t[0]) : "r"(a.w[0]), "r"(bi));
#pragma unroll
            for (int j = 1; j < N; j++)
                asm volatile("madc.lo.cc.u32 %0, %1, %2, %0;" : "+r"(t[j]) : "r"(a.w[j]), "r"(bi));
            asm volatile("addc.cc.u32 %0, %0, 0;" : "+r"(t[N]));
            asm volatile("addc.u32 %0, %0, 0;" : "+r"(t[N + 1]));
            /* t += hi(a·bi) << 32 */
            asm volatile("mad.hi.cc.u32 %0, %1, %2, %0;" : "+r"(t[1]) : "r"(a.w[0]), "r"(bi));
#pragma unroll
            for (int j = 1; j < N; j++)
                asm volatile("madc.hi.cc.u32 %0, %1, %2, %0;" : "+r"(t[j + 1]) : "r"(a.w[j]), "r"(bi));
            asm volatile("addc.u32 %0, %0, 0;" : "+r"(t[N + 1]));
            /* t += m·p, then t >>= 32 */
            const uint32_t m = t[0] * P::n0;
            asm volatile("mad.lo.cc.u32 %0, %1, %2, %0;" : "+r"(t[0]) : "r"(m), "r"(P::p(0)));
#pragma unroll
            for (int j = 1; j < N; j++)
                asm volatile("madc.lo.cc.u32 %0, %1, %2, %0;" : "+r"(t[j]) : "r"(m), "r"(P::p(j)));
            asm volatile("addc.cc.u32 %0, %0, 0;" : "+r"(t[N]));
            asm volatile("addc.u32 %0, %0, 0;" : "+r"(t[N + 1]));
            asm volatile("mad.hi.cc.u32 %0, %1, %2, %0;" : "+r"(t[1]) : "r"(m), "r"(P::p(0)));
#pragma unroll
            for (int j = 1; j < N; j++)
                asm volatile("madc.hi.cc.u32 %0, %1, %2, %0;" : "+r"(t[j + 1]) : "r"(m), "r"(P::p(j)));
            asm volatile("addc.u32 %0, %0, 0;" : "+r"(t[N + 1]));
#pragma unroll
            for (int j = 0; j < N + 1; j++) t[j] = t[j + 1];
            t[N + 1] = 0;
        }
        fp r;
#pragma unroll
        for (int i = 0; i < N; i++) r.w[i] = t[i];
        return reduce_once(r);
    }
#endif
};

typedef fp<bn254_fq_params> bn254_fq;
typedef fp<bn254_fr_params> bn254_fr;
typedef fp<bls12_381_fp_params> bls12_381_fp;
typedef fp<bls12_381_fr_params> bls12_381_fr;

} /* namespace zkp_cuda */

#endif
