/* Known-answer tests for one prime field and its Fp2 (when FK2 is set),
 * against the vectors that @noble/curves produced (tests/vectors). Included
 * by test_kat_field.c with F/FK naming the field. */
#define T_ ZKP_CAT(F, _t)
#define FN(op) ZKP_CAT(ZKP_CAT(F, _), op)
#define K(k) ZKP_CAT(ZKP_CAT(FK, _), k)
#define TFN(op) ZKP_CAT(ZKP_CAT(kat_, F), ZKP_CAT(_, op))

static T_ TFN(elem)(const zkp_json *v) {
    unsigned char be[K(BYTES)];
    T_ r;
    const char *hex = zkp_json_string(v, NULL);
    ASSERT_MSG(hex != NULL, "vector value is not a string");
    test_hex_to_be(be, sizeof be, hex);
    ASSERT_OK(FN(from_bytes_be)(&r, be));
    return r;
}

static T_ TFN(field)(const zkp_json *o, const char *key) {
    const zkp_json *v = zkp_json_get(o, key);
    ASSERT_MSG(v != NULL, "vector lacks \"%s\"", key);
    return TFN(elem)(v);
}

static void TFN(expect)(const char *what, size_t i, const T_ *got, const T_ *want) {
    if (!FN(eq)(got, want)) {
        char g[160], w[160];
        FN(to_dec)(g, sizeof g, got);
        FN(to_dec)(w, sizeof w, want);
        test_fail(__FILE__, __LINE__, "%s vector %zu: got %s, want %s", what, i, g, w);
    }
}

static const zkp_json *TFN(list)(const zkp_json *sec, const char *key) {
    const zkp_json *l = zkp_json_get(sec, key);
    ASSERT_MSG(l != NULL && zkp_json_len(l) > 0, "missing or empty vector list \"%s\"", key);
    return l;
}

static void TFN(run)(const zkp_json *sec) {
    const zkp_json *l;
    T_ a, b, out, got;
    l = TFN(list)(sec, "mul");
    for (size_t i = 0; i < zkp_json_len(l); i++) {
        const zkp_json *v = zkp_json_at(l, i);
        a = TFN(field)(v, "a"), b = TFN(field)(v, "b"), out = TFN(field)(v, "out");
        FN(mul)(&got, &a, &b);
        TFN(expect)("mul", i, &got, &out);
        FN(mul_portable)(&got, &a, &b);
        TFN(expect)("mul_portable", i, &got, &out);
    }
    l = TFN(list)(sec, "sqr");
    for (size_t i = 0; i < zkp_json_len(l); i++) {
        const zkp_json *v = zkp_json_at(l, i);
        a = TFN(field)(v, "a"), out = TFN(field)(v, "out");
        FN(sqr)(&got, &a);
        TFN(expect)("sqr", i, &got, &out);
    }
    l = TFN(list)(sec, "add");
    for (size_t i = 0; i < zkp_json_len(l); i++) {
        const zkp_json *v = zkp_json_at(l, i);
        a = TFN(field)(v, "a"), b = TFN(field)(v, "b"), out = TFN(field)(v, "out");
        FN(add)(&got, &a, &b);
        TFN(expect)("add", i, &got, &out);
    }
    l = TFN(list)(sec, "sub");
    for (size_t i = 0; i < zkp_json_len(l); i++) {
        const zkp_json *v = zkp_json_at(l, i);
        a = TFN(field)(v, "a"), b = TFN(field)(v, "b"), out = TFN(field)(v, "out");
        FN(sub)(&got, &a, &b);
        TFN(expect)("sub", i, &got, &out);
    }
    l = TFN(list)(sec, "inv");
    for (size_t i = 0; i < zkp_json_len(l); i++) {
        const zkp_json *v = zkp_json_at(l, i);
        a = TFN(field)(v, "a"), out = TFN(field)(v, "out");
        FN(inv)(&got, &a);
        TFN(expect)("inv", i, &got, &out);
        FN(inv_var)(&got, &a);
        TFN(expect)("inv_var", i, &got, &out);
    }
    l = TFN(list)(sec, "sqrt");
    for (size_t i = 0; i < zkp_json_len(l); i++) {
        const zkp_json *v = zkp_json_at(l, i);
        a = TFN(field)(v, "a"), out = TFN(field)(v, "out");
        ASSERT_MSG(FN(sqrt_var)(&got, &a), "sqrt vector %zu: no root found", i);
        /* Either root is acceptable; noble may return the other one. */
        if (!FN(eq)(&got, &out)) FN(neg)(&got, &got);
        TFN(expect)("sqrt", i, &got, &out);
    }
    l = TFN(list)(sec, "non_squares");
    for (size_t i = 0; i < zkp_json_len(l); i++) {
        a = TFN(elem)(zkp_json_at(l, i));
        ASSERT_MSG(!FN(sqrt_var)(&got, &a), "non-square %zu got a root", i);
        ASSERT_EQ_INT(FN(legendre_var)(&a), -1);
    }
    l = TFN(list)(sec, "pow");
    for (size_t i = 0; i < zkp_json_len(l); i++) {
        const zkp_json *v = zkp_json_at(l, i);
        unsigned char be[K(BYTES)];
        uint64_t e[K(LIMBS)] = {0};
        a = TFN(field)(v, "a"), out = TFN(field)(v, "out");
        test_hex_to_be(be, sizeof be, zkp_json_string(zkp_json_get(v, "e"), NULL));
        for (int j = 0; j < K(BYTES); j++) e[j / 8] |= (uint64_t)be[K(BYTES) - 1 - j] << (8 * (j % 8));
        FN(pow)(&got, &a, e, K(LIMBS));
        TFN(expect)("pow", i, &got, &out);
    }
    l = TFN(list)(sec, "decimal");
    for (size_t i = 0; i < zkp_json_len(l); i++) {
        const zkp_json *v = zkp_json_at(l, i);
        size_t len;
        const char *dec = zkp_json_string(zkp_json_get(v, "dec"), &len);
        char buf[160];
        a = TFN(field)(v, "hex");
        ASSERT_OK(FN(from_dec)(&got, dec, len));
        TFN(expect)("from_dec", i, &got, &a);
        ASSERT_EQ_U64(FN(to_dec)(buf, sizeof buf, &a), len);
        ASSERT_STR_EQ(buf, dec);
    }
}

/* The circom/snarkjs binary layout: Montgomery form, little-endian. */
static void TFN(circom)(const zkp_json *l) {
    for (size_t i = 0; i < zkp_json_len(l); i++) {
        const zkp_json *v = zkp_json_at(l, i);
        unsigned char bytes[K(BYTES)], enc[K(BYTES)];
        T_ want = TFN(field)(v, "value"), got;
        ASSERT_EQ_U64(test_unhex(bytes, sizeof bytes, zkp_json_string(zkp_json_get(v, "bytes"), NULL)),
                      K(BYTES));
        ASSERT_OK(FN(from_mont_bytes_le)(&got, bytes));
        TFN(expect)("circom decode", i, &got, &want);
        FN(to_mont_bytes_le)(enc, &want);
        ASSERT_MEM_EQ(enc, bytes, sizeof enc);
    }
}

#ifdef F2
#define T2 ZKP_CAT(F2, _t)
#define FN2(op) ZKP_CAT(ZKP_CAT(F2, _), op)

static T2 TFN(elem2)(const zkp_json *v, const char *key) {
    const zkp_json *pair = zkp_json_get(v, key);
    ASSERT_MSG(pair != NULL && zkp_json_len(pair) == 2, "vector lacks Fp2 \"%s\"", key);
    T2 r;
    r.c0 = TFN(elem)(zkp_json_at(pair, 0));
    r.c1 = TFN(elem)(zkp_json_at(pair, 1));
    return r;
}

static void TFN(expect2)(const char *what, size_t i, const T2 *got, const T2 *want) {
    TFN(expect)(what, i, &got->c0, &want->c0);
    TFN(expect)(what, i, &got->c1, &want->c1);
}

static void TFN(run2)(const zkp_json *sec) {
    static const char *binary[] = {"mul", "add", "sub"};
    T2 a, b, out, got;
    for (int op = 0; op < 3; op++) {
        const zkp_json *l = TFN(list)(sec, binary[op]);
        for (size_t i = 0; i < zkp_json_len(l); i++) {
            const zkp_json *v = zkp_json_at(l, i);
            a = TFN(elem2)(v, "a"), b = TFN(elem2)(v, "b"), out = TFN(elem2)(v, "out");
            if (op == 0) FN2(mul)(&got, &a, &b);
            if (op == 1) FN2(add)(&got, &a, &b);
            if (op == 2) FN2(sub)(&got, &a, &b);
            TFN(expect2)(binary[op], i, &got, &out);
        }
    }
    const zkp_json *l = TFN(list)(sec, "sqr");
    for (size_t i = 0; i < zkp_json_len(l); i++) {
        const zkp_json *v = zkp_json_at(l, i);
        a = TFN(elem2)(v, "a"), out = TFN(elem2)(v, "out");
        FN2(sqr)(&got, &a);
        TFN(expect2)("fp2 sqr", i, &got, &out);
    }
    l = TFN(list)(sec, "inv");
    for (size_t i = 0; i < zkp_json_len(l); i++) {
        const zkp_json *v = zkp_json_at(l, i);
        a = TFN(elem2)(v, "a"), out = TFN(elem2)(v, "out");
        FN2(inv)(&got, &a);
        TFN(expect2)("fp2 inv", i, &got, &out);
        FN2(inv_var)(&got, &a);
        TFN(expect2)("fp2 inv_var", i, &got, &out);
    }
    l = TFN(list)(sec, "sqrt");
    for (size_t i = 0; i < zkp_json_len(l); i++) {
        const zkp_json *v = zkp_json_at(l, i);
        a = TFN(elem2)(v, "a"), out = TFN(elem2)(v, "out");
        ASSERT_MSG(FN2(sqrt_var)(&got, &a), "fp2 sqrt vector %zu: no root found", i);
        if (!FN2(eq)(&got, &out)) FN2(neg)(&got, &got);
        TFN(expect2)("fp2 sqrt", i, &got, &out);
    }
    l = TFN(list)(sec, "non_squares");
    for (size_t i = 0; i < zkp_json_len(l); i++) {
        const zkp_json *pair = zkp_json_at(l, i);
        ASSERT_EQ_U64(zkp_json_len(pair), 2);
        a.c0 = TFN(elem)(zkp_json_at(pair, 0));
        a.c1 = TFN(elem)(zkp_json_at(pair, 1));
        ASSERT_MSG(!FN2(sqrt_var)(&got, &a), "fp2 non-square %zu got a root", i);
    }
}
#undef T2
#undef FN2
#undef F2
#endif

#undef T_
#undef FN
#undef K
#undef TFN
#undef F
#undef FK
