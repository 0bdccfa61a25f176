/* Known-answer tests for one group against the vectors that @noble/curves
 * produced (tests/vectors, see its README), instantiated by test_curve_kat.c:
 *
 *   #define G  bn254_g1   the group
 *   #define GF bn254_fq   its coordinate field
 *
 * test_curve_kat.c defines kat_coord_GF(r, json), which reads one coordinate
 * (a hex string, or a [c0, c1] pair for Fp2). */
#define KG(op) ZKP_CAT(ZKP_CAT(kat_, G), ZKP_CAT(_, op))
#define GFN(op) ZKP_CAT(ZKP_CAT(G, _), op)
#define AFF ZKP_CAT(G, _affine_t)
#define JAC ZKP_CAT(G, _jacobian_t)
#define XYZZ ZKP_CAT(G, _xyzz_t)
#define KAT_COORD ZKP_CAT(kat_coord_, GF)

/* A vector point: null is infinity, otherwise {"x", "y"}. */
static AFF KG(point)(const zkp_json *o, const char *key) {
    const zkp_json *v = zkp_json_get(o, key);
    AFF r;
    ASSERT_MSG(v != NULL, "vector lacks \"%s\"", key);
    if (zkp_json_type_of(v) == ZKP_JSON_NULL) {
        GFN(affine_set_infinity)(&r);
        return r;
    }
    KAT_COORD(&r.x, zkp_json_get(v, "x"));
    KAT_COORD(&r.y, zkp_json_get(v, "y"));
    return r;
}

static void KG(expect)(const char *what, size_t i, const JAC *got, const AFF *want) {
    AFF g;
    GFN(to_affine)(&g, got);
    ASSERT_MSG(GFN(affine_eq)(&g, want), "%s vector %zu: wrong point", what, i);
}

static void KG(expect_xyzz)(const char *what, size_t i, const XYZZ *got, const AFF *want) {
    JAC j;
    GFN(xyzz_to_jacobian)(&j, got);
    KG(expect)(what, i, &j, want);
}

static const zkp_json *KG(list)(const zkp_json *sec, const char *key) {
    const zkp_json *l = zkp_json_get(sec, key);
    ASSERT_MSG(l != NULL, "missing vector list \"%s\"", key);
    return l;
}

/* sec is the "g1" or "g2" object of a vector file. */
static void KG(run)(const zkp_json *sec) {
    const zkp_json *l;
    AFF g = KG(point)(sec, "generator"), mine;
    GFN(generator)(&mine);
    ASSERT_MSG(GFN(affine_eq)(&g, &mine), "generator differs from the vectors");

    l = KG(list)(sec, "add");
    ASSERT(zkp_json_len(l) > 0);
    for (size_t i = 0; i < zkp_json_len(l); i++) {
        const zkp_json *v = zkp_json_at(l, i);
        AFF p = KG(point)(v, "p"), q = KG(point)(v, "q"), out = KG(point)(v, "out");
        JAC pj, qj, t;
        XYZZ px, qx, tx;
        ASSERT(GFN(affine_is_on_curve)(&p) && GFN(affine_is_on_curve)(&q));
        GFN(from_affine)(&pj, &p);
        GFN(from_affine)(&qj, &q);
        GFN(add)(&t, &pj, &qj);
        KG(expect)("add", i, &t, &out);
        GFN(add_affine)(&t, &pj, &q);
        KG(expect)("add_affine", i, &t, &out);
        GFN(xyzz_from_affine)(&px, &p);
        GFN(xyzz_from_affine)(&qx, &q);
        GFN(xyzz_add)(&tx, &px, &qx);
        KG(expect_xyzz)("xyzz_add", i, &tx, &out);
        GFN(xyzz_add_affine)(&tx, &px, &q);
        KG(expect_xyzz)("xyzz_add_affine", i, &tx, &out);
        GFN(xyzz_add_var)(&tx, &px, &qx);
        KG(expect_xyzz)("xyzz_add_var", i, &tx, &out);
        GFN(xyzz_add_affine_var)(&tx, &px, &q);
        KG(expect_xyzz)("xyzz_add_affine_var", i, &tx, &out);
    }

    l = KG(list)(sec, "double");
    ASSERT(zkp_json_len(l) > 0);
    for (size_t i = 0; i < zkp_json_len(l); i++) {
        const zkp_json *v = zkp_json_at(l, i);
        AFF p = KG(point)(v, "p"), out = KG(point)(v, "out");
        JAC pj, t;
        XYZZ px;
        GFN(from_affine)(&pj, &p);
        GFN(dbl)(&t, &pj);
        KG(expect)("double", i, &t, &out);
        GFN(xyzz_from_affine)(&px, &p);
        GFN(xyzz_dbl)(&px, &px);
        KG(expect_xyzz)("xyzz_dbl", i, &px, &out);
    }

    l = KG(list)(sec, "mul");
    ASSERT(zkp_json_len(l) > 0);
    for (size_t i = 0; i < zkp_json_len(l); i++) {
        const zkp_json *v = zkp_json_at(l, i);
        AFF p = KG(point)(v, "p"), out = KG(point)(v, "out");
        unsigned char be[32];
        uint64_t k[4] = {0};
        const char *hex = zkp_json_string(zkp_json_get(v, "k"), NULL);
        ASSERT_MSG(hex != NULL, "mul vector %zu lacks \"k\"", i);
        test_hex_to_be(be, sizeof be, hex);
        for (int b = 0; b < 32; b++) k[b / 8] |= (uint64_t)be[31 - b] << (8 * (b % 8));
        JAC pj, t;
        GFN(from_affine)(&pj, &p);
        GFN(mul)(&t, &pj, k, 256);
        KG(expect)("mul", i, &t, &out);
        GFN(mul_var)(&t, &pj, k, 256);
        KG(expect)("mul_var", i, &t, &out);
    }

    l = KG(list)(sec, "not_on_curve");
    for (size_t i = 0; i < zkp_json_len(l); i++) {
        const zkp_json *v = zkp_json_at(l, i);
        AFF p;
        KAT_COORD(&p.x, zkp_json_get(v, "x"));
        KAT_COORD(&p.y, zkp_json_get(v, "y"));
        ASSERT_MSG(!GFN(affine_is_on_curve)(&p), "not_on_curve vector %zu accepted", i);
    }

    l = KG(list)(sec, "not_in_subgroup");
    for (size_t i = 0; i < zkp_json_len(l); i++) {
        const zkp_json *v = zkp_json_at(l, i);
        AFF p;
        JAC pj;
        KAT_COORD(&p.x, zkp_json_get(v, "x"));
        KAT_COORD(&p.y, zkp_json_get(v, "y"));
        ASSERT_MSG(GFN(affine_is_on_curve)(&p), "not_in_subgroup vector %zu is off the curve", i);
        ASSERT_MSG(!GFN(affine_in_subgroup_var)(&p), "not_in_subgroup vector %zu accepted", i);
        GFN(from_affine)(&pj, &p);
        ASSERT(!GFN(in_subgroup_slow_var)(&pj));
    }
}

#undef KG
#undef GFN
#undef AFF
#undef JAC
#undef XYZZ
#undef KAT_COORD
#undef G
#undef GF
