/* The pre-compiled circuit against two independent paths: the circuit's
 * .r1cs file (A·w, B·w, C·w from circom's own constraints, with canonical
 * coefficients) and the prover's synthesis from the zkey's coefficient
 * list, through a proof that must verify. */
#include <stdlib.h>
#include <string.h>

#include "circuit/circuit.h"
#include "formats/r1cs.h"
#include "formats/wtns.h"
#include "formats/zkey.h"
#include "circuit_support.h"
#include "test.h"

static const char *const circuit_fixtures[] = {
    "poseidon_small_bn128",
    "merkle_small_bn128",
    "poseidon_small_bls12381",
    "merkle_small_bls12381",
};

static void load(const char *fixture, const char *file, zkp_zkey *key, zkp_wtns *w, zkp_r1cs *r) {
    char path[512];
    zkp_diag d = {{0}};
    snprintf(path, sizeof path, "%s/fixtures/%s/%s", ZKP_TEST_DATA_DIR, fixture, "circuit.zkey");
    if (key) ASSERT_MSG(zkp_zkey_load(key, path, NULL, &d) == ZKPIPE_OK, "%s", d.msg);
    snprintf(path, sizeof path, "%s/fixtures/%s/%s", ZKP_TEST_DATA_DIR, fixture, "witness.wtns");
    if (w) ASSERT_MSG(zkp_wtns_load(w, path, NULL, &d) == ZKPIPE_OK, "%s", d.msg);
    snprintf(path, sizeof path, "%s/fixtures/%s/%s", ZKP_TEST_DATA_DIR, fixture, file);
    if (r) ASSERT_MSG(zkp_r1cs_load(r, path, &d) == ZKPIPE_OK, "%s", d.msg);
}

/* Row i of the .r1cs constraints: A·w, B·w and C·w, in Montgomery form,
 * against the compiled circuit's a_i and b_i, and a_i·b_i = C·w. Rows past
 * the constraints (snarkjs's public-input rows, then padding) are not in
 * the .r1cs file. */
#define DEFINE_R1CS_CHECK(C, FR)                                                               \
    static void C##_check_r1cs(const C##_csr_t *csr, const zkp_r1cs *r, const uint64_t *w,     \
                               const FR##_t *abc) {                                           \
        zkp_r1cs_iter it;                                                                      \
        zkp_r1cs_constraint con;                                                               \
        zkp_r1cs_iter_init(&it, r);                                                            \
        size_t n = csr->n_rows, row = 0;                                                       \
        while (zkp_r1cs_iter_next(&it, &con)) {                                                \
            FR##_t dot[3];                                                                     \
            for (int m = 0; m < 3; m++) {                                                      \
                FR##_set_zero(&dot[m]);                                                        \
                for (uint32_t k = 0; k < con.lc[m].n_terms; k++) {                             \
                    FR##_t coef, wv, t;                                                        \
                    zkp_r1cs_term_coef_limbs(&con.lc[m], k, coef.l);                           \
                    FR##_to_mont(&coef, &coef);                                                \
                    memcpy(wv.l, w + 4 * (size_t)zkp_r1cs_term_wire(&con.lc[m], k), 32);       \
                    FR##_to_mont(&wv, &wv);                                                    \
                    FR##_mul(&t, &coef, &wv);                                                  \
                    FR##_add(&dot[m], &dot[m], &t);                                            \
                }                                                                              \
            }                                                                                  \
            ASSERT_MSG(FR##_eq(&dot[0], &abc[row]), "row %zu: A.w differs", row);              \
            ASSERT_MSG(FR##_eq(&dot[1], &abc[n + row]), "row %zu: B.w differs", row);          \
            ASSERT_MSG(FR##_eq(&dot[2], &abc[2 * n + row]), "row %zu: a*b != C.w", row);       \
            row++;                                                                             \
        }                                                                                      \
        ASSERT_EQ_U64(row, r->n_constraints);                                                  \
    }
DEFINE_R1CS_CHECK(bn254, bn254_fr)
DEFINE_R1CS_CHECK(bls12_381, bls12_381_fr)
#undef DEFINE_R1CS_CHECK

TEST_CASE(circuit_synthesis_matches_r1cs_and_proves) {
    for (size_t f = 0; f < ZKP_ARRAY_LEN(circuit_fixtures); f++) {
        zkp_zkey key;
        zkp_wtns w;
        zkp_r1cs r;
        load(circuit_fixtures[f], "circuit.r1cs", &key, &w, &r);
        zkp_g16_pk pk;
        zkp_zkey_pk(&key, &pk);
        zkp_circuit c;
        zkp_diag d = {{0}};
        ASSERT_OK(zkp_circuit_build(&c, &pk, NULL, &d));
        ASSERT_EQ_U64(zkp_circuit_bytes(&pk), c.curve == ZKPIPE_CURVE_BN254 ? c.u.bn254.mem_bytes
                                                                             : c.u.bls12_381.mem_bytes);
        size_t bytes = zkp_circuit_abc_bytes(&c);
        zkp_buffer abc = {zkp_alloc(NULL, bytes, ZKP_MEM_ABC), bytes, ZKP_MEM_ABC, NULL};
        void *abc3 = malloc(bytes);
        ASSERT(abc.ptr && abc3);
        zkp_circuit_synthesize(&c, w.values, abc.ptr, 1);
        zkp_circuit_synthesize(&c, w.values, abc3, 3);
        ASSERT_MEM_EQ(abc.ptr, abc3, bytes); /* any split of the rows */
        if (c.curve == ZKPIPE_CURVE_BN254)
            bn254_check_r1cs(&c.u.bn254, &r, w.values, abc.ptr);
        else
            bls12_381_check_r1cs(&c.u.bls12_381, &r, w.values, abc.ptr);

        /* The prover accepts the compiled synthesis, and the proof verifies. */
        zkp_buffer wb = {w.values, w.values_bytes, ZKP_MEM_WITNESS, w.alloc};
        zkp_g16_public pub = {w.curve, zkp_zkey_n_public(&key), malloc(32 * zkp_zkey_n_public(&key) + 1)};
        ASSERT(pub.values != NULL);
        memcpy(pub.values, w.values + 4, 32 * pub.n);
        w.values = NULL;
        zkp_g16_pending *p;
        zkp_g16_proof proof;
        ASSERT_OK(zkp_g16_prove_start_abc(&p, &pk, &wb, &abc, NULL, &d));
        ASSERT(abc.ptr == NULL && wb.ptr == NULL);
        ASSERT_OK(zkp_g16_prove_finalize(&proof, p, NULL, &d));
        zkp_g16_vk vk;
        zkp_zkey_vk(&key, &vk);
        ASSERT_MSG(zkp_g16_verify(&vk, &pub, &proof, &d) == ZKPIPE_OK, "%s: %s", circuit_fixtures[f], d.msg);

        /* A buffer of the wrong size is refused, and still consumed. */
        zkp_buffer small = {zkp_alloc(NULL, 64, ZKP_MEM_ABC), 64, ZKP_MEM_ABC, NULL};
        zkp_buffer w2 = {zkp_alloc(NULL, (size_t)zkp_zkey_n_vars(&key) * 32, ZKP_MEM_WITNESS),
                         (size_t)zkp_zkey_n_vars(&key) * 32, ZKP_MEM_WITNESS, NULL};
        ASSERT_EQ_STATUS(zkp_g16_prove_start_abc(&p, &pk, &w2, &small, NULL, &d), ZKPIPE_ERR_SIZE_MISMATCH);
        ASSERT(small.ptr == NULL && w2.ptr == NULL && p == NULL);

        free(abc3);
        zkp_g16_public_release(&pub);
        zkp_circuit_free(&c);
        zkp_r1cs_free(&r);
        zkp_wtns_free(&w);
        zkp_zkey_free(&key);
    }
}

/* A key of coefficients alone, drawn from `distinct` random values (raw
 * form, reduced), over rows rows and cols variables; the compiled
 * circuit's a, b, c against the sums taken entry by entry from the list.
 * Up to ZKP_CIRCUIT_DICT_MAX distinct values the circuit keeps a table of
 * them and an index per entry, past it the values themselves: both must
 * give the same a, b and c. */
static void check_coefs_(size_t distinct, int want_dict) {
    enum { LOG = 10, ROWS = 1 << LOG, COLS = 700 };
    size_t n_coefs = 2 * ROWS * 3 + distinct;
    test_coef_key key;
    test_coef_key_make(&key, LOG, COLS, n_coefs, distinct);
    const zkp_g16_pk pk = key.pk;
    const bls12_381_g16_coef_t *coefs = key.coefs;
    const uint64_t *w = key.w;
    zkp_circuit c;
    zkp_diag d = {{0}};
    ASSERT_OK(zkp_circuit_build(&c, &pk, NULL, &d));
    const bls12_381_csr_t *csr = &c.u.bls12_381;
    ASSERT_EQ_INT(csr->dict != NULL, want_dict);
    ASSERT_EQ_U64(csr->n_dict, want_dict ? distinct : 0);
    ASSERT_EQ_U64(zkp_circuit_bytes(&pk), csr->mem_bytes);
    bls12_381_fr_t *abc = malloc(zkp_circuit_abc_bytes(&c)), want[2 * ROWS];
    ASSERT(abc);
    zkp_circuit_synthesize(&c, w, abc, 2);
    memset(want, 0, sizeof want);
    for (size_t k = 0; k < n_coefs; k++) {
        bls12_381_fr_t t, wv;
        memcpy(wv.l, w + 4 * (size_t)coefs[k].signal, 32);
        bls12_381_fr_mul(&t, &coefs[k].value, &wv);
        bls12_381_fr_t *acc = &want[coefs[k].matrix * ROWS + coefs[k].constraint];
        bls12_381_fr_add(acc, acc, &t);
    }
    for (size_t i = 0; i < ROWS; i++) {
        ASSERT_MSG(bls12_381_fr_eq(&abc[i], &want[i]), "a differs at row %zu", i);
        ASSERT_MSG(bls12_381_fr_eq(&abc[ROWS + i], &want[ROWS + i]), "b differs at row %zu", i);
        bls12_381_fr_t ab;
        bls12_381_fr_mul(&ab, &want[i], &want[ROWS + i]);
        ASSERT_MSG(bls12_381_fr_eq(&abc[2 * ROWS + i], &ab), "c differs at row %zu", i);
    }
    free(abc);
    zkp_circuit_free(&c);
    test_coef_key_free(&key);
}

TEST_CASE(circuit_values_by_table_or_in_full) {
    check_coefs_(3, 1);
    check_coefs_(ZKP_CIRCUIT_DICT_MAX, 1);
    check_coefs_(ZKP_CIRCUIT_DICT_MAX + 1, 0);
}
