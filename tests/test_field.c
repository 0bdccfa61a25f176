#include <string.h>

#include "field/field.h"
#include "field/modinv.h"
#include "test.h"

#define F bn254_fq
#define FK BN254_FQ
#include "field_props_impl.h"
#define F bn254_fr
#define FK BN254_FR
#include "field_props_impl.h"
#define F bls12_381_fp
#define FK BLS12_381_FP
#include "field_props_impl.h"
#define F bls12_381_fr
#define FK BLS12_381_FR
#include "field_props_impl.h"

TEST_CASE(bn254_fq_ring_laws) { test_bn254_fq_ring_laws(); }
TEST_CASE(bn254_fq_edge_arith) { test_bn254_fq_edge_arith(); }
TEST_CASE(bn254_fq_inversion) { test_bn254_fq_inversion(); }
TEST_CASE(bn254_fq_modinv_raw) { test_bn254_fq_modinv_raw(); }
TEST_CASE(bn254_fq_sqrt_legendre) { test_bn254_fq_sqrt_legendre(); }
TEST_CASE(bn254_fq_encodings) { test_bn254_fq_encodings(); }
TEST_CASE(bn254_fq_roots_and_random) { test_bn254_fq_roots_and_random(); }
TEST_CASE(bn254_fr_ring_laws) { test_bn254_fr_ring_laws(); }
TEST_CASE(bn254_fr_edge_arith) { test_bn254_fr_edge_arith(); }
TEST_CASE(bn254_fr_inversion) { test_bn254_fr_inversion(); }
TEST_CASE(bn254_fr_modinv_raw) { test_bn254_fr_modinv_raw(); }
TEST_CASE(bn254_fr_sqrt_legendre) { test_bn254_fr_sqrt_legendre(); }
TEST_CASE(bn254_fr_encodings) { test_bn254_fr_encodings(); }
TEST_CASE(bn254_fr_roots_and_random) { test_bn254_fr_roots_and_random(); }
TEST_CASE(bls12_381_fp_ring_laws) { test_bls12_381_fp_ring_laws(); }
TEST_CASE(bls12_381_fp_edge_arith) { test_bls12_381_fp_edge_arith(); }
TEST_CASE(bls12_381_fp_inversion) { test_bls12_381_fp_inversion(); }
TEST_CASE(bls12_381_fp_modinv_raw) { test_bls12_381_fp_modinv_raw(); }
TEST_CASE(bls12_381_fp_sqrt_legendre) { test_bls12_381_fp_sqrt_legendre(); }
TEST_CASE(bls12_381_fp_encodings) { test_bls12_381_fp_encodings(); }
TEST_CASE(bls12_381_fp_roots_and_random) { test_bls12_381_fp_roots_and_random(); }
TEST_CASE(bls12_381_fr_ring_laws) { test_bls12_381_fr_ring_laws(); }
TEST_CASE(bls12_381_fr_edge_arith) { test_bls12_381_fr_edge_arith(); }
TEST_CASE(bls12_381_fr_inversion) { test_bls12_381_fr_inversion(); }
TEST_CASE(bls12_381_fr_modinv_raw) { test_bls12_381_fr_modinv_raw(); }
TEST_CASE(bls12_381_fr_sqrt_legendre) { test_bls12_381_fr_sqrt_legendre(); }
TEST_CASE(bls12_381_fr_encodings) { test_bls12_381_fr_encodings(); }
TEST_CASE(bls12_381_fr_roots_and_random) { test_bls12_381_fr_roots_and_random(); }
