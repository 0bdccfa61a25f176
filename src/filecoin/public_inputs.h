/* The public inputs of a PoRep partition's Groth16 proof, in the order the
 * StackedDRG circuit allocates them (storage-proofs-porep's
 * generate_public_inputs; FACTS.md 2.2), the constant ONE left out:
 *
 *   replica_id, comm_d, comm_r,
 *   then for each challenge c of the partition, 18 values:
 *     c                          comm_d's inclusion path of c
 *     6 DRG parents of c         tree_c's inclusion path of each parent's column
 *     8 expander parents of c    the same
 *     c                          c itself, packed from its 64 bits
 *     c                          tree_r_last's inclusion path of c
 *     c                          tree_c's inclusion path of c's column
 *
 * An inclusion path's input packs its index bits (the leaf's index, little
 * endian, log2(arity) bits per level) into one field element, so it equals
 * the leaf's index. The Merkle roots are not inputs. With ONE that makes
 * 4 + 18·C inputs: 40 for the 2 KiB, 8 MiB and 512 MiB proofs (C = 2) and
 * 328 for 32 and 64 GiB (C = 18). */
#ifndef ZKP_FILECOIN_PUBLIC_INPUTS_H
#define ZKP_FILECOIN_PUBLIC_INPUTS_H

#include <stddef.h>
#include <stdint.h>

#include "filecoin/registry.h"
#include "util/diag.h"

#define ZKP_FIL_INPUTS_PER_CHALLENGE 18

/* The number of inputs of one partition of p, ONE left out. */
size_t zkp_fil_porep_public_input_count(const zkp_fil_seal_proof *p);

/* The inputs of partition k (< p->partitions) of p, for the sector's
 * replica_id, comm_d and comm_r (32-byte little-endian field elements, as
 * in a C1), the seed (used by the interactive and synthetic rules) and the
 * porep_id the sector was sealed under, which names its graph (the
 * registered proof's own, zkp_fil_porep_id, for a sector sealed through
 * Filecoin's API; rust-fil-proofs' regression records use others):
 * out gets zkp_fil_porep_public_input_count(p) canonical BLS12-381 Fr
 * elements, four little-endian 64-bit limbs each. The challenges are drawn
 * by p's rule (porep.h), the parents from p's graph (sdr_graph.h).
 * ZKPIPE_ERR_INVALID_ARGUMENT, diag naming the value, when replica_id,
 * comm_d or comm_r is not below r; ZKPIPE_ERR_OUT_OF_RANGE for a partition
 * past p's. */
ZKP_WARN_UNUSED zkpipe_status zkp_fil_porep_public_inputs(uint64_t *out,
                                                          const zkp_fil_seal_proof *p,
                                                          const uint8_t replica_id[32],
                                                          const uint8_t comm_d[32],
                                                          const uint8_t comm_r[32],
                                                          const uint8_t seed[32],
                                                          const uint8_t porep_id[32],
                                                          unsigned partition_k, zkp_diag *diag);

#endif
