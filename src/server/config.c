/* The daemon's configuration (see config.h). */
#include "server/config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#define KIB ((int64_t)1 << 10)
#define MIB ((int64_t)1 << 20)
#define GIB ((int64_t)1 << 30)

static const zkp_cfg_key KEYS[ZKP_CFG_KEY_COUNT] = {
    [ZKP_CFG_SERVER_SOCKET] = {"server.socket", ZKP_CFG_STRING, "", 0, 0, 0, 0, 0,
                               "unix socket path; empty = <server.runtime_dir>/zkpipe.sock"},
    [ZKP_CFG_SERVER_TCP] = {"server.tcp", ZKP_CFG_STRING, "", 0, 0, 0, 0, 0,
                            "host:port to listen on over TCP as well; empty = no TCP"},
    [ZKP_CFG_SERVER_RUNTIME_DIR] = {"server.runtime_dir", ZKP_CFG_STRING, "/run/zkpipe", 0, 0, 0,
                                    0, 0, "runtime directory (socket, mode 0660)"},
    [ZKP_CFG_SERVER_MAX_MESSAGE] = {"server.max_message", ZKP_CFG_SIZE, NULL, 256 * MIB, 0, 0,
                                    64 * KIB, 2 * GIB - 1,
                                    "largest request or response message, both ways"},
    [ZKP_CFG_SERVER_KEYS] = {"server.keys", ZKP_CFG_STRINGS, NULL, 0, 0, 0, 0, 0,
                             "keys to register at start, each \"name=path/to/circuit.zkey\""},
    [ZKP_CFG_ENGINE_BUDGET] = {"engine.budget", ZKP_CFG_SIZE, NULL, 0, 0, 0, 0,
                               (uint64_t)1 << 50, "memory budget of the engine; 0 = detect"},
    [ZKP_CFG_ENGINE_SYNTHESIS_WORKERS] = {"engine.synthesis_workers", ZKP_CFG_INT, NULL, 0, 0,
                                          4096, 0, 0, "witness/synthesis threads; 0 = auto"},
    [ZKP_CFG_ENGINE_DEVICE_WORKERS] = {"engine.device_workers", ZKP_CFG_INT, NULL, 0, 0, 256, 0,
                                       0, "device (MSM/NTT) workers; 0 = auto"},
    [ZKP_CFG_ENGINE_FINALIZE_WORKERS] = {"engine.finalize_workers", ZKP_CFG_INT, NULL, 0, 0,
                                         4096, 0, 0, "proof finalize threads; 0 = auto"},
    [ZKP_CFG_SERVER_DRAIN_TIMEOUT_MS] = {"server.drain_timeout_ms", ZKP_CFG_INT, NULL, 120000, 0,
                                         86400000, 0, 0,
                                         "on SIGTERM, how long live jobs may run before they are "
                                         "cancelled"},
    [ZKP_CFG_SERVER_RESULT_TTL_MS] = {"server.result_ttl_ms", ZKP_CFG_INT, NULL, 600000, 1000,
                                      86400000, 0, 0,
                                      "how long a finished job's result waits to be awaited"},
    [ZKP_CFG_SERVER_MAX_JOBS] = {"server.max_jobs", ZKP_CFG_INT, NULL, 4096, 1, 1000000, 0, 0,
                                 "jobs held at once, live or awaiting collection; more are "
                                 "refused with RESOURCE_EXHAUSTED"},
    [ZKP_CFG_ENGINE_DEVICE_THREADS] = {"engine.device_threads", ZKP_CFG_INT, NULL, 0, 0, 4096, 0,
                                       0, "threads of one partition's MSMs and NTTs; 0 = every CPU"},
    [ZKP_CFG_ENGINE_VERIFY] = {"engine.verify", ZKP_CFG_BOOL, NULL, 1, 0, 1, 0, 0,
                               "verify every proof before returning it"},
    [ZKP_CFG_METRICS_HTTP] = {"metrics.http", ZKP_CFG_STRING, "", 0, 0, 0, 0, 0,
                              "host:port for HTTP /metrics and /status; empty = off"},
    [ZKP_CFG_METRICS_POLL_MS] = {"metrics.poll_ms", ZKP_CFG_INT, NULL, 1000, 10, 3600000, 0, 0,
                                 "period of the RSS sampler behind the memory metrics, in milliseconds"},
    [ZKP_CFG_ENGINE_DEVICE] = {"engine.device", ZKP_CFG_STRING, "auto", 0, 0, 0, 0, 0,
                               "where prove_start runs: cpu, cuda (fail without a GPU) or auto "
                               "(the GPUs if there are any)"},
    [ZKP_CFG_ENGINE_DEVICES] = {"engine.devices", ZKP_CFG_INT, NULL, 0, 0, 16, 0, 0,
                                "GPUs to use, from ordinal 0; 0 = every GPU"},
    [ZKP_CFG_SERVER_KEY_DIRS] = {"server.key_dirs", ZKP_CFG_STRINGS, NULL, 0, 0, 0, 0, 0,
                                 "directories RegisterKey may open keys under (absolute); "
                                 "empty = RegisterKey is refused"},
    [ZKP_CFG_SERVER_ALLOW_INSECURE_TCP] = {"server.allow_insecure_tcp", ZKP_CFG_BOOL, NULL, 0, 0, 1,
                                           0, 0,
                                           "listen on a non-loopback TCP address with neither TLS "
                                           "nor a token"},
    [ZKP_CFG_SERVER_TLS_CERT] = {"server.tls_cert", ZKP_CFG_STRING, "", 0, 0, 0, 0, 0,
                                 "PEM certificate (chain) the TCP listener presents; "
                                 "empty = plaintext TCP"},
    [ZKP_CFG_SERVER_TLS_KEY] = {"server.tls_key", ZKP_CFG_STRING, "", 0, 0, 0, 0, 0,
                                "PEM private key of server.tls_cert (not readable by every user)"},
    [ZKP_CFG_SERVER_TLS_CLIENT_CA] = {"server.tls_client_ca", ZKP_CFG_STRING, "", 0, 0, 0, 0, 0,
                                      "PEM CA certificates: TCP clients must present a certificate "
                                      "they issued; empty = none asked for"},
    [ZKP_CFG_SERVER_AUTH_TOKEN_FILE] = {"server.auth_token_file", ZKP_CFG_STRING, "", 0, 0, 0, 0, 0,
                                        "file holding the token every TCP call must carry as "
                                        "'authorization: Bearer <token>'; empty = none"},
    [ZKP_CFG_QUEUE_URL] = {"queue.url", ZKP_CFG_STRING, "", 0, 0, 0, 0, 0,
                           "PostgreSQL connection string or postgresql:// URI of cluster mode's "
                           "job queue (no password in it: use ~/.pgpass); empty = standalone"},
    [ZKP_CFG_QUEUE_INPUTS_DIR] = {"queue.inputs_dir", ZKP_CFG_STRING, "", 0, 0, 0, 0, 0,
                                  "directory every member mounts (absolute), for job inputs "
                                  "larger than the database takes (64 MiB); empty = refused"},
    [ZKP_CFG_QUEUE_LEASE_MS] = {"queue.lease_ms", ZKP_CFG_INT, NULL, 30000, 1000, 3600000, 0, 0,
                                "a claimed job's lease; renewed every third of it, and a member "
                                "silent for longer loses its jobs to the others"},
    [ZKP_CFG_QUEUE_MAX_CLAIMS] = {"queue.max_claims", ZKP_CFG_INT, NULL, 2, 1, 1024, 0, 0,
                                  "jobs of the queue this member runs at once"},
    [ZKP_CFG_QUEUE_MAX_ATTEMPTS] = {"queue.max_attempts", ZKP_CFG_INT, NULL, 3, 1, 100, 0, 0,
                                    "claims of a job (expired leases, retryable errors) before "
                                    "it fails with the last error"},
    [ZKP_CFG_QUEUE_IDLE_MS] = {"queue.idle_ms", ZKP_CFG_INT, NULL, 1000, 10, 60000, 0, 0,
                               "how long an idle member waits for a notification of new work "
                               "before it looks for work anyway"},
    [ZKP_CFG_QUEUE_INLINE_MAX] = {"queue.inline_max", ZKP_CFG_SIZE, NULL, 64 * MIB, 0, 0, 0,
                                  64 * MIB,
                                  "requests up to this size are stored in the database, larger "
                                  "ones in queue.inputs_dir (at most 64 MiB)"},
    [ZKP_CFG_FILECOIN_PARAMS_DIR] = {"filecoin.params_dir", ZKP_CFG_STRING, "", 0, 0, 0, 0, 0,
                                     "directory of Filecoin's Groth16 parameter files, found by "
                                     "Filecoin's names; empty = $FIL_PROOFS_PARAMETER_CACHE, "
                                     "else /var/tmp/filecoin-proof-parameters"},
    [ZKP_CFG_FILECOIN_CHECK_SUBGROUPS] = {"filecoin.check_subgroups", ZKP_CFG_BOOL, NULL, 0, 0, 1,
                                          0, 0,
                                          "check every point of the parameters in the prime-order "
                                          "subgroup as they load (most of the loading time; every "
                                          "proof is verified either way)"},
    [ZKP_CFG_ENGINE_VRAM_BUDGET] = {"engine.vram_budget", ZKP_CFG_SIZE, NULL, 0, 0, 0, 0,
                                    (uint64_t)1 << 50,
                                    "device memory the engine may take on each GPU; 0 = the "
                                    "whole device"},
    [ZKP_CFG_ENGINE_POOL_IDLE_MAX] = {"engine.pool_idle_max", ZKP_CFG_SIZE, NULL, 0, 0, 0, 0,
                                      (uint64_t)1 << 50,
                                      "idle host memory the buffer pool keeps for reuse; 0 = "
                                      "1 GiB, or no cap with GPUs (registered regions are slow "
                                      "to replace)"},
    [ZKP_CFG_ENGINE_ABC_ON_HOST] = {"engine.abc_on_host", ZKP_CFG_BOOL, NULL, 0, 0, 1, 0, 0,
                                    "make a partition's a, b and c in host memory even on GPUs "
                                    "(by default they are made on the device from the witness)"},
    [ZKP_CFG_QUEUE_NOTIFY] = {"queue.notify", ZKP_CFG_STRING, "on", 0, 0, 0, 0, 0,
                              "on: wake-ups by LISTEN/NOTIFY; off: for databases without them, "
                              "no pg_notify and no LISTEN, jobs re-read every queue.poll_ms "
                              "(every member of a queue must agree)"},
    [ZKP_CFG_QUEUE_POLL_MS] = {"queue.poll_ms", ZKP_CFG_INT, NULL, 250, 10, 60000, 0, 0,
                               "with queue.notify = off, how often a member re-reads its jobs "
                               "and looks for work"},
};

static const char *const SECTIONS[] = {"server", "engine", "metrics", "queue", "filecoin"};

typedef struct {
    zkp_cfg_source src;
    char origin[160]; /* file:line or variable name */
    char *str;
    int64_t num; /* INT, BOOL, SIZE (as uint64 bits) */
    char **arr;
    size_t n;
} cfg_val;

struct zkp_config {
    cfg_val v[ZKP_CFG_KEY_COUNT];
};

const zkp_cfg_key *zkp_config_key(zkp_cfg_id id) {
    ZKP_VERIFY_CHECK((unsigned)id < ZKP_CFG_KEY_COUNT);
    return (unsigned)id < ZKP_CFG_KEY_COUNT ? &KEYS[id] : NULL;
}

int zkp_config_find(const char *name) {
    for (int i = 0; i < ZKP_CFG_KEY_COUNT; i++)
        if (strcmp(KEYS[i].name, name) == 0) return i;
    return -1;
}

static int find_n(const char *name, size_t len) {
    for (int i = 0; i < ZKP_CFG_KEY_COUNT; i++)
        if (strlen(KEYS[i].name) == len && memcmp(KEYS[i].name, name, len) == 0) return i;
    return -1;
}

void zkp_config_env_name(zkp_cfg_id id, char *buf, size_t cap) {
    if (cap == 0) return;
    const char *n = KEYS[id].name;
    size_t o = 0;
    const char *pre = "ZKPIPE_";
    for (; *pre && o + 1 < cap; pre++) buf[o++] = *pre;
    for (; *n && o + 1 < cap; n++) {
        char c = *n;
        if (c == '.') c = '_';
        else if (c >= 'a' && c <= 'z') c = (char)(c - 'a' + 'A');
        buf[o++] = c;
    }
    buf[o] = '\0';
}

const char *zkp_config_source_name(zkp_cfg_source s) {
    switch (s) {
    case ZKP_CFG_SRC_DEFAULT: return "default";
    case ZKP_CFG_SRC_FILE: return "file";
    case ZKP_CFG_SRC_ENV: return "env";
    case ZKP_CFG_SRC_CLI: return "cli";
    }
    return "?";
}

/* ---- values ---------------------------------------------------------- */

static void val_clear(cfg_val *v) {
    free(v->str);
    for (size_t i = 0; i < v->n; i++) free(v->arr[i]);
    free(v->arr);
    v->str = NULL;
    v->arr = NULL;
    v->n = 0;
    v->num = 0;
}

static char *dup_n(const char *s, size_t n) {
    char *r = malloc(n + 1);
    if (!r) return NULL;
    memcpy(r, s, n);
    r[n] = '\0';
    return r;
}

static void cfg_clear(zkp_config *c) {
    for (int i = 0; i < ZKP_CFG_KEY_COUNT; i++) val_clear(&c->v[i]);
}

/* Deep copy of src into dst (dst is empty). */
static zkpipe_status cfg_copy(zkp_config *dst, const zkp_config *src) {
    memset(dst, 0, sizeof *dst);
    for (int i = 0; i < ZKP_CFG_KEY_COUNT; i++) {
        const cfg_val *s = &src->v[i];
        cfg_val *t = &dst->v[i];
        t->src = s->src;
        memcpy(t->origin, s->origin, sizeof t->origin);
        t->num = s->num;
        if (s->str && !(t->str = dup_n(s->str, strlen(s->str)))) goto oom;
        if (s->n) {
            if (!(t->arr = calloc(s->n, sizeof *t->arr))) goto oom;
            for (size_t j = 0; j < s->n; j++) {
                if (!(t->arr[j] = dup_n(s->arr[j], strlen(s->arr[j])))) goto oom;
                t->n = j + 1;
            }
        }
    }
    return ZKPIPE_OK;
oom:
    cfg_clear(dst);
    return ZKPIPE_ERR_NO_MEMORY;
}

zkpipe_status zkp_config_new(zkp_config **out) {
    *out = NULL;
    zkp_config *c = calloc(1, sizeof *c);
    if (!c) return ZKPIPE_ERR_NO_MEMORY;
    for (int i = 0; i < ZKP_CFG_KEY_COUNT; i++) {
        c->v[i].src = ZKP_CFG_SRC_DEFAULT;
        c->v[i].num = KEYS[i].def_num;
        if (KEYS[i].type == ZKP_CFG_STRING &&
            !(c->v[i].str = dup_n(KEYS[i].def_str, strlen(KEYS[i].def_str)))) {
            zkp_config_free(c);
            return ZKPIPE_ERR_NO_MEMORY;
        }
    }
    *out = c;
    return ZKPIPE_OK;
}

void zkp_config_free(zkp_config *cfg) {
    if (!cfg) return;
    cfg_clear(cfg);
    free(cfg);
}

/* ---- getters --------------------------------------------------------- */

static const cfg_val *get(const zkp_config *cfg, zkp_cfg_id id, zkp_cfg_type t) {
    ZKP_VERIFY_CHECK((unsigned)id < ZKP_CFG_KEY_COUNT && KEYS[id].type == t);
    if ((unsigned)id >= ZKP_CFG_KEY_COUNT || KEYS[id].type != t) return NULL;
    return &cfg->v[id];
}

const char *zkp_config_str(const zkp_config *cfg, zkp_cfg_id id) {
    const cfg_val *v = get(cfg, id, ZKP_CFG_STRING);
    return v && v->str ? v->str : "";
}
int64_t zkp_config_int(const zkp_config *cfg, zkp_cfg_id id) {
    const cfg_val *v = get(cfg, id, ZKP_CFG_INT);
    return v ? v->num : 0;
}
int zkp_config_bool(const zkp_config *cfg, zkp_cfg_id id) {
    const cfg_val *v = get(cfg, id, ZKP_CFG_BOOL);
    return v ? (int)v->num : 0;
}
uint64_t zkp_config_size(const zkp_config *cfg, zkp_cfg_id id) {
    const cfg_val *v = get(cfg, id, ZKP_CFG_SIZE);
    return v ? (uint64_t)v->num : 0;
}
size_t zkp_config_strings(const zkp_config *cfg, zkp_cfg_id id, const char *const **items) {
    const cfg_val *v = get(cfg, id, ZKP_CFG_STRINGS);
    *items = v ? (const char *const *)v->arr : NULL;
    return v ? v->n : 0;
}
zkp_cfg_source zkp_config_source(const zkp_config *cfg, zkp_cfg_id id) {
    return (unsigned)id < ZKP_CFG_KEY_COUNT ? cfg->v[id].src : ZKP_CFG_SRC_DEFAULT;
}

/* ---- numbers --------------------------------------------------------- */

/* Decimal digits s[0..len) into *out; 0 ok, 1 malformed, 2 overflow. */
static int parse_u64(const char *s, size_t len, uint64_t *out) {
    if (len == 0) return 1;
    uint64_t v = 0;
    for (size_t i = 0; i < len; i++) {
        if (s[i] < '0' || s[i] > '9') return 1;
        if (__builtin_mul_overflow(v, 10u, &v) || __builtin_add_overflow(v, (unsigned)(s[i] - '0'), &v))
            return 2;
    }
    *out = v;
    return 0;
}

static int ieq(const char *a, size_t n, const char *b) {
    if (strlen(b) != n) return 0;
    for (size_t i = 0; i < n; i++) {
        char c = a[i];
        if (c >= 'A' && c <= 'Z') c = (char)(c - 'A' + 'a');
        char e = b[i];
        if (e >= 'A' && e <= 'Z') e = (char)(e - 'A' + 'a');
        if (c != e) return 0;
    }
    return 1;
}

zkpipe_status zkp_config_parse_size(const char *s, size_t len, uint64_t *out) {
    size_t i = 0;
    while (i < len && (s[i] == ' ' || s[i] == '\t')) i++;
    size_t d0 = i;
    while (i < len && s[i] >= '0' && s[i] <= '9') i++;
    uint64_t v = 0;
    int r = parse_u64(s + d0, i - d0, &v);
    if (r == 1) return ZKPIPE_ERR_PARSE;
    while (i < len && (s[i] == ' ' || s[i] == '\t')) i++;
    size_t u0 = i;
    while (i < len && ((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z'))) i++;
    size_t ul = i - u0;
    while (i < len && (s[i] == ' ' || s[i] == '\t')) i++;
    if (i != len) return ZKPIPE_ERR_PARSE;
    static const struct {
        const char *u;
        uint64_t m;
    } units[] = {{"b", 1},
                 {"kib", 1ull << 10},
                 {"mib", 1ull << 20},
                 {"gib", 1ull << 30},
                 {"tib", 1ull << 40},
                 {"kb", 1000ull},
                 {"mb", 1000000ull},
                 {"gb", 1000000000ull},
                 {"tb", 1000000000000ull}};
    uint64_t m = 1;
    if (ul) {
        size_t k;
        for (k = 0; k < ZKP_ARRAY_LEN(units); k++)
            if (ieq(s + u0, ul, units[k].u)) break;
        if (k == ZKP_ARRAY_LEN(units)) return ZKPIPE_ERR_PARSE;
        m = units[k].m;
    }
    if (r == 2 || __builtin_mul_overflow(v, m, &v)) return ZKPIPE_ERR_OUT_OF_RANGE;
    *out = v;
    return ZKPIPE_OK;
}

/* ---- parsed values --------------------------------------------------- */

typedef enum { PV_STR, PV_INT, PV_BOOL, PV_ARR } pv_kind;
typedef struct {
    pv_kind k;
    char *s;
    int64_t i; /* PV_INT, PV_BOOL */
    int int_overflow;
    char **arr;
    size_t n;
} pval;

static void pval_clear(pval *p) {
    free(p->s);
    for (size_t i = 0; i < p->n; i++) free(p->arr[i]);
    free(p->arr);
    memset(p, 0, sizeof *p);
}

static const char *kind_name(pv_kind k) {
    switch (k) {
    case PV_STR: return "a string";
    case PV_INT: return "an integer";
    case PV_BOOL: return "a boolean";
    case PV_ARR: return "an array";
    }
    return "?";
}
static const char *type_name(zkp_cfg_type t) {
    switch (t) {
    case ZKP_CFG_STRING: return "a string";
    case ZKP_CFG_INT: return "an integer";
    case ZKP_CFG_BOOL: return "a boolean";
    case ZKP_CFG_SIZE: return "a size (integer bytes or a string like \"64GiB\")";
    case ZKP_CFG_STRINGS: return "an array of strings";
    }
    return "?";
}

/* Strings may hold tab and newline but no other control characters (so
 * that a dump can always write them back). */
static int bad_char(const char *s) {
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if ((c < 0x20 && c != '\t' && c != '\n') || c == 0x7f) return c;
    }
    return -1;
}

static zkpipe_status check_keys_item(const char *s) {
    const char *eq = strchr(s, '=');
    return (eq && eq != s && eq[1] != '\0') ? ZKPIPE_OK : ZKPIPE_ERR_INVALID_ARGUMENT;
}

/* Converts a parsed value into key id's slot of cfg. where: message prefix. */
static zkpipe_status assign(zkp_config *cfg, int id, pval *p, zkp_cfg_source src,
                            const char *origin, const char *where, zkp_diag *d) {
    const zkp_cfg_key *k = &KEYS[id];
    cfg_val nv;
    memset(&nv, 0, sizeof nv);
    switch (k->type) {
    case ZKP_CFG_STRING:
        if (p->k != PV_STR) goto wrong_type;
        if (bad_char(p->s) >= 0)
            return zkp_diag_fail(d, ZKPIPE_ERR_INVALID_ARGUMENT,
                                 "%s: key '%s': control character 0x%02x in string", where, k->name,
                                 bad_char(p->s));
        if (id == ZKP_CFG_QUEUE_NOTIFY && strcmp(p->s, "on") != 0 && strcmp(p->s, "off") != 0)
            return zkp_diag_fail(d, ZKPIPE_ERR_INVALID_ARGUMENT,
                                 "%s: key '%s': \"%.32s\" is neither \"on\" nor \"off\"", where,
                                 k->name, p->s);
        nv.str = p->s;
        p->s = NULL;
        break;
    case ZKP_CFG_BOOL:
        if (p->k != PV_BOOL) goto wrong_type;
        nv.num = p->i;
        break;
    case ZKP_CFG_INT:
        if (p->k != PV_INT) goto wrong_type;
        if (p->int_overflow || p->i < k->min || p->i > k->max)
            return zkp_diag_fail(d, ZKPIPE_ERR_OUT_OF_RANGE,
                                 "%s: key '%s': value %s, allowed %lld to %lld", where, k->name,
                                 p->int_overflow ? "does not fit 64 bits" : "out of range",
                                 (long long)k->min, (long long)k->max);
        nv.num = p->i;
        break;
    case ZKP_CFG_SIZE: {
        uint64_t u;
        if (p->k == PV_INT) {
            if (p->int_overflow || p->i < 0)
                return zkp_diag_fail(d, ZKPIPE_ERR_OUT_OF_RANGE,
                                     "%s: key '%s': size %s", where, k->name,
                                     p->int_overflow ? "does not fit 64 bits" : "is negative");
            u = (uint64_t)p->i;
        } else if (p->k == PV_STR) {
            zkpipe_status st = zkp_config_parse_size(p->s, strlen(p->s), &u);
            if (st == ZKPIPE_ERR_PARSE)
                return zkp_diag_fail(d, st,
                                     "%s: key '%s': malformed size \"%.64s\" (want digits and a "
                                     "unit: B, KiB, MiB, GiB, TiB, KB, MB, GB, TB)",
                                     where, k->name, p->s);
            if (st != ZKPIPE_OK)
                return zkp_diag_fail(d, st, "%s: key '%s': size \"%.64s\" does not fit 64 bits",
                                     where, k->name, p->s);
        } else {
            goto wrong_type;
        }
        if (u < k->umin || u > k->umax)
            return zkp_diag_fail(d, ZKPIPE_ERR_OUT_OF_RANGE,
                                 "%s: key '%s': size %llu out of range, allowed %llu to %llu bytes",
                                 where, k->name, (unsigned long long)u,
                                 (unsigned long long)k->umin, (unsigned long long)k->umax);
        nv.num = (int64_t)u;
        break;
    }
    case ZKP_CFG_STRINGS:
        if (p->k != PV_ARR) goto wrong_type;
        for (size_t i = 0; i < p->n; i++) {
            if (bad_char(p->arr[i]) >= 0)
                return zkp_diag_fail(d, ZKPIPE_ERR_INVALID_ARGUMENT,
                                     "%s: key '%s': control character in item %zu", where,
                                     k->name, i + 1);
            if (id == ZKP_CFG_SERVER_KEYS && check_keys_item(p->arr[i]) != ZKPIPE_OK)
                return zkp_diag_fail(d, ZKPIPE_ERR_INVALID_ARGUMENT,
                                     "%s: key '%s': item %zu \"%.64s\" is not \"name=path\"",
                                     where, k->name, i + 1, p->arr[i]);
        }
        nv.arr = p->arr;
        nv.n = p->n;
        p->arr = NULL;
        p->n = 0;
        break;
    }
    nv.src = src;
    {
        size_t ol = strlen(origin);
        if (ol >= sizeof nv.origin) ol = sizeof nv.origin - 1;
        memcpy(nv.origin, origin, ol);
        nv.origin[ol] = '\0';
    }
    val_clear(&cfg->v[id]);
    cfg->v[id] = nv;
    return ZKPIPE_OK;
wrong_type:
    return zkp_diag_fail(d, ZKPIPE_ERR_INVALID_ARGUMENT, "%s: key '%s' takes %s, not %s", where,
                         k->name, type_name(k->type), kind_name(p->k));
}

/* ---- the TOML-subset lexer ------------------------------------------- */

typedef struct {
    const char *p, *end, *line_start;
    unsigned line;
    const char *origin;
    zkp_diag *d;
} lexer;

static unsigned col(const lexer *L, const char *at) { return (unsigned)(at - L->line_start) + 1; }

#define FAIL_AT(L, at, st, ...)                                                               \
    fail_at((L), (at), (st), __VA_ARGS__)

static zkpipe_status fail_at(lexer *L, const char *at, zkpipe_status st, const char *fmt, ...)
    ZKP_PRINTF(4, 5);
static zkpipe_status fail_at(lexer *L, const char *at, zkpipe_status st, const char *fmt, ...) {
    if (!L->d) return st;
    char msg[ZKP_DIAG_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return zkp_diag_fail(L->d, st, "%s:%u:%u: %s", L->origin, L->line, col(L, at), msg);
}

static int is_bare(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '-';
}

static void skip_ws(lexer *L) {
    while (L->p < L->end && (*L->p == ' ' || *L->p == '\t')) L->p++;
}

/* At a newline ("\n" or "\r\n")? Returns its length, 0 if none. */
static size_t newline_len(const lexer *L) {
    if (L->p < L->end && *L->p == '\n') return 1;
    if (L->end - L->p >= 2 && L->p[0] == '\r' && L->p[1] == '\n') return 2;
    return 0;
}

static void eat_newline(lexer *L, size_t n) {
    L->p += n;
    L->line++;
    L->line_start = L->p;
}

static void skip_comment(lexer *L) {
    while (L->p < L->end && *L->p != '\n' && *L->p != '\r') L->p++;
}

/* After a header or value: spaces, an optional comment, then end of line. */
static zkpipe_status end_of_line(lexer *L) {
    skip_ws(L);
    if (L->p < L->end && *L->p == '#') skip_comment(L);
    if (L->p == L->end) return ZKPIPE_OK;
    size_t n = newline_len(L);
    if (n) {
        eat_newline(L, n);
        return ZKPIPE_OK;
    }
    unsigned char c = (unsigned char)*L->p;
    if (c >= 0x21 && c < 0x7f)
        return FAIL_AT(L, L->p, ZKPIPE_ERR_PARSE, "expected end of line, found '%c'", c);
    return FAIL_AT(L, L->p, ZKPIPE_ERR_PARSE, "expected end of line, found byte 0x%02x", c);
}

/* A "string" at L->p into *out. */
static zkpipe_status lex_string(lexer *L, char **out) {
    const char *start = L->p++;
    size_t n = 0;
    const char *q = L->p;
    for (;;) {
        if (q == L->end || *q == '\n' || *q == '\r')
            return FAIL_AT(L, start, ZKPIPE_ERR_PARSE, "unterminated string");
        unsigned char c = (unsigned char)*q;
        if (c == '"') break;
        if (c == '\\') {
            if (q + 1 == L->end)
                return FAIL_AT(L, start, ZKPIPE_ERR_PARSE, "unterminated string");
            char e = q[1];
            if (e != '"' && e != '\\' && e != 'n' && e != 't') {
                unsigned char ue = (unsigned char)e;
                if (ue >= 0x21 && ue < 0x7f)
                    return FAIL_AT(L, q, ZKPIPE_ERR_PARSE,
                                   "unknown escape '\\%c' (allowed: \\\" \\\\ \\n \\t)", e);
                return FAIL_AT(L, q, ZKPIPE_ERR_PARSE, "unknown escape (allowed: \\\" \\\\ \\n \\t)");
            }
            q += 2;
        } else if ((c < 0x20 && c != '\t') || c == 0x7f) {
            return FAIL_AT(L, q, ZKPIPE_ERR_PARSE, "control character 0x%02x in string", c);
        } else {
            q++;
        }
        n++;
    }
    char *s = malloc(n + 1);
    if (!s) return ZKPIPE_ERR_NO_MEMORY;
    size_t o = 0;
    for (const char *r = L->p; r < q;) {
        if (*r == '\\') {
            char e = r[1];
            s[o++] = e == 'n' ? '\n' : e == 't' ? '\t' : e;
            r += 2;
        } else {
            s[o++] = *r++;
        }
    }
    s[o] = '\0';
    L->p = q + 1;
    *out = s;
    return ZKPIPE_OK;
}

/* Skips spaces, newlines and comments inside an array. */
static void skip_array_space(lexer *L) {
    for (;;) {
        skip_ws(L);
        if (L->p < L->end && *L->p == '#') skip_comment(L);
        size_t n = newline_len(L);
        if (!n) return;
        eat_newline(L, n);
    }
}

static zkpipe_status lex_value(lexer *L, const char *key, pval *out) {
    memset(out, 0, sizeof *out);
    if (L->p == L->end || newline_len(L) || *L->p == '#')
        return FAIL_AT(L, L->p, ZKPIPE_ERR_PARSE, "key '%s': missing value after '='", key);
    char c = *L->p;
    if (c == '"') {
        out->k = PV_STR;
        return lex_string(L, &out->s);
    }
    if (c == '[') {
        unsigned open_line = L->line;
        L->p++;
        out->k = PV_ARR;
        size_t cap = 0;
        for (;;) {
            skip_array_space(L);
            if (L->p == L->end)
                return FAIL_AT(L, L->p, ZKPIPE_ERR_PARSE,
                               "key '%s': unterminated array (opened on line %u)", key, open_line);
            if (*L->p == ']') {
                L->p++;
                return ZKPIPE_OK;
            }
            if (*L->p != '"') {
                char e = *L->p;
                if ((e >= '0' && e <= '9') || e == '+' || e == '-' || e == 't' || e == 'f' ||
                    e == '[')
                    return FAIL_AT(L, L->p, ZKPIPE_ERR_INVALID_ARGUMENT,
                                   "key '%s': array items must be strings", key);
                return FAIL_AT(L, L->p, ZKPIPE_ERR_PARSE,
                               "key '%s': expected a string or ']' in array", key);
            }
            if (out->n == ZKP_CONFIG_MAX_ARRAY)
                return FAIL_AT(L, L->p, ZKPIPE_ERR_OUT_OF_RANGE,
                               "key '%s': more than %d array items", key, ZKP_CONFIG_MAX_ARRAY);
            if (out->n == cap) {
                size_t nc = cap ? cap * 2 : 4;
                char **na = realloc(out->arr, nc * sizeof *na);
                if (!na) return ZKPIPE_ERR_NO_MEMORY;
                out->arr = na;
                cap = nc;
            }
            zkpipe_status st = lex_string(L, &out->arr[out->n]);
            if (st != ZKPIPE_OK) return st;
            out->n++;
            skip_array_space(L);
            if (L->p < L->end && *L->p == ',') {
                L->p++;
                continue;
            }
            if (L->p < L->end && *L->p == ']') continue;
            return FAIL_AT(L, L->p, ZKPIPE_ERR_PARSE,
                           "key '%s': expected ',' or ']' in array", key);
        }
    }
    const char *t0 = L->p;
    const char *t = t0;
    while (t < L->end && (is_bare(*t) || *t == '.' || *t == '+')) t++;
    size_t tl = (size_t)(t - t0);
    if (tl == 4 && memcmp(t0, "true", 4) == 0) {
        out->k = PV_BOOL;
        out->i = 1;
    } else if (tl == 5 && memcmp(t0, "false", 5) == 0) {
        out->k = PV_BOOL;
        out->i = 0;
    } else if (tl > 0 && ((t0[0] >= '0' && t0[0] <= '9') || t0[0] == '+' || t0[0] == '-')) {
        int neg = t0[0] == '-';
        size_t skip = (t0[0] == '+' || t0[0] == '-') ? 1 : 0;
        uint64_t u = 0;
        int r = parse_u64(t0 + skip, tl - skip, &u);
        if (r == 1) {
            /* a unit-suffixed size written bare is the common mistake */
            return FAIL_AT(L, t0, ZKPIPE_ERR_PARSE,
                           "key '%s': malformed number '%.*s' (sizes with units must be quoted: "
                           "\"64GiB\")",
                           key, (int)(tl > 40 ? 40 : tl), t0);
        }
        out->k = PV_INT;
        if (r == 2 || u > (uint64_t)INT64_MAX + (uint64_t)neg) {
            out->int_overflow = 1;
        } else if (neg) {
            out->i = u == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)u;
        } else {
            out->i = (int64_t)u;
        }
    } else {
        unsigned char uc = (unsigned char)c;
        if (uc >= 0x21 && uc < 0x7f)
            return FAIL_AT(L, t0, ZKPIPE_ERR_PARSE,
                           "key '%s': expected a value (string, integer, true/false or array), "
                           "found '%c'",
                           key, c);
        return FAIL_AT(L, t0, ZKPIPE_ERR_PARSE, "key '%s': expected a value, found byte 0x%02x",
                       key, uc);
    }
    L->p = t;
    return ZKPIPE_OK;
}

static zkpipe_status parse_text(zkp_config *cfg, const char *text, size_t len, const char *origin,
                                zkp_diag *d) {
    lexer L = {text, text + len, text, 1, origin, d};
    char section[16] = "";
    unsigned set_line[ZKP_CFG_KEY_COUNT] = {0};
    while (L.p < L.end) {
        skip_ws(&L);
        if (L.p == L.end) break;
        size_t nl = newline_len(&L);
        if (nl) {
            eat_newline(&L, nl);
            continue;
        }
        char c = *L.p;
        if (c == '#') {
            skip_comment(&L);
            continue;
        }
        zkpipe_status st;
        if (c == '[') {
            const char *open = L.p++;
            if (L.p < L.end && *L.p == '[')
                return FAIL_AT(&L, open, ZKPIPE_ERR_PARSE, "array tables [[...]] are not supported");
            skip_ws(&L);
            const char *n0 = L.p;
            while (L.p < L.end && (is_bare(*L.p) || *L.p == '.')) L.p++;
            size_t nlen = (size_t)(L.p - n0);
            skip_ws(&L);
            if (nlen == 0 || L.p == L.end || *L.p != ']')
                return FAIL_AT(&L, open, ZKPIPE_ERR_PARSE, "malformed section header");
            L.p++;
            size_t k;
            for (k = 0; k < ZKP_ARRAY_LEN(SECTIONS); k++)
                if (strlen(SECTIONS[k]) == nlen && memcmp(SECTIONS[k], n0, nlen) == 0) break;
            if (k == ZKP_ARRAY_LEN(SECTIONS))
                return FAIL_AT(&L, n0, ZKPIPE_ERR_INVALID_ARGUMENT,
                               "unknown section [%.*s] (known: server, engine, metrics)",
                               (int)(nlen > 64 ? 64 : nlen), n0);
            memcpy(section, n0, nlen);
            section[nlen] = '\0';
        } else if (is_bare(c)) {
            const char *k0 = L.p;
            while (L.p < L.end && (is_bare(*L.p) || *L.p == '.')) L.p++;
            size_t klen = (size_t)(L.p - k0);
            char full[160];
            int fl;
            if (section[0])
                fl = snprintf(full, sizeof full, "%s.%.*s", section, (int)(klen > 128 ? 128 : klen),
                              k0);
            else
                fl = snprintf(full, sizeof full, "%.*s", (int)(klen > 128 ? 128 : klen), k0);
            int id = klen > 128 || fl < 0 ? -1 : zkp_config_find(full);
            skip_ws(&L);
            if (L.p == L.end || *L.p != '=')
                return FAIL_AT(&L, L.p, ZKPIPE_ERR_PARSE, "expected '=' after key '%s'", full);
            if (id < 0)
                return FAIL_AT(&L, k0, ZKPIPE_ERR_INVALID_ARGUMENT, "unknown key '%s'", full);
            if (set_line[id])
                return FAIL_AT(&L, k0, ZKPIPE_ERR_INVALID_ARGUMENT,
                               "key '%s' is set twice (first on line %u)", full, set_line[id]);
            unsigned key_line = L.line;
            const char *key_at = k0;
            const char *key_ls = L.line_start;
            L.p++;
            skip_ws(&L);
            pval pv;
            st = lex_value(&L, full, &pv);
            if (st != ZKPIPE_OK) {
                pval_clear(&pv);
                return st;
            }
            char where[ZKP_DIAG_MAX / 2], org[200];
            int w1 = snprintf(where, sizeof where, "%s:%u:%u", origin, key_line,
                              (unsigned)(key_at - key_ls) + 1);
            int w2 = snprintf(org, sizeof org, "%s:%u", origin, key_line);
            (void)w1;
            (void)w2;
            st = assign(cfg, id, &pv, ZKP_CFG_SRC_FILE, org, where, d);
            pval_clear(&pv);
            if (st != ZKPIPE_OK) return st;
            set_line[id] = key_line;
        } else {
            unsigned char uc = (unsigned char)c;
            if (uc >= 0x21 && uc < 0x7f)
                return FAIL_AT(&L, L.p, ZKPIPE_ERR_PARSE, "unexpected '%c' at start of line", c);
            return FAIL_AT(&L, L.p, ZKPIPE_ERR_PARSE, "unexpected byte 0x%02x", uc);
        }
        st = end_of_line(&L);
        if (st != ZKPIPE_OK) return st;
    }
    return ZKPIPE_OK;
}

/* Swaps the edited copy tmp into cfg on success, drops it on failure. */
static zkpipe_status commit(zkp_config *cfg, zkp_config *tmp, zkpipe_status st) {
    if (st == ZKPIPE_OK) {
        cfg_clear(cfg);
        *cfg = *tmp;
    } else {
        cfg_clear(tmp);
    }
    return st;
}

zkpipe_status zkp_config_load_text(zkp_config *cfg, const char *text, size_t len,
                                   const char *origin, zkp_diag *d) {
    if (!origin) origin = "<config>";
    if (len > ZKP_CONFIG_MAX_INPUT)
        return zkp_diag_fail(d, ZKPIPE_ERR_OUT_OF_RANGE,
                             "%s: %zu bytes, more than the limit of %zu", origin, len,
                             ZKP_CONFIG_MAX_INPUT);
    if (len && memchr(text, '\0', len)) {
        const char *z = memchr(text, '\0', len);
        unsigned line = 1;
        const char *ls = text;
        for (const char *q = text; q < z; q++)
            if (*q == '\n') {
                line++;
                ls = q + 1;
            }
        return zkp_diag_fail(d, ZKPIPE_ERR_PARSE, "%s:%u:%u: NUL byte in config", origin, line,
                             (unsigned)(z - ls) + 1);
    }
    zkp_config tmp;
    zkpipe_status st = cfg_copy(&tmp, cfg);
    if (st != ZKPIPE_OK) return st;
    return commit(cfg, &tmp, parse_text(&tmp, text, len, origin, d));
}

zkpipe_status zkp_config_load_file(zkp_config *cfg, const char *path, zkp_diag *d) {
    FILE *f = fopen(path, "rb");
    if (!f) return zkp_diag_fail(d, ZKPIPE_ERR_IO, "%s: %s", path, strerror(errno));
    char *buf = malloc(ZKP_CONFIG_MAX_INPUT + 1);
    if (!buf) {
        fclose(f);
        return ZKPIPE_ERR_NO_MEMORY;
    }
    size_t n = fread(buf, 1, ZKP_CONFIG_MAX_INPUT + 1, f);
    int err = ferror(f);
    fclose(f);
    zkpipe_status st;
    if (err)
        st = zkp_diag_fail(d, ZKPIPE_ERR_IO, "%s: read error", path);
    else if (n > ZKP_CONFIG_MAX_INPUT)
        st = zkp_diag_fail(d, ZKPIPE_ERR_OUT_OF_RANGE, "%s: larger than the limit of %zu bytes",
                           path, ZKP_CONFIG_MAX_INPUT);
    else
        st = zkp_config_load_text(cfg, buf, n, path, d);
    free(buf);
    return st;
}

/* ---- plain-text values (environment, --set) -------------------------- */

static zkpipe_status parse_plain(zkp_config *cfg, int id, const char *text, zkp_cfg_source src,
                                 const char *origin, const char *where, zkp_diag *d) {
    const zkp_cfg_key *k = &KEYS[id];
    size_t len = strlen(text);
    if (len > ZKP_CONFIG_MAX_INPUT)
        return zkp_diag_fail(d, ZKPIPE_ERR_OUT_OF_RANGE, "%s: value longer than %zu bytes", where,
                             ZKP_CONFIG_MAX_INPUT);
    pval pv;
    memset(&pv, 0, sizeof pv);
    zkpipe_status st = ZKPIPE_OK;
    if ((k->type == ZKP_CFG_STRINGS && text[0] == '[') ||
        (k->type == ZKP_CFG_STRING && text[0] == '"')) {
        /* TOML syntax: the whole value must be one TOML value */
        lexer L = {text, text + len, text, 1, where, d};
        st = lex_value(&L, k->name, &pv);
        if (st == ZKPIPE_OK) {
            skip_ws(&L);
            if (L.p != L.end)
                st = FAIL_AT(&L, L.p, ZKPIPE_ERR_PARSE, "key '%s': text after the value", k->name);
        }
    } else {
        switch (k->type) {
        case ZKP_CFG_STRING:
        case ZKP_CFG_SIZE:
            pv.k = PV_STR;
            if (!(pv.s = dup_n(text, len))) st = ZKPIPE_ERR_NO_MEMORY;
            break;
        case ZKP_CFG_BOOL:
            pv.k = PV_BOOL;
            if (ieq(text, len, "true") || ieq(text, len, "1") || ieq(text, len, "yes") ||
                ieq(text, len, "on"))
                pv.i = 1;
            else if (ieq(text, len, "false") || ieq(text, len, "0") || ieq(text, len, "no") ||
                     ieq(text, len, "off"))
                pv.i = 0;
            else
                st = zkp_diag_fail(d, ZKPIPE_ERR_PARSE,
                                   "%s: key '%s': \"%.32s\" is not a boolean (true/false)", where,
                                   k->name, text);
            break;
        case ZKP_CFG_INT: {
            pv.k = PV_INT;
            int neg = text[0] == '-';
            size_t skip = (text[0] == '-' || text[0] == '+') ? 1 : 0;
            uint64_t u = 0;
            int r = parse_u64(text + skip, len - skip, &u);
            if (r == 1)
                st = zkp_diag_fail(d, ZKPIPE_ERR_PARSE, "%s: key '%s': \"%.32s\" is not an integer",
                                   where, k->name, text);
            else if (r == 2 || u > (uint64_t)INT64_MAX + (uint64_t)neg)
                pv.int_overflow = 1;
            else
                pv.i = neg ? (u == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)u) : (int64_t)u;
            break;
        }
        case ZKP_CFG_STRINGS: {
            pv.k = PV_ARR;
            size_t cap = 0;
            const char *s = text;
            while (len && st == ZKPIPE_OK) {
                const char *comma = strchr(s, ',');
                const char *e = comma ? comma : s + strlen(s);
                const char *a = s, *b = e;
                while (a < b && (*a == ' ' || *a == '\t')) a++;
                while (b > a && (b[-1] == ' ' || b[-1] == '\t')) b--;
                if (pv.n == ZKP_CONFIG_MAX_ARRAY) {
                    st = zkp_diag_fail(d, ZKPIPE_ERR_OUT_OF_RANGE,
                                       "%s: key '%s': more than %d items", where, k->name,
                                       ZKP_CONFIG_MAX_ARRAY);
                    break;
                }
                if (pv.n == cap) {
                    size_t nc = cap ? cap * 2 : 4;
                    char **na = realloc(pv.arr, nc * sizeof *na);
                    if (!na) {
                        st = ZKPIPE_ERR_NO_MEMORY;
                        break;
                    }
                    pv.arr = na;
                    cap = nc;
                }
                if (!(pv.arr[pv.n] = dup_n(a, (size_t)(b - a)))) {
                    st = ZKPIPE_ERR_NO_MEMORY;
                    break;
                }
                pv.n++;
                if (!comma) break;
                s = comma + 1;
            }
            break;
        }
        }
    }
    if (st == ZKPIPE_OK) st = assign(cfg, id, &pv, src, origin, where, d);
    pval_clear(&pv);
    return st;
}

static const char *env_get(const char *const *envp, const char *name) {
    if (!envp) return getenv(name);
    size_t nl = strlen(name);
    for (; *envp; envp++)
        if (strncmp(*envp, name, nl) == 0 && (*envp)[nl] == '=') return *envp + nl + 1;
    return NULL;
}

zkpipe_status zkp_config_load_env(zkp_config *cfg, const char *const *envp, zkp_diag *d) {
    zkp_config tmp;
    zkpipe_status st = cfg_copy(&tmp, cfg);
    if (st != ZKPIPE_OK) return st;
    for (int i = 0; i < ZKP_CFG_KEY_COUNT && st == ZKPIPE_OK; i++) {
        char name[64], where[96];
        zkp_config_env_name((zkp_cfg_id)i, name, sizeof name);
        const char *v = env_get(envp, name);
        if (!v) continue;
        int w = snprintf(where, sizeof where, "environment %s", name);
        (void)w;
        st = parse_plain(&tmp, i, v, ZKP_CFG_SRC_ENV, name, where, d);
    }
    return commit(cfg, &tmp, st);
}

zkpipe_status zkp_config_apply_sets(zkp_config *cfg, const char *const *sets, size_t n,
                                    zkp_diag *d) {
    zkp_config tmp;
    zkpipe_status st = cfg_copy(&tmp, cfg);
    if (st != ZKPIPE_OK) return st;
    for (size_t i = 0; i < n && st == ZKPIPE_OK; i++) {
        const char *s = sets[i];
        const char *eq = strchr(s, '=');
        char where[160];
        if (!eq) {
            st = zkp_diag_fail(d, ZKPIPE_ERR_PARSE, "--set %.64s: expected key=value", s);
            break;
        }
        const char *a = s, *b = eq;
        while (a < b && (*a == ' ' || *a == '\t')) a++;
        while (b > a && (b[-1] == ' ' || b[-1] == '\t')) b--;
        int id = find_n(a, (size_t)(b - a));
        int w = snprintf(where, sizeof where, "--set %.*s", (int)((b - a) > 64 ? 64 : (b - a)), a);
        (void)w;
        if (id < 0) {
            st = zkp_diag_fail(d, ZKPIPE_ERR_INVALID_ARGUMENT, "%s: unknown key '%.*s'", where,
                               (int)((b - a) > 64 ? 64 : (b - a)), a);
            break;
        }
        st = parse_plain(&tmp, id, eq + 1, ZKP_CFG_SRC_CLI, "--set", where, d);
    }
    return commit(cfg, &tmp, st);
}

zkpipe_status zkp_config_resolve(zkp_config **out, const zkp_config_sources *src, zkp_diag *d) {
    *out = NULL;
    zkp_config *c;
    zkpipe_status st = zkp_config_new(&c);
    if (st != ZKPIPE_OK) return st;
    if (src && src->file) st = zkp_config_load_file(c, src->file, d);
    if (st == ZKPIPE_OK && src && src->use_env) st = zkp_config_load_env(c, src->envp, d);
    if (st == ZKPIPE_OK && src && src->n_sets)
        st = zkp_config_apply_sets(c, src->sets, src->n_sets, d);
    if (st != ZKPIPE_OK) {
        zkp_config_free(c);
        return st;
    }
    *out = c;
    return ZKPIPE_OK;
}

/* ---- dump ------------------------------------------------------------ */

typedef struct {
    char *b;
    size_t n, cap;
    int oom;
} sbuf;

static void sb_printf(sbuf *s, const char *fmt, ...) ZKP_PRINTF(2, 3);
static void sb_printf(sbuf *s, const char *fmt, ...) {
    if (s->oom) return;
    va_list ap;
    va_start(ap, fmt);
    int need = vsnprintf(s->b ? s->b + s->n : NULL, s->b ? s->cap - s->n : 0, fmt, ap);
    va_end(ap);
    if (need < 0) {
        s->oom = 1;
        return;
    }
    if (s->b && (size_t)need < s->cap - s->n) {
        s->n += (size_t)need;
        return;
    }
    size_t nc = s->cap ? s->cap : 256;
    while (nc - s->n <= (size_t)need) nc *= 2;
    char *nb = realloc(s->b, nc);
    if (!nb) {
        s->oom = 1;
        return;
    }
    s->b = nb;
    s->cap = nc;
    va_start(ap, fmt);
    vsnprintf(s->b + s->n, s->cap - s->n, fmt, ap);
    va_end(ap);
    s->n += (size_t)need;
}

static void sb_quoted(sbuf *s, const char *str) {
    sb_printf(s, "\"");
    for (; *str; str++) {
        char c = *str;
        if (c == '"') sb_printf(s, "\\\"");
        else if (c == '\\') sb_printf(s, "\\\\");
        else if (c == '\n') sb_printf(s, "\\n");
        else if (c == '\t') sb_printf(s, "\\t");
        else sb_printf(s, "%c", c);
    }
    sb_printf(s, "\"");
}

static void sb_size(sbuf *s, uint64_t v) {
    static const char *const u[] = {"TiB", "GiB", "MiB", "KiB"};
    for (int i = 0; i < 4; i++) {
        int sh = 40 - 10 * i;
        if (v && (v & ((1ull << sh) - 1)) == 0) {
            sb_printf(s, "\"%llu%s\"", (unsigned long long)(v >> sh), u[i]);
            return;
        }
    }
    sb_printf(s, "%llu", (unsigned long long)v);
}

char *zkp_config_dump(const zkp_config *cfg, unsigned flags) {
    sbuf s = {0};
    sb_printf(&s, "# zkpipe configuration\n");
    const char *cur = "";
    size_t curlen = 0;
    for (int i = 0; i < ZKP_CFG_KEY_COUNT; i++) {
        const zkp_cfg_key *k = &KEYS[i];
        const char *dot = strchr(k->name, '.');
        size_t sl = (size_t)(dot - k->name);
        if (sl != curlen || memcmp(cur, k->name, sl) != 0) {
            sb_printf(&s, "\n[%.*s]\n", (int)sl, k->name);
            cur = k->name;
            curlen = sl;
        }
        const cfg_val *v = &cfg->v[i];
        if (flags & ZKP_CONFIG_DUMP_HELP) sb_printf(&s, "# %s\n", k->help);
        sb_printf(&s, "%s = ", dot + 1);
        switch (k->type) {
        case ZKP_CFG_STRING: sb_quoted(&s, v->str ? v->str : ""); break;
        case ZKP_CFG_INT: sb_printf(&s, "%lld", (long long)v->num); break;
        case ZKP_CFG_BOOL: sb_printf(&s, "%s", v->num ? "true" : "false"); break;
        case ZKP_CFG_SIZE: sb_size(&s, (uint64_t)v->num); break;
        case ZKP_CFG_STRINGS:
            sb_printf(&s, "[");
            for (size_t j = 0; j < v->n; j++) {
                if (j) sb_printf(&s, ", ");
                sb_quoted(&s, v->arr[j]);
            }
            sb_printf(&s, "]");
            break;
        }
        if (flags & ZKP_CONFIG_DUMP_SOURCES) {
            if (v->src == ZKP_CFG_SRC_DEFAULT) sb_printf(&s, "  # default");
            else sb_printf(&s, "  # %s %s", zkp_config_source_name(v->src), v->origin);
        }
        sb_printf(&s, "\n");
    }
    if (s.oom) {
        free(s.b);
        return NULL;
    }
    return s.b;
}

zkpipe_status zkp_config_print(const zkp_config *cfg, FILE *f) {
    char *t = zkp_config_dump(cfg, ZKP_CONFIG_DUMP_SOURCES | ZKP_CONFIG_DUMP_HELP);
    if (!t) return ZKPIPE_ERR_NO_MEMORY;
    int r = fputs(t, f);
    free(t);
    return r < 0 ? ZKPIPE_ERR_IO : ZKPIPE_OK;
}
