/* Generic prime field in Montgomery form: the inline half.
 *
 * Instantiated by each field header, never included on its own:
 *
 *     #define FP_NAME  bn254_fq    (prefix of the type and functions)
 *     #define FP_PARAM BN254_FQ    (prefix of the constants in field_params.h)
 *     #include "field/fp_impl.h"
 *
 * and in exactly one .c file per field, fp_body.h after it for the
 * out-of-line operations. See field.h for the contract.
 *
 * Montgomery multiplication is the CIOS form: for each limb of b, add a·b_i
 * to the accumulator, then add the multiple m·p (m = t_0·n0 mod 2^64) that
 * clears the lowest limb and shift one limb down. Every modulus here has a
 * spare top bit (p < 2^(64N-1)), so the accumulator never needs more than
 * N+1 limbs and one conditional subtraction at the end gives a reduced
 * result; field_params.h asserts the spare bit when it is generated. */
#include <stdint.h>

#include "field/field_params.h"
#include "field/limbs.h"
#include "util/cpu.h"
#include "util/util.h"
#ifdef ZKP_HAVE_X86_ASM
#include "field/mont_x86.h"
#endif

#define FP_T ZKP_CAT(FP_NAME, _t)
#define FP_FN(op) ZKP_CAT(ZKP_CAT(FP_NAME, _), op)
#define FP_K(k) ZKP_CAT(ZKP_CAT(FP_PARAM, _), k)
#define FP_N FP_K(LIMBS)

typedef struct {
    uint64_t l[FP_N];
} FP_T;

static const FP_T FP_FN(modulus) = {FP_K(MODULUS)};
static const FP_T FP_FN(one_mont) = {FP_K(R1)};
static const FP_T FP_FN(r2_mont) = {FP_K(R2)};

/* 1 if the limbs hold a value < p. Used by ZKP_VERIFY checks and decoders. */
static inline int FP_FN(is_reduced)(const FP_T *a) {
    return (int)zkp_limbs_lt(a->l, FP_FN(modulus).l, FP_N);
}

/* r = t - p if t >= p, else t. On input t < 2p. */
static inline void FP_FN(reduce_once_)(uint64_t r[FP_N], const uint64_t t[FP_N], uint64_t carry) {
    uint64_t s[FP_N];
    uint64_t borrow = zkp_limbs_sub(s, t, FP_FN(modulus).l, FP_N);
    /* Keep t exactly when the subtraction borrowed and there was no carry. */
    uint64_t keep_t = zkp_ct_mask(borrow & (carry ^ 1));
    for (int i = 0; i < FP_N; i++) r[i] = (t[i] & keep_t) | (s[i] & ~keep_t);
}

static inline void FP_FN(set_zero)(FP_T *r) {
    for (int i = 0; i < FP_N; i++) r->l[i] = 0;
}
static inline void FP_FN(set_one)(FP_T *r) { *r = FP_FN(one_mont); }

static inline int FP_FN(is_zero)(const FP_T *a) {
    uint64_t d = 0;
    for (int i = 0; i < FP_N; i++) d |= a->l[i];
    return (int)zkp_ct_is_zero_u64(d);
}
static inline int FP_FN(eq)(const FP_T *a, const FP_T *b) {
    return (int)zkp_limbs_eq(a->l, b->l, FP_N);
}
static inline int FP_FN(is_one)(const FP_T *a) { return FP_FN(eq)(a, &FP_FN(one_mont)); }

/* r = flag ? a : r, for flag 0 or 1, constant time. */
static inline void FP_FN(cmov)(FP_T *r, const FP_T *a, int flag) {
    zkp_limbs_cmov(r->l, a->l, zkp_ct_mask((uint64_t)flag), FP_N);
}

static inline void FP_FN(add)(FP_T *r, const FP_T *a, const FP_T *b) {
    ZKP_VERIFY_CHECK(FP_FN(is_reduced)(a) && FP_FN(is_reduced)(b));
    uint64_t t[FP_N];
    uint64_t carry = zkp_limbs_add(t, a->l, b->l, FP_N);
    FP_FN(reduce_once_)(r->l, t, carry);
}

static inline void FP_FN(dbl)(FP_T *r, const FP_T *a) { FP_FN(add)(r, a, a); }

static inline void FP_FN(sub)(FP_T *r, const FP_T *a, const FP_T *b) {
    ZKP_VERIFY_CHECK(FP_FN(is_reduced)(a) && FP_FN(is_reduced)(b));
    uint64_t t[FP_N], p_masked[FP_N];
    uint64_t mask = zkp_ct_mask(zkp_limbs_sub(t, a->l, b->l, FP_N));
    for (int i = 0; i < FP_N; i++) p_masked[i] = FP_FN(modulus).l[i] & mask;
    (void)zkp_limbs_add(r->l, t, p_masked, FP_N);
}

static inline void FP_FN(neg)(FP_T *r, const FP_T *a) {
    ZKP_VERIFY_CHECK(FP_FN(is_reduced)(a));
    uint64_t t[FP_N];
    uint64_t nonzero = zkp_ct_mask(FP_FN(is_zero)(a) ^ 1);
    (void)zkp_limbs_sub(t, FP_FN(modulus).l, a->l, FP_N);
    for (int i = 0; i < FP_N; i++) r->l[i] = t[i] & nonzero;
}

/* r = a / 2: add p first when a is odd (the spare bit keeps a + p in N limbs). */
static inline void FP_FN(half)(FP_T *r, const FP_T *a) {
    uint64_t t[FP_N], p_masked[FP_N];
    uint64_t odd = zkp_ct_mask(a->l[0] & 1);
    for (int i = 0; i < FP_N; i++) p_masked[i] = FP_FN(modulus).l[i] & odd;
    uint64_t carry = zkp_limbs_add(t, a->l, p_masked, FP_N);
    zkp_limbs_shr1(t, carry, FP_N);
    for (int i = 0; i < FP_N; i++) r->l[i] = t[i];
}

/* The portable Montgomery product, always built; the reference for the
 * assembly kernels. */
static inline void FP_FN(mul_portable)(FP_T *r, const FP_T *a, const FP_T *b) {
    ZKP_VERIFY_CHECK(FP_FN(is_reduced)(a) && FP_FN(is_reduced)(b));
    const uint64_t *p = FP_FN(modulus).l;
    uint64_t t[FP_N + 1] = {0};
    for (int i = 0; i < FP_N; i++) {
        zkp_u128 c = 0;
        for (int j = 0; j < FP_N; j++) {
            c += (zkp_u128)a->l[j] * b->l[i] + t[j];
            t[j] = (uint64_t)c;
            c >>= 64;
        }
        uint64_t top = t[FP_N] + (uint64_t)c; /* < 2^64 thanks to the spare bit */
        uint64_t m = t[0] * FP_K(N0);
        c = ((zkp_u128)m * p[0] + t[0]) >> 64;
        for (int j = 1; j < FP_N; j++) {
            c += (zkp_u128)m * p[j] + t[j];
            t[j - 1] = (uint64_t)c;
            c >>= 64;
        }
        c += top;
        t[FP_N - 1] = (uint64_t)c;
        t[FP_N] = (uint64_t)(c >> 64);
    }
    FP_FN(reduce_once_)(r->l, t, t[FP_N]);
}

static inline void FP_FN(mul)(FP_T *r, const FP_T *a, const FP_T *b) {
#if defined(ZKP_HAVE_X86_ASM) && (FP_N == 4 || FP_N == 6)
    if (ZKP_LIKELY(zkp_cpu_use_adx)) {
        ZKP_VERIFY_CHECK(FP_FN(is_reduced)(a) && FP_FN(is_reduced)(b));
        ZKP_CAT(ZKP_CAT(zkp_mont_mul_, FP_N), _adx)(r->l, a->l, b->l, FP_FN(modulus).l, FP_K(N0));
        return;
    }
#endif
    FP_FN(mul_portable)(r, a, b);
}

static inline void FP_FN(sqr)(FP_T *r, const FP_T *a) {
#if defined(ZKP_HAVE_X86_ASM) && (FP_N == 4 || FP_N == 6)
    if (ZKP_LIKELY(zkp_cpu_use_adx)) {
        ZKP_VERIFY_CHECK(FP_FN(is_reduced)(a));
        ZKP_CAT(ZKP_CAT(zkp_mont_sqr_, FP_N), _adx)(r->l, a->l, FP_FN(modulus).l, FP_K(N0));
        return;
    }
#endif
    FP_FN(mul_portable)(r, a, a);
}

/* r = canonical · R mod p. On input the canonical value must be < p. */
static inline void FP_FN(to_mont)(FP_T *r, const FP_T *canonical) {
    FP_FN(mul)(r, canonical, &FP_FN(r2_mont));
}

/* canonical = a / R mod p: the ordinary integer value of a. */
static inline void FP_FN(from_mont)(FP_T *canonical, const FP_T *a) {
    FP_T one = {{1}};
    FP_FN(mul)(canonical, a, &one);
}

static inline void FP_FN(set_u64)(FP_T *r, uint64_t v) {
    FP_T t = {{v}};
    FP_FN(to_mont)(r, &t);
}

/* Out-of-line operations (fp_body.h). */
void FP_FN(pow)(FP_T *r, const FP_T *a, const uint64_t *exp, size_t exp_limbs);
void FP_FN(inv)(FP_T *r, const FP_T *a);
void FP_FN(inv_var)(FP_T *r, const FP_T *a);
/* On input out and in do not overlap; in[i] == 0 gives out[i] == 0. */
void FP_FN(batch_inv_var)(FP_T *out, const FP_T *in, size_t n);
int FP_FN(sqrt_var)(FP_T *r, const FP_T *a);
int FP_FN(legendre_var)(const FP_T *a);
void FP_FN(to_bytes_le)(uint8_t out[FP_K(BYTES)], const FP_T *a);
void FP_FN(to_bytes_be)(uint8_t out[FP_K(BYTES)], const FP_T *a);
ZKP_WARN_UNUSED zkpipe_status FP_FN(from_bytes_le)(FP_T *r, const uint8_t in[FP_K(BYTES)]);
ZKP_WARN_UNUSED zkpipe_status FP_FN(from_bytes_be)(FP_T *r, const uint8_t in[FP_K(BYTES)]);
/* The circom/snarkjs binary layout: the Montgomery representative itself as
 * little-endian bytes. R = 2^(64·limbs) matches theirs for all four fields
 * (2^256, and 2^384 for bls12_381_fp), so decoding is a range check. */
void FP_FN(to_mont_bytes_le)(uint8_t out[FP_K(BYTES)], const FP_T *a);
ZKP_WARN_UNUSED zkpipe_status FP_FN(from_mont_bytes_le)(FP_T *r, const uint8_t in[FP_K(BYTES)]);
/* Base-10 digits only, no sign, at most 200 characters; >= p is NON_CANONICAL. */
ZKP_WARN_UNUSED zkpipe_status FP_FN(from_dec)(FP_T *r, const char *s, size_t len);
/* Writes the NUL-terminated base-10 value; returns its length, or 0 if cap is too small. */
size_t FP_FN(to_dec)(char *out, size_t cap, const FP_T *a);
ZKP_WARN_UNUSED zkpipe_status FP_FN(random)(FP_T *r);
ZKP_WARN_UNUSED zkpipe_status FP_FN(root_of_unity)(FP_T *r, unsigned log_n);

#undef FP_T
#undef FP_FN
#undef FP_K
#undef FP_N
