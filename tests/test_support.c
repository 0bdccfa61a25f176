#include "test_support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test.h"

zkp_json *test_load_json(const char *relpath) {
    const char *path = test_data_path(relpath);
    FILE *f = fopen(path, "rb");
    if (f == NULL) test_fail(__FILE__, __LINE__, "cannot open test data file %s", path);
    /* Read in chunks rather than trusting ftell, so pipes and odd files work
     * and a short read cannot go unnoticed. */
    size_t cap = 1 << 16, len = 0;
    char *buf = malloc(cap);
    if (buf == NULL) {
        fclose(f);
        test_fail(__FILE__, __LINE__, "out of memory reading %s", path);
    }
    for (;;) {
        if (len == cap) {
            char *grown = cap <= SIZE_MAX / 2 ? realloc(buf, cap * 2) : NULL;
            if (grown == NULL) {
                free(buf);
                fclose(f);
                test_fail(__FILE__, __LINE__, "out of memory reading %s", path);
            }
            buf = grown;
            cap *= 2;
        }
        size_t got = fread(buf + len, 1, cap - len, f);
        len += got;
        if (got == 0) break;
    }
    int bad = ferror(f);
    fclose(f);
    if (bad) {
        free(buf);
        test_fail(__FILE__, __LINE__, "read error on %s", path);
    }
    zkp_json *root = NULL;
    size_t off = 0;
    zkpipe_status st = zkp_json_parse(&root, buf, len, &off);
    free(buf);
    if (st != ZKPIPE_OK)
        test_fail(__FILE__, __LINE__, "%s: %s at byte %zu", path, zkpipe_status_name(st), off);
    return root;
}

static int hex_digit(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

static const char *skip_0x(const char *hex) {
    if (hex[0] == '0' && (hex[1] == 'x' || hex[1] == 'X')) return hex + 2;
    return hex;
}

size_t test_unhex(unsigned char *out, size_t cap, const char *hex) {
    if (hex == NULL) test_fail(__FILE__, __LINE__, "test_unhex: NULL string");
    const char *d = skip_0x(hex);
    size_t n = strlen(d);
    if (n % 2 != 0) test_fail(__FILE__, __LINE__, "test_unhex: odd digit count in \"%s\"", hex);
    if (n / 2 > cap)
        test_fail(__FILE__, __LINE__, "test_unhex: \"%s\" is %zu bytes, room for %zu", hex, n / 2,
                  cap);
    for (size_t i = 0; i < n / 2; i++) {
        int hi = hex_digit(d[2 * i]), lo = hex_digit(d[2 * i + 1]);
        if (hi < 0 || lo < 0) test_fail(__FILE__, __LINE__, "test_unhex: bad digit in \"%s\"", hex);
        out[i] = (unsigned char)(hi << 4 | lo);
    }
    return n / 2;
}

void test_hex_to_be(unsigned char *out, size_t len, const char *hex) {
    if (hex == NULL) test_fail(__FILE__, __LINE__, "test_hex_to_be: NULL string");
    const char *d = skip_0x(hex);
    size_t n = strlen(d);
    if (n == 0) test_fail(__FILE__, __LINE__, "test_hex_to_be: no digits in \"%s\"", hex);
    for (size_t i = 0; i < n; i++)
        if (hex_digit(d[i]) < 0)
            test_fail(__FILE__, __LINE__, "test_hex_to_be: bad digit in \"%s\"", hex);
    /* Leading zero digits do not count against the width, so a value
     * printed at another field's width still fits when it is small enough. */
    while (n > 0 && d[0] == '0') {
        d++;
        n--;
    }
    if (n > 2 * len)
        test_fail(__FILE__, __LINE__, "test_hex_to_be: \"%s\" does not fit in %zu bytes", hex, len);
    memset(out, 0, len);
    /* Fill from the least significant digit, so an odd digit count leaves
     * the top nibble of its byte zero. */
    for (size_t k = 0; k < n; k++) {
        int v = hex_digit(d[n - 1 - k]);
        unsigned char *b = &out[len - 1 - k / 2];
        *b |= (unsigned char)(k % 2 ? v << 4 : v);
    }
}
