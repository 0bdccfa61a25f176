/* Generic short Weierstrass group: the out-of-line half. Included once per
 * group, by that group's .c file, after the group's header and with the same
 * EC_* macros set (see ec_impl.h). The group-specific operations
 * (in_subgroup_var, clear_cofactor_var, endomorphisms) live in the .c file
 * itself. */
#include "curve/wnaf.h"

#define EC_AFF ZKP_CAT(EC_NAME, _affine_t)
#define EC_JAC ZKP_CAT(EC_NAME, _jacobian_t)
#define EC_FN(op) ZKP_CAT(ZKP_CAT(EC_NAME, _), op)
#define EC_K(k) ZKP_CAT(ZKP_CAT(EC_PARAM, _), k)
#define ECF_T ZKP_CAT(EC_FIELD, _t)
#define ECF(op) ZKP_CAT(ZKP_CAT(EC_FIELD, _), op)

void EC_FN(generator)(EC_AFF *r) {
    static const EC_AFF g = {EC_K(GEN_X), EC_K(GEN_Y)};
    *r = g;
}

void EC_FN(to_affine)(EC_AFF *r, const EC_JAC *p) {
    ECF_T zi, zi2;
    ECF(inv)(&zi, &p->z); /* the inverse of 0 is 0, so infinity lands on (0, 0) */
    ECF(sqr)(&zi2, &zi);
    ECF(mul)(&r->x, &p->x, &zi2);
    ECF(mul)(&zi2, &zi2, &zi);
    ECF(mul)(&r->y, &p->y, &zi2);
}

/* Montgomery's trick without scratch memory: the prefix products of the Z
 * coordinates are parked in out[i].x, which is overwritten only after it has
 * been read on the way back. */
void EC_FN(batch_to_affine_var)(EC_AFF *out, const EC_JAC *in, size_t n) {
    ECF_T acc, zi, zi2;
    ECF(set_one)(&acc);
    for (size_t i = 0; i < n; i++) {
        out[i].x = acc;
        if (!EC_FN(is_infinity)(&in[i])) ECF(mul)(&acc, &acc, &in[i].z);
    }
    ECF(inv_var)(&acc, &acc);
    for (size_t i = n; i-- > 0;) {
        if (EC_FN(is_infinity)(&in[i])) {
            EC_FN(affine_set_infinity)(&out[i]);
            continue;
        }
        ECF(mul)(&zi, &out[i].x, &acc); /* 1 / Z_i */
        ECF(mul)(&acc, &acc, &in[i].z);
        ECF(sqr)(&zi2, &zi);
        ECF(mul)(&out[i].x, &in[i].x, &zi2);
        ECF(mul)(&zi2, &zi2, &zi);
        ECF(mul)(&out[i].y, &in[i].y, &zi2);
    }
}

/* Fixed 4-bit windows, most significant first: four doublings, then one
 * addition of table[digit] = [digit] p, where the table entry is read by a
 * scan over all sixteen entries with cmov, so neither the memory access
 * pattern nor the sequence of field operations depends on the scalar. The
 * addition is the complete unified one, so the digit 0 (adding infinity), an
 * accumulator still at infinity, and accumulator = +-table[digit] (possible
 * for points outside the subgroup) need no branches. Windows are aligned to
 * multiples of 4 and so never straddle a limb; bits at and above nbits are
 * masked off. */
void EC_FN(mul)(EC_JAC *r, const EC_JAC *p, const uint64_t *k, size_t nbits) {
    EC_JAC table[16], acc, sel;
    EC_FN(set_infinity)(&table[0]);
    table[1] = *p;
    for (int i = 2; i < 16; i += 2) {
        EC_FN(dbl)(&table[i], &table[i / 2]);
        EC_FN(add)(&table[i + 1], &table[i], p);
    }
    EC_FN(set_infinity)(&acc);
    const size_t windows = (nbits + 3) / 4;
    for (size_t w = windows; w-- > 0;) {
        if (w + 1 < windows) /* nothing to double before the top window */
            for (int i = 0; i < 4; i++) EC_FN(dbl)(&acc, &acc);
        size_t pos = 4 * w;
        uint64_t digit = (k[pos / 64] >> (pos % 64)) & 15;
        if (nbits - pos < 4) digit &= ((uint64_t)1 << (nbits - pos)) - 1;
        sel = table[0];
        for (uint64_t i = 1; i < 16; i++) EC_FN(cmov)(&sel, &table[i], (int)zkp_ct_is_zero_u64(i ^ digit));
        EC_FN(add)(&acc, &acc, &sel);
    }
    *r = acc;
}

/* Left-to-right over the width-5 NAF: one doubling per digit and one
 * addition of +-[d] p, d odd in [1, 15], per nonzero digit (about nbits/6 of
 * them). */
#define EC_WNAF_W 5
void EC_FN(mul_var)(EC_JAC *r, const EC_JAC *p, const uint64_t *k, size_t nbits) {
    int8_t digits[ZKP_WNAF_MAX_BITS + 1];
    EC_JAC odd[1 << (EC_WNAF_W - 2)], acc, twice;
    if (nbits > ZKP_WNAF_MAX_BITS) {
        /* Longer than any scalar zkpipe uses; plain double-and-add stays correct. */
        EC_FN(set_infinity)(&acc);
        for (size_t i = nbits; i-- > 0;) {
            EC_FN(dbl)(&acc, &acc);
            if ((k[i / 64] >> (i % 64)) & 1) EC_FN(add)(&acc, &acc, p);
        }
        *r = acc;
        return;
    }
    size_t len = zkp_wnaf_recode_var(digits, k, nbits, EC_WNAF_W);
    if (len == 0 || EC_FN(is_infinity)(p)) {
        EC_FN(set_infinity)(r);
        return;
    }
    odd[0] = *p;
    EC_FN(dbl)(&twice, p);
    for (int i = 1; i < (1 << (EC_WNAF_W - 2)); i++) EC_FN(add)(&odd[i], &odd[i - 1], &twice);
    /* The top digit is nonzero: start from it instead of doubling infinity. */
    int d = digits[len - 1];
    acc = odd[(d - 1) / 2];
    for (size_t i = len - 1; i-- > 0;) {
        EC_FN(dbl)(&acc, &acc);
        d = digits[i];
        if (d > 0) {
            EC_FN(add)(&acc, &acc, &odd[(d - 1) / 2]);
        } else if (d < 0) {
            EC_FN(sub)(&acc, &acc, &odd[(-d - 1) / 2]);
        }
    }
    *r = acc;
}
#undef EC_WNAF_W

int EC_FN(in_subgroup_slow_var)(const EC_JAC *p) {
    static const ZKP_CAT(EC_SCALAR, _t) order = {ZKP_CAT(EC_SCALAR_PARAM, _MODULUS)};
    EC_JAC t;
    EC_FN(mul_var)(&t, p, order.l, ZKP_CAT(EC_SCALAR_PARAM, _BITS));
    return EC_FN(is_infinity)(&t);
}

int EC_FN(affine_in_subgroup_var)(const EC_AFF *p) {
    EC_JAC t;
    EC_FN(from_affine)(&t, p);
    return EC_FN(in_subgroup_var)(&t);
}

#undef EC_AFF
#undef EC_JAC
#undef EC_FN
#undef EC_K
#undef ECF_T
#undef ECF
