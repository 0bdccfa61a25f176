#include <string.h>

#include "ntt/ntt.h"
#include "test.h"

#define F bn254_fr
#define FK BN254_FR
#define FGEN 5
#include "ntt_props_impl.h"
#define F bls12_381_fr
#define FK BLS12_381_FR
#define FGEN 7
#include "ntt_props_impl.h"

TEST_CASE(bn254_ntt_root_convention) { test_bn254_fr_ntt_root_convention(); }
TEST_CASE(bn254_ntt_direct_small) { test_bn254_fr_ntt_direct_small(); }
TEST_CASE(bn254_ntt_levels_direct) { test_bn254_fr_ntt_levels_direct(); }
TEST_CASE(bn254_ntt_coset_direct) { test_bn254_fr_ntt_coset_direct(); }
TEST_CASE(bn254_ntt_round_trip) { test_bn254_fr_ntt_round_trip(); }
TEST_CASE(bn254_ntt_large) { test_bn254_fr_ntt_large(); }
TEST_CASE(bn254_ntt_threads_match) { test_bn254_fr_ntt_threads_match(); }
TEST_CASE(bn254_ntt_bit_reverse) { test_bn254_fr_ntt_bit_reverse(); }
TEST_CASE(bn254_ntt_poly_mul) { test_bn254_fr_ntt_poly_mul(); }
TEST_CASE(bn254_ntt_h_polynomial) { test_bn254_fr_ntt_h_polynomial(); }
TEST_CASE(bn254_ntt_refuse) { test_bn254_fr_ntt_refuse(); }
TEST_CASE(bls12_381_ntt_root_convention) { test_bls12_381_fr_ntt_root_convention(); }
TEST_CASE(bls12_381_ntt_direct_small) { test_bls12_381_fr_ntt_direct_small(); }
TEST_CASE(bls12_381_ntt_levels_direct) { test_bls12_381_fr_ntt_levels_direct(); }
TEST_CASE(bls12_381_ntt_coset_direct) { test_bls12_381_fr_ntt_coset_direct(); }
TEST_CASE(bls12_381_ntt_round_trip) { test_bls12_381_fr_ntt_round_trip(); }
TEST_CASE(bls12_381_ntt_large) { test_bls12_381_fr_ntt_large(); }
TEST_CASE(bls12_381_ntt_threads_match) { test_bls12_381_fr_ntt_threads_match(); }
TEST_CASE(bls12_381_ntt_bit_reverse) { test_bls12_381_fr_ntt_bit_reverse(); }
TEST_CASE(bls12_381_ntt_poly_mul) { test_bls12_381_fr_ntt_poly_mul(); }
TEST_CASE(bls12_381_ntt_h_polynomial) { test_bls12_381_fr_ntt_h_polynomial(); }
TEST_CASE(bls12_381_ntt_refuse) { test_bls12_381_fr_ntt_refuse(); }
