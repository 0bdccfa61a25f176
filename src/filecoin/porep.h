/* Filecoin PoRep identities: porep_id, replica_id and the interactive
 * challenges, as rust-fil-proofs and rust-filecoin-proofs-api define them.
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

#endif
