/* Filecoin SDR: porep ids, the parent graph against
 * the digests rust-fil-proofs publishes in
 * storage-proofs-porep/parent_cache.json (each cache computed here, and
 * found in the table by the cache id rust-fil-proofs derives from the
 * graph), labels against stacked_vanilla.rs
 * test_stacked_porep_generate_labels, and the challenge rules: interactive
 * and NI by hand, synthetic against rust-fil-proofs'
 * test_synth_challenges_against_hardcoded, and all three on the v16 seal
 * regression records against an independent Python derivation
 * (tests/fixtures/filecoin/gen_record_challenges.py). */
#include <stdio.h>
#include <stdlib.h>

#include "filecoin/porep.h"
#include "filecoin/public_inputs.h"
#include "filecoin/sdr_graph.h"
#include "filecoin/sdr_labels.h"
#include "hash/blake2b.h"
#include "hash/chacha.h"
#include "hash/sha256.h"
#include "test.h"
#include "test_support.h"
#include "util/fileio.h"

/* rust-fil-proofs 87348a7 storage-proofs-porep/parent_cache.json: cache id
 * (the hex after "v28-sdr-parent-"), sector size and SHA-256 of the file. */
static const struct {
    const char *id;
    uint64_t sector_bytes;
    const char *digest;
} parent_cache_json[] = {
    {"21981246c370f9d76c7a77ab273d94bde0ceb4e938292334960bce05585dc117", 34359738368ULL,
     "93deeac5e3052b6927467d4b2641bb782f05491de18d510147c93eeedd8672da"},
    {"2aa9c77c3e58259481351cc4be2079cc71e1c9af39700866545c043bfa30fb42", 536870912ULL,
     "3adcc092423aa76d6a7184016893406da44dd974b219a89cd3ece25e4e3018f5"},
    {"3f0eef38bb48af1f48ad65e14eb85b4ebfc167cec18cd81764f6d998836c9899", 2048ULL,
     "3da49221e2ed55371b86d0bf3d6526fcf128af61bed904f966428db1b531750d"},
    {"4905486b7af19558ac3649bc6261411858b6add534438878c4ee3b29d8b9de0b", 68719476736ULL,
     "2698b74eb2606b55b98d8b095e18b6320b47f46e00075956d48640ccd1641b03"},
    {"494d91dc80f2df5272c4b9e129bc7ade9405225993af9fe34e6542a39a47554b", 2048ULL,
     "840057702eea7652cf97e04306c30fe57174714d90de156a25eddd6075c25b97"},
    {"5eed212119fd91aa6220a27f31a8966444a9381842bceb3a1ea61525bd47a5b5", 8388608ULL,
     "03cd13565ded97c240a5f52e54295ad127bd0461b57904cb3a4d79b097bbecab"},
    {"7ba215a1d2345774ab90b8cb1158d296e409d6068819d7b8c7baf0b25d63dc34", 536870912ULL,
     "b5877d1963793efebc261fd8fde4dd6bc59e6b5c7abf52617a4ee023b8dc173a"},
    {"8a99e8d6b6be7ab87a56b632e6739ff201c23ea14e99737c74690f0e265574d6", 68719476736ULL,
     "2778a732ad46a7dc18e0564dfdf59fd321dcde74ab476fd6d3c4e6735d7cd89c"},
    {"dcdabb0fbe4364bf0ac28b6a18c66de246409fa1a9020a00f33fb3e3053da6dc", 8388608ULL,
     "a76604f2f59f2744c7151653bbb1d8596b6b57d295e6fa6c1f0c41d725b502ce"},
    {"e1fa5d5b811ddbd118be3412c4a8c329156b8b8acc72632bca459455b5a05a13", 34359738368ULL,
     "3c4f9841fcc75aed8c695800e58d08480629f25af3a2aefd81904181d75cc0b6"},
};

static void make_graph(zkp_sdr_graph *g, uint32_t proof_id) {
    const zkp_fil_seal_proof *p = zkp_fil_seal_proof_by_id(proof_id);
    ASSERT(p != NULL);
    uint8_t porep_id[32];
    zkp_fil_porep_id(porep_id, p->id);
    ASSERT_OK(zkp_sdr_graph_init(g, p->nodes, porep_id, p->api, NULL));
}

/* The cache id of cache.rs cache_path: hex SHA-256 of the hasher's name,
 * the graph's identifier string, the four Feistel keys (u64 LE) and the
 * node count (u32 LE). */
static void parent_cache_id(char hex[65], const zkp_sdr_graph *g) {
    char ident[256];
    int n = snprintf(ident, sizeof ident,
                     "stacked_graph::StackedGraph{expansion_degree: 8 base_graph: "
                     "drgraph::BucketGraph{size: %llu; degree: 6; hasher: poseidon_hasher} }",
                     (unsigned long long)g->nodes);
    ASSERT(n > 0 && (size_t)n < sizeof ident);
    zkp_sha256_ctx ctx;
    zkp_sha256_init(&ctx);
    zkp_sha256_update(&ctx, "poseidon_hasher", 15);
    zkp_sha256_update(&ctx, ident, (size_t)n);
    for (int k = 0; k < 4; k++) {
        uint8_t le[8];
        for (int b = 0; b < 8; b++) le[b] = (uint8_t)(g->feistel_keys[k] >> (8 * b));
        zkp_sha256_update(&ctx, le, 8);
    }
    uint8_t entries[4];
    for (int b = 0; b < 4; b++) entries[b] = (uint8_t)((uint32_t)g->nodes >> (8 * b));
    zkp_sha256_update(&ctx, entries, 4);
    uint8_t digest[32];
    zkp_sha256_final(&ctx, digest);
    test_hex(hex, digest, 32);
}

/* Builds the whole cache of registered proof proof_id, finds the
 * published entry by cache id and compares the file digest. */
static void check_parent_cache(uint32_t proof_id, unsigned nthreads) {
    zkp_sdr_graph g;
    make_graph(&g, proof_id);
    char id[65];
    parent_cache_id(id, &g);
    size_t found = SIZE_MAX;
    for (size_t i = 0; i < sizeof parent_cache_json / sizeof parent_cache_json[0]; i++)
        if (strcmp(parent_cache_json[i].id, id) == 0) found = i;
    ASSERT_MSG(found != SIZE_MAX, "proof %u: cache id %s is not in parent_cache.json", proof_id,
               id);
    ASSERT_EQ_U64(parent_cache_json[found].sector_bytes, g.nodes * ZKP_FIL_NODE_BYTES);
    size_t bytes = (size_t)g.nodes * ZKP_SDR_DEGREE * 4;
    uint8_t *cache = malloc(bytes);
    ASSERT(cache != NULL);
    test_defer(free, cache);
    zkp_sdr_parent_cache_mt(&g, nthreads, cache);
    uint8_t got[32], want[32];
    zkp_sha256(got, cache, bytes);
    test_unhex(want, 32, parent_cache_json[found].digest);
    ASSERT_MEM_EQ(got, want, 32);
}

TEST_CASE(sdr_porep_id_and_graph_bounds) {
    /* porep_id: the id as u64 LE, the nonce 0 as u64 LE, 16 zero bytes. */
    uint8_t porep_id[32], want[32] = {0};
    zkp_fil_porep_id(porep_id, 0x0102030405060708ULL);
    for (int b = 0; b < 8; b++) want[b] = (uint8_t)(8 - b);
    ASSERT_MEM_EQ(porep_id, want, 32);
    zkp_sdr_graph g;
    zkp_diag d;
    ASSERT_EQ_STATUS(zkp_sdr_graph_init(&g, 1, porep_id, ZKP_FIL_API_V1_1, &d),
                     ZKPIPE_ERR_OUT_OF_RANGE);
    ASSERT(strstr(d.msg, "1 nodes") != NULL);
    ASSERT_EQ_STATUS(zkp_sdr_graph_init(&g, (1ULL << 32) + 1, porep_id, ZKP_FIL_API_V1_1, &d),
                     ZKPIPE_ERR_OUT_OF_RANGE);
    /* The largest graph, 64 GiB: 2^31 nodes, a Feistel domain of 2^34 = 4^17. */
    ASSERT_OK(zkp_sdr_graph_init(&g, 1ULL << 31, porep_id, ZKP_FIL_API_V1_1, &d));
    ASSERT_EQ_U64(g.feistel_half_bits, 17);
}

TEST_CASE(sdr_parent_cache_2kib_v1) { check_parent_cache(0, 1); }
TEST_CASE(sdr_parent_cache_2kib_v1_1) { check_parent_cache(5, 1); }

/* The 8 MiB graphs (2^18 nodes, 14 MiB of cache each) take seconds of CPU,
 * not milliseconds: they run when ZKPIPE_TEST_SLOW is set, on four threads
 * (64 chunks, so the threaded fill is what they check); bench/ times the
 * per-node work. */
static void require_slow(void) {
    const char *s = getenv("ZKPIPE_TEST_SLOW");
    if (s == NULL || s[0] == '\0' || strcmp(s, "0") == 0)
        test_skip("8 MiB parent cache: set ZKPIPE_TEST_SLOW=1 to run it");
}
TEST_CASE(sdr_parent_cache_8mib_v1_slow) {
    require_slow();
    check_parent_cache(1, 4);
}
TEST_CASE(sdr_parent_cache_8mib_v1_1_slow) {
    require_slow();
    check_parent_cache(6, 4);
}

TEST_CASE(sdr_parent_cache_threads_agree) {
    /* Two chunks of 4096 nodes, the second partial, filled on three
     * threads: the nodes around the chunk boundary and the ends, and a
     * random sample, hold what the one-node call gives. */
    uint8_t porep_id[32];
    zkp_fil_porep_id(porep_id, 5);
    zkp_sdr_graph g;
    const uint64_t nodes = 4096 + 7;
    ASSERT_OK(zkp_sdr_graph_init(&g, nodes, porep_id, ZKP_FIL_API_V1_1, NULL));
    size_t bytes = (size_t)nodes * ZKP_SDR_DEGREE * 4;
    uint8_t *cache = malloc(bytes);
    ASSERT(cache != NULL);
    test_defer(free, cache);
    memset(cache, 0xa5, bytes);
    zkp_sdr_parent_cache_mt(&g, 3, cache);
    for (unsigned k = 0; k < 64; k++) {
        uint32_t v = k < 8    ? k
                     : k < 16 ? 4096 - 4 + (k - 8)
                     : k < 24 ? (uint32_t)nodes - 8 + (k - 16)
                              : (uint32_t)(test_rng_u64() % nodes);
        uint8_t want[ZKP_SDR_DEGREE * 4];
        zkp_sdr_parent_cache_range(&g, v, 1, want);
        ASSERT_MSG(memcmp(cache + (size_t)v * sizeof want, want, sizeof want) == 0,
                   "node %u of the threaded cache", v);
    }
}

TEST_CASE(sdr_graph_shape) {
    /* Properties every version keeps: DRG parents precede the node (so a
     * layer can be labelled in order), the predecessor sits where the
     * version puts it, expander parents lie inside the graph, and the
     * Feistel permutation is a bijection of its domain. */
    for (uint32_t proof_id = 0; proof_id <= 5; proof_id += 5) {
        zkp_sdr_graph g;
        make_graph(&g, proof_id);
        ASSERT_EQ_U64(g.nodes, 64);
        for (uint32_t v = 0; v < g.nodes; v++) {
            uint32_t p[ZKP_SDR_DEGREE];
            zkp_sdr_parents_range(&g, v, 1, p);
            for (int j = 0; j < ZKP_SDR_DRG_DEGREE; j++) ASSERT(v < 2 ? p[j] == 0 : p[j] < v);
            if (v >= 2) ASSERT_EQ_U64(p[g.api == ZKP_FIL_API_V1_0 ? 5 : 0], v - 1);
            for (int j = ZKP_SDR_DRG_DEGREE; j < ZKP_SDR_DEGREE; j++) ASSERT(p[j] < g.nodes);
        }
        uint8_t seen[512] = {0};
        for (uint64_t i = 0; i < 512; i++) {
            uint64_t u = zkp_sdr_feistel_permute(&g, i);
            ASSERT(u < 512);
            ASSERT_MSG(!seen[u], "permute hits %llu twice", (unsigned long long)u);
            seen[u] = 1;
        }
    }
}

/* stacked_vanilla.rs test_stacked_porep_generate_labels: replica_id [9; 32],
 * 11 layers; the last label of the last layer, as four u64 LE limbs of Fr. */
static void check_labels(uint64_t nodes, uint8_t porep_byte, zkp_fil_api_version api,
                         const uint64_t want_limbs[4]) {
    uint8_t porep_id[32], replica_id[32];
    memset(porep_id, porep_byte, 32);
    memset(replica_id, 9, 32);
    zkp_sdr_graph g;
    ASSERT_OK(zkp_sdr_graph_init(&g, nodes, porep_id, api, NULL));
    uint32_t *parents = malloc((size_t)nodes * ZKP_SDR_DEGREE * sizeof *parents);
    uint8_t *layers = malloc((size_t)nodes * 32 * 2);
    ASSERT(parents != NULL && layers != NULL);
    test_defer(free, parents);
    test_defer(free, layers);
    zkp_sdr_parents_range(&g, 0, (uint32_t)nodes, parents);
    uint8_t *cur = layers, *prev = layers + nodes * 32;
    for (uint32_t layer = 1; layer <= 11; layer++) {
        uint8_t *t = prev;
        prev = cur;
        cur = t;
        zkp_sdr_label_layer(cur, &g, parents, replica_id, layer, layer == 1 ? NULL : prev);
    }
    uint8_t want[32];
    for (int k = 0; k < 4; k++)
        for (int b = 0; b < 8; b++) want[8 * k + b] = (uint8_t)(want_limbs[k] >> (8 * b));
    ASSERT_MEM_EQ(cur + (nodes - 1) * 32, want, 32);
    /* The single-node form agrees with the layer loop on the last node. */
    uint32_t *p = parents + (nodes - 1) * ZKP_SDR_DEGREE;
    const uint8_t *src[ZKP_SDR_DEGREE];
    for (int j = 0; j < ZKP_SDR_DEGREE; j++) src[j] = (j < 6 ? cur : prev) + 32 * (size_t)p[j];
    uint8_t one[32];
    zkp_sdr_label(one, replica_id, 11, nodes - 1, src, ZKP_SDR_DEGREE);
    ASSERT_MEM_EQ(one, want, 32);
}

static const uint64_t labels_v1_0_2k[4] = {0xd3faa96b9a0fba04ULL, 0xea81a283d106485eULL,
                                           0xe3d51b9afa5ac2b3ULL, 0x0462f4f4f1a68d37ULL};
static const uint64_t labels_v1_0_4k[4] = {0x7e191e52c4a8da86ULL, 0x5ae8a1c9e6fac148ULL,
                                           0xce239f3b88a894b8ULL, 0x234c00d1dc1d53beULL};
static const uint64_t labels_v1_1_2k[4] = {0xabb3f38bb70defcfULL, 0x777a2e4d7769119fULL,
                                           0x3448959d495490bcULL, 0x06021188c7a71cb5ULL};
static const uint64_t labels_v1_1_4k[4] = {0x22ab81cf68c4676dULL, 0x7a77a82fc7c9c189ULL,
                                           0xc6c03d32c1e42d23ULL, 0x0f777c18cc2c55bdULL};

/* "nodes_2k" and "nodes_4k" there are sector sizes in bytes (2^11, 2^12),
 * which the helper divides by the 32-byte node: 64 and 128 nodes. */
TEST_CASE(sdr_labels_v1_0_2kib) { check_labels(64, 0, ZKP_FIL_API_V1_0, labels_v1_0_2k); }
TEST_CASE(sdr_labels_v1_0_4kib) { check_labels(128, 0, ZKP_FIL_API_V1_0, labels_v1_0_4k); }
TEST_CASE(sdr_labels_v1_1_2kib) { check_labels(64, 123, ZKP_FIL_API_V1_1, labels_v1_1_2k); }
TEST_CASE(sdr_labels_v1_1_4kib) { check_labels(128, 123, ZKP_FIL_API_V1_1, labels_v1_1_4k); }
/* V1_2 labels the same graph as V1_1: the test expects the same values. */
TEST_CASE(sdr_labels_v1_2_2kib_and_4kib) {
    check_labels(64, 123, ZKP_FIL_API_V1_2, labels_v1_1_2k);
    check_labels(128, 123, ZKP_FIL_API_V1_2, labels_v1_1_4k);
}

TEST_CASE(sdr_interactive_challenges_rule) {
    uint8_t replica_id[32], seed[32];
    test_rng_bytes(replica_id, 32);
    test_rng_bytes(seed, 32);
    const uint64_t nodes = 64;
    /* Partition k of n challenges is the slice [n·k, n·(k+1)) of one
     * partition of n·K, and every challenge is in [1, nodes − 1]. */
    uint64_t all[40], part[10];
    zkp_fil_interactive_challenges(all, 40, nodes, replica_id, seed, 0);
    for (unsigned k = 0; k < 4; k++) {
        zkp_fil_interactive_challenges(part, 10, nodes, replica_id, seed, k);
        ASSERT_MEM_EQ(part, all + 10 * k, sizeof part);
    }
    for (int i = 0; i < 40; i++) ASSERT(all[i] >= 1 && all[i] < nodes);
    /* The rule by hand for one challenge: SHA-256(replica_id ‖ seed ‖ j LE),
     * read little-endian, mod (nodes − 1), plus 1. With nodes − 1 = 63 and
     * 2^8 ≡ 4 (mod 63), the byte sum Σ d_i·4^i mod 63 gives the residue. */
    uint8_t msg[68], digest[32];
    memcpy(msg, replica_id, 32);
    memcpy(msg + 32, seed, 32);
    const uint32_t j = 17;
    for (int b = 0; b < 4; b++) msg[64 + b] = (uint8_t)(j >> (8 * b));
    zkp_sha256(digest, msg, sizeof msg);
    uint64_t r = 0, w = 1;
    for (int i = 0; i < 32; i++, w = (w * 4) % 63) r = (r + digest[i] * w) % 63;
    ASSERT_EQ_U64(all[17], r + 1);
}

/* 1 + (the little-endian 256-bit reading of d) mod 63, the challenge of a
 * 2 KiB sector, by another route than porep.c's: 2^8 ≡ 4 (mod 63), so the
 * residue is Σ d_i·4^i mod 63. */
static uint64_t challenge_of_64_nodes(const uint8_t d[32]) {
    uint64_t r = 0, w = 1;
    for (int i = 0; i < 32; i++, w = (w * 4) % 63) r = (r + d[i] * w) % 63;
    return r + 1;
}

TEST_CASE(sdr_ni_challenges_rule) {
    uint8_t replica_id[32], comm_r[32], seed[32];
    test_rng_bytes(replica_id, 32);
    test_rng_bytes(comm_r, 32);
    test_rng_bytes(seed, 32);
    const uint64_t nodes = 64;
    /* Partition k is the slice [n·k, n·(k+1)) of one long partition: 13
     * partitions of 2, NI-PoRep's 2 KiB shape. */
    uint64_t all[26], part[2];
    zkp_fil_ni_challenges(all, 26, nodes, replica_id, comm_r, 0);
    for (unsigned k = 0; k < 13; k++) {
        zkp_fil_ni_challenges(part, 2, nodes, replica_id, comm_r, k);
        ASSERT_MEM_EQ(part, all + 2 * k, sizeof part);
    }
    /* The digest by hand: SHA-256(tag ‖ replica_id ‖ comm_r ‖ j as u32 LE),
     * the 36-byte tag spelled out. */
    static const char tag[] = "filecoin.io|PoRep|1|NonInteractive|1";
    ASSERT_EQ_U64(sizeof tag - 1, 36);
    uint8_t msg[36 + 64 + 4], digest[32];
    memcpy(msg, tag, 36);
    memcpy(msg + 36, replica_id, 32);
    memcpy(msg + 68, comm_r, 32);
    for (uint32_t j = 0; j < 26; j++) {
        for (int b = 0; b < 4; b++) msg[100 + b] = (uint8_t)(j >> (8 * b));
        zkp_sha256(digest, msg, sizeof msg);
        ASSERT_EQ_U64(all[j], challenge_of_64_nodes(digest));
    }
    /* The registered NI proofs draw 2 per partition over 13 partitions at
     * 2 KiB and 18 over 126 at 32 GiB: at least filecoin-proofs' minimum
     * of 26 and 2253 challenges. The seed plays no part. */
    const zkp_fil_seal_proof *ni2 = zkp_fil_seal_proof_by_id(15);
    const zkp_fil_seal_proof *ni32 = zkp_fil_seal_proof_by_id(18);
    ASSERT_EQ_U64(ni2->challenge_kind, ZKP_FIL_CHALLENGES_NON_INTERACTIVE);
    ASSERT_EQ_U64(ni2->partitions * ni2->challenges, 26);
    ASSERT_EQ_U64(ni32->partitions, 126);
    ASSERT(ni32->partitions * ni32->challenges >= 2253 &&
           (ni32->partitions - 1) * ni32->challenges < 2253);
    uint64_t via_proof[2];
    zkp_fil_porep_challenges(via_proof, ni2, replica_id, comm_r, NULL, 12);
    ASSERT_MEM_EQ(via_proof, all + 24, 2 * sizeof(uint64_t));
    /* Differs from the interactive rule on the same values. */
    uint64_t inter[26];
    zkp_fil_interactive_challenges(inter, 26, nodes, replica_id, comm_r, 0);
    ASSERT(memcmp(inter, all, sizeof all) != 0);
}

/* rust-fil-proofs 87348a7 storage-proofs-porep/src/stacked/vanilla/
 * challenges.rs, test_synth_challenges_against_hardcoded: 2^10 nodes,
 * replica_id = Fr 55, comm_r = Fr 101, 21 synthetic challenges, 10 porep
 * challenges selected with rand = [1; 32]. */
TEST_CASE(sdr_synthetic_challenges_match_rust_fil_proofs) {
    static const uint64_t synth_want[21] = {178, 297, 869, 211, 875, 477, 94,  781, 124, 332, 856,
                                            801, 176, 692, 429, 691, 290, 204, 986, 210, 973};
    static const uint64_t porep_want[10] = {176, 781, 801, 986, 290, 211, 692, 856, 986, 332};
    uint8_t replica_id[32] = {55}, comm_r[32] = {101}, rand[32];
    memset(rand, 1, 32);
    zkp_fil_synth s;
    zkp_fil_synth_init_count(&s, 1 << 10, 21, replica_id, comm_r);
    for (uint32_t i = 21; i-- > 0;) ASSERT_EQ_U64(zkp_fil_synth_challenge(&s, i), synth_want[i]);
    uint64_t got[10];
    zkp_fil_synth_challenges(got, 10, &s, replica_id, rand, 0);
    ASSERT_MEM_EQ(got, porep_want, sizeof got);
    uint32_t idx[10];
    zkp_fil_synth_select(idx, 10, &s, replica_id, rand, 0);
    for (int t = 0; t < 10; t++) ASSERT_EQ_U64(synth_want[idx[t]], porep_want[t]);
    /* Another comm_r, another set. */
    comm_r[0] = 102;
    zkp_fil_synth_init_count(&s, 1 << 10, 21, replica_id, comm_r);
    int same = 0;
    for (uint32_t i = 0; i < 21; i++) same += zkp_fil_synth_challenge(&s, i) == synth_want[i];
    ASSERT(same < 5);
}

/* The 32 GiB shape of rust-fil-proofs' test_synth_challenges_32gib: the
 * default set (2^18 of 2^30 nodes), and ten partitions of 18 that are the
 * slices of one selection of 180; every challenge in [1, nodes − 1]. */
TEST_CASE(sdr_synthetic_partitions_are_slices_of_one_selection) {
    uint8_t replica_id[32], comm_r[32], rand[32];
    test_rng_bytes(replica_id, 32);
    test_rng_bytes(comm_r, 32);
    memset(rand, 1, 32);
    replica_id[31] &= 0x3f;
    comm_r[31] &= 0x3f;
    const uint64_t nodes = 1ULL << 30;
    zkp_fil_synth s;
    zkp_fil_synth_init(&s, nodes, replica_id, comm_r);
    ASSERT_EQ_U64(s.count, 1u << 18);
    zkp_fil_synth small;
    zkp_fil_synth_init(&small, 64, replica_id, comm_r);
    ASSERT_EQ_U64(small.count, 64);
    uint64_t all[180], part[18];
    zkp_fil_synth_challenges(all, 180, &s, replica_id, rand, 0);
    for (unsigned k = 0; k < 10; k++) {
        zkp_fil_synth_challenges(part, 18, &s, replica_id, rand, k);
        ASSERT_MEM_EQ(part, all + 18 * k, sizeof part);
    }
    for (int i = 0; i < 180; i++) ASSERT(all[i] >= 1 && all[i] < nodes);
    /* The registered synthetic proof of 32 GiB draws the same. */
    const zkp_fil_seal_proof *p = zkp_fil_seal_proof_by_id(13);
    ASSERT_EQ_U64(p->challenge_kind, ZKP_FIL_CHALLENGES_SYNTHETIC);
    zkp_fil_porep_challenges(part, p, replica_id, comm_r, rand, 9);
    ASSERT_MEM_EQ(part, all + 162, sizeof part);
}

/* Synthetic challenge i of a 2 KiB sector from the primitives directly:
 * the key by the one-shot BLAKE2b, block i / 2 by the bare ChaCha20 block
 * function (RFC 8439 layout: counter in word 12, nonce in 13..15). */
static uint64_t synth_by_hand(const uint8_t replica_id[32], const uint8_t comm_r[32], uint32_t i) {
    static const char tag[] = "filecoin.io|PoRep|1|Synthetic|1|Generation";
    uint8_t msg[64], key[32];
    memcpy(msg, replica_id, 32);
    memcpy(msg + 32, comm_r, 32);
    zkp_blake2b(key, 32, tag, sizeof tag - 1, msg, 64);
    uint32_t kw[8], out[16];
    zkp_chacha_key_from_bytes(kw, key);
    /* "synth-porep\0" as three little-endian words. */
    const uint32_t input[4] = {i / 2, 0x746e7973, 0x6f702d68, 0x00706572};
    zkp_chacha_block(out, kw, input, 20);
    uint8_t bytes[32];
    for (int b = 0; b < 32; b++) bytes[b] = (uint8_t)(out[8 * (i % 2) + b / 4] >> (8 * (b % 4)));
    return challenge_of_64_nodes(bytes);
}

#define RECORDS "fixtures/filecoin/seal_regression_records-v16-2KiB"

static uint64_t json_u64_(const zkp_json *v) {
    ASSERT(v != NULL && zkp_json_type_of(v) == ZKP_JSON_NUMBER);
    return strtoull(zkp_json_number_text(v), NULL, 10);
}

static void json_bytes32_(uint8_t out[32], const zkp_json *arr) {
    ASSERT(arr != NULL && zkp_json_len(arr) == 32);
    for (size_t i = 0; i < 32; i++) {
        uint64_t v = json_u64_(zkp_json_at(arr, i));
        ASSERT(v <= 255);
        out[i] = (uint8_t)v;
    }
}

/* Each 2 KiB v16 seal regression record: replica_id from its values, its
 * challenges by its kind (interactive, or synthetic for the records with
 * the SyntheticPoRep feature), and the 13 partitions of NI challenges its
 * replica_id and comm_r would give, against the Python derivation; the
 * interactive and synthetic ones also by hand here. */
TEST_CASE(sdr_regression_records_replica_id_and_challenges) {
    char *text = NULL;
    size_t len = 0;
    zkp_diag d = {{0}};
    ASSERT_MSG(zkp_read_file(test_data_path(RECORDS ".jsonl"), 1 << 20, &text, &len, &d) ==
                   ZKPIPE_OK,
               "%s", d.msg);
    test_defer(free, text);
    zkp_json *derived = test_load_json(RECORDS ".derived.json");
    size_t n = 0, synthetic = 0;
    for (char *line = text; *line; n++) {
        char *end = strchr(line, '\n');
        size_t line_len = end ? (size_t)(end - line) : strlen(line);
        zkp_json *rec = NULL;
        ASSERT_OK(zkp_json_parse(&rec, line, line_len, NULL));
        const zkp_json *want = zkp_json_at(derived, n);
        ASSERT_MSG(want != NULL, "record %zu has no derived answers", n);
        const zkp_json *cfg = zkp_json_get(rec, "porep_config");
        uint8_t prover_id[32], ticket[32], comm_d[32], comm_r[32], seed[32], porep_id[32];
        json_bytes32_(prover_id, zkp_json_get(rec, "prover_id"));
        json_bytes32_(ticket, zkp_json_get(rec, "ticket"));
        json_bytes32_(comm_d, zkp_json_get(rec, "comm_d"));
        json_bytes32_(comm_r, zkp_json_get(rec, "comm_r"));
        json_bytes32_(seed, zkp_json_get(rec, "seed"));
        json_bytes32_(porep_id, zkp_json_get(cfg, "porep_id"));
        ASSERT_EQ_U64(json_u64_(zkp_json_get(cfg, "partitions")), 1);
        /* The records' porep ids are registered proofs' (0: V1, 5: V1_1). */
        uint8_t id_again[32];
        zkp_fil_porep_id(id_again, porep_id[0]);
        ASSERT_MEM_EQ(porep_id, id_again, 32);
        uint64_t sector_id = json_u64_(zkp_json_get(rec, "sector_id"));
        uint8_t replica_id[32], want_id[32];
        zkp_fil_replica_id(replica_id, prover_id, sector_id, ticket, comm_d, porep_id);
        test_unhex(want_id, 32, zkp_json_string(zkp_json_get(want, "replica_id"), NULL));
        ASSERT_MEM_EQ(replica_id, want_id, 32);

        const zkp_json *features = zkp_json_get(cfg, "api_features");
        int is_synth = zkp_json_len(features) == 1;
        ASSERT_STR_EQ(zkp_json_string(zkp_json_get(want, "kind"), NULL),
                      is_synth ? "synthetic" : "interactive");
        uint64_t got[2];
        if (is_synth) {
            synthetic++;
            zkp_fil_synth s;
            zkp_fil_synth_init(&s, 64, replica_id, comm_r);
            ASSERT_EQ_U64(s.count, 64);
            zkp_fil_synth_challenges(got, 2, &s, replica_id, seed, 0);
            uint32_t idx[2];
            zkp_fil_synth_select(idx, 2, &s, replica_id, seed, 0);
            const zkp_json *widx = zkp_json_get(want, "synthetic_indexes");
            for (int t = 0; t < 2; t++) {
                ASSERT_EQ_U64(idx[t], json_u64_(zkp_json_at(widx, (size_t)t)));
                ASSERT_EQ_U64(got[t], synth_by_hand(replica_id, comm_r, idx[t]));
            }
        } else {
            zkp_fil_interactive_challenges(got, 2, 64, replica_id, seed, 0);
            uint8_t msg[68], digest[32];
            memcpy(msg, replica_id, 32);
            memcpy(msg + 32, seed, 32);
            for (uint32_t j = 0; j < 2; j++) {
                for (int b = 0; b < 4; b++) msg[64 + b] = (uint8_t)(j >> (8 * b));
                zkp_sha256(digest, msg, sizeof msg);
                ASSERT_EQ_U64(got[j], challenge_of_64_nodes(digest));
            }
        }
        const zkp_json *wch = zkp_json_get(want, "challenges");
        for (int t = 0; t < 2; t++) {
            ASSERT_EQ_U64(got[t], json_u64_(zkp_json_at(wch, (size_t)t)));
            ASSERT(got[t] >= 1 && got[t] < 64);
        }
        const zkp_json *wni = zkp_json_get(want, "ni_challenges");
        ASSERT_EQ_U64(zkp_json_len(wni), 13);
        for (unsigned k = 0; k < 13; k++) {
            uint64_t ni[2];
            zkp_fil_ni_challenges(ni, 2, 64, replica_id, comm_r, k);
            for (int t = 0; t < 2; t++)
                ASSERT_EQ_U64(ni[t], json_u64_(zkp_json_at(zkp_json_at(wni, k), (size_t)t)));
        }
        zkp_json_free(rec);
        line += line_len + (end != NULL);
    }
    ASSERT_EQ_U64(n, 8);
    ASSERT_EQ_U64(zkp_json_len(derived), 8);
    ASSERT_EQ_U64(synthetic, 2);
    zkp_json_free(derived);
}

/* The public inputs of each v16 record's partition: 39 values (40 with
 * ONE, FACTS.md 2.2); replica_id, comm_d and comm_r as the record has them;
 * per challenge the challenge (as the Python derivation drew it) and its
 * 14 parents as the parent cache lays them out (the cache whose digest the
 * parent-cache cases check against Filecoin's), the challenge three times
 * more. */
TEST_CASE(sdr_regression_records_public_inputs) {
    char *text = NULL;
    size_t len = 0;
    zkp_diag d = {{0}};
    ASSERT_MSG(zkp_read_file(test_data_path(RECORDS ".jsonl"), 1 << 20, &text, &len, &d) ==
                   ZKPIPE_OK,
               "%s", d.msg);
    test_defer(free, text);
    zkp_json *derived = test_load_json(RECORDS ".derived.json");
    size_t n = 0;
    for (char *line = text; *line; n++) {
        char *end = strchr(line, '\n');
        size_t line_len = end ? (size_t)(end - line) : strlen(line);
        zkp_json *rec = NULL;
        ASSERT_OK(zkp_json_parse(&rec, line, line_len, NULL));
        const zkp_json *want = zkp_json_at(derived, n);
        const zkp_json *cfg = zkp_json_get(rec, "porep_config");
        uint8_t comm_d[32], comm_r[32], seed[32], porep_id[32], replica_id[32];
        json_bytes32_(comm_d, zkp_json_get(rec, "comm_d"));
        json_bytes32_(comm_r, zkp_json_get(rec, "comm_r"));
        json_bytes32_(seed, zkp_json_get(rec, "seed"));
        json_bytes32_(porep_id, zkp_json_get(cfg, "porep_id"));
        test_unhex(replica_id, 32, zkp_json_string(zkp_json_get(want, "replica_id"), NULL));
        /* The rule: the porep id's registered proof, or its synthetic twin (the
         * records seal their synthetic sectors under V1_1's porep id). */
        int is_synth = zkp_json_len(zkp_json_get(cfg, "api_features")) == 1;
        const zkp_fil_seal_proof *p = zkp_fil_seal_proof_by_id(porep_id[0] + (is_synth ? 5u : 0u));
        ASSERT(p != NULL && p->nodes == 64 && p->challenges == 2);
        size_t count = zkp_fil_porep_public_input_count(p);
        ASSERT_EQ_U64(count + 1, 40);
        uint64_t in[40 * 4];
        ASSERT_OK(zkp_fil_porep_public_inputs(in, p, replica_id, comm_d, comm_r, seed, porep_id, 0,
                                              &d));
        const uint8_t *fixed[3] = {replica_id, comm_d, comm_r};
        for (int f = 0; f < 3; f++)
            for (int i = 0; i < 4; i++) {
                uint64_t limb = 0;
                for (int b = 7; b >= 0; b--) limb = limb << 8 | fixed[f][8 * i + b];
                ASSERT_EQ_U64(in[4 * f + i], limb);
            }
        zkp_sdr_graph g;
        ASSERT_OK(zkp_sdr_graph_init(&g, 64, porep_id, p->api, &d));
        uint8_t cache[64 * 56];
        zkp_sdr_parent_cache_range(&g, 0, 64, cache);
        const zkp_json *wch = zkp_json_get(want, "challenges");
        for (size_t c = 0; c < 2; c++) {
            const uint64_t *v = in + 4 * (3 + ZKP_FIL_INPUTS_PER_CHALLENGE * c);
            uint64_t ch = json_u64_(zkp_json_at(wch, c));
            uint64_t expect[ZKP_FIL_INPUTS_PER_CHALLENGE];
            expect[0] = expect[15] = expect[16] = expect[17] = ch;
            for (int j = 0; j < 14; j++) {
                const uint8_t *q = cache + 56 * ch + 4 * j;
                expect[1 + j] = (uint64_t)q[0] | (uint64_t)q[1] << 8 | (uint64_t)q[2] << 16 |
                                (uint64_t)q[3] << 24;
            }
            for (int t = 0; t < ZKP_FIL_INPUTS_PER_CHALLENGE; t++) {
                ASSERT_EQ_U64(v[4 * t], expect[t]);
                ASSERT_EQ_U64(v[4 * t + 1] | v[4 * t + 2] | v[4 * t + 3], 0);
            }
        }
        zkp_json_free(rec);
        line += line_len + (end != NULL);
    }
    ASSERT_EQ_U64(n, 8);
    zkp_json_free(derived);
}

/* 4 + 18·C with ONE: 40 at the three small sizes, 328 at 32 and 64 GiB (the
 * count cuzk measured), for every kind of each; values that are not
 * scalars and partitions past the last are refused. */
TEST_CASE(sdr_public_input_counts_and_refusals) {
    for (uint32_t id = 0; id < 20; id++) {
        const zkp_fil_seal_proof *p = zkp_fil_seal_proof_by_id(id);
        ASSERT(p != NULL);
        size_t want = p->sector_bytes >= ((uint64_t)32 << 30) ? 328 : 40;
        if (p->challenge_kind == ZKP_FIL_CHALLENGES_NON_INTERACTIVE)
            want = 4 + ZKP_FIL_INPUTS_PER_CHALLENGE * (size_t)p->challenges;
        ASSERT_EQ_U64(zkp_fil_porep_public_input_count(p) + 1, want);
    }
    const zkp_fil_seal_proof *p = zkp_fil_seal_proof_by_id(5); /* 2 KiB V1_1 */
    uint8_t ok[32] = {7}, big[32];
    memset(big, 0xff, sizeof big);
    uint64_t in[40 * 4];
    zkp_diag d = {{0}};
    uint8_t porep_id[32];
    zkp_fil_porep_id(porep_id, p->id);
    ASSERT_EQ_STATUS(zkp_fil_porep_public_inputs(in, p, ok, ok, big, ok, porep_id, 0, &d),
                     ZKPIPE_ERR_INVALID_ARGUMENT);
    ASSERT(strstr(d.msg, "comm_r") != NULL);
    ASSERT_EQ_STATUS(zkp_fil_porep_public_inputs(in, p, ok, ok, ok, ok, porep_id, 1, &d),
                     ZKPIPE_ERR_OUT_OF_RANGE);
    ASSERT_OK(zkp_fil_porep_public_inputs(in, p, ok, ok, ok, ok, porep_id, 0, &d));
}
