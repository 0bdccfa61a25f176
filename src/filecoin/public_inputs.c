/* The public inputs of a PoRep partition (public_inputs.h). */
#include "filecoin/public_inputs.h"

#include <string.h>

#include "field/bls12_381_fr.h"
#include "filecoin/porep.h"
#include "filecoin/sdr_graph.h"
#include "filecoin/seal.h"

size_t zkp_fil_porep_public_input_count(const zkp_fil_seal_proof *p) {
    return 3 + ZKP_FIL_INPUTS_PER_CHALLENGE * (size_t)p->challenges;
}

/* A 32-byte little-endian field element as four limbs, refused unless it
 * is below r. */
static zkpipe_status fr_limbs(uint64_t out[4], const uint8_t bytes[32], const char *what,
                              zkp_diag *diag) {
    bls12_381_fr_t check;
    if (bls12_381_fr_from_bytes_le(&check, bytes) != ZKPIPE_OK)
        return zkp_diag_fail(diag, ZKPIPE_ERR_INVALID_ARGUMENT,
                             "%s is not a BLS12-381 scalar (it is not below r)", what);
    for (int i = 0; i < 4; i++) {
        out[i] = 0;
        for (int b = 7; b >= 0; b--) out[i] = out[i] << 8 | bytes[8 * i + b];
    }
    return ZKPIPE_OK;
}

static void index_limbs(uint64_t out[4], uint64_t index) {
    out[0] = index;
    out[1] = out[2] = out[3] = 0;
}

zkpipe_status zkp_fil_porep_public_inputs(uint64_t *out, const zkp_fil_seal_proof *p,
                                          const uint8_t replica_id[32], const uint8_t comm_d[32],
                                          const uint8_t comm_r[32], const uint8_t seed[32],
                                          const uint8_t porep_id[32], unsigned partition_k,
                                          zkp_diag *diag) {
    if (partition_k >= p->partitions)
        return zkp_diag_fail(diag, ZKPIPE_ERR_OUT_OF_RANGE, "%s has %u partitions, not %u",
                             p->name, p->partitions, partition_k + 1);
    if (p->challenges > ZKP_FIL_MAX_CHALLENGES)
        return zkp_diag_fail(diag, ZKPIPE_ERR_UNSUPPORTED, "%s has %u challenges a partition",
                             p->name, p->challenges);
    zkpipe_status st;
    if ((st = fr_limbs(out, replica_id, "replica_id", diag)) != ZKPIPE_OK ||
        (st = fr_limbs(out + 4, comm_d, "comm_d", diag)) != ZKPIPE_OK ||
        (st = fr_limbs(out + 8, comm_r, "comm_r", diag)) != ZKPIPE_OK)
        return st;
    zkp_sdr_graph g;
    if ((st = zkp_sdr_graph_init(&g, p->nodes, porep_id, p->api, diag)) != ZKPIPE_OK) return st;
    uint64_t challenges[ZKP_FIL_MAX_CHALLENGES];
    zkp_fil_porep_challenges(challenges, p, replica_id, comm_r, seed, partition_k);
    uint64_t *v = out + 12;
    for (uint32_t i = 0; i < p->challenges; i++) {
        uint64_t c = challenges[i];
        uint32_t drg[6], exp[8];
        zkp_sdr_drg_parents(&g, (uint32_t)c, drg);
        zkp_sdr_exp_parents(&g, (uint32_t)c, exp);
        index_limbs(v, c), v += 4;
        for (int j = 0; j < 6; j++) index_limbs(v, drg[j]), v += 4;
        for (int j = 0; j < 8; j++) index_limbs(v, exp[j]), v += 4;
        for (int j = 0; j < 3; j++) index_limbs(v, c), v += 4;
    }
    return ZKPIPE_OK;
}
