/* Bits to field elements and back, as bellpepper's num and bellperson's
 * multipack gadgets do it.
 *
 * Packing takes bits least significant first, at most 254 (Fr's capacity)
 * per element: the value sum 2^i b_i is allocated and tied to the bits by
 * one constraint, sum * ONE = packed. pack_into_inputs makes a public input
 * of every 254-bit chunk, allocating the input and enforcing its constraint
 * before the next chunk (the interleaving a recorder must number correctly,
 * FACTS 1.4). Unpacking (to_bits_le) allocates 255 bits of a variable's
 * value, each with its booleanity constraint, then 0 * 0 = sum 2^i b_i - x. */
#ifndef ZKP_GADGETS_MULTIPACK_H
#define ZKP_GADGETS_MULTIPACK_H

#include <stddef.h>
#include <stdint.h>

#include "gadgets/boolean.h"

#define ZKP_FR_CAPACITY 254 /* bits that always fit below r */
#define ZKP_FR_NUM_BITS 255

/* A new private variable packing bits[0 .. min(n, 254)) and its constraint;
 * *value (may be NULL) receives the packed value. */
zkp_var zkp_pack_bits(zkp_cs *cs, const zkp_bool *bits, size_t n, zkp_fr *value);

/* One public input per 254 bits (the last chunk may be shorter). */
void zkp_pack_into_inputs(zkp_cs *cs, const zkp_bool *bits, size_t n);

/* The values pack_into_inputs gives its inputs, computed from plain bits
 * (one byte per bit, 0 or 1): ceil(n / 254) elements. */
void zkp_multipack_compute(zkp_fr *out, const uint8_t *bits, size_t n);

/* The 255 little-endian bits of x's value (canonical, below r) as new
 * private bits, and the constraint that they sum to x. */
void zkp_num_to_bits_le(zkp_cs *cs, zkp_var x, const zkp_fr *value, zkp_bool bits[ZKP_FR_NUM_BITS]);

#endif
