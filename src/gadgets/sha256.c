/* The SHA-256 circuit (see sha256.h). */
#include "gadgets/sha256.h"

#include <stdlib.h>
#include <string.h>

#include "hash/sha256.h"

/* An operand list whose sum is computed only when needed (a and e between
 * rounds): concrete is the word itself when n == 0. */
typedef struct {
    zkp_u32 ops[8];
    size_t n;
    zkp_u32 concrete;
} pending_t;

static zkp_u32 pending_compute_(zkp_multieq *m, pending_t *p, const zkp_u32 *extra) {
    if (p->n == 0) return p->concrete;
    if (extra) p->ops[p->n++] = *extra;
    return zkp_u32_addmany(m, p->ops, p->n);
}

static zkp_u32 xor3_rot_(zkp_cs *cs, const zkp_u32 *x, unsigned r1, unsigned r2, unsigned r3,
                         int last_is_shift) {
    zkp_u32 a = zkp_u32_rotr(x, r1), b = zkp_u32_rotr(x, r2);
    zkp_u32 c = last_is_shift ? zkp_u32_shr(x, r3) : zkp_u32_rotr(x, r3);
    zkp_u32 t = zkp_u32_xor(cs, &a, &b);
    return zkp_u32_xor(cs, &t, &c);
}

void zkp_sha256_gadget_compress(zkp_cs *cs, const zkp_bool block[512], const zkp_u32 cur[8],
                                zkp_u32 out[8]) {
    zkp_u32 w[64];
    for (int i = 0; i < 16; i++) w[i] = zkp_u32_from_bits_be(&block[32 * i]);
    zkp_multieq m;
    zkp_multieq_init(&m, cs);
    for (int i = 16; i < 64; i++) {
        zkp_u32 s0 = xor3_rot_(cs, &w[i - 15], 7, 18, 3, 1);
        zkp_u32 s1 = xor3_rot_(cs, &w[i - 2], 17, 19, 10, 1);
        zkp_u32 ops[4] = {w[i - 16], s0, w[i - 7], s1};
        w[i] = zkp_u32_addmany(&m, ops, 4);
    }

    pending_t a = {.n = 0, .concrete = cur[0]};
    pending_t e = {.n = 0, .concrete = cur[4]};
    zkp_u32 b = cur[1], c = cur[2], d = cur[3], f = cur[5], g = cur[6], h = cur[7];
    for (int i = 0; i < 64; i++) {
        zkp_u32 new_e = pending_compute_(&m, &e, NULL);
        zkp_u32 s1 = xor3_rot_(cs, &new_e, 6, 11, 25, 0);
        zkp_u32 ch = zkp_u32_sha256_ch(cs, &new_e, &f, &g);
        zkp_u32 new_a = pending_compute_(&m, &a, NULL);
        zkp_u32 s0 = xor3_rot_(cs, &new_a, 2, 13, 22, 0);
        zkp_u32 maj = zkp_u32_sha256_maj(cs, &new_a, &b, &c);
        zkp_u32 k = zkp_u32_const(zkp_sha256_k[i]);
        /* temp1 = h + S1 + ch + k + w[i]; e = temp1 + d; a = temp1 + S0 + maj */
        zkp_u32 temp1[5] = {h, s1, ch, k, w[i]};
        h = g;
        g = f;
        f = new_e;
        memcpy(e.ops, temp1, sizeof temp1);
        e.ops[5] = d;
        e.n = 6;
        d = c;
        c = b;
        b = new_a;
        memcpy(a.ops, temp1, sizeof temp1);
        a.ops[5] = s0;
        a.ops[6] = maj;
        a.n = 7;
    }
    out[0] = pending_compute_(&m, &a, &cur[0]);
    zkp_u32 pair[2];
    pair[0] = cur[1], pair[1] = b, out[1] = zkp_u32_addmany(&m, pair, 2);
    pair[0] = cur[2], pair[1] = c, out[2] = zkp_u32_addmany(&m, pair, 2);
    pair[0] = cur[3], pair[1] = d, out[3] = zkp_u32_addmany(&m, pair, 2);
    out[4] = pending_compute_(&m, &e, &cur[4]);
    pair[0] = cur[5], pair[1] = f, out[5] = zkp_u32_addmany(&m, pair, 2);
    pair[0] = cur[6], pair[1] = g, out[6] = zkp_u32_addmany(&m, pair, 2);
    pair[0] = cur[7], pair[1] = h, out[7] = zkp_u32_addmany(&m, pair, 2);
    zkp_multieq_finish(&m);
}

static void iv_(zkp_u32 iv[8]) {
    for (int i = 0; i < 8; i++) iv[i] = zkp_u32_const(zkp_sha256_iv[i]);
}

static void digest_bits_(const zkp_u32 state[8], zkp_bool digest[256]) {
    for (int i = 0; i < 8; i++) zkp_u32_to_bits_be(&state[i], &digest[32 * i]);
}

void zkp_sha256_gadget_block_no_padding(zkp_cs *cs, const zkp_bool block[512],
                                        zkp_bool digest[256]) {
    zkp_u32 iv[8], out[8];
    iv_(iv);
    zkp_sha256_gadget_compress(cs, block, iv, out);
    digest_bits_(out, digest);
}

void zkp_sha256_gadget(zkp_cs *cs, const zkp_bool *input, size_t n_bits, zkp_bool digest[256]) {
    if (n_bits % 8 != 0 || n_bits > SIZE_MAX / 2 - 1024) {
        if (cs->status == ZKPIPE_OK) cs->status = ZKPIPE_ERR_INVALID_ARGUMENT;
        return;
    }
    /* message, a one bit, zeros to 448 mod 512, the 64-bit big-endian length */
    size_t padded_bits = (n_bits + 1 + 64 + 511) / 512 * 512;
    zkp_bool *padded = malloc(padded_bits * sizeof *padded);
    if (!padded) {
        if (cs->status == ZKPIPE_OK) cs->status = ZKPIPE_ERR_NO_MEMORY;
        return;
    }
    if (n_bits) memcpy(padded, input, n_bits * sizeof *padded);
    padded[n_bits] = zkp_bool_const(1);
    for (size_t i = n_bits + 1; i < padded_bits - 64; i++) padded[i] = zkp_bool_const(0);
    for (int i = 0; i < 64; i++)
        padded[padded_bits - 64 + (size_t)i] =
            zkp_bool_const((int)(((uint64_t)n_bits >> (63 - i)) & 1));
    zkp_u32 state[8];
    iv_(state);
    for (size_t blk = 0; blk < padded_bits / 512; blk++) {
        zkp_u32 next[8];
        zkp_sha256_gadget_compress(cs, &padded[512 * blk], state, next);
        memcpy(state, next, sizeof state);
    }
    free(padded);
    digest_bits_(state, digest);
}
