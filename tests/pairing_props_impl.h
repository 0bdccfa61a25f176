/* Pairing tests, instantiated per curve by test_pairing.c with
 *   #define PC bn254, FB bn254_fq, F2 bn254_fq2, F12 bn254_fq12, FR bn254_fr,
 *   #define PPARAM BN254, G1_B 3
 * after pairing_ec_impl.h has been instantiated as test_<PC>_g1 / _g2 and
 * with <PC>_kats(&n) (known answers from tests/vectors/<curve>.json) in scope. */
#define G1A ZKP_CAT(PC, _g1_affine_t)
#define G2A ZKP_CAT(PC, _g2_affine_t)
#define T12 ZKP_CAT(F12, _t)
#define T2 ZKP_CAT(F2, _t)
#define TB ZKP_CAT(FB, _t)
#define TR ZKP_CAT(FR, _t)
#define PFN(op) ZKP_CAT(ZKP_CAT(PC, _), op)
#define FN12(op) ZKP_CAT(ZKP_CAT(F12, _), op)
#define FN2(op) ZKP_CAT(ZKP_CAT(F2, _), op)
#define FNB(op) ZKP_CAT(ZKP_CAT(FB, _), op)
#define FNR(op) ZKP_CAT(ZKP_CAT(FR, _), op)
#define G1FN(op) ZKP_CAT(ZKP_CAT(ZKP_CAT(test_, PC), _g1_), op)
#define G2FN(op) ZKP_CAT(ZKP_CAT(ZKP_CAT(test_, PC), _g2_), op)
#define TT(op) ZKP_CAT(ZKP_CAT(test_pairing_, PC), ZKP_CAT(_, op))
#define PK(k) ZKP_CAT(ZKP_CAT(PPARAM, _), k)
#define RLIMBS (sizeof(TR) / 8)

/* Big-endian "0x..." hex into little-endian limbs; n limbs, 0 on overflow. */
static int TT(hex_limbs)(uint64_t *out, size_t n, const char *hex) {
    memset(out, 0, n * 8);
    if (hex[0] == '0' && hex[1] == 'x') hex += 2;
    size_t len = strlen(hex);
    for (size_t i = 0; i < len; i++) {
        char c = hex[len - 1 - i];
        uint64_t v = (uint64_t)(c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : 99);
        if (v > 15 || i / 16 >= n) return 0;
        out[i / 16] |= v << (4 * (i % 16));
    }
    return 1;
}
static void TT(hex_fp)(TB *r, const char *hex) {
    TB c;
    ASSERT(TT(hex_limbs)(c.l, sizeof c.l / 8, hex) && FNB(is_reduced)(&c));
    FNB(to_mont)(r, &c);
}
static void TT(kat_points)(G1A *p, G2A *q, const pairing_kat_t *k) {
    TT(hex_fp)(&p->x, k->p[0]);
    TT(hex_fp)(&p->y, k->p[1]);
    TT(hex_fp)(&q->x.c0, k->q[0]);
    TT(hex_fp)(&q->x.c1, k->q[1]);
    TT(hex_fp)(&q->y.c0, k->q[2]);
    TT(hex_fp)(&q->y.c1, k->q[3]);
}
static void TT(kat_gt)(T12 *r, const pairing_kat_t *k) {
    TB *c = &r->c0.c0.c0;
    for (int i = 0; i < 12; i++) TT(hex_fp)(&c[i], k->out[i]);
}

static void TT(print12)(const char *what, const T12 *a) {
    const TB *c = &a->c0.c0.c0;
    fprintf(stderr, "%s:", what);
    for (int i = 0; i < 12; i++) {
        uint8_t be[sizeof(TB)];
        char hex[2 * sizeof(TB) + 1];
        FNB(to_bytes_be)(be, &c[i]);
        test_hex(hex, be, sizeof be);
        fprintf(stderr, " %s", hex);
    }
    fprintf(stderr, "\n");
}
#define ASSERT_GT_EQ(a, b)                                                  \
    do {                                                                    \
        if (!FN12(eq)((a), (b))) {                                          \
            TT(print12)(#a, (a));                                           \
            TT(print12)(#b, (b));                                           \
            test_fail(__FILE__, __LINE__, "ASSERT_GT_EQ(%s, %s)", #a, #b);  \
        }                                                                   \
    } while (0)

/* The generators, taken from the first known answer (a = b = 1), checked
 * on the curves and of order r. */
static void TT(generators)(G1A *g1, G2A *g2) {
    TB b1;
    T2 b2, three_inv;
    static const T2 b3 = PK(TWIST_B3);
    size_t n;
    TT(kat_points)(g1, g2, &ZKP_CAT(PC, _kats)(&n)[0]);
    FNB(set_u64)(&b1, G1_B);
    FNB(set_u64)(&three_inv.c0, 3);
    FNB(set_zero)(&three_inv.c1);
    FN2(inv)(&three_inv, &three_inv);
    FN2(mul)(&b2, &b3, &three_inv);
    ASSERT(G1FN(on_curve)(g1, &b1));
    ASSERT(G2FN(on_curve)(g2, &b2));
}

static void TT(rand_scalar)(TR *k) {
    /* Uniform below r: random limbs cut to r's bit length, rejected until
     * reduced. Kept canonical (not Montgomery): it is used as an exponent. */
    const TR *r = &FNR(modulus);
    const int top_bits = 64 - __builtin_clzll(r->l[RLIMBS - 1]);
    do {
        for (size_t i = 0; i < RLIMBS; i++) k->l[i] = test_rng_u64();
        if (top_bits < 64) k->l[RLIMBS - 1] &= ((uint64_t)1 << top_bits) - 1;
    } while (!FNR(is_reduced)(k));
}

/* Known answers from @noble/curves (tests/vectors), which record the exact
 * reduced pairing. Checks the points too: p = a·G1, q = b·G2. */
static void TT(known_answers)(void) {
    G1A g1, p, t1;
    G2A g2, q, t2;
    T12 e, want;
    TT(generators)(&g1, &g2);
    /* [r]G = infinity on both groups. */
    G1FN(mul)(&t1, &g1, FNR(modulus).l, RLIMBS);
    ASSERT(G1FN(is_inf)(&t1));
    G2FN(mul)(&t2, &g2, FNR(modulus).l, RLIMBS);
    ASSERT(G2FN(is_inf)(&t2));
    size_t n;
    const pairing_kat_t *kats = ZKP_CAT(PC, _kats)(&n);
    for (size_t i = 0; i < n; i++) {
        const pairing_kat_t *k = &kats[i];
        uint64_t a[RLIMBS], b[RLIMBS];
        ASSERT(TT(hex_limbs)(a, RLIMBS, k->a) && TT(hex_limbs)(b, RLIMBS, k->b));
        TT(kat_points)(&p, &q, k);
        G1FN(mul)(&t1, &g1, a, RLIMBS);
        ASSERT(G1FN(eq)(&t1, &p));
        G2FN(mul)(&t2, &g2, b, RLIMBS);
        ASSERT(G2FN(eq)(&t2, &q));
        PFN(pairing)(&e, &p, &q);
        TT(kat_gt)(&want, k);
        ASSERT_GT_EQ(&e, &want);
        ASSERT(PFN(gt_eq)(&e, &want));
    }
}

/* e(aP, bQ) = e(P, Q)^(ab), e(aP, Q) = e(P, aQ), e(P, Q) != 1, e^r = 1. */
static void TT(bilinearity)(void) {
    G1A g1, p;
    G2A g2, q;
    T12 base, e, want;
    TT(generators)(&g1, &g2);
    PFN(pairing)(&base, &g1, &g2);
    ASSERT(!PFN(gt_is_one)(&base));
    FN12(pow)(&e, &base, FNR(modulus).l, RLIMBS);
    ASSERT(FN12(is_one)(&e));
    unsigned iters = test_iters(3);
    for (unsigned it = 0; it < iters; it++) {
        TR a, b, ab;
        TT(rand_scalar)(&a);
        TT(rand_scalar)(&b);
        /* ab mod r through Montgomery products: mont(a)·b = a·b·R·R^-1. */
        FNR(to_mont)(&ab, &a);
        FNR(mul)(&ab, &ab, &b);
        G1FN(mul)(&p, &g1, a.l, RLIMBS);
        G2FN(mul)(&q, &g2, b.l, RLIMBS);
        PFN(pairing)(&e, &p, &q);
        FN12(pow)(&want, &base, ab.l, RLIMBS);
        ASSERT_GT_EQ(&e, &want);
        /* Move the scalar a across: e(aP, Q) = e(P, aQ). */
        G2FN(mul)(&q, &g2, a.l, RLIMBS);
        PFN(pairing)(&e, &g1, &q);
        PFN(pairing)(&want, &p, &g2);
        ASSERT_GT_EQ(&e, &want);
        ASSERT(!FN12(is_one)(&e));
        FN12(pow)(&want, &e, FNR(modulus).l, RLIMBS);
        ASSERT(FN12(is_one)(&want));
    }
}

/* The final exponentiation is exactly f^((p^12 - 1)/r): compared with a
 * plain square-and-multiply by the generated exponent, for a random f and
 * for a real Miller loop value. */
static void TT(final_exp_exact)(void) {
    static const uint64_t exponent[PK(FINAL_EXP_LIMBS)] = PK(FINAL_EXP);
    T12 f, r, want;
    TB *c = &f.c0.c0.c0;
    for (int i = 0; i < 12; i++) {
        FNB(set_u64)(&c[i], test_rng_u64());
        FNB(sqr)(&c[i], &c[i]);
    }
    PFN(final_exp)(&r, &f);
    FN12(pow)(&want, &f, exponent, PK(FINAL_EXP_LIMBS));
    ASSERT_GT_EQ(&r, &want);
    /* In place. */
    PFN(final_exp)(&f, &f);
    ASSERT_GT_EQ(&f, &want);

    G1A g1;
    G2A g2;
    TT(generators)(&g1, &g2);
    PFN(miller_loop)(&f, &g1, &g2, 1);
    FN12(pow)(&want, &f, exponent, PK(FINAL_EXP_LIMBS));
    PFN(pairing)(&r, &g1, &g2);
    ASSERT_GT_EQ(&r, &want);
}

/* The multi-pairing against products of single pairings, across the group
 * boundary of the shared accumulator; infinity inputs; e(-P, Q) e(P, Q) = 1. */
static void TT(multi)(void) {
    enum { N = 19 };
    G1A g1, p[N], zero1;
    G2A g2, q[N], zero2;
    T12 f, e, want;
    TT(generators)(&g1, &g2);
    memset(&zero1, 0, sizeof zero1);
    memset(&zero2, 0, sizeof zero2);
    for (int i = 0; i < N; i++) {
        /* Small multiples keep this quick: P_i = (i+2)G1, Q_i = (2i+3)G2. */
        uint64_t a = (uint64_t)i + 2, b = 2 * (uint64_t)i + 3;
        G1FN(mul)(&p[i], &g1, &a, 1);
        G2FN(mul)(&q[i], &g2, &b, 1);
    }
    /* prefix[n] = e(P_0, Q_0) ... e(P_{n-1}, Q_{n-1}) from single pairings. */
    T12 prefix[N + 1];
    FN12(set_one)(&prefix[0]);
    for (size_t i = 0; i < N; i++) {
        PFN(pairing)(&e, &p[i], &q[i]);
        FN12(mul)(&prefix[i + 1], &prefix[i], &e);
    }
    static const size_t counts[] = {0, 1, 2, 3, 16, 17, N};
    for (size_t c = 0; c < ZKP_ARRAY_LEN(counts); c++) {
        size_t n = counts[c];
        want = prefix[n];
        PFN(miller_loop)(&f, p, q, n);
        PFN(final_exp)(&f, &f);
        ASSERT_GT_EQ(&f, &want);
        ASSERT_EQ_INT(FN12(is_one)(&f), n == 0);
        if (n <= 3) ASSERT_EQ_INT(PFN(pairing_product_is_one)(p, q, n), n == 0);
    }

    /* e(-P, Q) e(P, Q) = 1, and e(-P, Q) e(P, Q) e(P2, Q2) = e(P2, Q2). */
    G1A pp[3];
    G2A qq[3];
    G1FN(neg)(&pp[0], &p[4]);
    qq[0] = q[4];
    pp[1] = p[4];
    qq[1] = q[4];
    ASSERT(PFN(pairing_product_is_one)(pp, qq, 2));
    pp[2] = p[5];
    qq[2] = q[5];
    ASSERT(!PFN(pairing_product_is_one)(pp, qq, 3));
    PFN(miller_loop)(&f, pp, qq, 3);
    PFN(final_exp)(&f, &f);
    PFN(pairing)(&want, &p[5], &q[5]);
    ASSERT_GT_EQ(&f, &want);
    /* e(P, -Q) e(P, Q) = 1 as well. */
    G2FN(neg)(&qq[0], &q[4]);
    pp[0] = p[4];
    ASSERT(PFN(pairing_product_is_one)(pp, qq, 2));

    /* A point at infinity on either side gives 1, alone or among others. */
    PFN(pairing)(&e, &zero1, &g2);
    ASSERT(FN12(is_one)(&e));
    PFN(pairing)(&e, &g1, &zero2);
    ASSERT(FN12(is_one)(&e));
    PFN(pairing)(&e, &zero1, &zero2);
    ASSERT(FN12(is_one)(&e));
    pp[0] = zero1;
    qq[0] = q[7];
    pp[1] = p[5];
    qq[1] = q[5];
    pp[2] = p[7];
    qq[2] = zero2;
    PFN(miller_loop)(&f, pp, qq, 3);
    PFN(final_exp)(&f, &f);
    ASSERT_GT_EQ(&f, &want);
    G1FN(neg)(&pp[1], &p[5]);
    ASSERT(!PFN(pairing_product_is_one)(pp, qq, 2));
    pp[2] = p[5];
    qq[2] = q[5];
    ASSERT(PFN(pairing_product_is_one)(pp, qq, 3));
}

#undef ASSERT_GT_EQ
#undef G1A
#undef G2A
#undef T12
#undef T2
#undef TB
#undef TR
#undef PFN
#undef FN12
#undef FN2
#undef FNB
#undef FNR
#undef G1FN
#undef G2FN
#undef TT
#undef PK
#undef RLIMBS
#undef PC
#undef FB
#undef F2
#undef F12
#undef FR
#undef PPARAM
#undef G1_B
