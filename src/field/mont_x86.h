/* x86-64 Montgomery multiplication and squaring with BMI2/ADX (mulx, adcx,
 * adox) for 4-limb (256-bit) and 6-limb (384-bit) moduli.
 *
 * These are only the kernels: the caller decides at run time whether to use
 * them (zkp_cpu_use_adx from util/cpu.h) and must never call them on a CPU
 * without ADX and BMI2. They exist only when ZKP_HAVE_X86_ASM is defined.
 *
 * The Montgomery kernels compute r = a*b*2^(-64N) mod p (N = 4 or 6 limbs,
 * least significant limb first); the wide product and reduction below them
 * are the two halves of that computation.
 *
 * On input: a, b < p; p odd with a spare top bit, p < 2^(64N-1) (every
 * modulus zkpipe uses: BN254 Fq and Fr, BLS12-381 Fr and Fp); n0 = -p^(-1)
 * mod 2^64.
 * On output: r < p (fully reduced). r may alias a and/or b.
 *
 * Constant time: no branch or memory address depends on a, b or r. */
#ifndef ZKP_FIELD_MONT_X86_H
#define ZKP_FIELD_MONT_X86_H

#include <stdint.h>

#ifdef ZKP_HAVE_X86_ASM

void zkp_mont_mul_4_adx(uint64_t r[4], const uint64_t a[4], const uint64_t b[4],
                        const uint64_t p[4], uint64_t n0);
void zkp_mont_sqr_4_adx(uint64_t r[4], const uint64_t a[4], const uint64_t p[4], uint64_t n0);
void zkp_mont_mul_6_adx(uint64_t r[6], const uint64_t a[6], const uint64_t b[6],
                        const uint64_t p[6], uint64_t n0);
void zkp_mont_sqr_6_adx(uint64_t r[6], const uint64_t a[6], const uint64_t p[6], uint64_t n0);

/* The two halves of the product, for lazy reduction (the towers keep sums of
 * products at double width and reduce once per coefficient).
 *
 * zkp_mul_wide_N_adx: r = a*b as a 2N-limb integer, exactly. On input a and
 * b are any N-limb values (no modulus is involved). On output r may overlap
 * a and/or b.
 *
 * zkp_redc_N_adx: r = t*2^(-64N) mod p, fully reduced (r < p). On input
 * t < p*2^(64N) (so its high N limbs are below p), p odd with a spare top
 * bit and n0 = -p^(-1) mod 2^64. On output r may overlap t.
 *
 * Both are constant time. */
void zkp_mul_wide_4_adx(uint64_t r[8], const uint64_t a[4], const uint64_t b[4]);
void zkp_mul_wide_6_adx(uint64_t r[12], const uint64_t a[6], const uint64_t b[6]);
void zkp_redc_4_adx(uint64_t r[4], const uint64_t t[8], const uint64_t p[4], uint64_t n0);
void zkp_redc_6_adx(uint64_t r[6], const uint64_t t[12], const uint64_t p[6], uint64_t n0);

/* The product in F_p[u]/(u^2 + 1) for 6-limb p: (r0 + r1 u) =
 * (a0 + a1 u)(b0 + b1 u) in Montgomery form, each element stored as its two
 * coefficients one after the other (r0 = r[0..5], r1 = r[6..11]). On input every
 * coefficient is below p, p has a spare top bit, n0 = -p^(-1) mod 2^64. On
 * output both coefficients are fully reduced; r may alias a and/or b.
 * Constant time. (Plain pointers: callers pass the address of an Fp2
 * struct, and array bounds in the prototype would make GCC check them
 * against the struct's first member.) */
void zkp_fp2_mul_6_adx(uint64_t *r, const uint64_t *a, const uint64_t *b,
                       const uint64_t p[6], uint64_t n0);

/* Modular addition and subtraction, inline.
 *
 * zkp_add_mod_N_x86: r = a + b mod p. zkp_sub_mod_N_x86: r = a - b mod p.
 * On input a, b < p, p < 2^(64N-1) (spare bit). On output r < p; r may
 * alias a and/or b (the result is stored by C after the asm).
 *
 * zkp_add_mod_c_N_x86 and zkp_sub_mod_c_N_x86 take a carry (borrow) c of 0
 * or 1 into the lowest limb: r = a + b + c mod p for a + b + c < 2p, and
 * r = a - b - c mod p for a - b - c > -p. They are the high halves of
 * additions and subtractions modulo p*2^(64N) of double-width values (the
 * towers' lazy reduction), whose low halves are plain carry chains.
 *
 * They use only baseline x86-64 instructions (add/adc, sub/sbb, cmov), and
 * exist because the C forms lose to the compiler: GCC vectorises their
 * masked selects through the stack, where the 16-byte reloads of two
 * 8-byte stores miss store forwarding (a 6-limb addition then takes about
 * twice the latency of its carry chains, and the tower products that are
 * made of them 10-20% longer). The towers call them on the ADX path only,
 * so that the portable path stays the pure C reference.
 *
 * Addition: x = a + b (+ c) cannot carry out (spare bit); x is saved, p is
 * subtracted in place, and a borrow brings the saved x back. Subtraction:
 * x = a - b (- c) is saved and p added in place; if the subtraction
 * borrowed, x >= 2^(64N) - p and x + p carries out, otherwise x < p and
 * x + p < 2p < 2^(64N) does not, so that carry is the borrow and selects
 * x + p without a saved mask. The saved copy lives in a stack buffer (cmov
 * reads it back), which keeps the asm to N registers: with a register
 * copy, 2N registers and the addresses of b and p do not fit everywhere
 * these are inlined. b and p are read through registers and declared as
 * whole-array memory operands, which tells the compiler what the asm reads
 * without a "memory" clobber. (One memory operand per limb, addressed by
 * the compiler, runs out of registers in unoptimised builds, where each
 * gets its own address register, and passes GCC's limit of 30 operands.)
 * Constant time: cmov, no branch. */

/* GCC declines to inline these into the larger tower functions on its own,
 * and a call costs as much as the operation. */
#define ZKP_X86_INLINE static inline __attribute__((always_inline))

#define ZKP_X86_NL_ "\n\t"
#define ZKP_X86_SAVE_(i) "movq %[x" #i "], %[s" #i "]" ZKP_X86_NL_
#define ZKP_X86_RESTORE_(cc, i) "cmov" cc "q %[s" #i "], %[x" #i "]" ZKP_X86_NL_
/* CF = c, for the variants with a carry in. */
#define ZKP_X86_CARRY_IN_ "btl $0, %k[c]" ZKP_X86_NL_

/* op0 is the first instruction of the a +- b chain (add or sub without a
 * carry in, adc or sbb with one) and op the others; fix0 and fix those of
 * the correction by p, and fixc the cmov condition that undoes it. */
#define ZKP_X86_MOD_4_(op0, op, fix0, fix, fixc)                                        \
    op0 " 0(%[b]), %[x0]" ZKP_X86_NL_ op " 8(%[b]), %[x1]" ZKP_X86_NL_                        \
    op " 16(%[b]), %[x2]" ZKP_X86_NL_ op " 24(%[b]), %[x3]" ZKP_X86_NL_                         \
    ZKP_X86_SAVE_(0) ZKP_X86_SAVE_(1) ZKP_X86_SAVE_(2) ZKP_X86_SAVE_(3)                  \
    fix0 " 0(%[p]), %[x0]" ZKP_X86_NL_ fix " 8(%[p]), %[x1]" ZKP_X86_NL_                    \
    fix " 16(%[p]), %[x2]" ZKP_X86_NL_ fix " 24(%[p]), %[x3]" ZKP_X86_NL_                   \
    ZKP_X86_RESTORE_(fixc, 0) ZKP_X86_RESTORE_(fixc, 1) ZKP_X86_RESTORE_(fixc, 2)         \
    ZKP_X86_RESTORE_(fixc, 3)
#define ZKP_X86_MOD_6_(op0, op, fix0, fix, fixc)                                        \
    op0 " 0(%[b]), %[x0]" ZKP_X86_NL_ op " 8(%[b]), %[x1]" ZKP_X86_NL_                        \
    op " 16(%[b]), %[x2]" ZKP_X86_NL_ op " 24(%[b]), %[x3]" ZKP_X86_NL_                         \
    op " 32(%[b]), %[x4]" ZKP_X86_NL_ op " 40(%[b]), %[x5]" ZKP_X86_NL_                         \
    ZKP_X86_SAVE_(0) ZKP_X86_SAVE_(1) ZKP_X86_SAVE_(2) ZKP_X86_SAVE_(3)                  \
    ZKP_X86_SAVE_(4) ZKP_X86_SAVE_(5)                                                    \
    fix0 " 0(%[p]), %[x0]" ZKP_X86_NL_ fix " 8(%[p]), %[x1]" ZKP_X86_NL_                    \
    fix " 16(%[p]), %[x2]" ZKP_X86_NL_ fix " 24(%[p]), %[x3]" ZKP_X86_NL_                   \
    fix " 32(%[p]), %[x4]" ZKP_X86_NL_ fix " 40(%[p]), %[x5]" ZKP_X86_NL_                   \
    ZKP_X86_RESTORE_(fixc, 0) ZKP_X86_RESTORE_(fixc, 1) ZKP_X86_RESTORE_(fixc, 2)         \
    ZKP_X86_RESTORE_(fixc, 3) ZKP_X86_RESTORE_(fixc, 4) ZKP_X86_RESTORE_(fixc, 5)
#define ZKP_X86_ADD_(MOD, op0) MOD(op0, "adcq", "subq", "sbbq", "c")
#define ZKP_X86_SUB_(MOD, op0) MOD(op0, "sbbq", "addq", "adcq", "nc")

#define ZKP_X86_OUT_4_                                                                    \
    : [x0] "+&r"(x0), [x1] "+&r"(x1), [x2] "+&r"(x2), [x3] "+&r"(x3), [s0] "=m"(s[0]),  \
      [s1] "=m"(s[1]), [s2] "=m"(s[2]), [s3] "=m"(s[3])
#define ZKP_X86_IN_4_                                                                     \
    : [b] "r"(b), [bm] "m"(*(const uint64_t(*)[4])b), [p] "r"(p),                        \
      [pm] "m"(*(const uint64_t(*)[4])p)
#define ZKP_X86_OUT_6_                                                                    \
    : [x0] "+&r"(x0), [x1] "+&r"(x1), [x2] "+&r"(x2), [x3] "+&r"(x3), [x4] "+&r"(x4),   \
      [x5] "+&r"(x5), [s0] "=m"(s[0]), [s1] "=m"(s[1]), [s2] "=m"(s[2]),               \
      [s3] "=m"(s[3]), [s4] "=m"(s[4]), [s5] "=m"(s[5])
#define ZKP_X86_IN_6_                                                                     \
    : [b] "r"(b), [bm] "m"(*(const uint64_t(*)[6])b), [p] "r"(p),                        \
      [pm] "m"(*(const uint64_t(*)[6])p)

/* One function: NAME(r, a, b, p) or NAME(r, a, b, p, c), with the asm
 * string ASM over N limbs. */
#define ZKP_X86_LOAD_4_ uint64_t x0 = a[0], x1 = a[1], x2 = a[2], x3 = a[3], s[4];
#define ZKP_X86_STORE_4_ r[0] = x0, r[1] = x1, r[2] = x2, r[3] = x3;
#define ZKP_X86_LOAD_6_ \
    uint64_t x0 = a[0], x1 = a[1], x2 = a[2], x3 = a[3], x4 = a[4], x5 = a[5], s[6];
#define ZKP_X86_STORE_6_ r[0] = x0, r[1] = x1, r[2] = x2, r[3] = x3, r[4] = x4, r[5] = x5;
#define ZKP_X86_DEFINE_(NAME, N, ASM)                                                    \
    ZKP_X86_INLINE void NAME(uint64_t r[N], const uint64_t a[N], const uint64_t b[N],    \
                             const uint64_t p[N]) {                                      \
        ZKP_X86_LOAD_##N##_                                                              \
        __asm__(ASM ZKP_X86_OUT_##N##_ ZKP_X86_IN_##N##_ : "cc");                        \
        ZKP_X86_STORE_##N##_                                                             \
    }
#define ZKP_X86_DEFINE_C_(NAME, N, ASM)                                                  \
    ZKP_X86_INLINE void NAME(uint64_t r[N], const uint64_t a[N], const uint64_t b[N],    \
                             const uint64_t p[N], uint64_t c) {                          \
        ZKP_X86_LOAD_##N##_                                                              \
        __asm__(ZKP_X86_CARRY_IN_ ASM ZKP_X86_OUT_##N##_ ZKP_X86_IN_##N##_, [c] "r"(c)   \
                : "cc");                                                                 \
        ZKP_X86_STORE_##N##_                                                             \
    }

ZKP_X86_DEFINE_(zkp_add_mod_4_x86, 4, ZKP_X86_ADD_(ZKP_X86_MOD_4_, "addq"))
ZKP_X86_DEFINE_(zkp_sub_mod_4_x86, 4, ZKP_X86_SUB_(ZKP_X86_MOD_4_, "subq"))
ZKP_X86_DEFINE_(zkp_add_mod_6_x86, 6, ZKP_X86_ADD_(ZKP_X86_MOD_6_, "addq"))
ZKP_X86_DEFINE_(zkp_sub_mod_6_x86, 6, ZKP_X86_SUB_(ZKP_X86_MOD_6_, "subq"))
ZKP_X86_DEFINE_C_(zkp_add_mod_c_4_x86, 4, ZKP_X86_ADD_(ZKP_X86_MOD_4_, "adcq"))
ZKP_X86_DEFINE_C_(zkp_sub_mod_c_4_x86, 4, ZKP_X86_SUB_(ZKP_X86_MOD_4_, "sbbq"))
ZKP_X86_DEFINE_C_(zkp_add_mod_c_6_x86, 6, ZKP_X86_ADD_(ZKP_X86_MOD_6_, "adcq"))
ZKP_X86_DEFINE_C_(zkp_sub_mod_c_6_x86, 6, ZKP_X86_SUB_(ZKP_X86_MOD_6_, "sbbq"))

/* The same with the limb count as an argument, for the templates that know
 * it only as a constant expression (sizeof), not in the preprocessor. */
ZKP_X86_INLINE void zkp_add_mod_x86(uint64_t *r, const uint64_t *a, const uint64_t *b,
                                   const uint64_t *p, int n) {
    if (n == 4)
        zkp_add_mod_4_x86(r, a, b, p);
    else
        zkp_add_mod_6_x86(r, a, b, p);
}

ZKP_X86_INLINE void zkp_sub_mod_x86(uint64_t *r, const uint64_t *a, const uint64_t *b,
                                   const uint64_t *p, int n) {
    if (n == 4)
        zkp_sub_mod_4_x86(r, a, b, p);
    else
        zkp_sub_mod_6_x86(r, a, b, p);
}

ZKP_X86_INLINE void zkp_add_mod_c_x86(uint64_t *r, const uint64_t *a, const uint64_t *b,
                                     const uint64_t *p, uint64_t c, int n) {
    if (n == 4)
        zkp_add_mod_c_4_x86(r, a, b, p, c);
    else
        zkp_add_mod_c_6_x86(r, a, b, p, c);
}

ZKP_X86_INLINE void zkp_sub_mod_c_x86(uint64_t *r, const uint64_t *a, const uint64_t *b,
                                     const uint64_t *p, uint64_t c, int n) {
    if (n == 4)
        zkp_sub_mod_c_4_x86(r, a, b, p, c);
    else
        zkp_sub_mod_c_6_x86(r, a, b, p, c);
}

#endif

#endif
