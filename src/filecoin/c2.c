/* C2 from a C1 and bellperson's parameters (c2.h). */
#include "filecoin/c2.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "filecoin/porep.h"
#include "filecoin/porep_circuit.h"
#include "filecoin/public_inputs.h"
#include "gadgets/csr.h"
#include "groth16/groth16.h"

static double now_(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int zkp_fil_same_circuit(const zkp_fil_seal_proof *a, const zkp_fil_seal_proof *b) {
    zkp_fil_porep_shape x, y;
    zkp_fil_porep_shape_of(&x, a);
    zkp_fil_porep_shape_of(&y, b);
    return x.nodes == y.nodes && x.layers == y.layers && x.challenges == y.challenges &&
           x.base_arity == y.base_arity && x.sub_arity == y.sub_arity &&
           x.top_arity == y.top_arity;
}

static void csr_drop_(zkp_cs_csr **r) {
    if (!*r) return;
    zkp_cs_csr_free(*r);
    free(*r);
    *r = NULL;
}

/* What a count of a system says its matrices take: rows (with the input
 * constraints) and entries per matrix. */
typedef struct {
    uint64_t rows, nnz[3];
} matrix_sizes_;

static void sizes_of_(matrix_sizes_ *z, const zkp_cs_csr *counts) {
    z->rows = counts->n_rows;
    for (int m = 0; m < 3; m++) z->nnz[m] = zkp_cs_csr_nnz(counts, m);
}

/* The blank partition of p recorded in mode what, its challenges on
 * nthreads threads (0: every online CPU); with sizes (from a count of the
 * same partition), its matrices come from alloc. */
static zkpipe_status blank_(zkp_cs_csr **out, const zkp_fil_seal_proof *p, unsigned what,
                            const matrix_sizes_ *sizes, const zkp_allocator *alloc,
                            unsigned nthreads, zkp_diag *diag) {
    *out = calloc(1, sizeof **out);
    if (!*out) return zkp_diag_fail(diag, ZKPIPE_ERR_NO_MEMORY, "out of memory");
    zkp_cs_csr_init(*out, what);
    zkpipe_status st = ZKPIPE_OK;
    if (sizes) {
        st = zkp_cs_csr_matrices_from(*out, alloc ? alloc : zkp_default_allocator(),
                                      ZKP_MEM_CSR, sizes->rows, sizes->nnz);
        if (st != ZKPIPE_OK)
            zkp_diag_fail(diag, st, "the %s circuit's matrices (%llu rows, %llu + %llu + %llu "
                          "entries) do not fit", p->name, (unsigned long long)sizes->rows,
                          (unsigned long long)sizes->nnz[0], (unsigned long long)sizes->nnz[1],
                          (unsigned long long)sizes->nnz[2]);
    }
    zkp_fil_porep_shape shape;
    zkp_fil_porep_shape_of(&shape, p);
    if (st == ZKPIPE_OK) st = zkp_fil_porep_circuit_blank_mt(*out, &shape, nthreads, diag);
    if (st == ZKPIPE_OK) st = zkp_cs_csr_finish(*out);
    if (st != ZKPIPE_OK) {
        csr_drop_(out);
        if (!diag || !diag->msg[0])
            zkp_diag_fail(diag, st, "synthesizing the %s circuit: %s", p->name,
                          zkpipe_strerror(st));
    }
    return st;
}

zkpipe_status zkp_fil_params_fit(const zkp_bp_params *params, const zkp_fil_seal_proof *p,
                                 zkp_diag *diag) {
    zkp_cs_csr *r = NULL;
    zkpipe_status st = blank_(&r, p, ZKP_CSR_COUNTS, NULL, NULL, 0, diag);
    if (st == ZKPIPE_OK) st = zkp_bp_params_fit(params, r, diag);
    csr_drop_(&r);
    return st;
}

zkpipe_status zkp_fil_c2_blank_matrices(zkp_cs_csr **out, const zkp_fil_seal_proof *p,
                                        const zkp_allocator *alloc, zkp_diag *diag) {
    zkp_cs_csr *counts = NULL;
    *out = NULL;
    zkpipe_status st = blank_(&counts, p, ZKP_CSR_COUNTS, NULL, NULL, 0, diag);
    if (st != ZKPIPE_OK) return st;
    matrix_sizes_ z;
    sizes_of_(&z, counts);
    csr_drop_(&counts);
    return blank_(out, p, ZKP_CSR_MATRICES, &z, alloc, 0, diag);
}

void zkp_fil_c2_blank_free(zkp_cs_csr **r) { csr_drop_(r); }

void zkp_fil_c2_key_free(zkp_fil_c2_key *k) {
    if (!k) return;
    zkp_bp_key_free(&k->key);
    zkp_bp_params_free(&k->params);
    memset(k, 0, sizeof *k);
}

uint64_t zkp_fil_c2_key_drop_points(zkp_fil_c2_key *k, unsigned sets) {
    static const struct {
        unsigned bit;
        zkp_bp_section sec;
    } map[] = {{1u << ZKP_G16_SET_A, ZKP_BP_A},   {1u << ZKP_G16_SET_B1, ZKP_BP_B_G1},
               {1u << ZKP_G16_SET_L, ZKP_BP_L},   {1u << ZKP_G16_SET_H, ZKP_BP_H},
               {ZKP_G16_SETS_B2, ZKP_BP_B_G2}};
    bls12_381_g16_pk_t *pk = &k->key.pk;
    uint64_t freed = 0;
    for (size_t i = 0; i < sizeof map / sizeof map[0]; i++) {
        if (!(sets & map[i].bit) || !k->params.points[map[i].sec]) continue;
        freed += zkp_bp_params_section_bytes(&k->params, map[i].sec);
        zkp_bp_params_drop_section(&k->params, map[i].sec);
        switch (map[i].sec) {
        case ZKP_BP_A: pk->a = NULL; break;
        case ZKP_BP_B_G1: pk->b1 = NULL; break;
        case ZKP_BP_L: pk->c = NULL; break;
        case ZKP_BP_H: pk->h = NULL; break;
        default: pk->b2 = NULL; break;
        }
    }
    return freed;
}

static const zkp_fil_c2_options c2_defaults_ = {0, NULL, 0, NULL};

zkpipe_status zkp_fil_c2_key_open(zkp_fil_c2_key *k, const zkp_fil_seal_proof *p,
                                  const char *params_path, const zkp_fil_c2_options *opt,
                                  zkp_diag *diag) {
    if (!opt) opt = &c2_defaults_;
    memset(k, 0, sizeof *k);
    k->proof = p;
    zkp_bp_params_options po = {opt->alloc, opt->nthreads, !opt->check_subgroups, opt->pages};
    zkpipe_status st = zkp_bp_params_load(&k->params, params_path, &po, diag);
    if (st != ZKPIPE_OK) memset(k, 0, sizeof *k);
    return st;
}

zkpipe_status zkp_fil_c2_key_make(zkp_fil_c2_key *k, const zkp_fil_c2_options *opt,
                                  zkp_diag *diag) {
    if (!opt) opt = &c2_defaults_;
    const zkp_fil_seal_proof *p = k->proof;
    /* The lengths first, from counts: a wrong file costs no decoding. The
     * count also sizes the matrices recorded next, so they are allocated
     * once, at their size, from the caller's allocator. */
    zkp_cs_csr *counts = NULL, *r = NULL;
    zkp_bp_key_circuit kc;
    memset(&kc, 0, sizeof kc);
    double t = now_();
    zkpipe_status st = blank_(&counts, p, ZKP_CSR_COUNTS, NULL, NULL, opt->nthreads, diag);
    if (st == ZKPIPE_OK) st = zkp_bp_params_fit(&k->params, counts, diag);
    if (st != ZKPIPE_OK) goto done;
    matrix_sizes_ z;
    sizes_of_(&z, counts);
    csr_drop_(&counts); /* its bitmaps are the C library's: gone before the matrices come */
    k->seconds_check = now_() - t;

    /* The matrices are needed only for the coefficients and the columns
     * in use: those are taken from them, and they go, before the sections
     * are decoded (616 MiB off the key's peak at 2 KiB). */
    t = now_();
    if ((st = blank_(&r, p, ZKP_CSR_MATRICES, &z, opt->alloc, opt->nthreads, diag)) != ZKPIPE_OK)
        goto done;
    k->rows = r->n_rows;
    st = zkp_bp_key_circuit_init(&kc, r, opt->alloc, diag);
    csr_drop_(&r);
    if (st != ZKPIPE_OK) {
        zkp_diag_prefix(diag, k->params.name);
        goto done;
    }
    k->seconds_shape = now_() - t;

    t = now_();
    const void *sec[ZKP_BP_SECTION_COUNT];
    size_t count[ZKP_BP_SECTION_COUNT];
    for (int s = 0; s < ZKP_BP_SECTION_COUNT && st == ZKPIPE_OK; s++) {
        st = zkp_bp_params_section(&k->params, (zkp_bp_section)s, &sec[s], diag);
        count[s] = k->params.sec[s].count;
    }
    if (st != ZKPIPE_OK) goto done;
    k->seconds_decode = now_() - t;

    t = now_();
    st = zkp_bp_key_init_from(&k->key, &kc, &k->params.vk, sec, count, opt->alloc, diag);
    if (st != ZKPIPE_OK) {
        zkp_diag_prefix(diag, k->params.name);
        goto done;
    }
    k->seconds_key = now_() - t;
done:
    csr_drop_(&counts);
    csr_drop_(&r);
    zkp_bp_key_circuit_free(&kc);
    if (st != ZKPIPE_OK) zkp_fil_c2_key_free(k);
    return st;
}

zkpipe_status zkp_fil_c2_key_load(zkp_fil_c2_key *k, const zkp_fil_seal_proof *p,
                                  const char *params_path, const zkp_fil_c2_options *opt,
                                  zkp_diag *diag) {
    zkpipe_status st = zkp_fil_c2_key_open(k, p, params_path, opt, diag);
    return st == ZKPIPE_OK ? zkp_fil_c2_key_make(k, opt, diag) : st;
}

static void prefix_partition_(zkp_diag *diag, unsigned k) {
    char what[32];
    snprintf(what, sizeof what, "partition %u", k);
    zkp_diag_prefix(diag, what);
}

zkpipe_status zkp_fil_c2_public_inputs(zkp_g16_public *pub, const zkp_fil_c1 *c1, unsigned k,
                                       zkp_diag *diag) {
    const zkp_fil_seal_proof *p = c1->proof;
    size_t n = zkp_fil_porep_public_input_count(p);
    pub->curve = ZKPIPE_CURVE_BLS12_381;
    pub->n = n;
    pub->values = calloc(n ? n : 1, 32);
    if (!pub->values) return zkp_diag_fail(diag, ZKPIPE_ERR_NO_MEMORY, "out of memory");
    uint8_t porep_id[32];
    zkp_fil_porep_id(porep_id, p->id);
    zkpipe_status st = zkp_fil_porep_public_inputs(pub->values, p, c1->replica_id.b, c1->comm_d.b,
                                                   c1->comm_r.b, c1->seed.b, porep_id, k, diag);
    if (st != ZKPIPE_OK) {
        free(pub->values);
        pub->values = NULL;
        pub->n = 0;
    }
    return st;
}

void zkp_fil_c2_unsatisfied_prefix(zkp_diag *diag) {
    zkp_diag_prefix(diag, "the C1 does not satisfy the circuit, or the parameters are not a "
                          "setup of it");
}

zkpipe_status zkp_fil_c2_check_c1(const zkp_fil_seal_proof *key_proof, const zkp_fil_c1 *c1,
                                  zkp_diag *diag) {
    if (!zkp_fil_same_circuit(c1->proof, key_proof))
        return zkp_diag_fail(diag, ZKPIPE_ERR_INVALID_ARGUMENT,
                             "the C1 is a %s sector's; the parameters are %s's circuit",
                             c1->proof->name, key_proof->name);
    return ZKPIPE_OK;
}

zkpipe_status zkp_fil_c2_synthesize(uint64_t *witness, const bls12_381_g16_pk_t *pk,
                                    const zkp_fil_c1 *c1, unsigned k, unsigned nthreads,
                                    const atomic_int *cancel, zkp_diag *diag) {
    if (k >= c1->vanilla_proofs.n)
        return zkp_diag_fail(diag, ZKPIPE_ERR_OUT_OF_RANGE, "partition %u of a C1 with %zu", k,
                             (size_t)c1->vanilla_proofs.n);
    zkp_cs_csr *r = calloc(1, sizeof *r);
    if (!r) return zkp_diag_fail(diag, ZKPIPE_ERR_NO_MEMORY, "out of memory");
    zkp_cs_csr_init(r, ZKP_CSR_WITNESS);
    zkpipe_status st =
        zkp_cs_csr_witness_into(r, witness, pk->n_public + 1, pk->n_vars - pk->n_public - 1);
    if (st == ZKPIPE_OK &&
        (st = zkp_fil_porep_circuit_mt(&r->cs, c1, k, nthreads, cancel, diag)) == ZKPIPE_OK)
        st = zkp_cs_csr_finish(r);
    if (st == ZKPIPE_ERR_CANCELLED)
        zkp_diag_fail(diag, st, "partition %u: cancelled during synthesis", k);
    else if (st != ZKPIPE_OK && (!diag || !diag->msg[0]))
        zkp_diag_fail(diag, st, "partition %u has %llu inputs and %llu aux variables; the key %u "
                      "and %u", k, (unsigned long long)r->cs.num_inputs,
                      (unsigned long long)r->cs.num_aux, pk->n_public + 1,
                      pk->n_vars - pk->n_public - 1);
    csr_drop_(&r);
    return st;
}

static zkpipe_status verify_(const zkp_bp_vk *bvk, const zkp_g16_public *pub,
                             const zkp_g16_proof *proof, unsigned k, zkp_diag *diag) {
    zkp_g16_vk vk;
    zkp_bp_vk_to_g16(&vk, bvk);
    zkpipe_status st = zkp_g16_verify(&vk, pub, proof, diag);
    if (st == ZKPIPE_ERR_PROOF_INVALID)
        return zkp_diag_fail(diag, st,
                             "partition %u: the proof does not verify against the public inputs "
                             "of the C1's commitments and seed",
                             k);
    if (st != ZKPIPE_OK) prefix_partition_(diag, k);
    return st;
}

zkpipe_status zkp_fil_c2_verify(const zkp_bp_vk *vk, const zkp_fil_c1 *c1, const uint8_t *proof,
                                size_t len, zkp_diag *diag) {
    size_t n = c1->vanilla_proofs.n;
    if (len != n * ZKP_BP_PROOF_BYTES)
        return zkp_diag_fail(diag, ZKPIPE_ERR_SIZE_MISMATCH,
                             "the proof has %zu bytes; %zu partition(s) need %zu", len, n,
                             n * ZKP_BP_PROOF_BYTES);
    if (vk->n_ic != zkp_fil_porep_public_input_count(c1->proof) + 1)
        return zkp_diag_fail(diag, ZKPIPE_ERR_INVALID_ARGUMENT,
                             "the verifying key takes %u inputs; a %s partition has %zu",
                             vk->n_ic - 1, c1->proof->name,
                             zkp_fil_porep_public_input_count(c1->proof));
    zkpipe_status st = ZKPIPE_OK;
    for (size_t k = 0; k < n && st == ZKPIPE_OK; k++) {
        zkp_g16_proof p = {.curve = ZKPIPE_CURVE_BLS12_381};
        zkp_g16_public pub = {ZKPIPE_CURVE_BLS12_381, 0, NULL};
        st = zkp_bp_proof_decode(&p.u.bls12_381, proof + k * ZKP_BP_PROOF_BYTES, diag);
        if (st != ZKPIPE_OK)
            prefix_partition_(diag, (unsigned)k);
        else if ((st = zkp_fil_c2_public_inputs(&pub, c1, (unsigned)k, diag)) == ZKPIPE_OK)
            st = verify_(vk, &pub, &p, (unsigned)k, diag);
        free(pub.values);
    }
    return st;
}
