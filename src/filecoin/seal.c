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
 * tree_r_last are n_base base trees of arity 8 over consecutive runs of
 * leaves, joined by a sub level (arity sub) and a top level (arity top)
 * where the sector size has them. */

typedef struct {
    uint64_t leaves;     /* per base tree */
    unsigned levels;     /* of a base tree */
    unsigned arity;      /* of a base tree */
    unsigned sub, top;   /* 0 when absent */
    unsigned n_base;
} shape_;

static shape_ shape_of(const zkp_fil_seal_proof *p, int binary) {
    shape_ s = {p->nodes, 0, 2, 0, 0, 1};
    if (!binary) {
        s.arity = p->base_arity;
        s.sub = p->sub_arity;
        s.top = p->top_arity;
        s.n_base = (s.sub ? s.sub : 1) * (s.top ? s.top : 1);
        s.leaves = p->nodes / s.n_base;
    }
    while (((uint64_t)1 << (s.levels * (s.arity == 2 ? 1 : 3))) < s.leaves) s.levels++;
    return s;
}

/* Nodes of one base tree, all levels. */
static uint64_t tree_nodes(const shape_ *s) {
    uint64_t n = 0;
    for (uint64_t w = s->leaves; w > 1; w /= s->arity) n += w;
    return n + 1;
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
    unsigned ar[3] = {s->arity, s->sub, s->top};
    for (int i = 0; i < 3; i++) {
        if (!ar[i]) continue;
        zkpipe_status st = zkp_poseidon_params_get(&h->pp[i], ar[i]);
        if (st != ZKPIPE_OK)
            return zkp_diag_fail(diag, st, "Poseidon of arity %u is not available", ar[i]);
    }
    return ZKPIPE_OK;
}

/* out = the hash of n children (n = the arity of level kind 0/1/2). 0 when
 * a child is not a canonical Fr encoding (only C1 input can be). */
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

/* ---- Building a tree over leaves (32 bytes each): base trees level by
 * level into base (n_base * tree_nodes bytes*32), then the sub and top
 * roots; *root gets the root. */

typedef struct {
    shape_ s;
    uint8_t *base;     /* n_base trees, each level 0 (leaves) first */
    uint8_t *sub_roots; /* n_base / sub of them, when sub */
    uint8_t root[32];
} tree_;

static void tree_build(tree_ *t, const hasher_ *h, const uint8_t *leaves) {
    const shape_ *s = &t->s;
    uint64_t per = tree_nodes(s);
    uint8_t base_roots[16 * 32], sub_roots[2 * 32];
    for (unsigned b = 0; b < s->n_base; b++) {
        uint8_t *tr = t->base + (size_t)b * per * 32;
        memcpy(tr, leaves + (size_t)b * s->leaves * 32, (size_t)s->leaves * 32);
        uint8_t *level = tr;
        for (uint64_t w = s->leaves; w > 1; w /= s->arity) {
            uint8_t *up = level + w * 32;
            for (uint64_t i = 0; i < w / s->arity; i++)
                (void)hash_children(h, 0, up + i * 32, level + i * s->arity * 32, s->arity);
            level = up;
        }
        memcpy(base_roots + 32 * b, level, 32);
    }
    if (!s->sub) {
        memcpy(t->root, base_roots, 32);
        return;
    }
    unsigned n_sub = s->n_base / s->sub;
    for (unsigned j = 0; j < n_sub; j++)
        (void)hash_children(h, 1, sub_roots + 32 * j, base_roots + 32 * j * s->sub, s->sub);
    memcpy(t->sub_roots, sub_roots, 32 * (size_t)n_sub);
    if (!s->top) memcpy(t->root, sub_roots, 32);
    else (void)hash_children(h, 2, t->root, sub_roots, s->top);
}

static const uint8_t *base_root(const tree_ *t, unsigned b) {
    uint64_t per = tree_nodes(&t->s);
    return t->base + ((size_t)b * per + per - 1) * 32;
}

/* ---- Writing a Merkle proof of leaf `node` into the C1. */

static zkpipe_status path_fill(zkp_fil_c1 *c1, zkp_fil_path *path, unsigned n_levels) {
    path->n = n_levels;
    path->v = zkp_fil_c1_alloc(c1, n_levels * sizeof *path->v);
    return path->v || !n_levels ? ZKPIPE_OK : ZKPIPE_ERR_NO_MEMORY;
}

/* One level: the siblings of position pos among the arity children at
 * group (32 bytes each), in order, without the node itself. */
static zkpipe_status elem_fill(zkp_fil_c1 *c1, zkp_fil_path_elem *e, const uint8_t *group,
                               unsigned arity, unsigned pos) {
    e->index = pos;
    e->hashes.n = arity - 1;
    e->hashes.v = zkp_fil_c1_alloc(c1, (arity - 1) * sizeof(zkp_fil_domain));
    if (!e->hashes.v) return ZKPIPE_ERR_NO_MEMORY;
    for (unsigned k = 0, o = 0; k < arity; k++)
        if (k != pos) memcpy(e->hashes.v[o++].b, group + 32 * (size_t)k, 32);
    return ZKPIPE_OK;
}

static zkpipe_status proof_fill(zkp_fil_c1 *c1, zkp_fil_merkle_proof *m, const tree_ *t,
                                uint64_t node) {
    const shape_ *s = &t->s;
    memset(m, 0, sizeof *m);
    m->kind = !s->sub ? ZKP_FIL_MERKLE_SINGLE : !s->top ? ZKP_FIL_MERKLE_SUB : ZKP_FIL_MERKLE_TOP;
    memcpy(m->root.b, t->root, 32);
    unsigned b = (unsigned)(node / s->leaves);
    uint64_t j = node % s->leaves, per = tree_nodes(s);
    const uint8_t *level = t->base + (size_t)b * per * 32;
    memcpy(m->leaf.b, level + j * 32, 32);
    zkpipe_status st = path_fill(c1, &m->base, s->levels);
    uint64_t w = s->leaves;
    for (unsigned l = 0; st == ZKPIPE_OK && l < s->levels; l++) {
        uint64_t first = j / s->arity * s->arity;
        st = elem_fill(c1, &m->base.v[l], level + first * 32, s->arity, (unsigned)(j - first));
        level += w * 32;
        w /= s->arity;
        j /= s->arity;
    }
    if (st != ZKPIPE_OK || !s->sub) return st;
    uint8_t group[16 * 32];
    unsigned g = b / s->sub * s->sub;
    for (unsigned k = 0; k < s->sub; k++) memcpy(group + 32 * k, base_root(t, g + k), 32);
    if ((st = path_fill(c1, &m->sub, 1)) != ZKPIPE_OK ||
        (st = elem_fill(c1, &m->sub.v[0], group, s->sub, b - g)) != ZKPIPE_OK || !s->top)
        return st;
    if ((st = path_fill(c1, &m->top, 1)) != ZKPIPE_OK) return st;
    return elem_fill(c1, &m->top.v[0], t->sub_roots, s->top, b / s->sub);
}

/* ---- Checking a Merkle proof: the root it leads to and the leaf index its
 * positions spell. 0 (with *bad_level) when a value is not canonical. */

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
    if (!path_walk(h, 0, &m->base, s->arity, root, &idx, &scale)) return 0;
    if (s->sub && !path_walk(h, 1, &m->sub, s->sub, root, &idx, &scale)) return 0;
    if (s->top && !path_walk(h, 2, &m->top, s->top, root, &idx, &scale)) return 0;
    *index = idx;
    return 1;
}

/* ---- Labels' parents: the 37 labels a label is made from, cycled from
 * the DRG parents' labels in its layer and (above layer 1) the expander
 * parents' labels in the layer below. */

#define LABEL_SLOTS 37

static void parents_cycled(uint8_t out[LABEL_SLOTS][32], const uint8_t *const *labels,
                           unsigned n) {
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

typedef struct {
    const zkp_allocator *alloc;
    zkp_mem_category cat;
    void *p[8];
    size_t bytes[8];
    int n;
} work_;

static void *work_alloc(work_ *w, size_t bytes) {
    void *p = zkp_alloc(w->alloc, bytes, w->cat);
    if (p) {
        w->p[w->n] = p;
        w->bytes[w->n++] = bytes;
    }
    return p;
}

static void work_free(work_ *w) {
    for (int i = 0; i < w->n; i++) zkp_free(w->alloc, w->p[i], w->bytes[i], w->cat);
    w->n = 0;
}

static zkpipe_status column_fill(zkp_fil_c1 *c1, zkp_fil_column_proof *c, const tree_ *tc,
                                 const uint8_t *labels, uint64_t nodes, unsigned layers,
                                 uint64_t node) {
    c->index = (uint32_t)node;
    c->rows.n = layers;
    c->rows.v = zkp_fil_c1_alloc(c1, layers * sizeof(zkp_fil_domain));
    if (!c->rows.v) return ZKPIPE_ERR_NO_MEMORY;
    for (unsigned l = 0; l < layers; l++)
        memcpy(c->rows.v[l].b, labels + ((size_t)l * nodes + node) * 32, 32);
    return proof_fill(c1, &c->inclusion, tc, node);
}

static zkpipe_status labeling_fill(zkp_fil_c1 *c1, zkp_fil_labeling_proof *lp, uint32_t layer,
                                   uint64_t node, const uint32_t *parents, const uint8_t *labels,
                                   uint64_t nodes) {
    const uint8_t *src[ZKP_SDR_DEGREE];
    unsigned n = layer == 1 ? ZKP_SDR_DRG_DEGREE : ZKP_SDR_DEGREE;
    for (unsigned k = 0; k < n; k++) {
        uint32_t at = k < ZKP_SDR_DRG_DEGREE ? layer - 1 : layer - 2;
        src[k] = labels + ((size_t)at * nodes + parents[k]) * 32;
    }
    lp->layer_index = layer;
    lp->node = node;
    lp->parents.n = LABEL_SLOTS;
    lp->parents.v = zkp_fil_c1_alloc(c1, LABEL_SLOTS * sizeof(zkp_fil_domain));
    if (!lp->parents.v) return ZKPIPE_ERR_NO_MEMORY;
    parents_cycled((uint8_t(*)[32])lp->parents.v, src, n);
    return ZKPIPE_OK;
}

zkpipe_status zkp_fil_seal(zkp_fil_c1 *c1, uint8_t *replica, const zkp_fil_seal_inputs *in,
                           const uint8_t *data, const zkp_allocator *alloc, zkp_mem_category cat,
                           zkp_diag *diag) {
    memset(c1, 0, sizeof *c1);
    const zkp_fil_seal_proof *p = in->proof;
    if (!p || !data) return zkp_diag_fail(diag, ZKPIPE_ERR_INVALID_ARGUMENT, "nothing to seal");
    if (p->challenge_kind != ZKP_FIL_CHALLENGES_INTERACTIVE)
        return zkp_diag_fail(diag, ZKPIPE_ERR_UNSUPPORTED,
                             "%s: only interactive PoRep challenges are drawn here", p->name);
    const uint64_t nodes = p->nodes;
    const unsigned layers = p->layers;
    for (uint64_t i = 0; i < nodes; i++)
        if (data[32 * i + 31] & 0xc0)
            return zkp_diag_fail(diag, ZKPIPE_ERR_INVALID_ARGUMENT,
                                 "data node %llu (bytes %llu..%llu) is not fr32-padded: its top "
                                 "two bits are set",
                                 (unsigned long long)i, (unsigned long long)(32 * i),
                                 (unsigned long long)(32 * i + 31));
    hasher_ hd, hp;
    tree_ td = {shape_of(p, 1), NULL, NULL, {0}}, tc = {shape_of(p, 0), NULL, NULL, {0}},
          tr = tc;
    zkpipe_status st;
    if ((st = hasher_init(&hd, &td.s, 1, diag)) != ZKPIPE_OK ||
        (st = hasher_init(&hp, &tc.s, 0, diag)) != ZKPIPE_OK)
        return st;
    work_ w = {alloc, cat, {0}, {0}, 0};
    uint64_t per_d = tree_nodes(&td.s), per_c = tree_nodes(&tc.s);
    uint8_t *labels = work_alloc(&w, (size_t)layers * nodes * 32);
    uint32_t *parents = work_alloc(&w, (size_t)nodes * ZKP_SDR_DEGREE * sizeof(uint32_t));
    uint8_t *leaves = work_alloc(&w, (size_t)nodes * 32);
    td.base = work_alloc(&w, (size_t)per_d * 32);
    tc.base = work_alloc(&w, (size_t)per_c * tc.s.n_base * 32);
    tr.base = work_alloc(&w, (size_t)per_c * tr.s.n_base * 32);
    uint8_t roots[2][8 * 32];
    tc.sub_roots = roots[0];
    tr.sub_roots = roots[1];
    if (!labels || !parents || !leaves || !td.base || !tc.base || !tr.base) {
        work_free(&w);
        return zkp_diag_fail(diag, ZKPIPE_ERR_NO_MEMORY, "%s: cannot allocate the sealing memory",
                             p->name);
    }

    /* comm_d, replica_id, the graph and the labels. */
    tree_build(&td, &hd, data);
    uint8_t porep_id[32], replica_id[32];
    zkp_fil_porep_id(porep_id, p->id);
    zkp_fil_replica_id(replica_id, in->prover_id, in->sector_id, in->ticket, td.root, porep_id);
    zkp_sdr_graph g;
    if ((st = zkp_sdr_graph_init(&g, nodes, porep_id, p->api, diag)) != ZKPIPE_OK) {
        work_free(&w);
        return st;
    }
    zkp_sdr_parents_range(&g, 0, (uint32_t)nodes, parents);
    for (unsigned l = 1; l <= layers; l++)
        zkp_sdr_label_layer(labels + (size_t)(l - 1) * nodes * 32, &g, parents, replica_id, l,
                            l > 1 ? labels + (size_t)(l - 2) * nodes * 32 : NULL);

    /* tree_c over the columns, then tree_r_last over the replica. */
    const zkp_poseidon_params *pcol;
    if ((st = zkp_poseidon_params_get(&pcol, layers)) != ZKPIPE_OK) {
        work_free(&w);
        return zkp_diag_fail(diag, st, "Poseidon of arity %u is not available", layers);
    }
    /* Labels are trimmed digests, below 2^254 < r: always canonical. */
    int canonical = 1;
    for (uint64_t i = 0; i < nodes; i++) {
        fr_t col[ZKP_POSEIDON_MAX_ARITY], h;
        for (unsigned l = 0; l < layers; l++)
            canonical &= bls12_381_fr_from_bytes_le(&col[l], labels + ((size_t)l * nodes + i) * 32) ==
                         ZKPIPE_OK;
        zkp_poseidon_hash(&h, pcol, col);
        bls12_381_fr_to_bytes_le(leaves + 32 * i, &h);
    }
    assert(canonical);
    (void)canonical;
    tree_build(&tc, &hp, leaves);
    const uint8_t *last = labels + (size_t)(layers - 1) * nodes * 32;
    for (uint64_t i = 0; i < nodes; i++)
        (void)fr_add_bytes(leaves + 32 * i, last + 32 * i, data + 32 * i);
    if (replica) memcpy(replica, leaves, (size_t)nodes * 32);
    tree_build(&tr, &hp, leaves);

    /* The commitments and the vanilla proofs. */
    if ((st = zkp_fil_c1_init(c1, p, alloc, cat)) != ZKPIPE_OK) goto oom;
    memcpy(c1->comm_d.b, td.root, 32);
    memcpy(c1->replica_id.b, replica_id, 32);
    memcpy(c1->seed.b, in->seed, 32);
    memcpy(c1->ticket.b, in->ticket, 32);
    uint8_t pair[64];
    memcpy(pair, tc.root, 32);
    memcpy(pair + 32, tr.root, 32);
    if ((st = zkp_poseidon_hash_bytes(c1->comm_r.b, 2, pair, diag)) != ZKPIPE_OK) goto fail;
    c1->vanilla_proofs.n = p->partitions;
    c1->vanilla_proofs.v = zkp_fil_c1_alloc(c1, p->partitions * sizeof(zkp_fil_partition_proofs));
    if (!c1->vanilla_proofs.v) goto oom;
    for (uint32_t k = 0; k < p->partitions; k++) {
        zkp_fil_partition_proofs *part = &c1->vanilla_proofs.v[k];
        uint64_t challenges[64];
        if (p->challenges > sizeof challenges / sizeof challenges[0]) goto oom;
        zkp_fil_interactive_challenges(challenges, p->challenges, nodes, replica_id, in->seed, k);
        part->n = p->challenges;
        part->v = zkp_fil_c1_alloc(c1, p->challenges * sizeof(zkp_fil_challenge_proof));
        if (!part->v) goto oom;
        for (uint32_t i = 0; i < p->challenges; i++) {
            zkp_fil_challenge_proof *cp = &part->v[i];
            uint64_t c = challenges[i];
            const uint32_t *par = parents + c * ZKP_SDR_DEGREE;
            zkp_fil_replica_columns *rc = &cp->replica_column_proofs;
            rc->drg_parents.n = ZKP_SDR_DRG_DEGREE;
            rc->exp_parents.n = ZKP_SDR_EXP_DEGREE;
            rc->drg_parents.v = zkp_fil_c1_alloc(c1, ZKP_SDR_DRG_DEGREE * sizeof(zkp_fil_column_proof));
            rc->exp_parents.v = zkp_fil_c1_alloc(c1, ZKP_SDR_EXP_DEGREE * sizeof(zkp_fil_column_proof));
            cp->labeling_proofs.n = layers;
            cp->labeling_proofs.v = zkp_fil_c1_alloc(c1, layers * sizeof(zkp_fil_labeling_proof));
            if (!rc->drg_parents.v || !rc->exp_parents.v || !cp->labeling_proofs.v) goto oom;
            if (proof_fill(c1, &cp->comm_d_proofs, &td, c) != ZKPIPE_OK ||
                proof_fill(c1, &cp->comm_r_last_proof, &tr, c) != ZKPIPE_OK ||
                column_fill(c1, &rc->c_x, &tc, labels, nodes, layers, c) != ZKPIPE_OK)
                goto oom;
            for (unsigned j = 0; j < ZKP_SDR_DEGREE; j++) {
                zkp_fil_column_proof *col = j < ZKP_SDR_DRG_DEGREE
                                                ? &rc->drg_parents.v[j]
                                                : &rc->exp_parents.v[j - ZKP_SDR_DRG_DEGREE];
                if (column_fill(c1, col, &tc, labels, nodes, layers, par[j]) != ZKPIPE_OK) goto oom;
            }
            for (unsigned l = 1; l <= layers; l++)
                if (labeling_fill(c1, &cp->labeling_proofs.v[l - 1], l, c, par, labels, nodes) !=
                    ZKPIPE_OK)
                    goto oom;
            if (labeling_fill(c1, &cp->encoding_proof, layers, c, par, labels, nodes) != ZKPIPE_OK)
                goto oom;
        }
    }
    work_free(&w);
    return ZKPIPE_OK;
oom:
    st = zkp_diag_fail(diag, ZKPIPE_ERR_NO_MEMORY, "%s: cannot allocate the C1", p->name);
fail:
    work_free(&w);
    zkp_fil_c1_free(c1);
    return st;
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
    if (p->challenge_kind != ZKP_FIL_CHALLENGES_INTERACTIVE)
        return zkp_diag_fail(diag, ZKPIPE_ERR_UNSUPPORTED,
                             "%s: only interactive PoRep challenges are verified here", p->name);
    vctx_ v = {diag, ""};
    const shape_ sd = shape_of(p, 1), sc = shape_of(p, 0);
    hasher_ hd, hp;
    zkpipe_status st;
    if ((st = hasher_init(&hd, &sd, 1, diag)) != ZKPIPE_OK ||
        (st = hasher_init(&hp, &sc, 0, diag)) != ZKPIPE_OK)
        return st;
    const zkp_poseidon_params *pcol;
    if ((st = zkp_poseidon_params_get(&pcol, p->layers)) != ZKPIPE_OK)
        return zkp_diag_fail(diag, st, "Poseidon of arity %u is not available", p->layers);
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
    if (zkp_poseidon_hash_bytes(comm_r, 2, pair, NULL) != ZKPIPE_OK || memcmp(comm_r, c1->comm_r.b, 32))
        return v_fail(&v, "comm_r: not Poseidon(comm_c, comm_r_last) of the proofs' roots");

    for (uint32_t k = 0; k < c1->vanilla_proofs.n; k++) {
        const zkp_fil_partition_proofs *part = &c1->vanilla_proofs.v[k];
        uint64_t challenges[64];
        if (part->n > sizeof challenges / sizeof challenges[0])
            return zkp_diag_fail(diag, ZKPIPE_ERR_OUT_OF_RANGE, "too many challenges");
        zkp_fil_interactive_challenges(challenges, part->n, p->nodes, c1->replica_id.b,
                                       c1->seed.b, k);
        for (uint32_t i = 0; i < part->n; i++) {
            const zkp_fil_challenge_proof *cp = &part->v[i];
            const zkp_fil_replica_columns *rc = &cp->replica_column_proofs;
            uint64_t c = challenges[i];
            snprintf(v.where, sizeof v.where, "vanilla_proofs[%u][%u].", (unsigned)k, (unsigned)i);
            if ((st = v_merkle(&v, "comm_d_proofs", &hd, &sd, &cp->comm_d_proofs, c, c1->comm_d.b,
                               "comm_d")) != ZKPIPE_OK ||
                (st = v_merkle(&v, "comm_r_last_proof", &hp, &sc, &cp->comm_r_last_proof, c,
                               comm_r_last, "comm_r_last")) != ZKPIPE_OK ||
                (st = v_column(&v, "replica_column_proofs.c_x", &hp, &sc, pcol, &rc->c_x, c,
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
                if ((st = v_column(&v, name, &hp, &sc, pcol, col, par[j], comm_c)) != ZKPIPE_OK)
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
                    return v_fail(&v, "labeling_proofs[%u].node: %llu, the challenge is %llu", l - 1,
                                  (unsigned long long)lp->node, (unsigned long long)c);
                for (unsigned s = 0; s < LABEL_SLOTS; s++)
                    if (memcmp(lp->parents.v[s].b, want[s], 32))
                        return v_fail(&v, "labeling_proofs[%u].parents[%u]: not the label of the "
                                      "parent in the columns",
                                      l - 1, s);
                zkp_sdr_label(label, c1->replica_id.b, l, c, src, n);
                if (memcmp(label, rc->c_x.rows.v[l - 1].b, 32))
                    return v_fail(&v, "replica_column_proofs.c_x.column.rows[%u]: not the label "
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
