/* The PoRep partition circuit against rust-fil-proofs' published shapes
 * (FACTS 4: storage-proofs-porep tests/stacked_circuit.rs, TestCS counts
 * without the input constraints; 22 inputs with ONE for one challenge),
 * and a sealed 2 KiB sector's partition: its public inputs are the ones
 * zkp_fil_porep_public_inputs derives from the commitments and the seed,
 * and (ZKPIPE_TEST_SLOW=1) every one of its constraints holds, and a
 * changed column value breaks one. The 32 GiB partition (130 M
 * constraints; cuzk's counts, FACTS 4) is counted by the slow cases here
 * and by `zkpipe filecoin circuit-info --sector-size 32GiB --nnz`. */
#include <inttypes.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "filecoin/c2.h"
#include "filecoin/porep.h"
#include "filecoin/porep_circuit.h"
#include "filecoin/public_inputs.h"
#include "filecoin/seal.h"
#include "gadgets/csr.h"
#include "filecoin_support.h"
#include "test.h"

static void require_slow_(const char *what) {
    const char *s = getenv("ZKPIPE_TEST_SLOW");
    if (s == NULL || s[0] == '\0' || strcmp(s, "0") == 0) test_skip(what);
}

static void count_shape_(uint64_t nodes, uint32_t layers, uint32_t challenges, unsigned base,
                         unsigned sub, unsigned top, uint64_t want_constraints,
                         uint64_t want_inputs) {
    zkp_fil_porep_shape s = {nodes, layers, challenges, base, sub, top};
    zkp_cs cs;
    zkp_cs_init_counter(&cs);
    zkp_diag d = {{0}};
    ASSERT_MSG(zkp_fil_porep_circuit_blank(&cs, &s, &d) == ZKPIPE_OK, "%s", d.msg);
    ASSERT_EQ_U64(cs.num_constraints, want_constraints);
    ASSERT_EQ_U64(cs.num_inputs, want_inputs);
}

/* 8 nodes, 2 layers, 1 challenge, binary trees. */
TEST_CASE(filecoin_porep_circuit_test_shape_base_2) { count_shape_(8, 2, 1, 2, 0, 0, 1206212, 22); }
/* 8 nodes, octal trees of one level. */
TEST_CASE(filecoin_porep_circuit_test_shape_base_8) { count_shape_(8, 2, 1, 8, 0, 0, 1199620, 22); }
/* 32 nodes: 8-4 trees. */
TEST_CASE(filecoin_porep_circuit_test_shape_8_4) { count_shape_(32, 2, 1, 8, 4, 0, 1296576, 22); }
/* 64 nodes: 8-4-2 trees. */
TEST_CASE(filecoin_porep_circuit_test_shape_8_4_2) {
    count_shape_(64, 2, 1, 8, 4, 2, 1346982, 22);
}

/* A 32 GiB partition: 18 challenges, 11 layers, 8-8-0 trees over 2^30
 * nodes. 130,278,541 constraints from synthesis (cuzk's 130,278,869 less
 * one input constraint per input), 328 inputs, 130,169,893 aux. */
TEST_CASE(filecoin_porep_circuit_32gib_count_slow) {
    require_slow_("130 M constraints: set ZKPIPE_TEST_SLOW=1 to count them");
    zkp_fil_porep_shape s;
    zkp_fil_porep_shape_of(&s, zkp_fil_seal_proof_by_name("StackedDrg32GiBV1_1", 19));
    zkp_cs cs;
    zkp_cs_init_counter(&cs);
    zkp_diag d = {{0}};
    ASSERT_MSG(zkp_fil_porep_circuit_blank(&cs, &s, &d) == ZKPIPE_OK, "%s", d.msg);
    ASSERT_EQ_U64(cs.num_constraints, 130278541);
    ASSERT_EQ_U64(cs.num_inputs, 328);
    ASSERT_EQ_U64(cs.num_aux, 130169893);
}

static void csr_free_(void *p) {
    zkp_cs_csr_free(p);
    free(p);
}

/* The same partition as bellperson's prover sees it (input constraints
 * appended, repeated variables merged, zero terms dropped): cuzk's
 * non-zero counts and densities. */
TEST_CASE(filecoin_porep_circuit_32gib_nnz_slow) {
    require_slow_("130 M rows: set ZKPIPE_TEST_SLOW=1 to count their entries");
    zkp_fil_porep_shape s;
    zkp_fil_porep_shape_of(&s, zkp_fil_seal_proof_by_name("StackedDrg32GiBV1_1", 19));
    zkp_cs_csr *r = calloc(1, sizeof *r);
    ASSERT(r);
    test_defer(csr_free_, r);
    zkp_cs_csr_init(r, ZKP_CSR_COUNTS);
    zkp_diag d = {{0}};
    ASSERT_MSG(zkp_fil_porep_circuit_blank(&r->cs, &s, &d) == ZKPIPE_OK, "%s", d.msg);
    ASSERT_OK(zkp_cs_csr_finish(r));
    ASSERT_EQ_U64(r->n_rows, 130278869);
    ASSERT_EQ_U64(zkp_cs_csr_nnz(r, ZKP_CSR_A), 309405051);
    ASSERT_EQ_U64(zkp_cs_csr_nnz(r, ZKP_CSR_B), 130327340);
    ASSERT_EQ_U64(zkp_cs_csr_nnz(r, ZKP_CSR_C), 282656500);
    zkp_csr_density den;
    ASSERT_OK(zkp_cs_csr_density(r, &den));
    ASSERT_EQ_U64(den.a_aux, 129753292);
    ASSERT_EQ_U64(den.b_input, 1);
    ASSERT_EQ_U64(den.b_aux, 33112281);
}

/* The blank circuit recorded with its challenges on threads, each into a
 * slice of the matrices (or of the counts), against one thread: the same
 * rows, entries and counts. Two layers and three challenges keep it small
 * (two slices besides the first challenge, which the caller's thread
 * records), yet each recording is 3.6 M rows: where ZKPIPE_TEST_ITERS
 * shortens the tests (the sanitizer builds), the counts are left out. */
static zkp_cs_csr *blank_csr_(const zkp_fil_porep_shape *s, unsigned what, unsigned nthreads) {
    zkp_cs_csr *r = calloc(1, sizeof *r);
    ASSERT(r);
    test_defer(csr_free_, r);
    zkp_cs_csr_init(r, what);
    zkp_diag d = {{0}};
    ASSERT_MSG(zkp_fil_porep_circuit_blank_mt(r, s, nthreads, &d) == ZKPIPE_OK, "%s", d.msg);
    ASSERT_OK(zkp_cs_csr_finish(r));
    return r;
}

TEST_CASE(filecoin_porep_blank_on_threads_the_same) {
    const zkp_fil_porep_shape s = {8, 2, 3, 2, 0, 0};
    zkp_cs_csr *one = blank_csr_(&s, ZKP_CSR_MATRICES, 1);
    zkp_cs_csr *many = blank_csr_(&s, ZKP_CSR_MATRICES, 3);
    ASSERT_EQ_U64(many->n_rows, one->n_rows);
    ASSERT_EQ_U64(many->n_cols, one->n_cols);
    for (int m = 0; m < 3; m++) {
        const zkp_csr_matrix *a = &one->m[m], *b = &many->m[m];
        ASSERT_EQ_U64(b->nnz, a->nnz);
        ASSERT_MEM_EQ(b->row_ptr, a->row_ptr, ((size_t)one->n_rows + 1) * sizeof *a->row_ptr);
        ASSERT_MEM_EQ(b->col, a->col, a->nnz * sizeof *a->col);
        ASSERT_MEM_EQ(b->val, a->val, a->nnz * sizeof *a->val);
    }
    printf("  %llu rows, %llu + %llu + %llu entries, the same on 1 and 3 threads\n",
           (unsigned long long)one->n_rows, (unsigned long long)one->m[0].nnz,
           (unsigned long long)one->m[1].nnz, (unsigned long long)one->m[2].nnz);
    if (test_iters(4) < 4) return;
    zkp_cs_csr *c1 = blank_csr_(&s, ZKP_CSR_COUNTS, 1), *c3 = blank_csr_(&s, ZKP_CSR_COUNTS, 3);
    ASSERT_EQ_U64(c3->n_rows, one->n_rows);
    zkp_csr_density d1, d3;
    ASSERT_OK(zkp_cs_csr_density(c1, &d1));
    ASSERT_OK(zkp_cs_csr_density(c3, &d3));
    for (int m = 0; m < 3; m++) {
        ASSERT_EQ_U64(zkp_cs_csr_nnz(c1, m), zkp_cs_csr_nnz(one, m));
        ASSERT_EQ_U64(zkp_cs_csr_nnz(c3, m), zkp_cs_csr_nnz(one, m));
    }
    ASSERT(!memcmp(&d1, &d3, sizeof d1));
}

TEST_CASE(filecoin_porep_circuit_refuses_shapes_it_cannot_build) {
    static const zkp_fil_porep_shape bad[] = {
        {64, 3, 2, 8, 0, 0},  /* no column hash of arity 3 */
        {64, 2, 0, 8, 0, 0},  /* no challenges */
        {48, 2, 2, 8, 0, 0},  /* not a power of two */
        {64, 2, 2, 8, 0, 2},  /* a top level without a sub level */
        {64, 2, 2, 3, 0, 0},  /* arity 3 */
        {32, 2, 2, 8, 8, 0},  /* 32 nodes do not fill 8-8 */
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        zkp_cs cs;
        zkp_cs_init_counter(&cs);
        zkp_diag d = {{0}};
        ASSERT_EQ_STATUS(zkp_fil_porep_circuit_blank(&cs, &bad[i], &d),
                         ZKPIPE_ERR_INVALID_ARGUMENT);
        ASSERT(d.msg[0] != '\0');
        ASSERT_EQ_U64(cs.num_constraints, 0);
    }
}

/* ---- a sealed 2 KiB sector ---- */

/* The circuit's inputs 1.. equal the independently derived ones. */
static void check_inputs_(const zkp_fil_c1 *c1, const zkp_fr *inputs, size_t n_inputs) {
    const zkp_fil_seal_proof *p = c1->proof;
    size_t n = zkp_fil_porep_public_input_count(p);
    ASSERT_EQ_U64(n_inputs, n + 1);
    uint64_t *want = calloc(n, 4 * sizeof *want);
    ASSERT(want);
    uint8_t porep_id[32];
    zkp_fil_porep_id(porep_id, p->id);
    zkp_diag d = {{0}};
    zkpipe_status st = zkp_fil_porep_public_inputs(want, p, c1->replica_id.b, c1->comm_d.b,
                                                   c1->comm_r.b, c1->seed.b, porep_id, 0, &d);
    for (size_t i = 0; st == ZKPIPE_OK && i < n; i++) {
        zkp_fr c;
        bls12_381_fr_from_mont(&c, &inputs[i + 1]);
        if (memcmp(c.l, &want[4 * i], 32) != 0) {
            free(want);
            ASSERT_MSG(0, "input %zu differs", i + 1);
        }
    }
    free(want);
    ASSERT_MSG(st == ZKPIPE_OK, "%s", d.msg);
}

/* Counted, not checked: the shape is the blank circuit's, and the inputs
 * the circuit allocates are the public inputs of the sector. */
TEST_CASE(filecoin_porep_circuit_sealed_2kib_inputs) {
    const zkp_fil_c1 *c1 = test_sealed_2kib();
    zkp_cs cs;
    test_inputs_only *io = test_inputs_only_cs(&cs);
    zkp_diag d = {{0}};
    ASSERT_MSG(zkp_fil_porep_circuit(&cs, c1, 0, &d) == ZKPIPE_OK, "%s", d.msg);
    check_inputs_(c1, io->inputs, cs.num_inputs);

    zkp_fil_porep_shape s;
    zkp_fil_porep_shape_of(&s, c1->proof);
    zkp_cs blank;
    zkp_cs_init_counter(&blank);
    ASSERT_OK(zkp_fil_porep_circuit_blank(&blank, &s, &d));
    ASSERT_EQ_U64(cs.num_constraints, blank.num_constraints);
    ASSERT_EQ_U64(cs.num_aux, blank.num_aux);
    ASSERT_EQ_U64(cs.num_inputs, 40);

    ASSERT_EQ_STATUS(zkp_fil_porep_circuit(&cs, c1, 1, &d), ZKPIPE_ERR_OUT_OF_RANGE);
}

/* Synthesizes partition 0 of c1 into CSR rows with the witness; returns
 * whether every row holds. */
static int csr_satisfied_(const zkp_fil_c1 *c1, int check_inputs) {
    zkp_cs_csr *r = calloc(1, sizeof *r);
    ASSERT(r);
    test_defer(csr_free_, r);
    zkp_cs_csr_init(r, ZKP_CSR_MATRICES | ZKP_CSR_WITNESS);
    zkp_diag d = {{0}};
    ASSERT_MSG(zkp_fil_porep_circuit(&r->cs, c1, 0, &d) == ZKPIPE_OK, "%s", d.msg);
    ASSERT_OK(zkp_cs_csr_finish(r));
    if (check_inputs) check_inputs_(c1, r->inputs, r->cs.num_inputs);
    uint64_t bad = 0;
    return zkp_cs_csr_check(r, &bad);
}

/* Every constraint of the sealed sector's partition holds; a column row
 * changed after sealing (so the column hash no longer opens tree_c) does
 * not. */
TEST_CASE(filecoin_porep_circuit_sealed_2kib_satisfied_slow) {
    require_slow_("2.7 M constraints with their witness: set ZKPIPE_TEST_SLOW=1 to check them");
    const zkp_fil_c1 *c1 = test_sealed_2kib();
    ASSERT(csr_satisfied_(c1, 1));
    zkp_fil_domain *row = &c1->vanilla_proofs.v[0].v[1].replica_column_proofs.drg_parents.v[3]
                               .rows.v[1];
    row->b[0] ^= 1;
    ASSERT(!csr_satisfied_(c1, 0));
    row->b[0] ^= 1;
}

static void *blank_alloc_(void *ctx, size_t bytes, zkp_mem_category cat) {
    uint64_t *live = ctx;
    ASSERT_EQ_INT(cat, ZKP_MEM_CSR);
    *live += bytes;
    return aligned_alloc(ZKP_ALLOC_ALIGN, (bytes + ZKP_ALLOC_ALIGN - 1) / ZKP_ALLOC_ALIGN *
                                              ZKP_ALLOC_ALIGN);
}

static void blank_free_(void *ctx, void *p, size_t bytes, zkp_mem_category cat) {
    uint64_t *live = ctx;
    ASSERT_EQ_INT(cat, ZKP_MEM_CSR);
    *live -= bytes;
    free(p);
}

/* The blank 2 KiB partition's matrices, which a PoRep key records while it
 * loads, come from the caller's allocator (the engine's: the key's
 * reservation) under "csr", all of them, at the counted size; none from the
 * C library's heap. */
TEST_CASE(filecoin_porep_blank_matrices_from_the_callers_allocator) {
    const zkp_fil_seal_proof *p = zkp_fil_seal_proof_by_name("StackedDrg2KiBV1_1", 18);
    ASSERT(p != NULL);
    uint64_t live = 0;
    zkp_allocator al = {blank_alloc_, blank_free_, &live};
    zkp_cs_csr *r = NULL;
    zkp_diag d = {{0}};
    ASSERT_MSG(zkp_fil_c2_blank_matrices(&r, p, &al, &d) == ZKPIPE_OK, "%s", d.msg);
    ASSERT_EQ_U64(r->n_rows, 2687961);
    uint64_t want = 0;
    for (int m = 0; m < 3; m++) {
        ASSERT_EQ_U64(r->m[m].rows_cap, r->n_rows + 1);
        ASSERT_EQ_U64(r->m[m].cap, r->m[m].nnz ? r->m[m].nnz : 1);
        want += (r->n_rows + 1) * sizeof(uint64_t) +
                r->m[m].cap * (sizeof(uint32_t) + sizeof(bls12_381_fr_t));
    }
    ASSERT_EQ_U64(live, want);
    printf("  blank 2 KiB matrices: %.1f MiB from the allocator\n", (double)live / (1 << 20));
    zkp_fil_c2_blank_free(&r);
    ASSERT(r == NULL);
    ASSERT_EQ_U64(live, 0);
}

/* Proving synthesizes the witness alone, where gadgets build no linear
 * combinations (gadgets/cs.h): a partition's witness and its counts of
 * variables and constraints are those of the same synthesis with every
 * combination built, which counts the rows' non-zeros (COUNTS) and keeps
 * the witness beside them. */
TEST_CASE(filecoin_c2_witness_alone_matches_the_rows_mode) {
    const zkp_fil_c1 *c1 = test_sealed_2kib();
    zkp_cs_csr *r = calloc(1, sizeof *r);
    ASSERT(r);
    test_defer(csr_free_, r);
    zkp_cs_csr_init(r, ZKP_CSR_COUNTS | ZKP_CSR_WITNESS);
    ASSERT(zkp_cs_wants_lcs(&r->cs));
    zkp_diag d = {{0}};
    ASSERT_MSG(zkp_fil_porep_circuit(&r->cs, c1, 0, &d) == ZKPIPE_OK, "%s", d.msg);
    ASSERT_OK(zkp_cs_csr_finish(r));
    ASSERT(zkp_cs_csr_nnz(r, ZKP_CSR_A) > r->cs.num_constraints); /* the rows were read */
    zkp_cs counter;
    zkp_cs_init_counter(&counter);
    ASSERT(!zkp_cs_wants_lcs(&counter));
    ASSERT_MSG(zkp_fil_porep_circuit(&counter, c1, 0, &d) == ZKPIPE_OK, "%s", d.msg);
    ASSERT_EQ_U64(counter.num_constraints, r->cs.num_constraints);
    ASSERT_EQ_U64(counter.num_aux, r->cs.num_aux);
    ASSERT_EQ_U64(counter.num_inputs, r->cs.num_inputs);
    bls12_381_g16_pk_t pk;
    memset(&pk, 0, sizeof pk);
    pk.n_public = (uint32_t)(r->cs.num_inputs - 1);
    pk.n_vars = (uint32_t)(r->cs.num_inputs + r->cs.num_aux);
    size_t bytes = (size_t)pk.n_vars * 32;
    uint64_t *rows = malloc(bytes), *alone = malloc(bytes);
    ASSERT(rows && alone);
    zkp_cs_csr_witness(r, rows);
    memset(alone, 0xa5, bytes);
    ASSERT_MSG(zkp_fil_c2_synthesize(alone, &pk, c1, 0, 1, NULL, &d) == ZKPIPE_OK, "%s", d.msg);
    for (size_t j = 0; j < pk.n_vars; j++)
        ASSERT_MSG(!memcmp(rows + 4 * j, alone + 4 * j, 32), "variable %zu differs", j);
    free(alone);
    free(rows);
}

/* A partition's witness is the same made on one thread or several: the
 * challenges after the first synthesized on copies of the system whose
 * counters start where each challenge's variables fall
 * (zkp_fil_porep_circuit_mt). */
TEST_CASE(filecoin_c2_witness_the_same_on_threads) {
    const zkp_fil_c1 *c1 = test_sealed_2kib();
    zkp_cs cs;
    zkp_cs_init_counter(&cs);
    zkp_diag d = {{0}};
    ASSERT_MSG(zkp_fil_porep_circuit(&cs, c1, 0, &d) == ZKPIPE_OK, "%s", d.msg);
    bls12_381_g16_pk_t pk;
    memset(&pk, 0, sizeof pk);
    pk.n_public = (uint32_t)(cs.num_inputs - 1);
    pk.n_vars = (uint32_t)(cs.num_inputs + cs.num_aux);
    size_t bytes = (size_t)pk.n_vars * 32;
    uint64_t *one = malloc(bytes), *many = malloc(bytes);
    ASSERT(one && many);
    ASSERT_MSG(zkp_fil_c2_synthesize(one, &pk, c1, 0, 1, NULL, &d) == ZKPIPE_OK, "%s", d.msg);
    static const unsigned threads[] = {2, 4};
    for (size_t t = 0; t < sizeof threads / sizeof threads[0]; t++) {
        memset(many, 0xa5, bytes);
        ASSERT_MSG(zkp_fil_c2_synthesize(many, &pk, c1, 0, threads[t], NULL, &d) == ZKPIPE_OK, "%s",
                   d.msg);
        for (size_t j = 0; j < pk.n_vars; j++)
            ASSERT_MSG(!memcmp(one + 4 * j, many + 4 * j, 32), "%u threads: variable %zu differs",
                       threads[t], j);
    }
    /* A job's cancel flag, raised, stops it before a challenge, on one
     * thread or several. */
    atomic_int cancel;
    atomic_init(&cancel, 1);
    for (unsigned t = 1; t <= 2; t++) {
        d.msg[0] = 0;
        ASSERT_EQ_STATUS(zkp_fil_c2_synthesize(many, &pk, c1, 0, t, &cancel, &d),
                         ZKPIPE_ERR_CANCELLED);
        ASSERT(strstr(d.msg, "cancelled") != NULL);
    }
    free(many);
    free(one);
}
