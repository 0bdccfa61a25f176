/* The SDR graph (sdr_graph.h). */
#include "filecoin/sdr_graph.h"

#include <string.h>

#include "hash/blake2b.h"
#include "hash/chacha.h"
#include "hash/sha256.h"
#include "util/parallel.h"

/* SHA-256(tag ‖ porep_id): rust-fil-proofs' derive_porep_domain_seed. */
static void porep_domain_seed(uint8_t out[32], const char *tag, const uint8_t porep_id[32]) {
    zkp_sha256_ctx ctx;
    zkp_sha256_init(&ctx);
    zkp_sha256_update(&ctx, tag, strlen(tag));
    zkp_sha256_update(&ctx, porep_id, 32);
    zkp_sha256_final(&ctx, out);
}

zkpipe_status zkp_sdr_graph_init(zkp_sdr_graph *g, uint64_t nodes, const uint8_t porep_id[32],
                                 zkp_fil_api_version api, zkp_diag *diag) {
    if (nodes < 2 || nodes > (1ULL << 32))
        return zkp_diag_fail(diag, ZKPIPE_ERR_OUT_OF_RANGE,
                             "SDR graph of %llu nodes: must have 2 to 2^32 nodes",
                             (unsigned long long)nodes);
    g->nodes = nodes;
    g->api = api;
    uint8_t seed[32];
    porep_domain_seed(seed, "Filecoin_DRSample", porep_id);
    memcpy(g->drg_seed, seed, sizeof g->drg_seed);
    porep_domain_seed(seed, "Filecoin_Feistel", porep_id);
    for (int k = 0; k < 4; k++) {
        uint64_t v = 0;
        for (int b = 7; b >= 0; b--) v = (v << 8) | seed[8 * k + b];
        g->feistel_keys[k] = v;
    }
    /* The smallest h >= 1 with 4^h >= 8·nodes (feistel.rs precompute). */
    uint64_t domain = nodes * ZKP_SDR_EXP_DEGREE;
    unsigned h = 1;
    while ((1ULL << (2 * h)) < domain) h++;
    g->feistel_half_bits = h;
    return ZKPIPE_OK;
}

void zkp_sdr_drg_parents(const zkp_sdr_graph *g, uint32_t node, uint32_t parents[6]) {
    if (node < 2) {
        for (int i = 0; i < ZKP_SDR_DRG_DEGREE; i++) parents[i] = 0;
        return;
    }
    uint8_t key[32];
    memcpy(key, g->drg_seed, 28);
    for (int b = 0; b < 4; b++) key[28 + b] = (uint8_t)(node >> (8 * b));
    zkp_chacha_rng rng;
    zkp_chacha_rng_init(&rng, key, 8);

    const uint64_t m_prime = ZKP_SDR_DRG_DEGREE - 1;
    const uint64_t meta = (uint64_t)node * m_prime;
    /* rust-fil-proofs takes ceil(log2(meta)) in f64. meta < 2^35 here, so
     * log2 of a non-power of two lies at least 2^-36 above its floor, far
     * more than a double's rounding at that magnitude: the float result is
     * the bit length of meta − 1, computed exactly below. */
    const uint64_t n_buckets = 64 - (uint64_t)__builtin_clzll(meta - 1);
    uint32_t *random_parents = g->api == ZKP_FIL_API_V1_0 ? parents : parents + 1;
    for (uint64_t i = 0; i < m_prime; i++) {
        uint64_t bucket = zkp_chacha_rng_u64(&rng) % n_buckets + 1;
        uint64_t hi = meta < (1ULL << bucket) ? meta : (1ULL << bucket);
        uint64_t lo = hi >> 1 > 2 ? hi >> 1 : 2;
        uint64_t distance = lo + zkp_chacha_rng_u64(&rng) % (hi - lo + 1);
        uint32_t parent = (uint32_t)((meta - distance) / m_prime);
        random_parents[i] = parent == node ? node - 1 : parent;
    }
    parents[g->api == ZKP_FIL_API_V1_0 ? m_prime : 0] = node - 1;
}

/* F(R, key): the first 8 bytes, big-endian, of BLAKE2b-512(R BE ‖ key BE). */
static uint64_t feistel_round_value(uint64_t right, uint64_t key) {
    uint8_t msg[16], digest[64];
    for (int b = 0; b < 8; b++) {
        msg[b] = (uint8_t)(right >> (56 - 8 * b));
        msg[8 + b] = (uint8_t)(key >> (56 - 8 * b));
    }
    zkp_blake2b512_16(digest, msg);
    uint64_t v = 0;
    for (int b = 0; b < 8; b++) v = (v << 8) | digest[b];
    return v;
}

static uint64_t feistel_encode(const zkp_sdr_graph *g, uint64_t index) {
    const unsigned h = g->feistel_half_bits;
    const uint64_t mask = (1ULL << h) - 1;
    uint64_t left = (index >> h) & mask, right = index & mask;
    for (int r = 0; r < ZKP_SDR_FEISTEL_ROUNDS; r++) {
        uint64_t next_right = left ^ (feistel_round_value(right, g->feistel_keys[r]) & mask);
        left = right;
        right = next_right;
    }
    return (left << h) | right;
}

uint64_t zkp_sdr_feistel_permute(const zkp_sdr_graph *g, uint64_t index) {
    const uint64_t domain = g->nodes * ZKP_SDR_EXP_DEGREE;
    uint64_t u = feistel_encode(g, index);
    while (u >= domain) u = feistel_encode(g, u);
    return u;
}

void zkp_sdr_exp_parents(const zkp_sdr_graph *g, uint32_t node, uint32_t parents[8]) {
    for (uint32_t i = 0; i < ZKP_SDR_EXP_DEGREE; i++) {
        uint64_t permuted = zkp_sdr_feistel_permute(g, (uint64_t)node * ZKP_SDR_EXP_DEGREE + i);
        if (g->api == ZKP_FIL_API_V1_0) permuted = (uint32_t)permuted;
        parents[i] = (uint32_t)(permuted / ZKP_SDR_EXP_DEGREE);
    }
}

void zkp_sdr_parents_range(const zkp_sdr_graph *g, uint32_t first, uint32_t count, uint32_t *out) {
    for (uint32_t i = 0; i < count; i++, out += ZKP_SDR_DEGREE) {
        zkp_sdr_drg_parents(g, first + i, out);
        zkp_sdr_exp_parents(g, first + i, out + ZKP_SDR_DRG_DEGREE);
    }
}

void zkp_sdr_parent_cache_range(const zkp_sdr_graph *g, uint32_t first, uint32_t count,
                                uint8_t *out) {
    for (uint32_t i = 0; i < count; i++) {
        uint32_t p[ZKP_SDR_DEGREE];
        zkp_sdr_parents_range(g, first + i, 1, p);
        for (int j = 0; j < ZKP_SDR_DEGREE; j++, out += 4)
            for (int b = 0; b < 4; b++) out[b] = (uint8_t)(p[j] >> (8 * b));
    }
}

#define PARENT_CACHE_CHUNK_NODES 4096

typedef struct {
    const zkp_sdr_graph *g;
    uint8_t *out;
} parent_cache_job;

static void parent_cache_unit(void *ctx, unsigned tid, size_t unit) {
    (void)tid;
    const parent_cache_job *job = ctx;
    uint64_t first = (uint64_t)unit * PARENT_CACHE_CHUNK_NODES;
    uint64_t count = job->g->nodes - first;
    if (count > PARENT_CACHE_CHUNK_NODES) count = PARENT_CACHE_CHUNK_NODES;
    zkp_sdr_parent_cache_range(job->g, (uint32_t)first, (uint32_t)count,
                               job->out + first * ZKP_SDR_DEGREE * 4);
}

void zkp_sdr_parent_cache_mt(const zkp_sdr_graph *g, unsigned nthreads, uint8_t *out) {
    parent_cache_job job = {g, out};
    size_t chunks = (size_t)((g->nodes + PARENT_CACHE_CHUNK_NODES - 1) / PARENT_CACHE_CHUNK_NODES);
    zkp_parallel_for(nthreads ? nthreads : 1, chunks, parent_cache_unit, &job);
}
