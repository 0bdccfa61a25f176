/* Encoding known-answer tests for one group, against the @noble/curves
 * vectors. Included by test_encoding.c with G (group), B (base field), BK
 * (its constant prefix) and DEG (1 for G1, 2 for G2). */
#define G_AFF ZKP_CAT(G, _affine_t)
#define GFN(op) ZKP_CAT(ZKP_CAT(G, _), op)
#define B_T ZKP_CAT(B, _t)
#define BFN(op) ZKP_CAT(ZKP_CAT(B, _), op)
#define BBYTES ZKP_CAT(BK, _BYTES)
#define TFN(op) ZKP_CAT(ZKP_CAT(enc_, G), ZKP_CAT(_, op))

static B_T *TFN(part)(G_AFF *p, int i) {
    return i < DEG ? &((B_T *)&p->x)[i] : &((B_T *)&p->y)[i - DEG];
}

static void TFN(read_elem)(B_T *out, const zkp_json *v) {
    unsigned char be[BBYTES];
    const char *hex = zkp_json_string(v, NULL);
    ASSERT_MSG(hex != NULL, "coordinate is not a string");
    test_hex_to_be(be, sizeof be, hex);
    ASSERT_OK(BFN(from_bytes_be)(out, be));
}

/* A vector point: null for infinity, else {"x", "y"} (Fp2 as [c0, c1]). */
static G_AFF TFN(point)(const zkp_json *v) {
    G_AFF p;
    GFN(affine_set_infinity)(&p);
    if (v == NULL || zkp_json_type_of(v) == ZKP_JSON_NULL) return p;
    const char *keys[2] = {"x", "y"};
    for (int c = 0; c < 2; c++) {
        const zkp_json *coord = zkp_json_get(v, keys[c]);
        ASSERT_MSG(coord != NULL, "point lacks %s", keys[c]);
        if (DEG == 1) {
            TFN(read_elem)(TFN(part)(&p, c), coord);
        } else {
            ASSERT_EQ_U64(zkp_json_len(coord), DEG);
            for (int i = 0; i < DEG; i++) TFN(read_elem)(TFN(part)(&p, c * DEG + i), zkp_json_at(coord, (size_t)i));
        }
    }
    return p;
}

static void TFN(circom)(const zkp_json *list) {
    ASSERT(zkp_json_len(list) > 0);
    int saw_infinity = 0;
    for (size_t i = 0; i < zkp_json_len(list); i++) {
        const zkp_json *v = zkp_json_at(list, i);
        G_AFF want = TFN(point)(zkp_json_get(v, "point")), got;
        unsigned char bytes[2 * DEG * BBYTES], enc[2 * DEG * BBYTES];
        ASSERT_EQ_U64(test_unhex(bytes, sizeof bytes, zkp_json_string(zkp_json_get(v, "bytes"), NULL)),
                      sizeof bytes);
        ASSERT_OK(GFN(affine_from_circom)(&got, bytes));
        ASSERT_MSG(GFN(affine_eq)(&got, &want), "circom decode %zu", i);
        GFN(affine_to_circom)(enc, &want);
        ASSERT_MEM_EQ(enc, bytes, sizeof enc);
        saw_infinity |= GFN(affine_is_infinity)(&want);
        if (GFN(affine_is_infinity)(&want)) continue;
        /* A coordinate pushed to >= p is non-canonical; a flipped bit in y is off the curve. */
        unsigned char bad[sizeof bytes];
        memcpy(bad, bytes, sizeof bad);
        memset(bad + BBYTES - 8, 0xff, 8);
        ASSERT_EQ_STATUS(GFN(affine_from_circom)(&got, bad), ZKPIPE_ERR_NON_CANONICAL);
        memcpy(bad, bytes, sizeof bad);
        bad[DEG * BBYTES] ^= 1;
        zkpipe_status st = GFN(affine_from_circom)(&got, bad);
        ASSERT_MSG(st == ZKPIPE_ERR_NOT_ON_CURVE || st == ZKPIPE_ERR_NON_CANONICAL,
                   "tampered circom point %zu gave %s", i, zkpipe_status_name(st));
    }
    ASSERT(saw_infinity);
}

/* Decimal strings: to_dec then from_dec is the identity, in both the
 * projective (x, y, z) and the affine (x, y) forms. */
static void TFN(decimal)(const zkp_json *list) {
    for (size_t i = 0; i < zkp_json_len(list); i++) {
        G_AFF p = TFN(point)(zkp_json_get(zkp_json_at(list, i), "point")), got;
        char dec[3 * DEG][ZKP_DEC_MAX];
        const char *ptrs[3 * DEG];
        ASSERT_OK(GFN(affine_to_dec)(dec, 3 * DEG, &p));
        for (int k = 0; k < 3 * DEG; k++) ptrs[k] = dec[k];
        ASSERT_OK(GFN(affine_from_dec)(&got, ptrs, 3 * DEG));
        ASSERT(GFN(affine_eq)(&got, &p));
        if (GFN(affine_is_infinity)(&p)) {
            /* snarkjs's infinity: (0, 1, 0) */
            ASSERT_STR_EQ(dec[0], "0");
            ASSERT_STR_EQ(dec[DEG], "1");
            ASSERT_STR_EQ(dec[2 * DEG], "0");
            continue;
        }
        ASSERT_STR_EQ(dec[2 * DEG], "1");
        ASSERT_OK(GFN(affine_from_dec)(&got, ptrs, 2 * DEG));
        ASSERT(GFN(affine_eq)(&got, &p));
        /* z = 2 is not a form snarkjs writes; junk and wrong counts are rejected. */
        char two[] = "2";
        ptrs[2 * DEG] = two;
        ASSERT_EQ_STATUS(GFN(affine_from_dec)(&got, ptrs, 3 * DEG), ZKPIPE_ERR_BAD_ENCODING);
        ptrs[2 * DEG] = dec[2 * DEG];
        ASSERT_EQ_STATUS(GFN(affine_from_dec)(&got, ptrs, 0), ZKPIPE_ERR_BAD_ENCODING);
        ASSERT_EQ_STATUS(GFN(affine_from_dec)(&got, ptrs, 2 * DEG - 1), ZKPIPE_ERR_BAD_ENCODING);
        char junk[] = "12x";
        ptrs[0] = junk;
        ASSERT_EQ_STATUS(GFN(affine_from_dec)(&got, ptrs, 3 * DEG), ZKPIPE_ERR_BAD_ENCODING);
        ptrs[0] = dec[0];
        /* y + 1 is off the curve. */
        B_T y1, one;
        BFN(set_one)(&one);
        BFN(add)(&y1, TFN(part)(&p, DEG), &one);
        char ybuf[ZKP_DEC_MAX];
        ASSERT(BFN(to_dec)(ybuf, sizeof ybuf, &y1) > 0);
        ptrs[DEG] = ybuf;
        ASSERT_EQ_STATUS(GFN(affine_from_dec)(&got, ptrs, 3 * DEG), ZKPIPE_ERR_NOT_ON_CURVE);
    }
}

/* On-curve points outside the subgroup (from the vectors) are refused by every decoder. */
static void TFN(not_in_subgroup)(const zkp_json *list) {
    for (size_t i = 0; i < zkp_json_len(list); i++) {
        G_AFF p = TFN(point)(zkp_json_at(list, i)), got;
        ASSERT(GFN(affine_is_on_curve)(&p));
        unsigned char bytes[2 * DEG * BBYTES];
        GFN(affine_to_circom)(bytes, &p);
        ASSERT_EQ_STATUS(GFN(affine_from_circom)(&got, bytes), ZKPIPE_ERR_NOT_IN_SUBGROUP);
        char dec[3 * DEG][ZKP_DEC_MAX];
        const char *ptrs[3 * DEG];
        ASSERT_OK(GFN(affine_to_dec)(dec, 3 * DEG, &p));
        for (int k = 0; k < 3 * DEG; k++) ptrs[k] = dec[k];
        ASSERT_EQ_STATUS(GFN(affine_from_dec)(&got, ptrs, 3 * DEG), ZKPIPE_ERR_NOT_IN_SUBGROUP);
    }
}

#ifdef ZCASH
static zkpipe_status TFN(zc_decode)(G_AFF *p, const unsigned char *in, size_t len) {
    /* The decoders take fixed lengths; other lengths are the caller's error, as in the public API. */
    if (len == 48 * DEG) return GFN(affine_uncompress)(p, in);
    if (len == 96 * DEG) return GFN(affine_deserialize)(p, in);
    return ZKPIPE_ERR_BAD_ENCODING;
}

static void TFN(zcash)(const zkp_json *sec, const char *group) {
    const zkp_json *list = zkp_json_get(sec, group);
    ASSERT(list != NULL && zkp_json_len(list) > 0);
    for (size_t i = 0; i < zkp_json_len(list); i++) {
        const zkp_json *v = zkp_json_at(list, i);
        G_AFF want = TFN(point)(zkp_json_get(v, "point")), got;
        unsigned char c[48 * DEG], u[96 * DEG], enc[96 * DEG];
        ASSERT_EQ_U64(test_unhex(c, sizeof c, zkp_json_string(zkp_json_get(v, "compressed"), NULL)), sizeof c);
        ASSERT_EQ_U64(test_unhex(u, sizeof u, zkp_json_string(zkp_json_get(v, "uncompressed"), NULL)),
                      sizeof u);
        ASSERT_OK(GFN(affine_uncompress)(&got, c));
        ASSERT_MSG(GFN(affine_eq)(&got, &want), "zcash uncompress %zu", i);
        ASSERT_OK(GFN(affine_deserialize)(&got, u));
        ASSERT_MSG(GFN(affine_eq)(&got, &want), "zcash deserialize %zu", i);
        GFN(affine_compress)(enc, &want);
        ASSERT_MEM_EQ(enc, c, sizeof c);
        GFN(affine_serialize)(enc, &want);
        ASSERT_MEM_EQ(enc, u, sizeof u);
    }
    const zkp_json *bad = zkp_json_get(sec, "invalid");
    size_t checked = 0;
    for (size_t i = 0; i < zkp_json_len(bad); i++) {
        const zkp_json *v = zkp_json_at(bad, i);
        if (strcmp(zkp_json_string(zkp_json_get(v, "group"), NULL), group) != 0) continue;
        const char *err = zkp_json_string(zkp_json_get(v, "error"), NULL);
        zkpipe_status want = strcmp(err, "bad_encoding") == 0    ? ZKPIPE_ERR_BAD_ENCODING
                             : strcmp(err, "non_canonical") == 0 ? ZKPIPE_ERR_NON_CANONICAL
                             : strcmp(err, "not_on_curve") == 0  ? ZKPIPE_ERR_NOT_ON_CURVE
                                                                 : ZKPIPE_ERR_NOT_IN_SUBGROUP;
        unsigned char in[200];
        size_t len = test_unhex(in, sizeof in, zkp_json_string(zkp_json_get(v, "hex"), NULL));
        G_AFF got, untouched;
        GFN(generator)(&got);
        untouched = got;
        zkpipe_status st = TFN(zc_decode)(&got, in, len);
        ASSERT_MSG(st == want, "invalid %s encoding %zu (%s): got %s", group, i, err, zkpipe_status_name(st));
        ASSERT(GFN(affine_eq)(&got, &untouched));
        checked++;
    }
    ASSERT(checked >= 10);
}
#undef ZCASH
#endif

#undef G_AFF
#undef GFN
#undef B_T
#undef BFN
#undef BBYTES
#undef TFN
#undef G
#undef B
#undef BK
#undef DEG
