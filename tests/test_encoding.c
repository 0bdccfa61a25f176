/* Point encodings against the @noble/curves vectors: the circom binary
 * layout and decimal strings for all four groups, the ZCash serialization
 * for BLS12-381, and every class of invalid input. */
#include <string.h>

#include "curve/curve.h"
#include "curve/encoding.h"
#include "test.h"
#include "test_support.h"

#define G bn254_g1
#define B bn254_fq
#define BK BN254_FQ
#define DEG 1
#include "encoding_kat_impl.h"
#define G bn254_g2
#define B bn254_fq
#define BK BN254_FQ
#define DEG 2
#include "encoding_kat_impl.h"
#define G bls12_381_g1
#define B bls12_381_fp
#define BK BLS12_381_FP
#define DEG 1
#define ZCASH
#include "encoding_kat_impl.h"
#define G bls12_381_g2
#define B bls12_381_fp
#define BK BLS12_381_FP
#define DEG 2
#define ZCASH
#include "encoding_kat_impl.h"

static const zkp_json *get2(const zkp_json *root, const char *a, const char *b) {
    const zkp_json *s = zkp_json_get(zkp_json_get(root, a), b);
    ASSERT_MSG(s != NULL, "vectors lack %s.%s", a, b);
    return s;
}

TEST_CASE(bn254_encodings_circom_and_decimal) {
    zkp_json *v = test_load_json("vectors/bn254.json");
    enc_bn254_g1_circom(get2(v, "circom", "g1"));
    enc_bn254_g2_circom(get2(v, "circom", "g2"));
    enc_bn254_g1_decimal(get2(v, "circom", "g1"));
    enc_bn254_g2_decimal(get2(v, "circom", "g2"));
    enc_bn254_g1_not_in_subgroup(get2(v, "g1", "not_in_subgroup")); /* empty: cofactor 1 */
    enc_bn254_g2_not_in_subgroup(get2(v, "g2", "not_in_subgroup"));
    zkp_json_free(v);
}

TEST_CASE(bls12_381_encodings_circom_and_decimal) {
    zkp_json *v = test_load_json("vectors/bls12_381.json");
    enc_bls12_381_g1_circom(get2(v, "circom", "g1"));
    enc_bls12_381_g2_circom(get2(v, "circom", "g2"));
    enc_bls12_381_g1_decimal(get2(v, "circom", "g1"));
    enc_bls12_381_g2_decimal(get2(v, "circom", "g2"));
    enc_bls12_381_g1_not_in_subgroup(get2(v, "g1", "not_in_subgroup"));
    enc_bls12_381_g2_not_in_subgroup(get2(v, "g2", "not_in_subgroup"));
    zkp_json_free(v);
}

TEST_CASE(bls12_381_encodings_zcash) {
    zkp_json *v = test_load_json("vectors/bls12_381.json");
    enc_bls12_381_g1_zcash(zkp_json_get(v, "zcash"), "g1");
    enc_bls12_381_g2_zcash(zkp_json_get(v, "zcash"), "g2");
    zkp_json_free(v);
}
