/* The constraint system and the gadgets (src/gadgets).
 *
 * Known answers from outside zkpipe: bellperson's SHA-256 gadget tests
 * (one compression of 512 allocated bits from the IV is 25,840 constraints
 * and sha256() of 512 bits is 44,874, input bits not counted; FACTS.md 2.4),
 * the FIPS 180-2 example digests, and the truth tables of the boolean
 * operations. Digests of other lengths are compared with src/hash's SHA-256,
 * which has its own FIPS and NIST vectors (test_hash.c). The satisfiability
 * checks use the recorder, which evaluates every constraint, and the
 * tampering tests choose which variable to change so that the first
 * constraint it breaks is known from the structure (its own booleanity
 * constraint, or the last MultiEq equation). */
#include <stdlib.h>
#include <string.h>

#include "gadgets/multipack.h"
#include "gadgets/sha256.h"
#include "hash/sha256.h"
#include "gadgets_support.h"
#include "test.h"

typedef bls12_381_fr_t fr_t;

static zkp_bool make_bool_(zkp_cs *cs, int kind, int value) {
    if (kind == ZKP_BOOL_CONST) return zkp_bool_const(value);
    if (kind == ZKP_BOOL_IS) return zkp_bool_alloc(cs, value);
    zkp_bool x = zkp_bool_alloc(cs, !value);
    return zkp_bool_not(&x);
}

TEST_CASE(gadgets_cs_one_is_input_zero) {
    zkp_cs cs;
    zkp_cs_init_counter(&cs);
    ASSERT_EQ_U64(cs.num_inputs, 1); /* ONE, before any gadget */
    ASSERT_EQ_U64(cs.num_aux, 0);
    fr_t v;
    bls12_381_fr_set_u64(&v, 5);
    zkp_var a = zkp_cs_alloc(&cs, &v);
    zkp_var in = zkp_cs_alloc_input(&cs, &v);
    zkp_var b = zkp_cs_alloc(&cs, &v);
    ASSERT(!zkp_var_is_input(a) && zkp_var_index(a) == 0);
    ASSERT(zkp_var_is_input(in) && zkp_var_index(in) == 1);
    ASSERT(!zkp_var_is_input(b) && zkp_var_index(b) == 1); /* aux numbered apart from inputs */
    ASSERT_EQ_U64(cs.num_inputs, 2);
    ASSERT_EQ_U64(cs.num_aux, 2);
    ASSERT_EQ_U64(cs.num_constraints, 0);
    ASSERT_OK(zkp_cs_status(&cs));
}

/* Every case of xor, and, ch and maj over constants, bits and negated bits:
 * the value is the truth table's, the recorder finds every constraint
 * satisfied, and only operations without a constant operand allocate. */
TEST_CASE(gadgets_boolean_truth_tables) {
    zkp_cs_recorder *rec = test_new_recorder();
    for (int ka = 0; ka < 3; ka++)
        for (int kb = 0; kb < 3; kb++)
            for (int kc = 0; kc < 3; kc++)
                for (int v = 0; v < 8; v++) {
                    int va = v & 1, vb = (v >> 1) & 1, vc = (v >> 2) & 1;
                    zkp_cs_recorder_free(rec);
                    zkp_cs_recorder_init(rec);
                    zkp_cs *cs = &rec->cs;
                    zkp_bool a = make_bool_(cs, ka, va), b = make_bool_(cs, kb, vb);
                    zkp_bool c = make_bool_(cs, kc, vc);
                    uint64_t before = cs->num_constraints;
                    zkp_bool x = zkp_bool_xor(cs, &a, &b);
                    zkp_bool n = zkp_bool_and(cs, &a, &b);
                    uint64_t two_ops = cs->num_constraints - before;
                    zkp_bool ch = zkp_bool_sha256_ch(cs, &a, &b, &c);
                    zkp_bool mj = zkp_bool_sha256_maj(cs, &a, &b, &c);
                    ASSERT_EQ_INT(x.value, va ^ vb);
                    ASSERT_EQ_INT(n.value, va & vb);
                    ASSERT_EQ_INT(ch.value, vb ? (va ? 1 : vc) : (va ? 0 : vc));
                    ASSERT_EQ_INT(mj.value, va + vb + vc >= 2);
                    int consts = (ka == ZKP_BOOL_CONST) + (kb == ZKP_BOOL_CONST);
                    ASSERT_EQ_U64(two_ops, consts ? 0 : 2);
                    /* each result that is not a constant must hold its value */
                    const zkp_bool *res[4] = {&x, &n, &ch, &mj};
                    for (int r = 0; r < 4; r++) {
                        if (zkp_bool_is_const(res[r])) continue;
                        fr_t *val = zkp_cs_recorder_value(rec, res[r]->var);
                        ASSERT(val);
                        int bit = res[r]->kind == ZKP_BOOL_NOT ? !res[r]->value : res[r]->value;
                        fr_t expect;
                        bls12_381_fr_set_u64(&expect, (uint64_t)bit);
                        ASSERT(bls12_381_fr_eq(val, &expect));
                    }
                    uint64_t bad = 0;
                    ASSERT_MSG(zkp_cs_recorder_check(rec, &bad),
                               "kinds %d%d%d values %d: constraint %llu", ka, kb, kc, v,
                               (unsigned long long)bad);
                    ASSERT_OK(zkp_cs_status(cs));
                }
}

/* A challenge's 64 bits, least significant first, made public in one input
 * (at most 254 bits per input): 64 booleanity constraints, then the packing
 * constraint, and the input is the challenge itself. */
TEST_CASE(gadgets_u64_bits_into_input) {
    zkp_cs_recorder *rec = test_new_recorder();
    uint64_t challenge = 0x8000000000000001u ^ test_rng_u64();
    zkp_bool bits[64];
    zkp_bool_alloc_u64_le(&rec->cs, challenge, bits);
    for (int i = 0; i < 64; i++) ASSERT_EQ_INT(bits[i].value, (int)(challenge >> i) & 1);
    zkp_pack_into_inputs(&rec->cs, bits, 64);
    ASSERT_EQ_U64(rec->cs.num_aux, 64);
    ASSERT_EQ_U64(rec->cs.num_inputs, 2);
    ASSERT_EQ_U64(rec->cs.num_constraints, 65);
    uint8_t le[32] = {0};
    for (int i = 0; i < 8; i++) le[i] = (uint8_t)(challenge >> (8 * i));
    fr_t want;
    ASSERT_OK(bls12_381_fr_from_bytes_le(&want, le));
    ASSERT(bls12_381_fr_eq(zkp_cs_recorder_value(rec, (zkp_var)(1 | ZKP_VAR_INPUT_BIT)), &want));
    ASSERT(zkp_cs_recorder_check(rec, NULL));
}

/* addmany of n allocated words: the sum modulo 2^32, one booleanity
 * constraint per result bit (ceil(log2(n (2^32 - 1))) bits) and one MultiEq
 * equation. */
TEST_CASE(gadgets_uint32_addmany) {
    static const unsigned result_bits[11] = {0, 0, 33, 34, 34, 35, 35, 35, 35, 36, 36};
    zkp_cs_recorder *rec = test_new_recorder();
    for (size_t n = 2; n <= 10; n++) {
        zkp_cs_recorder_free(rec);
        zkp_cs_recorder_init(rec);
        zkp_u32 ops[10];
        uint32_t expect = 0;
        for (size_t k = 0; k < n; k++) {
            uint32_t v = (uint32_t)test_rng_u64();
            ops[k] = k == 1 ? zkp_u32_const(v) : zkp_u32_alloc(&rec->cs, v);
            expect += v;
        }
        uint64_t before = rec->cs.num_constraints;
        zkp_multieq m;
        zkp_multieq_init(&m, &rec->cs);
        zkp_u32 sum = zkp_u32_addmany(&m, ops, n);
        zkp_multieq_finish(&m);
        ASSERT_EQ_U64(sum.value, expect);
        ASSERT_EQ_U64(rec->cs.num_constraints - before, result_bits[n] + 1);
        uint32_t from_bits = 0;
        for (int i = 0; i < 32; i++) {
            fr_t *val = zkp_cs_recorder_value(rec, sum.bits[i].var);
            fr_t one;
            bls12_381_fr_set_one(&one);
            if (bls12_381_fr_eq(val, &one)) from_bits |= 1u << i;
        }
        ASSERT_EQ_U64(from_bits, expect);
        ASSERT(zkp_cs_recorder_check(rec, NULL));
    }
    /* all constant: nothing allocated */
    zkp_cs cs;
    zkp_cs_init_counter(&cs);
    zkp_multieq m;
    zkp_multieq_init(&m, &cs);
    zkp_u32 k[2] = {zkp_u32_const(0xffffffffu), zkp_u32_const(2)};
    zkp_u32 s = zkp_u32_addmany(&m, k, 2);
    zkp_multieq_finish(&m);
    ASSERT_EQ_U64(s.value, 1);
    ASSERT_EQ_U64(cs.num_constraints + cs.num_aux, 0);
}

static zkp_bool *alloc_bits_(zkp_cs *cs, const uint8_t *bytes, size_t len) {
    zkp_bool *bits = malloc((len * 8 + 1) * sizeof *bits);
    ASSERT(bits);
    for (size_t i = 0; i < len * 8; i++)
        bits[i] = zkp_bool_alloc(cs, (bytes[i / 8] >> (7 - i % 8)) & 1);
    return bits;
}

static void digest_from_bits_(uint8_t out[32], const zkp_bool bits[256]) {
    memset(out, 0, 32);
    for (int i = 0; i < 256; i++) out[i / 8] |= (uint8_t)(bits[i].value << (7 - i % 8));
}

TEST_CASE(gadgets_sha256_compression_count) {
    zkp_cs cs;
    zkp_cs_init_counter(&cs);
    uint8_t block[64];
    test_rng_bytes(block, sizeof block);
    zkp_bool *bits = alloc_bits_(&cs, block, 64);
    zkp_bool digest[256];
    zkp_sha256_gadget_block_no_padding(&cs, bits, digest);
    free(bits);
    ASSERT_OK(zkp_cs_status(&cs));
    ASSERT_EQ_U64(cs.num_constraints - 512, 25840);
    ASSERT_EQ_U64(cs.num_inputs, 1);
}

TEST_CASE(gadgets_sha256_512_bits_count) {
    zkp_cs cs;
    zkp_cs_init_counter(&cs);
    uint8_t msg[64];
    test_rng_bytes(msg, sizeof msg);
    zkp_bool *bits = alloc_bits_(&cs, msg, 64);
    zkp_bool digest[256];
    zkp_sha256_gadget(&cs, bits, 512, digest);
    free(bits);
    ASSERT_OK(zkp_cs_status(&cs));
    ASSERT_EQ_U64(cs.num_constraints - 512, 44874);
}

/* Records SHA-256(msg) and returns the digest the circuit computed; the
 * recorder's constraints must all hold. */
static void record_sha256_(zkp_cs_recorder *rec, const uint8_t *msg, size_t len, uint8_t out[32]) {
    zkp_cs_recorder_free(rec);
    zkp_cs_recorder_init(rec);
    zkp_bool *bits = alloc_bits_(&rec->cs, msg, len);
    zkp_bool digest[256];
    zkp_sha256_gadget(&rec->cs, bits, len * 8, digest);
    free(bits);
    ASSERT_OK(zkp_cs_status(&rec->cs));
    digest_from_bits_(out, digest);
}

TEST_CASE(gadgets_sha256_fips_vectors) {
    static const struct {
        const char *msg;
        uint8_t digest[32];
    } v[] = {
        {"", {0xe3, 0xb0, 0xc4, 0x42, 0x98, 0xfc, 0x1c, 0x14, 0x9a, 0xfb, 0xf4,
              0xc8, 0x99, 0x6f, 0xb9, 0x24, 0x27, 0xae, 0x41, 0xe4, 0x64, 0x9b,
              0x93, 0x4c, 0xa4, 0x95, 0x99, 0x1b, 0x78, 0x52, 0xb8, 0x55}},
        {"abc", {0xba, 0x78, 0x16, 0xbf, 0x8f, 0x01, 0xcf, 0xea, 0x41, 0x41, 0x40,
                 0xde, 0x5d, 0xae, 0x22, 0x23, 0xb0, 0x03, 0x61, 0xa3, 0x96, 0x17,
                 0x7a, 0x9c, 0xb4, 0x10, 0xff, 0x61, 0xf2, 0x00, 0x15, 0xad}},
        {"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
         {0x24, 0x8d, 0x6a, 0x61, 0xd2, 0x06, 0x38, 0xb8, 0xe5, 0xc0, 0x26,
          0x93, 0x0c, 0x3e, 0x60, 0x39, 0xa3, 0x3c, 0xe4, 0x59, 0x64, 0xff,
          0x21, 0x67, 0xf6, 0xec, 0xed, 0xd4, 0x19, 0xdb, 0x06, 0xc1}},
    };
    zkp_cs_recorder *rec = test_new_recorder();
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
        uint8_t got[32];
        record_sha256_(rec, (const uint8_t *)v[i].msg, strlen(v[i].msg), got);
        ASSERT_MEM_EQ(got, v[i].digest, 32);
        uint64_t bad = 0;
        ASSERT_MSG(zkp_cs_recorder_check(rec, &bad), "vector %zu: constraint %llu", i,
                   (unsigned long long)bad);
    }
}

/* Lengths around the padding boundaries (55, 56, 64 bytes) and random data,
 * against src/hash's SHA-256. */
TEST_CASE(gadgets_sha256_matches_hash) {
    static const size_t lens[] = {1, 31, 55, 56, 64, 65};
    zkp_cs_recorder *rec = test_new_recorder();
    for (size_t i = 0; i < sizeof lens / sizeof lens[0]; i++) {
        uint8_t msg[80], want[32], got[32];
        test_rng_bytes(msg, lens[i]);
        zkp_sha256(want, msg, lens[i]);
        record_sha256_(rec, msg, lens[i], got);
        ASSERT_MEM_EQ(got, want, 32);
        ASSERT(zkp_cs_recorder_check(rec, NULL));
    }
}

/* A changed witness value is found, at the first constraint it breaks. */
TEST_CASE(gadgets_recorder_reports_tampering) {
    /* two bits and their xor: constraints 0 and 1 are the booleanity of x
     * and y, 2 the xor; flipping x keeps 0 true and breaks 2 */
    zkp_cs_recorder *rec = test_new_recorder();
    zkp_bool x = zkp_bool_alloc(&rec->cs, 1), y = zkp_bool_alloc(&rec->cs, 0);
    (void)zkp_bool_xor(&rec->cs, &x, &y);
    ASSERT_EQ_U64(rec->cs.num_constraints, 3);
    ASSERT(zkp_cs_recorder_check(rec, NULL));
    bls12_381_fr_set_zero(zkp_cs_recorder_value(rec, x.var));
    uint64_t bad = 99;
    ASSERT(!zkp_cs_recorder_check(rec, &bad));
    ASSERT_EQ_U64(bad, 2);

    /* SHA-256("abc"): input bit 5 set to 2 breaks its own booleanity
     * constraint (number 5); the last allocated bit (the top result bit of
     * the final addition) flipped breaks only the last equation */
    zkp_cs_recorder *sha = test_new_recorder();
    uint8_t got[32];
    record_sha256_(sha, (const uint8_t *)"abc", 3, got);
    ASSERT(zkp_cs_recorder_check(sha, NULL));
    fr_t *last = zkp_cs_recorder_value(sha, (zkp_var)(sha->cs.num_aux - 1));
    fr_t one, saved = *last;
    bls12_381_fr_set_one(&one);
    bls12_381_fr_sub(last, &one, last);
    ASSERT(!zkp_cs_recorder_check(sha, &bad));
    ASSERT_EQ_U64(bad, sha->cs.num_constraints - 1);
    *last = saved;
    ASSERT(zkp_cs_recorder_check(sha, NULL));
    bls12_381_fr_set_u64(zkp_cs_recorder_value(sha, (zkp_var)5), 2);
    ASSERT(!zkp_cs_recorder_check(sha, &bad));
    ASSERT_EQ_U64(bad, 5);
}

/* pack_into_inputs: one input per 254 bits, each allocated just before its
 * packing constraint, with the value of the chunk read as a little-endian
 * number (checked against the field's own byte decoding). */
TEST_CASE(gadgets_pack_into_inputs) {
    static const size_t lens[] = {0, 1, 253, 254, 255, 600};
    zkp_cs_recorder *rec = test_new_recorder();
    for (size_t t = 0; t < sizeof lens / sizeof lens[0]; t++) {
        size_t n = lens[t];
        uint8_t bytes[76] = {0}, plain[608];
        test_rng_bytes(bytes, (n + 7) / 8);
        zkp_cs_recorder_free(rec);
        zkp_cs_recorder_init(rec);
        zkp_bool bits[608];
        for (size_t i = 0; i < n; i++) {
            plain[i] = (bytes[i / 8] >> (i % 8)) & 1;
            bits[i] = zkp_bool_alloc(&rec->cs, plain[i]);
        }
        zkp_pack_into_inputs(&rec->cs, bits, n);
        ASSERT_OK(zkp_cs_status(&rec->cs));
        size_t chunks = (n + 253) / 254;
        ASSERT_EQ_U64(rec->cs.num_inputs, 1 + chunks);
        ASSERT_EQ_U64(rec->cs.num_constraints, n + chunks);
        ASSERT(zkp_cs_recorder_check(rec, NULL));
        fr_t expect[3];
        zkp_multipack_compute(expect, plain, n);
        for (size_t k = 0; k < chunks; k++) {
            /* constraint n + k: chunk * ONE = input k + 1 */
            const zkp_lc_term *c = &rec->terms[rec->row[3 * (n + k) + 2]];
            ASSERT_EQ_U64(c->var, (k + 1) | ZKP_VAR_INPUT_BIT);
            fr_t *in = zkp_cs_recorder_value(rec, (zkp_var)((k + 1) | ZKP_VAR_INPUT_BIT));
            ASSERT(bls12_381_fr_eq(in, &expect[k]));
        }
        if (n >= 254) { /* the first chunk is bytes 0..31 with the top two bits cleared */
            uint8_t le[32];
            memcpy(le, bytes, 32);
            le[31] &= 0x3f;
            fr_t want;
            ASSERT_OK(bls12_381_fr_from_bytes_le(&want, le));
            ASSERT(bls12_381_fr_eq(&expect[0], &want));
        }
    }
}

/* to_bits_le: 255 allocated bits and one unpacking constraint; pack_bits
 * packs only the first 254 bits. */
TEST_CASE(gadgets_num_to_bits_and_pack_bits) {
    zkp_cs_recorder *rec = test_new_recorder();
    uint8_t le[32];
    test_rng_bytes(le, 32);
    le[31] &= 0x7f;
    le[31] |= 0x40; /* bit 254 set: the top bit matters */
    fr_t v;
    if (bls12_381_fr_from_bytes_le(&v, le) != ZKPIPE_OK) { /* at or above r: a smaller top byte */
        le[31] = 0x40;
        ASSERT_OK(bls12_381_fr_from_bytes_le(&v, le));
    }
    zkp_var x = zkp_cs_alloc(&rec->cs, &v);
    zkp_bool bits[ZKP_FR_NUM_BITS];
    zkp_num_to_bits_le(&rec->cs, x, &v, bits);
    ASSERT_EQ_U64(rec->cs.num_aux, 1 + 255);
    ASSERT_EQ_U64(rec->cs.num_constraints, 256);
    for (int i = 0; i < ZKP_FR_NUM_BITS; i++)
        ASSERT_EQ_INT(bits[i].value, (le[i / 8] >> (i % 8)) & 1);
    ASSERT(zkp_cs_recorder_check(rec, NULL));

    fr_t packed;
    zkp_var p = zkp_pack_bits(&rec->cs, bits, ZKP_FR_NUM_BITS, &packed);
    ASSERT_EQ_U64(rec->cs.num_constraints, 257);
    le[31] &= 0x3f;
    fr_t want;
    ASSERT_OK(bls12_381_fr_from_bytes_le(&want, le));
    ASSERT(bls12_381_fr_eq(&packed, &want));
    ASSERT(bls12_381_fr_eq(zkp_cs_recorder_value(rec, p), &want));
    ASSERT(zkp_cs_recorder_check(rec, NULL));

    /* bit 0 flipped: still boolean, so the unpacking constraint (255) fails */
    fr_t *b0 = zkp_cs_recorder_value(rec, bits[0].var), one;
    bls12_381_fr_set_one(&one);
    bls12_381_fr_sub(b0, &one, b0);
    uint64_t bad = 0;
    ASSERT(!zkp_cs_recorder_check(rec, &bad));
    ASSERT_EQ_U64(bad, 255);
}

/* A block of constants costs nothing: the padded empty message (a one bit,
 * then zeros) compresses to SHA-256("") with no constraint, as in
 * bellperson's blank-hash test. A length in bits that is not whole bytes is
 * refused. */
TEST_CASE(gadgets_sha256_constant_block_is_free) {
    static const uint8_t empty[32] = {0xe3, 0xb0, 0xc4, 0x42, 0x98, 0xfc, 0x1c, 0x14,
                                      0x9a, 0xfb, 0xf4, 0xc8, 0x99, 0x6f, 0xb9, 0x24,
                                      0x27, 0xae, 0x41, 0xe4, 0x64, 0x9b, 0x93, 0x4c,
                                      0xa4, 0x95, 0x99, 0x1b, 0x78, 0x52, 0xb8, 0x55};
    zkp_cs cs;
    zkp_cs_init_counter(&cs);
    zkp_bool block[512], digest[256];
    for (int i = 0; i < 512; i++) block[i] = zkp_bool_const(i == 0);
    zkp_sha256_gadget_block_no_padding(&cs, block, digest);
    ASSERT_OK(zkp_cs_status(&cs));
    ASSERT_EQ_U64(cs.num_constraints, 0);
    ASSERT_EQ_U64(cs.num_aux, 0);
    uint8_t got[32];
    digest_from_bits_(got, digest);
    ASSERT_MEM_EQ(got, empty, 32);

    zkp_sha256_gadget(&cs, block, 7, digest);
    ASSERT_EQ_STATUS(zkp_cs_status(&cs), ZKPIPE_ERR_INVALID_ARGUMENT);
}
