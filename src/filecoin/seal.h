/* Sealing of test sectors and the vanilla verifier of a C1.
 *
 * zkp_fil_seal runs the whole of SDR on a sector small enough to hold in
 * memory (2 KiB and 8 MiB; any registered size in principle, bounded by
 * memory: layers x sector bytes of labels plus the trees):
 *   comm_d      the root of tree_d, the binary trimmed-SHA-256 tree over the
 *               data's 32-byte nodes;
 *   replica_id  from prover_id, sector_id, ticket, comm_d and the porep id;
 *   labels      every layer (filecoin/sdr_labels.h);
 *   comm_c      the root of tree_c, whose leaf i is Poseidon(layers)(the
 *               labels of node i in every layer), a Poseidon octree in the
 *               sector's tree shape (base, sub, top);
 *   replica     node i = last layer's label i + data node i in Fr;
 *   comm_r_last the root of tree_r_last over the replica, in the same shape;
 *   comm_r      Poseidon(2)(comm_c, comm_r_last);
 * then draws the challenges by the registered proof's rule (interactive,
 * synthetic or NI, filecoin/porep.h) and writes each one's vanilla proof
 * into a C1 (filecoin/c1.h) that Filecoin's C2 would accept. (For a
 * synthetic proof Filecoin proves the whole synthetic set at precommit and
 * copies the selected proofs into the C1; proving only the selected ones
 * gives the same C1.)
 *
 * zkp_fil_c1_verify is the vanilla verifier: everything above that a C1
 * carries is checked against comm_d, comm_r, replica_id and seed, and the
 * first thing that does not hold is reported by the member's path. */
#ifndef ZKP_FILECOIN_SEAL_H
#define ZKP_FILECOIN_SEAL_H

#include <stddef.h>
#include <stdint.h>

#include "filecoin/c1.h"

/* The most challenges per partition any registered proof draws (18). */
#define ZKP_FIL_MAX_CHALLENGES 64

typedef struct {
    const zkp_fil_seal_proof *proof; /* any registered proof */
    uint8_t prover_id[32];
    uint64_t sector_id;
    uint8_t ticket[32];
    uint8_t seed[32];
} zkp_fil_seal_inputs;

/* Seals data[0 .. proof->sector_bytes) (each 32-byte node fr32-padded: its
 * top two bits clear). On output *c1 holds the C1 (free with
 * zkp_fil_c1_free) and replica, when not NULL, the sealed replica
 * (sector_bytes bytes). Working memory (labels, trees) comes from alloc
 * under cat and is freed before return.
 * Errors: ZKPIPE_ERR_INVALID_ARGUMENT (a node not fr32-padded, named),
 * ZKPIPE_ERR_NO_MEMORY. */
ZKP_WARN_UNUSED zkpipe_status zkp_fil_seal(zkp_fil_c1 *c1, uint8_t *replica,
                                          const zkp_fil_seal_inputs *in, const uint8_t *data,
                                          const zkp_allocator *alloc, zkp_mem_category cat,
                                          zkp_diag *diag);

/* A synthetic C1 for proof p, of any sector size: FOR BENCHMARKS AND
 * TESTS ONLY, never for the chain (no sector was sealed; its commitments
 * commit to nothing but random values). It satisfies the vanilla verifier
 * and so the circuit: replica_id, the challenge seed and the ticket are
 * drawn from seed; the challenges follow from them; every challenge's
 * parents get labels drawn from seed, every challenge its labels computed
 * from them and a random data node; the trees are sparse (each subtree
 * with nothing challenged below it is a tree of zero leaves), so a 32 GiB
 * C1 costs thousands of hashes, not billions. Same seed, same C1.
 * Interactive proofs only (ZKPIPE_ERR_UNSUPPORTED otherwise): synthetic and
 * NI challenges follow from comm_r, which the sparse trees fix only after
 * the challenges are chosen. Their circuits are the V1_1 proof's. */
ZKP_WARN_UNUSED zkpipe_status zkp_fil_c1_synthesize(zkp_fil_c1 *c1, const zkp_fil_seal_proof *p,
                                                   const uint8_t seed[32],
                                                   const zkp_allocator *alloc,
                                                   zkp_mem_category cat, zkp_diag *diag);

/* The vanilla verifier. ZKPIPE_OK when every challenge's proofs hold;
 * ZKPIPE_ERR_PROOF_INVALID with a message naming the first member that fails
 * ("vanilla_proofs[0][1].comm_d_proofs: the path leads to ..., not comm_d").
 * The challenges are drawn by the proof's rule: from seed (interactive),
 * comm_r and seed (synthetic) or comm_r alone (NI: the seed is not used). */
ZKP_WARN_UNUSED zkpipe_status zkp_fil_c1_verify(const zkp_fil_c1 *c1, zkp_diag *diag);

#endif
