/* bellperson's .vk, .params and 192-byte proofs (formats/bellperson.h).
 *
 * Known answers from outside zkpipe: the proofs of rust-fil-proofs' v16
 * seal regression records (tests/fixtures/filecoin/, made by bellperson for
 * real 2 KiB sectors) must decode, pass every check and encode back to the
 * same bytes; the layout's offsets and sizes are the ones of
 * ../shared FACTS §1 (868 + 96·n bytes for a .vk, big-endian lengths). Keys
 * come from the synthetic generator (src/synthetic), written as .params and
 * read back: the sections equal the key's points, and a proof made with the
 * key verifies under the verifying key read from the file. */
#define _GNU_SOURCE
#include <stdlib.h>
#include <unistd.h>

#include "curve/curve.h"
#include "curve/encoding.h"
#include "formats/bellperson.h"
#include "formats/wtns.h"
#include "formats/zkey.h"
#include "mem/mem.h"
#include "ntt/bls12_381_ntt.h"
#include "synthetic/synthetic.h"
#include "test.h"
#include "test_support.h"
#include "util/fileio.h"

#define RECORDS "fixtures/filecoin/seal_regression_records-v16-2KiB.jsonl"
#define N_RECORDS 8

/* The proof bytes of each record line (a JSON array of 192 integers). */
static void load_record_proofs(uint8_t proofs[N_RECORDS][ZKP_BP_PROOF_BYTES]) {
    char *text = NULL;
    size_t len = 0;
    zkp_diag d = {{0}};
    ASSERT_MSG(zkp_read_file(test_data_path(RECORDS), 1 << 20, &text, &len, &d) == ZKPIPE_OK,
               "%s", d.msg);
    size_t n = 0;
    for (char *line = text; *line && n < N_RECORDS;) {
        char *end = strchr(line, '\n');
        size_t line_len = end ? (size_t)(end - line) : strlen(line);
        zkp_json *root = NULL;
        ASSERT_OK(zkp_json_parse(&root, line, line_len, NULL));
        const zkp_json *arr = zkp_json_get(root, "proof");
        ASSERT(arr != NULL);
        ASSERT_EQ_U64(zkp_json_len(arr), ZKP_BP_PROOF_BYTES);
        for (size_t i = 0; i < ZKP_BP_PROOF_BYTES; i++) {
            long v = strtol(zkp_json_number_text(zkp_json_at(arr, i)), NULL, 10);
            ASSERT(v >= 0 && v <= 255);
            proofs[n][i] = (uint8_t)v;
        }
        const zkp_json *cfg = zkp_json_get(root, "porep_config");
        ASSERT_STR_EQ(zkp_json_number_text(zkp_json_get(cfg, "sector_size")), "2048");
        zkp_json_free(root);
        n++;
        line += line_len + (end != NULL);
    }
    ASSERT_EQ_U64(n, N_RECORDS);
    free(text);
}

/* Every proof bellperson made decodes with every check (flags, curve,
 * subgroup, no identity), and encodes back to its bytes; so does the eight
 * of them as one multi-partition proof. */
TEST_CASE(bellperson_proof_regression_records_decode) {
    uint8_t raw[N_RECORDS][ZKP_BP_PROOF_BYTES];
    load_record_proofs(raw);
    zkp_diag d = {{0}};
    bls12_381_g16_proof_t proofs[N_RECORDS];
    for (int i = 0; i < N_RECORDS; i++) {
        ASSERT_MSG(zkp_bp_proof_decode(&proofs[i], raw[i], &d) == ZKPIPE_OK, "record %d: %s", i,
                   d.msg);
        /* The points were decompressed and checked, not just copied. */
        ASSERT(bls12_381_g1_affine_is_on_curve(&proofs[i].a));
        ASSERT(bls12_381_g1_affine_in_subgroup_var(&proofs[i].c));
        ASSERT(bls12_381_g2_affine_in_subgroup_var(&proofs[i].b));
        uint8_t back[ZKP_BP_PROOF_BYTES];
        ASSERT_OK(zkp_bp_proof_encode(back, &proofs[i], &d));
        ASSERT_MEM_EQ(back, raw[i], ZKP_BP_PROOF_BYTES);
    }
    bls12_381_g16_proof_t many[N_RECORDS + 1];
    size_t n = 0;
    ASSERT_MSG(zkp_bp_proofs_decode(many, N_RECORDS + 1, &n, &raw[0][0], sizeof raw, &d) ==
                   ZKPIPE_OK,
               "%s", d.msg);
    ASSERT_EQ_U64(n, N_RECORDS);
    for (int i = 0; i < N_RECORDS; i++) ASSERT(memcmp(&many[i], &proofs[i], sizeof many[i]) == 0);
    /* Not a whole number of partitions; more partitions than room. */
    ASSERT_EQ_STATUS(zkp_bp_proofs_decode(many, N_RECORDS, &n, &raw[0][0], sizeof raw - 1, &d),
                     ZKPIPE_ERR_BAD_ENCODING);
    ASSERT_EQ_STATUS(zkp_bp_proofs_decode(many, 2, &n, &raw[0][0], sizeof raw, &d),
                     ZKPIPE_ERR_OUT_OF_RANGE);
    ASSERT_EQ_STATUS(zkp_bp_proofs_decode(many, 2, &n, &raw[0][0], 0, &d),
                     ZKPIPE_ERR_BAD_ENCODING);
}

/* Corrupted proofs are rejected, and the message names the point; a bad
 * partition of several is named too. */
TEST_CASE(bellperson_proof_corruption_rejected) {
    uint8_t raw[N_RECORDS][ZKP_BP_PROOF_BYTES];
    load_record_proofs(raw);
    zkp_diag d = {{0}};
    bls12_381_g16_proof_t proof;
    static const struct {
        size_t offset;
        const char *point;
    } points[] = {{0, "A"}, {48, "B"}, {144, "C"}};
    for (size_t k = 0; k < ZKP_ARRAY_LEN(points); k++) {
        uint8_t bad[ZKP_BP_PROOF_BYTES];
        char want[8];
        snprintf(want, sizeof want, "%s (", points[k].point);
        size_t at = points[k].offset;
        size_t width = k == 1 ? 96 : 48;

        /* The compression flag cleared: a 48/96-byte uncompressed point
         * cannot be. */
        memcpy(bad, raw[k], sizeof bad);
        bad[at] &= 0x7f;
        ASSERT_EQ_STATUS(zkp_bp_proof_decode(&proof, bad, &d), ZKPIPE_ERR_BAD_ENCODING);
        ASSERT_MSG(strstr(d.msg, want) != NULL, "%s", d.msg);

        /* The identity, correctly encoded, is still refused. */
        memset(bad + at, 0, width);
        bad[at] = 0xc0;
        ASSERT_EQ_STATUS(zkp_bp_proof_decode(&proof, bad, &d), ZKPIPE_ERR_BAD_ENCODING);
        ASSERT_MSG(strstr(d.msg, "infinity") != NULL && strstr(d.msg, want) != NULL, "%s", d.msg);

        /* x = p: not canonical. */
        memcpy(bad, raw[k], sizeof bad);
        static const char p_hex[] =
            "1a0111ea397fe69a4b1ba7b6434bacd764774b84f38512bf6730d2a0f6b0f6241eabfffeb153ffffb9feff"
            "ffffffaaab";
        test_hex_to_be(bad + at + (k == 1 ? 48 : 0), 48, p_hex);
        bad[at] |= 0x80;
        ASSERT_EQ_STATUS(zkp_bp_proof_decode(&proof, bad, &d), ZKPIPE_ERR_NON_CANONICAL);

        /* Flipping low bits of x moves it off the curve (no square root) or
         * onto a point outside the subgroup (the cofactor is large): both
         * must be refused, and some of the flips reach the subgroup check. */
        unsigned not_in_subgroup = 0;
        for (unsigned bit = 0; bit < 24; bit++) {
            memcpy(bad, raw[k], sizeof bad);
            bad[at + 47 - bit / 8] ^= (uint8_t)(1u << (bit % 8));
            zkpipe_status st = zkp_bp_proof_decode(&proof, bad, &d);
            ASSERT_MSG(st == ZKPIPE_ERR_NOT_ON_CURVE || st == ZKPIPE_ERR_NOT_IN_SUBGROUP,
                       "point %s, bit %u: %s", points[k].point, bit, zkpipe_status_name(st));
            ASSERT_MSG(strstr(d.msg, want) != NULL, "%s", d.msg);
            not_in_subgroup += st == ZKPIPE_ERR_NOT_IN_SUBGROUP;
        }
        ASSERT(not_in_subgroup > 0);
    }
    /* Partition 5 of 8 broken. */
    raw[5][150] ^= 1;
    bls12_381_g16_proof_t many[N_RECORDS];
    size_t n = 7;
    ASSERT(zkp_bp_proofs_decode(many, N_RECORDS, &n, &raw[0][0], sizeof raw, &d) != ZKPIPE_OK);
    ASSERT_MSG(strstr(d.msg, "partition 5 of 8") != NULL, "%s", d.msg);
    ASSERT_EQ_U64(n, 0);
}

/* ---- keys */

typedef struct {
    uint8_t *zkey_bytes;
    size_t zkey_len;
    zkp_zkey key;
    bls12_381_g16_pk_t *pk;
} synth_key;

static void synth_key_free(void *arg) {
    synth_key *k = arg;
    zkp_zkey_free(&k->key);
    free(k->zkey_bytes);
    free(k);
}

/* On the heap: the hook that frees it runs after the case has returned. */
static synth_key *synth_key_make(unsigned log_n) {
    synth_key *k = calloc(1, sizeof *k);
    ASSERT(k);
    zkp_synthetic_params p = {ZKPIPE_CURVE_BLS12_381, log_n, 0xf11ec0123ull + log_n, 2};
    zkp_diag d = {{0}};
    ASSERT_MSG(zkp_synthetic_zkey(&p, &k->zkey_bytes, &k->zkey_len, &d) == ZKPIPE_OK, "%s", d.msg);
    test_defer(synth_key_free, k);
    zkp_zkey_options ko = {NULL, 2, 0};
    ASSERT_MSG(zkp_zkey_parse(&k->key, k->zkey_bytes, k->zkey_len, "synthetic", &ko, &d) ==
                   ZKPIPE_OK,
               "%s", d.msg);
    k->pk = &k->key.pk.bls12_381;
    return k;
}

/* A .params source from a zkpipe key without converting its H query (in
 * snarkjs's coset basis, groth16.h): for the tests of the layout alone,
 * which use its first domain − 1 points only as points to carry. */
static void src_from_pk(zkp_bp_params_src *src, zkp_bp_vk *vk, const bls12_381_g16_pk_t *pk) {
    zkp_bp_vk_from_g16_pk(vk, pk);
    memset(src, 0, sizeof *src);
    src->vk = vk;
    src->h = pk->h;
    src->n_h = pk->domain_size - 1;
    src->l = pk->c;
    src->n_l = pk->n_vars - pk->n_public - 1;
    src->a = pk->a;
    src->b_g1 = pk->b1;
    src->b_g2 = pk->b2;
    src->n_vars = pk->n_vars;
}

static uint8_t *encode_params(const zkp_bp_params_src *src, size_t *len) {
    zkp_diag d = {{0}};
    ASSERT_MSG(zkp_bp_params_size(src, len, &d) == ZKPIPE_OK, "%s", d.msg);
    uint8_t *buf = malloc(*len);
    ASSERT(buf);
    ASSERT_MSG(zkp_bp_params_encode(buf, *len, src, &d) == ZKPIPE_OK, "%s", d.msg);
    return buf;
}

static uint32_t be32_at(const uint8_t *p) {
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* The .vk layout of FACTS §1.1 and its checks. */
TEST_CASE(bellperson_vk_layout_round_trip_and_rejects) {
    synth_key *k = synth_key_make(4);
    zkp_bp_vk vk;
    zkp_bp_vk_from_g16_pk(&vk, k->pk);
    ASSERT_EQ_U64(vk.n_ic, 3); /* the constant one, out, x_0 */
    const size_t len = 868 + 96 * 3;
    ASSERT_EQ_U64(zkp_bp_vk_bytes(3), len);
    uint8_t *buf = malloc(len + 1);
    ASSERT(buf);
    zkp_diag d = {{0}};
    ASSERT_OK(zkp_bp_vk_encode(buf, len, &vk, &d));
    /* Offsets: alpha_g1 at 0, beta_g1 at 96, beta_g2 at 192, gamma_g2 at
     * 384, delta_g1 at 576, delta_g2 at 672, ic_len at 864 (big-endian). */
    uint8_t g1[96], g2[192];
    bls12_381_g1_affine_serialize(g1, &k->pk->beta1);
    ASSERT_MEM_EQ(buf + 96, g1, 96);
    bls12_381_g2_affine_serialize(g2, &k->pk->gamma2);
    ASSERT_MEM_EQ(buf + 384, g2, 192);
    bls12_381_g1_affine_serialize(g1, &k->pk->delta1);
    ASSERT_MEM_EQ(buf + 576, g1, 96);
    ASSERT_EQ_U64(be32_at(buf + 864), 3);
    bls12_381_g1_affine_serialize(g1, &k->pk->ic[2]);
    ASSERT_MEM_EQ(buf + 868 + 2 * 96, g1, 96);

    zkp_bp_vk back;
    size_t used = 0;
    ASSERT_MSG(zkp_bp_vk_parse(&back, buf, len, 1, &used, "k.vk", NULL, &d) == ZKPIPE_OK, "%s",
               d.msg);
    ASSERT_EQ_U64(used, len);
    ASSERT(bls12_381_g2_affine_eq(&back.delta_g2, &k->pk->delta2));
    ASSERT(bls12_381_g1_affine_eq(&back.alpha_g1, &k->pk->alpha1));
    for (unsigned i = 0; i < 3; i++) ASSERT(bls12_381_g1_affine_eq(&back.ic[i], &k->pk->ic[i]));
    uint8_t *again = malloc(len);
    ASSERT(again);
    ASSERT_OK(zkp_bp_vk_encode(again, len, &back, &d));
    ASSERT_MEM_EQ(again, buf, len);
    zkp_bp_vk_free(&back);

    /* Every truncation fails; one byte more fails for a .vk but not as a
     * prefix. */
    for (size_t cut = 0; cut < len; cut += (cut < 900 ? 97 : 1)) {
        zkpipe_status st = zkp_bp_vk_parse(&back, buf, cut, 1, NULL, "k.vk", NULL, &d);
        ASSERT_MSG(st == ZKPIPE_ERR_TRUNCATED, "cut %zu: %s", cut, zkpipe_status_name(st));
        ASSERT(back.ic == NULL);
    }
    buf[len] = 0;
    ASSERT_EQ_STATUS(zkp_bp_vk_parse(&back, buf, len + 1, 1, NULL, "k.vk", NULL, &d),
                     ZKPIPE_ERR_SECTION_SIZE);
    ASSERT_OK(zkp_bp_vk_parse(&back, buf, len + 1, 0, &used, "k.vk", NULL, &d));
    ASSERT_EQ_U64(used, len);
    zkp_bp_vk_free(&back);

    /* ic_len 0; an ic point at infinity; a fixed point at infinity is
     * allowed (bellperson reads it). */
    memcpy(again, buf, len);
    memset(again + 864, 0, 4);
    ASSERT_EQ_STATUS(zkp_bp_vk_parse(&back, again, 868, 1, NULL, "k.vk", NULL, &d),
                     ZKPIPE_ERR_OUT_OF_RANGE);
    memcpy(again, buf, len);
    memset(again + 868 + 96, 0, 96);
    again[868 + 96] = 0x40;
    ASSERT_EQ_STATUS(zkp_bp_vk_parse(&back, again, len, 1, NULL, "k.vk", NULL, &d),
                     ZKPIPE_ERR_BAD_ENCODING);
    ASSERT_MSG(strstr(d.msg, "ic point 1 of 3") && strstr(d.msg, "infinity"), "%s", d.msg);
    memcpy(again, buf, len);
    memset(again + 96, 0, 96);
    again[96] = 0x40;
    ASSERT_OK(zkp_bp_vk_parse(&back, again, len, 1, NULL, "k.vk", NULL, &d));
    ASSERT(bls12_381_g1_affine_is_infinity(&back.beta_g1));
    zkp_bp_vk_free(&back);
    /* A bit flipped in gamma_g2's x: refused, naming it. */
    memcpy(again, buf, len);
    again[384 + 100] ^= 4;
    ASSERT(zkp_bp_vk_parse(&back, again, len, 1, NULL, "k.vk", NULL, &d) != ZKPIPE_OK);
    ASSERT_MSG(strstr(d.msg, "gamma_g2") != NULL, "%s", d.msg);
    /* An ic identity cannot be written. */
    bls12_381_g1_affine_t ic[3];
    memcpy(ic, k->pk->ic, sizeof ic);
    bls12_381_g1_affine_set_infinity(&ic[2]);
    vk.ic = ic;
    ASSERT_EQ_STATUS(zkp_bp_vk_encode(again, len, &vk, &d), ZKPIPE_ERR_INVALID_ARGUMENT);
    free(again);
    free(buf);
}

typedef struct {
    zkp_mem_tracker *tracker;
    zkp_mem_pool *pool;
    zkp_mem_budget *budget;
    zkp_mem_reservation *r;
    char dir[64];
    char params[96], vk[96];
} params_rig;

static void params_rig_close(void *arg) {
    params_rig *rig = arg;
    unlink(rig->params);
    unlink(rig->vk);
    rmdir(rig->dir);
    if (rig->r) ASSERT_OK(zkp_mem_release(&rig->r));
    if (rig->budget) ASSERT_OK(zkp_mem_budget_destroy(&rig->budget));
    if (rig->pool) ASSERT_OK(zkp_mem_pool_destroy(&rig->pool));
    if (rig->tracker) ASSERT_OK(zkp_mem_tracker_destroy(&rig->tracker));
    free(rig);
}

static uint64_t key_live_bytes(const params_rig *rig) {
    zkp_mem_snapshot snap;
    ASSERT_OK(zkp_mem_tracker_snapshot(rig->tracker, &snap));
    return snap.cat[ZKP_MEM_KEY].live_bytes;
}

/* Proves witness 0 of the synthetic key and verifies the proof with vk. */
static zkpipe_status prove_then_verify(const synth_key *k, unsigned log_n, const zkp_g16_vk *vk) {
    zkp_synthetic_params p = {ZKPIPE_CURVE_BLS12_381, log_n, 0xf11ec0123ull + log_n, 2};
    zkp_diag d = {{0}};
    uint8_t *wbytes = NULL;
    size_t wlen = 0;
    ASSERT_MSG(zkp_synthetic_wtns(&p, 0, &wbytes, &wlen, &d) == ZKPIPE_OK, "%s", d.msg);
    zkp_wtns w;
    ASSERT_MSG(zkp_wtns_parse(&w, wbytes, wlen, "w", NULL, &d) == ZKPIPE_OK, "%s", d.msg);
    zkp_g16_public pub = {ZKPIPE_CURVE_BLS12_381, 2, malloc(64)};
    ASSERT(pub.values);
    memcpy(pub.values, w.values + 4, 64);
    zkp_g16_pk pk;
    zkp_zkey_pk(&k->key, &pk);
    zkp_buffer wb = {w.values, w.values_bytes, ZKP_MEM_WITNESS, w.alloc};
    w.values = NULL;
    zkp_g16_pending *pend = NULL;
    zkp_g16_proof proof;
    zkp_g16_prove_opts o = {.nthreads = 2};
    ASSERT_MSG(zkp_g16_prove_start(&pend, &pk, &wb, &o, &d) == ZKPIPE_OK, "%s", d.msg);
    ASSERT_MSG(zkp_g16_prove_finalize(&proof, pend, NULL, &d) == ZKPIPE_OK, "%s", d.msg);
    /* Through the 192-byte form and back. */
    uint8_t bytes[ZKP_BP_PROOF_BYTES];
    ASSERT_OK(zkp_bp_proof_encode(bytes, &proof.u.bls12_381, &d));
    ASSERT_MSG(zkp_bp_proof_decode(&proof.u.bls12_381, bytes, &d) == ZKPIPE_OK, "%s", d.msg);
    zkpipe_status st = zkp_g16_verify(vk, &pub, &proof, &d);
    /* The verifier must care: a wrong public input fails. */
    pub.values[0] ^= 1;
    ASSERT_EQ_STATUS(zkp_g16_verify(vk, &pub, &proof, &d), ZKPIPE_ERR_PROOF_INVALID);
    zkp_g16_public_release(&pub);
    zkp_wtns_free(&w);
    free(wbytes);
    return st;
}

/* A synthetic key written as .params and .vk files, loaded back through the
 * mapping into memory from a reservation: the section lengths are bellperson's
 * (identity columns left out of a, b_g1, b_g2), every decoded point equals
 * the key's, the decoded sections are charged as key memory and given back,
 * and a proof made with the key verifies under the loaded verifying key. */
/* A temporary directory, a budget with one 32 MiB reservation, and the
 * .params and .vk files of k (2^6 rows) written there from *src (made from
 * k with its H query converted into hq). */
static params_rig *params_rig_open(const synth_key *k, zkp_bp_vk *vk, zkp_bp_params_src *src,
                                   bls12_381_g1_affine_t hq[63]) {
    params_rig *rig = calloc(1, sizeof *rig); /* the hook runs after the case returns */
    ASSERT(rig);
    snprintf(rig->dir, sizeof rig->dir, "/tmp/zkp_bp_XXXXXX");
    ASSERT(mkdtemp(rig->dir) != NULL);
    snprintf(rig->params, sizeof rig->params, "%s/k.params", rig->dir);
    snprintf(rig->vk, sizeof rig->vk, "%s/k.vk", rig->dir);
    test_defer(params_rig_close, rig);
    zkp_diag d = {{0}};
    ASSERT_OK(zkp_mem_tracker_create(&rig->tracker));
    ASSERT_OK(zkp_mem_pool_create(&rig->pool, rig->tracker, NULL));
    zkp_mem_budget_config cfg;
    ASSERT_OK(zkp_mem_budget_config_default(&cfg));
    cfg.total_bytes = 64 << 20;
    cfg.pool = rig->pool;
    ASSERT_MSG(zkp_mem_budget_create(&rig->budget, &cfg, NULL, &d) == ZKPIPE_OK, "%s", d.msg);
    ASSERT_OK(zkp_mem_reserve(rig->budget, 32 << 20, ZKP_MEM_PRIO_NORMAL, &rig->r));
    const zkp_allocator *al = NULL;
    ASSERT_OK(zkp_mem_reservation_allocator(rig->r, &al));
    ASSERT_EQ_U64(k->pk->domain_size, 64); /* hq holds domain − 1 points */
    ASSERT_MSG(zkp_bp_params_src_from_g16_pk(src, vk, hq, k->pk, 2, al, &d) == ZKPIPE_OK, "%s",
               d.msg);
    ASSERT_MSG(zkp_bp_params_write(rig->params, src, al, &d) == ZKPIPE_OK, "%s", d.msg);
    ASSERT_MSG(zkp_bp_vk_write(rig->vk, vk, &d) == ZKPIPE_OK, "%s", d.msg);
    return rig;
}

TEST_CASE(bellperson_params_write_load_round_trip) {
    const unsigned log_n = 6;
    synth_key *k = synth_key_make(log_n);
    zkp_bp_vk vk;
    zkp_bp_params_src src;
    bls12_381_g1_affine_t hq[63]; /* (1 << log_n) - 1 */
    params_rig *rig = params_rig_open(k, &vk, &src, hq);
    zkp_diag d = {{0}};
    const zkp_allocator *al = NULL;
    ASSERT_OK(zkp_mem_reservation_allocator(rig->r, &al));

    /* Which variables have a zero column, counted on the key. */
    const uint32_t n_vars = k->pk->n_vars;
    uint32_t n_a = 0, n_b = 0;
    for (uint32_t j = 0; j < n_vars; j++) {
        n_a += !bls12_381_g1_affine_is_infinity(&k->pk->a[j]);
        n_b += !bls12_381_g1_affine_is_infinity(&k->pk->b1[j]);
        ASSERT_EQ_INT(bls12_381_g1_affine_is_infinity(&k->pk->b1[j]),
                      bls12_381_g2_affine_is_infinity(&k->pk->b2[j]));
    }
    /* The squaring chain leaves the constant one and out out of B. */
    ASSERT(n_b < n_vars);

    zkp_bp_params p;
    zkp_bp_params_options po = {al, 2, 0, NULL};
    ASSERT_MSG(zkp_bp_params_load(&p, rig->params, &po, &d) == ZKPIPE_OK, "%s", d.msg);
    const uint32_t want[ZKP_BP_SECTION_COUNT] = {(1u << log_n) - 1, n_vars - 3, n_a, n_b, n_b};
    uint64_t size = 868 + 96 * 3;
    for (int s = 0; s < ZKP_BP_SECTION_COUNT; s++) {
        ASSERT_EQ_U64(p.sec[s].count, want[s]);
        ASSERT_EQ_U64(p.sec[s].offset, size + 4);
        /* The length is big-endian right before the points. */
        ASSERT_EQ_U64(be32_at(p.data + p.sec[s].offset - 4), want[s]);
        size += 4 + (uint64_t)want[s] * (s == ZKP_BP_B_G2 ? 192 : 96);
        ASSERT(p.points[s] == NULL); /* nothing decoded yet */
    }
    ASSERT_EQ_U64(p.file_size, size);
    uint64_t key_before = key_live_bytes(rig);
    /* Checking keeps nothing. */
    zkp_bp_decode_stats stats = {0, 0};
    ASSERT_OK(zkp_bp_params_check_section(&p, ZKP_BP_B_G2, &stats, &d));
    ASSERT_EQ_U64(stats.points, n_b);
    ASSERT(p.points[ZKP_BP_B_G2] == NULL);
    ASSERT_EQ_U64(key_live_bytes(rig), key_before);

    const void *pts[ZKP_BP_SECTION_COUNT];
    for (int s = 0; s < ZKP_BP_SECTION_COUNT; s++) {
        ASSERT_MSG(zkp_bp_params_section(&p, (zkp_bp_section)s, &pts[s], &d) == ZKPIPE_OK, "%s",
                   d.msg);
        ASSERT(pts[s] != NULL);
        ASSERT_EQ_U64(p.stats[s].points, want[s]);
    }
    ASSERT(key_live_bytes(rig) >= key_before + zkp_bp_params_section_bytes(&p, ZKP_BP_H));
    const bls12_381_g1_affine_t *h = pts[ZKP_BP_H], *l = pts[ZKP_BP_L], *a = pts[ZKP_BP_A],
                                *b1 = pts[ZKP_BP_B_G1];
    const bls12_381_g2_affine_t *b2 = pts[ZKP_BP_B_G2];
    for (uint32_t i = 0; i < want[ZKP_BP_H]; i++)
        ASSERT(bls12_381_g1_affine_eq(&h[i], &hq[i]));
    for (uint32_t i = 0; i < want[ZKP_BP_L]; i++)
        ASSERT(bls12_381_g1_affine_eq(&l[i], &k->pk->c[i]));
    for (uint32_t j = 0, ia = 0, ib = 0; j < n_vars; j++) {
        if (!bls12_381_g1_affine_is_infinity(&k->pk->a[j]))
            ASSERT(bls12_381_g1_affine_eq(&a[ia++], &k->pk->a[j]));
        if (!bls12_381_g1_affine_is_infinity(&k->pk->b1[j])) {
            ASSERT(bls12_381_g1_affine_eq(&b1[ib], &k->pk->b1[j]));
            ASSERT(bls12_381_g2_affine_eq(&b2[ib++], &k->pk->b2[j]));
        }
    }
    /* The file is exactly what the encoder makes in memory. */
    size_t enc_len = 0;
    uint8_t *enc = encode_params(&src, &enc_len);
    ASSERT_EQ_U64(enc_len, p.file_size);
    ASSERT(memcmp(enc, p.data, enc_len) == 0);
    free(enc);

    zkp_g16_vk gvk;
    zkp_bp_vk_to_g16(&gvk, &p.vk);
    ASSERT_OK(prove_then_verify(k, log_n, &gvk));

    zkp_bp_vk vk_file;
    zkp_mapped_file mf;
    ASSERT_OK(zkp_mapped_file_open(&mf, rig->vk, &d));
    ASSERT_EQ_U64(mf.size, 868 + 96 * 3);
    ASSERT(memcmp(mf.data, p.data, mf.size) == 0); /* the .vk is the .params prefix */
    ASSERT_MSG(zkp_bp_vk_parse(&vk_file, mf.data, mf.size, 1, NULL, rig->vk, al, &d) == ZKPIPE_OK,
               "%s", d.msg);
    zkp_mapped_file_close(&mf);
    zkp_bp_vk_to_g16(&gvk, &vk_file);
    ASSERT_OK(prove_then_verify(k, log_n, &gvk));
    zkp_bp_vk_free(&vk_file);

    zkp_bp_params_free(&p);
    ASSERT_EQ_U64(key_live_bytes(rig), 0);
}

/* Parses bytes from a heap copy of exactly their length (so a read past the
 * end is an AddressSanitizer failure) and decodes every section. */
/* What a zkp_bp_file_pages saw: each call in order, and whether a charge
 * is to fail. */
typedef struct {
    size_t off[16], len[16];
    int charge[16];
    unsigned n, outstanding, max_outstanding;
    int refuse;
} pages_log;

static zkpipe_status pages_charge_(void *ctx, const zkp_mapped_file *mf, size_t off, size_t len) {
    pages_log *pl = ctx;
    ASSERT(mf != NULL && mf->map_base != NULL && off + len <= mf->map_len);
    ASSERT(pl->n < 16);
    pl->off[pl->n] = off, pl->len[pl->n] = len, pl->charge[pl->n] = 1, pl->n++;
    if (++pl->outstanding > pl->max_outstanding) pl->max_outstanding = pl->outstanding;
    return pl->refuse ? ZKPIPE_ERR_NO_MEMORY : ZKPIPE_OK;
}

static void pages_discharge_(void *ctx, size_t off, size_t len) {
    pages_log *pl = ctx;
    ASSERT(pl->n < 16 && pl->outstanding > 0);
    pl->off[pl->n] = off, pl->len[pl->n] = len, pl->charge[pl->n] = 0, pl->n++;
    pl->outstanding--;
}

/* A section is decoded with its pages of the file paid for: one charge of
 * whole pages covering it before it is read, the same span discharged
 * after (in one piece here: the file is small), never two sections at
 * once; a charge that fails stops the decode with its status, nothing
 * decoded, and is discharged all the same. */
TEST_CASE(bellperson_params_sections_decoded_with_their_pages_paid_for) {
    synth_key *k = synth_key_make(6);
    zkp_bp_vk vk;
    zkp_bp_params_src src;
    bls12_381_g1_affine_t hq[63];
    params_rig *rig = params_rig_open(k, &vk, &src, hq);
    pages_log pl;
    memset(&pl, 0, sizeof pl);
    const zkp_bp_file_pages pages = {pages_charge_, pages_discharge_, &pl};
    zkp_bp_params p;
    zkp_bp_params_options po = {NULL, 2, 1, &pages};
    zkp_diag d = {{0}};
    ASSERT_MSG(zkp_bp_params_load(&p, rig->params, &po, &d) == ZKPIPE_OK, "%s", d.msg);
    ASSERT_EQ_U64(pl.n, 0); /* the header alone is read at load */
    unsigned calls = 0;
    for (int s = 0; s < ZKP_BP_SECTION_COUNT; s++) {
        const void *pts;
        ASSERT_MSG(zkp_bp_params_section(&p, (zkp_bp_section)s, &pts, &d) == ZKPIPE_OK, "%s",
                   d.msg);
        if (p.sec[s].count == 0) continue;
        ASSERT_EQ_U64(pl.n, calls + 2);
        ASSERT(pl.charge[calls] && !pl.charge[calls + 1]);
        size_t off = pl.off[calls], len = pl.len[calls];
        ASSERT_EQ_U64(pl.off[calls + 1], off);
        ASSERT_EQ_U64(pl.len[calls + 1], len);
        ASSERT_EQ_U64(off % 4096, 0);
        ASSERT(off <= p.sec[s].offset);
        uint64_t end = p.sec[s].offset + (uint64_t)p.sec[s].count * p.sec[s].elem;
        ASSERT(off + len >= end && off + len - end < 4096 + 4096 && off + len <= p.file.map_len);
        ASSERT(p.sec[s].offset - off < 4096);
        calls += 2;
    }
    ASSERT_EQ_U64(pl.max_outstanding, 1);
    ASSERT_EQ_U64(pl.outstanding, 0);
    zkp_bp_params_free(&p);

    memset(&pl, 0, sizeof pl);
    pl.refuse = 1;
    ASSERT_MSG(zkp_bp_params_load(&p, rig->params, &po, &d) == ZKPIPE_OK, "%s", d.msg);
    const void *pts = &pl;
    ASSERT_EQ_STATUS(zkp_bp_params_section(&p, ZKP_BP_L, &pts, &d), ZKPIPE_ERR_NO_MEMORY);
    ASSERT(pts == NULL && p.points[ZKP_BP_L] == NULL);
    ASSERT(strstr(d.msg, "section l") != NULL);
    ASSERT_EQ_U64(pl.n, 2);
    ASSERT_EQ_U64(pl.outstanding, 0);
    zkp_bp_params_free(&p);
}

static zkpipe_status parse_all_checking(const uint8_t *bytes, size_t len, unsigned nthreads,
                                        int curve_only, zkp_diag *d) {
    uint8_t *copy = malloc(len ? len : 1);
    ASSERT(copy);
    memcpy(copy, bytes, len);
    zkp_bp_params p;
    zkp_bp_params_options po = {NULL, nthreads, curve_only, NULL};
    zkpipe_status st = zkp_bp_params_parse(&p, copy, len, "t.params", &po, d);
    for (int s = 0; st == ZKPIPE_OK && s < ZKP_BP_SECTION_COUNT; s++) {
        const void *pts;
        st = zkp_bp_params_section(&p, (zkp_bp_section)s, &pts, d);
    }
    zkp_bp_params_free(&p);
    free(copy);
    return st;
}

static zkpipe_status parse_all(const uint8_t *bytes, size_t len, unsigned nthreads, zkp_diag *d) {
    return parse_all_checking(bytes, len, nthreads, 0, d);
}

/* Lengths are checked against the file before any point is touched; bad
 * points are found when their section is decoded, the first bad one named
 * whatever the thread count. */
TEST_CASE(bellperson_params_corruption_rejected) {
    synth_key *k = synth_key_make(4);
    zkp_bp_vk vk;
    zkp_bp_params_src src;
    src_from_pk(&src, &vk, k->pk);
    /* An l section of 300 points, more than one batch of the decoder (256),
     * all multiples of the generator. */
    enum { N_L = 300, N_H = 15 };
    bls12_381_g1_affine_t *l = malloc(N_L * sizeof *l);
    ASSERT(l);
    bls12_381_g1_jacobian_t acc, g;
    bls12_381_g1_affine_t gen;
    bls12_381_g1_generator(&gen);
    bls12_381_g1_from_affine(&g, &gen);
    acc = g;
    for (int i = 0; i < N_L; i++) {
        bls12_381_g1_to_affine(&l[i], &acc);
        bls12_381_g1_add(&acc, &acc, &g);
    }
    src.l = l;
    src.n_l = N_L;
    size_t len = 0;
    uint8_t *good = encode_params(&src, &len);
    free(l);
    zkp_diag d = {{0}};
    ASSERT_MSG(parse_all(good, len, 3, &d) == ZKPIPE_OK, "%s", d.msg);
    const size_t h_at = 868 + 96 * 3 + 4, l_at = h_at + 96 * N_H + 4;
    ASSERT_EQ_U64(be32_at(good + h_at - 4), N_H);
    ASSERT_EQ_U64(be32_at(good + l_at - 4), N_L);

    uint8_t *bad = malloc(len + 1);
    ASSERT(bad);
    /* Truncated anywhere: inside the key, a length, or a section. */
    const size_t cuts[] = {0, 100, 867, 1155, h_at - 2, l_at + 96 * 200, len - 193, len - 1};
    for (size_t i = 0; i < ZKP_ARRAY_LEN(cuts); i++) {
        zkpipe_status st = parse_all(good, cuts[i], 1, &d);
        ASSERT_MSG(st == ZKPIPE_ERR_TRUNCATED, "cut %zu: %s", cuts[i], zkpipe_status_name(st));
    }
    /* A byte more. */
    memcpy(bad, good, len);
    bad[len] = 0;
    ASSERT_EQ_STATUS(parse_all(bad, len + 1, 1, &d), ZKPIPE_ERR_SECTION_SIZE);
    /* A huge count: 2^32 − 1 points claimed. */
    memcpy(bad, good, len);
    memset(bad + h_at - 4, 0xff, 4);
    ASSERT_EQ_STATUS(parse_all(bad, len, 1, &d), ZKPIPE_ERR_TRUNCATED);
    ASSERT_MSG(strstr(d.msg, "section h") != NULL, "%s", d.msg);
    /* An h section whose length is not a domain size less one. */
    {
        size_t l2 = 0;
        bls12_381_g1_affine_t three[3] = {k->pk->h[0], k->pk->h[1], k->pk->h[2]};
        src_from_pk(&src, &vk, k->pk); /* the 300-point l above is freed */
        src.h = three;
        src.n_h = 2;
        uint8_t *odd = encode_params(&src, &l2);
        ASSERT_EQ_STATUS(parse_all(odd, l2, 1, &d), ZKPIPE_ERR_OUT_OF_RANGE);
        ASSERT_MSG(strstr(d.msg, "power of two") != NULL, "%s", d.msg);
        free(odd);
    }

    /* Points 280 and 7 of l broken: the message names 7 whatever the
     * thread count, and 280 alone is found too. */
    for (unsigned threads = 1; threads <= 2; threads++) {
        memcpy(bad, good, len);
        bad[l_at + 96 * 280 + 95] ^= 1; /* y changed: off the curve */
        ASSERT_EQ_STATUS(parse_all(bad, len, threads, &d), ZKPIPE_ERR_NOT_ON_CURVE);
        ASSERT_MSG(strstr(d.msg, "section l: point 280 of 300") != NULL, "%s", d.msg);
        memset(bad + l_at + 96 * 7, 0, 96);
        bad[l_at + 96 * 7] = 0x40; /* the identity */
        ASSERT_EQ_STATUS(parse_all(bad, len, threads, &d), ZKPIPE_ERR_BAD_ENCODING);
        ASSERT_MSG(strstr(d.msg, "section l: point 7 of 300") && strstr(d.msg, "infinity"),
                   "%s", d.msg);
    }
    /* A point of h on the curve but outside the subgroup: found by trying
     * x = 1, 2, ... for one whose x^3 + 4 is a square (none of them is in
     * G1 with any real chance). */
    int found = 0;
    for (uint64_t x = 1; x < 64 && !found; x++) {
        memcpy(bad, good, len);
        uint8_t *pt = bad + h_at + 96 * 2;
        memset(pt, 0, 96);
        pt[47] = (uint8_t)x;
        /* y from the compressed form: decompression computes it. */
        bls12_381_g1_affine_t q;
        uint8_t c[48];
        memcpy(c, pt, 48);
        c[0] |= 0x80;
        zkpipe_status st = bls12_381_g1_affine_uncompress(&q, c);
        if (st != ZKPIPE_ERR_NOT_IN_SUBGROUP) continue;
        /* Rebuild the point's y by hand: x^3 + 4 and its square root. */
        bls12_381_fp_t xx, rhs, four, y;
        bls12_381_fp_set_u64(&xx, x);
        bls12_381_fp_set_u64(&four, 4);
        bls12_381_fp_sqr(&rhs, &xx);
        bls12_381_fp_mul(&rhs, &rhs, &xx);
        bls12_381_fp_add(&rhs, &rhs, &four);
        ASSERT(bls12_381_fp_sqrt_var(&y, &rhs));
        bls12_381_fp_to_bytes_be(pt + 48, &y);
        ASSERT_EQ_STATUS(parse_all(bad, len, 2, &d), ZKPIPE_ERR_NOT_IN_SUBGROUP);
        ASSERT_MSG(strstr(d.msg, "section h: point 2 of 15") != NULL, "%s", d.msg);
        /* checked on the curve only, it passes; a point off the curve does not */
        ASSERT_MSG(parse_all_checking(bad, len, 2, 1, &d) == ZKPIPE_OK, "%s", d.msg);
        pt[95] ^= 1;
        ASSERT_EQ_STATUS(parse_all_checking(bad, len, 2, 1, &d), ZKPIPE_ERR_NOT_ON_CURVE);
        found = 1;
    }
    ASSERT(found);
    /* b_g1 and b_g2 counts differ (the file re-sized to stay consistent):
     * one b_g2 point dropped. */
    {
        zkp_bp_params p;
        ASSERT_OK(zkp_bp_params_parse(&p, good, len, "t", NULL, &d));
        size_t g2_len_at = p.sec[ZKP_BP_B_G2].offset - 4;
        uint32_t n = p.sec[ZKP_BP_B_G2].count;
        zkp_bp_params_free(&p);
        memcpy(bad, good, len);
        bad[g2_len_at + 3] = (uint8_t)(n - 1);
        ASSERT(n < 256 && n > 0);
        ASSERT_EQ_STATUS(parse_all(bad, len - 192, 1, &d), ZKPIPE_ERR_SIZE_MISMATCH);
    }
    free(bad);
    free(good);
}

/* The h query in bellperson's basis carries the same sums as the key's own:
 * for random coefficients c_i of h (degree <= n − 2), Σ c_i·h_bp[i] equals
 * Σ h_j·H[j] with h_j = (g^n − 1)·h(g·ω^j), the values the zkpipe prover
 * sums. The right side evaluates h at each point directly, so this checks
 * the transform without repeating it. */
TEST_CASE(bellperson_h_query_basis_change) {
    const unsigned log_n = 4;
    const size_t n = (size_t)1 << log_n;
    synth_key *k = synth_key_make(log_n);
    bls12_381_g1_affine_t hb[15];
    zkp_diag d = {{0}};
    for (unsigned threads = 1; threads <= 3; threads += 2) {
        ASSERT_MSG(zkp_bp_h_from_g16_pk(hb, k->pk, threads, NULL, &d) == ZKPIPE_OK, "%s", d.msg);
        bls12_381_fr_t five, omega, g, z, one, c[15];
        bls12_381_fr_set_u64(&five, 5);
        ASSERT_OK(bls12_381_fr_ntt_root_from_generator(&omega, &five, log_n));
        ASSERT_OK(bls12_381_fr_ntt_root_from_generator(&g, &five, log_n + 1));
        uint64_t e[1] = {n};
        bls12_381_fr_pow(&z, &g, e, 1);
        bls12_381_fr_set_one(&one);
        bls12_381_fr_sub(&z, &z, &one);
        for (size_t i = 0; i < n - 1; i++) {
            bls12_381_fr_t canon;
            test_rng_bytes(canon.l, sizeof canon.l);
            canon.l[3] &= 0x0fffffffffffffffull; /* below r */
            bls12_381_fr_to_mont(&c[i], &canon);
        }
        bls12_381_g1_jacobian_t lhs, rhs, t, p;
        bls12_381_g1_set_infinity(&lhs);
        bls12_381_g1_set_infinity(&rhs);
        for (size_t i = 0; i < n - 1; i++) {
            bls12_381_fr_t canon;
            bls12_381_fr_from_mont(&canon, &c[i]);
            bls12_381_g1_from_affine(&p, &hb[i]);
            bls12_381_g1_mul_var(&t, &p, canon.l, 256);
            bls12_381_g1_add(&lhs, &lhs, &t);
        }
        bls12_381_fr_t x = g; /* g·ω^j */
        for (size_t j = 0; j < n; j++) {
            bls12_381_fr_t acc, xi = one, term, canon;
            bls12_381_fr_set_zero(&acc);
            for (size_t i = 0; i < n - 1; i++) {
                bls12_381_fr_mul(&term, &c[i], &xi);
                bls12_381_fr_add(&acc, &acc, &term);
                bls12_381_fr_mul(&xi, &xi, &x);
            }
            bls12_381_fr_mul(&acc, &acc, &z);
            bls12_381_fr_from_mont(&canon, &acc);
            bls12_381_g1_from_affine(&p, &k->pk->h[j]);
            bls12_381_g1_mul_var(&t, &p, canon.l, 256);
            bls12_381_g1_add(&rhs, &rhs, &t);
            bls12_381_fr_mul(&x, &x, &omega);
        }
        ASSERT(!bls12_381_g1_is_infinity(&lhs));
        ASSERT(bls12_381_g1_eq(&lhs, &rhs));
        /* One coefficient's point moved: the sums differ. */
        bls12_381_g1_from_affine(&p, &hb[3]);
        bls12_381_g1_add(&lhs, &lhs, &p);
        ASSERT(!bls12_381_g1_eq(&lhs, &rhs));
    }
}
