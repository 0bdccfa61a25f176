/* Filecoin PoRep identities (porep.h). */
#include "filecoin/porep.h"

#include <assert.h>
#include <string.h>

#include "hash/sha256.h"

static void store_le64(uint8_t *p, uint64_t v) {
    for (int i = 0; i < 8; i++) p[i] = (uint8_t)(v >> (8 * i));
}

void zkp_fil_porep_id(uint8_t out[32], uint64_t registered_proof_id) {
    memset(out, 0, 32);
    store_le64(out, registered_proof_id);
    /* Bytes 8..15 hold the nonce, 0 for every registered proof. */
}

void zkp_fil_replica_id(uint8_t out[32], const uint8_t prover_id[32], uint64_t sector_id,
                        const uint8_t ticket[32], const uint8_t comm_d[32],
                        const uint8_t porep_id[32]) {
    uint8_t msg[32 + 8 + 32 + 32 + 32];
    memcpy(msg, prover_id, 32);
    for (int i = 0; i < 8; i++) msg[32 + i] = (uint8_t)(sector_id >> (56 - 8 * i));
    memcpy(msg + 40, ticket, 32);
    memcpy(msg + 72, comm_d, 32);
    memcpy(msg + 104, porep_id, 32);
    zkp_sha256_trimmed(out, msg, sizeof msg);
}

/* The little-endian 256-bit integer in bytes mod m (m < 2^32): Horner's rule
 * from the most significant 32-bit digit, every step below 2^64. */
static uint64_t le256_mod(const uint8_t bytes[32], uint64_t m) {
    uint64_t r = 0;
    for (int i = 7; i >= 0; i--) {
        uint64_t digit = (uint64_t)bytes[4 * i] | (uint64_t)bytes[4 * i + 1] << 8 |
                         (uint64_t)bytes[4 * i + 2] << 16 | (uint64_t)bytes[4 * i + 3] << 24;
        r = ((r << 32) | digit) % m;
    }
    return r;
}

void zkp_fil_interactive_challenges(uint64_t *out, size_t n, uint64_t sector_nodes,
                                    const uint8_t replica_id[32], const uint8_t seed[32],
                                    unsigned partition_k) {
    assert(sector_nodes >= 2 && sector_nodes <= (1ULL << 32));
    assert((uint64_t)n * ((uint64_t)partition_k + 1) <= UINT32_MAX);
    uint8_t msg[68], digest[32];
    memcpy(msg, replica_id, 32);
    memcpy(msg + 32, seed, 32);
    for (size_t i = 0; i < n; i++) {
        uint32_t j = (uint32_t)(n * partition_k + i);
        for (int b = 0; b < 4; b++) msg[64 + b] = (uint8_t)(j >> (8 * b));
        zkp_sha256(digest, msg, sizeof msg);
        out[i] = 1 + le256_mod(digest, sector_nodes - 1);
    }
}
