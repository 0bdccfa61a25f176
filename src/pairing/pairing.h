/* The pairing contract.
 *
 * Each pairing curve C (bn254, bls12_381) offers the optimal ate pairing
 * e: G1 x G2 -> GT, GT the order-r subgroup of Fp12^*, as C_op below, for
 * example bls12_381_pairing(r, p, q). The header of each curve
 * (bn254_pairing.h, ...) instantiates the one generic body, pairing_impl.h;
 * what differs between the curves is data (the loop digits, the twist, the
 * constants in pairing_params.h) and two switches: the twist type and the
 * family (BN or BLS12), which picks the Frobenius steps at the end of the
 * Miller loop and the hard part of the final exponentiation.
 *
 * Points. The inputs are the curve layer's affine points, C_g1_affine_t over Fp and
 * C_g2_affine_t over Fp2 (coordinates of the sextic twist E'), with
 * (0, 0) standing for the point at infinity; (0, 0) lies on neither curve,
 * since b != 0. On input every point is on its curve and in its order-r
 * subgroup, or is (0, 0); the pairing does not check this (the curve layer
 * does, when points are decoded), and ZKP_VERIFY builds check only that the
 * points are on the curves. A pair with a point at infinity contributes 1.
 *
 * Values. GT elements are Fp12 elements (C_fq12_t / C_fp12_t, see
 * fp12_impl.h). The pairing value is exactly f^((p^12 - 1)/r) for the Miller
 * loop value f: the final exponentiation is not a power of that map (some
 * libraries return its cube), so values compare equal with any other
 * implementation of the exact reduced pairing.
 *
 * Constant time. Nothing branches on or indexes memory by coordinates:
 * pairs with a point at infinity run the same code and have their lines
 * masked to 1. The counts n are public.
 *
 *   C_miller_loop(f, p, q, n)    f = prod_i f_{i}: the Miller loop values of the
 *                                n pairs (p[i], q[i]) multiplied together, with
 *                                one shared accumulator (one squaring per bit
 *                                for every 16 pairs); n = 0 gives f = 1
 *   C_final_exp(r, f)            r = f^((p^12 - 1)/r); 0 maps to 0
 *   C_pairing(r, p, q)           r = e(p, q)
 *   C_pairing_product_is_one(p, q, n)   1 if prod_i e(p[i], q[i]) = 1, else 0:
 *                                one Miller loop and one final exponentiation
 *   C_gt_eq(a, b), C_gt_is_one(a)       comparisons in GT
 *
 * Sources. Lines and point steps in homogeneous projective coordinates:
 * Costello, Lange, Naehrig, "Faster pairing computations on curves with
 * high-degree twists" (PKC 2010), and Aranha, Karabina, Longa, Gebotys,
 * Lopez, "Faster explicit formulas for computing pairings over ordinary
 * curves" (EUROCRYPT 2011), section 4. The BN Miller loop over 6x + 2 with
 * two Frobenius lines: Vercauteren, "Optimal pairings" (IEEE Trans. IT
 * 2010), and Beuchat, Gonzalez-Diaz, Mitsunari, Okamoto, Rodriguez-Henriquez,
 * Teruya, "High-speed software implementation of the optimal ate pairing over
 * Barreto-Naehrig curves" (Pairing 2010). Final exponentiation: see
 * pairing_body.h. */
#ifndef ZKP_PAIRING_PAIRING_H
#define ZKP_PAIRING_PAIRING_H

#include "pairing/bls12_381_pairing.h"
#include "pairing/bn254_pairing.h"

#endif
