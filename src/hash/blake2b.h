/* BLAKE2b (RFC 7693), sequential mode, digests of 1 to 64 bytes, optional
 * key of up to 64 bytes; no salt or personalisation (Filecoin uses none).
 *
 * Contract. zkp_blake2b_* compute the RFC 7693 digest of the bytes given,
 * however they are split across update calls. The output length and the
 * key are parameters of the hash, not a truncation: BLAKE2b-256 is not the
 * first half of BLAKE2b-512. No call allocates or reads outside the lengths
 * it is given; lengths out of range (outlen 0 or > 64, keylen > 64) are a
 * programming error, checked by assert. Constant time in the data.
 *
 * Filecoin's use: the Feistel round function of the SDR expander takes the
 * first 8 bytes of BLAKE2b-512 of a 16-byte message (blake2b_simd's
 * default length), which zkp_blake2b512_16 computes with one compression.
 *
 * Why not libsodium: its crypto_generichash is BLAKE2b, but it would add a
 * link dependency to the proving library for one small function, and its
 * generic state API costs more than the one-block call the expander makes
 * millions of times per sector. */
#ifndef ZKP_HASH_BLAKE2B_H
#define ZKP_HASH_BLAKE2B_H

#include <stddef.h>
#include <stdint.h>

#define ZKP_BLAKE2B_MAX_BYTES 64
#define ZKP_BLAKE2B_BLOCK_BYTES 128

typedef struct {
    uint64_t h[8];
    uint64_t t[2]; /* bytes compressed so far, 128-bit counter */
    uint8_t pending[ZKP_BLAKE2B_BLOCK_BYTES];
    size_t pending_bytes; /* <= 128: the last block is held back until final */
    size_t outlen;
} zkp_blake2b_ctx;

/* outlen in 1..64; key may be NULL when keylen is 0, keylen in 0..64. */
void zkp_blake2b_init(zkp_blake2b_ctx *ctx, size_t outlen, const void *key, size_t keylen);
void zkp_blake2b_update(zkp_blake2b_ctx *ctx, const void *data, size_t len);
/* Writes ctx->outlen bytes. */
void zkp_blake2b_final(zkp_blake2b_ctx *ctx, uint8_t *out);

/* One-shot: out[0..outlen) = BLAKE2b-outlen(key; data). */
void zkp_blake2b(uint8_t *out, size_t outlen, const void *key, size_t keylen, const void *data,
                 size_t len);

/* BLAKE2b-512 of exactly 16 bytes, unkeyed: a single compression. */
void zkp_blake2b512_16(uint8_t out[64], const uint8_t in[16]);

#endif
