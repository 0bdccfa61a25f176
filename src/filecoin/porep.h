/* Filecoin PoRep identities: porep_id, replica_id and the challenges of the
 * three PoRep kinds (interactive, synthetic, non-interactive), as
 * rust-fil-proofs and rust-filecoin-proofs-api define them.
 * The registered proofs themselves (ids, sector shapes, API versions) are
 * in registry.h.
 *
 * Every function here is deterministic and public-data only; none
 * allocates. */
#ifndef ZKP_FILECOIN_POREP_H
#define ZKP_FILECOIN_POREP_H

#include <stddef.h>
#include <stdint.h>

#include "filecoin/registry.h"

#define ZKP_FIL_NODE_BYTES 32

/* porep_id = the registered proof's id as u64 LE ‖ nonce 0 as u64 LE ‖ 16
 * zero bytes, what rust-filecoin-proofs-api feeds the graph. */
void zkp_fil_porep_id(uint8_t out[32], uint64_t registered_proof_id);

/* replica_id = trimmed SHA-256(prover_id ‖ sector_id as u64 BE ‖ ticket ‖
 * comm_d ‖ porep_id): 136 bytes in, a canonical Fr encoding (LE) out. */
void zkp_fil_replica_id(uint8_t out[32], const uint8_t prover_id[32], uint64_t sector_id,
                        const uint8_t ticket[32], const uint8_t comm_d[32],
                        const uint8_t porep_id[32]);

/* The interactive PoRep challenges of partition k: for i < n, with
 * j = n·k + i as u32, challenge i is 1 + (the little-endian 256-bit reading
 * of SHA-256(replica_id ‖ seed ‖ j as u32 LE)) mod (sector_nodes − 1), so
 * node 0 is never challenged. On input sector_nodes is in 2..2^32 and
 * n·(k+1) fits in u32 (asserted). */
void zkp_fil_interactive_challenges(uint64_t *out, size_t n, uint64_t sector_nodes,
                                    const uint8_t replica_id[32], const uint8_t seed[32],
                                    unsigned partition_k);

/* The NI-PoRep challenges of partition k: as the interactive ones, with the
 * digest SHA-256("filecoin.io|PoRep|1|NonInteractive|1" ‖ replica_id ‖
 * comm_r ‖ j as u32 LE). No seed: the prover draws them alone, after comm_r
 * is fixed. Same preconditions. */
void zkp_fil_ni_challenges(uint64_t *out, size_t n, uint64_t sector_nodes,
                           const uint8_t replica_id[32], const uint8_t comm_r[32],
                           unsigned partition_k);

/* Synthetic PoRep. After comm_r is known the prover draws a fixed set of
 * synthetic challenges and proves them all (at precommit); the seed later
 * selects, per partition, which of those proofs make up the C1.
 *   - The set: min(sector_nodes, 2^18) challenges. Synthetic challenge i is
 *     1 + (bytes [32i, 32i + 32) of a ChaCha20 keystream read little-endian)
 *     mod (sector_nodes − 1), the stream (RFC 8439, counter from 0) keyed by
 *     BLAKE2b-256 with key "filecoin.io|PoRep|1|Synthetic|1|Generation" over
 *     replica_id ‖ comm_r, nonce "synth-porep\0".
 *   - The selection of partition k, n per partition: index t (t < n) is the
 *     u32 LE at bytes 4(n·k + t) of the stream keyed with
 *     "...|Synthetic|1|Selection" over replica_id ‖ seed, same nonce, mod the
 *     set's size. */
#define ZKP_FIL_SYNTH_MAX_CHALLENGES ((uint32_t)1 << 18)

typedef struct {
    uint8_t key[32]; /* of the generation stream */
    uint64_t sector_nodes;
    uint32_t count; /* synthetic challenges in the set */
} zkp_fil_synth;

/* The set of a sector: count = min(sector_nodes, 2^18), Filecoin's default.
 * zkp_fil_synth_init_count takes any count in 1..2^32 − 1 (rust-fil-proofs'
 * tests use small ones). sector_nodes as for the interactive challenges. */
void zkp_fil_synth_init(zkp_fil_synth *s, uint64_t sector_nodes, const uint8_t replica_id[32],
                        const uint8_t comm_r[32]);
void zkp_fil_synth_init_count(zkp_fil_synth *s, uint64_t sector_nodes, uint32_t count,
                              const uint8_t replica_id[32], const uint8_t comm_r[32]);

/* Synthetic challenge i (i < s->count, asserted). */
uint64_t zkp_fil_synth_challenge(const zkp_fil_synth *s, uint32_t i);

/* The indexes into the set that partition k selects: out[0 .. n). */
void zkp_fil_synth_select(uint32_t *out, size_t n, const zkp_fil_synth *s,
                          const uint8_t replica_id[32], const uint8_t seed[32],
                          unsigned partition_k);

/* The challenges of partition k: the synthetic challenges selected. */
void zkp_fil_synth_challenges(uint64_t *out, size_t n, const zkp_fil_synth *s,
                              const uint8_t replica_id[32], const uint8_t seed[32],
                              unsigned partition_k);

/* The p->challenges challenges of partition k (k < p->partitions), drawn by
 * p's rule: interactive from replica_id and seed, synthetic from replica_id,
 * comm_r and seed, NI from replica_id and comm_r. What a rule does not use
 * may be NULL. */
void zkp_fil_porep_challenges(uint64_t *out, const zkp_fil_seal_proof *p,
                              const uint8_t replica_id[32], const uint8_t comm_r[32],
                              const uint8_t seed[32], unsigned partition_k);

#endif
