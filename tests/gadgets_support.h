/* Helpers shared by the tests of the constraint-system layer and of
 * Poseidon: a recorder that goes when the case ends, random scalars, and a
 * SHA-256 circuit of a realistic size. */
#ifndef ZKP_TESTS_GADGETS_SUPPORT_H
#define ZKP_TESTS_GADGETS_SUPPORT_H

#include <stdint.h>
#include <stdlib.h>

#include "field/bls12_381_fr.h"
#include "gadgets/cs.h"
#include "gadgets/multipack.h"
#include "gadgets/sha256.h"
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

/* SHA-256 of 64 random private bytes, bellperson's gadget, the digest
 * packed into two public inputs: a circuit of 45,391 rows (a domain of
 * 2^16) for keys and proofs of a realistic shape. */
static inline void test_sha256_64_random_bytes(zkp_cs *cs) {
    uint8_t msg[64];
    test_rng_bytes(msg, sizeof msg);
    zkp_bool bits[512], digest[256];
    for (int i = 0; i < 512; i++) bits[i] = zkp_bool_alloc(cs, (msg[i / 8] >> (7 - i % 8)) & 1);
    zkp_sha256_gadget(cs, bits, 512, digest);
    zkp_pack_into_inputs(cs, digest, 256);
}

#endif
