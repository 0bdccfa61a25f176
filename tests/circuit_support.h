/* A key of coefficients alone, for the compiled circuit's tests on the CPU
 * and on a GPU: n_coefs random entries of A and B over rows rows and cols
 * variables, their values drawn from `distinct` random field elements
 * (each used at least once), and a random canonical witness. */
#ifndef ZKP_TESTS_CIRCUIT_SUPPORT_H
#define ZKP_TESTS_CIRCUIT_SUPPORT_H

#include <stdlib.h>

#include "groth16/groth16.h"
#include "test.h"

typedef struct {
    zkp_g16_pk pk; /* BLS12-381: the coefficients and dimensions only */
    bls12_381_g16_coef_t *coefs;
    uint64_t *w; /* cols canonical scalars */
} test_coef_key;

/* A random value below r (the top limb's four high bits clear). */
static inline void test_coef_scalar_(uint64_t *l) {
    test_rng_bytes(l, 32);
    l[3] &= 0x0fffffffffffffffu;
}

static inline void test_coef_key_make(test_coef_key *k, unsigned log_rows, size_t cols,
                                      size_t n_coefs, size_t distinct) {
    size_t rows = (size_t)1 << log_rows;
    bls12_381_fr_t *vals = malloc(distinct * sizeof *vals);
    k->coefs = malloc(n_coefs * sizeof *k->coefs);
    k->w = malloc(cols * 32);
    ASSERT(vals && k->coefs && k->w && n_coefs >= distinct);
    for (size_t i = 0; i < distinct; i++) test_coef_scalar_(vals[i].l);
    for (size_t e = 0; e < n_coefs; e++) {
        k->coefs[e].matrix = (uint32_t)(test_rng_u64() & 1);
        k->coefs[e].constraint = (uint32_t)(test_rng_u64() % rows);
        k->coefs[e].signal = (uint32_t)(test_rng_u64() % cols);
        k->coefs[e].value = vals[e < distinct ? e : test_rng_u64() % distinct];
    }
    for (size_t j = 0; j < cols; j++) test_coef_scalar_(k->w + 4 * j);
    free(vals);
    memset(&k->pk, 0, sizeof k->pk);
    k->pk.curve = ZKPIPE_CURVE_BLS12_381;
    k->pk.u.bls12_381.n_vars = (uint32_t)cols;
    k->pk.u.bls12_381.domain_size = (uint32_t)rows;
    k->pk.u.bls12_381.log_domain = log_rows;
    k->pk.u.bls12_381.coefs = k->coefs;
    k->pk.u.bls12_381.n_coefs = n_coefs;
}

static inline void test_coef_key_free(test_coef_key *k) {
    free(k->coefs);
    free(k->w);
    memset(k, 0, sizeof *k);
}

#endif
