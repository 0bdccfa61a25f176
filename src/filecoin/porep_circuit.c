/* The PoRep partition circuit (porep_circuit.h). */
#include "filecoin/porep_circuit.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "field/bls12_381_fr.h"
#include "gadgets/label.h"
#include "gadgets/multipack.h"
#include "gadgets/por.h"
#include "gadgets/poseidon.h"
#include "util/parallel.h"

#define MAX_LEVELS 64
#define MAX_ARITY 16
#define MAX_LAYERS 11
#define PARENTS (ZKP_FIL_DRG_PARENTS + ZKP_FIL_EXP_PARENTS)

void zkp_fil_porep_shape_of(zkp_fil_porep_shape *out, const zkp_fil_seal_proof *p) {
    out->nodes = p->nodes;
    out->layers = p->layers;
    out->challenges = p->challenges;
    out->base_arity = p->base_arity;
    out->sub_arity = p->sub_arity;
    out->top_arity = p->top_arity;
}

static int arity_ok_(unsigned a) { return a == 2 || a == 4 || a == 8 || a == 16; }

/* Levels of the shape's trees: tree_d's (binary over every node) and the
 * base levels of tree_r_last / tree_c. */
typedef struct {
    uint32_t d_levels, base_levels;
} levels_;

static zkpipe_status shape_check_(const zkp_fil_porep_shape *s, levels_ *lv, zkp_diag *diag) {
    if (s->nodes < 2 || s->nodes > ((uint64_t)1 << 40) || (s->nodes & (s->nodes - 1)))
        return zkp_diag_fail(diag, ZKPIPE_ERR_INVALID_ARGUMENT,
                             "PoRep circuit: %llu nodes is not a power of two in 2 .. 2^40",
                             (unsigned long long)s->nodes);
    if (s->layers != 2 && s->layers != 11)
        return zkp_diag_fail(diag, ZKPIPE_ERR_INVALID_ARGUMENT,
                             "PoRep circuit: %u layers; the column hash exists for 2 and 11",
                             (unsigned)s->layers);
    if (s->challenges == 0)
        return zkp_diag_fail(diag, ZKPIPE_ERR_INVALID_ARGUMENT, "PoRep circuit: no challenges");
    if (!arity_ok_(s->base_arity) || (s->sub_arity && !arity_ok_(s->sub_arity)) ||
        (s->top_arity && !arity_ok_(s->top_arity)) || (s->top_arity && !s->sub_arity))
        return zkp_diag_fail(diag, ZKPIPE_ERR_INVALID_ARGUMENT,
                             "PoRep circuit: tree shape %u-%u-%u is not base 2/4/8/16 with an "
                             "optional sub level and a top level only above a sub level",
                             s->base_arity, s->sub_arity, s->top_arity);
    lv->d_levels = 0;
    while (((uint64_t)1 << lv->d_levels) < s->nodes) lv->d_levels++;
    uint64_t leaves = s->nodes;
    if (s->sub_arity) leaves /= s->sub_arity;
    if (s->top_arity) leaves /= s->top_arity;
    lv->base_levels = 0;
    while (leaves > 1 && leaves % s->base_arity == 0) {
        leaves /= s->base_arity;
        lv->base_levels++;
    }
    if (leaves != 1 || lv->base_levels == 0)
        return zkp_diag_fail(diag, ZKPIPE_ERR_INVALID_ARGUMENT,
                             "PoRep circuit: %llu nodes do not fill a %u-%u-%u tree",
                             (unsigned long long)s->nodes, s->base_arity, s->sub_arity,
                             s->top_arity);
    return ZKPIPE_OK;
}

/* ---- the witness: a C1 partition or nothing ---- */

typedef struct {
    const zkp_fil_porep_shape *shape;
    levels_ lv;
    const zkp_fil_partition_proofs *part; /* NULL: the blank circuit */
    /* one path at a time */
    zkp_por_level levels[MAX_LEVELS];
    zkp_fr siblings[MAX_LEVELS][MAX_ARITY - 1];
    /* the current challenge */
    zkp_var cols[PARENTS][MAX_LAYERS];
    zkp_fr col_values[PARENTS][MAX_LAYERS];
    zkp_bool bits_le[ZKP_FR_NUM_BITS];
    zkp_bool parent_bits[PARENTS][ZKP_LABEL_NODE_BITS];
    zkp_var labels[MAX_LAYERS];
    zkp_fr label_values[MAX_LAYERS];
} synth_;

/* A value of the C1, already checked to be below r (zero for the blank). */
static void fr_of_(zkp_fr *out, const zkp_fil_domain *d) {
    if (!d || bls12_381_fr_from_bytes_le(out, d->b) != ZKPIPE_OK) bls12_381_fr_set_zero(out);
}

static size_t path_add_(synth_ *s, size_t n, const zkp_fil_path *p, unsigned arity,
                        uint32_t count) {
    for (uint32_t l = 0; l < count; l++, n++) {
        s->levels[n].arity = arity;
        s->levels[n].index = p ? (unsigned)p->v[l].index : 0;
        s->levels[n].siblings = s->siblings[n];
        for (unsigned k = 0; k + 1 < arity; k++)
            fr_of_(&s->siblings[n][k], p ? &p->v[l].hashes.v[k] : NULL);
    }
    return n;
}

/* m's levels into s->levels (m NULL: the blank path); returns their count. */
static size_t path_(synth_ *s, const zkp_fil_merkle_proof *m, int tree_d) {
    const zkp_fil_porep_shape *sh = s->shape;
    if (tree_d) return path_add_(s, 0, m ? &m->base : NULL, 2, s->lv.d_levels);
    size_t n = path_add_(s, 0, m ? &m->base : NULL, sh->base_arity, s->lv.base_levels);
    if (sh->sub_arity) n = path_add_(s, n, m ? &m->sub : NULL, sh->sub_arity, 1);
    if (sh->top_arity) n = path_add_(s, n, m ? &m->top : NULL, sh->top_arity, 1);
    return n;
}

static void inclusion_(zkp_cs *cs, synth_ *s, const zkp_fil_merkle_proof *m, int tree_d,
                       zkp_var leaf, const zkp_fr *leaf_value, zkp_var root) {
    size_t n = path_(s, m, tree_d);
    zkp_por_gadget(cs, tree_d ? ZKP_POR_SHA256 : ZKP_POR_POSEIDON, s->levels, n, leaf, leaf_value,
                   root, NULL);
}

/* AllocatedNum::alloc then inputize: the private variable, a public copy
 * and input * ONE = variable. */
static zkp_var alloc_public_(zkp_cs *cs, const zkp_fr *value) {
    zkp_var v = zkp_cs_alloc(cs, value);
    zkp_var in = zkp_cs_alloc_input(cs, value);
    zkp_constraint_equal(cs, in, v);
    return v;
}

/* Parent column c (0..5 DRG, 6..13 expander): its rows, their hash, and
 * the hash's inclusion in tree_c. */
static void parent_column_(zkp_cs *cs, synth_ *s, const zkp_fil_column_proof *col, unsigned c,
                           zkp_var comm_c) {
    uint32_t layers = s->shape->layers;
    for (uint32_t r = 0; r < layers; r++) {
        fr_of_(&s->col_values[c][r], col ? &col->rows.v[r] : NULL);
        s->cols[c][r] = zkp_cs_alloc(cs, &s->col_values[c][r]);
    }
    zkp_fr hash;
    zkp_var h = zkp_poseidon_gadget(cs, layers, s->cols[c], s->col_values[c], &hash);
    inclusion_(cs, s, col ? &col->inclusion : NULL, 0, h, &hash, comm_c);
}

/* The value at layer (1-based) of parent column c, as 256 bits in SHA-256
 * order (to_bits_le, then reverse_bit_numbering). */
static void parent_bits_(zkp_cs *cs, synth_ *s, unsigned c, uint32_t layer, unsigned slot) {
    zkp_num_to_bits_le(cs, s->cols[c][layer - 1], &s->col_values[c][layer - 1], s->bits_le);
    (void)zkp_reverse_bit_numbering(s->parent_bits[slot], s->bits_le, ZKP_FR_NUM_BITS);
}

static void challenge_(zkp_cs *cs, synth_ *s, const zkp_fil_challenge_proof *cp,
                       const zkp_bool id_bits[256], zkp_var comm_d, zkp_var comm_c,
                       zkp_var comm_r_last) {
    const uint32_t layers = s->shape->layers;
    zkp_fr data_value;
    fr_of_(&data_value, cp ? &cp->comm_d_proofs.leaf : NULL);
    zkp_var data_leaf = zkp_cs_alloc(cs, &data_value);
    inclusion_(cs, s, cp ? &cp->comm_d_proofs : NULL, 1, data_leaf, &data_value, comm_d);

    for (unsigned c = 0; c < PARENTS; c++) {
        const zkp_fil_column_proof *col = NULL;
        if (cp)
            col = c < ZKP_FIL_DRG_PARENTS
                      ? &cp->replica_column_proofs.drg_parents.v[c]
                      : &cp->replica_column_proofs.exp_parents.v[c - ZKP_FIL_DRG_PARENTS];
        parent_column_(cs, s, col, c, comm_c);
    }

    zkp_u64 node = zkp_u64_alloc(cs, cp ? cp->labeling_proofs.v[0].node : 0);
    zkp_u64_pack_into_input(cs, &node);

    for (uint32_t layer = 1; layer <= layers; layer++) {
        unsigned n = 0;
        for (unsigned c = 0; c < ZKP_FIL_DRG_PARENTS; c++) parent_bits_(cs, s, c, layer, n++);
        if (layer > 1)
            for (unsigned c = ZKP_FIL_DRG_PARENTS; c < PARENTS; c++)
                parent_bits_(cs, s, c, layer - 1, n++);
        /* 37 parents: the list repeated (6 six times, or 14 twice) and then
         * its first ones again, which is slot k -> entry k mod n */
        const zkp_bool *parents[ZKP_LABEL_PARENTS];
        for (unsigned k = 0; k < ZKP_LABEL_PARENTS; k++) parents[k] = s->parent_bits[k % n];
        zkp_u32 layer_num = zkp_u32_const(layer);
        s->labels[layer - 1] = zkp_create_label_circuit(cs, id_bits, 256, parents, &layer_num,
                                                        &node, &s->label_values[layer - 1]);
    }

    zkp_fr encoded_value;
    zkp_var encoded = zkp_constraint_add(cs, s->labels[layers - 1], &s->label_values[layers - 1],
                                         data_leaf, &data_value, &encoded_value);
    inclusion_(cs, s, cp ? &cp->comm_r_last_proof : NULL, 0, encoded, &encoded_value,
               comm_r_last);

    zkp_fr column_value;
    zkp_var column = zkp_poseidon_gadget(cs, layers, s->labels, s->label_values, &column_value);
    inclusion_(cs, s, cp ? &cp->replica_column_proofs.c_x.inclusion : NULL, 0, column,
               &column_value, comm_c);
}

/* The challenges after the first, on threads: challenge i on a copy of
 * the system whose counters start i - 1 challenges' sizes past where the
 * first one ended (see zkp_fil_porep_circuit_mt). A system recorded into
 * a CSR back end without its witness (rec) gives each challenge a slice of
 * its own instead (gadgets/csr.h): its rows and entries, whose numbers the
 * first challenge gave, written where they fall in rec's matrices. */
typedef struct {
    const zkp_cs *cs; /* after the first challenge */
    uint64_t size[3]; /* one challenge's inputs, aux and constraints */
    zkp_cs_csr *rec;  /* NULL: the challenges share cs's back end */
    zkp_cs_csr *slices; /* one a challenge after the first */
    uint64_t nnz0[3], nnz_size[3]; /* where the first slice's entries start; each one's count */
    synth_ *s;        /* one scratch per thread */
    const zkp_bool *id_bits;
    zkp_var comm_d, comm_c, comm_r_last;
    const atomic_int *cancel;
    _Atomic int failed; /* a zkpipe_status; 0 (OK) until one fails */
} rest_;

static int cancelled_(const atomic_int *cancel) { return cancel && atomic_load(cancel); }

static void rest_unit_(void *ctx, unsigned tid, size_t u) {
    rest_ *r = ctx;
    int ok = ZKPIPE_OK;
    if (cancelled_(r->cancel)) {
        atomic_compare_exchange_strong(&r->failed, &ok, (int)ZKPIPE_ERR_CANCELLED);
        return;
    }
    synth_ *s = &r->s[tid];
    zkp_cs local = *r->cs, *f = &local;
    uint64_t *counters[3] = {&f->num_inputs, &f->num_aux, &f->num_constraints};
    for (int c = 0; c < 3; c++) *counters[c] += u * r->size[c];
    uint64_t want[3] = {f->num_inputs + r->size[0], f->num_aux + r->size[1],
                        f->num_constraints + r->size[2]};
    if (r->rec) {
        zkp_cs_csr *sl = &r->slices[u];
        uint64_t nnz0[3], nnz_end[3];
        for (int m = 0; m < 3; m++) {
            nnz0[m] = r->nnz0[m] + u * r->nnz_size[m];
            nnz_end[m] = nnz0[m] + r->nnz_size[m];
        }
        zkpipe_status st = zkp_cs_csr_slice(sl, r->rec, f->num_constraints, want[2], nnz0, nnz_end);
        if (st != ZKPIPE_OK) {
            atomic_compare_exchange_strong(&r->failed, &ok, (int)st);
            return;
        }
        sl->cs = local;
        sl->cs.ctx = sl;
        f = &sl->cs;
        counters[0] = &f->num_inputs, counters[1] = &f->num_aux, counters[2] = &f->num_constraints;
    }
    challenge_(f, s, s->part ? &s->part->v[u + 1] : NULL, r->id_bits, r->comm_d, r->comm_c,
               r->comm_r_last);
    zkpipe_status st = zkp_cs_status(f);
    for (int c = 0; c < 3 && st == ZKPIPE_OK; c++)
        if (*counters[c] != want[c]) st = ZKPIPE_ERR_INVALID_ARGUMENT;
    if (st != ZKPIPE_OK) atomic_compare_exchange_strong(&r->failed, &ok, (int)st);
}

/* top: replica_id, comm_d, comm_r, comm_r_last, comm_c. */
static zkpipe_status synthesize_(zkp_cs *cs, zkp_cs_csr *rec, const zkp_fil_porep_shape *shape,
                                 const levels_ *lv, const zkp_fil_partition_proofs *part,
                                 const zkp_fr top[5], unsigned nthreads,
                                 const atomic_int *cancel) {
    /* One thread, or the challenges after the first on up to nthreads. */
    int one = nthreads <= 1 || shape->challenges < 2;
    if (!one && nthreads > shape->challenges - 1) nthreads = shape->challenges - 1;
    if (one) nthreads = 1;
    synth_ *s = calloc(nthreads, sizeof *s);
    if (!s) return ZKPIPE_ERR_NO_MEMORY;
    for (unsigned t = 0; t < nthreads; t++) {
        s[t].shape = shape;
        s[t].lv = *lv;
        s[t].part = part;
    }

    zkp_var replica_id = alloc_public_(cs, &top[0]);
    zkp_bool id_bits[256];
    zkp_num_to_bits_le(cs, replica_id, &top[0], s->bits_le);
    (void)zkp_reverse_bit_numbering(id_bits, s->bits_le, ZKP_FR_NUM_BITS);
    zkp_var comm_d = alloc_public_(cs, &top[1]);
    zkp_var comm_r = alloc_public_(cs, &top[2]);
    zkp_var comm_r_last = zkp_cs_alloc(cs, &top[3]);
    zkp_var comm_c = zkp_cs_alloc(cs, &top[4]);
    zkp_var pre[2] = {comm_c, comm_r_last};
    zkp_fr pre_values[2] = {top[4], top[3]};
    zkp_var h = zkp_poseidon_gadget(cs, 2, pre, pre_values, NULL);
    zkp_constraint_equal(cs, comm_r, h);

    if (one) {
        zkpipe_status st = ZKPIPE_OK;
        for (uint32_t i = 0; i < shape->challenges && st == ZKPIPE_OK; i++) {
            if (cancelled_(cancel)) st = ZKPIPE_ERR_CANCELLED;
            else challenge_(cs, s, part ? &part->v[i] : NULL, id_bits, comm_d, comm_c, comm_r_last);
            if (st == ZKPIPE_OK) st = zkp_cs_status(cs);
        }
        free(s);
        return st;
    }
    const uint64_t rest = shape->challenges - 1;
    uint64_t before[3] = {cs->num_inputs, cs->num_aux, cs->num_constraints};
    const int matrices = rec && (rec->what & ZKP_CSR_MATRICES);
    uint64_t nnz_before[3] = {0, 0, 0};
    for (int m = 0; m < 3 && matrices; m++) nnz_before[m] = rec->m[m].nnz;
    challenge_(cs, s, part ? &part->v[0] : NULL, id_bits, comm_d, comm_c, comm_r_last);
    rest_ r = {.cs = cs,
               .size = {cs->num_inputs - before[0], cs->num_aux - before[1],
                        cs->num_constraints - before[2]},
               .rec = rec,
               .s = s,
               .id_bits = id_bits,
               .comm_d = comm_d,
               .comm_c = comm_c,
               .comm_r_last = comm_r_last,
               .cancel = cancel,
               .failed = ZKPIPE_OK};
    zkpipe_status st = zkp_cs_status(cs);
    if (st == ZKPIPE_OK && rec) {
        /* Every challenge records what the first did: room for them all. */
        uint64_t nnz[3];
        for (int m = 0; m < 3; m++) {
            r.nnz0[m] = matrices ? rec->m[m].nnz : 0;
            r.nnz_size[m] = r.nnz0[m] - nnz_before[m];
            nnz[m] = r.nnz0[m] + rest * r.nnz_size[m];
        }
        if (!(r.slices = calloc(rest, sizeof *r.slices))) st = ZKPIPE_ERR_NO_MEMORY;
        else if (matrices)
            st = zkp_cs_csr_reserve(rec, cs->num_constraints + rest * r.size[2], nnz);
    }
    if (st == ZKPIPE_OK) zkp_parallel_for(nthreads, rest, rest_unit_, &r);
    free(s);
    if (r.slices) {
        /* Joined in order, each one freed whatever came of the others. */
        for (uint64_t u = 0; u < rest; u++) {
            zkpipe_status js = zkp_cs_csr_slice_join(rec, &r.slices[u]);
            if (st == ZKPIPE_OK && atomic_load(&r.failed) == ZKPIPE_OK) st = js;
        }
        free(r.slices);
    }
    if (st != ZKPIPE_OK) return st;
    if (atomic_load(&r.failed) != ZKPIPE_OK) return (zkpipe_status)atomic_load(&r.failed);
    cs->num_inputs += rest * r.size[0];
    cs->num_aux += rest * r.size[1];
    cs->num_constraints += rest * r.size[2];
    return ZKPIPE_OK;
}

static zkpipe_status blank_(zkp_cs *cs, zkp_cs_csr *rec, const zkp_fil_porep_shape *shape,
                            unsigned nthreads, zkp_diag *diag) {
    levels_ lv;
    zkpipe_status st = shape_check_(shape, &lv, diag);
    if (st != ZKPIPE_OK) return st;
    zkp_fr top[5];
    memset(top, 0, sizeof top);
    st = synthesize_(cs, rec, shape, &lv, NULL, top, rec ? nthreads : 1, NULL);
    if (st != ZKPIPE_OK)
        return zkp_diag_fail(diag, st, "PoRep circuit: synthesis failed (%s)",
                             zkpipe_status_name(st));
    return ZKPIPE_OK;
}

zkpipe_status zkp_fil_porep_circuit_blank(zkp_cs *cs, const zkp_fil_porep_shape *shape,
                                          zkp_diag *diag) {
    return blank_(cs, NULL, shape, 1, diag);
}

zkpipe_status zkp_fil_porep_circuit_blank_mt(zkp_cs_csr *r, const zkp_fil_porep_shape *shape,
                                             unsigned nthreads, zkp_diag *diag) {
    if (nthreads == 0) {
        long n = sysconf(_SC_NPROCESSORS_ONLN);
        nthreads = n > 0 ? (unsigned)n : 1;
    }
    if (r->what & ZKP_CSR_WITNESS) nthreads = 1; /* a blank witness: nothing to gain */
    return blank_(&r->cs, nthreads > 1 ? r : NULL, shape, nthreads, diag);
}

/* ---- checking a C1 partition against the shape ---- */

static zkpipe_status value_check_(const zkp_fil_domain *d, const char *what, uint32_t i,
                                  zkp_diag *diag) {
    zkp_fr v;
    if (bls12_381_fr_from_bytes_le(&v, d->b) != ZKPIPE_OK)
        return zkp_diag_fail(diag, ZKPIPE_ERR_INVALID_ARGUMENT,
                             "PoRep circuit: challenge %u: %s is not below r", (unsigned)i, what);
    return ZKPIPE_OK;
}

static zkpipe_status path_check_(const zkp_fil_path *p, unsigned arity, uint32_t levels,
                                 const char *what, uint32_t i, zkp_diag *diag) {
    if (p->n != levels)
        return zkp_diag_fail(diag, ZKPIPE_ERR_INVALID_ARGUMENT,
                             "PoRep circuit: challenge %u: %s has %u levels, the shape %u",
                             (unsigned)i, what, (unsigned)p->n, (unsigned)levels);
    for (uint32_t l = 0; l < levels; l++) {
        const zkp_fil_path_elem *e = &p->v[l];
        if (e->hashes.n + 1 != arity || e->index >= arity)
            return zkp_diag_fail(diag, ZKPIPE_ERR_INVALID_ARGUMENT,
                                 "PoRep circuit: challenge %u: %s level %u is not of arity %u",
                                 (unsigned)i, what, (unsigned)l, arity);
        for (uint32_t k = 0; k < e->hashes.n; k++) {
            zkpipe_status st = value_check_(&e->hashes.v[k], what, i, diag);
            if (st != ZKPIPE_OK) return st;
        }
    }
    return ZKPIPE_OK;
}

static zkpipe_status merkle_check_(const zkp_fil_merkle_proof *m, const zkp_fil_porep_shape *s,
                                   const levels_ *lv, int tree_d, const char *what, uint32_t i,
                                   zkp_diag *diag) {
    zkpipe_status st = value_check_(&m->leaf, what, i, diag);
    if (st == ZKPIPE_OK) st = value_check_(&m->root, what, i, diag);
    if (st != ZKPIPE_OK) return st;
    if (tree_d) {
        if (m->kind != ZKP_FIL_MERKLE_SINGLE)
            return zkp_diag_fail(diag, ZKPIPE_ERR_INVALID_ARGUMENT,
                                 "PoRep circuit: challenge %u: %s is not a single tree",
                                 (unsigned)i, what);
        return path_check_(&m->base, 2, lv->d_levels, what, i, diag);
    }
    zkp_fil_merkle_kind want = s->top_arity   ? ZKP_FIL_MERKLE_TOP
                               : s->sub_arity ? ZKP_FIL_MERKLE_SUB
                                              : ZKP_FIL_MERKLE_SINGLE;
    if (m->kind != want)
        return zkp_diag_fail(diag, ZKPIPE_ERR_INVALID_ARGUMENT,
                             "PoRep circuit: challenge %u: %s has the wrong kind of tree",
                             (unsigned)i, what);
    st = path_check_(&m->base, s->base_arity, lv->base_levels, what, i, diag);
    if (st == ZKPIPE_OK && s->sub_arity) st = path_check_(&m->sub, s->sub_arity, 1, what, i, diag);
    if (st == ZKPIPE_OK && s->top_arity) st = path_check_(&m->top, s->top_arity, 1, what, i, diag);
    return st;
}

static zkpipe_status column_check_(const zkp_fil_column_proof *c, const zkp_fil_porep_shape *s,
                                   const levels_ *lv, int rows, const char *what, uint32_t i,
                                   zkp_diag *diag) {
    if (rows) {
        if (c->rows.n != s->layers)
            return zkp_diag_fail(diag, ZKPIPE_ERR_INVALID_ARGUMENT,
                                 "PoRep circuit: challenge %u: %s has %u rows, not %u",
                                 (unsigned)i, what, (unsigned)c->rows.n, (unsigned)s->layers);
        for (uint32_t r = 0; r < c->rows.n; r++) {
            zkpipe_status st = value_check_(&c->rows.v[r], what, i, diag);
            if (st != ZKPIPE_OK) return st;
        }
    }
    return merkle_check_(&c->inclusion, s, lv, 0, what, i, diag);
}

static zkpipe_status partition_check_(const zkp_fil_partition_proofs *part,
                                      const zkp_fil_porep_shape *s, const levels_ *lv,
                                      zkp_diag *diag) {
    if (part->n != s->challenges)
        return zkp_diag_fail(diag, ZKPIPE_ERR_INVALID_ARGUMENT,
                             "PoRep circuit: %u challenge proofs, the shape has %u",
                             (unsigned)part->n, (unsigned)s->challenges);
    for (uint32_t i = 0; i < part->n; i++) {
        const zkp_fil_challenge_proof *cp = &part->v[i];
        const zkp_fil_replica_columns *rc = &cp->replica_column_proofs;
        if (rc->drg_parents.n != ZKP_FIL_DRG_PARENTS || rc->exp_parents.n != ZKP_FIL_EXP_PARENTS ||
            cp->labeling_proofs.n == 0)
            return zkp_diag_fail(diag, ZKPIPE_ERR_INVALID_ARGUMENT,
                                 "PoRep circuit: challenge %u: %u DRG and %u expander parents "
                                 "and %u labeling proofs (want 6, 8 and at least 1)",
                                 (unsigned)i, (unsigned)rc->drg_parents.n,
                                 (unsigned)rc->exp_parents.n, (unsigned)cp->labeling_proofs.n);
        zkpipe_status st = merkle_check_(&cp->comm_d_proofs, s, lv, 1, "comm_d_proofs", i, diag);
        if (st == ZKPIPE_OK)
            st = merkle_check_(&cp->comm_r_last_proof, s, lv, 0, "comm_r_last_proof", i, diag);
        if (st == ZKPIPE_OK) st = column_check_(&rc->c_x, s, lv, 0, "c_x", i, diag);
        for (uint32_t c = 0; c < ZKP_FIL_DRG_PARENTS && st == ZKPIPE_OK; c++)
            st = column_check_(&rc->drg_parents.v[c], s, lv, 1, "drg_parents", i, diag);
        for (uint32_t c = 0; c < ZKP_FIL_EXP_PARENTS && st == ZKPIPE_OK; c++)
            st = column_check_(&rc->exp_parents.v[c], s, lv, 1, "exp_parents", i, diag);
        if (st != ZKPIPE_OK) return st;
    }
    return ZKPIPE_OK;
}

zkpipe_status zkp_fil_porep_circuit(zkp_cs *cs, const zkp_fil_c1 *c1, unsigned partition_k,
                                    zkp_diag *diag) {
    return zkp_fil_porep_circuit_mt(cs, c1, partition_k, 1, NULL, diag);
}

zkpipe_status zkp_fil_porep_circuit_mt(zkp_cs *cs, const zkp_fil_c1 *c1, unsigned partition_k,
                                       unsigned nthreads, const atomic_int *cancel,
                                       zkp_diag *diag) {
    if (!c1->proof)
        return zkp_diag_fail(diag, ZKPIPE_ERR_INVALID_ARGUMENT, "PoRep circuit: an empty C1");
    if (partition_k >= c1->vanilla_proofs.n)
        return zkp_diag_fail(diag, ZKPIPE_ERR_OUT_OF_RANGE,
                             "PoRep circuit: partition %u of a C1 with %u", partition_k,
                             (unsigned)c1->vanilla_proofs.n);
    zkp_fil_porep_shape shape;
    zkp_fil_porep_shape_of(&shape, c1->proof);
    levels_ lv;
    zkpipe_status st = shape_check_(&shape, &lv, diag);
    if (st != ZKPIPE_OK) return st;
    const zkp_fil_partition_proofs *part = &c1->vanilla_proofs.v[partition_k];
    st = partition_check_(part, &shape, &lv, diag);
    if (st != ZKPIPE_OK) return st;

    /* comm_r_last and comm_c are the first challenge's roots, as
     * StackedCompound::circuit takes them; the other challenges' roots are
     * the circuit's to check (the same variables are their roots). */
    const zkp_fil_domain *top_d[3] = {&c1->replica_id, &c1->comm_d, &c1->comm_r};
    const char *names[3] = {"replica_id", "comm_d", "comm_r"};
    zkp_fr top[5];
    for (int t = 0; t < 3; t++)
        if (bls12_381_fr_from_bytes_le(&top[t], top_d[t]->b) != ZKPIPE_OK)
            return zkp_diag_fail(diag, ZKPIPE_ERR_INVALID_ARGUMENT,
                                 "PoRep circuit: %s is not below r", names[t]);
    fr_of_(&top[3], &part->v[0].comm_r_last_proof.root);
    fr_of_(&top[4], &part->v[0].replica_column_proofs.c_x.inclusion.root);
    st = synthesize_(cs, NULL, &shape, &lv, part, top, nthreads, cancel);
    if (st != ZKPIPE_OK)
        return zkp_diag_fail(diag, st, "PoRep circuit: synthesis failed (%s)",
                             zkpipe_status_name(st));
    return ZKPIPE_OK;
}
