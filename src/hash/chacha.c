/* ChaCha (Bernstein 2008; RFC 8439 for the 20-round block). */
#include "hash/chacha.h"

#include <assert.h>

static inline uint32_t rotl32(uint32_t x, unsigned n) { return (x << n) | (x >> (32 - n)); }

#define CHACHA_QR(a, b, c, d)             \
    do {                                  \
        x[a] += x[b];                     \
        x[d] = rotl32(x[d] ^ x[a], 16);   \
        x[c] += x[d];                     \
        x[b] = rotl32(x[b] ^ x[c], 12);   \
        x[a] += x[b];                     \
        x[d] = rotl32(x[d] ^ x[a], 8);    \
        x[c] += x[d];                     \
        x[b] = rotl32(x[b] ^ x[c], 7);    \
    } while (0)

void zkp_chacha_block(uint32_t out[16], const uint32_t key[8], const uint32_t input[4],
                      unsigned rounds) {
    assert(rounds > 0 && rounds % 2 == 0);
    /* "expand 32-byte k" as four little-endian words. */
    uint32_t s[16] = {0x61707865, 0x3320646e, 0x79622d32, 0x6b206574};
    for (int i = 0; i < 8; i++) s[4 + i] = key[i];
    for (int i = 0; i < 4; i++) s[12 + i] = input[i];
    uint32_t x[16];
    for (int i = 0; i < 16; i++) x[i] = s[i];
    for (unsigned r = 0; r < rounds; r += 2) {
        CHACHA_QR(0, 4, 8, 12);
        CHACHA_QR(1, 5, 9, 13);
        CHACHA_QR(2, 6, 10, 14);
        CHACHA_QR(3, 7, 11, 15);
        CHACHA_QR(0, 5, 10, 15);
        CHACHA_QR(1, 6, 11, 12);
        CHACHA_QR(2, 7, 8, 13);
        CHACHA_QR(3, 4, 9, 14);
    }
    for (int i = 0; i < 16; i++) out[i] = x[i] + s[i];
}

void zkp_chacha_key_from_bytes(uint32_t key[8], const uint8_t bytes[32]) {
    for (int i = 0; i < 8; i++)
        key[i] = (uint32_t)bytes[4 * i] | (uint32_t)bytes[4 * i + 1] << 8 |
                 (uint32_t)bytes[4 * i + 2] << 16 | (uint32_t)bytes[4 * i + 3] << 24;
}

void zkp_chacha_rng_init(zkp_chacha_rng *rng, const uint8_t key[32], unsigned rounds) {
    zkp_chacha_key_from_bytes(rng->key, key);
    rng->counter = 0;
    rng->used = 16;
    rng->rounds = rounds;
}

uint32_t zkp_chacha_rng_u32(zkp_chacha_rng *rng) {
    if (rng->used == 16) {
        const uint32_t input[4] = {(uint32_t)rng->counter, (uint32_t)(rng->counter >> 32), 0, 0};
        zkp_chacha_block(rng->block, rng->key, input, rng->rounds);
        rng->counter++;
        rng->used = 0;
    }
    return rng->block[rng->used++];
}

uint64_t zkp_chacha_rng_u64(zkp_chacha_rng *rng) {
    uint64_t lo = zkp_chacha_rng_u32(rng);
    uint64_t hi = zkp_chacha_rng_u32(rng);
    return lo | hi << 32;
}

void zkp_chacha20_ietf_keystream(uint8_t *out, size_t len, const uint8_t key[32],
                                 const uint8_t nonce[12], uint32_t initial_counter,
                                 uint64_t offset) {
    if (len == 0) return;
    uint32_t kw[8], input[4], block[16];
    zkp_chacha_key_from_bytes(kw, key);
    for (int i = 0; i < 3; i++)
        input[1 + i] = (uint32_t)nonce[4 * i] | (uint32_t)nonce[4 * i + 1] << 8 |
                       (uint32_t)nonce[4 * i + 2] << 16 | (uint32_t)nonce[4 * i + 3] << 24;
    uint64_t first = initial_counter + offset / 64;
    uint64_t last = initial_counter + (offset + len - 1) / 64;
    assert(offset + len > offset && last <= UINT32_MAX);
    (void)last;
    size_t skip = (size_t)(offset % 64), done = 0;
    for (uint64_t counter = first; done < len; counter++) {
        input[0] = (uint32_t)counter;
        zkp_chacha_block(block, kw, input, 20);
        for (size_t b = skip; b < 64 && done < len; b++)
            out[done++] = (uint8_t)(block[b / 4] >> (8 * (b % 4)));
        skip = 0;
    }
}
