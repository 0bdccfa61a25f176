/* Prime fields on the device: one template for the four fields, host and
 * device alike, and one for the quadratic extensions of G2 (at the end).
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
    typedef P params;
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

    /* this^(p-2) = this^(-1), or 0 for 0 (Fermat): about 1.5·BITS products,
     * for the rare inversion that no batch can share (one per point of the
     * fixed-base multiplication). The exponent's words are P::p's less 2,
     * with the borrow carried: BLS12-381's r ends in the word 1. */
    ZKP_GPU_HD fp inv() const {
        uint32_t e[N];
        uint32_t borrow = 2;
        for (int i = 0; i < N; i++) {
            e[i] = P::p(i) - borrow;
            borrow = P::p(i) < borrow;
        }
        fp r = one();
        for (int i = N - 1; i >= 0; i--) {
            for (int b = 31; b >= 0; b--) {
                r = r.sqr();
                if ((e[i] >> b) & 1) r = r * *this;
            }
        }
        return r;
    }

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
    /* The same CIOS rounds on the device, arranged for the GPU's multiplier.
     *
     * A pair "mad.lo.cc d0, x, y; madc.hi.cc d1, x, y" adds the whole 64-bit
     * product x·y to two adjacent words, and ptxas turns such a pair into
     * one wide multiply-add; a chain of lows followed by a chain of highs
     * costs about twice as many instructions. So a row splits by the parity
     * of the word of a: the products a_(2k)·b_i cover words 2k and 2k + 1
     * and go to an accumulator e, the products a_(2k+1)·b_i cover words
     * 2k + 1 and 2k + 2 and go to a second accumulator o, each as one chain
     * of pairs, and the reduction row m·p splits the same way. The value is
     * e + o throughout; the two are added once, after the last row.
     *
     * Word 0 of the value is e_0 + o_0, and m must come from one word, so
     * each row starts by adding o_0 into e_0. Its carry has weight 2^32,
     * where the chain of odd products starts (o_1 += lo(a_1·b_i)), so that
     * chain takes it as its carry in and the sum costs one instruction.
     * Then o_0 is spent, e_0 is word 0, and after the reduction row both
     * e_0 and o_0 are zero and the division by 2^32 is a renaming.
     *
     * Bounds: e gains less than 2·2^(32N) per row before it is divided by
     * 2^32, so it stays below 2^(32N+1) (words 0..N); o holds words 1..N+1
     * of its products and stays below 2^(32N+2) before the shift. Their
     * sum after the last row is the CIOS result, below 2p < 2^(32N).
     *
     * Each chain is one asm statement, so the condition code never lives
     * across statements and the compiler may schedule the chains freely. */
    __device__ __forceinline__ static fp mont_mul_ptx(const fp &a, const fp &b) {
        uint32_t e[N + 1], o[N + 2];
        uint32_t ae[N / 2], ao[N / 2], pe[N / 2], po[N / 2];
#pragma unroll
        for (int k = 0; k < N / 2; k++) {
            ae[k] = a.w[2 * k];
            ao[k] = a.w[2 * k + 1];
            pe[k] = P::p(2 * k);
            po[k] = P::p(2 * k + 1);
        }
#pragma unroll
        for (int j = 0; j < N + 1; j++) e[j] = 0;
#pragma unroll
        for (int j = 0; j < N + 2; j++) o[j] = 0;
#pragma unroll
        for (int i = 0; i < N; i++) {
            const uint32_t bi = b.w[i];
            if (i == 0) {
                chain_pairs(o + 1, ao, bi);
            } else {
                chain_pairs_after_add(o + 1, ao, bi, e[0], o[0]);
            }
            chain_pairs(e, ae, bi);
            const uint32_t m = e[0] * P::n0;
            chain_pairs(e, pe, m);
            chain_pairs(o + 1, po, m);
            /* e_0 and o_0 are zero now: divide by 2^32. */
#pragma unroll
            for (int j = 0; j < N; j++) e[j] = e[j + 1];
            e[N] = 0;
#pragma unroll
            for (int j = 0; j < N + 1; j++) o[j] = o[j + 1];
            o[N + 1] = 0;
        }
        fp r;
        add_words(r.w, e, o);
        return reduce_once(r);
    }

    /* The chains, one asm statement each. ZKP_PAIR adds x·y to the words
     * d0 (low half) and d1 (high half) with the carry in and out; the
     * operands are numbered: the accumulator words first, then x, then y. */
#define ZKP_PAIR(d0, d1, x, y)                                            \
    "madc.lo.cc.u32 %" #d0 ", %" #x ", %" #y ", %" #d0 ";\n\t"           \
    "madc.hi.cc.u32 %" #d1 ", %" #x ", %" #y ", %" #d1 ";\n\t"
#define ZKP_PAIR0(d0, d1, x, y)                                           \
    "mad.lo.cc.u32 %" #d0 ", %" #x ", %" #y ", %" #d0 ";\n\t"            \
    "madc.hi.cc.u32 %" #d1 ", %" #x ", %" #y ", %" #d1 ";\n\t"

    /* t[0..N] += x·y, x being N/2 words whose products lie two words
     * apart (x_k·y lands on t_2k and t_2k+1); the carry ends in t[N]. */
    __device__ __forceinline__ static void chain_pairs(uint32_t *t, const uint32_t *x, uint32_t y) {
        if constexpr (N == 8) {
            asm(ZKP_PAIR0(0, 1, 9, 13) ZKP_PAIR(2, 3, 10, 13) ZKP_PAIR(4, 5, 11, 13)
                    ZKP_PAIR(6, 7, 12, 13) "addc.u32 %8, %8, 0;"
                : "+r"(t[0]), "+r"(t[1]), "+r"(t[2]), "+r"(t[3]), "+r"(t[4]), "+r"(t[5]), "+r"(t[6]),
                  "+r"(t[7]), "+r"(t[8])
                : "r"(x[0]), "r"(x[1]), "r"(x[2]), "r"(x[3]), "r"(y));
        } else {
            static_assert(N == 12, "the chains are written for 8 and 12 words");
            asm(ZKP_PAIR0(0, 1, 13, 19) ZKP_PAIR(2, 3, 14, 19) ZKP_PAIR(4, 5, 15, 19)
                    ZKP_PAIR(6, 7, 16, 19) ZKP_PAIR(8, 9, 17, 19) ZKP_PAIR(10, 11, 18, 19)
                        "addc.u32 %12, %12, 0;"
                : "+r"(t[0]), "+r"(t[1]), "+r"(t[2]), "+r"(t[3]), "+r"(t[4]), "+r"(t[5]), "+r"(t[6]),
                  "+r"(t[7]), "+r"(t[8]), "+r"(t[9]), "+r"(t[10]), "+r"(t[11]), "+r"(t[12])
                : "r"(x[0]), "r"(x[1]), "r"(x[2]), "r"(x[3]), "r"(x[4]), "r"(x[5]), "r"(y));
        }
    }

    /* chain_pairs after s0 += u0, whose carry is the chain's carry in. */
    __device__ __forceinline__ static void chain_pairs_after_add(uint32_t *t, const uint32_t *x, uint32_t y,
                                                                 uint32_t &s0, uint32_t u0) {
        if constexpr (N == 8) {
            asm("add.cc.u32 %9, %9, %15;\n\t" ZKP_PAIR(0, 1, 10, 14) ZKP_PAIR(2, 3, 11, 14)
                    ZKP_PAIR(4, 5, 12, 14) ZKP_PAIR(6, 7, 13, 14) "addc.u32 %8, %8, 0;"
                : "+r"(t[0]), "+r"(t[1]), "+r"(t[2]), "+r"(t[3]), "+r"(t[4]), "+r"(t[5]), "+r"(t[6]),
                  "+r"(t[7]), "+r"(t[8]), "+r"(s0)
                : "r"(x[0]), "r"(x[1]), "r"(x[2]), "r"(x[3]), "r"(y), "r"(u0));
        } else {
            asm("add.cc.u32 %13, %13, %21;\n\t" ZKP_PAIR(0, 1, 14, 20) ZKP_PAIR(2, 3, 15, 20)
                    ZKP_PAIR(4, 5, 16, 20) ZKP_PAIR(6, 7, 17, 20) ZKP_PAIR(8, 9, 18, 20)
                        ZKP_PAIR(10, 11, 19, 20) "addc.u32 %12, %12, 0;"
                : "+r"(t[0]), "+r"(t[1]), "+r"(t[2]), "+r"(t[3]), "+r"(t[4]), "+r"(t[5]), "+r"(t[6]),
                  "+r"(t[7]), "+r"(t[8]), "+r"(t[9]), "+r"(t[10]), "+r"(t[11]), "+r"(t[12]), "+r"(s0)
                : "r"(x[0]), "r"(x[1]), "r"(x[2]), "r"(x[3]), "r"(x[4]), "r"(x[5]), "r"(y), "r"(u0));
        }
    }
#undef ZKP_PAIR
#undef ZKP_PAIR0

    /* r = e + o over N words (the sum fits). */
    __device__ __forceinline__ static void add_words(uint32_t *r, const uint32_t *x, const uint32_t *y) {
        uint32_t carry = 0;
#pragma unroll
        for (int j = 0; j < N; j++) r[j] = addc_(x[j], y[j], &carry);
    }
#endif
};

typedef fp<bn254_fq_params> bn254_fq;
typedef fp<bn254_fr_params> bn254_fr;
typedef fp<bls12_381_fp_params> bls12_381_fp;
typedef fp<bls12_381_fr_params> bls12_381_fr;

/* The quadratic extension B[u]/(u^2 + 1) where G2 lives, for BN254's Fq
 * and BLS12-381's Fp (p = 3 mod 4 for both, so -1 is a non-residue): an
 * element is c0 + c1·u, c0 then c1 in memory, each in Montgomery form,
 * which is the layout of field/fp2_impl.h. */
/* The base field's product for fp2, out of line on the device. An Fp2
 * product is three of them and a G2 point addition about thirty, so with
 * every one inlined each kernel of the G2 MSM grows several times over and
 * takes minutes to compile for each architecture; a call costs a few
 * instructions against the product's several hundred. */
template <class B>
__device__ __noinline__ B fp2_base_mul_(B a, B b) {
    return a * b;
}

template <class B>
ZKP_GPU_HD B fp2_base_mul(const B &a, const B &b) {
#ifdef __CUDA_ARCH__
    return fp2_base_mul_(a, b);
#else
    return a * b;
#endif
}

template <class B>
struct fp2 {
    typedef B base;
    B c0, c1;

    ZKP_GPU_HD static fp2 zero() { return {B::zero(), B::zero()}; }
    ZKP_GPU_HD static fp2 one() { return {B::one(), B::zero()}; }
    ZKP_GPU_HD bool is_zero() const { return c0.is_zero() && c1.is_zero(); }
    ZKP_GPU_HD bool operator==(const fp2 &b) const { return c0 == b.c0 && c1 == b.c1; }
    ZKP_GPU_HD bool operator!=(const fp2 &b) const { return !(*this == b); }
    ZKP_GPU_HD friend fp2 operator+(const fp2 &a, const fp2 &b) { return {a.c0 + b.c0, a.c1 + b.c1}; }
    ZKP_GPU_HD friend fp2 operator-(const fp2 &a, const fp2 &b) { return {a.c0 - b.c0, a.c1 - b.c1}; }
    ZKP_GPU_HD fp2 neg() const { return {c0.neg(), c1.neg()}; }
    ZKP_GPU_HD fp2 dbl() const { return {c0.dbl(), c1.dbl()}; }
    /* Karatsuba: three base products, with u^2 = -1. */
    ZKP_GPU_HD friend fp2 operator*(const fp2 &a, const fp2 &b) {
        B v0 = fp2_base_mul(a.c0, b.c0), v1 = fp2_base_mul(a.c1, b.c1);
        B m = fp2_base_mul(a.c0 + a.c1, b.c0 + b.c1);
        return {v0 - v1, m - v0 - v1};
    }
    /* (c0 + c1·u)^2 = (c0 + c1)(c0 - c1) + 2·c0·c1·u: two products. */
    ZKP_GPU_HD fp2 sqr() const {
        return {fp2_base_mul(c0 + c1, c0 - c1), fp2_base_mul(c0, c1).dbl()};
    }
    /* 1/(c0 + c1·u) = (c0 - c1·u)/(c0^2 + c1^2): one inversion in the base
     * field (Fermat, as fp::inv), or 0 for 0. */
    ZKP_GPU_HD fp2 inv() const {
        B t = (fp2_base_mul(c0, c0) + fp2_base_mul(c1, c1)).inv();
        return {fp2_base_mul(c0, t), fp2_base_mul(c1, t).neg()};
    }
    ZKP_GPU_HD fp2 from_mont() const { return {c0.from_mont(), c1.from_mont()}; }
    ZKP_GPU_HD fp2 to_mont() const { return {c0.to_mont(), c1.to_mont()}; }
};

typedef fp2<bn254_fq> bn254_fq2;
typedef fp2<bls12_381_fp> bls12_381_fp2;

} /* namespace zkp_cuda */

#endif
