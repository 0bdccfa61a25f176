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
 * and, for a group with the GLV endomorphism (curve/glv.h), also
 *
 *   #define G_GLV zkp_glv_bn254_g1   its decomposition constants
 *   #define G_GLV_K BN254_G1_GLV     prefix of its BETA and LAMBDA
 *   #define GFQ bn254_fq             the field of beta (G1's coordinate field,
 *                                    the base field under G2's Fq2)
 *   #define GFR bn254_fr             the scalar field
 *   #define G_GLV_MAX_HI 0x...       bound on |k1|, |k2| >> 64 (glv.h)
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

/* The lane reduction (msm_body.h) where every bucket holds the same point:
 * scalar j + 1 (j < 2^(c-1)) puts it alone into bucket j of window 0, so a
 * lane's running sum meets the next bucket's x (a doubling) and its total
 * meets its running sum (another). With alternating signs the running sum
 * cancels to infinity every other bucket and starts again. */
static void TG(reduction_lanes_equal_points)(void) {
    enum { C = 10, N = 1 << (C - 1) };
    AFF p, *bases = malloc(N * sizeof *bases);
    uint64_t *scalars = calloc((size_t)N * NL, sizeof *scalars);
    ASSERT(bases && scalars);
    TG(rand_bases)(&p, 1);
    for (int alternate = 0; alternate < 2; alternate++) {
        int64_t total = 0;
        for (size_t i = 0; i < N; i++) {
            int neg = alternate && (i & 1);
            bases[i] = p;
            if (neg) GFN(affine_neg)(&bases[i], &p);
            scalars[NL * i] = i + 1;
            total += neg ? -(int64_t)(i + 1) : (int64_t)(i + 1);
        }
        AFF q = p;
        if (total < 0) GFN(affine_neg)(&q, &p);
        uint64_t k[NL] = {(uint64_t)(total < 0 ? -total : total), 0, 0, 0};
        JAC pj, expect;
        GFN(from_affine)(&pj, &q);
        GFN(mul_var)(&expect, &pj, k, 64);
        TG(check_c)(alternate ? "alternating points in every bucket" : "one point in every bucket", bases,
                    scalars, N, C, 1, &expect);
    }
    free(bases);
    free(scalars);
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

#ifdef G_GLV
#define FQ(op) ZKP_CAT(ZKP_CAT(GFQ, _), op)
#define FR(op) ZKP_CAT(ZKP_CAT(GFR, _), op)
#define FQT ZKP_CAT(GFQ, _t)
#define FRT ZKP_CAT(GFR, _t)
#define GLVK(k) ZKP_CAT(ZKP_CAT(G_GLV_K, _), k)

/* k mod r for k < 2r, in Montgomery form. */
static void TG(fr_of_)(FRT *out, const uint64_t *k) {
    static const uint64_t r[NL] = SK(MODULUS);
    FRT t;
    int ge = 1;
    for (int i = NL - 1; i >= 0; i--) {
        if (k[i] != r[i]) {
            ge = k[i] > r[i];
            break;
        }
    }
    uint64_t borrow = 0;
    for (int i = 0; i < NL; i++) {
        unsigned __int128 d = (unsigned __int128)k[i] - (ge ? r[i] : 0) - borrow;
        t.l[i] = (uint64_t)d;
        borrow = (uint64_t)(d >> 64) & 1;
    }
    FR(to_mont)(out, &t);
}

/* A 128-bit two's complement half-scalar in Fr. */
static void TG(fr_of_s128_)(FRT *out, const uint64_t *h) {
    uint64_t m[NL] = {h[0], h[1], 0, 0};
    int neg = (int)(h[1] >> 63);
    if (neg) {
        m[0] = ~h[0] + 1;
        m[1] = ~h[1] + (m[0] == 0);
    }
    FRT t;
    memcpy(t.l, m, sizeof m);
    FR(to_mont)(out, &t);
    if (neg) FR(neg)(out, out);
}

/* |h| >> 64 of a 128-bit two's complement value. */
static uint64_t TG(abs_hi_)(const uint64_t *h) {
    if (!(h[1] >> 63)) return h[1];
    return ~h[1] + (h[0] == 0);
}

/* beta^3 = 1 != beta, lambda^2 + lambda + 1 = 0 mod r, and phi(P) = [lambda] P
 * (not [lambda^2] P) on random points: beta and lambda belong together. */
static void TG(glv_constants)(void) {
    static const FQT beta = GLVK(BETA);
    static const uint64_t lambda[NL] = GLVK(LAMBDA);
    FQT b3;
    FQ(sqr)(&b3, &beta);
    FQ(mul)(&b3, &b3, &beta);
    ASSERT(FQ(is_one)(&b3));
    ASSERT(!FQ(is_one)(&beta));
    FRT l, t, one;
    TG(fr_of_)(&l, lambda);
    FR(sqr)(&t, &l);
    FR(add)(&t, &t, &l);
    FR(set_one)(&one);
    FR(add)(&t, &t, &one);
    ASSERT(FR(is_zero)(&t));
    ASSERT(!FR(is_one)(&l));
    /* The scalar lambda^2 mod r, canonical. */
    FRT l2;
    uint64_t lambda2[NL];
    FR(sqr)(&l2, &l);
    FR(from_mont)(&l2, &l2);
    memcpy(lambda2, l2.l, sizeof lambda2);
    enum { NP = 16 };
    AFF pts[NP];
    TG(rand_bases)(pts, NP);
    for (size_t i = 0; i < NP; i++) {
        AFF ph;
        JAC p, phj, lp;
        GFN(affine_glv_phi)(&ph, &pts[i]);
        ASSERT(GFN(affine_is_on_curve)(&ph));
        GFN(from_affine)(&phj, &ph);
        GFN(from_affine)(&p, &pts[i]);
        GFN(mul_var)(&lp, &p, lambda, SBITS);
        ASSERT_PT_EQ("phi(P) == [lambda] P", &phj, &lp);
        GFN(mul_var)(&lp, &p, lambda2, SBITS);
        ASSERT(!GFN(eq)(&phj, &lp));
    }
    AFF inf, ph;
    GFN(affine_set_infinity)(&inf);
    GFN(affine_glv_phi)(&ph, &inf);
    ASSERT(GFN(affine_is_infinity)(&ph));
}

/* k1 + lambda k2 = k mod r and |k1|, |k2| within the bound of glv.h, for
 * edge scalars, random ones and ones in [r, 2^SBITS); exact halves for
 * k = a + lambda b with short a, b of either sign. */
static void TG(glv_decompose)(void) {
    static const uint64_t r[NL] = SK(MODULUS), lambda[NL] = GLVK(LAMBDA);
    FRT l;
    TG(fr_of_)(&l, lambda);
    enum { NE = 16, NR = 3000 };
    uint64_t edge[NE][NL];
    memset(edge, 0, sizeof edge);
    size_t ne = 0;
    ne++;                                             /* 0 */
    edge[ne++][0] = 1;                                /* 1 */
    edge[ne++][0] = 2;
    memcpy(edge[ne], r, sizeof r), edge[ne++][0] -= 1; /* r - 1 */
    memcpy(edge[ne], r, sizeof r), edge[ne++][0] -= 2;
    memcpy(edge[ne++], lambda, sizeof lambda);        /* lambda: (0, 1) */
    {
        /* r - lambda: (0, -1); lambda + 1; (r - 1) / 2 */
        FRT t, one;
        FR(neg)(&t, &l);
        FR(from_mont)(&t, &t);
        memcpy(edge[ne++], t.l, sizeof t.l);
        FR(set_one)(&one);
        FR(add)(&t, &l, &one);
        FR(from_mont)(&t, &t);
        memcpy(edge[ne++], t.l, sizeof t.l);
        memcpy(edge[ne], r, sizeof r);
        for (int i = 0; i < NL; i++) edge[ne][i] = (edge[ne][i] >> 1) | (i + 1 < NL ? edge[ne][i + 1] << 63 : 0);
        ne++;
    }
    memset(edge[ne], 0xff, NL * 8), edge[ne][NL - 1] >>= 64 * NL - SBITS, ne++; /* 2^SBITS - 1 >= r */
    edge[ne][(SBITS - 1) / 64] = (uint64_t)1 << ((SBITS - 1) % 64), ne++;       /* 2^(SBITS - 1) */
    memcpy(edge[ne], r, sizeof r), edge[ne++][0] += 5;                          /* r + 5 < 2^SBITS */
    edge[ne++][1] = (uint64_t)1 << 63;                                          /* 2^127 */
    edge[ne++][2] = 1;                                                          /* 2^128 */
    edge[ne][0] = edge[ne][1] = ~(uint64_t)0, ne++;                             /* 2^128 - 1 */
    ASSERT(ne <= NE);
    static const uint64_t zero2[2] = {0, 0}, one2[2] = {1, 0}, mone2[2] = {~(uint64_t)0, ~(uint64_t)0};
    for (size_t e = 0; e < ne + NR; e++) {
        uint64_t k[NL], h[4];
        if (e < ne) {
            memcpy(k, edge[e], sizeof k);
        } else if (e % 10 == 0) {
            /* In [r, 2^SBITS): the contract allows such scalars. */
            for (;;) {
                for (int i = 0; i < NL; i++) k[i] = test_rng_u64();
                k[NL - 1] &= (~(uint64_t)0) >> (64 * NL - SBITS);
                int ge = 1;
                for (int i = NL - 1; i >= 0; i--)
                    if (k[i] != r[i]) {
                        ge = k[i] > r[i];
                        break;
                    }
                if (ge) break;
            }
        } else {
            TG(rand_scalar)(k);
        }
        zkp_glv_decompose(h, k, &G_GLV);
        FRT want, k1, k2;
        TG(fr_of_)(&want, k);
        TG(fr_of_s128_)(&k1, h);
        TG(fr_of_s128_)(&k2, h + 2);
        FR(mul)(&k2, &k2, &l);
        FR(add)(&k1, &k1, &k2);
        if (!FR(eq)(&k1, &want)) test_fail(__FILE__, __LINE__, "k1 + lambda k2 != k (case %zu)", e);
        ASSERT(TG(abs_hi_)(h) <= G_GLV_MAX_HI);
        ASSERT(TG(abs_hi_)(h + 2) <= G_GLV_MAX_HI);
        if (e == 0) ASSERT(!memcmp(h, zero2, 16) && !memcmp(h + 2, zero2, 16));
        if (e == 1) ASSERT(!memcmp(h, one2, 16) && !memcmp(h + 2, zero2, 16));
        if (e == 3) ASSERT(!memcmp(h, mone2, 16) && !memcmp(h + 2, zero2, 16));
        if (e == 5) ASSERT(!memcmp(h, zero2, 16) && !memcmp(h + 2, one2, 16));
        if (e == 6) ASSERT(!memcmp(h, zero2, 16) && !memcmp(h + 2, mone2, 16));
    }
    /* k = a + lambda b with |a|, |b| < 2^100 lies deep inside the rounding
     * cell, so the decomposition returns a and b themselves. */
    for (int it = 0; it < 500; it++) {
        uint64_t ab[2][2], h[4], k[NL];
        for (int j = 0; j < 2; j++) {
            uint64_t lo = test_rng_u64(), hi = test_rng_u64() & ((1u << 30) - 1);
            int mode = (int)((test_rng_u64() >> 7) % 4); /* 0: zero, 1: positive, else negative */
            if (it < 8) mode = (it >> j) & 1 ? 2 : 0;
            if (mode == 0) lo = hi = 0;
            if (mode >= 2) {
                lo = ~lo + 1;
                hi = ~hi + (lo == 0);
            }
            ab[j][0] = lo;
            ab[j][1] = hi;
        }
        FRT a, b;
        TG(fr_of_s128_)(&a, ab[0]);
        TG(fr_of_s128_)(&b, ab[1]);
        FR(mul)(&b, &b, &l);
        FR(add)(&a, &a, &b);
        FR(from_mont)(&a, &a);
        memcpy(k, a.l, sizeof k);
        zkp_glv_decompose(h, k, &G_GLV);
        if (memcmp(h, ab[0], 16) || memcmp(h + 2, ab[1], 16))
            test_fail(__FILE__, __LINE__, "short a + lambda b not recovered (it %d)", it);
    }
}

/* GLV Pippenger with a forced c. */
static void TG(check_glv_c)(const char *what, const AFF *bases, const uint64_t *scalars, const uint32_t *idx,
                            size_t n, unsigned c, unsigned nthreads, const JAC *expect) {
    size_t len = GFN(msm_pippenger_glv_scratch_bytes)(n, c, nthreads);
    unsigned char *base = malloc(len + 1);
    ASSERT(base != NULL);
    JAC r;
    ASSERT_EQ_STATUS(GFN(msm_pippenger_glv_var)(&r, bases, scalars, idx, n, c, nthreads, base + 1, len - 1),
                     ZKPIPE_ERR_INVALID_ARGUMENT);
    ASSERT_OK(GFN(msm_pippenger_glv_var)(&r, bases, scalars, idx, n, c, nthreads, base + 1, len));
    if (!GFN(eq)(&r, expect))
        test_fail(__FILE__, __LINE__, "%s: n = %zu, c = %u, nthreads = %u", what, n, c, nthreads);
    free(base);
}

/* Scalars whose halves are zero, one-signed or extreme: a + lambda b for
 * short a, b of each sign (b = 0: k2 = 0; a = 0: k1 = 0), r - small
 * (k1 < 0), the edge values, and uniform ones. */
static void TG(glv_scalar_)(uint64_t *k, size_t i) {
    static const uint64_t r[NL] = SK(MODULUS), lambda[NL] = GLVK(LAMBDA);
    memset(k, 0, NL * sizeof *k);
    switch (i % 8) {
    case 0: TG(rand_scalar)(k); break;
    case 1: k[0] = test_rng_u64() % 5; break;                      /* 0 .. 4: (k, 0) */
    case 2: memcpy(k, r, sizeof r), k[0] -= 1 + test_rng_u64() % 4; break; /* (-small, 0) */
    case 3: memcpy(k, lambda, sizeof lambda); break;               /* (0, 1) */
    case 4: {                                                      /* (0, +-b) and (+-a, +-b) */
        FRT l, a, b;
        uint64_t s[NL] = {test_rng_u64(), test_rng_u64() >> 28, 0, 0};
        TG(fr_of_)(&l, lambda);
        TG(fr_of_)(&b, s);
        FR(mul)(&b, &b, &l);
        if (test_rng_u64() & 1) FR(neg)(&b, &b);
        s[0] = test_rng_u64();
        s[1] = test_rng_u64() >> 29;
        TG(fr_of_)(&a, s);
        if (test_rng_u64() & 1) FR(neg)(&a, &a);
        if (test_rng_u64() & 1) FR(set_zero)(&a);
        FR(add)(&a, &a, &b);
        FR(from_mont)(&a, &a);
        memcpy(k, a.l, sizeof a.l);
        break;
    }
    case 5: memset(k, 0xff, NL * 8), k[NL - 1] >>= 64 * NL - SBITS; break; /* >= r */
    default: TG(rand_scalar)(k); break;
    }
}

static void TG(glv_msm)(void) {
    /* G_N is the largest n the naive sum checks; 16 G_N (16000 on G1, 4112
     * on G2, whose points cost three times as much) is checked against the
     * plain Pippenger. */
    static const size_t sizes[] = {1, 2, 33, G_N, 16 * G_N};
    for (size_t s = 0; s < ZKP_ARRAY_LEN(sizes); s++) {
        size_t n = sizes[s];
        AFF *bases = malloc(n * sizeof *bases);
        uint64_t *scalars = malloc(n * NL * sizeof *scalars);
        uint32_t *idx = malloc(n * sizeof *idx);
        ASSERT(bases && scalars && idx);
        TG(rand_bases)(bases, n);
        for (size_t i = 0; i < n; i++) {
            TG(glv_scalar_)(scalars + NL * i, i + s);
            if (i % 7 == 3) GFN(affine_set_infinity)(&bases[i]);
            idx[i] = (uint32_t)(n - 1 - i);
        }
        JAC expect;
        if (n <= G_N) {
            TG(naive)(&expect, bases, scalars, n);
        } else {
            size_t len = GFN(msm_pippenger_scratch_bytes)(n, 13, 1);
            void *mem = malloc(len);
            ASSERT(mem != NULL);
            ASSERT_OK(GFN(msm_pippenger_var)(&expect, bases, scalars, NULL, n, 13, 1, mem, len));
            free(mem);
        }
        if (n <= 33) {
            for (unsigned c = 1; c <= G_MAXC; c++) TG(check_glv_c)("glv, every c", bases, scalars, NULL, n, c, 1, &expect);
        } else if (n <= G_N) {
            for (unsigned c = 1; c <= 12; c += 1 + (c > 4)) TG(check_glv_c)("glv", bases, scalars, NULL, n, c, 1, &expect);
        }
        /* Reversed through idx: the same sum. */
        TG(check_glv_c)("glv through idx", bases, scalars, idx, n, 7, 2, &expect);
        for (unsigned t = 1; t <= 4; t++) {
            unsigned c = zkp_msm_choose_glv_c(n, t, ZKP_GLV_BITS);
            TG(check_glv_c)("glv, threads", bases, scalars, NULL, n, c, t, &expect);
            if (n >= ZKP_MSM_SMALL_N) {
                TG(check_mt)("msm_mt, glv scalars", bases, scalars, n, t, &expect);
                size_t len;
                void *base, *sc = TG(scratch)(n, t, &len, &base);
                JAC r;
                ASSERT_OK(GFN(msm_split_var)(&r, NULL, bases, scalars, n, t, sc, len));
                ASSERT_PT_EQ("msm_split, glv scalars", &r, &expect);
                free(base);
            }
        }
        free(bases);
        free(scalars);
        free(idx);
    }
}

/* P, phi(P), -phi(P), phi^2(P), -P and infinity as bases, with scalars
 * 1, lambda, -1, -lambda: the two halves of different points land in one
 * bucket as equal points (the doubling branch) or as opposite ones. */
static void TG(glv_duplicates)(void) {
    static const uint64_t r[NL] = SK(MODULUS), lambda[NL] = GLVK(LAMBDA);
    enum { N = 96 };
    AFF p, forms[6], bases[N];
    uint64_t vals[4][NL], scalars[N * NL];
    TG(rand_bases)(&p, 1);
    forms[0] = p;
    GFN(affine_glv_phi)(&forms[1], &p);
    GFN(affine_neg)(&forms[2], &forms[1]);
    GFN(affine_glv_phi)(&forms[3], &forms[1]);
    GFN(affine_neg)(&forms[4], &p);
    GFN(affine_set_infinity)(&forms[5]);
    memset(vals, 0, sizeof vals);
    vals[0][0] = 1;
    memcpy(vals[1], lambda, sizeof lambda);
    memcpy(vals[2], r, sizeof r), vals[2][0] -= 1;
    {
        FRT l;
        TG(fr_of_)(&l, lambda);
        FR(neg)(&l, &l);
        FR(from_mont)(&l, &l);
        memcpy(vals[3], l.l, sizeof l.l);
    }
    for (int round = 0; round < 4; round++) {
        for (size_t i = 0; i < N; i++) {
            uint64_t x = test_rng_u64();
            bases[i] = forms[x % 6];
            memcpy(scalars + NL * i, vals[(x >> 8) % 4], sizeof vals[0]);
        }
        JAC expect;
        TG(naive)(&expect, bases, scalars, N);
        for (unsigned c = 1; c <= 12; c++) TG(check_glv_c)("glv duplicates", bases, scalars, NULL, N, c, 1, &expect);
        TG(check_glv_c)("glv duplicates, 3 threads", bases, scalars, NULL, N, 4, 3, &expect);
    }
}

/* The entry points' scratch covers the GLV form at its chosen width for as
 * many points as it may take (the split path may run it on a tail of any
 * size up to ZKP_MSM_GLV_MAX_N), the form is never chosen past that, and
 * the arguments are refused as for the plain form. */
static void TG(glv_scratch)(void) {
    static const size_t ns[] = {32, 33, 100, 1000, 4096, 65536, ZKP_MSM_GLV_MAX_N, ZKP_MSM_GLV_MAX_N + 1,
                                (size_t)1 << 20, (size_t)1 << 24};
    for (size_t i = 0; i < ZKP_ARRAY_LEN(ns); i++)
        for (unsigned t = 1; t <= 8; t++) {
            size_t m = ns[i] < ZKP_MSM_GLV_MAX_N ? ns[i] : ZKP_MSM_GLV_MAX_N;
            size_t g = GFN(msm_pippenger_glv_scratch_bytes)(m, zkp_msm_choose_glv_c(m, t, ZKP_GLV_BITS), t);
            ASSERT(g <= GFN(msm_scratch_bytes)(ns[i], t));
            ASSERT(g >= 32 * m);
            zkp_msm_plan plan = zkp_msm_choose(ns[i], t, SBITS, ZKP_GLV_BITS);
            if (ns[i] > ZKP_MSM_GLV_MAX_N) ASSERT(!plan.glv);
            ASSERT(plan.c >= 1 && plan.c <= (plan.glv ? ZKP_MSM_GLV_MAX_C : ZKP_MSM_MAX_C));
        }
    AFF b[4];
    uint64_t k[4 * NL];
    TG(rand_bases)(b, 4);
    for (int i = 0; i < 4; i++) TG(rand_scalar)(k + NL * i);
    size_t len = GFN(msm_pippenger_glv_scratch_bytes)(4, 8, 1);
    void *mem = malloc(len);
    ASSERT(mem != NULL);
    JAC r;
    ASSERT_EQ_STATUS(GFN(msm_pippenger_glv_var)(&r, b, k, NULL, 4, 0, 1, mem, len), ZKPIPE_ERR_INVALID_ARGUMENT);
    ASSERT_EQ_STATUS(GFN(msm_pippenger_glv_var)(&r, b, k, NULL, 4, ZKP_MSM_MAX_C + 1, 1, mem, len),
                     ZKPIPE_ERR_INVALID_ARGUMENT);
    ASSERT_EQ_STATUS(GFN(msm_pippenger_glv_var)(&r, b, k, NULL, 4, 8, 0, mem, len), ZKPIPE_ERR_INVALID_ARGUMENT);
    ASSERT_EQ_STATUS(GFN(msm_pippenger_glv_var)(&r, NULL, k, NULL, 4, 8, 1, mem, len), ZKPIPE_ERR_INVALID_ARGUMENT);
    ASSERT_EQ_STATUS(GFN(msm_pippenger_glv_var)(&r, b, k, NULL, 4, 8, 1, NULL, len), ZKPIPE_ERR_INVALID_ARGUMENT);
    ASSERT_OK(GFN(msm_pippenger_glv_var)(&r, b, k, NULL, 0, 8, 1, mem, len));
    ASSERT(GFN(is_infinity)(&r));
    free(mem);
}

#undef FQ
#undef FR
#undef FQT
#undef FRT
#undef GLVK
#endif

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
#undef G_GLV
#undef G_GLV_K
#undef GFQ
#undef GFR
#undef G_GLV_MAX_HI
