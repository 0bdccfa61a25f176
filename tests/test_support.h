/* Helpers shared by test files that read data under tests/: JSON vector
 * files and the hex strings inside them. Each helper fails the running case
 * (through test_fail) instead of returning an error, so a test reads as a
 * list of expectations. */
#ifndef ZKP_TESTS_TEST_SUPPORT_H
#define ZKP_TESTS_TEST_SUPPORT_H

#include <stddef.h>

#include "util/json.h"

/* Reads and parses tests/<relpath>. Fails the case, naming the file and the
 * error offset, if the file is missing, unreadable or not valid JSON. The
 * caller releases the tree with zkp_json_free. */
zkp_json *test_load_json(const char *relpath);

/* Decodes a hex byte string (an optional "0x" prefix, then an even number of
 * hex digits, either case) into out[0..cap). Returns the byte count. Fails
 * the case on a bad digit, an odd digit count, or more than cap bytes. */
size_t test_unhex(unsigned char *out, size_t cap, const char *hex);

/* Writes the number "0x..." (any digit count; leading zeros allowed) as
 * exactly len big-endian bytes, left-padded with zeros. Fails the case on a
 * bad digit or a value that needs more than len bytes. */
void test_hex_to_be(unsigned char *out, size_t len, const char *hex);

#endif
