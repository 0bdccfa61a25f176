/* Helpers shared by the tests of the constraint-system layer and of
 * Poseidon: a recorder that goes when the case ends, and random scalars. */
#ifndef ZKP_TESTS_GADGETS_SUPPORT_H
#define ZKP_TESTS_GADGETS_SUPPORT_H

#include <stdint.h>
#include <stdlib.h>

#include "field/bls12_381_fr.h"
#include "gadgets/cs.h"
#include "test.h"

static void test_recorder_free_(void *p) {
    zkp_cs_recorder_free(p);
    free(p);
}

/* An initialised recorder, freed when the case ends; a case may free and
 * initialise it again between uses. */
static inline zkp_cs_recorder *test_new_recorder(void) {
    zkp_cs_recorder *rec = calloc(1, sizeof *rec);
    ASSERT(rec);
    zkp_cs_recorder_init(rec);
    test_defer(test_recorder_free_, rec);
    return rec;
}

/* A uniform element of BLS12-381 Fr: 255-bit draws, rejected until below
 * r, so every value is canonical. */
static inline void test_fr_random(bls12_381_fr_t *r) {
    for (;;) {
        uint8_t b[32];
        test_rng_bytes(b, sizeof b);
        b[31] &= 0x7f;
        if (bls12_381_fr_from_bytes_le(r, b) == ZKPIPE_OK) return;
    }
}

#endif
