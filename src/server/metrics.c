/* The daemon's counters and histograms, and their Prometheus and JSON
 * renderings (see metrics.h). */
#include "server/metrics.h"

#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { N_OUTCOMES = 3 };
static const char *const OUTCOME_NAMES[N_OUTCOMES] = {"completed", "failed", "cancelled"};

enum {
    STAGE_QUEUE_WAIT,
    STAGE_KEY_LOAD,
    STAGE_SYNTHESIS,
    STAGE_DEVICE,
    STAGE_FINALIZE,
    STAGE_VERIFY,
    STAGE_TOTAL,
    /* Then the proof's steps (zkpipe_proof_step), in their order. */
    STAGE_FIRST_STEP,
    N_STAGES = STAGE_FIRST_STEP + ZKPIPE_N_STEPS
};

static const char *stage_name(int s) {
    static const char *const names[STAGE_FIRST_STEP] = {
        "queue_wait", "key_load", "synthesis", "device", "finalize", "verify", "total"};
    return s < STAGE_FIRST_STEP ? names[s]
                                : zkpipe_proof_step_name((zkpipe_proof_step)(s - STAGE_FIRST_STEP));
}

/* From a cached small proof (milliseconds) to a large PoRep partition set
 * under memory pressure (minutes). */
static const double BUCKET_BOUNDS[] = {0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1,
                                       2.5,   5,    10,    30,   60,  120,  300, 600};
#define N_BOUNDS ZKP_ARRAY_LEN(BUCKET_BOUNDS)
#define N_BUCKETS (N_BOUNDS + 1) /* the last one is +Inf */

/* Key names, proof kinds and method paths can come from clients, and every
 * distinct label set is a series the monitoring system keeps forever, so
 * their number is bounded. Up to LABEL_SETS_MAX label sets are kept as
 * given; after that a new one is counted under key (or method) "other" with
 * its kind (or code) kept, in at most OVERFLOW_ROWS_MAX more rows; what
 * still does not fit, or cannot be allocated, lands in the one row
 * ("other", "other"). Counts are never dropped, only their labels. */
#define LABEL_SETS_MAX 1024
#define OVERFLOW_ROWS_MAX 32
#define OTHER "other"

typedef struct {
    const char *a, *b; /* owned, except in the catch-all row */
    uint64_t n[N_OUTCOMES];
} label_row;

typedef struct {
    label_row *rows;
    size_t n, cap;
    label_row catch_all; /* ("other", "other"); never also in rows */
} label_table;

typedef struct {
    uint64_t bucket[N_BUCKETS]; /* per bucket, not cumulative */
    uint64_t count;
    double sum;
} histogram;

struct zkp_metrics {
    pthread_mutex_t mu;
    label_table jobs; /* a: key, b: kind, n[outcome] */
    label_table rpcs; /* a: method, b: code in decimal, n[0] */
    histogram stages[N_STAGES];
};

/* ------------------------------------------------------------------------
 * Recording */

static void table_init(label_table *t) {
    memset(t, 0, sizeof *t);
    t->catch_all.a = OTHER;
    t->catch_all.b = OTHER;
}

static void table_free(label_table *t) {
    for (size_t i = 0; i < t->n; i++) {
        free((char *)t->rows[i].a);
        free((char *)t->rows[i].b);
    }
    free(t->rows);
    t->rows = NULL;
    t->n = t->cap = 0;
}

static label_row *table_find(label_table *t, const char *a, const char *b) {
    /* Linear: at most ~1000 rows, touched once per job or RPC, which costs
     * far more than this scan. */
    for (size_t i = 0; i < t->n; i++)
        if (strcmp(t->rows[i].a, a) == 0 && strcmp(t->rows[i].b, b) == 0) return &t->rows[i];
    return NULL;
}

static label_row *table_append(label_table *t, const char *a, const char *b) {
    if (t->n == t->cap) {
        size_t cap = t->cap ? t->cap * 2 : 16;
        if (cap > LABEL_SETS_MAX + OVERFLOW_ROWS_MAX) cap = LABEL_SETS_MAX + OVERFLOW_ROWS_MAX;
        if (cap <= t->n) return NULL;
        label_row *rows = realloc(t->rows, cap * sizeof *rows);
        if (!rows) return NULL;
        t->rows = rows;
        t->cap = cap;
    }
    char *ca = strdup(a), *cb = strdup(b);
    if (!ca || !cb) {
        free(ca);
        free(cb);
        return NULL;
    }
    label_row *r = &t->rows[t->n++];
    memset(r, 0, sizeof *r);
    r->a = ca;
    r->b = cb;
    return r;
}

static int is_other(const char *s) { return strcmp(s, OTHER) == 0; }

/* The row that counts (a, b), following the bound described above. */
static label_row *table_row(label_table *t, const char *a, const char *b) {
    if (is_other(a) && is_other(b)) return &t->catch_all;
    label_row *r = table_find(t, a, b);
    if (r) return r;
    if (t->n < LABEL_SETS_MAX) {
        r = table_append(t, a, b);
        return r ? r : &t->catch_all;
    }
    if (is_other(b)) return &t->catch_all;
    r = table_find(t, OTHER, b);
    if (r) return r;
    r = table_append(t, OTHER, b);
    return r ? r : &t->catch_all;
}

static void hist_observe(histogram *h, double x) {
    /* A negative, NaN or infinite reading (a clock that stepped, a bug
     * upstream) is counted as 0 so that it cannot poison the sum for the
     * rest of the process's life. */
    if (!(x >= 0 && x <= DBL_MAX)) x = 0;
    size_t i = 0;
    while (i < N_BOUNDS && x > BUCKET_BOUNDS[i]) i++;
    h->bucket[i]++;
    h->count++;
    h->sum += x;
}

zkp_metrics *zkp_metrics_create(void) {
    zkp_metrics *m = calloc(1, sizeof *m);
    if (!m) return NULL;
    if (pthread_mutex_init(&m->mu, NULL) != 0) {
        free(m);
        return NULL;
    }
    table_init(&m->jobs);
    table_init(&m->rpcs);
    return m;
}

void zkp_metrics_destroy(zkp_metrics *m) {
    if (!m) return;
    table_free(&m->jobs);
    table_free(&m->rpcs);
    pthread_mutex_destroy(&m->mu);
    free(m);
}

void zkp_metrics_job_done(zkp_metrics *m, const char *key, const char *kind,
                          zkp_job_outcome outcome, const zkpipe_stage_times *times) {
    if (!m) return;
    unsigned o = (unsigned)outcome;
    if (o >= N_OUTCOMES) o = ZKP_OUTCOME_FAILED;
    pthread_mutex_lock(&m->mu);
    label_row *r = table_row(&m->jobs, key ? key : "", kind ? kind : "");
    r->n[o]++;
    if (times) {
        hist_observe(&m->stages[STAGE_QUEUE_WAIT], times->queue_wait);
        hist_observe(&m->stages[STAGE_KEY_LOAD], times->key_load);
        hist_observe(&m->stages[STAGE_SYNTHESIS], times->synthesis);
        hist_observe(&m->stages[STAGE_DEVICE], times->device);
        hist_observe(&m->stages[STAGE_FINALIZE], times->finalize);
        hist_observe(&m->stages[STAGE_VERIFY], times->verify);
        hist_observe(&m->stages[STAGE_TOTAL], times->total);
        for (int s = 0; s < ZKPIPE_N_STEPS; s++)
            hist_observe(&m->stages[STAGE_FIRST_STEP + s], times->steps[s]);
    }
    pthread_mutex_unlock(&m->mu);
}

void zkp_metrics_rpc_done(zkp_metrics *m, const char *method, int grpc_code) {
    if (!m) return;
    char code[16];
    snprintf(code, sizeof code, "%d", grpc_code);
    pthread_mutex_lock(&m->mu);
    table_row(&m->rpcs, method ? method : "", code)->n[0]++;
    pthread_mutex_unlock(&m->mu);
}

/* ------------------------------------------------------------------------
 * A copy of the counters, taken under the lock and rendered without it.
 * The rows' strings are not copied: a table's strings live until
 * zkp_metrics_destroy and never change, so pointers to them stay valid. */

typedef struct {
    label_row *jobs;
    size_t n_jobs;
    label_row *rpcs;
    size_t n_rpcs;
    histogram stages[N_STAGES];
} counters;

static int row_used(const label_row *r) {
    for (int i = 0; i < N_OUTCOMES; i++)
        if (r->n[i]) return 1;
    return 0;
}

/* rows (plus the catch-all when it counted anything) into a new array. */
static label_row *copy_table(const label_table *t, size_t *n_out) {
    size_t n = t->n + 1;
    label_row *rows = malloc(n * sizeof *rows);
    if (!rows) return NULL;
    if (t->n) memcpy(rows, t->rows, t->n * sizeof *rows);
    n = t->n;
    if (row_used(&t->catch_all)) rows[n++] = t->catch_all;
    *n_out = n;
    return rows;
}

static int counters_take(zkp_metrics *m, counters *c) {
    memset(c, 0, sizeof *c);
    pthread_mutex_lock(&m->mu);
    c->jobs = copy_table(&m->jobs, &c->n_jobs);
    c->rpcs = copy_table(&m->rpcs, &c->n_rpcs);
    memcpy(c->stages, m->stages, sizeof c->stages);
    pthread_mutex_unlock(&m->mu);
    if (!c->jobs || !c->rpcs) {
        free(c->jobs);
        free(c->rpcs);
        return -1;
    }
    return 0;
}

static void counters_free(counters *c) {
    free(c->jobs);
    free(c->rpcs);
}

/* ------------------------------------------------------------------------
 * A growable string. After the first failed allocation every operation is
 * a no-op and sb_finish returns NULL, so the renderers check once. */

typedef struct {
    char *p;
    size_t len, cap;
    int failed;
} sbuf;

static void sb_fail(sbuf *b) {
    free(b->p);
    b->p = NULL;
    b->len = b->cap = 0;
    b->failed = 1;
}

static int sb_reserve(sbuf *b, size_t extra) {
    if (b->failed) return -1;
    size_t need;
    if (zkp_add_overflow(b->len, extra, &need) || zkp_add_overflow(need, 1, &need)) {
        sb_fail(b);
        return -1;
    }
    if (need <= b->cap) return 0;
    size_t cap = b->cap ? b->cap : 4096;
    while (cap < need)
        if (zkp_mul_overflow(cap, 2, &cap)) cap = need;
    char *p = realloc(b->p, cap);
    if (!p) {
        sb_fail(b);
        return -1;
    }
    b->p = p;
    b->cap = cap;
    return 0;
}

static void sb_put(sbuf *b, const char *s, size_t n) {
    if (sb_reserve(b, n) != 0) return;
    memcpy(b->p + b->len, s, n);
    b->len += n;
    b->p[b->len] = '\0';
}

static void sb_puts(sbuf *b, const char *s) { sb_put(b, s, strlen(s)); }
static void sb_putc(sbuf *b, char c) { sb_put(b, &c, 1); }

static char *sb_finish(sbuf *b) {
    if (sb_reserve(b, 0) != 0) return NULL;
    return b->p;
}

/* ------------------------------------------------------------------------
 * Numbers and strings */

static const char *fmt_u64(char buf[24], uint64_t v) {
    snprintf(buf, 24, "%" PRIu64, v);
    return buf;
}

/* The shortest of %.15g..%.17g that reads back as the same double, so
 * 0.1 prints as 0.1 and every value still round-trips. Finite only. */
static void fmt_finite(char buf[40], double v) {
    for (int prec = 15; prec <= 17; prec++) {
        snprintf(buf, 40, "%.*g", prec, v);
        if (strtod(buf, NULL) == v) break;
    }
    /* Both formats want '.', whatever LC_NUMERIC the process runs under. */
    for (char *p = buf; *p; p++)
        if (*p == ',') *p = '.';
}

static const char *fmt_prom_double(char buf[40], double v) {
    if (isnan(v)) return "NaN";
    if (isinf(v)) return v > 0 ? "+Inf" : "-Inf";
    fmt_finite(buf, v);
    return buf;
}

/* JSON has no infinities or NaN: those become null. */
static void json_double(sbuf *b, double v) {
    char buf[40];
    if (!isfinite(v)) {
        sb_puts(b, "null");
        return;
    }
    fmt_finite(buf, v);
    sb_puts(b, buf);
}

static void json_u64(sbuf *b, uint64_t v) {
    char buf[24];
    sb_puts(b, fmt_u64(buf, v));
}

/* Length of the well-formed UTF-8 sequence at s[0..n), 0 if there is none
 * (stray continuation byte, overlong form, surrogate, beyond U+10FFFF). */
static size_t utf8_len(const unsigned char *s, size_t n) {
    unsigned c = s[0];
    size_t len;
    uint32_t cp;
    if (c < 0x80) return 1;
    if (c >= 0xC2 && c <= 0xDF) {
        len = 2;
        cp = c & 0x1F;
    } else if ((c & 0xF0) == 0xE0) {
        len = 3;
        cp = c & 0x0F;
    } else if (c >= 0xF0 && c <= 0xF4) {
        len = 4;
        cp = c & 0x07;
    } else {
        return 0;
    }
    if (n < len) return 0;
    for (size_t i = 1; i < len; i++) {
        if ((s[i] & 0xC0) != 0x80) return 0;
        cp = (cp << 6) | (s[i] & 0x3F);
    }
    if (len == 3 && (cp < 0x800 || (cp >= 0xD800 && cp <= 0xDFFF))) return 0;
    if (len == 4 && (cp < 0x10000 || cp > 0x10FFFF)) return 0;
    return len;
}

typedef enum { ESC_PROM, ESC_JSON } esc_mode;

/* Writes s escaped for a Prometheus label value or a JSON string (without
 * the quotes). Both formats require UTF-8, and names come from outside, so
 * a byte that does not start a well-formed sequence becomes U+FFFD. */
static void put_escaped(sbuf *b, const char *s, esc_mode mode) {
    const unsigned char *p = (const unsigned char *)s;
    size_t n = strlen(s);
    while (n) {
        size_t run = 0;
        /* Copy the longest stretch that needs no escaping in one go. */
        while (run < n) {
            unsigned char c = p[run];
            if (c == '\\' || c == '"' || c < 0x20) break;
            if (c < 0x80) {
                run++;
                continue;
            }
            size_t l = utf8_len(p + run, n - run);
            if (!l) break;
            run += l;
        }
        sb_put(b, (const char *)p, run);
        p += run;
        n -= run;
        if (!n) break;
        unsigned char c = *p;
        if (c == '\\') {
            sb_puts(b, "\\\\");
        } else if (c == '"') {
            sb_puts(b, "\\\"");
        } else if (c < 0x20) {
            if (mode == ESC_PROM) {
                if (c == '\n')
                    sb_puts(b, "\\n");
                else
                    sb_putc(b, (char)c);
            } else {
                char u[8];
                snprintf(u, sizeof u, "\\u%04x", c);
                sb_puts(b, u);
            }
        } else {
            sb_puts(b, "\xEF\xBF\xBD");
        }
        p++;
        n--;
    }
}

static void json_str(sbuf *b, const char *s) {
    sb_putc(b, '"');
    put_escaped(b, s, ESC_JSON);
    sb_putc(b, '"');
}

/* ,"name": (or without the comma for the first member) */
static void json_key(sbuf *b, int first, const char *name) {
    if (!first) sb_putc(b, ',');
    json_str(b, name);
    sb_putc(b, ':');
}

static void json_member_u64(sbuf *b, int first, const char *name, uint64_t v) {
    json_key(b, first, name);
    json_u64(b, v);
}

/* ------------------------------------------------------------------------
 * What both renderings share: defaults for absent arguments, the names of
 * enum values and of keys. */

static const char *const ROLE_NAMES[] = {"synth", "device", "finalize", "dispatch"};
static const char *const STATE_NAMES[] = {"idle", "busy", "waiting"};
static const char *const TIER_NAMES[] = {"cold", "warm", "loading", "hot"};
#define N_ROLES ZKP_ARRAY_LEN(ROLE_NAMES)
#define N_STATES ZKP_ARRAY_LEN(STATE_NAMES)
#define N_TIERS ZKP_ARRAY_LEN(TIER_NAMES)

static const char *enum_name(const char *const *names, size_t n, unsigned v) {
    return v < n ? names[v] : "unknown";
}

typedef struct {
    const zkpipe_engine_status *st;
    zkp_server_view view;
    size_t n_keys, n_workers;
    const char *key_names[ZKPIPE_ENGINE_STATUS_MAX_KEYS];
    char key_fallback[ZKPIPE_ENGINE_STATUS_MAX_KEYS][16];
} render_ctx;

static const zkpipe_engine_status ZERO_STATUS;

static void render_ctx_init(render_ctx *r, const zkpipe_engine_status *st,
                            const zkp_server_view *view) {
    memset(r, 0, sizeof *r);
    r->st = st ? st : &ZERO_STATUS;
    if (view) r->view = *view;
    if (!r->view.key_ids || !r->view.key_names) r->view.n_key_names = 0;
    r->n_keys = r->st->n_keys < ZKPIPE_ENGINE_STATUS_MAX_KEYS ? r->st->n_keys
                                                              : ZKPIPE_ENGINE_STATUS_MAX_KEYS;
    r->n_workers = r->st->n_workers < ZKPIPE_ENGINE_STATUS_MAX_WORKERS
                       ? r->st->n_workers
                       : ZKPIPE_ENGINE_STATUS_MAX_WORKERS;
    for (size_t i = 0; i < r->n_keys; i++) {
        uint32_t id = r->st->keys[i].id;
        const char *name = NULL;
        for (size_t j = 0; j < r->view.n_key_names && !name; j++)
            if (r->view.key_ids[j] == id) name = r->view.key_names[j];
        /* Two keys under one name would make two identical series, which
         * fails the whole scrape; the later one falls back to its id. */
        for (size_t j = 0; j < i && name; j++)
            if (strcmp(r->key_names[j], name) == 0) name = NULL;
        if (!name) {
            snprintf(r->key_fallback[i], sizeof r->key_fallback[i], "key%" PRIu32, id);
            name = r->key_fallback[i];
        }
        r->key_names[i] = name;
    }
}

/* ------------------------------------------------------------------------
 * Prometheus text format 0.0.4 */

static void prom_family(sbuf *b, const char *name, const char *type, const char *help) {
    sb_puts(b, "# HELP zkpipe_");
    sb_puts(b, name);
    sb_putc(b, ' ');
    sb_puts(b, help);
    sb_puts(b, "\n# TYPE zkpipe_");
    sb_puts(b, name);
    sb_putc(b, ' ');
    sb_puts(b, type);
    sb_putc(b, '\n');
}

/* One sample: zkpipe_<name>{k0="v0",...} value. kv holds n_labels pairs. */
static void prom_sample(sbuf *b, const char *name, const char *const *kv, size_t n_labels,
                        const char *value) {
    sb_puts(b, "zkpipe_");
    sb_puts(b, name);
    for (size_t i = 0; i < n_labels; i++) {
        sb_putc(b, i ? ',' : '{');
        sb_puts(b, kv[2 * i]);
        sb_puts(b, "=\"");
        put_escaped(b, kv[2 * i + 1], ESC_PROM);
        sb_putc(b, '"');
    }
    if (n_labels) sb_putc(b, '}');
    sb_putc(b, ' ');
    sb_puts(b, value);
    sb_putc(b, '\n');
}

static void prom_u64_1(sbuf *b, const char *name, const char *k, const char *v, uint64_t x) {
    char buf[24];
    const char *kv[] = {k, v};
    prom_sample(b, name, kv, 1, fmt_u64(buf, x));
}

static void prom_gauge_u64(sbuf *b, const char *name, const char *help, uint64_t x) {
    char buf[24];
    prom_family(b, name, "gauge", help);
    prom_sample(b, name, NULL, 0, fmt_u64(buf, x));
}

static void prom_histograms(sbuf *b, const histogram *h) {
    prom_family(b, "stage_seconds", "histogram",
                "Seconds finished jobs spent in each stage: summed over partitions, except "
                "queue_wait (longest wait) and total (submission to end).");
    char le[40], val[40];
    for (size_t s = 0; s < N_STAGES; s++) {
        uint64_t cum = 0;
        for (size_t i = 0; i < N_BUCKETS; i++) {
            cum += h[s].bucket[i];
            if (i < N_BOUNDS)
                fmt_finite(le, BUCKET_BOUNDS[i]);
            else
                strcpy(le, "+Inf");
            const char *kv[] = {"stage", stage_name(s), "le", le};
            prom_sample(b, "stage_seconds_bucket", kv, 2, fmt_u64(val, cum));
        }
        const char *kv[] = {"stage", stage_name(s)};
        prom_sample(b, "stage_seconds_sum", kv, 1, fmt_prom_double(val, h[s].sum));
        prom_sample(b, "stage_seconds_count", kv, 1, fmt_u64(val, h[s].count));
    }
}

char *zkp_metrics_prometheus(zkp_metrics *m, const zkpipe_engine_status *st,
                             const zkp_server_view *view) {
    if (!m) return NULL;
    counters c;
    if (counters_take(m, &c) != 0) return NULL;
    render_ctx r;
    render_ctx_init(&r, st, view);
    st = r.st;
    sbuf b = {0};
    char buf[40];

    prom_family(&b, "jobs_total", "counter", "Jobs that reached an end, by key, kind and outcome.");
    for (size_t i = 0; i < c.n_jobs; i++)
        for (int o = 0; o < N_OUTCOMES; o++) {
            const char *kv[] = {"key", c.jobs[i].a, "kind", c.jobs[i].b, "outcome",
                                OUTCOME_NAMES[o]};
            prom_sample(&b, "jobs_total", kv, 3, fmt_u64(buf, c.jobs[i].n[o]));
        }

    prom_histograms(&b, c.stages);

    prom_family(&b, "rpc_total", "counter", "RPCs answered, by full method path and gRPC code.");
    for (size_t i = 0; i < c.n_rpcs; i++) {
        const char *kv[] = {"method", c.rpcs[i].a, "code", c.rpcs[i].b};
        prom_sample(&b, "rpc_total", kv, 2, fmt_u64(buf, c.rpcs[i].n[0]));
    }
    prom_gauge_u64(&b, "rpc_in_flight", "RPCs being answered now.", r.view.rpc_in_flight);

    prom_family(&b, "queue_partitions", "gauge", "Partitions waiting before each stage.");
    prom_u64_1(&b, "queue_partitions", "stage", "admit", st->queued_admit);
    prom_u64_1(&b, "queue_partitions", "stage", "synth", st->queued_synth);
    prom_u64_1(&b, "queue_partitions", "stage", "device", st->queued_device);
    prom_u64_1(&b, "queue_partitions", "stage", "finalize", st->queued_finalize);
    prom_family(&b, "running_partitions", "gauge", "Partitions in each stage now.");
    prom_u64_1(&b, "running_partitions", "stage", "synth", st->running_synth);
    prom_u64_1(&b, "running_partitions", "stage", "device", st->running_device);
    prom_u64_1(&b, "running_partitions", "stage", "finalize", st->running_finalize);

    /* Every (role, state) pair, zeros included, so that a series does not
     * vanish while all workers of a role are in another state. */
    uint64_t workers[N_ROLES][N_STATES] = {{0}};
    for (size_t i = 0; i < r.n_workers; i++) {
        unsigned role = (unsigned)st->workers[i].role, state = (unsigned)st->workers[i].state;
        if (role < N_ROLES && state < N_STATES) workers[role][state]++;
    }
    prom_family(&b, "workers", "gauge", "Engine workers by role and state.");
    for (size_t i = 0; i < N_ROLES; i++)
        for (size_t j = 0; j < N_STATES; j++) {
            const char *kv[] = {"role", ROLE_NAMES[i], "state", STATE_NAMES[j]};
            prom_sample(&b, "workers", kv, 2, fmt_u64(buf, workers[i][j]));
        }

    prom_family(&b, "memory_bytes", "gauge", "Bytes the engine tracks now, by category.");
    for (unsigned i = 0; i < ZKPIPE_ENGINE_MEM_CATEGORIES; i++)
        prom_u64_1(&b, "memory_bytes", "category", zkpipe_engine_mem_category_name(i),
                   st->mem_live[i]);
    prom_family(&b, "memory_peak_bytes", "gauge", "Most bytes tracked at once, by category.");
    for (unsigned i = 0; i < ZKPIPE_ENGINE_MEM_CATEGORIES; i++)
        prom_u64_1(&b, "memory_peak_bytes", "category", zkpipe_engine_mem_category_name(i),
                   st->mem_peak[i]);
    prom_gauge_u64(&b, "tracked_bytes", "Bytes tracked in all categories together.",
                   st->tracked_bytes);
    prom_gauge_u64(&b, "rss_bytes", "Resident set size of the process.", st->rss_bytes);
    prom_gauge_u64(&b, "peak_rss_bytes", "Largest resident set size sampled.",
                   st->peak_rss_bytes);
    prom_gauge_u64(&b, "baseline_rss_bytes", "Resident set size when the engine started.",
                   st->baseline_rss_bytes);
    prom_gauge_u64(&b, "budget_bytes", "The engine's memory budget.", st->budget_total_bytes);
    prom_gauge_u64(&b, "budget_reserved_bytes", "Bytes of the budget reserved now.",
                   st->budget_reserved_bytes);
    prom_gauge_u64(&b, "budget_available_bytes", "Bytes of the budget free now.",
                   st->budget_available_bytes);
    prom_gauge_u64(&b, "reservations_waiting", "Reservations waiting for memory.",
                   st->reservations_waiting);
    prom_family(&b, "reservation_violations_total", "counter",
                "Times a reservation held less than was allocated from it (must stay 0).");
    prom_sample(&b, "reservation_violations_total", NULL, 0,
                fmt_u64(buf, st->reservation_violations));

    /* The proving devices: each GPU's memory, as the driver sees it and by
     * what the engine holds there, its busy time and its transfers. */
    prom_family(&b, "device_info", "gauge", "1 for each proving device, named.");
    for (size_t i = 0; i < st->n_devices; i++) {
        const char *kv[] = {"device", st->devices[i].name};
        prom_sample(&b, "device_info", kv, 1, "1");
    }
    prom_family(&b, "device_lost", "gauge",
                "1 for a device out of service since a fault, until the process restarts.");
    for (size_t i = 0; i < st->n_devices; i++)
        prom_u64_1(&b, "device_lost", "device", st->devices[i].name, (uint64_t)st->devices[i].lost);
    prom_family(&b, "gpu_memory_total_bytes", "gauge", "Each GPU's memory, as its driver reports it.");
    for (size_t i = 0; i < st->n_devices; i++)
        if (st->devices[i].is_gpu)
            prom_u64_1(&b, "gpu_memory_total_bytes", "device", st->devices[i].name,
                       st->devices[i].vram_total_bytes);
    prom_family(&b, "gpu_memory_budget_bytes", "gauge",
                "Device memory the engine may take on each GPU (engine.vram_budget; 0: the whole device).");
    for (size_t i = 0; i < st->n_devices; i++)
        if (st->devices[i].is_gpu)
            prom_u64_1(&b, "gpu_memory_budget_bytes", "device", st->devices[i].name,
                       st->devices[i].vram_budget_bytes);
    prom_family(&b, "gpu_memory_free_bytes", "gauge", "Each GPU's free memory, as its driver reports it.");
    for (size_t i = 0; i < st->n_devices; i++)
        if (st->devices[i].is_gpu)
            prom_u64_1(&b, "gpu_memory_free_bytes", "device", st->devices[i].name,
                       st->devices[i].vram_free_bytes);
    prom_family(&b, "gpu_memory_bytes", "gauge", "GPU memory the engine holds, by category.");
    for (size_t i = 0; i < st->n_devices; i++)
        for (unsigned cat = 0; cat < ZKPIPE_ENGINE_GPU_MEM_CATEGORIES && st->devices[i].is_gpu; cat++) {
            const char *kv[] = {"device", st->devices[i].name, "category",
                                zkpipe_engine_gpu_mem_category_name(cat)};
            prom_sample(&b, "gpu_memory_bytes", kv, 2, fmt_u64(buf, st->devices[i].vram_bytes[cat]));
        }
    prom_family(&b, "gpu_busy_seconds_total", "counter", "Seconds each GPU spent in device calls.");
    for (size_t i = 0; i < st->n_devices; i++)
        if (st->devices[i].is_gpu) {
            char dbuf[40];
            const char *kv[] = {"device", st->devices[i].name};
            prom_sample(&b, "gpu_busy_seconds_total", kv, 1,
                        fmt_prom_double(dbuf, st->devices[i].busy_seconds));
        }
    prom_family(&b, "gpu_transfer_bytes_total", "counter", "Bytes copied to and from each GPU.");
    for (size_t i = 0; i < st->n_devices; i++)
        if (st->devices[i].is_gpu) {
            const char *up[] = {"device", st->devices[i].name, "direction", "h2d"};
            const char *down[] = {"device", st->devices[i].name, "direction", "d2h"};
            prom_sample(&b, "gpu_transfer_bytes_total", up, 2, fmt_u64(buf, st->devices[i].h2d_bytes));
            prom_sample(&b, "gpu_transfer_bytes_total", down, 2,
                        fmt_u64(buf, st->devices[i].d2h_bytes));
        }

    /* One series per tier with 1 on the current one, so that a tier change
     * shows as one series going to 0 rather than a series disappearing. */
    prom_family(&b, "key_tier", "gauge", "1 for the tier each key is in, 0 for the others.");
    for (size_t i = 0; i < r.n_keys; i++)
        for (unsigned t = 0; t < N_TIERS; t++) {
            const char *kv[] = {"key", r.key_names[i], "tier", TIER_NAMES[t]};
            prom_sample(&b, "key_tier", kv, 2, (unsigned)st->keys[i].tier == t ? "1" : "0");
        }
    prom_family(&b, "key_resident_bytes", "gauge", "Bytes each key holds in the budget.");
    for (size_t i = 0; i < r.n_keys; i++)
        prom_u64_1(&b, "key_resident_bytes", "key", r.key_names[i], st->keys[i].resident_bytes);
    prom_family(&b, "key_loads_total", "counter", "Times each key was loaded.");
    for (size_t i = 0; i < r.n_keys; i++)
        prom_u64_1(&b, "key_loads_total", "key", r.key_names[i], st->keys[i].loads);
    prom_family(&b, "key_evictions_total", "counter", "Times each key was evicted.");
    for (size_t i = 0; i < r.n_keys; i++)
        prom_u64_1(&b, "key_evictions_total", "key", r.key_names[i], st->keys[i].evictions);

    prom_gauge_u64(&b, "jobs_live", "Jobs the server holds that are not final yet.",
                   r.view.server_jobs_live);
    prom_gauge_u64(&b, "request_payload_bytes",
                   "Bytes of request messages held for jobs the engine still reads.",
                   r.view.server_payload_bytes);
    prom_family(&b, "uptime_seconds", "gauge", "Seconds since the daemon started.");
    prom_sample(&b, "uptime_seconds", NULL, 0, fmt_prom_double(buf, r.view.uptime_seconds));
    prom_gauge_u64(&b, "draining", "1 once the daemon stopped admitting new work.",
                   r.view.draining ? 1 : 0);

    if (r.view.cluster_member) {
        static const char *const prio[4] = {"low", "normal", "high", "critical"};
        prom_family(&b, "cluster_queue_depth", "gauge",
                    "Jobs queued in the cluster by priority, as this member last read them.");
        for (int i = 0; i < 4; i++)
            prom_u64_1(&b, "cluster_queue_depth", "priority", prio[i], r.view.cluster_depth[i]);
        prom_family(&b, "cluster_jobs_enqueued_total", "counter",
                    "Jobs this member put into the cluster's queue.");
        prom_sample(&b, "cluster_jobs_enqueued_total", NULL, 0,
                    fmt_u64(buf, r.view.cluster_enqueued));
        prom_family(&b, "cluster_claims_total", "counter", "Jobs this member claimed.");
        prom_sample(&b, "cluster_claims_total", NULL, 0, fmt_u64(buf, r.view.cluster_claims));
        prom_family(&b, "cluster_results_total", "counter",
                    "Outcomes this member wrote back: completed, failed, or refused (its lease "
                    "was taken over or the job cancelled).");
        prom_u64_1(&b, "cluster_results_total", "outcome", "completed", r.view.cluster_completed);
        prom_u64_1(&b, "cluster_results_total", "outcome", "failed", r.view.cluster_failed);
        prom_u64_1(&b, "cluster_results_total", "outcome", "refused",
                   r.view.cluster_refused_writes);
        prom_family(&b, "cluster_lease_expiries_total", "counter",
                    "Expired leases this member's reaper ended: each job taken over by another "
                    "claim or failed.");
        prom_sample(&b, "cluster_lease_expiries_total", NULL, 0,
                    fmt_u64(buf, r.view.cluster_lease_expiries));
        prom_gauge_u64(&b, "cluster_claims_running", "Claims running on this member now.",
                       r.view.cluster_running);
        prom_family(&b, "cluster_statement_retries_total", "counter",
                    "Statements this member ran again after a serialization failure or a "
                    "deadlock (SQLSTATE 40001, 40P01).");
        prom_sample(&b, "cluster_statement_retries_total", NULL, 0,
                    fmt_u64(buf, r.view.cluster_retries));
    }

    counters_free(&c);
    return sb_finish(&b);
}

/* ------------------------------------------------------------------------
 * JSON */

char *zkp_metrics_status_json(zkp_metrics *m, const zkpipe_engine_status *st,
                              const zkp_server_view *view) {
    if (!m) return NULL;
    counters c;
    if (counters_take(m, &c) != 0) return NULL;
    render_ctx r;
    render_ctx_init(&r, st, view);
    st = r.st;
    sbuf b = {0};

    uint64_t totals[N_OUTCOMES] = {0};
    for (size_t i = 0; i < c.n_jobs; i++)
        for (int o = 0; o < N_OUTCOMES; o++) totals[o] += c.jobs[i].n[o];

    sb_putc(&b, '{');
    json_key(&b, 1, "uptime_seconds");
    json_double(&b, r.view.uptime_seconds);
    json_key(&b, 0, "draining");
    sb_puts(&b, r.view.draining ? "true" : "false");
    json_member_u64(&b, 0, "rpc_in_flight", r.view.rpc_in_flight);

    json_key(&b, 0, "jobs");
    sb_putc(&b, '{');
    json_member_u64(&b, 1, "live", r.view.server_jobs_live);
    for (int o = 0; o < N_OUTCOMES; o++) json_member_u64(&b, 0, OUTCOME_NAMES[o], totals[o]);
    json_member_u64(&b, 0, "engine_live", st->jobs_live);
    json_member_u64(&b, 0, "payload_bytes", r.view.server_payload_bytes);
    json_member_u64(&b, 0, "partitions_completed", st->partitions_completed);
    json_member_u64(&b, 0, "proofs_verified", st->proofs_verified);
    sb_putc(&b, '}');

    json_key(&b, 0, "queues");
    sb_putc(&b, '{');
    json_member_u64(&b, 1, "admit", st->queued_admit);
    json_member_u64(&b, 0, "synth", st->queued_synth);
    json_member_u64(&b, 0, "device", st->queued_device);
    json_member_u64(&b, 0, "finalize", st->queued_finalize);
    json_member_u64(&b, 0, "running_synth", st->running_synth);
    json_member_u64(&b, 0, "running_device", st->running_device);
    json_member_u64(&b, 0, "running_finalize", st->running_finalize);
    sb_putc(&b, '}');

    json_key(&b, 0, "workers");
    sb_putc(&b, '[');
    for (size_t i = 0; i < r.n_workers; i++) {
        sb_puts(&b, i ? ",{" : "{");
        json_key(&b, 1, "role");
        json_str(&b, enum_name(ROLE_NAMES, N_ROLES, (unsigned)st->workers[i].role));
        json_key(&b, 0, "state");
        json_str(&b, enum_name(STATE_NAMES, N_STATES, (unsigned)st->workers[i].state));
        if (st->workers[i].role == ZKPIPE_WORKER_DEVICE)
            json_member_u64(&b, 0, "device", st->workers[i].device);
        sb_putc(&b, '}');
    }
    sb_putc(&b, ']');

    json_key(&b, 0, "memory");
    sb_putc(&b, '{');
    json_member_u64(&b, 1, "budget_bytes", st->budget_total_bytes);
    json_member_u64(&b, 0, "budget_reserved_bytes", st->budget_reserved_bytes);
    json_member_u64(&b, 0, "budget_available_bytes", st->budget_available_bytes);
    json_member_u64(&b, 0, "budget_peak_reserved_bytes", st->budget_peak_reserved_bytes);
    json_member_u64(&b, 0, "tracked_bytes", st->tracked_bytes);
    json_member_u64(&b, 0, "tracked_peak_bytes", st->tracked_peak_bytes);
    json_member_u64(&b, 0, "rss_bytes", st->rss_bytes);
    json_member_u64(&b, 0, "peak_rss_bytes", st->peak_rss_bytes);
    json_member_u64(&b, 0, "baseline_rss_bytes", st->baseline_rss_bytes);
    json_member_u64(&b, 0, "reservations_waiting", st->reservations_waiting);
    json_member_u64(&b, 0, "reservation_refusals", st->reservation_refusals);
    json_member_u64(&b, 0, "reservation_violations", st->reservation_violations);
    json_key(&b, 0, "categories");
    sb_putc(&b, '{');
    for (unsigned i = 0; i < ZKPIPE_ENGINE_MEM_CATEGORIES; i++) {
        json_key(&b, i == 0, zkpipe_engine_mem_category_name(i));
        sb_putc(&b, '{');
        json_member_u64(&b, 1, "live", st->mem_live[i]);
        json_member_u64(&b, 0, "peak", st->mem_peak[i]);
        sb_putc(&b, '}');
    }
    sb_puts(&b, "}}");

    json_key(&b, 0, "devices");
    sb_putc(&b, '[');
    for (size_t i = 0; i < st->n_devices; i++) {
        const zkpipe_device_status *dv = &st->devices[i];
        sb_puts(&b, i ? ",{" : "{");
        json_key(&b, 1, "name");
        json_str(&b, dv->name);
        json_key(&b, 0, "gpu");
        sb_puts(&b, dv->is_gpu ? "true" : "false");
        json_key(&b, 0, "lost");
        sb_puts(&b, dv->lost ? "true" : "false");
        if (dv->lost) {
            json_key(&b, 0, "lost_reason");
            json_str(&b, dv->lost_reason);
        }
        if (dv->is_gpu) {
            json_member_u64(&b, 0, "ordinal", dv->ordinal);
            json_member_u64(&b, 0, "memory_total_bytes", dv->vram_total_bytes);
            json_member_u64(&b, 0, "memory_free_bytes", dv->vram_free_bytes);
            json_member_u64(&b, 0, "memory_budget_bytes", dv->vram_budget_bytes);
            json_member_u64(&b, 0, "tracked_bytes", dv->vram_tracked_bytes);
            json_member_u64(&b, 0, "tracked_peak_bytes", dv->vram_peak_bytes);
            for (unsigned cat = 0; cat < ZKPIPE_ENGINE_GPU_MEM_CATEGORIES; cat++) {
                char name[48];
                snprintf(name, sizeof name, "%s_bytes", zkpipe_engine_gpu_mem_category_name(cat));
                json_member_u64(&b, 0, name, dv->vram_bytes[cat]);
            }
            json_member_u64(&b, 0, "h2d_bytes", dv->h2d_bytes);
            json_member_u64(&b, 0, "d2h_bytes", dv->d2h_bytes);
            json_member_u64(&b, 0, "busy_ms", (uint64_t)(dv->busy_seconds * 1e3));
        }
        sb_putc(&b, '}');
    }
    sb_putc(&b, ']');

    json_key(&b, 0, "keys");
    sb_putc(&b, '[');
    for (size_t i = 0; i < r.n_keys; i++) {
        const zkpipe_key_status *k = &st->keys[i];
        sb_puts(&b, i ? ",{" : "{");
        json_member_u64(&b, 1, "id", k->id);
        json_key(&b, 0, "name");
        json_str(&b, r.key_names[i]);
        json_key(&b, 0, "tier");
        json_str(&b, enum_name(TIER_NAMES, N_TIERS, (unsigned)k->tier));
        json_key(&b, 0, "curve");
        if (k->curve)
            json_str(&b, zkpipe_curve_name(k->curve));
        else
            sb_puts(&b, "null");
        json_member_u64(&b, 0, "file_bytes", k->file_bytes);
        json_member_u64(&b, 0, "resident_bytes", k->resident_bytes);
        json_member_u64(&b, 0, "partition_bytes", k->partition_bytes);
        json_member_u64(&b, 0, "running", k->running);
        json_member_u64(&b, 0, "loads", k->loads);
        json_member_u64(&b, 0, "evictions", k->evictions);
        sb_putc(&b, '}');
    }
    sb_putc(&b, ']');

    json_key(&b, 0, "jobs_by_key");
    sb_putc(&b, '[');
    for (size_t i = 0; i < c.n_jobs; i++) {
        sb_puts(&b, i ? ",{" : "{");
        json_key(&b, 1, "key");
        json_str(&b, c.jobs[i].a);
        json_key(&b, 0, "kind");
        json_str(&b, c.jobs[i].b);
        for (int o = 0; o < N_OUTCOMES; o++)
            json_member_u64(&b, 0, OUTCOME_NAMES[o], c.jobs[i].n[o]);
        sb_putc(&b, '}');
    }
    sb_putc(&b, ']');

    json_key(&b, 0, "stages");
    sb_putc(&b, '{');
    for (size_t s = 0; s < N_STAGES; s++) {
        json_key(&b, s == 0, stage_name(s));
        sb_putc(&b, '{');
        json_member_u64(&b, 1, "count", c.stages[s].count);
        json_key(&b, 0, "sum_seconds");
        json_double(&b, c.stages[s].sum);
        sb_putc(&b, '}');
    }
    sb_putc(&b, '}');

    /* code stays a string: past the label bound it can be "other". */
    json_key(&b, 0, "rpcs");
    sb_putc(&b, '[');
    for (size_t i = 0; i < c.n_rpcs; i++) {
        sb_puts(&b, i ? ",{" : "{");
        json_key(&b, 1, "method");
        json_str(&b, c.rpcs[i].a);
        json_key(&b, 0, "code");
        json_str(&b, c.rpcs[i].b);
        json_member_u64(&b, 0, "count", c.rpcs[i].n[0]);
        sb_putc(&b, '}');
    }
    sb_puts(&b, "]}");

    counters_free(&c);
    return sb_finish(&b);
}
