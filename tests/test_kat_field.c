/* Field known-answer tests against @noble/curves (the JSON files in tests/vectors). */
#include "field/field.h"
#include "test.h"
#include "test_support.h"

#define F bn254_fq
#define FK BN254_FQ
#define F2 bn254_fq2
#include "kat_field_impl.h"
#define F bn254_fr
#define FK BN254_FR
#include "kat_field_impl.h"
#define F bls12_381_fp
#define FK BLS12_381_FP
#define F2 bls12_381_fp2
#include "kat_field_impl.h"
#define F bls12_381_fr
#define FK BLS12_381_FR
#include "kat_field_impl.h"

static const zkp_json *section(const zkp_json *root, const char *a, const char *b) {
    const zkp_json *s = zkp_json_get(root, a);
    if (s && b) s = zkp_json_get(s, b);
    ASSERT_MSG(s != NULL, "vector file lacks section %s%s%s", a, b ? "." : "", b ? b : "");
    return s;
}

TEST_CASE(bn254_field_known_answers) {
    zkp_json *v = test_load_json("vectors/bn254.json");
    kat_bn254_fq_run(section(v, "fp", NULL));
    kat_bn254_fr_run(section(v, "fr", NULL));
    kat_bn254_fq_run2(section(v, "fp2", NULL));
    kat_bn254_fq_circom(section(v, "circom", "fp"));
    kat_bn254_fr_circom(section(v, "circom", "fr"));
    zkp_json_free(v);
}

TEST_CASE(bls12_381_field_known_answers) {
    zkp_json *v = test_load_json("vectors/bls12_381.json");
    kat_bls12_381_fp_run(section(v, "fp", NULL));
    kat_bls12_381_fr_run(section(v, "fr", NULL));
    kat_bls12_381_fp_run2(section(v, "fp2", NULL));
    kat_bls12_381_fp_circom(section(v, "circom", "fp"));
    kat_bls12_381_fr_circom(section(v, "circom", "fr"));
    zkp_json_free(v);
}
