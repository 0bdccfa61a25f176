/* The C1 JSON reader and writer (see c1.h). */
#include "filecoin/c1.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- The arena: chunks from the caller's allocator, freed all at once. */

/* 2 MiB: one of the engine's pool classes exactly (docs/MEMORY.md), so a
 * chunk charged to a budget is charged what it holds; a 1 MiB chunk and
 * its header were charged 2 MiB. */
#define ARENA_CHUNK ((size_t)2 << 20)

typedef struct arena_chunk {
    struct arena_chunk *next;
    size_t bytes; /* of the whole chunk, header included */
} arena_chunk;

struct zkp_fil_arena {
    const zkp_allocator *alloc;
    zkp_mem_category cat;
    arena_chunk *head;
    size_t used; /* bytes of head in use, header included */
};

static void *arena_alloc(zkp_fil_arena *a, size_t bytes) {
    bytes = (bytes + 7) & ~(size_t)7;
    if (!a->head || a->head->bytes - a->used < bytes) {
        size_t need = sizeof(arena_chunk) + bytes;
        size_t size = need > ARENA_CHUNK ? need : ARENA_CHUNK;
        arena_chunk *c = zkp_alloc(a->alloc, size, a->cat);
        if (!c) return NULL;
        c->next = a->head;
        c->bytes = size;
        a->head = c;
        a->used = sizeof(arena_chunk);
    }
    void *p = (uint8_t *)a->head + a->used;
    a->used += bytes;
    return p;
}

static void arena_free(zkp_fil_arena *a) {
    if (!a) return;
    const zkp_allocator *al = a->alloc;
    zkp_mem_category cat = a->cat;
    for (arena_chunk *c = a->head, *next; c; c = next) {
        next = c->next;
        zkp_free(al, c, c->bytes, cat);
    }
    zkp_free(al, a, sizeof *a, cat);
}

void zkp_fil_c1_free(zkp_fil_c1 *c1) {
    if (!c1) return;
    arena_free(c1->arena);
    memset(c1, 0, sizeof *c1);
}

/* ---- The reader. */

typedef struct {
    const char *text, *p, *end;
    const char *name;
    zkp_fil_arena *arena;
    zkp_diag *diag;
    zkpipe_status st; /* the first failure; later ones keep it */
    char path[320];   /* the member being read, for messages */
    size_t plen;
} reader;

static int rd_fail(reader *r, zkpipe_status st, const char *fmt, ...) ZKP_PRINTF(3, 4);
static int rd_fail(reader *r, zkpipe_status st, const char *fmt, ...) {
    if (r->st != ZKPIPE_OK) return 0;
    char what[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    r->st = zkp_diag_fail(r->diag, st, "%s: byte %zu: %s%s%s", r->name, (size_t)(r->p - r->text),
                          r->path, r->plen ? ": " : "", what);
    return 0;
}

static size_t path_push(reader *r, const char *fmt, ...) ZKP_PRINTF(2, 3);
static size_t path_push(reader *r, const char *fmt, ...) {
    size_t saved = r->plen;
    if (r->plen < sizeof r->path - 1) {
        va_list ap;
        va_start(ap, fmt);
        int n = vsnprintf(r->path + r->plen, sizeof r->path - r->plen, fmt, ap);
        va_end(ap);
        if (n > 0)
            r->plen +=
                (size_t)n < sizeof r->path - r->plen ? (size_t)n : sizeof r->path - 1 - r->plen;
    }
    return saved;
}

static void path_pop(reader *r, size_t saved) {
    r->plen = saved;
    r->path[saved] = 0;
}

static void ws(reader *r) {
    while (r->p < r->end && (*r->p == ' ' || *r->p == '\t' || *r->p == '\n' || *r->p == '\r'))
        r->p++;
}

static int peek(reader *r) {
    ws(r);
    return r->p < r->end ? (unsigned char)*r->p : -1;
}

static int expect(reader *r, char c) {
    if (peek(r) != (unsigned char)c) {
        if (r->p >= r->end)
            return rd_fail(r, ZKPIPE_ERR_PARSE, "the text ends where '%c' belongs", c);
        return rd_fail(r, ZKPIPE_ERR_PARSE, "'%c' expected", c);
    }
    r->p++;
    return 1;
}

/* The next character of a string whose opening quote is consumed: *c gets
 * it with escapes decoded, or -1 at the closing quote. Only ASCII is taken
 * (member names and base64 are ASCII; \u escapes must stay below U+0080);
 * control characters are refused as the grammar requires. */
static int next_char(reader *r, int *c) {
    if (r->p >= r->end) return rd_fail(r, ZKPIPE_ERR_PARSE, "the text ends inside a string");
    unsigned char ch = (unsigned char)*r->p++;
    if (ch == '"') {
        *c = -1;
        return 1;
    }
    if (ch < 0x20) return rd_fail(r, ZKPIPE_ERR_PARSE, "a control character inside a string");
    if (ch >= 0x80) return rd_fail(r, ZKPIPE_ERR_PARSE, "a non-ASCII byte inside a string");
    if (ch == '\\') {
        if (r->p >= r->end) return rd_fail(r, ZKPIPE_ERR_PARSE, "the text ends inside a string");
        char e = *r->p++;
        static const char plain[] = "\"\\/bfnrt", decoded[] = "\"\\/\b\f\n\r\t";
        const char *at = e ? strchr(plain, e) : NULL;
        if (at) {
            ch = (unsigned char)decoded[at - plain];
        } else if (e == 'u') {
            unsigned v = 0;
            for (int i = 0; i < 4; i++) {
                if (r->p >= r->end)
                    return rd_fail(r, ZKPIPE_ERR_PARSE, "the text ends inside a \\u escape");
                char h = *r->p++;
                int d = h >= '0' && h <= '9'   ? h - '0'
                        : h >= 'a' && h <= 'f' ? h - 'a' + 10
                        : h >= 'A' && h <= 'F' ? h - 'A' + 10
                                               : -1;
                if (d < 0) return rd_fail(r, ZKPIPE_ERR_PARSE, "a bad \\u escape");
                v = v * 16 + (unsigned)d;
            }
            if (v >= 0x80 || v < 0x20)
                return rd_fail(r, ZKPIPE_ERR_PARSE, "a \\u escape outside printable ASCII");
            ch = (unsigned char)v;
        } else {
            return rd_fail(r, ZKPIPE_ERR_PARSE, "a bad escape");
        }
    }
    *c = ch;
    return 1;
}

/* A JSON string into buf[0..cap), NUL-terminated, *len bytes (len may be
 * NULL). */
static int read_string(reader *r, char *buf, size_t cap, size_t *len) {
    if (!expect(r, '"')) return 0;
    size_t n = 0;
    for (;;) {
        int c = 0;
        if (!next_char(r, &c)) return 0;
        if (c < 0) break;
        if (n + 1 >= cap)
            return rd_fail(r, ZKPIPE_ERR_PARSE, "a string longer than %zu bytes", cap - 1);
        buf[n++] = (char)c;
    }
    buf[n] = 0;
    if (len) *len = n;
    return 1;
}

/* A non-negative JSON integer no larger than max. */
static int read_uint(reader *r, uint64_t max, uint64_t *v) {
    int c = peek(r);
    if (c == '-') return rd_fail(r, ZKPIPE_ERR_OUT_OF_RANGE, "a negative number");
    if (c < '0' || c > '9') return rd_fail(r, ZKPIPE_ERR_PARSE, "a number expected");
    const char *start = r->p;
    uint64_t x = 0;
    int big = 0;
    while (r->p < r->end && *r->p >= '0' && *r->p <= '9') {
        unsigned d = (unsigned)(*r->p++ - '0');
        if (x > (UINT64_MAX - d) / 10)
            big = 1;
        else
            x = x * 10 + d;
    }
    if (r->p - start > 1 && *start == '0') {
        r->p = start;
        return rd_fail(r, ZKPIPE_ERR_PARSE, "a number with a leading zero");
    }
    if (r->p < r->end && (*r->p == '.' || *r->p == 'e' || *r->p == 'E')) {
        r->p = start;
        return rd_fail(r, ZKPIPE_ERR_PARSE, "an integer expected");
    }
    if (big || x > max) {
        r->p = start;
        return rd_fail(r, ZKPIPE_ERR_OUT_OF_RANGE, "%.*s is larger than %llu",
                       (int)(r->p - start < 40 ? r->p - start : 40), start,
                       (unsigned long long)max);
    }
    *v = x;
    return 1;
}

static int read_u32(reader *r, uint32_t *v) {
    uint64_t x;
    if (!read_uint(r, UINT32_MAX, &x)) return 0;
    *v = (uint32_t)x;
    return 1;
}

static int read_domain(reader *r, zkp_fil_domain *d) {
    if (!expect(r, '[')) return 0;
    for (int i = 0; i < 32; i++) {
        uint64_t v;
        if (i && !expect(r, ',')) return 0;
        if (peek(r) == ']') return rd_fail(r, ZKPIPE_ERR_PARSE, "%d bytes where 32 belong", i);
        if (!read_uint(r, 255, &v)) return 0;
        d->b[i] = (uint8_t)v;
    }
    if (peek(r) == ',') return rd_fail(r, ZKPIPE_ERR_PARSE, "more than 32 bytes");
    return expect(r, ']');
}

/* A list of unknown length whose elements are elem bytes each: read into a
 * growing scratch buffer, then copied into the arena. Every list type is
 * laid out as list_. */
typedef struct {
    void *v;
    uint32_t n;
} list_;

typedef int (*read_fn)(reader *r, void *dst);

static int read_list(reader *r, size_t elem, read_fn fn, list_ *out) {
    out->v = NULL;
    out->n = 0;
    if (!expect(r, '[')) return 0;
    uint8_t *tmp = NULL;
    size_t n = 0, cap = 0;
    int ok = 1;
    if (peek(r) == ']') {
        r->p++;
    } else {
        for (;;) {
            if (n == cap) {
                size_t ncap = cap ? 2 * cap : 8;
                uint8_t *t = ncap <= UINT32_MAX && ncap <= SIZE_MAX / elem
                                 ? realloc(tmp, ncap * elem)
                                 : NULL;
                if (!t) {
                    ok = rd_fail(r, ZKPIPE_ERR_NO_MEMORY, "cannot hold %zu elements", ncap);
                    break;
                }
                tmp = t;
                cap = ncap;
            }
            memset(tmp + n * elem, 0, elem);
            size_t saved = path_push(r, "[%zu]", n);
            if (!(ok = fn(r, tmp + n * elem))) break;
            path_pop(r, saved);
            n++;
            if (peek(r) == ',') {
                r->p++;
                continue;
            }
            ok = expect(r, ']');
            break;
        }
    }
    if (ok && n) {
        void *dst = arena_alloc(r->arena, n * elem);
        if (!dst) {
            ok = rd_fail(r, ZKPIPE_ERR_NO_MEMORY, "cannot hold %zu elements", n);
        } else {
            memcpy(dst, tmp, n * elem);
            out->v = dst;
            out->n = (uint32_t)n;
        }
    }
    free(tmp);
    return ok;
}

/* An object whose members are all required, in any order, each once. */
typedef struct {
    const char *name;
    read_fn fn;
    size_t offset;
} member;

static int read_object(reader *r, const member *m, size_t n, void *dst) {
    if (!expect(r, '{')) return 0;
    uint32_t seen = 0;
    if (peek(r) != '}') {
        for (;;) {
            char key[64];
            size_t klen = 0;
            if (!read_string(r, key, sizeof key, &klen)) return 0;
            size_t i = 0;
            while (i < n && (strlen(m[i].name) != klen || memcmp(m[i].name, key, klen))) i++;
            if (i == n) return rd_fail(r, ZKPIPE_ERR_PARSE, "unknown member \"%s\"", key);
            if (seen & (1u << i)) return rd_fail(r, ZKPIPE_ERR_PARSE, "member \"%s\" twice", key);
            seen |= 1u << i;
            if (!expect(r, ':')) return 0;
            size_t saved = path_push(r, "%s%s", r->plen ? "." : "", m[i].name);
            if (!m[i].fn(r, (uint8_t *)dst + m[i].offset)) return 0;
            path_pop(r, saved);
            if (peek(r) != ',') break;
            r->p++;
        }
    }
    if (!expect(r, '}')) return 0;
    for (size_t i = 0; i < n; i++)
        if (!(seen & (1u << i)))
            return rd_fail(r, ZKPIPE_ERR_PARSE, "member \"%s\" missing", m[i].name);
    return 1;
}

#define OBJECT_READER(fn_name, members)                                                            \
    static int fn_name(reader *r, void *dst) {                                                     \
        return read_object(r, members, sizeof members / sizeof members[0], dst);                   \
    }
#define LIST_READER(fn_name, elem_type, elem_fn)                                                   \
    static int fn_name(reader *r, void *dst) {                                                     \
        return read_list(r, sizeof(elem_type), elem_fn, dst);                                      \
    }

static int rd_domain(reader *r, void *d) { return read_domain(r, d); }
static int rd_u32(reader *r, void *dst) { return read_u32(r, dst); }
static int rd_u64(reader *r, void *dst) { return read_uint(r, UINT64_MAX, dst); }

static int rd_null(reader *r, void *dst) {
    (void)dst;
    if (peek(r) != 'n' || r->end - r->p < 4 || memcmp(r->p, "null", 4))
        return rd_fail(r, ZKPIPE_ERR_PARSE, "null expected");
    r->p += 4;
    return 1;
}

LIST_READER(rd_domains, zkp_fil_domain, rd_domain)

static const member path_elem_members[] = {
    {"hashes", rd_domains, offsetof(zkp_fil_path_elem, hashes)},
    {"index", rd_u64, offsetof(zkp_fil_path_elem, index)},
};
OBJECT_READER(rd_path_elem, path_elem_members)
LIST_READER(rd_path_elems, zkp_fil_path_elem, rd_path_elem)
static const member path_members[] = {{"path", rd_path_elems, 0}};
OBJECT_READER(rd_path, path_members)

#define MP(f) offsetof(zkp_fil_merkle_proof, f)
static const member single_members[] = {
    {"root", rd_domain, MP(root)}, {"leaf", rd_domain, MP(leaf)}, {"path", rd_path, MP(base)}};
static const member sub_members[] = {{"base_proof", rd_path, MP(base)},
                                     {"sub_proof", rd_path, MP(sub)},
                                     {"root", rd_domain, MP(root)},
                                     {"leaf", rd_domain, MP(leaf)}};
static const member top_proof_members[] = {{"base_proof", rd_path, MP(base)},
                                           {"sub_proof", rd_path, MP(sub)},
                                           {"top_proof", rd_path, MP(top)},
                                           {"root", rd_domain, MP(root)},
                                           {"leaf", rd_domain, MP(leaf)}};
#undef MP

static const struct {
    const char *name;
    const member *members;
    size_t n;
} merkle_kinds[] = {
    {"Single", single_members, 3}, {"Sub", sub_members, 4}, {"Top", top_proof_members, 5}};

/* {"Single"|"Sub"|"Top": {...}}: serde's externally tagged enum. */
static int rd_merkle_data(reader *r, void *dst) {
    zkp_fil_merkle_proof *m = dst;
    if (!expect(r, '{')) return 0;
    if (peek(r) == '}') return rd_fail(r, ZKPIPE_ERR_PARSE, "one of Single, Sub or Top expected");
    char key[16];
    if (!read_string(r, key, sizeof key, NULL) || !expect(r, ':')) return 0;
    int kind = -1;
    for (int k = 0; k < 3; k++)
        if (!strcmp(key, merkle_kinds[k].name)) kind = k;
    if (kind < 0) return rd_fail(r, ZKPIPE_ERR_PARSE, "\"%s\" is not Single, Sub or Top", key);
    m->kind = (zkp_fil_merkle_kind)kind;
    size_t saved = path_push(r, ".%s", key);
    if (!read_object(r, merkle_kinds[kind].members, merkle_kinds[kind].n, m)) return 0;
    path_pop(r, saved);
    if (peek(r) == ',') return rd_fail(r, ZKPIPE_ERR_PARSE, "a second variant");
    return expect(r, '}');
}

static const member merkle_members[] = {{"data", rd_merkle_data, 0}};
OBJECT_READER(rd_merkle, merkle_members)

#define CP(f) offsetof(zkp_fil_column_proof, f)
static const member column_members[] = {
    {"index", rd_u32, CP(index)}, {"rows", rd_domains, CP(rows)}, {"_h", rd_null, 0}};
OBJECT_READER(rd_column, column_members)
static const member column_proof_members[] = {{"column", rd_column, 0},
                                              {"inclusion_proof", rd_merkle, CP(inclusion)}};
#undef CP
OBJECT_READER(rd_column_proof, column_proof_members)
LIST_READER(rd_column_proofs, zkp_fil_column_proof, rd_column_proof)

#define RC(f) offsetof(zkp_fil_replica_columns, f)
static const member replica_columns_members[] = {
    {"c_x", rd_column_proof, RC(c_x)},
    {"drg_parents", rd_column_proofs, RC(drg_parents)},
    {"exp_parents", rd_column_proofs, RC(exp_parents)}};
#undef RC
OBJECT_READER(rd_replica_columns, replica_columns_members)

#define LP(f) offsetof(zkp_fil_labeling_proof, f)
static const member labeling_members[] = {{"parents", rd_domains, LP(parents)},
                                          {"layer_index", rd_u32, LP(layer_index)},
                                          {"node", rd_u64, LP(node)}};
#undef LP
OBJECT_READER(rd_labeling, labeling_members)
LIST_READER(rd_labelings, zkp_fil_labeling_proof, rd_labeling)

#define CH(f) offsetof(zkp_fil_challenge_proof, f)
static const member challenge_members[] = {
    {"comm_d_proofs", rd_merkle, CH(comm_d_proofs)},
    {"comm_r_last_proof", rd_merkle, CH(comm_r_last_proof)},
    {"replica_column_proofs", rd_replica_columns, CH(replica_column_proofs)},
    {"labeling_proofs", rd_labelings, CH(labeling_proofs)},
    {"encoding_proof", rd_labeling, CH(encoding_proof)},
};
#undef CH
OBJECT_READER(rd_challenge, challenge_members)
LIST_READER(rd_partition, zkp_fil_challenge_proof, rd_challenge)
LIST_READER(rd_partitions, zkp_fil_partition_proofs, rd_partition)

/* The top level: the C1 itself plus the two names, which are checked
 * against each other and the registry once the whole document is in. The
 * name readers get the whole top_ (offset 0). */
typedef struct {
    zkp_fil_c1 c1;
    char proof_name[64];
    char vanilla_key[32];
} top_;

static int rd_proof_name(reader *r, void *dst) {
    top_ *t = dst;
    size_t len = 0;
    if (!read_string(r, t->proof_name, sizeof t->proof_name, &len)) return 0;
    t->c1.proof = zkp_fil_seal_proof_by_name(t->proof_name, len);
    if (!t->c1.proof)
        return rd_fail(r, ZKPIPE_ERR_UNSUPPORTED, "\"%s\" is not a registered seal proof",
                       t->proof_name);
    return 1;
}

/* {"StackedDrg<size>V1": [[...]]}: one variant of serde's enum. */
static int rd_vanilla(reader *r, void *dst) {
    top_ *t = dst;
    if (!expect(r, '{')) return 0;
    if (peek(r) == '}') return rd_fail(r, ZKPIPE_ERR_PARSE, "a StackedDrg variant expected");
    if (!read_string(r, t->vanilla_key, sizeof t->vanilla_key, NULL) || !expect(r, ':')) return 0;
    size_t saved = path_push(r, "[\"%s\"]", t->vanilla_key);
    if (!rd_partitions(r, &t->c1.vanilla_proofs)) return 0;
    path_pop(r, saved);
    if (peek(r) == ',') return rd_fail(r, ZKPIPE_ERR_PARSE, "a second variant");
    return expect(r, '}');
}

#define TOP(f) offsetof(top_, c1.f)
static const member c1_members[] = {
    {"registered_proof", rd_proof_name, 0},     {"vanilla_proofs", rd_vanilla, 0},
    {"comm_r", rd_domain, TOP(comm_r)},         {"comm_d", rd_domain, TOP(comm_d)},
    {"replica_id", rd_domain, TOP(replica_id)}, {"seed", rd_domain, TOP(seed)},
    {"ticket", rd_domain, TOP(ticket)},
};
#undef TOP

/* ---- The shape check: what the registered proof fixes. */

typedef struct {
    reader *r;
    const zkp_fil_seal_proof *p;
} shape_;

static int sh_fail(shape_ *s, const char *fmt, ...) ZKP_PRINTF(2, 3);
static int sh_fail(shape_ *s, const char *fmt, ...) {
    char what[200];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    reader *r = s->r;
    if (r->st == ZKPIPE_OK)
        r->st = zkp_diag_fail(r->diag, ZKPIPE_ERR_PARSE, "%s: %s: %s (%s)", r->name, r->path, what,
                              s->p->name);
    return 0;
}

static int sh_path(shape_ *s, const zkp_fil_path *path, const char *name, uint32_t levels,
                   uint32_t arity) {
    size_t saved = path_push(s->r, ".%s", name);
    if (path->n != levels)
        return sh_fail(s, "%u levels, the tree has %u", (unsigned)path->n, (unsigned)levels);
    for (uint32_t i = 0; i < path->n; i++) {
        const zkp_fil_path_elem *e = &path->v[i];
        size_t at = path_push(s->r, "[%u]", (unsigned)i);
        if (e->hashes.n != arity - 1)
            return sh_fail(s, "%u siblings, a node of arity %u has %u", (unsigned)e->hashes.n,
                           (unsigned)arity, (unsigned)arity - 1);
        if (e->index >= arity)
            return sh_fail(s, "index %llu, a node of arity %u has positions 0..%u",
                           (unsigned long long)e->index, (unsigned)arity, (unsigned)arity - 1);
        path_pop(s->r, at);
    }
    path_pop(s->r, saved);
    return 1;
}

/* tree_d (binary, one level per bit of the node count) when sha is set,
 * else tree_r_last / tree_c in the proof's shape. */
static int sh_merkle(shape_ *s, const zkp_fil_merkle_proof *m, const char *name, int sha) {
    const zkp_fil_seal_proof *p = s->p;
    size_t saved = path_push(s->r, ".%s", name);
    zkp_fil_merkle_kind want = sha || !p->sub_arity ? ZKP_FIL_MERKLE_SINGLE
                               : !p->top_arity      ? ZKP_FIL_MERKLE_SUB
                                                    : ZKP_FIL_MERKLE_TOP;
    if (m->kind != want)
        return sh_fail(s, "a %s proof, the tree needs %s", merkle_kinds[m->kind].name,
                       merkle_kinds[want].name);
    if (sha) {
        if (!sh_path(s, &m->base, "path", zkp_fil_tree_d_levels(p), 2)) return 0;
    } else {
        if (!sh_path(s, &m->base, want == ZKP_FIL_MERKLE_SINGLE ? "path" : "base_proof",
                     zkp_fil_tree_base_levels(p), p->base_arity))
            return 0;
        if (want != ZKP_FIL_MERKLE_SINGLE && !sh_path(s, &m->sub, "sub_proof", 1, p->sub_arity))
            return 0;
        if (want == ZKP_FIL_MERKLE_TOP && !sh_path(s, &m->top, "top_proof", 1, p->top_arity))
            return 0;
    }
    path_pop(s->r, saved);
    return 1;
}

static int sh_column(shape_ *s, const zkp_fil_column_proof *c) {
    if (c->rows.n != s->p->layers)
        return sh_fail(s, "%u rows, a column has one per layer (%u)", (unsigned)c->rows.n,
                       (unsigned)s->p->layers);
    return sh_merkle(s, &c->inclusion, "inclusion_proof", 0);
}

static int sh_columns(shape_ *s, const zkp_fil_column_proofs *c, const char *name, uint32_t want) {
    size_t saved = path_push(s->r, ".%s", name);
    if (c->n != want)
        return sh_fail(s, "%u columns, a node has %u such parents", (unsigned)c->n, (unsigned)want);
    for (uint32_t i = 0; i < c->n; i++) {
        size_t at = path_push(s->r, "[%u]", (unsigned)i);
        if (!sh_column(s, &c->v[i])) return 0;
        path_pop(s->r, at);
    }
    path_pop(s->r, saved);
    return 1;
}

/* Every label is made from 37 parent labels (6 DRG parents cycled on layer
 * 1, 6 + 8 cycled above it). */
#define LABEL_PARENTS 37u
#define DRG_PARENTS 6u
#define EXP_PARENTS 8u

static int sh_labeling(shape_ *s, const zkp_fil_labeling_proof *l, uint32_t layer) {
    if (l->parents.n != LABEL_PARENTS)
        return sh_fail(s, "%u parents, a label has %u", (unsigned)l->parents.n, LABEL_PARENTS);
    if (l->layer_index != layer)
        return sh_fail(s, "layer_index %u where %u belongs", (unsigned)l->layer_index,
                       (unsigned)layer);
    if (l->node >= s->p->nodes)
        return sh_fail(s, "node %llu, the sector has %llu", (unsigned long long)l->node,
                       (unsigned long long)s->p->nodes);
    return 1;
}

static int sh_challenge(shape_ *s, const zkp_fil_challenge_proof *c) {
    const zkp_fil_seal_proof *p = s->p;
    if (!sh_merkle(s, &c->comm_d_proofs, "comm_d_proofs", 1) ||
        !sh_merkle(s, &c->comm_r_last_proof, "comm_r_last_proof", 0))
        return 0;
    size_t saved = path_push(s->r, ".replica_column_proofs");
    size_t at = path_push(s->r, ".c_x");
    if (!sh_column(s, &c->replica_column_proofs.c_x)) return 0;
    path_pop(s->r, at);
    if (!sh_columns(s, &c->replica_column_proofs.drg_parents, "drg_parents", DRG_PARENTS) ||
        !sh_columns(s, &c->replica_column_proofs.exp_parents, "exp_parents", EXP_PARENTS))
        return 0;
    path_pop(s->r, saved);
    saved = path_push(s->r, ".labeling_proofs");
    if (c->labeling_proofs.n != p->layers)
        return sh_fail(s, "%u proofs, one per layer (%u)", (unsigned)c->labeling_proofs.n,
                       (unsigned)p->layers);
    for (uint32_t l = 0; l < p->layers; l++) {
        at = path_push(s->r, "[%u]", (unsigned)l);
        if (!sh_labeling(s, &c->labeling_proofs.v[l], l + 1)) return 0;
        path_pop(s->r, at);
    }
    path_pop(s->r, saved);
    saved = path_push(s->r, ".encoding_proof");
    if (!sh_labeling(s, &c->encoding_proof, p->layers)) return 0;
    path_pop(s->r, saved);
    return 1;
}

static int check_shape(reader *r, const top_ *t) {
    const zkp_fil_seal_proof *p = t->c1.proof;
    shape_ s = {r, p};
    r->plen = 0;
    r->path[0] = 0;
    path_push(r, "vanilla_proofs");
    if (strcmp(t->vanilla_key, p->vanilla_key))
        return sh_fail(&s, "variant \"%s\", the proof needs \"%s\"", t->vanilla_key,
                       p->vanilla_key);
    path_push(r, "[\"%s\"]", t->vanilla_key);
    const zkp_fil_partitions *parts = &t->c1.vanilla_proofs;
    if (parts->n != p->partitions)
        return sh_fail(&s, "%u partitions where %u belong", (unsigned)parts->n,
                       (unsigned)p->partitions);
    for (uint32_t k = 0; k < parts->n; k++) {
        size_t at = path_push(r, "[%u]", (unsigned)k);
        if (parts->v[k].n != p->challenges)
            return sh_fail(&s, "%u challenges where %u belong", (unsigned)parts->v[k].n,
                           (unsigned)p->challenges);
        for (uint32_t i = 0; i < parts->v[k].n; i++) {
            size_t ci = path_push(r, "[%u]", (unsigned)i);
            if (!sh_challenge(&s, &parts->v[k].v[i])) return 0;
            path_pop(r, ci);
        }
        path_pop(r, at);
    }
    return 1;
}

static zkp_fil_arena *arena_new(const zkp_allocator *alloc, zkp_mem_category cat) {
    zkp_fil_arena *a = zkp_alloc(alloc, sizeof *a, cat);
    if (a) {
        memset(a, 0, sizeof *a);
        a->alloc = alloc;
        a->cat = cat;
    }
    return a;
}

zkpipe_status zkp_fil_c1_init(zkp_fil_c1 *c1, const zkp_fil_seal_proof *p,
                              const zkp_allocator *alloc, zkp_mem_category cat) {
    memset(c1, 0, sizeof *c1);
    c1->proof = p;
    c1->arena = arena_new(alloc, cat);
    return c1->arena ? ZKPIPE_OK : ZKPIPE_ERR_NO_MEMORY;
}

void *zkp_fil_c1_alloc(zkp_fil_c1 *c1, size_t bytes) {
    void *p = arena_alloc(c1->arena, bytes);
    if (p) memset(p, 0, bytes);
    return p;
}

zkpipe_status zkp_fil_c1_parse(zkp_fil_c1 *out, const char *text, size_t len, const char *name,
                               const zkp_allocator *alloc, zkp_mem_category cat, zkp_diag *diag) {
    memset(out, 0, sizeof *out);
    if (!text && len) return zkp_diag_fail(diag, ZKPIPE_ERR_INVALID_ARGUMENT, "no C1 text");
    top_ t;
    memset(&t, 0, sizeof t);
    t.c1.arena = arena_new(alloc, cat);
    if (!t.c1.arena) return zkp_diag_fail(diag, ZKPIPE_ERR_NO_MEMORY, "cannot allocate the C1");
    reader r = {.text = text,
                .p = text,
                .end = text + len,
                .name = name ? name : "C1",
                .arena = t.c1.arena,
                .diag = diag};
    int ok = read_object(&r, c1_members, sizeof c1_members / sizeof c1_members[0], &t);
    if (ok && peek(&r) >= 0) ok = rd_fail(&r, ZKPIPE_ERR_PARSE, "text after the document");
    if (ok) ok = check_shape(&r, &t);
    if (!ok) {
        zkp_fil_c1_free(&t.c1);
        return r.st;
    }
    *out = t.c1;
    return ZKPIPE_OK;
}

/* ---- The writer: serde_json's compact form, members in the Rust structs'
 * order. One pass counts, the second fills. */

typedef struct {
    uint8_t *buf; /* NULL while counting */
    size_t len;
} sink;

static void put(sink *o, const char *str, size_t n) {
    if (o->buf) memcpy(o->buf + o->len, str, n);
    o->len += n;
}

static void put_s(sink *o, const char *str) { put(o, str, strlen(str)); }

static void put_u64(sink *o, uint64_t v) {
    char d[24];
    int n = snprintf(d, sizeof d, "%llu", (unsigned long long)v);
    put(o, d, (size_t)n);
}

static void put_domain(sink *o, const zkp_fil_domain *d) {
    put_s(o, "[");
    for (int i = 0; i < 32; i++) {
        if (i) put_s(o, ",");
        put_u64(o, d->b[i]);
    }
    put_s(o, "]");
}

static void put_domains(sink *o, const zkp_fil_domains *d) {
    put_s(o, "[");
    for (uint32_t i = 0; i < d->n; i++) {
        if (i) put_s(o, ",");
        put_domain(o, &d->v[i]);
    }
    put_s(o, "]");
}

static void put_path(sink *o, const zkp_fil_path *p) {
    put_s(o, "{\"path\":[");
    for (uint32_t i = 0; i < p->n; i++) {
        put_s(o, i ? ",{\"hashes\":" : "{\"hashes\":");
        put_domains(o, &p->v[i].hashes);
        put_s(o, ",\"index\":");
        put_u64(o, p->v[i].index);
        put_s(o, "}");
    }
    put_s(o, "]}");
}

static void put_merkle(sink *o, const zkp_fil_merkle_proof *m) {
    put_s(o, "{\"data\":{\"");
    put_s(o, merkle_kinds[m->kind].name);
    put_s(o, "\":{");
    if (m->kind == ZKP_FIL_MERKLE_SINGLE) {
        put_s(o, "\"root\":");
        put_domain(o, &m->root);
        put_s(o, ",\"leaf\":");
        put_domain(o, &m->leaf);
        put_s(o, ",\"path\":");
        put_path(o, &m->base);
    } else {
        put_s(o, "\"base_proof\":");
        put_path(o, &m->base);
        put_s(o, ",\"sub_proof\":");
        put_path(o, &m->sub);
        if (m->kind == ZKP_FIL_MERKLE_TOP) {
            put_s(o, ",\"top_proof\":");
            put_path(o, &m->top);
        }
        put_s(o, ",\"root\":");
        put_domain(o, &m->root);
        put_s(o, ",\"leaf\":");
        put_domain(o, &m->leaf);
    }
    put_s(o, "}}}");
}

static void put_column(sink *o, const zkp_fil_column_proof *c) {
    put_s(o, "{\"column\":{\"index\":");
    put_u64(o, c->index);
    put_s(o, ",\"rows\":");
    put_domains(o, &c->rows);
    put_s(o, ",\"_h\":null},\"inclusion_proof\":");
    put_merkle(o, &c->inclusion);
    put_s(o, "}");
}

static void put_columns(sink *o, const zkp_fil_column_proofs *c) {
    put_s(o, "[");
    for (uint32_t i = 0; i < c->n; i++) {
        if (i) put_s(o, ",");
        put_column(o, &c->v[i]);
    }
    put_s(o, "]");
}

static void put_labeling(sink *o, const zkp_fil_labeling_proof *l) {
    put_s(o, "{\"parents\":");
    put_domains(o, &l->parents);
    put_s(o, ",\"layer_index\":");
    put_u64(o, l->layer_index);
    put_s(o, ",\"node\":");
    put_u64(o, l->node);
    put_s(o, "}");
}

static void put_challenge(sink *o, const zkp_fil_challenge_proof *c) {
    put_s(o, "{\"comm_d_proofs\":");
    put_merkle(o, &c->comm_d_proofs);
    put_s(o, ",\"comm_r_last_proof\":");
    put_merkle(o, &c->comm_r_last_proof);
    put_s(o, ",\"replica_column_proofs\":{\"c_x\":");
    put_column(o, &c->replica_column_proofs.c_x);
    put_s(o, ",\"drg_parents\":");
    put_columns(o, &c->replica_column_proofs.drg_parents);
    put_s(o, ",\"exp_parents\":");
    put_columns(o, &c->replica_column_proofs.exp_parents);
    put_s(o, "},\"labeling_proofs\":[");
    for (uint32_t i = 0; i < c->labeling_proofs.n; i++) {
        if (i) put_s(o, ",");
        put_labeling(o, &c->labeling_proofs.v[i]);
    }
    put_s(o, "],\"encoding_proof\":");
    put_labeling(o, &c->encoding_proof);
    put_s(o, "}");
}

static void put_c1(sink *o, const zkp_fil_c1 *c1) {
    put_s(o, "{\"registered_proof\":\"");
    put_s(o, c1->proof->name);
    put_s(o, "\",\"vanilla_proofs\":{\"");
    put_s(o, c1->proof->vanilla_key);
    put_s(o, "\":[");
    for (uint32_t k = 0; k < c1->vanilla_proofs.n; k++) {
        put_s(o, k ? ",[" : "[");
        const zkp_fil_partition_proofs *part = &c1->vanilla_proofs.v[k];
        for (uint32_t i = 0; i < part->n; i++) {
            if (i) put_s(o, ",");
            put_challenge(o, &part->v[i]);
        }
        put_s(o, "]");
    }
    put_s(o, "]},\"comm_r\":");
    put_domain(o, &c1->comm_r);
    put_s(o, ",\"comm_d\":");
    put_domain(o, &c1->comm_d);
    put_s(o, ",\"replica_id\":");
    put_domain(o, &c1->replica_id);
    put_s(o, ",\"seed\":");
    put_domain(o, &c1->seed);
    put_s(o, ",\"ticket\":");
    put_domain(o, &c1->ticket);
    put_s(o, "}");
}

zkpipe_status zkp_fil_c1_write(const zkp_fil_c1 *c1, uint8_t **out, size_t *out_len,
                               const zkp_allocator *alloc, zkp_mem_category cat, zkp_diag *diag) {
    *out = NULL;
    *out_len = 0;
    if (!c1 || !c1->proof)
        return zkp_diag_fail(diag, ZKPIPE_ERR_INVALID_ARGUMENT, "no C1 to write");
    sink count = {NULL, 0};
    put_c1(&count, c1);
    sink fill = {zkp_alloc(alloc, count.len, cat), 0};
    if (!fill.buf)
        return zkp_diag_fail(diag, ZKPIPE_ERR_NO_MEMORY, "cannot allocate %zu bytes for the C1",
                             count.len);
    put_c1(&fill, c1);
    *out = fill.buf;
    *out_len = fill.len;
    return ZKPIPE_OK;
}

/* ---- Curio's envelope. */

typedef struct {
    uint64_t sector_num, sector_size;
    char *data;
    size_t len;
    const zkp_allocator *alloc;
    zkp_mem_category cat;
} envelope_;

static int b64_value(int c) {
    return c >= 'A' && c <= 'Z'   ? c - 'A'
           : c >= 'a' && c <= 'z' ? c - 'a' + 26
           : c >= '0' && c <= '9' ? c - '0' + 52
           : c == '+'             ? 62
           : c == '/'             ? 63
                                  : -1;
}

/* Standard base64 with padding, as Go's encoding/json writes a []byte:
 * counted first, then decoded straight from the text into its buffer. */
static int rd_base64(reader *r, void *dst) {
    envelope_ *e = dst;
    if (!expect(r, '"')) return 0;
    const char *start = r->p;
    size_t n = 0;
    int last = 0, before_last = 0;
    for (int c = 0;;) {
        if (!next_char(r, &c)) return 0;
        if (c < 0) break;
        before_last = last;
        last = c;
        n++;
    }
    if (n % 4) return rd_fail(r, ZKPIPE_ERR_PARSE, "%zu base64 characters, not a multiple of 4", n);
    size_t pad = (size_t)(n && last == '=') + (size_t)(n && last == '=' && before_last == '=');
    size_t bytes = n / 4 * 3 - pad;
    if (bytes) {
        e->data = zkp_alloc(e->alloc, bytes, e->cat);
        if (!e->data) return rd_fail(r, ZKPIPE_ERR_NO_MEMORY, "cannot hold %zu bytes", bytes);
        e->len = bytes; /* what to free, whatever happens next */
    }
    r->p = start;
    uint32_t acc = 0;
    size_t got = 0, out = 0;
    for (int c = 0;;) {
        if (!next_char(r, &c)) return 0;
        if (c < 0) break;
        int v = b64_value(c);
        if (c == '=' && got >= n - pad) v = 0;
        if (v < 0)
            return rd_fail(r, ZKPIPE_ERR_PARSE, "'%c' at character %zu is not base64", c, got);
        acc = acc << 6 | (uint32_t)v;
        if (++got % 4 == 0) {
            uint8_t b[3] = {(uint8_t)(acc >> 16), (uint8_t)(acc >> 8), (uint8_t)acc};
            size_t keep = got == n ? 3 - pad : 3;
            memcpy(e->data + out, b, keep);
            out += keep;
            acc = 0;
        }
    }
    return 1;
}

static int rd_env_u64(reader *r, void *dst) { return read_uint(r, UINT64_MAX, dst); }

static const member envelope_members[] = {
    {"SectorNum", rd_env_u64, offsetof(envelope_, sector_num)},
    {"Phase1Out", rd_base64, 0},
    {"SectorSize", rd_env_u64, offsetof(envelope_, sector_size)},
};

zkpipe_status zkp_fil_c1_envelope_parse(const char *text, size_t len, uint64_t *sector_num,
                                        uint64_t *sector_size, char **c1_json, size_t *c1_len,
                                        const zkp_allocator *alloc, zkp_mem_category cat,
                                        zkp_diag *diag) {
    *c1_json = NULL;
    *c1_len = 0;
    envelope_ e = {0, 0, NULL, 0, alloc, cat};
    reader r = {
        .text = text, .p = text, .end = text + len, .name = "the C1 envelope", .diag = diag};
    int ok = text && read_object(&r, envelope_members, 3, &e);
    if (!text) ok = rd_fail(&r, ZKPIPE_ERR_INVALID_ARGUMENT, "no text");
    if (ok && peek(&r) >= 0) ok = rd_fail(&r, ZKPIPE_ERR_PARSE, "text after the document");
    if (!ok) {
        zkp_free(alloc, e.data, e.len, cat);
        return r.st;
    }
    *sector_num = e.sector_num;
    *sector_size = e.sector_size;
    *c1_json = e.data;
    *c1_len = e.len;
    return ZKPIPE_OK;
}
