/* Merkle inclusion (proof of retrievability), as storage-proofs-core's PoR
 * circuit builds it (gadgets/por.rs with gadgets/insertion.rs), for the
 * Poseidon trees of Filecoin (tree_r_last, tree_c: base levels of one
 * arity, then optionally a sub level and a top level of their own arities)
 * and the binary SHA-256 tree (tree_d, whose root is comm_d).
 *
 * Per level, leaf side first:
 *   - the node's position among its siblings as log2(arity) new bits
 *     (AllocatedBit, least significant first), one constraint each;
 *   - the arity - 1 siblings as new private variables;
 *   - the insertion of the current node among the siblings at that
 *     position: 2 constraints for arity 2, 8 for arity 4 and 22 for arity 8
 *     (insertion.rs's hand-written cases, whose counts its tests assert),
 *     arity * (arity - 1) for other powers of two (one selection tree per
 *     output position); every output is a new variable;
 *   - the hash of the arity values: Poseidon of that arity (gadgets/poseidon.h),
 *     or for SHA-256 each value's 255 bits (to_bits_le, with its packing
 *     constraint) plus a constant zero bit, the bits of each byte reversed
 *     so that the message is the values' 32-byte little-endian encodings
 *     one after another, SHA-256 with padding (gadgets/sha256.h), and the
 *     digest's bytes read little-endian, its first 254 bits packed into one
 *     new variable (the trimmed digest of filecoin-hashers).
 * Then every position bit, in level order, is packed into public inputs
 * (multipack; the single input is the leaf's index in the tree), and the
 * computed root is tied to the root by computed * ONE = root.
 *
 * Reference counts (storage-proofs-core tests/por_circuit.rs, 64 leaves per
 * base tree, root public): Poseidon 1,887 (base 2), 1,164 (4), 1,063 (8),
 * 1,377 (8-2), 1,593 (8-8), 1,764 (8-4-2), 1,907 (8-8-2); one fewer with a
 * private root; SHA-256 272,295 (2), 216,258 (4), 250,987 (8). */
#ifndef ZKP_GADGETS_POR_H
#define ZKP_GADGETS_POR_H

#include <stddef.h>

#include "gadgets/cs.h"

typedef enum { ZKP_POR_POSEIDON, ZKP_POR_SHA256 } zkp_por_hash;

/* One level of an inclusion path. */
typedef struct {
    unsigned arity;         /* a power of two, 2 .. 16 */
    unsigned index;         /* the node's position among its siblings, < arity */
    const zkp_fr *siblings; /* the other arity - 1 values in order, Montgomery form */
} zkp_por_level;

/* The PoR as the PoRep circuit uses it (PoRCircuit::synthesize with both
 * leaf and root already allocated, root private): levels[0 .. n_levels)
 * from leaf to root, the path's one public input, then computed root ==
 * root. *computed_root (may be NULL) receives the root the path leads to.
 * A path the gadget cannot build (more than 64 levels, an arity not a power
 * of two in 2..16, an index out of range, no siblings, a Poseidon arity
 * without constants) fails the system with ZKPIPE_ERR_INVALID_ARGUMENT or
 * ZKPIPE_ERR_UNSUPPORTED before anything is added. */
void zkp_por_gadget(zkp_cs *cs, zkp_por_hash hash, const zkp_por_level *levels, size_t n_levels,
                    zkp_var leaf, const zkp_fr *leaf_value, zkp_var root, zkp_fr *computed_root);

/* The stand-alone PoR circuit (PoRCircuit with Root::Val leaf and root):
 * the leaf allocated first, the levels, the path's public input, then the
 * root allocated, tied to the computed root and, when public_root, exposed
 * as the next public input (alloc_input plus input * ONE = root). */
void zkp_por_circuit(zkp_cs *cs, zkp_por_hash hash, const zkp_por_level *levels, size_t n_levels,
                     const zkp_fr *leaf_value, const zkp_fr *root_value, int public_root,
                     zkp_fr *computed_root);

#endif
