/* The Fp6 and Fp12 towers of both curves (tower_props_impl.h). */
#include "field/field.h"
#include "test.h"

#define F12 bn254_fq12
#define F6 bn254_fq6
#define F2 bn254_fq2
#define FB bn254_fq
#define FP_PARAM_OF_TEST BN254
#include "tower_props_impl.h"

#define F12 bls12_381_fp12
#define F6 bls12_381_fp6
#define F2 bls12_381_fp2
#define FB bls12_381_fp
#define FP_PARAM_OF_TEST BLS12_381
#include "tower_props_impl.h"

TEST_CASE(bn254_tower_wide) { test_bn254_fq12_wide(); }
TEST_CASE(bn254_fq6_laws) { test_bn254_fq12_fp6_laws(); }
TEST_CASE(bn254_fq12_laws) { test_bn254_fq12_fp12_laws(); }
TEST_CASE(bn254_tower_frobenius) { test_bn254_fq12_frobenius(); }
TEST_CASE(bn254_fq12_cyclotomic) { test_bn254_fq12_cyclotomic(); }
TEST_CASE(bls12_381_tower_wide) { test_bls12_381_fp12_wide(); }
TEST_CASE(bls12_381_fp6_laws) { test_bls12_381_fp12_fp6_laws(); }
TEST_CASE(bls12_381_fp12_laws) { test_bls12_381_fp12_fp12_laws(); }
TEST_CASE(bls12_381_tower_frobenius) { test_bls12_381_fp12_frobenius(); }
TEST_CASE(bls12_381_fp12_cyclotomic) { test_bls12_381_fp12_cyclotomic(); }
