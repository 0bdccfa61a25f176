/* The Poseidon circuit that Filecoin's parameters were made for: neptune's
 * legacy circuit (its circuit.rs poseidon_hash, "retained for extant trusted
 * setups"), constraint for constraint and variable for variable.
 *
 * The shape. It runs the optimised static form of the permutation
 * (hash/poseidon.h: compressed round constants added after the S-boxes, the
 * pre-sparse matrix before the partial rounds, one sparse matrix per partial
 * round). The state is a vector of linear combinations that grow through
 * the matrix products; an S-box forces its input into a variable:
 *   - first full round: the tag's S-box is a constant (computed, nothing
 *     allocated); each preimage element x, already a variable, costs three:
 *     (x + k)^2, its square, and (x + k) * that + k' (square_sum, square,
 *     mul_sum with pre- and post-add);
 *   - every other S-box costs four: the input combination allocated with
 *     "combination * ONE = variable", its square, the fourth power, and
 *     fourth power * input + post-round constant (no constant in the very
 *     last round);
 *   - the digest, element 1 of the final state, is allocated with one more
 *     "combination * ONE = variable".
 * So a hash of arity a with R_P partial rounds is 3a + 4((a + 1)(R_F - 1) +
 * R_P) + 1 constraints and as many private variables, one new variable per
 * constraint: 311, 377, 505 and 598 for arities 2, 4, 8 and 11, 761 for 16
 * (neptune's and rust-fil-proofs' tests, FACTS 2.4). Combinations merge
 * repeated variables into one term, as bellpepper's do (a term whose
 * coefficient cancels stays, with coefficient zero).
 *
 * The constraints depend only on the arity; the first hash of an arity
 * builds them once (from hash/poseidon.h's constants) as a template over
 * local slots (ONE, the preimage, then each new variable), kept for the
 * life of the process and shared by all threads. A hash then walks the
 * template: each new variable's value is A * B - (the rest of C) of its own
 * constraint, whose C is that variable plus constants, so the witness comes
 * from the same combinations that the constraints hold. */
#ifndef ZKP_GADGETS_POSEIDON_H
#define ZKP_GADGETS_POSEIDON_H

#include <stdint.h>

#include "gadgets/cs.h"
#include "hash/poseidon.h"

/* The digest of preimage[0 .. arity - 1] (variables with their values,
 * Montgomery form) as a new private variable; *digest_value (may be NULL)
 * receives its value. arity is any in hash/poseidon.h's table (2, 4, 8,
 * 11, 16, 24, 36). An unsupported arity (ZKPIPE_ERR_UNSUPPORTED) or a
 * template that cannot be built (ZKPIPE_ERR_NO_MEMORY) fails the system
 * (sticky) and returns ZKP_VAR_ONE. */
zkp_var zkp_poseidon_gadget(zkp_cs *cs, unsigned arity, const zkp_var *preimage,
                            const zkp_fr *preimage_values, zkp_fr *digest_value);

/* The constraints (and new variables) one hash of arity adds, from the
 * template (built if needed). 0 when the arity is unsupported or the
 * template cannot be built. */
uint64_t zkp_poseidon_gadget_constraints(unsigned arity);

#endif
