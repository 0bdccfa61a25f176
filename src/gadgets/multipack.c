/* Packing and unpacking (see multipack.h). */
#include "gadgets/multipack.h"

typedef bls12_381_fr_t fr_t;

/* lc and value of sum 2^i bits[i], i < n. */
static void pack_lc_(zkp_lc *lc, fr_t *value, const zkp_bool *bits, size_t n) {
    fr_t coeff;
    bls12_381_fr_set_one(&coeff);
    bls12_381_fr_set_zero(value);
    for (size_t i = 0; i < n; i++) {
        zkp_bool_lc(lc, &bits[i], &coeff);
        if (bits[i].value) bls12_381_fr_add(value, value, &coeff);
        bls12_381_fr_dbl(&coeff, &coeff);
    }
}

/* packed * ONE = target */
static void enforce_packing_(zkp_cs *cs, zkp_lc *packed, zkp_var target) {
    zkp_lc one, t;
    zkp_lc_init_for(&one, cs);
    zkp_lc_init_for(&t, cs);
    zkp_lc_add_one(&one, ZKP_VAR_ONE);
    zkp_lc_add_one(&t, target);
    zkp_cs_enforce(cs, packed, &one, &t);
}

zkp_var zkp_pack_bits(zkp_cs *cs, const zkp_bool *bits, size_t n, zkp_fr *value) {
    if (n > ZKP_FR_CAPACITY) n = ZKP_FR_CAPACITY;
    zkp_lc lc;
    zkp_lc_init_for(&lc, cs);
    fr_t v;
    pack_lc_(&lc, &v, bits, n);
    zkp_var x = zkp_cs_alloc(cs, &v);
    enforce_packing_(cs, &lc, x);
    zkp_lc_free(&lc);
    if (value) *value = v;
    return x;
}

void zkp_pack_into_inputs(zkp_cs *cs, const zkp_bool *bits, size_t n) {
    zkp_lc lc;
    zkp_lc_init_for(&lc, cs);
    for (size_t start = 0; start < n; start += ZKP_FR_CAPACITY) {
        size_t len = n - start < ZKP_FR_CAPACITY ? n - start : ZKP_FR_CAPACITY;
        fr_t v;
        zkp_lc_clear(&lc);
        pack_lc_(&lc, &v, bits + start, len);
        zkp_var x = zkp_cs_alloc_input(cs, &v);
        enforce_packing_(cs, &lc, x);
    }
    zkp_lc_free(&lc);
}

void zkp_multipack_compute(zkp_fr *out, const uint8_t *bits, size_t n) {
    for (size_t start = 0, k = 0; start < n; start += ZKP_FR_CAPACITY, k++) {
        size_t len = n - start < ZKP_FR_CAPACITY ? n - start : ZKP_FR_CAPACITY;
        fr_t coeff;
        bls12_381_fr_set_one(&coeff);
        bls12_381_fr_set_zero(&out[k]);
        for (size_t i = 0; i < len; i++) {
            if (bits[start + i]) bls12_381_fr_add(&out[k], &out[k], &coeff);
            bls12_381_fr_dbl(&coeff, &coeff);
        }
    }
}

void zkp_num_to_bits_le(zkp_cs *cs, zkp_var x, const zkp_fr *value,
                        zkp_bool bits[ZKP_FR_NUM_BITS]) {
    uint8_t le[32];
    bls12_381_fr_to_bytes_le(le, value); /* canonical, from Montgomery form */
    zkp_lc zero, sum;
    zkp_lc_init_for(&zero, cs);
    zkp_lc_init_for(&sum, cs);
    fr_t coeff;
    bls12_381_fr_set_one(&coeff);
    for (int i = 0; i < ZKP_FR_NUM_BITS; i++) {
        bits[i] = zkp_bool_alloc(cs, (le[i / 8] >> (i % 8)) & 1);
        zkp_lc_add(&sum, bits[i].var, &coeff);
        bls12_381_fr_dbl(&coeff, &coeff);
    }
    zkp_lc_sub_one(&sum, x);
    zkp_cs_enforce(cs, &zero, &zero, &sum);
    zkp_lc_free(&sum);
}
