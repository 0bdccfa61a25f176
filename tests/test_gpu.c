/* The GPU layer: its device arithmetic against field/ and curve/, on the
 * host (every build with CUDA, GPU or not) and on the device (the GPU
 * suite), and the context's behaviour without a device. */
#include <string.h>

#include "curve/curve.h"
#include "field/field.h"
#include "gpu_support.h"
#include "field/limbs.h"
#include "gpu/gpu_horner.h"

#include "field_samples.h"

enum { OP_MUL, OP_ADD, OP_SUB, OP_FROM_MONT, OP_TO_MONT, OP_SQR, OP_INV, OP_SHOUP, OP_COUNT };

/* The CPU's answer for one op of field f on 64-bit limbs. */
#define CPU_OP_(F)                                              \
    do {                                                        \
        F##_t x, y, r;                                          \
        memcpy(x.l, a, sizeof x.l);                             \
        memcpy(y.l, b, sizeof y.l);                             \
        switch (op) {                                           \
        case OP_MUL:                                            \
        case OP_SHOUP: F##_mul(&r, &x, &y); break;              \
        case OP_ADD: F##_add(&r, &x, &y); break;                \
        case OP_SUB: F##_sub(&r, &x, &y); break;                \
        case OP_FROM_MONT: F##_from_mont(&r, &x); break;        \
        case OP_TO_MONT: F##_to_mont(&r, &x); break;            \
        case OP_SQR: F##_sqr(&r, &x); break;                    \
        default: F##_inv(&r, &x); break;                        \
        }                                                       \
        memcpy(out, r.l, sizeof r.l);                           \
        return (int)(sizeof r.l / 8);                           \
    } while (0)

static int cpu_field_op(int field, int op, uint64_t *out, const uint64_t *a, const uint64_t *b) {
    switch (field) {
    case 0: CPU_OP_(bn254_fq);
    case 1: CPU_OP_(bn254_fr);
    case 2: CPU_OP_(bls12_381_fp);
    default: CPU_OP_(bls12_381_fr);
    }
}

/* A random element of field f, and the edge values 0, 1 and p - 1. */
static int sample(int field, uint64_t *out, unsigned i) {
    uint64_t tmp[6] = {0};
    int limbs;
    switch (field) {
    case 0: test_bn254_fq_rand((bn254_fq_t *)tmp); limbs = 4; break;
    case 1: test_bn254_fr_rand((bn254_fr_t *)tmp); limbs = 4; break;
    case 2: test_bls12_381_fp_rand((bls12_381_fp_t *)tmp); limbs = 6; break;
    default: test_bls12_381_fr_rand((bls12_381_fr_t *)tmp); limbs = 4; break;
    }
    static const uint64_t p0[4] = BN254_FQ_MODULUS, p1[4] = BN254_FR_MODULUS,
                          p2[6] = BLS12_381_FP_MODULUS, p3[4] = BLS12_381_FR_MODULUS;
    const uint64_t *p = field == 0 ? p0 : field == 1 ? p1 : field == 2 ? p2 : p3;
    if (i % 7 == 0) memset(tmp, 0, sizeof tmp);
    if (i % 7 == 1) memset(tmp, 0, sizeof tmp), tmp[0] = 1;
    if (i % 7 == 2) memcpy(tmp, p, 8 * (size_t)limbs), tmp[0] -= 1;
    memcpy(out, tmp, 8 * (size_t)limbs);
    return limbs;
}

static const char *const field_names[4] = {"bn254_fq", "bn254_fr", "bls12_381_fp", "bls12_381_fr"};

TEST_CASE(gpu_host_field_matches_cpu) {
    if (!zkp_gpu_built()) test_skip("this build has no CUDA backend");
    unsigned iters = test_iters(2000);
    for (int field = 0; field < 4; field++)
        for (int op = 0; op < OP_COUNT; op++)
            for (unsigned i = 0; i < iters; i++) {
                uint64_t a[6], b[6], want[6], got[6];
                int limbs = sample(field, a, i);
                sample(field, b, i / 7);
                cpu_field_op(field, op, want, a, b);
                ASSERT_OK(zkp_gpu_host_field_op(field, op, got, a, b));
                if (memcmp(want, got, 8 * (size_t)limbs) != 0)
                    test_fail(__FILE__, __LINE__, "%s op %d, iteration %u: device code disagrees",
                              field_names[field], op, i);
            }
}

/* Shoup's product, which the NTT's kernels use for every product, rests on
 * a bound: its quotient, cut to the upper columns, leaves x·w - q·p below
 * 2p. Many random pairs on each field, BLS12-381's r (0.45 of 2^256) the
 * one with the least room, each against field/'s product. */
TEST_CASE(gpu_host_shoup_product_matches_cpu) {
    if (!zkp_gpu_built()) test_skip("this build has no CUDA backend");
    unsigned iters = test_iters(20000);
    for (int field = 0; field < 4; field++)
        for (unsigned i = 0; i < iters; i++) {
            uint64_t a[6], b[6], want[6], got[6];
            int limbs = sample(field, a, 7 * i + 3); /* i mod 7 = 3: random */
            sample(field, b, 7 * i + 4);
            cpu_field_op(field, OP_SHOUP, want, a, b);
            ASSERT_OK(zkp_gpu_host_field_op(field, OP_SHOUP, got, a, b));
            if (memcmp(want, got, 8 * (size_t)limbs) != 0)
                test_fail(__FILE__, __LINE__, "%s, pair %u: Shoup's product disagrees",
                          field_names[field], i);
        }
}

/* The quadratic extensions' product, square, sum, difference and inverse (the
 * inverse through the norm, which the fixed-base kernel's G2 points rely
 * on) on the host against field/: zkp_gpu_host_field_op's fields 4 and 5
 * over the base fields 0 and 2. */
#define FP2_CASE_(F2, field, base)                                                          \
    do {                                                                                    \
        static const int ops[] = {OP_MUL, OP_ADD, OP_SUB, OP_SQR, OP_INV};                  \
        for (size_t o = 0; o < sizeof ops / sizeof ops[0]; o++)                             \
            for (unsigned i = 0; i < iters; i++) {                                          \
                F2##_t x, y, want, got;                                                     \
                uint64_t tmp[6];                                                            \
                sample(base, tmp, i), memcpy(&x.c0, tmp, sizeof x.c0);                      \
                sample(base, tmp, i / 7), memcpy(&x.c1, tmp, sizeof x.c1);                  \
                sample(base, tmp, i / 3), memcpy(&y.c0, tmp, sizeof y.c0);                  \
                sample(base, tmp, i + 1), memcpy(&y.c1, tmp, sizeof y.c1);                  \
                switch (ops[o]) {                                                           \
                case OP_MUL: F2##_mul(&want, &x, &y); break;                                \
                case OP_ADD: F2##_add(&want, &x, &y); break;                                \
                case OP_SUB: F2##_sub(&want, &x, &y); break;                                \
                case OP_SQR: F2##_sqr(&want, &x); break;                                    \
                default: F2##_inv(&want, &x); break;                                        \
                }                                                                           \
                ASSERT_OK(zkp_gpu_host_field_op(field, ops[o], (uint64_t *)&got,            \
                                                (const uint64_t *)&x, (const uint64_t *)&y)); \
                if (memcmp(&want, &got, sizeof want) != 0)                                  \
                    test_fail(__FILE__, __LINE__, #F2 " op %d, iteration %u: device code "   \
                              "disagrees", ops[o], i);                                      \
            }                                                                               \
    } while (0)

TEST_CASE(gpu_host_fp2_matches_cpu) {
    if (!zkp_gpu_built()) test_skip("this build has no CUDA backend");
    unsigned iters = test_iters(500);
    FP2_CASE_(bn254_fq2, 4, 0);
    FP2_CASE_(bls12_381_fp2, 5, 2);
}

/* acc += p on the host with the device's madd, against curve/'s complete
 * formulas, through the exceptional cases: infinity on either side, P + P
 * and P + (-P). */
#define MADD_CASE_(G, group_id)                                                           \
    do {                                                                                  \
        G##_affine_t gen, q;                                                              \
        G##_generator(&gen);                                                              \
        G##_jacobian_t acc, want_j, got_j;                                                \
        G##_xyzz_t acc_x;                                                                 \
        G##_set_infinity(&acc);                                                           \
        G##_xyzz_set_infinity(&acc_x);                                                    \
        for (unsigned i = 0; i < iters; i++) {                                            \
            uint64_t k[4] = {test_rng_u64() % 1000 + 1, 0, 0, 0};                         \
            G##_jacobian_t qj;                                                            \
            G##_affine_t acc_aff;                                                         \
            G##_to_affine(&acc_aff, &acc);                                                \
            switch (i % 5) {                                                              \
            case 0: G##_affine_set_infinity(&q); break;                                   \
            case 1: q = acc_aff; break;                                                   \
            case 2: G##_affine_neg(&q, &acc_aff); break;                                  \
            default:                                                                      \
                G##_from_affine(&qj, &gen);                                               \
                G##_mul_var(&qj, &qj, k, 64);                                             \
                G##_to_affine(&q, &qj);                                                   \
            }                                                                             \
            G##_add_affine(&want_j, &acc, &q);                                            \
            ASSERT_OK(zkp_gpu_host_madd(group_id, (uint64_t *)&acc_x, (const uint64_t *)&q));  \
            G##_xyzz_to_jacobian(&got_j, &acc_x);                                         \
            if (!G##_eq(&want_j, &got_j))                                                 \
                test_fail(__FILE__, __LINE__, #G " madd, step %u (case %u) disagrees", i, i % 5); \
            acc = want_j;                                                                 \
        }                                                                                 \
    } while (0)

TEST_CASE(gpu_host_madd_matches_cpu) {
    if (!zkp_gpu_built()) test_skip("this build has no CUDA backend");
    unsigned iters = test_iters(300);
    MADD_CASE_(bn254_g1, 0);
    MADD_CASE_(bls12_381_g1, 1);
    MADD_CASE_(bn254_g2, 2);
    MADD_CASE_(bls12_381_g2, 3);
}

/* acc (5 limbs, two's complement) += d·2^off, for off + 32 < 320. */
static void add_shifted_(uint64_t acc[5], int32_t d, unsigned off) {
    const uint64_t mag = d < 0 ? (uint64_t)(-(int64_t)d) : (uint64_t)d;
    uint64_t v[5] = {0, 0, 0, 0, 0};
    const unsigned limb = off / 64, sh = off % 64;
    v[limb] = mag << sh;
    if (sh && limb + 1 < 5) v[limb + 1] = mag >> (64 - sh);
    /* The carry or borrow out of limb 4 wraps, as two's complement does. */
    if (d >= 0) (void)zkp_limbs_add(acc, acc, v, 5);
    else (void)zkp_limbs_sub(acc, acc, v, 5);
}

typedef zkpipe_status (*msm_digits_fn_)(size_t, size_t, unsigned, unsigned, const uint64_t *,
                                        zkp_gpu_msm_digits *);
/* The four groups' host digits, for the cases that run them alike. */
static const msm_digits_fn_ msm_digits_groups_[] = {
    bn254_g1_gpu_host_msm_digits, bls12_381_g1_gpu_host_msm_digits, bn254_g2_gpu_host_msm_digits,
    bls12_381_g2_gpu_host_msm_digits};
#define MSM_DIGITS_GROUPS_ (sizeof msm_digits_groups_ / sizeof msm_digits_groups_[0])

/* Step 7 of the GPU MSM on the host: the CPU's curve code combines the
 * bucket sets' sums by Horner's rule. Against each sum times its weight,
 * 2^(sum of the widths below it), by scalar multiplication, with sets at
 * infinity among them, for the H MSM's 4 + 8 windows, a witness MSM's 16 +
 * 4, one set of copies and two sets of copies of two widths. */
#define HORNER_CASE_(G, GROUP)                                                                   \
    do {                                                                                         \
        enum { SETS = 20 };                                                                      \
        static const unsigned widths[][SETS + 1] = {                                             \
            {12, 22, 22, 22, 22, 21, 21, 21, 21, 21, 21, 21, 21},                                \
            {20, 13, 13, 13, 13, 13, 13, 13, 13, 13, 13, 13, 13, 13, 13, 13, 13, 12, 12, 12, 12},\
            {1, 24},                                                                             \
            {2, 24, 23}};                                                                        \
        for (unsigned c = 0; c < sizeof widths / sizeof widths[0]; c++) {                        \
            const unsigned sets = widths[c][0], *width = widths[c] + 1;                          \
            G##_xyzz_t sums[SETS], got;                                                          \
            G##_jacobian_t want, term, got_j;                                                    \
            G##_affine_t gen;                                                                    \
            G##_generator(&gen);                                                                 \
            G##_set_infinity(&want);                                                             \
            unsigned offset = 0;                                                                 \
            for (unsigned w = 0; w < sets; w++) {                                                \
                uint64_t k[4], weight[5] = {0};                                                  \
                test_rng_bytes(k, sizeof k);                                                     \
                G##_from_affine(&term, &gen);                                                    \
                G##_mul_var(&term, &term, k, 64 * 4);                                            \
                if (w % 5 == 3) G##_set_infinity(&term);                                         \
                G##_affine_t a;                                                                  \
                G##_to_affine(&a, &term);                                                        \
                G##_xyzz_from_affine(&sums[w], &a);                                              \
                weight[offset / 64] = (uint64_t)1 << (offset % 64);                              \
                G##_mul_var(&term, &term, weight, 64 * 5);                                       \
                G##_add(&want, &want, &term);                                                    \
                offset += width[w];                                                              \
            }                                                                                    \
            ASSERT_EQ_INT(zkp_gpu_horner(GROUP, &got, sums, width, sets), 0);                    \
            G##_xyzz_to_jacobian(&got_j, &got);                                                  \
            ASSERT(G##_eq(&got_j, &want));                                                       \
        }                                                                                        \
    } while (0)

TEST_CASE(gpu_host_horner_matches_scalar_multiples) {
    HORNER_CASE_(bn254_g1, ZKP_GPU_GROUP_BN254_G1);
    HORNER_CASE_(bls12_381_g1, ZKP_GPU_GROUP_BLS12_381_G1);
    HORNER_CASE_(bn254_g2, ZKP_GPU_GROUP_BN254_G2);
    HORNER_CASE_(bls12_381_g2, ZKP_GPU_GROUP_BLS12_381_G2);
    uint8_t out[1];
    ASSERT_EQ_INT(zkp_gpu_horner(0, out, NULL, NULL, 0), -1);
}
#undef HORNER_CASE_

/* Step 6 of the GPU MSM, the device's code run on the host: each bucket
 * set's sum_b (b + 1)·B_b, from chunks of len buckets and the second level
 * that makes up for the chunks' offsets, against the sum of the scalar
 * multiples by the CPU's curve code. The shapes give level two one run
 * (per_set / len below 16), many runs, and runs of a single chunk. */
#define BUCKET_SUMS_CASE_(G)                                                                     \
    do {                                                                                         \
        enum { SETS = 3, MAX_PER_SET = 512 };                                                    \
        static const uint32_t shapes[][2] = {{1, 1},   {8, 1},   {8, 8},   {64, 4},              \
                                             {256, 4}, {256, 16}, {512, 2}, {512, 512}};         \
        static G##_xyzz_t buckets[SETS * MAX_PER_SET];                                           \
        static G##_jacobian_t mult[SETS * MAX_PER_SET];                                          \
        G##_affine_t gen;                                                                        \
        G##_generator(&gen);                                                                     \
        for (unsigned i = 0; i < SETS * MAX_PER_SET; i++) {                                      \
            uint64_t k[1] = {test_rng_u64() % 100000 + 1};                                       \
            G##_affine_t a;                                                                      \
            G##_from_affine(&mult[i], &gen);                                                     \
            G##_mul_var(&mult[i], &mult[i], k, 64);                                              \
            if (i % 7 == 3) G##_set_infinity(&mult[i]);                                          \
            G##_to_affine(&a, &mult[i]);                                                         \
            G##_xyzz_from_affine(&buckets[i], &a);                                               \
        }                                                                                        \
        for (size_t c = 0; c < sizeof shapes / sizeof shapes[0]; c++) {                          \
            const uint32_t per_set = shapes[c][0], len = shapes[c][1];                           \
            G##_xyzz_t got[SETS];                                                                \
            ASSERT_OK(G##_gpu_host_bucket_sums(buckets, SETS, per_set, len, got));               \
            for (unsigned w = 0; w < SETS; w++) {                                                \
                G##_jacobian_t want, term, got_j;                                                \
                G##_set_infinity(&want);                                                         \
                for (uint32_t b = 0; b < per_set; b++) {                                         \
                    uint64_t k[1] = {b + 1};                                                     \
                    G##_mul_var(&term, &mult[w * per_set + b], k, 64);                           \
                    G##_add(&want, &want, &term);                                                \
                }                                                                                \
                G##_xyzz_to_jacobian(&got_j, &got[w]);                                           \
                if (!G##_eq(&got_j, &want))                                                      \
                    test_fail(__FILE__, __LINE__, #G " set %u of %u buckets in chunks of %u", w, \
                              per_set, len);                                                     \
            }                                                                                    \
        }                                                                                        \
        G##_xyzz_t out[SETS];                                                                    \
        ASSERT_EQ_STATUS(G##_gpu_host_bucket_sums(buckets, SETS, 12, 4, out),                    \
                         ZKPIPE_ERR_INVALID_ARGUMENT);                                           \
        ASSERT_EQ_STATUS(G##_gpu_host_bucket_sums(buckets, SETS, 8, 16, out),                    \
                         ZKPIPE_ERR_INVALID_ARGUMENT);                                           \
    } while (0)

TEST_CASE(gpu_host_bucket_sums_match_scalar_multiples) {
    if (!zkp_gpu_built()) test_skip("this build has no CUDA backend");
    BUCKET_SUMS_CASE_(bn254_g1);
    BUCKET_SUMS_CASE_(bls12_381_g1);
    BUCKET_SUMS_CASE_(bn254_g2);
    BUCKET_SUMS_CASE_(bls12_381_g2);
}
#undef BUCKET_SUMS_CASE_

/* The MSM's windows and signed digits, the device's code run on the host:
 * from one point to a PoRep partition's H set, with and without shifted
 * copies, every scalar comes back from its digits, every digit fits its
 * window, and windows with bucket sets of their own cover exactly the bits
 * that signed digits take (the H MSM's: 4 of 22 bits and 8 of 21). */
TEST_CASE(gpu_host_msm_digits_rebuild_scalars) {
    if (!zkp_gpu_built()) test_skip("this build has no CUDA backend");
    static const struct {
        msm_digits_fn_ fn;
        unsigned bits, curve; /* 0 BN254, 1 BLS12-381 */
    } groups[] = {{bn254_g1_gpu_host_msm_digits, BN254_FR_BITS, 0},
                  {bls12_381_g1_gpu_host_msm_digits, BLS12_381_FR_BITS, 1},
                  {bn254_g2_gpu_host_msm_digits, BN254_FR_BITS, 0},
                  {bls12_381_g2_gpu_host_msm_digits, BLS12_381_FR_BITS, 1}};
    static const uint64_t r[2][4] = {BN254_FR_MODULUS, BLS12_381_FR_MODULUS};
    static const size_t sizes[] = {1,         7,         1000,      65536,     331479,
                                   1297177,   1u << 20,  1u << 24,  1u << 26,  (1u << 27) - 1};
    static const unsigned copies[][2] = {{1, 0}, {12, 22}, {11, 24}, {20, 13}, {3, 22}, {6, 47}};
    const unsigned iters = test_iters(8);
    for (size_t gi = 0; gi < sizeof groups / sizeof groups[0]; gi++) {
        const unsigned bits = groups[gi].bits, curve = groups[gi].curve;
        for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
            for (size_t ci = 0; ci < sizeof copies / sizeof copies[0]; ci++) {
                for (unsigned t = 0; t < 5 + iters; t++) {
                    uint64_t k[4] = {0, 0, 0, 0};
                    switch (t) {
                    case 0: break;
                    case 1: k[0] = 1; break;
                    case 2:
                    case 3:
                        memcpy(k, r[curve], sizeof k);
                        k[0] -= t - 1; /* r - 1, r - 2: r is odd and its low limb above 2 */
                        break;
                    case 4: k[(bits - 2) / 64] = (uint64_t)1 << ((bits - 2) % 64); break;
                    default:
                        if (curve) {
                            bls12_381_fr_t x;
                            test_bls12_381_fr_rand(&x);
                            memcpy(k, x.l, sizeof k);
                        } else {
                            bn254_fr_t x;
                            test_bn254_fr_rand(&x);
                            memcpy(k, x.l, sizeof k);
                        }
                    }
                    zkp_gpu_msm_digits dg;
                    const size_t m = sizes[si];
                    ASSERT_OK(groups[gi].fn(m, m, copies[ci][0], copies[ci][1], k, &dg));
                    ASSERT(dg.nwin >= 1 && dg.nwin <= ZKP_GPU_MSM_MAX_WINDOWS);
                    uint64_t acc[5] = {0, 0, 0, 0, 0};
                    unsigned covered = 0;
                    for (unsigned w = 0; w < dg.nwin; w++) {
                        ASSERT_EQ_U64(dg.offset[w], covered);
                        ASSERT(dg.width[w] >= 1 && dg.width[w] <= 24);
                        const int64_t half = (int64_t)1 << (dg.width[w] - 1);
                        ASSERT(dg.digit[w] <= half && dg.digit[w] >= -half);
                        covered += dg.width[w];
                        add_shifted_(acc, dg.digit[w], dg.offset[w]);
                    }
                    ASSERT(covered >= bits + 1);
                    if (dg.sets == dg.nwin) ASSERT_EQ_U64(covered, bits + 1);
                    ASSERT(memcmp(acc, k, sizeof k) == 0 && acc[4] == 0);
                    if (sizes[si] == (1u << 26) && copies[ci][1] == 47) {
                        /* Two sets, of 24-bit and 23-bit windows. */
                        ASSERT_EQ_U64(dg.nwin, 11);
                        ASSERT_EQ_U64(dg.sets, 2);
                        ASSERT_EQ_U64(dg.width[0], 24);
                        ASSERT_EQ_U64(dg.width[1], 23);
                    }
                    if (curve == 1 && sizes[si] == (1u << 27) - 1 && copies[ci][0] == 1) {
                        ASSERT_EQ_U64(dg.nwin, 12);
                        ASSERT_EQ_U64(dg.width[3], 22);
                        ASSERT_EQ_U64(dg.width[4], 21);
                    }
                }
            }
        }
    }
    zkp_gpu_msm_digits dg;
    const uint64_t one[4] = {1, 0, 0, 0};
    ASSERT_EQ_STATUS(bn254_g1_gpu_host_msm_digits(0, 0, 1, 0, one, &dg),
                     ZKPIPE_ERR_INVALID_ARGUMENT);
    ASSERT_EQ_STATUS(bn254_g1_gpu_host_msm_digits(10, 9, 1, 0, one, &dg),
                     ZKPIPE_ERR_INVALID_ARGUMENT);
    ASSERT_EQ_STATUS(bn254_g1_gpu_host_msm_digits(10, 10, 0, 0, one, &dg),
                     ZKPIPE_ERR_INVALID_ARGUMENT);
    ASSERT_EQ_STATUS(bn254_g1_gpu_host_msm_digits(10, 10, 2, 0, one, &dg),
                     ZKPIPE_ERR_INVALID_ARGUMENT);
    /* 2^256 - 1 is no scalar: the H MSM's windows, 256 bits, cannot hold it. */
    const uint64_t ones[4] = {~0ULL, ~0ULL, ~0ULL, ~0ULL};
    const size_t h = (1u << 27) - 1;
    ASSERT_EQ_STATUS(bls12_381_g1_gpu_host_msm_digits(h, h, 1, 0, ones, &dg),
                     ZKPIPE_ERR_OUT_OF_RANGE);
}

/* Copies serve the dense MSMs they are made for: an MSM with scalars other
 * than 0 and 1 at a quarter of its set's points or more plans on the
 * copies, and one with fewer plans windows of its own, which leaves the
 * copies unread for zkp_gpu_bases_trim to give back (a PoRep witness's B1
 * MSM: 1.2 M such scalars over 33.1 M points, 11 copies 24 bits apart). */
TEST_CASE(gpu_host_msm_sparse_scalars_plan_without_copies) {
    if (!zkp_gpu_built()) test_skip("this build has no CUDA backend");
    static const struct {
        size_t n;
        unsigned copies, shift;
    } sets[] = {{33109527, 11, 24}, {(size_t)1 << 24, 12, 22}, {(size_t)1 << 26, 6, 47}};
    const uint64_t k[4] = {0x0123456789abcdefULL, 0xfedcba9876543210ULL, 0x0f1e2d3c4b5a6978ULL,
                           0x0123456789abcdefULL >> 8};
    for (size_t gi = 0; gi < MSM_DIGITS_GROUPS_; gi++) {
        const msm_digits_fn_ digits = msm_digits_groups_[gi];
        for (size_t si = 0; si < sizeof sets / sizeof sets[0]; si++) {
            const size_t n = sets[si].n, quarter = (n + 3) / 4;
            const size_t ms[] = {n, quarter, quarter - 1, 1200000};
            for (size_t mi = 0; mi < sizeof ms / sizeof ms[0]; mi++) {
                zkp_gpu_msm_digits dg;
                ASSERT_OK(digits(ms[mi], n, sets[si].copies, sets[si].shift, k, &dg));
                /* Windows that share sets read the copies. */
                const int on_copies = dg.sets < dg.nwin;
                ASSERT_MSG(on_copies == (ms[mi] >= quarter),
                           "group %zu, set %zu, m %zu: %u sets of %u windows", gi, si, ms[mi],
                           dg.sets, dg.nwin);
            }
        }
    }
}

/* An entry of the sort's input: its key's low sort_bits, then where it
 * stood, which makes qsort's order the stable one. */
typedef struct {
    uint32_t low, key;
    size_t at;
} sort_entry_;

static int sort_entry_cmp_(const void *a, const void *b) {
    const sort_entry_ *x = a, *y = b;
    if (x->low != y->low) return x->low < y->low ? -1 : 1;
    return x->at < y->at ? -1 : x->at > y->at;
}

static int u32_cmp_(const void *a, const void *b) {
    const uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

/* Steps 3 and 4 of the MSM with the device's code run on the host: the
 * entries' rows and keys, then a stable sort by the keys' low sort_bits
 * bits, for layouts with one bucket set, a set per window, and a few sets
 * that shifted copies serve. Every bucket's entries must come out as one
 * run (the bucket step sums runs), and every key must name a bucket of
 * the layout, or with one set the zero digits' key past them all. */
TEST_CASE(gpu_host_msm_sorted_keys_keep_buckets_together) {
    if (!zkp_gpu_built()) test_skip("this build has no CUDA backend");
    /* m, copies, shift, and the sets each layout must come to: a set per
     * window (no copies), 6 sets served by 3 copies, one set (a copy per
     * window), 2 sets served by 6 copies (2^26 on an 80 GB device), and 2
     * sets of windows of two widths (24 and 23 bits a copy). */
    static const struct {
        size_t m;
        unsigned copies, shift, sets_min, sets_max;
    } shapes[] = {{(size_t)1 << 18, 1, 0, 12, 32},
                  {(size_t)1 << 18, 3, 96, 6, 6},
                  {(size_t)1 << 24, 12, 22, 1, 1},
                  {(size_t)1 << 26, 6, 48, 2, 2},
                  {(size_t)1 << 26, 6, 47, 2, 2}};
    enum { N = 1024 };
    sort_entry_ *e = malloc((size_t)N * ZKP_GPU_MSM_MAX_WINDOWS * sizeof *e);
    uint32_t *runs = malloc((size_t)N * ZKP_GPU_MSM_MAX_WINDOWS * sizeof *runs);
    ASSERT(e && runs);
    for (size_t gi = 0; gi < MSM_DIGITS_GROUPS_; gi++) {
        const msm_digits_fn_ digits = msm_digits_groups_[gi];
        for (size_t si = 0; si < sizeof shapes / sizeof shapes[0]; si++) {
            unsigned nwin = 0, sets = 0, bits = 0;
            for (size_t j = 0; j < N; j++) {
                /* Zeros and small scalars, whose high windows are zero
                 * digits, then random ones below 2^250 (below both r). */
                uint64_t k[4] = {0, 0, 0, 0};
                if (j % 4 == 1) k[0] = j;
                else if (j % 4 != 0)
                    for (int l = 0; l < 4; l++) k[l] = test_rng_u64() >> (l == 3 ? 6 : 0);
                zkp_gpu_msm_digits dg;
                ASSERT_OK(digits(shapes[si].m, shapes[si].m, shapes[si].copies, shapes[si].shift, k,
                                 &dg));
                if (j == 0) {
                    nwin = dg.nwin, sets = dg.sets, bits = dg.sort_bits;
                    ASSERT_MSG(sets >= shapes[si].sets_min && sets <= shapes[si].sets_max,
                               "group %zu, shape %zu: %u sets", gi, si, sets);
                    ASSERT(bits >= 1 && bits <= 31 && nwin <= 64);
                }
                ASSERT(dg.nwin == nwin && dg.sets == sets && dg.sort_bits == bits);
                uint64_t rows_seen = 0;
                for (unsigned w = 0; w < nwin; w++) {
                    ASSERT(dg.row[w] < nwin && !(rows_seen >> dg.row[w] & 1));
                    rows_seen |= (uint64_t)1 << dg.row[w];
                    const size_t at = (size_t)dg.row[w] * N + j;
                    e[at] = (sort_entry_){dg.key[w] & ((1u << bits) - 1), dg.key[w], at};
                }
            }
            const size_t total = (size_t)nwin * N;
            qsort(e, total, sizeof *e, sort_entry_cmp_);
            /* One key per run, and no key in two runs. */
            size_t nruns = 0;
            for (size_t t = 0; t < total; t++)
                if (t == 0 || e[t].key != e[t - 1].key) runs[nruns++] = e[t].key;
            qsort(runs, nruns, sizeof *runs, u32_cmp_);
            for (size_t t = 1; t < nruns; t++)
                ASSERT_MSG(runs[t] != runs[t - 1], "group %zu, shape %zu: bucket %u in two runs",
                           gi, si, runs[t]);
            /* Every key a bucket of the sets: with several, the sort
             * orders the magnitude's bits alone, sets·2^sort_bits keys;
             * with one, 2^(sort_bits - 1) buckets and the zero digits'
             * key just past them. */
            const uint64_t top =
                sets > 1 ? (uint64_t)sets << bits : ((uint64_t)1 << (bits - 1)) + 1;
            ASSERT_MSG(runs[nruns - 1] < top, "group %zu, shape %zu: key %u of %llu", gi, si,
                       runs[nruns - 1], (unsigned long long)top);
        }
    }
    free(e);
    free(runs);
}

TEST_CASE(gpu_without_device_says_why) {
    zkp_diag diag = {{0}};
    unsigned n = 99;
    zkpipe_status st = zkp_gpu_device_count(&n, &diag);
    if (st == ZKPIPE_OK) test_skip("this machine has a GPU");
    ASSERT(st == ZKPIPE_ERR_NO_DEVICE || st == ZKPIPE_ERR_UNSUPPORTED);
    ASSERT_EQ_U64(n, 0);
    ASSERT(diag.msg[0] != 0);
    zkp_gpu *g = (zkp_gpu *)&n;
    memset(&diag, 0, sizeof diag);
    ASSERT_EQ_STATUS(zkp_gpu_open(&g, 0, &diag), st);
    ASSERT(g == NULL);
    ASSERT(diag.msg[0] != 0);
}

/* The device's field arithmetic (the PTX multiply) against the CPU. */
TEST_CASE(gpu_field_matches_cpu) {
    zkp_gpu *g = test_gpu_open();
    size_t n = 4096;
    uint64_t *a = malloc(n * 48), *b = malloc(n * 48), *got = malloc(n * 48);
    ASSERT(a && b && got);
    for (int field = 0; field < 4; field++)
        for (int op = 0; op < OP_COUNT; op++) {
            int limbs = 4;
            for (size_t i = 0; i < n; i++) {
                limbs = sample(field, a + i * 6, (unsigned)i);
                sample(field, b + i * 6, (unsigned)(i / 7));
            }
            /* Pack to the field's width. */
            for (size_t i = 0; i < n; i++) {
                memmove(a + i * (size_t)limbs, a + i * 6, 8 * (size_t)limbs);
                memmove(b + i * (size_t)limbs, b + i * 6, 8 * (size_t)limbs);
            }
            zkp_diag diag = {{0}};
            zkpipe_status st = zkp_gpu_dev_field_op(g, field, op, got, a, b, n, &diag);
            ASSERT_MSG(st == ZKPIPE_OK, "%s", diag.msg);
            for (size_t i = 0; i < n; i++) {
                uint64_t want[6];
                cpu_field_op(field, op, want, a + i * (size_t)limbs, b + i * (size_t)limbs);
                if (memcmp(want, got + i * (size_t)limbs, 8 * (size_t)limbs) != 0)
                    test_fail(__FILE__, __LINE__, "%s op %d, element %zu: the GPU disagrees",
                              field_names[field], op, i);
            }
        }
    free(a);
    free(b);
    free(got);
    zkp_gpu_close(g);
}

TEST_CASE(gpu_device_info_is_sane) {
    zkp_gpu *g = test_gpu_open();
    zkp_gpu_info info;
    zkp_diag diag = {{0}};
    ASSERT_OK(zkp_gpu_device_info(&info, zkp_gpu_ordinal(g), &diag));
    printf("  GPU %u: %s, compute %d.%d, %u SMs, %.1f of %.1f GiB free\n", info.ordinal, info.name,
           info.cc_major, info.cc_minor, info.multiprocessors,
           (double)info.free_bytes / (1u << 30), (double)info.total_bytes / (1u << 30));
    ASSERT(info.total_bytes > 0 && info.free_bytes <= info.total_bytes);
    ASSERT(info.multiprocessors > 0);
    /* A buffer is charged while it lives, and an upload comes back intact. */
    zkp_gpu_buf *buf;
    uint64_t data[512], back[512];
    for (int i = 0; i < 512; i++) data[i] = test_rng_u64();
    ASSERT_OK(zkp_gpu_buf_alloc(g, &buf, sizeof data, ZKP_GPU_MEM_SCRATCH, &diag));
    zkp_gpu_stats s;
    zkp_gpu_stats_get(g, &s);
    ASSERT_EQ_U64(s.live_bytes[ZKP_GPU_MEM_SCRATCH], sizeof data);
    ASSERT_OK(zkp_gpu_buf_upload(buf, 0, data, sizeof data, &diag));
    ASSERT_OK(zkp_gpu_buf_download(back, buf, 0, sizeof back, &diag));
    ASSERT(memcmp(data, back, sizeof data) == 0);
    ASSERT_EQ_STATUS(zkp_gpu_buf_upload(buf, 8, data, sizeof data, &diag), ZKPIPE_ERR_OUT_OF_RANGE);
    zkp_gpu_buf_free(buf);
    /* A queued upload, large enough to be still running when the download
     * is asked for: the download waits for it on the device. */
    size_t big = (size_t)64 << 20;
    uint64_t *up = malloc(big), *down = malloc(big);
    ASSERT(up && down);
    for (size_t i = 0; i < big / 8; i++) up[i] = test_rng_u64();
    memset(down, 0, big);
    ASSERT_OK(zkp_gpu_buf_alloc(g, &buf, big, ZKP_GPU_MEM_SCRATCH, &diag));
    ASSERT_OK(zkp_gpu_buf_upload_async(buf, 0, up, big / 2, &diag));
    ASSERT_OK(zkp_gpu_buf_upload_async(buf, big / 2, (char *)up + big / 2, big / 2, &diag));
    ASSERT_EQ_STATUS(zkp_gpu_buf_upload_async(buf, big / 2 + 8, up, big / 2, &diag),
                     ZKPIPE_ERR_OUT_OF_RANGE);
    ASSERT_OK(zkp_gpu_buf_download(down, buf, 0, big, &diag));
    ASSERT(memcmp(up, down, big) == 0);
    /* Freed with an upload still queued: the free waits for it. */
    ASSERT_OK(zkp_gpu_buf_upload_async(buf, 0, up, big, &diag));
    zkp_gpu_buf_free(buf);
    free(up);
    free(down);
    zkp_gpu_stats_get(g, &s);
    ASSERT_EQ_U64(s.live_total, 0);
    ASSERT(s.h2d_bytes >= sizeof data && s.d2h_bytes >= sizeof data);
    /* Out of device memory is an error of that call, not of the context. */
    ASSERT_EQ_STATUS(zkp_gpu_buf_alloc(g, &buf, (size_t)1 << 50, ZKP_GPU_MEM_SCRATCH, &diag),
                     ZKPIPE_ERR_NO_MEMORY);
    ASSERT(strstr(diag.msg, "cudaMalloc") != NULL);
    ASSERT_OK(zkp_gpu_buf_alloc(g, &buf, 4096, ZKP_GPU_MEM_SCRATCH, &diag));
    zkp_gpu_buf_free(buf);
    zkp_gpu_close(g);
}

/* The cache of freed working buffers: a freed buffer stays booked, as
 * cached, and comes back for a request of about its size; the bases never
 * go there; room for an allocation within the budget, or a release, gives
 * cached buffers back to the driver. */
TEST_CASE(gpu_cache_keeps_and_gives_back) {
    zkp_gpu *g = test_gpu_open();
    zkp_diag diag = {{0}};
    const size_t MIB = (size_t)1 << 20;
    zkp_gpu_set_cache(g, 1);
    zkp_gpu_buf *a, *b;
    ASSERT_OK(zkp_gpu_buf_alloc(g, &a, 64 * MIB, ZKP_GPU_MEM_SCRATCH, &diag));
    zkp_gpu_buf_free(a);
    zkp_gpu_stats s;
    zkp_gpu_stats_get(g, &s);
    ASSERT_EQ_U64(s.live_bytes[ZKP_GPU_MEM_SCRATCH], 0);
    ASSERT_EQ_U64(s.live_bytes[ZKP_GPU_MEM_CACHED], 64 * MIB);
    ASSERT_EQ_U64(s.live_total, 64 * MIB);
    /* 60 MiB fits the 64 MiB buffer (an eighth less at most) and books all
     * of it, under the new category; its free books all of it back. */
    ASSERT_OK(zkp_gpu_buf_alloc(g, &a, 60 * MIB, ZKP_GPU_MEM_ABC, &diag));
    zkp_gpu_stats_get(g, &s);
    ASSERT_EQ_U64(s.live_bytes[ZKP_GPU_MEM_ABC], 64 * MIB);
    ASSERT_EQ_U64(s.live_bytes[ZKP_GPU_MEM_CACHED], 0);
    ASSERT_EQ_U64(s.live_total, 64 * MIB);
    /* 32 MiB does not: a buffer of its own. */
    ASSERT_OK(zkp_gpu_buf_alloc(g, &b, 32 * MIB, ZKP_GPU_MEM_SCRATCH, &diag));
    zkp_gpu_buf_free(a);
    zkp_gpu_buf_free(b);
    zkp_gpu_stats_get(g, &s);
    ASSERT_EQ_U64(s.live_bytes[ZKP_GPU_MEM_ABC], 0);
    ASSERT_EQ_U64(s.live_bytes[ZKP_GPU_MEM_CACHED], 96 * MIB);
    /* Bases are freed, not cached. */
    ASSERT_OK(zkp_gpu_buf_alloc(g, &a, MIB, ZKP_GPU_MEM_BASES, &diag));
    zkp_gpu_buf_free(a);
    zkp_gpu_stats_get(g, &s);
    ASSERT_EQ_U64(s.live_bytes[ZKP_GPU_MEM_CACHED], 96 * MIB);
    ASSERT_EQ_U64(s.live_total, 96 * MIB);
    /* Within a budget of 128 MiB, 80 MiB fits only once the cached 64 MiB
     * buffer has gone back: the largest goes first. */
    zkp_gpu_set_memory_budget(g, 128 * MIB);
    ASSERT_OK(zkp_gpu_buf_alloc(g, &a, 80 * MIB, ZKP_GPU_MEM_SCRATCH, &diag));
    zkp_gpu_stats_get(g, &s);
    ASSERT_EQ_U64(s.live_bytes[ZKP_GPU_MEM_CACHED], 32 * MIB);
    ASSERT_EQ_U64(s.live_total, 112 * MIB);
    /* Past the budget even with the cache empty: refused, books intact. */
    ASSERT_EQ_STATUS(zkp_gpu_buf_alloc(g, &b, 64 * MIB, ZKP_GPU_MEM_SCRATCH, &diag),
                     ZKPIPE_ERR_NO_MEMORY);
    ASSERT(strstr(diag.msg, "budget") != NULL);
    zkp_gpu_stats_get(g, &s);
    ASSERT_EQ_U64(s.live_bytes[ZKP_GPU_MEM_CACHED], 0);
    ASSERT_EQ_U64(s.live_total, 80 * MIB);
    zkp_gpu_buf_free(a);
    zkp_gpu_set_memory_budget(g, 0);
    ASSERT_EQ_U64(zkp_gpu_release_cached(g), 80 * MIB);
    zkp_gpu_stats_get(g, &s);
    ASSERT_EQ_U64(s.live_total, 0);
    /* Turned off, the cache gives back what it holds and keeps nothing. */
    ASSERT_OK(zkp_gpu_buf_alloc(g, &a, MIB, ZKP_GPU_MEM_SCRATCH, &diag));
    zkp_gpu_buf_free(a);
    zkp_gpu_set_cache(g, 0);
    ASSERT_OK(zkp_gpu_buf_alloc(g, &a, MIB, ZKP_GPU_MEM_SCRATCH, &diag));
    zkp_gpu_buf_free(a);
    zkp_gpu_stats_get(g, &s);
    ASSERT_EQ_U64(s.live_total, 0);
    zkp_gpu_close(g);
}
