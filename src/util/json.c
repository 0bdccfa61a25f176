/* The JSON reader. See json.h for the contract.
 *
 * DESIGN. The parser is a loop over an explicit stack rather than a recursive
 * descent, so a hostile nesting depth costs heap (bounded by the depth limit)
 * and never C stack. Completed values wait on a value stack until the
 * container that holds them closes; then they are copied, in document order,
 * into one array of that container, so each container costs one allocation
 * and element access is O(1). All tree memory (nodes, strings, number texts,
 * element arrays) comes from an arena of a few large blocks owned by the
 * root, so freeing a tree is freeing its blocks, and an error halfway through
 * a document leaves nothing to untangle.
 *
 * Every allocation goes through mem_alloc/mem_realloc below, which enforce
 * the caller's memory limit, and every size computed from the input goes
 * through the overflow-checked helpers in util.h first. */
#include "util/json.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct zkp_json {
    zkp_json_type type;
    unsigned char boolean;
    /* Set only on the node zkp_json_parse returns, which is the first member
     * of a json_doc and so can find the arena blocks to free. */
    unsigned char is_root;
    /* Bytes of a string or number text (without the NUL); elements of an
     * array or object. */
    size_t len;
    union {
        const char *text;  /* strings and numbers */
        zkp_json **items;  /* arrays and objects */
    } u;
    /* The member name when this node is the value of an object member. It
     * lives in the child, not the parent, so that an object needs no second
     * array; key_offset is only kept to report duplicates precisely. */
    const char *key;
    size_t key_len;
    size_t key_offset;
};

/* Arena blocks hold max_align_t elements so that the data area, and every
 * allocation rounded to ARENA_ALIGN within it, is aligned for any type. */
typedef struct json_block {
    struct json_block *next;
    size_t used;
    size_t cap;
    max_align_t data[];
} json_block;

typedef struct {
    zkp_json root; /* first member: zkp_json_free converts back from it */
    json_block *blocks;
} json_doc;

#define ARENA_ALIGN ((size_t)_Alignof(max_align_t))
/* Blocks start small, since most documents are a few kilobytes, and double
 * up to a size that keeps the block count low without asking malloc for
 * buffers large enough to belong in the memory pool. */
#define ARENA_FIRST_BLOCK ((size_t)4096)
#define ARENA_MAX_BLOCK ((size_t)256 * 1024)

typedef struct {
    zkp_json_type type;    /* ZKP_JSON_ARRAY or ZKP_JSON_OBJECT */
    size_t first;          /* index of its first element on the value stack */
    size_t open_offset;    /* offset of its '[' or '{' */
    const char *key;       /* the member name just read, waiting for its value */
    size_t key_len;
    size_t key_offset;
} json_frame;

typedef struct {
    const unsigned char *s;
    size_t len;
    size_t pos;

    size_t max_depth;
    size_t max_memory; /* 0: unlimited */
    size_t mem_used;
    size_t nodes;
    size_t max_nodes;

    json_block *blocks;
    size_t next_block;

    zkp_json **vals;
    size_t nvals, cap_vals;
    json_frame *frames;
    size_t depth, cap_frames;

    zkpipe_status status;
    size_t err_offset;
    /* A specific reason for a parse error, when one is known (duplicate
     * names, depth); the entry point supplies a generic one otherwise. */
    char reason[sizeof(((zkp_json_error *)0)->reason)];
} json_parser;

/* ------------------------------------------------------------------------ */
/* Memory. */

static int fail(json_parser *p, zkpipe_status s, size_t offset) {
    p->status = s;
    p->err_offset = offset;
    return -1;
}

static int fail_parse(json_parser *p, size_t offset) { return fail(p, ZKPIPE_ERR_PARSE, offset); }

static int fail_nomem(json_parser *p) { return fail(p, ZKPIPE_ERR_NO_MEMORY, 0); }

/* Allocates with malloc, unless that would take the parser past the caller's
 * memory limit. */
static void *mem_alloc(json_parser *p, size_t n) {
    if (p->max_memory != 0 && n > p->max_memory - p->mem_used) return NULL;
    void *m = malloc(n);
    if (m != NULL) p->mem_used += n;
    return m;
}

static void *mem_realloc(json_parser *p, void *old, size_t old_n, size_t new_n) {
    /* new_n > old_n always here: the stacks only grow. */
    if (p->max_memory != 0 && new_n - old_n > p->max_memory - p->mem_used) return NULL;
    void *m = realloc(old, new_n);
    if (m != NULL) p->mem_used += new_n - old_n;
    return m;
}

static void mem_free(json_parser *p, void *m, size_t n) {
    free(m);
    p->mem_used -= n;
}

static void free_blocks(json_block *b) {
    while (b != NULL) {
        json_block *next = b->next;
        free(b);
        b = next;
    }
}

/* Returns size bytes from the arena, aligned to ARENA_ALIGN; NULL (with
 * p->status set) on allocation failure or a size that cannot be represented. */
static void *arena_alloc(json_parser *p, size_t size) {
    size_t n;
    if (zkp_add_overflow(size, ARENA_ALIGN - 1, &n)) {
        fail_nomem(p);
        return NULL;
    }
    n &= ~(ARENA_ALIGN - 1);
    if (n == 0) n = ARENA_ALIGN;

    json_block *head = p->blocks;
    if (head != NULL && head->cap - head->used >= n) {
        void *r = (char *)head->data + head->used;
        head->used += n;
        return r;
    }
    size_t cap = n > p->next_block ? n : p->next_block;
    size_t total;
    if (zkp_add_overflow(sizeof(json_block), cap, &total)) {
        fail_nomem(p);
        return NULL;
    }
    json_block *b = mem_alloc(p, total);
    if (b == NULL) {
        fail_nomem(p);
        return NULL;
    }
    b->cap = cap;
    b->used = n;
    if (cap == n && head != NULL) {
        /* A block made for one large request is full at once; link it behind
         * the head so the head's free space stays in use. */
        b->next = head->next;
        head->next = b;
    } else {
        b->next = head;
        p->blocks = b;
        if (p->next_block < ARENA_MAX_BLOCK) p->next_block *= 2;
    }
    return b->data;
}

/* Doubles a scratch stack of elem-byte entries. Returns the new base, or NULL
 * (with p->status set) when the new size overflows or exceeds the limit; the
 * old base then stays valid and is freed with the parser. */
static void *stack_grow(json_parser *p, void *base, size_t *cap, size_t elem) {
    size_t new_cap, old_bytes, new_bytes;
    if (*cap == 0) {
        new_cap = 16;
    } else if (zkp_mul_overflow(*cap, 2, &new_cap)) {
        fail_nomem(p);
        return NULL;
    }
    if (zkp_mul_overflow(*cap, elem, &old_bytes) || zkp_mul_overflow(new_cap, elem, &new_bytes)) {
        fail_nomem(p);
        return NULL;
    }
    void *m = mem_realloc(p, base, old_bytes, new_bytes);
    if (m == NULL) {
        fail_nomem(p);
        return NULL;
    }
    *cap = new_cap;
    return m;
}

/* ------------------------------------------------------------------------ */
/* Nodes and the two stacks. */

static zkp_json *new_node(json_parser *p, zkp_json_type type, size_t offset) {
    /* Every value takes at least one byte of input and values are separated
     * by at least one more, so a valid document never reaches this limit. It
     * bounds the tree by the input size even if that reasoning is ever
     * broken by a change to the grammar code. */
    if (p->nodes >= p->max_nodes) {
        fail_parse(p, offset);
        return NULL;
    }
    zkp_json *v = arena_alloc(p, sizeof *v);
    if (v == NULL) return NULL;
    memset(v, 0, sizeof *v);
    v->type = type;
    p->nodes++;
    return v;
}

/* Puts a finished value on the value stack; inside an object it takes the
 * member name that was read before it. */
static int push_value(json_parser *p, zkp_json *v) {
    if (p->depth > 0) {
        json_frame *f = &p->frames[p->depth - 1];
        if (f->type == ZKP_JSON_OBJECT) {
            v->key = f->key;
            v->key_len = f->key_len;
            v->key_offset = f->key_offset;
            f->key = NULL;
        }
    }
    if (p->nvals == p->cap_vals) {
        zkp_json **m = stack_grow(p, p->vals, &p->cap_vals, sizeof *p->vals);
        if (m == NULL) return -1;
        p->vals = m;
    }
    p->vals[p->nvals++] = v;
    return 0;
}

static int push_frame(json_parser *p, zkp_json_type type) {
    if (p->depth >= p->max_depth) {
        snprintf(p->reason, sizeof p->reason, "nesting deeper than %zu", p->max_depth);
        return fail_parse(p, p->pos);
    }
    if (p->depth == p->cap_frames) {
        json_frame *m = stack_grow(p, p->frames, &p->cap_frames, sizeof *p->frames);
        if (m == NULL) return -1;
        p->frames = m;
    }
    json_frame *f = &p->frames[p->depth++];
    memset(f, 0, sizeof *f);
    f->type = type;
    f->first = p->nvals;
    f->open_offset = p->pos;
    return 0;
}

static int key_cmp(const void *a, const void *b) {
    const zkp_json *x = *(zkp_json *const *)a;
    const zkp_json *y = *(zkp_json *const *)b;
    if (x->key_len != y->key_len) return x->key_len < y->key_len ? -1 : 1;
    int c = x->key_len ? memcmp(x->key, y->key, x->key_len) : 0;
    if (c != 0) return c;
    /* Equal names sort by position, so the first duplicate pair found is the
     * earliest repeat in the document. */
    return x->key_offset < y->key_offset ? -1 : x->key_offset > y->key_offset;
}

/* "duplicate member name \"<name>\"", the name escaped as JSON would
 * write it (so control bytes and NULs show) and cut after about 64 bytes at
 * a character boundary. */
static void describe_duplicate(json_parser *p, const char *key, size_t key_len) {
    enum { SHOWN = 64 };
    char name[SHOWN * 6 + 3];
    size_t n = 0, shown = key_len;
    if (shown > SHOWN) {
        shown = SHOWN;
        while (shown > 0 && ((unsigned char)key[shown] & 0xC0) == 0x80) shown--;
    }
    for (size_t i = 0; i < shown; i++) {
        unsigned char c = (unsigned char)key[i];
        if (c == '"' || c == '\\') {
            name[n++] = '\\';
            name[n++] = (char)c;
        } else if (c < 0x20 || c == 0x7f) {
            static const char hex[] = "0123456789abcdef";
            memcpy(name + n, "\\u00", 4);
            name[n + 4] = hex[c >> 4];
            name[n + 5] = hex[c & 15];
            n += 6;
        } else {
            name[n++] = (char)c;
        }
    }
    /* The reason holds 64 plain bytes; a name with many escapes is cut
     * shorter still. "..." marks a cut. */
    size_t room = sizeof p->reason - sizeof "duplicate member name \"...\"";
    if (n > room) {
        n = room;
        while (n > 0 && ((unsigned char)name[n] & 0xC0) == 0x80) n--;
        shown = 0;
    }
    if (shown < key_len) {
        memcpy(name + n, "...", 3);
        n += 3;
    }
    static const char head[] = "duplicate member name \"";
    memcpy(p->reason, head, sizeof head - 1);
    memcpy(p->reason + sizeof head - 1, name, n);
    memcpy(p->reason + sizeof head - 1 + n, "\"", 2);
}

/* Rejects an object with a repeated member name. Sorting a scratch copy keeps
 * this O(n log n), so a large hostile object cannot make it quadratic. */
static int check_duplicates(json_parser *p, zkp_json **items, size_t count) {
    size_t bytes;
    if (zkp_mul_overflow(count, sizeof *items, &bytes)) return fail_nomem(p);
    zkp_json **sorted = mem_alloc(p, bytes);
    if (sorted == NULL) return fail_nomem(p);
    memcpy(sorted, items, bytes);
    qsort(sorted, count, sizeof *sorted, key_cmp);
    size_t dup = SIZE_MAX;
    const zkp_json *dup_node = NULL;
    for (size_t i = 1; i < count; i++) {
        const zkp_json *a = sorted[i - 1], *b = sorted[i];
        int same = a->key_len == b->key_len &&
                   (a->key_len == 0 || memcmp(a->key, b->key, a->key_len) == 0);
        if (same && b->key_offset < dup) {
            dup = b->key_offset;
            dup_node = b;
        }
    }
    mem_free(p, sorted, bytes);
    if (dup == SIZE_MAX) return 0;
    describe_duplicate(p, dup_node->key, dup_node->key_len);
    return fail_parse(p, dup);
}

/* Pops the innermost container, gathering its elements into one array. */
static int close_container(json_parser *p) {
    json_frame *f = &p->frames[p->depth - 1];
    size_t count = p->nvals - f->first;
    zkp_json *node = new_node(p, f->type, f->open_offset);
    if (node == NULL) return -1;
    if (count > 0) {
        size_t bytes;
        if (zkp_mul_overflow(count, sizeof(zkp_json *), &bytes)) return fail_nomem(p);
        zkp_json **items = arena_alloc(p, bytes);
        if (items == NULL) return -1;
        memcpy(items, p->vals + f->first, bytes);
        node->u.items = items;
        node->len = count;
        if (f->type == ZKP_JSON_OBJECT && count > 1 && check_duplicates(p, items, count)) return -1;
    }
    p->nvals = f->first;
    p->depth--;
    return push_value(p, node);
}

/* ------------------------------------------------------------------------ */
/* Lexical pieces. */

static void skip_ws(json_parser *p) {
    while (p->pos < p->len) {
        unsigned char c = p->s[p->pos];
        if (c != ' ' && c != '\t' && c != '\n' && c != '\r') break;
        p->pos++;
    }
}

static int is_digit(unsigned char c) { return c >= '0' && c <= '9'; }

static int hex_val(unsigned char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

/* The length of the well-formed UTF-8 sequence at s (RFC 3629: no overlong
 * forms, no surrogates, nothing above U+10FFFF), or 0 if it is not one.
 * Only called on bytes >= 0x80; avail bounds the bytes that may be read. */
static size_t utf8_seq_len(const unsigned char *s, size_t avail) {
    unsigned c = s[0];
    unsigned lo = 0x80, hi = 0xBF;
    size_t n;
    if (c >= 0xC2 && c <= 0xDF) {
        n = 2;
    } else if (c >= 0xE0 && c <= 0xEF) {
        n = 3;
        if (c == 0xE0) lo = 0xA0;      /* overlong below U+0800 */
        else if (c == 0xED) hi = 0x9F; /* UTF-16 surrogates */
    } else if (c >= 0xF0 && c <= 0xF4) {
        n = 4;
        if (c == 0xF0) lo = 0x90;      /* overlong below U+10000 */
        else if (c == 0xF4) hi = 0x8F; /* above U+10FFFF */
    } else {
        return 0;
    }
    if (avail < n) return 0;
    if (s[1] < lo || s[1] > hi) return 0;
    for (size_t k = 2; k < n; k++)
        if ((s[k] & 0xC0) != 0x80) return 0;
    return n;
}

static size_t utf8_put(char *out, uint32_t cp) {
    unsigned char *o = (unsigned char *)out;
    if (cp < 0x80) {
        o[0] = (unsigned char)cp;
        return 1;
    }
    if (cp < 0x800) {
        o[0] = (unsigned char)(0xC0 | (cp >> 6));
        o[1] = (unsigned char)(0x80 | (cp & 0x3F));
        return 2;
    }
    if (cp < 0x10000) {
        o[0] = (unsigned char)(0xE0 | (cp >> 12));
        o[1] = (unsigned char)(0x80 | ((cp >> 6) & 0x3F));
        o[2] = (unsigned char)(0x80 | (cp & 0x3F));
        return 3;
    }
    o[0] = (unsigned char)(0xF0 | (cp >> 18));
    o[1] = (unsigned char)(0x80 | ((cp >> 12) & 0x3F));
    o[2] = (unsigned char)(0x80 | ((cp >> 6) & 0x3F));
    o[3] = (unsigned char)(0x80 | (cp & 0x3F));
    return 4;
}

/* Reads the four hex digits of a \u escape at s[at..at+4), all before end.
 * On failure reports the first offending offset. */
static int read_hex4(json_parser *p, size_t at, size_t end, uint32_t *out) {
    uint32_t v = 0;
    for (size_t k = 0; k < 4; k++) {
        if (at + k >= end) return fail_parse(p, at + k); /* at the closing quote */
        int h = hex_val(p->s[at + k]);
        if (h < 0) return fail_parse(p, at + k);
        v = (v << 4) | (uint32_t)h;
    }
    *out = v;
    return 0;
}

/* Parses the string starting at the '"' at p->pos into the arena. */
static int parse_string(json_parser *p, const char **out, size_t *out_len) {
    const unsigned char *s = p->s;
    size_t start = p->pos + 1;

    /* Pass 1 finds the closing quote: a backslash always takes the next byte
     * with it, so an escaped quote never ends the string. Whatever the
     * escape is, pass 2 validates it. */
    size_t end = start;
    while (end < p->len && s[end] != '"') end += (s[end] == '\\') ? 2 : 1;
    if (end >= p->len) return fail_parse(p, p->len);

    /* Unescaping never lengthens: an escape of 2, 6 or 12 bytes yields at
     * most 1, 3 or 4 bytes, and other bytes are copied as they are. So the
     * raw length bounds the output. end - start < len, so + 1 cannot wrap. */
    char *buf = arena_alloc(p, end - start + 1);
    if (buf == NULL) return -1;
    size_t o = 0;
    size_t j = start;
    while (j < end) {
        unsigned char c = s[j];
        if (c == '\\') {
            /* j + 1 < end: pass 1 stepped over the byte after a backslash,
             * so the closing quote cannot be it. */
            unsigned char e = s[j + 1];
            switch (e) {
            case '"': buf[o++] = '"'; break;
            case '\\': buf[o++] = '\\'; break;
            case '/': buf[o++] = '/'; break;
            case 'b': buf[o++] = '\b'; break;
            case 'f': buf[o++] = '\f'; break;
            case 'n': buf[o++] = '\n'; break;
            case 'r': buf[o++] = '\r'; break;
            case 't': buf[o++] = '\t'; break;
            case 'u': {
                uint32_t cp;
                if (read_hex4(p, j + 2, end, &cp)) return -1;
                if (cp >= 0xDC00 && cp <= 0xDFFF) return fail_parse(p, j); /* lone low half */
                if (cp >= 0xD800 && cp <= 0xDBFF) {
                    /* A high surrogate must be followed at once by an
                     * escaped low one; together they name one code point
                     * above U+FFFF. */
                    size_t k = j + 6;
                    if (k + 1 >= end || s[k] != '\\' || s[k + 1] != 'u') return fail_parse(p, k);
                    uint32_t lo;
                    if (read_hex4(p, k + 2, end, &lo)) return -1;
                    if (lo < 0xDC00 || lo > 0xDFFF) return fail_parse(p, k);
                    cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
                    j += 6;
                }
                o += utf8_put(buf + o, cp);
                j += 4; /* plus the 2 below */
                break;
            }
            default:
                return fail_parse(p, j + 1);
            }
            j += 2;
        } else if (c < 0x20) {
            return fail_parse(p, j); /* raw control characters must be escaped */
        } else if (c < 0x80) {
            buf[o++] = (char)c;
            j++;
        } else {
            size_t n = utf8_seq_len(s + j, end - j);
            if (n == 0) return fail_parse(p, j);
            memcpy(buf + o, s + j, n);
            o += n;
            j += n;
        }
    }
    buf[o] = '\0';
    *out = buf;
    *out_len = o;
    p->pos = end + 1;
    return 0;
}

/* Checks the RFC 8259 number grammar
 *     -? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?
 * and keeps the text. What follows the number is the caller's business, so
 * "01" fails there, at the '1'. */
static int parse_number(json_parser *p, zkp_json **out) {
    const unsigned char *s = p->s;
    size_t start = p->pos, i = p->pos;
    if (i < p->len && s[i] == '-') i++;
    if (i >= p->len) return fail_parse(p, p->len);
    if (s[i] == '0') {
        i++;
    } else if (s[i] >= '1' && s[i] <= '9') {
        while (i < p->len && is_digit(s[i])) i++;
    } else {
        return fail_parse(p, i);
    }
    if (i < p->len && s[i] == '.') {
        i++;
        if (i >= p->len) return fail_parse(p, p->len);
        if (!is_digit(s[i])) return fail_parse(p, i);
        while (i < p->len && is_digit(s[i])) i++;
    }
    if (i < p->len && (s[i] == 'e' || s[i] == 'E')) {
        i++;
        if (i < p->len && (s[i] == '+' || s[i] == '-')) i++;
        if (i >= p->len) return fail_parse(p, p->len);
        if (!is_digit(s[i])) return fail_parse(p, i);
        while (i < p->len && is_digit(s[i])) i++;
    }
    zkp_json *v = new_node(p, ZKP_JSON_NUMBER, start);
    if (v == NULL) return -1;
    size_t n = i - start;
    char *text = arena_alloc(p, n + 1); /* n < len, so no wrap */
    if (text == NULL) return -1;
    memcpy(text, s + start, n);
    text[n] = '\0';
    v->u.text = text;
    v->len = n;
    p->pos = i;
    *out = v;
    return 0;
}

static int parse_literal(json_parser *p, const char *word, zkp_json_type type, int b,
                         zkp_json **out) {
    size_t start = p->pos;
    for (size_t k = 0; word[k] != '\0'; k++) {
        if (start + k >= p->len) return fail_parse(p, p->len);
        if (p->s[start + k] != (unsigned char)word[k]) return fail_parse(p, start + k);
    }
    zkp_json *v = new_node(p, type, start);
    if (v == NULL) return -1;
    v->boolean = (unsigned char)b;
    p->pos = start + strlen(word);
    *out = v;
    return 0;
}

/* Any value other than an array or object, starting at p->pos (< len). */
static int parse_scalar(json_parser *p, zkp_json **out) {
    unsigned char c = p->s[p->pos];
    switch (c) {
    case '"': {
        zkp_json *v = new_node(p, ZKP_JSON_STRING, p->pos);
        if (v == NULL) return -1;
        const char *text;
        size_t n;
        if (parse_string(p, &text, &n)) return -1;
        v->u.text = text;
        v->len = n;
        *out = v;
        return 0;
    }
    case 't': return parse_literal(p, "true", ZKP_JSON_BOOL, 1, out);
    case 'f': return parse_literal(p, "false", ZKP_JSON_BOOL, 0, out);
    case 'n': return parse_literal(p, "null", ZKP_JSON_NULL, 0, out);
    default:
        if (c == '-' || is_digit(c)) return parse_number(p, out);
        return fail_parse(p, p->pos);
    }
}

/* Reads `"name" :` inside the innermost object, leaving the name in its frame. */
static int parse_member_name(json_parser *p) {
    skip_ws(p);
    if (p->pos >= p->len) return fail_parse(p, p->len);
    if (p->s[p->pos] != '"') return fail_parse(p, p->pos);
    json_frame *f = &p->frames[p->depth - 1];
    size_t key_offset = p->pos;
    if (parse_string(p, &f->key, &f->key_len)) return -1;
    f->key_offset = key_offset;
    skip_ws(p);
    if (p->pos >= p->len) return fail_parse(p, p->len);
    if (p->s[p->pos] != ':') return fail_parse(p, p->pos);
    p->pos++;
    return 0;
}

/* The main loop: alternately read a value, then close containers or step to
 * the next element until another value is due. */
static int parse_document(json_parser *p) {
    for (;;) {
        skip_ws(p);
        if (p->pos >= p->len) return fail_parse(p, p->len);
        unsigned char c = p->s[p->pos];
        if (c == '[' || c == '{') {
            zkp_json_type type = c == '[' ? ZKP_JSON_ARRAY : ZKP_JSON_OBJECT;
            if (push_frame(p, type)) return -1;
            p->pos++;
            skip_ws(p);
            if (p->pos < p->len && p->s[p->pos] == (c == '[' ? ']' : '}')) {
                p->pos++;
                if (close_container(p)) return -1;
            } else {
                if (type == ZKP_JSON_OBJECT && parse_member_name(p)) return -1;
                continue; /* the first element */
            }
        } else {
            zkp_json *v;
            if (parse_scalar(p, &v) || push_value(p, v)) return -1;
        }

        for (;;) {
            skip_ws(p);
            if (p->depth == 0) {
                /* The top-level value is complete; only whitespace may follow. */
                if (p->pos != p->len) return fail_parse(p, p->pos);
                return 0;
            }
            if (p->pos >= p->len) return fail_parse(p, p->len);
            const json_frame *f = &p->frames[p->depth - 1];
            c = p->s[p->pos];
            if (c == ',') {
                p->pos++;
                if (f->type == ZKP_JSON_OBJECT && parse_member_name(p)) return -1;
                break; /* the next element */
            }
            if (c == (f->type == ZKP_JSON_ARRAY ? ']' : '}')) {
                p->pos++;
                if (close_container(p)) return -1;
                continue;
            }
            return fail_parse(p, p->pos);
        }
    }
}

/* ------------------------------------------------------------------------ */
/* Public entry points. */

zkpipe_status zkp_json_parse_ex(zkp_json **out, const char *text, size_t len,
                                const zkp_json_limits *limits, size_t *err_offset) {
    zkp_json_error err;
    zkpipe_status st = zkp_json_parse_report(out, text, len, limits, &err);
    if (err_offset != NULL) *err_offset = err.offset;
    return st;
}

zkpipe_status zkp_json_parse_report(zkp_json **out, const char *text, size_t len,
                                    const zkp_json_limits *limits, zkp_json_error *err) {
    zkp_json_error scratch;
    if (err == NULL) err = &scratch;
    err->offset = 0;
    err->reason[0] = '\0';
    if (out == NULL) return ZKPIPE_ERR_INVALID_ARGUMENT;
    *out = NULL;
    if (text == NULL && len != 0) return ZKPIPE_ERR_INVALID_ARGUMENT;

    json_parser p;
    memset(&p, 0, sizeof p);
    p.s = (const unsigned char *)text;
    p.len = len;
    p.max_depth = ZKP_JSON_DEFAULT_MAX_DEPTH;
    if (limits != NULL) {
        if (limits->max_depth != 0) p.max_depth = limits->max_depth;
        p.max_memory = limits->max_memory;
    }
    p.max_nodes = len / 2 + 1;
    p.next_block = ARENA_FIRST_BLOCK;
    p.status = ZKPIPE_OK;

    json_doc *doc = NULL;
    if (parse_document(&p) == 0) {
        /* The value stack now holds exactly the top-level value. Copy it into
         * a json_doc, the one node that also knows the arena. */
        doc = arena_alloc(&p, sizeof *doc);
        if (doc != NULL) {
            doc->root = *p.vals[0];
            doc->root.is_root = 1;
            doc->blocks = p.blocks;
        }
    }
    free(p.vals);
    free(p.frames);
    if (doc == NULL) {
        free_blocks(p.blocks);
        err->offset = p.err_offset;
        if (p.status == ZKPIPE_ERR_PARSE)
            snprintf(err->reason, sizeof err->reason, "%s",
                     p.reason[0]                ? p.reason
                     : p.err_offset >= p.len    ? "unexpected end of the text"
                                                : "syntax error");
        return p.status;
    }
    *out = &doc->root;
    return ZKPIPE_OK;
}

zkpipe_status zkp_json_parse(zkp_json **out, const char *text, size_t len, size_t *err_offset) {
    return zkp_json_parse_ex(out, text, len, NULL, err_offset);
}

void zkp_json_free(zkp_json *root) {
    if (root == NULL || !root->is_root) return;
    /* root is the first member of its json_doc, so the conversion is exact. */
    json_doc *doc = (json_doc *)root;
    free_blocks(doc->blocks);
}

zkp_json_type zkp_json_type_of(const zkp_json *v) { return v ? v->type : ZKP_JSON_NULL; }

const zkp_json *zkp_json_get(const zkp_json *obj, const char *key) {
    if (obj == NULL || key == NULL || obj->type != ZKP_JSON_OBJECT) return NULL;
    size_t n = strlen(key);
    for (size_t i = 0; i < obj->len; i++) {
        const zkp_json *v = obj->u.items[i];
        if (v->key_len == n && memcmp(v->key, key, n) == 0) return v;
    }
    return NULL;
}

size_t zkp_json_len(const zkp_json *v) {
    if (v == NULL || (v->type != ZKP_JSON_ARRAY && v->type != ZKP_JSON_OBJECT)) return 0;
    return v->len;
}

const zkp_json *zkp_json_at(const zkp_json *v, size_t i) {
    if (i >= zkp_json_len(v)) return NULL;
    return v->u.items[i];
}

const char *zkp_json_key_at(const zkp_json *obj, size_t i) {
    if (obj == NULL || obj->type != ZKP_JSON_OBJECT || i >= obj->len) return NULL;
    return obj->u.items[i]->key;
}

const char *zkp_json_string(const zkp_json *v, size_t *len) {
    if (v == NULL || v->type != ZKP_JSON_STRING) return NULL;
    if (len != NULL) *len = v->len;
    return v->u.text;
}

const char *zkp_json_number_text(const zkp_json *v) {
    if (v == NULL || v->type != ZKP_JSON_NUMBER) return NULL;
    return v->u.text;
}

int zkp_json_bool(const zkp_json *v) { return v != NULL && v->type == ZKP_JSON_BOOL && v->boolean; }
