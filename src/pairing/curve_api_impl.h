/* The public curve API (include/zkpipe/curve.h) for one curve. Included by
 * curve_api.c with API_CURVE (bn254 or bls12_381), API_FP (the base field),
 * API_FP2, API_FP12 and, for BLS12-381, API_ZCASH. Each function is the
 * body behind one public call; curve_api.c picks the curve at run time. */
#define C_FN(op) ZKP_CAT(ZKP_CAT(API_CURVE, _api_), op)
#define G1_FN(op) ZKP_CAT(ZKP_CAT(API_CURVE, _g1_), op)
#define G2_FN(op) ZKP_CAT(ZKP_CAT(API_CURVE, _g2_), op)
#define G1_AFF ZKP_CAT(API_CURVE, _g1_affine_t)
#define G2_AFF ZKP_CAT(API_CURVE, _g2_affine_t)
#define G1_JAC ZKP_CAT(API_CURVE, _g1_jacobian_t)
#define G2_JAC ZKP_CAT(API_CURVE, _g2_jacobian_t)
#define GT_T ZKP_CAT(API_FP12, _t)
#define P_FN(op) ZKP_CAT(ZKP_CAT(API_CURVE, _), op)

_Static_assert(sizeof(G1_AFF) <= sizeof(zkpipe_g1), "zkpipe_g1 too small");
_Static_assert(sizeof(G2_AFF) <= sizeof(zkpipe_g2), "zkpipe_g2 too small");
_Static_assert(sizeof(GT_T) <= sizeof(zkpipe_gt), "zkpipe_gt too small");

/* The opaque public types hold the internal affine point in their first
 * bytes; copying through memcpy keeps the aliasing rules intact. */
#define API_DEFINE_GROUP(GFN, AFF, JAC, PUB)                                                    \
    static AFF C_FN(GFN##load_)(const PUB *p) {                                                \
        AFF a;                                                                                  \
        memcpy(&a, p->opaque, sizeof a);                                                        \
        return a;                                                                               \
    }                                                                                           \
    static void C_FN(GFN##store_)(PUB *out, const AFF *a) {                                    \
        memset(out, 0, sizeof *out);                                                            \
        memcpy(out->opaque, a, sizeof *a);                                                      \
    }                                                                                           \
    static void C_FN(GFN##generator)(PUB *out) {                                               \
        AFF g;                                                                                  \
        ZKP_CAT(API_CURVE, _##GFN##generator)(&g);                                              \
        C_FN(GFN##store_)(out, &g);                                                             \
    }                                                                                           \
    static void C_FN(GFN##infinity)(PUB *out) {                                                \
        AFF g;                                                                                  \
        ZKP_CAT(API_CURVE, _##GFN##affine_set_infinity)(&g);                                    \
        C_FN(GFN##store_)(out, &g);                                                             \
    }                                                                                           \
    static void C_FN(GFN##add)(PUB *out, const PUB *a, const PUB *b) {                         \
        AFF x = C_FN(GFN##load_)(a), y = C_FN(GFN##load_)(b);                                 \
        JAC j;                                                                                  \
        ZKP_CAT(API_CURVE, _##GFN##from_affine)(&j, &x);                                        \
        ZKP_CAT(API_CURVE, _##GFN##add_affine)(&j, &j, &y);                                     \
        ZKP_CAT(API_CURVE, _##GFN##to_affine)(&x, &j);                                          \
        C_FN(GFN##store_)(out, &x);                                                             \
    }                                                                                           \
    static void C_FN(GFN##neg)(PUB *out, const PUB *a) {                                       \
        AFF x = C_FN(GFN##load_)(a);                                                            \
        ZKP_CAT(API_CURVE, _##GFN##affine_neg)(&x, &x);                                         \
        C_FN(GFN##store_)(out, &x);                                                             \
    }                                                                                           \
    static void C_FN(GFN##mul)(PUB *out, const PUB *a, const uint8_t scalar_be[32]) {          \
        uint64_t k[4] = {0};                                                                    \
        for (int i = 0; i < 32; i++) k[i / 8] |= (uint64_t)scalar_be[31 - i] << (8 * (i % 8)); \
        AFF x = C_FN(GFN##load_)(a);                                                            \
        JAC j;                                                                                  \
        ZKP_CAT(API_CURVE, _##GFN##from_affine)(&j, &x);                                        \
        ZKP_CAT(API_CURVE, _##GFN##mul)(&j, &j, k, 256);                                        \
        ZKP_CAT(API_CURVE, _##GFN##to_affine)(&x, &j);                                          \
        C_FN(GFN##store_)(out, &x);                                                             \
    }                                                                                           \
    static int C_FN(GFN##eq)(const PUB *a, const PUB *b) {                                     \
        AFF x = C_FN(GFN##load_)(a), y = C_FN(GFN##load_)(b);                                 \
        return ZKP_CAT(API_CURVE, _##GFN##affine_eq)(&x, &y);                                   \
    }                                                                                           \
    static zkpipe_status C_FN(GFN##from_dec)(PUB *out, const char *const *coords, size_t n) {  \
        AFF x;                                                                                  \
        zkpipe_status st = ZKP_CAT(API_CURVE, _##GFN##affine_from_dec)(&x, coords, n);          \
        if (st == ZKPIPE_OK) C_FN(GFN##store_)(out, &x);                                        \
        return st;                                                                              \
    }                                                                                           \
    static zkpipe_status C_FN(GFN##to_dec)(char out[][ZKPIPE_DECIMAL_MAX], size_t n,            \
                                           const PUB *p) {                                      \
        AFF x = C_FN(GFN##load_)(p);                                                            \
        return ZKP_CAT(API_CURVE, _##GFN##affine_to_dec)(out, n, &x);                           \
    }                                                                                           \
    static zkpipe_status C_FN(GFN##decode_circom)(PUB *out, const uint8_t *in) {               \
        AFF x;                                                                                  \
        zkpipe_status st = ZKP_CAT(API_CURVE, _##GFN##affine_from_circom)(&x, in);              \
        if (st == ZKPIPE_OK) C_FN(GFN##store_)(out, &x);                                        \
        return st;                                                                              \
    }                                                                                           \
    static void C_FN(GFN##encode_circom)(uint8_t *out, const PUB *p) {                         \
        AFF x = C_FN(GFN##load_)(p);                                                            \
        ZKP_CAT(API_CURVE, _##GFN##affine_to_circom)(out, &x);                                  \
    }

API_DEFINE_GROUP(g1_, G1_AFF, G1_JAC, zkpipe_g1)
API_DEFINE_GROUP(g2_, G2_AFF, G2_JAC, zkpipe_g2)
#undef API_DEFINE_GROUP

static void C_FN(pairing)(zkpipe_gt *out, const zkpipe_g1 *p, const zkpipe_g2 *q) {
    G1_AFF a = C_FN(g1_load_)(p);
    G2_AFF b = C_FN(g2_load_)(q);
    GT_T r;
    P_FN(pairing)(&r, &a, &b);
    memset(out, 0, sizeof *out);
    memcpy(out->opaque, &r, sizeof r);
}

/* The public arrays have the stride of the opaque types, so pairs are
 * copied into internal arrays a chunk at a time; the Miller loop values of
 * the chunks multiply into one accumulator before the single final
 * exponentiation. */
static int C_FN(pairing_check)(const zkpipe_g1 *p, const zkpipe_g2 *q, size_t n) {
    enum { CHUNK = 8 };
    GT_T acc, f;
    ZKP_CAT(API_FP12, _set_one)(&acc);
    for (size_t at = 0; at < n; at += CHUNK) {
        G1_AFF a[CHUNK];
        G2_AFF b[CHUNK];
        size_t m = n - at < CHUNK ? n - at : CHUNK;
        for (size_t i = 0; i < m; i++) {
            a[i] = C_FN(g1_load_)(&p[at + i]);
            b[i] = C_FN(g2_load_)(&q[at + i]);
        }
        P_FN(miller_loop)(&f, a, b, m);
        ZKP_CAT(API_FP12, _mul)(&acc, &acc, &f);
    }
    P_FN(final_exp)(&f, &acc);
    return ZKP_CAT(API_FP12, _is_one)(&f);
}

static int C_FN(gt_eq)(const zkpipe_gt *a, const zkpipe_gt *b) {
    GT_T x, y;
    memcpy(&x, a->opaque, sizeof x);
    memcpy(&y, b->opaque, sizeof y);
    return ZKP_CAT(API_FP12, _eq)(&x, &y);
}

static void C_FN(gt_mul)(zkpipe_gt *out, const zkpipe_gt *a, const zkpipe_gt *b) {
    GT_T x, y;
    memcpy(&x, a->opaque, sizeof x);
    memcpy(&y, b->opaque, sizeof y);
    ZKP_CAT(API_FP12, _mul)(&x, &x, &y);
    memset(out, 0, sizeof *out);
    memcpy(out->opaque, &x, sizeof x);
}

#undef C_FN
#undef G1_FN
#undef G2_FN
#undef G1_AFF
#undef G2_AFF
#undef G1_JAC
#undef G2_JAC
#undef GT_T
#undef P_FN
#undef API_CURVE
#undef API_FP12
