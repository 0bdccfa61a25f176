/* The derivation of the Poseidon constants: see poseidon_constants.h. */
#include "hash/poseidon_constants.h"

#include <stdlib.h>
#include <string.h>

typedef bls12_381_fr_t fr_t;

/* ------------------------------------------------------------ Grain LFSR */

#define GRAIN_BITS 80

typedef struct {
    uint8_t bit[GRAIN_BITS]; /* a ring: the oldest bit, b[i], is at bit[head] */
    unsigned head;
} grain_lfsr;

static unsigned grain_tap_(const grain_lfsr *g, unsigned k) { return g->bit[(g->head + k) % GRAIN_BITS]; }

/* One step of the recurrence: the new bit replaces the oldest. */
static unsigned grain_step_(grain_lfsr *g) {
    unsigned b = grain_tap_(g, 62) ^ grain_tap_(g, 51) ^ grain_tap_(g, 38) ^ grain_tap_(g, 23) ^
                 grain_tap_(g, 13) ^ grain_tap_(g, 0);
    g->bit[g->head] = (uint8_t)b;
    g->head = (g->head + 1) % GRAIN_BITS;
    return b;
}

/* Self-shrinking output: pairs of steps until the first of a pair is 1,
 * whose second bit is the output. */
static unsigned grain_output_bit_(grain_lfsr *g) {
    for (;;) {
        unsigned first = grain_step_(g);
        unsigned second = grain_step_(g);
        if (first) return second;
    }
}

static void grain_seed_(grain_lfsr *g, unsigned t, unsigned r_f, unsigned r_p) {
    const struct {
        unsigned value, bits;
    } fields[] = {
        {1, 2},   /* a prime field */
        {1, 4},   /* the x^alpha S-box with alpha > 0 */
        {255, 12}, /* the bit size of r */
        {t, 12},  {r_f, 10}, {r_p, 10},
    };
    unsigned n = 0;
    for (size_t f = 0; f < sizeof fields / sizeof fields[0]; f++)
        for (unsigned i = fields[f].bits; i-- > 0;) g->bit[n++] = (uint8_t)((fields[f].value >> i) & 1);
    while (n < GRAIN_BITS) g->bit[n++] = 1;
    g->head = 0;
    for (unsigned i = 0; i < 2 * GRAIN_BITS; i++) (void)grain_step_(g);
}

void zkp_poseidon_grain_constants(fr_t *out, unsigned t, unsigned r_f, unsigned r_p) {
    grain_lfsr g;
    grain_seed_(&g, t, r_f, r_p);
    size_t count = (size_t)(r_f + r_p) * t;
    for (size_t k = 0; k < count;) {
        /* 255 bits, the first one the most significant: one bit short of 32
         * big-endian bytes, so the leading byte takes 7. */
        uint8_t be[32] = {0};
        for (unsigned i = 1; i < 256; i++) be[i / 8] |= (uint8_t)(grain_output_bit_(&g) << (7 - i % 8));
        if (bls12_381_fr_from_bytes_be(&out[k], be) == ZKPIPE_OK) k++;
    }
}

/* ------------------------------------------------------------ matrices */

void zkp_poseidon_cauchy_mds(fr_t *m, unsigned t) {
    for (unsigned i = 0; i < t; i++)
        for (unsigned j = 0; j < t; j++) {
            fr_t sum;
            bls12_381_fr_set_u64(&sum, (uint64_t)i + t + j);
            bls12_381_fr_inv_var(&m[i * t + j], &sum);
        }
}

void zkp_poseidon_matrix_mul(fr_t *r, const fr_t *a, const fr_t *b, unsigned n) {
    for (unsigned i = 0; i < n; i++)
        for (unsigned j = 0; j < n; j++) {
            fr_t acc, prod;
            bls12_381_fr_set_zero(&acc);
            for (unsigned k = 0; k < n; k++) {
                bls12_381_fr_mul(&prod, &a[i * n + k], &b[k * n + j]);
                bls12_381_fr_add(&acc, &acc, &prod);
            }
            r[i * n + j] = acc;
        }
}

void zkp_poseidon_matrix_apply(fr_t *r, const fr_t *m, const fr_t *v, unsigned n) {
    for (unsigned i = 0; i < n; i++) {
        fr_t acc, prod;
        bls12_381_fr_set_zero(&acc);
        for (unsigned k = 0; k < n; k++) {
            bls12_381_fr_mul(&prod, &m[i * n + k], &v[k]);
            bls12_381_fr_add(&acc, &acc, &prod);
        }
        r[i] = acc;
    }
}

static fr_t *matrix_new_(unsigned n) { return malloc((size_t)n * n * sizeof(fr_t)); }

/* Gauss-Jordan elimination of a (n x n) against the k right-hand columns
 * of b (n x k), both row-major and both overwritten: on success a is the
 * identity and b is a^-1 * b. */
static zkpipe_status eliminate_(fr_t *a, fr_t *b, unsigned n, unsigned k) {
    for (unsigned c = 0; c < n; c++) {
        unsigned pivot = c;
        while (pivot < n && bls12_381_fr_is_zero(&a[pivot * n + c])) pivot++;
        if (pivot == n) return ZKPIPE_ERR_NOT_INVERTIBLE;
        if (pivot != c) {
            for (unsigned j = 0; j < n; j++) {
                fr_t x = a[c * n + j];
                a[c * n + j] = a[pivot * n + j];
                a[pivot * n + j] = x;
            }
            for (unsigned j = 0; j < k; j++) {
                fr_t x = b[c * k + j];
                b[c * k + j] = b[pivot * k + j];
                b[pivot * k + j] = x;
            }
        }
        fr_t scale;
        bls12_381_fr_inv_var(&scale, &a[c * n + c]);
        /* Columns left of c are already zero in the pivot row. */
        for (unsigned j = c; j < n; j++) bls12_381_fr_mul(&a[c * n + j], &a[c * n + j], &scale);
        for (unsigned j = 0; j < k; j++) bls12_381_fr_mul(&b[c * k + j], &b[c * k + j], &scale);
        for (unsigned i = 0; i < n; i++) {
            if (i == c || bls12_381_fr_is_zero(&a[i * n + c])) continue;
            fr_t factor = a[i * n + c], prod;
            for (unsigned j = c; j < n; j++) {
                bls12_381_fr_mul(&prod, &factor, &a[c * n + j]);
                bls12_381_fr_sub(&a[i * n + j], &a[i * n + j], &prod);
            }
            for (unsigned j = 0; j < k; j++) {
                bls12_381_fr_mul(&prod, &factor, &b[c * k + j]);
                bls12_381_fr_sub(&b[i * k + j], &b[i * k + j], &prod);
            }
        }
    }
    return ZKPIPE_OK;
}

zkpipe_status zkp_poseidon_matrix_invert(fr_t *inv, const fr_t *m, unsigned n) {
    fr_t *a = matrix_new_(n);
    if (!a) return ZKPIPE_ERR_NO_MEMORY;
    memcpy(a, m, (size_t)n * n * sizeof(fr_t));
    for (unsigned i = 0; i < n; i++)
        for (unsigned j = 0; j < n; j++) {
            if (i == j)
                bls12_381_fr_set_one(&inv[i * n + j]);
            else
                bls12_381_fr_set_zero(&inv[i * n + j]);
        }
    zkpipe_status st = eliminate_(a, inv, n, n);
    free(a);
    return st;
}

/* ------------------------------------------------------------ the optimised form */

void zkp_poseidon_compress_round_constants(fr_t *out, const fr_t *rc, const fr_t *mds_inv, unsigned t,
                                           unsigned r_f, unsigned r_p) {
    const unsigned half = r_f / 2;
    const fr_t *round = rc; /* round r's constants are round + r * t */
    fr_t acc[ZKP_POSEIDON_MAX_WIDTH], moved[ZKP_POSEIDON_MAX_WIDTH];

    /* Before the first S-box layer: round 0's constants as they are. */
    memcpy(out, round, t * sizeof(fr_t));
    out += t;
    /* After the S-boxes of full rounds 0 .. half - 2: the next round's
     * constants, moved back through that round's M. */
    for (unsigned r = 1; r < half; r++, out += t) zkp_poseidon_matrix_apply(out, mds_inv, round + r * t, t);

    /* The partial rounds, from the last back to the first. acc holds what
     * must be added to the state entering partial round k + 1; moved back
     * through round k's M it is an addition after round k's S-box, which
     * only element 0 passes through: element 0's share stays in round k as
     * its scalar, the rest joins round k's own constants (added before its
     * S-box, where they pass through untouched) and keeps moving back. */
    fr_t *scalars = out + t; /* after the post-S-box constants of round half - 1 */
    memcpy(acc, round + (size_t)(half + r_p) * t, t * sizeof(fr_t));
    for (unsigned k = r_p; k-- > 0;) {
        zkp_poseidon_matrix_apply(moved, mds_inv, acc, t);
        scalars[k] = moved[0];
        bls12_381_fr_set_zero(&moved[0]);
        for (unsigned i = 0; i < t; i++) bls12_381_fr_add(&acc[i], &moved[i], &round[(size_t)(half + k) * t + i]);
    }
    /* What reaches the first partial round is added after the S-boxes of
     * full round half - 1. */
    zkp_poseidon_matrix_apply(out, mds_inv, acc, t);
    out += t + r_p;

    /* After the S-boxes of the last full rounds but the very last. */
    for (unsigned r = half + r_p + 1; r < r_f + r_p; r++, out += t)
        zkp_poseidon_matrix_apply(out, mds_inv, round + (size_t)r * t, t);
}

zkpipe_status zkp_poseidon_factor_sparse(fr_t *pre_sparse, fr_t *w_hat, fr_t *v_rest, const fr_t *base, unsigned t,
                                         unsigned n) {
    const unsigned h = t - 1; /* the size of the minor */
    fr_t *curr = matrix_new_(t), *prime = matrix_new_(t), *minor = matrix_new_(h);
    zkpipe_status st = ZKPIPE_ERR_NO_MEMORY;
    if (!curr || !prime || !minor) goto done;
    st = ZKPIPE_OK;
    memcpy(curr, base, (size_t)t * t * sizeof(fr_t));
    /* curr = P * S: P = [[1, 0], [0, curr's minor]] and S = [[curr[0][0],
     * v], [minor^-1 * w, I]], with v the rest of row 0 and w the rest of
     * column 0; so S's first column is curr[0][0] followed by minor^-1 * w. */
    for (unsigned step = 0; step < n; step++) {
        unsigned k = n - 1 - step; /* the partial round this S belongs to */
        for (unsigned i = 0; i < h; i++)
            for (unsigned j = 0; j < h; j++) minor[i * h + j] = curr[(i + 1) * t + (j + 1)];
        /* minor^-1 * w, by solving minor * x = w rather than inverting. */
        fr_t *w = &w_hat[(size_t)k * t];
        w[0] = curr[0];
        for (unsigned i = 0; i < h; i++) w[i + 1] = curr[(i + 1) * t];
        st = eliminate_(minor, w + 1, h, 1);
        if (st != ZKPIPE_OK) goto done;
        memcpy(&v_rest[(size_t)k * h], &curr[1], h * sizeof(fr_t));

        for (unsigned i = 0; i < t; i++)
            for (unsigned j = 0; j < t; j++) {
                if (i == 0 || j == 0) {
                    if (i == j)
                        bls12_381_fr_set_one(&prime[0]);
                    else
                        bls12_381_fr_set_zero(&prime[i * t + j]);
                } else {
                    prime[i * t + j] = curr[i * t + j];
                }
            }
        zkp_poseidon_matrix_mul(curr, base, prime, t);
    }
    memcpy(pre_sparse, curr, (size_t)t * t * sizeof(fr_t));
done:
    free(curr);
    free(prime);
    free(minor);
    return st;
}
