/* Whole proofs on a GPU: the CUDA backend of prove_start against the CPU's
 * on the committed snarkjs fixtures, on synthetic keys of both curves and
 * on a key made from bellperson's parameters,
 * bit for bit with r and s fixed; the engine proving on a GPU; and, on
 * machines without one, the clear refusals of "cuda" and the fallback of
 * "auto". */
#include <stdlib.h>
#include <string.h>

#include "circuit/circuit.h"
#include "filecoin/c1.h"
#include "formats/bellperson.h"
#include "formats/wtns.h"
#include "formats/zkey.h"
#include "gadgets/csr.h"
#include "circuit_support.h"
#include "gadgets_support.h"
#include "gpu_support.h"
#include "groth16/backend.h"
#include "ntt/ntt.h"
#include "setup/bp_key.h"
#include "setup/dev_params.h"
#include "synthetic/synthetic.h"
#include "engine/engine_internal.h"
#include "zkpipe/engine.h"
#include "filecoin_support.h"

static const char *const fixtures[] = {"poseidon_small_bn128", "merkle_small_bn128",
                                       "poseidon_small_bls12381", "merkle_small_bls12381"};

static void fixture_path_(char *out, size_t cap, const char *fixture, const char *file) {
    int n = snprintf(out, cap, "%s/fixtures/%s/%s", ZKP_TEST_DATA_DIR, fixture, file);
    ASSERT(n > 0 && (size_t)n < cap);
}

/* A fixture's key and witness. */
static void load_fixture_(const char *fixture, zkp_zkey *key, zkp_wtns *w) {
    char path[512];
    zkp_diag d = {{0}};
    fixture_path_(path, sizeof path, fixture, "circuit.zkey");
    ASSERT_MSG(zkp_zkey_load(key, path, NULL, &d) == ZKPIPE_OK, "%s", d.msg);
    fixture_path_(path, sizeof path, fixture, "witness.wtns");
    ASSERT_MSG(zkp_wtns_load(w, path, NULL, &d) == ZKPIPE_OK, "%s", d.msg);
}

/* The blinding scalars r and s of every proof compared bit for bit here. */
static const uint64_t fixed_rs_[8] = {0x1234567, 0, 0, 1, 0x89abcdef, 7, 0, 2};

/* A copy of the witness values[0..bytes), which prove_start takes over. */
static zkp_buffer witness_copy_(const uint64_t *values, size_t bytes) {
    zkp_buffer wb = {malloc(bytes), bytes, ZKP_MEM_WITNESS, NULL};
    ASSERT(wb.ptr);
    memcpy(wb.ptr, values, bytes);
    return wb;
}

/* A proof of pk for the witness values[0..bytes) with fixed r and s on
 * rkey's backend (NULL: CPU); the witness is copied, since prove_start
 * takes it over. */
static void prove_fixed_(zkp_g16_proof *proof, const zkp_g16_pk *pk, const uint64_t *values,
                         size_t bytes, const zkp_g16_rkey *rkey) {
    zkp_buffer wb = witness_copy_(values, bytes);
    zkp_g16_prove_opts o = {.nthreads = 2, .rkey = rkey, .test_fixed_rs = fixed_rs_};
    zkp_g16_pending *p = NULL;
    zkp_diag d = {{0}};
    zkpipe_status st = zkp_g16_prove_start(&p, pk, &wb, &o, &d);
    ASSERT_MSG(st == ZKPIPE_OK, "prove_start: %s", d.msg);
    st = zkp_g16_prove_finalize(proof, p, NULL, &d);
    ASSERT_MSG(st == ZKPIPE_OK, "prove_finalize: %s", d.msg);
}

/* want_streamed of check_same_proof_pk_: some of the sets, not all. */
#define SOME_STREAMED 0xffu

/* The GPU's proof of pk for the witness values equals the CPU's and
 * verifies under vk for the witness's public part; the key's ready copy
 * streams want_streamed of its G1 base sets. */
static void check_same_proof_pk_(zkp_g16_backend *be, const zkp_g16_pk *pk, const zkp_g16_vk *vk,
                                 const uint64_t *values, size_t bytes, size_t n_public,
                                 unsigned want_streamed, const char *what) {
    zkp_g16_rkey *rk = NULL;
    zkp_diag d = {{0}};
    zkpipe_status st = zkp_g16_rkey_load(&rk, be, pk, &d);
    ASSERT_MSG(st == ZKPIPE_OK, "%s: key to the GPU: %s", what, d.msg);
    unsigned streamed = zkp_g16_rkey_streamed_sets(rk);
    if (want_streamed == SOME_STREAMED)
        ASSERT_MSG(streamed >= 1 && streamed < ZKP_G16_SET_COUNT, "%s: %u sets streamed", what,
                   streamed);
    else
        ASSERT_EQ_U64(streamed, want_streamed);
    zkp_g16_proof cpu, gpu;
    memset(&cpu, 0, sizeof cpu);
    memset(&gpu, 0, sizeof gpu);
    prove_fixed_(&cpu, pk, values, bytes, NULL);
    prove_fixed_(&gpu, pk, values, bytes, rk);
    zkp_g16_rkey_free(rk);
    ASSERT_MSG(memcmp(&cpu, &gpu, sizeof cpu) == 0, "%s: the GPU's proof differs from the CPU's",
               what);
    zkp_g16_public pub = {pk->curve, n_public, malloc(32 * n_public + 1)};
    ASSERT(pub.values);
    memcpy(pub.values, values + 4, 32 * n_public);
    st = zkp_g16_verify(vk, &pub, &gpu, &d);
    ASSERT_MSG(st == ZKPIPE_OK, "%s: the GPU's proof does not verify: %s", what, d.msg);
    zkp_g16_public_release(&pub);
    printf("  %s: identical proofs, verified\n", what);
}

static void check_same_proof_(zkp_g16_backend *be, const zkp_zkey *key, const zkp_wtns *w,
                              unsigned want_streamed, const char *what) {
    zkp_g16_pk pk;
    zkp_zkey_pk(key, &pk);
    zkp_g16_vk vk;
    zkp_zkey_vk(key, &vk);
    check_same_proof_pk_(be, &pk, &vk, w->values, w->values_bytes, zkp_zkey_n_public(key),
                         want_streamed, what);
}

static zkp_g16_backend *open_gpu_backend_(void) {
    zkp_gpu *g = test_gpu_open(); /* skips without a GPU */
    unsigned ordinal = zkp_gpu_ordinal(g);
    zkp_gpu_close(g);
    char name[32];
    snprintf(name, sizeof name, "cuda:%u", ordinal);
    zkp_g16_backend *be = NULL;
    zkp_diag d = {{0}};
    ASSERT_MSG(zkp_g16_backend_open(&be, name, NULL, 0, &d) == ZKPIPE_OK, "%s", d.msg);
    ASSERT(zkp_g16_backend_is_gpu(be));
    return be;
}

TEST_CASE(gpu_prove_matches_cpu_on_fixtures) {
    zkp_g16_backend *be = open_gpu_backend_();
    for (size_t i = 0; i < sizeof fixtures / sizeof fixtures[0]; i++) {
        zkp_zkey key = {0};
        zkp_wtns w = {0};
        load_fixture_(fixtures[i], &key, &w);
        check_same_proof_(be, &key, &w, 0, fixtures[i]);
        zkp_wtns_free(&w);
        zkp_zkey_free(&key);
    }
    zkp_g16_backend_close(be);
}

/* A synthetic key and witness of 2^log rows, parsed as the files are;
 * the parsed key and witness point into the files' bytes, kept with them. */
typedef struct {
    zkp_zkey key;
    zkp_wtns w;
    uint8_t *kb, *wb;
} synthetic_;

static void synthetic_key_(int bls, unsigned log, synthetic_ *s) {
    zkp_synthetic_params sp = {bls ? ZKPIPE_CURVE_BLS12_381 : ZKPIPE_CURVE_BN254, log, 7, 0};
    size_t kl = 0, wl = 0;
    zkp_diag d = {{0}};
    memset(s, 0, sizeof *s);
    ASSERT_MSG(zkp_synthetic_zkey(&sp, &s->kb, &kl, &d) == ZKPIPE_OK, "%s", d.msg);
    ASSERT_MSG(zkp_synthetic_wtns(&sp, 3, &s->wb, &wl, &d) == ZKPIPE_OK, "%s", d.msg);
    ASSERT_MSG(zkp_zkey_parse(&s->key, s->kb, kl, "synthetic.zkey", NULL, &d) == ZKPIPE_OK, "%s",
               d.msg);
    ASSERT_MSG(zkp_wtns_parse(&s->w, s->wb, wl, "synthetic.wtns", NULL, &d) == ZKPIPE_OK, "%s",
               d.msg);
}

static void synthetic_free_(synthetic_ *s) {
    zkp_wtns_free(&s->w);
    zkp_zkey_free(&s->key);
    free(s->kb);
    free(s->wb);
    memset(s, 0, sizeof *s);
}

/* Synthetic keys of 2^5, 2^12 and 2^16 rows on both curves, each checked
 * with check_same_proof_. */
static void synthetic_keys_(zkp_g16_backend *be, unsigned want_streamed) {
    static const unsigned logs[] = {5, 12, 16};
    for (int c = 0; c < 2; c++)
        for (size_t i = 0; i < sizeof logs / sizeof logs[0]; i++) {
            synthetic_ sk;
            synthetic_key_(c, logs[i], &sk);
            char what[64];
            snprintf(what, sizeof what, "synthetic %s 2^%u", c ? "bls12_381" : "bn254", logs[i]);
            check_same_proof_(be, &sk.key, &sk.w, want_streamed, what);
            synthetic_free_(&sk);
        }
}

/* Synthetic keys: domains far beyond the fixtures', so the NTT runs its
 * multi-pass path and the MSMs their bucket path, on both curves. */
TEST_CASE(gpu_prove_matches_cpu_on_synthetic_keys) {
    zkp_g16_backend *be = open_gpu_backend_();
    synthetic_keys_(be, 0);
    zkp_g16_backend_close(be);
}

/* The GPU's proof with a, b and c made on the device, from pk's compiled
 * circuit resident there and the witness, equals the CPU's proof from the
 * key's coefficient list (r and s fixed), and verifies. want_dict: the
 * circuit names its values through its table (circuit_impl.h), or keeps
 * them in full: the device reads either. */
static void check_abc_on_device_(zkp_g16_backend *be, const zkp_g16_pk *pk, const zkp_g16_vk *vk,
                                 const uint64_t *values, size_t bytes, size_t n_public,
                                 int want_dict, const char *what) {
    zkp_diag d = {{0}};
    zkp_circuit c;
    ASSERT_MSG(zkp_circuit_build(&c, pk, NULL, &d) == ZKPIPE_OK, "%s: %s", what, d.msg);
    const void *dict = c.curve == ZKPIPE_CURVE_BN254 ? (const void *)c.u.bn254.dict
                                                     : (const void *)c.u.bls12_381.dict;
    ASSERT_EQ_INT(dict != NULL, want_dict);
    zkp_g16_rkey *rk = NULL;
    zkp_gpu_csr_src src;
    zkp_circuit_gpu_src(&c, &src);
    ASSERT_MSG(zkp_g16_rkey_load_with_circuit(&rk, be, pk, &src, &d) == ZKPIPE_OK, "%s: %s", what,
               d.msg);
    ASSERT_MSG(rk->csr != NULL, "%s: the circuit did not go to the GPU", what);
    zkp_g16_proof cpu, gpu;
    memset(&cpu, 0, sizeof cpu);
    memset(&gpu, 0, sizeof gpu);
    prove_fixed_(&cpu, pk, values, bytes, NULL);
    zkp_buffer wb = witness_copy_(values, bytes), abc = {NULL, 0, ZKP_MEM_ABC, NULL};
    zkp_g16_prove_opts o = {.nthreads = 2, .rkey = rk, .test_fixed_rs = fixed_rs_};
    zkp_g16_pending *p = NULL;
    zkpipe_status st = zkp_g16_prove_start_abc(&p, pk, &wb, &abc, &o, &d);
    ASSERT_MSG(st == ZKPIPE_OK, "%s: prove_start: %s", what, d.msg);
    st = zkp_g16_prove_finalize(&gpu, p, NULL, &d);
    ASSERT_MSG(st == ZKPIPE_OK, "%s: prove_finalize: %s", what, d.msg);
    ASSERT_MSG(memcmp(&cpu, &gpu, sizeof cpu) == 0,
               "%s: the proof from a, b, c made on the GPU differs from the CPU's", what);
    zkp_g16_public pub = {pk->curve, n_public, malloc(32 * n_public + 1)};
    ASSERT(pub.values);
    memcpy(pub.values, values + 4, 32 * n_public);
    ASSERT_MSG(zkp_g16_verify(vk, &pub, &gpu, &d) == ZKPIPE_OK, "%s: %s", what, d.msg);
    zkp_g16_public_release(&pub);
    /* Without a circuit on the device, an empty abc is refused. */
    zkp_g16_rkey *bare = NULL;
    ASSERT_MSG(zkp_g16_rkey_load(&bare, be, pk, &d) == ZKPIPE_OK, "%s: %s", what, d.msg);
    zkp_buffer wb2 = witness_copy_(values, bytes);
    o.rkey = bare;
    ASSERT_EQ_STATUS(zkp_g16_prove_start_abc(&p, pk, &wb2, &abc, &o, &d), ZKPIPE_ERR_SIZE_MISMATCH);
    ASSERT(p == NULL && wb2.ptr == NULL);
    zkp_g16_rkey_free(bare);
    zkp_g16_rkey_free(rk);
    zkp_circuit_free(&c);
    printf("  %s: a, b, c made on the GPU (%s): identical proofs, verified\n", what,
           want_dict ? "values by table" : "values in full");
}

/* Whole proofs with a, b and c made on the device, on the fixtures and on
 * synthetic keys of 2^12 and 2^16 rows, both curves (their circuits have
 * few distinct coefficients: values by table; the case below covers
 * values in full). */
TEST_CASE(gpu_prove_makes_abc_from_the_circuit) {
    zkp_g16_backend *be = open_gpu_backend_();
    for (size_t i = 0; i < sizeof fixtures / sizeof fixtures[0]; i++) {
        zkp_zkey key = {0};
        zkp_wtns w = {0};
        load_fixture_(fixtures[i], &key, &w);
        zkp_g16_pk pk;
        zkp_zkey_pk(&key, &pk);
        zkp_g16_vk vk;
        zkp_zkey_vk(&key, &vk);
        check_abc_on_device_(be, &pk, &vk, w.values, w.values_bytes, zkp_zkey_n_public(&key), 1,
                             fixtures[i]);
        zkp_wtns_free(&w);
        zkp_zkey_free(&key);
    }
    static const unsigned logs[] = {12, 16};
    for (int c = 0; c < 2; c++)
        for (size_t i = 0; i < sizeof logs / sizeof logs[0]; i++) {
            synthetic_ sk;
            synthetic_key_(c, logs[i], &sk);
            char what[64];
            snprintf(what, sizeof what, "synthetic %s 2^%u", c ? "bls12_381" : "bn254", logs[i]);
            zkp_g16_pk pk;
            zkp_zkey_pk(&sk.key, &pk);
            zkp_g16_vk vk;
            zkp_zkey_vk(&sk.key, &vk);
            check_abc_on_device_(be, &pk, &vk, sk.w.values, sk.w.values_bytes,
                                 zkp_zkey_n_public(&sk.key), 1, what);
            synthetic_free_(&sk);
        }
    zkp_g16_backend_close(be);
}

/* The H values from a, b, c made on the device (the circuit resident
 * there and the witness) against those from a, b, c made on the host by
 * circuit/ and uploaded, for a circuit of random coefficients: few
 * distinct (values by table) and more than the table holds (values in
 * full), with a few rows far longer than the rest. Both go through the
 * same NTTs, so this isolates the device's a, b and c. */
TEST_CPU_NTT_DEFINE(bls12_381_fr)

TEST_CASE(gpu_abc_from_the_circuit_matches_the_host) {
    enum { LOG = 12, ROWS = 1 << LOG, COLS = 3000 };
    zkp_gpu *g = test_gpu_open();
    bls12_381_fr_t root, shift, five;
    bls12_381_fr_set_u64(&five, 5);
    bls12_381_fr_set_u64(&shift, 7);
    ASSERT_OK(bls12_381_fr_ntt_root_from_generator(&root, &five, LOG));
    for (int full = 0; full < 2; full++) {
        size_t distinct = full ? ZKP_CIRCUIT_DICT_MAX + 1 : 5;
        test_coef_key k;
        test_coef_key_make(&k, LOG, COLS, 6 * ROWS + distinct, distinct);
        /* Long rows, which the device's warps share: about 500 entries in
         * row 3 of each matrix, and 40 in A's last row. */
        for (size_t e = distinct; e < distinct + 1000; e++) k.coefs[e].constraint = 3;
        for (size_t e = distinct + 1000; e < distinct + 1040; e++) {
            k.coefs[e].matrix = 0;
            k.coefs[e].constraint = ROWS - 1;
        }
        const zkp_g16_pk pk = k.pk;
        const uint64_t *w = k.w;
        uint64_t *abc = malloc((size_t)3 * ROWS * 32);
        uint64_t *h_host = malloc((size_t)ROWS * 32), *h_dev = malloc((size_t)ROWS * 32);
        uint64_t *h_coef = malloc((size_t)ROWS * 32);
        ASSERT(abc && h_host && h_dev && h_coef);
        zkp_circuit c;
        zkp_diag d = {{0}};
        ASSERT_OK(zkp_circuit_build(&c, &pk, NULL, &d));
        ASSERT_EQ_INT(c.u.bls12_381.dict == NULL, full);
        zkp_circuit_synthesize(&c, w, abc, 2);
        /* h's values and h's coefficients, from the host's a, b, c and from
         * the circuit on the device: the coefficients from the circuit take
         * the transforms' other order (a and b made bit-reversed). */
        zkp_gpu_buf *h[2][2] = {{NULL, NULL}, {NULL, NULL}}, *wd = NULL;
        zkp_gpu_csr *dc = NULL;
        zkp_gpu_csr_src src;
        zkp_circuit_gpu_src(&c, &src);
        ASSERT_OK(zkp_gpu_buf_alloc(g, &wd, (size_t)COLS * 32, ZKP_GPU_MEM_SCALARS, &d));
        ASSERT_OK(zkp_gpu_buf_upload_async(wd, 0, w, (size_t)COLS * 32, &d));
        ASSERT_MSG(zkp_gpu_csr_upload(g, &dc, &src, &d) == ZKPIPE_OK, "%s", d.msg);
        for (int coef = 0; coef < 2; coef++) {
            ASSERT_MSG(bls12_381_fr_gpu_h_evals(g, &h[coef][0], abc, LOG, root.l, shift.l, coef,
                                                &d) == ZKPIPE_OK,
                       "%s", d.msg);
            ASSERT_MSG(bls12_381_fr_gpu_h_evals_csr(g, &h[coef][1], dc, wd, LOG, root.l, shift.l,
                                                    coef, &d) == ZKPIPE_OK,
                       "%s", d.msg);
        }
        /* The host's values (test_gpu_ntt.c checks them against the CPU's),
         * and the CPU's interpolation of them for the coefficients. */
        uint64_t *want[2] = {h_host, h_coef};
        ASSERT_OK(zkp_gpu_buf_download(h_host, h[0][0], 0, (size_t)ROWS * 32, &d));
        memcpy(h_coef, h_host, (size_t)ROWS * 32);
        ASSERT_OK(test_bls12_381_fr_cpu_ntt(h_coef, LOG, ZKP_NTT_INVERSE, root.l, shift.l));
        for (int coef = 0; coef < 2; coef++)
            for (int from = 0; from < 2; from++) {
                ASSERT_OK(zkp_gpu_buf_download(h_dev, h[coef][from], 0, (size_t)ROWS * 32, &d));
                for (size_t i = 0; i < ROWS; i++)
                    ASSERT_MSG(!memcmp(want[coef] + 4 * i, h_dev + 4 * i, 32),
                               "values %s: h's %s from the %s differ at %zu",
                               full ? "in full" : "by table", coef ? "coefficients" : "values",
                               from ? "circuit" : "host", i);
            }
        /* A circuit of another domain is refused. */
        zkp_gpu_buf *h3 = NULL;
        ASSERT_EQ_STATUS(
            bls12_381_fr_gpu_h_evals_csr(g, &h3, dc, wd, LOG + 1, root.l, shift.l, 1, &d),
            ZKPIPE_ERR_INVALID_ARGUMENT);
        ASSERT(h3 == NULL);
        printf("  values %s (%zu distinct): the device's a, b, c give the host's h\n",
               full ? "in full" : "by table", distinct);
        zkp_gpu_csr_free(dc);
        for (int i = 0; i < 4; i++) zkp_gpu_buf_free(h[i / 2][i % 2]);
        zkp_gpu_buf_free(wd);
        zkp_circuit_free(&c);
        free(h_coef);
        free(h_dev);
        free(h_host);
        free(abc);
        test_coef_key_free(&k);
    }
    zkp_gpu_close(g);
}

/* The points of a dense section of elem-byte points whose column is used
 * (used: a point of the section that is not the identity), in order, as
 * bellperson's generator writes them; *n receives their count. */
static void *compact_(const void *dense, size_t n_cols, size_t elem,
                      int (*used)(const void *pt), size_t *n) {
    uint8_t *out = malloc(n_cols * elem + 1);
    ASSERT(out);
    *n = 0;
    for (size_t j = 0; j < n_cols; j++) {
        const uint8_t *pt = (const uint8_t *)dense + j * elem;
        if (used(pt)) memcpy(out + (*n)++ * elem, pt, elem);
    }
    return out;
}

static int g1_used_(const void *pt) { return !bls12_381_g1_affine_is_infinity(pt); }
static int g2_used_(const void *pt) { return !bls12_381_g2_affine_is_infinity(pt); }

/* A key made from bellperson's parameters (setup/bp_key.h): its H query in
 * the coefficient basis, so the device interpolates h back from the coset
 * after the H step. SHA-256 of 64 bytes, a domain of 2^16. Its a, b_g1 and
 * b_g2 sections both dense and as bellperson writes them (the used columns
 * only, which the GPU gathers the witness for), resident and streamed. */
TEST_CASE(gpu_prove_matches_cpu_on_a_bellperson_key) {
    zkp_g16_backend *be = open_gpu_backend_();
    zkp_cs_csr *r = calloc(1, sizeof *r);
    ASSERT(r);
    zkp_cs_csr_init(r, ZKP_CSR_MATRICES | ZKP_CSR_WITNESS);
    test_sha256_64_random_bytes(&r->cs);
    ASSERT_OK(zkp_cs_csr_finish(r));
    uint8_t seed[32] = {7};
    zkp_dev_params dp;
    zkp_dev_params_options o = {.seed = seed};
    zkp_diag d = {{0}};
    ASSERT_MSG(zkp_dev_params_generate(&dp, r, &o, &d) == ZKPIPE_OK, "%s", d.msg);
    size_t cols = (size_t)r->n_cols, n_a, n_b, n_b2;
    void *a = compact_(dp.a, cols, sizeof dp.a[0], g1_used_, &n_a);
    void *b1 = compact_(dp.b_g1, cols, sizeof dp.b_g1[0], g1_used_, &n_b);
    void *b2 = compact_(dp.b_g2, cols, sizeof dp.b_g2[0], g2_used_, &n_b2);
    ASSERT_EQ_U64(n_b, n_b2);
    ASSERT(n_b < cols); /* the sparse form differs from the dense one */
    zkp_g16_vk vk;
    zkp_bp_vk_to_g16(&vk, &dp.vk);
    uint64_t *w = malloc(cols * 32);
    ASSERT(w);
    zkp_cs_csr_witness(r, w);
    for (int sparse = 0; sparse < 2; sparse++)
        for (int streamed = 0; streamed < 2; streamed++) {
            const void *sec[ZKP_BP_SECTION_COUNT] = {dp.h, dp.l, dp.a, dp.b_g1, dp.b_g2};
            size_t count[ZKP_BP_SECTION_COUNT] = {dp.domain_size - 1, (size_t)dp.num_aux, cols,
                                                  cols, cols};
            if (sparse) {
                sec[ZKP_BP_A] = a, sec[ZKP_BP_B_G1] = b1, sec[ZKP_BP_B_G2] = b2;
                count[ZKP_BP_A] = n_a, count[ZKP_BP_B_G1] = n_b, count[ZKP_BP_B_G2] = n_b;
            }
            zkp_bp_key k;
            ASSERT_MSG(zkp_bp_key_init(&k, r, &dp.vk, sec, count, NULL, &d) == ZKPIPE_OK, "%s",
                       d.msg);
            ASSERT_EQ_INT(k.pk.b_cols != NULL, sparse);
            zkp_g16_pk pk = {.curve = ZKPIPE_CURVE_BLS12_381};
            pk.u.bls12_381 = k.pk;
            zkp_g16_backend_set_streaming(be, streamed ? 1 : 0, streamed ? 1000 : 0);
            char what[96];
            snprintf(what, sizeof what, "bellperson key, %s sections%s, SHA-256 of 64 bytes",
                     sparse ? "sparse" : "dense", streamed ? ", streamed" : "");
            check_same_proof_pk_(be, &pk, &vk, w, cols * 32, (size_t)r->cs.num_inputs - 1,
                                 streamed ? ZKP_G16_SET_COUNT : 0, what);
            zkp_bp_key_free(&k);
        }
    free(w);
    free(a);
    free(b1);
    free(b2);
    zkp_dev_params_free(&dp);
    zkp_cs_csr_free(r);
    free(r);
    zkp_g16_backend_close(be);
}

/* Every G1 base set streamed through a window of 1000 points, as a key
 * too big for the device's memory is, so the MSMs run over chunks, the
 * last one short, and the B2 MSM falls back to the CPU: the same proofs. */
TEST_CASE(gpu_prove_streams_bases_that_do_not_fit) {
    zkp_g16_backend *be = open_gpu_backend_();
    zkp_g16_backend_set_streaming(be, 1, 1000);
    synthetic_keys_(be, 4);
    zkp_g16_backend_close(be);
}

/* A device memory budget with room for a partition's working set (the
 * backend's estimate) and half of a 2^16 key's bases: the sets that do not
 * fit are streamed rather than refused, the proof is the CPU's, and the
 * context never holds more than the budget. */
TEST_CASE(gpu_prove_within_a_device_memory_budget) {
    zkp_g16_backend *be = open_gpu_backend_();
    zkp_gpu *g = zkp_g16_backend_gpu(be);
    synthetic_ sk;
    synthetic_key_(1, 16, &sk);
    zkp_g16_pk pk;
    zkp_zkey_pk(&sk.key, &pk);
    const bls12_381_g16_pk_t *q = &pk.u.bls12_381;
    uint64_t bases = (uint64_t)q->n_vars * (2 * sizeof(bls12_381_g1_affine_t) +
                                            sizeof(bls12_381_g2_affine_t)) +
                     ((uint64_t)q->n_vars + bls12_381_g16_h_len(q)) *
                         sizeof(bls12_381_g1_affine_t);
    uint64_t budget = zkp_g16_device_work_bytes(&pk) + bases / 2;
    zkp_gpu_set_memory_budget(g, budget);
    ASSERT_EQ_U64(zkp_gpu_memory_budget(g), budget);
    check_same_proof_(be, &sk.key, &sk.w, SOME_STREAMED,
                      "synthetic bls12_381 2^16 within a budget");
    zkp_gpu_stats s;
    zkp_gpu_stats_get(g, &s);
    ASSERT_MSG(s.peak_total <= budget, "held %llu bytes against a budget of %llu",
               (unsigned long long)s.peak_total, (unsigned long long)budget);
    /* An allocation past the budget is refused before the driver is asked. */
    zkp_gpu_buf *b = NULL;
    zkp_diag d = {{0}};
    ASSERT_EQ_INT(zkp_gpu_buf_alloc(g, &b, budget + 1, ZKP_GPU_MEM_SCRATCH, &d),
                  ZKPIPE_ERR_NO_MEMORY);
    ASSERT_MSG(strstr(d.msg, "budget") != NULL, "%s", d.msg);
    synthetic_free_(&sk);
    zkp_g16_backend_close(be);
}

/* Device memory held for work, cached buffers aside: what a refused or
 * failed proof must give back. */
static uint64_t held_for_work_(zkp_gpu *g) {
    zkp_gpu_stats s;
    zkp_gpu_stats_get(g, &s);
    return s.live_total - s.live_bytes[ZKP_GPU_MEM_CACHED];
}

/* A witness queued to the GPU before prove_start (as the engine's device
 * worker queues it while the GPU computes the partition ahead) gives the
 * proof that prove_start's own upload gives, with a, b and c made on the
 * host and on the device; a copy that is not the proof's is refused, and
 * every path that gives up the witness frees the copy too. */
TEST_CASE(gpu_prove_takes_the_witness_queued_early) {
    zkp_g16_backend *be = open_gpu_backend_();
    zkp_gpu *g = zkp_g16_backend_gpu(be);
    zkp_zkey key = {0};
    zkp_wtns w = {0};
    load_fixture_("poseidon_small_bls12381", &key, &w);
    zkp_g16_pk pk;
    zkp_zkey_pk(&key, &pk);
    zkp_diag d = {{0}};
    zkp_circuit c;
    ASSERT_MSG(zkp_circuit_build(&c, &pk, NULL, &d) == ZKPIPE_OK, "%s", d.msg);
    zkp_gpu_csr_src src;
    zkp_circuit_gpu_src(&c, &src);
    zkp_g16_rkey *rk = NULL;
    ASSERT_MSG(zkp_g16_rkey_load_with_circuit(&rk, be, &pk, &src, &d) == ZKPIPE_OK, "%s", d.msg);
    ASSERT(rk->csr != NULL);
    zkp_g16_proof cpu;
    memset(&cpu, 0, sizeof cpu);
    prove_fixed_(&cpu, &pk, w.values, w.values_bytes, NULL);
    uint64_t held = held_for_work_(g);
    for (int abc_on_device = 0; abc_on_device < 2; abc_on_device++) {
        zkp_buffer wb = witness_copy_(w.values, w.values_bytes);
        zkp_buffer abc = {NULL, 0, ZKP_MEM_ABC, NULL};
        zkp_gpu_buf *early = NULL;
        ASSERT_MSG(zkp_g16_witness_to_device(&early, be, &pk, &wb, &d) == ZKPIPE_OK, "%s", d.msg);
        ASSERT_MSG(early != NULL, "a few KiB found no room on the GPU");
        ASSERT_EQ_U64(zkp_gpu_buf_bytes(early), w.values_bytes);
        zkp_g16_prove_opts o = {.nthreads = 2, .rkey = rk, .test_fixed_rs = fixed_rs_,
                                .witness_on_device = early};
        zkp_g16_pending *p = NULL;
        zkpipe_status st = abc_on_device ? zkp_g16_prove_start_abc(&p, &pk, &wb, &abc, &o, &d)
                                         : zkp_g16_prove_start(&p, &pk, &wb, &o, &d);
        ASSERT_MSG(st == ZKPIPE_OK, "prove_start: %s", d.msg);
        zkp_g16_proof gpu;
        memset(&gpu, 0, sizeof gpu);
        ASSERT_MSG(zkp_g16_prove_finalize(&gpu, p, NULL, &d) == ZKPIPE_OK, "%s", d.msg);
        ASSERT_MSG(memcmp(&cpu, &gpu, sizeof cpu) == 0,
                   "a, b, c on the %s: the proof from the early witness differs from the CPU's",
                   abc_on_device ? "device" : "host");
        ASSERT_EQ_U64(held_for_work_(g), held);
    }
    /* A witness of the wrong size queues nothing. */
    zkp_buffer wb = witness_copy_(w.values, w.values_bytes - 32);
    zkp_gpu_buf *early = (zkp_gpu_buf *)&wb; /* overwritten on every path */
    ASSERT_EQ_STATUS(zkp_g16_witness_to_device(&early, be, &pk, &wb, &d), ZKPIPE_ERR_SIZE_MISMATCH);
    ASSERT(early == NULL);
    zkp_buffer_release(&wb);
    /* A copy of another size is refused, and freed with the witness. */
    ASSERT_OK(zkp_gpu_buf_alloc(g, &early, w.values_bytes + 32, ZKP_GPU_MEM_SCALARS, &d));
    wb = witness_copy_(w.values, w.values_bytes);
    zkp_g16_prove_opts o = {.nthreads = 2, .rkey = rk, .witness_on_device = early};
    zkp_g16_pending *p = NULL;
    ASSERT_EQ_STATUS(zkp_g16_prove_start(&p, &pk, &wb, &o, &d), ZKPIPE_ERR_INVALID_ARGUMENT);
    ASSERT(p == NULL && wb.ptr == NULL && strstr(d.msg, "witness on the device"));
    ASSERT_EQ_U64(held_for_work_(g), held);
    /* So is one handed to the CPU, and one with no key to prove. */
    for (int no_key = 0; no_key < 2; no_key++) {
        wb = witness_copy_(w.values, w.values_bytes);
        ASSERT_OK(zkp_g16_witness_to_device(&early, be, &pk, &wb, &d));
        ASSERT(early != NULL);
        o.rkey = NULL;
        o.witness_on_device = early;
        ASSERT_EQ_STATUS(zkp_g16_prove_start(&p, no_key ? NULL : &pk, &wb, &o, &d),
                         ZKPIPE_ERR_INVALID_ARGUMENT);
        ASSERT(p == NULL && wb.ptr == NULL);
        ASSERT_EQ_U64(held_for_work_(g), held);
    }
    zkp_g16_rkey_free(rk);
    zkp_circuit_free(&c);
    zkp_wtns_free(&w);
    zkp_zkey_free(&key);
    zkp_g16_backend_close(be);
    printf("  identical proofs from a witness queued early; refusals free the copy\n");
}

/* On the CPU, which reads the witness where it lies, nothing is queued;
 * the witness is checked against the key all the same. */
TEST_CASE(gpu_witness_to_device_on_the_cpu_queues_nothing) {
    zkp_g16_backend *be = NULL;
    zkp_diag d = {{0}};
    ASSERT_OK(zkp_g16_backend_open(&be, "cpu", NULL, 0, &d));
    zkp_zkey key = {0};
    zkp_wtns w = {0};
    load_fixture_("poseidon_small_bn128", &key, &w);
    zkp_g16_pk pk;
    zkp_zkey_pk(&key, &pk);
    zkp_buffer wb = witness_copy_(w.values, w.values_bytes);
    zkp_gpu_buf *early = (zkp_gpu_buf *)&wb; /* overwritten on every path */
    ASSERT_OK(zkp_g16_witness_to_device(&early, be, &pk, &wb, &d));
    ASSERT(early == NULL);
    zkp_buffer_release(&wb);
    wb = witness_copy_(w.values, w.values_bytes + 32);
    ASSERT_EQ_STATUS(zkp_g16_witness_to_device(&early, be, &pk, &wb, &d), ZKPIPE_ERR_SIZE_MISMATCH);
    ASSERT(early == NULL && strstr(d.msg, "witness has"));
    zkp_buffer_release(&wb);
    zkp_wtns_free(&w);
    zkp_zkey_free(&key);
    zkp_g16_backend_close(be);
}

static zkpipe_engine *gpu_engine_(const char *device, char *err, size_t errlen, zkpipe_status *st) {
    zkpipe_engine_config cfg;
    ASSERT_OK(zkpipe_engine_config_default(&cfg));
    cfg.budget_bytes = (uint64_t)512 << 20;
    cfg.device = device;
    cfg.device_threads = 2;
    cfg.rss_period_ms = 20;
    zkpipe_engine *e = NULL;
    *st = zkpipe_engine_create(&e, &cfg, err, errlen);
    return e;
}

TEST_CASE(gpu_engine_proves_on_the_gpu) {
    zkp_gpu_close(test_gpu_open());
    char zkey[512], wtns[512], err[256] = "";
    fixture_path_(zkey, sizeof zkey, "poseidon_small_bls12381", "circuit.zkey");
    fixture_path_(wtns, sizeof wtns, "poseidon_small_bls12381", "witness.wtns");
    zkpipe_status st;
    zkpipe_engine *e = gpu_engine_("cuda", err, sizeof err, &st);
    ASSERT_MSG(st == ZKPIPE_OK, "%s", err);
    zkpipe_engine_status s;
    ASSERT_OK(zkpipe_engine_get_status(e, &s));
    ASSERT(s.n_devices >= 1 && s.devices[0].is_gpu);
    ASSERT(strncmp(s.devices[0].name, "cuda:0", 6) == 0);
    uint32_t key;
    ASSERT_OK(zkpipe_engine_register_key(e, &key, zkey));
    zkpipe_witness w[4] = {{wtns, NULL, 0}, {wtns, NULL, 0}, {wtns, NULL, 0}, {wtns, NULL, 0}};
    zkpipe_job_request r = {key, w, 4, ZKPIPE_PRIORITY_NORMAL, NULL, 1, NULL, 0, NULL};
    uint64_t id = 0;
    ASSERT_OK(zkpipe_engine_submit(e, &id, &r));
    zkpipe_job_result res;
    ASSERT_OK(zkpipe_engine_await(e, id, 120000, &res));
    ASSERT_MSG(res.status == ZKPIPE_OK, "%s", res.error);
    for (size_t i = 0; i < res.n_partitions; i++) ASSERT(res.partitions[i].verified);
    zkpipe_job_result_clear(&res);
    /* The key's bases stay resident on the GPU, and are counted there. */
    ASSERT_OK(zkpipe_engine_get_status(e, &s));
    ASSERT(s.devices[0].vram_bytes[ZKP_GPU_MEM_BASES] > 0);
    ASSERT(s.devices[0].h2d_bytes > 0 && s.devices[0].busy_seconds > 0);
    ASSERT(s.devices[0].vram_total_bytes > 0);
    printf("  GPU memory held: %.2f MiB of bases, %.2f MiB in all; %.1f ms busy\n",
           (double)s.devices[0].vram_bytes[ZKP_GPU_MEM_BASES] / (1 << 20),
           (double)s.devices[0].vram_tracked_bytes / (1 << 20), s.devices[0].busy_seconds * 1e3);
    /* Evicting the key gives its GPU memory back. */
    ASSERT_OK(zkpipe_engine_evict_key(e, key));
    ASSERT_OK(zkpipe_engine_get_status(e, &s));
    ASSERT_EQ_U64(s.devices[0].vram_tracked_bytes, 0);
    ASSERT_OK(zkpipe_engine_destroy(&e));
}

/* One C1 job of key through e: every partition proved and verified. */
static void prove_c1_(zkpipe_engine *e, uint32_t key, const uint8_t *c1, size_t len) {
    zkpipe_job_request r = {key, NULL, 0, ZKPIPE_PRIORITY_NORMAL, NULL, 0, c1, len, NULL};
    uint64_t id = 0;
    ASSERT_OK(zkpipe_engine_submit(e, &id, &r));
    zkpipe_job_result res;
    ASSERT_OK(zkpipe_engine_await(e, id, 600000, &res));
    ASSERT_MSG(res.status == ZKPIPE_OK, "%s", res.error);
    ASSERT(res.n_partitions > 0);
    for (size_t i = 0; i < res.n_partitions; i++) ASSERT(res.partitions[i].verified);
    zkpipe_job_result_clear(&res);
}

/* A PoRep key on a GPU engine: once the GPU holds its five point sets, the
 * host copy goes and its share of the budget with it (at least the
 * decoded sections' bytes), a partition's reservation leaves out the B2
 * MSM's scratch, proofs still verify from the device's copy,
 * and an evicted key loads again from its file. The 2 KiB parameters take
 * minutes to make, so the case runs when ZKPIPE_TEST_POREP_PARAMS names
 * them (the .params file `zkpipe setup dev --filecoin porep --sector-size
 * 2KiB` writes). */
TEST_CASE(gpu_engine_frees_a_porep_keys_host_points) {
    zkp_gpu_close(test_gpu_open());
    const char *params = getenv("ZKPIPE_TEST_POREP_PARAMS");
    if (!params || !*params)
        test_skip("set ZKPIPE_TEST_POREP_PARAMS to 2 KiB PoRep parameters (setup dev)");
    const char *path = params;
    /* The sections' decoded size, from the file's headers. */
    zkp_bp_params bp;
    zkp_bp_params_options po = {.curve_only = 1};
    zkp_diag d = {{0}};
    ASSERT_MSG(zkp_bp_params_load(&bp, path, &po, &d) == ZKPIPE_OK, "%s", d.msg);
    uint64_t points = 0;
    for (int sec = 0; sec < ZKP_BP_SECTION_COUNT; sec++)
        points += zkp_bp_params_section_bytes(&bp, (zkp_bp_section)sec);
    zkp_bp_params_free(&bp);

    const zkp_fil_c1 *c1 = test_sealed_2kib();
    size_t len = 0;
    uint8_t *text = test_c1_text(c1, &len);
    zkpipe_engine_config cfg;
    ASSERT_OK(zkpipe_engine_config_default(&cfg));
    cfg.budget_bytes = (uint64_t)3200 << 20;
    cfg.device = "cpu";
    cfg.rss_period_ms = 50;
    char err[256] = "";
    zkpipe_engine *e = NULL;
    uint32_t key;
    zkpipe_engine_status s;
    /* The key and a partition as a CPU engine holds them: every point on
     * the host, a, b, c and the MSMs' scratch in the partition. */
    zkpipe_status st = zkpipe_engine_create(&e, &cfg, err, sizeof err);
    ASSERT_MSG(st == ZKPIPE_OK, "%s", err);
    ASSERT_OK(zkpipe_engine_register_porep_key(e, &key, path, 5, 0)); /* StackedDrg2KiBV1_1 */
    ASSERT_OK(zkpipe_engine_load_key(e, key));
    ASSERT_OK(zkpipe_engine_get_status(e, &s));
    uint64_t loaded = s.keys[0].resident_bytes, part = s.keys[0].partition_bytes;
    ASSERT(loaded > points);
    ASSERT_OK(zkpipe_engine_destroy(&e));

    /* On the GPU, a key loaded ahead of its jobs is made ready there and
     * settles at once. */
    cfg.device = "cuda";
    st = zkpipe_engine_create(&e, &cfg, err, sizeof err);
    ASSERT_MSG(st == ZKPIPE_OK, "%s", err);
    ASSERT_OK(zkpipe_engine_register_porep_key(e, &key, path, 5, 0));
    ASSERT_OK(zkpipe_engine_load_key(e, key));
    ASSERT_OK(zkpipe_engine_get_status(e, &s));
    uint64_t after = s.keys[0].resident_bytes;
    prove_c1_(e, key, text, len);
    ASSERT_OK(zkpipe_engine_get_status(e, &s));
    ASSERT_EQ_U64(s.keys[0].resident_bytes, after);
    printf("  key in host memory: %.1f MiB loaded, %.1f MiB once on the GPU (points %.1f MiB)\n",
           (double)loaded / (1 << 20), (double)after / (1 << 20), (double)points / (1 << 20));
    ASSERT_MSG(loaded - after >= points, "%llu bytes freed, the points take %llu",
               (unsigned long long)(loaded - after), (unsigned long long)points);
    ASSERT_EQ_U64(s.budget_reserved_bytes, after);
    ASSERT_EQ_U64(s.keys[0].loads, 1);
    /* B2 runs on the GPU, and a, b, c are made there: a partition
     * reserves no finalize scratch and no a, b, c (three domains of 2^22
     * scalars). */
    uint64_t abc_bytes = (uint64_t)3 * 32 << 22;
    ASSERT_MSG(s.keys[0].partition_bytes + abc_bytes < part,
               "a partition reserves %llu bytes, was %llu", (unsigned long long)s.keys[0].partition_bytes,
               (unsigned long long)part);

    /* From the device's copy alone; then loaded again after an eviction. */
    prove_c1_(e, key, text, len);
    ASSERT_OK(zkpipe_engine_evict_key(e, key));
    prove_c1_(e, key, text, len);
    ASSERT_OK(zkpipe_engine_get_status(e, &s));
    ASSERT_EQ_U64(s.keys[0].loads, 2);
    ASSERT_EQ_U64(s.keys[0].resident_bytes, after);
    ASSERT_OK(zkpipe_engine_destroy(&e));

    /* engine.abc_on_host: a, b, c stay the synthesis worker's (the key
     * loads with the first job here, not ahead of it). */
    cfg.abc_on_host = 1;
    st = zkpipe_engine_create(&e, &cfg, err, sizeof err);
    ASSERT_MSG(st == ZKPIPE_OK, "%s", err);
    ASSERT_OK(zkpipe_engine_register_porep_key(e, &key, path, 5, 0));
    prove_c1_(e, key, text, len);
    ASSERT_OK(zkpipe_engine_get_status(e, &s));
    ASSERT_MSG(s.keys[0].partition_bytes > abc_bytes && s.keys[0].partition_bytes < part,
               "a partition reserves %llu bytes, was %llu", (unsigned long long)s.keys[0].partition_bytes,
               (unsigned long long)part);
    ASSERT_OK(zkpipe_engine_destroy(&e));
    zkp_free(NULL, text, len, ZKP_MEM_AUX);
}

static zkpipe_job_result prove_job_(zkpipe_engine *e, uint32_t key, const char *wtns, size_t n) {
    zkpipe_witness w[2] = {{wtns, NULL, 0}, {wtns, NULL, 0}};
    ASSERT(n <= 2);
    zkpipe_job_request r = {key, w, n, ZKPIPE_PRIORITY_NORMAL, NULL, 0, NULL, 0, NULL};
    uint64_t id = 0;
    ASSERT_OK(zkpipe_engine_submit(e, &id, &r));
    zkpipe_job_result res;
    ASSERT_OK(zkpipe_engine_await(e, id, 120000, &res));
    return res;
}

/* A device that a fault took out of service, on an engine over `device`:
 * the job that meets the fault fails, its message saying why (`why`);
 * the status marks the device lost with the reason; each later job fails
 * at once, before its partitions are synthesized, and so does a key load,
 * saying no device is in service; and the engine's books end empty. */
static void engine_loses_its_device_(const char *device, const char *why) {
    char zkey[512], wtns[512], err[256] = "";
    fixture_path_(zkey, sizeof zkey, "poseidon_small_bn128", "circuit.zkey");
    fixture_path_(wtns, sizeof wtns, "poseidon_small_bn128", "witness.wtns");
    zkpipe_status st;
    zkpipe_engine *e = gpu_engine_(device, err, sizeof err, &st);
    ASSERT_MSG(st == ZKPIPE_OK, "%s", err);
    uint32_t key;
    ASSERT_OK(zkpipe_engine_register_key(e, &key, zkey));
    zkpipe_job_result r = prove_job_(e, key, wtns, 1);
    ASSERT_MSG(r.status == ZKPIPE_OK, "%s", r.error);
    zkpipe_job_result_clear(&r);

    zkp_g16_backend_test_fault(e->backends[0]);
    r = prove_job_(e, key, wtns, 2);
    printf("  the job that met the fault: %s\n", r.error);
    ASSERT_EQ_STATUS(r.status, ZKPIPE_ERR_DEVICE);
    ASSERT_MSG(strstr(r.error, why) != NULL, "\"%s\" does not say %s", r.error, why);
    zkpipe_job_result_clear(&r);
    zkpipe_engine_status s;
    ASSERT_OK(zkpipe_engine_get_status(e, &s));
    ASSERT(s.devices[0].lost);
    ASSERT_MSG(strstr(s.devices[0].lost_reason, why) != NULL, "reason: %s",
               s.devices[0].lost_reason);

    r = prove_job_(e, key, wtns, 2);
    printf("  a job after it: %s\n", r.error);
    ASSERT_EQ_STATUS(r.status, ZKPIPE_ERR_DEVICE);
    ASSERT_MSG(strstr(r.error, "no device is in service") && strstr(r.error, why), "%s", r.error);
    for (size_t i = 0; i < r.n_partitions; i++) ASSERT(r.partitions[i].times.synthesis == 0);
    zkpipe_job_result_clear(&r);
    /* Nor does a key load say it is ready where no device can take it. */
    char msg[512] = "";
    ASSERT_EQ_STATUS(zkpipe_engine_load_key_msg(e, key, msg, sizeof msg), ZKPIPE_ERR_DEVICE);
    ASSERT_MSG(strstr(msg, "no device is in service") != NULL, "%s", msg);
    ASSERT_OK(zkpipe_engine_get_status(e, &s));
    ASSERT_EQ_U64(s.jobs_completed, 1);
    ASSERT_EQ_U64(s.jobs_failed, 2);
    ASSERT_EQ_U64(s.jobs_live + s.queued_device + s.running_device, 0);
    ASSERT_EQ_U64(s.budget_reserved_bytes, s.keys[0].resident_bytes);
    ASSERT_OK(zkpipe_engine_destroy(&e));
}

/* On the CPU, which has no device to fault, the test's fault marks the
 * backend lost as a GPU's fault would: the engine's side of it. */
TEST_CASE(gpu_engine_without_a_device_in_service_fails_jobs_at_once) {
    engine_loses_its_device_("cpu", "injected");
}

/* A kernel that traps, on the GPU: the fault CUDA repeats to every later
 * call of the process. The case runs in a process of its own, since the
 * device stays failed until that process ends. */
TEST_CASE(gpu_engine_takes_a_faulted_gpu_out_of_service) {
    zkp_gpu_close(test_gpu_open());
    if (getenv("ZKPIPE_TEST_FAULT_CHILD")) {
        engine_loses_its_device_("cuda", "CUDA");
        return;
    }
    ASSERT_EQ_INT(test_run_self("gpu_engine_takes_a_faulted_gpu_out_of_service",
                                "ZKPIPE_TEST_FAULT_CHILD=1"),
                  0);
}

TEST_CASE(gpu_refusals_without_a_gpu_are_clear) {
    unsigned n = 0;
    if (zkp_gpu_device_count(&n, NULL) == ZKPIPE_OK) test_skip("this machine has a GPU");
    /* The engine: "cuda" refuses to start and says why; "auto" proves on
     * the CPU. */
    char err[256] = "";
    zkpipe_status st;
    zkpipe_engine *e = gpu_engine_("cuda", err, sizeof err, &st);
    ASSERT(e == NULL);
    ASSERT(st == ZKPIPE_ERR_NO_DEVICE || st == ZKPIPE_ERR_UNSUPPORTED);
    ASSERT_MSG(strstr(err, "GPU") || strstr(err, "CUDA"), "message: %s", err);
    e = gpu_engine_("auto", err, sizeof err, &st);
    ASSERT_MSG(st == ZKPIPE_OK, "%s", err);
    zkpipe_engine_status s;
    ASSERT_OK(zkpipe_engine_get_status(e, &s));
    ASSERT_EQ_U64(s.n_devices, 1);
    ASSERT(!s.devices[0].is_gpu && strcmp(s.devices[0].name, "cpu") == 0);
    ASSERT_OK(zkpipe_engine_destroy(&e));
    e = gpu_engine_("tpu", err, sizeof err, &st);
    ASSERT(e == NULL && st == ZKPIPE_ERR_INVALID_ARGUMENT);
    /* The prover's backends likewise. */
    zkp_g16_backend *be = NULL;
    zkp_diag d = {{0}};
    char why[ZKP_DIAG_MAX];
    ASSERT_OK(zkp_g16_backend_open(&be, "auto", why, sizeof why, &d));
    ASSERT(!zkp_g16_backend_is_gpu(be) && why[0]);
    zkp_g16_backend_close(be);
    st = zkp_g16_backend_open(&be, "cuda:1", NULL, 0, &d);
    ASSERT(st == ZKPIPE_ERR_NO_DEVICE || st == ZKPIPE_ERR_UNSUPPORTED);
    ASSERT(be == NULL && d.msg[0]);
    static const char *const bad[] = {"gpu", "cuda:", "cuda:x", "cuda:1x", "cuda0", ""};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        ASSERT_EQ_STATUS(zkp_g16_backend_open(&be, bad[i], NULL, 0, &d), ZKPIPE_ERR_INVALID_ARGUMENT);
}

/* Device names, as the prover, the engine and `bench msm|ntt` read them:
 * every GPU ordinal in digits alone, nothing after it. */
TEST_CASE(gpu_device_names_parse_strictly) {
    static const struct {
        const char *name;
        int kind;
        unsigned ordinal;
    } good[] = {{"cpu", ZKP_DEVICE_CPU, 0},     {"auto", ZKP_DEVICE_AUTO, 0},
                {"cuda", ZKP_DEVICE_CUDA, 0},   {"cuda:0", ZKP_DEVICE_CUDA, 0},
                {"cuda:7", ZKP_DEVICE_CUDA, 7}, {"cuda:1024", ZKP_DEVICE_CUDA, 1024},
                {"cuda:007", ZKP_DEVICE_CUDA, 7}};
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        unsigned ordinal = 99;
        ASSERT_MSG(zkp_g16_device_parse(good[i].name, &ordinal) == good[i].kind, "%s",
                   good[i].name);
        ASSERT_MSG(ordinal == good[i].ordinal, "%s: ordinal %u", good[i].name, ordinal);
    }
    static const char *const bad[] = {"",        "gpu",         "CPU",      "cuda0",
                                      "cudax",   "cuda:",       "cuda:abc", "cuda:1x",
                                      "cuda:+1", "cuda: 1",     "cuda:-1",  "cuda:1025",
                                      "cuda:1 ", "cuda:99999999999999999999999"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        unsigned ordinal;
        ASSERT_MSG(zkp_g16_device_parse(bad[i], &ordinal) == -1, "\"%s\" was taken", bad[i]);
    }
}
