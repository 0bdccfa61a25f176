/* Filecoin PoRep identities: registered proofs, porep_id, replica_id and the
 * interactive challenges, as rust-fil-proofs and rust-filecoin-proofs-api
 * define them.
 *
 * Registered proof ids (filecoin-proofs-api registry): for the five sector
 * sizes 2 KiB, 8 MiB, 512 MiB, 32 GiB, 64 GiB in that order, ids 0..4 are
 * StackedDrg…V1 (API version 1.0.0), 5..9 V1_1 (1.1.0), 10..14 V1_1 with
 * synthetic PoRep and 15..19 V1_2 non-interactive PoRep (both 1.2.0).
 *
 * Every function here is deterministic and public-data only; none
 * allocates. */
#ifndef ZKP_FILECOIN_POREP_H
#define ZKP_FILECOIN_POREP_H

#include <stddef.h>
#include <stdint.h>

#include "util/diag.h"

/* The API versions that change the SDR graph (sdr_graph.h) and the label
 * rules: V1_0 puts the DRG predecessor last and truncates the expander
 * permutation to u32; V1_1 and V1_2 put it first and do not. */
typedef enum {
    ZKP_FIL_API_V1_0 = 0,
    ZKP_FIL_API_V1_1 = 1,
    ZKP_FIL_API_V1_2 = 2,
} zkp_fil_api_version;

#define ZKP_FIL_REGISTERED_PROOFS 20
#define ZKP_FIL_NODE_BYTES 32

/* The API version and the sector size (bytes) of a registered proof id.
 * Errors: ZKPIPE_ERR_OUT_OF_RANGE for an id above 19. */
ZKP_WARN_UNUSED zkpipe_status zkp_fil_registered_proof(uint64_t id, zkp_fil_api_version *api,
                                                       uint64_t *sector_bytes, zkp_diag *diag);

/* porep_id = id as u64 LE ‖ nonce 0 as u64 LE ‖ 16 zero bytes. Defined for
 * any id (the value is what rust-filecoin-proofs-api feeds the graph). */
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
