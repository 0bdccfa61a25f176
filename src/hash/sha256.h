/* SHA-256 (FIPS 180-4), and the trimmed form Filecoin stores in Fr.
 *
 * Contract. zkp_sha256_* compute the standard SHA-256 digest of the bytes
 * given, in the order given, however they are split across update calls.
 * Digests are the 32 big-endian bytes of FIPS 180-4. No call allocates,
 * fails or reads outside the lengths it is given; a context is plain memory
 * the caller owns (init/final, no clear needed) and may be copied to fork a
 * prefix. Every function is constant time in the data (SHA-256 has no
 * data-dependent branches); lengths are public.
 *
 * Trimmed. Filecoin reads a digest as a little-endian 256-bit integer and
 * clears its two top bits (byte 31 &= 0x3f), so that the value is below
 * 2^254 < r and is a canonical BLS12-381 Fr element. zkp_sha256_trim does
 * that to a finished digest; the _trimmed one-shots are the composition.
 * Filecoin applies it to tree_d nodes, labels and replica_id.
 *
 * Paths. The compression function has a portable C body and one built on
 * the x86 SHA extensions (sha256_x86.c). zkp_sha256_blocks dispatches on
 * zkp_cpu_use_sha (util/cpu.h), decided once at start-up; ZKPIPE_FORCE_PORTABLE
 * or ZKPIPE_NO_SHA_NI selects the portable body, which the test suite's
 * ".portable" runs use. Both bodies are exported for tests and benchmarks. */
#ifndef ZKP_HASH_SHA256_H
#define ZKP_HASH_SHA256_H

#include <stddef.h>
#include <stdint.h>

#define ZKP_SHA256_DIGEST_BYTES 32
#define ZKP_SHA256_BLOCK_BYTES 64

typedef struct {
    uint32_t state[8];
    uint64_t total_bytes;                 /* bytes absorbed so far */
    uint8_t pending[ZKP_SHA256_BLOCK_BYTES]; /* a partial block */
    size_t pending_bytes;                 /* < 64 */
} zkp_sha256_ctx;

/* The initial hash value H(0) of FIPS 180-4 section 5.3.3. */
extern const uint32_t zkp_sha256_iv[8];
/* The 64 round constants K of section 4.2.2, shared by both bodies. */
extern const uint32_t zkp_sha256_k[64];

void zkp_sha256_init(zkp_sha256_ctx *ctx);
void zkp_sha256_update(zkp_sha256_ctx *ctx, const void *data, size_t len);
/* Pads, writes the digest and leaves ctx finished (init it to reuse it). */
void zkp_sha256_final(zkp_sha256_ctx *ctx, uint8_t out[32]);

/* out = SHA-256(data[0..len)). */
void zkp_sha256(uint8_t out[32], const void *data, size_t len);

/* out = SHA-256 of exactly 64 bytes: one data block and the constant padding
 * block, without a context. This is the shape of every tree_d node
 * (left ‖ right) and of label 0 (replica_id ‖ header). out may alias in. */
void zkp_sha256_64(uint8_t out[32], const uint8_t in[64]);

/* Clears the two top bits of the little-endian reading (byte 31 &= 0x3f). */
static inline void zkp_sha256_trim(uint8_t digest[32]) { digest[31] &= 0x3f; }

/* Trimmed one-shots: SHA-256 then zkp_sha256_trim. */
void zkp_sha256_trimmed(uint8_t out[32], const void *data, size_t len);
void zkp_sha256_64_trimmed(uint8_t out[32], const uint8_t in[64]);

/* The compression function over n whole 64-byte blocks, updating state (the
 * eight chaining words). This is the level at which callers that lay out a
 * padded message themselves (labels: 20 blocks) go straight to the hardware.
 * The dispatching entry, then the two bodies: _portable always exists;
 * _shani exists where ZKP_HAVE_X86_ASM is set and must only be called when
 * zkp_cpu_use_sha is (or the CPU has the SHA extensions). */
void zkp_sha256_blocks(uint32_t state[8], const uint8_t *blocks, size_t n_blocks);
void zkp_sha256_blocks_portable(uint32_t state[8], const uint8_t *blocks, size_t n_blocks);
#ifdef ZKP_HAVE_X86_ASM
void zkp_sha256_blocks_shani(uint32_t state[8], const uint8_t *blocks, size_t n_blocks);
#endif

/* Writes the eight chaining words as the big-endian digest. */
void zkp_sha256_state_to_digest(uint8_t out[32], const uint32_t state[8]);

/* "x86-64 sha-ni" or "portable": the body zkp_sha256_blocks runs. */
const char *zkp_sha256_path_name(void);

#endif
