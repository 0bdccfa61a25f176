/* The GPU NTT against the CPU's (ntt/): every kind but BIT_REVERSE, with
 * and without a coset shift, on both scalar fields, on snarkjs's root
 * family and the default one; the H values against the CPU prover's
 * computation; the argument checks and the device memory books. The
 * kernels' code also runs on the host (F_gpu_ntt_host, present in builds
 * with CUDA), so the index arithmetic is checked on machines without a
 * GPU. */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "field/field.h"
#include "field/limbs.h"
#include "gpu_support.h"
#include "ntt/ntt.h"

#include "field_samples.h"

/* Defined by the CUDA backend only; NULL in a build without it. */
zkpipe_status bn254_fr_gpu_ntt_host(uint64_t *a, unsigned log_n, int kind, const uint64_t *root,
                                    const uint64_t *shift, int rev_pass) __attribute__((weak));
zkpipe_status bls12_381_fr_gpu_ntt_host(uint64_t *a, unsigned log_n, int kind,
                                        const uint64_t *root, const uint64_t *shift, int rev_pass)
    __attribute__((weak));

enum { FAM_DEFAULT, FAM_SNARKJS, FAM_ODD_POWER, FAM_COUNT };
enum { SH_NONE, SH_SNARKJS, SH_RANDOM, SH_COUNT };
enum { IN_RANDOM, IN_ZERO, IN_P_MINUS_1, IN_SINGLE_ONE, IN_COUNT };

static const char *const kind_names[] = {"FORWARD",    "INVERSE",    "FORWARD_NR",
                                         "FORWARD_RN", "INVERSE_NR", "INVERSE_RN"};

/* One scalar field as the tests see it: 4 limbs per element. */
typedef struct {
    const char *name;
    unsigned adicity;
    const uint64_t *p;
    zkpipe_status (*gpu_ntt)(zkp_gpu *, uint64_t *, unsigned, int, const uint64_t *,
                             const uint64_t *, zkp_diag *);
    zkpipe_status (*gpu_ntt_dev)(zkp_gpu *, zkp_gpu_buf *, unsigned, int, const uint64_t *,
                                 const uint64_t *, zkp_diag *);
    zkpipe_status (*gpu_h_evals)(zkp_gpu *, zkp_gpu_buf **, const uint64_t *, unsigned,
                                 const uint64_t *, const uint64_t *, int, zkp_diag *);
    zkpipe_status (*host_ntt)(uint64_t *, unsigned, int, const uint64_t *, const uint64_t *, int);
    void (*rand)(uint64_t *);
    void (*one)(uint64_t *);
    zkpipe_status (*root)(uint64_t *, unsigned, int family);
    void (*coset_shift)(uint64_t *, unsigned);
    zkpipe_status (*cpu_ntt)(uint64_t *, unsigned, int, const uint64_t *, const uint64_t *);
    void (*cpu_h)(uint64_t *, const uint64_t *, size_t);
} field_t;

/* The per-field half. snarkjs's family comes from the generator 5 (for
 * bn254_fr that is F_root_of_unity's too); FAM_ODD_POWER is w^3 of the
 * default family, another primitive root, to show nothing assumes a family. */
#define FIELD_(F, FK)                                                                            \
    static const uint64_t F##_p_[4] = FK##_MODULUS;                                             \
    static void F##_rand_(uint64_t *r) { test_##F##_rand((F##_t *)r); }                         \
    static void F##_one_(uint64_t *r) { F##_set_one((F##_t *)r); }                              \
    static zkpipe_status F##_root_(uint64_t *r, unsigned log_n, int family) {                   \
        F##_t *w = (F##_t *)r, five;                                                             \
        if (family == FAM_SNARKJS) {                                                            \
            F##_set_u64(&five, 5);                                                              \
            return F##_ntt_root_from_generator(w, &five, log_n);                                 \
        }                                                                                        \
        zkpipe_status st = F##_root_of_unity(w, log_n);                                          \
        if (st == ZKPIPE_OK && family == FAM_ODD_POWER) {                                        \
            F##_t w2;                                                                            \
            F##_sqr(&w2, w);                                                                     \
            F##_mul(w, &w2, w);                                                                  \
        }                                                                                        \
        return st;                                                                               \
    }                                                                                            \
    /* groth16_body.h's coset_shift_: w_{2n} of snarkjs's family, or 25. */                      \
    static void F##_coset_shift_(uint64_t *g, unsigned log_n) {                                 \
        if (log_n >= FK##_TWO_ADICITY) {                                                         \
            F##_set_u64((F##_t *)g, 25);                                                         \
            return;                                                                              \
        }                                                                                        \
        ASSERT_OK(F##_root_(g, log_n + 1, FAM_SNARKJS));                                         \
    }                                                                                            \
    TEST_CPU_NTT_DEFINE(F)                                                                       \
    /* h_evals_ of groth16_body.h on a, b, c (already on the coset). */                          \
    static void F##_cpu_h_(uint64_t *out, const uint64_t *abc, size_t n) {                       \
        const F##_t *a = (const F##_t *)abc, *b = a + n, *c = b + n;                             \
        for (size_t i = 0; i < n; i++) {                                                         \
            F##_t h;                                                                             \
            F##_mul(&h, &a[i], &b[i]);                                                           \
            F##_sub(&h, &h, &c[i]);                                                              \
            F##_from_mont((F##_t *)(out + 4 * i), &h);                                           \
        }                                                                                        \
    }                                                                                            \
    static const field_t F##_field_ = {#F,                                                       \
                                       FK##_TWO_ADICITY,                                         \
                                       F##_p_,                                                   \
                                       F##_gpu_ntt,                                              \
                                       F##_gpu_ntt_dev,                                          \
                                       F##_gpu_h_evals,                                          \
                                       NULL,                                                     \
                                       F##_rand_,                                                \
                                       F##_one_,                                                 \
                                       F##_root_,                                                \
                                       F##_coset_shift_,                                         \
                                       test_##F##_cpu_ntt,                                       \
                                       F##_cpu_h_};

FIELD_(bn254_fr, BN254_FR)
FIELD_(bls12_381_fr, BLS12_381_FR)

/* The two fields, with the host emulation where the build has it. */
static field_t field_get_(int which) {
    field_t f = which == 0 ? bn254_fr_field_ : bls12_381_fr_field_;
    f.host_ntt = which == 0 ? bn254_fr_gpu_ntt_host : bls12_381_fr_gpu_ntt_host;
    return f;
}

static void fill_(const field_t *f, uint64_t *a, size_t n, int input) {
    switch (input) {
    case IN_ZERO: memset(a, 0, n * 32); break;
    case IN_P_MINUS_1:
        for (size_t i = 0; i < n; i++) {
            memcpy(a + 4 * i, f->p, 32);
            a[4 * i] -= 1;
        }
        break;
    case IN_SINGLE_ONE:
        memset(a, 0, n * 32);
        f->one(a + 4 * (test_rng_u64() % n));
        break;
    default:
        for (size_t i = 0; i < n; i++) f->rand(a + 4 * i);
    }
}

static void shift_get_(const field_t *f, uint64_t *g, unsigned log_n, int sh) {
    if (sh == SH_SNARKJS)
        f->coset_shift(g, log_n);
    else
        do f->rand(g);
        while ((g[0] | g[1] | g[2] | g[3]) == 0);
}

static void report_mismatch_(const field_t *f, const char *what, unsigned log_n, int kind,
                             int family, int sh, int input, const uint64_t *want,
                             const uint64_t *got, size_t n) {
    size_t i = 0;
    while (i < n && memcmp(want + 4 * i, got + 4 * i, 32) == 0) i++;
    test_fail(__FILE__, __LINE__,
              "%s %s: 2^%u %s, family %d, shift %d, input %d: element %zu of %zu differs "
              "(want %016llx.., got %016llx..)",
              f->name, what, log_n, kind_names[kind], family, sh, input, i, n,
              (unsigned long long)want[4 * i + 3], (unsigned long long)got[4 * i + 3]);
}

/* One transform through `how` (0: the GPU from host memory, 1: the GPU on a
 * device buffer, 2: the host emulation, 3: the host emulation with a
 * natural-order kind's reversal as a pass of its own) against the CPU. */
static void check_one_(zkp_gpu *g, const field_t *f, int how, unsigned log_n, int kind, int family,
                       int sh, int input) {
    const size_t n = (size_t)1 << log_n;
    uint64_t root[4], shift[4], *want = malloc(n * 32), *got = malloc(n * 32);
    ASSERT(want && got);
    ASSERT_OK(f->root(root, log_n, family));
    if (sh != SH_NONE) shift_get_(f, shift, log_n, sh);
    const uint64_t *s = sh == SH_NONE ? NULL : shift;
    fill_(f, want, n, input);
    memcpy(got, want, n * 32);
    ASSERT_OK(f->cpu_ntt(want, log_n, kind, root, s));
    zkp_diag diag = {{0}};
    zkpipe_status st;
    if (how == 0) {
        st = f->gpu_ntt(g, got, log_n, kind, root, s, &diag);
    } else if (how == 1) {
        zkp_gpu_buf *b = NULL;
        st = zkp_gpu_buf_alloc(g, &b, n * 32, ZKP_GPU_MEM_SCALARS, &diag);
        if (st == ZKPIPE_OK) st = zkp_gpu_buf_upload(b, 0, got, n * 32, &diag);
        if (st == ZKPIPE_OK) st = f->gpu_ntt_dev(g, b, log_n, kind, root, s, &diag);
        if (st == ZKPIPE_OK) st = zkp_gpu_buf_download(got, b, 0, n * 32, &diag);
        zkp_gpu_buf_free(b);
    } else {
        st = f->host_ntt(got, log_n, kind, root, s, how == 3);
    }
    ASSERT_MSG(st == ZKPIPE_OK, "%s 2^%u %s: %s (%s)", f->name, log_n, kind_names[kind],
               zkpipe_status_name(st), diag.msg);
    if (memcmp(want, got, n * 32) != 0)
        report_mismatch_(f,
                         how == 3   ? "host emulation (reversal pass)"
                         : how == 2 ? "host emulation"
                         : how == 1 ? "GPU (device buffer)"
                                    : "GPU",
                         log_n, kind, family, sh, input, want, got, n);
    free(want);
    free(got);
}

/* Every kind, shift and family at each size in [lo, hi], random input, and
 * the edge inputs at the sizes in edge_mask. */
static void sweep_(zkp_gpu *g, const field_t *f, int how, unsigned lo, unsigned hi,
                   uint64_t edge_mask, int families) {
    for (unsigned log_n = lo; log_n <= hi; log_n++)
        for (int kind = ZKP_NTT_FORWARD; kind <= ZKP_NTT_INVERSE_RN; kind++)
            for (int fam = 0; fam < FAM_COUNT; fam++) {
                if (!((families >> fam) & 1)) continue;
                for (int sh = 0; sh < SH_COUNT; sh++) {
                    check_one_(g, f, how, log_n, kind, fam, sh, IN_RANDOM);
                    if ((edge_mask >> log_n) & 1)
                        for (int in = IN_ZERO; in < IN_COUNT; in++)
                            check_one_(g, f, how, log_n, kind, fam, sh, in);
                }
            }
}

#define ALL_FAMILIES ((1 << FAM_DEFAULT) | (1 << FAM_SNARKJS) | (1 << FAM_ODD_POWER))

/* The kernels' index arithmetic on the host: one and two levels in full,
 * and the three-level plan (2^21 and up) on the H step's kinds. snarkjs's
 * shift on its own family is the square root of the root, which folds the
 * coset's column factor into level 0's twiddle step (FORWARD_NR and
 * INVERSE_RN); a random shift, or snarkjs's on the default family of
 * BLS12-381, takes the general scaling. */
TEST_CASE(gpu_ntt_host_emulation_matches_cpu) {
    for (int fi = 0; fi < 2; fi++) {
        field_t f = field_get_(fi);
        if (!f.host_ntt) test_skip("this build has no CUDA backend");
        unsigned hi = test_iters(1) > 1 ? 16 : 13;
        for (unsigned log_n = 1; log_n <= hi; log_n++)
            for (int kind = ZKP_NTT_FORWARD; kind <= ZKP_NTT_INVERSE_RN; kind++)
                for (int sh = 0; sh < SH_COUNT; sh++) {
                    check_one_(NULL, &f, 2, log_n, kind, FAM_SNARKJS, sh, IN_RANDOM);
                    /* FORWARD and INVERSE reverse in the last level's
                     * stores, or in a pass where the device has no room. */
                    if (kind == ZKP_NTT_FORWARD || kind == ZKP_NTT_INVERSE)
                        check_one_(NULL, &f, 3, log_n, kind, FAM_SNARKJS, sh, IN_RANDOM);
                }
        check_one_(NULL, &f, 2, 12, ZKP_NTT_FORWARD_NR, FAM_DEFAULT, SH_SNARKJS, IN_P_MINUS_1);
        check_one_(NULL, &f, 2, 12, ZKP_NTT_INVERSE_RN, FAM_DEFAULT, SH_SNARKJS, IN_P_MINUS_1);
        /* 2^15 is the first size whose strided level (4 bits, 128 columns)
         * has a round of q = 4 with p above the lanes. */
        check_one_(NULL, &f, 2, 15, fi ? ZKP_NTT_FORWARD_NR : ZKP_NTT_INVERSE_RN, FAM_SNARKJS,
                   SH_SNARKJS, IN_RANDOM);
        /* Three levels take seconds here: per field, one kind of the H
         * step from host memory and one from a circuit, and the others
         * with ZKPIPE_TEST_ITERS > 1. */
        check_one_(NULL, &f, 2, 21, fi ? ZKP_NTT_FORWARD_RN : ZKP_NTT_INVERSE_NR, FAM_SNARKJS,
                   fi ? SH_SNARKJS : SH_NONE, IN_RANDOM);
        check_one_(NULL, &f, 2, 21, fi ? ZKP_NTT_INVERSE_RN : ZKP_NTT_FORWARD_NR, FAM_SNARKJS,
                   SH_SNARKJS, IN_RANDOM);
        /* Three levels of a natural-order kind: out of place through the
         * middle one, reversed in the last one's stores. */
        check_one_(NULL, &f, 2, 21, fi ? ZKP_NTT_FORWARD : ZKP_NTT_INVERSE, FAM_SNARKJS,
                   fi ? SH_NONE : SH_RANDOM, IN_RANDOM);
        if (test_iters(1) > 1) {
            check_one_(NULL, &f, 2, 21, fi ? ZKP_NTT_FORWARD_NR : ZKP_NTT_INVERSE_RN, FAM_SNARKJS,
                       SH_SNARKJS, IN_RANDOM);
            check_one_(NULL, &f, 2, 21, fi ? ZKP_NTT_INVERSE_NR : ZKP_NTT_FORWARD_RN, FAM_SNARKJS,
                       SH_RANDOM, IN_RANDOM);
        }
    }
}

#define SMALL_EDGES ((1u << 1) | (1u << 2) | (1u << 3) | (1u << 5) | (1u << 8) | (1u << 11) | (1u << 12) | (1u << 14))

TEST_CASE(gpu_ntt_bn254_small_matches_cpu) {
    zkp_gpu *g = test_gpu_open();
    field_t f = field_get_(0);
    sweep_(g, &f, 0, 1, 14, SMALL_EDGES, (1 << FAM_DEFAULT) | (1 << FAM_ODD_POWER));
    zkp_gpu_close(g);
}

TEST_CASE(gpu_ntt_bls12_381_small_matches_cpu) {
    zkp_gpu *g = test_gpu_open();
    field_t f = field_get_(1);
    sweep_(g, &f, 0, 1, 14, SMALL_EDGES, ALL_FAMILIES);
    zkp_gpu_close(g);
}

/* 2^15 to 2^22 (2^24 with ZKPIPE_TEST_ITERS > 1): every kind, with and
 * without the snarkjs shift, on snarkjs's family, through the device-buffer
 * entry point at the odd sizes. */
static void large_(int fi) {
    zkp_gpu *g = test_gpu_open();
    field_t f = field_get_(fi);
    unsigned hi = test_iters(1) > 1 ? 24 : 22;
    for (unsigned log_n = 15; log_n <= hi; log_n++)
        for (int kind = ZKP_NTT_FORWARD; kind <= ZKP_NTT_INVERSE_RN; kind++)
            for (int sh = 0; sh < 2; sh++)
                check_one_(g, &f, log_n & 1, log_n, kind, FAM_SNARKJS, sh, IN_RANDOM);
    check_one_(g, &f, 0, 21, ZKP_NTT_FORWARD_RN, FAM_DEFAULT, SH_RANDOM, IN_P_MINUS_1);
    check_one_(g, &f, 1, 22, ZKP_NTT_INVERSE_NR, FAM_DEFAULT, SH_NONE, IN_SINGLE_ONE);
    zkp_gpu_close(g);
}

TEST_CASE(gpu_ntt_bn254_large_matches_cpu) { large_(0); }
TEST_CASE(gpu_ntt_bls12_381_large_matches_cpu) { large_(1); }

/* H as the CPU prover computes it: to_coset_ on a, b and c, then
 * a b - c out of Montgomery form; with coef, then interpolated back from
 * the coset to h's coefficients, as for a key in the coefficient basis. */
static void h_check_(zkp_gpu *g, const field_t *f, unsigned log_n, int coef) {
    const size_t n = (size_t)1 << log_n;
    uint64_t root[4], shift[4];
    uint64_t *abc = malloc(3 * n * 32), *cpu = malloc(3 * n * 32), *want = malloc(n * 32),
             *got = malloc(n * 32);
    ASSERT(abc && cpu && want && got);
    ASSERT_OK(f->root(root, log_n, FAM_SNARKJS));
    f->coset_shift(shift, log_n);
    fill_(f, abc, 3 * n, IN_RANDOM);
    memcpy(cpu, abc, 3 * n * 32);
    for (int i = 0; i < 3; i++) {
        ASSERT_OK(f->cpu_ntt(cpu + 4 * n * (size_t)i, log_n, ZKP_NTT_INVERSE_NR, root, NULL));
        ASSERT_OK(f->cpu_ntt(cpu + 4 * n * (size_t)i, log_n, ZKP_NTT_FORWARD_RN, root, shift));
    }
    f->cpu_h(want, cpu, n);
    if (coef) ASSERT_OK(f->cpu_ntt(want, log_n, ZKP_NTT_INVERSE, root, shift));
    zkp_gpu_stats s0, s1, s2;
    zkp_gpu_stats_get(g, &s0);
    zkp_gpu_buf *h = NULL;
    zkp_diag diag = {{0}};
    zkpipe_status st = f->gpu_h_evals(g, &h, abc, log_n, root, shift, coef, &diag);
    ASSERT_MSG(st == ZKPIPE_OK, "%s h_evals 2^%u%s: %s (%s)", f->name, log_n,
               coef ? " (coefficients)" : "", zkpipe_status_name(st), diag.msg);
    ASSERT(h != NULL && zkp_gpu_buf_bytes(h) == n * 32);
    zkp_gpu_stats_get(g, &s1);
    /* Only the result is left, charged to ABC. */
    ASSERT_EQ_U64(s1.live_total - s0.live_total, n * 32);
    ASSERT_EQ_U64(s1.live_bytes[ZKP_GPU_MEM_ABC] - s0.live_bytes[ZKP_GPU_MEM_ABC], n * 32);
    ASSERT(s1.peak_total >= s0.live_total + 3 * n * 32);
    ASSERT_OK(zkp_gpu_buf_download(got, h, 0, n * 32, &diag));
    zkp_gpu_buf_free(h);
    zkp_gpu_stats_get(g, &s2);
    ASSERT_EQ_U64(s2.live_total, s0.live_total);
    if (memcmp(want, got, n * 32) != 0)
        report_mismatch_(f, coef ? "h coefficients" : "h_evals", log_n,
                         coef ? ZKP_NTT_INVERSE : ZKP_NTT_FORWARD_RN, FAM_SNARKJS, SH_SNARKJS,
                         IN_RANDOM, want, got, n);
    free(abc);
    free(cpu);
    free(want);
    free(got);
}

TEST_CASE(gpu_ntt_h_evals_matches_cpu) {
    zkp_gpu *g = test_gpu_open();
    for (int fi = 0; fi < 2; fi++) {
        field_t f = field_get_(fi);
        for (int coef = 0; coef < 2; coef++) {
            for (unsigned log_n = 0; log_n <= 13; log_n++) h_check_(g, &f, log_n, coef);
            h_check_(g, &f, 17, coef);
            h_check_(g, &f, test_iters(1) > 1 ? 22 : 21, coef);
        }
    }
    zkp_gpu_close(g);
}

/* Bad arguments are refused with a message and touch nothing. */
TEST_CASE(gpu_ntt_rejects_bad_arguments) {
    zkp_gpu *g = test_gpu_open();
    for (int fi = 0; fi < 2; fi++) {
        field_t f = field_get_(fi);
        uint64_t a[4 * 16], copy[4 * 16], root[4], bad[4], zero[4] = {0}, shift[4];
        fill_(&f, a, 16, IN_RANDOM);
        memcpy(copy, a, sizeof a);
        ASSERT_OK(f.root(root, 4, FAM_DEFAULT));
        f.one(shift);
        zkp_diag diag = {{0}};
#define REFUSED_(call)                                                      \
    do {                                                                    \
        memset(&diag, 0, sizeof diag);                                      \
        ASSERT_EQ_STATUS((call), ZKPIPE_ERR_INVALID_ARGUMENT);              \
        ASSERT_MSG(diag.msg[0] != 0, "%s: no message for %s", f.name, #call); \
        ASSERT(memcmp(a, copy, sizeof a) == 0);                             \
    } while (0)
        REFUSED_(f.gpu_ntt(g, a, 4, ZKP_NTT_BIT_REVERSE, root, NULL, &diag));
        REFUSED_(f.gpu_ntt(g, a, 4, 7, root, NULL, &diag));
        REFUSED_(f.gpu_ntt(g, a, 4, -1, root, NULL, &diag));
        REFUSED_(f.gpu_ntt(g, a, f.adicity + 1, ZKP_NTT_FORWARD, root, NULL, &diag));
        REFUSED_(f.gpu_ntt(g, NULL, 4, ZKP_NTT_FORWARD, root, NULL, &diag));
        REFUSED_(f.gpu_ntt(g, a, 4, ZKP_NTT_FORWARD, NULL, NULL, &diag));
        REFUSED_(f.gpu_ntt(NULL, a, 4, ZKP_NTT_FORWARD, root, NULL, &diag));
        /* A root of the wrong order, an unreduced root, a zero shift. */
        REFUSED_(f.gpu_ntt(g, a, 3, ZKP_NTT_FORWARD, root, NULL, &diag));
        memcpy(bad, f.p, 32);
        REFUSED_(f.gpu_ntt(g, a, 4, ZKP_NTT_FORWARD, bad, NULL, &diag));
        REFUSED_(f.gpu_ntt(g, a, 4, ZKP_NTT_FORWARD_RN, root, zero, &diag));
        REFUSED_(f.gpu_ntt(g, a, 4, ZKP_NTT_FORWARD_RN, root, bad, &diag));
        zkp_gpu_buf *b = NULL, *h = (zkp_gpu_buf *)a;
        ASSERT_OK(zkp_gpu_buf_alloc(g, &b, 8 * 32, ZKP_GPU_MEM_SCALARS, &diag));
        REFUSED_(f.gpu_ntt_dev(g, b, 4, ZKP_NTT_FORWARD, root, NULL, &diag)); /* too small */
        REFUSED_(f.gpu_ntt_dev(g, NULL, 4, ZKP_NTT_FORWARD, root, NULL, &diag));
        REFUSED_(f.gpu_ntt_dev(g, b, 3, ZKP_NTT_BIT_REVERSE, root, NULL, &diag));
        zkp_gpu_buf_free(b);
        REFUSED_(f.gpu_h_evals(g, &h, a, f.adicity + 1, root, shift, 0, &diag));
        ASSERT(h == NULL);
        REFUSED_(f.gpu_h_evals(g, &h, NULL, 4, root, shift, 1, &diag));
        REFUSED_(f.gpu_h_evals(g, &h, a, 4, root, NULL, 0, &diag));
        REFUSED_(f.gpu_h_evals(g, NULL, a, 4, root, shift, 0, &diag));
#undef REFUSED_
    }
    zkp_gpu_stats s;
    zkp_gpu_stats_get(g, &s);
    ASSERT_EQ_U64(s.live_total, 0);
    zkp_gpu_close(g);
}

static double now_s_(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* For information: the wall time of F_gpu_ntt_dev on resident data, best of
 * a few after a warm-up, at 2^20, 2^24, 2^26 and 2^27 (2^27 only where the
 * device has room). Prints; asserts only that the calls succeed. */
TEST_CASE(gpu_ntt_timing) {
    zkp_gpu *g = test_gpu_open();
    zkp_gpu_info info;
    zkp_diag diag = {{0}};
    ASSERT_OK(zkp_gpu_device_info(&info, zkp_gpu_ordinal(g), &diag));
    const size_t chunk = (size_t)1 << 20;
    uint64_t *host = malloc(chunk * 32);
    ASSERT(host);
    static const unsigned sizes[] = {20, 24, 26, 27};
    static const int kinds[] = {ZKP_NTT_FORWARD_NR, ZKP_NTT_INVERSE_RN, ZKP_NTT_FORWARD};
    for (int fi = 0; fi < 2; fi++) {
        field_t f = field_get_(fi);
        fill_(&f, host, chunk, IN_RANDOM);
        for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
            unsigned log_n = sizes[si];
            size_t n = (size_t)1 << log_n, bytes = n * 32;
            if (bytes + ((size_t)1 << 30) > info.free_bytes) {
                printf("  %s 2^%u: skipped, %.1f GiB free\n", f.name, log_n,
                       (double)info.free_bytes / (1u << 30));
                continue;
            }
            zkp_gpu_buf *b = NULL;
            ASSERT_OK(zkp_gpu_buf_alloc(g, &b, bytes, ZKP_GPU_MEM_SCALARS, &diag));
            for (size_t off = 0; off < bytes; off += chunk * 32) {
                size_t len = bytes - off < chunk * 32 ? bytes - off : chunk * 32;
                ASSERT_OK(zkp_gpu_buf_upload(b, off, host, len, &diag));
            }
            uint64_t root[4];
            ASSERT_OK(f.root(root, log_n, FAM_SNARKJS));
            for (size_t ki = 0; ki < sizeof kinds / sizeof kinds[0]; ki++) {
                double best = 1e9;
                for (int rep = 0; rep < 4; rep++) {
                    double t0 = now_s_();
                    zkpipe_status st = f.gpu_ntt_dev(g, b, log_n, kinds[ki], root, NULL, &diag);
                    double t = now_s_() - t0;
                    ASSERT_MSG(st == ZKPIPE_OK, "%s", diag.msg);
                    if (rep > 0 && t < best) best = t;
                }
                printf("  %s 2^%u %-10s %8.2f ms\n", f.name, log_n, kind_names[kinds[ki]],
                       best * 1e3);
            }
            zkp_gpu_buf_free(b);
        }
    }
    free(host);
    zkp_gpu_close(g);
}
