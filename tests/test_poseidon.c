/* Poseidon over BLS12-381 Fr (src/hash/poseidon.h).
 *
 * The known answers come from outside zkpipe: neptune's hash_values test
 * (the digest of [0, 1, ..., a - 1] for each arity, also listed in
 * FACTS.md section 3), rust-fil-proofs' test_poseidon_hasher (a Filecoin
 * Merkle tree over Poseidon-2), and round constants printed by the Poseidon
 * authors' Grain script (create_rcs_grain.sage 1 1 255 9 8 57 r, as kept in
 * neptune's parameters/ folder). The optimised form is checked against the
 * plain one both at the end and at every S-box input, which is where the
 * circuit takes its witness values. */
#include <pthread.h>
#include <stdlib.h>

#include "field/field.h"
#include "hash/poseidon.h"
#include "hash/poseidon_constants.h"
#include "gadgets_support.h"
#include "test.h"
#include "test_support.h"

typedef bls12_381_fr_t fr_t;

static const unsigned filecoin_arities[] = {2, 4, 8, 11};
#define N_FILECOIN_ARITIES (sizeof filecoin_arities / sizeof filecoin_arities[0])

static const zkp_poseidon_params *params_(unsigned arity) {
    const zkp_poseidon_params *p = NULL;
    ASSERT_OK(zkp_poseidon_params_get(&p, arity));
    ASSERT(p != NULL);
    ASSERT_EQ_U64(p->arity, arity);
    ASSERT_EQ_U64(p->width, arity + 1);
    return p;
}

/* got, as a canonical value, equals four little-endian 64-bit limbs (the
 * way neptune and rust-fil-proofs write their expected digests). */
static void assert_fr_limbs_(const fr_t *got, const uint64_t want[4], const char *what) {
    fr_t c;
    bls12_381_fr_from_mont(&c, got);
    for (int i = 0; i < 4; i++)
        ASSERT_MSG(c.l[i] == want[i], "%s: limb %d is %016" PRIx64 ", expected %016" PRIx64, what, i, c.l[i],
                   want[i]);
}

/* neptune's digest of [0, 1, ..., a - 1] under PoseidonConstants::new()
 * (Strength::Standard, HashType::MerkleTree), through every entry point. */
static void check_known_answer_(unsigned arity, const uint64_t want[4]) {
    const zkp_poseidon_params *p = params_(arity);
    fr_t preimage[ZKP_POSEIDON_MAX_ARITY], got;
    uint8_t bytes[ZKP_POSEIDON_MAX_ARITY * 32] = {0}, out[32];
    for (unsigned i = 0; i < arity; i++) {
        bls12_381_fr_set_u64(&preimage[i], i);
        bytes[32 * i] = (uint8_t)i;
    }
    char what[64];
    snprintf(what, sizeof what, "arity %u, optimised", arity);
    zkp_poseidon_hash(&got, p, preimage);
    assert_fr_limbs_(&got, want, what);
    snprintf(what, sizeof what, "arity %u, plain", arity);
    zkp_poseidon_hash_plain(&got, p, preimage);
    assert_fr_limbs_(&got, want, what);
    ASSERT_OK(zkp_poseidon_hash_bytes(out, arity, bytes, NULL));
    for (int i = 0; i < 32; i++) ASSERT_EQ_U64(out[i], (uint8_t)(want[i / 8] >> (8 * (i % 8))));
}

TEST_CASE(poseidon_known_answers_filecoin_arities) {
    static const struct {
        unsigned arity;
        uint64_t digest[4];
    } cases[] = {
        {2, {0x2e203c369a02e7ff, 0xa6fba9339d05a69d, 0x739e0fd902efe161, 0x396508d75e76a56b}},
        {4, {0x019814ff6662075d, 0xfb6b4605bf1327ec, 0x00db3c6579229399, 0x58a54b10a9e5848a}},
        {8, {0x2a9934f56d38a5e6, 0x4b682e9d9cc4aed9, 0x1201004211677077, 0x2394611da3a5de55}},
        {11, {0xcee3bbc32b693163, 0x09f3dcd8ccb08fc1, 0x6ca537e232ebe87a, 0x0c0fc1b2e5227f28}},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) check_known_answer_(cases[k].arity, cases[k].digest);
}

TEST_CASE(poseidon_known_answers_wide_arities) {
    static const struct {
        unsigned arity;
        uint64_t digest[4];
    } cases[] = {
        {16, {0x1291c74060266d37, 0x5b8dbc6d30680a6f, 0xc1c2fb5a6f871e63, 0x2d3ae2663381ae8a}},
        {24, {0xd7ef3569f585b321, 0xc3e779f6468815b1, 0x066f39bf783f3d9f, 0x63beb8831f11ae15}},
        {36, {0x4473606dfa4e8140, 0x75cd368df8a8ac3c, 0x540a30e03c10bbaa, 0x699303082a6e5d5f}},
    };
    ASSERT_OK(zkp_poseidon_init_all()); /* every arity, the widest included */
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) check_known_answer_(cases[k].arity, cases[k].digest);
}

TEST_CASE(poseidon_round_parameters) {
    static const struct {
        unsigned arity, r_p;
        uint64_t tag;
    } cases[] = {{2, 55, 3}, {4, 56, 15}, {8, 57, 255}, {11, 57, 2047}, {16, 59, 65535}};
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        const zkp_poseidon_params *p = params_(cases[k].arity);
        ASSERT_EQ_U64(p->full_rounds, 8);
        ASSERT_EQ_U64(p->half_full_rounds, 4);
        ASSERT_EQ_U64(p->partial_rounds, cases[k].r_p);
        fr_t tag;
        bls12_381_fr_set_u64(&tag, cases[k].tag);
        ASSERT(bls12_381_fr_eq(&p->domain_tag, &tag));
    }
    const zkp_poseidon_params *p = NULL;
    ASSERT_EQ_STATUS(zkp_poseidon_params_get(&p, 3), ZKPIPE_ERR_UNSUPPORTED);
    ASSERT_EQ_STATUS(zkp_poseidon_params_get(&p, 0), ZKPIPE_ERR_UNSUPPORTED);
    ASSERT_EQ_STATUS(zkp_poseidon_params_get(&p, 37), ZKPIPE_ERR_UNSUPPORTED);
    ASSERT(p == NULL);
}

/* Constants 0, 1, 8, 300 and 584 (the last) of the reference script's
 * output for t = 9, R_F = 8, R_P = 57: the round constants of arity 8. */
TEST_CASE(poseidon_grain_matches_reference_script) {
    static const struct {
        size_t index;
        const char *hex;
    } cases[] = {
        {0, "0x6ce90d12c4045fe08c3caddb776dd84ac52b4ae7e48cd49443984154f2f4c2f9"},
        {1, "0x0ccd9b480c84022b25a75b52c8e89d80b4fa6378d32e58f3a175504940bcec39"},
        {8, "0x5f2a741651a2e15ce1479c0409485bcc62fffb8f1c10d818f7e1ee309632904b"},
        {300, "0x233d4a56502bc122851f26f1b971a2f5148aaea7215fcf137d92a0377e604bb6"},
        {584, "0x3b3a75eb91b0f723bcc4ab7e449e4a011b8960063efe74670c05e545519d9a8c"},
    };
    const zkp_poseidon_params *p = params_(8);
    fr_t *direct = malloc(65 * 9 * sizeof(fr_t));
    ASSERT(direct != NULL);
    test_defer(free, direct);
    zkp_poseidon_grain_constants(direct, 9, 8, 57);
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        uint8_t be[32];
        fr_t want;
        test_hex_to_be(be, sizeof be, cases[k].hex);
        ASSERT_OK(bls12_381_fr_from_bytes_be(&want, be));
        ASSERT_MSG(bls12_381_fr_eq(&p->round_constants[cases[k].index], &want), "round constant %zu",
                   cases[k].index);
        ASSERT(bls12_381_fr_eq(&direct[cases[k].index], &want));
    }
}

TEST_CASE(poseidon_mds_is_cauchy_and_inverse_is_inverse) {
    for (size_t a = 0; a < N_FILECOIN_ARITIES; a++) {
        const zkp_poseidon_params *p = params_(filecoin_arities[a]);
        const unsigned t = p->width;
        fr_t prod[ZKP_POSEIDON_MAX_WIDTH * ZKP_POSEIDON_MAX_WIDTH];
        /* M[i][j] * (i + t + j) = 1: the Cauchy definition, checked by
         * multiplication rather than by the inversion that made it. */
        for (unsigned i = 0; i < t; i++)
            for (unsigned j = 0; j < t; j++) {
                fr_t d, one;
                bls12_381_fr_set_u64(&d, (uint64_t)i + t + j);
                bls12_381_fr_mul(&one, &d, &p->mds[i * t + j]);
                ASSERT(bls12_381_fr_is_one(&one));
            }
        for (int order = 0; order < 2; order++) {
            if (order == 0)
                zkp_poseidon_matrix_mul(prod, p->mds, p->mds_inv, t);
            else
                zkp_poseidon_matrix_mul(prod, p->mds_inv, p->mds, t);
            for (unsigned i = 0; i < t; i++)
                for (unsigned j = 0; j < t; j++) {
                    const fr_t *e = &prod[i * t + j];
                    ASSERT_MSG(i == j ? bls12_381_fr_is_one(e) : bls12_381_fr_is_zero(e),
                               "arity %u, order %d: product[%u][%u] is not the identity's", p->arity, order, i, j);
                }
        }
    }
    /* A singular matrix is reported, not inverted. */
    fr_t m[4], inv[4];
    bls12_381_fr_set_u64(&m[0], 2);
    bls12_381_fr_set_u64(&m[1], 4);
    bls12_381_fr_set_u64(&m[2], 3);
    bls12_381_fr_set_u64(&m[3], 6);
    ASSERT_EQ_STATUS(zkp_poseidon_matrix_invert(inv, m, 2), ZKPIPE_ERR_NOT_INVERTIBLE);
}

/* The plain permutation, written out again here with a record of each
 * round's S-box inputs (state + that round's constants). */
static void plain_sbox_inputs_(const zkp_poseidon_params *p, fr_t *s, fr_t *inputs) {
    const unsigned t = p->width, half = p->half_full_rounds, rounds = p->full_rounds + p->partial_rounds;
    for (unsigned r = 0; r < rounds; r++) {
        fr_t next[ZKP_POSEIDON_MAX_WIDTH];
        for (unsigned i = 0; i < t; i++) bls12_381_fr_add(&s[i], &s[i], &p->round_constants[r * t + i]);
        memcpy(&inputs[r * t], s, t * sizeof(fr_t));
        const int full = r < half || r >= half + p->partial_rounds;
        for (unsigned i = 0; i < (full ? t : 1); i++) {
            fr_t x = s[i];
            bls12_381_fr_sqr(&s[i], &s[i]);
            bls12_381_fr_sqr(&s[i], &s[i]);
            bls12_381_fr_mul(&s[i], &s[i], &x);
        }
        zkp_poseidon_matrix_apply(next, p->mds, s, t);
        memcpy(s, next, t * sizeof(fr_t));
    }
}

TEST_CASE(poseidon_optimized_equals_plain_on_random_states) {
    const unsigned iters = test_iters(8);
    for (size_t a = 0; a < N_FILECOIN_ARITIES; a++) {
        const zkp_poseidon_params *p = params_(filecoin_arities[a]);
        const unsigned t = p->width, rounds = p->full_rounds + p->partial_rounds;
        const size_t trace_len = (size_t)rounds * t;
        fr_t *trace = malloc(2 * trace_len * sizeof(fr_t));
        ASSERT(trace != NULL);
        test_defer(free, trace);
        fr_t *plain_inputs = trace + trace_len;
        for (unsigned it = 0; it < iters; it++) {
            fr_t preimage[ZKP_POSEIDON_MAX_ARITY], h_opt, h_plain;
            for (unsigned i = 0; i < p->arity; i++) test_fr_random(&preimage[i]);
            zkp_poseidon_hash(&h_opt, p, preimage);
            zkp_poseidon_hash_plain(&h_plain, p, preimage);
            ASSERT_MSG(bls12_381_fr_eq(&h_opt, &h_plain), "arity %u, iteration %u: digests differ", p->arity, it);

            /* A whole random state (the tag position too), permuted both
             * ways: every element of the output agrees. */
            fr_t s_opt[ZKP_POSEIDON_MAX_WIDTH], s_plain[ZKP_POSEIDON_MAX_WIDTH], s_ref[ZKP_POSEIDON_MAX_WIDTH];
            for (unsigned i = 0; i < t; i++) test_fr_random(&s_opt[i]);
            memcpy(s_plain, s_opt, sizeof s_plain);
            memcpy(s_ref, s_opt, sizeof s_ref);
            zkp_poseidon_permute_optimized(p, s_opt, trace);
            zkp_poseidon_permute_plain(p, s_plain);
            plain_sbox_inputs_(p, s_ref, plain_inputs);
            for (unsigned i = 0; i < t; i++) {
                ASSERT_MSG(bls12_381_fr_eq(&s_opt[i], &s_plain[i]), "arity %u: state[%u] differs", p->arity, i);
                ASSERT(bls12_381_fr_eq(&s_ref[i], &s_plain[i]));
            }

            /* In the full rounds after the first, the optimised state
             * entering a round already holds that round's constants, so it
             * is the plain S-box input; in the partial rounds element 0, the
             * only S-box input, agrees. (Round 0 is the input itself.) */
            for (unsigned r = 1; r < rounds; r++) {
                const int partial = r >= p->half_full_rounds && r < p->half_full_rounds + p->partial_rounds;
                for (unsigned i = 0; i < (partial ? 1 : t); i++)
                    ASSERT_MSG(bls12_381_fr_eq(&trace[r * t + i], &plain_inputs[r * t + i]),
                               "arity %u: S-box input %u of round %u differs", p->arity, i, r);
            }
        }
    }
}

TEST_CASE(poseidon_trace_starts_with_the_input) {
    const zkp_poseidon_params *p = params_(2);
    fr_t s[3], in[3], trace[(8 + 55) * 3];
    for (unsigned i = 0; i < 3; i++) test_fr_random(&s[i]);
    memcpy(in, s, sizeof in);
    zkp_poseidon_permute_optimized(p, s, trace);
    for (unsigned i = 0; i < 3; i++) ASSERT(bls12_381_fr_eq(&trace[i], &in[i]));
    /* The round-0 constants are added inside the first round, so the entry
     * of round 1 differs from the input. */
    ASSERT(!bls12_381_fr_eq(&trace[3], &in[0]) || !bls12_381_fr_eq(&trace[4], &in[1]));
}

/* rust-fil-proofs filecoin-hashers/src/poseidon.rs test_poseidon_hasher: a
 * binary MerkleTree<PoseidonDomain, PoseidonFunction> over the leaves
 * [1, 0, 0, 1], where a node is Poseidon-2(left, right) and the leaves are
 * taken as they are. Node 4 is Poseidon-2(1, 0); node 6 is the root. */
TEST_CASE(poseidon_filecoin_tree_hasher) {
    static const uint64_t node4[4] = {0xb339ff6079800b5e, 0xec5907b3dc3094af, 0x93c003cc74a24f26,
                                      0x042f94ffbe786bc3};
    static const uint64_t root[4] = {0xefbb8be3e291e671, 0x77cc72b8cb2b5ad2, 0x30eb6385ae6b74ae,
                                     0x1effebb7b26ad9eb};
    uint8_t leaves[4][32] = {{1}, {0}, {0}, {1}};
    uint8_t level1[2][32], top[32];
    ASSERT_OK(zkp_poseidon_hash_bytes(level1[0], 2, leaves[0], NULL));
    ASSERT_OK(zkp_poseidon_hash_bytes(level1[1], 2, leaves[2], NULL));
    ASSERT_OK(zkp_poseidon_hash_bytes(top, 2, level1[0], NULL));
    for (int i = 0; i < 32; i++) {
        ASSERT_EQ_U64(level1[0][i], (uint8_t)(node4[i / 8] >> (8 * (i % 8))));
        ASSERT_EQ_U64(top[i], (uint8_t)(root[i / 8] >> (8 * (i % 8))));
    }

    /* The same tree in field elements. */
    const zkp_poseidon_params *p = params_(2);
    fr_t leaf[4], n[2], r;
    bls12_381_fr_set_one(&leaf[0]);
    bls12_381_fr_set_zero(&leaf[1]);
    bls12_381_fr_set_zero(&leaf[2]);
    bls12_381_fr_set_one(&leaf[3]);
    zkp_poseidon_hash(&n[0], p, &leaf[0]);
    zkp_poseidon_hash(&n[1], p, &leaf[2]);
    zkp_poseidon_hash(&r, p, n);
    assert_fr_limbs_(&n[0], node4, "node 4");
    assert_fr_limbs_(&r, root, "root");
    ASSERT(!bls12_381_fr_eq(&n[0], &n[1])); /* Poseidon-2(0, 1) is another node */
}

TEST_CASE(poseidon_rejects_non_canonical_bytes) {
    /* r, little-endian: the smallest value that is not canonical. */
    static const uint64_t r_limbs[4] = {0xffffffff00000001, 0x53bda402fffe5bfe, 0x3339d80809a1d805,
                                        0x73eda753299d7d48};
    uint8_t in[2 * 32] = {0}, out[32], untouched[32];
    memset(out, 0xa5, sizeof out);
    memcpy(untouched, out, sizeof out);
    for (int i = 0; i < 32; i++) in[32 + i] = (uint8_t)(r_limbs[i / 8] >> (8 * (i % 8)));
    zkp_diag d = {{0}};
    ASSERT_EQ_STATUS(zkp_poseidon_hash_bytes(out, 2, in, &d), ZKPIPE_ERR_NON_CANONICAL);
    ASSERT_MSG(strstr(d.msg, "element 1 of 2") != NULL, "diagnostic: %s", d.msg);
    ASSERT_MEM_EQ(out, untouched, sizeof out);

    /* r - 1 is the largest canonical value and is accepted. */
    in[32] = 0x00;
    ASSERT_OK(zkp_poseidon_hash_bytes(out, 2, in, NULL));
    /* All ones (above r, and above 2^255), in element 0 of eight. */
    uint8_t wide[8 * 32] = {0};
    memset(wide, 0xff, 32);
    ASSERT_EQ_STATUS(zkp_poseidon_hash_bytes(out, 8, wide, &d), ZKPIPE_ERR_NON_CANONICAL);
    ASSERT_MSG(strstr(d.msg, "element 0 of 8") != NULL, "diagnostic: %s", d.msg);
    /* An arity outside the table. */
    ASSERT_EQ_STATUS(zkp_poseidon_hash_bytes(out, 3, wide, &d), ZKPIPE_ERR_UNSUPPORTED);
}

/* Several threads ask for the same arity at once; every one gets the one
 * object, and hashes with it agree (ThreadSanitizer watches the first use). */
#define PARAMS_THREADS 4

typedef struct {
    const zkp_poseidon_params *p;
    fr_t digest;
    zkpipe_status st;
} params_thread_arg;

static void *params_thread_(void *arg) {
    params_thread_arg *a = arg;
    a->st = zkp_poseidon_params_get(&a->p, 4);
    if (a->st == ZKPIPE_OK) {
        fr_t preimage[4];
        for (unsigned i = 0; i < 4; i++) bls12_381_fr_set_u64(&preimage[i], i);
        zkp_poseidon_hash(&a->digest, a->p, preimage);
    }
    return NULL;
}

TEST_CASE(poseidon_params_first_use_from_threads) {
    pthread_t th[PARAMS_THREADS];
    params_thread_arg args[PARAMS_THREADS];
    memset(args, 0, sizeof args);
    for (int i = 0; i < PARAMS_THREADS; i++) ASSERT(pthread_create(&th[i], NULL, params_thread_, &args[i]) == 0);
    for (int i = 0; i < PARAMS_THREADS; i++) ASSERT(pthread_join(th[i], NULL) == 0);
    static const uint64_t want[4] = {0x019814ff6662075d, 0xfb6b4605bf1327ec, 0x00db3c6579229399,
                                     0x58a54b10a9e5848a};
    for (int i = 0; i < PARAMS_THREADS; i++) {
        ASSERT_OK(args[i].st);
        ASSERT(args[i].p == args[0].p);
        assert_fr_limbs_(&args[i].digest, want, "arity 4 from a thread");
    }
}
