/* splitmix64 (Steele, Lea and Flood): a tiny deterministic generator of
 * 64-bit values, for inputs that a seed must reproduce (synthetic keys and
 * circuits, benchmark data, test schedules). Nothing from it may need to be
 * unpredictable: util/rand.h is the generator for secrets. */
#ifndef ZKP_UTIL_SPLITMIX_H
#define ZKP_UTIL_SPLITMIX_H

#include <stdint.h>

#define ZKP_SPLITMIX64_STEP 0x9e3779b97f4a7c15ULL

/* The value after state's; state moves on by one step. */
static inline uint64_t zkp_splitmix64(uint64_t *state) {
    uint64_t z = (*state += ZKP_SPLITMIX64_STEP);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* Value k of the sequence from state s (k = 0 is the next), without the
 * values before it: the state is a counter, so threads can fill ranges of
 * their own. */
static inline uint64_t zkp_splitmix64_at(uint64_t s, uint64_t k) {
    uint64_t state = s + k * ZKP_SPLITMIX64_STEP;
    return zkp_splitmix64(&state);
}

#endif
