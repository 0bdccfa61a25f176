/* BLAKE2b (RFC 7693). */
#include "hash/blake2b.h"

#include <assert.h>
#include <string.h>

/* The SHA-512 initial value, which BLAKE2b uses as its IV (RFC 7693 2.6). */
static const uint64_t blake2b_iv[8] = {0x6a09e667f3bcc908ULL, 0xbb67ae8584caa73bULL,
                                       0x3c6ef372fe94f82bULL, 0xa54ff53a5f1d36f1ULL,
                                       0x510e527fade682d1ULL, 0x9b05688c2b3e6c1fULL,
                                       0x1f83d9abfb41bd6bULL, 0x5be0cd19137e2179ULL};

/* The message word permutations of RFC 7693 2.7; rounds 10 and 11 reuse the
 * first two rows. */
static const uint8_t blake2b_sigma[12][16] = {
    {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15},
    {14, 10, 4, 8, 9, 15, 13, 6, 1, 12, 0, 2, 11, 7, 5, 3},
    {11, 8, 12, 0, 5, 2, 15, 13, 10, 14, 3, 6, 7, 1, 9, 4},
    {7, 9, 3, 1, 13, 12, 11, 14, 2, 6, 5, 10, 4, 0, 15, 8},
    {9, 0, 5, 7, 2, 4, 10, 15, 14, 1, 11, 12, 6, 8, 3, 13},
    {2, 12, 6, 10, 0, 11, 8, 3, 4, 13, 7, 5, 15, 14, 1, 9},
    {12, 5, 1, 15, 14, 13, 4, 10, 0, 7, 6, 3, 9, 2, 8, 11},
    {13, 11, 7, 14, 12, 1, 3, 9, 5, 0, 15, 4, 8, 6, 2, 10},
    {6, 15, 14, 9, 11, 3, 0, 8, 12, 2, 13, 7, 1, 4, 10, 5},
    {10, 2, 8, 4, 7, 6, 1, 5, 15, 11, 9, 14, 3, 12, 13, 0},
    {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15},
    {14, 10, 4, 8, 9, 15, 13, 6, 1, 12, 0, 2, 11, 7, 5, 3},
};

static inline uint64_t rotr64(uint64_t x, unsigned n) { return (x >> n) | (x << (64 - n)); }

static inline uint64_t load_le64(const uint8_t *p) {
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--) v = (v << 8) | p[i];
    return v;
}

#define BLAKE2B_G(a, b, c, d, x, y)      \
    do {                                 \
        v[a] = v[a] + v[b] + (x);        \
        v[d] = rotr64(v[d] ^ v[a], 32);  \
        v[c] = v[c] + v[d];              \
        v[b] = rotr64(v[b] ^ v[c], 24);  \
        v[a] = v[a] + v[b] + (y);        \
        v[d] = rotr64(v[d] ^ v[a], 16);  \
        v[c] = v[c] + v[d];              \
        v[b] = rotr64(v[b] ^ v[c], 63);  \
    } while (0)

/* One round with permutation row r, as literal indices once the rounds
 * below are unrolled, so the message words stay in registers; where the
 * caller's words are constants (the 16-byte form) the additions of zero
 * words fold away. */
#define BLAKE2B_ROUND(r)                                                               \
    do {                                                                               \
        BLAKE2B_G(0, 4, 8, 12, m[blake2b_sigma[r][0]], m[blake2b_sigma[r][1]]);        \
        BLAKE2B_G(1, 5, 9, 13, m[blake2b_sigma[r][2]], m[blake2b_sigma[r][3]]);        \
        BLAKE2B_G(2, 6, 10, 14, m[blake2b_sigma[r][4]], m[blake2b_sigma[r][5]]);       \
        BLAKE2B_G(3, 7, 11, 15, m[blake2b_sigma[r][6]], m[blake2b_sigma[r][7]]);       \
        BLAKE2B_G(0, 5, 10, 15, m[blake2b_sigma[r][8]], m[blake2b_sigma[r][9]]);       \
        BLAKE2B_G(1, 6, 11, 12, m[blake2b_sigma[r][10]], m[blake2b_sigma[r][11]]);     \
        BLAKE2B_G(2, 7, 8, 13, m[blake2b_sigma[r][12]], m[blake2b_sigma[r][13]]);      \
        BLAKE2B_G(3, 4, 9, 14, m[blake2b_sigma[r][14]], m[blake2b_sigma[r][15]]);      \
    } while (0)

/* F of RFC 7693 3.2 on the sixteen message words m: t is the byte count
 * including this block, last marks the final block. */
static inline __attribute__((always_inline)) void blake2b_compress_words(uint64_t h[8],
                                                                         const uint64_t m[16],
                                                                         uint64_t t0, uint64_t t1,
                                                                         int last) {
    uint64_t v[16];
    for (int i = 0; i < 8; i++) {
        v[i] = h[i];
        v[i + 8] = blake2b_iv[i];
    }
    v[12] ^= t0;
    v[13] ^= t1;
    if (last) v[14] = ~v[14];
    BLAKE2B_ROUND(0);
    BLAKE2B_ROUND(1);
    BLAKE2B_ROUND(2);
    BLAKE2B_ROUND(3);
    BLAKE2B_ROUND(4);
    BLAKE2B_ROUND(5);
    BLAKE2B_ROUND(6);
    BLAKE2B_ROUND(7);
    BLAKE2B_ROUND(8);
    BLAKE2B_ROUND(9);
    BLAKE2B_ROUND(10);
    BLAKE2B_ROUND(11);
    for (int i = 0; i < 8; i++) h[i] ^= v[i] ^ v[i + 8];
}

static void blake2b_compress(uint64_t h[8], const uint8_t block[128], uint64_t t0, uint64_t t1,
                             int last) {
    uint64_t m[16];
    for (int i = 0; i < 16; i++) m[i] = load_le64(block + 8 * i);
    blake2b_compress_words(h, m, t0, t1, last);
}

static void blake2b_count(zkp_blake2b_ctx *ctx, size_t n) {
    ctx->t[0] += n;
    if (ctx->t[0] < n) ctx->t[1]++;
}

void zkp_blake2b_init(zkp_blake2b_ctx *ctx, size_t outlen, const void *key, size_t keylen) {
    assert(outlen >= 1 && outlen <= ZKP_BLAKE2B_MAX_BYTES);
    assert(keylen <= ZKP_BLAKE2B_MAX_BYTES && (key != NULL || keylen == 0));
    memcpy(ctx->h, blake2b_iv, sizeof ctx->h);
    /* Parameter block word 0: digest length, key length, fanout 1, depth 1. */
    ctx->h[0] ^= 0x01010000ULL ^ ((uint64_t)keylen << 8) ^ (uint64_t)outlen;
    ctx->t[0] = ctx->t[1] = 0;
    ctx->pending_bytes = 0;
    ctx->outlen = outlen;
    if (keylen > 0) {
        /* The key, zero-padded, is a whole first block of the message. */
        memset(ctx->pending, 0, sizeof ctx->pending);
        memcpy(ctx->pending, key, keylen);
        ctx->pending_bytes = ZKP_BLAKE2B_BLOCK_BYTES;
    }
}

void zkp_blake2b_update(zkp_blake2b_ctx *ctx, const void *data, size_t len) {
    const uint8_t *p = data;
    while (len > 0) {
        /* A full pending block is compressed only once more data arrives:
         * the last block gets the final flag, and it is not known to be the
         * last until final is called. */
        if (ctx->pending_bytes == ZKP_BLAKE2B_BLOCK_BYTES) {
            blake2b_count(ctx, ZKP_BLAKE2B_BLOCK_BYTES);
            blake2b_compress(ctx->h, ctx->pending, ctx->t[0], ctx->t[1], 0);
            ctx->pending_bytes = 0;
        }
        size_t take = ZKP_BLAKE2B_BLOCK_BYTES - ctx->pending_bytes;
        if (take > len) take = len;
        memcpy(ctx->pending + ctx->pending_bytes, p, take);
        ctx->pending_bytes += take;
        p += take;
        len -= take;
    }
}

void zkp_blake2b_final(zkp_blake2b_ctx *ctx, uint8_t *out) {
    blake2b_count(ctx, ctx->pending_bytes);
    memset(ctx->pending + ctx->pending_bytes, 0, ZKP_BLAKE2B_BLOCK_BYTES - ctx->pending_bytes);
    blake2b_compress(ctx->h, ctx->pending, ctx->t[0], ctx->t[1], 1);
    for (size_t i = 0; i < ctx->outlen; i++) out[i] = (uint8_t)(ctx->h[i / 8] >> (8 * (i % 8)));
}

void zkp_blake2b(uint8_t *out, size_t outlen, const void *key, size_t keylen, const void *data,
                 size_t len) {
    zkp_blake2b_ctx ctx;
    zkp_blake2b_init(&ctx, outlen, key, keylen);
    zkp_blake2b_update(&ctx, data, len);
    zkp_blake2b_final(&ctx, out);
}

void zkp_blake2b512_16(uint8_t out[64], const uint8_t in[16]) {
    uint64_t h[8];
    memcpy(h, blake2b_iv, sizeof h);
    h[0] ^= 0x01010000ULL ^ 64;
    const uint64_t m[16] = {load_le64(in), load_le64(in + 8)};
    blake2b_compress_words(h, m, 16, 0, 1);
    for (int i = 0; i < 64; i++) out[i] = (uint8_t)(h[i / 8] >> (8 * (i % 8)));
}
