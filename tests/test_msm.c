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
#define G_GLV zkp_glv_bn254_g1
#define G_GLV_K BN254_G1_GLV
#define GFQ bn254_fq
#define GFR bn254_fr
#define G_GLV_MAX_HI 0x422bd38c880b8c00ULL
#include "msm_props_impl.h"

#define G bn254_g2
#define GSK BN254_FR
#define G_N 257
#define G_MAXC 12
#define G_EXH 7
#define G_GLV zkp_glv_bn254_g2
#define G_GLV_K BN254_G2_GLV
#define GFQ bn254_fq
#define GFR bn254_fr
#define G_GLV_MAX_HI 0x422bd38c880b8c00ULL
#include "msm_props_impl.h"

#define G bls12_381_g1
#define GSK BLS12_381_FR
#define G_N 1000
#define G_MAXC 16
#define G_EXH 8
#define G_GLV zkp_glv_bls12_381_g1
#define G_GLV_K BLS12_381_G1_GLV
#define GFQ bls12_381_fp
#define GFR bls12_381_fr
#define G_GLV_MAX_HI 0x7d246cdfd640b000ULL
#include "msm_props_impl.h"

/* The signed digits of 128-bit two's complement scalars telescope back to
 * the scalar for every c, at the extremes of the range and around every
 * window boundary. The sum is formed exactly, in 192 bits (hi 2^128 + lo),
 * since a wrong digit could hide in a sum taken mod 2^128. */
static void msm_check_s128_(__int128 v) {
    uint64_t k[2] = {(uint64_t)v, (uint64_t)((unsigned __int128)v >> 64)};
    for (unsigned c = 1; c <= ZKP_MSM_MAX_C; c++) {
        unsigned nwin = (ZKP_GLV_BITS + c - 1) / c;
        unsigned __int128 lo = 0;
        int64_t hi = 0;
        for (unsigned w = 0; w < nwin; w++) {
            int32_t d = zkp_msm_digit_s128(k, c, w);
            ASSERT(d >= -(1 << (c - 1)) && d <= (1 << (c - 1)));
            unsigned s = w * c;
            unsigned __int128 tlo = (unsigned __int128)(__int128)d << s;
            int64_t thi = s == 0 ? (d < 0 ? -1 : 0) : (int64_t)((__int128)d >> (128 - s));
            lo += tlo;
            hi += thi + (lo < tlo);
        }
        if (lo != (unsigned __int128)v || hi != (v < 0 ? -1 : 0))
            test_fail(__FILE__, __LINE__, "digits of %016" PRIx64 "%016" PRIx64 ", c = %u", k[1], k[0], c);
    }
}

TEST_CASE(msm_signed_128_digits_telescope) {
    const __int128 max = (__int128)(((unsigned __int128)1 << 127) - 1), min = -max - 1;
    msm_check_s128_(0);
    msm_check_s128_(max);
    msm_check_s128_(min);
    msm_check_s128_(min + 1);
    msm_check_s128_(max - 1);
    for (unsigned b = 0; b < 127; b++) {
        __int128 p = (__int128)1 << b;
        msm_check_s128_(p);
        msm_check_s128_(-p);
        msm_check_s128_(p - 1);
        msm_check_s128_(-p + 1);
        msm_check_s128_(p + 1);
        msm_check_s128_(-p - 1);
    }
    for (int i = 0; i < 2000; i++) {
        unsigned __int128 u = ((unsigned __int128)test_rng_u64() << 64) | test_rng_u64();
        u >>= test_rng_u64() % 128;
        msm_check_s128_((__int128)u);
        msm_check_s128_(-(__int128)(u >> 1));
    }
}

#define G bls12_381_g2
#define GSK BLS12_381_FR
#define G_N 257
#define G_MAXC 12
#define G_EXH 7
#define G_GLV zkp_glv_bls12_381_g2
#define G_GLV_K BLS12_381_G2_GLV
#define GFQ bls12_381_fp
#define GFR bls12_381_fr
#define G_GLV_MAX_HI 0x7d246cdfd640b000ULL
#include "msm_props_impl.h"

TEST_CASE(bn254_g1_msm_matches_naive) { test_msm_bn254_g1_matches_naive(); }
TEST_CASE(bn254_g1_msm_edge_scalars) { test_msm_bn254_g1_edge_scalars(); }
TEST_CASE(bn254_g1_msm_duplicate_and_infinity_bases) { test_msm_bn254_g1_duplicate_and_infinity_bases(); }
TEST_CASE(bn254_g1_msm_reduction_lanes_equal_points) { test_msm_bn254_g1_reduction_lanes_equal_points(); }
TEST_CASE(bn254_g1_msm_window_logic_exhaustive) { test_msm_bn254_g1_window_logic_exhaustive(); }
TEST_CASE(bn254_g1_msm_split_matches_plain) { test_msm_bn254_g1_split_matches_plain(); }
TEST_CASE(bn254_g1_msm_thread_counts_agree) { test_msm_bn254_g1_thread_counts_agree(); }
TEST_CASE(bn254_g1_msm_scratch_and_arguments_refused) { test_msm_bn254_g1_scratch_and_arguments_refused(); }

TEST_CASE(bn254_g2_msm_matches_naive) { test_msm_bn254_g2_matches_naive(); }
TEST_CASE(bn254_g2_msm_edge_scalars) { test_msm_bn254_g2_edge_scalars(); }
TEST_CASE(bn254_g2_msm_duplicate_and_infinity_bases) { test_msm_bn254_g2_duplicate_and_infinity_bases(); }
TEST_CASE(bn254_g2_msm_reduction_lanes_equal_points) { test_msm_bn254_g2_reduction_lanes_equal_points(); }
TEST_CASE(bn254_g2_msm_window_logic_exhaustive) { test_msm_bn254_g2_window_logic_exhaustive(); }
TEST_CASE(bn254_g2_msm_split_matches_plain) { test_msm_bn254_g2_split_matches_plain(); }
TEST_CASE(bn254_g2_msm_thread_counts_agree) { test_msm_bn254_g2_thread_counts_agree(); }
TEST_CASE(bn254_g2_msm_scratch_and_arguments_refused) { test_msm_bn254_g2_scratch_and_arguments_refused(); }
TEST_CASE(bn254_g2_glv_constants) { test_msm_bn254_g2_glv_constants(); }
TEST_CASE(bn254_g2_glv_decompose) { test_msm_bn254_g2_glv_decompose(); }
TEST_CASE(bn254_g2_glv_msm) { test_msm_bn254_g2_glv_msm(); }
TEST_CASE(bn254_g2_glv_duplicates) { test_msm_bn254_g2_glv_duplicates(); }
TEST_CASE(bn254_g2_glv_scratch) { test_msm_bn254_g2_glv_scratch(); }

TEST_CASE(bls12_381_g1_msm_matches_naive) { test_msm_bls12_381_g1_matches_naive(); }
TEST_CASE(bls12_381_g1_msm_edge_scalars) { test_msm_bls12_381_g1_edge_scalars(); }
TEST_CASE(bls12_381_g1_msm_duplicate_and_infinity_bases) { test_msm_bls12_381_g1_duplicate_and_infinity_bases(); }
TEST_CASE(bls12_381_g1_msm_reduction_lanes_equal_points) { test_msm_bls12_381_g1_reduction_lanes_equal_points(); }
TEST_CASE(bls12_381_g1_msm_window_logic_exhaustive) { test_msm_bls12_381_g1_window_logic_exhaustive(); }
TEST_CASE(bls12_381_g1_msm_split_matches_plain) { test_msm_bls12_381_g1_split_matches_plain(); }
TEST_CASE(bls12_381_g1_msm_thread_counts_agree) { test_msm_bls12_381_g1_thread_counts_agree(); }
TEST_CASE(bls12_381_g1_msm_scratch_and_arguments_refused) { test_msm_bls12_381_g1_scratch_and_arguments_refused(); }

TEST_CASE(bn254_g1_glv_constants) { test_msm_bn254_g1_glv_constants(); }
TEST_CASE(bn254_g1_glv_decompose) { test_msm_bn254_g1_glv_decompose(); }
TEST_CASE(bn254_g1_glv_msm) { test_msm_bn254_g1_glv_msm(); }
TEST_CASE(bn254_g1_glv_duplicates) { test_msm_bn254_g1_glv_duplicates(); }
TEST_CASE(bn254_g1_glv_scratch) { test_msm_bn254_g1_glv_scratch(); }
TEST_CASE(bls12_381_g1_glv_constants) { test_msm_bls12_381_g1_glv_constants(); }
TEST_CASE(bls12_381_g1_glv_decompose) { test_msm_bls12_381_g1_glv_decompose(); }
TEST_CASE(bls12_381_g1_glv_msm) { test_msm_bls12_381_g1_glv_msm(); }
TEST_CASE(bls12_381_g1_glv_duplicates) { test_msm_bls12_381_g1_glv_duplicates(); }
TEST_CASE(bls12_381_g1_glv_scratch) { test_msm_bls12_381_g1_glv_scratch(); }

TEST_CASE(bls12_381_g2_msm_matches_naive) { test_msm_bls12_381_g2_matches_naive(); }
TEST_CASE(bls12_381_g2_msm_edge_scalars) { test_msm_bls12_381_g2_edge_scalars(); }
TEST_CASE(bls12_381_g2_msm_duplicate_and_infinity_bases) { test_msm_bls12_381_g2_duplicate_and_infinity_bases(); }
TEST_CASE(bls12_381_g2_msm_reduction_lanes_equal_points) { test_msm_bls12_381_g2_reduction_lanes_equal_points(); }
TEST_CASE(bls12_381_g2_msm_window_logic_exhaustive) { test_msm_bls12_381_g2_window_logic_exhaustive(); }
TEST_CASE(bls12_381_g2_msm_split_matches_plain) { test_msm_bls12_381_g2_split_matches_plain(); }
TEST_CASE(bls12_381_g2_msm_thread_counts_agree) { test_msm_bls12_381_g2_thread_counts_agree(); }
TEST_CASE(bls12_381_g2_msm_scratch_and_arguments_refused) { test_msm_bls12_381_g2_scratch_and_arguments_refused(); }
TEST_CASE(bls12_381_g2_glv_constants) { test_msm_bls12_381_g2_glv_constants(); }
TEST_CASE(bls12_381_g2_glv_decompose) { test_msm_bls12_381_g2_glv_decompose(); }
TEST_CASE(bls12_381_g2_glv_msm) { test_msm_bls12_381_g2_glv_msm(); }
TEST_CASE(bls12_381_g2_glv_duplicates) { test_msm_bls12_381_g2_glv_duplicates(); }
TEST_CASE(bls12_381_g2_glv_scratch) { test_msm_bls12_381_g2_glv_scratch(); }

