/* The ZCash / blst serialization of BLS12-381 points, for G1 (ZC_DEG 1,
 * coordinates in Fp) and G2 (ZC_DEG 2, coordinates in Fp2). Instantiated by
 * encoding.c with ZC_GROUP and ZC_DEG.
 *
 * Coordinates are big-endian, 48 bytes per Fp element; an Fp2 element is
 * written imaginary part first (c1 then c0). The three top bits of the first
 * byte are flags: 0x80 = compressed (x only), 0x40 = point at infinity (the
 * rest must be zero), 0x20 = "y is the lexicographically larger root", which
 * only a compressed finite point may set. For Fp2, y is larger when its c1
 * is above (p-1)/2, or c1 is zero and c0 is above (p-1)/2.
 *
 * ZC_FIELD names the coordinate field (bls12_381_fp or bls12_381_fp2) and
 * ZC_SET_B(b) stores the curve constant b in it. */
#define G_FN(op) ZKP_CAT(ZKP_CAT(ZC_GROUP, _), op)
#define G_AFF ZKP_CAT(ZC_GROUP, _affine_t)
#define C_T ZKP_CAT(ZC_FIELD, _t)
#define C_FN(op) ZKP_CAT(ZKP_CAT(ZC_FIELD, _), op)
#define ZC_COORD (48 * ZC_DEG)

static int G_FN(zc_is_zero_point_)(const G_AFF *p) { return C_FN(is_zero)(&p->x) & C_FN(is_zero)(&p->y); }

/* y = one square root of x^3 + b, or 0 when there is none. */
static int G_FN(zc_y_from_x_)(G_AFF *p) {
    C_T rhs, b;
    ZC_SET_B(&b);
    C_FN(sqr)(&rhs, &p->x);
    C_FN(mul)(&rhs, &rhs, &p->x);
    C_FN(add)(&rhs, &rhs, &b);
    return C_FN(sqrt_var)(&p->y, &rhs);
}

#ifndef ZC_FLAG_COMPRESSED
#define ZC_FLAG_COMPRESSED 0x80
#define ZC_FLAG_INFINITY 0x40
#define ZC_FLAG_LARGEST 0x20
#endif

/* Element i of a coordinate (c0, c1) lives at byte offset 48·(DEG-1-i). */
static zkpipe_status G_FN(zc_read_coord_)(bls12_381_fp_t *parts, const uint8_t *in) {
    for (int i = 0; i < ZC_DEG; i++) {
        zkpipe_status st = bls12_381_fp_from_bytes_be(&parts[i], in + 48 * (ZC_DEG - 1 - i));
        if (st != ZKPIPE_OK) return st;
    }
    return ZKPIPE_OK;
}

static void G_FN(zc_write_coord_)(uint8_t *out, const bls12_381_fp_t *parts) {
    for (int i = 0; i < ZC_DEG; i++) bls12_381_fp_to_bytes_be(out + 48 * (ZC_DEG - 1 - i), &parts[i]);
}

static int G_FN(zc_is_largest_)(const bls12_381_fp_t *y) {
    static const uint64_t half[6] = BLS12_381_FP_P_MINUS_1_HALF;
    for (int i = ZC_DEG; i-- > 0;) {
        bls12_381_fp_t c;
        bls12_381_fp_from_mont(&c, &y[i]);
        if (!bls12_381_fp_is_zero(&c) || i == 0) return (int)zkp_limbs_lt(half, c.l, 6);
    }
    return 0;
}

/* Decodes either form; the length selects which one is expected. subgroup
 * 0 checks the point on the curve only. */
static zkpipe_status G_FN(zc_decode_)(G_AFF *p, const uint8_t *in, size_t len, int subgroup) {
    if (len != ZC_COORD && len != 2 * ZC_COORD) return ZKPIPE_ERR_BAD_ENCODING;
    int compressed = (in[0] & ZC_FLAG_COMPRESSED) != 0;
    int infinity = (in[0] & ZC_FLAG_INFINITY) != 0;
    int largest = (in[0] & ZC_FLAG_LARGEST) != 0;
    if (compressed != (len == ZC_COORD)) return ZKPIPE_ERR_BAD_ENCODING;
    if (infinity) {
        if (largest || (in[0] & 0x1f) != 0) return ZKPIPE_ERR_BAD_ENCODING;
        for (size_t i = 1; i < len; i++)
            if (in[i] != 0) return ZKPIPE_ERR_BAD_ENCODING;
        C_FN(set_zero)(&p->x);
        C_FN(set_zero)(&p->y);
        return ZKPIPE_OK;
    }
    if (largest && !compressed) return ZKPIPE_ERR_BAD_ENCODING;
    uint8_t body[2 * ZC_COORD];
    memcpy(body, in, len);
    body[0] &= 0x1f;
    G_AFF t;
    _Static_assert(sizeof t.x == ZC_DEG * sizeof(bls12_381_fp_t), "coordinate layout");
    zkpipe_status st = G_FN(zc_read_coord_)((bls12_381_fp_t *)&t.x, body);
    if (st != ZKPIPE_OK) return st;
    if (compressed) {
        if (!G_FN(zc_y_from_x_)(&t)) return ZKPIPE_ERR_NOT_ON_CURVE;
        if (G_FN(zc_is_largest_)((const bls12_381_fp_t *)&t.y) != largest) C_FN(neg)(&t.y, &t.y);
    } else {
        st = G_FN(zc_read_coord_)((bls12_381_fp_t *)&t.y, body + ZC_COORD);
        if (st != ZKPIPE_OK) return st;
        /* The all-zero body is not infinity here (the flag says so), and
         * (0, 0) is not on the curve, so the check below rejects it. */
        if (G_FN(zc_is_zero_point_)(&t)) return ZKPIPE_ERR_NOT_ON_CURVE;
    }
    if (!G_FN(affine_is_on_curve)(&t)) return ZKPIPE_ERR_NOT_ON_CURVE;
    if (subgroup && !G_FN(affine_in_subgroup_var)(&t)) return ZKPIPE_ERR_NOT_IN_SUBGROUP;
    *p = t;
    return ZKPIPE_OK;
}

zkpipe_status G_FN(affine_uncompress)(G_AFF *p, const uint8_t in[ZC_COORD]) {
    return G_FN(zc_decode_)(p, in, ZC_COORD, 1);
}

zkpipe_status G_FN(affine_deserialize)(G_AFF *p, const uint8_t in[2 * ZC_COORD]) {
    return G_FN(zc_decode_)(p, in, 2 * ZC_COORD, 1);
}

zkpipe_status G_FN(affine_deserialize_on_curve)(G_AFF *p, const uint8_t in[2 * ZC_COORD]) {
    return G_FN(zc_decode_)(p, in, 2 * ZC_COORD, 0);
}

void G_FN(affine_compress)(uint8_t out[ZC_COORD], const G_AFF *p) {
    memset(out, 0, ZC_COORD);
    if (G_FN(zc_is_zero_point_)(p)) {
        out[0] = ZC_FLAG_COMPRESSED | ZC_FLAG_INFINITY;
        return;
    }
    G_FN(zc_write_coord_)(out, (const bls12_381_fp_t *)&p->x);
    out[0] |= ZC_FLAG_COMPRESSED;
    if (G_FN(zc_is_largest_)((const bls12_381_fp_t *)&p->y)) out[0] |= ZC_FLAG_LARGEST;
}

void G_FN(affine_serialize)(uint8_t out[2 * ZC_COORD], const G_AFF *p) {
    memset(out, 0, 2 * ZC_COORD);
    if (G_FN(zc_is_zero_point_)(p)) {
        out[0] = ZC_FLAG_INFINITY;
        return;
    }
    G_FN(zc_write_coord_)(out, (const bls12_381_fp_t *)&p->x);
    G_FN(zc_write_coord_)(out + ZC_COORD, (const bls12_381_fp_t *)&p->y);
}

#undef G_FN
#undef G_AFF
#undef ZC_COORD
#undef C_T
#undef C_FN
#undef ZC_FIELD
#undef ZC_SET_B
#undef ZC_GROUP
#undef ZC_DEG
