/* SHA-256: the portable compression function, the dispatch and the
 * buffering around it. The x86 SHA-extensions body is in sha256_x86.c. */
#include "hash/sha256.h"

#include <string.h>

#include "util/cpu.h"

const uint32_t zkp_sha256_iv[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                                   0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};

/* FIPS 180-4 section 4.2.2: the first 32 bits of the fractional parts of the
 * cube roots of the first 64 primes. */
const uint32_t zkp_sha256_k[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4,
    0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe,
    0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f,
    0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7,
    0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc,
    0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b,
    0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116,
    0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7,
    0xc67178f2};

static inline uint32_t rotr32(uint32_t x, unsigned n) { return (x >> n) | (x << (32 - n)); }

static inline uint32_t load_be32(const uint8_t *p) {
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static inline void store_be32(uint8_t *p, uint32_t v) {
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}

void zkp_sha256_blocks_portable(uint32_t state[8], const uint8_t *blocks, size_t n_blocks) {
    for (size_t b = 0; b < n_blocks; b++, blocks += 64) {
        /* The schedule is kept as a 16-word ring: w[t & 15] holds W_t once
         * round t has started, so the 64-word array of the standard never
         * exists. */
        uint32_t w[16];
        for (int t = 0; t < 16; t++) w[t] = load_be32(blocks + 4 * t);
        uint32_t a = state[0], bb = state[1], c = state[2], d = state[3];
        uint32_t e = state[4], f = state[5], g = state[6], h = state[7];
        for (int t = 0; t < 64; t++) {
            if (t >= 16) {
                uint32_t w15 = w[(t - 15) & 15], w2 = w[(t - 2) & 15];
                uint32_t s0 = rotr32(w15, 7) ^ rotr32(w15, 18) ^ (w15 >> 3);
                uint32_t s1 = rotr32(w2, 17) ^ rotr32(w2, 19) ^ (w2 >> 10);
                w[t & 15] += s0 + w[(t - 7) & 15] + s1;
            }
            uint32_t big_s1 = rotr32(e, 6) ^ rotr32(e, 11) ^ rotr32(e, 25);
            uint32_t ch = (e & f) ^ (~e & g);
            uint32_t t1 = h + big_s1 + ch + zkp_sha256_k[t] + w[t & 15];
            uint32_t big_s0 = rotr32(a, 2) ^ rotr32(a, 13) ^ rotr32(a, 22);
            uint32_t maj = (a & bb) ^ (a & c) ^ (bb & c);
            uint32_t t2 = big_s0 + maj;
            h = g;
            g = f;
            f = e;
            e = d + t1;
            d = c;
            c = bb;
            bb = a;
            a = t1 + t2;
        }
        state[0] += a;
        state[1] += bb;
        state[2] += c;
        state[3] += d;
        state[4] += e;
        state[5] += f;
        state[6] += g;
        state[7] += h;
    }
}

void zkp_sha256_blocks(uint32_t state[8], const uint8_t *blocks, size_t n_blocks) {
#ifdef ZKP_HAVE_X86_ASM
    if (zkp_cpu_use_sha) {
        zkp_sha256_blocks_shani(state, blocks, n_blocks);
        return;
    }
#endif
    zkp_sha256_blocks_portable(state, blocks, n_blocks);
}

const char *zkp_sha256_path_name(void) { return zkp_cpu_use_sha ? "x86-64 sha-ni" : "portable"; }

void zkp_sha256_state_to_digest(uint8_t out[32], const uint32_t state[8]) {
    for (int i = 0; i < 8; i++) store_be32(out + 4 * i, state[i]);
}

void zkp_sha256_init(zkp_sha256_ctx *ctx) {
    memcpy(ctx->state, zkp_sha256_iv, sizeof ctx->state);
    ctx->total_bytes = 0;
    ctx->pending_bytes = 0;
}

void zkp_sha256_update(zkp_sha256_ctx *ctx, const void *data, size_t len) {
    const uint8_t *p = data;
    ctx->total_bytes += len;
    if (ctx->pending_bytes > 0) {
        size_t take = 64 - ctx->pending_bytes;
        if (take > len) take = len;
        memcpy(ctx->pending + ctx->pending_bytes, p, take);
        ctx->pending_bytes += take;
        p += take;
        len -= take;
        if (ctx->pending_bytes < 64) return;
        zkp_sha256_blocks(ctx->state, ctx->pending, 1);
        ctx->pending_bytes = 0;
    }
    /* Whole blocks straight from the caller's memory, in one call, so the
     * SHA-extensions body keeps its state in registers across them. */
    size_t whole = len / 64;
    if (whole > 0) {
        zkp_sha256_blocks(ctx->state, p, whole);
        p += whole * 64;
        len -= whole * 64;
    }
    if (len > 0) {
        memcpy(ctx->pending, p, len);
        ctx->pending_bytes = len;
    }
}

void zkp_sha256_final(zkp_sha256_ctx *ctx, uint8_t out[32]) {
    /* 0x80, zeros up to 56 mod 64, then the message length in bits as a
     * big-endian u64: one or two more blocks. */
    uint8_t tail[128];
    size_t n = ctx->pending_bytes;
    memcpy(tail, ctx->pending, n);
    tail[n++] = 0x80;
    size_t tail_len = n <= 56 ? 64 : 128;
    memset(tail + n, 0, tail_len - 8 - n);
    uint64_t bits = ctx->total_bytes << 3;
    for (int i = 0; i < 8; i++) tail[tail_len - 1 - i] = (uint8_t)(bits >> (8 * i));
    zkp_sha256_blocks(ctx->state, tail, tail_len / 64);
    zkp_sha256_state_to_digest(out, ctx->state);
}

void zkp_sha256(uint8_t out[32], const void *data, size_t len) {
    zkp_sha256_ctx ctx;
    zkp_sha256_init(&ctx);
    zkp_sha256_update(&ctx, data, len);
    zkp_sha256_final(&ctx, out);
}

/* The padding block of every 64-byte message: 0x80, zeros, length 512. */
static const uint8_t sha256_pad_after_64[64] = {0x80, [62] = 0x02, [63] = 0x00};

void zkp_sha256_64(uint8_t out[32], const uint8_t in[64]) {
    uint8_t blocks[128];
    memcpy(blocks, in, 64);
    memcpy(blocks + 64, sha256_pad_after_64, 64);
    uint32_t state[8];
    memcpy(state, zkp_sha256_iv, sizeof state);
    zkp_sha256_blocks(state, blocks, 2);
    zkp_sha256_state_to_digest(out, state);
}

void zkp_sha256_trimmed(uint8_t out[32], const void *data, size_t len) {
    zkp_sha256(out, data, len);
    zkp_sha256_trim(out);
}

void zkp_sha256_64_trimmed(uint8_t out[32], const uint8_t in[64]) {
    zkp_sha256_64(out, in);
    zkp_sha256_trim(out);
}
