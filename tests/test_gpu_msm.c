/* The MSM on the GPU against the CPU's MSM, for the four groups (G1 and G2
 * of both curves): random scalars from one point to 2^22 points (2^18 for
 * G2, whose CPU reference is slower), the edge inputs (no points, zero,
 * one and r - 1, equal scalars, one base repeated, bases at infinity, a
 * range past the end), MSMs in pieces, and a case that prints the times at
 * 2^20 .. 2^26.
 *
 * The file includes itself once per group (TEST_GPU_MSM_GROUP set) to
 * define that group's helpers; the cases below call both. */
#ifndef TEST_GPU_MSM_GROUP

#define _GNU_SOURCE

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "curve/curve.h"
#include "gpu_support.h"
#include "msm/msm.h"
#include "util/util.h"

#define GM_STR_(x) #x
#define GM_STR(x) GM_STR_(x)

/* The CPU reference runs on this many threads. */
#define CPU_THREADS 16u

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

#define TEST_GPU_MSM_GROUP
#define G bn254_g1
#define GSK BN254_FR
#include "test_gpu_msm.c"
#undef G
#undef GSK
#define G bls12_381_g1
#define GSK BLS12_381_FR
#include "test_gpu_msm.c"
#undef G
#undef GSK
#define G bn254_g2
#define GSK BN254_FR
#include "test_gpu_msm.c"
#undef G
#undef GSK
#define G bls12_381_g2
#define GSK BLS12_381_FR
#include "test_gpu_msm.c"
#undef G
#undef GSK
#undef TEST_GPU_MSM_GROUP

TEST_CASE(gpu_msm_small_matches_cpu) {
    zkp_gpu *g = test_gpu_open();
    static const size_t sizes[] = {1, 2, 3, 7, 31, 100, 1000, 4097};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        test_gm_bn254_g1_random(g, sizes[i]);
        test_gm_bls12_381_g1_random(g, sizes[i]);
        test_gm_bn254_g2_random(g, sizes[i]);
        test_gm_bls12_381_g2_random(g, sizes[i]);
    }
    zkp_gpu_close(g);
}

TEST_CASE(gpu_msm_edge_cases) {
    zkp_gpu *g = test_gpu_open();
    test_gm_bn254_g1_edges(g);
    test_gm_bls12_381_g1_edges(g);
    test_gm_bn254_g2_edges(g);
    test_gm_bls12_381_g2_edges(g);
    zkp_gpu_stats s;
    zkp_gpu_stats_get(g, &s);
    ASSERT_EQ_U64(s.live_total, 0);
    zkp_gpu_close(g);
}

/* 2^16 points and up: the bases are uploaded with their shifted copies. */
TEST_CASE(gpu_msm_large_matches_cpu) {
    zkp_gpu *g = test_gpu_open();
    unsigned top = test_iters(1) > 1 ? 22 : 20;
    for (unsigned lg = 16; lg <= top; lg += 2) {
        test_gm_bn254_g1_random(g, (size_t)1 << lg);
        test_gm_bls12_381_g1_random(g, (size_t)1 << lg);
        if (lg > 18) continue;
        test_gm_bn254_g2_random(g, (size_t)1 << lg);
        test_gm_bls12_381_g2_random(g, (size_t)1 << lg);
    }
    zkp_gpu_close(g);
}

TEST_CASE(gpu_msm_2_22_matches_cpu) {
    zkp_gpu *g = test_gpu_open();
    test_gm_bn254_g1_random(g, (size_t)1 << 22);
    test_gm_bls12_381_g1_random(g, (size_t)1 << 22);
    zkp_gpu_close(g);
}

/* Witness-like scalars, mostly 0 and 1, at a size where both paths work. */
TEST_CASE(gpu_msm_witness_like) {
    zkp_gpu *g = test_gpu_open();
    test_gm_bn254_g1_witness(g, (size_t)1 << 18);
    test_gm_bls12_381_g1_witness(g, (size_t)1 << 18);
    test_gm_bn254_g2_witness(g, (size_t)1 << 18);
    test_gm_bls12_381_g2_witness(g, (size_t)1 << 18);
    zkp_gpu_close(g);
}

TEST_CASE(gpu_msm_trim_gives_back_unused_copies) {
    zkp_gpu *g = test_gpu_open();
    test_gm_bn254_g1_trim(g);
    test_gm_bls12_381_g1_trim(g);
    test_gm_bn254_g2_trim(g);
    test_gm_bls12_381_g2_trim(g);
    zkp_gpu_close(g);
}

TEST_CASE(gpu_bases_upload_leaves_its_reserve_free) {
    zkp_gpu *g = test_gpu_open();
    test_gm_bn254_g1_reserve(g);
    test_gm_bls12_381_g1_reserve(g);
    test_gm_bn254_g2_reserve(g);
    test_gm_bls12_381_g2_reserve(g);
    zkp_gpu_close(g);
}

/* Pieces, each a whole Pippenger over part of the points, their sums added:
 * where ZKPIPE_GPU_MSM_PIECE caps them, and where a budget leaves no room
 * for the MSM in one. */
TEST_CASE(gpu_msm_in_pieces_matches_cpu) {
    zkp_gpu *g = test_gpu_open();
    test_gm_bn254_g1_pieces(g);
    test_gm_bls12_381_g1_pieces(g);
    test_gm_bn254_g2_pieces(g);
    test_gm_bls12_381_g2_pieces(g);
    zkp_gpu_close(g);
}

/* For information: the times, never asserted. */
TEST_CASE(gpu_msm_times) {
    zkp_gpu *g = test_gpu_open();
    static const unsigned logs[] = {20, 22, 24, 26};
    for (size_t i = 0; i < sizeof logs / sizeof logs[0]; i++) {
        test_gm_bn254_g1_time(g, logs[i]);
        test_gm_bls12_381_g1_time(g, logs[i]);
        if (logs[i] > 24) continue;
        test_gm_bn254_g2_time(g, logs[i]);
        test_gm_bls12_381_g2_time(g, logs[i]);
    }
    zkp_gpu_close(g);
}

#else /* TEST_GPU_MSM_GROUP: the helpers of group G */

#define TG(op) ZKP_CAT(ZKP_CAT(test_gm_, G), ZKP_CAT(_, op))
#define GFN(op) ZKP_CAT(ZKP_CAT(G, _), op)
#define SK(k) ZKP_CAT(ZKP_CAT(GSK, _), k)
#define AFF ZKP_CAT(G, _affine_t)
#define JAC ZKP_CAT(G, _jacobian_t)
#define XYZZ ZKP_CAT(G, _xyzz_t)
#define SBITS SK(BITS)
#define NL 4

/* A uniform scalar below r, by rejection on the bit length of r. */
static void TG(rand_scalar)(uint64_t *k) {
    static const uint64_t r[NL] = SK(MODULUS);
    for (;;) {
        for (int i = 0; i < NL; i++) k[i] = test_rng_u64();
        k[NL - 1] &= (~(uint64_t)0) >> (64 * NL - SBITS);
        for (int i = NL - 1; i >= 0; i--) {
            if (k[i] < r[i]) return;
            if (k[i] > r[i]) break;
        }
    }
}

/* n group points: a walk P_i = P_(i-1) + T_(i mod 4) over four random
 * multiples of the generator, converted with one inversion, for the first
 * 2^16; beyond that the same points repeat, which costs nothing to make
 * and is as good an input for the MSM. */
static void TG(make_bases)(AFF *out, size_t n) {
    if (n == 0) return;
    size_t distinct = n < ((size_t)1 << 16) ? n : ((size_t)1 << 16);
    AFF gen;
    JAC gj, steps[4], cur;
    uint64_t k[NL];
    GFN(generator)(&gen);
    GFN(from_affine)(&gj, &gen);
    for (int i = 0; i < 4; i++) {
        TG(rand_scalar)(k);
        GFN(mul_var)(&steps[i], &gj, k, SBITS);
    }
    TG(rand_scalar)(k);
    GFN(mul_var)(&cur, &gj, k, SBITS);
    JAC *tmp = malloc(distinct * sizeof *tmp);
    ASSERT(tmp != NULL);
    for (size_t i = 0; i < distinct; i++) {
        GFN(add)(&cur, &cur, &steps[i % 4]);
        tmp[i] = cur;
    }
    GFN(batch_to_affine_var)(out, tmp, distinct);
    free(tmp);
    for (size_t done = distinct; done < n;) {
        size_t take = n - done < done ? n - done : done;
        memcpy(out + done, out, take * sizeof *out);
        done += take;
    }
}

static void TG(cpu_msm)(JAC *out, const AFF *bases, const uint64_t *scalars, size_t n) {
    if (n <= 64) {
        JAC acc, p, t;
        GFN(set_infinity)(&acc);
        for (size_t i = 0; i < n; i++) {
            GFN(from_affine)(&p, &bases[i]);
            GFN(mul_var)(&t, &p, scalars + NL * i, SBITS);
            GFN(add)(&acc, &acc, &t);
        }
        *out = acc;
        return;
    }
    size_t len = GFN(msm_scratch_bytes)(n, CPU_THREADS);
    void *scratch = len ? malloc(len) : NULL;
    ASSERT(len == 0 || scratch != NULL);
    ASSERT_OK(GFN(msm_mt_var)(out, bases, scalars, n, CPU_THREADS, scratch, len));
    free(scratch);
}

/* The GPU's MSM over bases[first .. first + n), from host scalars (dev = 0)
 * or from a device buffer (dev = 1), as a Jacobian point. In the buffer
 * the scalars follow SCALARS_PAD others, which the MSM must skip. */
#define SCALARS_PAD 3
static zkpipe_status TG(gpu_msm)(zkp_gpu *g, JAC *out, const zkp_gpu_bases *b, size_t first,
                                 const uint64_t *scalars, size_t n, int dev, zkp_diag *diag) {
    XYZZ r;
    memset(&r, 0xa5, sizeof r);
    zkpipe_status st;
    if (dev) {
        zkp_gpu_buf *buf = NULL;
        st = zkp_gpu_buf_alloc(g, &buf, (n + SCALARS_PAD) * 32, ZKP_GPU_MEM_SCALARS, diag);
        if (st != ZKPIPE_OK) return st;
        uint64_t pad[SCALARS_PAD][4] = {{7}, {1}, {0, 0, 0, 1}};
        st = zkp_gpu_buf_upload(buf, 0, pad, sizeof pad, diag);
        if (n && st == ZKPIPE_OK) st = zkp_gpu_buf_upload(buf, sizeof pad, scalars, n * 32, diag);
        if (st == ZKPIPE_OK) st = GFN(gpu_msm_dev)(g, &r, b, first, buf, SCALARS_PAD, n, diag);
        zkp_gpu_buf_free(buf);
    } else {
        st = GFN(gpu_msm)(g, &r, b, first, scalars, n, diag);
    }
    if (st == ZKPIPE_OK) GFN(xyzz_to_jacobian)(out, &r);
    return st;
}

static zkp_gpu_bases *TG(upload)(zkp_gpu *g, const AFF *bases, size_t n) {
    zkp_gpu_bases *b = NULL;
    zkp_diag diag = {{0}};
    zkpipe_status st = GFN(gpu_bases_upload)(g, &b, bases, n, &diag);
    ASSERT_MSG(st == ZKPIPE_OK, "upload of %zu bases: %s", n, diag.msg);
    ASSERT_EQ_U64(zkp_gpu_bases_count(b), n);
    return b;
}

/* GPU == CPU for bases[first .. first + n) of b and the given scalars,
 * through both entry points. */
static void TG(check)(zkp_gpu *g, const char *what, const zkp_gpu_bases *b, const AFF *bases,
                      size_t first, const uint64_t *scalars, size_t n) {
    JAC want, got;
    TG(cpu_msm)(&want, bases + first, scalars, n);
    for (int dev = 0; dev < 2; dev++) {
        zkp_diag diag = {{0}};
        zkpipe_status st = TG(gpu_msm)(g, &got, b, first, scalars, n, dev, &diag);
        ASSERT_MSG(st == ZKPIPE_OK, "%s %s, n = %zu: %s", GM_STR(G), what, n, diag.msg);
        if (!GFN(eq)(&want, &got))
            test_fail(__FILE__, __LINE__, "%s %s, n = %zu, first = %zu, %s scalars: GPU != CPU",
                      GM_STR(G), what, n, first, dev ? "device" : "host");
    }
}

static void TG(random)(zkp_gpu *g, size_t n) {
    AFF *bases = calloc(n, sizeof *bases);
    uint64_t *scalars = malloc(n * NL * sizeof *scalars);
    ASSERT(bases && scalars);
    TG(make_bases)(bases, n);
    for (size_t i = 0; i < n; i++) TG(rand_scalar)(scalars + NL * i);
    zkp_gpu_bases *b = TG(upload)(g, bases, n);
    TG(check)(g, "random", b, bases, 0, scalars, n);
    /* A sub-range at an offset, as the prover's MSMs over parts of a key. */
    if (n >= 4) TG(check)(g, "random at an offset", b, bases, n / 4, scalars, n / 2);
    zkp_gpu_bases_free(b);
    free(bases);
    free(scalars);
}

/* Mostly zeros and ones, some small values and a few full ones, as the
 * witness of a Filecoin circuit. */
static void TG(witness)(zkp_gpu *g, size_t n) {
    AFF *bases = calloc(n, sizeof *bases);
    uint64_t *scalars = calloc(n * NL, sizeof *scalars);
    ASSERT(bases && scalars);
    TG(make_bases)(bases, n);
    for (size_t i = 0; i < n; i++) {
        uint64_t u = test_rng_u64() % 100, *k = scalars + NL * i;
        if (u < 50) continue;
        if (u < 90) k[0] = 1;
        else if (u < 97) k[0] = test_rng_u64() & 0xffff;
        else TG(rand_scalar)(k);
    }
    zkp_gpu_bases *b = TG(upload)(g, bases, n);
    TG(check)(g, "witness-like", b, bases, 0, scalars, n);
    zkp_gpu_bases_free(b);
    free(bases);
    free(scalars);
}

static uint64_t TG(bases_bytes)(zkp_gpu *g) {
    zkp_gpu_stats s;
    zkp_gpu_stats_get(g, &s);
    return s.live_bytes[ZKP_GPU_MEM_BASES];
}

/* Without a budget as with one, an upload sizes its copies to what the
 * device has free beside the reserve (90 % of it with a reserve). Room for
 * one and a half sets of points holds no copy. Room for four holds two or
 * three, fewer than the eleven or more that give every window the one
 * bucket set, so each copy serves several windows in as many sets, and the
 * MSM over them must match the CPU's; so must the MSM over eight, whose
 * windows may differ in width from set to set. With the reserve lifted, a
 * whole layout's copies are made. */
static void TG(reserve)(zkp_gpu *g) {
    const size_t n = (size_t)1 << 19, points = n * sizeof(AFF);
    AFF *bases = calloc(n, sizeof *bases);
    uint64_t *scalars = malloc(n * NL * sizeof *scalars);
    ASSERT(bases && scalars);
    TG(make_bases)(bases, n);
    for (size_t i = 0; i < n; i++) TG(rand_scalar)(scalars + NL * i);
    ASSERT_EQ_U64(zkp_gpu_memory_budget(g), 0);
    zkp_diag diag = {{0}};
    uint64_t room = 0;
    ASSERT_OK(zkp_gpu_room(g, &room, &diag));
    ASSERT(room > 16 * (uint64_t)points);
    const uint64_t before = TG(bases_bytes)(g);
    zkp_gpu_set_upload_reserve(g, room - 3 * (uint64_t)points / 2);
    zkp_gpu_bases *b = TG(upload)(g, bases, n);
    zkp_gpu_set_upload_reserve(g, 0);
    ASSERT_EQ_U64(TG(bases_bytes)(g) - before, points);
    zkp_gpu_bases_free(b);
    zkp_gpu_set_upload_reserve(g, room - 4 * (uint64_t)points);
    b = TG(upload)(g, bases, n);
    zkp_gpu_set_upload_reserve(g, 0);
    const uint64_t copies = (TG(bases_bytes)(g) - before) / points;
    ASSERT_MSG(copies == 2 || copies == 3, "%s: %llu copies in room for four", GM_STR(G),
               (unsigned long long)copies);
    TG(check)(g, "random, copies in several sets", b, bases, 0, scalars, n);
    TG(check)(g, "random, copies in several sets, at an offset", b, bases, n / 4, scalars, n / 2);
    zkp_gpu_bases_free(b);
    /* Room for 8 copies: BLS12-381's plan splits each copy's 35 bits into
     * windows of 18 and 17 bits (two sets of two widths), BN254's 34 into
     * two of 17. */
    zkp_gpu_set_upload_reserve(g, room - 19 * (uint64_t)points / 2);
    b = TG(upload)(g, bases, n);
    zkp_gpu_set_upload_reserve(g, 0);
    ASSERT_MSG(TG(bases_bytes)(g) - before == 8 * (uint64_t)points, "%s: %llu bytes in room for 8",
               GM_STR(G), (unsigned long long)(TG(bases_bytes)(g) - before));
    TG(check)(g, "random, copies of windows of two widths", b, bases, 0, scalars, n);
    TG(check)(g, "random, copies of windows of two widths, at an offset", b, bases, n / 4, scalars,
              n / 2);
    zkp_gpu_bases_free(b);
    b = TG(upload)(g, bases, n);
    ASSERT_MSG(TG(bases_bytes)(g) - before >= 11 * (uint64_t)points,
               "%s: a partial layout without a reserve", GM_STR(G));
    zkp_gpu_bases_free(b);
    free(bases);
    free(scalars);
}

/* zkp_gpu_bases_trim: 2^19 points get shifted copies at upload (14 or 15
 * of them), which an MSM over scalars that are nearly all 0 and 1 plans
 * without (7-bit windows, 37 bucket sets). Only such an MSM over all the points lets the trim give
 * them back; the points stay, and the MSMs after it match the CPU's. */
static void TG(trim)(zkp_gpu *g) {
    const size_t n = (size_t)1 << 19, points = n * sizeof(AFF);
    AFF *bases = calloc(n, sizeof *bases);
    uint64_t *scalars = malloc(n * NL * sizeof *scalars);
    ASSERT(bases && scalars);
    TG(make_bases)(bases, n);
    const uint64_t before = TG(bases_bytes)(g);
    zkp_gpu_bases *b = TG(upload)(g, bases, n);
    const uint64_t held = TG(bases_bytes)(g) - before;
    ASSERT_MSG(held > points, "%s: %llu bytes of bases for %zu points: no copies", GM_STR(G),
               (unsigned long long)held, n);
    zkp_diag diag = {{0}};
    uint64_t freed = 1;
    JAC got;

    /* Dense scalars: the MSM reads the copies, which stay. */
    for (size_t i = 0; i < n; i++) TG(rand_scalar)(scalars + NL * i);
    ASSERT_OK(TG(gpu_msm)(g, &got, b, 0, scalars, n, 0, &diag));
    ASSERT_OK(zkp_gpu_bases_trim(b, &freed, &diag));
    ASSERT_EQ_U64(freed, 0);

    /* Ones and 1,000 other values: over all but the last point the MSM
     * decides nothing, over all of them it frees the copies. */
    for (size_t i = 0; i < n; i++) memset(scalars + NL * i, 0, 32), scalars[NL * i] = 1;
    for (int j = 0; j < 1000; j++) TG(rand_scalar)(scalars + NL * (test_rng_u64() % n));
    ASSERT_OK(TG(gpu_msm)(g, &got, b, 0, scalars, n - 1, 1, &diag));
    ASSERT_OK(zkp_gpu_bases_trim(b, &freed, &diag));
    ASSERT_EQ_U64(freed, 0);
    TG(check)(g, "ones and a few others", b, bases, 0, scalars, n);
    ASSERT_OK(zkp_gpu_bases_trim(b, &freed, &diag));
    ASSERT_EQ_U64(freed, held - points);
    ASSERT_EQ_U64(TG(bases_bytes)(g) - before, points);
    ASSERT_OK(zkp_gpu_bases_trim(b, &freed, &diag));
    ASSERT_EQ_U64(freed, 0);

    /* Every point is summed once by the ones: the points' new buffer is
     * whole; and a sub-range with dense scalars runs without copies. */
    TG(check)(g, "ones and a few others, after the trim", b, bases, 0, scalars, n);
    for (size_t i = 0; i < 4096; i++) TG(rand_scalar)(scalars + NL * i);
    TG(check)(g, "random at an offset, after the trim", b, bases, n / 2, scalars, 4096);
    zkp_gpu_bases_free(b);
    ASSERT_EQ_U64(TG(bases_bytes)(g), before);
    free(bases);
    free(scalars);
}

/* 2^18 points, a seventh of the scalars 0 or 1 (the pieces cut the list of
 * the others). With the pieces capped at 1,000 (4,097 points, the last
 * piece short) and at 2^15 + 1, the MSMs match the CPU's. Then, on a
 * context of its own with the points in a window (no copies, no upload
 * scratch), the MSM runs once without a budget, which gives what it takes;
 * under a budget that leaves that less half the least its sort's four
 * arrays can be (16 bytes an entry, 11 windows or more), the MSM cannot
 * run in one piece, and must still match the CPU's. */
static void TG(pieces)(zkp_gpu *g) {
    const size_t n = (size_t)1 << 18;
    AFF *bases = calloc(n, sizeof *bases);
    uint64_t *scalars = malloc(n * NL * sizeof *scalars);
    ASSERT(bases && scalars);
    TG(make_bases)(bases, n);
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        uint64_t *k = scalars + NL * i;
        if (i % 7) {
            TG(rand_scalar)(k);
            m++;
        } else {
            memset(k, 0, 32);
            k[0] = (i / 7) & 1;
        }
    }
    zkp_gpu_bases *b = TG(upload)(g, bases, n);
    ASSERT(setenv("ZKPIPE_GPU_MSM_PIECE", "1000", 1) == 0);
    TG(check)(g, "in pieces of 1,000", b, bases, 0, scalars, 4097);
    ASSERT(setenv("ZKPIPE_GPU_MSM_PIECE", "32769", 1) == 0);
    TG(check)(g, "in pieces of 2^15 + 1", b, bases, 0, scalars, n);
    TG(check)(g, "in pieces of 2^15 + 1, at an offset", b, bases, n / 4, scalars, n / 2);
    ASSERT(unsetenv("ZKPIPE_GPU_MSM_PIECE") == 0);
    zkp_gpu_bases_free(b);

    zkp_gpu *h = test_gpu_open();
    zkp_diag diag = {{0}};
    zkp_gpu_bases *w = NULL;
    ASSERT_OK(GFN(gpu_bases_window)(h, &w, n, &diag));
    ASSERT_OK(zkp_gpu_bases_fill(w, bases, n, &diag));
    zkp_gpu_stats s;
    zkp_gpu_stats_get(h, &s);
    const uint64_t held = s.live_total, sort_least = 11 * 16 * (uint64_t)m;
    JAC got;
    ASSERT_OK(TG(gpu_msm)(h, &got, w, 0, scalars, n, 0, &diag));
    zkp_gpu_stats_get(h, &s);
    const uint64_t took = s.peak_total - held;
    ASSERT_MSG(took > sort_least, "%s: the MSM took %llu bytes", GM_STR(G), (unsigned long long)took);
    zkp_gpu_set_memory_budget(h, held + took - sort_least / 2);
    TG(check)(h, "in pieces under a budget", w, bases, 0, scalars, n);
    zkp_gpu_set_memory_budget(h, 0);
    zkp_gpu_bases_free(w);
    zkp_gpu_close(h);
    free(bases);
    free(scalars);
}

static void TG(edges)(zkp_gpu *g) {
    static const uint64_t r[NL] = SK(MODULUS);
    const size_t n = 3000;
    AFF *bases = calloc(n, sizeof *bases), *same = calloc(n, sizeof *same);
    uint64_t *scalars = calloc(n * NL, sizeof *scalars);
    ASSERT(bases && same && scalars);
    TG(make_bases)(bases, n);
    zkp_gpu_bases *b = TG(upload)(g, bases, n);
    zkp_diag diag = {{0}};
    JAC got;

    /* No points: infinity, from either entry point, even at the end. */
    for (int dev = 0; dev < 2; dev++) {
        ASSERT_OK(TG(gpu_msm)(g, &got, b, 0, scalars, 0, dev, &diag));
        ASSERT(GFN(is_infinity)(&got));
        ASSERT_OK(TG(gpu_msm)(g, &got, b, n, scalars, 0, dev, &diag));
        ASSERT(GFN(is_infinity)(&got));
    }
    /* Past the end. */
    XYZZ xr;
    ASSERT_EQ_STATUS(GFN(gpu_msm)(g, &xr, b, 1, scalars, n, &diag), ZKPIPE_ERR_OUT_OF_RANGE);
    ASSERT_EQ_STATUS(GFN(gpu_msm)(g, &xr, b, n + 1, scalars, 0, &diag), ZKPIPE_ERR_OUT_OF_RANGE);

    /* Scalars all zero, then all one. */
    TG(check)(g, "zeros", b, bases, 0, scalars, n);
    for (size_t i = 0; i < n; i++) scalars[NL * i] = 1;
    TG(check)(g, "ones", b, bases, 0, scalars, n);
    TG(check)(g, "one point, scalar 1", b, bases, 7, scalars, 1);
    /* r - 1 everywhere, and mixed with 0 and 1. */
    for (size_t i = 0; i < n; i++) {
        memcpy(scalars + NL * i, r, sizeof r);
        scalars[NL * i] -= 1;
    }
    TG(check)(g, "r - 1", b, bases, 0, scalars, n);
    TG(check)(g, "one point, scalar r - 1", b, bases, 5, scalars, 1);
    for (size_t i = 0; i < n; i += 3) memset(scalars + NL * i, 0, 32);
    for (size_t i = 1; i < n; i += 3) memset(scalars + NL * i, 0, 32), scalars[NL * i] = 1;
    TG(check)(g, "0, 1 and r - 1", b, bases, 0, scalars, n);
    /* One random scalar for every point: each window's digits all land in
     * one bucket. */
    uint64_t k[NL];
    TG(rand_scalar)(k);
    for (size_t i = 0; i < n; i++) memcpy(scalars + NL * i, k, sizeof k);
    TG(check)(g, "equal scalars", b, bases, 0, scalars, n);
    /* Small scalars: most windows are zero. */
    for (size_t i = 0; i < n; i++) {
        memset(scalars + NL * i, 0, 32);
        scalars[NL * i] = 2 + test_rng_u64() % 5;
    }
    TG(check)(g, "small scalars", b, bases, 0, scalars, n);
    zkp_gpu_bases_free(b);

    /* One base repeated: the bucket additions meet P + P (and P - P). */
    for (size_t i = 0; i < n; i++) same[i] = bases[17];
    for (size_t i = 0; i < n; i++) TG(rand_scalar)(scalars + NL * i);
    b = TG(upload)(g, same, n);
    TG(check)(g, "one base, random scalars", b, same, 0, scalars, n);
    for (size_t i = 0; i < n; i++) memcpy(scalars + NL * i, k, sizeof k);
    TG(check)(g, "one base, equal scalars", b, same, 0, scalars, n);
    zkp_gpu_bases_free(b);

    /* Bases at infinity among the others. */
    for (size_t i = 0; i < n; i += 5) GFN(affine_set_infinity)(&bases[i]);
    for (size_t i = 0; i < n; i++) TG(rand_scalar)(scalars + NL * i);
    for (size_t i = 0; i < n; i += 7) memset(scalars + NL * i, 0, 32), scalars[NL * i] = 1;
    b = TG(upload)(g, bases, n);
    TG(check)(g, "bases at infinity", b, bases, 0, scalars, n);
    zkp_gpu_bases_free(b);
    /* The same with enough points for the precomputed copies. */
    size_t big = (size_t)1 << 16;
    AFF *bb = calloc(big, sizeof *bb);
    uint64_t *bs = malloc(big * NL * sizeof *bs);
    ASSERT(bb && bs);
    TG(make_bases)(bb, big);
    for (size_t i = 0; i < big; i += 5) GFN(affine_set_infinity)(&bb[i]);
    for (size_t i = 0; i < big; i++) memcpy(bs + NL * i, k, sizeof k);
    b = TG(upload)(g, bb, big);
    TG(check)(g, "infinity among 2^16, equal scalars", b, bb, 0, bs, big);
    zkp_gpu_bases_free(b);
    free(bb);
    free(bs);

    /* Bases of the other group, or none at all, are refused. */
    ASSERT_EQ_STATUS(GFN(gpu_msm)(g, &xr, NULL, 0, scalars, 1, &diag), ZKPIPE_ERR_INVALID_ARGUMENT);
    free(bases);
    free(same);
    free(scalars);
}

/* Upload, then the MSM from host and from device scalars, best of three
 * after one warm-up call. */
static void TG(time)(zkp_gpu *g, unsigned lg) {
    size_t n = (size_t)1 << lg;
    AFF *bases = calloc(n, sizeof *bases);
    uint64_t *scalars = malloc(n * NL * sizeof *scalars);
    if (!bases || !scalars) {
        printf("  %s 2^%u: no host memory\n", GM_STR(G), lg);
        free(bases);
        free(scalars);
        return;
    }
    TG(make_bases)(bases, n);
    for (size_t i = 0; i < n; i++) TG(rand_scalar)(scalars + NL * i);
    zkp_diag diag = {{0}};
    zkp_gpu_bases *b = NULL;
    double t0 = now_s();
    zkpipe_status st = GFN(gpu_bases_upload)(g, &b, bases, n, &diag);
    double t_up = now_s() - t0;
    zkp_gpu_buf *buf = NULL;
    if (st == ZKPIPE_OK) st = zkp_gpu_buf_alloc(g, &buf, n * 32, ZKP_GPU_MEM_SCALARS, &diag);
    if (st == ZKPIPE_OK) st = zkp_gpu_buf_upload(buf, 0, scalars, n * 32, &diag);
    double best_h = 1e9, best_d = 1e9;
    XYZZ r;
    for (int it = 0; it < 4 && st == ZKPIPE_OK; it++) {
        t0 = now_s();
        st = GFN(gpu_msm)(g, &r, b, 0, scalars, n, &diag);
        double t1 = now_s();
        if (st == ZKPIPE_OK) st = GFN(gpu_msm_dev)(g, &r, b, 0, buf, 0, n, &diag);
        double t2 = now_s();
        if (it > 0 && t1 - t0 < best_h) best_h = t1 - t0;
        if (it > 0 && t2 - t1 < best_d) best_d = t2 - t1;
    }
    if (st == ZKPIPE_OK)
        printf("  %-13s 2^%u: upload %8.1f ms, MSM host scalars %8.2f ms, device scalars %8.2f ms\n",
               GM_STR(G), lg, 1e3 * t_up, 1e3 * best_h, 1e3 * best_d);
    else
        printf("  %-13s 2^%u: %s\n", GM_STR(G), lg, diag.msg);
    fflush(stdout);
    zkp_gpu_buf_free(buf);
    zkp_gpu_bases_free(b);
    free(bases);
    free(scalars);
}

#undef TG
#undef GFN
#undef SK
#undef AFF
#undef JAC
#undef XYZZ
#undef SBITS
#undef NL

#endif
