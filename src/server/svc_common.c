#include "server/svc_common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int svc_priority(int wire, zkpipe_priority *out) {
    switch (wire) {
    case 0:
    case 2: *out = ZKPIPE_PRIORITY_NORMAL; return 1;
    case 1: *out = ZKPIPE_PRIORITY_LOW; return 1;
    case 3: *out = ZKPIPE_PRIORITY_HIGH; return 1;
    case 4: *out = ZKPIPE_PRIORITY_CRITICAL; return 1;
    default: return 0;
    }
}

int svc_utf8_ok(const char *s) {
    const unsigned char *p = (const unsigned char *)s;
    while (*p) {
        unsigned c = *p, n;
        uint32_t cp;
        if (c < 0x80) {
            p++;
            continue;
        } else if ((c & 0xe0) == 0xc0) {
            n = 1;
            cp = c & 0x1f;
        } else if ((c & 0xf0) == 0xe0) {
            n = 2;
            cp = c & 0x0f;
        } else if ((c & 0xf8) == 0xf0) {
            n = 3;
            cp = c & 0x07;
        } else {
            return 0;
        }
        for (unsigned i = 1; i <= n; i++) {
            if ((p[i] & 0xc0) != 0x80) return 0;
            cp = (cp << 6) | (p[i] & 0x3f);
        }
        /* Overlong forms, surrogates and values past U+10FFFF. */
        static const uint32_t min_cp[4] = {0, 0x80, 0x800, 0x10000};
        if (cp < min_cp[n] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return 0;
        p += n + 1;
    }
    return 1;
}

void svc_unpack_error(zkp_rpc_code why, const char *what, size_t len, char *msg, size_t msg_len) {
    if (why == ZKP_RPC_RESOURCE_EXHAUSTED)
        snprintf(msg, msg_len, "the memory budget cannot hold a %s of %zu bytes now; retry later",
                 what, len);
    else
        snprintf(msg, msg_len, "malformed %s", what);
}

zkp_rpc_code svc_decode_submit(zkp_daemon *d, srv_service service, const uint8_t *req, size_t len,
                               srv_submit_req *r, char *msg, size_t msg_len) {
    switch (service) {
    case SRV_SERVICE_ZKPIPE: return svc_zkpipe_decode_submit(d, req, len, r, msg, msg_len);
    case SRV_SERVICE_CUZK: return svc_cuzk_decode_submit(d, req, len, r, msg, msg_len);
    }
    memset(r, 0, sizeof *r);
    snprintf(msg, msg_len, "unknown service %d", (int)service);
    return ZKP_RPC_INVALID_ARGUMENT;
}

/* ------------------------------------------------------------------------
 * Large requests */

void *svc_large_alloc(void *daemon, size_t bytes, uint8_t **data) {
    zkp_daemon *d = daemon;
    zkpipe_engine_buffer *b = NULL;
    *data = NULL;
    if (zkpipe_engine_buffer_create(d->engine, bytes, SVC_BUDGET_WAIT_MS, &b) != ZKPIPE_OK)
        return NULL;
    *data = zkpipe_engine_buffer_data(b);
    return b;
}

void svc_large_release(void *daemon, void *handle) {
    (void)daemon;
    zkpipe_engine_buffer *b = handle;
    zkpipe_engine_buffer_destroy(&b);
}

typedef struct arena_chunk {
    zkpipe_engine_buffer *buf;
    size_t used;
    struct arena_chunk *next;
} arena_chunk;

struct svc_arena {
    zkpipe_engine *engine;
    ProtobufCAllocator pa;
    arena_chunk *chunks; /* the newest first; allocations bump in it */
    size_t first_size;
    int refused; /* the budget or the OS said no: not a malformed message */
};

#define ARENA_ALIGN 16

/* protobuf-c's allocations: bumped out of the newest chunk, or out of a
 * new one at least as large as the first (sized for the whole message, so
 * a second is rare: only repeated fields whose unpacked form outweighs
 * their wire form need one). */
static void *arena_alloc_(void *data, size_t size) {
    svc_arena *a = data;
    if (size > SIZE_MAX - ARENA_ALIGN) return NULL;
    size = (size + ARENA_ALIGN - 1) & ~(size_t)(ARENA_ALIGN - 1);
    arena_chunk *c = a->chunks;
    if (!c || zkpipe_engine_buffer_size(c->buf) - c->used < size) {
        arena_chunk *n = calloc(1, sizeof *n);
        size_t want = size > a->first_size ? size : a->first_size;
        if (!n || zkpipe_engine_buffer_create(a->engine, want, SVC_BUDGET_WAIT_MS, &n->buf) !=
                      ZKPIPE_OK) {
            free(n);
            a->refused = 1;
            return NULL;
        }
        n->next = a->chunks;
        a->chunks = n;
        c = n;
    }
    void *p = zkpipe_engine_buffer_data(c->buf) + c->used;
    c->used += size;
    return p;
}

/* Freed with the arena. */
static void arena_free_(void *data, void *p) {
    (void)data;
    (void)p;
}

static void arena_destroy_(svc_arena *a) {
    if (!a) return;
    while (a->chunks) {
        arena_chunk *c = a->chunks;
        a->chunks = c->next;
        zkpipe_engine_buffer_destroy(&c->buf);
        free(c);
    }
    free(a);
}

ProtobufCMessage *svc_unpack(zkp_daemon *d, const ProtobufCMessageDescriptor *desc,
                             const uint8_t *req, size_t len, svc_arena **arena, zkp_rpc_code *code) {
    *arena = NULL;
    *code = ZKP_RPC_INVALID_ARGUMENT;
    if (len < SVC_LARGE_MESSAGE) return protobuf_c_message_unpack(desc, NULL, len, req);
    svc_arena *a = calloc(1, sizeof *a);
    if (!a) {
        *code = ZKP_RPC_RESOURCE_EXHAUSTED;
        return NULL;
    }
    a->engine = d->engine;
    a->pa = (ProtobufCAllocator){arena_alloc_, arena_free_, a};
    /* The wire form plus room for the structures around its fields: bytes
     * fields unpack to their length plus a 16-byte descriptor each. */
    a->first_size = len + len / 8 + ((size_t)64 << 10);
    ProtobufCMessage *m = protobuf_c_message_unpack(desc, &a->pa, len, req);
    if (!m) {
        if (a->refused) *code = ZKP_RPC_RESOURCE_EXHAUSTED;
        arena_destroy_(a);
        return NULL;
    }
    *arena = a;
    return m;
}

void svc_unpacked_free(ProtobufCMessage *m, svc_arena *arena) {
    if (arena)
        arena_destroy_(arena);
    else if (m)
        protobuf_c_message_free_unpacked(m, NULL);
}

svc_payload *svc_payload_new(ProtobufCMessage *msg, svc_arena *arena) {
    svc_payload *p = calloc(1, sizeof *p);
    if (!p) {
        svc_unpacked_free(msg, arena);
        return NULL;
    }
    p->msg = msg;
    p->arena = arena;
    return p;
}

void svc_payload_free(void *p) {
    svc_payload *sp = p;
    if (!sp) return;
    svc_unpacked_free(sp->msg, sp->arena);
    free(sp->w);
    free(sp);
}

uint64_t svc_ms(double seconds) { return seconds > 0 ? (uint64_t)(seconds * 1000.0 + 0.5) : 0; }

static double longer_(double a, double b) { return b > a ? b : a; }

void svc_stage_times(const zkpipe_job_result *r, zkpipe_stage_times *out) {
    memset(out, 0, sizeof *out);
    out->queue_wait = r->times.queue_wait;
    out->total = r->times.total;
    for (size_t i = 0; i < r->n_partitions; i++) {
        const zkpipe_stage_times *t = &r->partitions[i].times;
        out->queue_wait = longer_(out->queue_wait, t->queue_wait);
        out->key_load = longer_(out->key_load, t->key_load);
        out->synthesis = longer_(out->synthesis, t->synthesis);
        out->device = longer_(out->device, t->device);
        out->finalize = longer_(out->finalize, t->finalize);
        out->verify = longer_(out->verify, t->verify);
        for (int s = 0; s < ZKPIPE_N_STEPS; s++) out->steps[s] = longer_(out->steps[s], t->steps[s]);
    }
}

/* ------------------------------------------------------------------------
 * Prove: a job that lives and dies with its call */

typedef struct {
    zkp_daemon *d;
    srv_job *job;
    svc_reply_fn reply;
    int disowned; /* under the daemon lock */
} owned_call;

/* Runs on the completion-queue thread when the client goes. */
static void owned_gone_(void *arg) {
    owned_call *o = arg;
    pthread_mutex_lock(&o->d->lk);
    int first = !o->disowned;
    o->disowned = 1;
    pthread_mutex_unlock(&o->d->lk);
    if (first) srv_job_disown(o->d, o->job, 1);
}

static void owned_thread_(zkp_daemon *d, zkp_rpc_call *call, void *arg) {
    owned_call *o = arg;
    zkp_rpc_call_on_gone(call, owned_gone_, o);
    int final = srv_job_wait(d, o->job, -1, call);
    /* After the answer the gone watcher never runs, so o may go. */
    o->reply(call, o->job, final);
    pthread_mutex_lock(&d->lk);
    int first = !o->disowned;
    o->disowned = 1;
    pthread_mutex_unlock(&d->lk);
    if (first) srv_job_disown(d, o->job, 0);
}

static void owned_free_(void *arg) {
    owned_call *o = arg;
    pthread_mutex_lock(&o->d->lk);
    int first = !o->disowned;
    pthread_mutex_unlock(&o->d->lk);
    /* A thread that never started leaves a job nobody waits for. */
    if (first) srv_job_disown(o->d, o->job, 1);
    srv_job_put(o->d, o->job);
    free(o);
}

void svc_prove(zkp_daemon *d, zkp_rpc_call *call, srv_submit_req *r, svc_reply_fn reply) {
    owned_call *o = calloc(1, sizeof *o);
    if (!o) {
        if (r->payload_free) r->payload_free(r->payload);
        zkp_rpc_reply_error(call, ZKP_RPC_RESOURCE_EXHAUSTED, "out of memory");
        return;
    }
    r->owned_by_call = 1;
    uint32_t pos;
    char msg[300];
    zkp_rpc_code code = srv_submit(d, r, &o->job, &pos, msg, sizeof msg);
    if (code != ZKP_RPC_OK) {
        free(o);
        zkp_rpc_reply_error(call, code, "%s", msg);
        return;
    }
    o->d = d;
    o->reply = reply;
    srv_run_blocking(d, call, owned_thread_, o, owned_free_);
}

/* ------------------------------------------------------------------------
 * Keys */

void svc_key_name(const zkp_server_view *view, uint32_t id, char *buf, size_t cap) {
    for (size_t i = 0; i < view->n_key_names; i++)
        if (view->key_ids[i] == id) {
            snprintf(buf, cap, "%s", view->key_names[i]);
            return;
        }
    snprintf(buf, cap, "key%u", id);
}

/* The engine's view of one key. */
static int key_status_(zkp_daemon *d, uint32_t id, zkpipe_key_status *out) {
    zkpipe_engine_status *st = malloc(sizeof *st);
    int found = 0;
    if (st && zkpipe_engine_get_status(d->engine, st) == ZKPIPE_OK)
        for (size_t i = 0; i < st->n_keys; i++)
            if (st->keys[i].id == id) {
                *out = st->keys[i];
                found = 1;
            }
    free(st);
    return found;
}

zkp_rpc_code svc_key_load(zkp_daemon *d, const char *name, int *was_hot, double *ms, char *msg,
                          size_t msg_len) {
    *was_hot = 0;
    *ms = 0;
    uint32_t id = srv_key_lookup(d, name);
    if (!id) {
        zkp_rpc_code code = srv_porep_key_register_named(d, name, &id, msg, msg_len);
        if (code != ZKP_RPC_OK) return code;
    }
    zkpipe_key_status ks;
    *was_hot = key_status_(d, id, &ks) && ks.tier == ZKPIPE_KEY_HOT;
    double t0 = srv_now();
    zkpipe_status st = zkpipe_engine_load_key(d->engine, id);
    *ms = (srv_now() - t0) * 1000.0;
    if (st != ZKPIPE_OK) {
        snprintf(msg, msg_len, "cannot load key '%.80s': %s", name, zkpipe_strerror(st));
        return ZKP_RPC_FAILED_PRECONDITION;
    }
    return ZKP_RPC_OK;
}

zkp_rpc_code svc_key_evict(zkp_daemon *d, const char *name, int *was_loaded, uint64_t *freed) {
    *was_loaded = 0;
    *freed = 0;
    uint32_t id = srv_key_lookup(d, name);
    if (!id) return ZKP_RPC_NOT_FOUND;
    zkpipe_key_status ks;
    if (!key_status_(d, id, &ks)) return ZKP_RPC_NOT_FOUND;
    if (ks.tier != ZKPIPE_KEY_HOT) return ZKP_RPC_OK;
    if (zkpipe_engine_evict_key(d->engine, id) != ZKPIPE_OK) return ZKP_RPC_FAILED_PRECONDITION;
    *was_loaded = 1;
    *freed = ks.resident_bytes;
    return ZKP_RPC_OK;
}

char *svc_render(zkp_daemon *d, int json) {
    zkpipe_engine_status *st = malloc(sizeof *st);
    zkp_server_view view;
    char *text = NULL;
    if (st && srv_metrics_source(d, st, &view) == 0)
        text = json ? zkp_metrics_status_json(d->metrics, st, &view)
                    : zkp_metrics_prometheus(d->metrics, st, &view);
    free(st);
    return text;
}

zkpipe_status svc_register(zkp_daemon *d, const char *prefix, const svc_method *m, size_t n) {
    for (size_t i = 0; i < n; i++) {
        char path[128];
        snprintf(path, sizeof path, "%s%s", prefix, m[i].name);
        zkpipe_status st = zkp_rpc_server_add_method(d->rpc, path, m[i].fn, d);
        if (st != ZKPIPE_OK) return st;
    }
    return ZKPIPE_OK;
}
