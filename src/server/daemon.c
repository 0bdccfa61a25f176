/* zkpipe serve: start-up, the job table in front of the engine, listening,
 * signals and draining (daemon.h).
 *
 * Lock order: the daemon lock, then the engine's. The collector thread takes
 * results out of the engine (zkpipe_engine_await_any, which holds no lock of
 * ours) and files them under the daemon lock, so a job's engine id is set in
 * the same critical section as its submission and a result can never arrive
 * for a job the table does not know yet. */
#include "server/daemon.h"

#include <errno.h>
#include <limits.h>
#include <protobuf-c/protobuf-c.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "filecoin/c1.h"
#include "filecoin/porep_circuit.h"
#include "formats/filecoin_params.h"
#include "server/cluster.h"
#include "server/daemon_internal.h"
#include "server/keydirs.h"
#include "mem/mem.h"
#include "server/svc_common.h"
#include "server/tcpsec.h"
#include "util/clock.h"
#include "util/rand.h"

static const char *const KIND_NAMES[SRV_KIND_COUNT] = {
    "circom", "porep_seal_commit", "snap_deals_update", "window_post_partition", "winning_post"};

const char *srv_kind_name(srv_kind k) { return (unsigned)k < SRV_KIND_COUNT ? KIND_NAMES[k] : "?"; }

double srv_now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

int srv_tcp_is_loopback(const char *addr) {
    if (!addr) return 0;
    if (strncmp(addr, "ipv4:", 5) == 0 || strncmp(addr, "ipv6:", 5) == 0) addr += 5;
    char host[256];
    const char *colon;
    if (addr[0] == '[') {
        const char *end = strchr(addr, ']');
        if (!end || end[1] != ':' || (size_t)(end - addr - 1) >= sizeof host) return 0;
        memcpy(host, addr + 1, (size_t)(end - addr - 1));
        host[end - addr - 1] = 0;
        return strcmp(host, "::1") == 0;
    }
    colon = strrchr(addr, ':');
    if (!colon || (size_t)(colon - addr) >= sizeof host) return 0;
    memcpy(host, addr, (size_t)(colon - addr));
    host[colon - addr] = 0;
    if (strcmp(host, "localhost") == 0) return 1;
    /* 127.a.b.c, each part a decimal byte. */
    unsigned a, b, c, e;
    char tail;
    return sscanf(host, "%u.%u.%u.%u%c", &a, &b, &c, &e, &tail) == 4 && a == 127 && b < 256 &&
           c < 256 && e < 256 && strspn(host, "0123456789.") == strlen(host);
}

void srv_format_id(char out[SRV_ID_TEXT_MAX], uint64_t epoch, uint64_t seq) {
    snprintf(out, SRV_ID_TEXT_MAX, "%016llx-%llu", (unsigned long long)epoch,
             (unsigned long long)seq);
}

uint64_t srv_parse_id(const char *s, uint64_t epoch) {
    if (!s || strlen(s) < 18 || strlen(s) > 16 + 1 + 19 || s[16] != '-') return 0;
    uint64_t e = 0;
    for (int i = 0; i < 16; i++) {
        char c = s[i];
        unsigned v = c >= '0' && c <= '9'   ? (unsigned)(c - '0')
                     : c >= 'a' && c <= 'f' ? (unsigned)(c - 'a' + 10)
                                            : 16u; /* lower case only: one spelling per id */
        if (v > 15) return 0;
        e = e << 4 | v;
    }
    if (e != epoch) return 0;
    uint64_t v = 0;
    for (const char *p = s + 17; *p; p++) {
        if (*p < '0' || *p > '9') return 0;
        v = v * 10 + (uint64_t)(*p - '0');
    }
    /* One spelling per id: no leading zeros. */
    return s[17] == '0' ? 0 : v;
}

/* ------------------------------------------------------------------------
 * Keys */

static int key_name_ok_(const char *name) {
    size_t n = strlen(name);
    if (n == 0 || n > SRV_KEY_NAME_MAX) return 0;
    for (const char *p = name; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
              *p == '-' || *p == '_' || *p == '.'))
            return 0;
    return 1;
}

/* srv_key_register for a zkey (porep_proof 0) or, with the registered
 * proof's number, a Filecoin PoRep parameter file. */
static zkp_rpc_code key_register_(zkp_daemon *d, const char *name, const char *path,
                                  int from_client, uint64_t porep_proof, int *again,
                                  uint64_t *file_bytes, uint32_t *engine_id, char *msg,
                                  size_t msg_len) {
    *again = 0;
    *file_bytes = 0;
    if (!key_name_ok_(name)) {
        snprintf(msg, msg_len, "key name '%.80s' must be 1 to %d characters of A-Z a-z 0-9 . _ -",
                 name, SRV_KEY_NAME_MAX);
        return ZKP_RPC_INVALID_ARGUMENT;
    }
    if (!path || !*path) {
        snprintf(msg, msg_len, "key '%s': no path given", name);
        return ZKP_RPC_INVALID_ARGUMENT;
    }
    char resolved[PATH_MAX];
    if (from_client) {
        /* Only files under server.key_dirs, by their resolved path: what
         * the engine opens is what was checked. */
        zkp_rpc_code c = srv_key_path_check((const char *const *)d->key_dirs, d->n_key_dirs, path,
                                            resolved, msg, msg_len);
        if (c != ZKP_RPC_OK) return c;
        path = resolved;
    }
    struct stat sb;
    if (stat(path, &sb) != 0) {
        snprintf(msg, msg_len, "%.200s: %s", path, strerror(errno));
        return ZKP_RPC_INVALID_ARGUMENT;
    }
    if (!S_ISREG(sb.st_mode)) {
        snprintf(msg, msg_len, "%.200s: not a regular file", path);
        return ZKP_RPC_INVALID_ARGUMENT;
    }
    pthread_mutex_lock(&d->lk);
    zkp_rpc_code code = ZKP_RPC_OK;
    if (d->draining) {
        pthread_mutex_unlock(&d->lk);
        snprintf(msg, msg_len, "the daemon is shutting down and registers no keys");
        return ZKP_RPC_UNAVAILABLE;
    }
    srv_key *k = NULL;
    for (size_t i = 0; i < d->n_keys; i++)
        if (strcmp(d->keys[i].name, name) == 0) k = &d->keys[i];
    if (k && strcmp(k->path, path) != 0) {
        snprintf(msg, msg_len, "key '%s' is registered already, for %.200s", name, k->path);
        pthread_mutex_unlock(&d->lk);
        return ZKP_RPC_ALREADY_EXISTS;
    }
    if (!k && d->n_keys == SRV_MAX_KEYS) {
        snprintf(msg, msg_len, "at most %d keys can be registered", SRV_MAX_KEYS);
        pthread_mutex_unlock(&d->lk);
        return ZKP_RPC_RESOURCE_EXHAUSTED;
    }
    char *copy = k ? NULL : strdup(path);
    uint32_t id = 0;
    zkpipe_status st = ZKPIPE_ERR_NO_MEMORY;
    /* Again for a known name: the engine binds the key to the file as it
     * is now (a changed file is taken up here, and only here). */
    if ((k || copy) && porep_proof)
        st = zkpipe_engine_register_porep_key(
            d->engine, &id, path, porep_proof,
            d->fil_check_subgroups);
    else if (k || copy)
        st = zkpipe_engine_register_key(d->engine, &id, path);
    if (st != ZKPIPE_OK) {
        if (st == ZKPIPE_ERR_NO_MEMORY) {
            snprintf(msg, msg_len, "out of memory");
            code = ZKP_RPC_RESOURCE_EXHAUSTED;
        } else if (k && st == ZKPIPE_ERR_INVALID_ARGUMENT) {
            snprintf(msg, msg_len, "key '%s': %.200s changed, and cannot be taken up while "
                     "partitions of the key run; try again when they are done", name, path);
            code = ZKP_RPC_FAILED_PRECONDITION;
        } else {
            /* The status only: the parser's message could quote the file. */
            snprintf(msg, msg_len, "%.200s: cannot register the key: %s", path,
                     zkpipe_strerror(st));
            code = ZKP_RPC_INVALID_ARGUMENT;
        }
    } else if (k) {
        *again = 1;
    } else {
        k = &d->keys[d->n_keys];
        snprintf(k->name, sizeof k->name, "%s", name);
        k->path = copy;
        k->engine_id = id;
        copy = NULL;
        d->n_keys++;
    }
    free(copy);
    pthread_mutex_unlock(&d->lk);
    if (code == ZKP_RPC_OK) {
        *file_bytes = (uint64_t)sb.st_size;
        if (engine_id) *engine_id = id;
    }
    return code;
}

zkp_rpc_code srv_key_register(zkp_daemon *d, const char *name, const char *path, int from_client,
                              int *again, uint64_t *file_bytes, char *msg, size_t msg_len) {
    return key_register_(d, name, path, from_client, 0, again, file_bytes, NULL, msg, msg_len);
}

int srv_porep_key_name(uint64_t registered_proof, char *name, size_t cap) {
    const zkp_fil_seal_proof *seal = registered_proof <= UINT32_MAX
                                         ? zkp_fil_seal_proof_by_id((uint32_t)registered_proof)
                                         : NULL;
    if (!seal) return 0;
    /* 2KiB .. 64GiB: a power of two of at least 1 KiB. */
    static const char *const units[] = {"KiB", "MiB", "GiB", "TiB"};
    uint64_t v = seal->sector_bytes >> 10;
    unsigned u = 0;
    while (u + 1 < ZKP_ARRAY_LEN(units) && v >= 1024 && v % 1024 == 0) {
        v >>= 10;
        u++;
    }
    snprintf(name, cap, "porep-%llu%s", (unsigned long long)v, units[u]);
    return 1;
}

/* Registers the key of seal's circuit under "porep-<sector size>", from its
 * parameter file found by Filecoin's name in filecoin.params_dir (or
 * Filecoin's own lookup). */
static zkp_rpc_code porep_key_register_(zkp_daemon *d, const zkp_fil_seal_proof *seal,
                                        uint32_t *key_id, char *msg, size_t msg_len) {
    zkp_fil_params_circuit fc;
    zkp_fil_porep_shape_of(&fc, seal);
    char path[PATH_MAX], name[SRV_KEY_NAME_MAX + 1];
    if (!zkp_fil_params_lookup(path, sizeof path, d->fil_params_dir, &fc, "params")) {
        snprintf(msg, msg_len, "the parameter file's path is too long");
        return ZKP_RPC_INTERNAL;
    }
    (void)srv_porep_key_name(seal->id, name, sizeof name);
    int again;
    uint64_t bytes;
    char why[400];
    zkp_rpc_code code =
        key_register_(d, name, path, 0, seal->id, &again, &bytes, key_id, why, sizeof why);
    if (code != ZKP_RPC_OK) {
        snprintf(msg, msg_len, "the %s parameters: %.300s", seal->name, why);
        if (code == ZKP_RPC_INVALID_ARGUMENT) code = ZKP_RPC_FAILED_PRECONDITION;
    }
    return code;
}

/* Whether row is the seal proof a PoRep key name stands for, its name
 * then in name: the interactive V1_1 row of its size, what Curio seals new
 * sectors with, and the circuit its synthetic PoRep shares. */
static int porep_key_row_(const zkp_fil_seal_proof *row, char name[SRV_KEY_NAME_MAX + 1]) {
    return row->api == ZKP_FIL_API_V1_1 && row->challenge_kind == ZKP_FIL_CHALLENGES_INTERACTIVE &&
           srv_porep_key_name(row->id, name, SRV_KEY_NAME_MAX + 1);
}

zkp_rpc_code srv_porep_key_register_named(zkp_daemon *d, const char *name, uint32_t *key_id,
                                          char *msg, size_t msg_len) {
    size_t n;
    const zkp_fil_seal_proof *rows = zkp_fil_seal_proofs(&n);
    for (size_t r = 0; r < n; r++) {
        char row_name[SRV_KEY_NAME_MAX + 1];
        if (porep_key_row_(&rows[r], row_name) && !strcmp(row_name, name))
            return porep_key_register_(d, &rows[r], key_id, msg, msg_len);
    }
    snprintf(msg, msg_len, "no key is registered as '%.80s'", name);
    return ZKP_RPC_NOT_FOUND;
}

size_t srv_porep_keys_present(zkp_daemon *d, char (*names)[SRV_KEY_NAME_MAX + 1], size_t cap) {
    size_t n_rows, n = 0;
    const zkp_fil_seal_proof *rows = zkp_fil_seal_proofs(&n_rows);
    for (size_t r = 0; r < n_rows && n < cap; r++) {
        if (!porep_key_row_(&rows[r], names[n])) continue;
        zkp_fil_params_circuit fc;
        zkp_fil_porep_shape_of(&fc, &rows[r]);
        char path[PATH_MAX];
        struct stat sb;
        if (zkp_fil_params_lookup(path, sizeof path, d->fil_params_dir, &fc, "params") &&
            stat(path, &sb) == 0 && S_ISREG(sb.st_mode))
            n++;
    }
    return n;
}

/* A POREP_SEAL_COMMIT request made ready for the engine: Curio's envelope
 * decoded (*c1 gets the C1 JSON, zkp_free it), and the key of the registered
 * proof's circuit registered under the name "porep-<sector size>" from
 * filecoin.params_dir (or Filecoin's own lookup), by Filecoin's file name.
 * The engine checks the C1 against the key's circuit when it takes the job. */
static zkp_rpc_code porep_prepare_(zkp_daemon *d, const srv_submit_req *r, uint32_t *key_id,
                                   uint32_t *n_parts, char **c1, size_t *c1_len, char *msg,
                                   size_t msg_len) {
    *c1 = NULL;
    *c1_len = 0;
    const zkp_fil_seal_proof *seal = r->registered_proof <= UINT32_MAX
                                         ? zkp_fil_seal_proof_by_id((uint32_t)r->registered_proof)
                                         : NULL;
    if (!seal) {
        snprintf(msg, msg_len, "registered_proof %llu is not a PoRep seal proof",
                 (unsigned long long)r->registered_proof);
        return ZKP_RPC_INVALID_ARGUMENT;
    }
    zkp_diag dg;
    dg.msg[0] = 0;
    uint64_t sector_num, sector_size;
    if (zkp_fil_c1_envelope_parse((const char *)r->vanilla_proof, r->vanilla_proof_len,
                                  &sector_num, &sector_size, c1, c1_len, NULL, ZKP_MEM_REQUEST,
                                  &dg) != ZKPIPE_OK) {
        snprintf(msg, msg_len, "vanilla_proof is not Curio's C1 envelope: %.240s", dg.msg);
        return ZKP_RPC_INVALID_ARGUMENT;
    }
    zkp_rpc_code code = ZKP_RPC_OK;
    if (sector_size != seal->sector_bytes) {
        snprintf(msg, msg_len, "the envelope's SectorSize %llu is not %s's %llu",
                 (unsigned long long)sector_size, seal->name,
                 (unsigned long long)seal->sector_bytes);
        code = ZKP_RPC_INVALID_ARGUMENT;
        goto fail;
    }
    code = porep_key_register_(d, seal, key_id, msg, msg_len);
    if (code != ZKP_RPC_OK) goto fail;
    *n_parts = seal->partitions;
    return ZKP_RPC_OK;
fail:
    zkp_free(NULL, *c1, *c1_len, ZKP_MEM_REQUEST);
    *c1 = NULL;
    return code;
}

uint32_t srv_key_lookup(zkp_daemon *d, const char *name) {
    uint32_t id = 0;
    pthread_mutex_lock(&d->lk);
    for (size_t i = 0; i < d->n_keys; i++)
        if (strcmp(d->keys[i].name, name) == 0) id = d->keys[i].engine_id;
    pthread_mutex_unlock(&d->lk);
    return id;
}

/* ------------------------------------------------------------------------
 * The job table */

/* A job's request data, detached from it. */
typedef struct {
    void *payload;
    void (*free_fn)(void *);
    size_t bytes; /* the request message's size */
} payload_ref;

/* The request data goes as soon as nothing reads it any more: when the
 * engine is done with the job, or at once for a job that never reaches
 * it. Detached under the lock (held), freed after it (payload_free_): a
 * large request's buffers are unmapped then, which takes milliseconds that
 * status calls should not wait for. */
static payload_ref payload_take_locked_(zkp_daemon *d, srv_job *j) {
    payload_ref r = {j->payload, j->payload_free, j->payload_bytes};
    j->payload = NULL;
    j->payload_free = NULL;
    d->payload_bytes -= j->payload_bytes;
    j->payload_bytes = 0;
    return r;
}

static void payload_free_(payload_ref r) {
    if (r.free_fn) r.free_fn(r.payload);
    /* A large request's job had as many small records in the engine and
     * here, malloc'd while it ran and freed by now: their pages go back to
     * the system with it, not some time later. */
    if (r.free_fn && r.bytes >= SVC_LARGE_MESSAGE) zkp_mem_trim_heap();
}

static void job_free_(srv_job *j) {
    if (j->payload_free) j->payload_free(j->payload);
    zkpipe_job_result_clear(&j->result);
    free(j->request_id);
    free(j->inputs_path);
    free(j);
}

/* Drops final jobs nobody holds whose result has waited past its time
 * (all == 0), or every delivered one as well (all == 1, to make room).
 * Lock held. */
static void evict_locked_(zkp_daemon *d, int make_room) {
    double now = srv_now();
    for (srv_job **at = &d->jobs; *at;) {
        srv_job *j = *at;
        int old = now - j->t_final > (double)d->result_ttl_ms / 1000.0;
        if (j->final && j->refs == 0 && (old || (make_room && j->delivered))) {
            *at = j->next;
            d->n_jobs--;
            job_free_(j);
        } else {
            at = &j->next;
        }
    }
}

static void job_finish_locked_(zkp_daemon *d, srv_job *j, zkp_job_outcome outcome,
                               zkpipe_status st, const char *error) {
    j->final = 1;
    j->t_final = srv_now();
    j->outcome = outcome;
    j->status = st;
    snprintf(j->error, sizeof j->error, "%s", error ? error : "");
    d->n_live--;
    pthread_cond_broadcast(&d->cv);
}

static srv_job *find_locked_(zkp_daemon *d, uint64_t id) {
    for (srv_job *j = d->jobs; j; j = j->next)
        if (j->id == id) return j;
    return NULL;
}

zkp_rpc_code srv_submit(zkp_daemon *d, const srv_submit_req *r, srv_job **out,
                        uint32_t *queue_position, char *msg, size_t msg_len) {
    *out = NULL;
    *queue_position = 0;
    const char *rid = r->request_id && *r->request_id ? r->request_id : NULL;
    if (rid && (strlen(rid) > SRV_REQUEST_ID_MAX || !svc_utf8_ok(rid))) {
        if (r->payload_free) r->payload_free(r->payload);
        snprintf(msg, msg_len, "request_id must be valid UTF-8 of at most %d bytes",
                 SRV_REQUEST_ID_MAX);
        return ZKP_RPC_INVALID_ARGUMENT;
    }
    /* Cluster mode: the job goes to the queue, and whichever member claims
     * it proves it (it comes back here with from_queue set). */
    if (d->cluster && !r->from_queue) return srv_cluster_submit(d, r, out, msg, msg_len);
    uint32_t key_id = 0;
    if (r->kind == SRV_KIND_CIRCOM) {
        if (r->n_witnesses == 0 || r->n_witnesses > UINT32_MAX) {
            if (r->payload_free) r->payload_free(r->payload);
            snprintf(msg, msg_len, "a job needs at least one witness");
            return ZKP_RPC_INVALID_ARGUMENT;
        }
        key_id = srv_key_lookup(d, r->key ? r->key : "");
        if (!key_id) {
            /* The name lives in the payload: the message first. */
            snprintf(msg, msg_len, "no key is registered as '%.80s'", r->key ? r->key : "");
            if (r->payload_free) r->payload_free(r->payload);
            return ZKP_RPC_NOT_FOUND;
        }
        /* The engine refuses a key whose file changed as well; asked here
         * first, the client learns why. */
        char why[400];
        if (zkpipe_engine_check_key_file(d->engine, key_id, why, sizeof why) != ZKPIPE_OK) {
            snprintf(msg, msg_len, "key '%.80s': %s", r->key,
                     why[0] ? why : "its file is unreadable");
            if (r->payload_free) r->payload_free(r->payload);
            return ZKP_RPC_FAILED_PRECONDITION;
        }
    }
    char *c1 = NULL;
    size_t c1_len = 0;
    uint32_t n_parts = (uint32_t)r->n_witnesses;
    if (r->kind == SRV_KIND_POREP_SEAL_COMMIT) {
        zkp_rpc_code c = porep_prepare_(d, r, &key_id, &n_parts, &c1, &c1_len, msg, msg_len);
        if (c != ZKP_RPC_OK) {
            if (r->payload_free) r->payload_free(r->payload);
            return c;
        }
    }
    /* A C1 is parsed here, outside the daemon's lock: at 32 GiB the parse
     * takes about a second, and its memory may have to wait for partitions
     * to finish, while every other call needs the lock. */
    zkpipe_porep_inputs *c1_parsed = NULL;
    if (c1) {
        char why[256];
        zkpipe_status st = zkpipe_engine_porep_inputs_parse_msg(
            d->engine, key_id, (const uint8_t *)c1, c1_len, &c1_parsed, why, sizeof why);
        zkp_free(NULL, c1, c1_len, ZKP_MEM_REQUEST);
        if (st != ZKPIPE_OK) {
            snprintf(msg, msg_len, "the engine refused the C1: %s: %s", zkpipe_strerror(st),
                     why[0] ? why : "no reason given");
            if (r->payload_free) r->payload_free(r->payload);
            return st == ZKPIPE_ERR_NO_MEMORY ? ZKP_RPC_RESOURCE_EXHAUSTED
                                              : ZKP_RPC_INVALID_ARGUMENT;
        }
    }
    if (key_id) {
        zkpipe_engine_status st;
        if (zkpipe_engine_get_status(d->engine, &st) == ZKPIPE_OK)
            *queue_position = st.queued_admit > UINT32_MAX ? UINT32_MAX : (uint32_t)st.queued_admit;
    }

    srv_job *j = calloc(1, sizeof *j);
    char *rid_copy = rid ? strdup(rid) : NULL;
    payload_ref dropped = {NULL, NULL, 0};
    if (!j || (rid && !rid_copy)) {
        free(j);
        free(rid_copy);
        zkpipe_porep_inputs_free(&c1_parsed);
        if (r->payload_free) r->payload_free(r->payload);
        snprintf(msg, msg_len, "out of memory");
        return ZKP_RPC_RESOURCE_EXHAUSTED;
    }
    pthread_mutex_lock(&d->lk);
    zkp_rpc_code code = ZKP_RPC_OK;
    if (d->draining) {
        snprintf(msg, msg_len, "%s", SRV_DRAINING_MSG);
        code = ZKP_RPC_UNAVAILABLE;
        goto refuse;
    }
    if (rid) {
        for (srv_job *o = d->jobs; o; o = o->next) {
            if (!o->request_id || strcmp(o->request_id, rid) != 0 || (o->final && o->delivered))
                continue;
            if (o->kind != r->kind || (r->kind == SRV_KIND_CIRCOM && strcmp(o->key, r->key) != 0)) {
                snprintf(msg, msg_len, "request id '%.80s' belongs to a job of another key or kind", rid);
                code = ZKP_RPC_ALREADY_EXISTS;
                goto refuse;
            }
            o->refs++;
            if (r->owned_by_call) o->owners++;
            pthread_mutex_unlock(&d->lk);
            free(j);
            free(rid_copy);
            zkpipe_porep_inputs_free(&c1_parsed);
            if (r->payload_free) r->payload_free(r->payload);
            *out = o;
            return ZKP_RPC_OK;
        }
    }
    if (d->n_jobs >= d->max_jobs) evict_locked_(d, 1);
    if (d->n_jobs >= d->max_jobs) {
        snprintf(msg, msg_len, "%zu jobs are held (server.max_jobs); await or cancel some first",
                 d->n_jobs);
        code = ZKP_RPC_RESOURCE_EXHAUSTED;
        goto refuse;
    }
    j->id = d->next_id++;
    srv_format_id(j->id_text, d->id_epoch, j->id);
    j->request_id = rid_copy;
    j->kind = r->kind;
    snprintf(j->key, sizeof j->key, "%s", r->kind == SRV_KIND_CIRCOM ? r->key : "");
    j->priority = r->priority;
    j->n_parts = n_parts;
    j->payload = r->payload;
    j->payload_free = r->payload_free;
    j->payload_bytes = r->payload_bytes;
    d->payload_bytes += j->payload_bytes;
    j->t_submit = srv_now();
    j->refs = 1;
    j->owners = r->owned_by_call ? 1 : 0;
    d->n_live++;
    if (key_id) {
        /* A PoRep job's parsed C1 goes to the engine with the job (taken
         * whatever the submit returns): the request's bytes are not needed
         * after. */
        int porep = c1_parsed != NULL;
        zkpipe_job_request req = {.key_id = key_id,
                                  .witnesses = porep ? NULL : r->witnesses,
                                  .n_witnesses = porep ? 0 : r->n_witnesses,
                                  .priority = r->priority,
                                  .want_json = !porep,
                                  .porep_inputs = c1_parsed};
        c1_parsed = NULL;
        zkpipe_status st = zkpipe_engine_submit(d->engine, &j->engine_id, &req);
        if (st != ZKPIPE_OK) {
            d->n_live--;
            d->payload_bytes -= j->payload_bytes;
            snprintf(msg, msg_len, "the engine refused the job: %s", zkpipe_strerror(st));
            code = ZKP_RPC_INVALID_ARGUMENT;
            j->request_id = NULL;
            goto refuse;
        }
        if (porep) dropped = payload_take_locked_(d, j);
    } else {
        /* Kinds zkpipe has no circuits for; the job exists, so a client's
         * await sees a clear failure rather than a transport error. */
        char why[256];
        snprintf(why, sizeof why,
                 "proof kind %s needs Filecoin circuits this zkpipe does not have yet (it "
                 "proves porep_seal_commit)",
                 srv_kind_name(r->kind));
        job_finish_locked_(d, j, ZKP_OUTCOME_FAILED, ZKPIPE_ERR_UNSUPPORTED, why);
        d->n_failed_here++;
        dropped = payload_take_locked_(d, j);
    }
    j->next = d->jobs;
    d->jobs = j;
    d->n_jobs++;
    /* Read under the lock: once it is out, the collector may make an
     * engine job final and count it itself. */
    int failed_here = j->final;
    zkp_job_outcome outcome = j->outcome;
    pthread_mutex_unlock(&d->lk);
    payload_free_(dropped);
    if (failed_here) zkp_metrics_job_done(d->metrics, "", srv_kind_name(r->kind), outcome, NULL);
    *out = j;
    return ZKP_RPC_OK;

refuse:
    pthread_mutex_unlock(&d->lk);
    zkpipe_porep_inputs_free(&c1_parsed);
    free(j);
    free(rid_copy);
    if (r->payload_free) r->payload_free(r->payload);
    return code;
}

zkp_rpc_code srv_job_attach_cluster(zkp_daemon *d, int64_t cluster_id, const srv_submit_req *r,
                                    const char *inputs_path, srv_job **out, char *msg,
                                    size_t msg_len) {
    *out = NULL;
    const char *rid = r->request_id && *r->request_id ? r->request_id : NULL;
    srv_job *j = calloc(1, sizeof *j);
    char *rid_copy = rid ? strdup(rid) : NULL;
    char *path_copy = inputs_path ? strdup(inputs_path) : NULL;
    zkp_rpc_code code = ZKP_RPC_OK;
    pthread_mutex_lock(&d->lk);
    srv_job *o = NULL;
    for (o = d->jobs; o; o = o->next)
        if (o->cluster_id == cluster_id && !(o->final && o->delivered)) break;
    if (o) {
        o->refs++;
        if (r->owned_by_call) o->owners++;
        *out = o;
        goto done;
    }
    if (!j || (rid && !rid_copy) || (inputs_path && !path_copy)) {
        snprintf(msg, msg_len, "out of memory");
        code = ZKP_RPC_RESOURCE_EXHAUSTED;
        goto done;
    }
    if (d->draining) {
        snprintf(msg, msg_len, "%s", SRV_DRAINING_MSG);
        code = ZKP_RPC_UNAVAILABLE;
        goto done;
    }
    if (d->n_jobs >= d->max_jobs) evict_locked_(d, 1);
    if (d->n_jobs >= d->max_jobs) {
        snprintf(msg, msg_len, "%zu jobs are held (server.max_jobs); await or cancel some first",
                 d->n_jobs);
        code = ZKP_RPC_RESOURCE_EXHAUSTED;
        goto done;
    }
    j->id = d->next_id++;
    /* The queue's id: any member answers for the job by it. */
    snprintf(j->id_text, sizeof j->id_text, "cluster-%lld", (long long)cluster_id);
    j->cluster_id = cluster_id;
    j->request_id = rid_copy;
    j->inputs_path = path_copy;
    rid_copy = path_copy = NULL;
    j->kind = r->kind;
    snprintf(j->key, sizeof j->key, "%s", r->kind == SRV_KIND_CIRCOM && r->key ? r->key : "");
    j->priority = r->priority;
    j->n_parts = (uint32_t)r->n_witnesses;
    j->t_submit = srv_now();
    j->refs = 1;
    j->owners = r->owned_by_call ? 1 : 0;
    d->n_live++;
    j->next = d->jobs;
    d->jobs = j;
    d->n_jobs++;
    *out = j;
    j = NULL;
done:
    pthread_mutex_unlock(&d->lk);
    free(j);
    free(rid_copy);
    free(path_copy);
    return code;
}

void srv_job_finish_cluster(zkp_daemon *d, srv_job *j, zkp_job_outcome outcome, zkpipe_status st,
                            const char *error, zkpipe_job_result *result,
                            const zkpipe_stage_times *times) {
    char *path = NULL;
    pthread_mutex_lock(&d->lk);
    if (!j->final) {
        if (result) {
            j->result = *result;
            memset(result, 0, sizeof *result);
        }
        if (times) j->times = *times;
        path = j->inputs_path;
        j->inputs_path = NULL;
        job_finish_locked_(d, j, outcome, st, error);
    }
    pthread_mutex_unlock(&d->lk);
    /* The inputs this member put in the shared directory: nobody reads
     * them once the job is final. */
    if (path) (void)unlink(path);
    free(path);
    if (result) zkpipe_job_result_clear(result);
}

srv_job *srv_job_find_cluster(zkp_daemon *d, int64_t cluster_id, int live_only) {
    pthread_mutex_lock(&d->lk);
    srv_job *j = d->jobs;
    while (j && !(j->cluster_id == cluster_id && !(live_only && j->final))) j = j->next;
    if (j) j->refs++;
    pthread_mutex_unlock(&d->lk);
    return j;
}

int64_t *srv_cluster_live_ids(zkp_daemon *d, size_t *n) {
    *n = 0;
    pthread_mutex_lock(&d->lk);
    size_t count = 0;
    for (srv_job *j = d->jobs; j; j = j->next) count += j->cluster_id && !j->final;
    int64_t *ids = malloc((count ? count : 1) * sizeof *ids);
    for (srv_job *j = d->jobs; j && ids; j = j->next)
        if (j->cluster_id && !j->final) ids[(*n)++] = j->cluster_id;
    pthread_mutex_unlock(&d->lk);
    return ids;
}

void srv_job_cancel_engine(zkp_daemon *d, srv_job *j) {
    pthread_mutex_lock(&d->lk);
    if (!j->final && j->engine_id) (void)zkpipe_engine_cancel(d->engine, j->engine_id);
    pthread_mutex_unlock(&d->lk);
}

srv_job *srv_job_get(zkp_daemon *d, const char *id_text) {
    uint64_t id = srv_parse_id(id_text, d->id_epoch);
    if (!id && d->cluster) return srv_cluster_job_get(d, id_text);
    if (!id) return NULL;
    pthread_mutex_lock(&d->lk);
    srv_job *j = find_locked_(d, id);
    if (j) j->refs++;
    pthread_mutex_unlock(&d->lk);
    return j;
}

void srv_job_put(zkp_daemon *d, srv_job *j) {
    if (!j) return;
    pthread_mutex_lock(&d->lk);
    j->refs--;
    pthread_mutex_unlock(&d->lk);
}

int srv_job_wait(zkp_daemon *d, srv_job *j, int64_t timeout_ms, zkp_rpc_call *call) {
    double end = timeout_ms < 0 ? 0 : srv_now() + (double)timeout_ms / 1000.0;
    pthread_mutex_lock(&d->lk);
    int done = 0;
    for (;;) {
        if (j->final) {
            j->delivered = 1;
            done = 1;
            break;
        }
        if (call && zkp_rpc_call_gone(call)) break;
        double now = srv_now();
        if (timeout_ms >= 0 && now >= end) break;
        /* Wake at least once a second: the gone flag is also set by a
         * thread that does not take the daemon lock. */
        double until = timeout_ms >= 0 && end - now < 1.0 ? end - now : 1.0;
        struct timespec dl;
        zkp_realtime_after_ms(&dl, (int64_t)(until * 1000.0) + 1);
        pthread_cond_timedwait(&d->cv, &d->lk, &dl);
    }
    pthread_mutex_unlock(&d->lk);
    return done;
}

void srv_job_disown(zkp_daemon *d, srv_job *j, int cancel_if_last) {
    int64_t cancel_queued = 0;
    pthread_mutex_lock(&d->lk);
    if (j->owners > 0 && --j->owners == 0 && cancel_if_last) {
        if (!j->final && j->engine_id) (void)zkpipe_engine_cancel(d->engine, j->engine_id);
        if (!j->final && j->cluster_id) cancel_queued = j->cluster_id;
        /* Its callers are gone: nobody is left to collect the outcome, and a
         * drain must not wait for them. */
        j->delivered = 1;
    }
    pthread_cond_broadcast(&d->cv);
    pthread_mutex_unlock(&d->lk);
    /* The database round trip outside the lock. */
    if (cancel_queued) srv_cluster_cancel(d, cancel_queued);
}

zkp_rpc_code srv_job_cancel(zkp_daemon *d, const char *id_text, int *was_running) {
    *was_running = 0;
    uint64_t id = srv_parse_id(id_text, d->id_epoch);
    if (!id && d->cluster) return srv_cluster_cancel_id(d, id_text, was_running);
    pthread_mutex_lock(&d->lk);
    srv_job *j = id ? find_locked_(d, id) : NULL;
    int64_t cancel_queued = 0;
    if (j && !j->final) {
        *was_running = 1;
        if (j->engine_id) (void)zkpipe_engine_cancel(d->engine, j->engine_id);
        cancel_queued = j->cluster_id;
    }
    pthread_mutex_unlock(&d->lk);
    if (cancel_queued) srv_cluster_cancel(d, cancel_queued);
    return j ? ZKP_RPC_OK : ZKP_RPC_NOT_FOUND;
}

static void drop_partitions_(zkpipe_job_result *r) {
    zkpipe_job_result kept = *r;
    kept.partitions = NULL;
    kept.n_partitions = 0;
    zkpipe_job_result_clear(r);
    *r = kept;
}

/* Files each result the engine finishes, and drops results nobody came
 * for. */
static void *collector_(void *arg) {
    zkp_daemon *d = arg;
    for (;;) {
        zkpipe_job_result res;
        memset(&res, 0, sizeof res);
        zkpipe_status st = zkpipe_engine_await_any(d->engine, 100, &res);
        payload_ref dropped = {NULL, NULL, 0};
        pthread_mutex_lock(&d->lk);
        if (st == ZKPIPE_OK) {
            srv_job *j = NULL;
            for (srv_job *o = d->jobs; o; o = o->next)
                if (o->engine_id == res.job_id) j = o;
            if (j) {
                zkp_job_outcome oc = res.status == ZKPIPE_OK             ? ZKP_OUTCOME_COMPLETED
                                     : res.status == ZKPIPE_ERR_CANCELLED ? ZKP_OUTCOME_CANCELLED
                                                                         : ZKP_OUTCOME_FAILED;
                j->result = res;
                memset(&res, 0, sizeof res);
                svc_stage_times(&j->result, &j->times);
                /* A job without proofs keeps its status and times, not one
                 * record per partition: 2000 of them are a megabyte held
                 * for server.result_ttl_ms. */
                if (oc != ZKP_OUTCOME_COMPLETED) drop_partitions_(&j->result);
                /* The engine no longer reads the witnesses. */
                dropped = payload_take_locked_(d, j);
                job_finish_locked_(d, j, oc, j->result.status, j->result.error);
                zkp_metrics_job_done(d->metrics, j->key, srv_kind_name(j->kind), oc, &j->result.times);
            }
        }
        evict_locked_(d, 0);
        int stop = d->stopping;
        pthread_mutex_unlock(&d->lk);
        payload_free_(dropped);
        zkpipe_job_result_clear(&res);
        if (stop && st != ZKPIPE_OK) break;
    }
    return NULL;
}

/* ------------------------------------------------------------------------
 * Blocking calls */

typedef struct {
    zkp_daemon *d;
    zkp_rpc_call *call;
    srv_blocking_fn fn;
    void *arg;
    void (*arg_free)(void *);
} blocking_ctx;

static void *blocking_thread_(void *p) {
    blocking_ctx *b = p;
    b->fn(b->d, b->call, b->arg);
    if (b->arg_free) b->arg_free(b->arg);
    zkp_rpc_call_unref(b->call);
    pthread_mutex_lock(&b->d->lk);
    b->d->blocking_calls--;
    pthread_cond_broadcast(&b->d->cv);
    pthread_mutex_unlock(&b->d->lk);
    free(b);
    return NULL;
}

void srv_run_blocking(zkp_daemon *d, zkp_rpc_call *call, srv_blocking_fn fn, void *arg,
                      void (*arg_free)(void *)) {
    blocking_ctx *b = malloc(sizeof *b);
    pthread_mutex_lock(&d->lk);
    /* A call that comes after the drain's last look finds the daemon
     * closing: a thread started then would outlive the server, the engine
     * and the daemon, which teardown frees without waiting for it. */
    int closing = d->closing;
    int ok = b && !closing && d->blocking_calls < SRV_MAX_BLOCKING_CALLS;
    if (ok) d->blocking_calls++;
    pthread_mutex_unlock(&d->lk);
    if (ok) {
        *b = (blocking_ctx){d, call, fn, arg, arg_free};
        zkp_rpc_call_ref(call);
        pthread_attr_t at;
        pthread_attr_init(&at);
        pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
        pthread_attr_setstacksize(&at, 256 * 1024);
        pthread_t t;
        ok = pthread_create(&t, &at, blocking_thread_, b) == 0;
        pthread_attr_destroy(&at);
        if (ok) return;
        zkp_rpc_call_unref(call);
        pthread_mutex_lock(&d->lk);
        d->blocking_calls--;
        pthread_cond_broadcast(&d->cv);
        pthread_mutex_unlock(&d->lk);
    }
    free(b);
    if (arg_free) arg_free(arg);
    if (closing)
        zkp_rpc_reply_error(call, ZKP_RPC_UNAVAILABLE, "the daemon is shutting down");
    else
        zkp_rpc_reply_error(call, ZKP_RPC_RESOURCE_EXHAUSTED,
                            "too many calls waiting at once (at most %d)", SRV_MAX_BLOCKING_CALLS);
}

void srv_reply_unpack_error(zkp_rpc_call *call, zkp_rpc_code why, const char *what, size_t len) {
    char msg[200];
    svc_unpack_error(why, what, len, msg, sizeof msg);
    zkp_rpc_reply_error(call, why == ZKP_RPC_RESOURCE_EXHAUSTED ? why : ZKP_RPC_INVALID_ARGUMENT,
                        "%s", msg);
}

void srv_reply_message(zkp_rpc_call *call, const ProtobufCMessage *m) {
    size_t n = protobuf_c_message_get_packed_size(m);
    uint8_t *buf = malloc(n ? n : 1);
    if (!buf) {
        zkp_rpc_reply_error(call, ZKP_RPC_RESOURCE_EXHAUSTED, "out of memory");
        return;
    }
    protobuf_c_message_pack(m, buf);
    zkp_rpc_reply(call, buf, n);
    free(buf);
}

/* ------------------------------------------------------------------------
 * Metrics */

static void observe_rpc_(void *ctx, const char *method, int code) {
    zkp_metrics_rpc_done(((zkp_daemon *)ctx)->metrics, method, code);
}

typedef struct {
    uint32_t ids[SRV_MAX_KEYS];
    const char *names[SRV_MAX_KEYS];
} key_view;

static _Thread_local key_view tls_key_view;

int srv_metrics_source(void *ctx, zkpipe_engine_status *st, zkp_server_view *view) {
    zkp_daemon *d = ctx;
    if (zkpipe_engine_get_status(d->engine, st) != ZKPIPE_OK) return -1;
    memset(view, 0, sizeof *view);
    /* Key names live in the daemon for good (keys are never unregistered),
     * so pointers to them stay valid; the arrays are per thread. */
    key_view *kv = &tls_key_view;
    pthread_mutex_lock(&d->lk);
    view->uptime_seconds = srv_now() - d->t_start;
    view->draining = d->draining;
    view->server_jobs_live = d->n_live;
    view->server_jobs_failed = d->n_failed_here;
    view->server_payload_bytes = d->payload_bytes;
    for (size_t i = 0; i < d->n_keys; i++) {
        kv->ids[i] = d->keys[i].engine_id;
        kv->names[i] = d->keys[i].name;
    }
    view->n_key_names = d->n_keys;
    pthread_mutex_unlock(&d->lk);
    view->key_ids = kv->ids;
    view->key_names = kv->names;
    view->rpc_in_flight = d->rpc ? zkp_rpc_server_in_flight(d->rpc) : 0;
    srv_cluster_stats cs;
    srv_cluster_get_stats(d, &cs);
    view->cluster_member = cs.member;
    memcpy(view->cluster_depth, cs.depth, sizeof view->cluster_depth);
    view->cluster_enqueued = cs.enqueued;
    view->cluster_claims = cs.claims;
    view->cluster_completed = cs.completed;
    view->cluster_failed = cs.failed;
    view->cluster_refused_writes = cs.refused_writes;
    view->cluster_lease_expiries = cs.lease_expiries;
    view->cluster_retries = cs.retries;
    view->cluster_running = cs.running;
    return 0;
}

/* ------------------------------------------------------------------------
 * Listening */

static void log_(const zkp_serve_opts *o, const char *fmt, ...) ZKP_PRINTF(2, 3);
static void log_(const zkp_serve_opts *o, const char *fmt, ...) {
    if (!o->log) return;
    va_list ap;
    va_start(ap, fmt);
    fputs("zkpipe serve: ", o->log);
    vfprintf(o->log, fmt, ap);
    fputc('\n', o->log);
    fflush(o->log);
    va_end(ap);
}

/* mkdir -p with mode for the last component. */
static int mkdirs_(const char *path, mode_t mode) {
    char buf[PATH_MAX];
    if (snprintf(buf, sizeof buf, "%s", path) >= (int)sizeof buf) return -1;
    for (char *p = buf + 1; *p; p++) {
        if (*p != '/') continue;
        *p = 0;
        if (mkdir(buf, 0755) != 0 && errno != EEXIST) return -1;
        *p = '/';
    }
    if (mkdir(buf, mode) != 0 && errno != EEXIST) return -1;
    return 0;
}

/* A socket file left by a daemon that died is removed; one a live daemon
 * answers on is not. */
static zkpipe_status clear_stale_socket_(const char *path, zkp_diag *d) {
    struct stat sb;
    if (lstat(path, &sb) != 0) return ZKPIPE_OK;
    if (!S_ISSOCK(sb.st_mode))
        return zkp_diag_fail(d, ZKPIPE_ERR_IO, "%s exists and is not a socket", path);
    struct sockaddr_un sa;
    memset(&sa, 0, sizeof sa);
    sa.sun_family = AF_UNIX;
    if (strlen(path) >= sizeof sa.sun_path)
        return zkp_diag_fail(d, ZKPIPE_ERR_INVALID_ARGUMENT, "socket path %s is too long", path);
    memcpy(sa.sun_path, path, strlen(path));
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return zkp_diag_fail(d, ZKPIPE_ERR_IO, "socket: %s", strerror(errno));
    int live = connect(fd, (struct sockaddr *)&sa, sizeof sa) == 0;
    close(fd);
    if (live)
        return zkp_diag_fail(d, ZKPIPE_ERR_IO, "another daemon is listening on %s", path);
    if (unlink(path) != 0)
        return zkp_diag_fail(d, ZKPIPE_ERR_IO, "cannot remove the stale socket %s: %s", path,
                             strerror(errno));
    return ZKPIPE_OK;
}

/* The path of a "unix:" address, or NULL for TCP. */
static const char *unix_path_(const char *addr) {
    if (strncmp(addr, "unix://", 7) == 0) return addr + 7;
    if (strncmp(addr, "unix:", 5) == 0) return addr + 5;
    return NULL;
}

static zkpipe_status listen_unix_(zkp_daemon *dm, const zkp_serve_opts *o, const char *path,
                                  char **bound, zkp_diag *d) {
    if (path[0] != '/')
        return zkp_diag_fail(d, ZKPIPE_ERR_INVALID_ARGUMENT, "socket path %s must be absolute", path);
    char dir[PATH_MAX];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (slash && slash != dir) {
        *slash = 0;
        if (mkdirs_(dir, 0750) != 0)
            return zkp_diag_fail(d, ZKPIPE_ERR_IO, "cannot create %s: %s", dir, strerror(errno));
    }
    zkpipe_status st = clear_stale_socket_(path, d);
    if (st != ZKPIPE_OK) return st;
    char addr[PATH_MAX + 8];
    snprintf(addr, sizeof addr, "unix:%s", path);
    /* The socket is born with mode 0660 rather than chmod'ed after, so it
     * is never reachable by others in between. */
    mode_t old = umask(0117);
    st = zkp_rpc_server_listen(dm->rpc, addr, NULL, d);
    umask(old);
    if (st != ZKPIPE_OK) return st;
    (void)chmod(path, 0660);
    log_(o, "listening on %s", addr);
    *bound = strdup(path);
    return ZKPIPE_OK;
}

/* The TCP listener with what secures it (srv_tcp_allowed said yes). */
static zkpipe_status listen_tcp_(zkp_daemon *dm, const zkp_serve_opts *o, const char *addr,
                                 const srv_tcp_security *sec, zkp_diag *d) {
    zkp_rpc_tls tls = {sec->cert, sec->key, sec->client_ca};
    zkpipe_status st = zkp_rpc_server_listen_tls(dm->rpc, addr, sec->cert ? &tls : NULL, NULL, d);
    if (st != ZKPIPE_OK) return st;
    if (sec->token && (st = zkp_rpc_server_require_token(dm->rpc, sec->token)) != ZKPIPE_OK)
        return zkp_diag_fail(d, st, "cannot set the bearer token");
    log_(o, "listening on %s (%s%s%s)", addr, sec->cert ? "TLS" : "plaintext",
         sec->client_ca ? ", client certificates required" : "",
         sec->token ? ", bearer token required" : "");
    if (!srv_tcp_is_loopback(addr) && !sec->cert)
        log_(o, "warning: %s is reached in clear text: %s", addr,
             sec->token ? "the bearer token can be read off the network; set server.tls_cert and "
                          "server.tls_key"
                        : "no TLS and no token (server.allow_insecure_tcp)");
    return ZKPIPE_OK;
}

/* ------------------------------------------------------------------------
 * Serve */

static zkpipe_status engine_config_(const zkp_config *c, zkpipe_engine_config *ec) {
    zkpipe_status st = zkpipe_engine_config_default(ec);
    if (st != ZKPIPE_OK) return st;
    ec->budget_bytes = zkp_config_size(c, ZKP_CFG_ENGINE_BUDGET);
    ec->synth_workers = (unsigned)zkp_config_int(c, ZKP_CFG_ENGINE_SYNTHESIS_WORKERS);
    ec->device = zkp_config_str(c, ZKP_CFG_ENGINE_DEVICE);
    ec->devices = (unsigned)zkp_config_int(c, ZKP_CFG_ENGINE_DEVICES);
    ec->vram_budget_bytes = zkp_config_size(c, ZKP_CFG_ENGINE_VRAM_BUDGET);
    ec->abc_on_host = zkp_config_bool(c, ZKP_CFG_ENGINE_ABC_ON_HOST);
    ec->pool_idle_max_bytes = zkp_config_size(c, ZKP_CFG_ENGINE_POOL_IDLE_MAX);
    ec->device_workers = (unsigned)zkp_config_int(c, ZKP_CFG_ENGINE_DEVICE_WORKERS);
    ec->device_threads = (unsigned)zkp_config_int(c, ZKP_CFG_ENGINE_DEVICE_THREADS);
    ec->finalize_workers = (unsigned)zkp_config_int(c, ZKP_CFG_ENGINE_FINALIZE_WORKERS);
    ec->verify = zkp_config_bool(c, ZKP_CFG_ENGINE_VERIFY);
    ec->rss_period_ms = (unsigned)zkp_config_int(c, ZKP_CFG_METRICS_POLL_MS);
    return ZKPIPE_OK;
}

/* Waits for a signal for up to ms; returns it, or 0. */
static int wait_signal_(const sigset_t *set, int64_t ms) {
    struct timespec ts = {(time_t)(ms / 1000), (long)(ms % 1000) * 1000000L};
    int sig = sigtimedwait(set, NULL, &ts);
    return sig > 0 ? sig : 0;
}

/* The drain: no new work; live jobs finish (cancelled once the timeout
 * passes) and finished results wait to be collected (until the timeout);
 * then the threads answering calls end. A second signal exits at once. */
static int drain_(zkp_daemon *dm, const zkp_serve_opts *o, const sigset_t *set, int64_t timeout_ms,
                  double *end_out) {
    pthread_mutex_lock(&dm->lk);
    dm->draining = 1;
    size_t live = dm->n_live;
    pthread_cond_broadcast(&dm->cv);
    pthread_mutex_unlock(&dm->lk);
    log_(o, "draining: %zu live jobs, up to %lld ms", live, (long long)timeout_ms);
    double end = srv_now() + (double)timeout_ms / 1000.0;
    *end_out = end;
    int cancelled = 0;
    for (;;) {
        int timed_out = srv_now() >= end;
        pthread_mutex_lock(&dm->lk);
        size_t undelivered = 0;
        for (srv_job *j = dm->jobs; j; j = j->next)
            /* A cluster job's result is in the queue, where any member
             * answers for it: this member need not stay for it. */
            if (j->final && !j->delivered && !j->cluster_id) undelivered++;
        live = dm->n_live;
        size_t calls = dm->blocking_calls;
        if (timed_out && !cancelled && live) {
            for (srv_job *j = dm->jobs; j; j = j->next) {
                if (!j->final && j->engine_id) (void)zkpipe_engine_cancel(dm->engine, j->engine_id);
                /* A job of the queue stays there for the other members;
                 * only this member's wait for it ends. */
                if (!j->final && j->cluster_id)
                    job_finish_locked_(dm, j, ZKP_OUTCOME_FAILED, ZKPIPE_ERR_CANCELLED,
                                       "the daemon shut down before the cluster finished the "
                                       "job; it stays queued for the other members");
            }
        }
        int done = live == 0 && calls == 0 && (undelivered == 0 || timed_out);
        /* In the same hold of the lock that saw no blocking call. */
        if (done) dm->closing = 1;
        pthread_mutex_unlock(&dm->lk);
        if (done) {
            if (undelivered) log_(o, "%zu results were never collected", undelivered);
            break;
        }
        if (timed_out && !cancelled && live) {
            log_(o, "drain timeout: cancelled %zu live jobs", live);
            cancelled = 1;
        }
        int sig = wait_signal_(set, 100);
        if (sig) {
            log_(o, "second signal (%s): exiting now", strsignal(sig));
            return 1;
        }
    }
    log_(o, "drained");
    return 0;
}

int zkp_serve(const zkp_serve_opts *o, zkp_diag *d) {
    const zkp_config *c = o->cfg;
    /* Signals are taken synchronously by this thread alone; every thread
     * started from here on inherits the mask. */
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGINT);
    pthread_sigmask(SIG_BLOCK, &set, NULL);
    signal(SIGPIPE, SIG_IGN);

    zkp_daemon *dm = calloc(1, sizeof *dm);
    if (!dm) {
        zkp_diag_fail(d, ZKPIPE_ERR_NO_MEMORY, "out of memory");
        return 1;
    }
    pthread_mutex_init(&dm->lk, NULL);
    pthread_cond_init(&dm->cv, NULL);
    dm->t_start = srv_now();
    dm->next_id = 1;
    if (zkp_random_bytes(&dm->id_epoch, sizeof dm->id_epoch) != ZKPIPE_OK) {
        zkp_diag_fail(d, ZKPIPE_ERR_RANDOM, "no random bytes for the job ids");
        free(dm);
        return 1;
    }
    dm->max_message = (size_t)zkp_config_size(c, ZKP_CFG_SERVER_MAX_MESSAGE);
    dm->result_ttl_ms = zkp_config_int(c, ZKP_CFG_SERVER_RESULT_TTL_MS);
    dm->max_jobs = (size_t)zkp_config_int(c, ZKP_CFG_SERVER_MAX_JOBS);
    dm->fil_params_dir = zkp_config_str(c, ZKP_CFG_FILECOIN_PARAMS_DIR);
    dm->fil_check_subgroups = zkp_config_bool(c, ZKP_CFG_FILECOIN_CHECK_SUBGROUPS);
    int rc = 1, collector = 0;
    double drain_end = 0;
    char *sock_path = NULL;
    zkp_http *http = NULL;
    char errbuf[256] = "";
    /* The TCP listener and what secures it are checked before anything
     * starts, so a refusal or a bad file costs no engine start. */
    const char *tcp = NULL;
    if (o->listen)
        tcp = unix_path_(o->listen) ? NULL : o->listen;
    else if (*zkp_config_str(c, ZKP_CFG_SERVER_TCP))
        tcp = zkp_config_str(c, ZKP_CFG_SERVER_TCP);
    srv_tcp_security sec;
    memset(&sec, 0, sizeof sec);
    zkpipe_engine_config ec;
    zkpipe_status st = ZKPIPE_OK;
    if (tcp && ((st = srv_tcp_security_load(c, &sec, d)) != ZKPIPE_OK ||
                (st = srv_tcp_allowed(&sec, zkp_config_bool(c, ZKP_CFG_SERVER_ALLOW_INSECURE_TCP),
                                      tcp, d)) != ZKPIPE_OK))
        goto out;
    st = engine_config_(c, &ec);
    if (st == ZKPIPE_OK) st = zkpipe_engine_create(&dm->engine, &ec, errbuf, sizeof errbuf);
    if (st != ZKPIPE_OK) {
        zkp_diag_fail(d, st, "cannot start the engine: %s", errbuf[0] ? errbuf : zkpipe_strerror(st));
        goto out;
    }
    dm->metrics = zkp_metrics_create();
    if (!dm->metrics) {
        zkp_diag_fail(d, ZKPIPE_ERR_NO_MEMORY, "out of memory");
        goto out;
    }
    const char *const *dirs;
    size_t n_dirs = zkp_config_strings(c, ZKP_CFG_SERVER_KEY_DIRS, &dirs);
    if (srv_key_dirs_resolve(dirs, n_dirs, &dm->key_dirs, d) != ZKPIPE_OK) goto out;
    dm->n_key_dirs = n_dirs;
    for (size_t i = 0; i < n_dirs; i++) log_(o, "keys may be registered from %s", dm->key_dirs[i]);
    if (!n_dirs) log_(o, "server.key_dirs is empty: RegisterKey is refused");
    const char *const *keys;
    size_t n_keys = zkp_config_strings(c, ZKP_CFG_SERVER_KEYS, &keys);
    for (size_t i = 0; i < n_keys; i++) {
        const char *eq = strchr(keys[i], '=');
        char name[SRV_KEY_NAME_MAX + 2], msg[300];
        if (!eq || (size_t)(eq - keys[i]) > SRV_KEY_NAME_MAX) {
            zkp_diag_fail(d, ZKPIPE_ERR_INVALID_ARGUMENT,
                          "server.keys entry '%.80s' is not name=path/to/circuit.zkey", keys[i]);
            goto out;
        }
        memcpy(name, keys[i], (size_t)(eq - keys[i]));
        name[eq - keys[i]] = 0;
        int again;
        uint64_t bytes;
        if (srv_key_register(dm, name, eq + 1, 0, &again, &bytes, msg, sizeof msg) != ZKP_RPC_OK) {
            zkp_diag_fail(d, ZKPIPE_ERR_INVALID_ARGUMENT, "server.keys: %s", msg);
            goto out;
        }
        log_(o, "key %s: %s (%llu bytes)", name, eq + 1, (unsigned long long)bytes);
    }

    if ((st = zkp_rpc_server_create(&dm->rpc, dm->max_message, d)) != ZKPIPE_OK) goto out;
    zkp_rpc_server_set_observer(dm->rpc, observe_rpc_, dm);
    /* Large requests are received into buffers charged to the budget, off
     * the threads that answer small calls. */
    zkp_rpc_large_messages lm = {SVC_LARGE_MESSAGE, svc_large_alloc, svc_large_release, dm};
    zkp_rpc_server_set_large_messages(dm->rpc, &lm);
    if ((st = srv_cuzk_register(dm)) != ZKPIPE_OK || (st = srv_zkpipe_register(dm)) != ZKPIPE_OK) {
        zkp_diag_fail(d, st, "cannot register the services");
        goto out;
    }
    if (o->listen) {
        const char *p = unix_path_(o->listen);
        if (p) {
            while (p[0] == '/' && p[1] == '/') p++;
            st = listen_unix_(dm, o, p, &sock_path, d);
        } else {
            st = listen_tcp_(dm, o, tcp, &sec, d);
        }
        if (st != ZKPIPE_OK) goto out;
    } else {
        char path[PATH_MAX];
        const char *sock = zkp_config_str(c, ZKP_CFG_SERVER_SOCKET);
        if (!*sock) {
            snprintf(path, sizeof path, "%s/zkpipe.sock", zkp_config_str(c, ZKP_CFG_SERVER_RUNTIME_DIR));
            sock = path;
        }
        if ((st = listen_unix_(dm, o, sock, &sock_path, d)) != ZKPIPE_OK) goto out;
        if (tcp && (st = listen_tcp_(dm, o, tcp, &sec, d)) != ZKPIPE_OK) goto out;
    }
    if (pthread_create(&dm->collector, NULL, collector_, dm) != 0) {
        zkp_diag_fail(d, ZKPIPE_ERR_IO, "cannot start the collector thread");
        goto out;
    }
    collector = 1;
    if (*zkp_config_str(c, ZKP_CFG_QUEUE_URL)) {
        if ((st = srv_cluster_start(dm, c, o->log, d)) != ZKPIPE_OK) goto out;
    }
    const char *http_addr = zkp_config_str(c, ZKP_CFG_METRICS_HTTP);
    if (*http_addr) {
        if ((st = zkp_http_start(&http, http_addr, dm->metrics, srv_metrics_source, dm, d)) != ZKPIPE_OK)
            goto out;
        log_(o, "metrics on http://%s/metrics and /status", http_addr);
    }
    if ((st = zkp_rpc_server_start(dm->rpc, d)) != ZKPIPE_OK) goto out;
    log_(o, "ready (pid %ld)", (long)getpid());

    int sig;
    while (!(sig = wait_signal_(&set, 1000))) {
    }
    log_(o, "%s received", strsignal(sig));
    rc = drain_(dm, o, &set, zkp_config_int(c, ZKP_CFG_SERVER_DRAIN_TIMEOUT_MS), &drain_end);
    if (rc != 0) {
        /* The second signal: no more waiting for anything. */
        if (sock_path) unlink(sock_path);
        _exit(rc);
    }

out:
    zkp_http_stop(&http);
    /* Calls still in flight get what is left of the drain timeout, not a
     * grace period of their own: the exit follows the timeout. */
    zkp_rpc_server_destroy(&dm->rpc, drain_end > 0 ? (int64_t)((drain_end - srv_now()) * 1000.0) : 0);
    /* Before the collector: the members' runners wait for local jobs. */
    srv_cluster_stop(dm);
    if (collector) {
        pthread_mutex_lock(&dm->lk);
        dm->stopping = 1;
        pthread_mutex_unlock(&dm->lk);
        pthread_join(dm->collector, NULL);
    }
    /* Request data lives in engine buffers, which go before the engine. A
     * drain leaves no live job, so every job's data has gone already; one
     * still live (an exit before the drain ended) keeps its data for the
     * engine to read until it is destroyed, and it is left to the exit. */
    for (srv_job *j = dm->jobs; j; j = j->next) {
        if (!j->final) {
            j->payload_free = NULL;
            continue;
        }
        payload_free_(payload_take_locked_(dm, j));
    }
    (void)zkpipe_engine_destroy(&dm->engine);
    while (dm->jobs) {
        srv_job *j = dm->jobs;
        dm->jobs = j->next;
        job_free_(j);
    }
    for (size_t i = 0; i < dm->n_keys; i++) free(dm->keys[i].path);
    srv_key_dirs_free(dm->key_dirs, dm->n_key_dirs);
    srv_tcp_security_free(&sec);
    zkp_metrics_destroy(dm->metrics);
    if (sock_path) unlink(sock_path);
    free(sock_path);
    pthread_cond_destroy(&dm->cv);
    pthread_mutex_destroy(&dm->lk);
    free(dm);
    return rc;
}
