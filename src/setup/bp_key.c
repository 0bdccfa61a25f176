/* zkpipe's prover key from bellperson's parameters and the circuit
 * (bp_key.h). */
#include "setup/bp_key.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "field/field.h"
#include "ntt/ntt.h"

typedef bls12_381_fr_t fr_t;
typedef bls12_381_g1_affine_t g1_t;
typedef bls12_381_g2_affine_t g2_t;

unsigned zkp_bp_log_domain(uint64_t rows) {
    unsigned log_n = 0;
    while (log_n < 63 && (1ULL << log_n) < rows) log_n++;
    return log_n;
}

zkpipe_status zkp_bp_shape_of(zkp_bp_shape *out, const zkp_cs_csr *r, zkp_diag *diag) {
    memset(out, 0, sizeof *out);
    zkp_csr_density den;
    if (!r || !r->finished || zkp_cs_csr_density(r, &den) != ZKPIPE_OK)
        return zkp_diag_fail(diag, ZKPIPE_ERR_INVALID_ARGUMENT,
                             "the circuit is not finished, or was recorded without its shape");
    out->n_ic = r->cs.num_inputs;
    out->sec[ZKP_BP_H] = (1ULL << zkp_bp_log_domain(r->n_rows)) - 1;
    out->sec[ZKP_BP_L] = r->cs.num_aux;
    out->sec[ZKP_BP_A] = den.a_input + den.a_aux;
    out->sec[ZKP_BP_B_G1] = den.b_input + den.b_aux;
    out->sec[ZKP_BP_B_G2] = den.b_input + den.b_aux;
    return ZKPIPE_OK;
}

zkpipe_status zkp_bp_params_fit(const zkp_bp_params *p, const zkp_cs_csr *r, zkp_diag *diag) {
    zkp_bp_shape want;
    zkpipe_status st = zkp_bp_shape_of(&want, r, diag);
    if (st != ZKPIPE_OK) return st;
    char msg[sizeof diag->msg];
    size_t len = 0;
    msg[0] = '\0';
#define FIT_APPEND_(...)                                                                     \
    do {                                                                                     \
        if (len < sizeof msg) len += (size_t)snprintf(msg + len, sizeof msg - len, __VA_ARGS__); \
    } while (0)
    if (p->vk.n_ic != want.n_ic)
        FIT_APPEND_("; ic has %u points, the circuit %llu inputs", p->vk.n_ic,
                    (unsigned long long)want.n_ic);
    for (int s = 0; s < ZKP_BP_SECTION_COUNT; s++)
        if (p->sec[s].count != want.sec[s])
            FIT_APPEND_("; %s has %u points, the circuit needs %llu",
                        zkp_bp_section_name((zkp_bp_section)s), p->sec[s].count,
                        (unsigned long long)want.sec[s]);
#undef FIT_APPEND_
    if (!msg[0]) return ZKPIPE_OK;
    return zkp_diag_fail(diag, ZKPIPE_ERR_SIZE_MISMATCH,
                         "%s: these parameters are not this circuit's%s", p->name, msg);
}

/* k with base^k = target, both of order n = 2^log_n (base primitive): bit
 * b of k is found by raising target·base^-k to 2^(log_n - 1 - b), which
 * is 1 or -1 once the bits below b are right. */
static uint64_t dlog2_(const fr_t *base, const fr_t *target, unsigned log_n) {
    fr_t base_inv, t, s;
    bls12_381_fr_inv_var(&base_inv, base);
    uint64_t k = 0;
    for (unsigned b = 0; b < log_n; b++) {
        bls12_381_fr_pow(&s, &base_inv, &k, 1);
        bls12_381_fr_mul(&t, target, &s);
        for (unsigned j = 0; j + 1 + b < log_n; j++) bls12_381_fr_sqr(&t, &t);
        if (!bls12_381_fr_is_one(&t)) k |= 1ULL << b;
    }
    return k;
}

size_t zkp_bp_key_coefs(const zkp_cs_csr *r, unsigned log_n, bls12_381_g16_coef_t *out) {
    if (log_n > 31 || (1ULL << log_n) < r->n_rows) return 0;
    size_t n_coefs = zkp_cs_csr_key_coefs(r, out);
    if (!out || !n_coefs || log_n == 0) return n_coefs;
    fr_t seven, five, w7, w5;
    bls12_381_fr_set_u64(&seven, 7);
    bls12_381_fr_set_u64(&five, 5);
    if (bls12_381_fr_ntt_root_from_generator(&w7, &seven, log_n) != ZKPIPE_OK ||
        bls12_381_fr_ntt_root_from_generator(&w5, &five, log_n) != ZKPIPE_OK)
        return 0;
    /* Row i at position i·k^-1 mod n, with w5 = w7^k. */
    uint64_t k = dlog2_(&w7, &w5, log_n), kinv = k, mask = (1ULL << log_n) - 1;
    for (int i = 0; i < 6; i++) kinv *= 2 - k * kinv; /* Newton: the inverse mod 2^64 */
    for (size_t e = 0; e < n_coefs; e++)
        out[e].constraint = (uint32_t)((out[e].constraint * kinv) & mask);
    return n_coefs;
}

void zkp_bp_key_free(zkp_bp_key *k) {
    if (!k) return;
    const zkp_allocator *a = k->alloc;
    zkp_bp_key_drop_coefs(k);
    zkp_free(a, k->a_cols, k->a_cols ? k->pk.a_len * sizeof *k->a_cols : 0, ZKP_MEM_KEY);
    zkp_free(a, k->b_cols, k->b_cols ? k->pk.b_len * sizeof *k->b_cols : 0, ZKP_MEM_KEY);
    memset(k, 0, sizeof *k);
}

void zkp_bp_key_drop_coefs(zkp_bp_key *k) {
    zkp_free(k->alloc, k->coefs, k->pk.n_coefs * sizeof *k->coefs, ZKP_MEM_KEY);
    k->coefs = NULL;
    k->pk.coefs = NULL;
    k->pk.n_coefs = 0;
}

/* One bit per column of r with an entry in matrix m. */
static uint64_t *used_columns_(const zkp_cs_csr *r, int m) {
    uint64_t *bits = calloc(((size_t)r->n_cols + 63) / 64, sizeof *bits);
    if (!bits) return NULL;
    const zkp_csr_matrix *mat = &r->m[m];
    for (size_t e = 0; e < mat->nnz; e++) bits[mat->col[e] / 64] |= 1ULL << (mat->col[e] % 64);
    return bits;
}

/* The column list of a section as long as the used columns (*cols, from
 * alloc), or none (*cols NULL) for a section as long as the variables,
 * which is dense already. */
static zkpipe_status cols_(uint32_t **cols, size_t count, const uint64_t *used, size_t n_used,
                           size_t n_cols, const char *name, const zkp_allocator *alloc,
                           zkp_diag *diag) {
    *cols = NULL;
    if (count == n_cols) return ZKPIPE_OK;
    if (count != n_used)
        return zkp_diag_fail(diag, ZKPIPE_ERR_SIZE_MISMATCH,
                             "section %s has %zu points; the circuit has %zu non-empty columns "
                             "and %zu variables",
                             name, count, n_used, n_cols);
    uint32_t *out = n_used ? zkp_alloc(alloc, n_used * sizeof *out, ZKP_MEM_KEY) : NULL;
    if (n_used && !out)
        return zkp_diag_fail(diag, ZKPIPE_ERR_NO_MEMORY,
                             "cannot allocate the %zu columns of section %s", n_used, name);
    for (size_t j = 0, i = 0; j < n_cols; j++)
        if (used[j / 64] >> (j % 64) & 1) out[i++] = (uint32_t)j;
    *cols = out;
    return ZKPIPE_OK;
}

void zkp_bp_key_circuit_free(zkp_bp_key_circuit *c) {
    if (!c) return;
    zkp_free(c->alloc, c->coefs, c->n_coefs * sizeof *c->coefs, ZKP_MEM_KEY);
    free(c->used_a);
    free(c->used_b);
    memset(c, 0, sizeof *c);
}

zkpipe_status zkp_bp_key_circuit_init(zkp_bp_key_circuit *c, const zkp_cs_csr *r,
                                      const zkp_allocator *alloc, zkp_diag *diag) {
    memset(c, 0, sizeof *c);
    c->alloc = alloc;
    if (!r || !r->finished || !(r->what & ZKP_CSR_MATRICES))
        return zkp_diag_fail(diag, ZKPIPE_ERR_INVALID_ARGUMENT,
                             "the circuit is not finished or was recorded without its matrices");
    unsigned log_n = zkp_bp_log_domain(r->n_rows);
    if (log_n > 31 || r->n_cols > UINT32_MAX - 1)
        return zkp_diag_fail(diag, ZKPIPE_ERR_OUT_OF_RANGE,
                             "%llu rows and %llu variables exceed a key's 2^31 and 2^32",
                             (unsigned long long)r->n_rows, (unsigned long long)r->n_cols);
    c->log_n = log_n;
    c->n_cols = r->n_cols;
    c->n_in = (size_t)r->cs.num_inputs;
    c->n_aux = (size_t)r->cs.num_aux;
    zkp_csr_density den;
    zkpipe_status st = zkp_cs_csr_density(r, &den);
    if (st != ZKPIPE_OK) return zkp_diag_fail(diag, st, "the circuit's densities");
    c->n_used_a = (size_t)(den.a_input + den.a_aux);
    c->n_used_b = (size_t)(den.b_input + den.b_aux);
    c->used_a = used_columns_(r, ZKP_CSR_A);
    c->used_b = used_columns_(r, ZKP_CSR_B);
    if (!c->used_a || !c->used_b) {
        st = zkp_diag_fail(diag, ZKPIPE_ERR_NO_MEMORY, "cannot allocate the column bitmaps");
        goto done;
    }
    size_t n_coefs = zkp_bp_key_coefs(r, log_n, NULL);
    c->coefs = n_coefs ? zkp_alloc(alloc, n_coefs * sizeof *c->coefs, ZKP_MEM_KEY) : NULL;
    if (n_coefs && !c->coefs) {
        st = zkp_diag_fail(diag, ZKPIPE_ERR_NO_MEMORY, "cannot allocate %zu coefficients",
                           n_coefs);
        goto done;
    }
    c->n_coefs = n_coefs;
    if (zkp_bp_key_coefs(r, log_n, c->coefs) != n_coefs)
        st = zkp_diag_fail(diag, ZKPIPE_ERR_OUT_OF_RANGE,
                           "the circuit's coefficients do not fit a key");
done:
    if (st != ZKPIPE_OK) zkp_bp_key_circuit_free(c);
    return st;
}

zkpipe_status zkp_bp_key_init_from(zkp_bp_key *k, zkp_bp_key_circuit *c, const zkp_bp_vk *vk,
                                   const void *const sec[ZKP_BP_SECTION_COUNT],
                                   const size_t count[ZKP_BP_SECTION_COUNT],
                                   const zkp_allocator *alloc, zkp_diag *diag) {
    memset(k, 0, sizeof *k);
    k->alloc = alloc;
    size_t n = (size_t)1 << c->log_n, n_cols = c->n_cols, n_in = c->n_in;
    if (vk->n_ic != n_in || count[ZKP_BP_H] != n - 1 || count[ZKP_BP_L] != c->n_aux ||
        count[ZKP_BP_B_G1] != count[ZKP_BP_B_G2])
        return zkp_diag_fail(diag, ZKPIPE_ERR_SIZE_MISMATCH,
                             "ic, h, l, b_g1 and b_g2 have %u, %zu, %zu, %zu and %zu points; the "
                             "circuit needs %zu, %zu, %zu and b_g1 as long as b_g2",
                             vk->n_ic, count[ZKP_BP_H], count[ZKP_BP_L], count[ZKP_BP_B_G1],
                             count[ZKP_BP_B_G2], n_in, n - 1, c->n_aux);
    k->n_cols = n_cols;
    zkpipe_status st;
    if ((st = cols_(&k->a_cols, count[ZKP_BP_A], c->used_a, c->n_used_a, n_cols, "a", alloc,
                    diag)) != ZKPIPE_OK)
        goto done;
    k->pk.a_cols = k->a_cols;
    k->pk.a_len = k->a_cols ? c->n_used_a : 0;
    if ((st = cols_(&k->b_cols, count[ZKP_BP_B_G1], c->used_b, c->n_used_b, n_cols, "b_g1",
                    alloc, diag)) != ZKPIPE_OK)
        goto done;
    k->pk.b_cols = k->b_cols;
    k->pk.b_len = k->b_cols ? c->n_used_b : 0;
    /* The coefficients move into the key (they are its allocator's). */
    k->coefs = c->coefs;
    k->pk.n_coefs = c->n_coefs;
    c->coefs = NULL;
    c->n_coefs = 0;
    bls12_381_g16_pk_t *pk = &k->pk;
    pk->n_vars = (uint32_t)n_cols;
    pk->n_public = (uint32_t)(n_in - 1);
    pk->domain_size = (uint32_t)n;
    pk->log_domain = c->log_n;
    pk->alpha1 = vk->alpha_g1;
    pk->beta1 = vk->beta_g1;
    pk->delta1 = vk->delta_g1;
    pk->beta2 = vk->beta_g2;
    pk->gamma2 = vk->gamma_g2;
    pk->delta2 = vk->delta_g2;
    pk->ic = vk->ic;
    pk->coefs = k->coefs;
    pk->a = sec[ZKP_BP_A];
    pk->b1 = sec[ZKP_BP_B_G1];
    pk->b2 = sec[ZKP_BP_B_G2];
    pk->c = sec[ZKP_BP_L];
    pk->h = sec[ZKP_BP_H];
    pk->h_coefficients = 1;
done:
    if (st != ZKPIPE_OK) zkp_bp_key_free(k);
    return st;
}

zkpipe_status zkp_bp_key_init(zkp_bp_key *k, const zkp_cs_csr *r, const zkp_bp_vk *vk,
                              const void *const sec[ZKP_BP_SECTION_COUNT],
                              const size_t count[ZKP_BP_SECTION_COUNT],
                              const zkp_allocator *alloc, zkp_diag *diag) {
    zkp_bp_key_circuit c;
    memset(k, 0, sizeof *k);
    zkpipe_status st = zkp_bp_key_circuit_init(&c, r, alloc, diag);
    if (st != ZKPIPE_OK) return st;
    st = zkp_bp_key_init_from(k, &c, vk, sec, count, alloc, diag);
    zkp_bp_key_circuit_free(&c);
    return st;
}
