/* The ChaCha block function with any even number of rounds, and the
 * keystream generator that rand_chacha 0.3 calls ChaCha8Rng.
 *
 * Contract. zkp_chacha_block computes one 64-byte block as Bernstein defines
 * it: the state is the four constants "expand 32-byte k", the eight key
 * words (little-endian reads of the 32-byte key), and four input words
 * (words 12..15); after `rounds` rounds (alternating column and diagonal
 * rounds) the input state is added back. Output is the sixteen words;
 * their little-endian bytes are the keystream. Constant time in key and
 * input. No allocation, no failure; rounds must be even and positive
 * (assert).
 *
 * The input words carry two layouts:
 *   - Bernstein's original and rand_chacha's: a 64-bit block counter in
 *     words 12 (low) and 13 (high), a 64-bit nonce in words 14 and 15;
 *   - RFC 8439: a 32-bit counter in word 12 and a 96-bit nonce in 13..15.
 * The caller places them; zkp_chacha_rng uses the first.
 *
 * zkp_chacha_rng reproduces rand_chacha 0.3's ChaChaXRng::from_seed(key):
 * nonce 0, block counter from 0, and output words taken in keystream order
 * (block 0 word 0, 1, ..., 15, then block 1). next_u64 is the next word
 * plus the one after it shifted up by 32, as rand_core 0.6's BlockRng
 * does, also when the two words lie in different blocks.
 * Filecoin's DRG seeds ChaCha8 per node and draws ten u64s.
 *
 * zkp_chacha20_ietf_keystream gives any byte range of RFC 8439's ChaCha20
 * keystream (32-bit block counter, 96-bit nonce) as RustCrypto's chacha20
 * crate does after a seek: byte b of the stream is byte b % 64 of the block
 * with counter initial_counter + b / 64. Filecoin's synthetic PoRep reads
 * its challenges and their selection this way. */
#ifndef ZKP_HASH_CHACHA_H
#define ZKP_HASH_CHACHA_H

#include <stddef.h>
#include <stdint.h>

/* out[16] = ChaCha_rounds(key, input). key: eight words, input: words 12..15. */
void zkp_chacha_block(uint32_t out[16], const uint32_t key[8], const uint32_t input[4],
                      unsigned rounds);

/* The eight key words of a 32-byte key. */
void zkp_chacha_key_from_bytes(uint32_t key[8], const uint8_t bytes[32]);

typedef struct {
    uint32_t key[8];
    uint64_t counter; /* of the next block */
    uint32_t block[16];
    unsigned used; /* words of block already returned; 16 = refill */
    unsigned rounds;
} zkp_chacha_rng;

/* Keystream of ChaCha_rounds with the 32-byte key, nonce 0, counter 0. */
void zkp_chacha_rng_init(zkp_chacha_rng *rng, const uint8_t key[32], unsigned rounds);
uint32_t zkp_chacha_rng_u32(zkp_chacha_rng *rng);
uint64_t zkp_chacha_rng_u64(zkp_chacha_rng *rng);

/* out[0 .. len) = bytes [offset, offset + len) of the ChaCha20 keystream of
 * key and nonce whose first block has counter initial_counter. The last
 * block read must have a counter below 2^32 (assert): RFC 8439's stream is
 * 256 GiB long. */
void zkp_chacha20_ietf_keystream(uint8_t *out, size_t len, const uint8_t key[32],
                                 const uint8_t nonce[12], uint32_t initial_counter,
                                 uint64_t offset);

#endif
