/* The CSR and witness back end (src/gadgets/csr.h).
 *
 * The rows must be bellperson's prover's: a variable repeated in one
 * combination is one entry (bellpepper's LinearCombination merges them), a
 * zero coefficient is no entry, inputs come before aux variables, the input
 * constraints follow the circuit's own, and aux columns start after the last
 * input even when inputs were allocated between constraints. The counts
 * below are worked out by hand from the gadgets' definitions. A circuit
 * recorded this way is then proved by the Groth16 prover with INSECURE
 * development parameters made for it (setup/dev_params.h, from a seed), from
 * the witness alone and through the engine's compiled CSR (circuit/), and
 * both proofs checked against the .vk written with the parameters. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "circuit/circuit.h"
#include "curve/curve.h"
#include "formats/bellperson.h"
#include "gadgets/csr.h"
#include "gadgets/label.h"
#include "gadgets/sha256.h"
#include "groth16/groth16.h"
#include "setup/dev_params.h"
#include "test.h"
#include "util/fileio.h"

typedef bls12_381_fr_t fr_t;

static void csr_free_(void *p) {
    zkp_cs_csr_free(p);
    free(p);
}

static zkp_cs_csr *new_csr_(unsigned what) {
    zkp_cs_csr *r = calloc(1, sizeof *r);
    ASSERT(r);
    test_defer(csr_free_, r);
    zkp_cs_csr_init(r, what);
    return r;
}

static uint64_t row_len_(const zkp_cs_csr *r, int m, uint64_t row) {
    return r->m[m].row_ptr[row + 1] - r->m[m].row_ptr[row];
}

/* Two bits x and y, x XOR y, a hand-made constraint in which x appears twice
 * and y cancels out, and both bits packed into a public input allocated
 * after them. */
static void small_circuit_(zkp_cs *cs, int vx, int vy) {
    zkp_bool x = zkp_bool_alloc(cs, vx), y = zkp_bool_alloc(cs, vy);
    (void)zkp_bool_xor(cs, &x, &y); /* (x + x) * y = x + y - r */
    zkp_lc a, b, c;
    zkp_lc_init(&a);
    zkp_lc_init(&b);
    zkp_lc_init(&c);
    zkp_lc_add_one(&a, x.var); /* (x + y - y + x) * ONE = x + x */
    zkp_lc_add_one(&a, y.var);
    zkp_lc_sub_one(&a, y.var);
    zkp_lc_add_one(&a, x.var);
    zkp_lc_add_one(&b, ZKP_VAR_ONE);
    zkp_lc_add_one(&c, x.var);
    zkp_lc_add_one(&c, x.var);
    zkp_cs_enforce(cs, &a, &b, &c);
    zkp_bool bits[2] = {x, y};
    zkp_pack_into_inputs(cs, bits, 2); /* (x + 2y) * ONE = input 1 */
}

/* An allocator that counts what it hands out, for the matrices. */
typedef struct {
    zkp_allocator al;
    uint64_t live, allocs, frees;
    zkp_mem_category cat;
} counting_alloc_;

static void *counting_alloc_fn_(void *ctx, size_t bytes, zkp_mem_category cat) {
    counting_alloc_ *c = ctx;
    ASSERT_EQ_INT(cat, c->cat);
    c->live += bytes;
    c->allocs++;
    return aligned_alloc(ZKP_ALLOC_ALIGN, (bytes + ZKP_ALLOC_ALIGN - 1) / ZKP_ALLOC_ALIGN *
                                              ZKP_ALLOC_ALIGN);
}

static void counting_free_fn_(void *ctx, void *p, size_t bytes, zkp_mem_category cat) {
    counting_alloc_ *c = ctx;
    ASSERT_EQ_INT(cat, c->cat);
    ASSERT(c->live >= bytes);
    c->live -= bytes;
    c->frees++;
    free(p);
}

static void counting_init_(counting_alloc_ *c, zkp_mem_category cat) {
    memset(c, 0, sizeof *c);
    c->al.alloc = counting_alloc_fn_;
    c->al.free = counting_free_fn_;
    c->al.ctx = c;
    c->cat = cat;
}

static void same_matrices_(const zkp_cs_csr *x, const zkp_cs_csr *y) {
    ASSERT_EQ_U64(x->n_rows, y->n_rows);
    for (int m = 0; m < 3; m++) {
        ASSERT_EQ_U64(x->m[m].nnz, y->m[m].nnz);
        ASSERT(!memcmp(x->m[m].row_ptr, y->m[m].row_ptr, (x->n_rows + 1) * sizeof(uint64_t)));
        ASSERT(!memcmp(x->m[m].col, y->m[m].col, x->m[m].nnz * sizeof(uint32_t)));
        ASSERT(!memcmp(x->m[m].val, y->m[m].val, x->m[m].nnz * sizeof(fr_t)));
    }
}

/* Matrices from a caller's allocator, sized by a count of the same system:
 * one allocation per array at exactly the counted size and no growth, the
 * rows the heap's recording gives, every byte back at free; announced too
 * small, they still grow, through the allocator. */
TEST_CASE(gadgets_csr_matrices_from_an_allocator) {
    zkp_cs_csr *count = new_csr_(ZKP_CSR_COUNTS), *heap = new_csr_(ZKP_CSR_MATRICES);
    small_circuit_(&count->cs, 1, 0);
    small_circuit_(&heap->cs, 1, 0);
    ASSERT_OK(zkp_cs_csr_finish(count));
    ASSERT_OK(zkp_cs_csr_finish(heap));
    uint64_t nnz[3], want = 0;
    for (int m = 0; m < 3; m++) {
        nnz[m] = zkp_cs_csr_nnz(count, m);
        want += (count->n_rows + 1) * sizeof(uint64_t) +
                (nnz[m] ? nnz[m] : 1) * (sizeof(uint32_t) + sizeof(fr_t));
    }
    counting_alloc_ ca;
    counting_init_(&ca, ZKP_MEM_CSR);
    zkp_cs_csr r;
    zkp_cs_csr_init(&r, ZKP_CSR_MATRICES);
    ASSERT_OK(zkp_cs_csr_matrices_from(&r, &ca.al, ZKP_MEM_CSR, count->n_rows, nnz));
    ASSERT_EQ_U64(ca.allocs, 9);
    ASSERT_EQ_U64(ca.live, want);
    ASSERT_EQ_STATUS(zkp_cs_csr_matrices_from(&r, &ca.al, ZKP_MEM_CSR, count->n_rows, nnz),
                     ZKPIPE_ERR_INVALID_ARGUMENT);
    small_circuit_(&r.cs, 1, 0);
    ASSERT_OK(zkp_cs_csr_finish(&r));
    ASSERT_EQ_U64(ca.allocs, 9);
    ASSERT_EQ_U64(ca.live, want);
    same_matrices_(&r, heap);
    zkp_cs_csr_free(&r);
    ASSERT_EQ_U64(ca.live, 0);
    ASSERT_EQ_U64(ca.frees, 9);

    const uint64_t one[3] = {1, 1, 1};
    zkp_cs_csr_init(&r, ZKP_CSR_MATRICES);
    ASSERT_OK(zkp_cs_csr_matrices_from(&r, &ca.al, ZKP_MEM_CSR, 1, one));
    small_circuit_(&r.cs, 1, 0);
    ASSERT_OK(zkp_cs_csr_finish(&r));
    ASSERT(ca.allocs > 18);
    same_matrices_(&r, heap);
    zkp_cs_csr_free(&r);
    ASSERT_EQ_U64(ca.live, 0);
    ASSERT_EQ_U64(ca.frees, ca.allocs);

    /* Counts and witness modes have no matrices to place. */
    zkp_cs_csr w;
    zkp_cs_csr_init(&w, ZKP_CSR_WITNESS);
    ASSERT_EQ_STATUS(zkp_cs_csr_matrices_from(&w, &ca.al, ZKP_MEM_CSR, 1, one),
                     ZKPIPE_ERR_INVALID_ARGUMENT);
    zkp_cs_csr_free(&w);
}

TEST_CASE(gadgets_csr_merges_like_bellpepper) {
    zkp_cs_csr *r = new_csr_(ZKP_CSR_MATRICES | ZKP_CSR_WITNESS);
    small_circuit_(&r->cs, 1, 1);
    ASSERT_EQ_U64(r->cs.num_constraints, 5);
    ASSERT_OK(zkp_cs_csr_finish(r));
    ASSERT_EQ_STATUS(zkp_cs_csr_finish(r), ZKPIPE_ERR_INVALID_ARGUMENT);
    /* 5 rows of the circuit, then one per input (ONE and the packed bits) */
    ASSERT_EQ_U64(r->n_rows, 7);
    ASSERT_EQ_U64(r->n_cols, 2 + 3); /* inputs ONE, packed; aux x, y, x^y */
    /* A: 1 - x, 1 - y, 2x (merged), 2x (y cancelled), x + 2y, then the input
     * rows; without merging it would be 2 + 2 + 2 + 4 + 2 + 2 = 14 */
    ASSERT_EQ_U64(r->m[ZKP_CSR_A].nnz, 2 + 2 + 1 + 1 + 2 + 2);
    ASSERT_EQ_U64(r->m[ZKP_CSR_B].nnz, 5);
    ASSERT_EQ_U64(r->m[ZKP_CSR_C].nnz, 0 + 0 + 3 + 1 + 1);
    ASSERT_EQ_U64(row_len_(r, ZKP_CSR_A, 2), 1);
    ASSERT_EQ_U64(row_len_(r, ZKP_CSR_A, 3), 1);
    ASSERT_EQ_U64(row_len_(r, ZKP_CSR_C, 3), 1);
    const zkp_csr_matrix *A = &r->m[ZKP_CSR_A];
    /* x is aux 0, so column 2 once both inputs are counted */
    fr_t two;
    bls12_381_fr_set_u64(&two, 2);
    ASSERT_EQ_U64(A->col[A->row_ptr[2]], 2);
    ASSERT(bls12_381_fr_eq(&A->val[A->row_ptr[2]], &two));
    ASSERT_EQ_U64(A->col[A->row_ptr[3]], 2);
    ASSERT(bls12_381_fr_eq(&A->val[A->row_ptr[3]], &two));
    /* 1 - x: ONE (column 0) first */
    ASSERT_EQ_U64(A->col[A->row_ptr[0]], 0);
    ASSERT_EQ_U64(A->col[A->row_ptr[0] + 1], 2);
    /* the packing row's C is input 1; the input rows are A = column i */
    ASSERT_EQ_U64(r->m[ZKP_CSR_C].col[r->m[ZKP_CSR_C].row_ptr[4]], 1);
    ASSERT_EQ_U64(A->col[A->row_ptr[5]], 0);
    ASSERT_EQ_U64(A->col[A->row_ptr[6]], 1);
    ASSERT_EQ_U64(row_len_(r, ZKP_CSR_B, 5) + row_len_(r, ZKP_CSR_C, 6), 0);
    zkp_csr_density d;
    ASSERT_OK(zkp_cs_csr_density(r, &d));
    ASSERT_EQ_U64(d.a_input, 2); /* full, by the input rows */
    ASSERT_EQ_U64(d.a_aux, 2);   /* x, y; the xor result only in C */
    ASSERT_EQ_U64(d.b_input, 1); /* ONE */
    ASSERT_EQ_U64(d.b_aux, 2);
    ASSERT(zkp_cs_csr_check(r, NULL));
    uint64_t w[5 * 4];
    zkp_cs_csr_witness(r, w);
    static const uint64_t want[5] = {1, 3, 1, 1, 0}; /* ONE, x + 2y, x, y, x^y */
    for (int j = 0; j < 5; j++) {
        ASSERT_EQ_U64(w[4 * j], want[j]);
        ASSERT_EQ_U64(w[4 * j + 1] | w[4 * j + 2] | w[4 * j + 3], 0);
    }
    ASSERT_EQ_U64(zkp_cs_csr_key_coefs(r, NULL), 10 + 5);

    /* the counts-only mode finds the same figures without keeping a row */
    zkp_cs_csr *cnt = new_csr_(ZKP_CSR_COUNTS);
    small_circuit_(&cnt->cs, 1, 1);
    ASSERT_OK(zkp_cs_csr_finish(cnt));
    ASSERT(cnt->m[ZKP_CSR_A].col == NULL && cnt->aux == NULL);
    ASSERT_EQ_U64(cnt->n_rows, 7);
    ASSERT_EQ_U64(zkp_cs_csr_nnz(cnt, ZKP_CSR_A), 10);
    ASSERT_EQ_U64(zkp_cs_csr_nnz(cnt, ZKP_CSR_B), 5);
    ASSERT_EQ_U64(zkp_cs_csr_nnz(cnt, ZKP_CSR_C), 5);
    zkp_csr_density dc;
    ASSERT_OK(zkp_cs_csr_density(cnt, &dc));
    ASSERT_MEM_EQ(&dc, &d, sizeof d);
}

/* SHA-256("abc") with its input bits: every row holds with the witness, a
 * changed value breaks a row, the witness-only mode gives the same witness
 * without any matrix, and the counts-only mode the same non-zero counts and
 * densities. */
TEST_CASE(gadgets_csr_sha256_rows_hold) {
    zkp_cs_csr *r = new_csr_(ZKP_CSR_MATRICES | ZKP_CSR_WITNESS);
    zkp_cs_csr *wo = new_csr_(ZKP_CSR_WITNESS);
    zkp_cs_csr *cnt = new_csr_(ZKP_CSR_COUNTS);
    zkp_cs *sys[3] = {&r->cs, &wo->cs, &cnt->cs};
    for (int s = 0; s < 3; s++) {
        zkp_bool bits[24], digest[256];
        for (int i = 0; i < 24; i++)
            bits[i] = zkp_bool_alloc(sys[s], ("abc"[i / 8] >> (7 - i % 8)) & 1);
        zkp_sha256_gadget(sys[s], bits, 24, digest);
        zkp_pack_into_inputs(sys[s], digest, 256);
    }
    ASSERT_OK(zkp_cs_csr_finish(r));
    ASSERT_OK(zkp_cs_csr_finish(wo));
    ASSERT_OK(zkp_cs_csr_finish(cnt));
    zkp_csr_density dm, dc;
    ASSERT_OK(zkp_cs_csr_density(r, &dm));
    ASSERT_OK(zkp_cs_csr_density(cnt, &dc));
    ASSERT_MEM_EQ(&dc, &dm, sizeof dm);
    ASSERT_EQ_U64(dm.a_input, 3);
    ASSERT_EQ_U64(dm.b_input, 1); /* ONE only, as in the PoRep circuit */
    for (int m = 0; m < 3; m++) ASSERT_EQ_U64(zkp_cs_csr_nnz(cnt, m), zkp_cs_csr_nnz(r, m));
    ASSERT_EQ_U64(r->n_rows, r->cs.num_constraints + 3);
    ASSERT_EQ_U64(wo->n_rows, r->n_rows);
    ASSERT_EQ_U64(wo->n_cols, r->n_cols);
    ASSERT(wo->m[ZKP_CSR_A].col == NULL && wo->m[ZKP_CSR_A].nnz == 0);
    ASSERT(!zkp_cs_csr_check(wo, NULL)); /* no rows to check, so not "satisfied" */
    ASSERT_EQ_U64(zkp_cs_csr_key_coefs(wo, NULL), 0);
    uint64_t bad = 0;
    ASSERT_MSG(zkp_cs_csr_check(r, &bad), "row %llu", (unsigned long long)bad);
    size_t bytes = (size_t)r->n_cols * 32;
    uint64_t *w1 = malloc(bytes), *w2 = malloc(bytes);
    ASSERT(w1 && w2);
    test_defer(free, w1);
    test_defer(free, w2);
    zkp_cs_csr_witness(r, w1);
    zkp_cs_csr_witness(wo, w2);
    ASSERT_MEM_EQ(w1, w2, bytes);
    /* input 1 is the first 254 digest bits of SHA-256("abc") = ba7816bf...,
     * read least significant first: its low byte has the bits of 0xba in
     * that order, i.e. 0x5d */
    ASSERT_EQ_U64(w1[4] & 0xff, 0x5d);
    /* the first message bit set to 2 breaks its booleanity row, row 0 */
    bls12_381_fr_set_u64(&r->aux[0], 2);
    ASSERT(!zkp_cs_csr_check(r, &bad));
    ASSERT_EQ_U64(bad, 0);

    /* The witness written into a vector of the key's shape: the same values,
     * with no copy; a vector one aux short fails synthesis, one too long
     * fails finish; only a fresh witness-only system takes a vector. */
    uint32_t n_in = (uint32_t)r->cs.num_inputs, n_aux = (uint32_t)r->cs.num_aux;
    for (int c = 0; c < 3; c++) {
        zkp_cs_csr *into = new_csr_(ZKP_CSR_WITNESS);
        uint64_t *w3 = calloc((size_t)r->n_cols + 1, 32);
        ASSERT(w3);
        test_defer(free, w3);
        uint32_t aux = c == 0 ? n_aux : c == 1 ? n_aux - 1 : n_aux + 1;
        ASSERT_OK(zkp_cs_csr_witness_into(into, w3, n_in, aux));
        zkp_bool bits[24], digest[256];
        for (int i = 0; i < 24; i++)
            bits[i] = zkp_bool_alloc(&into->cs, ("abc"[i / 8] >> (7 - i % 8)) & 1);
        zkp_sha256_gadget(&into->cs, bits, 24, digest);
        zkp_pack_into_inputs(&into->cs, digest, 256);
        zkpipe_status st = zkp_cs_csr_finish(into);
        if (c == 0) {
            ASSERT_OK(st);
            ASSERT_MEM_EQ(w3, w2, bytes);
        } else {
            ASSERT_EQ_STATUS(st, c == 1 ? ZKPIPE_ERR_OUT_OF_RANGE : ZKPIPE_ERR_SIZE_MISMATCH);
        }
        ASSERT_EQ_STATUS(zkp_cs_csr_witness_into(into, w3, n_in, aux),
                         ZKPIPE_ERR_INVALID_ARGUMENT);
    }
    zkp_cs_csr *matrices = new_csr_(ZKP_CSR_MATRICES | ZKP_CSR_WITNESS);
    ASSERT_EQ_STATUS(zkp_cs_csr_witness_into(matrices, w1, n_in, n_aux),
                     ZKPIPE_ERR_INVALID_ARGUMENT);
}

/* ---- a proof of a recorded circuit, with development parameters ---- */

static void bp_vk_free_(void *p) {
    zkp_bp_vk_free(p);
    free(p);
}

static void dev_params_free_(void *p) {
    zkp_dev_params_free(p);
    free(p);
}

/* A challenge made public through UInt64 (inputs between constraints), the
 * encoding of a label-sized value, and the sum made public too: recorded,
 * proved with the Groth16 prover and accepted by the verifier for its public
 * inputs, and refused for another challenge. */
TEST_CASE(gadgets_csr_prove_and_verify) {
    zkp_cs_csr *r = new_csr_(ZKP_CSR_MATRICES | ZKP_CSR_WITNESS);
    zkp_cs *cs = &r->cs;
    uint64_t challenge = test_rng_u64();
    zkp_u64 node = zkp_u64_alloc(cs, challenge);
    zkp_u64_pack_into_input(cs, &node);
    fr_t a, b, s;
    ASSERT_OK(bls12_381_fr_random(&a));
    ASSERT_OK(bls12_381_fr_random(&b));
    zkp_var va = zkp_cs_alloc(cs, &a), vb = zkp_cs_alloc(cs, &b);
    zkp_var sum = zkp_constraint_add(cs, va, &a, vb, &b, &s);
    zkp_var pub = zkp_cs_alloc_input(cs, &s);
    zkp_constraint_equal(cs, sum, pub);
    small_circuit_(cs, 0, 1);
    ASSERT_OK(zkp_cs_csr_finish(r));
    ASSERT(zkp_cs_csr_check(r, NULL));
    ASSERT_EQ_U64(r->cs.num_inputs, 4);

    zkp_dev_params *dp = calloc(1, sizeof *dp);
    ASSERT(dp);
    test_defer(dev_params_free_, dp);
    uint8_t seed[32];
    test_rng_bytes(seed, sizeof seed);
    zkp_dev_params_options dopt = {.seed = seed, .nthreads = 2, .prover_key = 1};
    zkp_diag d = {{0}};
    ASSERT_MSG(zkp_dev_params_generate(dp, r, &dopt, &d) == ZKPIPE_OK, "%s", d.msg);
    zkp_g16_pk pk = {.curve = ZKPIPE_CURVE_BLS12_381};
    pk.u.bls12_381 = dp->pk;
    zkp_buffer wit = {NULL, (size_t)r->n_cols * 32, ZKP_MEM_WITNESS, NULL};
    wit.ptr = zkp_alloc(NULL, wit.bytes, ZKP_MEM_WITNESS);
    ASSERT(wit.ptr);
    zkp_cs_csr_witness(r, wit.ptr);
    zkp_g16_public in = {ZKPIPE_CURVE_BLS12_381, 3, malloc(3 * 32)};
    ASSERT(in.values);
    test_defer(free, in.values);
    memcpy(in.values, (uint64_t *)wit.ptr + 4, 3 * 32);
    ASSERT_EQ_U64(in.values[0], challenge);

    /* the engine's path too: the key's coefficients compiled into the
     * circuit layer's CSR, a and b synthesized from it */
    zkp_circuit circ;
    ASSERT_MSG(zkp_circuit_build(&circ, &pk, NULL, &d) == ZKPIPE_OK, "%s", d.msg);
    size_t abc_bytes = zkp_circuit_abc_bytes(&circ);
    zkp_buffer abc = {zkp_alloc(NULL, abc_bytes, ZKP_MEM_ABC), abc_bytes, ZKP_MEM_ABC, NULL};
    zkp_buffer wit2 = {zkp_alloc(NULL, wit.bytes, ZKP_MEM_WITNESS), wit.bytes, ZKP_MEM_WITNESS, NULL};
    ASSERT(abc.ptr && wit2.ptr);
    memcpy(wit2.ptr, wit.ptr, wit.bytes);
    zkp_circuit_synthesize(&circ, wit2.ptr, abc.ptr, 1);
    zkp_circuit_free(&circ);

    zkp_g16_prove_opts opts = {.nthreads = 1};
    zkp_g16_pending *p = NULL;
    ASSERT_MSG(zkp_g16_prove_start(&p, &pk, &wit, &opts, &d) == ZKPIPE_OK, "%s", d.msg);
    zkp_g16_proof proof, proof2;
    ASSERT_MSG(zkp_g16_prove_finalize(&proof, p, NULL, &d) == ZKPIPE_OK, "%s", d.msg);
    ASSERT_MSG(zkp_g16_prove_start_abc(&p, &pk, &wit2, &abc, &opts, &d) == ZKPIPE_OK, "%s", d.msg);
    ASSERT_MSG(zkp_g16_prove_finalize(&proof2, p, NULL, &d) == ZKPIPE_OK, "%s", d.msg);
    /* checked against the .vk as written and read back */
    char dir[] = "/tmp/zkp_csr_XXXXXX", params_path[64], vk_path[64];
    ASSERT(mkdtemp(dir) != NULL);
    snprintf(params_path, sizeof params_path, "%s/k.params", dir);
    snprintf(vk_path, sizeof vk_path, "%s/k.vk", dir);
    zkpipe_status wst = zkp_dev_params_make_files(r, &dopt, params_path, vk_path, NULL, &d);
    char *vk_bytes = NULL;
    size_t vk_len = 0;
    zkpipe_status rst = zkp_read_file(vk_path, 1 << 20, &vk_bytes, &vk_len, &d);
    remove(params_path);
    remove(vk_path);
    rmdir(dir);
    ASSERT_MSG(wst == ZKPIPE_OK && rst == ZKPIPE_OK, "%s", d.msg);
    test_defer(free, vk_bytes);
    zkp_bp_vk *bvk = calloc(1, sizeof *bvk);
    ASSERT(bvk);
    test_defer(bp_vk_free_, bvk);
    ASSERT_MSG(zkp_bp_vk_parse(bvk, (const uint8_t *)vk_bytes, vk_len, 1, NULL, vk_path, NULL,
                               &d) == ZKPIPE_OK,
               "%s", d.msg);
    ASSERT_EQ_U64(bvk->n_ic, 4);
    zkp_g16_vk vk;
    zkp_bp_vk_to_g16(&vk, bvk);
    ASSERT_MSG(zkp_g16_verify(&vk, &in, &proof, &d) == ZKPIPE_OK, "%s", d.msg);
    ASSERT_MSG(zkp_g16_verify(&vk, &in, &proof2, &d) == ZKPIPE_OK, "%s", d.msg);
    in.values[0] ^= 1;
    ASSERT_EQ_STATUS(zkp_g16_verify(&vk, &in, &proof, &d), ZKPIPE_ERR_PROOF_INVALID);
}
