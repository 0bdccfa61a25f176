/* Fp2 property tests, instantiated per curve by test_fp2.c with
 *   #define F2 bn254_fq2   and   #define FB bn254_fq */
#define T2 ZKP_CAT(F2, _t)
#define FN2(op) ZKP_CAT(ZKP_CAT(F2, _), op)
#define TFN2(op) ZKP_CAT(ZKP_CAT(test_, F2), ZKP_CAT(_, op))
#define BFN(op) ZKP_CAT(ZKP_CAT(FB, _), op)

static void TFN2(rand)(T2 *r) {
    /* Squaring a product of random small powers keeps this deterministic under the test seed. */
    BFN(set_u64)(&r->c0, test_rng_u64());
    BFN(set_u64)(&r->c1, test_rng_u64());
    T2 t = *r;
    for (int i = 0; i < 3; i++) FN2(mul)(r, r, &t), FN2(add)(r, r, &t);
}

static void TFN2(laws)(void) {
    unsigned iters = test_iters(300);
    T2 one;
    FN2(set_one)(&one);
    unsigned squares = 0;
    for (unsigned it = 0; it < iters; it++) {
        T2 a, b, c, t1, t2, t3;
        TFN2(rand)(&a);
        TFN2(rand)(&b);
        TFN2(rand)(&c);
        FN2(mul)(&t1, &a, &b);
        FN2(mul)(&t1, &t1, &c);
        FN2(mul)(&t2, &b, &c);
        FN2(mul)(&t2, &a, &t2);
        ASSERT(FN2(eq)(&t1, &t2));
        FN2(add)(&t1, &b, &c);
        FN2(mul)(&t1, &a, &t1);
        FN2(mul)(&t2, &a, &b);
        FN2(mul)(&t3, &a, &c);
        FN2(add)(&t2, &t2, &t3);
        ASSERT(FN2(eq)(&t1, &t2));
        FN2(sqr)(&t1, &a);
        FN2(mul)(&t2, &a, &a);
        ASSERT(FN2(eq)(&t1, &t2));
        FN2(inv)(&t1, &a);
        FN2(inv_var)(&t2, &a);
        ASSERT(FN2(eq)(&t1, &t2));
        FN2(mul)(&t1, &t1, &a);
        ASSERT(FN2(eq)(&t1, &one));
        /* Frobenius: conj(a) == a^p */
        FN2(conj)(&t1, &a);
        const ZKP_CAT(FB, _t) *pmod = &ZKP_CAT(FB, _modulus);
        FN2(pow)(&t2, &a, pmod->l, sizeof pmod->l / 8);
        ASSERT(FN2(eq)(&t1, &t2));
        /* sqrt(a^2)^2 == a^2; sqrt of a random element iff legendre says so */
        FN2(sqr)(&t1, &a);
        ASSERT(FN2(sqrt_var)(&t2, &t1));
        FN2(sqr)(&t3, &t2);
        ASSERT(FN2(eq)(&t3, &t1));
        int leg = FN2(legendre_var)(&a);
        int has = FN2(sqrt_var)(&t2, &a);
        ASSERT_EQ_INT(has, leg >= 0);
        if (has) {
            FN2(sqr)(&t3, &t2);
            ASSERT(FN2(eq)(&t3, &a));
            squares++;
        }
    }
    if (iters >= 100) ASSERT(squares > iters / 5 && squares < iters * 4 / 5);
    T2 xs[8], inv[8], t;
    for (int i = 0; i < 8; i++) TFN2(rand)(&xs[i]);
    FN2(set_zero)(&xs[5]);
    FN2(batch_inv_var)(inv, xs, 8);
    for (int i = 0; i < 8; i++) {
        FN2(inv_var)(&t, &xs[i]);
        ASSERT(FN2(eq)(&t, &inv[i]));
    }
}

#undef T2
#undef FN2
#undef TFN2
#undef BFN
#undef F2
#undef FB
