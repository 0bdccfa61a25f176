/* The Poseidon circuit (src/gadgets/poseidon.c).
 *
 * Known answers from outside zkpipe: the constraint counts that neptune's
 * circuit tests and rust-fil-proofs' stacked/circuit/hash.rs assert for the
 * legacy circuit (311, 377, 505, 598 and 761 for arities 2, 4, 8, 11, 16;
 * FACTS.md 2.4), and neptune's hash_values digests of [0, 1, ..., a - 1]
 * (FACTS.md 3). Random preimages are compared with the plain permutation of
 * src/hash (the textbook form, which shares none of the optimised form's
 * derived constants), and the recorder checks every constraint. */
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gadgets/poseidon.h"
#include "gadgets_support.h"
#include "test.h"

typedef bls12_381_fr_t fr_t;

static void assert_limbs_(const fr_t *x, const uint64_t want[4], unsigned arity) {
    fr_t c;
    bls12_381_fr_from_mont(&c, x);
    for (int i = 0; i < 4; i++)
        ASSERT_MSG(c.l[i] == want[i], "arity %u: limb %d is %016" PRIx64 ", expected %016" PRIx64,
                   arity, i, c.l[i], want[i]);
}

/* Allocates the preimage as private variables and hashes it; returns the
 * digest variable, its value in *digest. */
static zkp_var hash_(zkp_cs *cs, unsigned arity, const fr_t *preimage, fr_t *digest) {
    zkp_var vars[ZKP_POSEIDON_MAX_ARITY];
    for (unsigned i = 0; i < arity; i++) vars[i] = zkp_cs_alloc(cs, &preimage[i]);
    return zkp_poseidon_gadget(cs, arity, vars, preimage, digest);
}

TEST_CASE(gadgets_poseidon_constraint_counts) {
    static const struct {
        unsigned arity;
        uint64_t constraints;
    } cases[] = {{2, 311}, {4, 377}, {8, 505}, {11, 598}, {16, 761}};
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        unsigned a = cases[k].arity;
        fr_t preimage[ZKP_POSEIDON_MAX_ARITY], digest;
        for (unsigned i = 0; i < a; i++) bls12_381_fr_set_u64(&preimage[i], i);
        zkp_cs cs;
        zkp_cs_init_counter(&cs);
        zkp_var out = hash_(&cs, a, preimage, &digest);
        ASSERT_OK(zkp_cs_status(&cs));
        ASSERT_MSG(cs.num_constraints == cases[k].constraints,
                   "arity %u: %" PRIu64 " constraints, expected %" PRIu64, a, cs.num_constraints,
                   cases[k].constraints);
        /* One new private variable per constraint, the digest last. */
        ASSERT_EQ_U64(cs.num_aux, a + cases[k].constraints);
        ASSERT_EQ_U64(cs.num_inputs, 1);
        ASSERT(!zkp_var_is_input(out) && zkp_var_index(out) == cs.num_aux - 1);
        ASSERT_EQ_U64(zkp_poseidon_gadget_constraints(a), cases[k].constraints);
    }
}

TEST_CASE(gadgets_poseidon_known_answers_satisfied) {
    static const struct {
        unsigned arity;
        uint64_t digest[4];
    } cases[] = {
        {2, {0x2e203c369a02e7ff, 0xa6fba9339d05a69d, 0x739e0fd902efe161, 0x396508d75e76a56b}},
        {4, {0x019814ff6662075d, 0xfb6b4605bf1327ec, 0x00db3c6579229399, 0x58a54b10a9e5848a}},
        {8, {0x2a9934f56d38a5e6, 0x4b682e9d9cc4aed9, 0x1201004211677077, 0x2394611da3a5de55}},
        {11, {0xcee3bbc32b693163, 0x09f3dcd8ccb08fc1, 0x6ca537e232ebe87a, 0x0c0fc1b2e5227f28}},
        {16, {0x1291c74060266d37, 0x5b8dbc6d30680a6f, 0xc1c2fb5a6f871e63, 0x2d3ae2663381ae8a}},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        unsigned a = cases[k].arity;
        fr_t preimage[ZKP_POSEIDON_MAX_ARITY], digest;
        for (unsigned i = 0; i < a; i++) bls12_381_fr_set_u64(&preimage[i], i);
        zkp_cs_recorder *rec = test_new_recorder();
        zkp_var out = hash_(&rec->cs, a, preimage, &digest);
        ASSERT_OK(zkp_cs_status(&rec->cs));
        assert_limbs_(&digest, cases[k].digest, a);
        assert_limbs_(zkp_cs_recorder_value(rec, out), cases[k].digest, a);
        uint64_t bad = 0;
        ASSERT_MSG(zkp_cs_recorder_check(rec, &bad), "arity %u: constraint %" PRIu64 " fails", a,
                   bad);
    }
}

TEST_CASE(gadgets_poseidon_random_preimages_match_plain_hash) {
    static const unsigned arities[] = {2, 4, 8, 11};
    for (size_t k = 0; k < sizeof arities / sizeof arities[0]; k++) {
        unsigned a = arities[k];
        const zkp_poseidon_params *p;
        ASSERT_OK(zkp_poseidon_params_get(&p, a));
        for (int round = 0; round < 2; round++) {
            fr_t preimage[ZKP_POSEIDON_MAX_ARITY], digest, want;
            for (unsigned i = 0; i < a; i++) test_fr_random(&preimage[i]);
            zkp_cs_recorder *rec = test_new_recorder();
            /* Something allocated before, so that the hash's variables do
             * not start at index 0. */
            fr_t before;
            test_fr_random(&before);
            (void)zkp_cs_alloc(&rec->cs, &before);
            zkp_var out = hash_(&rec->cs, a, preimage, &digest);
            ASSERT_OK(zkp_cs_status(&rec->cs));
            zkp_poseidon_hash_plain(&want, p, preimage);
            ASSERT(bls12_381_fr_eq(&digest, &want));
            ASSERT(bls12_381_fr_eq(zkp_cs_recorder_value(rec, out), &want));
            uint64_t bad = 0;
            ASSERT_MSG(zkp_cs_recorder_check(rec, &bad), "arity %u: constraint %" PRIu64 " fails",
                       a, bad);
        }
    }
}

/* Each new variable is defined by its own constraint and only later ones
 * read it, so changing the value of the variable made at step s breaks
 * constraint s first; changing the digest breaks the last. */
TEST_CASE(gadgets_poseidon_tampered_witness_caught) {
    const unsigned a = 8;
    fr_t preimage[8], digest, one;
    bls12_381_fr_set_one(&one);
    for (unsigned i = 0; i < a; i++) test_fr_random(&preimage[i]);
    const uint64_t steps = zkp_poseidon_gadget_constraints(a);
    ASSERT_EQ_U64(steps, 505);
    const uint64_t picks[] = {0, 1, 100, 250, steps - 2, steps - 1};
    for (size_t k = 0; k < sizeof picks / sizeof picks[0]; k++) {
        zkp_cs_recorder *rec = test_new_recorder();
        (void)hash_(&rec->cs, a, preimage, &digest);
        ASSERT_OK(zkp_cs_status(&rec->cs));
        uint64_t bad = 0;
        ASSERT(zkp_cs_recorder_check(rec, &bad));
        /* step s's variable is aux a + s (after the preimage) */
        fr_t *v = zkp_cs_recorder_value(rec, (zkp_var)(a + picks[k]));
        ASSERT(v);
        bls12_381_fr_add(v, v, &one);
        ASSERT(!zkp_cs_recorder_check(rec, &bad));
        ASSERT_EQ_U64(bad, picks[k]);
    }
    /* A changed preimage element breaks the first constraint that reads it:
     * element i's square_sum, constraint 3i. */
    for (unsigned i = 0; i < a; i += 3) {
        zkp_cs_recorder *rec = test_new_recorder();
        (void)hash_(&rec->cs, a, preimage, &digest);
        uint64_t bad = 0;
        fr_t *v = zkp_cs_recorder_value(rec, (zkp_var)i);
        bls12_381_fr_add(v, v, &one);
        ASSERT(!zkp_cs_recorder_check(rec, &bad));
        ASSERT_EQ_U64(bad, 3 * (uint64_t)i);
    }
}

TEST_CASE(gadgets_poseidon_unsupported_arity_fails_the_system) {
    zkp_cs cs;
    zkp_cs_init_counter(&cs);
    fr_t x[3];
    for (int i = 0; i < 3; i++) bls12_381_fr_set_u64(&x[i], (uint64_t)i);
    zkp_var vars[3] = {zkp_cs_alloc(&cs, &x[0]), zkp_cs_alloc(&cs, &x[1]),
                       zkp_cs_alloc(&cs, &x[2])};
    ASSERT_EQ_U64(zkp_poseidon_gadget(&cs, 3, vars, x, NULL), ZKP_VAR_ONE);
    ASSERT_EQ_STATUS(zkp_cs_status(&cs), ZKPIPE_ERR_UNSUPPORTED);
    ASSERT_EQ_U64(cs.num_constraints, 0);
    ASSERT_EQ_U64(zkp_poseidon_gadget_constraints(3), 0);
}

/* Several threads hash with the same arity at once, each in its own
 * system: the template is built once and every hash agrees with neptune
 * (ThreadSanitizer watches the first use). */
#define TEMPLATE_THREADS 4

typedef struct {
    zkp_cs cs;
    fr_t digest;
} template_thread_arg;

static void *template_thread_(void *arg) {
    template_thread_arg *t = arg;
    fr_t preimage[4];
    zkp_var vars[4];
    zkp_cs_init_counter(&t->cs);
    for (unsigned i = 0; i < 4; i++) {
        bls12_381_fr_set_u64(&preimage[i], i);
        vars[i] = zkp_cs_alloc(&t->cs, &preimage[i]);
    }
    (void)zkp_poseidon_gadget(&t->cs, 4, vars, preimage, &t->digest);
    return NULL;
}

TEST_CASE(gadgets_poseidon_first_use_from_threads) {
    static const uint64_t want[4] = {0x019814ff6662075d, 0xfb6b4605bf1327ec, 0x00db3c6579229399,
                                     0x58a54b10a9e5848a};
    pthread_t th[TEMPLATE_THREADS];
    template_thread_arg args[TEMPLATE_THREADS];
    memset(args, 0, sizeof args);
    for (int i = 0; i < TEMPLATE_THREADS; i++)
        ASSERT(pthread_create(&th[i], NULL, template_thread_, &args[i]) == 0);
    for (int i = 0; i < TEMPLATE_THREADS; i++) ASSERT(pthread_join(th[i], NULL) == 0);
    for (int i = 0; i < TEMPLATE_THREADS; i++) {
        ASSERT_OK(zkp_cs_status(&args[i].cs));
        ASSERT_EQ_U64(args[i].cs.num_constraints, 377);
        assert_limbs_(&args[i].digest, want, 4);
    }
}
