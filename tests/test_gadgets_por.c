/* Merkle inclusion (src/gadgets/por.c).
 *
 * Known answers from outside zkpipe: the constraint counts that
 * storage-proofs-core's tests/por_circuit.rs asserts for its PoR circuit
 * over trees of 64 leaves per base tree (Poseidon shapes 2, 4, 8, 8-2, 8-8,
 * 8-4-2, 8-8-2 and 8-2-4 with a public root, 2, 4 and 8 with a private one,
 * SHA-256 binary, 4-ary and 8-ary), and the per-insertion counts of
 * insertion.rs's tests (2, 8, 22, and size * (size - 1) = 240 for 16).
 * Roots are compared with trees built here from src/hash's Poseidon and
 * SHA-256, and with the roots of sealed and synthetic C1s (src/filecoin),
 * whose vanilla verifier holds them; the recorder checks every constraint. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "filecoin/seal.h"
#include "gadgets/csr.h"
#include "gadgets/por.h"
#include "gadgets/poseidon.h"
#include "hash/poseidon.h"
#include "hash/sha256.h"
#include "filecoin_support.h"
#include "gadgets_support.h"
#include "test.h"

typedef bls12_381_fr_t fr_t;

/* ---------------------------------------------------------------- trees */

/* A tree whose level k has arity[k]: node j of level k + 1 is the hash of
 * nodes j * arity[k] .. of level k. A Filecoin tree with sub and top trees
 * is this with the base arity repeated, then the sub and top arities (the
 * roots of the base trees are the sub tree's leaves). */
#define TREE_MAX_LEVELS 12
typedef struct {
    zkp_por_hash hash;
    unsigned n_levels, arity[TREE_MAX_LEVELS];
    size_t count[TREE_MAX_LEVELS + 1];
    fr_t *node[TREE_MAX_LEVELS + 1];
    /* a path: its levels and their siblings */
    zkp_por_level levels[TREE_MAX_LEVELS];
    fr_t siblings[TREE_MAX_LEVELS][15];
} tree_;

static void tree_free_(void *arg) {
    tree_ *t = arg;
    for (unsigned k = 0; k <= t->n_levels; k++) free(t->node[k]);
    free(t);
}

/* Filecoin's trimmed SHA-256 of the values' 32-byte encodings, read as Fr. */
static void sha256_node_(fr_t *out, const fr_t *in, unsigned arity) {
    uint8_t msg[16 * 32], digest[32];
    for (unsigned i = 0; i < arity; i++) bls12_381_fr_to_bytes_le(msg + 32 * i, &in[i]);
    zkp_sha256(digest, msg, 32 * (size_t)arity);
    digest[31] &= 0x3f;
    ASSERT_OK(bls12_381_fr_from_bytes_le(out, digest));
}

static tree_ *tree_new_(zkp_por_hash hash, const unsigned *arity, unsigned n_levels) {
    tree_ *t = calloc(1, sizeof *t);
    ASSERT(t && n_levels <= TREE_MAX_LEVELS);
    test_defer(tree_free_, t);
    t->hash = hash;
    t->n_levels = n_levels;
    t->count[0] = 1;
    for (unsigned k = 0; k < n_levels; k++) {
        t->arity[k] = arity[k];
        t->count[0] *= arity[k];
    }
    for (unsigned k = 0; k <= n_levels; k++) {
        if (k) t->count[k] = t->count[k - 1] / arity[k - 1];
        t->node[k] = malloc(t->count[k] * sizeof(fr_t));
        ASSERT(t->node[k]);
    }
    for (size_t i = 0; i < t->count[0]; i++) test_fr_random(&t->node[0][i]);
    for (unsigned k = 0; k < n_levels; k++) {
        const zkp_poseidon_params *p = NULL;
        if (hash == ZKP_POR_POSEIDON) ASSERT_OK(zkp_poseidon_params_get(&p, arity[k]));
        for (size_t j = 0; j < t->count[k + 1]; j++) {
            const fr_t *in = &t->node[k][j * arity[k]];
            if (p)
                zkp_poseidon_hash_plain(&t->node[k + 1][j], p, in);
            else
                sha256_node_(&t->node[k + 1][j], in, arity[k]);
        }
    }
    return t;
}

static const fr_t *tree_root_(const tree_ *t) { return &t->node[t->n_levels][0]; }

/* Fills t->levels with the path of leaf i. */
static void tree_path_(tree_ *t, size_t i) {
    for (unsigned k = 0; k < t->n_levels; k++) {
        unsigned a = t->arity[k], pos = (unsigned)(i % a);
        size_t first = i - pos;
        for (unsigned s = 0, o = 0; s < a; s++)
            if (s != pos) t->siblings[k][o++] = t->node[k][first + s];
        t->levels[k].arity = a;
        t->levels[k].index = pos;
        t->levels[k].siblings = t->siblings[k];
        i /= a;
    }
}

/* The arities of a Filecoin shape over 64 leaves per base tree. */
static unsigned shape_(unsigned *arity, unsigned base, unsigned sub, unsigned top) {
    unsigned n = 0;
    for (unsigned leaves = 1; leaves < 64; leaves *= base) arity[n++] = base;
    if (sub) arity[n++] = sub;
    if (top) arity[n++] = top;
    return n;
}

/* ---------------------------------------------------------------- checks */

/* The whole PoR circuit for leaf i of t in a recorder: the count, the
 * inputs (ONE, the leaf index, the root when public), the computed root and
 * every constraint. */
static void check_circuit_(tree_ *t, size_t i, int public_root, uint64_t constraints) {
    tree_path_(t, i);
    zkp_cs_recorder *rec = test_new_recorder();
    fr_t computed;
    zkp_por_circuit(&rec->cs, t->hash, t->levels, t->n_levels, &t->node[0][i], tree_root_(t),
                    public_root, &computed);
    ASSERT_OK(zkp_cs_status(&rec->cs));
    ASSERT_MSG(rec->cs.num_constraints == constraints, "%" PRIu64 " constraints, expected %" PRIu64,
               rec->cs.num_constraints, constraints);
    ASSERT_EQ_U64(rec->cs.num_inputs, public_root ? 3 : 2);
    ASSERT(bls12_381_fr_eq(&computed, tree_root_(t)));
    fr_t index;
    bls12_381_fr_set_u64(&index, i);
    ASSERT(bls12_381_fr_eq(zkp_cs_recorder_value(rec, ZKP_VAR_INPUT_BIT | 1), &index));
    if (public_root)
        ASSERT(bls12_381_fr_eq(zkp_cs_recorder_value(rec, ZKP_VAR_INPUT_BIT | 2), tree_root_(t)));
    uint64_t bad = 0;
    ASSERT_MSG(zkp_cs_recorder_check(rec, &bad), "leaf %zu: constraint %" PRIu64 " fails", i, bad);
}

TEST_CASE(gadgets_por_poseidon_shapes_match_storage_proofs_counts) {
    static const struct {
        unsigned base, sub, top;
        uint64_t constraints;
    } cases[] = {
        {2, 0, 0, 1887}, {4, 0, 0, 1164}, {8, 0, 0, 1063}, {8, 2, 0, 1377},
        {8, 8, 0, 1593}, {8, 4, 2, 1764}, {8, 8, 2, 1907}, {8, 2, 4, 1764},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        unsigned arity[TREE_MAX_LEVELS];
        unsigned n = shape_(arity, cases[k].base, cases[k].sub, cases[k].top);
        tree_ *t = tree_new_(ZKP_POR_POSEIDON, arity, n);
        const size_t leaves = t->count[0];
        const size_t picks[] = {leaves - 1, (size_t)(test_rng_u64() % leaves)};
        for (size_t j = 0; j < 2; j++) check_circuit_(t, picks[j], 1, cases[k].constraints);
    }
}

TEST_CASE(gadgets_por_poseidon_private_root_counts) {
    static const struct {
        unsigned base;
        uint64_t constraints;
    } cases[] = {{2, 1886}, {4, 1163}, {8, 1062}};
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        unsigned arity[TREE_MAX_LEVELS];
        unsigned n = shape_(arity, cases[k].base, 0, 0);
        tree_ *t = tree_new_(ZKP_POR_POSEIDON, arity, n);
        check_circuit_(t, (size_t)(test_rng_u64() % t->count[0]), 0, cases[k].constraints);
    }
}

/* SHA-256 trees: the counts over 64 leaves (count only). */
TEST_CASE(gadgets_por_sha256_counts) {
    static const struct {
        unsigned arity;
        uint64_t constraints;
    } cases[] = {{2, 272295}, {4, 216258}, {8, 250987}};
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        unsigned arity[TREE_MAX_LEVELS];
        unsigned n = shape_(arity, cases[k].arity, 0, 0);
        zkp_por_level levels[TREE_MAX_LEVELS];
        fr_t siblings[TREE_MAX_LEVELS][7], leaf, root;
        for (unsigned l = 0; l < n; l++) {
            for (unsigned s = 0; s + 1 < arity[l]; s++) test_fr_random(&siblings[l][s]);
            levels[l].arity = arity[l];
            levels[l].index = (unsigned)(test_rng_u64() % arity[l]);
            levels[l].siblings = siblings[l];
        }
        test_fr_random(&leaf);
        test_fr_random(&root);
        zkp_cs cs;
        zkp_cs_init_counter(&cs);
        zkp_por_circuit(&cs, ZKP_POR_SHA256, levels, n, &leaf, &root, 1, NULL);
        ASSERT_OK(zkp_cs_status(&cs));
        ASSERT_MSG(cs.num_constraints == cases[k].constraints,
                   "arity %u: %" PRIu64 " constraints, expected %" PRIu64, cases[k].arity,
                   cs.num_constraints, cases[k].constraints);
        ASSERT_EQ_U64(cs.num_inputs, 3);
    }
}

/* One binary level (tree_d's) in a recorder: its root and its constraints,
 * whose count is a sixth of the 64-leaf circuit's without its last three. */
TEST_CASE(gadgets_por_sha256_one_level_root) {
    unsigned a = 2;
    tree_ *t = tree_new_(ZKP_POR_SHA256, &a, 1);
    check_circuit_(t, (size_t)(test_rng_u64() % 2), 1, (272295 - 3) / 6 + 3);
}

/* The insertion's count per arity (insertion.rs's test), seen as the
 * difference between a level's constraints and its hash's. */
TEST_CASE(gadgets_por_insertion_counts) {
    static const struct {
        unsigned arity;
        uint64_t insertion;
    } cases[] = {{2, 2}, {4, 8}, {8, 22}, {16, 240}};
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        unsigned a = cases[k].arity, bits = a == 2 ? 1 : a == 4 ? 2 : a == 8 ? 3 : 4;
        tree_ *t = tree_new_(ZKP_POR_POSEIDON, &a, 1);
        const unsigned picks[] = {0, a - 1, (unsigned)(test_rng_u64() % a)};
        for (size_t j = 0; j < 3; j++) {
            const unsigned index = picks[j];
            /* the bits, the insertion, the hash, then the packing, the
             * equality and the public root */
            check_circuit_(t, index, 1,
                           bits + cases[k].insertion + zkp_poseidon_gadget_constraints(a) + 3);
        }
    }
}

TEST_CASE(gadgets_por_wrong_sibling_or_index_fails_at_the_root) {
    unsigned arity[TREE_MAX_LEVELS];
    unsigned n = shape_(arity, 8, 4, 2);
    tree_ *t = tree_new_(ZKP_POR_POSEIDON, arity, n);
    const size_t leaf = (size_t)(test_rng_u64() % t->count[0]);
    fr_t one;
    bls12_381_fr_set_one(&one);
    for (int what = 0; what < 3; what++) {
        tree_path_(t, leaf);
        unsigned level = (unsigned)(test_rng_u64() % n);
        if (what == 0) {
            fr_t *s = &t->siblings[level][test_rng_u64() % (t->arity[level] - 1)];
            bls12_381_fr_add(s, s, &one);
        } else if (what == 1) {
            t->levels[level].index = (t->levels[level].index + 1) % t->arity[level];
        }
        zkp_cs_recorder *rec = test_new_recorder();
        fr_t computed;
        const fr_t *leaf_value = &t->node[0][leaf];
        fr_t other_leaf;
        if (what == 2) {
            bls12_381_fr_add(&other_leaf, leaf_value, &one);
            leaf_value = &other_leaf;
        }
        zkp_por_circuit(&rec->cs, ZKP_POR_POSEIDON, t->levels, n, leaf_value, tree_root_(t), 1,
                        &computed);
        ASSERT_OK(zkp_cs_status(&rec->cs));
        ASSERT(!bls12_381_fr_eq(&computed, tree_root_(t)));
        /* The witness follows the wrong value consistently, so only the
         * equality with the root fails: the constraint before the input's. */
        uint64_t bad = 0;
        ASSERT(!zkp_cs_recorder_check(rec, &bad));
        ASSERT_EQ_U64(bad, rec->cs.num_constraints - 2);
    }
    /* A pick's output changed: its own constraint fails. The first level's
     * insertion starts after its 3 bits; its first pick is b0 NOR b1, then
     * the first pick of a value (aux after leaf, 3 bits, 7 siblings, 2
     * bits of the insertion). */
    tree_path_(t, leaf);
    zkp_cs_recorder *rec = test_new_recorder();
    zkp_por_circuit(&rec->cs, ZKP_POR_POSEIDON, t->levels, n, &t->node[0][leaf], tree_root_(t), 1,
                    NULL);
    uint64_t bad = 0;
    ASSERT(zkp_cs_recorder_check(rec, &bad));
    fr_t *v = zkp_cs_recorder_value(rec, (zkp_var)(1 + 3 + 7 + 2));
    bls12_381_fr_add(v, v, &one);
    ASSERT(!zkp_cs_recorder_check(rec, &bad));
    ASSERT_EQ_U64(bad, 3 + 2); /* 3 bit constraints, NOR, AND, then this pick */
}

TEST_CASE(gadgets_por_refuses_bad_levels) {
    fr_t s[15], leaf;
    bls12_381_fr_set_u64(&leaf, 1);
    for (int i = 0; i < 15; i++) bls12_381_fr_set_u64(&s[i], (uint64_t)i);
    const zkp_por_level bad[] = {
        {3, 0, s},  /* not a power of two */
        {32, 0, s}, /* too wide */
        {8, 8, s},  /* index out of range */
        {2, 0, NULL},
    };
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        zkp_cs cs;
        zkp_cs_init_counter(&cs);
        zkp_var l = zkp_cs_alloc(&cs, &leaf);
        zkp_por_gadget(&cs, ZKP_POR_POSEIDON, &bad[k], 1, l, &leaf, l, NULL);
        ASSERT_EQ_STATUS(zkp_cs_status(&cs), ZKPIPE_ERR_INVALID_ARGUMENT);
        ASSERT_EQ_U64(cs.num_constraints, 0);
        ASSERT_EQ_U64(cs.num_aux, 1);
    }
}

/* ---------------------------------------------------------------- C1s */

static const zkp_fil_seal_proof *proof_(const char *name) {
    const zkp_fil_seal_proof *p = zkp_fil_seal_proof_by_name(name, strlen(name));
    ASSERT(p != NULL);
    return p;
}

static void domain_fr_(fr_t *out, const zkp_fil_domain *d) {
    ASSERT_OK(bls12_381_fr_from_bytes_le(out, d->b));
}

/* A C1 Merkle proof as gadget levels: base, then sub, then top. */
typedef struct {
    zkp_por_level levels[40];
    fr_t siblings[40][7];
    size_t n;
    uint64_t index; /* the leaf's index, from the positions */
} c1_levels_;

static void c1_path_add_(c1_levels_ *out, const zkp_fil_path *p, uint64_t *scale) {
    for (uint32_t l = 0; l < p->n; l++) {
        const zkp_fil_path_elem *e = &p->v[l];
        ASSERT(out->n < 40 && e->hashes.n <= 7);
        for (uint32_t s = 0; s < e->hashes.n; s++)
            domain_fr_(&out->siblings[out->n][s], &e->hashes.v[s]);
        out->levels[out->n].arity = e->hashes.n + 1;
        out->levels[out->n].index = (unsigned)e->index;
        out->levels[out->n].siblings = out->siblings[out->n];
        out->index += e->index * *scale;
        *scale *= e->hashes.n + 1;
        out->n++;
    }
}

static void c1_path_(c1_levels_ *out, const zkp_fil_merkle_proof *m) {
    memset(out, 0, sizeof *out);
    uint64_t scale = 1;
    c1_path_add_(out, &m->base, &scale);
    if (m->kind != ZKP_FIL_MERKLE_SINGLE) c1_path_add_(out, &m->sub, &scale);
    if (m->kind == ZKP_FIL_MERKLE_TOP) c1_path_add_(out, &m->top, &scale);
}

/* The PoR of m as the PoRep circuit runs it (leaf and root allocated
 * before), leaf given as a variable: the root it computes is the proof's,
 * the path's input is the leaf's index, and the constraints hold. */
static void check_c1_proof_(zkp_cs_recorder *rec, zkp_por_hash hash, const zkp_fil_merkle_proof *m,
                            zkp_var leaf, const fr_t *leaf_value, uint64_t want_index) {
    c1_levels_ *path = malloc(sizeof *path);
    ASSERT(path);
    c1_path_(path, m);
    ASSERT_EQ_U64(path->index, want_index);
    fr_t root_value, computed;
    domain_fr_(&root_value, &m->root);
    zkp_var root = zkp_cs_alloc(&rec->cs, &root_value);
    uint64_t inputs = rec->cs.num_inputs;
    zkp_por_gadget(&rec->cs, hash, path->levels, path->n, leaf, leaf_value, root, &computed);
    free(path);
    ASSERT_OK(zkp_cs_status(&rec->cs));
    ASSERT(bls12_381_fr_eq(&computed, &root_value));
    ASSERT_EQ_U64(rec->cs.num_inputs, inputs + 1);
    fr_t index;
    bls12_381_fr_set_u64(&index, want_index);
    ASSERT(
        bls12_381_fr_eq(zkp_cs_recorder_value(rec, ZKP_VAR_INPUT_BIT | (zkp_var)inputs), &index));
    uint64_t bad = 0;
    ASSERT_MSG(zkp_cs_recorder_check(rec, &bad), "constraint %" PRIu64 " fails", bad);
}

/* A column: its rows hashed with Poseidon of arity layers in the circuit,
 * then its inclusion in tree_c. */
static void check_c1_column_(const zkp_fil_column_proof *c) {
    zkp_cs_recorder *rec = test_new_recorder();
    fr_t rows[11], leaf_value, want;
    zkp_var vars[11];
    ASSERT(c->rows.n <= 11);
    for (uint32_t r = 0; r < c->rows.n; r++) {
        domain_fr_(&rows[r], &c->rows.v[r]);
        vars[r] = zkp_cs_alloc(&rec->cs, &rows[r]);
    }
    zkp_var leaf = zkp_poseidon_gadget(&rec->cs, c->rows.n, vars, rows, &leaf_value);
    domain_fr_(&want, &c->inclusion.leaf);
    ASSERT(bls12_381_fr_eq(&leaf_value, &want));
    check_c1_proof_(rec, ZKP_POR_POSEIDON, &c->inclusion, leaf, &leaf_value, c->index);
}

/* tree_r_last's path and three columns' paths into tree_c. */
static void check_c1_poseidon_paths_(const zkp_fil_challenge_proof *cp) {
    const uint64_t node = cp->labeling_proofs.v[0].node;
    {
        zkp_cs_recorder *rec = test_new_recorder();
        fr_t leaf_value;
        domain_fr_(&leaf_value, &cp->comm_r_last_proof.leaf);
        zkp_var leaf = zkp_cs_alloc(&rec->cs, &leaf_value);
        check_c1_proof_(rec, ZKP_POR_POSEIDON, &cp->comm_r_last_proof, leaf, &leaf_value, node);
    }
    check_c1_column_(&cp->replica_column_proofs.c_x);
    check_c1_column_(&cp->replica_column_proofs.drg_parents.v[0]);
    check_c1_column_(&cp->replica_column_proofs.exp_parents.v[7]);
}

/* The whole of tree_d's path (six SHA-256 levels, 272,292 constraints) on
 * the inputs-only back end; that every constraint of a binary SHA-256 level
 * holds is the recorder's check in gadgets_por_sha256_one_level_root. */
TEST_CASE(gadgets_por_sealed_2kib_comm_d_path) {
    const zkp_fil_c1 *c1 = test_sealed_2kib();
    const zkp_fil_challenge_proof *cp = &c1->vanilla_proofs.v[0].v[1];
    c1_levels_ *path = malloc(sizeof *path);
    ASSERT(path);
    c1_path_(path, &cp->comm_d_proofs);
    const uint64_t node = cp->labeling_proofs.v[0].node;
    ASSERT_EQ_U64(path->index, node);
    ASSERT_EQ_U64(path->n, 6);
    zkp_cs cs;
    test_inputs_only *io = test_inputs_only_cs(&cs);
    fr_t leaf_value, root_value, computed, index;
    domain_fr_(&leaf_value, &cp->comm_d_proofs.leaf);
    domain_fr_(&root_value, &c1->comm_d);
    zkp_var root = zkp_cs_alloc(&cs, &root_value);
    zkp_var leaf = zkp_cs_alloc(&cs, &leaf_value);
    zkp_por_gadget(&cs, ZKP_POR_SHA256, path->levels, path->n, leaf, &leaf_value, root, &computed);
    free(path);
    ASSERT_OK(zkp_cs_status(&cs));
    ASSERT(bls12_381_fr_eq(&computed, &root_value));
    ASSERT_EQ_U64(cs.num_constraints, 6 * ((272295 - 3) / 6) + 2);
    ASSERT_EQ_U64(cs.num_inputs, 2);
    bls12_381_fr_set_u64(&index, node);
    ASSERT(bls12_381_fr_eq(&io->inputs[1], &index));
}

TEST_CASE(gadgets_por_sealed_2kib_poseidon_paths) {
    const zkp_fil_c1 *c1 = test_sealed_2kib();
    check_c1_poseidon_paths_(&c1->vanilla_proofs.v[0].v[0]);
    check_c1_poseidon_paths_(&c1->vanilla_proofs.v[0].v[1]);
}

/* Synthetic 32 GiB (8-8-0, 11 layers) and 64 GiB (8-8-2) C1s, one
 * partition: the sub and top levels, columns of arity 11. */
TEST_CASE(gadgets_por_synthetic_32_and_64_gib_paths) {
    static const char *names[] = {"StackedDrg32GiBV1_1", "StackedDrg64GiBV1_1"};
    uint8_t seed[32];
    test_rng_bytes(seed, sizeof seed);
    for (size_t n = 0; n < 2; n++) {
        zkp_fil_seal_proof cut = *proof_(names[n]);
        cut.partitions = 1;
        cut.challenges = 1;
        zkp_fil_c1 *c1 = test_new_c1();
        zkp_diag d = {{0}};
        ASSERT_MSG(zkp_fil_c1_synthesize(c1, &cut, seed, NULL, ZKP_MEM_AUX, &d) == ZKPIPE_OK, "%s",
                   d.msg);
        const zkp_fil_challenge_proof *cp = &c1->vanilla_proofs.v[0].v[0];
        ASSERT_EQ_INT(cp->comm_r_last_proof.kind, n == 0 ? ZKP_FIL_MERKLE_SUB : ZKP_FIL_MERKLE_TOP);
        check_c1_poseidon_paths_(cp);
    }
}

/* The engine's back end: a PoR over an 8-4-2 tree, as CSR rows with the
 * witness, holds row by row after the input constraints are appended; the
 * rows merge the Poseidon combinations' repeated variables, so this also
 * checks them in that form. */
static void csr_free_(void *p) {
    zkp_cs_csr_free(p);
    free(p);
}

TEST_CASE(gadgets_por_csr_rows_hold) {
    unsigned arity[TREE_MAX_LEVELS];
    unsigned n = shape_(arity, 8, 4, 2);
    tree_ *t = tree_new_(ZKP_POR_POSEIDON, arity, n);
    const size_t leaf = (size_t)(test_rng_u64() % t->count[0]);
    tree_path_(t, leaf);
    zkp_cs_csr *r = calloc(1, sizeof *r);
    ASSERT(r);
    test_defer(csr_free_, r);
    zkp_cs_csr_init(r, ZKP_CSR_MATRICES | ZKP_CSR_WITNESS);
    zkp_por_circuit(&r->cs, ZKP_POR_POSEIDON, t->levels, t->n_levels, &t->node[0][leaf],
                    tree_root_(t), 1, NULL);
    ASSERT_OK(zkp_cs_csr_finish(r));
    ASSERT_EQ_U64(r->n_rows, 1764 + 3);
    uint64_t bad = 0;
    ASSERT_MSG(zkp_cs_csr_check(r, &bad), "row %" PRIu64 " fails", bad);
}
