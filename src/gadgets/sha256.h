/* The SHA-256 circuit, as bellperson's sha256 gadget builds it: the message
 * schedule first (w[16..63]), then the 64 rounds, then the additions into
 * the chaining value, with the additions that feed a and e left pending
 * until the next round needs them, so that each becomes one addmany of up to
 * seven words. One MultiEq per compression collects the additions'
 * equalities; it is flushed when the compression ends.
 *
 * Known shapes (bellperson's tests, FACTS 2.4): one compression of
 * allocated bits from the constant IV is 25,840 constraints and a 512-bit
 * message (two compressions, the second a constant block) is 44,874, both
 * without the allocation of the input bits.
 *
 * Bits are in SHA-256's order: each byte most significant bit first, and
 * the digest's 256 bits likewise. */
#ifndef ZKP_GADGETS_SHA256_H
#define ZKP_GADGETS_SHA256_H

#include <stddef.h>

#include "gadgets/uint32.h"

/* One compression of a 512-bit block into the chaining value cur. */
void zkp_sha256_gadget_compress(zkp_cs *cs, const zkp_bool block[512], const zkp_u32 cur[8],
                                zkp_u32 out[8]);

/* The digest of one 512-bit block without padding, from the IV. */
void zkp_sha256_gadget_block_no_padding(zkp_cs *cs, const zkp_bool block[512],
                                        zkp_bool digest[256]);

/* SHA-256 of n_bits bits (a multiple of 8): FIPS padding with constant
 * bits, then one compression per block. Fails (sticky in cs) on a length
 * that is not whole bytes or on memory. */
void zkp_sha256_gadget(zkp_cs *cs, const zkp_bool *input, size_t n_bits, zkp_bool digest[256]);

#endif
