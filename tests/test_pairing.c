/* The optimal ate pairings of both curves (pairing_props_impl.h), with the
 * points produced by a small independent group implementation
 * (pairing_ec_impl.h) and the known answers of tests/vectors/bn254.json and
 * bls12_381.json (see the README there for how @noble/curves computed them
 * with the exact exponent). */
#include "field/field.h"
#include "pairing/pairing.h"
#include "pairing/pairing_params.h"
#include "test.h"
#include "test_support.h"

typedef struct {
    const char *a, *b;   /* p = a·G1, q = b·G2 */
    const char *p[2];    /* x, y */
    const char *q[4];    /* x.c0, x.c1, y.c0, y.c1 */
    const char *out[12]; /* e(p, q) in the tower order of the README */
} pairing_kat_t;

/* Reads the "pairing" known answers of tests/vectors/<file>. The strings
 * point into the parsed tree, which stays loaded for the life of the test
 * process (one per file), so the entries remain valid across cases. */
static size_t load_kats(pairing_kat_t *out, size_t cap, const char *file) {
    static zkp_json *trees[2];
    static const char *files[2];
    zkp_json *root = NULL;
    for (int i = 0; i < 2 && root == NULL; i++) {
        if (files[i] == NULL) {
            files[i] = file;
            trees[i] = test_load_json(file);
        }
        if (strcmp(files[i], file) == 0) root = trees[i];
    }
    ASSERT(root != NULL);
    const zkp_json *list = zkp_json_get(root, "pairing");
    size_t n = zkp_json_len(list);
    ASSERT_MSG(n > 0 && n <= cap, "%s: %zu pairing vectors (room for %zu)", file, n, cap);
    for (size_t i = 0; i < n; i++) {
        const zkp_json *v = zkp_json_at(list, i), *p = zkp_json_get(v, "p"), *q = zkp_json_get(v, "q");
        const zkp_json *qx = zkp_json_get(q, "x"), *qy = zkp_json_get(q, "y"), *o = zkp_json_get(v, "out");
        ASSERT_MSG(p && qx && qy && zkp_json_len(qx) == 2 && zkp_json_len(qy) == 2 && zkp_json_len(o) == 12,
                   "%s: malformed pairing vector %zu", file, i);
        out[i].a = zkp_json_string(zkp_json_get(v, "a"), NULL);
        out[i].b = zkp_json_string(zkp_json_get(v, "b"), NULL);
        out[i].p[0] = zkp_json_string(zkp_json_get(p, "x"), NULL);
        out[i].p[1] = zkp_json_string(zkp_json_get(p, "y"), NULL);
        for (size_t k = 0; k < 2; k++) {
            out[i].q[k] = zkp_json_string(zkp_json_at(qx, k), NULL);
            out[i].q[2 + k] = zkp_json_string(zkp_json_at(qy, k), NULL);
        }
        for (size_t k = 0; k < 12; k++) out[i].out[k] = zkp_json_string(zkp_json_at(o, k), NULL);
        ASSERT_MSG(out[i].a && out[i].b && out[i].p[0] && out[i].p[1], "%s: vector %zu lacks strings", file, i);
    }
    return n;
}

static const pairing_kat_t *bn254_kats(size_t *n) {
    static pairing_kat_t kats[16];
    *n = load_kats(kats, 16, "vectors/bn254.json");
    return kats;
}

static const pairing_kat_t *bls12_381_kats(size_t *n) {
    static pairing_kat_t kats[16];
    *n = load_kats(kats, 16, "vectors/bls12_381.json");
    return kats;
}

#define EC test_bn254_g1
#define EF bn254_fq
#define EA bn254_g1_affine_t
#include "pairing_ec_impl.h"
#define EC test_bn254_g2
#define EF bn254_fq2
#define EA bn254_g2_affine_t
#include "pairing_ec_impl.h"
#define EC test_bls12_381_g1
#define EF bls12_381_fp
#define EA bls12_381_g1_affine_t
#include "pairing_ec_impl.h"
#define EC test_bls12_381_g2
#define EF bls12_381_fp2
#define EA bls12_381_g2_affine_t
#include "pairing_ec_impl.h"

#define PC bn254
#define FB bn254_fq
#define F2 bn254_fq2
#define F12 bn254_fq12
#define FR bn254_fr
#define PPARAM BN254
#define G1_B 3
#include "pairing_props_impl.h"

#define PC bls12_381
#define FB bls12_381_fp
#define F2 bls12_381_fp2
#define F12 bls12_381_fp12
#define FR bls12_381_fr
#define PPARAM BLS12_381
#define G1_B 4
#include "pairing_props_impl.h"

TEST_CASE(bn254_pairing_known_answers) { test_pairing_bn254_known_answers(); }
TEST_CASE(bn254_pairing_bilinearity) { test_pairing_bn254_bilinearity(); }
TEST_CASE(bn254_pairing_final_exp_exact) { test_pairing_bn254_final_exp_exact(); }
TEST_CASE(bn254_pairing_multi) { test_pairing_bn254_multi(); }
TEST_CASE(bls12_381_pairing_known_answers) { test_pairing_bls12_381_known_answers(); }
TEST_CASE(bls12_381_pairing_bilinearity) { test_pairing_bls12_381_bilinearity(); }
TEST_CASE(bls12_381_pairing_final_exp_exact) { test_pairing_bls12_381_final_exp_exact(); }
TEST_CASE(bls12_381_pairing_multi) { test_pairing_bls12_381_multi(); }
