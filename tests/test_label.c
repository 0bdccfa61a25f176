/* The label and encoding gadgets (src/gadgets/label.h).
 *
 * Known answers from outside the gadgets: rust-fil-proofs' create_label
 * test (37 parents and the replica id allocated as 256 bits each, layer 3
 * and node 22 constants: 532,025 constraints; FACTS.md 2.4), and the native
 * labelling of filecoin/sdr_labels.h, which test_sdr.c checks against
 * rust-fil-proofs' published labels. The circuit's label must equal the
 * native label of the same parents; every constraint is checked with the
 * recorder; a wrong parent makes the final equality fail. */
#include <stdlib.h>
#include <string.h>

#include "filecoin/sdr_labels.h"
#include "gadgets/label.h"
#include "gadgets_support.h"
#include "test.h"

typedef bls12_381_fr_t fr_t;

/* A random canonical Fr encoding (little-endian, top two bits clear), as
 * labels and replica ids are. */
static void random_node_(uint8_t out[32]) {
    test_rng_bytes(out, 32);
    out[31] &= 0x3f;
}

static fr_t fr_of_(const uint8_t le[32]) {
    fr_t v;
    ASSERT_OK(bls12_381_fr_from_bytes_le(&v, le));
    return v;
}

/* 8·len new bits of bytes, each byte most significant bit first
 * (storage-proofs-core's bytes_into_boolean_vec_be). */
static void alloc_bytes_be_(zkp_cs *cs, zkp_bool *out, const uint8_t *bytes, size_t len) {
    for (size_t i = 0; i < 8 * len; i++)
        out[i] = zkp_bool_alloc(cs, (bytes[i / 8] >> (7 - i % 8)) & 1);
}

/* The 37 parent slots of a layer: 6 DRG parents cycled six times and the
 * first again (layer 1), or the 14 parents, the 14 again, then the first 9. */
static unsigned parent_slot_(unsigned k, unsigned n_parents) { return k % n_parents; }

TEST_CASE(gadgets_reverse_bit_numbering) {
    zkp_bool in[11], out[16];
    for (int i = 0; i < 11; i++) in[i] = zkp_bool_const((0x5b3 >> i) & 1);
    ASSERT_EQ_U64(zkp_reverse_bit_numbering(out, in, 11), 16);
    for (int i = 0; i < 8; i++) ASSERT_EQ_INT(out[i].value, in[7 - i].value);
    /* the partial byte: three bits and five constant zeros, reversed */
    for (int i = 8; i < 13; i++) ASSERT(zkp_bool_is_const(&out[i]) && out[i].value == 0);
    ASSERT_EQ_INT(out[13].value, in[10].value);
    ASSERT_EQ_INT(out[14].value, in[9].value);
    ASSERT_EQ_INT(out[15].value, in[8].value);
}

/* rust-fil-proofs' create_label test, in its allocation order: the 37
 * parents' bits, then the id's, then the label over constants layer 3 and
 * node 22. Its count is published; its value must be the native label. */
TEST_CASE(gadgets_create_label_count_and_value) {
    uint8_t id[32], raw[14][32];
    random_node_(id);
    for (int p = 0; p < 14; p++) random_node_(raw[p]);
    zkp_cs cs;
    zkp_cs_init_counter(&cs);
    zkp_bool *bits = malloc((ZKP_LABEL_PARENTS + 1) * 256 * sizeof *bits);
    ASSERT(bits);
    test_defer(free, bits);
    const zkp_bool *parents[ZKP_LABEL_PARENTS];
    for (unsigned k = 0; k < ZKP_LABEL_PARENTS; k++) {
        alloc_bytes_be_(&cs, &bits[256 * k], raw[parent_slot_(k, 14)], 32);
        parents[k] = &bits[256 * k];
    }
    zkp_bool *id_bits = &bits[256 * ZKP_LABEL_PARENTS];
    alloc_bytes_be_(&cs, id_bits, id, 32);
    zkp_u32 layer = zkp_u32_const(3);
    zkp_u64 node = zkp_u64_const(22);
    fr_t label;
    (void)zkp_create_label_circuit(&cs, id_bits, 256, parents, &layer, &node, &label);
    ASSERT_OK(zkp_cs_status(&cs));
    ASSERT_EQ_U64(cs.num_constraints, 532025);
    ASSERT_EQ_U64(cs.num_inputs, 1);

    const uint8_t *plist[14];
    for (int p = 0; p < 14; p++) plist[p] = raw[p];
    uint8_t want[32];
    zkp_sdr_label(want, id, 3, 22, plist, 14);
    fr_t w = fr_of_(want);
    ASSERT(bls12_381_fr_eq(&label, &w));

    /* a replica id outside 32..256 bits is refused */
    zkp_create_label_circuit(&cs, id_bits, 16, parents, &layer, &node, NULL);
    ASSERT_EQ_STATUS(zkp_cs_status(&cs), ZKPIPE_ERR_INVALID_ARGUMENT);
}

/* A field element as the PoRep circuit turns it into label input: its 255
 * little-endian bits (to_bits_le), then reverse_bit_numbering to 256. */
static void fr_to_label_bits_(zkp_cs *cs, const uint8_t le[32], zkp_bool out[256]) {
    fr_t v = fr_of_(le);
    zkp_var x = zkp_cs_alloc(cs, &v);
    zkp_bool bits[ZKP_FR_NUM_BITS];
    zkp_num_to_bits_le(cs, x, &v, bits);
    ASSERT_EQ_U64(zkp_reverse_bit_numbering(out, bits, ZKP_FR_NUM_BITS), 256);
}

/* One challenged label as the PoRep circuit computes it in layer `layer`
 * (1: six DRG parents; above: fourteen), for node `challenge` (allocated
 * and made public), parents with labels raw, then the encoding with a data
 * node and the equality with `expected`. Returns the label's value. */
static fr_t porep_label_(zkp_cs_recorder *rec, unsigned layer, uint64_t challenge,
                         const uint8_t id[32], uint8_t raw[14][32], const uint8_t expected[32],
                         const uint8_t data[32]) {
    zkp_cs *cs = &rec->cs;
    unsigned n = layer == 1 ? 6 : 14;
    zkp_bool id_bits[256];
    fr_to_label_bits_(cs, id, id_bits);
    fr_t data_v = fr_of_(data);
    zkp_var data_leaf = zkp_cs_alloc(cs, &data_v);
    zkp_u64 node = zkp_u64_alloc(cs, challenge);
    zkp_u64_pack_into_input(cs, &node);
    zkp_bool pbits[14][256];
    for (unsigned p = 0; p < n; p++) fr_to_label_bits_(cs, raw[p], pbits[p]);
    const zkp_bool *parents[ZKP_LABEL_PARENTS];
    for (unsigned k = 0; k < ZKP_LABEL_PARENTS; k++) parents[k] = pbits[parent_slot_(k, n)];
    zkp_u32 l = zkp_u32_const(layer);
    fr_t label, encoded;
    zkp_var lv = zkp_create_label_circuit(cs, id_bits, 256, parents, &l, &node, &label);
    zkp_var enc = zkp_constraint_add(cs, lv, &label, data_leaf, &data_v, &encoded);
    fr_t want = fr_of_(expected), sum;
    bls12_381_fr_add(&sum, &want, &data_v);
    zkp_var ev = zkp_cs_alloc(cs, &sum);
    zkp_constraint_equal(cs, enc, ev);
    ASSERT_OK(zkp_cs_status(cs));
    ASSERT(bls12_381_fr_eq(zkp_cs_recorder_value(rec, enc), &encoded));
    return label;
}

/* Layer 2 with fourteen parents: the label equals the native one, the
 * encoded node is label + data, the challenge is the public input, and
 * every constraint holds. */
TEST_CASE(gadgets_label_in_porep_order_satisfied) {
    uint8_t id[32], raw[14][32], data[32], want[32];
    random_node_(id);
    random_node_(data);
    for (int p = 0; p < 14; p++) random_node_(raw[p]);
    const uint8_t *plist[14];
    for (int p = 0; p < 14; p++) plist[p] = raw[p];
    uint64_t challenge = 0x3ffffffeu ^ (test_rng_u64() & 0xffff);
    zkp_sdr_label(want, id, 2, challenge, plist, 14);

    zkp_cs_recorder *rec = test_new_recorder();
    fr_t label = porep_label_(rec, 2, challenge, id, raw, want, data);
    fr_t w = fr_of_(want);
    ASSERT(bls12_381_fr_eq(&label, &w));
    ASSERT_EQ_U64(rec->cs.num_inputs, 2);
    fr_t ch;
    bls12_381_fr_set_u64(&ch, challenge);
    ASSERT(bls12_381_fr_eq(zkp_cs_recorder_value(rec, (zkp_var)(1 | ZKP_VAR_INPUT_BIT)), &ch));
    uint64_t bad = 0;
    ASSERT_MSG(zkp_cs_recorder_check(rec, &bad), "constraint %llu", (unsigned long long)bad);
}

/* Layer 1 (six parents): a parent whose label differs from the one the
 * expected label was made from gives another label, and the last
 * constraint, the equality with the expected encoding, fails; only that one.
 * With the parent restored the circuit's label is the native one (counted
 * only: the layer-2 case above checks a satisfied system row by row). */
TEST_CASE(gadgets_label_wrong_parent_is_caught) {
    uint8_t id[32], raw[14][32], data[32], want[32];
    random_node_(id);
    random_node_(data);
    for (int p = 0; p < 14; p++) random_node_(raw[p]);
    const uint8_t *plist[6];
    for (int p = 0; p < 6; p++) plist[p] = raw[p];
    zkp_sdr_label(want, id, 1, 7, plist, 6);
    fr_t w = fr_of_(want);

    zkp_cs cs;
    zkp_cs_init_counter(&cs);
    zkp_bool id_bits[256], pbits[6][256];
    alloc_bytes_be_(&cs, id_bits, id, 32);
    for (int p = 0; p < 6; p++) alloc_bytes_be_(&cs, pbits[p], raw[p], 32);
    const zkp_bool *parents[ZKP_LABEL_PARENTS];
    for (unsigned k = 0; k < ZKP_LABEL_PARENTS; k++) parents[k] = pbits[parent_slot_(k, 6)];
    zkp_u32 layer = zkp_u32_const(1);
    zkp_u64 node = zkp_u64_const(7);
    fr_t label;
    (void)zkp_create_label_circuit(&cs, id_bits, 256, parents, &layer, &node, &label);
    ASSERT_OK(zkp_cs_status(&cs));
    ASSERT(bls12_381_fr_eq(&label, &w));

    raw[4][0] ^= 1; /* parent 4 is wrong */
    zkp_cs_recorder *rec = test_new_recorder();
    label = porep_label_(rec, 1, 7, id, raw, want, data);
    ASSERT(!bls12_381_fr_eq(&label, &w));
    uint64_t bad = 0;
    ASSERT(!zkp_cs_recorder_check(rec, &bad));
    ASSERT_EQ_U64(bad, rec->cs.num_constraints - 1);
}
