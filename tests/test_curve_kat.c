/* Group known-answer tests against tests/vectors/{bn254,bls12_381}.json:
 * generators, additions (including P + P, P + (-P) and infinity), doublings,
 * scalar multiplications (k in {0, 1, 2, r - 1, r, r + 1, 2^256 - 1} and
 * random), points off the curve and on-curve points outside the subgroup. */
#include "curve/curve.h"
#include "test.h"
#include "test_support.h"

#define DEFINE_KAT_COORD_FP(F, FK)                                             \
    static void kat_coord_##F(F##_t *r, const zkp_json *v) {                   \
        unsigned char be[FK##_BYTES];                                          \
        const char *hex = zkp_json_string(v, NULL);                            \
        ASSERT_MSG(hex != NULL, "coordinate is not a string");                 \
        test_hex_to_be(be, sizeof be, hex);                                    \
        ASSERT_OK(F##_from_bytes_be(r, be));                                   \
    }                                                                          \
    static void kat_coord_##F##2(F##2_t *r, const zkp_json *v) {               \
        ASSERT_MSG(zkp_json_type_of(v) == ZKP_JSON_ARRAY && zkp_json_len(v) == 2, \
                   "Fp2 coordinate is not a [c0, c1] pair");                   \
        kat_coord_##F(&r->c0, zkp_json_at(v, 0));                              \
        kat_coord_##F(&r->c1, zkp_json_at(v, 1));                              \
    }
DEFINE_KAT_COORD_FP(bn254_fq, BN254_FQ)
DEFINE_KAT_COORD_FP(bls12_381_fp, BLS12_381_FP)

#define G bn254_g1
#define GF bn254_fq
#include "curve_kat_impl.h"
#define G bn254_g2
#define GF bn254_fq2
#include "curve_kat_impl.h"
#define G bls12_381_g1
#define GF bls12_381_fp
#include "curve_kat_impl.h"
#define G bls12_381_g2
#define GF bls12_381_fp2
#include "curve_kat_impl.h"

static const zkp_json *group_section(const zkp_json *root, const char *g) {
    const zkp_json *s = zkp_json_get(root, g);
    ASSERT_MSG(s != NULL, "vector file lacks section %s", g);
    return s;
}

TEST_CASE(bn254_curve_known_answers) {
    zkp_json *v = test_load_json("vectors/bn254.json");
    kat_bn254_g1_run(group_section(v, "g1"));
    kat_bn254_g2_run(group_section(v, "g2"));
    zkp_json_free(v);
}

TEST_CASE(bls12_381_curve_known_answers) {
    zkp_json *v = test_load_json("vectors/bls12_381.json");
    kat_bls12_381_g1_run(group_section(v, "g1"));
    kat_bls12_381_g2_run(group_section(v, "g2"));
    zkp_json_free(v);
}
