/* The synthetic workloads (src/synthetic): the keys pass the zkey reader's
 * full validation, subgroups included; proofs of every witness verify and
 * a tampered witness gives a proof that does not; the fixed-base tables
 * agree with the plain scalar multiplication. snarkjs's own view of these
 * keys is checked in tests/interop.sh. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "curve/curve.h"
#include "field/field.h"
#include "formats/wtns.h"
#include "formats/zkey.h"
#include "groth16/groth16.h"
#include "synthetic/synthetic.h"
#include "synthetic/synthetic_internal.h"
#include "test.h"

#define SYNTH_WITNESSES 2

typedef struct {
    char dir[256];
    char zkey[320];
    char wtns[SYNTH_WITNESSES][320];
} synth_files;

static void synth_write(synth_files *f, const zkp_synthetic_params *p) {
    const char *tmp = getenv("TMPDIR");
    int n = snprintf(f->dir, sizeof f->dir, "%s/zkp-synth-test-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    ASSERT(n > 0 && (size_t)n < sizeof f->dir);
    ASSERT_MSG(mkdtemp(f->dir) != NULL, "mkdtemp %s", f->dir);
    zkp_diag d = {{0}};
    /* A copy, so that no snprintf reads the struct it writes. */
    char dir[sizeof f->dir];
    memcpy(dir, f->dir, sizeof dir);
    snprintf(f->zkey, sizeof f->zkey, "%s/circuit.zkey", dir);
    ASSERT_MSG(zkp_synthetic_write_zkey(p, f->zkey, &d) == ZKPIPE_OK, "%s", d.msg);
    for (int i = 0; i < SYNTH_WITNESSES; i++) {
        snprintf(f->wtns[i], sizeof f->wtns[i], "%s/witness_%d.wtns", dir, i);
        ASSERT_MSG(zkp_synthetic_write_wtns(p, (uint64_t)i, f->wtns[i], &d) == ZKPIPE_OK, "%s",
                   d.msg);
    }
}

static void synth_remove(synth_files *f) {
    unlink(f->zkey);
    for (int i = 0; i < SYNTH_WITNESSES; i++) unlink(f->wtns[i]);
    ASSERT_MSG(rmdir(f->dir) == 0, "%s is not empty", f->dir);
}

/* Proves w with the key and verifies the proof against w's public signals;
 * returns the verifier's status. tamper: add 1 to this private value first
 * (0: none). */
static zkpipe_status synth_prove_verify(const zkp_zkey *key, const char *wtns_path, size_t tamper) {
    zkp_diag d = {{0}};
    zkp_wtns w;
    ASSERT_MSG(zkp_wtns_load(&w, wtns_path, NULL, &d) == ZKPIPE_OK, "%s", d.msg);
    ASSERT_MSG(zkp_wtns_check_zkey(&w, key, &d) == ZKPIPE_OK, "%s", d.msg);
    uint32_t n_pub = zkp_zkey_n_public(key);
    ASSERT_EQ_U64(n_pub, 2);
    if (tamper) {
        ASSERT(tamper > n_pub && tamper < w.n_vars);
        w.values[4 * tamper] ^= 1; /* stays below r: only the lowest bit moves */
    }
    zkp_g16_public pub = {w.curve, n_pub, malloc(32 * (size_t)n_pub)};
    ASSERT(pub.values);
    memcpy(pub.values, w.values + 4, 32 * (size_t)n_pub);

    zkp_g16_pk pk;
    zkp_g16_vk vk;
    zkp_zkey_pk(key, &pk);
    zkp_zkey_vk(key, &vk);
    zkp_buffer wb = {w.values, w.values_bytes, ZKP_MEM_WITNESS, w.alloc};
    w.values = NULL;
    zkp_g16_pending *pend = NULL;
    zkp_g16_proof proof;
    zkp_g16_prove_opts o = {.nthreads = 2};
    ASSERT_MSG(zkp_g16_prove_start(&pend, &pk, &wb, &o, &d) == ZKPIPE_OK, "%s", d.msg);
    ASSERT_MSG(zkp_g16_prove_finalize(&proof, pend, NULL, &d) == ZKPIPE_OK, "%s", d.msg);
    zkpipe_status st = zkp_g16_verify(&vk, &pub, &proof, &d);
    zkp_g16_public_release(&pub);
    zkp_wtns_free(&w);
    return st;
}

/* 2^8 .. 2^10: the key loads with every check, both witnesses differ and
 * their proofs verify, a tampered one's does not. */
static void synth_round_trip(zkpipe_curve curve) {
    for (unsigned log_n = 8; log_n <= 10; log_n++) {
        zkp_synthetic_params p = {curve, log_n, 0x5eed0000 + log_n, 2};
        synth_files f;
        synth_write(&f, &p);
        zkp_diag d = {{0}};
        zkp_zkey key;
        zkp_zkey_options ko = {NULL, 2, 1}; /* subgroup checks of every point */
        ASSERT_MSG(zkp_zkey_load(&key, f.zkey, &ko, &d) == ZKPIPE_OK, "%s", d.msg);
        ASSERT_EQ_INT(key.curve, curve);
        zkp_g16_pk pk;
        zkp_zkey_pk(&key, &pk);
        uint32_t domain =
            curve == ZKPIPE_CURVE_BN254 ? pk.u.bn254.domain_size : pk.u.bls12_381.domain_size;
        ASSERT_EQ_U64(domain, 1u << log_n);
        ASSERT_EQ_U64(zkp_zkey_n_vars(&key), (1u << log_n) - 1);

        zkp_wtns w0, w1;
        ASSERT_MSG(zkp_wtns_load(&w0, f.wtns[0], NULL, &d) == ZKPIPE_OK, "%s", d.msg);
        ASSERT_MSG(zkp_wtns_load(&w1, f.wtns[1], NULL, &d) == ZKPIPE_OK, "%s", d.msg);
        ASSERT_EQ_INT(w0.curve, curve);
        ASSERT(memcmp(w0.values, w1.values, w0.values_bytes) != 0);
        ASSERT(memcmp(w0.values + 8, w1.values + 8, 32) != 0); /* x_0, a public input */
        zkp_wtns_free(&w0);
        zkp_wtns_free(&w1);

        for (int i = 0; i < SYNTH_WITNESSES; i++)
            ASSERT_OK(synth_prove_verify(&key, f.wtns[i], 0));
        /* Early, middle and last private values of the chain. */
        size_t n_vars = zkp_zkey_n_vars(&key);
        ASSERT_EQ_STATUS(synth_prove_verify(&key, f.wtns[0], 3), ZKPIPE_ERR_PROOF_INVALID);
        ASSERT_EQ_STATUS(synth_prove_verify(&key, f.wtns[1], n_vars / 2), ZKPIPE_ERR_PROOF_INVALID);
        ASSERT_EQ_STATUS(synth_prove_verify(&key, f.wtns[1], n_vars - 1), ZKPIPE_ERR_PROOF_INVALID);
        zkp_zkey_free(&key);
        synth_remove(&f);
    }
}

TEST_CASE(synthetic_bn254_proofs_verify) { synth_round_trip(ZKPIPE_CURVE_BN254); }

TEST_CASE(synthetic_bls12_381_proofs_verify) { synth_round_trip(ZKPIPE_CURVE_BLS12_381); }

/* The bytes in memory parse with full validation and are a function of the
 * parameters alone: the same seed and any thread count give the same key,
 * another seed another one. */
TEST_CASE(synthetic_zkey_is_valid_and_deterministic) {
    const zkpipe_curve curves[2] = {ZKPIPE_CURVE_BN254, ZKPIPE_CURVE_BLS12_381};
    for (int c = 0; c < 2; c++) {
        zkp_synthetic_params p = {curves[c], 9, 42, 1};
        zkp_synthetic_shape shape;
        zkp_diag d = {{0}};
        ASSERT_OK(zkp_synthetic_shape_of(&p, &shape, &d));
        ASSERT_EQ_U64(shape.domain_size, 512);
        ASSERT_EQ_U64(shape.n_constraints, 509);
        ASSERT_EQ_U64(shape.n_vars, 511);
        uint8_t *a, *b, *other;
        size_t alen, blen, olen;
        ASSERT_MSG(zkp_synthetic_zkey(&p, &a, &alen, &d) == ZKPIPE_OK, "%s", d.msg);
        ASSERT_EQ_U64(alen, shape.zkey_bytes);
        p.nthreads = 3;
        ASSERT_MSG(zkp_synthetic_zkey(&p, &b, &blen, &d) == ZKPIPE_OK, "%s", d.msg);
        ASSERT_EQ_U64(alen, blen);
        ASSERT(memcmp(a, b, alen) == 0);
        p.seed = 43;
        ASSERT_MSG(zkp_synthetic_zkey(&p, &other, &olen, &d) == ZKPIPE_OK, "%s", d.msg);
        ASSERT_EQ_U64(olen, alen);
        ASSERT(memcmp(a, other, alen) != 0);

        zkp_zkey key;
        zkp_zkey_options ko = {NULL, 2, 1};
        ASSERT_MSG(zkp_zkey_parse(&key, a, alen, "synthetic", &ko, &d) == ZKPIPE_OK, "%s", d.msg);
        ASSERT_EQ_U64(zkp_zkey_n_vars(&key), shape.n_vars);
        ASSERT_EQ_U64(zkp_zkey_n_public(&key), shape.n_public);
        zkp_zkey_free(&key);

        uint8_t *w;
        size_t wlen;
        ASSERT_MSG(zkp_synthetic_wtns(&p, 7, &w, &wlen, &d) == ZKPIPE_OK, "%s", d.msg);
        ASSERT_EQ_U64(wlen, shape.wtns_bytes);
        zkp_wtns wt;
        ASSERT_MSG(zkp_wtns_parse(&wt, w, wlen, "synthetic", NULL, &d) == ZKPIPE_OK, "%s", d.msg);
        ASSERT_EQ_U64(wt.n_vars, shape.n_vars);
        ASSERT_EQ_U64(wt.values[0], 1);
        zkp_wtns_free(&wt);
        free(w);
        free(a);
        free(b);
        free(other);
    }
}

/* The smallest domain: one chain row, no private signal, an empty C. */
TEST_CASE(synthetic_smallest_key_proves) {
    zkp_synthetic_params p = {ZKPIPE_CURVE_BN254, ZKP_SYNTHETIC_MIN_LOG, 1, 1};
    synth_files f;
    synth_write(&f, &p);
    zkp_diag d = {{0}};
    zkp_zkey key;
    ASSERT_MSG(zkp_zkey_load(&key, f.zkey, NULL, &d) == ZKPIPE_OK, "%s", d.msg);
    ASSERT_EQ_U64(zkp_zkey_n_vars(&key), 3);
    for (int i = 0; i < SYNTH_WITNESSES; i++) ASSERT_OK(synth_prove_verify(&key, f.wtns[i], 0));
    zkp_zkey_free(&key);
    synth_remove(&f);
}

TEST_CASE(synthetic_spec_parsing) {
    static const struct {
        const char *spec;
        zkpipe_curve curve;
        unsigned log_n;
    } good[] = {
        {"bn254:16", ZKPIPE_CURVE_BN254, 16},         {"bn128:2", ZKPIPE_CURVE_BN254, 2},
        {"BN254:26", ZKPIPE_CURVE_BN254, 26},         {"alt_bn128:10", ZKPIPE_CURVE_BN254, 10},
        {"bls12381:8", ZKPIPE_CURVE_BLS12_381, 8},    {"bls12_381:20", ZKPIPE_CURVE_BLS12_381, 20},
        {"bls12-381:12", ZKPIPE_CURVE_BLS12_381, 12},
    };
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        zkpipe_curve curve;
        unsigned log_n;
        zkp_diag d = {{0}};
        ASSERT_MSG(zkp_synthetic_parse_spec(good[i].spec, &curve, &log_n, &d) == ZKPIPE_OK,
                   "%s: %s", good[i].spec, d.msg);
        ASSERT_EQ_INT(curve, good[i].curve);
        ASSERT_EQ_U64(log_n, good[i].log_n);
    }
    static const char *const bad[] = {"bn254",     "bn254:",   "bn254:1", "bn254:27",  "bn254:x",
                                      "bn254:16x", ":16",      "bn25:16", "bn254:-3",  "bn254: 16",
                                      "bls12:16",  "bn254:+9", "",        "bn254:1e3"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        zkpipe_curve curve;
        unsigned log_n;
        zkp_diag d = {{0}};
        ASSERT_EQ_STATUS(zkp_synthetic_parse_spec(bad[i], &curve, &log_n, &d),
                         ZKPIPE_ERR_INVALID_ARGUMENT);
        ASSERT_MSG(d.msg[0] != 0, "no message for \"%s\"", bad[i]);
    }
    zkp_synthetic_params p = {ZKPIPE_CURVE_BN254, ZKP_SYNTHETIC_MAX_LOG + 1, 0, 1};
    zkp_synthetic_shape shape;
    ASSERT_EQ_STATUS(zkp_synthetic_shape_of(&p, &shape, NULL), ZKPIPE_ERR_INVALID_ARGUMENT);
}

/* Scalars that stress the signed digits (0, 1, window edges, all ones,
 * r - 1) and random ones, through the tables against G_mul_var. */
#define SYNTH_FB_RANDOM 600

#define SYNTH_FB_CHECK(G, FR, fixed_base)                                                          \
    do {                                                                                           \
        size_t n = 0;                                                                              \
        uint64_t *k = calloc(4 * (SYNTH_FB_RANDOM + 64), sizeof *k);                               \
        ASSERT(k);                                                                                 \
        n++; /* 0 */                                                                               \
        k[4 * n++] = 1;                                                                            \
        k[4 * n++] = 2;                                                                            \
        for (unsigned b = 3; b < 20; b++) {                                                        \
            k[4 * n++] = (1ULL << b) - 1;                                                          \
            k[4 * n++] = 1ULL << b;                                                                \
        }                                                                                          \
        for (int l = 0; l < 4; l++) k[4 * n + l] = ~0ULL;                                          \
        k[4 * n + 3] = 0x0fffffffffffffffULL;                                                      \
        n++;                                                                                       \
        memcpy(&k[4 * n], FR##_modulus.l, 32);                                                     \
        k[4 * n] -= 1;                                                                             \
        n++;                                                                                       \
        for (size_t i = 0; i < SYNTH_FB_RANDOM; i++, n++) {                                        \
            FR##_t t;                                                                              \
            test_rng_bytes(t.l, sizeof t.l);                                                       \
            t.l[3] &= 0x1fffffffffffffffULL;                                                       \
            memcpy(&k[4 * n], t.l, 32);                                                            \
        }                                                                                          \
        G##_affine_t *got = calloc(n, sizeof *got);                                                \
        ASSERT(got);                                                                               \
        ASSERT_OK(fixed_base(got, k, n, 2));                                                       \
        G##_affine_t g1;                                                                           \
        G##_generator(&g1);                                                                        \
        G##_jacobian_t gen, want;                                                                  \
        G##_from_affine(&gen, &g1);                                                                \
        for (size_t i = 0; i < n; i++) {                                                           \
            G##_affine_t w;                                                                        \
            G##_mul_var(&want, &gen, &k[4 * i], 256);                                              \
            G##_to_affine(&w, &want);                                                              \
            ASSERT_MSG(G##_affine_eq(&w, &got[i]), #G ": scalar %zu differs", i);                  \
        }                                                                                          \
        free(got);                                                                                 \
        free(k);                                                                                   \
    } while (0)

TEST_CASE(synthetic_fixed_base_matches_mul) {
    SYNTH_FB_CHECK(bn254_g1, bn254_fr, bn254_synthetic_fixed_base_g1);
    SYNTH_FB_CHECK(bn254_g2, bn254_fr, bn254_synthetic_fixed_base_g2);
    SYNTH_FB_CHECK(bls12_381_g1, bls12_381_fr, bls12_381_synthetic_fixed_base_g1);
    SYNTH_FB_CHECK(bls12_381_g2, bls12_381_fr, bls12_381_synthetic_fixed_base_g2);
}
