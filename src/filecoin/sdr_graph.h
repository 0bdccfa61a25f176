/* The SDR graph of Filecoin's stacked DRG PoRep: each node's 6 DRG parents
 * (BucketGraph, in the layer being labelled) and 8 expander parents
 * (Chung's construction through a Feistel permutation, in the layer below),
 * as rust-fil-proofs storage-proofs-core drgraph.rs, crypto/feistel.rs and
 * storage-proofs-porep stacked/vanilla/graph.rs define them.
 *
 * DRG. seed = SHA-256("Filecoin_DRSample" ‖ porep_id)[0..28]. Nodes 0 and
 * 1 have six parents 0. Node v ≥ 2 draws from ChaCha8 keyed with seed ‖ v
 * (u32 LE): for each of its five random parents, with meta = 5v and
 * buckets = ceil(log2(meta)), bucket = 1 + u64 mod buckets,
 * hi = min(meta, 2^bucket), lo = max(2, hi / 2), distance = lo + u64 mod
 * (hi − lo + 1), parent = (meta − distance) / 5, or v − 1 where that is v.
 * The sixth parent is v − 1: last (index 5) in V1_0, first (index 0, the
 * random ones at 1..5) in V1_1 and V1_2.
 *
 * Expander. keys = four u64 LE from SHA-256("Filecoin_Feistel" ‖ porep_id),
 * of which three rounds use the first three. The domain is 8·nodes, padded
 * to 4^h (h ≥ 1): an index splits into two h-bit halves (L, R) and each
 * round maps (L, R) to (R, L ⊕ (the first 8 bytes, big-endian, of
 * BLAKE2b-512(R as u64 BE ‖ key as u64 BE)) masked to h bits)); encoding
 * repeats until the value falls inside the domain (cycle walking).
 * Expander parent i of v is permute(8v + i) / 8; V1_0 truncates the permuted
 * value to u32 before dividing. That changes nothing while 8·nodes <= 2^32
 * (sectors up to 16 GiB); the V1_0 32 and 64 GiB graphs are the truncated
 * ones.
 *
 * Parent cache. The file rust-fil-proofs writes (and whose SHA-256
 * parent_cache.json lists) is, per node, the 14 parents as u32 LE: 6 DRG
 * then 8 expander. zkp_sdr_parents_range writes that layout.
 *
 * Cost and threads. The graph is a pure function of (nodes, porep_id,
 * version); every node's parents are independent of every other's, so a
 * caller may fill disjoint ranges on different threads, and
 * zkp_sdr_parent_cache_mt does that for a whole cache. Nothing allocates.
 * The expander dominates: about 50 BLAKE2b compressions per node (8
 * parents, 3 rounds, about 2 encodings each with cycle walking). */
#ifndef ZKP_FILECOIN_SDR_GRAPH_H
#define ZKP_FILECOIN_SDR_GRAPH_H

#include <stddef.h>
#include <stdint.h>

#include "filecoin/porep.h"
#include "util/diag.h"

#define ZKP_SDR_DRG_DEGREE 6
#define ZKP_SDR_EXP_DEGREE 8
#define ZKP_SDR_DEGREE 14
#define ZKP_SDR_FEISTEL_ROUNDS 3

typedef struct {
    uint64_t nodes;
    zkp_fil_api_version api;
    uint8_t drg_seed[28];
    uint64_t feistel_keys[4];
    unsigned feistel_half_bits; /* h: the domain is 4^h >= 8·nodes */
} zkp_sdr_graph;

/* Derives the seeds of the graph of `nodes` nodes for porep_id under api.
 * Errors: ZKPIPE_ERR_OUT_OF_RANGE unless 2 <= nodes <= 2^32 (parents are
 * u32, and the DRG's metagraph must stay exact in a double). */
ZKP_WARN_UNUSED zkpipe_status zkp_sdr_graph_init(zkp_sdr_graph *g, uint64_t nodes,
                                                 const uint8_t porep_id[32],
                                                 zkp_fil_api_version api, zkp_diag *diag);

/* The six DRG parents of node (< g->nodes), in the version's order. */
void zkp_sdr_drg_parents(const zkp_sdr_graph *g, uint32_t node, uint32_t parents[6]);

/* The eight expander parents of node (< g->nodes). */
void zkp_sdr_exp_parents(const zkp_sdr_graph *g, uint32_t node, uint32_t parents[8]);

/* The Feistel permutation of [0, 8·nodes) (exposed for tests). */
uint64_t zkp_sdr_feistel_permute(const zkp_sdr_graph *g, uint64_t index);

/* Parents of nodes first .. first+count−1 (inside the graph), 14 per node,
 * DRG then expander: out[14·i + j] is parent j of node first + i. */
void zkp_sdr_parents_range(const zkp_sdr_graph *g, uint32_t first, uint32_t count, uint32_t *out);

/* The parent cache of the whole graph (zkp_sdr_parent_cache_range over
 * [0, nodes), g->nodes × 56 bytes) on up to nthreads threads
 * (util/parallel.h), in chunks of 4096 nodes. The bytes do not depend on
 * nthreads. */
void zkp_sdr_parent_cache_mt(const zkp_sdr_graph *g, unsigned nthreads, uint8_t *out);

/* The parent-cache bytes of that range: the same values as u32 LE,
 * 56 bytes per node, the file layout of rust-fil-proofs. */
void zkp_sdr_parent_cache_range(const zkp_sdr_graph *g, uint32_t first, uint32_t count,
                                uint8_t *out);

#endif
