/* Sealing of test sectors and the vanilla verifier (seal.h). */
#include "filecoin/seal.h"

#include <assert.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "field/bls12_381_fr.h"
#include "filecoin/porep.h"
#include "filecoin/sdr_graph.h"
#include "filecoin/sdr_labels.h"
#include "hash/poseidon.h"
#include "hash/sha256.h"

typedef bls12_381_fr_t fr_t;

/* ---- Tree shapes. tree_d is binary over every node; tree_c and
 * tree_r_last are base trees of arity 8 over consecutive runs of leaves,
 * joined by a sub level (arity sub) and a top level (arity top) where the
 * sector size has them. Level k of a tree groups arity[k] nodes. */

#define MAX_DEPTH 40

typedef struct {
    unsigned depth;
    unsigned arity[MAX_DEPTH];
    int kind[MAX_DEPTH]; /* 0 base, 1 sub, 2 top: which hasher */
    unsigned base_arity, sub, top;
    zkp_fil_merkle_kind mkind;
} shape_;

static shape_ shape_of(const zkp_fil_seal_proof *p, int binary) {
    shape_ s;
    memset(&s, 0, sizeof s);
    s.mkind = ZKP_FIL_MERKLE_SINGLE;
    if (binary) {
        s.base_arity = 2;
        s.depth = zkp_fil_tree_d_levels(p);
        for (unsigned k = 0; k < s.depth; k++) s.arity[k] = 2;
        return s;
    }
    s.base_arity = p->base_arity;
    s.sub = p->sub_arity;
    s.top = p->top_arity;
    for (unsigned l = zkp_fil_tree_base_levels(p); l > 0; l--) s.arity[s.depth++] = s.base_arity;
    if (s.sub) {
        s.kind[s.depth] = 1;
        s.arity[s.depth++] = s.sub;
        s.mkind = ZKP_FIL_MERKLE_SUB;
    }
    if (s.top) {
        s.kind[s.depth] = 2;
        s.arity[s.depth++] = s.top;
        s.mkind = ZKP_FIL_MERKLE_TOP;
    }
    return s;
}

/* ---- Hashing children. Node values are canonical little-endian 32-byte
 * encodings (as the C1 holds them); Poseidon works in Fr. */

typedef struct {
    int sha;
    const zkp_poseidon_params *pp[3]; /* base, sub, top arities */
} hasher_;

static zkpipe_status hasher_init(hasher_ *h, const shape_ *s, int sha, zkp_diag *diag) {
    memset(h, 0, sizeof *h);
    h->sha = sha;
    if (sha) return ZKPIPE_OK;
    unsigned ar[3] = {s->base_arity, s->sub, s->top};
    for (int i = 0; i < 3; i++) {
        if (!ar[i]) continue;
        zkpipe_status st = zkp_poseidon_params_get(&h->pp[i], ar[i]);
        if (st != ZKPIPE_OK)
            return zkp_diag_fail(diag, st, "Poseidon of arity %u is not available", ar[i]);
    }
    return ZKPIPE_OK;
}

/* out = the hash of n children with the hasher of level kind. 0 when a
 * child is not a canonical Fr encoding (only C1 input can be). */
static int hash_children(const hasher_ *h, int kind, uint8_t out[32], const uint8_t *children,
                         unsigned n) {
    if (h->sha) {
        zkp_sha256_64_trimmed(out, children);
        return 1;
    }
    fr_t in[ZKP_POSEIDON_MAX_ARITY], r;
    for (unsigned i = 0; i < n; i++)
        if (bls12_381_fr_from_bytes_le(&in[i], children + 32 * (size_t)i) != ZKPIPE_OK) return 0;
    zkp_poseidon_hash(&r, h->pp[kind], in);
    bls12_381_fr_to_bytes_le(out, &r);
    return 1;
}

/* ---- Working memory from the caller's allocator, freed together. */

typedef struct {
    const zkp_allocator *alloc;
    zkp_mem_category cat;
    void *p[128];
    size_t bytes[128];
    int n;
} work_;

static void *work_alloc(work_ *w, size_t bytes) {
    if (w->n == (int)(sizeof w->p / sizeof w->p[0])) return NULL;
    void *p = zkp_alloc(w->alloc, bytes ? bytes : 1, w->cat);
    if (p) {
        w->p[w->n] = p;
        w->bytes[w->n++] = bytes ? bytes : 1;
    }
    return p;
}

static void work_free(work_ *w) {
    for (int i = 0; i < w->n; i++) zkp_free(w->alloc, w->p[i], w->bytes[i], w->cat);
    w->n = 0;
}

/* ---- Trees, sparse: level k holds, sorted by index, only the nodes with
 * a given leaf below them; every other node is the default of its level
 * (the root of a subtree of zero leaves). A sealed sector gives every
 * leaf; a synthetic C1 only those its challenges touch, so a 32 GiB tree
 * costs a few thousand hashes. */

typedef struct {
    uint64_t *idx;
    uint8_t *val; /* n values of 32 bytes */
    size_t n;
} level_;

typedef struct {
    shape_ s;
    level_ lv[MAX_DEPTH + 1]; /* lv[0] the leaves .. lv[depth] the root */
    uint8_t dflt[MAX_DEPTH + 1][32];
} tree_;

/* The first position of the sorted a[0..n) whose value is not below x. */
static size_t lower_bound(const uint64_t *a, size_t n, uint64_t x) {
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (a[mid] < x)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static const uint8_t *tree_at(const tree_ *t, unsigned k, uint64_t index) {
    const level_ *l = &t->lv[k];
    size_t at = lower_bound(l->idx, l->n, index);
    return at < l->n && l->idx[at] == index ? l->val + 32 * at : t->dflt[k];
}

/* Builds the tree over n leaves (idx strictly increasing, values 32 bytes
 * each; both stay the caller's). ZKPIPE_ERR_NO_MEMORY. */
static zkpipe_status tree_build(tree_ *t, const hasher_ *h, const uint64_t *idx,
                                const uint8_t *vals, size_t n, work_ *w) {
    const shape_ *s = &t->s;
    t->lv[0] = (level_){(uint64_t *)idx, (uint8_t *)vals, n};
    memset(t->dflt[0], 0, 32);
    uint8_t children[16 * 32];
    for (unsigned k = 0; k < s->depth; k++) {
        unsigned a = s->arity[k];
        for (unsigned j = 0; j < a; j++) memcpy(children + 32 * j, t->dflt[k], 32);
        (void)hash_children(h, s->kind[k], t->dflt[k + 1], children, a);
        const level_ *lo = &t->lv[k];
        size_t m = 0;
        for (size_t i = 0; i < lo->n; i++)
            if (i == 0 || lo->idx[i] / a != lo->idx[i - 1] / a) m++;
        level_ *up = &t->lv[k + 1];
        up->idx = work_alloc(w, m * sizeof *up->idx);
        up->val = work_alloc(w, m * 32);
        if (!up->idx || !up->val) return ZKPIPE_ERR_NO_MEMORY;
        up->n = m;
        for (size_t i = 0, o = 0; i < lo->n; o++) {
            uint64_t parent = lo->idx[i] / a;
            for (unsigned j = 0; j < a; j++) memcpy(children + 32 * j, t->dflt[k], 32);
            for (; i < lo->n && lo->idx[i] / a == parent; i++)
                memcpy(children + 32 * (lo->idx[i] % a), lo->val + 32 * i, 32);
            up->idx[o] = parent;
            (void)hash_children(h, s->kind[k], up->val + 32 * o, children, a);
        }
    }
    return ZKPIPE_OK;
}

static const uint8_t *tree_root(const tree_ *t) { return tree_at(t, t->s.depth, 0); }

/* ---- Writing a Merkle proof of leaf `node` into the C1. */

static zkpipe_status proof_fill(zkp_fil_c1 *c1, zkp_fil_merkle_proof *m, const tree_ *t,
                                uint64_t node) {
    const shape_ *s = &t->s;
    memset(m, 0, sizeof *m);
    m->kind = s->mkind;
    memcpy(m->root.b, tree_root(t), 32);
    memcpy(m->leaf.b, tree_at(t, 0, node), 32);
    unsigned counts[3] = {0, 0, 0};
    for (unsigned k = 0; k < s->depth; k++) counts[s->kind[k]]++;
    zkp_fil_path *paths[3] = {&m->base, &m->sub, &m->top};
    for (int q = 0; q < 3; q++) {
        paths[q]->n = counts[q];
        paths[q]->v = zkp_fil_c1_alloc(c1, counts[q] * sizeof(zkp_fil_path_elem));
        if (counts[q] && !paths[q]->v) return ZKPIPE_ERR_NO_MEMORY;
        counts[q] = 0;
    }
    uint64_t j = node;
    for (unsigned k = 0; k < s->depth; k++) {
        unsigned a = s->arity[k], pos = (unsigned)(j % a);
        zkp_fil_path_elem *e = &paths[s->kind[k]]->v[counts[s->kind[k]]++];
        e->index = pos;
        e->hashes.n = a - 1;
        e->hashes.v = zkp_fil_c1_alloc(c1, (a - 1) * sizeof(zkp_fil_domain));
        if (!e->hashes.v) return ZKPIPE_ERR_NO_MEMORY;
        for (unsigned q = 0, o = 0; q < a; q++)
            if (q != pos) memcpy(e->hashes.v[o++].b, tree_at(t, k, j - pos + q), 32);
        j /= a;
    }
    return ZKPIPE_OK;
}

/* ---- Checking a Merkle proof: the root it leads to and the leaf index its
 * positions spell. 0 when a value on the path is not canonical. */

static int path_walk(const hasher_ *h, int kind, const zkp_fil_path *p, unsigned arity,
                     uint8_t cur[32], uint64_t *index, uint64_t *scale) {
    uint8_t children[16 * 32];
    for (uint32_t l = 0; l < p->n; l++) {
        const zkp_fil_path_elem *e = &p->v[l];
        unsigned pos = (unsigned)e->index;
        for (unsigned k = 0, o = 0; k < arity; k++)
            memcpy(children + 32 * k, k == pos ? cur : e->hashes.v[o++].b, 32);
        if (!hash_children(h, kind, cur, children, arity)) return 0;
        *index += (uint64_t)pos * *scale;
        *scale *= arity;
    }
    return 1;
}

/* The shape was checked by the C1 reader (or is the sealer's own), so
 * every level has arity - 1 hashes and a position below arity. */
static int proof_walk(const hasher_ *h, const shape_ *s, const zkp_fil_merkle_proof *m,
                      uint8_t root[32], uint64_t *index) {
    uint64_t idx = 0, scale = 1;
    memcpy(root, m->leaf.b, 32);
    if (!path_walk(h, 0, &m->base, s->base_arity, root, &idx, &scale)) return 0;
    if (s->sub && !path_walk(h, 1, &m->sub, s->sub, root, &idx, &scale)) return 0;
    if (s->top && !path_walk(h, 2, &m->top, s->top, root, &idx, &scale)) return 0;
    *index = idx;
    return 1;
}

/* ---- Labels' parents: the 37 labels a label is made from, cycled from
 * the DRG parents' labels in its layer and (above layer 1) the expander
 * parents' labels in the layer below. */

#define LABEL_SLOTS 37

static void parents_cycled(uint8_t out[LABEL_SLOTS][32], const uint8_t *const *labels, unsigned n) {
    for (unsigned k = 0; k < LABEL_SLOTS; k++) memcpy(out[k], labels[k % n], 32);
}

/* ---- Sealing. */

static zkpipe_status fr_add_bytes(uint8_t out[32], const uint8_t a[32], const uint8_t b[32]) {
    fr_t x, y;
    if (bls12_381_fr_from_bytes_le(&x, a) != ZKPIPE_OK ||
        bls12_381_fr_from_bytes_le(&y, b) != ZKPIPE_OK)
        return ZKPIPE_ERR_NON_CANONICAL;
    bls12_381_fr_add(&x, &x, &y);
    bls12_381_fr_to_bytes_le(out, &x);
    return ZKPIPE_OK;
}

/* The labels of a node's column: label(ctx, node, layer) for layer 1..L. */
typedef const uint8_t *(*label_fn)(const void *ctx, uint64_t node, unsigned layer);

static zkpipe_status column_fill(zkp_fil_c1 *c1, zkp_fil_column_proof *c, const tree_ *tc,
                                 label_fn label, const void *ctx, unsigned layers, uint64_t node) {
    c->index = (uint32_t)node;
    c->rows.n = layers;
    c->rows.v = zkp_fil_c1_alloc(c1, layers * sizeof(zkp_fil_domain));
    if (!c->rows.v) return ZKPIPE_ERR_NO_MEMORY;
    for (unsigned l = 1; l <= layers; l++) memcpy(c->rows.v[l - 1].b, label(ctx, node, l), 32);
    return proof_fill(c1, &c->inclusion, tc, node);
}

/* The parent labels of node's label in layer: DRG parents from layer,
 * expander parents from the layer below; *n gets 6 or 14. */
static void label_parents(const uint8_t *src[ZKP_SDR_DEGREE], unsigned *n, const uint32_t *par,
                          unsigned layer, label_fn label, const void *ctx) {
    *n = layer == 1 ? ZKP_SDR_DRG_DEGREE : ZKP_SDR_DEGREE;
    for (unsigned k = 0; k < *n; k++)
        src[k] = label(ctx, par[k], k < ZKP_SDR_DRG_DEGREE ? layer : layer - 1);
}

static zkpipe_status labeling_fill(zkp_fil_c1 *c1, zkp_fil_labeling_proof *lp, uint32_t layer,
                                   uint64_t node, const uint32_t *par, label_fn label,
                                   const void *ctx) {
    const uint8_t *src[ZKP_SDR_DEGREE];
    unsigned n;
    label_parents(src, &n, par, layer, label, ctx);
    lp->layer_index = layer;
    lp->node = node;
    lp->parents.n = LABEL_SLOTS;
    lp->parents.v = zkp_fil_c1_alloc(c1, LABEL_SLOTS * sizeof(zkp_fil_domain));
    if (!lp->parents.v) return ZKPIPE_ERR_NO_MEMORY;
    parents_cycled((uint8_t(*)[32])lp->parents.v, src, n);
    return ZKPIPE_OK;
}

/* The C1 of a sector whose trees are built: the commitments, and each
 * challenge's vanilla proofs, from the trees and the labels. */
static zkpipe_status c1_fill(zkp_fil_c1 *c1, const zkp_fil_seal_proof *p, const zkp_sdr_graph *g,
                             const tree_ *td, const tree_ *tc, const tree_ *tr, label_fn label,
                             const void *ctx, const uint8_t replica_id[32], const uint8_t seed[32],
                             const uint8_t ticket[32], const zkp_allocator *alloc,
                             zkp_mem_category cat, zkp_diag *diag) {
    zkpipe_status st = zkp_fil_c1_init(c1, p, alloc, cat);
    if (st != ZKPIPE_OK) goto oom;
    memcpy(c1->comm_d.b, tree_root(td), 32);
    memcpy(c1->replica_id.b, replica_id, 32);
    memcpy(c1->seed.b, seed, 32);
    memcpy(c1->ticket.b, ticket, 32);
    uint8_t pair[64];
    memcpy(pair, tree_root(tc), 32);
    memcpy(pair + 32, tree_root(tr), 32);
    if ((st = zkp_poseidon_hash_bytes(c1->comm_r.b, 2, pair, diag)) != ZKPIPE_OK) goto fail;
    c1->vanilla_proofs.n = p->partitions;
    c1->vanilla_proofs.v = zkp_fil_c1_alloc(c1, p->partitions * sizeof(zkp_fil_partition_proofs));
    if (!c1->vanilla_proofs.v) goto oom;
    for (uint32_t k = 0; k < p->partitions; k++) {
        zkp_fil_partition_proofs *part = &c1->vanilla_proofs.v[k];
        uint64_t challenges[ZKP_FIL_MAX_CHALLENGES];
        zkp_fil_porep_challenges(challenges, p, replica_id, c1->comm_r.b, seed, k);
        part->n = p->challenges;
        part->v = zkp_fil_c1_alloc(c1, p->challenges * sizeof(zkp_fil_challenge_proof));
        if (!part->v) goto oom;
        for (uint32_t i = 0; i < p->challenges; i++) {
            zkp_fil_challenge_proof *cp = &part->v[i];
            zkp_fil_replica_columns *rc = &cp->replica_column_proofs;
            uint64_t c = challenges[i];
            uint32_t par[ZKP_SDR_DEGREE];
            zkp_sdr_drg_parents(g, (uint32_t)c, par);
            zkp_sdr_exp_parents(g, (uint32_t)c, par + ZKP_SDR_DRG_DEGREE);
            rc->drg_parents.n = ZKP_SDR_DRG_DEGREE;
            rc->exp_parents.n = ZKP_SDR_EXP_DEGREE;
            rc->drg_parents.v =
                zkp_fil_c1_alloc(c1, ZKP_SDR_DRG_DEGREE * sizeof(zkp_fil_column_proof));
            rc->exp_parents.v =
                zkp_fil_c1_alloc(c1, ZKP_SDR_EXP_DEGREE * sizeof(zkp_fil_column_proof));
            cp->labeling_proofs.n = p->layers;
            cp->labeling_proofs.v =
                zkp_fil_c1_alloc(c1, p->layers * sizeof(zkp_fil_labeling_proof));
            if (!rc->drg_parents.v || !rc->exp_parents.v || !cp->labeling_proofs.v) goto oom;
            if (proof_fill(c1, &cp->comm_d_proofs, td, c) != ZKPIPE_OK ||
                proof_fill(c1, &cp->comm_r_last_proof, tr, c) != ZKPIPE_OK ||
                column_fill(c1, &rc->c_x, tc, label, ctx, p->layers, c) != ZKPIPE_OK)
                goto oom;
            for (unsigned j = 0; j < ZKP_SDR_DEGREE; j++) {
                zkp_fil_column_proof *col = j < ZKP_SDR_DRG_DEGREE
                                                ? &rc->drg_parents.v[j]
                                                : &rc->exp_parents.v[j - ZKP_SDR_DRG_DEGREE];
                if (column_fill(c1, col, tc, label, ctx, p->layers, par[j]) != ZKPIPE_OK) goto oom;
            }
            for (unsigned l = 1; l <= p->layers; l++)
                if (labeling_fill(c1, &cp->labeling_proofs.v[l - 1], l, c, par, label, ctx) !=
                    ZKPIPE_OK)
                    goto oom;
            if (labeling_fill(c1, &cp->encoding_proof, p->layers, c, par, label, ctx) != ZKPIPE_OK)
                goto oom;
        }
    }
    return ZKPIPE_OK;
oom:
    st = zkp_diag_fail(diag, ZKPIPE_ERR_NO_MEMORY, "%s: cannot allocate the C1", p->name);
fail:
    zkp_fil_c1_free(c1);
    return st;
}

/* The column leaf of tree_c: Poseidon(layers) of the node's labels. */
static void column_hash(uint8_t out[32], const zkp_poseidon_params *pcol, label_fn label,
                        const void *ctx, uint64_t node, unsigned layers) {
    fr_t col[ZKP_POSEIDON_MAX_ARITY], h;
    int canonical = 1; /* labels are trimmed digests, below 2^254 < r */
    for (unsigned l = 1; l <= layers; l++)
        canonical &= bls12_381_fr_from_bytes_le(&col[l - 1], label(ctx, node, l)) == ZKPIPE_OK;
    assert(canonical);
    (void)canonical;
    zkp_poseidon_hash(&h, pcol, col);
    bls12_381_fr_to_bytes_le(out, &h);
}

typedef struct {
    const uint8_t *labels; /* layers x nodes x 32, layer 1 first */
    uint64_t nodes;
} dense_labels_;

static const uint8_t *dense_label(const void *ctx, uint64_t node, unsigned layer) {
    const dense_labels_ *d = ctx;
    return d->labels + ((size_t)(layer - 1) * d->nodes + node) * 32;
}

static zkpipe_status check_proof_(const zkp_fil_seal_proof *p, zkp_diag *diag) {
    if (!p) return zkp_diag_fail(diag, ZKPIPE_ERR_INVALID_ARGUMENT, "no registered proof");
    if (p->challenges > ZKP_FIL_MAX_CHALLENGES)
        return zkp_diag_fail(diag, ZKPIPE_ERR_OUT_OF_RANGE, "%s: too many challenges", p->name);
    return ZKPIPE_OK;
}

/* What sealing and a synthetic C1 build alike: the three trees in the
 * proof's shapes, their hashers and the column hash's constants. */
typedef struct {
    hasher_ hd, hp; /* tree_d (SHA-256), tree_c and tree_r_last (Poseidon) */
    tree_ td, tc, tr;
    const zkp_poseidon_params *pcol; /* arity = layers */
} sector_;

static zkpipe_status sector_init(sector_ *sec, const zkp_fil_seal_proof *p, zkp_diag *diag) {
    memset(sec, 0, sizeof *sec);
    sec->td.s = shape_of(p, 1);
    sec->tc.s = shape_of(p, 0);
    sec->tr.s = sec->tc.s;
    zkpipe_status st;
    if ((st = hasher_init(&sec->hd, &sec->td.s, 1, diag)) != ZKPIPE_OK ||
        (st = hasher_init(&sec->hp, &sec->tc.s, 0, diag)) != ZKPIPE_OK)
        return st;
    if ((st = zkp_poseidon_params_get(&sec->pcol, p->layers)) != ZKPIPE_OK)
        return zkp_diag_fail(diag, st, "Poseidon of arity %u is not available", p->layers);
    return ZKPIPE_OK;
}

zkpipe_status zkp_fil_seal(zkp_fil_c1 *c1, uint8_t *replica, const zkp_fil_seal_inputs *in,
                           const uint8_t *data, const zkp_allocator *alloc, zkp_mem_category cat,
                           zkp_diag *diag) {
    memset(c1, 0, sizeof *c1);
    const zkp_fil_seal_proof *p = in->proof;
    zkpipe_status st = check_proof_(p, diag);
    if (st != ZKPIPE_OK) return st;
    if (!data) return zkp_diag_fail(diag, ZKPIPE_ERR_INVALID_ARGUMENT, "no data to seal");
    const uint64_t nodes = p->nodes;
    const unsigned layers = p->layers;
    for (uint64_t i = 0; i < nodes; i++)
        if (data[32 * i + 31] & 0xc0)
            return zkp_diag_fail(diag, ZKPIPE_ERR_INVALID_ARGUMENT,
                                 "data node %llu (bytes %llu..%llu) is not fr32-padded: its top "
                                 "two bits are set",
                                 (unsigned long long)i, (unsigned long long)(32 * i),
                                 (unsigned long long)(32 * i + 31));
    sector_ sec;
    if ((st = sector_init(&sec, p, diag)) != ZKPIPE_OK) return st;
    work_ w = {alloc, cat, {0}, {0}, 0};
    uint8_t *labels = work_alloc(&w, (size_t)layers * nodes * 32);
    uint32_t *parents = work_alloc(&w, (size_t)nodes * ZKP_SDR_DEGREE * sizeof(uint32_t));
    uint8_t *leaves = work_alloc(&w, (size_t)nodes * 32);
    uint8_t *enc = work_alloc(&w, (size_t)nodes * 32);
    uint64_t *all = work_alloc(&w, (size_t)nodes * sizeof(uint64_t));
    if (!labels || !parents || !leaves || !enc || !all) goto oom;
    for (uint64_t i = 0; i < nodes; i++) all[i] = i;

    /* comm_d, replica_id, the graph and the labels. */
    if (tree_build(&sec.td, &sec.hd, all, data, nodes, &w) != ZKPIPE_OK) goto oom;
    uint8_t porep_id[32], replica_id[32];
    zkp_fil_porep_id(porep_id, p->id);
    zkp_fil_replica_id(replica_id, in->prover_id, in->sector_id, in->ticket, tree_root(&sec.td),
                       porep_id);
    zkp_sdr_graph g;
    if ((st = zkp_sdr_graph_init(&g, nodes, porep_id, p->api, diag)) != ZKPIPE_OK) goto fail;
    zkp_sdr_parents_range(&g, 0, (uint32_t)nodes, parents);
    for (unsigned l = 1; l <= layers; l++)
        zkp_sdr_label_layer(labels + (size_t)(l - 1) * nodes * 32, &g, parents, replica_id, l,
                            l > 1 ? labels + (size_t)(l - 2) * nodes * 32 : NULL);
    dense_labels_ dl = {labels, nodes};

    /* tree_c over the columns; the replica and tree_r_last over it. */
    for (uint64_t i = 0; i < nodes; i++)
        column_hash(leaves + 32 * i, sec.pcol, dense_label, &dl, i, layers);
    if (tree_build(&sec.tc, &sec.hp, all, leaves, nodes, &w) != ZKPIPE_OK) goto oom;
    for (uint64_t i = 0; i < nodes; i++)
        (void)fr_add_bytes(enc + 32 * i, dense_label(&dl, i, layers), data + 32 * i);
    if (replica) memcpy(replica, enc, (size_t)nodes * 32);
    if (tree_build(&sec.tr, &sec.hp, all, enc, nodes, &w) != ZKPIPE_OK) goto oom;

    st = c1_fill(c1, p, &g, &sec.td, &sec.tc, &sec.tr, dense_label, &dl, replica_id, in->seed,
                 in->ticket, alloc, cat, diag);
    work_free(&w);
    return st;
oom:
    st = zkp_diag_fail(diag, ZKPIPE_ERR_NO_MEMORY, "%s: cannot allocate the sealing memory",
                       p->name);
fail:
    work_free(&w);
    return st;
}

/* ---- A synthetic C1: the labels, data and tree nodes that the
 * challenges touch, and nothing else. */

typedef struct {
    uint64_t *nodes; /* sorted: every challenge and every parent of one */
    uint8_t *labels; /* per node, layers x 32 */
    size_t n;
    unsigned layers;
} sparse_labels_;


static const uint8_t *sparse_label(const void *ctx, uint64_t node, unsigned layer) {
    const sparse_labels_ *s = ctx;
    size_t i = lower_bound(s->nodes, s->n, node);
    assert(i < s->n && s->nodes[i] == node);
    return s->labels + (i * s->layers + layer - 1) * 32;
}

/* A value drawn from the seed: trimmed SHA-256(seed ‖ what ‖ a ‖ b), so
 * canonical in Fr and fr32-padded as data. */
static void drawn(uint8_t out[32], const uint8_t seed[32], char what, uint64_t a, uint64_t b) {
    uint8_t msg[32 + 1 + 16];
    memcpy(msg, seed, 32);
    msg[32] = (uint8_t)what;
    for (int i = 0; i < 8; i++) {
        msg[33 + i] = (uint8_t)(a >> (8 * i));
        msg[41 + i] = (uint8_t)(b >> (8 * i));
    }
    zkp_sha256_trimmed(out, msg, sizeof msg);
}

static int cmp_u64(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

zkpipe_status zkp_fil_c1_synthesize(zkp_fil_c1 *c1, const zkp_fil_seal_proof *p,
                                    const uint8_t seed_in[32], const zkp_allocator *alloc,
                                    zkp_mem_category cat, zkp_diag *diag) {
    memset(c1, 0, sizeof *c1);
    zkpipe_status st = check_proof_(p, diag);
    if (st != ZKPIPE_OK) return st;
    /* The sparse trees hold what the challenges touch, so the challenges
     * come first; synthetic and NI challenges follow from comm_r, which
     * the trees make. No C1 can be built in that order for them. */
    if (p->challenge_kind != ZKP_FIL_CHALLENGES_INTERACTIVE)
        return zkp_diag_fail(diag, ZKPIPE_ERR_UNSUPPORTED,
                             "%s: its challenges follow from comm_r, which a synthetic C1 fixes "
                             "only after choosing them; the V1_1 proof of the same sector size "
                             "has the same circuit",
                             p->name);
    sector_ sec;
    if ((st = sector_init(&sec, p, diag)) != ZKPIPE_OK) return st;
    uint8_t porep_id[32], replica_id[32], seed[32], ticket[32];
    zkp_fil_porep_id(porep_id, p->id);
    drawn(replica_id, seed_in, 'r', 0, 0);
    drawn(seed, seed_in, 's', 0, 0);
    drawn(ticket, seed_in, 't', 0, 0);
    zkp_sdr_graph g;
    if ((st = zkp_sdr_graph_init(&g, p->nodes, porep_id, p->api, diag)) != ZKPIPE_OK) return st;

    const size_t n_chal = (size_t)p->partitions * p->challenges;
    work_ w = {alloc, cat, {0}, {0}, 0};
    uint64_t *chal = work_alloc(&w, n_chal * sizeof *chal);
    uint64_t *touched = work_alloc(&w, n_chal * (1 + ZKP_SDR_DEGREE) * sizeof *touched);
    if (!chal || !touched) goto oom;
    size_t nt = 0;
    for (uint32_t k = 0; k < p->partitions; k++)
        zkp_fil_interactive_challenges(chal + (size_t)k * p->challenges, p->challenges, p->nodes,
                                       replica_id, seed, k);
    for (size_t i = 0; i < n_chal; i++) {
        uint32_t par[ZKP_SDR_DEGREE];
        zkp_sdr_drg_parents(&g, (uint32_t)chal[i], par);
        zkp_sdr_exp_parents(&g, (uint32_t)chal[i], par + ZKP_SDR_DRG_DEGREE);
        touched[nt++] = chal[i];
        for (unsigned j = 0; j < ZKP_SDR_DEGREE; j++) touched[nt++] = par[j];
    }
    qsort(chal, n_chal, sizeof *chal, cmp_u64);
    qsort(touched, nt, sizeof *touched, cmp_u64);
    size_t nu = 0, nc = 0;
    for (size_t i = 0; i < nt; i++)
        if (!nu || touched[i] != touched[nu - 1]) touched[nu++] = touched[i];
    for (size_t i = 0; i < n_chal; i++)
        if (!nc || chal[i] != chal[nc - 1]) chal[nc++] = chal[i];

    /* Labels: drawn for every touched node, then computed for the
     * challenges from their parents' labels, layer by layer (a DRG parent
     * precedes its child, so ascending order sees it done). */
    sparse_labels_ sl = {touched, work_alloc(&w, nu * p->layers * 32), nu, p->layers};
    uint8_t *leaves = work_alloc(&w, nu * 32), *data = work_alloc(&w, nc * 32),
            *enc = work_alloc(&w, nc * 32);
    if (!sl.labels || !leaves || !data || !enc) goto oom;
    for (size_t i = 0; i < nu; i++)
        for (unsigned l = 1; l <= p->layers; l++)
            drawn(sl.labels + (i * p->layers + l - 1) * 32, seed_in, 'l', touched[i], l);
    for (unsigned l = 1; l <= p->layers; l++)
        for (size_t i = 0; i < nc; i++) {
            uint32_t par[ZKP_SDR_DEGREE];
            zkp_sdr_drg_parents(&g, (uint32_t)chal[i], par);
            zkp_sdr_exp_parents(&g, (uint32_t)chal[i], par + ZKP_SDR_DRG_DEGREE);
            const uint8_t *src[ZKP_SDR_DEGREE];
            unsigned n;
            label_parents(src, &n, par, l, sparse_label, &sl);
            size_t at = lower_bound(sl.nodes, sl.n, chal[i]);
            zkp_sdr_label(sl.labels + (at * p->layers + l - 1) * 32, replica_id, l, chal[i], src,
                          n);
        }
    for (size_t i = 0; i < nu; i++)
        column_hash(leaves + 32 * i, sec.pcol, sparse_label, &sl, touched[i], p->layers);
    for (size_t i = 0; i < nc; i++) {
        drawn(data + 32 * i, seed_in, 'd', chal[i], 0);
        (void)fr_add_bytes(enc + 32 * i, sparse_label(&sl, chal[i], p->layers), data + 32 * i);
    }
    if (tree_build(&sec.td, &sec.hd, chal, data, nc, &w) != ZKPIPE_OK ||
        tree_build(&sec.tc, &sec.hp, touched, leaves, nu, &w) != ZKPIPE_OK ||
        tree_build(&sec.tr, &sec.hp, chal, enc, nc, &w) != ZKPIPE_OK)
        goto oom;
    st = c1_fill(c1, p, &g, &sec.td, &sec.tc, &sec.tr, sparse_label, &sl, replica_id, seed, ticket,
                 alloc, cat, diag);
    work_free(&w);
    return st;
oom:
    work_free(&w);
    return zkp_diag_fail(diag, ZKPIPE_ERR_NO_MEMORY, "%s: cannot allocate the synthetic C1",
                         p->name);
}

/* ---- The vanilla verifier. */

typedef struct {
    zkp_diag *diag;
    char where[160];
} vctx_;

static zkpipe_status v_fail(vctx_ *v, const char *fmt, ...) ZKP_PRINTF(2, 3);
static zkpipe_status v_fail(vctx_ *v, const char *fmt, ...) {
    char what[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    return zkp_diag_fail(v->diag, ZKPIPE_ERR_PROOF_INVALID, "%s%s", v->where, what);
}

static void hex8(char out[17], const uint8_t b[32]) {
    for (int i = 0; i < 8; i++) snprintf(out + 2 * i, 3, "%02x", b[i]);
}

/* A Merkle proof leads from its leaf at `node` to `root`. */
static zkpipe_status v_merkle(vctx_ *v, const char *name, const hasher_ *h, const shape_ *s,
                              const zkp_fil_merkle_proof *m, uint64_t node, const uint8_t *root,
                              const char *root_name) {
    uint8_t got[32];
    uint64_t idx;
    if (!proof_walk(h, s, m, got, &idx))
        return v_fail(v, "%s: a hash on the path is not a field element", name);
    if (idx != node)
        return v_fail(v, "%s: the path's positions spell leaf %llu, not %llu", name,
                      (unsigned long long)idx, (unsigned long long)node);
    if (memcmp(got, m->root.b, 32)) {
        char a[17], b[17];
        hex8(a, got);
        hex8(b, m->root.b);
        return v_fail(v, "%s: the path leads to %s..., not to its root %s...", name, a, b);
    }
    if (root && memcmp(m->root.b, root, 32))
        return v_fail(v, "%s: its root is not %s", name, root_name);
    return ZKPIPE_OK;
}

static zkpipe_status v_column(vctx_ *v, const char *name, const hasher_ *h, const shape_ *s,
                              const zkp_poseidon_params *pcol, const zkp_fil_column_proof *c,
                              uint64_t node, const uint8_t *comm_c) {
    if (c->index != node)
        return v_fail(v, "%s.column.index: %u, the graph says %llu", name, (unsigned)c->index,
                      (unsigned long long)node);
    fr_t col[ZKP_POSEIDON_MAX_ARITY], hc;
    for (uint32_t l = 0; l < c->rows.n; l++)
        if (bls12_381_fr_from_bytes_le(&col[l], c->rows.v[l].b) != ZKPIPE_OK)
            return v_fail(v, "%s.column.rows[%u]: not a field element", name, (unsigned)l);
    zkp_poseidon_hash(&hc, pcol, col);
    uint8_t leaf[32];
    bls12_381_fr_to_bytes_le(leaf, &hc);
    char sub[96];
    snprintf(sub, sizeof sub, "%s.inclusion_proof", name);
    if (memcmp(leaf, c->inclusion.leaf.b, 32))
        return v_fail(v, "%s: its leaf is not the hash of the column's rows", sub);
    return v_merkle(v, sub, h, s, &c->inclusion, node, comm_c, "comm_c");
}

zkpipe_status zkp_fil_c1_verify(const zkp_fil_c1 *c1, zkp_diag *diag) {
    const zkp_fil_seal_proof *p = c1->proof;
    if (!p) return zkp_diag_fail(diag, ZKPIPE_ERR_INVALID_ARGUMENT, "no C1");
    vctx_ v = {diag, ""};
    sector_ sec;
    zkpipe_status st = sector_init(&sec, p, diag);
    if (st != ZKPIPE_OK) return st;
    const shape_ *sd = &sec.td.s, *sc = &sec.tc.s;
    const hasher_ *hd = &sec.hd, *hp = &sec.hp;
    const zkp_poseidon_params *pcol = sec.pcol;
    uint8_t porep_id[32];
    zkp_fil_porep_id(porep_id, p->id);
    zkp_sdr_graph g;
    if ((st = zkp_sdr_graph_init(&g, p->nodes, porep_id, p->api, diag)) != ZKPIPE_OK) return st;

    /* comm_c and comm_r_last are not in the C1 but in every proof's roots:
     * the first challenge's must make comm_r, the others must agree. */
    const zkp_fil_challenge_proof *first = &c1->vanilla_proofs.v[0].v[0];
    uint8_t comm_c[32], comm_r_last[32], pair[64], comm_r[32];
    memcpy(comm_c, first->replica_column_proofs.c_x.inclusion.root.b, 32);
    memcpy(comm_r_last, first->comm_r_last_proof.root.b, 32);
    memcpy(pair, comm_c, 32);
    memcpy(pair + 32, comm_r_last, 32);
    if (zkp_poseidon_hash_bytes(comm_r, 2, pair, NULL) != ZKPIPE_OK ||
        memcmp(comm_r, c1->comm_r.b, 32))
        return v_fail(&v, "comm_r: not Poseidon(comm_c, comm_r_last) of the proofs' roots");

    for (uint32_t k = 0; k < c1->vanilla_proofs.n; k++) {
        const zkp_fil_partition_proofs *part = &c1->vanilla_proofs.v[k];
        uint64_t challenges[ZKP_FIL_MAX_CHALLENGES];
        if (part->n != p->challenges || p->challenges > ZKP_FIL_MAX_CHALLENGES ||
            k >= p->partitions)
            return zkp_diag_fail(diag, ZKPIPE_ERR_OUT_OF_RANGE,
                                 "vanilla_proofs[%u]: %u challenges, %s draws %u per partition",
                                 (unsigned)k, (unsigned)part->n, p->name, (unsigned)p->challenges);
        zkp_fil_porep_challenges(challenges, p, c1->replica_id.b, c1->comm_r.b, c1->seed.b, k);
        for (uint32_t i = 0; i < part->n; i++) {
            const zkp_fil_challenge_proof *cp = &part->v[i];
            const zkp_fil_replica_columns *rc = &cp->replica_column_proofs;
            uint64_t c = challenges[i];
            snprintf(v.where, sizeof v.where, "vanilla_proofs[%u][%u].", (unsigned)k, (unsigned)i);
            if ((st = v_merkle(&v, "comm_d_proofs", hd, sd, &cp->comm_d_proofs, c, c1->comm_d.b,
                               "comm_d")) != ZKPIPE_OK ||
                (st = v_merkle(&v, "comm_r_last_proof", hp, sc, &cp->comm_r_last_proof, c,
                               comm_r_last, "comm_r_last")) != ZKPIPE_OK ||
                (st = v_column(&v, "replica_column_proofs.c_x", hp, sc, pcol, &rc->c_x, c,
                               comm_c)) != ZKPIPE_OK)
                return st;
            uint32_t par[ZKP_SDR_DEGREE];
            zkp_sdr_drg_parents(&g, (uint32_t)c, par);
            zkp_sdr_exp_parents(&g, (uint32_t)c, par + ZKP_SDR_DRG_DEGREE);
            for (unsigned j = 0; j < ZKP_SDR_DEGREE; j++) {
                char name[64];
                int drg = j < ZKP_SDR_DRG_DEGREE;
                snprintf(name, sizeof name, "replica_column_proofs.%s[%u]",
                         drg ? "drg_parents" : "exp_parents", drg ? j : j - ZKP_SDR_DRG_DEGREE);
                const zkp_fil_column_proof *col =
                    drg ? &rc->drg_parents.v[j] : &rc->exp_parents.v[j - ZKP_SDR_DRG_DEGREE];
                if ((st = v_column(&v, name, hp, sc, pcol, col, par[j], comm_c)) != ZKPIPE_OK)
                    return st;
            }
            /* Each layer's label from its parents' labels in the columns. */
            for (unsigned l = 1; l <= p->layers; l++) {
                const zkp_fil_labeling_proof *lp = &cp->labeling_proofs.v[l - 1];
                const uint8_t *src[ZKP_SDR_DEGREE];
                unsigned n = l == 1 ? ZKP_SDR_DRG_DEGREE : ZKP_SDR_DEGREE;
                for (unsigned j = 0; j < n; j++)
                    src[j] = j < ZKP_SDR_DRG_DEGREE
                                 ? rc->drg_parents.v[j].rows.v[l - 1].b
                                 : rc->exp_parents.v[j - ZKP_SDR_DRG_DEGREE].rows.v[l - 2].b;
                uint8_t want[LABEL_SLOTS][32], label[32];
                parents_cycled(want, src, n);
                if (lp->node != c)
                    return v_fail(&v, "labeling_proofs[%u].node: %llu, the challenge is %llu",
                                  l - 1, (unsigned long long)lp->node, (unsigned long long)c);
                for (unsigned s = 0; s < LABEL_SLOTS; s++)
                    if (memcmp(lp->parents.v[s].b, want[s], 32))
                        return v_fail(&v,
                                      "labeling_proofs[%u].parents[%u]: not the label of the "
                                      "parent in the columns",
                                      l - 1, s);
                zkp_sdr_label(label, c1->replica_id.b, l, c, src, n);
                if (memcmp(label, rc->c_x.rows.v[l - 1].b, 32))
                    return v_fail(&v,
                                  "replica_column_proofs.c_x.column.rows[%u]: not the label "
                                  "its parents make",
                                  l - 1);
            }
            /* Encoding: the replica node is the last label plus the data. */
            const zkp_fil_labeling_proof *ep = &cp->encoding_proof;
            const zkp_fil_labeling_proof *lastp = &cp->labeling_proofs.v[p->layers - 1];
            if (ep->node != c)
                return v_fail(&v, "encoding_proof.node: %llu, the challenge is %llu",
                              (unsigned long long)ep->node, (unsigned long long)c);
            if (memcmp(ep->parents.v, lastp->parents.v, LABEL_SLOTS * sizeof(zkp_fil_domain)))
                return v_fail(&v, "encoding_proof.parents: not the last layer's parents");
            uint8_t enc[32];
            if (fr_add_bytes(enc, rc->c_x.rows.v[p->layers - 1].b, cp->comm_d_proofs.leaf.b) !=
                    ZKPIPE_OK ||
                memcmp(enc, cp->comm_r_last_proof.leaf.b, 32))
                return v_fail(&v, "comm_r_last_proof.leaf: not the last label plus the data node");
        }
    }
    return ZKPIPE_OK;
}
