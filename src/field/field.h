/* The prime-field contract.
 *
 * Every prime field F in zkpipe (bn254_fq, bn254_fr, bls12_381_fp,
 * bls12_381_fr) offers the operations below, named F_op: for example
 * bls12_381_fp_mul(r, a, b). The header of each field (bn254_fq.h, ...)
 * instantiates the one generic body, fp_impl.h, with that field's constants.
 *
 * Representation. An element is F_t, a struct of little-endian 64-bit limbs
 * holding x·R mod p (Montgomery form, R = 2^(64·limbs)). Every operation
 * takes and returns fully reduced values (< p); ZKP_VERIFY builds check it.
 * Outputs may alias inputs.
 *
 * Constant time. Operations without a _var suffix do not branch on or index
 * memory by the values of their operands; _var operations may, and are only
 * for public data (verification, decoding of public points, NTT twiddles).
 * Exponents given to pow are treated as public.
 *
 *   F_set_zero(r), F_set_one(r), F_set_u64(r, v)
 *   F_is_zero(a), F_is_one(a), F_eq(a, b)   -> 1 or 0, constant time
 *   F_cmov(r, a, flag)                     r = flag ? a : r, constant time
 *   F_add, F_sub, F_dbl, F_neg, F_mul, F_sqr, F_half
 *   F_to_mont(r, canonical), F_from_mont(canonical, a)
 *   F_inv(r, a)          constant time (Fermat); inverse of 0 is 0
 *   F_inv_var(r, a)      divsteps (field/modinv.h); inverse of 0 is 0
 *   F_batch_inv_var(out, in, n)  Montgomery's trick; zeros map to zero
 *   F_pow(r, a, exp, exp_limbs)  exp little-endian limbs, public
 *   F_sqrt_var(r, a)     1 and a root if a is a square, else 0
 *   F_legendre_var(a)    1 (nonzero square), -1 (non-square), 0 (zero)
 *   F_to_bytes_le/be, F_from_bytes_le/be   canonical encodings; decoders
 *                        return ZKPIPE_ERR_NON_CANONICAL for values >= p
 *   F_from_dec / F_to_dec                  base-10 strings (snarkjs JSON)
 *   F_random(r)          uniform from the OS CSPRNG (rejection sampling)
 *   F_root_of_unity(r, log_n)  a primitive 2^log_n-th root, log_n <= F_TWO_ADICITY
 *
 * Speed. F_mul and F_sqr dispatch once per call on zkp_cpu_use_adx to the
 * mulx/adcx/adox kernels in mont_x86.c; the portable C path below is the
 * reference and always builds. */
#ifndef ZKP_FIELD_FIELD_H
#define ZKP_FIELD_FIELD_H

#include "field/bls12_381_fp.h"
#include "field/bls12_381_fr.h"
#include "field/bn254_fq.h"
#include "field/bn254_fr.h"
#include "field/bls12_381_fp2.h"
#include "field/bn254_fq2.h"
#include "field/bls12_381_fp12.h"
#include "field/bn254_fq12.h"

#endif
