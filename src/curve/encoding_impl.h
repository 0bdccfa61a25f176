/* Point encodings shared by every group: the circom/snarkjs binary layout and
 * snarkjs's decimal strings. Instantiated once per group by encoding.c with
 *
 *     #define ENC_GROUP bn254_g2     (the group prefix)
 *     #define ENC_BASE  bn254_fq     (the prime field under the coordinates)
 *     #define ENC_BASE_PARAM BN254_FQ
 *     #define ENC_DEG   2            (1 for G1 over Fp, 2 for G2 over Fp2)
 *
 * A coordinate is ENC_DEG prime-field elements in a row (c0 then c1), the
 * order both formats use. Decoders check, in this order: lengths and
 * characters (ZKPIPE_ERR_BAD_ENCODING), each element < p
 * (ZKPIPE_ERR_NON_CANONICAL), the curve equation (ZKPIPE_ERR_NOT_ON_CURVE)
 * and membership of the prime-order subgroup (ZKPIPE_ERR_NOT_IN_SUBGROUP).
 * The all-zero encoding is the point at infinity in the binary layout, as
 * snarkjs writes it. */
#define G_FN(op) ZKP_CAT(ZKP_CAT(ENC_GROUP, _), op)
#define G_AFF ZKP_CAT(ENC_GROUP, _affine_t)
#define B_T ZKP_CAT(ENC_BASE, _t)
#define B_FN(op) ZKP_CAT(ZKP_CAT(ENC_BASE, _), op)
#define B_BYTES ZKP_CAT(ENC_BASE_PARAM, _BYTES)

/* The affine coordinates as 2·ENC_DEG prime-field elements: x parts, then y. */
static B_T *G_FN(enc_part_)(G_AFF *p, int i) {
    _Static_assert(sizeof(p->x) == ENC_DEG * sizeof(B_T), "coordinate layout");
    return i < ENC_DEG ? &((B_T *)&p->x)[i] : &((B_T *)&p->y)[i - ENC_DEG];
}

/* The checks every decoder ends with; x and y hold reduced elements. */
static zkpipe_status G_FN(enc_validate_)(const G_AFF *p) {
    if (!G_FN(affine_is_on_curve)(p)) return ZKPIPE_ERR_NOT_ON_CURVE;
    if (!G_FN(affine_in_subgroup_var)(p)) return ZKPIPE_ERR_NOT_IN_SUBGROUP;
    return ZKPIPE_OK;
}

static int G_FN(enc_is_infinity_)(G_AFF *p) {
    int zero = 1;
    for (int i = 0; i < 2 * ENC_DEG; i++) zero &= B_FN(is_zero)(G_FN(enc_part_)(p, i));
    return zero;
}

zkpipe_status G_FN(affine_from_circom)(G_AFF *p, const uint8_t in[2 * ENC_DEG * B_BYTES]) {
    G_AFF t;
    for (int i = 0; i < 2 * ENC_DEG; i++) {
        zkpipe_status st = B_FN(from_mont_bytes_le)(G_FN(enc_part_)(&t, i), in + i * B_BYTES);
        if (st != ZKPIPE_OK) return st;
    }
    if (!G_FN(enc_is_infinity_)(&t)) {
        zkpipe_status st = G_FN(enc_validate_)(&t);
        if (st != ZKPIPE_OK) return st;
    }
    *p = t;
    return ZKPIPE_OK;
}

void G_FN(affine_to_circom)(uint8_t out[2 * ENC_DEG * B_BYTES], const G_AFF *p) {
    G_AFF t = *p;
    for (int i = 0; i < 2 * ENC_DEG; i++) B_FN(to_mont_bytes_le)(out + i * B_BYTES, G_FN(enc_part_)(&t, i));
}

/* snarkjs writes a point as projective decimal strings with z = 1, and the
 * point at infinity as (0, 1, 0); for G2 each coordinate is two strings. */
zkpipe_status G_FN(affine_from_dec)(G_AFF *p, const char *const *dec, size_t count) {
    if (count != 2 * ENC_DEG && count != 3 * ENC_DEG) return ZKPIPE_ERR_BAD_ENCODING;
    B_T z[ENC_DEG];
    G_AFF t;
    for (size_t i = 0; i < count; i++) {
        if (dec[i] == NULL) return ZKPIPE_ERR_BAD_ENCODING;
        B_T *dst = i < 2 * ENC_DEG ? G_FN(enc_part_)(&t, (int)i) : &z[i - 2 * ENC_DEG];
        zkpipe_status st = B_FN(from_dec)(dst, dec[i], strlen(dec[i]));
        if (st != ZKPIPE_OK) return st;
    }
    if (count == 3 * ENC_DEG) {
        /* Only z = 1 (a finite point) and z = 0 (infinity) occur in snarkjs files. */
        int z_one = B_FN(is_one)(&z[0]), z_zero = B_FN(is_zero)(&z[0]);
        for (int i = 1; i < ENC_DEG; i++) {
            z_one &= B_FN(is_zero)(&z[i]);
            z_zero &= B_FN(is_zero)(&z[i]);
        }
        if (z_zero) {
            for (int i = 0; i < 2 * ENC_DEG; i++) B_FN(set_zero)(G_FN(enc_part_)(p, i));
            return ZKPIPE_OK;
        }
        if (!z_one) return ZKPIPE_ERR_BAD_ENCODING;
    } else if (G_FN(enc_is_infinity_)(&t)) {
        *p = t;
        return ZKPIPE_OK;
    }
    zkpipe_status st = G_FN(enc_validate_)(&t);
    if (st != ZKPIPE_OK) return st;
    *p = t;
    return ZKPIPE_OK;
}

zkpipe_status G_FN(affine_to_dec)(char out[][ZKP_DEC_MAX], size_t count, const G_AFF *p) {
    if (count != 3 * ENC_DEG) return ZKPIPE_ERR_INVALID_ARGUMENT;
    G_AFF t = *p;
    int inf = G_FN(enc_is_infinity_)(&t);
    for (int i = 0; i < 3 * ENC_DEG; i++) {
        B_T v;
        if (i < 2 * ENC_DEG && !inf) {
            v = *G_FN(enc_part_)(&t, i);
        } else {
            /* z = 1 for a finite point; (0, 1, 0) for infinity. */
            int one = inf ? (i == ENC_DEG) : (i == 2 * ENC_DEG);
            if (one)
                B_FN(set_one)(&v);
            else
                B_FN(set_zero)(&v);
        }
        if (B_FN(to_dec)(out[i], ZKP_DEC_MAX, &v) == 0) return ZKPIPE_ERR_INVALID_ARGUMENT;
    }
    return ZKPIPE_OK;
}

#undef G_FN
#undef G_AFF
#undef B_T
#undef B_FN
#undef B_BYTES
#undef ENC_GROUP
#undef ENC_BASE
#undef ENC_BASE_PARAM
#undef ENC_DEG
