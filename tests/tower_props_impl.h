/* Fp6/Fp12 property tests, instantiated per curve by test_tower.c with
 *   #define F12 bn254_fq12, F6 bn254_fq6, F2 bn254_fq2, FB bn254_fq
 *
 * Every fast formula is compared with a plainer route to the same value:
 * the sparse products with the full product, the Frobenius with a power by
 * p, the cyclotomic squaring and exponentiations with sqr and pow, and the
 * tower relations v^3 = xi and w^2 = v with generic products. */
#define T12 ZKP_CAT(F12, _t)
#define T6 ZKP_CAT(F6, _t)
#define T2 ZKP_CAT(F2, _t)
#define TB ZKP_CAT(FB, _t)
#define FN12(op) ZKP_CAT(ZKP_CAT(F12, _), op)
#define FN6(op) ZKP_CAT(ZKP_CAT(F6, _), op)
#define FN2(op) ZKP_CAT(ZKP_CAT(F2, _), op)
#define FNB(op) ZKP_CAT(ZKP_CAT(FB, _), op)
#define TT(op) ZKP_CAT(ZKP_CAT(test_, F12), ZKP_CAT(_, op))

/* A uniform element of Fp from the seeded test generator: random limbs cut
 * to the bit length of p, rejected until below p. Any value below p is a
 * valid Montgomery representative. */
static void TT(rand_fp)(TB *r) {
    const TB *p = &FNB(modulus);
    const int n = (int)(sizeof p->l / sizeof p->l[0]);
    const int top_bits = 64 - __builtin_clzll(p->l[n - 1]);
    const uint64_t mask = top_bits == 64 ? ~(uint64_t)0 : (((uint64_t)1 << top_bits) - 1);
    do {
        for (int i = 0; i < n; i++) r->l[i] = test_rng_u64();
        r->l[n - 1] &= mask;
    } while (!FNB(is_reduced)(r));
}
static void TT(rand_fp2)(T2 *r) {
    TT(rand_fp)(&r->c0);
    TT(rand_fp)(&r->c1);
}
static void TT(rand_fp6)(T6 *r) {
    TT(rand_fp2)(&r->c0);
    TT(rand_fp2)(&r->c1);
    TT(rand_fp2)(&r->c2);
}
static void TT(rand_fp12)(T12 *r) {
    TT(rand_fp6)(&r->c0);
    TT(rand_fp6)(&r->c1);
}

static void TT(print12)(const char *what, const T12 *a) {
    const TB *c = &a->c0.c0.c0;
    fprintf(stderr, "%s:", what);
    for (int i = 0; i < 12; i++) {
        char buf[200];
        FNB(to_dec)(buf, sizeof buf, &c[i]);
        fprintf(stderr, " %s", buf);
    }
    fprintf(stderr, "\n");
}
#define ASSERT_EQ12(a, b)                                                   \
    do {                                                                    \
        if (!FN12(eq)((a), (b))) {                                          \
            TT(print12)(#a, (a));                                           \
            TT(print12)(#b, (b));                                           \
            test_fail(__FILE__, __LINE__, "ASSERT_EQ12(%s, %s)", #a, #b);  \
        }                                                                   \
    } while (0)

/* Ring laws, inverses and the tower relations in Fp6. */
static void TT(fp6_laws)(void) {
    unsigned iters = test_iters(100);
    T6 one, zero, v, t;
    FN6(set_one)(&one);
    FN6(set_zero)(&zero);
    FN6(set_zero)(&v);
    FN2(set_one)(&v.c1);
    /* v^3 = xi and xi·a agrees with a product by the element xi = c + u. */
    FN6(mul)(&t, &v, &v);
    FN6(mul)(&t, &t, &v);
    T2 xi, x2;
    FNB(set_u64)(&xi.c0, ZKP_CAT(FP_PARAM_OF_TEST, _TOWER_XI_C0));
    FNB(set_one)(&xi.c1);
    ASSERT(FN2(eq)(&t.c0, &xi) && FN2(is_zero)(&t.c1) && FN2(is_zero)(&t.c2));
    for (unsigned it = 0; it < iters; it++) {
        T6 a, b, c, t1, t2, t3;
        T2 s0, s1;
        TT(rand_fp6)(&a);
        TT(rand_fp6)(&b);
        TT(rand_fp6)(&c);
        TT(rand_fp2)(&s0);
        TT(rand_fp2)(&s1);
        FN6(mul)(&t1, &a, &b);
        FN6(mul)(&t2, &b, &a);
        ASSERT(FN6(eq)(&t1, &t2));
        FN6(mul)(&t1, &t1, &c);
        FN6(mul)(&t2, &b, &c);
        FN6(mul)(&t2, &a, &t2);
        ASSERT(FN6(eq)(&t1, &t2));
        FN6(add)(&t1, &b, &c);
        FN6(mul)(&t1, &a, &t1);
        FN6(mul)(&t2, &a, &b);
        FN6(mul)(&t3, &a, &c);
        FN6(add)(&t2, &t2, &t3);
        ASSERT(FN6(eq)(&t1, &t2));
        FN6(sub)(&t1, &t2, &t3);
        FN6(mul)(&t3, &a, &b);
        ASSERT(FN6(eq)(&t1, &t3));
        FN6(neg)(&t1, &a);
        FN6(add)(&t1, &t1, &a);
        ASSERT(FN6(is_zero)(&t1));
        FN6(dbl)(&t1, &a);
        FN6(add)(&t2, &a, &a);
        ASSERT(FN6(eq)(&t1, &t2));
        FN6(sqr)(&t1, &a);
        FN6(mul)(&t2, &a, &a);
        ASSERT(FN6(eq)(&t1, &t2));
        FN6(mul)(&t1, &a, &one);
        ASSERT(FN6(eq)(&t1, &a));
        /* Inverses, constant-time and variable-time. */
        FN6(inv)(&t1, &a);
        FN6(inv_var)(&t2, &a);
        ASSERT(FN6(eq)(&t1, &t2));
        FN6(mul)(&t1, &t1, &a);
        ASSERT(FN6(is_one)(&t1));
        /* Products by v, by xi, by Fp2 scalars and by sparse elements. */
        FN6(mul_by_nonresidue)(&t1, &a);
        FN6(mul)(&t2, &a, &v);
        ASSERT(FN6(eq)(&t1, &t2));
        ZKP_CAT(F6, _mul_xi)(&x2, &s0);
        T2 x3;
        FN2(mul)(&x3, &s0, &xi);
        ASSERT(FN2(eq)(&x2, &x3));
        FN6(mul_fp2)(&t1, &a, &s0);
        t3 = zero;
        t3.c0 = s0;
        FN6(mul)(&t2, &a, &t3);
        ASSERT(FN6(eq)(&t1, &t2));
        FN6(mul_by_01)(&t1, &a, &s0, &s1);
        t3 = zero;
        t3.c0 = s0;
        t3.c1 = s1;
        FN6(mul)(&t2, &a, &t3);
        ASSERT(FN6(eq)(&t1, &t2));
        FN6(mul_by_1)(&t1, &a, &s1);
        t3 = zero;
        t3.c1 = s1;
        FN6(mul)(&t2, &a, &t3);
        ASSERT(FN6(eq)(&t1, &t2));
        /* Outputs may alias inputs. */
        t1 = a;
        FN6(mul)(&t1, &t1, &t1);
        FN6(sqr)(&t2, &a);
        ASSERT(FN6(eq)(&t1, &t2));
        t1 = a;
        FN6(sqr)(&t1, &t1);
        ASSERT(FN6(eq)(&t1, &t2));
        /* cmov */
        t1 = a;
        FN6(cmov)(&t1, &b, 0);
        ASSERT(FN6(eq)(&t1, &a));
        FN6(cmov)(&t1, &b, 1);
        ASSERT(FN6(eq)(&t1, &b));
    }
    FN6(inv)(&t, &zero);
    ASSERT(FN6(is_zero)(&t));
    FN6(inv_var)(&t, &zero);
    ASSERT(FN6(is_zero)(&t));
}

/* The double-precision helpers behind the lazy reduction: a wide product
 * reduced equals the field product (also for factors up to 2p - 1, which
 * the Karatsuba sums produce), and sums and differences modulo pR reduce to
 * the field's, including at the edges of the range [0, pR). */
static void TT(wide)(void) {
    typedef ZKP_CAT(F6, _wfp_t) W1;
    typedef ZKP_CAT(F6, _wfp2_t) W2;
    const TB *p = &FNB(modulus);
    const int n = (int)(sizeof p->l / sizeof p->l[0]);
    TB edge[4];
    FNB(set_zero)(&edge[0]);
    FNB(set_one)(&edge[1]);
    FNB(neg)(&edge[2], &edge[1]); /* p - 1, in Montgomery form */
    edge[3] = *p;
    edge[3].l[0] -= 1; /* the integer p - 1 */
    unsigned iters = test_iters(200);
    for (unsigned it = 0; it < iters; it++) {
        TB a, b, want, got, a2, b2;
        W1 x, y, z;
        if (it < 16) {
            a = edge[it % 4];
            b = edge[it / 4];
        } else {
            TT(rand_fp)(&a);
            TT(rand_fp)(&b);
        }
        FNB(mul)(&want, &a, &b);
        FN6(wfp_mul_)(&x, &a, &b);
        FN6(wfp_redc_)(&got, &x);
        ASSERT(FNB(eq)(&got, &want));
        /* Unreduced factors a + p, b + p (below 2p) give the same result. */
        (void)zkp_limbs_add(a2.l, a.l, p->l, (size_t)n);
        (void)zkp_limbs_add(b2.l, b.l, p->l, (size_t)n);
        FN6(wfp_mul_)(&y, &a2, &b2);
        FN6(wfp_redc_)(&got, &y);
        ASSERT(FNB(eq)(&got, &want));
        /* add/sub modulo pR against the field, with y as a second operand
         * and the largest value pR - 1 as a third. */
        TB rx, ry, rs;
        FN6(wfp_redc_)(&rx, &x);
        FN6(wfp_redc_)(&ry, &y);
        FN6(wfp_add_)(&z, &x, &y);
        ASSERT(FN6(wfp_is_bounded_)(&z));
        FN6(wfp_redc_)(&got, &z);
        FNB(add)(&rs, &rx, &ry);
        ASSERT(FNB(eq)(&got, &rs));
        FN6(wfp_sub_)(&z, &x, &y);
        ASSERT(FN6(wfp_is_bounded_)(&z));
        FN6(wfp_redc_)(&got, &z);
        FNB(sub)(&rs, &rx, &ry);
        ASSERT(FNB(eq)(&got, &rs));
        W1 top;
        for (int j = 0; j < n; j++) top.l[j] = ~(uint64_t)0;
        for (int j = 0; j < n; j++) top.l[n + j] = p->l[j];
        top.l[n] -= 1; /* high half p - 1: top = pR - 1 */
        TB rtop;
        FN6(wfp_redc_)(&rtop, &top);
        FN6(wfp_add_)(&z, &top, &x);
        FN6(wfp_redc_)(&got, &z);
        FNB(add)(&rs, &rtop, &rx);
        ASSERT(FNB(eq)(&got, &rs));
        FN6(wfp_sub_)(&z, &x, &top);
        FN6(wfp_redc_)(&got, &z);
        FNB(sub)(&rs, &rx, &rtop);
        ASSERT(FNB(eq)(&got, &rs));
        FN6(wfp_sub_)(&z, &x, &x);
        FN6(wfp_redc_)(&got, &z);
        ASSERT(FNB(is_zero)(&got));
    }
    /* Fp2 at double precision against the Fp2 template, edges included. */
    for (unsigned it = 0; it < iters; it++) {
        T2 a, b, want, got;
        W2 x;
        if (it < 16) {
            a.c0 = edge[it % 4 < 3 ? it % 4 : 2];
            a.c1 = edge[(it / 4) % 3];
            b.c0 = edge[2];
            b.c1 = edge[(it + 1) % 3];
        } else {
            TT(rand_fp2)(&a);
            TT(rand_fp2)(&b);
        }
        FN2(mul)(&want, &a, &b);
        FN6(wfp2_mul_)(&x, &a, &b);
        FN6(wfp2_redc_)(&got, &x);
        ASSERT(FN2(eq)(&got, &want));
        FN2(sqr)(&want, &a);
        FN6(wfp2_sqr_)(&x, &a);
        FN6(wfp2_redc_)(&got, &x);
        ASSERT(FN2(eq)(&got, &want));
        FN6(mul_xi)(&want, &want);
        FN6(wfp2_mul_xi_)(&x, &x);
        FN6(wfp2_redc_)(&got, &x);
        ASSERT(FN2(eq)(&got, &want));
    }
}

/* Frobenius == a^(p^k) by pow, in Fp6 and Fp12. */
static void TT(frobenius)(void) {
    const TB *p = &FNB(modulus);
    const size_t n = sizeof p->l / sizeof p->l[0];
    unsigned iters = test_iters(4);
    for (unsigned it = 0; it < iters; it++) {
        T6 a6, r6, s6;
        T12 a12, r12, s12;
        TT(rand_fp6)(&a6);
        TT(rand_fp12)(&a12);
        s6 = a6;
        s12 = a12;
        for (unsigned k = 1; k <= 3; k++) {
            FN6(pow)(&s6, &s6, p->l, n);
            FN6(frobenius)(&r6, &a6, k);
            ASSERT(FN6(eq)(&r6, &s6));
            FN12(pow)(&s12, &s12, p->l, n);
            FN12(frobenius)(&r12, &a12, k);
            ASSERT_EQ12(&r12, &s12);
            /* Aliased output. */
            r12 = a12;
            FN12(frobenius)(&r12, &r12, k);
            ASSERT_EQ12(&r12, &s12);
        }
        /* The p^6-power map is conjugation: frob3(frob3(a)) == conj(a). */
        FN12(frobenius)(&r12, &a12, 3);
        FN12(frobenius)(&r12, &r12, 3);
        FN12(conj)(&s12, &a12);
        ASSERT_EQ12(&r12, &s12);
    }
}

/* Ring laws, inverses, w^2 = v and the sparse line products in Fp12. */
static void TT(fp12_laws)(void) {
    unsigned iters = test_iters(50);
    T12 one, zero, w, t;
    FN12(set_one)(&one);
    FN12(set_zero)(&zero);
    ASSERT(FN12(is_one)(&one) && !FN12(is_one)(&zero) && FN12(is_zero)(&zero));
    FN12(set_zero)(&w);
    FN2(set_one)(&w.c1.c0);
    FN12(mul)(&t, &w, &w);
    ASSERT(FN6(is_zero)(&t.c1) && FN2(is_zero)(&t.c0.c0) && FN2(is_one)(&t.c0.c1) &&
           FN2(is_zero)(&t.c0.c2));
    for (unsigned it = 0; it < iters; it++) {
        T12 a, b, c, t1, t2, t3;
        T2 l0, l1, l2;
        TT(rand_fp12)(&a);
        TT(rand_fp12)(&b);
        TT(rand_fp12)(&c);
        TT(rand_fp2)(&l0);
        TT(rand_fp2)(&l1);
        TT(rand_fp2)(&l2);
        FN12(mul)(&t1, &a, &b);
        FN12(mul)(&t2, &b, &a);
        ASSERT_EQ12(&t1, &t2);
        FN12(mul)(&t1, &t1, &c);
        FN12(mul)(&t2, &b, &c);
        FN12(mul)(&t2, &a, &t2);
        ASSERT_EQ12(&t1, &t2);
        FN12(add)(&t1, &b, &c);
        FN12(mul)(&t1, &a, &t1);
        FN12(mul)(&t2, &a, &b);
        FN12(mul)(&t3, &a, &c);
        FN12(add)(&t2, &t2, &t3);
        ASSERT_EQ12(&t1, &t2);
        FN12(sub)(&t1, &t2, &t3);
        FN12(mul)(&t3, &a, &b);
        ASSERT_EQ12(&t1, &t3);
        FN12(neg)(&t1, &a);
        FN12(add)(&t1, &t1, &a);
        ASSERT(FN12(is_zero)(&t1));
        FN12(sqr)(&t1, &a);
        FN12(mul)(&t2, &a, &a);
        ASSERT_EQ12(&t1, &t2);
        t1 = a;
        FN12(sqr)(&t1, &t1);
        ASSERT_EQ12(&t1, &t2);
        FN12(mul)(&t1, &a, &one);
        ASSERT_EQ12(&t1, &a);
        FN12(inv)(&t1, &a);
        FN12(inv_var)(&t2, &a);
        ASSERT_EQ12(&t1, &t2);
        FN12(mul)(&t1, &t1, &a);
        ASSERT(FN12(is_one)(&t1));
        t1 = a;
        FN12(inv)(&t1, &t1);
        ASSERT_EQ12(&t1, &t2);
        /* conj(a) a lies in Fp6 (its w part vanishes). */
        FN12(conj)(&t1, &a);
        FN12(mul)(&t1, &t1, &a);
        ASSERT(FN6(is_zero)(&t1.c1));
        /* Sparse line products against the full product. */
        FN12(mul_by_034)(&t1, &a, &l0, &l1, &l2);
        t3 = zero;
        t3.c0.c0 = l0;
        t3.c1.c0 = l1;
        t3.c1.c1 = l2;
        FN12(mul)(&t2, &a, &t3);
        ASSERT_EQ12(&t1, &t2);
        t1 = a;
        FN12(mul_by_034)(&t1, &t1, &l0, &l1, &l2);
        ASSERT_EQ12(&t1, &t2);
        FN12(mul_by_014)(&t1, &a, &l0, &l1, &l2);
        t3 = zero;
        t3.c0.c0 = l0;
        t3.c0.c1 = l1;
        t3.c1.c1 = l2;
        FN12(mul)(&t2, &a, &t3);
        ASSERT_EQ12(&t1, &t2);
        t1 = a;
        FN12(mul_by_014)(&t1, &t1, &l0, &l1, &l2);
        ASSERT_EQ12(&t1, &t2);
        t1 = a;
        FN12(cmov)(&t1, &b, 0);
        ASSERT_EQ12(&t1, &a);
        FN12(cmov)(&t1, &b, 1);
        ASSERT_EQ12(&t1, &b);
    }
    FN12(inv)(&t, &zero);
    ASSERT(FN12(is_zero)(&t));
}

/* f^((p^6 - 1)(p^2 + 1)) for a random f: a random element of the
 * cyclotomic subgroup. */
static void TT(rand_cyclotomic)(T12 *g) {
    T12 f, t;
    TT(rand_fp12)(&f);
    FN12(inv)(&t, &f);
    FN12(conj)(&f, &f);
    FN12(mul)(&f, &f, &t);
    FN12(frobenius)(&t, &f, 2);
    FN12(mul)(g, &t, &f);
}

/* The cyclotomic squaring and exponentiations against sqr and pow. */
static void TT(cyclotomic)(void) {
    unsigned iters = test_iters(20);
    for (unsigned it = 0; it < iters; it++) {
        T12 g, t1, t2;
        TT(rand_cyclotomic)(&g);
        if (it == 0) {
            /* g^(p^4 - p^2 + 1) = 1: g^(p^4) g = g^(p^2). */
            FN12(frobenius)(&t1, &g, 2);
            FN12(frobenius)(&t2, &t1, 2);
            FN12(mul)(&t2, &t2, &g);
            ASSERT_EQ12(&t1, &t2);
        }
        FN12(cyclotomic_sqr)(&t1, &g);
        FN12(sqr)(&t2, &g);
        ASSERT_EQ12(&t1, &t2);
        t1 = g;
        FN12(cyclotomic_sqr)(&t1, &t1);
        ASSERT_EQ12(&t1, &t2);
        /* conj is the inverse on the cyclotomic subgroup. */
        FN12(conj)(&t1, &g);
        FN12(mul)(&t1, &t1, &g);
        ASSERT(FN12(is_one)(&t1));
        /* A random signed-digit string against pow by its value (kept below
         * 2^63 in absolute value; negative values through the conjugate). */
        int8_t d[40];
        int64_t value = 0;
        size_t nd = 1 + (size_t)(test_rng_u64() % 40);
        for (size_t i = 0; i < nd; i++) {
            uint64_t rnd = test_rng_u64();
            int m = (int)(rnd % 8) * 2 + 1;
            d[i] = (int8_t)(((rnd >> 8) & 3) == 0 && i > 0 ? 0 : ((rnd >> 10) & 1 ? -m : m));
            value = value * 2 + d[i];
        }
        FN12(cyclotomic_pow_digits)(&t1, &g, d, nd);
        uint64_t e = (uint64_t)(value < 0 ? -value : value);
        FN12(pow)(&t2, &g, &e, 1);
        if (value < 0) FN12(conj)(&t2, &t2);
        ASSERT_EQ12(&t1, &t2);
    }
    /* a^x for the curve seed. */
    {
        T12 g, t1, t2;
        TT(rand_cyclotomic)(&g);
        FN12(cyclotomic_exp_x)(&t1, &g);
        static const int8_t digits[] = ZKP_CAT(FP_PARAM_OF_TEST, _TOWER_X_DIGITS);
        uint64_t ax = 0;
        for (size_t i = 0; i < sizeof digits; i++) ax = 2 * ax + (uint64_t)(int64_t)digits[i];
        FN12(pow)(&t2, &g, &ax, 1);
        if (ZKP_CAT(FP_PARAM_OF_TEST, _TOWER_X_NEG)) FN12(conj)(&t2, &t2);
        ASSERT_EQ12(&t1, &t2);
        t1 = g;
        FN12(cyclotomic_exp_x)(&t1, &t1);
        ASSERT_EQ12(&t1, &t2);
    }
}

#undef ASSERT_EQ12
#undef T12
#undef T6
#undef T2
#undef TB
#undef FN12
#undef FN6
#undef FN2
#undef FNB
#undef TT
#undef F12
#undef F6
#undef F2
#undef FB
#undef FP_PARAM_OF_TEST
