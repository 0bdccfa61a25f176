/* Sealing of 2 KiB test sectors and the vanilla verifier: comm_d of an
 * empty sector against Filecoin's published zero commitment, a sealed
 * sector's C1 verified directly and after a round trip through its JSON,
 * and every damage to the C1 rejected, named by the member. */
#include <stdlib.h>
#include <string.h>

#include "filecoin/porep.h"
#include "filecoin/seal.h"
#include "test.h"

static const zkp_fil_seal_proof *proof_(const char *name) {
    const zkp_fil_seal_proof *p = zkp_fil_seal_proof_by_name(name, strlen(name));
    ASSERT(p != NULL);
    return p;
}

static void inputs_(zkp_fil_seal_inputs *in, const zkp_fil_seal_proof *p) {
    memset(in, 0, sizeof *in);
    in->proof = p;
    for (int i = 0; i < 32; i++) {
        in->prover_id[i] = (uint8_t)test_rng_u64();
        in->ticket[i] = (uint8_t)test_rng_u64();
        in->seed[i] = (uint8_t)test_rng_u64();
    }
    in->prover_id[31] = 0;
    in->sector_id = test_rng_u64() % 100000;
}

/* Random data, each 32-byte node fr32-padded (top two bits clear). */
static uint8_t *data_(const zkp_fil_seal_proof *p) {
    uint8_t *d = malloc((size_t)p->sector_bytes);
    ASSERT(d != NULL);
    for (size_t i = 0; i < p->sector_bytes; i++) d[i] = (uint8_t)test_rng_u64();
    for (size_t i = 31; i < p->sector_bytes; i += 32) d[i] &= 0x3f;
    return d;
}

static void c1_free_(void *arg) {
    zkp_fil_c1_free(arg);
    free(arg);
}

static zkp_fil_c1 *seal_(const zkp_fil_seal_inputs *in, const uint8_t *data, uint8_t *replica) {
    zkp_fil_c1 *c1 = calloc(1, sizeof *c1);
    ASSERT(c1 != NULL);
    zkp_diag d = {{0}};
    zkpipe_status st = zkp_fil_seal(c1, replica, in, data, NULL, ZKP_MEM_AUX, &d);
    ASSERT_MSG(st == ZKPIPE_OK, "%s", d.msg);
    test_defer(c1_free_, c1);
    return c1;
}

TEST_CASE(filecoin_seal_empty_sector_has_filecoins_zero_comm_d) {
    /* The commitment of 2 KiB of zeros, as Filecoin's zero-piece tables
     * list it (the 2 KiB entry; also curio's and supraseal's). */
    static const uint8_t want[32] = {0xfc, 0x7e, 0x92, 0x82, 0x96, 0xe5, 0x16, 0xfa,
                                     0xad, 0xe9, 0x86, 0xb2, 0x8f, 0x92, 0xd4, 0x4a,
                                     0x4f, 0x24, 0xb9, 0x35, 0x48, 0x52, 0x23, 0x37,
                                     0x6a, 0x79, 0x90, 0x27, 0xbc, 0x18, 0xf8, 0x33};
    zkp_fil_seal_inputs in;
    inputs_(&in, proof_("StackedDrg2KiBV1_1"));
    uint8_t *zero = calloc(1, 2048);
    ASSERT(zero != NULL);
    zkp_fil_c1 *c1 = seal_(&in, zero, NULL);
    free(zero);
    ASSERT(!memcmp(c1->comm_d.b, want, 32));
}

TEST_CASE(filecoin_seal_2kib_verifies_and_round_trips) {
    static const char *names[] = {"StackedDrg2KiBV1", "StackedDrg2KiBV1_1"};
    for (size_t n = 0; n < 2; n++) {
        zkp_fil_seal_inputs in;
        inputs_(&in, proof_(names[n]));
        uint8_t *data = data_(in.proof);
        uint8_t *replica = malloc(2048);
        ASSERT(replica != NULL);
        zkp_fil_c1 *c1 = seal_(&in, data, replica);
        zkp_diag d = {{0}};
        ASSERT_MSG(zkp_fil_c1_verify(c1, &d) == ZKPIPE_OK, "%s: %s", names[n], d.msg);
        /* The challenged leaves are the data and the replica at the
         * challenge. */
        const zkp_fil_challenge_proof *cp = &c1->vanilla_proofs.v[0].v[1];
        uint64_t c = cp->labeling_proofs.v[0].node;
        ASSERT(c >= 1 && c < 64);
        ASSERT(!memcmp(cp->comm_d_proofs.leaf.b, data + 32 * c, 32));
        ASSERT(!memcmp(cp->comm_r_last_proof.leaf.b, replica + 32 * c, 32));
        /* Through the JSON and back, it still verifies. */
        uint8_t *json;
        size_t len;
        ASSERT_OK(zkp_fil_c1_write(c1, &json, &len, NULL, ZKP_MEM_AUX, &d));
        zkp_fil_c1 back;
        ASSERT_MSG(zkp_fil_c1_parse(&back, (const char *)json, len, "c1.json", NULL, ZKP_MEM_AUX,
                                    &d) == ZKPIPE_OK,
                   "%s", d.msg);
        ASSERT_MSG(zkp_fil_c1_verify(&back, &d) == ZKPIPE_OK, "%s", d.msg);
        zkp_fil_c1_free(&back);
        zkp_free(NULL, json, len, ZKP_MEM_AUX);
        /* Another seed draws other challenges: the same proofs fail. */
        c1->seed.b[0] ^= 1;
        ASSERT_EQ_STATUS(zkp_fil_c1_verify(c1, &d), ZKPIPE_ERR_PROOF_INVALID);
        free(replica);
        free(data);
    }
}

TEST_CASE(filecoin_seal_refuses_data_that_is_not_fr32_padded) {
    zkp_fil_seal_inputs in;
    inputs_(&in, proof_("StackedDrg2KiBV1_1"));
    uint8_t *data = data_(in.proof);
    data[32 * 17 + 31] |= 0x40;
    zkp_fil_c1 c1;
    zkp_diag d = {{0}};
    ASSERT_EQ_STATUS(zkp_fil_seal(&c1, NULL, &in, data, NULL, ZKP_MEM_AUX, &d),
                     ZKPIPE_ERR_INVALID_ARGUMENT);
    ASSERT_MSG(strstr(d.msg, "data node 17") != NULL, "%s", d.msg);
    free(data);
}

/* Synthetic and NI 2 KiB sectors: the C1 holds the challenges of the
 * proof's rule (porep.h, checked against rust-fil-proofs and the records in
 * test_sdr.c), in every partition (13 for NI), and verifies directly and
 * after a JSON round trip. A synthetic C1 depends on the seed and comm_r,
 * an NI one on comm_r only. */
TEST_CASE(filecoin_seal_2kib_synthetic_and_ni) {
    static const char *names[] = {"StackedDrg2KiBV1_1_Feat_SyntheticPoRep",
                                  "StackedDrg2KiBV1_2_Feat_NonInteractivePoRep"};
    for (size_t n = 0; n < 2; n++) {
        const zkp_fil_seal_proof *p = proof_(names[n]);
        const int ni = p->challenge_kind == ZKP_FIL_CHALLENGES_NON_INTERACTIVE;
        zkp_fil_seal_inputs in;
        inputs_(&in, p);
        uint8_t *data = data_(p);
        zkp_fil_c1 *c1 = seal_(&in, data, NULL);
        free(data);
        zkp_diag d = {{0}};
        ASSERT_MSG(zkp_fil_c1_verify(c1, &d) == ZKPIPE_OK, "%s: %s", names[n], d.msg);
        ASSERT_EQ_U64(c1->vanilla_proofs.n, ni ? 13 : 1);
        for (uint32_t k = 0; k < c1->vanilla_proofs.n; k++) {
            uint64_t want[2];
            if (ni) {
                zkp_fil_ni_challenges(want, 2, 64, c1->replica_id.b, c1->comm_r.b, k);
            } else {
                zkp_fil_synth s;
                zkp_fil_synth_init(&s, 64, c1->replica_id.b, c1->comm_r.b);
                zkp_fil_synth_challenges(want, 2, &s, c1->replica_id.b, in.seed, k);
            }
            ASSERT_EQ_U64(c1->vanilla_proofs.v[k].n, 2);
            for (int i = 0; i < 2; i++) {
                const zkp_fil_challenge_proof *cp = &c1->vanilla_proofs.v[k].v[i];
                ASSERT_EQ_U64(cp->labeling_proofs.v[0].node, want[i]);
                ASSERT_EQ_U64(cp->replica_column_proofs.c_x.index, want[i]);
            }
        }
        uint8_t *json;
        size_t len;
        ASSERT_OK(zkp_fil_c1_write(c1, &json, &len, NULL, ZKP_MEM_AUX, &d));
        ASSERT(strstr((const char *)json, names[n]) != NULL);
        zkp_fil_c1 back;
        ASSERT_MSG(zkp_fil_c1_parse(&back, (const char *)json, len, "c1.json", NULL, ZKP_MEM_AUX,
                                    &d) == ZKPIPE_OK,
                   "%s", d.msg);
        ASSERT_MSG(zkp_fil_c1_verify(&back, &d) == ZKPIPE_OK, "%s", d.msg);
        zkp_fil_c1_free(&back);
        zkp_free(NULL, json, len, ZKP_MEM_AUX);
        /* The seed: selects a synthetic C1's challenges, not an NI one's.
         * Flip bits until the selection moves (one flip may select the same
         * two of 64); an NI C1 holds under one. */
        zkpipe_status st = ZKPIPE_OK;
        for (int bit = 0; bit < (ni ? 1 : 64) && st == ZKPIPE_OK; bit++) {
            c1->seed.b[bit / 8] ^= (uint8_t)(1u << (bit % 8));
            st = zkp_fil_c1_verify(c1, &d);
            c1->seed.b[bit / 8] ^= (uint8_t)(1u << (bit % 8));
        }
        ASSERT_EQ_STATUS(st, ni ? ZKPIPE_OK : ZKPIPE_ERR_PROOF_INVALID);
        /* No synthetic C1 for them: their challenges follow from comm_r. */
        zkp_fil_c1 syn;
        uint8_t seed[32] = {0};
        ASSERT_EQ_STATUS(zkp_fil_c1_synthesize(&syn, p, seed, NULL, ZKP_MEM_AUX, &d),
                         ZKPIPE_ERR_UNSUPPORTED);
        ASSERT_MSG(strstr(d.msg, "comm_r") != NULL, "%s", d.msg);
    }
}

/* One bit of one value changed, anywhere the verifier depends on: the
 * proofs' hashes, leaves, roots, rows and parents, the column indices, the
 * paths' positions, comm_r, comm_d, replica_id and seed. (The ticket only
 * enters replica_id, which the C1 carries; prover_id and sector_id, which
 * would tie them, are not in a C1.) */
TEST_CASE(filecoin_seal_any_flipped_bit_fails_naming_the_member) {
    zkp_fil_seal_inputs in;
    inputs_(&in, proof_("StackedDrg2KiBV1_1"));
    uint8_t *data = data_(in.proof);
    zkp_fil_c1 *c1 = seal_(&in, data, NULL);
    free(data);
    zkp_diag d = {{0}};
    ASSERT_OK(zkp_fil_c1_verify(c1, &d));
    /* Every domain the C1 holds, by where it is. */
    typedef struct {
        uint8_t *b;
        const char *expect; /* a fragment of the message */
    } target_;
    target_ t[64];
    size_t n = 0;
    zkp_fil_challenge_proof *cp = &c1->vanilla_proofs.v[0].v[1];
    zkp_fil_replica_columns *rc = &cp->replica_column_proofs;
    t[n++] = (target_){c1->comm_r.b, "comm_r"};
    t[n++] = (target_){c1->comm_d.b, "comm_d"};
    t[n++] = (target_){c1->replica_id.b, "vanilla_proofs[0][0]"};
    /* The seed only picks the challenges: the first one it moves fails, and
     * a 2 KiB sector's 64 nodes leave the first one where it was once in
     * 64 flips. */
    t[n++] = (target_){c1->seed.b, "vanilla_proofs[0]["};
    t[n++] = (target_){cp->comm_d_proofs.leaf.b, "vanilla_proofs[0][1].comm_d_proofs"};
    t[n++] = (target_){cp->comm_d_proofs.base.v[3].hashes.v[0].b, "[0][1].comm_d_proofs"};
    t[n++] = (target_){cp->comm_d_proofs.root.b, "[0][1].comm_d_proofs"};
    t[n++] = (target_){cp->comm_r_last_proof.leaf.b, "[0][1].comm_r_last_proof"};
    t[n++] = (target_){cp->comm_r_last_proof.base.v[1].hashes.v[6].b, "[0][1].comm_r_last_proof"};
    t[n++] = (target_){rc->c_x.rows.v[1].b, "[0][1].replica_column_proofs.c_x"};
    t[n++] = (target_){rc->c_x.inclusion.base.v[0].hashes.v[2].b, "c_x.inclusion_proof"};
    t[n++] = (target_){rc->drg_parents.v[4].rows.v[0].b, "drg_parents[4]"};
    t[n++] = (target_){rc->exp_parents.v[7].rows.v[0].b, "exp_parents[7]"};
    t[n++] = (target_){rc->exp_parents.v[2].inclusion.leaf.b, "exp_parents[2].inclusion_proof"};
    t[n++] = (target_){cp->labeling_proofs.v[0].parents.v[36].b, "labeling_proofs[0].parents[36]"};
    t[n++] = (target_){cp->labeling_proofs.v[1].parents.v[9].b, "labeling_proofs[1].parents[9]"};
    t[n++] = (target_){cp->encoding_proof.parents.v[20].b, "encoding_proof.parents"};
    for (size_t i = 0; i < n; i++) {
        int bit = (int)(test_rng_u64() % 254); /* stays canonical for Fr values */
        t[i].b[bit / 8] ^= (uint8_t)(1u << (bit % 8));
        zkpipe_status st = zkp_fil_c1_verify(c1, &d);
        t[i].b[bit / 8] ^= (uint8_t)(1u << (bit % 8));
        ASSERT_MSG(st == ZKPIPE_ERR_PROOF_INVALID, "target %zu (%s) passed", i, t[i].expect);
        ASSERT_MSG(strstr(d.msg, t[i].expect) != NULL, "target %zu: \"%s\" not in: %s", i,
                   t[i].expect, d.msg);
    }
    /* Indices: a column that is not the graph's parent, a path position. */
    rc->drg_parents.v[3].index ^= 1;
    ASSERT_EQ_STATUS(zkp_fil_c1_verify(c1, &d), ZKPIPE_ERR_PROOF_INVALID);
    ASSERT_MSG(strstr(d.msg, "drg_parents[3].column.index") != NULL, "%s", d.msg);
    rc->drg_parents.v[3].index ^= 1;
    cp->comm_r_last_proof.base.v[0].index ^= 1;
    ASSERT_EQ_STATUS(zkp_fil_c1_verify(c1, &d), ZKPIPE_ERR_PROOF_INVALID);
    ASSERT_MSG(strstr(d.msg, "comm_r_last_proof") != NULL, "%s", d.msg);
    cp->comm_r_last_proof.base.v[0].index ^= 1;
    ASSERT_OK(zkp_fil_c1_verify(c1, &d));
}

/* The synthetic C1 of every interactive shape passes the vanilla verifier,
 * is the same for the same seed, and differs for another. 32 GiB has the
 * Sub trees, 64 GiB the Top tree and 11 layers. */
TEST_CASE(filecoin_synthetic_c1_verifies_at_every_size) {
    static const char *names[] = {"StackedDrg2KiBV1_1", "StackedDrg8MiBV1", "StackedDrg32GiBV1_1",
                                  "StackedDrg64GiBV1_1"};
    uint8_t seed[32];
    for (int i = 0; i < 32; i++) seed[i] = (uint8_t)test_rng_u64();
    for (size_t n = 0; n < sizeof names / sizeof names[0]; n++) {
        /* 32 and 64 GiB with one of their ten partitions: every shape, a
         * tenth of the time (zkpipe filecoin c1 synth makes whole ones). */
        zkp_fil_seal_proof cut = *proof_(names[n]);
        if (cut.partitions > 1) cut.partitions = 1;
        const zkp_fil_seal_proof *p = &cut;
        zkp_fil_c1 *c1 = calloc(1, sizeof *c1);
        ASSERT(c1 != NULL);
        test_defer(c1_free_, c1);
        zkp_diag d = {{0}};
        ASSERT_MSG(zkp_fil_c1_synthesize(c1, p, seed, NULL, ZKP_MEM_AUX, &d) == ZKPIPE_OK, "%s",
                   d.msg);
        ASSERT_MSG(zkp_fil_c1_verify(c1, &d) == ZKPIPE_OK, "%s: %s", names[n], d.msg);
        ASSERT_EQ_U64(c1->vanilla_proofs.n, p->partitions);
        if (n == 0) {
            /* The same seed, the same bytes; another seed, another C1. */
            zkp_fil_c1 again, other;
            ASSERT_OK(zkp_fil_c1_synthesize(&again, p, seed, NULL, ZKP_MEM_AUX, &d));
            uint8_t *a, *b;
            size_t al, bl;
            ASSERT_OK(zkp_fil_c1_write(c1, &a, &al, NULL, ZKP_MEM_AUX, &d));
            ASSERT_OK(zkp_fil_c1_write(&again, &b, &bl, NULL, ZKP_MEM_AUX, &d));
            ASSERT(al == bl && !memcmp(a, b, al));
            zkp_free(NULL, b, bl, ZKP_MEM_AUX);
            seed[0] ^= 1;
            ASSERT_OK(zkp_fil_c1_synthesize(&other, p, seed, NULL, ZKP_MEM_AUX, &d));
            seed[0] ^= 1;
            ASSERT_OK(zkp_fil_c1_write(&other, &b, &bl, NULL, ZKP_MEM_AUX, &d));
            ASSERT(al != bl || memcmp(a, b, al));
            ASSERT(memcmp(other.comm_r.b, c1->comm_r.b, 32));
            zkp_free(NULL, a, al, ZKP_MEM_AUX);
            zkp_free(NULL, b, bl, ZKP_MEM_AUX);
            zkp_fil_c1_free(&again);
            zkp_fil_c1_free(&other);
        }
    }
}
