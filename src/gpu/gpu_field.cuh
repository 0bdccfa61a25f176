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

/* Forced inline on the device, where the word loops unroll into straight
 * lines of multiply-adds only once inlined into their callers. The host
 * copies of the same functions serve the tests' emulations and a few point
 * additions in the MSM's host code (the ones' sum added to the rest's),
 * where forcing them inline bought nothing and cost the host compiler most
 * of each .cu file's build: one host emulation of the bucket sums alone
 * came to 490 KB of code. */
#ifdef __CUDA_ARCH__
#define ZKP_GPU_HD __host__ __device__ __forceinline__
#else
#define ZKP_GPU_HD __host__ __device__ inline
#endif

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

#ifdef __CUDACC__
/* The Montgomery constant n0 as the device product reads it: from constant
 * memory, so that ptxas does not know its value. For BLS12-381's r it is
 * 2^32 - 1, and ptxas, seeing m = -t0, rewrote the reduction chains after it
 * into separate low and high multiply-adds (IMAD.X and IMAD.HI.X) instead of
 * one wide multiply-add per product: a fifth more instructions in the NTT's
 * kernels, most of them on the multiplier. Read from constant memory, n0
 * costs the same multiply. */
template <class P>
__constant__ uint32_t n0_const = P::n0;
#endif

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

    /* r = a - p if a >= p, for a < 2p (which fits N words). On the device
     * a subtraction chain and a select, with no branch. */
    ZKP_GPU_HD static fp reduce_once(const fp &a) {
#ifdef __CUDA_ARCH__
        uint32_t p[N];
        modulus_words(p);
        fp d = a;
        const uint32_t borrow = sub_in_place(d.w, p);
#pragma unroll
        for (int i = 0; i < N; i++) d.w[i] = borrow ? a.w[i] : d.w[i];
        return d;
#else
        fp d;
        uint32_t borrow = 0;
#pragma unroll
        for (int i = 0; i < N; i++) d.w[i] = subb_(a.w[i], P::p(i), &borrow);
        return borrow ? a : d;
#endif
    }

    ZKP_GPU_HD friend fp operator+(const fp &a, const fp &b) {
#ifdef __CUDA_ARCH__
        fp s = a;
        add_in_place(s.w, b.w);
        return reduce_once(s);
#else
        fp s;
        uint32_t carry = 0;
#pragma unroll
        for (int i = 0; i < N; i++) s.w[i] = addc_(a.w[i], b.w[i], &carry);
        return reduce_once(s);
#endif
    }

    ZKP_GPU_HD friend fp operator-(const fp &a, const fp &b) {
#ifdef __CUDA_ARCH__
        /* a - b, plus p where that borrowed (p masked by the borrow). */
        fp d = a;
        const uint32_t borrow = sub_in_place(d.w, b.w);
        uint32_t pm[N];
        modulus_words(pm);
#pragma unroll
        for (int i = 0; i < N; i++) pm[i] &= borrow;
        add_in_place(d.w, pm);
        return d;
#else
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
#endif
    }

    ZKP_GPU_HD fp neg() const { return is_zero() ? *this : zero() - *this; }
    ZKP_GPU_HD fp dbl() const { return *this + *this; }

    /* BLS12-381's Fp (12 words) calls its product and its square: inlined,
     * the ten of a G1 mixed addition made the bucket step's kernel 7,760
     * instructions, and its warps waited on instruction fetch; called, it
     * is 3,816, and the G1 MSMs ran 6 to 7 % faster on an H100
     * (docs/PERFORMANCE.md). The sum of two products stays inline (called,
     * it lost 1 to 5 %), and so do the 8-word fields, whose product is
     * small beside a call's cost. */
    static constexpr bool CALLED_PRODUCTS = N >= 12;

    /* a·b·R^(-1) mod p. */
    ZKP_GPU_HD friend fp operator*(const fp &a, const fp &b) {
#ifdef __CUDA_ARCH__
        if constexpr (CALLED_PRODUCTS) return mul_out_of_line(a, b);
#endif
        return mont_mul(a, b);
    }
#ifdef __CUDA_ARCH__
    __device__ __noinline__ static fp mul_out_of_line(fp a, fp b) { return mont_mul_ptx(a, b); }
    __device__ __noinline__ static fp sqr_out_of_line(fp a) { return mont_sqr_ptx(a); }
#endif

    /* a·b + c·d with one reduction on the device (mont_rows_ptx), where the
     * modulus leaves two spare bits; the curve's formulas end in such a sum,
     * a difference written with a negated factor. */
    ZKP_GPU_HD static fp sum_of_products(const fp &a, const fp &b, const fp &c, const fp &d) {
#ifdef __CUDA_ARCH__
        if constexpr (P::BITS <= 32 * N - 2)
            return mont_rows_ptx<true>(a, b, c, d);
        else
            return mont_mul_ptx(a, b) + mont_mul_ptx(c, d);
#else
        return mont_mul_c(a, b) + mont_mul_c(c, d);
#endif
    }
    ZKP_GPU_HD fp sqr() const {
#ifdef __CUDA_ARCH__
        if constexpr (CALLED_PRODUCTS)
            return sqr_out_of_line(*this);
        else if constexpr (P::BITS <= 32 * N - 2)
            return mont_sqr_ptx(*this);
        else
            return mont_mul_ptx(*this, *this);
#else
        return mont_mul_c(*this, *this);
#endif
    }

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

    /* Shoup's product by a factor known ahead (V. Shoup; NTL's
     * MulModPrecon), for the NTT's twiddles: with w' = floor(w·R/p) stored
     * beside w, the quotient q = floor(x·w'/R) is within one of x·w/p, so
     * x·w - q·p is below 2p and takes only the low halves of x·w and q·p,
     * mod R. It multiplies any form by a plain w, so Montgomery's x·R
     * becomes (x·w)·R, as mont_mul(x, w·R) would make it.
     *
     * The quotient's own product is cut too: only its columns N - 2 and up
     * (words of weight 2^(32(N-2)) and more) are summed, N^2 - (N-1)(N-2)/2
     * products instead of N^2. The columns left out sum to less than
     * (N - 2)·2^-32·R, so the sum S that remains is that close below x·w',
     * and with q = floor(S/R) and d = (x·w' - S)/R < 2^-28:
     *   (x·w - q·p)/p = (S/R - q) + d + x·(w/p - w'/R) < 1 + d + x/R,
     * below 2 for x < p. So the result stays below 2p and one conditional
     * subtraction reduces it, as for a Montgomery product; q may be one
     * less than Shoup's exact quotient, which is why the bound counts S's
     * fraction and not floor(x·w'/R)'s.
     *
     * Per product for 256-bit fields: 43 wide multiply-adds for q and 28
     * for each low half (their top words take 8 low-only products each),
     * 99 and 16 against CIOS's 128 and 8; for BLS12-381's r, whose low
     * words make q·(-p)'s two lowest diagonals additions (low_words_cheap),
     * 86 and 14. */
    struct shoup_factor {
        fp w, q;
    };

    /* The factor whose Montgomery form is m: w = m/R, and from w·R = w'·p +
     * m (m = w·R mod p), w' = (w·R - m)/p exactly, which is -m·p^(-1) mod
     * R: one low product with -p^(-1) mod R, lifted from n0 by Newton's
     * steps (each doubles the words that are right). */
    ZKP_GPU_HD static shoup_factor shoup_of(const fp &m) {
        uint32_t pw[N], ninv[N], t[N], u[N];
        for (int i = 0; i < N; i++) pw[i] = P::p(i), ninv[i] = 0;
        ninv[0] = 0u - P::n0; /* p^(-1) mod 2^32 */
        for (int ok = 1; ok < N; ok *= 2) {
            /* inv <- inv·(2 - p·inv) mod R */
            lo_mul_c(t, pw, ninv);
            uint32_t borrow = 0;
            for (int i = 0; i < N; i++) t[i] = subb_(i == 0 ? 2u : 0u, t[i], &borrow);
            lo_mul_c(u, ninv, t);
            for (int i = 0; i < N; i++) ninv[i] = u[i];
        }
        uint32_t borrow = 0; /* ninv <- -p^(-1) */
        for (int i = 0; i < N; i++) ninv[i] = subb_(0u, ninv[i], &borrow);
        shoup_factor f;
        f.w = m.from_mont();
        lo_mul_c(f.q.w, m.w, ninv);
        return f;
    }

    /* r = a·b mod 2^(32N), the rows' low columns only. */
    ZKP_GPU_HD static void lo_mul_c(uint32_t *r, const uint32_t *a, const uint32_t *b) {
        uint32_t t[N];
        for (int i = 0; i < N; i++) t[i] = 0;
        for (int i = 0; i < N; i++) {
            uint64_t carry = 0;
            for (int j = 0; i + j < N; j++) {
                uint64_t s = (uint64_t)a[j] * b[i] + t[i + j] + carry;
                t[i + j] = (uint32_t)s;
                carry = s >> 32;
            }
        }
        for (int i = 0; i < N; i++) r[i] = t[i];
    }

    /* The words of -p mod R, the factor that turns q·p into an addition. */
    ZKP_GPU_HD static constexpr uint32_t np(int i) { return i == 0 ? 0u - P::p(0) : ~P::p(i); }

    /* A modulus whose low words are 1 and 2^32 - 1 (BLS12-381's r) has -p
     * = 2^32 - 1 + 2^64·h, so q·(-p) = (q << 32) - q + (q·h << 64): two
     * carry chains of additions in place of the low half's two lowest
     * diagonals of products, 15 of its 36 (each diagonal is q's words
     * against one word of -p: 2^32 - 1 and 0). */
    static constexpr bool low_words_cheap = P::p(0) == 1u && P::p(1) == 0xffffffffu;

    ZKP_GPU_HD static fp mul_shoup(const fp &x, const shoup_factor &f) {
#ifdef __CUDA_ARCH__
        if constexpr (N == 8) return mul_shoup_ptx(x, f);
#endif
        return mul_shoup_c(x, f);
    }

    /* Shoup's product in portable C, the same columns as the device's. */
    ZKP_GPU_HD static fp mul_shoup_c(const fp &x, const shoup_factor &f) {
        uint32_t s[2 * N];
        for (int i = 0; i < 2 * N; i++) s[i] = 0;
        for (int i = 0; i < N; i++) {
            uint64_t carry = 0;
            for (int j = i < N - 2 ? N - 2 - i : 0; j < N; j++) {
                uint64_t v = (uint64_t)x.w[i] * f.q.w[j] + s[i + j] + carry;
                s[i + j] = (uint32_t)v;
                carry = v >> 32;
            }
            s[i + N] = (uint32_t)carry;
        }
        uint32_t npw[N], y[N], t[N];
        const int cheap = low_words_cheap ? 2 : 0; /* -p's words left to the additions */
        for (int i = 0; i < N; i++) npw[i] = i < cheap ? 0 : np(i);
        lo_mul_c(y, x.w, f.w.w);
        lo_mul_c(t, s + N, npw);
        uint32_t carry = 0;
        fp r;
        for (int i = 0; i < N; i++) r.w[i] = addc_(y[i], t[i], &carry);
        if (cheap != 0) {
            const uint32_t *q = s + N;
            uint32_t borrow = 0;
            for (int i = 0; i < N; i++) t[i] = subb_(i == 0 ? 0u : q[i - 1], q[i], &borrow);
            carry = 0;
            for (int i = 0; i < N; i++) r.w[i] = addc_(r.w[i], t[i], &carry);
        }
        return reduce_once(r);
    }

#ifdef __CUDA_ARCH__
    /* The same CIOS rounds on the device, arranged for the GPU's multiplier.
     *
     * A pair "mad.lo.cc d0, x, y; madc.hi.cc d1, x, y" adds the whole 64-bit
     * product x·y to two adjacent words, and ptxas turns such a pair into
     * one wide multiply-add, whose destination is an aligned register pair.
     * So a row splits by the parity of the word of a: the products
     * a_(2k)·b_i cover words 2k and 2k + 1 and go to an accumulator E, the
     * products a_(2k+1)·b_i cover words 2k + 1 and 2k + 2 and go to a second
     * accumulator O whose word j stands for word j + 1 of the value, each as
     * one chain of pairs; the reduction row m·p splits the same way. In both
     * accumulators a pair is always the words (2k, 2k + 1) of the array.
     *
     * The division by 2^32 at the end of a row keeps that true by swapping
     * the roles rather than shifting both by one word (which would pair each
     * word with the other neighbour at every row, and cost register moves
     * and saved carries): O becomes the next row's E as it is, and E, whose
     * word 0 the reduction cleared, becomes the next row's O moved down by
     * two words, a renaming in the unrolled code. Its word 1 falls on word 0
     * of the new E, and is added there at the start of the next row; the
     * carry of that addition has the weight of the odd chain's first word,
     * so the chain takes it as its carry in.
     *
     * Bounds: with T < 2p at the start of a row (CIOS), the value before the
     * division is below 2^33·p < 2^(32N+32) for p < 2^(32N-1), which all four
     * fields meet (BLS12-381's r has the fewest spare bits, one). E and O are
     * parts of it, so E fits N + 1 words and O, counted from word 1, N words;
     * each keeps a carry word N. After the last row the value is
     * E/2^32 + O < 2p < 2^(32N), and one conditional subtraction reduces it.
     *
     * Each chain is one asm statement, so the condition code never lives
     * across statements and the compiler may schedule the chains freely. */
    __device__ __forceinline__ static fp mont_mul_ptx(const fp &a, const fp &b) {
        return mont_rows_ptx<false>(a, b, a, b);
    }

    /* The rows of a·b, and with TWO those of c·d beside them under the same
     * reductions: a row then adds a·b_i + c·d_i, below 2^33·p, and the value
     * before its division stays below 2^34·p, within N + 1 words for p <
     * 2^(32N-2) (the squaring's bound, below). The result (a·b + c·d +
     * M·p)/R is below 2p^2/R + p < 2p, so one subtraction still reduces
     * it, and the two products take one reduction's chains instead of two. */
    template <bool TWO>
    __device__ __forceinline__ static fp mont_rows_ptx(const fp &a, const fp &b, const fp &c,
                                                       const fp &d) {
        uint32_t x[N + 1], y[N + 1];
        uint32_t ae[N / 2], ao[N / 2], ce[N / 2], co[N / 2], pe[N / 2], po[N / 2];
#pragma unroll
        for (int k = 0; k < N / 2; k++) {
            ae[k] = a.w[2 * k];
            ao[k] = a.w[2 * k + 1];
            ce[k] = c.w[2 * k];
            co[k] = c.w[2 * k + 1];
            pe[k] = P::p(2 * k);
            po[k] = P::p(2 * k + 1);
        }
#pragma unroll
        for (int j = 0; j < N + 1; j++) x[j] = y[j] = 0;
#pragma unroll
        for (int i = 0; i < N; i += 2) {
            mont_row<TWO>(x, y, ae, ao, ce, co, pe, po, b.w[i], d.w[i], i == 0);
            mont_row<TWO>(y, x, ae, ao, ce, co, pe, po, b.w[i + 1], d.w[i + 1], false);
        }
        return merge_rows(x, y);
    }

    /* After the last row (N is even, so its E is y and its O is x): the
     * value E/2^32 + O, below 2p, reduced once. */
    __device__ __forceinline__ static fp merge_rows(const uint32_t *x, const uint32_t *y) {
        fp r;
#pragma unroll
        for (int j = 0; j < N; j++) r.w[j] = x[j];
        add_in_place(r.w, y + 1);
        return reduce_once(r);
    }

    /* The last row's E, o, becomes this row's O: moved down two words, its
     * word 1, returned, to be added to word 0 of this row's E. */
    __device__ __forceinline__ static uint32_t odd_down(uint32_t *o) {
        const uint32_t low = o[1];
#pragma unroll
        for (int j = 0; j + 2 < N + 1; j++) o[j] = o[j + 2];
        o[N - 1] = 0;
        o[N] = 0;
        return low;
    }

    /* A row's reduction: m·p over E and O, which clears E's word 0. */
    __device__ __forceinline__ static void reduce_row(uint32_t *e, uint32_t *o, const uint32_t *pe,
                                                      const uint32_t *po) {
        const uint32_t m = e[0] * n0_const<P>;
        chain_pairs(e, pe, m);
        chain_pairs(o, po, m);
    }

    /* One row: e is this row's E; o holds the last row's E (or nothing on
     * the first row), which becomes this row's O. */
    template <bool TWO>
    __device__ __forceinline__ static void mont_row(uint32_t *e, uint32_t *o, const uint32_t *ae,
                                                    const uint32_t *ao, const uint32_t *ce,
                                                    const uint32_t *co, const uint32_t *pe,
                                                    const uint32_t *po, uint32_t bi, uint32_t di,
                                                    bool first) {
        if (first) {
            chain_pairs(o, ao, bi);
        } else {
            const uint32_t low = odd_down(o);
            chain_pairs_after_add(o, ao, bi, e[0], low);
        }
        chain_pairs(e, ae, bi);
        if constexpr (TWO) {
            chain_pairs(o, co, di);
            chain_pairs(e, ce, di);
        }
        reduce_row(e, o, pe, po);
    }

    /* a·a·R^(-1) mod p: the product's rows with the products a_j·a_i, j < i,
     * left out. Row i adds a_i·(a_i + 2·(a's words above i)), the sum of
     * the rows being a^2; its multiplicand x has x_i = a_i, x_(i+1) =
     * a_(i+1)·2 mod 2^32 and x_j = word j of 2a above that, and its
     * products land on words i to N of the row's frame, so its chains
     * start at the first pair at or above word i (chain_pairs_from,
     * chain_pairs_after_add_from): N(N+1)/2 products where the general
     * product has N^2, and the reduction's N^2 unchanged. A row adds up to
     * twice what a row of a general product adds (a_i·2a against a·b_i),
     * so the value before a division stays below 2^34·p, and N + 1 words
     * hold it only for p < 2^(32N-2): two spare bits, which BN254's fields
     * and BLS12-381's p have (sqr() calls the general product otherwise).
     * The result is below 2p as for any Montgomery product. */
    __device__ __forceinline__ static fp mont_sqr_ptx(const fp &a) {
        static_assert(P::BITS <= 32 * N - 2, "the squaring needs two spare bits");
        uint32_t x[N + 1], y[N + 1], d[N];
        uint32_t pe[N / 2], po[N / 2];
#pragma unroll
        for (int k = 0; k < N / 2; k++) {
            pe[k] = P::p(2 * k);
            po[k] = P::p(2 * k + 1);
        }
        /* 2a, whose top bit a < p leaves clear. */
        d[0] = a.w[0] << 1;
#pragma unroll
        for (int j = 1; j < N; j++) d[j] = __funnelshift_l(a.w[j - 1], a.w[j], 1);
#pragma unroll
        for (int j = 0; j < N + 1; j++) x[j] = y[j] = 0;
#pragma unroll
        for (int i = 0; i < N; i += 2) {
            sqr_row(x, y, a, d, pe, po, i);
            sqr_row(y, x, a, d, pe, po, i + 1);
        }
        return merge_rows(x, y);
    }

    /* Row i of the squaring, in the roles of mont_row (i is a constant once
     * the caller's loop unrolls, and so is every branch on it). */
    __device__ __forceinline__ static void sqr_row(uint32_t *e, uint32_t *o, const fp &a,
                                                   const uint32_t *d, const uint32_t *pe,
                                                   const uint32_t *po, int i) {
        uint32_t xe[N / 2], xo[N / 2];
#pragma unroll
        for (int k = 0; k < N / 2; k++) {
            const int je = 2 * k, jo = 2 * k + 1;
            xe[k] = je == i ? a.w[i] : je == i + 1 ? a.w[je] << 1 : d[je];
            xo[k] = jo == i ? a.w[i] : jo == i + 1 ? a.w[jo] << 1 : d[jo];
        }
        const uint32_t ai = a.w[i];
        if (i == 0) {
            chain_pairs(o, xo, ai);
        } else {
            const uint32_t low = odd_down(o);
            chain_pairs_after_add_from(o, xo, ai, e[0], low, i / 2);
        }
        chain_pairs_from(e, xe, ai, (i + 1) / 2);
        reduce_row(e, o, pe, po);
    }

    /* Shoup's product on the device, mul_shoup_c's columns (256-bit fields).
     * The quotient: the rows of x·w' in mont_rows_ptx's frame (E and O, divided
     * by 2^32 a row) with no reduction, each chain starting at its first
     * pair in column N - 2 or above; after the last row E/2^32 + O is
     * floor(S/R). The low halves: x·w's rows, then q·(-p)'s, in a fixed
     * frame of two accumulators, E with the pairs (2k, 2k + 1) and O with
     * the pairs (2k + 1, 2k + 2) held from its word 0; every chain ends in
     * the top word, so no carry leaves them and none is propagated. */
    __device__ __forceinline__ static fp mul_shoup_ptx(const fp &x, const shoup_factor &f) {
        static_assert(N == 8, "the device's Shoup product is written for 8 words");
        uint32_t a[N + 1], b[N + 1], qe[N / 2], qo[N / 2];
#pragma unroll
        for (int k = 0; k < N / 2; k++) qe[k] = f.q.w[2 * k], qo[k] = f.q.w[2 * k + 1];
#pragma unroll
        for (int j = 0; j < N + 1; j++) a[j] = b[j] = 0;
#pragma unroll
        for (int i = 0; i < N; i += 2) {
            quotient_row(a, b, qe, qo, x.w[i], i);
            quotient_row(b, a, qe, qo, x.w[i + 1], i + 1);
        }
        uint32_t q[N];
#pragma unroll
        for (int j = 0; j < N; j++) q[j] = a[j];
        add_in_place(q, b + 1);

        uint32_t e[N], o[N], we[N / 2], wo[N / 2], ne[N / 2], no[N / 2];
#pragma unroll
        for (int k = 0; k < N / 2; k++) {
            we[k] = f.w.w[2 * k], wo[k] = f.w.w[2 * k + 1];
            ne[k] = np(2 * k), no[k] = np(2 * k + 1);
        }
#pragma unroll
        for (int j = 0; j < N; j++) e[j] = o[j] = 0;
#pragma unroll
        for (int i = 0; i < N; i++) low_row(e, o, we, wo, x.w[i], i);
        if constexpr (low_words_cheap) {
            /* q << 32 into O, whose word j is column j + 1, and -q into E;
             * then the rows against -p's words 2 and up. */
            asm("add.cc.u32 %0, %0, %7;\n\t"
                "addc.cc.u32 %1, %1, %8;\n\t"
                "addc.cc.u32 %2, %2, %9;\n\t"
                "addc.cc.u32 %3, %3, %10;\n\t"
                "addc.cc.u32 %4, %4, %11;\n\t"
                "addc.cc.u32 %5, %5, %12;\n\t"
                "addc.u32 %6, %6, %13;"
                : "+r"(o[0]), "+r"(o[1]), "+r"(o[2]), "+r"(o[3]), "+r"(o[4]), "+r"(o[5]),
                  "+r"(o[6])
                : "r"(q[0]), "r"(q[1]), "r"(q[2]), "r"(q[3]), "r"(q[4]), "r"(q[5]), "r"(q[6]));
            sub_in_place(e, q);
#pragma unroll
            for (int i = 0; i + 2 < N; i++) low_row(e, o, ne + 1, no + 1, q[i], i + 2);
        } else {
#pragma unroll
            for (int i = 0; i < N; i++) low_row(e, o, ne, no, q[i], i);
        }
        fp r;
        asm("add.cc.u32 %1, %1, %8;\n\t"
            "addc.cc.u32 %2, %2, %9;\n\t"
            "addc.cc.u32 %3, %3, %10;\n\t"
            "addc.cc.u32 %4, %4, %11;\n\t"
            "addc.cc.u32 %5, %5, %12;\n\t"
            "addc.cc.u32 %6, %6, %13;\n\t"
            "addc.u32 %7, %7, %14;"
            : "+r"(e[0]), "+r"(e[1]), "+r"(e[2]), "+r"(e[3]), "+r"(e[4]), "+r"(e[5]), "+r"(e[6]),
              "+r"(e[7])
            : "r"(o[0]), "r"(o[1]), "r"(o[2]), "r"(o[3]), "r"(o[4]), "r"(o[5]), "r"(o[6]));
#pragma unroll
        for (int j = 0; j < N; j++) r.w[j] = e[j];
        return reduce_once(r);
    }

    /* Row i of the quotient, in the roles of mont_row: q's words at or
     * above column N - 2 only (i is a constant once the loop unrolls). */
    __device__ __forceinline__ static void quotient_row(uint32_t *e, uint32_t *o,
                                                        const uint32_t *qe, const uint32_t *qo,
                                                        uint32_t xi, int i) {
        const int k0e = i >= N - 2 ? 0 : (N - 1 - i) / 2; /* 2k + i >= N - 2 */
        const int k0o = i >= N - 3 ? 0 : (N - 2 - i) / 2; /* 2k + 1 + i >= N - 2 */
        if (i == 0) {
            chain_pairs_from(o, qo, xi, k0o);
        } else {
            const uint32_t low = odd_down(o);
            chain_pairs_after_add_from(o, qo, xi, e[0], low, k0o);
        }
        chain_pairs_from(e, qe, xi, k0e);
    }

    /* Row i of a low half, a·y with the products below column N only: a's
     * words of i's parity land on even columns (E), the others on odd ones
     * (O, whose word j is column j + 1). */
    __device__ __forceinline__ static void low_row(uint32_t *e, uint32_t *o, const uint32_t *ae,
                                                   const uint32_t *ao, uint32_t y, int i) {
        if (i % 2 == 0) {
            low_chain_e(e, ae, y, i);
            low_chain_o(o, ao, y, i);
        } else {
            if (i + 1 < N) low_chain_e(e, ao, y, i + 1);
            low_chain_o(o, ae, y, i - 1);
        }
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

    /* chain_pairs over the pairs k0 to N/2 - 1 only (none for k0 = N/2):
     * the squaring's rows, whose products start at word i. */
#define ZKP_T9(t)                                                                          \
    "+r"(t[0]), "+r"(t[1]), "+r"(t[2]), "+r"(t[3]), "+r"(t[4]), "+r"(t[5]), "+r"(t[6]), \
        "+r"(t[7]), "+r"(t[8])
#define ZKP_T13(t) ZKP_T9(t), "+r"(t[9]), "+r"(t[10]), "+r"(t[11]), "+r"(t[12])
#define ZKP_V4(x) "r"(x[0]), "r"(x[1]), "r"(x[2]), "r"(x[3])
#define ZKP_V6(x) ZKP_V4(x), "r"(x[4]), "r"(x[5])
#define ZKP_E8(chain) asm(chain : ZKP_T9(t) : ZKP_V4(x), "r"(y))
#define ZKP_E12(chain) asm(chain : ZKP_T13(t) : ZKP_V6(x), "r"(y))
#define ZKP_O8(chain) asm(chain : ZKP_T9(t), "+r"(s0) : ZKP_V4(x), "r"(y), "r"(u0))
#define ZKP_O12(chain) asm(chain : ZKP_T13(t), "+r"(s0) : ZKP_V6(x), "r"(y), "r"(u0))
    __device__ __forceinline__ static void chain_pairs_from(uint32_t *t, const uint32_t *x,
                                                            uint32_t y, int k0) {
        if constexpr (N == 8) {
            switch (k0) {
            case 0: chain_pairs(t, x, y); break;
            case 1:
                ZKP_E8(ZKP_PAIR0(2, 3, 10, 13) ZKP_PAIR(4, 5, 11, 13) ZKP_PAIR(6, 7, 12, 13)
                    "addc.u32 %8, %8, 0;");
                break;
            case 2:
                ZKP_E8(ZKP_PAIR0(4, 5, 11, 13) ZKP_PAIR(6, 7, 12, 13) "addc.u32 %8, %8, 0;");
                break;
            case 3:
                ZKP_E8(ZKP_PAIR0(6, 7, 12, 13) "addc.u32 %8, %8, 0;");
                break;
            default: break;
            }
        } else {
            switch (k0) {
            case 0: chain_pairs(t, x, y); break;
            case 1:
                ZKP_E12(ZKP_PAIR0(2, 3, 14, 19) ZKP_PAIR(4, 5, 15, 19) ZKP_PAIR(6, 7, 16, 19)
                    ZKP_PAIR(8, 9, 17, 19) ZKP_PAIR(10, 11, 18, 19) "addc.u32 %12, %12, 0;");
                break;
            case 2:
                ZKP_E12(ZKP_PAIR0(4, 5, 15, 19) ZKP_PAIR(6, 7, 16, 19) ZKP_PAIR(8, 9, 17, 19)
                    ZKP_PAIR(10, 11, 18, 19) "addc.u32 %12, %12, 0;");
                break;
            case 3:
                ZKP_E12(ZKP_PAIR0(6, 7, 16, 19) ZKP_PAIR(8, 9, 17, 19) ZKP_PAIR(10, 11, 18, 19)
                    "addc.u32 %12, %12, 0;");
                break;
            case 4:
                ZKP_E12(ZKP_PAIR0(8, 9, 17, 19) ZKP_PAIR(10, 11, 18, 19) "addc.u32 %12, %12, 0;");
                break;
            case 5:
                ZKP_E12(ZKP_PAIR0(10, 11, 18, 19) "addc.u32 %12, %12, 0;");
                break;
            default: break;
            }
        }
    }

    /* chain_pairs_after_add over the pairs k0 to N/2 - 1: the carry of
     * s0 += u0 runs through the words below pair k0 first. */
    __device__ __forceinline__ static void chain_pairs_after_add_from(uint32_t *t,
                                                                      const uint32_t *x,
                                                                      uint32_t y, uint32_t &s0,
                                                                      uint32_t u0, int k0) {
        if constexpr (N == 8) {
            switch (k0) {
            case 0: chain_pairs_after_add(t, x, y, s0, u0); break;
            case 1:
                ZKP_O8("add.cc.u32 %9, %9, %15;\n\t" "addc.cc.u32 %0, %0, 0;\n\t"
                    "addc.cc.u32 %1, %1, 0;\n\t" ZKP_PAIR(2, 3, 11, 14) ZKP_PAIR(4, 5, 12, 14)
                    ZKP_PAIR(6, 7, 13, 14) "addc.u32 %8, %8, 0;");
                break;
            case 2:
                ZKP_O8("add.cc.u32 %9, %9, %15;\n\t" "addc.cc.u32 %0, %0, 0;\n\t"
                    "addc.cc.u32 %1, %1, 0;\n\t" "addc.cc.u32 %2, %2, 0;\n\t"
                    "addc.cc.u32 %3, %3, 0;\n\t" ZKP_PAIR(4, 5, 12, 14) ZKP_PAIR(6, 7, 13, 14)
                    "addc.u32 %8, %8, 0;");
                break;
            case 3:
                ZKP_O8("add.cc.u32 %9, %9, %15;\n\t" "addc.cc.u32 %0, %0, 0;\n\t"
                    "addc.cc.u32 %1, %1, 0;\n\t" "addc.cc.u32 %2, %2, 0;\n\t"
                    "addc.cc.u32 %3, %3, 0;\n\t" "addc.cc.u32 %4, %4, 0;\n\t"
                    "addc.cc.u32 %5, %5, 0;\n\t" ZKP_PAIR(6, 7, 13, 14) "addc.u32 %8, %8, 0;");
                break;
            default: break;
            }
        } else {
            switch (k0) {
            case 0: chain_pairs_after_add(t, x, y, s0, u0); break;
            case 1:
                ZKP_O12("add.cc.u32 %13, %13, %21;\n\t" "addc.cc.u32 %0, %0, 0;\n\t"
                    "addc.cc.u32 %1, %1, 0;\n\t" ZKP_PAIR(2, 3, 15, 20) ZKP_PAIR(4, 5, 16, 20)
                    ZKP_PAIR(6, 7, 17, 20) ZKP_PAIR(8, 9, 18, 20) ZKP_PAIR(10, 11, 19, 20)
                    "addc.u32 %12, %12, 0;");
                break;
            case 2:
                ZKP_O12("add.cc.u32 %13, %13, %21;\n\t" "addc.cc.u32 %0, %0, 0;\n\t"
                    "addc.cc.u32 %1, %1, 0;\n\t" "addc.cc.u32 %2, %2, 0;\n\t"
                    "addc.cc.u32 %3, %3, 0;\n\t" ZKP_PAIR(4, 5, 16, 20) ZKP_PAIR(6, 7, 17, 20)
                    ZKP_PAIR(8, 9, 18, 20) ZKP_PAIR(10, 11, 19, 20) "addc.u32 %12, %12, 0;");
                break;
            case 3:
                ZKP_O12("add.cc.u32 %13, %13, %21;\n\t" "addc.cc.u32 %0, %0, 0;\n\t"
                    "addc.cc.u32 %1, %1, 0;\n\t" "addc.cc.u32 %2, %2, 0;\n\t"
                    "addc.cc.u32 %3, %3, 0;\n\t" "addc.cc.u32 %4, %4, 0;\n\t"
                    "addc.cc.u32 %5, %5, 0;\n\t" ZKP_PAIR(6, 7, 17, 20) ZKP_PAIR(8, 9, 18, 20)
                    ZKP_PAIR(10, 11, 19, 20) "addc.u32 %12, %12, 0;");
                break;
            case 4:
                ZKP_O12("add.cc.u32 %13, %13, %21;\n\t" "addc.cc.u32 %0, %0, 0;\n\t"
                    "addc.cc.u32 %1, %1, 0;\n\t" "addc.cc.u32 %2, %2, 0;\n\t"
                    "addc.cc.u32 %3, %3, 0;\n\t" "addc.cc.u32 %4, %4, 0;\n\t"
                    "addc.cc.u32 %5, %5, 0;\n\t" "addc.cc.u32 %6, %6, 0;\n\t"
                    "addc.cc.u32 %7, %7, 0;\n\t" ZKP_PAIR(8, 9, 18, 20) ZKP_PAIR(10, 11, 19, 20)
                    "addc.u32 %12, %12, 0;");
                break;
            case 5:
                ZKP_O12("add.cc.u32 %13, %13, %21;\n\t" "addc.cc.u32 %0, %0, 0;\n\t"
                    "addc.cc.u32 %1, %1, 0;\n\t" "addc.cc.u32 %2, %2, 0;\n\t"
                    "addc.cc.u32 %3, %3, 0;\n\t" "addc.cc.u32 %4, %4, 0;\n\t"
                    "addc.cc.u32 %5, %5, 0;\n\t" "addc.cc.u32 %6, %6, 0;\n\t"
                    "addc.cc.u32 %7, %7, 0;\n\t" "addc.cc.u32 %8, %8, 0;\n\t"
                    "addc.cc.u32 %9, %9, 0;\n\t" ZKP_PAIR(10, 11, 19, 20) "addc.u32 %12, %12, 0;");
                break;
            default: break;
            }
        }
    }
    /* The low halves' chains: t[s..N-1] += x·y, the pairs from word s (even)
     * up, x's words in order; E's last pair ends in the top word, O's top
     * word N - 1 (column N) takes a low-only product and no carry out. */
#define ZKP_LOW(d, x) "madc.lo.u32 %" #d ", %" #x ", %12, %" #d ";"
#define ZKP_LOW0(d, x) "mad.lo.u32 %" #d ", %" #x ", %12, %" #d ";"
#define ZKP_L8(chain) asm(chain : ZKP_T8(t) : ZKP_V4(x), "r"(y))
#define ZKP_T8(t)                                                                          \
    "+r"(t[0]), "+r"(t[1]), "+r"(t[2]), "+r"(t[3]), "+r"(t[4]), "+r"(t[5]), "+r"(t[6]), \
        "+r"(t[7])
    __device__ __forceinline__ static void low_chain_e(uint32_t *t, const uint32_t *x, uint32_t y,
                                                       int s) {
        switch (s) {
        case 0:
            ZKP_L8(ZKP_PAIR0(0, 1, 8, 12) ZKP_PAIR(2, 3, 9, 12) ZKP_PAIR(4, 5, 10, 12)
                       ZKP_PAIR(6, 7, 11, 12));
            break;
        case 2: ZKP_L8(ZKP_PAIR0(2, 3, 8, 12) ZKP_PAIR(4, 5, 9, 12) ZKP_PAIR(6, 7, 10, 12)); break;
        case 4: ZKP_L8(ZKP_PAIR0(4, 5, 8, 12) ZKP_PAIR(6, 7, 9, 12)); break;
        case 6: ZKP_L8(ZKP_PAIR0(6, 7, 8, 12)); break;
        default: break;
        }
    }
    __device__ __forceinline__ static void low_chain_o(uint32_t *t, const uint32_t *x, uint32_t y,
                                                       int s) {
        switch (s) {
        case 0:
            ZKP_L8(ZKP_PAIR0(0, 1, 8, 12) ZKP_PAIR(2, 3, 9, 12) ZKP_PAIR(4, 5, 10, 12)
                       ZKP_LOW(6, 11));
            break;
        case 2: ZKP_L8(ZKP_PAIR0(2, 3, 8, 12) ZKP_PAIR(4, 5, 9, 12) ZKP_LOW(6, 10)); break;
        case 4: ZKP_L8(ZKP_PAIR0(4, 5, 8, 12) ZKP_LOW(6, 9)); break;
        case 6: ZKP_L8(ZKP_LOW0(6, 8)); break;
        default: break;
        }
    }
#undef ZKP_LOW
#undef ZKP_LOW0
#undef ZKP_L8
#undef ZKP_T8
#undef ZKP_T9
#undef ZKP_T13
#undef ZKP_V4
#undef ZKP_V6
#undef ZKP_E8
#undef ZKP_E12
#undef ZKP_O8
#undef ZKP_O12
#undef ZKP_PAIR
#undef ZKP_PAIR0

    /* x += y over N words, the sum known to fit; x -= y, with the borrow
     * out as 0 or all ones. One carry chain each. Operands are numbered
     * outputs first: x, then the borrow, then y. */
#define ZKP_ADD0(i, j) "add.cc.u32 %" #i ", %" #i ", %" #j ";\n\t"
#define ZKP_ADDC(i, j) "addc.cc.u32 %" #i ", %" #i ", %" #j ";\n\t"
#define ZKP_ADDL(i, j) "addc.u32 %" #i ", %" #i ", %" #j ";"
#define ZKP_SUB0(i, j) "sub.cc.u32 %" #i ", %" #i ", %" #j ";\n\t"
#define ZKP_SUBC(i, j) "subc.cc.u32 %" #i ", %" #i ", %" #j ";\n\t"
#define ZKP_X8(v) "+r"(v[0]), "+r"(v[1]), "+r"(v[2]), "+r"(v[3]), "+r"(v[4]), "+r"(v[5]), "+r"(v[6]), "+r"(v[7])
#define ZKP_Y8(v) "r"(v[0]), "r"(v[1]), "r"(v[2]), "r"(v[3]), "r"(v[4]), "r"(v[5]), "r"(v[6]), "r"(v[7])
#define ZKP_X12(v) ZKP_X8(v), "+r"(v[8]), "+r"(v[9]), "+r"(v[10]), "+r"(v[11])
#define ZKP_Y12(v) ZKP_Y8(v), "r"(v[8]), "r"(v[9]), "r"(v[10]), "r"(v[11])
    __device__ __forceinline__ static void add_in_place(uint32_t *x, const uint32_t *y) {
        if constexpr (N == 8) {
            asm(ZKP_ADD0(0, 8) ZKP_ADDC(1, 9) ZKP_ADDC(2, 10) ZKP_ADDC(3, 11) ZKP_ADDC(4, 12)
                    ZKP_ADDC(5, 13) ZKP_ADDC(6, 14) ZKP_ADDL(7, 15)
                : ZKP_X8(x)
                : ZKP_Y8(y));
        } else {
            asm(ZKP_ADD0(0, 12) ZKP_ADDC(1, 13) ZKP_ADDC(2, 14) ZKP_ADDC(3, 15) ZKP_ADDC(4, 16)
                    ZKP_ADDC(5, 17) ZKP_ADDC(6, 18) ZKP_ADDC(7, 19) ZKP_ADDC(8, 20) ZKP_ADDC(9, 21)
                        ZKP_ADDC(10, 22) ZKP_ADDL(11, 23)
                : ZKP_X12(x)
                : ZKP_Y12(y));
        }
    }
    __device__ __forceinline__ static uint32_t sub_in_place(uint32_t *x, const uint32_t *y) {
        uint32_t borrow;
        if constexpr (N == 8) {
            asm(ZKP_SUB0(0, 9) ZKP_SUBC(1, 10) ZKP_SUBC(2, 11) ZKP_SUBC(3, 12) ZKP_SUBC(4, 13)
                    ZKP_SUBC(5, 14) ZKP_SUBC(6, 15) ZKP_SUBC(7, 16) "subc.u32 %8, 0, 0;"
                : ZKP_X8(x), "=r"(borrow)
                : ZKP_Y8(y));
        } else {
            asm(ZKP_SUB0(0, 13) ZKP_SUBC(1, 14) ZKP_SUBC(2, 15) ZKP_SUBC(3, 16) ZKP_SUBC(4, 17)
                    ZKP_SUBC(5, 18) ZKP_SUBC(6, 19) ZKP_SUBC(7, 20) ZKP_SUBC(8, 21) ZKP_SUBC(9, 22)
                        ZKP_SUBC(10, 23) ZKP_SUBC(11, 24) "subc.u32 %12, 0, 0;"
                : ZKP_X12(x), "=r"(borrow)
                : ZKP_Y12(y));
        }
        return borrow;
    }
#undef ZKP_ADD0
#undef ZKP_ADDC
#undef ZKP_ADDL
#undef ZKP_SUB0
#undef ZKP_SUBC
#undef ZKP_X8
#undef ZKP_Y8
#undef ZKP_X12
#undef ZKP_Y12

    /* The modulus as words, for the chains. */
    __device__ __forceinline__ static void modulus_words(uint32_t *p) {
#pragma unroll
        for (int j = 0; j < N; j++) p[j] = P::p(j);
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
    return B::mont_mul(a, b);
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
    /* fp's sum of two products, which the curve's formulas call; here the
     * plain one. */
    ZKP_GPU_HD static fp2 sum_of_products(const fp2 &a, const fp2 &b, const fp2 &c, const fp2 &d) {
        return a * b + c * d;
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
