/* Multi-precision helpers on little-endian 64-bit limb arrays.
 *
 * These are the building blocks of the field template. Each loops over n
 * limbs; the field code calls them with a compile-time n, so after inlining
 * the compiler unrolls them fully. All are constant time. */
#ifndef ZKP_FIELD_LIMBS_H
#define ZKP_FIELD_LIMBS_H

#include <stddef.h>
#include <stdint.h>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
/* The add-with-carry intrinsics are baseline x86-64 (adc/sbb, not ADX).
 * GCC turns carry chains written with unsigned __int128 into stack spills;
 * with these it emits straight adc/sbb sequences, about 4x faster. */
#include <x86intrin.h>
#define ZKP_LIMBS_ADC 1
#endif

typedef unsigned __int128 zkp_u128;

/* One limb of an add or subtract chain: returns the new carry or borrow. */
static inline uint64_t zkp_addc(uint64_t *r, uint64_t a, uint64_t b, uint64_t carry) {
#ifdef ZKP_LIMBS_ADC
    unsigned long long out;
    uint64_t c = _addcarry_u64((unsigned char)carry, a, b, &out);
    *r = out;
    return c;
#else
    zkp_u128 t = (zkp_u128)a + b + carry;
    *r = (uint64_t)t;
    return (uint64_t)(t >> 64);
#endif
}

static inline uint64_t zkp_subb(uint64_t *r, uint64_t a, uint64_t b, uint64_t borrow) {
#ifdef ZKP_LIMBS_ADC
    unsigned long long out;
    uint64_t c = _subborrow_u64((unsigned char)borrow, a, b, &out);
    *r = out;
    return c;
#else
    zkp_u128 t = (zkp_u128)a - b - borrow;
    *r = (uint64_t)t;
    return (uint64_t)(t >> 64) & 1;
#endif
}

/* r = a + b; returns the carry out (0 or 1). */
static inline uint64_t zkp_limbs_add(uint64_t *r, const uint64_t *a, const uint64_t *b, size_t n) {
    uint64_t carry = 0;
    for (size_t i = 0; i < n; i++) carry = zkp_addc(&r[i], a[i], b[i], carry);
    return carry;
}

/* r = a - b; returns the borrow out (0 or 1). */
static inline uint64_t zkp_limbs_sub(uint64_t *r, const uint64_t *a, const uint64_t *b, size_t n) {
    uint64_t borrow = 0;
    for (size_t i = 0; i < n; i++) borrow = zkp_subb(&r[i], a[i], b[i], borrow);
    return borrow;
}

/* r = mask ? a : r, with mask all-ones or zero. */
static inline void zkp_limbs_cmov(uint64_t *r, const uint64_t *a, uint64_t mask, size_t n) {
    for (size_t i = 0; i < n; i++) r[i] ^= (r[i] ^ a[i]) & mask;
}

/* 1 if a == b, else 0. */
static inline uint64_t zkp_limbs_eq(const uint64_t *a, const uint64_t *b, size_t n) {
    uint64_t d = 0;
    for (size_t i = 0; i < n; i++) d |= a[i] ^ b[i];
    return ((d | ((uint64_t)0 - d)) >> 63) ^ 1;
}

/* 1 if a < b (as integers), else 0. */
static inline uint64_t zkp_limbs_lt(const uint64_t *a, const uint64_t *b, size_t n) {
    uint64_t borrow = 0, scratch;
    for (size_t i = 0; i < n; i++) borrow = zkp_subb(&scratch, a[i], b[i], borrow);
    return borrow;
}

/* a >>= 1, shifting top_bit into the most significant position. */
static inline void zkp_limbs_shr1(uint64_t *a, uint64_t top_bit, size_t n) {
    for (size_t i = 0; i + 1 < n; i++) a[i] = (a[i] >> 1) | (a[i + 1] << 63);
    a[n - 1] = (a[n - 1] >> 1) | (top_bit << 63);
}

/* Bit i of a (i < 64 n). */
static inline unsigned zkp_limbs_bit(const uint64_t *a, size_t i) {
    return (unsigned)((a[i / 64] >> (i % 64)) & 1);
}

/* Index of the highest set bit plus one; 0 when a is zero. Not constant time. */
static inline size_t zkp_limbs_bitlen_var(const uint64_t *a, size_t n) {
    for (size_t i = n; i-- > 0;)
        if (a[i]) return 64 * i + 64 - (size_t)__builtin_clzll(a[i]);
    return 0;
}

#endif
