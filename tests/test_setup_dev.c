/* INSECURE development parameters for a recorded circuit (setup/dev_params.h).
 *
 * The answers come from outside the generator: the section lengths are the
 * CSR back end's column densities (test_gadgets_csr.c checks those against
 * counts worked out by hand), bellperson's h is compared with the one the
 * formats layer derives from the coset H query by its own discrete Fourier
 * transform over G1 (zkp_bp_h_from_g16_pk, tested against the synthetic
 * keys), the file is read back by bellperson's loader with every point
 * checked, and a proof made with the same toxic waste by zkpipe's prover
 * verifies under the .vk as written, and fails for another public input. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "formats/bellperson.h"
#include "gadgets/csr.h"
#include "gadgets/multipack.h"
#include "gadgets/sha256.h"
#include "groth16/groth16.h"
#include "setup/bp_key.h"
#include "setup/dev_params.h"
#include "gadgets_support.h"
#include "gpu_support.h"
#include "test.h"
#include "util/fileio.h"

typedef struct {
    char dir[32], params[64], vk[64];
} tmp_files;

static void tmp_files_remove_(void *p) {
    tmp_files *t = p;
    remove(t->params);
    remove(t->vk);
    rmdir(t->dir);
    free(t);
}

static tmp_files *tmp_files_(void) {
    tmp_files *t = calloc(1, sizeof *t);
    ASSERT(t);
    snprintf(t->dir, sizeof t->dir, "/tmp/zkp_dev_XXXXXX");
    ASSERT(mkdtemp(t->dir) != NULL);
    snprintf(t->params, sizeof t->params, "%s/dev.params", t->dir);
    snprintf(t->vk, sizeof t->vk, "%s/dev.vk", t->dir);
    test_defer(tmp_files_remove_, t);
    return t;
}

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

static void dev_free_(void *p) {
    zkp_dev_params_free(p);
    free(p);
}

static zkp_dev_params *generate_on_(const zkp_cs_csr *r, const uint8_t *seed, int prover_key,
                                    zkp_gpu *gpu) {
    zkp_dev_params *dp = calloc(1, sizeof *dp);
    ASSERT(dp);
    test_defer(dev_free_, dp);
    zkp_dev_params_options o = {.seed = seed, .nthreads = 2, .prover_key = prover_key,
                                .gpu = gpu};
    zkp_diag d = {{0}};
    ASSERT_MSG(zkp_dev_params_generate(dp, r, &o, &d) == ZKPIPE_OK, "%s", d.msg);
    return dp;
}

static zkp_dev_params *generate_(const zkp_cs_csr *r, const uint8_t *seed, int prover_key) {
    return generate_on_(r, seed, prover_key, NULL);
}

static void params_free_(void *p) {
    zkp_bp_params_free(p);
    free(p);
}

/* dp written to f's two files by the formats layer's encoder and read back
 * by bellperson's loader (its lengths and verifying key checked; sections
 * decoded on demand), freed when the case ends. */
static zkp_bp_params *write_and_load_(const zkp_dev_params *dp, const tmp_files *f) {
    zkp_diag d = {{0}};
    zkp_bp_params_src src;
    zkp_dev_params_src(&src, dp);
    ASSERT_MSG(zkp_bp_params_write(f->params, &src, NULL, &d) == ZKPIPE_OK, "%s", d.msg);
    ASSERT_MSG(zkp_bp_vk_write(f->vk, &dp->vk, &d) == ZKPIPE_OK, "%s", d.msg);
    zkp_bp_params *bp = calloc(1, sizeof *bp);
    ASSERT(bp);
    zkp_bp_params_options po = {NULL, 2, 0, NULL};
    ASSERT_MSG(zkp_bp_params_load(bp, f->params, &po, &d) == ZKPIPE_OK, "%s", d.msg);
    test_defer(params_free_, bp);
    return bp;
}

/* Eight message bits, a chain of xors over them (aux variables only in A
 * and B or only in C), the bits packed into a public input and the last xor
 * into another: 20 rows with the input constraints, a domain of 32. */
static void xor_chain_(zkp_cs *cs, uint8_t byte) {
    zkp_bool bits[8], acc;
    for (int i = 0; i < 8; i++) bits[i] = zkp_bool_alloc(cs, (byte >> i) & 1);
    acc = bits[0];
    for (int i = 1; i < 8; i++) acc = zkp_bool_xor(cs, &acc, &bits[i]);
    zkp_pack_into_inputs(cs, bits, 8);
    zkp_pack_into_inputs(cs, &acc, 1);
}

/* Proves the recorded circuit r with key and checks the proof against the
 * verifying key vk: it verifies for r's inputs and not for changed ones.
 * With fixed_rs (test_fixed_rs), the proof goes to *out too. */
static void prove_and_verify_rs_(const zkp_cs_csr *r, const bls12_381_g16_pk_t *key,
                                 const zkp_bp_vk *vk, const uint64_t *fixed_rs,
                                 zkp_g16_proof *out) {
    zkp_diag d = {{0}};
    zkp_g16_pk pk = {.curve = ZKPIPE_CURVE_BLS12_381};
    pk.u.bls12_381 = *key;
    zkp_buffer wit = {NULL, (size_t)r->n_cols * 32, ZKP_MEM_WITNESS, NULL};
    wit.ptr = zkp_alloc(NULL, wit.bytes, ZKP_MEM_WITNESS);
    ASSERT(wit.ptr);
    zkp_cs_csr_witness(r, wit.ptr);
    size_t n_pub = (size_t)r->cs.num_inputs - 1;
    zkp_g16_public in = {ZKPIPE_CURVE_BLS12_381, n_pub, malloc(n_pub * 32)};
    ASSERT(in.values);
    test_defer(free, in.values);
    memcpy(in.values, (uint64_t *)wit.ptr + 4, n_pub * 32);
    zkp_g16_prove_opts opts = {.nthreads = 2, .test_fixed_rs = fixed_rs};
    zkp_g16_pending *p = NULL;
    ASSERT_MSG(zkp_g16_prove_start(&p, &pk, &wit, &opts, &d) == ZKPIPE_OK, "%s", d.msg);
    zkp_g16_proof proof;
    ASSERT_MSG(zkp_g16_prove_finalize(&proof, p, NULL, &d) == ZKPIPE_OK, "%s", d.msg);
    zkp_g16_vk gvk;
    zkp_bp_vk_to_g16(&gvk, vk);
    ASSERT_MSG(zkp_g16_verify(&gvk, &in, &proof, &d) == ZKPIPE_OK, "%s", d.msg);
    in.values[0] ^= 1;
    ASSERT_EQ_STATUS(zkp_g16_verify(&gvk, &in, &proof, &d), ZKPIPE_ERR_PROOF_INVALID);
    if (out) *out = proof;
}

static void prove_and_verify_(const zkp_cs_csr *r, const bls12_381_g16_pk_t *key,
                              const zkp_bp_vk *vk) {
    prove_and_verify_rs_(r, key, vk, NULL, NULL);
}

static void bp_key_free_(void *p) {
    zkp_bp_key_free(p);
    free(p);
}

/* Every section of bp decoded: its points and their counts. */
static void sections_(zkp_bp_params *bp, const void *sec[ZKP_BP_SECTION_COUNT],
                      size_t count[ZKP_BP_SECTION_COUNT]) {
    zkp_diag d = {{0}};
    for (int s = 0; s < ZKP_BP_SECTION_COUNT; s++) {
        ASSERT_MSG(zkp_bp_params_section(bp, (zkp_bp_section)s, &sec[s], &d) == ZKPIPE_OK, "%s",
                   d.msg);
        count[s] = bp->sec[s].count;
    }
}

/* The prover key made from the decoded sections of bp (setup/bp_key.h)
 * proves r, the proof verifying under bp's verifying key and equal, for
 * the same r and s, to the proof of the dense key it was written from:
 * the file's a and b sections are as long as the used columns, and the
 * key lists those columns rather than expanding the sections. */
static void prove_with_file_key_(const zkp_cs_csr *r, zkp_bp_params *bp,
                                 const bls12_381_g16_pk_t *dense) {
    zkp_diag d = {{0}};
    ASSERT_MSG(zkp_bp_params_fit(bp, r, &d) == ZKPIPE_OK, "%s", d.msg);
    const void *sec[ZKP_BP_SECTION_COUNT];
    size_t count[ZKP_BP_SECTION_COUNT];
    sections_(bp, sec, count);
    zkp_bp_key *k = calloc(1, sizeof *k);
    ASSERT(k);
    test_defer(bp_key_free_, k);
    ASSERT_MSG(zkp_bp_key_init(k, r, &bp->vk, sec, count, NULL, &d) == ZKPIPE_OK, "%s", d.msg);
    ASSERT(k->pk.h_coefficients);
    ASSERT_EQ_U64(bls12_381_g16_h_len(&k->pk), k->pk.domain_size - 1);
    ASSERT_EQ_U64(bls12_381_g16_a_count(&k->pk), count[ZKP_BP_A]);
    ASSERT_EQ_U64(bls12_381_g16_b_count(&k->pk), count[ZKP_BP_B_G1]);
    ASSERT(count[ZKP_BP_B_G1] < r->n_cols && k->pk.b_cols != NULL);
    for (size_t i = 1; i < k->pk.b_len; i++) ASSERT(k->pk.b_cols[i - 1] < k->pk.b_cols[i]);
    const uint64_t rs[8] = {3, 0, 0, 0, 5, 0, 0, 0};
    zkp_g16_proof sparse, full;
    prove_and_verify_rs_(r, &k->pk, &bp->vk, rs, &sparse);
    prove_and_verify_rs_(r, dense, &bp->vk, rs, &full);
    ASSERT_MSG(memcmp(&sparse, &full, sizeof sparse) == 0,
               "the key with column lists proves otherwise than the dense key");
}

/* The small circuit end to end: the file's sections as long as the
 * densities, each decoded point the key's, h the DFT of the coset query,
 * the proof accepted under the loaded key, and the seed deciding every
 * byte. */
TEST_CASE(setup_dev_params_small_circuit) {
    zkp_cs_csr *r = new_csr_(ZKP_CSR_MATRICES | ZKP_CSR_WITNESS);
    xor_chain_(&r->cs, 0xa5);
    ASSERT_OK(zkp_cs_csr_finish(r));
    ASSERT_EQ_U64(r->n_rows, 8 + 7 + 2 + 3);
    uint8_t seed[32];
    test_rng_bytes(seed, sizeof seed);
    zkp_dev_params *dp = generate_(r, seed, 1);
    ASSERT_EQ_U64(dp->domain_size, 32);
    tmp_files *f = tmp_files_();
    zkp_diag d = {{0}};
    zkp_bp_params *bp = write_and_load_(dp, f);
    zkp_csr_density den;
    ASSERT_OK(zkp_cs_csr_density(r, &den));
    ASSERT_EQ_U64(bp->vk.n_ic, 3);
    ASSERT_EQ_U64(bp->sec[ZKP_BP_H].count, 31);
    ASSERT_EQ_U64(bp->sec[ZKP_BP_L].count, r->cs.num_aux);
    ASSERT_EQ_U64(bp->sec[ZKP_BP_A].count, den.a_input + den.a_aux);
    ASSERT_EQ_U64(bp->sec[ZKP_BP_B_G1].count, den.b_input + den.b_aux);
    ASSERT_EQ_U64(bp->sec[ZKP_BP_B_G2].count, den.b_input + den.b_aux);

    /* every section decoded (every point checked) equals the key's points,
     * the identities left out */
    const void *sec[ZKP_BP_SECTION_COUNT];
    for (int s = 0; s < ZKP_BP_SECTION_COUNT; s++)
        ASSERT_MSG(zkp_bp_params_section(bp, (zkp_bp_section)s, &sec[s], &d) == ZKPIPE_OK, "%s",
                   d.msg);
    ASSERT_MEM_EQ(sec[ZKP_BP_L], dp->l, r->cs.num_aux * sizeof(bls12_381_g1_affine_t));
    const bls12_381_g1_affine_t *fa = sec[ZKP_BP_A], *fb1 = sec[ZKP_BP_B_G1];
    const bls12_381_g2_affine_t *fb2 = sec[ZKP_BP_B_G2];
    size_t ia = 0, ib = 0;
    for (size_t j = 0; j < r->n_cols; j++) {
        if (!bls12_381_g1_affine_is_infinity(&dp->a[j]))
            ASSERT_MEM_EQ(&fa[ia++], &dp->a[j], sizeof fa[0]);
        if (!bls12_381_g1_affine_is_infinity(&dp->b_g1[j])) {
            ASSERT_MEM_EQ(&fb1[ib], &dp->b_g1[j], sizeof fb1[0]);
            ASSERT_MEM_EQ(&fb2[ib++], &dp->b_g2[j], sizeof fb2[0]);
        }
    }
    ASSERT_EQ_U64(ia, bp->sec[ZKP_BP_A].count);
    ASSERT_EQ_U64(ib, bp->sec[ZKP_BP_B_G1].count);
    bls12_381_g1_affine_t h[31];
    ASSERT_MSG(zkp_bp_h_from_g16_pk(h, &dp->pk, 2, NULL, &d) == ZKPIPE_OK, "%s", d.msg);
    ASSERT_MEM_EQ(sec[ZKP_BP_H], h, sizeof h);

    /* the key in snarkjs's form, and the one made from the file's
     * sections: H in bellperson's coefficient basis, a and b expanded */
    prove_and_verify_(r, &dp->pk, &bp->vk);
    prove_with_file_key_(r, bp, &dp->pk);

    /* the same seed gives the same bytes, also from the files made a chunk
     * at a time (zkp_dev_params_make_files: its own writer, a and b made
     * for the nonzero columns only); another seed other bytes */
    const char *paths[2] = {f->params, f->vk};
    char *first[2], *again[2];
    size_t first_len[2], again_len[2];
    for (int i = 0; i < 2; i++) {
        ASSERT_OK(zkp_read_file(paths[i], 1 << 20, &first[i], &first_len[i], &d));
        test_defer(free, first[i]);
    }
    zkp_dev_params_options o = {.seed = seed, .nthreads = 2};
    zkp_dev_params_made made;
    ASSERT_MSG(zkp_dev_params_make_files(r, &o, f->params, f->vk, &made, &d) == ZKPIPE_OK, "%s",
               d.msg);
    for (int i = 0; i < 2; i++) {
        ASSERT_OK(zkp_read_file(paths[i], 1 << 20, &again[i], &again_len[i], &d));
        test_defer(free, again[i]);
        ASSERT_EQ_U64(again_len[i], first_len[i]);
        ASSERT_MEM_EQ(again[i], first[i], first_len[i]);
    }
    ASSERT_EQ_U64(made.log_domain, 5);
    for (int s = 0; s < ZKP_BP_SECTION_COUNT; s++)
        ASSERT_EQ_U64(made.points[s], bp->sec[s].count);
    /* Every system call of the files' writing failed in turn, the chunks'
     * writes among them (made on the writer's thread while the next chunk
     * is made): the error comes back and the old files stay as they were. */
    unsigned steps = 0;
    for (unsigned step = 1; step < 200; step++) {
        zkp_fileio_test_fault(step, EIO);
        zkpipe_status st = zkp_dev_params_make_files(r, &o, f->params, f->vk, NULL, &d);
        int fired = zkp_fileio_test_fault_fired();
        zkp_fileio_test_fault(0, 0);
        if (!fired) {
            ASSERT_OK(st);
            break;
        }
        ASSERT_MSG(st == ZKPIPE_ERR_IO, "step %u: %s", step, zkpipe_status_name(st));
        for (int i = 0; i < 2; i++) {
            ASSERT_OK(zkp_read_file(paths[i], 1 << 20, &again[i], &again_len[i], &d));
            ASSERT_EQ_U64(again_len[i], first_len[i]);
            ASSERT_MEM_EQ(again[i], first[i], first_len[i]);
            free(again[i]);
        }
        steps = step;
    }
    ASSERT(steps >= 12); /* the vk, five lengths and five sections at least */
    seed[0] ^= 1;
    zkp_dev_params *dp3 = generate_(r, seed, 0);
    ASSERT(memcmp(&dp3->vk.alpha_g1, &dp->vk.alpha_g1, sizeof dp->vk.alpha_g1) != 0);
}

/* What bellperson's generator refuses is refused: an aux variable in no
 * constraint; and a system that is not finished or was recorded without
 * its matrices. */
TEST_CASE(setup_dev_params_refusals) {
    uint8_t seed[32] = {1};
    zkp_dev_params dp;
    zkp_diag d = {{0}};
    zkp_dev_params_options o = {.seed = seed, .nthreads = 1};
    zkp_cs_csr *r = new_csr_(ZKP_CSR_MATRICES | ZKP_CSR_WITNESS);
    xor_chain_(&r->cs, 3);
    ASSERT_EQ_STATUS(zkp_dev_params_generate(&dp, r, &o, &d), ZKPIPE_ERR_INVALID_ARGUMENT);
    zkp_fr v;
    bls12_381_fr_set_u64(&v, 9);
    (void)zkp_cs_alloc(&r->cs, &v); /* aux variable 15, in no row */
    ASSERT_OK(zkp_cs_csr_finish(r));
    ASSERT_EQ_STATUS(zkp_dev_params_generate(&dp, r, &o, &d), ZKPIPE_ERR_INVALID_ARGUMENT);
    ASSERT_MSG(strstr(d.msg, "aux variable 15") != NULL, "%s", d.msg);
    /* the files made a chunk at a time: the same refusal, and no file */
    tmp_files *f = tmp_files_();
    ASSERT_EQ_STATUS(zkp_dev_params_make_files(r, &o, f->params, f->vk, NULL, &d),
                     ZKPIPE_ERR_INVALID_ARGUMENT);
    ASSERT_MSG(strstr(d.msg, "aux variable 15") != NULL, "%s", d.msg);
    ASSERT(access(f->params, F_OK) != 0 && access(f->vk, F_OK) != 0);
    /* a FIFO cannot take a file written as it is made */
    char fifo[80];
    snprintf(fifo, sizeof fifo, "%s/fifo", f->dir);
    ASSERT(mkfifo(fifo, 0600) == 0);
    zkpipe_status fst = zkp_dev_params_make_files(r, &o, fifo, f->vk, NULL, &d);
    unlink(fifo);
    ASSERT_EQ_STATUS(fst, ZKPIPE_ERR_UNSUPPORTED);
    ASSERT(access(f->vk, F_OK) != 0);
    zkp_cs_csr *w = new_csr_(ZKP_CSR_WITNESS);
    xor_chain_(&w->cs, 3);
    ASSERT_OK(zkp_cs_csr_finish(w));
    ASSERT_EQ_STATUS(zkp_dev_params_generate(&dp, w, &o, &d), ZKPIPE_ERR_INVALID_ARGUMENT);
}

/* SHA-256 of 64 private bytes with the digest made public (a domain of
 * 2^16): the file's lengths are the densities, h is n - 1 long, and a proof
 * verifies under the written .vk. About 3 s on two cores (2.4 s of it the
 * generation), so it runs when ZKPIPE_TEST_SLOW is set. */
TEST_CASE(setup_dev_params_sha256_64_bytes_slow) {
    const char *slow = getenv("ZKPIPE_TEST_SLOW");
    if (slow == NULL || slow[0] == '\0' || strcmp(slow, "0") == 0)
        test_skip("SHA-256 of 64 bytes: set ZKPIPE_TEST_SLOW=1 to run it");
    zkp_cs_csr *r = new_csr_(ZKP_CSR_MATRICES | ZKP_CSR_WITNESS);
    test_sha256_64_random_bytes(&r->cs);
    ASSERT_OK(zkp_cs_csr_finish(r));
    uint8_t seed[32];
    test_rng_bytes(seed, sizeof seed);
    zkp_dev_params *dp = generate_(r, seed, 1);
    ASSERT_EQ_U64(dp->domain_size, 1u << 16);
    tmp_files *f = tmp_files_();
    zkp_bp_params *bp = write_and_load_(dp, f);
    zkp_csr_density den;
    ASSERT_OK(zkp_cs_csr_density(r, &den));
    ASSERT_EQ_U64(bp->vk.n_ic, 3);
    ASSERT_EQ_U64(bp->sec[ZKP_BP_H].count, (1u << 16) - 1);
    ASSERT_EQ_U64(bp->sec[ZKP_BP_L].count, r->cs.num_aux);
    ASSERT_EQ_U64(bp->sec[ZKP_BP_A].count, den.a_input + den.a_aux);
    ASSERT_EQ_U64(bp->sec[ZKP_BP_B_G1].count, den.b_input + den.b_aux);
    ASSERT_EQ_U64(bp->sec[ZKP_BP_B_G2].count, den.b_input + den.b_aux);
    prove_and_verify_(r, &dp->pk, &bp->vk);
    prove_with_file_key_(r, bp, &dp->pk);
}

static void gpu_close_(void *g) { zkp_gpu_close(g); }

/* Files a and b hold the same bytes (both read whole). */
static void same_files_(const char *a, const char *b) {
    zkp_diag d = {{0}};
    char *x, *y;
    size_t nx, ny;
    ASSERT_MSG(zkp_read_file(a, (size_t)1 << 30, &x, &nx, &d) == ZKPIPE_OK, "%s", d.msg);
    test_defer(free, x);
    ASSERT_MSG(zkp_read_file(b, (size_t)1 << 30, &y, &ny, &d) == ZKPIPE_OK, "%s", d.msg);
    test_defer(free, y);
    ASSERT_EQ_U64(nx, ny);
    ASSERT_MEM_EQ(x, y, nx);
}

/* The G1 points made on a GPU are the CPU's, bit for bit: every array of
 * the in-memory form (with the prover's coset query), and every byte of
 * the files written a chunk at a time, for SHA-256 of 64 bytes (a domain
 * of 2^16). Named gpu_ for the GPU suite (make test-gpu). */
TEST_CASE(gpu_dev_params_match_cpu) {
    zkp_gpu *g = test_gpu_open();
    test_defer(gpu_close_, g);
    zkp_cs_csr *r = new_csr_(ZKP_CSR_MATRICES | ZKP_CSR_WITNESS);
    test_sha256_64_random_bytes(&r->cs);
    ASSERT_OK(zkp_cs_csr_finish(r));
    uint8_t seed[32];
    test_rng_bytes(seed, sizeof seed);
    zkp_dev_params *cpu = generate_on_(r, seed, 1, NULL), *gpu = generate_on_(r, seed, 1, g);
    size_t cols = (size_t)r->n_cols, n = cpu->domain_size;
    ASSERT_MEM_EQ(gpu->h, cpu->h, (n - 1) * sizeof(bls12_381_g1_affine_t));
    ASSERT_MEM_EQ(gpu->h_coset, cpu->h_coset, n * sizeof(bls12_381_g1_affine_t));
    ASSERT_MEM_EQ(gpu->l, cpu->l, (size_t)r->cs.num_aux * sizeof(bls12_381_g1_affine_t));
    ASSERT_MEM_EQ(gpu->a, cpu->a, cols * sizeof(bls12_381_g1_affine_t));
    ASSERT_MEM_EQ(gpu->b_g1, cpu->b_g1, cols * sizeof(bls12_381_g1_affine_t));
    ASSERT_MEM_EQ(gpu->b_g2, cpu->b_g2, cols * sizeof(bls12_381_g2_affine_t));
    ASSERT_MEM_EQ(gpu->vk.ic, cpu->vk.ic, cpu->vk.n_ic * sizeof(bls12_381_g1_affine_t));

    tmp_files *f = tmp_files_(), *fg = tmp_files_();
    zkp_diag d = {{0}};
    zkp_dev_params_options o = {.seed = seed, .nthreads = 2};
    ASSERT_MSG(zkp_dev_params_make_files(r, &o, f->params, f->vk, NULL, &d) == ZKPIPE_OK, "%s",
               d.msg);
    o.gpu = g;
    ASSERT_MSG(zkp_dev_params_make_files(r, &o, fg->params, fg->vk, NULL, &d) == ZKPIPE_OK, "%s",
               d.msg);
    same_files_(f->params, fg->params);
    same_files_(f->vk, fg->vk);
}

/* Parameters of one circuit do not fit another: the section lengths are
 * checked against the circuit before any point is decoded, with every
 * length that differs named; and a key is not made from them. */
TEST_CASE(setup_bp_key_refuses_another_circuits_params) {
    zkp_cs_csr *r = new_csr_(ZKP_CSR_MATRICES | ZKP_CSR_WITNESS);
    xor_chain_(&r->cs, 0x3c);
    ASSERT_OK(zkp_cs_csr_finish(r));
    uint8_t seed[32];
    test_rng_bytes(seed, sizeof seed);
    zkp_dev_params *dp = generate_(r, seed, 0);
    tmp_files *f = tmp_files_();
    zkp_diag d = {{0}};
    zkp_bp_params *bp = write_and_load_(dp, f);

    /* the same chain with one more xor: one more aux variable and row */
    zkp_cs_csr *other = new_csr_(ZKP_CSR_COUNTS);
    xor_chain_(&other->cs, 0x3c);
    zkp_bool x = zkp_bool_alloc(&other->cs, 1), y = zkp_bool_alloc(&other->cs, 0);
    (void)zkp_bool_xor(&other->cs, &x, &y);
    ASSERT_OK(zkp_cs_csr_finish(other));
    ASSERT_EQ_STATUS(zkp_bp_params_fit(bp, other, &d), ZKPIPE_ERR_SIZE_MISMATCH);
    ASSERT_MSG(strstr(d.msg, "l has") != NULL && strstr(d.msg, f->params) != NULL, "%s", d.msg);
    ASSERT_MSG(strstr(d.msg, "ic has") == NULL, "%s", d.msg);

    /* the counting back end gives the same answer as the recorded one */
    zkp_cs_csr *counted = new_csr_(ZKP_CSR_COUNTS);
    xor_chain_(&counted->cs, 0x3c);
    ASSERT_OK(zkp_cs_csr_finish(counted));
    ASSERT_MSG(zkp_bp_params_fit(bp, counted, &d) == ZKPIPE_OK, "%s", d.msg);

    /* a section one point short is refused when the key is made */
    const void *sec[ZKP_BP_SECTION_COUNT];
    size_t count[ZKP_BP_SECTION_COUNT];
    sections_(bp, sec, count);
    count[ZKP_BP_A]--;
    zkp_bp_key k;
    ASSERT_EQ_STATUS(zkp_bp_key_init(&k, r, &bp->vk, sec, count, NULL, &d),
                     ZKPIPE_ERR_SIZE_MISMATCH);
    ASSERT_MSG(strstr(d.msg, "section a") != NULL, "%s", d.msg);
    ASSERT(k.coefs == NULL && k.a_cols == NULL);
    /* and a key needs the matrices */
    count[ZKP_BP_A]++;
    ASSERT_EQ_STATUS(zkp_bp_key_init(&k, counted, &bp->vk, sec, count, NULL, &d),
                     ZKPIPE_ERR_INVALID_ARGUMENT);
}
