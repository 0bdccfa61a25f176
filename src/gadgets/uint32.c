/* UInt32 and MultiEq (see uint32.h). */
#include "gadgets/uint32.h"

typedef bls12_381_fr_t fr_t;

void zkp_multieq_init(zkp_multieq *m, zkp_cs *cs) {
    m->cs = cs;
    zkp_lc_init_for(&m->lhs, cs);
    zkp_lc_init_for(&m->rhs, cs);
    m->bits_used = 0;
    zkp_lc_init_for(&m->sum, cs);
    zkp_lc_init_for(&m->bits, cs);
}

static void multieq_flush_(zkp_multieq *m) {
    zkp_lc one;
    zkp_lc_init_for(&one, m->cs);
    zkp_lc_add_one(&one, ZKP_VAR_ONE);
    zkp_cs_enforce(m->cs, &m->lhs, &one, &m->rhs);
    zkp_lc_clear(&m->lhs);
    zkp_lc_clear(&m->rhs);
    m->bits_used = 0;
}

void zkp_multieq_enforce_equal(zkp_multieq *m, unsigned num_bits, const zkp_lc *lhs,
                               const zkp_lc *rhs) {
    if (num_bits >= ZKP_MULTIEQ_CAPACITY) { /* cannot fit even alone */
        if (m->cs->status == ZKPIPE_OK) m->cs->status = ZKPIPE_ERR_INVALID_ARGUMENT;
        return;
    }
    if (m->bits_used + num_bits >= ZKP_MULTIEQ_CAPACITY) multieq_flush_(m);
    if (zkp_cs_wants_lcs(m->cs)) {
        fr_t weight;
        bls12_381_fr_set_one(&weight);
        for (unsigned i = 0; i < m->bits_used; i++) bls12_381_fr_dbl(&weight, &weight);
        zkp_lc_add_lc(&m->lhs, lhs, &weight);
        zkp_lc_add_lc(&m->rhs, rhs, &weight);
    }
    m->bits_used += num_bits;
}

void zkp_multieq_finish(zkp_multieq *m) {
    if (m->bits_used > 0) multieq_flush_(m);
    zkp_lc_free(&m->lhs);
    zkp_lc_free(&m->rhs);
    zkp_lc_free(&m->sum);
    zkp_lc_free(&m->bits);
}

zkp_u32 zkp_u32_const(uint32_t value) {
    zkp_u32 w;
    for (int i = 0; i < 32; i++) w.bits[i] = zkp_bool_const((int)(value >> i) & 1);
    w.value = value;
    return w;
}

zkp_u32 zkp_u32_alloc(zkp_cs *cs, uint32_t value) {
    zkp_u32 w;
    for (int i = 0; i < 32; i++) w.bits[i] = zkp_bool_alloc(cs, (int)(value >> i) & 1);
    w.value = value;
    return w;
}

zkp_u32 zkp_u32_from_bits_be(const zkp_bool bits[32]) {
    zkp_u32 w;
    w.value = 0;
    for (int i = 0; i < 32; i++) {
        w.bits[31 - i] = bits[i];
        w.value = (w.value << 1) | bits[i].value;
    }
    return w;
}

void zkp_u32_to_bits_be(const zkp_u32 *w, zkp_bool bits[32]) {
    for (int i = 0; i < 32; i++) bits[i] = w->bits[31 - i];
}

zkp_u32 zkp_u32_rotr(const zkp_u32 *w, unsigned by) {
    by %= 32;
    zkp_u32 r;
    for (unsigned i = 0; i < 32; i++) r.bits[i] = w->bits[(i + by) % 32];
    r.value = by ? (w->value >> by) | (w->value << (32 - by)) : w->value;
    return r;
}

zkp_u32 zkp_u32_shr(const zkp_u32 *w, unsigned by) {
    by %= 32;
    zkp_u32 r;
    for (unsigned i = 0; i < 32; i++) r.bits[i] = i + by < 32 ? w->bits[i + by] : zkp_bool_const(0);
    r.value = w->value >> by;
    return r;
}

zkp_u32 zkp_u32_xor(zkp_cs *cs, const zkp_u32 *a, const zkp_u32 *b) {
    zkp_u32 r;
    for (int i = 0; i < 32; i++) r.bits[i] = zkp_bool_xor(cs, &a->bits[i], &b->bits[i]);
    r.value = a->value ^ b->value;
    return r;
}

zkp_u32 zkp_u32_sha256_ch(zkp_cs *cs, const zkp_u32 *a, const zkp_u32 *b, const zkp_u32 *c) {
    zkp_u32 r;
    for (int i = 0; i < 32; i++)
        r.bits[i] = zkp_bool_sha256_ch(cs, &a->bits[i], &b->bits[i], &c->bits[i]);
    r.value = (a->value & b->value) ^ (~a->value & c->value);
    return r;
}

zkp_u32 zkp_u32_sha256_maj(zkp_cs *cs, const zkp_u32 *a, const zkp_u32 *b, const zkp_u32 *c) {
    zkp_u32 r;
    for (int i = 0; i < 32; i++)
        r.bits[i] = zkp_bool_sha256_maj(cs, &a->bits[i], &b->bits[i], &c->bits[i]);
    r.value = (a->value & b->value) ^ (a->value & c->value) ^ (b->value & c->value);
    return r;
}

zkp_u32 zkp_u32_addmany(zkp_multieq *m, const zkp_u32 *ops, size_t n) {
    zkp_cs *cs = m->cs;
    if (n < 2 || n > 10) {
        if (cs->status == ZKPIPE_OK) cs->status = ZKPIPE_ERR_INVALID_ARGUMENT;
        return zkp_u32_const(0);
    }
    uint64_t sum = 0;
    int all_constants = 1, lcs = zkp_cs_wants_lcs(cs);
    zkp_lc *lhs = &m->sum, *rhs = &m->bits;
    zkp_lc_clear(lhs);
    zkp_lc_clear(rhs);
    for (size_t k = 0; k < n; k++) {
        sum += ops[k].value;
        fr_t coeff;
        bls12_381_fr_set_one(&coeff);
        for (int i = 0; i < 32; i++) {
            all_constants &= zkp_bool_is_const(&ops[k].bits[i]);
            if (!lcs) continue;
            zkp_bool_lc(lhs, &ops[k].bits[i], &coeff);
            bls12_381_fr_dbl(&coeff, &coeff);
        }
    }
    if (all_constants) return zkp_u32_const((uint32_t)sum);
    /* as many result bits as the largest possible sum needs */
    uint64_t max_value = (uint64_t)n * UINT32_MAX;
    zkp_u32 r;
    fr_t coeff;
    bls12_381_fr_set_one(&coeff);
    unsigned nbits = 0;
    for (; max_value != 0; max_value >>= 1, nbits++) {
        zkp_bool bit = zkp_bool_alloc(cs, (int)(sum >> nbits) & 1);
        if (nbits < 32) r.bits[nbits] = bit;
        if (!lcs) continue;
        zkp_lc_add(rhs, bit.var, &coeff);
        bls12_381_fr_dbl(&coeff, &coeff);
    }
    zkp_multieq_enforce_equal(m, nbits, lhs, rhs);
    r.value = (uint32_t)sum;
    return r;
}
