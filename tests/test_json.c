/* Tests of the JSON reader: the accepted grammar, every class of rejection,
 * error offsets, resource limits, and random mutations under the sanitizers.
 *
 * Every document is parsed from a heap copy of exactly its length, with no
 * NUL after it, so that an AddressSanitizer build catches any read past the
 * end of the input. */
#include <stdlib.h>

#include "test.h"
#include "test_support.h"
#include "util/json.h"

/* Parses s[0..len) from an exact-size heap copy. */
static zkpipe_status parse_n(zkp_json **out, const char *s, size_t len, size_t *off) {
    char *copy = malloc(len ? len : 1);
    ASSERT(copy != NULL);
    if (len) memcpy(copy, s, len);
    zkpipe_status st = zkp_json_parse(out, copy, len, off);
    free(copy);
    return st;
}

static zkpipe_status parse_s(zkp_json **out, const char *s, size_t *off) {
    return parse_n(out, s, strlen(s), off);
}

/* Parses a document that must be valid. */
static zkp_json *must_parse(const char *s) {
    zkp_json *root = NULL;
    size_t off = 0;
    zkpipe_status st = parse_s(&root, s, &off);
    ASSERT_MSG(st == ZKPIPE_OK, "parse of <%s> failed: %s at %zu", s, zkpipe_status_name(st), off);
    return root;
}

/* Expects a parse error at the given offset (SIZE_MAX: any offset). */
static void expect_parse_error_n(const char *s, size_t len, size_t want_off) {
    zkp_json *root = (zkp_json *)&root; /* must be reset to NULL on failure */
    size_t off = SIZE_MAX;
    zkpipe_status st = parse_n(&root, s, len, &off);
    ASSERT_MSG(st == ZKPIPE_ERR_PARSE, "<%.*s> gave %s, expected ZKPIPE_ERR_PARSE", (int)len, s,
               zkpipe_status_name(st));
    ASSERT(root == NULL);
    ASSERT_MSG(off <= len, "<%.*s>: error offset %zu beyond length %zu", (int)len, s, off, len);
    if (want_off != SIZE_MAX)
        ASSERT_MSG(off == want_off, "<%.*s>: error offset %zu, expected %zu", (int)len, s, off,
                   want_off);
}

static void expect_parse_error(const char *s, size_t want_off) {
    expect_parse_error_n(s, strlen(s), want_off);
}

#define ANY_OFFSET SIZE_MAX

TEST_CASE(json_parse_scalars) {
    zkp_json *v = must_parse(" null ");
    ASSERT_EQ_INT(zkp_json_type_of(v), ZKP_JSON_NULL);
    zkp_json_free(v);

    v = must_parse("true");
    ASSERT_EQ_INT(zkp_json_type_of(v), ZKP_JSON_BOOL);
    ASSERT_EQ_INT(zkp_json_bool(v), 1);
    zkp_json_free(v);

    v = must_parse("\tfalse\r\n");
    ASSERT_EQ_INT(zkp_json_type_of(v), ZKP_JSON_BOOL);
    ASSERT_EQ_INT(zkp_json_bool(v), 0);
    zkp_json_free(v);

    v = must_parse("-1.5e-3");
    ASSERT_EQ_INT(zkp_json_type_of(v), ZKP_JSON_NUMBER);
    ASSERT_STR_EQ(zkp_json_number_text(v), "-1.5e-3");
    ASSERT(zkp_json_string(v, NULL) == NULL);
    ASSERT_EQ_INT(zkp_json_bool(v), 0);
    zkp_json_free(v);

    size_t n = 99;
    v = must_parse("\"abc\"");
    ASSERT_EQ_INT(zkp_json_type_of(v), ZKP_JSON_STRING);
    ASSERT_STR_EQ(zkp_json_string(v, &n), "abc");
    ASSERT_EQ_U64(n, 3);
    ASSERT(zkp_json_number_text(v) == NULL);
    ASSERT_EQ_U64(zkp_json_len(v), 0);
    ASSERT(zkp_json_at(v, 0) == NULL);
    zkp_json_free(v);

    v = must_parse("\"\"");
    ASSERT_STR_EQ(zkp_json_string(v, &n), "");
    ASSERT_EQ_U64(n, 0);
    zkp_json_free(v);
}

TEST_CASE(json_parse_containers) {
    zkp_json *root = must_parse(
        " { \"protocol\" : \"groth16\", \"curve\":\"bn128\", \"nPublic\": 2,\n"
        "   \"IC\": [[\"1\", \"2\", \"1\"], [], {}], \"ok\": true, \"none\": null,"
        " \"\": 0 } ");
    ASSERT_EQ_INT(zkp_json_type_of(root), ZKP_JSON_OBJECT);
    ASSERT_EQ_U64(zkp_json_len(root), 7);
    /* Members keep their document order. */
    const char *keys[] = {"protocol", "curve", "nPublic", "IC", "ok", "none", ""};
    for (size_t i = 0; i < 7; i++) ASSERT_STR_EQ(zkp_json_key_at(root, i), keys[i]);
    ASSERT(zkp_json_key_at(root, 7) == NULL);
    ASSERT(zkp_json_at(root, 7) == NULL);
    ASSERT(zkp_json_at(root, 3) == zkp_json_get(root, "IC"));

    ASSERT_STR_EQ(zkp_json_string(zkp_json_get(root, "protocol"), NULL), "groth16");
    ASSERT_STR_EQ(zkp_json_number_text(zkp_json_get(root, "nPublic")), "2");
    ASSERT_EQ_INT(zkp_json_bool(zkp_json_get(root, "ok")), 1);
    ASSERT_EQ_INT(zkp_json_type_of(zkp_json_get(root, "none")), ZKP_JSON_NULL);
    ASSERT(zkp_json_get(root, "none") != NULL);
    ASSERT(zkp_json_get(root, "missing") == NULL);
    ASSERT(zkp_json_get(root, "Protocol") == NULL);
    ASSERT(zkp_json_get(root, "protoco") == NULL);
    ASSERT_STR_EQ(zkp_json_number_text(zkp_json_get(root, "")), "0");

    const zkp_json *ic = zkp_json_get(root, "IC");
    ASSERT_EQ_INT(zkp_json_type_of(ic), ZKP_JSON_ARRAY);
    ASSERT_EQ_U64(zkp_json_len(ic), 3);
    ASSERT(zkp_json_key_at(ic, 0) == NULL); /* arrays have no keys */
    ASSERT(zkp_json_get(ic, "0") == NULL);
    const zkp_json *p0 = zkp_json_at(ic, 0);
    ASSERT_EQ_U64(zkp_json_len(p0), 3);
    ASSERT_STR_EQ(zkp_json_string(zkp_json_at(p0, 1), NULL), "2");
    ASSERT_EQ_INT(zkp_json_type_of(zkp_json_at(ic, 1)), ZKP_JSON_ARRAY);
    ASSERT_EQ_U64(zkp_json_len(zkp_json_at(ic, 1)), 0);
    ASSERT(zkp_json_at(zkp_json_at(ic, 1), 0) == NULL);
    ASSERT_EQ_INT(zkp_json_type_of(zkp_json_at(ic, 2)), ZKP_JSON_OBJECT);
    ASSERT_EQ_U64(zkp_json_len(zkp_json_at(ic, 2)), 0);
    ASSERT(zkp_json_at(ic, 3) == NULL);

    /* Accessors chain through NULL. */
    ASSERT(zkp_json_get(zkp_json_get(root, "missing"), "x") == NULL);
    ASSERT_EQ_U64(zkp_json_len(NULL), 0);
    ASSERT(zkp_json_string(NULL, NULL) == NULL);
    ASSERT(zkp_json_number_text(NULL) == NULL);
    ASSERT_EQ_INT(zkp_json_bool(NULL), 0);
    ASSERT(zkp_json_key_at(NULL, 0) == NULL);

    /* Freeing an inner node is a no-op; only the root owns memory. */
    zkp_json_free((zkp_json *)ic);
    zkp_json_free(root);
    zkp_json_free(NULL);

    /* Top-level arrays, and containers of every value type. */
    root = must_parse("[1,\"x\",true,false,null,[],{\"k\":[{}]}]");
    ASSERT_EQ_U64(zkp_json_len(root), 7);
    ASSERT_EQ_INT(zkp_json_type_of(zkp_json_at(root, 4)), ZKP_JSON_NULL);
    ASSERT_EQ_U64(zkp_json_len(zkp_json_get(zkp_json_at(root, 6), "k")), 1);
    zkp_json_free(root);
}

TEST_CASE(json_string_escapes) {
    size_t n;
    zkp_json *v = must_parse("\"\\\"\\\\\\/\\b\\f\\n\\r\\t\"");
    ASSERT_STR_EQ(zkp_json_string(v, &n), "\"\\/\b\f\n\r\t");
    ASSERT_EQ_U64(n, 8);
    zkp_json_free(v);

    /* \u escapes of one, two and three UTF-8 bytes, either hex case. */
    v = must_parse("\"\\u0041\\u00e9\\u00E9\\u20ac\\uFFFF\"");
    ASSERT_STR_EQ(zkp_json_string(v, &n), "A\xc3\xa9\xc3\xa9\xe2\x82\xac\xef\xbf\xbf");
    zkp_json_free(v);

    /* Surrogate pairs: U+1F600 and the extremes U+10000 and U+10FFFF. */
    v = must_parse("\"\\ud83d\\ude00|\\uD800\\uDC00|\\uDBFF\\uDFFF\"");
    ASSERT_STR_EQ(zkp_json_string(v, &n), "\xf0\x9f\x98\x80|\xf0\x90\x80\x80|\xf4\x8f\xbf\xbf");
    ASSERT_EQ_U64(n, 14);
    zkp_json_free(v);

    /* \u0000 gives an embedded NUL, visible through the length. */
    v = must_parse("\"a\\u0000b\"");
    const char *s = zkp_json_string(v, &n);
    ASSERT_EQ_U64(n, 3);
    ASSERT(memcmp(s, "a\0b", 4) == 0);
    zkp_json_free(v);

    /* Raw UTF-8 passes through unchanged; DEL needs no escape. */
    v = must_parse("\"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\x7f\"");
    ASSERT_STR_EQ(zkp_json_string(v, &n), "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\x7f");
    zkp_json_free(v);

    /* Escaped keys, and a name with a NUL that must not match its prefix. */
    v = must_parse("{\"a\\u0000b\":1,\"\\u0061\":2}");
    ASSERT_STR_EQ(zkp_json_number_text(zkp_json_get(v, "a")), "2");
    ASSERT(zkp_json_get(v, "a\\u0000b") == NULL);
    zkp_json_free(v);
}

TEST_CASE(json_rejects_bad_escapes) {
    expect_parse_error("\"\\x\"", 2);
    expect_parse_error("\"\\a\"", 2);
    expect_parse_error("\"\\U0041\"", 2);
    expect_parse_error("\"\\'\"", 2);
    expect_parse_error("\"\\u12\"", 5);
    expect_parse_error("\"\\u12G4\"", 5);
    expect_parse_error("\"\\u\"", 3);
    /* Lone or misordered surrogates cannot be encoded as UTF-8. */
    expect_parse_error("\"\\ud800\"", 7);
    expect_parse_error("\"\\ud800x\"", 7);
    expect_parse_error("\"\\ud800\\n\"", 7);
    expect_parse_error("\"\\ud800\\u0041\"", 7);
    expect_parse_error("\"\\ud800\\ud800\"", 7);
    expect_parse_error("\"\\udc00\"", 1);
    expect_parse_error("\"\\ude00\\ud83d\"", 1);
    expect_parse_error("\"\\ud83d\\ude0\"", 12);
    /* A backslash that escapes the closing quote leaves the string open. */
    expect_parse_error("\"abc\\\"", 6);
    expect_parse_error("\"\\", 2);
}

TEST_CASE(json_rejects_control_and_bad_utf8) {
    for (int c = 0; c < 0x20; c++) {
        char doc[4] = {'"', (char)c, '"', 0};
        expect_parse_error_n(doc, 3, 1);
    }
    /* Control characters outside strings are not whitespace either. */
    expect_parse_error("[1,\f2]", 3);
    expect_parse_error_n("[1]\0", 4, 3);
    expect_parse_error_n("\0", 1, 0);

    static const char *const bad[] = {
        "\"\x80\"",             /* lone continuation byte */
        "\"\xc0\x80\"",         /* overlong NUL */
        "\"\xc1\xbf\"",         /* overlong */
        "\"\xe0\x80\x80\"",     /* overlong 3-byte */
        "\"\xe0\x9f\xbf\"",     /* overlong 3-byte, top */
        "\"\xed\xa0\x80\"",     /* UTF-16 surrogate D800 */
        "\"\xed\xbf\xbf\"",     /* surrogate DFFF */
        "\"\xf0\x80\x80\x80\"", /* overlong 4-byte */
        "\"\xf0\x8f\xbf\xbf\"", /* overlong 4-byte, top */
        "\"\xf4\x90\x80\x80\"", /* above U+10FFFF */
        "\"\xf5\x80\x80\x80\"", /* invalid lead */
        "\"\xff\"",             /* invalid byte */
        "\"\xe2\x82\"",         /* truncated sequence */
        "\"\xe2\x82x\"",        /* bad continuation */
        "\"\xf0\x9f\x98\"",     /* truncated 4-byte */
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) expect_parse_error(bad[i], 1);
    /* Outside strings only ASCII is meaningful. */
    expect_parse_error("[\xc3\xa9]", 1);
    /* A byte order mark is not JSON text (RFC 8259 section 8.1 allows
     * rejecting it). */
    expect_parse_error("\xef\xbb\xbf{}", 0);
    /* The largest valid code points of each length are accepted. */
    zkp_json *v = must_parse("\"\xdf\xbf\xef\xbf\xbf\xf4\x8f\xbf\xbf\xee\x80\x80\"");
    zkp_json_free(v);
}

TEST_CASE(json_rejects_invalid_numbers) {
    expect_parse_error("01", 1);
    expect_parse_error("-01", 2);
    expect_parse_error("00", 1);
    expect_parse_error("1.", 2);
    expect_parse_error("1.e5", 2);
    expect_parse_error(".5", 0);
    expect_parse_error("-", 1);
    expect_parse_error("-a", 1);
    expect_parse_error("--1", 1);
    expect_parse_error("+1", 0);
    expect_parse_error("1e", 2);
    expect_parse_error("1e+", 3);
    expect_parse_error("1E-", 3);
    expect_parse_error("1ee5", 2);
    expect_parse_error("1e5.0", 3);
    expect_parse_error("1.5.0", 3);
    expect_parse_error("0x10", 1);
    expect_parse_error("NaN", 0);
    expect_parse_error("Infinity", 0);
    expect_parse_error("-Infinity", 1);
    expect_parse_error("1 2", 2);
    expect_parse_error("[01]", 2);
    expect_parse_error("[1.]", 3);
    expect_parse_error("{\"a\":-}", 6);
    expect_parse_error("[.5]", 1);
}

TEST_CASE(json_accepts_valid_numbers) {
    static const char *const ok[] = {
        "0",     "-0",    "0.0",        "-0.0",   "1",      "10",   "1e10",         "1E+10",
        "1e-10", "0e0",   "-1.25e+300", "123.45", "9e0999", "0.001", "1.7976931348623157e308",
        "21888242871839275222246405745257275088548364400416034343698204186575808495617",
        "-99999999999999999999999999999999999999999999999999999999999999999999999999999999",
    };
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        zkp_json *v = must_parse(ok[i]);
        ASSERT_STR_EQ(zkp_json_number_text(v), ok[i]); /* the text is kept verbatim */
        zkp_json_free(v);
        /* The same number inside an array, followed by a delimiter. */
        char doc[256];
        snprintf(doc, sizeof doc, "[%s,%s]", ok[i], ok[i]);
        v = must_parse(doc);
        ASSERT_STR_EQ(zkp_json_number_text(zkp_json_at(v, 1)), ok[i]);
        zkp_json_free(v);
    }
}

TEST_CASE(json_rejects_structural_errors) {
    expect_parse_error("", 0);
    expect_parse_error("   \n", 4);
    expect_parse_error("[1] x", 4);
    expect_parse_error("{} {}", 3);
    expect_parse_error("[1][2]", 3);
    expect_parse_error("\"a\"\"b\"", 3);
    expect_parse_error("[1,]", 3);
    expect_parse_error("[,1]", 1);
    expect_parse_error("[1,,2]", 3);
    expect_parse_error("[1 2]", 3);
    expect_parse_error("{\"a\":1,}", 7);
    expect_parse_error("{,}", 1);
    expect_parse_error("{\"a\" 1}", 5);
    expect_parse_error("{\"a\":}", 5);
    expect_parse_error("{\"a\"}", 4);
    expect_parse_error("{\"a\":1 \"b\":2}", 7);
    expect_parse_error("{1:2}", 1);
    expect_parse_error("{a:1}", 1);
    expect_parse_error("{'a':1}", 1);
    expect_parse_error("['a']", 1);
    expect_parse_error("]", 0);
    expect_parse_error("}", 0);
    expect_parse_error("[}", 1);
    expect_parse_error("{]", 1);
    expect_parse_error("[1}", 2);
    expect_parse_error("{\"a\":1]", 6);
    expect_parse_error("[1]//c", 3);
    expect_parse_error("[1,/*c*/2]", 3);
    expect_parse_error("tru", 3);
    expect_parse_error("trUe", 2);
    expect_parse_error("True", 0);
    expect_parse_error("nul", 3);
    expect_parse_error("nulll", 4);
    expect_parse_error("falsey", 5);
    expect_parse_error(":", 0);
    expect_parse_error(",", 0);
}

/* Every proper prefix of a valid document is a truncated document. Since
 * each one could still be completed, the parser must report the error at the
 * very end, never earlier, and never read past it. */
TEST_CASE(json_rejects_every_truncation) {
    static const char doc[] =
        "{\"vk_alpha_1\":[\"2088\",\"-1.5e+7\",\"1\"],\"n\":-0.25E-2,\"t\":true,\"f\":false,"
        "\"z\":null,\"s\":\"\\u00e9\\ud83d\\ude00\\n\\\"\xc3\xa9\",\"o\":{\"a\":[[],{}]},"
        "\"e\":[ 1 , 2 ]}";
    size_t len = strlen(doc);
    zkp_json *root = must_parse(doc);
    ASSERT_EQ_U64(zkp_json_len(root), 8);
    zkp_json_free(root);
    for (size_t n = 0; n < len; n++) expect_parse_error_n(doc, n, n);
}

TEST_CASE(json_depth_limit) {
    enum { D = ZKP_JSON_DEFAULT_MAX_DEPTH };
    char ok[2 * D + 1], over[2 * (D + 1) + 1];
    memset(ok, '[', D);
    memset(ok + D, ']', D);
    ok[2 * D] = 0;
    memset(over, '[', D + 1);
    memset(over + D + 1, ']', D + 1);
    over[2 * D + 2] = 0;
    zkp_json *v = must_parse(ok);
    ASSERT_EQ_U64(zkp_json_len(v), 1);
    zkp_json_free(v);
    expect_parse_error(over, D); /* at the bracket that opens level D + 1 */

    /* A depth bomb fails at the limit, without walking the rest. */
    size_t bomb_len = 1u << 20;
    char *bomb = malloc(bomb_len);
    ASSERT(bomb != NULL);
    memset(bomb, '[', bomb_len);
    zkp_json *root = NULL;
    size_t off = 0;
    ASSERT_EQ_STATUS(zkp_json_parse(&root, bomb, bomb_len, &off), ZKPIPE_ERR_PARSE);
    ASSERT_EQ_U64(off, D);
    /* The same with objects. */
    for (size_t i = 0; i + 5 <= bomb_len; i += 5) memcpy(bomb + i, "{\"a\":", 5);
    ASSERT_EQ_STATUS(zkp_json_parse(&root, bomb, bomb_len / 5 * 5, &off), ZKPIPE_ERR_PARSE);
    ASSERT_EQ_U64(off, 5 * D);

    /* Explicit limits: deeper nesting when allowed (the parser is iterative,
     * so this needs no C stack), and a tighter cap. */
    enum { DEEP = 100000 };
    char *deep = malloc(2 * DEEP);
    ASSERT(deep != NULL);
    memset(deep, '[', DEEP);
    memset(deep + DEEP, ']', DEEP);
    zkp_json_limits lim = {.max_depth = DEEP, .max_memory = 0};
    ASSERT_OK(zkp_json_parse_ex(&root, deep, 2 * DEEP, &lim, &off));
    const zkp_json *w = root;
    for (int i = 1; i < DEEP; i++) w = zkp_json_at(w, 0);
    ASSERT_EQ_INT(zkp_json_type_of(w), ZKP_JSON_ARRAY);
    ASSERT_EQ_U64(zkp_json_len(w), 0);
    zkp_json_free(root);
    lim.max_depth = DEEP - 1;
    ASSERT_EQ_STATUS(zkp_json_parse_ex(&root, deep, 2 * DEEP, &lim, &off), ZKPIPE_ERR_PARSE);
    ASSERT_EQ_U64(off, DEEP - 1);
    lim.max_depth = 1;
    ASSERT_EQ_STATUS(zkp_json_parse_ex(&root, "[1,{}]", 6, &lim, &off), ZKPIPE_ERR_PARSE);
    ASSERT_EQ_U64(off, 3);
    ASSERT_OK(zkp_json_parse_ex(&root, "[1]", 3, &lim, &off));
    zkp_json_free(root);
    free(deep);
    free(bomb);
}

TEST_CASE(json_rejects_duplicate_keys) {
    const char *doc = "{\"a\":1,\"b\":2,\"a\":3}";
    expect_parse_error(doc, (size_t)(strstr(doc + 2, "\"a\"") - doc));
    /* Nested objects are checked on their own. */
    expect_parse_error("{\"x\":{\"k\":1,\"k\":1}}", 12);
    zkp_json *v = must_parse("{\"x\":{\"k\":1},\"y\":{\"k\":1},\"k\":[{\"k\":0}]}");
    zkp_json_free(v);
    /* Names that differ only after a NUL, or in length, are distinct. */
    v = must_parse("{\"a\":1,\"a\\u0000\":2,\"aa\":3,\"\":4}");
    ASSERT_EQ_U64(zkp_json_len(v), 4);
    ASSERT_STR_EQ(zkp_json_number_text(zkp_json_get(v, "a")), "1");
    zkp_json_free(v);
    /* Escapes are compared after unescaping. */
    expect_parse_error("{\"a\":1,\"\\u0061\":2}", 7);

    /* A large object: distinct names pass, one repeat at the end fails, and
     * the check stays fast (it sorts rather than comparing all pairs). */
    enum { N = 20000 };
    size_t cap = (size_t)N * 16 + 64, len = 0;
    char *big = malloc(cap);
    ASSERT(big != NULL);
    big[len++] = '{';
    for (int i = 0; i < N; i++)
        len += (size_t)snprintf(big + len, cap - len, "%s\"k%d\":%d", i ? "," : "", i, i);
    size_t open_len = len;
    big[len++] = '}';
    zkp_json *root = NULL;
    size_t off;
    ASSERT_OK(zkp_json_parse(&root, big, len, &off));
    ASSERT_EQ_U64(zkp_json_len(root), N);
    ASSERT_STR_EQ(zkp_json_number_text(zkp_json_get(root, "k12345")), "12345");
    ASSERT_STR_EQ(zkp_json_key_at(root, N - 1), "k19999");
    zkp_json_free(root);
    len = open_len;
    len += (size_t)snprintf(big + len, cap - len, ",\"k777\":0}");
    ASSERT_EQ_STATUS(zkp_json_parse(&root, big, len, &off), ZKPIPE_ERR_PARSE);
    ASSERT_EQ_U64(off, open_len + 1);
    free(big);
}

/* The reason of a parse failure, from zkp_json_parse_report. */
static void expect_reason(const char *doc, size_t want_off, const char *want) {
    zkp_json *root = NULL;
    zkp_json_error err;
    ASSERT_EQ_STATUS(zkp_json_parse_report(&root, doc, strlen(doc), NULL, &err), ZKPIPE_ERR_PARSE);
    ASSERT(root == NULL);
    ASSERT_EQ_U64(err.offset, want_off);
    ASSERT_MSG(!strcmp(err.reason, want), "<%s>: reason \"%s\", expected \"%s\"", doc, err.reason,
               want);
}

TEST_CASE(json_reports_why) {
    expect_reason("{\"a\":1,\"b\":2,\"a\":3}", 13, "duplicate member name \"a\"");
    expect_reason("{\"x\":{\"key\":1,\"key\":1}}", 14, "duplicate member name \"key\"");
    /* Names are shown escaped, so what was unescaped shows as it was meant. */
    expect_reason("{\"q\\\"\\u0001\":1,\"q\\\"\\u0001\":2}", 15,
                  "duplicate member name \"q\\\"\\u0001\"");
    expect_reason("[1,", 3, "unexpected end of the text");
    expect_reason("[1,]", 3, "syntax error");
    zkp_json_limits lim = {.max_depth = 2, .max_memory = 0};
    zkp_json *root = NULL;
    zkp_json_error err;
    ASSERT_EQ_STATUS(zkp_json_parse_report(&root, "[[[1]]]", 7, &lim, &err), ZKPIPE_ERR_PARSE);
    ASSERT_STR_EQ(err.reason, "nesting deeper than 2");
    /* A long name is cut, and says so. */
    char doc[700], name[301];
    memset(name, 'n', 300);
    name[300] = '\0';
    snprintf(doc, sizeof doc, "{\"%s\":1,\"%s\":2}", name, name);
    ASSERT_EQ_STATUS(zkp_json_parse_report(&root, doc, strlen(doc), NULL, &err), ZKPIPE_ERR_PARSE);
    ASSERT_MSG(strlen(err.reason) < sizeof err.reason && strstr(err.reason, "nnnn...\"") != NULL,
               "reason: %s", err.reason);
    /* A name of many escaped bytes still fits. */
    char esc[64 * 6 + 1] = "";
    for (int i = 0; i < 64; i++) strcat(esc, "\\u0002");
    char doc2[1000];
    snprintf(doc2, sizeof doc2, "{\"%s\":1,\"%s\":2}", esc, esc);
    ASSERT_EQ_STATUS(zkp_json_parse_report(&root, doc2, strlen(doc2), NULL, &err), ZKPIPE_ERR_PARSE);
    ASSERT_MSG(strlen(err.reason) < sizeof err.reason && strstr(err.reason, "...\"") != NULL,
               "reason: %s", err.reason);
    /* Success leaves the reason empty; a NULL err is allowed. */
    ASSERT_OK(zkp_json_parse_report(&root, "{}", 2, NULL, &err));
    ASSERT_STR_EQ(err.reason, "");
    zkp_json_free(root);
    ASSERT_OK(zkp_json_parse_report(&root, "[]", 2, NULL, NULL));
    zkp_json_free(root);
}

/* Walks a whole tree through the public accessors. */
static size_t walk(const zkp_json *v) {
    size_t count = 1;
    switch (zkp_json_type_of(v)) {
    case ZKP_JSON_ARRAY:
    case ZKP_JSON_OBJECT:
        for (size_t i = 0; i < zkp_json_len(v); i++) {
            const zkp_json *c = zkp_json_at(v, i);
            ASSERT(c != NULL);
            if (zkp_json_type_of(v) == ZKP_JSON_OBJECT) {
                const char *k = zkp_json_key_at(v, i);
                ASSERT(k != NULL);
                (void)strlen(k);
            }
            count += walk(c);
        }
        break;
    case ZKP_JSON_STRING: {
        size_t n;
        const char *s = zkp_json_string(v, &n);
        ASSERT(s != NULL && s[n] == '\0');
        break;
    }
    case ZKP_JSON_NUMBER:
        ASSERT(zkp_json_number_text(v) != NULL);
        break;
    default:
        break;
    }
    return count;
}

TEST_CASE(json_memory_limit) {
    static const char doc[] =
        "{\"a\":[1,2,3,{\"b\":\"xyz\\u00e9\"}],\"c\":{\"d\":[true,false,null]},\"e\":\"f\"}";
    size_t len = strlen(doc);
    zkp_json *root = must_parse(doc);
    size_t nodes = walk(root);
    zkp_json_free(root);
    root = NULL;
    size_t off = 1;
    zkp_json_limits lim = {.max_depth = 0, .max_memory = 16};
    ASSERT_EQ_STATUS(zkp_json_parse_ex(&root, doc, len, &lim, &off), ZKPIPE_ERR_NO_MEMORY);
    ASSERT(root == NULL);
    ASSERT_EQ_U64(off, 0);
    /* Every limit fails cleanly (no leak, which LeakSanitizer would report)
     * until one is large enough; then every larger one succeeds. */
    size_t first_ok = 0;
    for (size_t m = 1; m < 1 << 16; m += (m < 8192 ? 1 : 97)) {
        lim.max_memory = m;
        zkpipe_status st = zkp_json_parse_ex(&root, doc, len, &lim, &off);
        if (st == ZKPIPE_OK) {
            if (first_ok == 0) first_ok = m;
            ASSERT_EQ_U64(walk(root), nodes);
            zkp_json_free(root);
        } else {
            ASSERT_EQ_STATUS(st, ZKPIPE_ERR_NO_MEMORY);
            ASSERT_MSG(first_ok == 0, "limit %zu failed after %zu succeeded", m, first_ok);
        }
    }
    ASSERT(first_ok > 0);
}

TEST_CASE(json_invalid_arguments) {
    zkp_json *root = NULL;
    size_t off = 7;
    ASSERT_EQ_STATUS(zkp_json_parse(NULL, "1", 1, &off), ZKPIPE_ERR_INVALID_ARGUMENT);
    ASSERT_EQ_STATUS(zkp_json_parse(&root, NULL, 1, &off), ZKPIPE_ERR_INVALID_ARGUMENT);
    ASSERT(root == NULL);
    ASSERT_EQ_STATUS(zkp_json_parse(&root, NULL, 0, &off), ZKPIPE_ERR_PARSE);
    ASSERT_EQ_U64(off, 0);
    /* err_offset is optional. */
    ASSERT_EQ_STATUS(zkp_json_parse(&root, "[", 1, NULL), ZKPIPE_ERR_PARSE);
    ASSERT_OK(zkp_json_parse(&root, "[]", 2, NULL));
    zkp_json_free(root);
}

/* Random byte edits of a valid document must give either a valid tree or a
 * parse error with an in-range offset, and never a crash or an out-of-bounds
 * read (which the sanitizer build turns into a failure). */
TEST_CASE(json_random_mutations) {
    static const char base[] =
        "{\"pi_a\":["
        "\"1368015179489954701390400359078579693043519447331113978918064868415326638035\","
        "\"9918110051302171585080402603319702774565515993150576347155970296011118125764\","
        "\"1\"],"
        "\"s\":\"a\\u00e9\\ud83d\\ude00\\\\\\\"\xe2\x82\xac\","
        "\"n\":[-0.5e+3,0,1E2,true,false,null],"
        "\"o\":{\"x\":{},\"y\":[[]]}}";
    static const char alphabet[] =
        "{}[]\",:\\u0123456789abcdefABCDEF.-+eEtrunlsf \t\n\x01\x7f\xc3\xa9\xed\xf4";
    size_t base_len = strlen(base);
    char *buf = malloc(base_len + 8);
    ASSERT(buf != NULL);
    unsigned iters = test_iters(20000);
    unsigned ok = 0;
    for (unsigned it = 0; it < iters; it++) {
        memcpy(buf, base, base_len);
        size_t len = base_len;
        unsigned edits = 1 + (unsigned)(test_rng_u64() % 4);
        for (unsigned e = 0; e < edits; e++) {
            uint64_t r = test_rng_u64();
            size_t at = (size_t)((r >> 8) % (len + 1));
            char c = (r >> 40) & 1 ? (char)(r >> 48) : alphabet[(r >> 48) % (sizeof alphabet - 1)];
            switch (r % 3) {
            case 0: /* replace */
                if (at < len) buf[at] = c;
                break;
            case 1: /* insert */
                if (len < base_len + 8) {
                    memmove(buf + at + 1, buf + at, len - at);
                    buf[at] = c;
                    len++;
                }
                break;
            default: /* delete */
                if (at < len) {
                    memmove(buf + at, buf + at + 1, len - at - 1);
                    len--;
                }
                break;
            }
        }
        char *exact = malloc(len ? len : 1);
        ASSERT(exact != NULL);
        memcpy(exact, buf, len);
        zkp_json *root = NULL;
        size_t off = SIZE_MAX;
        zkpipe_status st = zkp_json_parse(&root, exact, len, &off);
        if (st == ZKPIPE_OK) {
            ASSERT(walk(root) > 0);
            zkp_json_free(root);
            ok++;
        } else {
            ASSERT_EQ_STATUS(st, ZKPIPE_ERR_PARSE);
            ASSERT(root == NULL);
            ASSERT(off <= len);
        }
        free(exact);
    }
    free(buf);
    printf("  %u of %u mutated documents were still valid\n", ok, iters);
}

TEST_CASE(json_test_support_hex) {
    unsigned char b[8];
    ASSERT_EQ_U64(test_unhex(b, sizeof b, "0x00ff10Ab"), 4);
    ASSERT(b[0] == 0x00 && b[1] == 0xff && b[2] == 0x10 && b[3] == 0xab);
    ASSERT_EQ_U64(test_unhex(b, sizeof b, "0102"), 2);
    ASSERT(b[0] == 1 && b[1] == 2);
    ASSERT_EQ_U64(test_unhex(b, sizeof b, ""), 0);
    ASSERT_EQ_U64(test_unhex(b, sizeof b, "0x"), 0);
    ASSERT_EQ_U64(test_unhex(b, 8, "0001020304050607"), 8);

    test_hex_to_be(b, 4, "0x1");
    ASSERT(b[0] == 0 && b[1] == 0 && b[2] == 0 && b[3] == 1);
    test_hex_to_be(b, 4, "0xabc");
    ASSERT(b[0] == 0 && b[1] == 0 && b[2] == 0x0a && b[3] == 0xbc);
    test_hex_to_be(b, 4, "0xdeadBEEF");
    ASSERT(b[0] == 0xde && b[1] == 0xad && b[2] == 0xbe && b[3] == 0xef);
    /* Leading zeros beyond the width are fine when the value fits. */
    test_hex_to_be(b, 2, "0x000000000102");
    ASSERT(b[0] == 1 && b[1] == 2);
    test_hex_to_be(b, 2, "0");
    ASSERT(b[0] == 0 && b[1] == 0);
}

/* The committed known-answer vectors parse, and have the documented shape. */
TEST_CASE(json_vectors_load) {
    static const struct {
        const char *file, *curve;
        size_t fp_bytes;
        int has_zcash;
    } files[] = {
        {"vectors/bn254.json", "bn254", 32, 0},
        {"vectors/bls12_381.json", "bls12_381", 48, 1},
    };
    for (size_t f = 0; f < 2; f++) {
        zkp_json *root = test_load_json(files[f].file);
        ASSERT_STR_EQ(zkp_json_string(zkp_json_get(root, "curve"), NULL), files[f].curve);
        const char *gen = zkp_json_string(zkp_json_get(root, "generator"), NULL);
        ASSERT(gen != NULL && strncmp(gen, "@noble/curves ", 14) == 0);

        unsigned char p[48];
        test_hex_to_be(p, files[f].fp_bytes, zkp_json_string(zkp_json_get(root, "p"), NULL));
        ASSERT(p[0] != 0); /* p fills its width */
        unsigned char r[32];
        test_hex_to_be(r, 32, zkp_json_string(zkp_json_get(root, "r"), NULL));

        static const char *const field_ops[] = {"mul", "sqr", "add", "sub", "inv", "sqrt",
                                                "non_squares", "pow", "decimal"};
        for (size_t i = 0; i < sizeof field_ops / sizeof field_ops[0]; i++) {
            ASSERT_MSG(zkp_json_len(zkp_json_get(zkp_json_get(root, "fp"), field_ops[i])) > 0,
                       "%s: fp.%s is empty", files[f].file, field_ops[i]);
            ASSERT_MSG(zkp_json_len(zkp_json_get(zkp_json_get(root, "fr"), field_ops[i])) > 0,
                       "%s: fr.%s is empty", files[f].file, field_ops[i]);
        }
        const zkp_json *mul0 = zkp_json_at(zkp_json_get(zkp_json_get(root, "fp"), "mul"), 0);
        ASSERT(zkp_json_string(zkp_json_get(mul0, "a"), NULL) != NULL);
        ASSERT(zkp_json_string(zkp_json_get(mul0, "out"), NULL) != NULL);
        const zkp_json *dec = zkp_json_at(zkp_json_get(zkp_json_get(root, "fp"), "decimal"), 0);
        ASSERT_STR_EQ(zkp_json_string(zkp_json_get(dec, "dec"), NULL), "0");

        const zkp_json *fp2mul = zkp_json_at(zkp_json_get(zkp_json_get(root, "fp2"), "mul"), 0);
        ASSERT_EQ_U64(zkp_json_len(zkp_json_get(fp2mul, "a")), 2);

        const zkp_json *g1 = zkp_json_get(root, "g1");
        const zkp_json *g2 = zkp_json_get(root, "g2");
        ASSERT(zkp_json_string(zkp_json_get(zkp_json_get(g1, "generator"), "x"), NULL) != NULL);
        ASSERT_EQ_U64(zkp_json_len(zkp_json_get(zkp_json_get(g2, "generator"), "x")), 2);
        /* The first add case is P + (-P), whose result is the point at infinity. */
        const zkp_json *add0 = zkp_json_at(zkp_json_get(g1, "add"), 0);
        ASSERT_EQ_INT(zkp_json_type_of(zkp_json_get(add0, "out")), ZKP_JSON_NULL);
        ASSERT(zkp_json_get(add0, "out") != NULL);
        ASSERT(zkp_json_len(zkp_json_get(g1, "mul")) > 0);
        ASSERT(zkp_json_len(zkp_json_get(g2, "not_in_subgroup")) > 0);
        /* BN254 G1 has cofactor 1, so it has no points outside the subgroup. */
        ASSERT_EQ_U64(zkp_json_len(zkp_json_get(g1, "not_in_subgroup")) > 0, files[f].has_zcash);

        const zkp_json *pairing = zkp_json_get(root, "pairing");
        ASSERT_EQ_U64(zkp_json_len(pairing), 5);
        ASSERT_EQ_U64(zkp_json_len(zkp_json_get(zkp_json_at(pairing, 0), "out")), 12);
        ASSERT_STR_EQ(zkp_json_string(zkp_json_get(root, "pairing_exponent"), NULL),
                      "exact (p^12-1)/r");
        ASSERT_EQ_INT(zkp_json_type_of(zkp_json_get(root, "noble_pairing_matches_exact")),
                      ZKP_JSON_BOOL);

        /* circom layout: a G1 point is 2 Montgomery elements, little-endian. */
        unsigned char pt[2 * 48];
        const zkp_json *cg1 = zkp_json_at(zkp_json_get(zkp_json_get(root, "circom"), "g1"), 1);
        ASSERT_EQ_U64(test_unhex(pt, sizeof pt, zkp_json_string(zkp_json_get(cg1, "bytes"), NULL)),
                      2 * files[f].fp_bytes);

        const zkp_json *zcash = zkp_json_get(root, "zcash");
        ASSERT_EQ_INT(zcash != NULL, files[f].has_zcash);
        if (zcash) {
            const zkp_json *z1 = zkp_json_at(zkp_json_get(zcash, "g1"), 1);
            unsigned char enc[96];
            ASSERT_EQ_U64(test_unhex(enc, sizeof enc,
                                     zkp_json_string(zkp_json_get(z1, "compressed"), NULL)),
                          48);
            ASSERT(enc[0] & 0x80); /* the compression flag */
            ASSERT(zkp_json_len(zkp_json_get(zcash, "invalid")) > 0);
        }
        zkp_json_free(root);
    }
}
