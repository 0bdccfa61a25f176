/* x86-64 Montgomery multiplication with mulx/adcx/adox; see mont_x86.h.
 *
 * Algorithm: CIOS (coarsely integrated operand scanning), fully unrolled.
 * For each limb b[i] of the multiplier:
 *
 *     T += a * b[i]                 (N mulx)
 *     m  = T[0] * n0 mod 2^64
 *     T  = (T + m * p) / 2^64       (N mulx; the low word becomes zero)
 *
 * Each pass runs two independent carry chains: adcx (CF) adds the low
 * halves of the products into T[j], adox (OF) adds the high halves into
 * T[j+1]. mulx itself leaves the flags alone, so the chains can be fed
 * without saving carries in registers.
 *
 * Spare bit: all moduli satisfy p < 2^(64N-1). With a, b < p the
 * accumulator stays below 2p < 2^(64N) between rounds and below 2^(64(N+1))
 * inside one, so T lives in N+1 registers and nothing ever carries out of
 * the top word: both chains end in that word with a zero carry, there is no
 * separate carry word to thread from round to round, and the final result
 * (< 2p) needs a single N-word conditional subtraction of p, done with
 * sub/sbb and cmov (no branch).
 *
 * The N+1 accumulator registers rotate: after a round the word that was
 * reduced to zero becomes the free top word of the next round, so the
 * division by 2^64 costs no moves. The result is returned in registers and
 * stored by C after the asm has finished, which is what makes r aliasing a
 * or b harmless.
 *
 * Squaring uses the same kernel (see the note above zkp_mont_sqr_6_adx). */
#include "field/mont_x86.h"

#ifdef ZKP_HAVE_X86_ASM

#define ZKP_ADX __attribute__((target("adx,bmi2")))

#define NL "\n\t"
#define OP_(name) "%[" #name "]"

/* One column step: (hi:lo) = rdx * src[off]; lo into L with the CF chain,
 * hi into H with the OF chain. */
#define MAC_(off, src, L, H)                                  \
    "mulxq " #off "(" OP_(src) "), %[lo], %[hi]" NL         \
    "adcxq %[lo], " OP_(L) NL                               \
    "adoxq %[hi], " OP_(H) NL

/* ---- 4 limbs: accumulator x0..x4 ------------------------------------ */

/* T = a * b[0]; one carry chain is enough since T starts empty. */
#define MUL4_FIRST(T0, T1, T2, T3, T4)                    \
    "movq 0(%[b]), %%rdx" NL                              \
    "mulxq 0(%[a]), " OP_(T0) ", " OP_(T1) NL             \
    "mulxq 8(%[a]), %[lo], " OP_(T2) NL                   \
    "addq %[lo], " OP_(T1) NL                             \
    "mulxq 16(%[a]), %[lo], " OP_(T3) NL                  \
    "adcq %[lo], " OP_(T2) NL                             \
    "mulxq 24(%[a]), %[lo], " OP_(T4) NL                  \
    "adcq %[lo], " OP_(T3) NL                             \
    "adcq $0, " OP_(T4) NL

/* T[0..4] += a * b[i] (T4 is free on entry and receives the top word). */
#define MUL4_ACC(boff, T0, T1, T2, T3, T4)                \
    "movq " #boff "(%[b]), %%rdx" NL                      \
    "xorl %k[lo], %k[lo]" NL                              \
    MAC_(0, a, T0, T1)                                    \
    MAC_(8, a, T1, T2)                                    \
    MAC_(16, a, T2, T3)                                   \
    "mulxq 24(%[a]), %[lo], " OP_(T4) NL                  \
    "adcxq %[lo], " OP_(T3) NL                            \
    "movl $0, %k[lo]" NL                                  \
    "adcxq %[lo], " OP_(T4) NL                            \
    "adoxq %[lo], " OP_(T4) NL

/* T = (T + m*p) / 2^64 with m = T0*n0: T0 becomes zero, T1..T4 hold T. */
#define RED4(T0, T1, T2, T3, T4)                          \
    "movq " OP_(T0) ", %%rdx" NL                          \
    "imulq %[n0], %%rdx" NL                               \
    "xorl %k[lo], %k[lo]" NL                              \
    MAC_(0, p, T0, T1)                                    \
    MAC_(8, p, T1, T2)                                    \
    MAC_(16, p, T2, T3)                                   \
    MAC_(24, p, T3, T4)                                   \
    "movl $0, %k[lo]" NL                                  \
    "adcxq %[lo], " OP_(T4) NL

/* T < 2p: T -= p unless that borrows, without a branch. S0..S3 scratch. */
#define FINAL4(T0, T1, T2, T3, S0, S1, S2, S3)            \
    "movq " OP_(T0) ", " S0 NL                            \
    "subq 0(%[p]), " S0 NL                                \
    "movq " OP_(T1) ", " S1 NL                            \
    "sbbq 8(%[p]), " S1 NL                                \
    "movq " OP_(T2) ", " S2 NL                            \
    "sbbq 16(%[p]), " S2 NL                               \
    "movq " OP_(T3) ", " S3 NL                            \
    "sbbq 24(%[p]), " S3 NL                               \
    "cmovncq " S0 ", " OP_(T0) NL                         \
    "cmovncq " S1 ", " OP_(T1) NL                         \
    "cmovncq " S2 ", " OP_(T2) NL                         \
    "cmovncq " S3 ", " OP_(T3) NL

ZKP_ADX void zkp_mont_mul_4_adx(uint64_t r[4], const uint64_t a[4], const uint64_t b[4],
                                const uint64_t p[4], uint64_t n0) {
    uint64_t x0, x1, x2, x3, x4, lo, hi, dx;
    const uint64_t *pa = a, *pb = b;
    __asm__(MUL4_FIRST(x0, x1, x2, x3, x4)
            RED4(x0, x1, x2, x3, x4)
            MUL4_ACC(8, x1, x2, x3, x4, x0)
            RED4(x1, x2, x3, x4, x0)
            MUL4_ACC(16, x2, x3, x4, x0, x1)
            RED4(x2, x3, x4, x0, x1)
            MUL4_ACC(24, x3, x4, x0, x1, x2)
            RED4(x3, x4, x0, x1, x2)
            FINAL4(x4, x0, x1, x2, "%[lo]", "%[hi]", "%%rdx", "%[b]")
            : [x0] "=&r"(x0), [x1] "=&r"(x1), [x2] "=&r"(x2), [x3] "=&r"(x3), [x4] "=&r"(x4),
              [lo] "=&r"(lo), [hi] "=&r"(hi), "=&d"(dx), [a] "+&r"(pa), [b] "+&r"(pb)
            : [p] "r"(p), [n0] "r"(n0)
            : "cc", "memory");
    r[0] = x4;
    r[1] = x0;
    r[2] = x1;
    r[3] = x2;
}

/* Squaring: the dedicated form (off-diagonal products once, doubled, plus
 * the squares, then a separate reduction) saves multiplications but turns
 * the interleaved schedule into two dependent phases; on the machines
 * measured it was not faster than the interleaved multiplication, so a
 * square is a multiplication by itself. */
ZKP_ADX void zkp_mont_sqr_4_adx(uint64_t r[4], const uint64_t a[4], const uint64_t p[4],
                                uint64_t n0) {
    zkp_mont_mul_4_adx(r, a, a, p, n0);
}

/* ---- 6 limbs: accumulator x0..x6 ------------------------------------ */

#define MUL6_FIRST(T0, T1, T2, T3, T4, T5, T6)            \
    "movq 0(%[b]), %%rdx" NL                              \
    "mulxq 0(%[a]), " OP_(T0) ", " OP_(T1) NL             \
    "mulxq 8(%[a]), %[lo], " OP_(T2) NL                   \
    "addq %[lo], " OP_(T1) NL                             \
    "mulxq 16(%[a]), %[lo], " OP_(T3) NL                  \
    "adcq %[lo], " OP_(T2) NL                             \
    "mulxq 24(%[a]), %[lo], " OP_(T4) NL                  \
    "adcq %[lo], " OP_(T3) NL                             \
    "mulxq 32(%[a]), %[lo], " OP_(T5) NL                  \
    "adcq %[lo], " OP_(T4) NL                             \
    "mulxq 40(%[a]), %[lo], " OP_(T6) NL                  \
    "adcq %[lo], " OP_(T5) NL                             \
    "adcq $0, " OP_(T6) NL

#define MUL6_ACC(boff, T0, T1, T2, T3, T4, T5, T6)        \
    "movq " #boff "(%[b]), %%rdx" NL                      \
    "xorl %k[lo], %k[lo]" NL                              \
    MAC_(0, a, T0, T1)                                    \
    MAC_(8, a, T1, T2)                                    \
    MAC_(16, a, T2, T3)                                   \
    MAC_(24, a, T3, T4)                                   \
    MAC_(32, a, T4, T5)                                   \
    "mulxq 40(%[a]), %[lo], " OP_(T6) NL                  \
    "adcxq %[lo], " OP_(T5) NL                            \
    "movl $0, %k[lo]" NL                                  \
    "adcxq %[lo], " OP_(T6) NL                            \
    "adoxq %[lo], " OP_(T6) NL

#define RED6(T0, T1, T2, T3, T4, T5, T6)                  \
    "movq " OP_(T0) ", %%rdx" NL                          \
    "imulq %[n0], %%rdx" NL                               \
    "xorl %k[lo], %k[lo]" NL                              \
    MAC_(0, p, T0, T1)                                    \
    MAC_(8, p, T1, T2)                                    \
    MAC_(16, p, T2, T3)                                   \
    MAC_(24, p, T3, T4)                                   \
    MAC_(32, p, T4, T5)                                   \
    MAC_(40, p, T5, T6)                                   \
    "movl $0, %k[lo]" NL                                  \
    "adcxq %[lo], " OP_(T6) NL

#define FINAL6(T0, T1, T2, T3, T4, T5, S0, S1, S2, S3, S4, S5) \
    "movq " OP_(T0) ", " S0 NL                            \
    "subq 0(%[p]), " S0 NL                                \
    "movq " OP_(T1) ", " S1 NL                            \
    "sbbq 8(%[p]), " S1 NL                                \
    "movq " OP_(T2) ", " S2 NL                            \
    "sbbq 16(%[p]), " S2 NL                               \
    "movq " OP_(T3) ", " S3 NL                            \
    "sbbq 24(%[p]), " S3 NL                               \
    "movq " OP_(T4) ", " S4 NL                            \
    "sbbq 32(%[p]), " S4 NL                               \
    "movq " OP_(T5) ", " S5 NL                            \
    "sbbq 40(%[p]), " S5 NL                               \
    "cmovncq " S0 ", " OP_(T0) NL                         \
    "cmovncq " S1 ", " OP_(T1) NL                         \
    "cmovncq " S2 ", " OP_(T2) NL                         \
    "cmovncq " S3 ", " OP_(T3) NL                         \
    "cmovncq " S4 ", " OP_(T4) NL                         \
    "cmovncq " S5 ", " OP_(T5) NL

ZKP_ADX void zkp_mont_mul_6_adx(uint64_t r[6], const uint64_t a[6], const uint64_t b[6],
                                const uint64_t p[6], uint64_t n0) {
    uint64_t x0, x1, x2, x3, x4, x5, x6, lo, hi, dx;
    const uint64_t *pa = a, *pb = b;
    __asm__(MUL6_FIRST(x0, x1, x2, x3, x4, x5, x6)
            RED6(x0, x1, x2, x3, x4, x5, x6)
            MUL6_ACC(8, x1, x2, x3, x4, x5, x6, x0)
            RED6(x1, x2, x3, x4, x5, x6, x0)
            MUL6_ACC(16, x2, x3, x4, x5, x6, x0, x1)
            RED6(x2, x3, x4, x5, x6, x0, x1)
            MUL6_ACC(24, x3, x4, x5, x6, x0, x1, x2)
            RED6(x3, x4, x5, x6, x0, x1, x2)
            MUL6_ACC(32, x4, x5, x6, x0, x1, x2, x3)
            RED6(x4, x5, x6, x0, x1, x2, x3)
            MUL6_ACC(40, x5, x6, x0, x1, x2, x3, x4)
            RED6(x5, x6, x0, x1, x2, x3, x4)
            FINAL6(x6, x0, x1, x2, x3, x4, "%[lo]", "%[hi]", "%%rdx", "%[a]", "%[b]", "%[x5]")
            : [x0] "=&r"(x0), [x1] "=&r"(x1), [x2] "=&r"(x2), [x3] "=&r"(x3), [x4] "=&r"(x4),
              [x5] "=&r"(x5), [x6] "=&r"(x6), [lo] "=&r"(lo), [hi] "=&r"(hi), "=&d"(dx),
              [a] "+&r"(pa), [b] "+&r"(pb)
            : [p] "r"(p), [n0] "r"(n0)
            : "cc", "memory");
    r[0] = x6;
    r[1] = x0;
    r[2] = x1;
    r[3] = x2;
    r[4] = x3;
    r[5] = x4;
}

ZKP_ADX void zkp_mont_sqr_6_adx(uint64_t r[6], const uint64_t a[6], const uint64_t p[6],
                                uint64_t n0) {
    zkp_mont_mul_6_adx(r, a, a, p, n0);
}

#else

typedef int zkp_mont_x86_unused_t;

#endif
