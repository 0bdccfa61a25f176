/* Tests of the daemon's metrics (src/server/metrics.h): the Prometheus text
 * through a strict parser of the exposition format written here, exact
 * counter and histogram values, the JSON status through the project's JSON
 * reader, the bound on label sets, the HTTP endpoint through a raw-socket
 * HTTP/1.0 client, and recording from several threads while rendering. */
#include <arpa/inet.h>
#include <errno.h>
#include <math.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdlib.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include "server/metrics.h"
#include "test.h"
#include "util/json.h"

/* ------------------------------------------------------------------------
 * A strict reader of the Prometheus text exposition format 0.0.4.
 *
 * Beyond the grammar it checks what a scraper relies on: every family has
 * exactly one HELP and one TYPE line, both before its first sample; the lines
 * of a family are contiguous (a family never comes back after another one
 * started); no series appears twice; counters are not negative; and every
 * histogram has, per label set, buckets with increasing le ending in +Inf,
 * non-decreasing counts, and _sum and _count with the +Inf bucket equal to
 * _count. It is stricter than Prometheus where this code's output should
 * never go: no blank lines, no trailing comma in a label set. */

#define PROM_MAX_LABELS 16

typedef struct {
    char *name;   /* sample name, as written */
    char *family; /* the family it belongs to */
    char *labels; /* canonical form of its labels without le (see canon_labels) */
    char *le;     /* the le label of a histogram bucket; NULL otherwise */
    double value;
} prom_sample;

typedef struct {
    char *name;
    char type[16];
    int help, typed, closed;
    size_t n_samples;
} prom_family;

typedef struct {
    prom_sample *s;
    size_t n, cap;
    prom_family **f; /* one allocation each: the current family is held by pointer */
    size_t nf, capf;
    char err[512];
} prom_doc;

static void *xrealloc(void *p, size_t n) {
    void *q = realloc(p, n);
    ASSERT(q != NULL);
    return q;
}

static char *xstrndup(const char *s, size_t n) {
    char *p = malloc(n + 1);
    ASSERT(p != NULL);
    memcpy(p, s, n);
    p[n] = '\0';
    return p;
}

static void prom_doc_free(prom_doc *d) {
    for (size_t i = 0; i < d->n; i++) {
        free(d->s[i].name);
        free(d->s[i].family);
        free(d->s[i].labels);
        free(d->s[i].le);
    }
    for (size_t i = 0; i < d->nf; i++) {
        free(d->f[i]->name);
        free(d->f[i]);
    }
    free(d->s);
    free(d->f);
    memset(d, 0, sizeof *d);
}

static int perr(prom_doc *d, int line, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int perr(prom_doc *d, int line, const char *fmt, ...) {
    int n = snprintf(d->err, sizeof d->err, "line %d: ", line);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(d->err + n, sizeof d->err - (size_t)n, fmt, ap);
    va_end(ap);
    return -1;
}

static int is_name_start(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}
static int is_name_char(char c) { return is_name_start(c) || (c >= '0' && c <= '9'); }

/* Length of a metric name ([a-zA-Z_:][a-zA-Z0-9_:]*) at p; 0 if none. */
static size_t metric_name_len(const char *p) {
    size_t n = 0;
    if (!(is_name_start(p[0]) || p[0] == ':')) return 0;
    while (is_name_char(p[n]) || p[n] == ':') n++;
    return n;
}

/* Length of a label name ([a-zA-Z_][a-zA-Z0-9_]*) at p; 0 if none. */
static size_t label_name_len(const char *p) {
    size_t n = 0;
    if (!is_name_start(p[0])) return 0;
    while (is_name_char(p[n])) n++;
    return n;
}

/* A sample value: a float strtod reads in full, or +Inf, -Inf, NaN. */
static int parse_value(const char *tok, size_t len, double *out) {
    if (len == 4 && memcmp(tok, "+Inf", 4) == 0) {
        *out = INFINITY;
        return 0;
    }
    if (len == 4 && memcmp(tok, "-Inf", 4) == 0) {
        *out = -INFINITY;
        return 0;
    }
    if (len == 3 && memcmp(tok, "NaN", 3) == 0) {
        *out = NAN;
        return 0;
    }
    if (len == 0 || len > 64) return -1;
    for (size_t i = 0; i < len; i++)
        if (!strchr("0123456789+-.eE", tok[i])) return -1;
    char buf[80], *end;
    memcpy(buf, tok, len);
    buf[len] = '\0';
    errno = 0;
    *out = strtod(buf, &end);
    return (*end == '\0' && errno == 0) ? 0 : -1;
}

typedef struct {
    const char *k, *v;
} kv_pair;

static int kv_cmp(const void *a, const void *b) {
    return strcmp(((const kv_pair *)a)->k, ((const kv_pair *)b)->k);
}

/* "k=v\x1f" for each label, sorted by name: one string per label set.
 * Returns NULL for a repeated label name. */
static char *canon_labels(kv_pair *kv, size_t n) {
    qsort(kv, n, sizeof *kv, kv_cmp);
    size_t len = 1;
    for (size_t i = 0; i < n; i++) {
        if (i && strcmp(kv[i].k, kv[i - 1].k) == 0) return NULL;
        len += strlen(kv[i].k) + strlen(kv[i].v) + 2;
    }
    char *s = malloc(len), *p = s;
    ASSERT(s != NULL);
    for (size_t i = 0; i < n; i++) p += sprintf(p, "%s=%s\x1f", kv[i].k, kv[i].v);
    *p = '\0';
    return s;
}

static prom_family *family_find(prom_doc *d, const char *name, size_t len) {
    for (size_t i = 0; i < d->nf; i++)
        if (strlen(d->f[i]->name) == len && memcmp(d->f[i]->name, name, len) == 0) return d->f[i];
    return NULL;
}

static prom_family *family_get(prom_doc *d, const char *name, size_t len) {
    prom_family *f = family_find(d, name, len);
    if (f) return f;
    if (d->nf == d->capf) {
        d->capf = d->capf ? 2 * d->capf : 16;
        d->f = xrealloc(d->f, d->capf * sizeof *d->f);
    }
    f = calloc(1, sizeof *f);
    ASSERT(f != NULL);
    d->f[d->nf++] = f;
    f->name = xstrndup(name, len);
    return f;
}

/* The family a line belongs to becomes the current one; the previous one is
 * then closed for good. */
static int family_enter(prom_doc *d, prom_family **cur, prom_family *f, int line) {
    if (*cur == f) return 0;
    if (f->closed) return perr(d, line, "family %s appears in two separate runs of lines", f->name);
    if (*cur) (*cur)->closed = 1;
    *cur = f;
    return 0;
}

static int suffix_is(const char *name, size_t len, const char *suf, size_t *base) {
    size_t sl = strlen(suf);
    if (len <= sl || memcmp(name + len - sl, suf, sl) != 0) return 0;
    *base = len - sl;
    return 1;
}

static int parse_sample(prom_doc *d, prom_family **cur, const char *p, const char *end, int line) {
    size_t nl = metric_name_len(p);
    if (!nl) return perr(d, line, "bad metric name");
    const char *name = p;
    p += nl;

    /* Which family: the name itself, or a histogram's _bucket/_sum/_count. */
    prom_family *f = family_find(d, name, nl);
    size_t base;
    int is_bucket = 0;
    if (f && strcmp(f->type, "histogram") == 0)
        return perr(d, line, "histogram %s has a sample without suffix", f->name);
    if (!f) {
        const char *sufs[] = {"_bucket", "_sum", "_count"};
        for (int i = 0; i < 3 && !f; i++)
            if (suffix_is(name, nl, sufs[i], &base)) {
                prom_family *g = family_find(d, name, base);
                if (g && (strcmp(g->type, "histogram") == 0 ||
                          (i > 0 && strcmp(g->type, "summary") == 0))) {
                    f = g;
                    is_bucket = i == 0 && strcmp(g->type, "histogram") == 0;
                }
            }
    }
    if (!f) return perr(d, line, "sample %.*s has no HELP/TYPE before it", (int)nl, name);
    if (!f->help || !f->typed)
        return perr(d, line, "sample %.*s: family %s lacks %s", (int)nl, name, f->name,
                    f->help ? "TYPE" : "HELP");
    if (family_enter(d, cur, f, line) != 0) return -1;

    kv_pair kv[PROM_MAX_LABELS];
    char *vals[PROM_MAX_LABELS];
    char *keys[PROM_MAX_LABELS];
    size_t n_kv = 0;
    int rc = -1;
    char *le = NULL;
    if (*p == '{') {
        p++;
        while (*p != '}') {
            size_t ln = label_name_len(p);
            if (!ln) {
                perr(d, line, "bad label name at '%.10s'", p);
                goto out;
            }
            if (ln >= 2 && p[0] == '_' && p[1] == '_') {
                perr(d, line, "reserved label name");
                goto out;
            }
            if (n_kv == PROM_MAX_LABELS) {
                perr(d, line, "too many labels");
                goto out;
            }
            keys[n_kv] = xstrndup(p, ln);
            vals[n_kv] = malloc((size_t)(end - p) + 1);
            ASSERT(vals[n_kv] != NULL);
            kv[n_kv].k = keys[n_kv];
            kv[n_kv].v = vals[n_kv];
            char *v = vals[n_kv];
            n_kv++;
            p += ln;
            if (p[0] != '=' || p[1] != '"') {
                perr(d, line, "expected =\" after label name");
                goto out;
            }
            p += 2;
            for (;;) {
                if (p >= end) {
                    perr(d, line, "unterminated label value");
                    goto out;
                }
                if (*p == '"') break;
                if (*p == '\\') {
                    p++;
                    if (*p == '\\' || *p == '"')
                        *v++ = *p;
                    else if (*p == 'n')
                        *v++ = '\n';
                    else {
                        perr(d, line, "bad escape \\%c in label value", *p);
                        goto out;
                    }
                    p++;
                } else {
                    *v++ = *p++;
                }
            }
            *v = '\0';
            p++;
            if (*p == ',') {
                p++;
                if (*p == '}') {
                    perr(d, line, "trailing comma in label set");
                    goto out;
                }
            } else if (*p != '}') {
                perr(d, line, "expected , or } after label value");
                goto out;
            }
        }
        p++;
    }
    if (*p != ' ' && *p != '\t') {
        perr(d, line, "expected whitespace before the value");
        goto out;
    }
    while (*p == ' ' || *p == '\t') p++;
    const char *tok = p;
    while (p < end && *p != ' ' && *p != '\t') p++;
    double value;
    if (parse_value(tok, (size_t)(p - tok), &value) != 0) {
        perr(d, line, "bad value '%.*s'", (int)(p - tok), tok);
        goto out;
    }
    while (*p == ' ' || *p == '\t') p++;
    if (p < end) { /* a timestamp: an integer of milliseconds */
        if (*p == '-') p++;
        if (!(*p >= '0' && *p <= '9')) {
            perr(d, line, "bad timestamp");
            goto out;
        }
        while (*p >= '0' && *p <= '9') p++;
        if (p != end) {
            perr(d, line, "junk after the value");
            goto out;
        }
    }
    if (strcmp(f->type, "counter") == 0 && !(value >= 0)) {
        perr(d, line, "counter %s is negative or NaN", f->name);
        goto out;
    }

    char *canon = canon_labels(kv, n_kv);
    if (!canon) {
        perr(d, line, "repeated label name");
        goto out;
    }
    free(canon);
    /* le is set apart so that a histogram's series can be grouped. */
    kv_pair rest[PROM_MAX_LABELS];
    size_t n_rest = 0;
    for (size_t i = 0; i < n_kv; i++) {
        if (is_bucket && strcmp(kv[i].k, "le") == 0)
            le = xstrndup(kv[i].v, strlen(kv[i].v));
        else
            rest[n_rest++] = kv[i];
    }
    if (is_bucket && !le) {
        perr(d, line, "bucket without le");
        goto out;
    }
    canon = canon_labels(rest, n_rest);
    ASSERT(canon != NULL);
    for (size_t i = 0; i < d->n; i++) {
        const prom_sample *s = &d->s[i];
        if (strlen(s->name) == nl && memcmp(s->name, name, nl) == 0 &&
            strcmp(s->labels, canon) == 0 &&
            ((!s->le && !le) || (s->le && le && strcmp(s->le, le) == 0))) {
            free(canon);
            perr(d, line, "series repeated");
            goto out;
        }
    }
    if (d->n == d->cap) {
        d->cap = d->cap ? 2 * d->cap : 64;
        d->s = xrealloc(d->s, d->cap * sizeof *d->s);
    }
    prom_sample *s = &d->s[d->n++];
    s->name = xstrndup(name, nl);
    s->family = xstrndup(f->name, strlen(f->name));
    s->labels = canon;
    s->le = le;
    s->value = value;
    le = NULL;
    f->n_samples++;
    rc = 0;
out:
    for (size_t i = 0; i < n_kv; i++) {
        free(keys[i]);
        free(vals[i]);
    }
    free(le);
    return rc;
}

/* HELP text: only \\ and \n are escapes. */
static int check_help_text(const char *p, const char *end) {
    for (; p < end; p++)
        if (*p == '\\') {
            p++;
            if (p >= end || (*p != '\\' && *p != 'n')) return -1;
        }
    return 0;
}

static int parse_comment(prom_doc *d, prom_family **cur, const char *p, const char *end,
                         int line) {
    int is_help = strncmp(p, "# HELP ", 7) == 0, is_type = strncmp(p, "# TYPE ", 7) == 0;
    if (!is_help && !is_type) return 0; /* any other comment is allowed and ignored */
    p += 7;
    size_t nl = metric_name_len(p);
    if (!nl) return perr(d, line, "bad metric name in HELP/TYPE");
    prom_family *f = family_get(d, p, nl);
    if (family_enter(d, cur, f, line) != 0) return -1;
    p += nl;
    if (is_help) {
        if (f->help) return perr(d, line, "second HELP for %s", f->name);
        if (p < end && *p != ' ') return perr(d, line, "junk after the name in HELP");
        if (p < end && check_help_text(p + 1, end) != 0)
            return perr(d, line, "bad escape in HELP text");
        f->help = 1;
        return 0;
    }
    if (f->typed) return perr(d, line, "second TYPE for %s", f->name);
    if (f->n_samples) return perr(d, line, "TYPE for %s after its samples", f->name);
    if (*p != ' ') return perr(d, line, "TYPE without a type");
    p++;
    size_t tl = (size_t)(end - p);
    const char *types[] = {"counter", "gauge", "histogram", "summary", "untyped"};
    for (size_t i = 0; i < 5; i++)
        if (strlen(types[i]) == tl && memcmp(p, types[i], tl) == 0) {
            strcpy(f->type, types[i]);
            f->typed = 1;
            return 0;
        }
    return perr(d, line, "unknown type '%.*s'", (int)tl, p);
}

static int check_histograms(prom_doc *d) {
    for (size_t fi = 0; fi < d->nf; fi++) {
        const prom_family *f = d->f[fi];
        if (strcmp(f->type, "histogram") != 0) continue;
        size_t fl = strlen(f->name);
        for (size_t i = 0; i < d->n; i++) {
            const prom_sample *g = &d->s[i];
            if (strcmp(g->family, f->name) != 0) continue;
            /* Take each label set once, at its first sample. */
            int seen = 0;
            for (size_t j = 0; j < i && !seen; j++)
                seen = strcmp(d->s[j].family, f->name) == 0 &&
                       strcmp(d->s[j].labels, g->labels) == 0;
            if (seen) continue;
            double prev_le = -INFINITY, prev_count = 0, inf_count = NAN, sum = NAN, count = NAN;
            int n_sum = 0, n_count = 0, n_buckets = 0;
            for (size_t j = i; j < d->n; j++) {
                const prom_sample *s = &d->s[j];
                if (strcmp(s->family, f->name) != 0 || strcmp(s->labels, g->labels) != 0) continue;
                const char *suf = s->name + fl;
                if (strcmp(suf, "_bucket") == 0) {
                    double le;
                    if (!isnan(inf_count)) {
                        snprintf(d->err, sizeof d->err, "%s: bucket after le=+Inf", f->name);
                        return -1;
                    }
                    if (parse_value(s->le, strlen(s->le), &le) != 0 || isnan(le) || le <= prev_le) {
                        snprintf(d->err, sizeof d->err, "%s: le '%s' not increasing", f->name,
                                 s->le);
                        return -1;
                    }
                    if (!(s->value >= prev_count)) {
                        snprintf(d->err, sizeof d->err, "%s: bucket le=%s count decreases",
                                 f->name, s->le);
                        return -1;
                    }
                    prev_le = le;
                    prev_count = s->value;
                    if (isinf(le)) inf_count = s->value;
                    n_buckets++;
                } else if (strcmp(suf, "_sum") == 0) {
                    sum = s->value;
                    n_sum++;
                } else {
                    count = s->value;
                    n_count++;
                }
            }
            (void)sum;
            if (n_buckets == 0 || isnan(inf_count) || n_sum != 1 || n_count != 1) {
                snprintf(d->err, sizeof d->err,
                         "%s{%s}: needs buckets ending in +Inf, one _sum, one _count", f->name,
                         g->labels);
                return -1;
            }
            if (inf_count != count) {
                snprintf(d->err, sizeof d->err, "%s{%s}: +Inf bucket %g != _count %g", f->name,
                         g->labels, inf_count, count);
                return -1;
            }
        }
    }
    return 0;
}

/* 0 when text is a valid exposition; else -1 with d->err saying why. */
static int prom_parse(prom_doc *d, const char *text) {
    memset(d, 0, sizeof *d);
    size_t len = strlen(text);
    if (len == 0 || text[len - 1] != '\n') return perr(d, 0, "text does not end in a newline");
    prom_family *cur = NULL;
    int line = 0;
    for (const char *p = text; *p;) {
        const char *end = strchr(p, '\n');
        line++;
        if (end == p) return perr(d, line, "blank line");
        int rc = p[0] == '#' ? parse_comment(d, &cur, p, end, line)
                             : parse_sample(d, &cur, p, end, line);
        if (rc != 0) return -1;
        p = end + 1;
    }
    for (size_t i = 0; i < d->nf; i++)
        if (!d->f[i]->help || !d->f[i]->typed)
            return perr(d, line, "family %s lacks HELP or TYPE", d->f[i]->name);
    return check_histograms(d);
}

static void must_prom_parse(prom_doc *d, const char *text) {
    ASSERT(text != NULL);
    if (prom_parse(d, text) != 0) {
        fprintf(stderr, "---- exposition ----\n%s---- end ----\n", text);
        char err[sizeof d->err];
        memcpy(err, d->err, sizeof err);
        prom_doc_free(d);
        test_fail(__FILE__, __LINE__, "invalid exposition: %s", err);
    }
}

/* The sample name{k=v,...}[le], or NULL. Pairs are (name, value) strings. */
static const prom_sample *prom_find_v(prom_doc *d, const char *name, const char *le,
                                      size_t n_pairs, va_list ap) {
    kv_pair kv[PROM_MAX_LABELS];
    ASSERT(n_pairs <= PROM_MAX_LABELS);
    for (size_t i = 0; i < n_pairs; i++) {
        kv[i].k = va_arg(ap, const char *);
        kv[i].v = va_arg(ap, const char *);
    }
    char *canon = canon_labels(kv, n_pairs);
    ASSERT(canon != NULL);
    const prom_sample *found = NULL;
    for (size_t i = 0; i < d->n && !found; i++) {
        const prom_sample *s = &d->s[i];
        if (strcmp(s->name, name) == 0 && strcmp(s->labels, canon) == 0 &&
            ((!le && !s->le) || (le && s->le && strcmp(le, s->le) == 0)))
            found = s;
    }
    free(canon);
    return found;
}

/* The value of a sample that must exist. */
static double prom_get_at(int line, prom_doc *d, const char *name, const char *le, size_t n_pairs,
                          ...) {
    va_list ap;
    va_start(ap, n_pairs);
    const prom_sample *s = prom_find_v(d, name, le, n_pairs, ap);
    va_end(ap);
    if (!s) test_fail(__FILE__, line, "no sample %s (le %s)", name, le ? le : "-");
    return s->value;
}

#define PROM_GET(d, name, le, ...) prom_get_at(__LINE__, (d), (name), (le), __VA_ARGS__)

static size_t prom_count_name(const prom_doc *d, const char *name) {
    size_t n = 0;
    for (size_t i = 0; i < d->n; i++) n += strcmp(d->s[i].name, name) == 0;
    return n;
}

/* ------------------------------------------------------------------------
 * Synthetic inputs */

#define KEY_QUOTE "we\"ird\\key\nname"

static const uint32_t VIEW_IDS[] = {7, 9};
static const char *const VIEW_NAMES[] = {"alpha", KEY_QUOTE};

static void fill_status(zkpipe_engine_status *st) {
    memset(st, 0, sizeof *st);
    st->queued_admit = 5;
    st->queued_synth = 4;
    st->queued_device = 3;
    st->queued_finalize = 2;
    st->running_synth = 1;
    st->running_device = 2;
    st->running_finalize = 1;
    st->jobs_live = 3;
    st->jobs_completed = 10;
    st->jobs_failed = 2;
    st->jobs_cancelled = 1;
    st->partitions_completed = 77;
    st->proofs_verified = 70;
    static const struct {
        zkpipe_worker_role role;
        zkpipe_worker_state state;
    } w[] = {
        {ZKPIPE_WORKER_SYNTH, ZKPIPE_WORKER_BUSY},
        {ZKPIPE_WORKER_SYNTH, ZKPIPE_WORKER_IDLE},
        {ZKPIPE_WORKER_DEVICE, ZKPIPE_WORKER_BUSY},
        {ZKPIPE_WORKER_DEVICE, ZKPIPE_WORKER_WAITING},
        {ZKPIPE_WORKER_FINALIZE, ZKPIPE_WORKER_IDLE},
        {ZKPIPE_WORKER_DISPATCH, ZKPIPE_WORKER_WAITING},
        {ZKPIPE_WORKER_SYNTH, ZKPIPE_WORKER_BUSY},
    };
    st->n_workers = sizeof w / sizeof w[0];
    for (size_t i = 0; i < st->n_workers; i++) {
        st->workers[i].role = w[i].role;
        st->workers[i].state = w[i].state;
        st->workers[i].device = 0;
    }
    for (unsigned i = 0; i < ZKPIPE_ENGINE_MEM_CATEGORIES; i++) {
        st->mem_live[i] = (i + 1) * 1000u;
        st->mem_peak[i] = (i + 1) * 2000u + 1;
    }
    st->tracked_bytes = 123456;
    st->tracked_peak_bytes = 234567;
    st->rss_bytes = 1ull << 33;
    st->peak_rss_bytes = (1ull << 33) + 5;
    st->baseline_rss_bytes = 1u << 20;
    st->budget_total_bytes = 1ull << 36;
    st->budget_reserved_bytes = 1ull << 30;
    st->budget_available_bytes = (1ull << 36) - (1ull << 30);
    st->budget_peak_reserved_bytes = 1ull << 31;
    st->reservations_waiting = 2;
    st->reservation_refusals = 3;
    st->reservation_violations = 0;
    st->n_keys = 3;
    st->keys[0] = (zkpipe_key_status){.id = 7, .tier = ZKPIPE_KEY_HOT, .curve = ZKPIPE_CURVE_BN254,
                                      .file_bytes = 4096, .resident_bytes = 1u << 20,
                                      .partition_bytes = 1u << 16, .running = 2, .loads = 2,
                                      .evictions = 1};
    st->keys[1] = (zkpipe_key_status){.id = 9, .tier = ZKPIPE_KEY_COLD, .file_bytes = 8192};
    st->keys[2] = (zkpipe_key_status){.id = 11, .tier = ZKPIPE_KEY_LOADING,
                                      .curve = ZKPIPE_CURVE_BLS12_381, .file_bytes = 1u << 24,
                                      .loads = 5, .evictions = 4};
    /* Two GPUs: their memory, busy time and copies. */
    st->n_devices = 2;
    for (unsigned g = 0; g < 2; g++) {
        zkpipe_device_status *dv = &st->devices[g];
        snprintf(dv->name, sizeof dv->name, "cuda:%u (Test GPU)", g);
        dv->is_gpu = 1;
        dv->ordinal = g;
        dv->vram_total_bytes = 80ull << 30;
        dv->vram_free_bytes = (70ull << 30) - g;
        for (unsigned c = 0; c < ZKPIPE_ENGINE_GPU_MEM_CATEGORIES; c++)
            dv->vram_bytes[c] = (uint64_t)(c + 1) << (20 + g);
        dv->vram_tracked_bytes = 10ull << 20;
        dv->vram_peak_bytes = 12ull << 20;
        dv->h2d_bytes = 1000 + g;
        dv->d2h_bytes = 2000 + g;
        dv->busy_seconds = 1.5 + g;
    }
    /* The second is out of service, and its reason needs escaping. */
    st->devices[1].lost = 1;
    snprintf(st->devices[1].lost_reason, sizeof st->devices[1].lost_reason, "%s",
             "CUDA: cudaDeviceSynchronize() failed: \"unspecified launch failure\"");
}

static void fill_view(zkp_server_view *v) {
    memset(v, 0, sizeof *v);
    v->uptime_seconds = 12.5;
    v->draining = 1;
    v->server_jobs_live = 4;
    v->server_payload_bytes = 4096;
    v->rpc_in_flight = 2;
    v->n_key_names = 2;
    v->key_ids = VIEW_IDS;
    v->key_names = VIEW_NAMES;
}

/* Job keys a client could choose: quotes, backslashes, newlines, a control
 * character, non-ASCII, bytes that are not UTF-8, nothing at all. */
static const char *const TRICKY_KEYS[] = {
    "a\"b", "back\\slash", "new\nline", "\"\\\n\\\"", "", "ctl\x01x",
    "\xd0\xba\xd0\xbb\xd1\x8e\xd1\x87",
};

static const char *const FAMILIES[] = {
    "jobs_total",        "stage_seconds",          "rpc_total",
    "rpc_in_flight",     "queue_partitions",       "running_partitions",
    "workers",           "memory_bytes",           "memory_peak_bytes",
    "tracked_bytes",     "rss_bytes",              "peak_rss_bytes",
    "baseline_rss_bytes", "budget_bytes",          "budget_reserved_bytes",
    "budget_available_bytes", "reservations_waiting", "reservation_violations_total",
    "key_tier",          "key_resident_bytes",     "key_loads_total",
    "key_evictions_total", "jobs_live",            "uptime_seconds",
    "draining",          "device_info",            "gpu_memory_total_bytes",
    "gpu_memory_budget_bytes", "gpu_memory_free_bytes", "gpu_memory_bytes",
    "gpu_busy_seconds_total",
    "gpu_transfer_bytes_total", "request_payload_bytes", "device_lost",
};

static zkpipe_stage_times times_for(unsigned i) {
    zkpipe_stage_times t;
    t.queue_wait = 0.001 * i;
    t.key_load = i % 3 == 0 ? 1.75 : 0;
    t.synthesis = 0.1 + 0.017 * i;
    t.device = 3.5 * i;
    t.finalize = 0.25;
    t.verify = 0.004;
    t.total = 0.3 + 0.9 * i;
    t.steps[ZKPIPE_STEP_H_POLYNOMIAL] = 0.5 + 0.01 * i;
    t.steps[ZKPIPE_STEP_MSM_H] = 0.8 + 0.02 * i;
    t.steps[ZKPIPE_STEP_MSM_A] = 0.06;
    t.steps[ZKPIPE_STEP_MSM_B1] = i % 2 ? 0.04 : 0.03;
    t.steps[ZKPIPE_STEP_MSM_L] = 0.055 * (i % 4);
    t.steps[ZKPIPE_STEP_MSM_B2] = 0.09 + 0.5 * (i % 3);
    return t;
}

static double stage_of(const zkpipe_stage_times *t, unsigned s) {
    switch (s) {
    case 0: return t->queue_wait;
    case 1: return t->key_load;
    case 2: return t->synthesis;
    case 3: return t->device;
    case 4: return t->finalize;
    case 5: return t->verify;
    case 6: return t->total;
    default: return t->steps[s - 7];
    }
}

static const char *const STAGES[] = {"queue_wait", "key_load", "synthesis", "device",
                                     "finalize",   "verify",   "total",     "h_polynomial",
                                     "msm_h",      "msm_a",    "msm_b1",    "msm_l",
                                     "msm_b2"};
enum { N_STAGES = sizeof STAGES / sizeof STAGES[0] };
static const double BOUNDS[] = {0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1,
                                2.5,   5,    10,    30,   60,  120,  300, 600};
static const char *const LES[] = {"0.005", "0.01", "0.025", "0.05", "0.1", "0.25",
                                  "0.5",   "1",    "2.5",   "5",    "10",  "30",
                                  "60",    "120",  "300",   "600",  "+Inf"};

/* ------------------------------------------------------------------------
 * Prometheus */

TEST_CASE(metrics_prom_parser_rejects) {
    /* The checker itself must catch what it is there to catch. */
    static const char *const bad[] = {
        "zkpipe_x 1\n",                                                    /* no HELP/TYPE */
        "# HELP zkpipe_x h\nzkpipe_x 1\n",                                 /* no TYPE */
        "# TYPE zkpipe_x gauge\nzkpipe_x 1\n",                             /* no HELP */
        "# HELP zkpipe_x h\n# TYPE zkpipe_x gauge\nzkpipe_x 1",            /* no final newline */
        "# HELP x h\n# TYPE x gauge\nx{a=\"1\"} 1\n"
        "# HELP y h\n# TYPE y gauge\ny 1\nx{a=\"2\"} 2\n",                 /* x comes back */
        "# HELP x h\n# TYPE x gauge\n# HELP x h\nx 1\n",                   /* HELP twice */
        "# HELP x h\n# TYPE x gauge\nx{a=\"\\t\"} 1\n",                    /* bad escape */
        "# HELP x h\n# TYPE x gauge\nx{a=\"1\",} 1\n",                     /* trailing comma */
        "# HELP x h\n# TYPE x gauge\nx{a=\"1\",a=\"2\"} 1\n",              /* label twice */
        "# HELP x h\n# TYPE x gauge\nx{1a=\"1\"} 1\n",                     /* label name */
        "# HELP x h\n# TYPE x gauge\nx 1.5z\n",                            /* value */
        "# HELP x h\n# TYPE x gauge\nx inf\n",                             /* value */
        "# HELP x h\n# TYPE x gauge\nx 1\nx 2\n",                          /* series twice */
        "# HELP 9x h\n# TYPE 9x gauge\n9x 1\n",                            /* metric name */
        "# HELP x h\n# TYPE x counter\nx -1\n",                            /* negative counter */
        "# HELP h h\n# TYPE h histogram\nh_bucket{le=\"1\"} 2\nh_bucket{le=\"+Inf\"} 1\n"
        "h_sum 1\nh_count 1\n",                                            /* not cumulative */
        "# HELP h h\n# TYPE h histogram\nh_bucket{le=\"1\"} 1\n"
        "h_sum 1\nh_count 1\n",                                            /* no +Inf */
        "# HELP h h\n# TYPE h histogram\nh_bucket{le=\"+Inf\"} 2\n"
        "h_sum 1\nh_count 1\n",                                            /* +Inf != count */
        "# HELP h h\n# TYPE h histogram\nh_bucket{le=\"2\"} 1\nh_bucket{le=\"1\"} 1\n"
        "h_bucket{le=\"+Inf\"} 1\nh_sum 1\nh_count 1\n",                   /* le order */
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        prom_doc d;
        int rc = prom_parse(&d, bad[i]);
        prom_doc_free(&d);
        ASSERT_MSG(rc != 0, "accepted bad exposition %zu:\n%s", i, bad[i]);
    }
    prom_doc d;
    int rc = prom_parse(&d, "# HELP h h \\\\ \\n\n# TYPE h histogram\n"
                             "h_bucket{le=\"1\",a=\"\\\"\"} 1\n"
                             "h_bucket{a=\"\\\"\",le=\"+Inf\"} 1\nh_sum{a=\"\\\"\"} 0.5\n"
                             "h_count{a=\"\\\"\"} 1\n# a comment\n# HELP g x\n# TYPE g gauge\n"
                             "g NaN\ng{b=\"\"} -Inf 1700000000000\n");
    ASSERT_MSG(rc == 0, "rejected a valid exposition: %s", d.err);
    ASSERT_EQ_U64(d.n, 6);
    prom_doc_free(&d);
}

TEST_CASE(metrics_prometheus_format) {
    zkp_metrics *m = zkp_metrics_create();
    ASSERT(m != NULL);
    for (unsigned i = 0; i < sizeof TRICKY_KEYS / sizeof TRICKY_KEYS[0]; i++) {
        zkpipe_stage_times t = times_for(i);
        zkp_metrics_job_done(m, TRICKY_KEYS[i], "circom", ZKP_OUTCOME_COMPLETED, &t);
        zkp_metrics_job_done(m, TRICKY_KEYS[i], "porep_seal_commit", ZKP_OUTCOME_FAILED, NULL);
    }
    zkp_metrics_job_done(m, "bad\xff\xfeutf8", "k\"ind", ZKP_OUTCOME_CANCELLED, NULL);
    zkp_metrics_job_done(m, NULL, NULL, ZKP_OUTCOME_CANCELLED, NULL);
    zkp_metrics_rpc_done(m, "/cuzk.v1.ProvingEngine/Prove", 0);
    zkp_metrics_rpc_done(m, "/cuzk.v1.ProvingEngine/Prove", 0);
    zkp_metrics_rpc_done(m, "/zkpipe.v1.Prover/Status", 14);
    zkp_metrics_rpc_done(m, "/x\"y\n", -1);

    zkpipe_engine_status st;
    zkp_server_view view;
    fill_status(&st);
    fill_view(&view);
    char *text = zkp_metrics_prometheus(m, &st, &view);
    prom_doc d;
    must_prom_parse(&d, text);

    for (size_t i = 0; i < sizeof FAMILIES / sizeof FAMILIES[0]; i++) {
        char name[128];
        snprintf(name, sizeof name, "zkpipe_%s", FAMILIES[i]);
        ASSERT_MSG(family_find(&d, name, strlen(name)) != NULL, "family %s missing", name);
    }
    ASSERT_EQ_U64(d.nf, sizeof FAMILIES / sizeof FAMILIES[0]);

    /* Tricky names come back unescaped to exactly what was recorded. */
    for (unsigned i = 0; i < sizeof TRICKY_KEYS / sizeof TRICKY_KEYS[0]; i++) {
        ASSERT(PROM_GET(&d, "zkpipe_jobs_total", NULL, 3, "key", TRICKY_KEYS[i], "kind", "circom",
                        "outcome", "completed") == 1);
        ASSERT(PROM_GET(&d, "zkpipe_jobs_total", NULL, 3, "key", TRICKY_KEYS[i], "kind",
                        "porep_seal_commit", "outcome", "failed") == 1);
        ASSERT(PROM_GET(&d, "zkpipe_jobs_total", NULL, 3, "key", TRICKY_KEYS[i], "kind", "circom",
                        "outcome", "failed") == 0);
    }
    /* Bytes that are not UTF-8 become U+FFFD. */
    ASSERT(PROM_GET(&d, "zkpipe_jobs_total", NULL, 3, "key", "bad\xef\xbf\xbd\xef\xbf\xbdutf8",
                    "kind", "k\"ind", "outcome", "cancelled") == 1);
    ASSERT(PROM_GET(&d, "zkpipe_jobs_total", NULL, 3, "key", "", "kind", "", "outcome",
                    "cancelled") == 1);
    ASSERT(PROM_GET(&d, "zkpipe_rpc_total", NULL, 2, "method", "/cuzk.v1.ProvingEngine/Prove",
                    "code", "0") == 2);
    ASSERT(PROM_GET(&d, "zkpipe_rpc_total", NULL, 2, "method", "/zkpipe.v1.Prover/Status", "code",
                    "14") == 1);
    ASSERT(PROM_GET(&d, "zkpipe_rpc_total", NULL, 2, "method", "/x\"y\n", "code", "-1") == 1);
    ASSERT(PROM_GET(&d, "zkpipe_rpc_in_flight", NULL, 0, NULL, NULL) == 2);

    /* Engine facts. */
    ASSERT(PROM_GET(&d, "zkpipe_queue_partitions", NULL, 1, "stage", "admit") == 5);
    ASSERT(PROM_GET(&d, "zkpipe_queue_partitions", NULL, 1, "stage", "finalize") == 2);
    ASSERT(PROM_GET(&d, "zkpipe_running_partitions", NULL, 1, "stage", "device") == 2);
    ASSERT(PROM_GET(&d, "zkpipe_workers", NULL, 2, "role", "synth", "state", "busy") == 2);
    ASSERT(PROM_GET(&d, "zkpipe_workers", NULL, 2, "role", "synth", "state", "idle") == 1);
    ASSERT(PROM_GET(&d, "zkpipe_workers", NULL, 2, "role", "device", "state", "waiting") == 1);
    ASSERT(PROM_GET(&d, "zkpipe_workers", NULL, 2, "role", "dispatch", "state", "waiting") == 1);
    ASSERT(PROM_GET(&d, "zkpipe_workers", NULL, 2, "role", "finalize", "state", "busy") == 0);
    ASSERT_EQ_U64(prom_count_name(&d, "zkpipe_workers"), 12);
    for (unsigned i = 0; i < ZKPIPE_ENGINE_MEM_CATEGORIES; i++) {
        const char *cat = zkpipe_engine_mem_category_name(i);
        ASSERT(PROM_GET(&d, "zkpipe_memory_bytes", NULL, 1, "category", cat) == (i + 1) * 1000.0);
        ASSERT(PROM_GET(&d, "zkpipe_memory_peak_bytes", NULL, 1, "category", cat) ==
               (i + 1) * 2000.0 + 1);
    }
    ASSERT(PROM_GET(&d, "zkpipe_rss_bytes", NULL, 0, NULL, NULL) == (double)(1ull << 33));
    ASSERT(PROM_GET(&d, "zkpipe_budget_available_bytes", NULL, 0, NULL, NULL) ==
           (double)((1ull << 36) - (1ull << 30)));
    ASSERT(PROM_GET(&d, "zkpipe_reservations_waiting", NULL, 0, NULL, NULL) == 2);
    ASSERT(PROM_GET(&d, "zkpipe_reservation_violations_total", NULL, 0, NULL, NULL) == 0);
    /* Keys: named by the view, or key<id> when it does not name them. */
    ASSERT(PROM_GET(&d, "zkpipe_key_tier", NULL, 2, "key", "alpha", "tier", "hot") == 1);
    ASSERT(PROM_GET(&d, "zkpipe_key_tier", NULL, 2, "key", "alpha", "tier", "cold") == 0);
    ASSERT(PROM_GET(&d, "zkpipe_key_tier", NULL, 2, "key", KEY_QUOTE, "tier", "cold") == 1);
    ASSERT(PROM_GET(&d, "zkpipe_key_tier", NULL, 2, "key", "key11", "tier", "loading") == 1);
    ASSERT(PROM_GET(&d, "zkpipe_key_tier", NULL, 2, "key", "key11", "tier", "warm") == 0);
    ASSERT_EQ_U64(prom_count_name(&d, "zkpipe_key_tier"), 12);
    ASSERT(PROM_GET(&d, "zkpipe_key_resident_bytes", NULL, 1, "key", "alpha") == 1048576);
    /* Each GPU's series, under its name. */
    ASSERT(PROM_GET(&d, "zkpipe_gpu_memory_total_bytes", NULL, 1, "device", "cuda:1 (Test GPU)") ==
           (double)(80ull << 30));
    ASSERT(PROM_GET(&d, "zkpipe_gpu_memory_bytes", NULL, 2, "device", "cuda:1 (Test GPU)",
                    "category", "abc") == (double)(2u << 21));
    ASSERT(PROM_GET(&d, "zkpipe_gpu_busy_seconds_total", NULL, 1, "device", "cuda:0 (Test GPU)") ==
           1.5);
    ASSERT(PROM_GET(&d, "zkpipe_gpu_transfer_bytes_total", NULL, 2, "device", "cuda:1 (Test GPU)",
                    "direction", "d2h") == 2001);
    ASSERT(PROM_GET(&d, "zkpipe_device_lost", NULL, 1, "device", "cuda:0 (Test GPU)") == 0);
    ASSERT(PROM_GET(&d, "zkpipe_device_lost", NULL, 1, "device", "cuda:1 (Test GPU)") == 1);
    ASSERT(PROM_GET(&d, "zkpipe_key_loads_total", NULL, 1, "key", "key11") == 5);
    ASSERT(PROM_GET(&d, "zkpipe_key_evictions_total", NULL, 1, "key", "key11") == 4);
    ASSERT(PROM_GET(&d, "zkpipe_jobs_live", NULL, 0, NULL, NULL) == 4);
    ASSERT(PROM_GET(&d, "zkpipe_request_payload_bytes", NULL, 0, NULL, NULL) == 4096);
    ASSERT(PROM_GET(&d, "zkpipe_uptime_seconds", NULL, 0, NULL, NULL) == 12.5);
    ASSERT(PROM_GET(&d, "zkpipe_draining", NULL, 0, NULL, NULL) == 1);
    /* Every stage has its 17 buckets. */
    for (unsigned s = 0; s < N_STAGES; s++)
        for (unsigned b = 0; b < 17; b++)
            (void)PROM_GET(&d, "zkpipe_stage_seconds_bucket", LES[b], 1, "stage", STAGES[s]);
    prom_doc_free(&d);
    free(text);

    /* No engine snapshot and no view: the same families, all valid. */
    text = zkp_metrics_prometheus(m, NULL, NULL);
    must_prom_parse(&d, text);
    ASSERT_EQ_U64(d.nf, sizeof FAMILIES / sizeof FAMILIES[0]);
    prom_doc_free(&d);
    free(text);

    /* Two keys under one name must not make two identical series. */
    static const uint32_t ids[] = {7, 9};
    static const char *const same[] = {"dup", "dup"};
    view.key_ids = ids;
    view.key_names = same;
    text = zkp_metrics_prometheus(m, &st, &view);
    must_prom_parse(&d, text);
    ASSERT(PROM_GET(&d, "zkpipe_key_tier", NULL, 2, "key", "dup", "tier", "hot") == 1);
    ASSERT(PROM_GET(&d, "zkpipe_key_tier", NULL, 2, "key", "key9", "tier", "cold") == 1);
    prom_doc_free(&d);
    free(text);
    zkp_metrics_destroy(m);
}

TEST_CASE(metrics_values_exact) {
    zkp_metrics *m = zkp_metrics_create();
    ASSERT(m != NULL);
    enum { N = 200 };
    double sums[N_STAGES] = {0};
    uint64_t le_counts[N_STAGES][17] = {{0}};
    uint64_t outcomes[3] = {0}, with_times = 0;
    for (unsigned i = 0; i < N; i++) {
        zkp_job_outcome o = (zkp_job_outcome)(i % 7 == 0 ? 2 : i % 5 == 0 ? 1 : 0);
        outcomes[o]++;
        if (i % 11 == 3) { /* failed before the engine: counted, no times */
            zkp_metrics_job_done(m, "k", "circom", o, NULL);
            continue;
        }
        zkpipe_stage_times t = times_for(i);
        /* Exactly on a bound: le is "less or equal". */
        if (i == 10) t.verify = 0.25;
        zkp_metrics_job_done(m, "k", "circom", o, &t);
        with_times++;
        for (unsigned s = 0; s < N_STAGES; s++) {
            double x = stage_of(&t, s);
            sums[s] += x;
            for (unsigned b = 0; b < 17; b++)
                if (b == 16 || x <= BOUNDS[b]) le_counts[s][b]++;
        }
    }
    char *text = zkp_metrics_prometheus(m, NULL, NULL);
    prom_doc d;
    must_prom_parse(&d, text);
    for (unsigned s = 0; s < N_STAGES; s++) {
        ASSERT_EQ_U64(PROM_GET(&d, "zkpipe_stage_seconds_count", NULL, 1, "stage", STAGES[s]),
                      with_times);
        double sum = PROM_GET(&d, "zkpipe_stage_seconds_sum", NULL, 1, "stage", STAGES[s]);
        ASSERT_MSG(sum == sums[s], "stage %s: sum %.17g, recorded %.17g", STAGES[s], sum, sums[s]);
        for (unsigned b = 0; b < 17; b++)
            ASSERT_EQ_U64(
                PROM_GET(&d, "zkpipe_stage_seconds_bucket", LES[b], 1, "stage", STAGES[s]),
                le_counts[s][b]);
    }
    static const char *const on[] = {"completed", "failed", "cancelled"};
    for (unsigned o = 0; o < 3; o++)
        ASSERT_EQ_U64(PROM_GET(&d, "zkpipe_jobs_total", NULL, 3, "key", "k", "kind", "circom",
                               "outcome", on[o]),
                      outcomes[o]);
    prom_doc_free(&d);
    free(text);

    /* A reading that is not a time at all counts as 0 in the sum. */
    zkpipe_stage_times bad = {.queue_wait = -1, .key_load = NAN, .synthesis = INFINITY};
    zkp_metrics_job_done(m, "k", "circom", (zkp_job_outcome)9, &bad);
    text = zkp_metrics_prometheus(m, NULL, NULL);
    must_prom_parse(&d, text);
    ASSERT(PROM_GET(&d, "zkpipe_stage_seconds_sum", NULL, 1, "stage", "key_load") == sums[1]);
    ASSERT(PROM_GET(&d, "zkpipe_stage_seconds_sum", NULL, 1, "stage", "synthesis") == sums[2]);
    ASSERT_EQ_U64(PROM_GET(&d, "zkpipe_stage_seconds_bucket", "0.005", 1, "stage", "queue_wait"),
                  le_counts[0][0] + 1);
    /* An outcome out of range is a failure. */
    ASSERT_EQ_U64(PROM_GET(&d, "zkpipe_jobs_total", NULL, 3, "key", "k", "kind", "circom",
                           "outcome", "failed"),
                  outcomes[1] + 1);
    prom_doc_free(&d);
    free(text);
    zkp_metrics_destroy(m);
}

/* A cluster member's families (queue.url set): every one present with the
 * member's values, and none of them without cluster mode. */
TEST_CASE(metrics_cluster_families) {
    zkp_metrics *m = zkp_metrics_create();
    ASSERT(m != NULL);
    zkp_server_view view;
    fill_view(&view);
    char *text = zkp_metrics_prometheus(m, NULL, &view);
    prom_doc d;
    must_prom_parse(&d, text);
    ASSERT(family_find(&d, "zkpipe_cluster_claims_total", strlen("zkpipe_cluster_claims_total")) ==
           NULL);
    prom_doc_free(&d);
    free(text);

    view.cluster_member = 1;
    static const uint64_t depth[4] = {3, 5, 7, 11};
    memcpy(view.cluster_depth, depth, sizeof depth);
    view.cluster_enqueued = 13;
    view.cluster_claims = 17;
    view.cluster_completed = 19;
    view.cluster_failed = 23;
    view.cluster_refused_writes = 29;
    view.cluster_lease_expiries = 31;
    view.cluster_running = 37;
    view.cluster_retries = 41;
    text = zkp_metrics_prometheus(m, NULL, &view);
    must_prom_parse(&d, text);
    static const char *const prio[4] = {"low", "normal", "high", "critical"};
    for (int i = 0; i < 4; i++)
        ASSERT_EQ_U64(PROM_GET(&d, "zkpipe_cluster_queue_depth", NULL, 1, "priority", prio[i]),
                      depth[i]);
    ASSERT_EQ_U64(PROM_GET(&d, "zkpipe_cluster_jobs_enqueued_total", NULL, 0), 13);
    ASSERT_EQ_U64(PROM_GET(&d, "zkpipe_cluster_claims_total", NULL, 0), 17);
    ASSERT_EQ_U64(PROM_GET(&d, "zkpipe_cluster_results_total", NULL, 1, "outcome", "completed"),
                  19);
    ASSERT_EQ_U64(PROM_GET(&d, "zkpipe_cluster_results_total", NULL, 1, "outcome", "failed"), 23);
    ASSERT_EQ_U64(PROM_GET(&d, "zkpipe_cluster_results_total", NULL, 1, "outcome", "refused"),
                  29);
    ASSERT_EQ_U64(PROM_GET(&d, "zkpipe_cluster_lease_expiries_total", NULL, 0), 31);
    ASSERT_EQ_U64(PROM_GET(&d, "zkpipe_cluster_claims_running", NULL, 0), 37);
    ASSERT_EQ_U64(PROM_GET(&d, "zkpipe_cluster_statement_retries_total", NULL, 0), 41);
    prom_doc_free(&d);
    free(text);
    zkp_metrics_destroy(m);
}

TEST_CASE(metrics_label_sets_bounded) {
    zkp_metrics *m = zkp_metrics_create();
    ASSERT(m != NULL);
    enum { N = 1500, KINDS = 40 };
    char key[32], kind[32];
    for (unsigned i = 0; i < N; i++) {
        snprintf(key, sizeof key, "key-%u", i);
        snprintf(kind, sizeof kind, "kind-%u", i % KINDS);
        zkp_metrics_job_done(m, key, kind, ZKP_OUTCOME_COMPLETED, NULL);
        snprintf(key, sizeof key, "/svc/M%u", i);
        zkp_metrics_rpc_done(m, key, (int)(i % 17));
    }
    /* A job under the literal name "other" shares the folded rows. */
    zkp_metrics_job_done(m, "other", "other", ZKP_OUTCOME_FAILED, NULL);
    char *text = zkp_metrics_prometheus(m, NULL, NULL);
    prom_doc d;
    must_prom_parse(&d, text);
    double total = 0, rpcs = 0;
    size_t n_jobs = 0, n_rpcs = 0;
    for (size_t i = 0; i < d.n; i++) {
        if (strcmp(d.s[i].name, "zkpipe_jobs_total") == 0) {
            total += d.s[i].value;
            n_jobs++;
        } else if (strcmp(d.s[i].name, "zkpipe_rpc_total") == 0) {
            rpcs += d.s[i].value;
            n_rpcs++;
        }
    }
    ASSERT(total == N + 1);
    ASSERT(rpcs == N);
    ASSERT_MSG(n_jobs <= 3 * (1024 + 32 + 1), "%zu job series", n_jobs);
    ASSERT_MSG(n_rpcs <= 1024 + 32 + 1, "%zu rpc series", n_rpcs);
    /* Past the bound the kind is kept while there is room for it. */
    ASSERT(PROM_GET(&d, "zkpipe_jobs_total", NULL, 3, "key", "other", "kind", "kind-0", "outcome",
                    "completed") > 0);
    ASSERT(PROM_GET(&d, "zkpipe_jobs_total", NULL, 3, "key", "other", "kind", "other", "outcome",
                    "failed") == 1);
    ASSERT(PROM_GET(&d, "zkpipe_rpc_total", NULL, 2, "method", "other", "code", "3") > 0);
    ASSERT(PROM_GET(&d, "zkpipe_jobs_total", NULL, 3, "key", "key-0", "kind", "kind-0", "outcome",
                    "completed") == 1);
    prom_doc_free(&d);
    free(text);

    text = zkp_metrics_status_json(m, NULL, NULL);
    ASSERT(text != NULL);
    zkp_json *root = NULL;
    ASSERT_OK(zkp_json_parse(&root, text, strlen(text), NULL));
    zkp_json_free(root);
    free(text);
    zkp_metrics_destroy(m);
}

/* ------------------------------------------------------------------------
 * JSON */

static const zkp_json *jget(const zkp_json *v, const char *path) {
    /* "a.b.c" */
    char buf[128];
    snprintf(buf, sizeof buf, "%s", path);
    for (char *tok = strtok(buf, "."); tok; tok = strtok(NULL, ".")) v = zkp_json_get(v, tok);
    ASSERT_MSG(v != NULL, "no member %s", path);
    return v;
}

static uint64_t ju64(const zkp_json *v, const char *path) {
    const char *t = zkp_json_number_text(jget(v, path));
    ASSERT_MSG(t != NULL, "%s is not a number", path);
    char *end;
    unsigned long long x = strtoull(t, &end, 10);
    ASSERT_MSG(*end == '\0', "%s is not an integer: %s", path, t);
    return x;
}

static const char *jstr(const zkp_json *v, const char *path) {
    const char *s = zkp_json_string(jget(v, path), NULL);
    ASSERT_MSG(s != NULL, "%s is not a string", path);
    return s;
}

static zkp_json *must_json(const char *text) {
    ASSERT(text != NULL);
    zkp_json *root = NULL;
    size_t off = 0;
    zkpipe_status st = zkp_json_parse(&root, text, strlen(text), &off);
    ASSERT_MSG(st == ZKPIPE_OK, "status JSON does not parse (%s at %zu): %s",
               zkpipe_status_name(st), off, text);
    ASSERT_EQ_INT(zkp_json_type_of(root), ZKP_JSON_OBJECT);
    return root;
}

TEST_CASE(metrics_status_json) {
    zkp_metrics *m = zkp_metrics_create();
    ASSERT(m != NULL);
    size_t n_tricky = sizeof TRICKY_KEYS / sizeof TRICKY_KEYS[0];
    double total_sum = 0;
    for (unsigned i = 0; i < n_tricky; i++) {
        zkpipe_stage_times t = times_for(i);
        total_sum += t.total;
        zkp_metrics_job_done(m, TRICKY_KEYS[i], "circom", ZKP_OUTCOME_COMPLETED, &t);
        zkp_metrics_job_done(m, TRICKY_KEYS[i], "circom", ZKP_OUTCOME_COMPLETED, NULL);
        zkp_metrics_job_done(m, TRICKY_KEYS[i], "circom", ZKP_OUTCOME_CANCELLED, NULL);
    }
    zkp_metrics_job_done(m, "bad\xff", "circom", ZKP_OUTCOME_FAILED, NULL);
    zkp_metrics_rpc_done(m, "/zkpipe.v1.Prover/Status", 0);

    zkpipe_engine_status st;
    zkp_server_view view;
    fill_status(&st);
    fill_view(&view);
    char *text = zkp_metrics_status_json(m, &st, &view);
    zkp_json *root = must_json(text);

    ASSERT(strcmp(zkp_json_number_text(jget(root, "uptime_seconds")), "12.5") == 0);
    ASSERT_EQ_INT(zkp_json_type_of(jget(root, "draining")), ZKP_JSON_BOOL);
    ASSERT_EQ_INT(zkp_json_bool(jget(root, "draining")), 1);
    ASSERT_EQ_U64(ju64(root, "rpc_in_flight"), 2);
    ASSERT_EQ_U64(ju64(root, "jobs.live"), 4);
    ASSERT_EQ_U64(ju64(root, "jobs.completed"), 2 * n_tricky);
    ASSERT_EQ_U64(ju64(root, "jobs.failed"), 1);
    ASSERT_EQ_U64(ju64(root, "jobs.cancelled"), n_tricky);
    ASSERT_EQ_U64(ju64(root, "jobs.engine_live"), 3);
    ASSERT_EQ_U64(ju64(root, "jobs.proofs_verified"), 70);
    ASSERT_EQ_U64(ju64(root, "queues.admit"), 5);
    ASSERT_EQ_U64(ju64(root, "queues.running_finalize"), 1);

    const zkp_json *workers = jget(root, "workers");
    ASSERT_EQ_U64(zkp_json_len(workers), st.n_workers);
    ASSERT_STR_EQ(jstr(zkp_json_at(workers, 3), "role"), "device");
    ASSERT_STR_EQ(jstr(zkp_json_at(workers, 3), "state"), "waiting");
    ASSERT_EQ_U64(ju64(zkp_json_at(workers, 3), "device"), 0);
    ASSERT_STR_EQ(jstr(zkp_json_at(workers, 5), "role"), "dispatch");

    ASSERT_EQ_U64(ju64(root, "memory.budget_bytes"), 1ull << 36);
    ASSERT_EQ_U64(ju64(root, "memory.rss_bytes"), 1ull << 33);
    ASSERT_EQ_U64(ju64(root, "memory.reservation_refusals"), 3);
    const zkp_json *cats = jget(root, "memory.categories");
    ASSERT_EQ_U64(zkp_json_len(cats), ZKPIPE_ENGINE_MEM_CATEGORIES);
    for (unsigned i = 0; i < ZKPIPE_ENGINE_MEM_CATEGORIES; i++) {
        const zkp_json *c = zkp_json_get(cats, zkpipe_engine_mem_category_name(i));
        ASSERT_EQ_U64(ju64(c, "live"), (i + 1) * 1000u);
        ASSERT_EQ_U64(ju64(c, "peak"), (i + 1) * 2000u + 1);
    }

    const zkp_json *keys = jget(root, "keys");
    ASSERT_EQ_U64(zkp_json_len(keys), 3);
    size_t len = 0;
    const char *name = zkp_json_string(jget(zkp_json_at(keys, 1), "name"), &len);
    ASSERT(name && len == strlen(KEY_QUOTE) && memcmp(name, KEY_QUOTE, len) == 0);
    ASSERT_STR_EQ(jstr(zkp_json_at(keys, 0), "name"), "alpha");
    ASSERT_STR_EQ(jstr(zkp_json_at(keys, 0), "tier"), "hot");
    ASSERT_STR_EQ(jstr(zkp_json_at(keys, 0), "curve"), "bn128");
    ASSERT_EQ_INT(zkp_json_type_of(jget(zkp_json_at(keys, 1), "curve")), ZKP_JSON_NULL);
    ASSERT_STR_EQ(jstr(zkp_json_at(keys, 2), "name"), "key11");
    ASSERT_STR_EQ(jstr(zkp_json_at(keys, 2), "tier"), "loading");
    ASSERT_EQ_U64(ju64(zkp_json_at(keys, 2), "id"), 11);
    ASSERT_EQ_U64(ju64(zkp_json_at(keys, 2), "loads"), 5);
    ASSERT_EQ_U64(ju64(zkp_json_at(keys, 0), "resident_bytes"), 1u << 20);
    const zkp_json *devs = jget(root, "devices");
    ASSERT_EQ_U64(zkp_json_len(devs), 2);
    ASSERT_EQ_INT(zkp_json_bool(jget(zkp_json_at(devs, 0), "lost")), 0);
    ASSERT(zkp_json_get(zkp_json_at(devs, 0), "lost_reason") == NULL);
    ASSERT_EQ_INT(zkp_json_bool(jget(zkp_json_at(devs, 1), "lost")), 1);
    ASSERT_STR_EQ(jstr(zkp_json_at(devs, 1), "lost_reason"),
                  "CUDA: cudaDeviceSynchronize() failed: \"unspecified launch failure\"");

    const zkp_json *by_key = jget(root, "jobs_by_key");
    ASSERT_EQ_U64(zkp_json_len(by_key), n_tricky + 1);
    for (unsigned i = 0; i < n_tricky; i++) {
        const zkp_json *row = NULL;
        for (size_t j = 0; j < zkp_json_len(by_key) && !row; j++) {
            const zkp_json *r = zkp_json_at(by_key, j);
            const char *k = zkp_json_string(zkp_json_get(r, "key"), &len);
            if (k && len == strlen(TRICKY_KEYS[i]) && memcmp(k, TRICKY_KEYS[i], len) == 0) row = r;
        }
        ASSERT_MSG(row != NULL, "key %u missing from jobs_by_key", i);
        ASSERT_STR_EQ(jstr(row, "kind"), "circom");
        ASSERT_EQ_U64(ju64(row, "completed"), 2);
        ASSERT_EQ_U64(ju64(row, "failed"), 0);
        ASSERT_EQ_U64(ju64(row, "cancelled"), 1);
    }
    ASSERT_STR_EQ(jstr(zkp_json_at(by_key, n_tricky), "key"), "bad\xef\xbf\xbd");

    ASSERT_EQ_U64(ju64(root, "stages.total.count"), n_tricky);
    const char *sum = zkp_json_number_text(jget(root, "stages.total.sum_seconds"));
    ASSERT(sum && strtod(sum, NULL) == total_sum);
    const zkp_json *rpcs = jget(root, "rpcs");
    ASSERT_EQ_U64(zkp_json_len(rpcs), 1);
    ASSERT_STR_EQ(jstr(zkp_json_at(rpcs, 0), "method"), "/zkpipe.v1.Prover/Status");
    ASSERT_STR_EQ(jstr(zkp_json_at(rpcs, 0), "code"), "0");
    ASSERT_EQ_U64(ju64(zkp_json_at(rpcs, 0), "count"), 1);
    zkp_json_free(root);
    free(text);

    /* Nothing recorded, nothing known: still a complete object. */
    zkp_metrics_destroy(m);
    m = zkp_metrics_create();
    ASSERT(m != NULL);
    text = zkp_metrics_status_json(m, NULL, NULL);
    root = must_json(text);
    ASSERT_EQ_U64(ju64(root, "jobs.completed"), 0);
    ASSERT_EQ_U64(zkp_json_len(jget(root, "keys")), 0);
    ASSERT_EQ_INT(zkp_json_bool(jget(root, "draining")), 0);
    zkp_json_free(root);
    free(text);
    zkp_metrics_destroy(m);
}

/* ------------------------------------------------------------------------
 * HTTP */

typedef struct {
    int fail;
    int calls;
    pthread_mutex_t mu;
} source_ctx;

static int test_source(void *ctx, zkpipe_engine_status *st, zkp_server_view *view) {
    source_ctx *c = ctx;
    pthread_mutex_lock(&c->mu);
    c->calls++;
    int fail = c->fail;
    pthread_mutex_unlock(&c->mu);
    if (fail) return -1;
    fill_status(st);
    fill_view(view);
    return 0;
}

typedef struct {
    int code;
    char content_type[128];
    char allow[64];
    char *raw;
    const char *body;
    size_t body_len;
} http_reply;

static void header_value(const char *headers, const char *name, char *out, size_t cap) {
    out[0] = '\0';
    size_t nl = strlen(name);
    for (const char *p = strstr(headers, "\r\n"); p && p[2]; p = strstr(p + 2, "\r\n")) {
        const char *h = p + 2;
        if (strncasecmp(h, name, nl) == 0 && h[nl] == ':') {
            h += nl + 1;
            while (*h == ' ') h++;
            const char *e = strstr(h, "\r\n");
            size_t n = (size_t)(e - h);
            if (n >= cap) n = cap - 1;
            memcpy(out, h, n);
            out[n] = '\0';
            return;
        }
    }
}

/* Sends req as is over a fresh connection and reads until the server
 * closes it (HTTP/1.0: one request per connection). */
static void http_do(unsigned port, const char *req, http_reply *r) {
    memset(r, 0, sizeof *r);
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    ASSERT(fd >= 0);
    struct timeval tv = {10, 0};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
    struct sockaddr_in sa;
    memset(&sa, 0, sizeof sa);
    sa.sin_family = AF_INET;
    sa.sin_port = htons((uint16_t)port);
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ASSERT_MSG(connect(fd, (struct sockaddr *)&sa, sizeof sa) == 0, "connect: %s", strerror(errno));
    size_t len = strlen(req), off = 0;
    while (off < len) {
        ssize_t n = send(fd, req + off, len - off, MSG_NOSIGNAL);
        ASSERT_MSG(n > 0, "send: %s", strerror(errno));
        off += (size_t)n;
    }
    size_t cap = 1 << 16, got = 0;
    char *buf = malloc(cap);
    ASSERT(buf != NULL);
    for (;;) {
        if (got + 1 == cap) buf = xrealloc(buf, cap *= 2);
        ssize_t n = recv(fd, buf + got, cap - got - 1, 0);
        if (n == 0) break;
        if (n < 0) {
            close(fd);
            free(buf);
            test_fail(__FILE__, __LINE__, "recv: %s", strerror(errno));
        }
        got += (size_t)n;
    }
    close(fd);
    buf[got] = '\0';
    r->raw = buf;
    ASSERT_MSG(strncmp(buf, "HTTP/1.", 7) == 0 && strlen(buf) >= 12 && buf[8] == ' ',
               "bad status line: %.40s", buf);
    r->code = atoi(buf + 9);
    char *end = strstr(buf, "\r\n\r\n");
    ASSERT(end != NULL);
    end[2] = '\0'; /* headers, each ending in \r\n */
    header_value(buf, "Content-Type", r->content_type, sizeof r->content_type);
    header_value(buf, "Allow", r->allow, sizeof r->allow);
    char clen[32];
    header_value(buf, "Content-Length", clen, sizeof clen);
    r->body = end + 4;
    r->body_len = got - (size_t)(r->body - buf);
    /* A HEAD reply states the length its GET would have. */
    if (clen[0] && strncmp(req, "HEAD ", 5) != 0)
        ASSERT_EQ_U64(strtoull(clen, NULL, 10), r->body_len);
}

TEST_CASE(metrics_http_endpoint) {
    zkp_metrics *m = zkp_metrics_create();
    ASSERT(m != NULL);
    zkpipe_stage_times t = times_for(3);
    zkp_metrics_job_done(m, "a\"b", "circom", ZKP_OUTCOME_COMPLETED, &t);
    source_ctx ctx = {0, 0, PTHREAD_MUTEX_INITIALIZER};
    zkp_http *h = NULL;
    zkp_diag diag = {{0}};
    zkpipe_status st = zkp_http_start(&h, "127.0.0.1:0", m, test_source, &ctx, &diag);
    ASSERT_MSG(st == ZKPIPE_OK, "start: %s: %s", zkpipe_status_name(st), diag.msg);
    unsigned port = zkp_http_port(h);
    ASSERT(port > 0 && port < 65536);

    http_reply r;
    http_do(port, "GET /metrics HTTP/1.0\r\n\r\n", &r);
    ASSERT_EQ_INT(r.code, 200);
    ASSERT_MSG(strncmp(r.content_type, "text/plain; version=0.0.4", 25) == 0, "type %s",
               r.content_type);
    prom_doc d;
    must_prom_parse(&d, r.body);
    ASSERT(PROM_GET(&d, "zkpipe_jobs_total", NULL, 3, "key", "a\"b", "kind", "circom", "outcome",
                    "completed") == 1);
    ASSERT(PROM_GET(&d, "zkpipe_key_tier", NULL, 2, "key", "alpha", "tier", "hot") == 1);
    prom_doc_free(&d);
    free(r.raw);

    http_do(port, "GET /status?x=1 HTTP/1.0\r\nHost: localhost\r\n\r\n", &r);
    ASSERT_EQ_INT(r.code, 200);
    ASSERT_STR_EQ(r.content_type, "application/json");
    zkp_json *root = must_json(r.body);
    ASSERT_EQ_U64(ju64(root, "jobs.completed"), 1);
    ASSERT_EQ_U64(ju64(root, "memory.reservations_waiting"), 2);
    zkp_json_free(root);
    free(r.raw);

    http_do(port, "HEAD /metrics HTTP/1.0\r\n\r\n", &r);
    ASSERT_EQ_INT(r.code, 200);
    ASSERT_EQ_U64(r.body_len, 0);
    ASSERT_MSG(strncmp(r.content_type, "text/plain", 10) == 0, "type %s", r.content_type);
    free(r.raw);

    http_do(port, "GET /nope HTTP/1.0\r\n\r\n", &r);
    ASSERT_EQ_INT(r.code, 404);
    free(r.raw);
    http_do(port, "GET /metrics/ HTTP/1.0\r\n\r\n", &r);
    ASSERT_EQ_INT(r.code, 404);
    free(r.raw);

    http_do(port,
            "POST /metrics HTTP/1.0\r\nContent-Type: text/plain\r\nContent-Length: 5\r\n\r\nhello",
            &r);
    ASSERT_EQ_INT(r.code, 405);
    ASSERT(strstr(r.allow, "GET") != NULL);
    free(r.raw);
    http_do(port, "DELETE /status HTTP/1.0\r\n\r\n", &r);
    ASSERT_EQ_INT(r.code, 405);
    free(r.raw);

    /* A source that cannot produce a snapshot: 503, and the server lives on. */
    pthread_mutex_lock(&ctx.mu);
    ctx.fail = 1;
    pthread_mutex_unlock(&ctx.mu);
    http_do(port, "GET /status HTTP/1.0\r\n\r\n", &r);
    ASSERT_EQ_INT(r.code, 503);
    free(r.raw);
    pthread_mutex_lock(&ctx.mu);
    ctx.fail = 0;
    int calls = ctx.calls;
    pthread_mutex_unlock(&ctx.mu);
    ASSERT_EQ_INT(calls, 4);
    http_do(port, "GET /status HTTP/1.0\r\n\r\n", &r);
    ASSERT_EQ_INT(r.code, 200);
    free(r.raw);

    /* The port is taken now: a second endpoint cannot bind it. */
    char addr[32];
    snprintf(addr, sizeof addr, "127.0.0.1:%u", port);
    zkp_http *h2 = NULL;
    memset(&diag, 0, sizeof diag);
    ASSERT_EQ_STATUS(zkp_http_start(&h2, addr, m, test_source, &ctx, &diag), ZKPIPE_ERR_IO);
    ASSERT(h2 == NULL);
    ASSERT_MSG(strstr(diag.msg, addr) != NULL, "diag: %s", diag.msg);

    zkp_http_stop(&h);
    ASSERT(h == NULL);
    zkp_http_stop(&h);
    zkp_http_stop(NULL);
    pthread_mutex_destroy(&ctx.mu);
    zkp_metrics_destroy(m);
}

TEST_CASE(metrics_http_bad_address) {
    zkp_metrics *m = zkp_metrics_create();
    ASSERT(m != NULL);
    static const char *const bad[] = {
        "", "8080", "127.0.0.1", "127.0.0.1:", "127.0.0.1:65536", "127.0.0.1:80x", ":-1",
        "example.com:80", "1.2.3:80", "[::1]:80", "256.0.0.1:80", "127.0.0.1: 80",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        zkp_http *h = (zkp_http *)&h;
        zkp_diag diag = {{0}};
        zkpipe_status st = zkp_http_start(&h, bad[i], m, NULL, NULL, &diag);
        ASSERT_MSG(st == ZKPIPE_ERR_INVALID_ARGUMENT, "'%s': %s", bad[i], zkpipe_status_name(st));
        ASSERT(h == NULL);
        ASSERT_MSG(diag.msg[0] != '\0', "'%s': no message", bad[i]);
    }
    ASSERT_EQ_STATUS(zkp_http_start(NULL, ":0", m, NULL, NULL, NULL), ZKPIPE_ERR_INVALID_ARGUMENT);

    /* localhost and any port; no source: an empty snapshot. */
    zkp_http *h = NULL;
    zkp_diag diag = {{0}};
    ASSERT_MSG(zkp_http_start(&h, "localhost:0", m, NULL, NULL, &diag) == ZKPIPE_OK, "%s",
               diag.msg);
    http_reply r;
    http_do(zkp_http_port(h), "GET /metrics HTTP/1.0\r\n\r\n", &r);
    ASSERT_EQ_INT(r.code, 200);
    prom_doc d;
    must_prom_parse(&d, r.body);
    prom_doc_free(&d);
    free(r.raw);
    zkp_http_stop(&h);
    zkp_metrics_destroy(m);
}

/* ------------------------------------------------------------------------
 * Concurrency */

enum { REC_THREADS = 4, REC_JOBS = 2000 };

typedef struct {
    zkp_metrics *m;
    unsigned id;
} rec_arg;

static void *recorder(void *p) {
    rec_arg *a = p;
    char key[32];
    for (unsigned i = 0; i < REC_JOBS; i++) {
        snprintf(key, sizeof key, "t%u-k%u", a->id, i % 13);
        zkpipe_stage_times t = times_for(i);
        zkp_metrics_job_done(a->m, key, i % 2 ? "circom" : "porep", (zkp_job_outcome)(i % 3),
                             i % 4 ? &t : NULL);
        zkp_metrics_rpc_done(a->m, "/cuzk.v1.ProvingEngine/Prove", (int)(i % 4));
    }
    return NULL;
}

TEST_CASE(metrics_concurrent_record_render) {
    zkp_metrics *m = zkp_metrics_create();
    ASSERT(m != NULL);
    zkpipe_engine_status st;
    zkp_server_view view;
    fill_status(&st);
    fill_view(&view);
    /* The HTTP thread renders too, so the endpoint's path is covered. */
    zkp_http *h = NULL;
    zkp_diag diag = {{0}};
    ASSERT_MSG(zkp_http_start(&h, "127.0.0.1:0", m, NULL, NULL, &diag) == ZKPIPE_OK, "%s",
               diag.msg);

    pthread_t th[REC_THREADS];
    rec_arg args[REC_THREADS];
    for (unsigned i = 0; i < REC_THREADS; i++) {
        args[i] = (rec_arg){m, i};
        ASSERT(pthread_create(&th[i], NULL, recorder, &args[i]) == 0);
    }
    for (int round = 0; round < 20; round++) {
        char *text = zkp_metrics_prometheus(m, &st, &view);
        prom_doc d;
        must_prom_parse(&d, text);
        prom_doc_free(&d);
        free(text);
        text = zkp_metrics_status_json(m, &st, &view);
        zkp_json_free(must_json(text));
        free(text);
        http_reply r;
        http_do(zkp_http_port(h), "GET /metrics HTTP/1.0\r\n\r\n", &r);
        ASSERT_EQ_INT(r.code, 200);
        must_prom_parse(&d, r.body);
        prom_doc_free(&d);
        free(r.raw);
    }
    for (unsigned i = 0; i < REC_THREADS; i++) pthread_join(th[i], NULL);
    zkp_http_stop(&h);

    char *text = zkp_metrics_prometheus(m, &st, &view);
    prom_doc d;
    must_prom_parse(&d, text);
    double jobs = 0;
    for (size_t i = 0; i < d.n; i++)
        if (strcmp(d.s[i].name, "zkpipe_jobs_total") == 0) jobs += d.s[i].value;
    ASSERT(jobs == REC_THREADS * REC_JOBS);
    ASSERT_EQ_U64(PROM_GET(&d, "zkpipe_stage_seconds_count", NULL, 1, "stage", "total"),
                  REC_THREADS * REC_JOBS * 3 / 4);
    ASSERT_EQ_U64(PROM_GET(&d, "zkpipe_rpc_total", NULL, 2, "method",
                           "/cuzk.v1.ProvingEngine/Prove", "code", "1"),
                  REC_THREADS * REC_JOBS / 4);
    prom_doc_free(&d);
    free(text);
    zkp_metrics_destroy(m);
}
