/* Field property tests, instantiated once per field by test_field.c with
 *   #define F bn254_fq   and   #define FK BN254_FQ
 * Each function is one generic body; test_field.c wraps them in named
 * TEST_CASEs. */
#define T_ ZKP_CAT(F, _t)
#define FN(op) ZKP_CAT(ZKP_CAT(F, _), op)
#define K(k) ZKP_CAT(ZKP_CAT(FK, _), k)
#define TFN(op) ZKP_CAT(ZKP_CAT(test_, F), ZKP_CAT(_, op))

/* TFN(rand): a random element drawn from the seeded test generator. */
#include "field_sample_impl.h"

static void TFN(assert_eq)(const char *what, const T_ *a, const T_ *b) {
    if (!FN(eq)(a, b)) {
        char ha[2 * sizeof a->l + 1], hb[2 * sizeof b->l + 1];
        test_hex(ha, a->l, sizeof a->l);
        test_hex(hb, b->l, sizeof b->l);
        test_fail(__FILE__, __LINE__, "%s: %s (limbs LE) != %s", what, ha, hb);
    }
}

/* Edge values: 0, 1, 2, p-1, p-2, and the largest limb patterns below p. */
static size_t TFN(edges)(T_ *out) {
    size_t n = 0;
    T_ one, two;
    FN(set_zero)(&out[n++]);
    FN(set_one)(&one);
    out[n++] = one;
    FN(add)(&two, &one, &one);
    out[n++] = two;
    FN(neg)(&out[n++], &one);
    FN(neg)(&out[n++], &two);
    T_ c = {K(MODULUS)};
    c.l[0] -= 1; /* p - 1 as a canonical value, converted into the field */
    FN(to_mont)(&out[n++], &c);
    return n;
}

static void TFN(ring_laws)(void) {
    unsigned iters = test_iters(2000);
    for (unsigned it = 0; it < iters; it++) {
        T_ a, b, c, t1, t2, t3;
        TFN(rand)(&a);
        TFN(rand)(&b);
        TFN(rand)(&c);
        /* (a b) c == a (b c) */
        FN(mul)(&t1, &a, &b);
        FN(mul)(&t1, &t1, &c);
        FN(mul)(&t2, &b, &c);
        FN(mul)(&t2, &a, &t2);
        TFN(assert_eq)("associativity", &t1, &t2);
        /* a (b + c) == a b + a c */
        FN(add)(&t1, &b, &c);
        FN(mul)(&t1, &a, &t1);
        FN(mul)(&t2, &a, &b);
        FN(mul)(&t3, &a, &c);
        FN(add)(&t2, &t2, &t3);
        TFN(assert_eq)("distributivity", &t1, &t2);
        /* a - b + b == a; a + (-a) == 0 */
        FN(sub)(&t1, &a, &b);
        FN(add)(&t1, &t1, &b);
        TFN(assert_eq)("sub/add", &t1, &a);
        FN(neg)(&t1, &a);
        FN(add)(&t1, &t1, &a);
        ASSERT(FN(is_zero)(&t1));
        /* sqr == mul; half·2 == a; portable == dispatched */
        FN(sqr)(&t1, &a);
        FN(mul)(&t2, &a, &a);
        TFN(assert_eq)("sqr", &t1, &t2);
        FN(mul_portable)(&t2, &a, &a);
        TFN(assert_eq)("portable sqr", &t1, &t2);
        FN(mul)(&t1, &a, &b);
        FN(mul_portable)(&t2, &a, &b);
        TFN(assert_eq)("portable mul", &t1, &t2);
        FN(half)(&t1, &a);
        FN(dbl)(&t1, &t1);
        TFN(assert_eq)("half", &t1, &a);
    }
}

static void TFN(edge_arith)(void) {
    T_ e[8], t1, t2, one;
    size_t n = TFN(edges)(e);
    FN(set_one)(&one);
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < n; j++) {
            FN(mul)(&t1, &e[i], &e[j]);
            FN(mul_portable)(&t2, &e[i], &e[j]);
            TFN(assert_eq)("edge mul", &t1, &t2);
            FN(add)(&t1, &e[i], &e[j]);
            FN(sub)(&t1, &t1, &e[j]);
            TFN(assert_eq)("edge add/sub", &t1, &e[i]);
        }
    /* (p-1)^2 == 1 */
    FN(sqr)(&t1, &e[3]);
    TFN(assert_eq)("(p-1)^2", &t1, &one);
    TFN(assert_eq)("p-1 two ways", &e[3], &e[5]);
}

static void TFN(inversion)(void) {
    unsigned iters = test_iters(200);
    T_ one, zero, t1, t2;
    FN(set_one)(&one);
    FN(set_zero)(&zero);
    FN(inv)(&t1, &zero);
    ASSERT(FN(is_zero)(&t1));
    FN(inv_var)(&t1, &zero);
    ASSERT(FN(is_zero)(&t1));
    T_ xs[16], inv[16];
    for (unsigned it = 0; it < iters; it++) {
        T_ a;
        TFN(rand)(&a);
        if (it < 6) TFN(edges)(xs), a = xs[it];
        FN(inv)(&t1, &a);
        FN(inv_var)(&t2, &a);
        TFN(assert_eq)("inv == inv_var", &t1, &t2);
        if (!FN(is_zero)(&a)) {
            FN(mul)(&t1, &t1, &a);
            TFN(assert_eq)("a * a^-1", &t1, &one);
        }
    }
    for (int i = 0; i < 16; i++) TFN(rand)(&xs[i]);
    FN(set_zero)(&xs[3]);
    FN(batch_inv_var)(inv, xs, 16);
    for (int i = 0; i < 16; i++) {
        FN(inv_var)(&t1, &xs[i]);
        TFN(assert_eq)("batch inverse", &inv[i], &t1);
    }
}

/* zkp_modinv_var on raw integers a in [1, p): a r = 1 mod p, checked as
 * Montgomery products (mont(a, r) = a r R^-1 must equal mont(1, 1) = R^-1),
 * and r < p. The inputs cover the short and the long ends of the gcd:
 * 1, 2, 3, every power of two below p, p - 1, p - 2, (p + 1) / 2, numbers
 * with one limb set, and random values. */
static void TFN(modinv_raw)(void) {
    static const T_ p = {K(MODULUS)};
    T_ one_raw = {{1}}, expect, got, a, r;
    FN(mul)(&expect, &one_raw, &one_raw);
    unsigned iters = test_iters(2000);
    size_t bits = K(BITS);
    for (size_t it = 0; it < bits + 16 + iters; it++) {
        memset(&a, 0, sizeof a);
        if (it < bits) {
            a.l[it / 64] = (uint64_t)1 << (it % 64); /* 2^it < p */
        } else if (it < bits + 3) {
            a.l[0] = it - bits + 1; /* 1, 2 (again) and 3 */
        } else if (it < bits + 5) {
            a = p;
            a.l[0] -= it - bits - 2; /* p - 1, p - 2 */
        } else if (it == bits + 5) {
            a = p; /* (p + 1) / 2 */
            zkp_limbs_shr1(a.l, 0, K(LIMBS));
            a.l[0] += 1;
        } else if (it < bits + 5 + K(LIMBS) + 1) {
            a.l[it - bits - 6] = 0x9e3779b97f4a7c15ULL >> 3;
        } else {
            TFN(rand)(&a);
            if (FN(is_zero)(&a)) continue;
        }
        zkp_modinv_var(r.l, a.l, p.l, K(LIMBS));
        ASSERT(zkp_limbs_lt(r.l, p.l, K(LIMBS)));
        FN(mul)(&got, &a, &r);
        TFN(assert_eq)("a * modinv(a)", &got, &expect);
    }
}

static void TFN(sqrt_legendre)(void) {
    unsigned iters = test_iters(100);
    int squares = 0, non_squares = 0;
    for (unsigned it = 0; it < iters; it++) {
        T_ a, a2, r, t;
        TFN(rand)(&a);
        FN(sqr)(&a2, &a);
        ASSERT(FN(sqrt_var)(&r, &a2));
        FN(sqr)(&t, &r);
        TFN(assert_eq)("sqrt^2", &t, &a2);
        int leg = FN(legendre_var)(&a);
        int has = FN(sqrt_var)(&r, &a);
        ASSERT_EQ_INT(has, leg >= 0);
        if (has) {
            FN(sqr)(&t, &r);
            TFN(assert_eq)("sqrt of random square", &t, &a);
            squares++;
        } else {
            non_squares++;
        }
    }
    /* About half of all elements are squares. */
    if (iters >= 100) ASSERT(squares > 10 && non_squares > 10);
    T_ z, r;
    FN(set_zero)(&z);
    ASSERT(FN(sqrt_var)(&r, &z) && FN(is_zero)(&r));
    ASSERT_EQ_INT(FN(legendre_var)(&z), 0);
    /* The configured non-residue really is one. */
    FN(set_u64)(&z, K(NONRESIDUE));
    ASSERT_EQ_INT(FN(legendre_var)(&z), -1);
    ASSERT(!FN(sqrt_var)(&r, &z));
}

static void TFN(encodings)(void) {
    unsigned iters = test_iters(200);
    uint8_t le[K(BYTES)], be[K(BYTES)];
    char dec[128];
    for (unsigned it = 0; it < iters; it++) {
        T_ a, b;
        TFN(rand)(&a);
        FN(to_bytes_le)(le, &a);
        FN(to_bytes_be)(be, &a);
        for (int i = 0; i < K(BYTES); i++) ASSERT_EQ_INT(le[i], be[K(BYTES) - 1 - i]);
        ASSERT_OK(FN(from_bytes_le)(&b, le));
        TFN(assert_eq)("le roundtrip", &a, &b);
        ASSERT_OK(FN(from_bytes_be)(&b, be));
        TFN(assert_eq)("be roundtrip", &a, &b);
        FN(to_mont_bytes_le)(le, &a);
        ASSERT_MEM_EQ(le, a.l, sizeof le); /* the representative itself, little-endian */
        ASSERT_OK(FN(from_mont_bytes_le)(&b, le));
        TFN(assert_eq)("montgomery bytes roundtrip", &a, &b);
        size_t n = FN(to_dec)(dec, sizeof dec, &a);
        ASSERT(n > 0 && n == strlen(dec));
        ASSERT_OK(FN(from_dec)(&b, dec, n));
        TFN(assert_eq)("decimal roundtrip", &a, &b);
    }
    /* p itself, p + 1 and all-ones are rejected as non-canonical. */
    T_ p = {K(MODULUS)}, r;
    for (int i = 0; i < K(BYTES); i++) le[i] = (uint8_t)(p.l[i / 8] >> (8 * (i % 8)));
    ASSERT_EQ_STATUS(FN(from_bytes_le)(&r, le), ZKPIPE_ERR_NON_CANONICAL);
    ASSERT_EQ_STATUS(FN(from_mont_bytes_le)(&r, le), ZKPIPE_ERR_NON_CANONICAL);
    le[0]++;
    ASSERT_EQ_STATUS(FN(from_bytes_le)(&r, le), ZKPIPE_ERR_NON_CANONICAL);
    ASSERT_EQ_STATUS(FN(from_mont_bytes_le)(&r, le), ZKPIPE_ERR_NON_CANONICAL);
    memset(be, 0xff, sizeof be);
    ASSERT_EQ_STATUS(FN(from_bytes_be)(&r, be), ZKPIPE_ERR_NON_CANONICAL);
    /* Decimal: p is rejected, p - 1 accepted; junk and empty strings rejected. */
    T_ pm1;
    FN(set_one)(&pm1);
    FN(neg)(&pm1, &pm1);
    size_t n = FN(to_dec)(dec, sizeof dec, &pm1);
    ASSERT_OK(FN(from_dec)(&r, dec, n));
    TFN(assert_eq)("p-1 decimal", &r, &pm1);
    dec[n - 1]++; /* p - 1 ends in an even digit below 9 for all four primes, so this is p */
    ASSERT_EQ_STATUS(FN(from_dec)(&r, dec, n), ZKPIPE_ERR_NON_CANONICAL);
    ASSERT_EQ_STATUS(FN(from_dec)(&r, "", 0), ZKPIPE_ERR_BAD_ENCODING);
    ASSERT_EQ_STATUS(FN(from_dec)(&r, "12a", 3), ZKPIPE_ERR_BAD_ENCODING);
    ASSERT_EQ_STATUS(FN(from_dec)(&r, "-1", 2), ZKPIPE_ERR_BAD_ENCODING);
    ASSERT_EQ_STATUS(FN(from_dec)(&r, "99999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999", 122), ZKPIPE_ERR_NON_CANONICAL);
    ASSERT_OK(FN(from_dec)(&r, "0", 1));
    ASSERT(FN(is_zero)(&r));
    ASSERT_EQ_U64(FN(to_dec)(dec, 2, &r), 1);
    ASSERT_STR_EQ(dec, "0");
    ASSERT_EQ_U64(FN(to_dec)(dec, 1, &r), 0);
}

static void TFN(roots_and_random)(void) {
    T_ w, t, one;
    FN(set_one)(&one);
    for (unsigned k = 0; k <= K(TWO_ADICITY); k++) {
        ASSERT_OK(FN(root_of_unity)(&w, k));
        /* w^(2^k) == 1 and, for k >= 1, w^(2^(k-1)) == -1: primitive. */
        t = w;
        for (unsigned i = 0; i + 1 < k; i++) FN(sqr)(&t, &t);
        if (k >= 1) {
            T_ m1;
            FN(neg)(&m1, &one);
            TFN(assert_eq)("primitive root", &t, &m1);
            FN(sqr)(&t, &t);
        }
        TFN(assert_eq)("root order", &t, &one);
    }
    ASSERT_EQ_STATUS(FN(root_of_unity)(&w, K(TWO_ADICITY) + 1), ZKPIPE_ERR_INVALID_ARGUMENT);
    T_ a, b;
    ASSERT_OK(FN(random)(&a));
    ASSERT_OK(FN(random)(&b));
    ASSERT(FN(is_reduced)(&a) && FN(is_reduced)(&b));
    ASSERT(!FN(eq)(&a, &b));
}

#undef T_
#undef FN
#undef K
#undef TFN
#undef F
#undef FK
