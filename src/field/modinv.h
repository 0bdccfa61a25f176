/* Modular inversion by Bernstein and Yang's divsteps ("Fast constant-time
 * gcd computation and modular inversion", 2019), in its variable-time form:
 * the inverse the MSM's batch-affine buckets need once per batch, where the
 * input is public.
 *
 * The state is (eta, f, g, d, e) with f odd, f = d a and g = e a (mod p),
 * starting from (-1, p, a, 0, 1). A divstep (eta = -delta of the paper)
 * either halves an even g, or, for odd g, replaces (f, g) by (g, (g - f)/2)
 * when eta < 0 and by (f, (g + f)/2) otherwise. g reaches 0 after a few
 * hundred steps with f = +-1, so a^-1 = +-d.
 *
 * 62 steps at a time depend only on the low 62 bits of f and g: they are
 * run on single words and collected in a 2x2 matrix M with entries of at
 * most 62 bits, then applied once to the full numbers,
 * (f, g) <- M (f, g) / 2^62 (exact), and to (d, e) mod p, where a multiple
 * of p is added first to make the division exact. Runs of even g are taken
 * in one shift (count of trailing zeros), and for odd g several steps of the
 * same kind are taken at once by adding the multiple w f that clears up to 6
 * low bits of g (w = -g / f mod 2^6). The full numbers are held in signed
 * 62-bit limbs, so the matrix products fit 128-bit accumulators. */
#ifndef ZKP_FIELD_MODINV_H
#define ZKP_FIELD_MODINV_H

#include <stddef.h>
#include <stdint.h>

/* The largest n zkp_modinv_var takes. */
#define ZKP_MODINV_MAX_LIMBS 6

/* r = a^-1 mod p, with p an odd prime of n 64-bit limbs (little-endian,
 * 1 <= n <= ZKP_MODINV_MAX_LIMBS, p < 2^(64 n - 1)) and 0 < a < p. r may
 * alias a. Variable time. */
void zkp_modinv_var(uint64_t *r, const uint64_t *a, const uint64_t *p, size_t n);

#endif
