/* UInt64, bit re-ordering, the label and the encoding (see label.h). */
#include "gadgets/label.h"

#include <stdlib.h>

#include "gadgets/sha256.h"

typedef bls12_381_fr_t fr_t;

zkp_u64 zkp_u64_const(uint64_t value) {
    zkp_u64 w;
    for (int i = 0; i < 64; i++) w.bits[i] = zkp_bool_const((int)(value >> i) & 1);
    w.value = value;
    return w;
}

zkp_u64 zkp_u64_alloc(zkp_cs *cs, uint64_t value) {
    zkp_u64 w;
    zkp_bool_alloc_u64_le(cs, value, w.bits);
    w.value = value;
    return w;
}

void zkp_u64_pack_into_input(zkp_cs *cs, const zkp_u64 *w) {
    zkp_pack_into_inputs(cs, w->bits, 64);
}

void zkp_u64_to_bits_be(const zkp_u64 *w, zkp_bool out[64]) {
    for (int i = 0; i < 64; i++) out[i] = w->bits[63 - i];
}

size_t zkp_reverse_bit_numbering(zkp_bool *out, const zkp_bool *bits, size_t n) {
    size_t full = n / 8 * 8;
    for (size_t byte = 0; byte < full; byte += 8)
        for (size_t k = 0; k < 8; k++) out[byte + k] = bits[byte + 7 - k];
    if (full == n) return n;
    /* the partial byte: its bits, then constant zeros, all reversed */
    size_t rem = n - full;
    for (size_t k = 0; k < 8; k++)
        out[full + k] = 7 - k < rem ? bits[full + 7 - k] : zkp_bool_const(0);
    return full + 8;
}

/* replica id ‖ layer ‖ node ‖ zeros: 512 bits, then 37 × 256 */
#define LABEL_MESSAGE_BITS ((2 + ZKP_LABEL_PARENTS) * ZKP_LABEL_NODE_BITS)

zkp_var zkp_create_label_circuit(zkp_cs *cs, const zkp_bool *replica_id, size_t id_bits,
                                 const zkp_bool *const parents[ZKP_LABEL_PARENTS],
                                 const zkp_u32 *layer, const zkp_u64 *node, zkp_fr *value) {
    if (id_bits < 32 || id_bits > 256) {
        if (cs->status == ZKPIPE_OK) cs->status = ZKPIPE_ERR_INVALID_ARGUMENT;
        return ZKP_VAR_ONE;
    }
    zkp_bool *msg = malloc(LABEL_MESSAGE_BITS * sizeof *msg); /* 80 KB: not on the stack */
    if (!msg) {
        if (cs->status == ZKPIPE_OK) cs->status = ZKPIPE_ERR_NO_MEMORY;
        return ZKP_VAR_ONE;
    }
    size_t at = 0;
    for (size_t i = 0; i < 256; i++) msg[at++] = i < id_bits ? replica_id[i] : zkp_bool_const(0);
    zkp_u32_to_bits_be(layer, &msg[at]);
    at += 32;
    zkp_u64_to_bits_be(node, &msg[at]);
    at += 64;
    while (at < 512) msg[at++] = zkp_bool_const(0);
    for (size_t k = 0; k < ZKP_LABEL_PARENTS; k++)
        for (size_t i = 0; i < ZKP_LABEL_NODE_BITS; i++) msg[at++] = parents[k][i];

    zkp_bool digest[256], le[256];
    zkp_sha256_gadget(cs, msg, LABEL_MESSAGE_BITS, digest);
    free(msg);
    zkp_reverse_bit_numbering(le, digest, 256);
    return zkp_pack_bits(cs, le, ZKP_FR_CAPACITY, value);
}

void zkp_constraint_equal(zkp_cs *cs, zkp_var a, zkp_var b) {
    zkp_lc la, one, lb;
    zkp_lc_init_for(&la, cs);
    zkp_lc_init_for(&one, cs);
    zkp_lc_init_for(&lb, cs);
    zkp_lc_add_one(&la, a);
    zkp_lc_add_one(&one, ZKP_VAR_ONE);
    zkp_lc_add_one(&lb, b);
    zkp_cs_enforce(cs, &la, &one, &lb);
}

zkp_var zkp_constraint_add(zkp_cs *cs, zkp_var a, const zkp_fr *a_value, zkp_var b,
                           const zkp_fr *b_value, zkp_fr *sum_value) {
    fr_t s;
    bls12_381_fr_add(&s, a_value, b_value);
    zkp_var sum = zkp_cs_alloc(cs, &s);
    zkp_lc ab, one, ls;
    zkp_lc_init_for(&ab, cs);
    zkp_lc_init_for(&one, cs);
    zkp_lc_init_for(&ls, cs);
    zkp_lc_add_one(&ab, a);
    zkp_lc_add_one(&ab, b);
    zkp_lc_add_one(&one, ZKP_VAR_ONE);
    zkp_lc_add_one(&ls, sum);
    zkp_cs_enforce(cs, &ab, &one, &ls);
    if (sum_value) *sum_value = s;
    return sum;
}
