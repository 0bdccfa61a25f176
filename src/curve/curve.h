/* The elliptic-curve group contract.
 *
 * zkpipe has four groups, each a short Weierstrass curve y^2 = x^3 + b with
 * a = 0 (b != 0), and each the subgroup of prime order r of its curve:
 *
 *   bn254_g1      over bn254_fq,      b = 3,              cofactor 1
 *   bn254_g2      over bn254_fq2,     b = 3/(9 + u),      cofactor c2 = 2p - r (D-type twist)
 *   bls12_381_g1  over bls12_381_fp,  b = 4,              cofactor h1 = (x - 1)^2 / 3
 *   bls12_381_g2  over bls12_381_fp2, b = 4(1 + u),       cofactor h2 (M-type twist)
 *
 * with r the modulus of bn254_fr or bls12_381_fr. Each offers the operations
 * below, named G_op: for example bls12_381_g2_add(r, p, q). The header of each
 * group (bn254_g1.h, ...) instantiates the one generic body, ec_impl.h, over
 * its coordinate field; the field operations it uses are the field.h contract,
 * which the prime fields and the Fp2 towers share.
 *
 * Representations. Coordinates are field elements (Montgomery form inside).
 *   G_affine_t   {x, y}          the point at infinity is (0, 0), which is
 *                                not on the curve because b != 0
 *   G_jacobian_t {x, y, z}       the point (x/z^2, y/z^3); z = 0 is infinity,
 *                                whatever x and y hold
 *   G_xyzz_t     {x, y, zz, zzz} the point (x/zz, y/zzz) with zz^3 = zzz^2;
 *                                zz = zzz = 0 is infinity. The MSM buckets use
 *                                it: mixed additions cost 8M + 3S
 * Outputs may alias inputs. Points given to the group law must be on the
 * curve (they need not be in the subgroup): ZKP_VERIFY builds check it.
 *
 * Constant time. As in field.h: operations without a _var suffix do not
 * branch on or index memory by the coordinates or the scalar, only by public
 * lengths; _var operations may, and are for public points and scalars. The
 * group law is complete: every formula accepts infinity, P + P and P + (-P)
 * without branching (ec_impl.h explains how).
 *
 * Points:
 *   G_affine_set_infinity(r), G_affine_is_infinity(p)
 *   G_affine_is_on_curve(p)  1 if on the curve or infinity
 *   G_affine_eq(a, b), G_affine_neg(r, p), G_affine_cmov(r, a, flag)
 *   G_set_infinity(r), G_is_infinity(p)
 *   G_is_on_curve(p)         Jacobian; 1 if on the curve or z = 0
 *   G_cmov(r, a, flag)       r = flag ? a : r
 *   G_from_affine(r, a)      affine infinity maps to z = 0
 *   G_to_affine(r, p)        one constant-time inversion; infinity gives (0, 0)
 *   G_batch_to_affine_var(out, in, n)  one inversion for n points (Montgomery's
 *                            trick); no scratch memory; out and in must not overlap
 *   G_eq(p, q)               projective comparison, no inversion
 *   G_neg(r, p)
 *   G_dbl(r, p)              dbl-2009-l            2M + 5S
 *   G_add(r, p, q)           add-2007-bl, unified  11M + 6S
 *   G_add_affine(r, p, q)    madd-2007-bl, unified 7M + 5S (q affine)
 *   G_sub(r, p, q)           p + (-q)
 *   G_xyzz_set_infinity(r), G_xyzz_is_infinity(p), G_xyzz_is_on_curve(p)
 *   G_xyzz_cmov(r, a, flag), G_xyzz_from_affine(r, a)
 *   G_xyzz_to_jacobian(r, p) 2M + 2S, no inversion
 *   G_xyzz_dbl(r, p)         dbl-2008-s-1          6M + 3S
 *   G_xyzz_add(r, p, q)      add-2008-s, unified   12M + 3S
 *   G_xyzz_add_affine(r, p, q)  madd-2008-s, unified 8M + 3S (q affine)
 *   G_xyzz_add_var(r, p, q), G_xyzz_add_affine_var(r, p, q)
 *                            the same results with the exceptional cases as
 *                            branches: 12M + 2S and 8M + 2S, for public points
 *                            (the MSM bucket steps)
 *   G_generator(r)           the standard generator, affine
 *
 * Scalar multiplication. Scalars are little-endian uint64_t limbs in
 * canonical (not Montgomery) form, for example the output of F_from_mont of
 * the scalar field; nbits says how many low bits are used (ceil(nbits/64)
 * limbs are read). Values need not be reduced mod r.
 *   G_mul(r, p, k, nbits)      fixed 4-bit windows, constant-time table scan,
 *                              complete additions: for secret scalars
 *   G_mul_var(r, p, k, nbits)  width-5 wNAF: for public scalars
 *
 * Subgroup membership. On input the point is on the curve.
 *   G_in_subgroup_var(p), G_affine_in_subgroup_var(p)
 *       the fast test: bn254_g1 on curve (cofactor 1); bls12_381_g1
 *       sigma(P) = [-x^2] P (Scott 2021); bls12_381_g2 psi(P) = [x] P
 *       (Scott 2021); bn254_g2 psi(P) = [6x^2] P (El Housni, Guillevic and
 *       Piellard 2022). Each is exact, not probabilistic: the kernel of the
 *       tested endomorphism meets the curve's group exactly in G
 *       (tools/gen_curve_params.py checks the degree argument)
 *   G_in_subgroup_slow_var(p)  [r] P = infinity, the reference for tests
 *   G_clear_cofactor_var(r, p) a multiple of p in G: bn254_g1 identity;
 *       bls12_381_g1 [h1] P; bn254_g2 [c2] P; bls12_381_g2 the psi-based
 *       map of Budroni and Pintore, which equals [h_eff] P with
 *       h_eff = 3 (x^2 - 1) h2 as in the hash-to-curve draft
 *
 * Endomorphisms, constant time:
 *   bls12_381_g1_sigma(r, p)  (beta x, y): multiplication by -x^2 on G1
 *   bn254_g2_psi(r, p), bls12_381_g2_psi(r, p)  twist o Frobenius o untwist:
 *                             multiplication by p mod r on G2 */
#ifndef ZKP_CURVE_CURVE_H
#define ZKP_CURVE_CURVE_H

#include "curve/bls12_381_g1.h"
#include "curve/bls12_381_g2.h"
#include "curve/bn254_g1.h"
#include "curve/bn254_g2.h"

#endif
