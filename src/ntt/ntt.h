/* The NTT contract.
 *
 * Each scalar field F (bn254_fr, bls12_381_fr) offers the number-theoretic
 * transform over a domain H = {1, w, w^2, ..., w^(n-1)} of n = 2^log_n
 * elements, as F_ntt_op below, for example bn254_fr_ntt_forward(dom, a, n).
 * The header of each curve (bn254_ntt.h, bls12_381_ntt.h) instantiates the
 * one generic body (ntt_impl.h for the types and declarations, ntt_body.h
 * for the code; ntt_common.h holds the field-independent part); nothing in
 * this layer depends on the representation of F beyond the field.h
 * contract.
 *
 * Conventions. The Groth16 prover depends on every one of these.
 *   - The root. w = w_n is a primitive n-th root of unity held by the domain.
 *     By default it is F_root_of_unity(log_n): z^(2^(S - log_n)) for the
 *     field's 2^S-th root z = g^((p-1)/2^S). For bn254_fr g = 5, which is
 *     what snarkjs, ffjavascript and rapidsnark use. For bls12_381_fr the
 *     field's z comes from g = 7 (the generator bellperson, blst and the
 *     zcash crates use), while snarkjs and ffjavascript take the smallest
 *     quadratic non-residue, which is 5 for that field as well: the two
 *     families differ (each root of one is an odd power of the other). A
 *     domain can be built on any primitive root with F_ntt_domain_init_opt;
 *     F_ntt_root_from_generator(r, 5, log_n) gives the snarkjs one.
 *     Every twiddle of the domain is a power of its own w, so the roots of
 *     smaller sub-transforms are always w^(n/m), never a second family.
 *   - Forward = evaluation. Given coefficients c_0..c_{n-1} of
 *     P(x) = sum_i c_i x^i, the forward transform writes a_j = P(w^j) =
 *     sum_i c_i w^(i j), j = 0..n-1.
 *   - Inverse = interpolation, with the 1/n: c_i = (1/n) sum_j a_j w^(-i j).
 *     inverse(forward(c)) = c exactly.
 *   - Coset with shift g (any nonzero element): the forward coset transform
 *     evaluates on g H, a_j = P(g w^j) = sum_i (c_i g^i) w^(i j), that is,
 *     coefficient i is multiplied by g^i and then transformed; the inverse
 *     coset transform undoes it (interpolate, then multiply coefficient i by
 *     g^(-i)). On g H the vanishing polynomial Z(x) = x^n - 1 is the
 *     constant g^n - 1. snarkjs evaluates H on the coset with g = w_{2n},
 *     the 2n-th root of its own family (F_root_of_unity(log_n + 1) for
 *     bn254_fr, F_ntt_root_from_generator(r, 5, log_n + 1) for
 *     bls12_381_fr), so that g^n = -1 and Z = -2 on g H, and with g = 25 =
 *     5^2 when log_n equals the 2-adicity; its H query is indexed by j in
 *     natural order, so its coset evaluations must be in natural order, on
 *     a domain built on the same family. For keys that hold h in the
 *     coefficient basis (bellperson) the shift only has to keep Z nonzero
 *     on g H (g^n != 1): the coefficients of h do not depend on it.
 *   - Orders. "Natural" order puts a_j at index j; "bit-reversed" order
 *     puts it at index rev(j), the log_n-bit reversal of j. The transforms
 *     come in pairs that need no permutation pass:
 *         _NR: natural in, bit-reversed out (decimation in frequency)
 *         _RN: bit-reversed in, natural out (decimation in time)
 *     so INVERSE_NR followed by FORWARD_RN maps natural evaluations to
 *     natural evaluations with the coefficients passing through in
 *     bit-reversed order, and no bit-reversal pass at all. A coset shift
 *     always applies to the coefficient side, in whatever order the
 *     coefficients are held: FORWARD_RN with shift g multiplies the
 *     coefficient at index p (which is c_rev(p)) by g^rev(p).
 *     FORWARD and INVERSE are natural in and natural out; they run the
 *     DIF transform and then one bit-reversal pass.
 *   - Montgomery form. Arrays hold F_t elements as everywhere else (the
 *     Montgomery representative); every input must be reduced (ZKP_VERIFY
 *     builds check), every output is.
 *
 * Domains. A domain of size 2^log_n (log_n <= F's 2-adicity) holds the
 * roots and twiddle tables; its memory belongs to the caller, sized by
 * F_ntt_domain_bytes, so the engine can take it from its pool. Tables take
 * O(sqrt(n)) elements, not O(n): 1.5 MiB at n = 2^27, for 4 GiB of data.
 * A domain is immutable after init and may be shared by any number of
 * threads.
 *   F_ntt_domain_bytes(log_n)         bytes for init, or 0 if log_n is too big
 *   F_ntt_domain_init(d, log_n, mem, mem_len)
 *   F_ntt_domain_bytes_opt / F_ntt_domain_init_opt with F_ntt_options_t:
 *                                     a chosen root (checked primitive), the
 *                                     level split and the block size
 *   F_ntt_domain_clear(d)             forgets mem (the caller frees it)
 *   F_ntt_root_from_generator(r, g, log_n)  r = g^((p-1)/2^log_n)
 *
 * Transforms. In place on a[0..n), n equal to the domain's size. Each
 * returns ZKPIPE_ERR_INVALID_ARGUMENT (and leaves a untouched) for a wrong
 * n, a zero shift, an unknown kind or nthreads = 0.
 *   F_ntt_forward(dom, a, n)          natural -> natural, a_j = P(w^j)
 *   F_ntt_inverse(dom, a, n)          natural -> natural, with 1/n
 *   F_ntt_coset_forward(dom, a, n, g) evaluate on g H, natural orders
 *   F_ntt_coset_inverse(dom, a, n, g) interpolate from g H, natural orders
 *   F_ntt_forward_mt(dom, a, n, nthreads)
 *   F_ntt_transform(dom, a, n, kind, shift, nthreads)  any zkp_ntt_kind,
 *                                     shift NULL for none
 *   F_ntt_bit_reverse(a, n)           the permutation a_i <-> a_rev(i)
 *
 * Threads. The math kernels never create threads. A transform is a plan:
 * a short sequence of passes (one per level, and one for the bit reversal
 * of the natural-order kinds), each a list of independent chunks: a chunk
 * touches elements no other chunk of its pass touches, and holds 2^12 to
 * 2^13 elements of work with the default tuning. Any scheduler may run the
 * chunks of a pass in any order on any threads, provided every chunk of
 * pass k finishes (with its writes visible) before any chunk of pass k+1
 * starts. The result does not depend on the schedule: it is bit-for-bit
 * the single-threaded result. With the default tuning a transform of at
 * most 2^13 points is a single level of a single chunk, which one thread
 * runs.
 *   F_ntt_plan_init(plan, dom, a, n, kind, shift)
 *   F_ntt_plan_passes(plan), F_ntt_plan_chunks(plan, pass)
 *   F_ntt_run_range(plan, pass, begin, end)   chunks [begin, end) of a pass
 *                                     (clipped to the pass; no-op past it)
 *   F_ntt_run(plan)                   everything, on the calling thread
 *   F_ntt_run_mt(plan, nthreads)      a small pthread driver; nthreads = 1
 *                                     runs exactly F_ntt_run, creating no
 *                                     thread
 *
 * Constant time. Transforms are linear maps with public twiddles: memory
 * access and branches depend only on n, the kind, the chunk and the shift
 * (which is public), never on the values in a. Domain and plan set-up use
 * _var field operations on public roots. */
#ifndef ZKP_NTT_NTT_H
#define ZKP_NTT_NTT_H

#include "ntt/bls12_381_ntt.h"
#include "ntt/bn254_ntt.h"

#endif
