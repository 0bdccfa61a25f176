/* The public curve API: the curve is a run-time value, so each call
 * dispatches to the per-curve bodies that curve_api_impl.h generates. */
#include <string.h>
#include <strings.h>

#include "curve/curve.h"
#include "curve/encoding.h"
#include "pairing/pairing.h"
#include "zkpipe/curve.h"

_Static_assert(ZKPIPE_DECIMAL_MAX == ZKP_DEC_MAX, "decimal buffer sizes agree");

#define API_CURVE bn254
#define API_FP12 bn254_fq12
#include "pairing/curve_api_impl.h"
#define API_CURVE bls12_381
#define API_FP12 bls12_381_fp12
#include "pairing/curve_api_impl.h"

/* Runs BN for BN254 and BLS for BLS12-381; any other value is refused. */
#define DISPATCH(curve, BN, BLS)             \
    switch (curve) {                         \
    case ZKPIPE_CURVE_BN254:                 \
        BN;                                  \
        break;                               \
    case ZKPIPE_CURVE_BLS12_381:             \
        BLS;                                 \
        break;                               \
    default:                                 \
        return ZKPIPE_ERR_UNSUPPORTED;       \
    }

zkpipe_status zkpipe_curve_from_name(zkpipe_curve *out, const char *name) {
    static const struct {
        const char *name;
        zkpipe_curve curve;
    } names[] = {
        {"bn128", ZKPIPE_CURVE_BN254},         {"bn254", ZKPIPE_CURVE_BN254},
        {"alt_bn128", ZKPIPE_CURVE_BN254},     {"bls12381", ZKPIPE_CURVE_BLS12_381},
        {"bls12_381", ZKPIPE_CURVE_BLS12_381}, {"bls12-381", ZKPIPE_CURVE_BLS12_381},
    };
    if (out == NULL || name == NULL) return ZKPIPE_ERR_INVALID_ARGUMENT;
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strcasecmp(name, names[i].name) == 0) {
            *out = names[i].curve;
            return ZKPIPE_OK;
        }
    return ZKPIPE_ERR_UNSUPPORTED;
}

const char *zkpipe_curve_name(zkpipe_curve curve) {
    switch (curve) {
    case ZKPIPE_CURVE_BN254:
        return "bn128";
    case ZKPIPE_CURVE_BLS12_381:
        return "bls12381";
    default:
        return "unknown";
    }
}

/* Bytes of one base-field element, or 0 for an unknown curve. */
static size_t base_bytes(zkpipe_curve curve) {
    return curve == ZKPIPE_CURVE_BN254 ? 32 : curve == ZKPIPE_CURVE_BLS12_381 ? 48 : 0;
}

static size_t encoded_size(zkpipe_curve curve, zkpipe_encoding enc, size_t degree) {
    size_t w = base_bytes(curve);
    switch (enc) {
    case ZKPIPE_ENCODING_CIRCOM:
        return 2 * degree * w;
    case ZKPIPE_ENCODING_ZCASH_COMPRESSED:
        return curve == ZKPIPE_CURVE_BLS12_381 ? degree * w : 0;
    case ZKPIPE_ENCODING_ZCASH_UNCOMPRESSED:
        return curve == ZKPIPE_CURVE_BLS12_381 ? 2 * degree * w : 0;
    default:
        return 0;
    }
}

size_t zkpipe_g1_encoded_size(zkpipe_curve curve, zkpipe_encoding enc) { return encoded_size(curve, enc, 1); }
size_t zkpipe_g2_encoded_size(zkpipe_curve curve, zkpipe_encoding enc) { return encoded_size(curve, enc, 2); }

/* The bodies shared by G1 and G2: the group is a token (g1_ or g2_) and PUB
 * the public type. */
#define API_PUBLIC_GROUP(GRP, PUB, DEGREE)                                                               \
    zkpipe_status zkpipe_##GRP##generator(zkpipe_curve curve, PUB *out) {                               \
        if (out == NULL) return ZKPIPE_ERR_INVALID_ARGUMENT;                                           \
        DISPATCH(curve, bn254_api_##GRP##generator(out), bls12_381_api_##GRP##generator(out));         \
        return ZKPIPE_OK;                                                                              \
    }                                                                                                  \
    zkpipe_status zkpipe_##GRP##infinity(zkpipe_curve curve, PUB *out) {                                \
        if (out == NULL) return ZKPIPE_ERR_INVALID_ARGUMENT;                                           \
        DISPATCH(curve, bn254_api_##GRP##infinity(out), bls12_381_api_##GRP##infinity(out));           \
        return ZKPIPE_OK;                                                                              \
    }                                                                                                  \
    zkpipe_status zkpipe_##GRP##add(zkpipe_curve curve, PUB *out, const PUB *a, const PUB *b) {         \
        if (out == NULL || a == NULL || b == NULL) return ZKPIPE_ERR_INVALID_ARGUMENT;                 \
        DISPATCH(curve, bn254_api_##GRP##add(out, a, b), bls12_381_api_##GRP##add(out, a, b));         \
        return ZKPIPE_OK;                                                                              \
    }                                                                                                  \
    zkpipe_status zkpipe_##GRP##neg(zkpipe_curve curve, PUB *out, const PUB *a) {                       \
        if (out == NULL || a == NULL) return ZKPIPE_ERR_INVALID_ARGUMENT;                              \
        DISPATCH(curve, bn254_api_##GRP##neg(out, a), bls12_381_api_##GRP##neg(out, a));               \
        return ZKPIPE_OK;                                                                              \
    }                                                                                                  \
    zkpipe_status zkpipe_##GRP##mul(zkpipe_curve curve, PUB *out, const PUB *a,                         \
                                    const uint8_t scalar_be[32]) {                                     \
        if (out == NULL || a == NULL || scalar_be == NULL) return ZKPIPE_ERR_INVALID_ARGUMENT;         \
        DISPATCH(curve, bn254_api_##GRP##mul(out, a, scalar_be),                                       \
                 bls12_381_api_##GRP##mul(out, a, scalar_be));                                         \
        return ZKPIPE_OK;                                                                              \
    }                                                                                                  \
    zkpipe_status zkpipe_##GRP##eq(zkpipe_curve curve, int *equal, const PUB *a, const PUB *b) {        \
        if (equal == NULL || a == NULL || b == NULL) return ZKPIPE_ERR_INVALID_ARGUMENT;               \
        DISPATCH(curve, *equal = bn254_api_##GRP##eq(a, b), *equal = bls12_381_api_##GRP##eq(a, b));   \
        return ZKPIPE_OK;                                                                              \
    }                                                                                                  \
    zkpipe_status zkpipe_##GRP##from_decimal(zkpipe_curve curve, PUB *out, const char *const *coords,   \
                                             size_t count) {                                           \
        if (out == NULL || coords == NULL) return ZKPIPE_ERR_INVALID_ARGUMENT;                         \
        DISPATCH(curve, return bn254_api_##GRP##from_dec(out, coords, count),                          \
                 return bls12_381_api_##GRP##from_dec(out, coords, count));                            \
    }                                                                                                  \
    zkpipe_status zkpipe_##GRP##to_decimal(zkpipe_curve curve, char out[][ZKPIPE_DECIMAL_MAX],          \
                                           size_t count, const PUB *p) {                               \
        if (out == NULL || p == NULL) return ZKPIPE_ERR_INVALID_ARGUMENT;                              \
        DISPATCH(curve, return bn254_api_##GRP##to_dec(out, count, p),                                 \
                 return bls12_381_api_##GRP##to_dec(out, count, p));                                   \
    }                                                                                                  \
    zkpipe_status zkpipe_##GRP##decode(zkpipe_curve curve, PUB *out, zkpipe_encoding enc,               \
                                       const uint8_t *in, size_t in_len) {                             \
        size_t want = encoded_size(curve, enc, DEGREE);                                                \
        if (out == NULL || in == NULL) return ZKPIPE_ERR_INVALID_ARGUMENT;                             \
        if (want == 0) return ZKPIPE_ERR_UNSUPPORTED;                                                  \
        if (in_len != want) return ZKPIPE_ERR_BAD_ENCODING;                                            \
        if (enc == ZKPIPE_ENCODING_CIRCOM)                                                             \
            DISPATCH(curve, return bn254_api_##GRP##decode_circom(out, in),                            \
                     return bls12_381_api_##GRP##decode_circom(out, in));                              \
        return bls12_381_api_##GRP##decode_zcash(out, enc, in);                                        \
    }                                                                                                  \
    zkpipe_status zkpipe_##GRP##encode(zkpipe_curve curve, uint8_t *out, size_t out_cap,                \
                                       zkpipe_encoding enc, const PUB *p) {                            \
        size_t want = encoded_size(curve, enc, DEGREE);                                                \
        if (out == NULL || p == NULL) return ZKPIPE_ERR_INVALID_ARGUMENT;                              \
        if (want == 0) return ZKPIPE_ERR_UNSUPPORTED;                                                  \
        if (out_cap < want) return ZKPIPE_ERR_INVALID_ARGUMENT;                                        \
        if (enc == ZKPIPE_ENCODING_CIRCOM) {                                                           \
            DISPATCH(curve, bn254_api_##GRP##encode_circom(out, p),                                    \
                     bls12_381_api_##GRP##encode_circom(out, p));                                      \
        } else {                                                                                       \
            bls12_381_api_##GRP##encode_zcash(out, enc, p);                                            \
        }                                                                                              \
        return ZKPIPE_OK;                                                                              \
    }

/* The ZCash forms exist only for BLS12-381; encoded_size has already
 * refused them for BN254 before these run. */
#define API_ZCASH_GROUP(GRP, PUB)                                                                        \
    static zkpipe_status bls12_381_api_##GRP##decode_zcash(PUB *out, zkpipe_encoding enc,                \
                                                           const uint8_t *in) {                          \
        bls12_381_##GRP##affine_t a;                                                                   \
        zkpipe_status st = enc == ZKPIPE_ENCODING_ZCASH_COMPRESSED                                     \
                               ? bls12_381_##GRP##affine_uncompress(&a, in)                            \
                               : bls12_381_##GRP##affine_deserialize(&a, in);                          \
        if (st == ZKPIPE_OK) bls12_381_api_##GRP##store_(out, &a);                                     \
        return st;                                                                                     \
    }                                                                                                  \
    static void bls12_381_api_##GRP##encode_zcash(uint8_t *out, zkpipe_encoding enc, const PUB *p) {    \
        bls12_381_##GRP##affine_t a = bls12_381_api_##GRP##load_(p);                                   \
        if (enc == ZKPIPE_ENCODING_ZCASH_COMPRESSED)                                                   \
            bls12_381_##GRP##affine_compress(out, &a);                                                 \
        else                                                                                           \
            bls12_381_##GRP##affine_serialize(out, &a);                                                \
    }

API_ZCASH_GROUP(g1_, zkpipe_g1)
API_ZCASH_GROUP(g2_, zkpipe_g2)
API_PUBLIC_GROUP(g1_, zkpipe_g1, 1)
API_PUBLIC_GROUP(g2_, zkpipe_g2, 2)

zkpipe_status zkpipe_pairing(zkpipe_curve curve, zkpipe_gt *out, const zkpipe_g1 *p, const zkpipe_g2 *q) {
    if (out == NULL || p == NULL || q == NULL) return ZKPIPE_ERR_INVALID_ARGUMENT;
    DISPATCH(curve, bn254_api_pairing(out, p, q), bls12_381_api_pairing(out, p, q));
    return ZKPIPE_OK;
}

zkpipe_status zkpipe_pairing_check(zkpipe_curve curve, int *is_one, const zkpipe_g1 *p, const zkpipe_g2 *q,
                                   size_t n) {
    if (is_one == NULL || (n > 0 && (p == NULL || q == NULL))) return ZKPIPE_ERR_INVALID_ARGUMENT;
    DISPATCH(curve, *is_one = bn254_api_pairing_check(p, q, n), *is_one = bls12_381_api_pairing_check(p, q, n));
    return ZKPIPE_OK;
}

zkpipe_status zkpipe_gt_eq(zkpipe_curve curve, int *equal, const zkpipe_gt *a, const zkpipe_gt *b) {
    if (equal == NULL || a == NULL || b == NULL) return ZKPIPE_ERR_INVALID_ARGUMENT;
    DISPATCH(curve, *equal = bn254_api_gt_eq(a, b), *equal = bls12_381_api_gt_eq(a, b));
    return ZKPIPE_OK;
}

zkpipe_status zkpipe_gt_mul(zkpipe_curve curve, zkpipe_gt *out, const zkpipe_gt *a, const zkpipe_gt *b) {
    if (out == NULL || a == NULL || b == NULL) return ZKPIPE_ERR_INVALID_ARGUMENT;
    DISPATCH(curve, bn254_api_gt_mul(out, a, b), bls12_381_api_gt_mul(out, a, b));
    return ZKPIPE_OK;
}
