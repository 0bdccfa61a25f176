/* The pieces of the StackedDRG PoRep circuit around a label, as
 * storage-proofs-core and storage-proofs-porep build them: UInt64 (the
 * challenged node), the re-ordering of bits between a field element's
 * little-endian bits and SHA-256's byte order, create_label_circuit, and the
 * two one-constraint relations of storage-proofs-core's constraint module
 * (equal, and add, which is the encoding step).
 *
 * create_label_circuit hashes, in SHA-256's bit order (each byte most
 * significant bit first):
 *     replica_id, padded with constant zeros to 256 bits
 *     ‖ the layer, a UInt32, 32 bits big-endian
 *     ‖ the node, a UInt64, 64 bits big-endian
 *     ‖ constant zeros to 512 bits
 *     ‖ 37 parents of 256 bits each,
 * 9,984 bits, so 20 compressions after the padding; then reverses the bits
 * of every digest byte (turning the digest into little-endian bits of a
 * number) and packs the first 254 into one new variable: the trimmed
 * SHA-256 that the native labelling computes (filecoin/sdr_labels.h).
 * Nothing else is allocated, so the variables and constraints are the
 * SHA-256 gadget's followed by pack_bits' one of each.
 *
 * Known shape: rust-fil-proofs' create_label test (37 parents and the
 * replica id each allocated as 256 bits, layer and node constants) has
 * 532,025 constraints in all. */
#ifndef ZKP_GADGETS_LABEL_H
#define ZKP_GADGETS_LABEL_H

#include <stddef.h>
#include <stdint.h>

#include "gadgets/multipack.h"
#include "gadgets/uint32.h"

/* ---- UInt64 ---- */

typedef struct {
    zkp_bool bits[64]; /* least significant first */
    uint64_t value;
} zkp_u64;

zkp_u64 zkp_u64_const(uint64_t value);
/* 64 new private bits, least significant first, each with its booleanity
 * constraint. */
zkp_u64 zkp_u64_alloc(zkp_cs *cs, uint64_t value);
/* One public input holding the value (64 bits fit one 254-bit chunk): the
 * input, then its packing constraint. */
void zkp_u64_pack_into_input(zkp_cs *cs, const zkp_u64 *w);
/* The bits most significant first (a renaming; no constraint). */
void zkp_u64_to_bits_be(const zkp_u64 *w, zkp_bool out[64]);

/* ---- bit order ---- */

/* storage-proofs-core's reverse_bit_numbering: bits padded with constant
 * zeros to whole bytes, then the order reversed inside every byte (byte
 * order kept). out receives ceil(n / 8) * 8 booleans; returns that count.
 * Applied to a field element's 255 little-endian bits it gives the 256
 * bits of its 32 little-endian bytes in SHA-256's order, the first bit of
 * the last byte a constant zero. out must not overlap bits. */
size_t zkp_reverse_bit_numbering(zkp_bool *out, const zkp_bool *bits, size_t n);

/* ---- the label ---- */

#define ZKP_LABEL_PARENTS 37
#define ZKP_LABEL_NODE_BITS 256

/* The label of node in layer: replica_id holds id_bits booleans (32 to
 * 256, SHA-256 order), parents[k] 256 booleans each (SHA-256 order). The
 * new variable is returned and its value written to *value (may be NULL).
 * An id_bits out of range fails the system (ZKPIPE_ERR_INVALID_ARGUMENT). */
zkp_var zkp_create_label_circuit(zkp_cs *cs, const zkp_bool *replica_id, size_t id_bits,
                                 const zkp_bool *const parents[ZKP_LABEL_PARENTS],
                                 const zkp_u32 *layer, const zkp_u64 *node, zkp_fr *value);

/* ---- equal and add ---- */

/* a * ONE = b: one constraint, nothing allocated. */
void zkp_constraint_equal(zkp_cs *cs, zkp_var a, zkp_var b);

/* A new variable holding a + b, and (a + b) * ONE = sum. The encoding of a
 * replica node is this with a = the last layer's label and b = the data
 * node (storage-proofs-core's encode). *sum_value receives a_value +
 * b_value. */
zkp_var zkp_constraint_add(zkp_cs *cs, zkp_var a, const zkp_fr *a_value, zkp_var b,
                           const zkp_fr *b_value, zkp_fr *sum_value);

#endif
