/* Helpers shared by the tests of the Filecoin circuit and its gadgets: a
 * freshly sealed 2 KiB sector's C1, and a constraint-system back end that
 * keeps the public inputs' values only (a whole partition costs little that
 * way, where recording every constraint would take seconds). */
#ifndef ZKP_TESTS_FILECOIN_SUPPORT_H
#define ZKP_TESTS_FILECOIN_SUPPORT_H

#include <stdlib.h>
#include <string.h>

#include "filecoin/c1.h"
#include "filecoin/registry.h"
#include "filecoin/seal.h"
#include "gadgets/cs.h"
#include "test.h"

static void test_c1_free_(void *arg) {
    zkp_fil_c1_free(arg);
    free(arg);
}

/* An empty C1, freed when the case ends. */
static inline zkp_fil_c1 *test_new_c1(void) {
    zkp_fil_c1 *c1 = calloc(1, sizeof *c1);
    ASSERT(c1);
    test_defer(test_c1_free_, c1);
    return c1;
}

/* A random 2 KiB sector (each node fr32-padded) sealed under random ids:
 * tree_d binary SHA-256 over 64 nodes, tree_r_last and tree_c 8-0-0,
 * columns of 2 layers. */
static inline const zkp_fil_c1 *test_sealed_2kib(void) {
    const zkp_fil_seal_proof *p = zkp_fil_seal_proof_by_name("StackedDrg2KiBV1_1", 18);
    ASSERT(p != NULL);
    zkp_fil_seal_inputs in;
    memset(&in, 0, sizeof in);
    in.proof = p;
    test_rng_bytes(in.prover_id, 31);
    test_rng_bytes(in.ticket, 32);
    test_rng_bytes(in.seed, 32);
    in.sector_id = test_rng_u64() % 100000;
    uint8_t *data = malloc(p->sector_bytes);
    ASSERT(data);
    test_rng_bytes(data, p->sector_bytes);
    for (size_t i = 31; i < p->sector_bytes; i += 32) data[i] &= 0x3f;
    zkp_fil_c1 *c1 = test_new_c1();
    zkp_diag d = {{0}};
    zkpipe_status st = zkp_fil_seal(c1, NULL, &in, data, NULL, ZKP_MEM_AUX, &d);
    free(data);
    ASSERT_MSG(st == ZKPIPE_OK, "%s", d.msg);
    ASSERT(!memcmp(c1->vanilla_proofs.v[0].v[0].comm_d_proofs.root.b, c1->comm_d.b, 32));
    return c1;
}

/* c1 as the JSON text a client sends, from the default allocator: free it
 * with zkp_free(NULL, text, *len, ZKP_MEM_AUX). */
static inline uint8_t *test_c1_text(const zkp_fil_c1 *c1, size_t *len) {
    uint8_t *text = NULL;
    zkp_diag d = {{0}};
    ASSERT_MSG(zkp_fil_c1_write(c1, &text, len, NULL, ZKP_MEM_AUX, &d) == ZKPIPE_OK, "%s", d.msg);
    return text;
}

/* The back end that keeps the values of the first TEST_MAX_INPUTS inputs. */
#define TEST_MAX_INPUTS 64
typedef struct {
    zkp_fr inputs[TEST_MAX_INPUTS];
} test_inputs_only;

static zkpipe_status test_inputs_alloc_(void *ctx, int is_input, uint32_t index,
                                        const zkp_fr *value) {
    test_inputs_only *io = ctx;
    if (is_input && index < TEST_MAX_INPUTS) io->inputs[index] = *value;
    return ZKPIPE_OK;
}

/* cs on the inputs-only back end, which reads no constraints, its values
 * in a zeroed io freed when the case ends. */
static inline test_inputs_only *test_inputs_only_cs(zkp_cs *cs) {
    static const zkp_cs_backend backend = {test_inputs_alloc_, NULL};
    test_inputs_only *io = calloc(1, sizeof *io);
    ASSERT(io);
    test_defer(free, io);
    zkp_cs_init(cs, &backend, io);
    return io;
}

#endif
