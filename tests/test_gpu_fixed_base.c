/* Fixed-base multiplication on the GPU (gpu.h) against the CPU's
 * (msm/fixed_base_impl.h) over the same table, bit for bit, in BLS12-381's
 * G1 and G2 (the groups of the development setup): the edge
 * scalars (0, 1, 2, r - 1, r - 2, powers of two, every window at the
 * limits of its signed digit, carries through every window) and random
 * ones, with a narrow window (many windows) and with the width the setup
 * picks for millions of points; and the arguments it refuses. */
#include <stdlib.h>
#include <string.h>

#include "curve/curve.h"
#include "field/field.h"
#include "gpu_support.h"

#define FB_G bls12_381_g1
#define FB_F bls12_381_fp
#define FB_BITS BLS12_381_FR_BITS
#include "msm/fixed_base_impl.h"
#define FB_G bls12_381_g2
#define FB_F bls12_381_fp2
#define FB_BITS BLS12_381_FR_BITS
#include "msm/fixed_base_impl.h"

/* k = r - m, for m < r's lowest limb. */
static void r_minus_(uint64_t k[4], uint64_t m) {
    static const uint64_t r[4] = BLS12_381_FR_MODULUS;
    uint64_t borrow = m;
    for (int i = 0; i < 4; i++) {
        k[i] = r[i] - borrow;
        borrow = r[i] < borrow;
    }
}

/* Every 16-bit group of k set to v, the top limb kept below r's. */
static void pattern_(uint64_t k[4], uint16_t v) {
    for (int i = 0; i < 4; i++) k[i] = 0x0001000100010001ULL * v;
    k[3] &= 0x0fffffffffffffffULL;
}

/* The edge scalars then random ones: n in all. */
static uint64_t *scalars_(size_t n, size_t *edges) {
    uint64_t *k = calloc(n, 4 * sizeof(uint64_t));
    ASSERT(k);
    size_t e = 0;
    for (uint64_t small = 0; small <= 3; small++) k[4 * e++] = small;
    r_minus_(&k[4 * e++], 1);
    r_minus_(&k[4 * e++], 2);
    static const unsigned pows[] = {1, 3, 4, 5, 7, 8, 15, 16, 17, 63, 64, 127, 128, 200, 254};
    for (size_t i = 0; i < sizeof pows / sizeof pows[0]; i++, e++)
        k[4 * e + pows[i] / 64] = 1ULL << (pows[i] % 64);
    static const uint16_t pats[] = {0x8000, 0x8001, 0x7fff, 0xffff, 0x0808, 0x8888, 0xf0f0};
    for (size_t i = 0; i < sizeof pats / sizeof pats[0]; i++) pattern_(&k[4 * e++], pats[i]);
    *edges = e;
    ASSERT(e <= n);
    for (size_t i = e; i < n; i++) {
        for (int l = 0; l < 4; l++) k[4 * i + l] = test_rng_u64();
        k[4 * i + 3] &= 0x3fffffffffffffffULL; /* below r */
    }
    return k;
}

/* G_matches_cpu_(g, npoints, k, n): the table the CPU builds for about
 * npoints points, the GPU's answer for the first n of the scalars against
 * the CPU's. */
#define MATCHES_CPU_(G)                                                                          \
    static void G##_matches_cpu_(zkp_gpu *g, size_t npoints, const uint64_t *k, size_t n) {      \
        G##_fb_table_t tab;                                                                      \
        ASSERT_OK(G##_fb_table_init(&tab, npoints, 16, NULL));                                   \
        G##_affine_t *cpu = calloc(n, sizeof *cpu), *gpu = calloc(n, sizeof *gpu);               \
        void *scratch = malloc(G##_fb_scratch_bytes(&tab, n));                                   \
        ASSERT(cpu && gpu && scratch);                                                           \
        G##_fb_eval(&tab, cpu, k, n, n, scratch);                                                \
        zkp_diag d = {{0}};                                                                      \
        zkp_gpu_fixed_base *fb = NULL;                                                           \
        ASSERT_MSG(G##_gpu_fixed_base_new(g, &fb, tab.t, tab.w, tab.nwin, &d) == ZKPIPE_OK,      \
                   "%s", d.msg);                                                                 \
        /* A short call first, then the whole, which grows the device buffers. */               \
        ASSERT_MSG(G##_gpu_fixed_base_eval(fb, gpu, k, 3, &d) == ZKPIPE_OK, "%s", d.msg);        \
        ASSERT_OK(G##_gpu_fixed_base_eval(fb, gpu, k, 0, &d));                                   \
        ASSERT_MSG(G##_gpu_fixed_base_eval(fb, gpu, k, n, &d) == ZKPIPE_OK, "%s", d.msg);        \
        for (size_t i = 0; i < n; i++)                                                           \
            ASSERT_MSG(!memcmp(&gpu[i], &cpu[i], sizeof cpu[i]), #G ", w %u: scalar %zu differs", \
                       tab.w, i);                                                                \
        ASSERT(G##_affine_is_infinity(&gpu[0])); /* the scalar 0 */                              \
        zkp_gpu_fixed_base_free(fb);                                                             \
        G##_fb_table_free(&tab, NULL);                                                           \
        free(cpu);                                                                               \
        free(gpu);                                                                               \
        free(scratch);                                                                           \
    }
MATCHES_CPU_(bls12_381_g1)
MATCHES_CPU_(bls12_381_g2)

TEST_CASE(gpu_fixed_base_matches_cpu) {
    zkp_gpu *g = test_gpu_open();
    const size_t n = 4096;
    size_t edges;
    uint64_t *k = scalars_(n, &edges);
    bls12_381_g1_matches_cpu_(g, 64, k, n);       /* a narrow window: many windows */
    bls12_381_g1_matches_cpu_(g, 1u << 24, k, n); /* the setup's width for millions */
    bls12_381_g2_matches_cpu_(g, 64, k, n);
    bls12_381_g2_matches_cpu_(g, 1u << 24, k, n);
    printf("  %zu edge scalars and %zu random ones, two window widths, G1 and G2\n", edges,
           n - edges);
    free(k);
    zkp_gpu_stats s;
    zkp_gpu_stats_get(g, &s);
    ASSERT_EQ_U64(s.live_total, 0);
    zkp_gpu_close(g);
}

TEST_CASE(gpu_fixed_base_refusals) {
    zkp_gpu *g = test_gpu_open();
    /* 65 windows of 4 bits, 8 entries each: the smallest table that covers
     * 256 bits (its points are never summed here) */
    static bls12_381_g1_affine_t table[65 * 8];
    zkp_gpu_fixed_base *fb = NULL;
    zkp_diag d = {{0}};
    /* windows that cannot cover 256-bit scalars, and no table */
    ASSERT_EQ_STATUS(bls12_381_g1_gpu_fixed_base_new(g, &fb, table, 4, 60, &d),
                     ZKPIPE_ERR_OUT_OF_RANGE);
    ASSERT(fb == NULL);
    ASSERT_EQ_STATUS(bls12_381_g1_gpu_fixed_base_new(g, &fb, NULL, 4, 65, &d),
                     ZKPIPE_ERR_INVALID_ARGUMENT);
    ASSERT_EQ_STATUS(bls12_381_g1_gpu_fixed_base_eval(NULL, table, NULL, 1, &d),
                     ZKPIPE_ERR_INVALID_ARGUMENT);
    /* a G1 table asked for G2 points */
    uint64_t k[4] = {1, 0, 0, 0};
    bls12_381_g2_affine_t out;
    ASSERT_OK(bls12_381_g1_gpu_fixed_base_new(g, &fb, table, 4, 65, &d));
    ASSERT_EQ_STATUS(bls12_381_g2_gpu_fixed_base_eval(fb, &out, k, 1, &d),
                     ZKPIPE_ERR_INVALID_ARGUMENT);
    zkp_gpu_fixed_base_free(fb);
    zkp_gpu_close(g);
}
