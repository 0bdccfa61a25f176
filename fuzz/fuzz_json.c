/* libFuzzer target: the JSON reader (util/json.h).
 *
 * Beyond "no crash, no leak, no read outside the input", it checks what the
 * reader promises about an accepted document: every member of an object is
 * found again by name (names are unique, so zkp_json_get must return exactly
 * member i), string lengths agree with their terminators, and a parse under a
 * memory limit either succeeds with the same shape or fails with
 * ZKPIPE_ERR_NO_MEMORY. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/json.h"

#define CHECK(cond)                  \
    do {                             \
        if (!(cond)) __builtin_trap(); \
    } while (0)

/* Visits every value; returns the count of values (a shape fingerprint). */
static size_t walk(const zkp_json *v, int depth) {
    CHECK(depth <= ZKP_JSON_DEFAULT_MAX_DEPTH + 1);
    size_t count = 1;
    switch (zkp_json_type_of(v)) {
    case ZKP_JSON_STRING: {
        size_t n = SIZE_MAX;
        const char *s = zkp_json_string(v, &n);
        CHECK(s != NULL && n != SIZE_MAX && s[n] == '\0');
        break;
    }
    case ZKP_JSON_NUMBER: {
        const char *t = zkp_json_number_text(v);
        CHECK(t != NULL && t[0] != '\0');
        break;
    }
    case ZKP_JSON_ARRAY:
        for (size_t i = 0; i < zkp_json_len(v); i++) {
            const zkp_json *e = zkp_json_at(v, i);
            CHECK(e != NULL);
            count += walk(e, depth + 1);
        }
        CHECK(zkp_json_at(v, zkp_json_len(v)) == NULL);
        CHECK(zkp_json_key_at(v, 0) == NULL);
        break;
    case ZKP_JSON_OBJECT:
        for (size_t i = 0; i < zkp_json_len(v); i++) {
            const char *k = zkp_json_key_at(v, i);
            const zkp_json *e = zkp_json_at(v, i);
            CHECK(k != NULL && e != NULL);
            /* plain: no other member has the same C-string name. */
            int plain = 1;
            for (size_t j = 0; j < zkp_json_len(v) && plain; j++)
                if (j != i && strcmp(zkp_json_key_at(v, j), k) == 0) plain = 0;
            /* A name with an embedded NUL (from \u0000) cannot be looked up by
             * its C string; then the lookup finds nothing or another member
             * that shares the prefix, which plain rules out. */
            const zkp_json *g = zkp_json_get(v, k);
            if (plain) CHECK(g == e || g == NULL);
            count += walk(e, depth + 1);
        }
        break;
    case ZKP_JSON_NULL:
    case ZKP_JSON_BOOL:
        (void)zkp_json_bool(v);
        break;
    }
    return count;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    zkp_json *root = (zkp_json *)&root;
    size_t off = SIZE_MAX;
    zkpipe_status st = zkp_json_parse(&root, (const char *)data, size, &off);
    size_t shape = 0;
    if (st == ZKPIPE_OK) {
        CHECK(root != NULL);
        shape = walk(root, 0);
        zkp_json_free(root);
    } else {
        CHECK(st == ZKPIPE_ERR_PARSE || st == ZKPIPE_ERR_NO_MEMORY);
        CHECK(root == NULL && off <= size);
    }

    /* Under a tight memory limit and a small depth limit. */
    zkp_json_limits lim = {.max_depth = 1 + size % 8, .max_memory = 64 + size * 4};
    zkp_json *r2 = NULL;
    zkpipe_status st2 = zkp_json_parse_ex(&r2, (const char *)data, size, &lim, NULL);
    if (st2 == ZKPIPE_OK) {
        CHECK(st == ZKPIPE_OK && walk(r2, 0) == shape);
        zkp_json_free(r2);
    } else {
        CHECK(st2 == ZKPIPE_ERR_PARSE || st2 == ZKPIPE_ERR_NO_MEMORY);
        CHECK(r2 == NULL);
    }
    return 0;
}
