/* A strict JSON reader (RFC 8259) for the snarkjs files zkpipe consumes:
 * verification keys, proofs and public inputs.
 *
 * Those files may come from anyone, so the reader treats its input as
 * hostile. It accepts exactly the RFC 8259 grammar and nothing more (no
 * comments, no trailing commas, no byte order mark, no NaN), requires the text
 * to be valid UTF-8, rejects duplicate member names in an object (so that two
 * readers can never disagree about which value a key has), and bounds the
 * nesting depth and the memory it uses. It never reads outside text[0..len)
 * and does not need text to be NUL-terminated. Parsing is iterative, so the
 * depth limit bounds heap use, not the C stack.
 *
 * The result is an immutable tree owned by its root. Strings are unescaped to
 * UTF-8 and NUL-terminated, but may contain NUL bytes (from \u0000), so code
 * that cares uses the length. Numbers are kept as their validated source text:
 * the grammar is checked, the value is not converted, since field elements in
 * snarkjs files are decimal strings far beyond any machine type.
 *
 * Every accessor accepts NULL and then returns its "absent" value, so lookups
 * can be chained: zkp_json_get(zkp_json_get(root, "a"), "b"). */
#ifndef ZKP_UTIL_JSON_H
#define ZKP_UTIL_JSON_H

#include <stddef.h>

#include "util/util.h"

typedef enum {
    ZKP_JSON_NULL,
    ZKP_JSON_BOOL,
    ZKP_JSON_NUMBER,
    ZKP_JSON_STRING,
    ZKP_JSON_ARRAY,
    ZKP_JSON_OBJECT
} zkp_json_type;

typedef struct zkp_json zkp_json;

/* The nesting depth zkp_json_parse allows: 64 open arrays or objects. snarkjs
 * files nest at most four deep. */
#define ZKP_JSON_DEFAULT_MAX_DEPTH 64

typedef struct {
    /* Open arrays/objects allowed at once; 0 means ZKP_JSON_DEFAULT_MAX_DEPTH. */
    size_t max_depth;
    /* Bytes the parser may allocate in total (the tree and its scratch
     * space); 0 means no limit beyond the one the input length implies.
     * Exceeding it fails with ZKPIPE_ERR_NO_MEMORY. */
    size_t max_memory;
} zkp_json_limits;

/* Parses one complete JSON text.
 *
 * On input: text[0..len) is the document (text may be NULL when len is 0).
 * On output: ZKPIPE_OK and *out the root, to be released with zkp_json_free;
 * or ZKPIPE_ERR_PARSE for malformed text (also: nesting too deep, duplicate
 * member names), ZKPIPE_ERR_NO_MEMORY when an allocation fails, or
 * ZKPIPE_ERR_INVALID_ARGUMENT; then *out is NULL and, if err_offset is not
 * NULL, *err_offset is the byte offset of the problem (len when the text ends
 * too early; 0 for NO_MEMORY and INVALID_ARGUMENT). */
ZKP_WARN_UNUSED zkpipe_status zkp_json_parse(zkp_json **out, const char *text, size_t len,
                                             size_t *err_offset);

/* zkp_json_parse with explicit limits; limits may be NULL for the defaults. */
ZKP_WARN_UNUSED zkpipe_status zkp_json_parse_ex(zkp_json **out, const char *text, size_t len,
                                                const zkp_json_limits *limits,
                                                size_t *err_offset);

/* What went wrong where, for messages. */
typedef struct {
    size_t offset;   /* as err_offset */
    char reason[160]; /* e.g. "duplicate member name \"a\"" (the name escaped as
                       * in JSON and shortened past 64 bytes), "nesting deeper
                       * than 16", "unexpected end of the text", "syntax
                       * error"; empty for NO_MEMORY and INVALID_ARGUMENT */
} zkp_json_error;

/* zkp_json_parse_ex, describing a failure in *err (which may be NULL). */
ZKP_WARN_UNUSED zkpipe_status zkp_json_parse_report(zkp_json **out, const char *text, size_t len,
                                                    const zkp_json_limits *limits,
                                                    zkp_json_error *err);

/* Frees a whole tree. root must be a pointer zkp_json_parse returned (or
 * NULL); passing an inner node does nothing. */
void zkp_json_free(zkp_json *root);

/* The type of v; ZKP_JSON_NULL when v is NULL (a missing value), so callers
 * that must tell "null" from "absent" test the pointer first. */
zkp_json_type zkp_json_type_of(const zkp_json *v);

/* The value of member key in obj: NULL if obj is not an object or has no such
 * member. Compares the whole key, so "a" does not match a name "a\u0000b". */
const zkp_json *zkp_json_get(const zkp_json *obj, const char *key);

/* Element count of an array or object, else 0. */
size_t zkp_json_len(const zkp_json *v);

/* Element i of an array, or the value of member i of an object (members keep
 * their document order); NULL if out of range or v is neither. */
const zkp_json *zkp_json_at(const zkp_json *v, size_t i);

/* Name of member i of an object; NULL if out of range or obj is not an object. */
const char *zkp_json_key_at(const zkp_json *obj, size_t i);

/* The unescaped bytes of a string, NUL-terminated, with their count (not
 * counting the terminator) in *len if len is not NULL; NULL unless v is a
 * string. */
const char *zkp_json_string(const zkp_json *v, size_t *len);

/* The source text of a number (grammar-checked, NUL-terminated); NULL unless
 * v is a number. */
const char *zkp_json_number_text(const zkp_json *v);

/* 1 for true, 0 for false or when v is not a bool. */
int zkp_json_bool(const zkp_json *v);

#endif
