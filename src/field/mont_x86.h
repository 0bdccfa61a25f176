/* x86-64 Montgomery multiplication and squaring with BMI2/ADX (mulx, adcx,
 * adox) for 4-limb (256-bit) and 6-limb (384-bit) moduli.
 *
 * These are only the kernels: the caller decides at run time whether to use
 * them (zkp_cpu_use_adx from util/cpu.h) and must never call them on a CPU
 * without ADX and BMI2. They exist only when ZKP_HAVE_X86_ASM is defined.
 *
 * Every function computes r = a*b*2^(-64N) mod p (N = 4 or 6 limbs, least
 * significant limb first).
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

#endif

#endif
