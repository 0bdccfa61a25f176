/* Generic prime field: the out-of-line half. Included once per field, by that
 * field's .c file, after the field's header (which sets FP_NAME/FP_PARAM). */
#include <string.h>

#include "field/modinv.h"
#include "util/rand.h"

#define FP_T ZKP_CAT(FP_NAME, _t)
#define FP_FN(op) ZKP_CAT(ZKP_CAT(FP_NAME, _), op)
#define FP_K(k) ZKP_CAT(ZKP_CAT(FP_PARAM, _), k)
#define FP_N FP_K(LIMBS)

/* Left-to-right fixed 4-bit windows. The exponent is public, so indexing the
 * table by its bits leaks nothing about a. */
void FP_FN(pow)(FP_T *r, const FP_T *a, const uint64_t *exp, size_t exp_limbs) {
    FP_T table[16], acc;
    FP_FN(set_one)(&table[0]);
    table[1] = *a;
    for (int i = 2; i < 16; i++) FP_FN(mul)(&table[i], &table[i - 1], a);
    FP_FN(set_one)(&acc);
    for (size_t w = exp_limbs * 16; w-- > 0;) {
        for (int k = 0; k < 4; k++) FP_FN(sqr)(&acc, &acc);
        unsigned digit = (unsigned)((exp[w / 16] >> (4 * (w % 16))) & 15);
        FP_FN(mul)(&acc, &acc, &table[digit]);
    }
    *r = acc;
}

/* Fermat: a^(p-2). The exponent is fixed, so the sequence of operations
 * does not depend on a. */
void FP_FN(inv)(FP_T *r, const FP_T *a) {
    static const uint64_t e[FP_N] = FP_K(P_MINUS_2);
    FP_FN(pow)(r, a, e, FP_N);
}

/* Divsteps (field/modinv.h) on the Montgomery representative m = aR give
 * m^-1 = a^-1 R^-1, and one Montgomery product by R^3 turns that into
 * a^-1 R, the Montgomery form of the inverse. */
void FP_FN(inv_var)(FP_T *r, const FP_T *a) {
    _Static_assert(FP_N <= ZKP_MODINV_MAX_LIMBS, "zkp_modinv_var takes this many limbs");
    static const FP_T r3 = {FP_K(R3)};
    if (FP_FN(is_zero)(a)) {
        FP_FN(set_zero)(r);
        return;
    }
    FP_T m_inv;
    zkp_modinv_var(m_inv.l, a->l, FP_FN(modulus).l, FP_N);
    FP_FN(mul)(r, &m_inv, &r3);
}

/* Montgomery's trick: one inversion and 3(n-1) products for n inverses.
 * out[] first holds the prefix products, then the inverses. */
void FP_FN(batch_inv_var)(FP_T *out, const FP_T *in, size_t n) {
    FP_T acc;
    FP_FN(set_one)(&acc);
    for (size_t i = 0; i < n; i++) {
        out[i] = acc;
        if (!FP_FN(is_zero)(&in[i])) FP_FN(mul)(&acc, &acc, &in[i]);
    }
    FP_FN(inv_var)(&acc, &acc);
    for (size_t i = n; i-- > 0;) {
        if (FP_FN(is_zero)(&in[i])) {
            FP_FN(set_zero)(&out[i]);
            continue;
        }
        FP_FN(mul)(&out[i], &out[i], &acc);
        FP_FN(mul)(&acc, &acc, &in[i]);
    }
}

/* Tonelli-Shanks with p - 1 = 2^s t. With w = a^((t-1)/2), x = a·w is
 * a^((t+1)/2) and b = x·w is a^t; x is a root exactly when b = 1, and each
 * round multiplies x by a power of the 2^s-th root of unity z that clears
 * the highest 2-power order of b. When s = 1 (p = 3 mod 4) the loop never
 * runs and x = a^((p+1)/4) directly. */
int FP_FN(sqrt_var)(FP_T *r, const FP_T *a) {
    static const uint64_t e[FP_N] = FP_K(T_MINUS_1_HALF);
    if (FP_FN(is_zero)(a)) {
        FP_FN(set_zero)(r);
        return 1;
    }
    FP_T w, x, b, z = {FP_K(ROOT_OF_UNITY)};
    FP_FN(pow)(&w, a, e, FP_N);
    FP_FN(mul)(&x, a, &w);
    FP_FN(mul)(&b, &x, &w);
    unsigned v = FP_K(TWO_ADICITY);
    while (!FP_FN(is_one)(&b)) {
        unsigned k = 0;
        FP_T b2k = b;
        while (!FP_FN(is_one)(&b2k)) {
            FP_FN(sqr)(&b2k, &b2k);
            if (++k >= v) return 0; /* b has order 2^v: a is not a square */
        }
        FP_T t = z;
        for (unsigned i = 0; i + k + 1 < v; i++) FP_FN(sqr)(&t, &t);
        FP_FN(sqr)(&z, &t);
        FP_FN(mul)(&b, &b, &z);
        FP_FN(mul)(&x, &x, &t);
        v = k;
    }
    FP_T check;
    FP_FN(sqr)(&check, &x);
    if (!FP_FN(eq)(&check, a)) return 0;
    *r = x;
    return 1;
}

int FP_FN(legendre_var)(const FP_T *a) {
    static const uint64_t e[FP_N] = FP_K(P_MINUS_1_HALF);
    FP_T t;
    if (FP_FN(is_zero)(a)) return 0;
    FP_FN(pow)(&t, a, e, FP_N);
    return FP_FN(is_one)(&t) ? 1 : -1;
}

void FP_FN(to_bytes_le)(uint8_t out[FP_K(BYTES)], const FP_T *a) {
    FP_T c;
    FP_FN(from_mont)(&c, a);
    FP_FN(to_mont_bytes_le)(out, &c);
}

void FP_FN(to_bytes_be)(uint8_t out[FP_K(BYTES)], const FP_T *a) {
    uint8_t le[FP_K(BYTES)];
    FP_FN(to_bytes_le)(le, a);
    for (int i = 0; i < FP_K(BYTES); i++) out[i] = le[FP_K(BYTES) - 1 - i];
}

zkpipe_status FP_FN(from_bytes_le)(FP_T *r, const uint8_t in[FP_K(BYTES)]) {
    FP_T c;
    zkpipe_status st = FP_FN(from_mont_bytes_le)(&c, in);
    if (st != ZKPIPE_OK) return st;
    FP_FN(to_mont)(r, &c);
    return ZKPIPE_OK;
}

zkpipe_status FP_FN(from_bytes_be)(FP_T *r, const uint8_t in[FP_K(BYTES)]) {
    uint8_t le[FP_K(BYTES)];
    for (int i = 0; i < FP_K(BYTES); i++) le[i] = in[FP_K(BYTES) - 1 - i];
    return FP_FN(from_bytes_le)(r, le);
}

void FP_FN(to_mont_bytes_le)(uint8_t out[FP_K(BYTES)], const FP_T *a) {
    for (int i = 0; i < FP_K(BYTES); i++) out[i] = (uint8_t)(a->l[i / 8] >> (8 * (i % 8)));
}

zkpipe_status FP_FN(from_mont_bytes_le)(FP_T *r, const uint8_t in[FP_K(BYTES)]) {
    FP_T c = {{0}};
    for (int i = 0; i < FP_K(BYTES); i++) c.l[i / 8] |= (uint64_t)in[i] << (8 * (i % 8));
    if (!FP_FN(is_reduced)(&c)) return ZKPIPE_ERR_NON_CANONICAL;
    *r = c;
    return ZKPIPE_OK;
}

zkpipe_status FP_FN(from_dec)(FP_T *r, const char *s, size_t len) {
    if (len == 0 || len > 200) return ZKPIPE_ERR_BAD_ENCODING;
    /* Accumulate into N+1 limbs so that overflow past p is seen, not wrapped. */
    uint64_t acc[FP_N + 1] = {0};
    for (size_t i = 0; i < len; i++) {
        if (s[i] < '0' || s[i] > '9') return ZKPIPE_ERR_BAD_ENCODING;
        zkp_u128 c = (uint64_t)(s[i] - '0');
        for (int j = 0; j <= FP_N; j++) {
            c += (zkp_u128)acc[j] * 10;
            acc[j] = (uint64_t)c;
            c >>= 64;
        }
        if (c != 0 || acc[FP_N] != 0) return ZKPIPE_ERR_NON_CANONICAL;
    }
    FP_T v;
    memcpy(v.l, acc, sizeof v.l);
    if (!FP_FN(is_reduced)(&v)) return ZKPIPE_ERR_NON_CANONICAL;
    FP_FN(to_mont)(r, &v);
    return ZKPIPE_OK;
}

size_t FP_FN(to_dec)(char *out, size_t cap, const FP_T *a) {
    FP_T v;
    char digits[24 * FP_N];
    size_t n = 0;
    FP_FN(from_mont)(&v, a);
    do {
        /* Divide by 10 from the top limb down; the remainder is the next digit. */
        zkp_u128 rem = 0;
        for (int j = FP_N; j-- > 0;) {
            zkp_u128 cur = (rem << 64) | v.l[j];
            v.l[j] = (uint64_t)(cur / 10);
            rem = cur % 10;
        }
        digits[n++] = (char)('0' + (int)rem);
    } while (!FP_FN(is_zero)(&v));
    if (cap < n + 1) return 0;
    for (size_t i = 0; i < n; i++) out[i] = digits[n - 1 - i];
    out[n] = '\0';
    return n;
}

/* Rejection sampling on the bit length of p: each try succeeds with
 * probability p / 2^bits > 1/2. A uniform x in [0, p) is also uniform as a
 * Montgomery representative, so no conversion is needed. */
zkpipe_status FP_FN(random)(FP_T *r) {
    const int top_bits = FP_K(BITS) - 64 * (FP_N - 1);
    const uint64_t top_mask = top_bits == 64 ? ~(uint64_t)0 : (((uint64_t)1 << top_bits) - 1);
    for (;;) {
        FP_T c;
        zkpipe_status st = zkp_random_bytes(c.l, sizeof c.l);
        if (st != ZKPIPE_OK) return st;
        c.l[FP_N - 1] &= top_mask;
        if (FP_FN(is_reduced)(&c)) {
            *r = c;
            return ZKPIPE_OK;
        }
    }
}

zkpipe_status FP_FN(root_of_unity)(FP_T *r, unsigned log_n) {
    if (log_n > FP_K(TWO_ADICITY)) return ZKPIPE_ERR_INVALID_ARGUMENT;
    FP_T z = {FP_K(ROOT_OF_UNITY)};
    for (unsigned i = log_n; i < FP_K(TWO_ADICITY); i++) FP_FN(sqr)(&z, &z);
    *r = z;
    return ZKPIPE_OK;
}

#undef FP_T
#undef FP_FN
#undef FP_K
#undef FP_N
