/* The Groth16 prover working inside a reservation: every working buffer it
 * allocates is charged to the reservation and to the tracker under its
 * category, a proof still verifies, the books balance to zero afterwards,
 * and a reservation too small for the proof stops it with a status instead
 * of letting it over-commit. Uses the small BN254 fixture that
 * tests/fixtures/gen.sh makes; skipped where it has not been generated. */
#include <stdlib.h>
#include <unistd.h>

#include "formats/wtns.h"
#include "formats/zkey.h"
#include "groth16/groth16.h"
#include "mem/mem.h"
#include "test.h"

#define MIB ((uint64_t)1 << 20)
#define FIXTURE "fixtures/poseidon_small_bn128/"

typedef struct {
    zkp_mem_tracker *tracker;
    zkp_mem_pool *pool;
    zkp_mem_budget *budget;
    zkp_zkey key;
    zkp_wtns wtns;
} prover_rig;

static void prover_rig_open(prover_rig *rig) {
    const char *zkey_path = test_data_path(FIXTURE "circuit.zkey");
    const char *wtns_path = test_data_path(FIXTURE "witness.wtns");
    if (access(zkey_path, R_OK) != 0 || access(wtns_path, R_OK) != 0)
        test_skip(
            "the fixture poseidon_small_bn128 has not been generated (tests/fixtures/gen.sh)");
    memset(rig, 0, sizeof *rig);
    zkp_diag d = {{0}};
    ASSERT_MSG(zkp_zkey_load(&rig->key, zkey_path, NULL, &d) == ZKPIPE_OK, "%s", d.msg);
    ASSERT_MSG(zkp_wtns_load(&rig->wtns, wtns_path, NULL, &d) == ZKPIPE_OK, "%s", d.msg);
    ASSERT_OK(zkp_mem_tracker_create(&rig->tracker));
    ASSERT_OK(zkp_mem_pool_create(&rig->pool, rig->tracker, NULL));
    zkp_mem_budget_config cfg;
    ASSERT_OK(zkp_mem_budget_config_default(&cfg));
    cfg.total_bytes = 256 * MIB;
    cfg.pool = rig->pool;
    ASSERT_MSG(zkp_mem_budget_create(&rig->budget, &cfg, NULL, &d) == ZKPIPE_OK, "%s", d.msg);
}

static void prover_rig_close(prover_rig *rig) {
    zkp_mem_snapshot snap;
    ASSERT_OK(zkp_mem_tracker_snapshot(rig->tracker, &snap));
    for (int c = 0; c < ZKP_MEM_CATEGORY_COUNT; c++)
        if (c != ZKP_MEM_POOL_IDLE) ASSERT_EQ_U64(snap.cat[c].live_count, 0);
    ASSERT_OK(zkp_mem_budget_destroy(&rig->budget));
    ASSERT_OK(zkp_mem_pool_destroy(&rig->pool));
    ASSERT_OK(zkp_mem_tracker_destroy(&rig->tracker));
    zkp_wtns_free(&rig->wtns);
    zkp_zkey_free(&rig->key);
}

/* The witness copied into a buffer of the reservation; the prover takes
 * it over and frees it through the same allocator. */
static zkp_buffer witness_in(const prover_rig *rig, const zkp_allocator *al) {
    zkp_buffer w = {NULL, rig->wtns.values_bytes, ZKP_MEM_WITNESS, al};
    w.ptr = zkp_alloc(al, w.bytes, ZKP_MEM_WITNESS);
    ASSERT(w.ptr != NULL);
    memcpy(w.ptr, rig->wtns.values, w.bytes);
    return w;
}

static zkpipe_status prove_within(prover_rig *rig, zkp_mem_reservation *r, zkp_g16_proof *proof,
                                  zkp_diag *d) {
    const zkp_allocator *al;
    ASSERT_OK(zkp_mem_reservation_allocator(r, &al));
    zkp_g16_pk pk;
    zkp_zkey_pk(&rig->key, &pk);
    zkp_buffer w = witness_in(rig, al);
    zkp_g16_prove_opts opts = {.nthreads = 2, .alloc = al};
    zkp_g16_pending *p = NULL;
    zkpipe_status st = zkp_g16_prove_start(&p, &pk, &w, &opts, d);
    ASSERT(w.ptr == NULL);
    if (st != ZKPIPE_OK) return st;
    return zkp_g16_prove_finalize(proof, p, NULL, d);
}

TEST_CASE(mem_groth16_prover_allocates_from_a_reservation) {
    prover_rig rig;
    prover_rig_open(&rig);
    zkp_mem_reservation *r;
    ASSERT_OK(zkp_mem_reserve(rig.budget, 128 * MIB, ZKP_MEM_PRIO_NORMAL, &r));
    zkp_g16_proof proof;
    zkp_diag d = {{0}};
    ASSERT_MSG(prove_within(&rig, r, &proof, &d) == ZKPIPE_OK, "%s", d.msg);

    /* It verifies against the key's public signals (witness values 1..n). */
    zkp_g16_vk vk;
    zkp_zkey_vk(&rig.key, &vk);
    zkp_g16_public pub = {rig.wtns.curve, zkp_zkey_n_public(&rig.key), NULL};
    pub.values = malloc(pub.n * 4 * sizeof(uint64_t) + 1);
    ASSERT(pub.values != NULL);
    memcpy(pub.values, rig.wtns.values + 4, pub.n * 4 * sizeof(uint64_t));
    ASSERT_MSG(zkp_g16_verify(&vk, &pub, &proof, &d) == ZKPIPE_OK, "%s", d.msg);
    zkp_g16_public_release(&pub);
    zkp_g16_vk_release(&vk);

    /* Everything went through the reservation, and all of it came back. */
    zkp_mem_reservation_info info;
    ASSERT_OK(zkp_mem_reservation_info_get(r, &info));
    ASSERT_EQ_U64(info.allocated_bytes, 0);
    ASSERT_EQ_U64(info.refused, 0);
    zkp_mem_snapshot snap;
    ASSERT_OK(zkp_mem_tracker_snapshot(rig.tracker, &snap));
    ASSERT(snap.cat[ZKP_MEM_WITNESS].peak_bytes >= rig.wtns.values_bytes);
    ASSERT(snap.cat[ZKP_MEM_ABC].peak_bytes > 0);
    ASSERT(snap.cat[ZKP_MEM_SCRATCH].peak_bytes > 0);
    ASSERT(snap.total_peak_bytes <= 128 * MIB);
    printf("  peak tracked %.2f MiB (witness %.2f, abc %.2f, scratch %.2f)\n",
           (double)snap.total_peak_bytes / MIB, (double)snap.cat[ZKP_MEM_WITNESS].peak_bytes / MIB,
           (double)snap.cat[ZKP_MEM_ABC].peak_bytes / MIB,
           (double)snap.cat[ZKP_MEM_SCRATCH].peak_bytes / MIB);
    ASSERT_OK(zkp_mem_release(&r));

    /* A reservation that holds the witness but not a, b, c: the prover is
     * refused, says so, and leaves nothing behind. */
    size_t witness_charge;
    ASSERT_OK(zkp_mem_charge_size(rig.wtns.values_bytes, &witness_charge));
    ASSERT_OK(zkp_mem_reserve(rig.budget, witness_charge, ZKP_MEM_PRIO_NORMAL, &r));
    ASSERT_EQ_STATUS(prove_within(&rig, r, &proof, &d), ZKPIPE_ERR_NO_MEMORY);
    ASSERT_OK(zkp_mem_reservation_info_get(r, &info));
    ASSERT(info.refused >= 1);
    ASSERT_EQ_U64(info.allocated_bytes, 0);
    ASSERT_OK(zkp_mem_release(&r));
    prover_rig_close(&rig);
}
