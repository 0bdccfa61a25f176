/* SDR labelling (sdr_labels.h). */
#include "filecoin/sdr_labels.h"

#include <assert.h>
#include <string.h>

#include "hash/sha256.h"

#define LABEL_HEADER_BYTES 64
#define LABEL_PARENT_SLOTS 37
#define LABEL_MESSAGE_BYTES (LABEL_HEADER_BYTES + LABEL_PARENT_SLOTS * 32) /* 1248 */
#define LABEL_PADDED_BYTES 1280 /* 20 blocks: 1248 + 0x80 + zeros + 8-byte length */

static void label_header(uint8_t h[64], const uint8_t replica_id[32], uint32_t layer,
                         uint64_t node) {
    memcpy(h, replica_id, 32);
    for (int b = 0; b < 4; b++) h[32 + b] = (uint8_t)(layer >> (24 - 8 * b));
    for (int b = 0; b < 8; b++) h[36 + b] = (uint8_t)(node >> (56 - 8 * b));
    memset(h + 44, 0, 20);
}

/* The padding after a 1248-byte message: 0x80, zeros, then 9984 bits as a
 * big-endian u64 (0x2700). */
static void label_padding(uint8_t msg[LABEL_PADDED_BYTES]) {
    memset(msg + LABEL_MESSAGE_BYTES, 0, LABEL_PADDED_BYTES - LABEL_MESSAGE_BYTES);
    msg[LABEL_MESSAGE_BYTES] = 0x80;
    const uint64_t bits = (uint64_t)LABEL_MESSAGE_BYTES * 8;
    for (int b = 0; b < 8; b++) msg[LABEL_PADDED_BYTES - 1 - b] = (uint8_t)(bits >> (8 * b));
}

static void label_finish(uint8_t out[32], const uint8_t msg[LABEL_PADDED_BYTES]) {
    uint32_t state[8];
    memcpy(state, zkp_sha256_iv, sizeof state);
    zkp_sha256_blocks(state, msg, LABEL_PADDED_BYTES / 64);
    zkp_sha256_state_to_digest(out, state);
    zkp_sha256_trim(out);
}

void zkp_sdr_label(uint8_t out[32], const uint8_t replica_id[32], uint32_t layer, uint64_t node,
                   const uint8_t *const *parent_labels, unsigned n_parents) {
    if (node == 0) {
        uint8_t h[64];
        label_header(h, replica_id, layer, node);
        zkp_sha256_64_trimmed(out, h);
        return;
    }
    assert(n_parents == ZKP_SDR_DRG_DEGREE || n_parents == ZKP_SDR_DEGREE);
    uint8_t msg[LABEL_PADDED_BYTES];
    label_header(msg, replica_id, layer, node);
    for (unsigned slot = 0; slot < LABEL_PARENT_SLOTS; slot++)
        memcpy(msg + LABEL_HEADER_BYTES + 32 * slot, parent_labels[slot % n_parents], 32);
    label_padding(msg);
    label_finish(out, msg);
}

void zkp_sdr_label_layer(uint8_t *out, const zkp_sdr_graph *g, const uint32_t *parents,
                         const uint8_t replica_id[32], uint32_t layer, const uint8_t *prev) {
    assert(layer >= 1 && (layer == 1 || prev != NULL));
    const unsigned n_parents = layer == 1 ? ZKP_SDR_DRG_DEGREE : ZKP_SDR_DEGREE;
    /* One message buffer for the layer: the replica id, the zeros and the
     * padding stay; each node rewrites its layer/node header and the 37
     * parent slots. */
    uint8_t msg[LABEL_PADDED_BYTES];
    label_header(msg, replica_id, layer, 0);
    label_padding(msg);
    zkp_sha256_64_trimmed(out, msg);
    for (uint64_t v = 1; v < g->nodes; v++) {
        const uint32_t *p = parents + v * ZKP_SDR_DEGREE;
        for (int b = 0; b < 8; b++) msg[36 + b] = (uint8_t)(v >> (56 - 8 * b));
        const uint8_t *src[ZKP_SDR_DEGREE];
        for (unsigned j = 0; j < ZKP_SDR_DRG_DEGREE; j++) src[j] = out + 32 * (size_t)p[j];
        for (unsigned j = ZKP_SDR_DRG_DEGREE; j < n_parents; j++) src[j] = prev + 32 * (size_t)p[j];
        for (unsigned slot = 0; slot < LABEL_PARENT_SLOTS; slot++)
            memcpy(msg + LABEL_HEADER_BYTES + 32 * slot, src[slot % n_parents], 32);
        label_finish(out + 32 * v, msg);
    }
}
