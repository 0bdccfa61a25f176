/* FNV-1a, 64 bits: a digest that tells a changed file header from the one
 * seen before (the engine's key identity). Not a defence against anyone
 * who may write the file. */
#ifndef ZKP_UTIL_FNV_H
#define ZKP_UTIL_FNV_H

#include <stddef.h>
#include <stdint.h>

#define ZKP_FNV1A64_INIT UINT64_C(0xcbf29ce484222325)

static inline uint64_t zkp_fnv1a64(uint64_t h, const void *p, size_t n) {
    const uint8_t *b = p;
    for (size_t i = 0; i < n; i++) h = (h ^ b[i]) * UINT64_C(0x100000001b3);
    return h;
}

#endif
