/* MSM property tests, instantiated once per group by test_msm.c with
 *
 *   #define G    bn254_g1     the group
 *   #define GSK  BN254_FR     the scalar field's constant prefix
 *   #define G_N  1000         the largest random n (smaller for G2, whose
 *                             arithmetic is about 3x slower)
 *   #define G_MAXC 16         the widest window the edge-scalar test forces
 *                             (a full bucket reduction at c = 16 is 2^16
 *                             additions per window, too slow for G2)
 *   #define G_EXH 8           bits (and widest c) of the exhaustive test
 *
 * Every result is checked against the naive sum of G_mul_var products, or
 * against another MSM path that is itself checked that way. */
#define TG(op) ZKP_CAT(ZKP_CAT(test_msm_, G), ZKP_CAT(_, op))
#define GFN(op) ZKP_CAT(ZKP_CAT(G, _), op)
#define SK(k) ZKP_CAT(ZKP_CAT(GSK, _), k)
#define AFF ZKP_CAT(G, _affine_t)
#define JAC ZKP_CAT(G, _jacobian_t)
#define SBITS SK(BITS)
#define NL ZKP_MSM_SCALAR_LIMBS

#include "point_assert_impl.h"

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

/* n distinct group points: a walk P_i = P_{i-1} + T_(i mod 4) with four
 * random multiples T of the generator, converted with one inversion. Cheap
 * for any group, and every point lies in the group of order r. */
static void TG(rand_bases)(AFF *out, size_t n) {
    if (n == 0) return;
    AFF g;
    JAC gj, steps[4], cur;
    uint64_t k[NL];
    GFN(generator)(&g);
    GFN(from_affine)(&gj, &g);
    for (int i = 0; i < 4; i++) {
        TG(rand_scalar)(k);
        GFN(mul_var)(&steps[i], &gj, k, SBITS);
    }
    TG(rand_scalar)(k);
    GFN(mul_var)(&cur, &gj, k, SBITS);
    JAC *tmp = malloc(n * sizeof *tmp);
    ASSERT(tmp != NULL);
    for (size_t i = 0; i < n; i++) {
        GFN(add)(&cur, &cur, &steps[i % 4]);
        tmp[i] = cur;
    }
    GFN(batch_to_affine_var)(out, tmp, n);
    free(tmp);
}

static void TG(naive)(JAC *out, const AFF *bases, const uint64_t *scalars, size_t n) {
    JAC acc, p, t;
    GFN(set_infinity)(&acc);
    for (size_t i = 0; i < n; i++) {
        GFN(from_affine)(&p, &bases[i]);
        GFN(mul_var)(&t, &p, scalars + NL * i, SBITS);
        GFN(add)(&acc, &acc, &t);
    }
    *out = acc;
}

/* Scratch for G_msm_mt_var / G_msm_split_var, deliberately misaligned by one byte
 * so that the functions' own alignment is exercised. */
static void *TG(scratch)(size_t n, unsigned nthreads, size_t *len, void **base) {
    *len = GFN(msm_scratch_bytes)(n, nthreads);
    *base = malloc(*len + 1);
    ASSERT(*base != NULL);
    return (unsigned char *)*base + 1;
}

static void TG(check_mt)(const char *what, const AFF *bases, const uint64_t *scalars, size_t n,
                         unsigned nthreads, const JAC *expect) {
    size_t len;
    void *base, *s = TG(scratch)(n, nthreads, &len, &base);
    JAC r;
    ASSERT_OK(GFN(msm_mt_var)(&r, bases, scalars, n, nthreads, s, len));
    ASSERT_PT_EQ(what, &r, expect);
    free(base);
}

/* Pippenger with a forced window width c. */
static void TG(check_c)(const char *what, const AFF *bases, const uint64_t *scalars, size_t n,
                        unsigned c, unsigned nthreads, const JAC *expect) {
    size_t len = GFN(msm_pippenger_scratch_bytes)(n, c, nthreads);
    unsigned char *base = malloc(len + 1);
    ASSERT(base != NULL);
    JAC r;
    ASSERT_OK(GFN(msm_pippenger_var)(&r, bases, scalars, NULL, n, c, nthreads, base + 1, len));
    if (!GFN(eq)(&r, expect)) test_fail(__FILE__, __LINE__, "%s: c = %u, nthreads = %u", what, c, nthreads);
    free(base);
}

static void TG(matches_naive)(void) {
    static const size_t sizes[] = {0, 1, 2, 3, 7, 31, 32, 33, 100, 257, 1000};
    for (size_t s = 0; s < ZKP_ARRAY_LEN(sizes); s++) {
        size_t n = sizes[s];
        if (n > G_N) continue;
        AFF *bases = malloc((n + 1) * sizeof *bases);
        uint64_t *scalars = malloc((n + 1) * NL * sizeof *scalars);
        ASSERT(bases && scalars);
        TG(rand_bases)(bases, n);
        for (size_t i = 0; i < n; i++) TG(rand_scalar)(scalars + NL * i);
        JAC expect, r;
        TG(naive)(&expect, bases, scalars, n);
        size_t len;
        void *base, *sc = TG(scratch)(n, 1, &len, &base);
        ASSERT_OK(GFN(msm_var)(&r, bases, scalars, n, sc, len));
        ASSERT_PT_EQ("msm == naive", &r, &expect);
        free(base);
        TG(check_mt)("msm_mt(2) == naive", bases, scalars, n, 2, &expect);
        zkp_msm_stats st;
        sc = TG(scratch)(n, 2, &len, &base);
        ASSERT_OK(GFN(msm_split_var)(&r, &st, bases, scalars, n, 2, sc, len));
        ASSERT_PT_EQ("msm_split == naive", &r, &expect);
        ASSERT_EQ_U64(st.zeros + st.ones + st.tail, n);
        free(base);
        free(bases);
        free(scalars);
    }
}

/* Scalars whose windows sit on the digit boundaries: all ones (every window
 * 2^c - 1, so every window carries, into the top one as well), each window
 * 2^(c-1) and 2^(c-1) - 1 for every c, r - 1, 0, 1, 2 and the highest bit
 * alone. One reference, then Pippenger for every c. */
static void TG(edge_scalars)(void) {
    enum { NS = 8 + 3 * ZKP_MSM_MAX_C };
    static const uint64_t r[NL] = SK(MODULUS);
    uint64_t scalars[NS * NL];
    size_t n = 0;
    memset(scalars, 0, sizeof scalars);
    uint64_t *k;
    k = scalars + NL * n++; /* 0 */
    k = scalars + NL * n++, k[0] = 1;
    k = scalars + NL * n++, k[0] = 2;
    k = scalars + NL * n++, memcpy(k, r, sizeof r), k[0] -= 1;
    k = scalars + NL * n++, memcpy(k, r, sizeof r), k[0] -= 2;
    k = scalars + NL * n++, k[(SBITS - 1) / 64] = (uint64_t)1 << ((SBITS - 1) % 64);
    k = scalars + NL * n++, memset(k, 0xff, NL * 8), k[NL - 1] >>= 64 * NL - SBITS;
    k = scalars + NL * n++, k[0] = ~(uint64_t)0;
    for (unsigned c = 1; c <= ZKP_MSM_MAX_C; c++) {
        for (int v = 0; v < 3; v++) {
            uint64_t win = v == 0 ? ((uint64_t)1 << (c - 1)) : v == 1 ? ((uint64_t)1 << (c - 1)) - 1
                                                                        : ((uint64_t)1 << c) - 1 - 1;
            k = scalars + NL * n++;
            for (unsigned pos = 0; pos < SBITS; pos++)
                if ((win >> (pos % c)) & 1) k[pos / 64] |= (uint64_t)1 << (pos % 64);
        }
    }
    ASSERT_EQ_U64(n, NS);
    AFF bases[NS];
    TG(rand_bases)(bases, n);
    JAC expect;
    TG(naive)(&expect, bases, scalars, n);
    for (unsigned c = 1; c <= G_MAXC; c++) TG(check_c)("edge scalars", bases, scalars, n, c, 1, &expect);
    TG(check_mt)("edge scalars, msm_mt", bases, scalars, n, 1, &expect);
    /* Each edge scalar on its own, so a wrong digit cannot hide in a sum. */
    for (size_t i = 0; i < n; i++) {
        TG(naive)(&expect, &bases[i], scalars + NL * i, 1);
        for (unsigned c = 1; c <= 8; c += c < 3 ? 2 : 3)
            TG(check_c)("single edge scalar", &bases[i], scalars + NL * i, 1, c, 1, &expect);
    }
}

/* Bases drawn from {P, -P, Q, -Q, infinity} with scalars from a few values:
 * buckets meet P + P (the doubling branch), P + (-P) (cancellation to
 * infinity) and infinity itself. */
static void TG(duplicate_and_infinity_bases)(void) {
    enum { N = 64 };
    AFF pq[2], bases[N];
    uint64_t vals[4 * NL], scalars[N * NL];
    TG(rand_bases)(pq, 2);
    for (int v = 0; v < 4; v++) TG(rand_scalar)(vals + NL * v);
    for (int round = 0; round < 4; round++) {
        for (size_t i = 0; i < N; i++) {
            uint64_t x = test_rng_u64();
            switch (x % 5) {
            case 0: bases[i] = pq[0]; break;
            case 1: GFN(affine_neg)(&bases[i], &pq[0]); break;
            case 2: bases[i] = pq[1]; break;
            case 3: GFN(affine_neg)(&bases[i], &pq[1]); break;
            default: GFN(affine_set_infinity)(&bases[i]); break;
            }
            memcpy(scalars + NL * i, vals + NL * ((x >> 8) % (round + 1)), NL * 8);
        }
        JAC expect;
        TG(naive)(&expect, bases, scalars, N);
        for (unsigned c = 1; c <= 12; c++) TG(check_c)("duplicates", bases, scalars, N, c, 1, &expect);
        TG(check_mt)("duplicates, msm_mt", bases, scalars, N, 2, &expect);
        /* Exact pairs P, -P with equal scalars cancel to infinity. */
        for (size_t i = 0; i + 1 < N; i += 2) {
            GFN(affine_neg)(&bases[i + 1], &bases[i]);
            memcpy(scalars + NL * (i + 1), scalars + NL * i, NL * 8);
        }
        for (unsigned c = 1; c <= 12; c += 5) {
            JAC inf;
            GFN(set_infinity)(&inf);
            TG(check_c)("cancelling pairs", bases, scalars, N, c, 1, &inf);
        }
    }
    /* All bases at infinity. */
    for (size_t i = 0; i < N; i++) {
        GFN(affine_set_infinity)(&bases[i]);
        TG(rand_scalar)(scalars + NL * i);
    }
    JAC inf;
    GFN(set_infinity)(&inf);
    TG(check_mt)("all infinity", bases, scalars, N, 1, &inf);
}

/* Every scalar below 2^KB, alone, at the bottom and at the top of the scalar
 * (shifted to end at bit SBITS - 1), for every window width c in 1..KB: the
 * digit and carry logic of the low windows and of the top window,
 * exhaustively, including every carry out of a window of width up to KB - 1.
 * The references walk by one addition per step. */
static void TG(window_logic_exhaustive)(void) {
    enum { KB = G_EXH };
    AFF p[2];
    JAC ref[2];
    TG(rand_bases)(p, 1);
    /* p[1] = [2^(SBITS - KB)] p[0], so [j] p[1] is the top-shifted scalar. */
    GFN(from_affine)(&ref[0], &p[0]);
    for (int i = 0; i < SBITS - KB; i++) GFN(dbl)(&ref[0], &ref[0]);
    GFN(to_affine)(&p[1], &ref[0]);
    size_t len = GFN(msm_pippenger_scratch_bytes)(1, KB, 1);
    unsigned char *mem = malloc(len);
    ASSERT(mem != NULL);
    for (int where = 0; where < 2; where++) {
        JAC step, expect;
        GFN(from_affine)(&step, &p[where]);
        GFN(set_infinity)(&expect);
        for (uint64_t j = 0; j < (1u << KB); j++) {
            uint64_t k[NL] = {0, 0, 0, 0};
            if (where == 0) {
                k[0] = j;
            } else {
                unsigned s = SBITS - KB;
                k[s / 64] |= j << (s % 64);
                if (s % 64 + KB > 64) k[s / 64 + 1] |= j >> (64 - s % 64);
            }
            for (unsigned c = 1; c <= KB; c++) {
                JAC r;
                ASSERT(GFN(msm_pippenger_scratch_bytes)(1, c, 1) <= len);
                ASSERT_OK(GFN(msm_pippenger_var)(&r, &p[0], k, NULL, 1, c, 1, mem, len));
                if (!GFN(eq)(&r, &expect))
                    test_fail(__FILE__, __LINE__, "k = %" PRIu64 " %s, c = %u", j, where ? "(top)" : "", c);
            }
            GFN(add)(&expect, &expect, &step);
        }
    }
    free(mem);
}

/* Witness-like scalars: about 70% zeros, 20% ones, 10% random. */
static void TG(witness_scalars)(uint64_t *scalars, size_t n) {
    memset(scalars, 0, n * NL * sizeof *scalars);
    for (size_t i = 0; i < n; i++) {
        uint64_t x = test_rng_u64() % 10;
        if (x >= 9)
            TG(rand_scalar)(scalars + NL * i);
        else if (x >= 7)
            scalars[NL * i] = 1;
    }
}

static void TG(split_matches_plain)(void) {
    static const size_t sizes[] = {5, 40, 200, 3 * G_N};
    for (size_t s = 0; s < ZKP_ARRAY_LEN(sizes); s++) {
        size_t n = sizes[s];
        AFF *bases = malloc(n * sizeof *bases);
        uint64_t *scalars = malloc(n * NL * sizeof *scalars);
        ASSERT(bases && scalars);
        TG(rand_bases)(bases, n);
        TG(witness_scalars)(scalars, n);
        size_t z = 0, o = 0;
        for (size_t i = 0; i < n; i++) {
            const uint64_t *k = scalars + NL * i;
            if ((k[1] | k[2] | k[3]) == 0 && k[0] == 0) z++;
            if ((k[1] | k[2] | k[3]) == 0 && k[0] == 1) o++;
        }
        JAC plain, split;
        size_t len;
        void *base, *sc = TG(scratch)(n, 1, &len, &base);
        ASSERT_OK(GFN(msm_var)(&plain, bases, scalars, n, sc, len));
        if (n <= 200) {
            JAC expect;
            TG(naive)(&expect, bases, scalars, n);
            ASSERT_PT_EQ("plain == naive", &plain, &expect);
        }
        zkp_msm_stats st;
        ASSERT_OK(GFN(msm_split_var)(&split, &st, bases, scalars, n, 1, sc, len));
        ASSERT_PT_EQ("split == plain", &split, &plain);
        ASSERT_EQ_U64(st.zeros, z);
        ASSERT_EQ_U64(st.ones, o);
        ASSERT_EQ_U64(st.tail, n - z - o);
        ASSERT_OK(GFN(msm_split_var)(&split, NULL, bases, scalars, n, 1, sc, len));
        ASSERT_PT_EQ("split without stats", &split, &plain);
        free(base);
        free(bases);
        free(scalars);
    }
    /* All zeros, all ones. */
    enum { N = 300 };
    AFF bases[N];
    uint64_t scalars[N * NL];
    JAC r, expect;
    TG(rand_bases)(bases, N);
    memset(scalars, 0, sizeof scalars);
    size_t len;
    void *base, *sc = TG(scratch)(N, 1, &len, &base);
    ASSERT_OK(GFN(msm_split_var)(&r, NULL, bases, scalars, N, 1, sc, len));
    ASSERT(GFN(is_infinity)(&r));
    GFN(set_infinity)(&expect);
    for (size_t i = 0; i < N; i++) {
        scalars[NL * i] = 1;
        GFN(add_affine)(&expect, &expect, &bases[i]);
    }
    ASSERT_OK(GFN(msm_split_var)(&r, NULL, bases, scalars, N, 1, sc, len));
    ASSERT_PT_EQ("all ones", &r, &expect);
    free(base);
}

static void TG(thread_counts_agree)(void) {
    size_t n = G_N;
    static const unsigned threads[] = {1, 2, 3, 5};
    AFF *bases = malloc(n * sizeof *bases);
    uint64_t *scalars = malloc(n * NL * sizeof *scalars);
    uint64_t *wit = malloc(n * NL * sizeof *wit);
    ASSERT(bases && scalars && wit);
    TG(rand_bases)(bases, n);
    for (size_t i = 0; i < n; i++) TG(rand_scalar)(scalars + NL * i);
    TG(witness_scalars)(wit, n);
    JAC first, first_split;
    for (size_t t = 0; t < ZKP_ARRAY_LEN(threads); t++) {
        JAC r, rs;
        size_t len;
        void *base, *sc = TG(scratch)(n, threads[t], &len, &base);
        ASSERT_OK(GFN(msm_mt_var)(&r, bases, scalars, n, threads[t], sc, len));
        ASSERT_OK(GFN(msm_split_var)(&rs, NULL, bases, wit, n, threads[t], sc, len));
        free(base);
        if (t == 0) {
            first = r;
            first_split = rs;
        } else {
            ASSERT_PT_EQ("msm_mt across thread counts", &r, &first);
            ASSERT_PT_EQ("msm_split across thread counts", &rs, &first_split);
        }
        /* A fixed c across thread counts: the same windows, spread differently. */
        TG(check_c)("fixed c across thread counts", bases, scalars, n, 9, threads[t], &first);
    }
    /* More threads than windows: each window is cut into point ranges. */
    unsigned c = 10, nwin = GFN(msm_num_windows)(c);
    TG(check_c)("more threads than windows", bases, scalars, n, c, nwin + 3, &first);
    free(bases);
    free(scalars);
    free(wit);
}

static void TG(scratch_and_arguments_refused)(void) {
    enum { N = 100 };
    AFF bases[N];
    uint64_t scalars[N * NL];
    TG(rand_bases)(bases, N);
    for (size_t i = 0; i < N; i++) TG(rand_scalar)(scalars + NL * i);
    JAC r;
    for (unsigned t = 1; t <= 3; t++) {
        size_t len = GFN(msm_scratch_bytes)(N, t);
        ASSERT(len > 0);
        unsigned char *mem = malloc(len);
        ASSERT(mem != NULL);
        ASSERT_EQ_STATUS(GFN(msm_mt_var)(&r, bases, scalars, N, t, mem, len - 1), ZKPIPE_ERR_INVALID_ARGUMENT);
        ASSERT_EQ_STATUS(GFN(msm_split_var)(&r, NULL, bases, scalars, N, t, mem, len - 1),
                         ZKPIPE_ERR_INVALID_ARGUMENT);
        ASSERT_EQ_STATUS(GFN(msm_mt_var)(&r, bases, scalars, N, t, NULL, 0), ZKPIPE_ERR_INVALID_ARGUMENT);
        size_t plen = GFN(msm_pippenger_scratch_bytes)(N, 8, t);
        ASSERT(plen <= len || plen > 0);
        unsigned char *pm = malloc(plen);
        ASSERT(pm != NULL);
        ASSERT_EQ_STATUS(GFN(msm_pippenger_var)(&r, bases, scalars, NULL, N, 8, t, pm, plen - 1),
                         ZKPIPE_ERR_INVALID_ARGUMENT);
        ASSERT_OK(GFN(msm_pippenger_var)(&r, bases, scalars, NULL, N, 8, t, pm, plen));
        ASSERT_OK(GFN(msm_mt_var)(&r, bases, scalars, N, t, mem, len));
        free(pm);
        free(mem);
    }
    size_t len = GFN(msm_scratch_bytes)(N, 1);
    unsigned char *mem = malloc(len);
    ASSERT(mem != NULL);
    ASSERT_EQ_STATUS(GFN(msm_mt_var)(&r, bases, scalars, N, 0, mem, len), ZKPIPE_ERR_INVALID_ARGUMENT);
    ASSERT_EQ_STATUS(GFN(msm_pippenger_var)(&r, bases, scalars, NULL, N, 0, 1, mem, len),
                     ZKPIPE_ERR_INVALID_ARGUMENT);
    ASSERT_EQ_STATUS(GFN(msm_pippenger_var)(&r, bases, scalars, NULL, N, ZKP_MSM_MAX_C + 1, 1, mem, len),
                     ZKPIPE_ERR_INVALID_ARGUMENT);
    ASSERT_EQ_STATUS(GFN(msm_mt_var)(&r, NULL, scalars, N, 1, mem, len), ZKPIPE_ERR_INVALID_ARGUMENT);
    free(mem);
    /* Small n needs no scratch at all. */
    ASSERT_EQ_U64(GFN(msm_scratch_bytes)(ZKP_MSM_SMALL_N - 1, 4), 0);
    ASSERT_OK(GFN(msm_var)(&r, bases, scalars, ZKP_MSM_SMALL_N - 1, NULL, 0));
    ASSERT_OK(GFN(msm_split_var)(&r, NULL, bases, scalars, ZKP_MSM_SMALL_N - 1, 2, NULL, 0));
    /* n = 0 is the point at infinity. */
    ASSERT_OK(GFN(msm_var)(&r, NULL, NULL, 0, NULL, 0));
    ASSERT(GFN(is_infinity)(&r));
}

#undef ASSERT_PT_EQ
#undef TG
#undef GFN
#undef SK
#undef AFF
#undef JAC
#undef SBITS
#undef NL
#undef G
#undef GSK
#undef G_N
#undef G_MAXC
#undef G_EXH
