/* Small helpers shared by every layer. No state lives here. */
#ifndef ZKP_UTIL_UTIL_H
#define ZKP_UTIL_UTIL_H

#include <stddef.h>
#include <stdint.h>

#include "zkpipe/zkpipe.h"

#define ZKP_CAT_(a, b) a##b
#define ZKP_CAT(a, b) ZKP_CAT_(a, b)
#define ZKP_ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

#if defined(__GNUC__) || defined(__clang__)
#define ZKP_LIKELY(x) __builtin_expect(!!(x), 1)
#define ZKP_UNLIKELY(x) __builtin_expect(!!(x), 0)
#define ZKP_WARN_UNUSED __attribute__((warn_unused_result))
#define ZKP_NOINLINE __attribute__((noinline))
#else
#define ZKP_LIKELY(x) (x)
#define ZKP_UNLIKELY(x) (x)
#define ZKP_WARN_UNUSED
#define ZKP_NOINLINE
#endif

/* ZKP_VERIFY builds (cmake -DZKPIPE_ENABLE_VERIFY=ON) check the preconditions
 * that the "On input" comments state: reduced field elements, points on the
 * curve. A failed check aborts with the location, since it means a bug in the
 * caller, not bad external input (which always gets a status code). */
#ifdef ZKP_VERIFY
#include <stdio.h>
#include <stdlib.h>
#define ZKP_VERIFY_CHECK(cond)                                                          \
    do {                                                                                \
        if (!(cond)) {                                                                  \
            fprintf(stderr, "%s:%d: ZKP_VERIFY_CHECK(%s) failed\n", __FILE__, __LINE__, \
                    #cond);                                                             \
            abort();                                                                    \
        }                                                                               \
    } while (0)
#else
#define ZKP_VERIFY_CHECK(cond) ((void)0)
#endif

/* Overflow-checked size arithmetic: return nonzero on overflow. Every size
 * taken from outside input goes through these before an allocation. */
static inline int zkp_mul_overflow(size_t a, size_t b, size_t *out) {
    return __builtin_mul_overflow(a, b, out);
}
static inline int zkp_add_overflow(size_t a, size_t b, size_t *out) {
    return __builtin_add_overflow(a, b, out);
}

/* Constant-time helpers: mask is all-ones when the flag is 1, zero when 0. */
static inline uint64_t zkp_ct_mask(uint64_t bit) { return (uint64_t)0 - (bit & 1); }
/* 1 if x == 0 else 0, without a branch. */
static inline uint64_t zkp_ct_is_zero_u64(uint64_t x) { return ((x | ((uint64_t)0 - x)) >> 63) ^ 1; }

#endif
