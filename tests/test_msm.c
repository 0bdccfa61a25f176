#include <stdlib.h>
#include <string.h>

#include "curve/curve.h"
#include "msm/msm.h"
#include "test.h"

#define G bn254_g1
#define GSK BN254_FR
#define G_N 1000
#define G_MAXC 16
#define G_EXH 8
#include "msm_props_impl.h"

#define G bn254_g2
#define GSK BN254_FR
#define G_N 257
#define G_MAXC 12
#define G_EXH 7
#include "msm_props_impl.h"

#define G bls12_381_g1
#define GSK BLS12_381_FR
#define G_N 1000
#define G_MAXC 16
#define G_EXH 8
#include "msm_props_impl.h"

#define G bls12_381_g2
#define GSK BLS12_381_FR
#define G_N 257
#define G_MAXC 12
#define G_EXH 7
#include "msm_props_impl.h"

TEST_CASE(bn254_g1_msm_matches_naive) { test_msm_bn254_g1_matches_naive(); }
TEST_CASE(bn254_g1_msm_edge_scalars) { test_msm_bn254_g1_edge_scalars(); }
TEST_CASE(bn254_g1_msm_duplicate_and_infinity_bases) { test_msm_bn254_g1_duplicate_and_infinity_bases(); }
TEST_CASE(bn254_g1_msm_window_logic_exhaustive) { test_msm_bn254_g1_window_logic_exhaustive(); }
TEST_CASE(bn254_g1_msm_split_matches_plain) { test_msm_bn254_g1_split_matches_plain(); }
TEST_CASE(bn254_g1_msm_thread_counts_agree) { test_msm_bn254_g1_thread_counts_agree(); }
TEST_CASE(bn254_g1_msm_scratch_and_arguments_refused) { test_msm_bn254_g1_scratch_and_arguments_refused(); }

TEST_CASE(bn254_g2_msm_matches_naive) { test_msm_bn254_g2_matches_naive(); }
TEST_CASE(bn254_g2_msm_edge_scalars) { test_msm_bn254_g2_edge_scalars(); }
TEST_CASE(bn254_g2_msm_duplicate_and_infinity_bases) { test_msm_bn254_g2_duplicate_and_infinity_bases(); }
TEST_CASE(bn254_g2_msm_window_logic_exhaustive) { test_msm_bn254_g2_window_logic_exhaustive(); }
TEST_CASE(bn254_g2_msm_split_matches_plain) { test_msm_bn254_g2_split_matches_plain(); }
TEST_CASE(bn254_g2_msm_thread_counts_agree) { test_msm_bn254_g2_thread_counts_agree(); }
TEST_CASE(bn254_g2_msm_scratch_and_arguments_refused) { test_msm_bn254_g2_scratch_and_arguments_refused(); }

TEST_CASE(bls12_381_g1_msm_matches_naive) { test_msm_bls12_381_g1_matches_naive(); }
TEST_CASE(bls12_381_g1_msm_edge_scalars) { test_msm_bls12_381_g1_edge_scalars(); }
TEST_CASE(bls12_381_g1_msm_duplicate_and_infinity_bases) { test_msm_bls12_381_g1_duplicate_and_infinity_bases(); }
TEST_CASE(bls12_381_g1_msm_window_logic_exhaustive) { test_msm_bls12_381_g1_window_logic_exhaustive(); }
TEST_CASE(bls12_381_g1_msm_split_matches_plain) { test_msm_bls12_381_g1_split_matches_plain(); }
TEST_CASE(bls12_381_g1_msm_thread_counts_agree) { test_msm_bls12_381_g1_thread_counts_agree(); }
TEST_CASE(bls12_381_g1_msm_scratch_and_arguments_refused) { test_msm_bls12_381_g1_scratch_and_arguments_refused(); }

TEST_CASE(bls12_381_g2_msm_matches_naive) { test_msm_bls12_381_g2_matches_naive(); }
TEST_CASE(bls12_381_g2_msm_edge_scalars) { test_msm_bls12_381_g2_edge_scalars(); }
TEST_CASE(bls12_381_g2_msm_duplicate_and_infinity_bases) { test_msm_bls12_381_g2_duplicate_and_infinity_bases(); }
TEST_CASE(bls12_381_g2_msm_window_logic_exhaustive) { test_msm_bls12_381_g2_window_logic_exhaustive(); }
TEST_CASE(bls12_381_g2_msm_split_matches_plain) { test_msm_bls12_381_g2_split_matches_plain(); }
TEST_CASE(bls12_381_g2_msm_thread_counts_agree) { test_msm_bls12_381_g2_thread_counts_agree(); }
TEST_CASE(bls12_381_g2_msm_scratch_and_arguments_refused) { test_msm_bls12_381_g2_scratch_and_arguments_refused(); }

