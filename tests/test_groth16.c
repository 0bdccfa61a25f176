/* Groth16 against snarkjs: our prover's proofs verify with our verifier,
 * snarkjs's proofs verify with ours, and every way of breaking a proof that
 * the negative list names is rejected with its own status. The fixtures
 * under tests/fixtures/ were made by circom and snarkjs (tests/fixtures/
 * gen.sh); the snarkjs CLI check of our proofs is the interop test in
 * tests/interop.sh. */
#include <stdlib.h>
#include <string.h>

#include "field/field.h"
#include "formats/snarkjs_json.h"
#include "formats/wtns.h"
#include "formats/zkey.h"
#include "groth16/backend.h"
#include "groth16/groth16.h"
#include "ntt_support.h"
#include "test.h"
#include "util/fileio.h"

#include "field_samples.h"
TEST_CPU_NTT_DEFINE(bn254_fr)
TEST_CPU_NTT_DEFINE(bls12_381_fr)

static const char *const fixtures[] = {
    "poseidon_small_bn128",
    "merkle_small_bn128",
    "poseidon_small_bls12381",
    "merkle_small_bls12381",
};

static void fixture_path(char *out, size_t cap, const char *fixture, const char *file) {
    int n = snprintf(out, cap, "%s/fixtures/%s/%s", ZKP_TEST_DATA_DIR, fixture, file);
    ASSERT(n > 0 && (size_t)n < cap);
}

static char *read_fixture(const char *fixture, const char *file, size_t *len) {
    char path[512];
    fixture_path(path, sizeof path, fixture, file);
    char *text = NULL;
    zkp_diag d = {{0}};
    zkpipe_status st = zkp_read_file(path, ZKP_SNARKJS_MAX_TEXT, &text, len, &d);
    ASSERT_MSG(st == ZKPIPE_OK, "%s", d.msg);
    return text;
}

typedef struct {
    zkp_g16_vk vk;
    zkp_g16_public pub;
    zkp_g16_proof proof;
} snarkjs_files;

static void load_snarkjs_files(snarkjs_files *f, const char *fixture) {
    size_t len;
    zkp_diag d = {{0}};
    char *t = read_fixture(fixture, "verification_key.json", &len);
    ASSERT_MSG(zkp_snarkjs_read_vk(t, len, fixture, &f->vk, &d) == ZKPIPE_OK, "%s", d.msg);
    free(t);
    t = read_fixture(fixture, "public.json", &len);
    ASSERT_MSG(zkp_snarkjs_read_public(t, len, fixture, f->vk.curve, &f->pub, &d) == ZKPIPE_OK, "%s",
               d.msg);
    free(t);
    t = read_fixture(fixture, "proof.json", &len);
    ASSERT_MSG(zkp_snarkjs_read_proof(t, len, fixture, &f->proof, &d) == ZKPIPE_OK, "%s", d.msg);
    free(t);
}

static void release_snarkjs_files(snarkjs_files *f) {
    zkp_g16_vk_release(&f->vk);
    zkp_g16_public_release(&f->pub);
}

typedef struct {
    zkp_zkey key;
    zkp_wtns wtns;
} key_and_witness;

static void load_key_and_witness(key_and_witness *kw, const char *fixture) {
    char path[512];
    zkp_diag d = {{0}};
    memset(kw, 0, sizeof *kw);
    fixture_path(path, sizeof path, fixture, "circuit.zkey");
    ASSERT_MSG(zkp_zkey_load(&kw->key, path, NULL, &d) == ZKPIPE_OK, "%s", d.msg);
    fixture_path(path, sizeof path, fixture, "witness.wtns");
    ASSERT_MSG(zkp_wtns_load(&kw->wtns, path, NULL, &d) == ZKPIPE_OK, "%s", d.msg);
    ASSERT_MSG(zkp_wtns_check_zkey(&kw->wtns, &kw->key, &d) == ZKPIPE_OK, "%s", d.msg);
}

/* A copy of the witness handed to the prover (which takes ownership). */
static zkp_buffer witness_copy(const zkp_wtns *w) {
    zkp_buffer b = {NULL, w->values_bytes, ZKP_MEM_WITNESS, NULL};
    b.ptr = zkp_alloc(NULL, b.bytes, ZKP_MEM_WITNESS);
    ASSERT(b.ptr != NULL);
    memcpy(b.ptr, w->values, b.bytes);
    return b;
}

static zkpipe_status prove(zkp_g16_proof *proof, const key_and_witness *kw, unsigned nthreads) {
    zkp_g16_pk pk;
    zkp_zkey_pk(&kw->key, &pk);
    zkp_buffer w = witness_copy(&kw->wtns);
    zkp_g16_prove_opts opts = {.nthreads = nthreads};
    zkp_g16_pending *p = NULL;
    zkp_diag d = {{0}};
    zkpipe_status st = zkp_g16_prove_start(&p, &pk, &w, &opts, &d);
    ASSERT(w.ptr == NULL);
    if (st != ZKPIPE_OK) return st;
    return zkp_g16_prove_finalize(proof, p, NULL, &d);
}

/* The public signals of the fixture's witness: values 1 .. n_public. */
static zkp_g16_public witness_public(const key_and_witness *kw) {
    zkp_g16_public pub = {kw->wtns.curve, zkp_zkey_n_public(&kw->key), NULL};
    pub.values = malloc(pub.n * 4 * sizeof(uint64_t) + 1);
    ASSERT(pub.values != NULL);
    memcpy(pub.values, kw->wtns.values + 4, pub.n * 4 * sizeof(uint64_t));
    return pub;
}

TEST_CASE(groth16_our_proofs_verify_both_curves) {
    for (size_t f = 0; f < ZKP_ARRAY_LEN(fixtures); f++) {
        key_and_witness kw;
        load_key_and_witness(&kw, fixtures[f]);
        snarkjs_files sj;
        load_snarkjs_files(&sj, fixtures[f]);
        zkp_g16_public pub = witness_public(&kw);
        /* The public signals snarkjs wrote are those of the witness. */
        ASSERT_EQ_U64(pub.n, sj.pub.n);
        ASSERT(memcmp(pub.values, sj.pub.values, pub.n * 32) == 0);
        zkp_g16_vk vk;
        zkp_zkey_vk(&kw.key, &vk);
        for (unsigned threads = 1; threads <= 2; threads++) {
            zkp_g16_proof proof;
            ASSERT_EQ_STATUS(prove(&proof, &kw, threads), ZKPIPE_OK);
            zkp_diag d = {{0}};
            /* Against the zkey's key and against snarkjs's exported JSON. */
            ASSERT_MSG(zkp_g16_verify(&vk, &pub, &proof, &d) == ZKPIPE_OK, "%s: %s", fixtures[f], d.msg);
            ASSERT_MSG(zkp_g16_verify(&sj.vk, &pub, &proof, &d) == ZKPIPE_OK, "%s: %s", fixtures[f], d.msg);
        }
        zkp_g16_public_release(&pub);
        release_snarkjs_files(&sj);
        zkp_wtns_free(&kw.wtns);
        zkp_zkey_free(&kw.key);
    }
}

TEST_CASE(groth16_proofs_are_freshly_blinded) {
    key_and_witness kw;
    load_key_and_witness(&kw, fixtures[0]);
    zkp_g16_proof p1, p2;
    ASSERT_EQ_STATUS(prove(&p1, &kw, 1), ZKPIPE_OK);
    ASSERT_EQ_STATUS(prove(&p2, &kw, 1), ZKPIPE_OK);
    /* Same witness, new r and s: every proof point differs. */
    ASSERT(memcmp(&p1.u.bn254.a, &p2.u.bn254.a, sizeof p1.u.bn254.a) != 0);
    ASSERT(memcmp(&p1.u.bn254.b, &p2.u.bn254.b, sizeof p1.u.bn254.b) != 0);
    ASSERT(memcmp(&p1.u.bn254.c, &p2.u.bn254.c, sizeof p1.u.bn254.c) != 0);
    zkp_wtns_free(&kw.wtns);
    zkp_zkey_free(&kw.key);
}

TEST_CASE(groth16_snarkjs_proofs_verify_both_curves) {
    for (size_t f = 0; f < ZKP_ARRAY_LEN(fixtures); f++) {
        snarkjs_files sj;
        load_snarkjs_files(&sj, fixtures[f]);
        zkp_diag d = {{0}};
        ASSERT_MSG(zkp_g16_verify(&sj.vk, &sj.pub, &sj.proof, &d) == ZKPIPE_OK, "%s: %s",
                   fixtures[f], d.msg);
        release_snarkjs_files(&sj);
    }
}

/* ------------------------------------------------------------- tampering */

/* A random scalar in [2, 2^64): scaling by it moves any nonzero point. */
static void random_small_scalar(uint64_t k[4]) {
    k[0] = test_rng_u64() | 2;
    k[1] = k[2] = k[3] = 0;
}

/* A point on the curve of G but outside its prime-order subgroup: a random x
 * whose x^3 + b is a square; such a point is in the subgroup with
 * probability 1/cofactor, so draw until it is not. */
#define DEFINE_TAMPER(C, G1, G2, FQ, FQ2, FR)                                            \
    static void C##_scale_g1(G1##_affine_t *p) {                                           \
        uint64_t k[4];                                                                     \
        random_small_scalar(k);                                                            \
        G1##_jacobian_t j;                                                                 \
        G1##_from_affine(&j, p);                                                           \
        G1##_mul_var(&j, &j, k, 64);                                                       \
        G1##_to_affine(p, &j);                                                             \
    }                                                                                      \
    static void C##_scale_g2(G2##_affine_t *p) {                                           \
        uint64_t k[4];                                                                     \
        random_small_scalar(k);                                                            \
        G2##_jacobian_t j;                                                                 \
        G2##_from_affine(&j, p);                                                           \
        G2##_mul_var(&j, &j, k, 64);                                                       \
        G2##_to_affine(p, &j);                                                             \
    }                                                                                      \
    static void C##_off_subgroup_g2(G2##_affine_t *p) {                                    \
        for (;;) {                                                                         \
            FQ##_set_u64(&p->x.c0, test_rng_u64());                                        \
            FQ##_set_u64(&p->x.c1, test_rng_u64());                                        \
            FQ2##_t rhs;                                                                   \
            FQ2##_sqr(&rhs, &p->x);                                                        \
            FQ2##_mul(&rhs, &rhs, &p->x);                                                  \
            FQ2##_add(&rhs, &rhs, &G2##_b);                                                \
            if (FQ2##_sqrt_var(&p->y, &rhs) && !G2##_affine_in_subgroup_var(p)) return;    \
        }                                                                                  \
    }                                                                                      \
    /* Applies tampering t to a copy of the snarkjs proof and checks the verdict. */       \
    static void C##_expect(const snarkjs_files *sj, int t, zkpipe_status want) {           \
        zkp_g16_proof bad = sj->proof;                                                     \
        C##_g16_proof_t *q = &bad.u.C;                                                     \
        switch (t) {                                                                       \
        case 0: C##_scale_g1(&q->a); break;                                                \
        case 1: C##_scale_g2(&q->b); break;                                                \
        case 2: C##_scale_g1(&q->c); break;                                                \
        case 3: { G1##_affine_t a = q->a; q->a = q->c; q->c = a; } break;                 \
        case 4: FQ##_add(&q->a.y, &q->a.y, &q->a.x); break; /* off the curve */            \
        case 5: FQ##_add(&q->b.x.c0, &q->b.x.c0, &q->b.y.c1); break;                       \
        case 6: C##_off_subgroup_g2(&q->b); break;                                         \
        }                                                                                  \
        zkp_diag d = {{0}};                                                                \
        zkpipe_status got = zkp_g16_verify(&sj->vk, &sj->pub, &bad, &d);                   \
        ASSERT_MSG(got == want, #C " tampering %d: got %s (%s), want %s", t,               \
                   zkpipe_status_name(got), d.msg, zkpipe_status_name(want));              \
    }
DEFINE_TAMPER(bn254, bn254_g1, bn254_g2, bn254_fq, bn254_fq2, bn254_fr)
DEFINE_TAMPER(bls12_381, bls12_381_g1, bls12_381_g2, bls12_381_fp, bls12_381_fp2, bls12_381_fr)
#undef DEFINE_TAMPER

static const zkpipe_status tamper_verdict[] = {
    ZKPIPE_ERR_PROOF_INVALID, /* A scaled */
    ZKPIPE_ERR_PROOF_INVALID, /* B scaled */
    ZKPIPE_ERR_PROOF_INVALID, /* C scaled */
    ZKPIPE_ERR_PROOF_INVALID, /* A and C swapped */
    ZKPIPE_ERR_NOT_ON_CURVE,  /* A off the curve */
    ZKPIPE_ERR_NOT_ON_CURVE,  /* B off the curve */
    ZKPIPE_ERR_NOT_IN_SUBGROUP, /* B on the twist curve, outside G2 */
};

TEST_CASE(groth16_rejects_tampered_proofs) {
    for (size_t f = 0; f < ZKP_ARRAY_LEN(fixtures); f++) {
        snarkjs_files sj;
        load_snarkjs_files(&sj, fixtures[f]);
        for (int t = 0; t < (int)ZKP_ARRAY_LEN(tamper_verdict); t++) {
            if (sj.vk.curve == ZKPIPE_CURVE_BN254)
                bn254_expect(&sj, t, tamper_verdict[t]);
            else
                bls12_381_expect(&sj, t, tamper_verdict[t]);
        }
        release_snarkjs_files(&sj);
    }
}

/* A G1 point outside the subgroup exists only on BLS12-381 (BN254's G1 has
 * cofactor 1). */
TEST_CASE(groth16_rejects_g1_point_outside_subgroup) {
    snarkjs_files sj;
    load_snarkjs_files(&sj, "poseidon_small_bls12381");
    zkp_g16_proof bad = sj.proof;
    bls12_381_g1_affine_t *a = &bad.u.bls12_381.a;
    for (;;) {
        bls12_381_fp_set_u64(&a->x, test_rng_u64());
        bls12_381_fp_t rhs;
        bls12_381_fp_sqr(&rhs, &a->x);
        bls12_381_fp_mul(&rhs, &rhs, &a->x);
        bls12_381_fp_add(&rhs, &rhs, &bls12_381_g1_b);
        if (bls12_381_fp_sqrt_var(&a->y, &rhs) && !bls12_381_g1_affine_in_subgroup_var(a)) break;
    }
    ASSERT_EQ_STATUS(zkp_g16_verify(&sj.vk, &sj.pub, &bad, NULL), ZKPIPE_ERR_NOT_IN_SUBGROUP);
    release_snarkjs_files(&sj);
}

/* x and x + r are the same field element, so a verifier that reduced its
 * inputs would accept both; snarkjs's rejects x + r, and so must ours. */
static void add_r(uint64_t v[4], zkpipe_curve curve) {
    static const uint64_t r_bn254[4] = BN254_FR_MODULUS;
    static const uint64_t r_bls[4] = BLS12_381_FR_MODULUS;
    const uint64_t *r = curve == ZKPIPE_CURVE_BN254 ? r_bn254 : r_bls;
    unsigned __int128 carry = 0;
    for (int i = 0; i < 4; i++) {
        carry += (unsigned __int128)v[i] + r[i];
        v[i] = (uint64_t)carry;
        carry >>= 64;
    }
    ASSERT(carry == 0); /* both moduli are below 2^255, and so is v */
}

TEST_CASE(groth16_rejects_tampered_public_inputs) {
    for (size_t f = 0; f < ZKP_ARRAY_LEN(fixtures); f++) {
        snarkjs_files sj;
        load_snarkjs_files(&sj, fixtures[f]);
        ASSERT(sj.pub.n > 0);
        for (size_t i = 0; i < sj.pub.n; i++) {
            uint64_t *v = sj.pub.values + 4 * i, saved[4];
            memcpy(saved, v, sizeof saved);
            v[0] ^= 1; /* a different value below r */
            ASSERT_EQ_STATUS(zkp_g16_verify(&sj.vk, &sj.pub, &sj.proof, NULL), ZKPIPE_ERR_PROOF_INVALID);
            memcpy(v, saved, sizeof saved);
            add_r(v, sj.vk.curve);
            ASSERT_EQ_STATUS(zkp_g16_verify(&sj.vk, &sj.pub, &sj.proof, NULL), ZKPIPE_ERR_NON_CANONICAL);
            memcpy(v, saved, sizeof saved);
        }
        /* One input too few. */
        sj.pub.n--;
        ASSERT_EQ_STATUS(zkp_g16_verify(&sj.vk, &sj.pub, &sj.proof, NULL), ZKPIPE_ERR_SIZE_MISMATCH);
        sj.pub.n++;
        ASSERT_EQ_STATUS(zkp_g16_verify(&sj.vk, &sj.pub, &sj.proof, NULL), ZKPIPE_OK);
        release_snarkjs_files(&sj);
    }
}

/* ------------------------------------------------------------- prover edges */

static void set_cancel_during_synthesis(void *ctx, zkp_g16_stage stage) {
    if (stage == ZKP_G16_SYNTHESIZE) atomic_store_explicit((atomic_int *)ctx, 1, memory_order_relaxed);
}

TEST_CASE(groth16_prove_start_refuses_bad_witness_and_cancels) {
    key_and_witness kw;
    load_key_and_witness(&kw, fixtures[0]);
    zkp_g16_pk pk;
    zkp_zkey_pk(&kw.key, &pk);
    zkp_g16_pending *p = (zkp_g16_pending *)&pk; /* must be reset to NULL */
    zkp_diag d = {{0}};

    /* One value short: refused before any work; the buffer is still consumed. */
    zkp_buffer w = witness_copy(&kw.wtns);
    w.bytes -= 32;
    ASSERT_EQ_STATUS(zkp_g16_prove_start(&p, &pk, &w, NULL, &d), ZKPIPE_ERR_SIZE_MISMATCH);
    ASSERT(p == NULL && w.ptr == NULL);
    ASSERT(strstr(d.msg, "witness") != NULL);

    /* Cancelled at the first stage boundary after synthesis starts. */
    atomic_int cancel;
    atomic_init(&cancel, 0);
    zkp_g16_prove_opts opts = {.nthreads = 1, .progress = set_cancel_during_synthesis, .progress_ctx = &cancel,
                               .cancel = &cancel};
    w = witness_copy(&kw.wtns);
    ASSERT_EQ_STATUS(zkp_g16_prove_start(&p, &pk, &w, &opts, &d), ZKPIPE_ERR_CANCELLED);
    ASSERT(p == NULL && w.ptr == NULL);

    /* A curve the key does not have. */
    zkp_g16_pk other = pk;
    other.curve = (zkpipe_curve)99;
    w = witness_copy(&kw.wtns);
    ASSERT_EQ_STATUS(zkp_g16_prove_start(&p, &other, &w, NULL, &d), ZKPIPE_ERR_UNSUPPORTED);
    ASSERT(p == NULL && w.ptr == NULL);

    /* The two halves with the key kept, then freeing a started proof. */
    w = witness_copy(&kw.wtns);
    ASSERT_EQ_STATUS(zkp_g16_prove_start(&p, &pk, &w, NULL, &d), ZKPIPE_OK);
    zkp_g16_pending_free(p);
    zkp_wtns_free(&kw.wtns);
    zkp_zkey_free(&kw.key);
}

/* ------------------------------------------------------------- the H step */

/* The CPU's H step (groth16_body.h) against its definition, on a, b and c
 * that satisfy nothing, so that no term can cancel: each interpolated and
 * evaluated on the coset, h_j = a_j b_j - c_j there, and for a key in the
 * coefficient basis those values interpolated back from the coset, seven
 * transforms where the prover takes six. The shift is snarkjs's or a
 * random one: the six-transform form holds for any shift. */
#define H_STEP_CHECK_(C, F, CURVE)                                                                \
    static void h_step_check_##C##_(unsigned log_n, int random_shift, int coef) {                \
        const size_t n = (size_t)1 << log_n;                                                     \
        F##_t root, shift, five, zn, one;                                                         \
        F##_set_u64(&five, 5);                                                                    \
        F##_set_one(&one);                                                                        \
        ASSERT_OK(F##_ntt_root_from_generator(&root, &five, log_n));                              \
        if (random_shift) {                                                                       \
            uint64_t nn = n;                                                                      \
            do {                                                                                  \
                test_##F##_rand(&shift);                                                          \
                F##_pow(&zn, &shift, &nn, 1);                                                     \
            } while (F##_is_zero(&shift) || F##_eq(&zn, &one));                                  \
        } else {                                                                                  \
            ASSERT_OK(F##_ntt_root_from_generator(&shift, &five, log_n + 1));                     \
        }                                                                                         \
        F##_t *abc = malloc(3 * n * sizeof *abc), *want = malloc(3 * n * sizeof *want);          \
        ASSERT(abc && want);                                                                      \
        for (size_t i = 0; i < 3 * n; i++) test_##F##_rand(&abc[i]);                              \
        memcpy(want, abc, 3 * n * sizeof *abc);                                                   \
        for (int m = 0; m < 3; m++) {                                                             \
            uint64_t *v = want[m * n].l;                                                          \
            ASSERT_OK(test_##F##_cpu_ntt(v, log_n, ZKP_NTT_INVERSE_NR, root.l, NULL));            \
            ASSERT_OK(test_##F##_cpu_ntt(v, log_n, ZKP_NTT_FORWARD_RN, root.l, shift.l));         \
        }                                                                                         \
        for (size_t i = 0; i < n; i++) {                                                          \
            F##_t h;                                                                              \
            F##_mul(&h, &want[i], &want[n + i]);                                                  \
            F##_sub(&h, &h, &want[2 * n + i]);                                                    \
            F##_from_mont(&want[i], &h);                                                          \
        }                                                                                         \
        if (coef) ASSERT_OK(test_##F##_cpu_ntt(want[0].l, log_n, ZKP_NTT_INVERSE, root.l,         \
                                               shift.l));                                         \
        zkp_g16_pk pk;                                                                            \
        memset(&pk, 0, sizeof pk);                                                                \
        pk.curve = CURVE;                                                                         \
        pk.u.C.log_domain = log_n;                                                                \
        pk.u.C.domain_size = (uint32_t)n;                                                         \
        pk.u.C.h_coefficients = coef;                                                             \
        zkp_g16_rkey k;                                                                           \
        memset(&k, 0, sizeof k);                                                                  \
        k.pk = &pk;                                                                               \
        zkp_g16_cpu_work w = {.nthreads = 2};                                                     \
        zkp_g16_scalars h = {0};                                                                  \
        zkp_diag d = {{0}};                                                                       \
        ASSERT_MSG(C##_g16_cpu_h_scalars(&k, &h, abc[0].l, root.l, shift.l, &w, &d) == ZKPIPE_OK, \
                   "%s", d.msg);                                                                  \
        ASSERT(h.host == abc[0].l);                                                               \
        for (size_t i = 0; i < n; i++)                                                            \
            ASSERT_MSG(F##_eq(&abc[i], &want[i]), #C " 2^%u%s%s: h scalar %zu of %zu differs",   \
                       log_n, coef ? ", coefficients" : "", random_shift ? ", random shift" : "", \
                       i, n);                                                                     \
        free(abc);                                                                                \
        free(want);                                                                               \
    }
H_STEP_CHECK_(bn254, bn254_fr, ZKPIPE_CURVE_BN254)
H_STEP_CHECK_(bls12_381, bls12_381_fr, ZKPIPE_CURVE_BLS12_381)
#undef H_STEP_CHECK_

TEST_CASE(groth16_cpu_h_step_matches_its_definition) {
    for (unsigned log_n = 0; log_n <= 12; log_n++)
        for (int coef = 0; coef < 2; coef++)
            for (int rs = 0; rs < 2; rs++) {
                h_step_check_bn254_(log_n, rs, coef);
                h_step_check_bls12_381_(log_n, rs, coef);
            }
}
