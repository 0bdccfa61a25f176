/* The eight-lane AVX-512 IFMA arithmetic and the bucket additions built on
 * it (src/msm/msm_ifma.c) against the scalar field and curve code, which
 * their own tests check against independent references. Skipped where the
 * IFMA path is not selected (no avx512ifma, or ZKPIPE_FORCE_PORTABLE). */
#include <stdint.h>
#include <string.h>

#include "curve/bls12_381_g1.h"
#include "curve/bn254_g1.h"
#include "msm/msm_ifma.h"
#include "msm/msm_util.h"
#include "test.h"
#include "util/cpu.h"

static void ifma_require(void) {
#ifdef ZKP_HAVE_X86_ASM
    if (!zkp_cpu_use_ifma) test_skip("AVX-512 IFMA path not selected on this machine");
#else
    test_skip("built without ZKP_HAVE_X86_ASM");
#endif
}

#ifdef ZKP_HAVE_X86_ASM

/* Instantiated per prime field: F (the field), FK (its constant prefix),
 * F2 (its quadratic extension), after field_sample_impl.h for the same
 * field (test_<F>_rand). */
#define IF_(op) ZKP_CAT(ZKP_CAT(test_ifma_, F), ZKP_CAT(_, op))
#define FT ZKP_CAT(F, _t)
#define FF(op) ZKP_CAT(ZKP_CAT(F, _), op)
#define IF_W ((int)(sizeof(FT) / sizeof(uint64_t)))
#define IF_RAND ZKP_CAT(ZKP_CAT(test_, F), _rand)

#define IFMA_FIELD_TESTS                                                                             \
    /* Edge values: 0, 1, 2, R mod p, p - 1, p - 2, (p - 1) / 2, and values whose 52-bit limbs      \
     * are all ones below p's top limb. */                                                           \
    static void IF_(edge)(FT *r, unsigned e) {                                                       \
        static const uint64_t p[] = ZKP_CAT(FK, _MODULUS), half[] = ZKP_CAT(FK, _P_MINUS_1_HALF);     \
        memset(r, 0, sizeof *r);                                                                     \
        switch (e % 8) {                                                                             \
        case 0: break;                                                                               \
        case 1: r->l[0] = 1; break;                                                                  \
        case 2: r->l[0] = 2; break;                                                                  \
        case 3: *r = FF(one_mont); break;                                                            \
        case 4: memcpy(r->l, p, sizeof r->l); r->l[0] -= 1; break;                                   \
        case 5: memcpy(r->l, p, sizeof r->l); r->l[0] -= 2; break;                                   \
        case 6: memcpy(r->l, half, sizeof r->l); break;                                              \
        default:                                                                                     \
            for (int i = 0; i < IF_W - 1; i++) r->l[i] = ~0ULL;                                      \
            r->l[IF_W - 1] = p[IF_W - 1] - 1;                                                        \
            break;                                                                                   \
        }                                                                                            \
    }                                                                                                \
    static void IF_(check_mul_sub)(const FT a[8], const FT b[8]) {                                   \
        FT r[8], s[8], want;                                                                         \
        ZKP_CAT(zkp_ifma_, ZKP_CAT(F, _mul_sub8))(r, s, a, b);                                       \
        for (int e = 0; e < 8; e++) {                                                                \
            FF(mul)(&want, &a[e], &b[e]);                                                            \
            ASSERT_MSG(memcmp(&want, &r[e], sizeof want) == 0, "lane %d: a b differs", e);           \
            FF(sub)(&want, &a[e], &b[e]);                                                            \
            ASSERT_MSG(memcmp(&want, &s[e], sizeof want) == 0, "lane %d: a - b differs", e);         \
        }                                                                                            \
    }                                                                                                \
    static void IF_(field)(void) {                                                                   \
        ifma_require();                                                                              \
        FT a[8], b[8];                                                                               \
        for (unsigned ea = 0; ea < 8; ea++)                                                          \
            for (unsigned e = 0; e < 8; e++) {                                                       \
                IF_(edge)(&a[e], ea);                                                                \
                IF_(edge)(&b[e], e);                                                                 \
            }                                                                                        \
        for (unsigned ea = 0; ea < 8; ea++) {                                                        \
            for (unsigned e = 0; e < 8; e++) {                                                       \
                IF_(edge)(&a[e], ea);                                                                \
                IF_(edge)(&b[e], e);                                                                 \
            }                                                                                        \
            IF_(check_mul_sub)(a, b);                                                                \
        }                                                                                            \
        unsigned iters = test_iters(2000);                                                           \
        for (unsigned it = 0; it < iters; it++) {                                                    \
            for (int e = 0; e < 8; e++) {                                                            \
                IF_RAND(&a[e]);                                                                      \
                if (it % 4 == 1) IF_(edge)(&b[e], (unsigned)test_rng_u64());                         \
                else if (it % 4 == 2) b[e] = a[e];                                                   \
                else IF_RAND(&b[e]);                                                                 \
            }                                                                                        \
            IF_(check_mul_sub)(a, b);                                                                \
        }                                                                                            \
    }

/* k random bucket additions through the kernel against one Jacobian
 * addition each. Instantiated per group: G, with GF_T and GFF the type and
 * functions of its coordinate field. */
#define IFMA_BATCH_TEST                                                                              \
    static void ZKP_CAT(ZKP_CAT(test_ifma_, G), _batch_add)(size_t k) {                              \
        static GA pts[2 * ZKP_MSM_BATCH], orig[2 * ZKP_MSM_BATCH], want[ZKP_MSM_BATCH];              \
        GA *dst[ZKP_MSM_BATCH];                                                                      \
        const GA *src[ZKP_MSM_BATCH];                                                                \
        GF_T den[ZKP_MSM_BATCH];                                                                     \
        static GJ walk[2 * ZKP_MSM_BATCH], jw[ZKP_MSM_BATCH];                                        \
        GJ cur, step;                                                                                \
        GA g;                                                                                        \
        uint64_t s[4] = {test_rng_u64(), test_rng_u64(), 0, 0};                                      \
        GF(generator)(&g);                                                                           \
        GF(from_affine)(&cur, &g);                                                                   \
        GF(mul_var)(&step, &cur, s, 128);                                                            \
        for (size_t i = 0; i < 2 * k; i++) {                                                         \
            GF(add)(&cur, &cur, &step);                                                              \
            walk[i] = cur;                                                                           \
        }                                                                                            \
        GF(batch_to_affine_var)(pts, walk, 2 * k);                                                   \
        memcpy(orig, pts, 2 * k * sizeof *pts);                                                      \
        /* dst and src interleaved in memory, paired in a shuffled order. */                        \
        for (size_t j = 0; j < k; j++) {                                                             \
            size_t d = (j * 37) % k;                                                                 \
            dst[j] = &pts[2 * d];                                                                    \
            src[j] = &pts[2 * d + 1];                                                                \
            GFF(sub)(&den[j], &src[j]->x, &dst[j]->x);                                               \
            GJ a;                                                                                    \
            GF(from_affine)(&a, dst[j]);                                                             \
            GF(add_affine)(&jw[j], &a, src[j]);                                                      \
        }                                                                                            \
        GF(batch_to_affine_var)(want, jw, k);                                                        \
        ZKP_CAT(G, _msm_ifma_batch_add)(dst, src, den, k);                                           \
        for (size_t j = 0; j < k; j++) {                                                             \
            ASSERT_MSG(GF(affine_eq)(dst[j], &want[j]), "k = %zu: addition %zu differs", k, j);      \
            ASSERT_MSG(GF(affine_eq)(src[j], &orig[2 * ((j * 37) % k) + 1]), "src moved");           \
        }                                                                                            \
    }

/* Eight random Fp2 products and differences against the scalar ones. */
#define IFMA_FP2_TEST                                                                                \
    static void ZKP_CAT(ZKP_CAT(test_ifma_, F2), _field)(void) {                                     \
        ZKP_CAT(F2, _t) a[8], b[8], r[8], d[8], want;                                                \
        unsigned iters = test_iters(500);                                                            \
        for (unsigned it = 0; it < iters; it++) {                                                    \
            for (int e = 0; e < 8; e++) {                                                            \
                IF_RAND(&a[e].c0);                                                                   \
                IF_RAND(&a[e].c1);                                                                   \
                if (it % 3 == 1) {                                                                   \
                    IF_(edge)(&b[e].c0, (unsigned)test_rng_u64());                                   \
                    IF_(edge)(&b[e].c1, (unsigned)test_rng_u64());                                   \
                } else if (it % 3 == 2) {                                                            \
                    b[e] = a[e];                                                                     \
                } else {                                                                             \
                    IF_RAND(&b[e].c0);                                                               \
                    IF_RAND(&b[e].c1);                                                               \
                }                                                                                    \
            }                                                                                        \
            ZKP_CAT(zkp_ifma_, ZKP_CAT(F2, _mul_sub8))(r, d, a, b);                                  \
            for (int e = 0; e < 8; e++) {                                                            \
                ZKP_CAT(F2, _mul)(&want, &a[e], &b[e]);                                              \
                ASSERT_MSG(memcmp(&want, &r[e], sizeof want) == 0, "lane %d: a b differs", e);       \
                ZKP_CAT(F2, _sub)(&want, &a[e], &b[e]);                                              \
                ASSERT_MSG(memcmp(&want, &d[e], sizeof want) == 0, "lane %d: a - b differs", e);     \
            }                                                                                        \
        }                                                                                            \
    }

#define F bn254_fq
#define FK BN254_FQ
#define F2 bn254_fq2
#include "field_sample_impl.h"
IFMA_FIELD_TESTS
IFMA_FP2_TEST
#undef F
#undef FK
#undef F2
#define F bls12_381_fp
#define FK BLS12_381_FP
#define F2 bls12_381_fp2
#include "field_sample_impl.h"
IFMA_FIELD_TESTS
IFMA_FP2_TEST
#undef F
#undef FK
#undef F2

#define GA ZKP_CAT(G, _affine_t)
#define GJ ZKP_CAT(G, _jacobian_t)
#define GF(op) ZKP_CAT(ZKP_CAT(G, _), op)
#define GF_T ZKP_CAT(GFIELD, _t)
#define GFF(op) ZKP_CAT(ZKP_CAT(GFIELD, _), op)
#define G bn254_g1
#define GFIELD bn254_fq
IFMA_BATCH_TEST
#undef G
#undef GFIELD
#define G bls12_381_g1
#define GFIELD bls12_381_fp
IFMA_BATCH_TEST
#undef G
#undef GFIELD
#define G bn254_g2
#define GFIELD bn254_fq2
IFMA_BATCH_TEST
#undef G
#undef GFIELD
#define G bls12_381_g2
#define GFIELD bls12_381_fp2
IFMA_BATCH_TEST
#undef G
#undef GFIELD

static const size_t ifma_batch_sizes[] = {ZKP_MSM_IFMA_MIN_BATCH, 33, 39, 64, 255, ZKP_MSM_BATCH};
#define IFMA_BATCH_RUN(g)                                          \
    for (size_t i = 0; i < ZKP_ARRAY_LEN(ifma_batch_sizes); i++) \
    ZKP_CAT(ZKP_CAT(test_ifma_, g), _batch_add)(ifma_batch_sizes[i])
#define IFMA_RUN(body) \
    do {               \
        ifma_require(); \
        body;          \
    } while (0)
#else
#define IFMA_RUN(body) ifma_require()
#endif

TEST_CASE(ifma_field_bn254_fq) { IFMA_RUN(test_ifma_bn254_fq_field()); }
TEST_CASE(ifma_field_bls12_381_fp) { IFMA_RUN(test_ifma_bls12_381_fp_field()); }
TEST_CASE(ifma_field_bn254_fq2) { IFMA_RUN(test_ifma_bn254_fq2_field()); }
TEST_CASE(ifma_field_bls12_381_fp2) { IFMA_RUN(test_ifma_bls12_381_fp2_field()); }
TEST_CASE(ifma_batch_add_bn254_g1) { IFMA_RUN(IFMA_BATCH_RUN(bn254_g1)); }
TEST_CASE(ifma_batch_add_bls12_381_g1) { IFMA_RUN(IFMA_BATCH_RUN(bls12_381_g1)); }
TEST_CASE(ifma_batch_add_bn254_g2) { IFMA_RUN(IFMA_BATCH_RUN(bn254_g2)); }
TEST_CASE(ifma_batch_add_bls12_381_g2) { IFMA_RUN(IFMA_BATCH_RUN(bls12_381_g2)); }
