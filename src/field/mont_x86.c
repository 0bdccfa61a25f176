/* x86-64 Montgomery multiplication and squaring with mulx/adcx/adox; see
 * mont_x86.h.
 *
 * Multiplication: CIOS (coarsely integrated operand scanning), fully
 * unrolled. For each limb b[i] of the multiplier:
 *
 *     T += a * b[i]                 (N mulx)
 *     m  = T[0] * n0 mod 2^64
 *     T  = (T + m * p) / 2^64       (N mulx; the low word becomes zero)
 *
 * Each pass runs two independent carry chains: adcx (CF) adds the low
 * halves of the products into T[j], adox (OF) adds the high halves into
 * T[j+1]. mulx leaves the flags alone, so both chains are fed without
 * parking carries in registers. Every pass starts with an xor: it clears CF
 * and OF and, as important, it cuts the dependency of the new chains on the
 * last carries of the previous pass, which would otherwise put every
 * pass's tail on the critical path of the next (measured on Zen 4: 5%
 * of the latency for 6 limbs, 12% for 4).
 *
 * Spare bit: all moduli satisfy p < 2^(64N-1). With a, b < p the
 * accumulator stays below 2p < 2^(64N) between rounds and below 2^(64(N+1))
 * inside one, so T lives in N+1 registers and nothing ever carries out of
 * the top word: both chains end in that word with a zero carry, there is no
 * separate carry word to thread from round to round, and the final result
 * (< 2p) needs a single N-word conditional subtraction of p, done with
 * sub/sbb and cmov (no branch). (The same schedule without this
 * assumption, threading the extra carry word, measured 7-9% slower for 6
 * limbs.)
 *
 * The N+1 accumulator registers rotate: the word a reduction zeroes is the
 * top word of the next round, so the division by 2^64 costs no moves, and
 * because that register holds exactly 0 it doubles as the zero operand
 * that folds the last carries into the top word. The result is returned in
 * registers and stored by C after the asm has finished, which is what makes
 * r aliasing a or b harmless.
 *
 * Squaring has its own kernels (section below): 9-16% faster than
 * multiplying a by itself.
 *
 * Registers: the 6-limb kernels use 14 general registers, all there are
 * when the frame pointer is kept (sanitizer builds), so every other operand
 * is addressed through those registers. */
#include "field/mont_x86.h"

#ifdef ZKP_HAVE_X86_ASM

#include <x86intrin.h>

#define ZKP_ADX __attribute__((target("adx,bmi2")))

#define NL "\n\t"
#define OP_(name) "%[" #name "]"

/* One column step: (hi:lo) = rdx * src[off]; lo into L on the CF chain,
 * hi into H on the OF chain. */
#define MAC_(off, src, L, H)                          \
    "mulxq " #off "(" OP_(src) "), %[lo], %[hi]" NL \
    "adcxq %[lo], " OP_(L) NL                       \
    "adoxq %[hi], " OP_(H) NL

/* rdx = m = T0 * n0 mod 2^64 (n0: an operand string), then clear both flags
 * (imul leaves them undefined). */
#define MONT_M_(T0, n0)                \
    "movq " OP_(T0) ", %%rdx" NL       \
    "imulq " n0 ", %%rdx" NL           \
    "xorl %k[lo], %k[lo]" NL

/* T - p if that does not borrow, else T; S0.. are scratch operand strings. */
#define CSUB_STEP_(op, off, T, S) \
    "movq " OP_(T) ", " S NL      \
    op " " #off "(%[p]), " S NL
#define CMOV_(T, S) "cmovncq " S ", " OP_(T) NL

#define FINAL4(T0, T1, T2, T3, S0, S1, S2, S3)                                \
    CSUB_STEP_("subq", 0, T0, S0)                                             \
    CSUB_STEP_("sbbq", 8, T1, S1)                                             \
    CSUB_STEP_("sbbq", 16, T2, S2)                                            \
    CSUB_STEP_("sbbq", 24, T3, S3)                                            \
    CMOV_(T0, S0) CMOV_(T1, S1) CMOV_(T2, S2) CMOV_(T3, S3)

#define FINAL6(T0, T1, T2, T3, T4, T5, S0, S1, S2, S3, S4, S5)                \
    CSUB_STEP_("subq", 0, T0, S0)                                             \
    CSUB_STEP_("sbbq", 8, T1, S1)                                             \
    CSUB_STEP_("sbbq", 16, T2, S2)                                            \
    CSUB_STEP_("sbbq", 24, T3, S3)                                            \
    CSUB_STEP_("sbbq", 32, T4, S4)                                            \
    CSUB_STEP_("sbbq", 40, T5, S5)                                            \
    CMOV_(T0, S0) CMOV_(T1, S1) CMOV_(T2, S2) CMOV_(T3, S3) CMOV_(T4, S4)     \
    CMOV_(T5, S5)

/* ---- 4 limbs --------------------------------------------------------- */

/* T = a * b[0]; one carry chain is enough since T starts empty. */
#define MUL4_FIRST(T0, T1, T2, T3, T4)          \
    "movq 0(%[b]), %%rdx" NL                    \
    "xorl %k[hi], %k[hi]" NL                    \
    "mulxq 0(%[a]), " OP_(T0) ", " OP_(T1) NL   \
    "mulxq 8(%[a]), %[lo], " OP_(T2) NL         \
    "adcxq %[lo], " OP_(T1) NL                  \
    "mulxq 16(%[a]), %[lo], " OP_(T3) NL        \
    "adcxq %[lo], " OP_(T2) NL                  \
    "mulxq 24(%[a]), %[lo], " OP_(T4) NL        \
    "adcxq %[lo], " OP_(T3) NL                  \
    "adcxq %[hi], " OP_(T4) NL

/* T += a * b[i]; T4 is zero on entry and receives the top word. */
#define MUL4_ACC(boff, T0, T1, T2, T3, T4)      \
    "movq " #boff "(%[b]), %%rdx" NL            \
    "xorl %k[lo], %k[lo]" NL                    \
    MAC_(0, a, T0, T1)                          \
    MAC_(8, a, T1, T2)                          \
    MAC_(16, a, T2, T3)                         \
    "mulxq 24(%[a]), %[lo], %[hi]" NL           \
    "adcxq %[lo], " OP_(T3) NL                  \
    "adcxq " OP_(T4) ", %[hi]" NL               \
    "adoxq %[hi], " OP_(T4) NL

/* T = (T + m*p) / 2^64: T0's register ends up zero, T1..T4 hold T. */
#define RED4(T0, T1, T2, T3, T4)                \
    MONT_M_(T0, "%[n0]")                        \
    MAC_(0, p, T0, T1)                          \
    MAC_(8, p, T1, T2)                          \
    MAC_(16, p, T2, T3)                         \
    MAC_(24, p, T3, T4)                         \
    "adcxq " OP_(T0) ", " OP_(T4) NL

ZKP_ADX void zkp_mont_mul_4_adx(uint64_t r[4], const uint64_t a[4], const uint64_t b[4],
                                const uint64_t p[4], uint64_t n0) {
    uint64_t x0, x1, x2, x3, x4, lo, hi, dx;
    const uint64_t *pa = a, *pb = b;
    /* Round i works on x[i..i+4 mod 5]. */
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

/* ---- 6 limbs --------------------------------------------------------- */

#define MUL6_FIRST(T0, T1, T2, T3, T4, T5, T6)  \
    "movq 0(%[b]), %%rdx" NL                    \
    "xorl %k[hi], %k[hi]" NL                    \
    "mulxq 0(%[a]), " OP_(T0) ", " OP_(T1) NL   \
    "mulxq 8(%[a]), %[lo], " OP_(T2) NL         \
    "adcxq %[lo], " OP_(T1) NL                  \
    "mulxq 16(%[a]), %[lo], " OP_(T3) NL        \
    "adcxq %[lo], " OP_(T2) NL                  \
    "mulxq 24(%[a]), %[lo], " OP_(T4) NL        \
    "adcxq %[lo], " OP_(T3) NL                  \
    "mulxq 32(%[a]), %[lo], " OP_(T5) NL        \
    "adcxq %[lo], " OP_(T4) NL                  \
    "mulxq 40(%[a]), %[lo], " OP_(T6) NL        \
    "adcxq %[lo], " OP_(T5) NL                  \
    "adcxq %[hi], " OP_(T6) NL

#define MUL6_ACC(boff, T0, T1, T2, T3, T4, T5, T6) \
    "movq " #boff "(%[b]), %%rdx" NL               \
    "xorl %k[lo], %k[lo]" NL                       \
    MAC_(0, a, T0, T1)                             \
    MAC_(8, a, T1, T2)                             \
    MAC_(16, a, T2, T3)                            \
    MAC_(24, a, T3, T4)                            \
    MAC_(32, a, T4, T5)                            \
    "mulxq 40(%[a]), %[lo], %[hi]" NL              \
    "adcxq %[lo], " OP_(T5) NL                     \
    "adcxq " OP_(T6) ", %[hi]" NL                  \
    "adoxq %[hi], " OP_(T6) NL

#define RED6(n0, T0, T1, T2, T3, T4, T5, T6)    \
    MONT_M_(T0, n0)                             \
    MAC_(0, p, T0, T1)                          \
    MAC_(8, p, T1, T2)                          \
    MAC_(16, p, T2, T3)                         \
    MAC_(24, p, T3, T4)                         \
    MAC_(32, p, T4, T5)                         \
    MAC_(40, p, T5, T6)                         \
    "adcxq " OP_(T0) ", " OP_(T6) NL

ZKP_ADX void zkp_mont_mul_6_adx(uint64_t r[6], const uint64_t a[6], const uint64_t b[6],
                                const uint64_t p[6], uint64_t n0) {
    uint64_t x0, x1, x2, x3, x4, x5, x6, lo, hi, dx;
    const uint64_t *pa = a, *pb = b;
    /* Round i works on x[i..i+6 mod 7]. */
    __asm__(MUL6_FIRST(x0, x1, x2, x3, x4, x5, x6)
            RED6("%[n0]", x0, x1, x2, x3, x4, x5, x6)
            MUL6_ACC(8, x1, x2, x3, x4, x5, x6, x0)
            RED6("%[n0]", x1, x2, x3, x4, x5, x6, x0)
            MUL6_ACC(16, x2, x3, x4, x5, x6, x0, x1)
            RED6("%[n0]", x2, x3, x4, x5, x6, x0, x1)
            MUL6_ACC(24, x3, x4, x5, x6, x0, x1, x2)
            RED6("%[n0]", x3, x4, x5, x6, x0, x1, x2)
            MUL6_ACC(32, x4, x5, x6, x0, x1, x2, x3)
            RED6("%[n0]", x4, x5, x6, x0, x1, x2, x3)
            MUL6_ACC(40, x5, x6, x0, x1, x2, x3, x4)
            RED6("%[n0]", x5, x6, x0, x1, x2, x3, x4)
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

/* ---- squaring ---------------------------------------------------------
 *
 * a^2 = 2 * sum_{i<j} a[i]a[j] 2^(64(i+j)) + sum_i a[i]^2 2^(128i) takes
 * N(N-1)/2 + N products instead of N^2 (10 instead of 16 for N = 4, 21
 * instead of 36 for N = 6). Montgomery reduction of the 2N-word square
 * T = L + H*2^(64N) only ever looks at the low half: with M the multiple
 * of p that zeroes L word by word,
 *
 *     REDC(T) = (L + M*p) / 2^(64N) + H,
 *
 * where (L + M*p)/2^(64N) <= p and H < p^2/2^(64N) < p/2 (spare bit), so
 * the sum is below 2p < 2^(64N) and one conditional subtraction ends it.
 *
 * Stage 1 sums the off-diagonal products row by row (row i: a[i] times
 * a[i+1..N-1], dual carry chains, the row's new top word starting from a
 * register known to be zero); stage 2 doubles that sum (adcx x, x on CF)
 * while adding the squares (OF); stage 3 reduces L with the same rounds as
 * the multiplication (the top word of each round starts at zero), then H is
 * added. The low word of the square is final at once, so the reduction's
 * serial chain of m = T0*n0 multiplications overlaps the summing. */

ZKP_ADX void zkp_mont_sqr_4_adx(uint64_t r[4], const uint64_t a[4], const uint64_t p[4],
                                uint64_t n0) {
    uint64_t q0, q1, q2, q3, q4, q5, q6, q7, lo, hi, dx;
    const uint64_t *pa = a;
    /* q1..q6: off-diagonal words 1..6; then q0..q7: the square. */
    __asm__(/* row 0: a[0]*a[1..3] -> words 1..4 (q5 = 0 here and as row 1's top) */
            "movq 0(%[a]), %%rdx" NL
            "xorl %k[q5], %k[q5]" NL
            "mulxq 8(%[a]), %[q1], %[q2]" NL
            "mulxq 16(%[a]), %[lo], %[q3]" NL
            "adcxq %[lo], %[q2]" NL
            "mulxq 24(%[a]), %[lo], %[q4]" NL
            "adcxq %[lo], %[q3]" NL
            "adcxq %[q5], %[q4]" NL
            /* row 1: a[1]*a[2..3] -> words 3..5 */
            "movq 8(%[a]), %%rdx" NL
            "xorl %k[lo], %k[lo]" NL
            MAC_(16, a, q3, q4)
            "mulxq 24(%[a]), %[lo], %[hi]" NL
            "adcxq %[lo], %[q4]" NL
            "adcxq %[q5], %[hi]" NL
            "adoxq %[hi], %[q5]" NL
            /* row 2: a[2]*a[3] -> words 5..6 */
            "movq 16(%[a]), %%rdx" NL
            "mulxq 24(%[a]), %[lo], %[q6]" NL
            "addq %[lo], %[q5]" NL
            "adcq $0, %[q6]" NL
            /* double (CF) and add the squares (OF): words 0..7 */
            "xorl %k[q7], %k[q7]" NL
            "movq 0(%[a]), %%rdx" NL
            "mulxq %%rdx, %[q0], %[hi]" NL
            "adcxq %[q1], %[q1]" NL
            "adoxq %[hi], %[q1]" NL
            "movq 8(%[a]), %%rdx" NL
            "mulxq %%rdx, %[lo], %[hi]" NL
            "adcxq %[q2], %[q2]" NL
            "adoxq %[lo], %[q2]" NL
            "adcxq %[q3], %[q3]" NL
            "adoxq %[hi], %[q3]" NL
            "movq 16(%[a]), %%rdx" NL
            "mulxq %%rdx, %[lo], %[hi]" NL
            "adcxq %[q4], %[q4]" NL
            "adoxq %[lo], %[q4]" NL
            "adcxq %[q5], %[q5]" NL
            "adoxq %[hi], %[q5]" NL
            "movq 24(%[a]), %%rdx" NL
            "mulxq %%rdx, %[lo], %[hi]" NL
            "adcxq %[q6], %[q6]" NL
            "adoxq %[lo], %[q6]" NL
            "adcxq %[q7], %[hi]" NL
            "adoxq %[hi], %[q7]" NL
            /* reduce L = q0..q3; the a register, free now, is the zero top */
            "xorl %k[a], %k[a]" NL
            RED4(q0, q1, q2, q3, a)
            RED4(q1, q2, q3, a, q0)
            RED4(q2, q3, a, q0, q1)
            RED4(q3, a, q0, q1, q2)
            /* + H, then subtract p unless that borrows */
            "addq %[q4], %[a]" NL
            "adcq %[q5], %[q0]" NL
            "adcq %[q6], %[q1]" NL
            "adcq %[q7], %[q2]" NL
            FINAL4(a, q0, q1, q2, "%[lo]", "%[hi]", "%%rdx", "%[q3]")
            : [q0] "=&r"(q0), [q1] "=&r"(q1), [q2] "=&r"(q2), [q3] "=&r"(q3), [q4] "=&r"(q4),
              [q5] "=&r"(q5), [q6] "=&r"(q6), [q7] "=&r"(q7), [lo] "=&r"(lo), [hi] "=&r"(hi),
              "=&d"(dx), [a] "+&r"(pa)
            : [p] "r"(p), [n0] "r"(n0)
            : "cc", "memory");
    r[0] = (uint64_t)pa;
    r[1] = q0;
    r[2] = q1;
    r[3] = q2;
}

/* Word k/8 of H (in h[]): load, double on CF, add half of a square on OF,
 * store back. q6 is the scratch. */
#define DBL_H_(k, sq)                \
    "movq " #k "(%[h]), %[q6]" NL    \
    "adcxq %[q6], %[q6]" NL          \
    "adoxq " sq ", %[q6]" NL         \
    "movq %[q6], " #k "(%[h])" NL

ZKP_ADX void zkp_mont_sqr_6_adx(uint64_t r[6], const uint64_t a[6], const uint64_t p[6],
                                uint64_t n0) {
    /* h[0..5]: high half of the square (words 6..11); h[6]: n0, since no
     * register is left for it. */
    uint64_t h[7];
    uint64_t q0, q1, q2, q3, q4, q5, q6, q7, lo, hi, dx;
    const uint64_t *pa = a;
    h[6] = n0;
    /* Off-diagonal words 1..5 stay in q1..q5; words 6..10 go to h[0..4] as
     * soon as they are final. */
    __asm__(/* row 0: a[0]*a[1..5] -> words 1..6 (q7 = 0 here and as row 1's top) */
            "movq 0(%[a]), %%rdx" NL
            "xorl %k[q7], %k[q7]" NL
            "mulxq 8(%[a]), %[q1], %[q2]" NL
            "mulxq 16(%[a]), %[lo], %[q3]" NL
            "adcxq %[lo], %[q2]" NL
            "mulxq 24(%[a]), %[lo], %[q4]" NL
            "adcxq %[lo], %[q3]" NL
            "mulxq 32(%[a]), %[lo], %[q5]" NL
            "adcxq %[lo], %[q4]" NL
            "mulxq 40(%[a]), %[lo], %[q6]" NL
            "adcxq %[lo], %[q5]" NL
            "adcxq %[q7], %[q6]" NL
            /* row 1: a[1]*a[2..5] -> words 3..7 (word 7 in q7) */
            "movq 8(%[a]), %%rdx" NL
            "xorl %k[lo], %k[lo]" NL
            MAC_(16, a, q3, q4)
            MAC_(24, a, q4, q5)
            MAC_(32, a, q5, q6)
            "mulxq 40(%[a]), %[lo], %[hi]" NL
            "adcxq %[lo], %[q6]" NL
            "adcxq %[q7], %[hi]" NL
            "adoxq %[hi], %[q7]" NL
            /* row 2: a[2]*a[3..5] -> words 5..8 (word 8 in q0) */
            "movq 16(%[a]), %%rdx" NL
            "xorl %k[q0], %k[q0]" NL
            MAC_(24, a, q5, q6)
            MAC_(32, a, q6, q7)
            "mulxq 40(%[a]), %[lo], %[hi]" NL
            "adcxq %[lo], %[q7]" NL
            "adcxq %[q0], %[hi]" NL
            "adoxq %[hi], %[q0]" NL
            "movq %[q6], 0(%[h])" NL
            /* row 3: a[3]*a[4..5] -> words 7..9 (word 9 in q6) */
            "movq 24(%[a]), %%rdx" NL
            "xorl %k[q6], %k[q6]" NL
            MAC_(32, a, q7, q0)
            "mulxq 40(%[a]), %[lo], %[hi]" NL
            "adcxq %[lo], %[q0]" NL
            "adcxq %[q6], %[hi]" NL
            "adoxq %[hi], %[q6]" NL
            "movq %[q7], 8(%[h])" NL
            "movq %[q0], 16(%[h])" NL
            /* row 4: a[4]*a[5] -> words 9..10 (word 10 in q7) */
            "movq 32(%[a]), %%rdx" NL
            "mulxq 40(%[a]), %[lo], %[q7]" NL
            "addq %[lo], %[q6]" NL
            "adcq $0, %[q7]" NL
            "movq %[q6], 24(%[h])" NL
            "movq %[q7], 32(%[h])" NL
            /* double (CF) and add the squares (OF): words 0..5 into q0..q5,
             * words 6..11 into h[0..5]; q7 is the zero */
            "xorl %k[q7], %k[q7]" NL
            "movq 0(%[a]), %%rdx" NL
            "mulxq %%rdx, %[q0], %[hi]" NL
            "adcxq %[q1], %[q1]" NL
            "adoxq %[hi], %[q1]" NL
            "movq 8(%[a]), %%rdx" NL
            "mulxq %%rdx, %[lo], %[hi]" NL
            "adcxq %[q2], %[q2]" NL
            "adoxq %[lo], %[q2]" NL
            "adcxq %[q3], %[q3]" NL
            "adoxq %[hi], %[q3]" NL
            "movq 16(%[a]), %%rdx" NL
            "mulxq %%rdx, %[lo], %[hi]" NL
            "adcxq %[q4], %[q4]" NL
            "adoxq %[lo], %[q4]" NL
            "adcxq %[q5], %[q5]" NL
            "adoxq %[hi], %[q5]" NL
            "movq 24(%[a]), %%rdx" NL
            "mulxq %%rdx, %[lo], %[hi]" NL
            DBL_H_(0, "%[lo]")
            DBL_H_(8, "%[hi]")
            "movq 32(%[a]), %%rdx" NL
            "mulxq %%rdx, %[lo], %[hi]" NL
            DBL_H_(16, "%[lo]")
            DBL_H_(24, "%[hi]")
            "movq 40(%[a]), %%rdx" NL
            "mulxq %%rdx, %[lo], %[hi]" NL
            DBL_H_(32, "%[lo]")
            "adcxq %[q7], %[hi]" NL
            "adoxq %[q7], %[hi]" NL
            "movq %[hi], 40(%[h])" NL
            /* reduce L = q0..q5 (top q7 = 0) */
            RED6("48(%[h])", q0, q1, q2, q3, q4, q5, q7)
            RED6("48(%[h])", q1, q2, q3, q4, q5, q7, q0)
            RED6("48(%[h])", q2, q3, q4, q5, q7, q0, q1)
            RED6("48(%[h])", q3, q4, q5, q7, q0, q1, q2)
            RED6("48(%[h])", q4, q5, q7, q0, q1, q2, q3)
            RED6("48(%[h])", q5, q7, q0, q1, q2, q3, q4)
            /* + H, then subtract p unless that borrows */
            "addq 0(%[h]), %[q7]" NL
            "adcq 8(%[h]), %[q0]" NL
            "adcq 16(%[h]), %[q1]" NL
            "adcq 24(%[h]), %[q2]" NL
            "adcq 32(%[h]), %[q3]" NL
            "adcq 40(%[h]), %[q4]" NL
            FINAL6(q7, q0, q1, q2, q3, q4, "%[lo]", "%[hi]", "%%rdx", "%[a]", "%[q5]", "%[q6]")
            : [q0] "=&r"(q0), [q1] "=&r"(q1), [q2] "=&r"(q2), [q3] "=&r"(q3), [q4] "=&r"(q4),
              [q5] "=&r"(q5), [q6] "=&r"(q6), [q7] "=&r"(q7), [lo] "=&r"(lo), [hi] "=&r"(hi),
              "=&d"(dx), [a] "+&r"(pa)
            : [p] "r"(p), [h] "r"(h)
            : "cc", "memory");
    r[0] = q7;
    r[1] = q0;
    r[2] = q1;
    r[3] = q2;
    r[4] = q3;
    r[5] = q4;
}

/* ---- double-width product and separate reduction ---------------------
 *
 * The towers' lazy reduction (fp6_impl.h) splits the Montgomery product in
 * two: the 2N-word integer product, summed and subtracted at that width,
 * and one reduction per output coefficient. These are the two halves of the
 * CIOS kernels above, with the same register schedule.
 *
 * The product runs row by row over b: T (N+1 registers) += a * b[i], with
 * the low half on the CF chain and the high half on the OF chain, as in
 * MUL4_ACC/MUL6_ACC. After row i the word at the bottom of T is final. It
 * is written to a small buffer on the stack, and its register, zeroed,
 * becomes the top word of the next row (the zeroing xor is also the one
 * that clears both flags, so it costs nothing). The last row leaves the high
 * half in registers; C copies the buffer and those registers to r after the
 * asm, so r may overlap a or b.
 *
 * The reduction is stage 3 of the squaring kernels above applied to a
 * given T = L + H*2^(64N): the N rounds of RED4/RED6 clear L into
 * (L + M*p)/2^(64N) <= p, then H is added. For T < p*2^(64N), H < p, so the
 * sum is below 2p < 2^(64N) (spare bit) and one conditional subtraction
 * ends it; the result is fully reduced. The top word of every round starts
 * at zero, so nothing is carried from round to round beyond the rotating
 * registers. */

/* One row of the wide product: T0..T5 hold words i..i+5, T6 (zeroed here,
 * which also clears CF and OF) receives word i+6. */
#define WIDE6_ROW(boff, T0, T1, T2, T3, T4, T5, T6)  \
    "movq " #boff "(%[b]), %%rdx" NL                 \
    "xorl %k[" #T6 "], %k[" #T6 "]" NL               \
    MAC_(0, a, T0, T1)                               \
    MAC_(8, a, T1, T2)                               \
    MAC_(16, a, T2, T3)                              \
    MAC_(24, a, T3, T4)                              \
    MAC_(32, a, T4, T5)                              \
    "mulxq 40(%[a]), %[lo], %[hi]" NL                \
    "adcxq %[lo], " OP_(T5) NL                       \
    "adcxq " OP_(T6) ", %[hi]" NL                    \
    "adoxq %[hi], " OP_(T6) NL

#define WIDE4_ROW(boff, T0, T1, T2, T3, T4)          \
    "movq " #boff "(%[b]), %%rdx" NL                 \
    "xorl %k[" #T4 "], %k[" #T4 "]" NL               \
    MAC_(0, a, T0, T1)                               \
    MAC_(8, a, T1, T2)                               \
    MAC_(16, a, T2, T3)                              \
    "mulxq 24(%[a]), %[lo], %[hi]" NL                \
    "adcxq %[lo], " OP_(T3) NL                       \
    "adcxq " OP_(T4) ", %[hi]" NL                    \
    "adoxq %[hi], " OP_(T4) NL

/* Word k of the product, final, to the stack buffer. */
#define STORE_LOW_(k, T) "movq " OP_(T) ", " #k "(%[w])" NL

ZKP_ADX void zkp_mul_wide_4_adx(uint64_t r[8], const uint64_t a[4], const uint64_t b[4]) {
    uint64_t w[4];
    uint64_t x0, x1, x2, x3, x4, lo, hi, dx;
    const uint64_t *pa = a, *pb = b;
    /* Row i works on x[i..i+4 mod 5]; MUL4_FIRST is row 0. */
    __asm__(MUL4_FIRST(x0, x1, x2, x3, x4)
            STORE_LOW_(0, x0)
            WIDE4_ROW(8, x1, x2, x3, x4, x0)
            STORE_LOW_(8, x1)
            WIDE4_ROW(16, x2, x3, x4, x0, x1)
            STORE_LOW_(16, x2)
            WIDE4_ROW(24, x3, x4, x0, x1, x2)
            STORE_LOW_(24, x3)
            : [x0] "=&r"(x0), [x1] "=&r"(x1), [x2] "=&r"(x2), [x3] "=&r"(x3), [x4] "=&r"(x4),
              [lo] "=&r"(lo), [hi] "=&r"(hi), "=&d"(dx), [a] "+&r"(pa), [b] "+&r"(pb)
            : [w] "r"(w)
            : "cc", "memory");
    r[0] = w[0];
    r[1] = w[1];
    r[2] = w[2];
    r[3] = w[3];
    r[4] = x4;
    r[5] = x0;
    r[6] = x1;
    r[7] = x2;
}

ZKP_ADX void zkp_mul_wide_6_adx(uint64_t r[12], const uint64_t a[6], const uint64_t b[6]) {
    uint64_t w[6];
    uint64_t x0, x1, x2, x3, x4, x5, x6, lo, hi, dx;
    const uint64_t *pa = a, *pb = b;
    /* Row i works on x[i..i+6 mod 7]; MUL6_FIRST is row 0. */
    __asm__(MUL6_FIRST(x0, x1, x2, x3, x4, x5, x6)
            STORE_LOW_(0, x0)
            WIDE6_ROW(8, x1, x2, x3, x4, x5, x6, x0)
            STORE_LOW_(8, x1)
            WIDE6_ROW(16, x2, x3, x4, x5, x6, x0, x1)
            STORE_LOW_(16, x2)
            WIDE6_ROW(24, x3, x4, x5, x6, x0, x1, x2)
            STORE_LOW_(24, x3)
            WIDE6_ROW(32, x4, x5, x6, x0, x1, x2, x3)
            STORE_LOW_(32, x4)
            WIDE6_ROW(40, x5, x6, x0, x1, x2, x3, x4)
            STORE_LOW_(40, x5)
            : [x0] "=&r"(x0), [x1] "=&r"(x1), [x2] "=&r"(x2), [x3] "=&r"(x3), [x4] "=&r"(x4),
              [x5] "=&r"(x5), [x6] "=&r"(x6), [lo] "=&r"(lo), [hi] "=&r"(hi), "=&d"(dx),
              [a] "+&r"(pa), [b] "+&r"(pb)
            : [w] "r"(w)
            : "cc", "memory");
    r[0] = w[0];
    r[1] = w[1];
    r[2] = w[2];
    r[3] = w[3];
    r[4] = w[4];
    r[5] = w[5];
    r[6] = x6;
    r[7] = x0;
    r[8] = x1;
    r[9] = x2;
    r[10] = x3;
    r[11] = x4;
}

ZKP_ADX void zkp_redc_4_adx(uint64_t r[4], const uint64_t t[8], const uint64_t p[4], uint64_t n0) {
    uint64_t q0, q1, q2, q3, q4, lo, hi, dx;
    const uint64_t *pt = t;
    uint64_t k = n0;
    /* RED4 takes n0 from the [n0] operand; here that is k, which FINAL4
     * may overwrite once the rounds are done. */
    __asm__("movq 0(%[t]), %[q0]" NL
            "movq 8(%[t]), %[q1]" NL
            "movq 16(%[t]), %[q2]" NL
            "movq 24(%[t]), %[q3]" NL
            "xorl %k[q4], %k[q4]" NL
            RED4(q0, q1, q2, q3, q4)
            RED4(q1, q2, q3, q4, q0)
            RED4(q2, q3, q4, q0, q1)
            RED4(q3, q4, q0, q1, q2)
            /* + H, then subtract p unless that borrows */
            "addq 32(%[t]), %[q4]" NL
            "adcq 40(%[t]), %[q0]" NL
            "adcq 48(%[t]), %[q1]" NL
            "adcq 56(%[t]), %[q2]" NL
            FINAL4(q4, q0, q1, q2, "%[lo]", "%[hi]", "%%rdx", "%[q3]")
            : [q0] "=&r"(q0), [q1] "=&r"(q1), [q2] "=&r"(q2), [q3] "=&r"(q3), [q4] "=&r"(q4),
              [lo] "=&r"(lo), [hi] "=&r"(hi), "=&d"(dx), [t] "+&r"(pt), [n0] "+&r"(k)
            : [p] "r"(p)
            : "cc", "memory");
    r[0] = q4;
    r[1] = q0;
    r[2] = q1;
    r[3] = q2;
}

ZKP_ADX void zkp_redc_6_adx(uint64_t r[6], const uint64_t t[12], const uint64_t p[6], uint64_t n0) {
    uint64_t q0, q1, q2, q3, q4, q5, q6, lo, hi, dx;
    const uint64_t *pt = t;
    uint64_t k = n0;
    __asm__("movq 0(%[t]), %[q0]" NL
            "movq 8(%[t]), %[q1]" NL
            "movq 16(%[t]), %[q2]" NL
            "movq 24(%[t]), %[q3]" NL
            "movq 32(%[t]), %[q4]" NL
            "movq 40(%[t]), %[q5]" NL
            "xorl %k[q6], %k[q6]" NL
            RED6("%[n0]", q0, q1, q2, q3, q4, q5, q6)
            RED6("%[n0]", q1, q2, q3, q4, q5, q6, q0)
            RED6("%[n0]", q2, q3, q4, q5, q6, q0, q1)
            RED6("%[n0]", q3, q4, q5, q6, q0, q1, q2)
            RED6("%[n0]", q4, q5, q6, q0, q1, q2, q3)
            RED6("%[n0]", q5, q6, q0, q1, q2, q3, q4)
            /* + H, then subtract p unless that borrows */
            "addq 48(%[t]), %[q6]" NL
            "adcq 56(%[t]), %[q0]" NL
            "adcq 64(%[t]), %[q1]" NL
            "adcq 72(%[t]), %[q2]" NL
            "adcq 80(%[t]), %[q3]" NL
            "adcq 88(%[t]), %[q4]" NL
            FINAL6(q6, q0, q1, q2, q3, q4, "%[lo]", "%[hi]", "%%rdx", "%[t]", "%[n0]", "%[q5]")
            : [q0] "=&r"(q0), [q1] "=&r"(q1), [q2] "=&r"(q2), [q3] "=&r"(q3), [q4] "=&r"(q4),
              [q5] "=&r"(q5), [q6] "=&r"(q6), [lo] "=&r"(lo), [hi] "=&r"(hi), "=&d"(dx),
              [t] "+&r"(pt), [n0] "+&r"(k)
            : [p] "r"(p)
            : "cc", "memory");
    r[0] = q6;
    r[1] = q0;
    r[2] = q1;
    r[3] = q2;
    r[4] = q3;
    r[5] = q4;
}

/* ---- Fp2 product ------------------------------------------------------
 *
 * (a0 + a1 u)(b0 + b1 u) with u^2 = -1, by Karatsuba at double width: with
 * t0 = a0 b0, t1 = a1 b1 and t2 = (a0 + a1)(b0 + b1),
 *
 *     c1 = t2 - t0 - t1 = a0 b1 + a1 b0,   c0 = t0 - t1 (+ p*2^(64N) if < 0),
 *
 * then one reduction per coefficient: three wide products and two
 * reductions, against three whole Montgomery products (each a product and
 * a reduction) for Karatsuba over F_mul. The sums a0 + a1 and b0 + b1 stay
 * unreduced (below 2p < 2^(64N), spare bit). c1 < 2p^2 and c0 < p*2^(64N)
 * are within the reduction's range because 2p < 2^(64N). The glue is C:
 * plain carry chains that the compiler schedules around the calls. Only
 * the 6-limb form exists: for 4 limbs it measured slower than Karatsuba
 * over whole products (see fp2_impl.h). */
#if defined(__clang__)
#define MX_UNROLL _Pragma("unroll")
#else
#define MX_UNROLL _Pragma("GCC unroll 16")
#endif

ZKP_ADX void zkp_fp2_mul_6_adx(uint64_t *r, const uint64_t *a, const uint64_t *b,
                               const uint64_t p[6], uint64_t n0) {
    uint64_t sa[6], sb[6], t0[12], t1[12], t2[12];
    unsigned char c = 0, d = 0;
    MX_UNROLL for (int i = 0; i < 6; i++) {
        unsigned long long x, y;
        c = _addcarry_u64(c, a[i], a[6 + i], &x);
        d = _addcarry_u64(d, b[i], b[6 + i], &y);
        sa[i] = x;
        sb[i] = y;
    }
    zkp_mul_wide_6_adx(t0, a, b);
    zkp_mul_wide_6_adx(t1, a + 6, b + 6);
    zkp_mul_wide_6_adx(t2, sa, sb);
    /* t2 - t0 - t1 is exact: two borrow chains, one per subtrahend. */
    c = 0;
    d = 0;
    MX_UNROLL for (int i = 0; i < 12; i++) {
        unsigned long long x;
        c = _subborrow_u64(c, t2[i], t0[i], &x);
        d = _subborrow_u64(d, x, t1[i], &x);
        t2[i] = x;
    }
    c = 0;
    MX_UNROLL for (int i = 0; i < 12; i++) {
        unsigned long long x;
        c = _subborrow_u64(c, t0[i], t1[i], &x);
        t0[i] = x;
    }
    /* On a borrow, add p*2^384: p, masked, to the high half. */
    uint64_t mask = (uint64_t)0 - c;
    c = 0;
    MX_UNROLL for (int i = 0; i < 6; i++) {
        unsigned long long x;
        c = _addcarry_u64(c, t0[6 + i], p[i] & mask, &x);
        t0[6 + i] = x;
    }
    zkp_redc_6_adx(r, t0, p, n0);
    zkp_redc_6_adx(r + 6, t2, p, n0);
}

#else

typedef int zkp_mont_x86_unused_t;

#endif
