/* Filecoin PoRep identities (porep.h). */
#include "filecoin/porep.h"

#include <assert.h>
#include <string.h>

#include "hash/blake2b.h"
#include "hash/chacha.h"
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

/* Both SHA-256 rules: challenge i of partition k is 1 + SHA-256(prefix ‖
 * j as u32 LE) mod (sector_nodes − 1), j = n·k + i. */
static void sha256_challenges(uint64_t *out, size_t n, uint64_t sector_nodes,
                              const uint8_t *prefix, size_t prefix_len, unsigned partition_k) {
    assert(sector_nodes >= 2 && sector_nodes <= (1ULL << 32));
    assert((uint64_t)n * ((uint64_t)partition_k + 1) <= UINT32_MAX);
    zkp_sha256_ctx head;
    zkp_sha256_init(&head);
    zkp_sha256_update(&head, prefix, prefix_len);
    for (size_t i = 0; i < n; i++) {
        uint32_t j = (uint32_t)(n * partition_k + i);
        uint8_t le[4], digest[32];
        for (int b = 0; b < 4; b++) le[b] = (uint8_t)(j >> (8 * b));
        zkp_sha256_ctx ctx = head;
        zkp_sha256_update(&ctx, le, 4);
        zkp_sha256_final(&ctx, digest);
        out[i] = 1 + le256_mod(digest, sector_nodes - 1);
    }
}

void zkp_fil_interactive_challenges(uint64_t *out, size_t n, uint64_t sector_nodes,
                                    const uint8_t replica_id[32], const uint8_t seed[32],
                                    unsigned partition_k) {
    uint8_t prefix[64];
    memcpy(prefix, replica_id, 32);
    memcpy(prefix + 32, seed, 32);
    sha256_challenges(out, n, sector_nodes, prefix, sizeof prefix, partition_k);
}

#define NI_TAG "filecoin.io|PoRep|1|NonInteractive|1"

void zkp_fil_ni_challenges(uint64_t *out, size_t n, uint64_t sector_nodes,
                           const uint8_t replica_id[32], const uint8_t comm_r[32],
                           unsigned partition_k) {
    uint8_t prefix[sizeof NI_TAG - 1 + 64];
    memcpy(prefix, NI_TAG, sizeof NI_TAG - 1);
    memcpy(prefix + sizeof NI_TAG - 1, replica_id, 32);
    memcpy(prefix + sizeof NI_TAG - 1 + 32, comm_r, 32);
    sha256_challenges(out, n, sector_nodes, prefix, sizeof prefix, partition_k);
}

/* ---- Synthetic PoRep: two ChaCha20 streams, keyed by BLAKE2b-256 under a
 * tag, with one nonce. */

#define SYNTH_GENERATION_TAG "filecoin.io|PoRep|1|Synthetic|1|Generation"
#define SYNTH_SELECTION_TAG "filecoin.io|PoRep|1|Synthetic|1|Selection"
static const uint8_t synth_nonce[12] = {'s', 'y', 'n', 't', 'h', '-', 'p', 'o', 'r', 'e', 'p', 0};

static void synth_key(uint8_t key[32], const char *tag, size_t tag_len, const uint8_t a[32],
                      const uint8_t b[32]) {
    zkp_blake2b_ctx ctx;
    zkp_blake2b_init(&ctx, 32, tag, tag_len);
    zkp_blake2b_update(&ctx, a, 32);
    zkp_blake2b_update(&ctx, b, 32);
    zkp_blake2b_final(&ctx, key);
}

void zkp_fil_synth_init_count(zkp_fil_synth *s, uint64_t sector_nodes, uint32_t count,
                              const uint8_t replica_id[32], const uint8_t comm_r[32]) {
    assert(sector_nodes >= 2 && sector_nodes <= (1ULL << 32) && count >= 1);
    synth_key(s->key, SYNTH_GENERATION_TAG, sizeof SYNTH_GENERATION_TAG - 1, replica_id, comm_r);
    s->sector_nodes = sector_nodes;
    s->count = count;
}

void zkp_fil_synth_init(zkp_fil_synth *s, uint64_t sector_nodes, const uint8_t replica_id[32],
                        const uint8_t comm_r[32]) {
    uint32_t count = sector_nodes < ZKP_FIL_SYNTH_MAX_CHALLENGES ? (uint32_t)sector_nodes
                                                                 : ZKP_FIL_SYNTH_MAX_CHALLENGES;
    zkp_fil_synth_init_count(s, sector_nodes, count, replica_id, comm_r);
}

uint64_t zkp_fil_synth_challenge(const zkp_fil_synth *s, uint32_t i) {
    assert(i < s->count);
    uint8_t bytes[32];
    zkp_chacha20_ietf_keystream(bytes, 32, s->key, synth_nonce, 0, (uint64_t)i * 32);
    return 1 + le256_mod(bytes, s->sector_nodes - 1);
}

/* Selection indexes first .. first + n − 1 of the stream keyed by
 * replica_id and seed, each mod count. */
static void synth_select_range(uint32_t *out, size_t n, uint64_t first, uint32_t count,
                               const uint8_t replica_id[32], const uint8_t seed[32]) {
    uint8_t key[32], word[4];
    synth_key(key, SYNTH_SELECTION_TAG, sizeof SYNTH_SELECTION_TAG - 1, replica_id, seed);
    for (size_t t = 0; t < n; t++) {
        /* One block per index: a partition selects a few dozen at most. */
        zkp_chacha20_ietf_keystream(word, 4, key, synth_nonce, 0, 4 * (first + t));
        uint32_t v = (uint32_t)word[0] | (uint32_t)word[1] << 8 | (uint32_t)word[2] << 16 |
                     (uint32_t)word[3] << 24;
        out[t] = v % count;
    }
}

void zkp_fil_synth_select(uint32_t *out, size_t n, const zkp_fil_synth *s,
                          const uint8_t replica_id[32], const uint8_t seed[32],
                          unsigned partition_k) {
    synth_select_range(out, n, (uint64_t)n * partition_k, s->count, replica_id, seed);
}

void zkp_fil_synth_challenges(uint64_t *out, size_t n, const zkp_fil_synth *s,
                              const uint8_t replica_id[32], const uint8_t seed[32],
                              unsigned partition_k) {
    const uint64_t first = (uint64_t)n * partition_k;
    for (size_t base = 0; base < n; base += 64) {
        uint32_t idx[64];
        size_t m = n - base < 64 ? n - base : 64;
        synth_select_range(idx, m, first + base, s->count, replica_id, seed);
        for (size_t t = 0; t < m; t++) out[base + t] = zkp_fil_synth_challenge(s, idx[t]);
    }
}

void zkp_fil_porep_challenges(uint64_t *out, const zkp_fil_seal_proof *p,
                              const uint8_t replica_id[32], const uint8_t comm_r[32],
                              const uint8_t seed[32], unsigned partition_k) {
    assert(partition_k < p->partitions);
    switch (p->challenge_kind) {
    case ZKP_FIL_CHALLENGES_INTERACTIVE:
        zkp_fil_interactive_challenges(out, p->challenges, p->nodes, replica_id, seed,
                                       partition_k);
        break;
    case ZKP_FIL_CHALLENGES_SYNTHETIC: {
        zkp_fil_synth s;
        zkp_fil_synth_init(&s, p->nodes, replica_id, comm_r);
        zkp_fil_synth_challenges(out, p->challenges, &s, replica_id, seed, partition_k);
        break;
    }
    case ZKP_FIL_CHALLENGES_NON_INTERACTIVE:
        zkp_fil_ni_challenges(out, p->challenges, p->nodes, replica_id, comm_r, partition_k);
        break;
    }
}
