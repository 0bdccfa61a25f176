/* SDR labelling: the label of every node of every layer, as rust-fil-proofs
 * storage-proofs-porep stacked/vanilla/create_label/single.rs computes it.
 *
 * The label of node v in layer l (1-based) is the trimmed SHA-256 of
 *     replica_id (32) ‖ l as u32 BE ‖ v as u64 BE ‖ 20 zero bytes
 *     ‖ 37 parent labels of 32 bytes,
 * where the 37 labels cycle through the node's parents: in layer 1 its six
 * DRG parents (labels of layer 1 itself), six times, then the first again;
 * in layers >= 2 its six DRG parents (this layer) and eight expander
 * parents (layer l − 1), twice, then the first nine. Node 0 hashes the
 * 64-byte header alone. A layer is therefore sequential in v; the message
 * is 1,248 bytes, 20 compressions with its padding, laid out here directly
 * so each label is one zkp_sha256_blocks call.
 *
 * Labels are canonical Fr encodings (LE, top two bits clear). No function
 * allocates or fails; sizes are the caller's to get right (stated below). */
#ifndef ZKP_FILECOIN_SDR_LABELS_H
#define ZKP_FILECOIN_SDR_LABELS_H

#include <stddef.h>
#include <stdint.h>

#include "filecoin/sdr_graph.h"

/* The label of node in layer from its parents' labels: parent_labels[j] is
 * the 32-byte label of parent j in the order of zkp_sdr_parents_range (6
 * DRG then 8 expander). n_parents is 6 in layer 1 and 14 above it; neither
 * is read for node 0. */
void zkp_sdr_label(uint8_t out[32], const uint8_t replica_id[32], uint32_t layer, uint64_t node,
                   const uint8_t *const *parent_labels, unsigned n_parents);

/* Labels of a whole layer into out (g->nodes × 32 bytes). parents holds
 * the graph's 14 parents per node for every node (zkp_sdr_parents_range
 * over [0, nodes)); prev is layer − 1's labels (g->nodes × 32 bytes) when
 * layer >= 2 and unused (may be NULL) when layer is 1. out must not overlap
 * prev. */
void zkp_sdr_label_layer(uint8_t *out, const zkp_sdr_graph *g, const uint32_t *parents,
                         const uint8_t replica_id[32], uint32_t layer, const uint8_t *prev);

#endif
