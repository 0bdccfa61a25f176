/* Known-answer tests of src/hash: SHA-256 against FIPS 180 examples and
 * hashlib's digests (tests/vectors/hash.json, gen_hash.py), the SHA-NI body
 * against the portable one, BLAKE2b against RFC 7693, the BLAKE2 reference
 * KAT and hashlib, ChaCha20 against RFC 8439 and rand_chacha 0.3's own
 * tests, and ChaCha8 against Strombergson's test vectors
 * (draft-strombergson-chacha-test-vectors). */
#include <stdlib.h>

#include "hash/blake2b.h"
#include "hash/chacha.h"
#include "hash/sha256.h"
#include "test.h"
#include "test_support.h"
#include "util/cpu.h"

/* The message gen_hash.py hashes for length n. */
static void vector_message(uint8_t *out, size_t n) {
    for (size_t i = 0; i < n; i++) out[i] = (uint8_t)((i * 131 + n) % 251);
}

static void free_json(void *v) { zkp_json_free(v); }

static const zkp_json *json_section(const zkp_json *root, const char *name) {
    const zkp_json *s = zkp_json_get(root, name);
    ASSERT_MSG(s != NULL && zkp_json_type_of(s) == ZKP_JSON_ARRAY, "hash.json lacks %s", name);
    return s;
}

static uint64_t json_u64(const zkp_json *v) {
    const char *t = zkp_json_number_text(v);
    ASSERT_MSG(t != NULL, "not a number");
    return strtoull(t, NULL, 10);
}

static size_t json_hex(uint8_t *out, size_t cap, const zkp_json *v) {
    const char *hex = zkp_json_string(v, NULL);
    ASSERT_MSG(hex != NULL, "not a string");
    return test_unhex(out, cap, hex);
}

/* ---- SHA-256 ---------------------------------------------------------- */

static void check_sha256_hex(const char *msg, size_t len, const char *want_hex) {
    uint8_t want[32], got[32];
    test_unhex(want, sizeof want, want_hex);
    zkp_sha256(got, msg, len);
    ASSERT_MEM_EQ(got, want, 32);
}

TEST_CASE(hash_sha256_fips_examples) {
    /* FIPS 180-2 appendix B and the NIST example values. */
    check_sha256_hex("", 0, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    check_sha256_hex("abc", 3, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    const char *m448 = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
    check_sha256_hex(m448, strlen(m448),
                     "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
    const char *m896 = "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmno"
                       "ijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu";
    check_sha256_hex(m896, strlen(m896),
                     "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1");
    /* One million 'a', fed in uneven pieces through the incremental API. */
    char chunk[997];
    memset(chunk, 'a', sizeof chunk);
    zkp_sha256_ctx ctx;
    zkp_sha256_init(&ctx);
    size_t left = 1000000;
    while (left > 0) {
        size_t n = left < sizeof chunk ? left : sizeof chunk;
        zkp_sha256_update(&ctx, chunk, n);
        left -= n;
    }
    uint8_t got[32], want[32];
    zkp_sha256_final(&ctx, got);
    test_unhex(want, 32, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
    ASSERT_MEM_EQ(got, want, 32);
}

TEST_CASE(hash_sha256_hashlib_vectors) {
    zkp_json *root = test_load_json("vectors/hash.json");
    test_defer(free_json, root);
    const zkp_json *sec = json_section(root, "sha256");
    ASSERT(zkp_json_len(sec) > 200);
    uint8_t *msg = malloc(8192);
    ASSERT(msg != NULL);
    test_defer(free, msg);
    for (size_t k = 0; k < zkp_json_len(sec); k++) {
        const zkp_json *row = zkp_json_at(sec, k);
        size_t n = (size_t)json_u64(zkp_json_at(row, 0));
        ASSERT(n <= 8192);
        uint8_t want[32], got[32];
        ASSERT_EQ_U64(json_hex(want, sizeof want, zkp_json_at(row, 1)), 32);
        vector_message(msg, n);
        zkp_sha256(got, msg, n);
        ASSERT_MSG(memcmp(got, want, 32) == 0, "one-shot SHA-256 of length %zu", n);
        /* The same message in random pieces, with empty updates between. */
        zkp_sha256_ctx ctx;
        zkp_sha256_init(&ctx);
        for (size_t off = 0; off < n;) {
            size_t piece = 1 + (size_t)(test_rng_u64() % 150);
            if (piece > n - off) piece = n - off;
            zkp_sha256_update(&ctx, msg + off, piece);
            zkp_sha256_update(&ctx, msg, 0);
            off += piece;
        }
        zkp_sha256_final(&ctx, got);
        ASSERT_MSG(memcmp(got, want, 32) == 0, "incremental SHA-256 of length %zu", n);
        if (n == 64) {
            zkp_sha256_64(got, msg);
            ASSERT_MEM_EQ(got, want, 32);
            /* The trimmed form is the digest with bits 254 and 255 of its
             * little-endian reading cleared, and nothing else changed. */
            zkp_sha256_64_trimmed(got, msg);
            want[31] &= 0x3f;
            ASSERT_MEM_EQ(got, want, 32);
            zkp_sha256_trimmed(got, msg, 64);
            ASSERT_MEM_EQ(got, want, 32);
        }
    }
}

/* SHA-256 of msg through one compression body, with the padding done here
 * rather than by sha256.c, so each body is checked on its own. */
static void sha256_with(void (*blocks)(uint32_t *, const uint8_t *, size_t), uint8_t out[32],
                        const uint8_t *msg, size_t len) {
    uint32_t state[8];
    memcpy(state, zkp_sha256_iv, sizeof state);
    size_t whole = len / 64;
    blocks(state, msg, whole);
    uint8_t tail[128] = {0};
    size_t rest = len - whole * 64;
    memcpy(tail, msg + whole * 64, rest);
    tail[rest] = 0x80;
    size_t tail_len = rest + 1 + 8 <= 64 ? 64 : 128;
    uint64_t bits = (uint64_t)len * 8;
    for (int i = 0; i < 8; i++) tail[tail_len - 1 - i] = (uint8_t)(bits >> (8 * i));
    blocks(state, tail, tail_len / 64);
    zkp_sha256_state_to_digest(out, state);
}

TEST_CASE(hash_sha256_shani_matches_portable) {
#ifdef ZKP_HAVE_X86_ASM
    if (!zkp_cpu_has_sha_ni()) test_skip("this CPU has no SHA extensions");
    uint8_t msg[1024];
    /* Every length 0..200 of the vector messages: both bodies against the
     * independent digest in hash.json and against each other. */
    zkp_json *root = test_load_json("vectors/hash.json");
    test_defer(free_json, root);
    const zkp_json *sec = json_section(root, "sha256");
    for (size_t n = 0; n <= 200; n++) {
        const zkp_json *row = zkp_json_at(sec, n);
        ASSERT_EQ_U64(json_u64(zkp_json_at(row, 0)), n);
        uint8_t want[32], portable[32], shani[32];
        json_hex(want, sizeof want, zkp_json_at(row, 1));
        vector_message(msg, n);
        sha256_with(zkp_sha256_blocks_portable, portable, msg, n);
        sha256_with(zkp_sha256_blocks_shani, shani, msg, n);
        ASSERT_MSG(memcmp(portable, want, 32) == 0, "portable SHA-256 of length %zu", n);
        ASSERT_MSG(memcmp(shani, want, 32) == 0, "SHA-NI SHA-256 of length %zu", n);
    }
    /* Raw compression from random chaining values over 1..16 random blocks. */
    unsigned iters = test_iters(200);
    for (unsigned it = 0; it < iters; it++) {
        uint32_t a[8], b[8];
        for (int i = 0; i < 8; i++) a[i] = b[i] = (uint32_t)test_rng_u64();
        size_t nb = 1 + (size_t)(test_rng_u64() % 16);
        test_rng_bytes(msg, nb * 64);
        zkp_sha256_blocks_portable(a, msg, nb);
        zkp_sha256_blocks_shani(b, msg, nb);
        ASSERT_MEM_EQ(a, b, sizeof a);
    }
#else
    test_skip("built without the x86 paths");
#endif
}

/* ---- BLAKE2b ----------------------------------------------------------- */

TEST_CASE(hash_blake2b_rfc7693_and_reference_kat) {
    uint8_t got[64], want[64];
    /* RFC 7693 appendix A: BLAKE2b-512("abc"). */
    zkp_blake2b(got, 64, NULL, 0, "abc", 3);
    test_unhex(want, 64,
               "ba80a53f981c4d0d6a2797b69f12f6e94c212f14685ac4b74b12bb6fdbffa2d1"
               "7d87c5392aab792dc252d5de4533cc9518d38aa8dbf1925ab92386edd4009923");
    ASSERT_MEM_EQ(got, want, 64);
    /* The BLAKE2 reference blake2b-kat.txt, key 00..3f: the empty message
     * and the one-byte message 00. */
    uint8_t key[64];
    for (int i = 0; i < 64; i++) key[i] = (uint8_t)i;
    zkp_blake2b(got, 64, key, 64, "", 0);
    test_unhex(want, 64,
               "10ebb67700b1868efb4417987acf4690ae9d972fb7a590c2f02871799aaa4786"
               "b5e996e8f0f4eb981fc214b005f42d2ff4233499391653df7aefcbc13fc51568");
    ASSERT_MEM_EQ(got, want, 64);
    const uint8_t zero = 0;
    zkp_blake2b(got, 64, key, 64, &zero, 1);
    test_unhex(want, 64,
               "961f6dd1e4dd30f63901690c512e78e4b45e4742ed197c3c5e45c549fd25f2e4"
               "187b0bc9fe30492b16b0d0bc4ef9b0f34c7003fac09a5ef1532e69430234cebd");
    ASSERT_MEM_EQ(got, want, 64);
}

TEST_CASE(hash_blake2b_hashlib_vectors) {
    zkp_json *root = test_load_json("vectors/hash.json");
    test_defer(free_json, root);
    uint8_t *msg = malloc(8192);
    ASSERT(msg != NULL);
    test_defer(free, msg);
    const zkp_json *sec = json_section(root, "blake2b512");
    ASSERT(zkp_json_len(sec) > 200);
    for (size_t k = 0; k < zkp_json_len(sec); k++) {
        const zkp_json *row = zkp_json_at(sec, k);
        size_t n = (size_t)json_u64(zkp_json_at(row, 0));
        ASSERT(n <= 8192);
        uint8_t want[64], got[64];
        ASSERT_EQ_U64(json_hex(want, sizeof want, zkp_json_at(row, 1)), 64);
        vector_message(msg, n);
        zkp_blake2b(got, 64, NULL, 0, msg, n);
        ASSERT_MSG(memcmp(got, want, 64) == 0, "BLAKE2b-512 of length %zu", n);
        zkp_blake2b_ctx ctx;
        zkp_blake2b_init(&ctx, 64, NULL, 0);
        for (size_t off = 0; off < n;) {
            size_t piece = 1 + (size_t)(test_rng_u64() % 300);
            if (piece > n - off) piece = n - off;
            zkp_blake2b_update(&ctx, msg + off, piece);
            off += piece;
        }
        zkp_blake2b_final(&ctx, got);
        ASSERT_MSG(memcmp(got, want, 64) == 0, "incremental BLAKE2b-512 of length %zu", n);
        if (n == 16) {
            zkp_blake2b512_16(got, msg);
            ASSERT_MEM_EQ(got, want, 64);
        }
    }
    uint8_t key[64];
    for (int i = 0; i < 64; i++) key[i] = (uint8_t)i;
    sec = json_section(root, "blake2b_outlen_keylen");
    ASSERT(zkp_json_len(sec) > 100);
    for (size_t k = 0; k < zkp_json_len(sec); k++) {
        const zkp_json *row = zkp_json_at(sec, k);
        size_t n = (size_t)json_u64(zkp_json_at(row, 0));
        size_t outlen = (size_t)json_u64(zkp_json_at(row, 1));
        size_t keylen = (size_t)json_u64(zkp_json_at(row, 2));
        ASSERT(n <= 8192 && outlen >= 1 && outlen <= 64 && keylen <= 64);
        uint8_t want[64], got[64];
        ASSERT_EQ_U64(json_hex(want, sizeof want, zkp_json_at(row, 3)), outlen);
        vector_message(msg, n);
        zkp_blake2b(got, outlen, keylen ? key : NULL, keylen, msg, n);
        ASSERT_MSG(memcmp(got, want, outlen) == 0, "BLAKE2b-%zu, key %zu bytes, length %zu",
                   outlen * 8, keylen, n);
    }
}

/* ---- ChaCha ------------------------------------------------------------ */

static void chacha_words_to_bytes(uint8_t *out, const uint32_t *w, size_t n_words) {
    for (size_t i = 0; i < n_words; i++)
        for (int b = 0; b < 4; b++) out[4 * i + b] = (uint8_t)(w[i] >> (8 * b));
}

TEST_CASE(hash_chacha20_rfc8439_block) {
    /* RFC 8439 section 2.3.2: key 00..1f, counter 1 in word 12, nonce
     * 00:00:00:09:00:00:00:4a:00:00:00:00 in words 13..15. */
    uint8_t key_bytes[32];
    for (int i = 0; i < 32; i++) key_bytes[i] = (uint8_t)i;
    uint32_t key[8], out[16];
    zkp_chacha_key_from_bytes(key, key_bytes);
    const uint32_t input[4] = {1, 0x09000000, 0x4a000000, 0};
    zkp_chacha_block(out, key, input, 20);
    uint8_t got[64], want[64];
    chacha_words_to_bytes(got, out, 16);
    test_unhex(want, 64,
               "10f1e7e4d13b5915500fdd1fa32071c4c7d1f4c733c068030422aa9ac3d46c4e"
               "d2826446079faa0914c2d705d98b02a2b5129cd1de164eb9cbd083e8a2503c4e");
    ASSERT_MEM_EQ(got, want, 64);
}

TEST_CASE(hash_chacha20_ietf_keystream_rfc8439_encryption) {
    /* RFC 8439 section 2.4.2: key 00..1f, nonce 00:00:00:00:00:00:00:4a:
     * 00:00:00:00, initial counter 1, the 114-byte "sunscreen" plaintext. */
    static const char pt[] = "Ladies and Gentlemen of the class of '99: If I could offer you only "
                             "one tip for the future, sunscreen would be it.";
    ASSERT_EQ_U64(sizeof pt - 1, 114);
    uint8_t key[32], nonce[12] = {0, 0, 0, 0, 0, 0, 0, 0x4a, 0, 0, 0, 0}, want[114], ks[114];
    for (int i = 0; i < 32; i++) key[i] = (uint8_t)i;
    test_unhex(want, sizeof want,
               "6e2e359a2568f98041ba0728dd0d6981e97e7aec1d4360c20a27afccfd9fae0b"
               "f91b65c5524733ab8f593dabcd62b3571639d624e65152ab8f530c359f0861d8"
               "07ca0dbf500d6a6156a38e088a22b65e52bc514d16ccf806818ce91ab7793736"
               "5af90bbf74a35be6b40b8eedf2785e42874d");
    zkp_chacha20_ietf_keystream(ks, sizeof ks, key, nonce, 1, 0);
    for (size_t i = 0; i < sizeof ks; i++) ASSERT_EQ_U64(ks[i] ^ (uint8_t)pt[i], want[i]);
    /* Any byte range of the stream is that slice of it, across block
     * boundaries; counter 0 from byte 64 is counter 1 from byte 0. */
    for (size_t off = 0; off < sizeof ks; off += 7) {
        uint8_t part[40];
        size_t n = sizeof ks - off < sizeof part ? sizeof ks - off : sizeof part;
        zkp_chacha20_ietf_keystream(part, n, key, nonce, 1, off);
        ASSERT_MEM_EQ(part, ks + off, n);
        zkp_chacha20_ietf_keystream(part, n, key, nonce, 0, 64 + off);
        ASSERT_MEM_EQ(part, ks + off, n);
    }
}

TEST_CASE(hash_chacha20_rng_matches_rand_chacha) {
    /* rand_chacha 0.3.1 src/chacha.rs, test_chacha_true_values_a: the
     * all-zero seed, the first 32 words of ChaCha20Rng. */
    static const uint32_t want_a[32] = {
        0xade0b876, 0x903df1a0, 0xe56a5d40, 0x28bd8653, 0xb819d2bd, 0x1aed8da0, 0xccef36a8,
        0xc70d778b, 0x7c5941da, 0x8d485751, 0x3fe02477, 0x374ad8b8, 0xf4b8436a, 0x1ca11815,
        0x69b687c3, 0x8665eeb2, 0xbee7079f, 0x7a385155, 0x7c97ba98, 0x0d082d73, 0xa0290fcb,
        0x6965e348, 0x3e53c612, 0xed7aee32, 0x7621b729, 0x434ee69c, 0xb03371d5, 0xd539d874,
        0x281fed31, 0x45fb0a51, 0x1f0ae1ac, 0x6f4d794b};
    uint8_t seed[32] = {0};
    zkp_chacha_rng rng;
    zkp_chacha_rng_init(&rng, seed, 20);
    for (int i = 0; i < 32; i++) ASSERT_EQ_U64(zkp_chacha_rng_u32(&rng), want_a[i]);
    /* The same stream as u64s: low word first, across the block boundary
     * too (words 15 and 16 after one word is drawn). */
    zkp_chacha_rng_init(&rng, seed, 20);
    (void)zkp_chacha_rng_u32(&rng);
    for (int i = 1; i + 1 < 32; i += 2)
        ASSERT_EQ_U64(zkp_chacha_rng_u64(&rng), want_a[i] | (uint64_t)want_a[i + 1] << 32);
    /* test_chacha_multiple_blocks: seed words 0..7, word 17*i for i < 16. */
    static const uint32_t want_multi[16] = {
        0xf225c81a, 0x6ab1be57, 0x04d42951, 0x70858036, 0x49884684, 0x64efec72,
        0x4be2d186, 0x3615b384, 0x11cfa18e, 0xd3c50049, 0x75c775f6, 0x434c6530,
        0x2c5bad8f, 0x898881dc, 0x5f1c86d9, 0xc1f8e7f4};
    for (int i = 0; i < 32; i++) seed[i] = (uint8_t)(i % 4 == 0 ? i / 4 : 0);
    zkp_chacha_rng_init(&rng, seed, 20);
    for (int i = 0; i < 16; i++) {
        ASSERT_EQ_U64(zkp_chacha_rng_u32(&rng), want_multi[i]);
        for (int s = 0; s < 16; s++) (void)zkp_chacha_rng_u32(&rng);
    }
}

TEST_CASE(hash_chacha8_strombergson_vectors) {
    /* draft-strombergson-chacha-test-vectors, 8 rounds, 256-bit keys, the
     * 64-bit IV in words 14 and 15 and the block counter in 12 and 13:
     * TC1 (zero key and IV, two blocks), TC2 (key bit 0), TC7 (sequence
     * patterns) and TC8 (random key and IV), 128 bytes each. */
    static const struct {
        const char *key, *iv, *stream;
    } tcs[] = {
        {"0000000000000000000000000000000000000000000000000000000000000000", "0000000000000000",
         "3e00ef2f895f40d67f5bb8e81f09a5a12c840ec3ce9a7f3b181be188ef711a1e"
         "984ce172b9216f419f445367456d5619314a42a3da86b001387bfdb80e0cfe42"
         "d2aefa0deaa5c151bf0adb6c01f2a5adc0fd581259f9a2aadcf20f8fd566a26b"
         "5032ec38bbc5da98ee0c6f568b872a65a08abf251deb21bb4b56e5d8821e68aa"},
        {"0100000000000000000000000000000000000000000000000000000000000000", "0000000000000000",
         "cf5ee9a0494aa9613e05d5ed725b804b12f4a465ee635acc3a311de8740489ea"
         "289d04f43c7518db56eb4433e498a1238cd8464d3763ddbb9222ee3bd8fae3c8"
         "b4355a7d93dd8867089ee643558b95754efa2bd1a8a1e2d75bcdb32015542638"
         "291941feb49965587c4fdfe219cf0ec132a6cd4dc067392e67982fe53278c0b4"},
        {"00112233445566778899aabbccddeeffffeeddccbbaa99887766554433221100", "0f1e2d3c4b596877",
         "60fdedbd1a280cb741d0593b6ea0309010acf18e1471f68968f4c9e311dca149"
         "b8e027b47c81e0353db013891aa5f68ea3b13dd2f3b8dd0873bf3746e7d6c567"
         "fe882395601ce8aded444867fe62ed8741420002e5d28bb573113a418c1f4008"
         "e954c188f38ec4f26bb8555e2b7c92bf4380e2ea9e553187fdd42821794416de"},
        {"c46ec1b18ce8a878725a37e780dfb7351f68ed2e194c79fbc6aebee1a667975d", "1ada31d5cf688221",
         "838751b42d8ddd8a3d77f48825a2ba752cf4047cb308a5978ef274973be374c9"
         "6ad848065871417b08f034e681fe46a93f7d5c61d1306614d4aaf257a7cff08b"
         "16f2fda170cc18a4b58a2667ed962774af792a6e7f3c77992540711a7a136d7e"
         "8a2f8d3f93816709d45a3fa5f8ce72fde15be7b841acba3a2abd557228d9fe4f"},
    };
    for (size_t t = 0; t < sizeof tcs / sizeof tcs[0]; t++) {
        uint8_t key_bytes[32], iv[8], want[128], got[128];
        test_unhex(key_bytes, 32, tcs[t].key);
        test_unhex(iv, 8, tcs[t].iv);
        test_unhex(want, 128, tcs[t].stream);
        uint32_t key[8], out[16];
        zkp_chacha_key_from_bytes(key, key_bytes);
        for (uint32_t block = 0; block < 2; block++) {
            uint32_t input[4] = {block, 0, 0, 0};
            for (int b = 0; b < 4; b++) {
                input[2] |= (uint32_t)iv[b] << (8 * b);
                input[3] |= (uint32_t)iv[4 + b] << (8 * b);
            }
            zkp_chacha_block(out, key, input, 8);
            chacha_words_to_bytes(got + 64 * block, out, 16);
        }
        ASSERT_MSG(memcmp(got, want, 128) == 0, "ChaCha8 test case %zu", t);
        /* With a zero IV the generator is rand_chacha's ChaCha8Rng. */
        if (iv[0] == 0 && memcmp(iv, "\0\0\0\0\0\0\0\0", 8) == 0) {
            zkp_chacha_rng rng;
            zkp_chacha_rng_init(&rng, key_bytes, 8);
            for (int w = 0; w < 32; w++) {
                uint32_t word = (uint32_t)want[4 * w] | (uint32_t)want[4 * w + 1] << 8 |
                                (uint32_t)want[4 * w + 2] << 16 | (uint32_t)want[4 * w + 3] << 24;
                ASSERT_EQ_U64(zkp_chacha_rng_u32(&rng), word);
            }
        }
    }
}

/* Restores one environment variable after a case changed it. */
typedef struct {
    const char *name;
    int had;
    char value[64];
} saved_env;

static void save_env(saved_env *s, const char *name) {
    const char *v = getenv(name);
    s->name = name;
    s->had = v != NULL;
    snprintf(s->value, sizeof s->value, "%s", v ? v : "");
}

static void restore_env(const saved_env *s) {
    if (s->had)
        setenv(s->name, s->value, 1);
    else
        unsetenv(s->name);
}

TEST_CASE(hash_sha256_path_follows_environment) {
    saved_env forced, no_sha;
    save_env(&forced, "ZKPIPE_FORCE_PORTABLE");
    save_env(&no_sha, "ZKPIPE_NO_SHA_NI");
    unsetenv("ZKPIPE_FORCE_PORTABLE");
    unsetenv("ZKPIPE_NO_SHA_NI");
    int adx = zkp_cpu_detect(), sha = zkp_cpu_use_sha;
    setenv("ZKPIPE_NO_SHA_NI", "1", 1);
    int adx_no_sha = zkp_cpu_detect(), sha_no_sha = zkp_cpu_use_sha;
    const char *name_no_sha = zkp_sha256_path_name();
    unsetenv("ZKPIPE_NO_SHA_NI");
    setenv("ZKPIPE_FORCE_PORTABLE", "1", 1);
    (void)zkp_cpu_detect();
    int sha_forced = zkp_cpu_use_sha;
    restore_env(&forced);
    restore_env(&no_sha);
    (void)zkp_cpu_detect();
    /* Detection follows the CPU; each variable turns the body off, and
     * ZKPIPE_NO_SHA_NI leaves the arithmetic path alone. */
    ASSERT_EQ_INT(sha, zkp_cpu_has_sha_ni());
    ASSERT_EQ_INT(sha_no_sha, 0);
    ASSERT_EQ_INT(sha_forced, 0);
    ASSERT_EQ_INT(adx_no_sha, adx);
    ASSERT_STR_EQ(name_no_sha, "portable");
}
