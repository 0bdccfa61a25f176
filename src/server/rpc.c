/* The one file that calls gRPC core (see rpc.h).
 *
 * Threads. ZKP_RPC_CQ_THREADS threads take events from one completion
 * queue; gRPC core also polls the sockets on them, so while one is busy
 * the others keep reading and answering. A call's events may land on any
 * of them: what they share in a call is atomic (ops_left) or under the
 * call's lock. A request message of at least large.min_bytes is copied
 * out of gRPC's slices and handled on a thread of its own (a decoder), so
 * a 50 MB upload never holds a completion-queue thread for the tens of
 * milliseconds its copies take. Decoders are counted and joined by count
 * before the server is freed. */
#include "server/rpc.h"

#include <grpc/byte_buffer.h>
#include <grpc/byte_buffer_reader.h>
#include <grpc/grpc.h>
#include <grpc/grpc_security.h>
#include <grpc/support/alloc.h>
#include <grpc/support/time.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "mem/mem.h"
#include "util/clock.h"

#define MAX_METHODS 32
/* Enough that small calls find a free thread while large messages are
 * read on the others; each costs a thread and little else. */
#define ZKP_RPC_CQ_THREADS 4
/* The decoders' nice value, relative to the daemon's other threads (a
 * third of their CPU share under contention). */
#define DECODER_NICE 5

/* What a completion-queue event is about. */
typedef enum { TAG_NEW_CALL, TAG_RECV, TAG_CLOSE, TAG_SEND, TAG_SHUTDOWN } tag_kind;

typedef struct {
    tag_kind kind;
    zkp_rpc_call *call;
} rpc_tag;

typedef struct {
    char *path;
    zkp_rpc_handler fn;
    void *ctx;
} rpc_method;

struct zkp_rpc_server {
    grpc_server *server;
    grpc_completion_queue *cq;
    pthread_t threads[ZKP_RPC_CQ_THREADS];
    size_t n_threads; /* started */
    int started;
    zkp_rpc_large_messages large;
    size_t max_message;
    char *token; /* what calls not on a unix socket must carry, or NULL */
    size_t token_len;
    rpc_method methods[MAX_METHODS];
    size_t n_methods;
    atomic_int shutting_down;
    atomic_size_t in_flight; /* received, not yet answered */
    atomic_uint_fast64_t handoffs; /* see handoff_release_ */
    rpc_tag shutdown_tag;
    void (*observer)(void *ctx, const char *method, int code);
    void *observer_ctx;
    pthread_mutex_t lk;
    pthread_cond_t cv;
    int shutdown_done; /* the server's shutdown notification arrived */
    /* Operations are started under the read side; destroy takes the write
     * side to set ops_closed before the server and the queue go. A call
     * answered after that (a cancelled upload's error, a job that ends
     * during the drain) would start an operation on a shut-down queue,
     * which gRPC treats as a fatal assertion. */
    pthread_rwlock_t ops_lk;
    int ops_closed;
    size_t decoders;   /* decoder threads running, under lk */
    int decoders_closed; /* under lk: destroy waited for them, no more start */
};

/* A call moves between threads through gRPC core: the thread that starts an
 * operation hands the call's tag to gRPC, and whichever completion-queue
 * thread receives the event carries on with the call. gRPC orders the two
 * with synchronisation of its own, which ThreadSanitizer cannot see (gRPC
 * comes uninstrumented), so every such hand-off would read as a race on
 * the call's fields. A release on one counter before each operation is
 * started and an acquire after each event make the order visible; they
 * cost an atomic add and a load, and order nothing gRPC does not already. */
static void handoff_release_(zkp_rpc_server *s) {
    atomic_fetch_add_explicit(&s->handoffs, 1, memory_order_release);
}

static void handoff_acquire_(zkp_rpc_server *s) {
    (void)atomic_load_explicit(&s->handoffs, memory_order_acquire);
}

/* Starts a batch on a call, or refuses (0) once the queue is closing. */
static int start_batch_(zkp_rpc_server *s, grpc_call *call, const grpc_op *ops, size_t n, void *tag) {
    pthread_rwlock_rdlock(&s->ops_lk);
    int ok = !s->ops_closed;
    if (ok) {
        handoff_release_(s);
        ok = grpc_call_start_batch(call, ops, n, tag, NULL) == GRPC_CALL_OK;
    }
    pthread_rwlock_unlock(&s->ops_lk);
    return ok;
}

/* One call. References: the completion-queue threads hold one until both
 * the receive and the close ops completed (ops_left); each send batch in
 * flight holds one; a decoder holds one; handlers that answer later hold
 * their own. */
struct zkp_rpc_call {
    zkp_rpc_server *srv;
    grpc_call *call;
    grpc_call_details details;
    grpc_metadata_array request_md;
    grpc_byte_buffer *request;
    grpc_byte_buffer *response;
    char method[128];
    int cancelled_flag; /* written by gRPC when the close op completes */
    atomic_int gone;
    atomic_int answered;
    atomic_int refs;
    atomic_int ops_left; /* of the receive and close ops; the last one drops the reference */
    rpc_tag new_tag, recv_tag, close_tag, send_tag;
    grpc_slice status_details;
    void (*on_gone)(void *);
    void *on_gone_arg;
    pthread_mutex_t lk; /* on_gone registration against the close event */
};

/* The message size limit, both ways, as channel arguments (in args). */
static grpc_channel_args size_args_(grpc_arg args[2], size_t max_message) {
    memset(args, 0, 2 * sizeof *args);
    args[0].type = args[1].type = GRPC_ARG_INTEGER;
    args[0].key = (char *)GRPC_ARG_MAX_RECEIVE_MESSAGE_LENGTH;
    args[1].key = (char *)GRPC_ARG_MAX_SEND_MESSAGE_LENGTH;
    args[0].value.integer = args[1].value.integer = (int)max_message;
    return (grpc_channel_args){2, args};
}

static pthread_once_t grpc_once = PTHREAD_ONCE_INIT;
static void grpc_init_once_(void) { grpc_init(); }

/* ------------------------------------------------------------------------
 * Calls */

static void call_free_(zkp_rpc_call *c) {
    if (c->call) grpc_call_unref(c->call);
    grpc_call_details_destroy(&c->details);
    grpc_metadata_array_destroy(&c->request_md);
    if (c->request) grpc_byte_buffer_destroy(c->request);
    if (c->response) grpc_byte_buffer_destroy(c->response);
    grpc_slice_unref(c->status_details);
    pthread_mutex_destroy(&c->lk);
    free(c);
}

void zkp_rpc_call_ref(zkp_rpc_call *c) { atomic_fetch_add(&c->refs, 1); }

void zkp_rpc_call_unref(zkp_rpc_call *c) {
    if (c && atomic_fetch_sub(&c->refs, 1) == 1) call_free_(c);
}

const char *zkp_rpc_call_method(const zkp_rpc_call *c) { return c->method; }

const char *zkp_rpc_code_name(int code) {
    static const char *const names[] = {
        "OK",          "CANCELLED",      "UNKNOWN",      "INVALID_ARGUMENT", "DEADLINE_EXCEEDED",
        "NOT_FOUND",   "ALREADY_EXISTS", "PERMISSION_DENIED", "RESOURCE_EXHAUSTED",
        "FAILED_PRECONDITION", "ABORTED", "OUT_OF_RANGE", "UNIMPLEMENTED", "INTERNAL",
        "UNAVAILABLE", "DATA_LOSS",      "UNAUTHENTICATED",
    };
    return code >= 0 && code < (int)(sizeof names / sizeof names[0]) ? names[code] : "?";
}

int zkp_rpc_call_gone(const zkp_rpc_call *c) { return atomic_load(&c->gone); }

void zkp_rpc_call_on_gone(zkp_rpc_call *c, void (*fn)(void *arg), void *arg) {
    pthread_mutex_lock(&c->lk);
    if (atomic_load(&c->gone)) {
        fn(arg);
    } else {
        c->on_gone = fn;
        c->on_gone_arg = arg;
    }
    pthread_mutex_unlock(&c->lk);
}

/* Sends the answer: initial metadata, the message (if any) and the status,
 * in one batch with no receive op. */
static void send_(zkp_rpc_call *c, grpc_byte_buffer *msg, zkp_rpc_code code, const char *detail) {
    /* From here the gone watcher never runs, so whoever registered it may
     * free its argument once this returns. */
    pthread_mutex_lock(&c->lk);
    c->on_gone = NULL;
    pthread_mutex_unlock(&c->lk);
    if (atomic_exchange(&c->answered, 1)) {
        if (msg) grpc_byte_buffer_destroy(msg);
        return;
    }
    if (c->srv->observer) c->srv->observer(c->srv->observer_ctx, c->method, (int)code);
    c->response = msg;
    c->status_details = grpc_slice_from_copied_string(detail ? detail : "");
    grpc_op ops[3];
    memset(ops, 0, sizeof ops);
    size_t n = 0;
    ops[n++].op = GRPC_OP_SEND_INITIAL_METADATA;
    if (msg) {
        ops[n].op = GRPC_OP_SEND_MESSAGE;
        ops[n++].data.send_message.send_message = msg;
    }
    ops[n].op = GRPC_OP_SEND_STATUS_FROM_SERVER;
    ops[n].data.send_status_from_server.status = (grpc_status_code)code;
    ops[n++].data.send_status_from_server.status_details = detail ? &c->status_details : NULL;
    zkp_rpc_call_ref(c);
    if (!start_batch_(c->srv, c->call, ops, n, &c->send_tag)) {
        /* The server is gone (its calls were cancelled), or a programming
         * error; the call is dropped and the client sees its deadline or
         * disconnect. */
        atomic_fetch_sub(&c->srv->in_flight, 1);
        zkp_rpc_call_unref(c);
    }
}

void zkp_rpc_reply(zkp_rpc_call *c, const uint8_t *resp, size_t len) {
    grpc_slice s = grpc_slice_from_copied_buffer((const char *)resp, len);
    grpc_byte_buffer *bb = grpc_raw_byte_buffer_create(&s, 1);
    grpc_slice_unref(s);
    send_(c, bb, ZKP_RPC_OK, NULL);
}

void zkp_rpc_reply_error(zkp_rpc_call *c, zkp_rpc_code code, const char *fmt, ...) {
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    send_(c, NULL, code, msg);
}

/* ------------------------------------------------------------------------
 * Server */

static void request_next_(zkp_rpc_server *s);

zkpipe_status zkp_rpc_server_create(zkp_rpc_server **out, size_t max_message, zkp_diag *d) {
    *out = NULL;
    if (max_message == 0 || max_message > (size_t)INT32_MAX)
        return zkp_diag_fail(d, ZKPIPE_ERR_OUT_OF_RANGE,
                             "message size limit %zu is outside 1 .. %d bytes", max_message,
                             INT32_MAX);
    pthread_once(&grpc_once, grpc_init_once_);
    zkp_rpc_server *s = calloc(1, sizeof *s);
    if (!s) return zkp_diag_fail(d, ZKPIPE_ERR_NO_MEMORY, "out of memory");
    s->max_message = max_message;
    grpc_arg args[2];
    grpc_channel_args cargs = size_args_(args, max_message);
    s->server = grpc_server_create(&cargs, NULL);
    s->cq = grpc_completion_queue_create_for_next(NULL);
    grpc_server_register_completion_queue(s->server, s->cq, NULL);
    s->shutdown_tag.kind = TAG_SHUTDOWN;
    pthread_mutex_init(&s->lk, NULL);
    pthread_cond_init(&s->cv, NULL);
    pthread_rwlock_init(&s->ops_lk, NULL);
    *out = s;
    return ZKPIPE_OK;
}

zkpipe_status zkp_rpc_server_add_method(zkp_rpc_server *s, const char *path, zkp_rpc_handler h,
                                        void *ctx) {
    if (s->started || s->n_methods == MAX_METHODS || strlen(path) >= sizeof(((zkp_rpc_call *)0)->method))
        return ZKPIPE_ERR_INVALID_ARGUMENT;
    char *p = strdup(path);
    if (!p) return ZKPIPE_ERR_NO_MEMORY;
    s->methods[s->n_methods++] = (rpc_method){p, h, ctx};
    return ZKPIPE_OK;
}

zkpipe_status zkp_rpc_server_listen(zkp_rpc_server *s, const char *addr, int *port, zkp_diag *d) {
    return zkp_rpc_server_listen_tls(s, addr, NULL, port, d);
}

zkpipe_status zkp_rpc_server_listen_tls(zkp_rpc_server *s, const char *addr, const zkp_rpc_tls *tls,
                                        int *port, zkp_diag *d) {
    if (s->started) return zkp_diag_fail(d, ZKPIPE_ERR_INVALID_ARGUMENT, "server already started");
    grpc_server_credentials *creds;
    if (tls) {
        grpc_ssl_pem_key_cert_pair pair = {tls->private_key, tls->cert_chain};
        creds = grpc_ssl_server_credentials_create_ex(
            tls->client_ca, &pair, 1,
            tls->client_ca ? GRPC_SSL_REQUEST_AND_REQUIRE_CLIENT_CERTIFICATE_AND_VERIFY
                           : GRPC_SSL_DONT_REQUEST_CLIENT_CERTIFICATE,
            NULL);
    } else {
        creds = grpc_insecure_server_credentials_create();
    }
    int p = creds ? grpc_server_add_http2_port(s->server, addr, creds) : 0;
    if (creds) grpc_server_credentials_release(creds);
    /* gRPC builds the TLS context as it adds the port, so a key that is
     * not the certificate's, or PEM it cannot parse, fails here. */
    if (p == 0 && tls)
        return zkp_diag_fail(d, ZKPIPE_ERR_INVALID_ARGUMENT,
                             "cannot listen on %s with TLS: the address is in use or not valid, or "
                             "gRPC cannot use the certificate and key (is the key the "
                             "certificate's? are both PEM?); its log says which",
                             addr);
    if (p == 0) return zkp_diag_fail(d, ZKPIPE_ERR_IO, "cannot listen on %s", addr);
    if (port) *port = p;
    return ZKPIPE_OK;
}

zkpipe_status zkp_rpc_server_require_token(zkp_rpc_server *s, const char *token) {
    if (s->started) return ZKPIPE_ERR_INVALID_ARGUMENT;
    char *t = token ? strdup(token) : NULL;
    if (token && !t) return ZKPIPE_ERR_NO_MEMORY;
    free(s->token);
    s->token = t;
    s->token_len = t ? strlen(t) : 0;
    return ZKPIPE_OK;
}

int zkp_rpc_token_equal(const char *want, size_t want_len, const char *got, size_t got_len) {
    /* Every byte of want is compared, whatever got holds: the time tells
     * a caller neither how much of a guess was right nor got's length. */
    unsigned diff = want_len != got_len;
    for (size_t i = 0; i < want_len; i++)
        diff |= (unsigned char)want[i] ^ (unsigned char)(i < got_len ? got[i] : 0);
    return diff == 0;
}

/* Whether a call may go on: one on a unix socket always (the socket's
 * mode decided who connects), any other only with the token when one is
 * set. On refusal *why says what was wrong. */
static int call_authorized_(const zkp_rpc_server *s, zkp_rpc_call *c, const char **why) {
    if (!s->token) return 1;
    char *peer = grpc_call_get_peer(c->call);
    int local =
        peer && (strncmp(peer, "unix:", 5) == 0 || strncmp(peer, "unix-abstract:", 14) == 0);
    gpr_free(peer);
    if (local) return 1;
    *why = "the call has no \"authorization: Bearer <token>\" metadata";
    int ok = 0;
    for (size_t i = 0; i < c->request_md.count; i++) {
        const grpc_metadata *m = &c->request_md.metadata[i];
        if (grpc_slice_str_cmp(m->key, "authorization") != 0) continue;
        const char *v = (const char *)GRPC_SLICE_START_PTR(m->value);
        size_t n = GRPC_SLICE_LENGTH(m->value);
        if (n < 7 || strncasecmp(v, "bearer ", 7) != 0) continue;
        *why = "the bearer token is not the daemon's";
        ok |= zkp_rpc_token_equal(s->token, s->token_len, v + 7, n - 7);
    }
    return ok;
}

static const rpc_method *route_(const zkp_rpc_server *s, const char *path) {
    for (size_t i = 0; i < s->n_methods; i++)
        if (strcmp(s->methods[i].path, path) == 0) return &s->methods[i];
    return NULL;
}

/* One of the call's two completion-queue ops (receive, close) is done;
 * the last one drops the completion-queue threads' reference. */
static void op_done_(zkp_rpc_call *c) {
    if (atomic_fetch_sub(&c->ops_left, 1) == 1) zkp_rpc_call_unref(c);
}

/* A new call arrived: ask for its message and for its close event. */
static void on_new_call_(zkp_rpc_server *s, zkp_rpc_call *c, int ok) {
    if (!ok) { /* the server is shutting down */
        call_free_(c);
        return;
    }
    request_next_(s);
    size_t n = GRPC_SLICE_LENGTH(c->details.method);
    if (n >= sizeof c->method) n = sizeof c->method - 1;
    memcpy(c->method, GRPC_SLICE_START_PTR(c->details.method), n);
    c->method[n] = 0;
    atomic_fetch_add(&s->in_flight, 1);
    /* The completion-queue threads' reference covers both ops; their
     * events may arrive on other threads before this one returns. */
    atomic_store(&c->ops_left, 2);
    grpc_op recv;
    memset(&recv, 0, sizeof recv);
    recv.op = GRPC_OP_RECV_MESSAGE;
    recv.data.recv_message.recv_message = &c->request;
    grpc_op close;
    memset(&close, 0, sizeof close);
    close.op = GRPC_OP_RECV_CLOSE_ON_SERVER;
    close.data.recv_close_on_server.cancelled = &c->cancelled_flag;
    /* The call's own reference keeps it alive across both starts. */
    zkp_rpc_call_ref(c);
    if (!start_batch_(s, c->call, &close, 1, &c->close_tag)) op_done_(c);
    const char *why = NULL;
    if (!call_authorized_(s, c, &why)) {
        /* Refused before its message is read: a client without the token
         * never makes the daemon take in a request. */
        zkp_rpc_reply_error(c, ZKP_RPC_UNAUTHENTICATED, "%s", why);
        op_done_(c);
    } else {
        if (!start_batch_(s, c->call, &recv, 1, &c->recv_tag)) {
            zkp_rpc_reply_error(c, ZKP_RPC_INTERNAL, "cannot read the request");
            op_done_(c);
        }
    }
    zkp_rpc_call_unref(c);
}

/* Copies a received message into one flat buffer: the large-message
 * allocator's (*handle set) or malloc's. NULL when the allocator refuses
 * (*refused set) or memory runs out. */
static uint8_t *flatten_(zkp_rpc_server *s, grpc_byte_buffer *bb, size_t *len, void **handle,
                         int *refused) {
    *len = 0;
    *handle = NULL;
    *refused = 0;
    grpc_byte_buffer_reader rd;
    if (!grpc_byte_buffer_reader_init(&rd, bb)) return NULL;
    /* The reader's output is the message as sent: a compressed one is
     * inflated by reader_init. */
    size_t n = grpc_byte_buffer_length(rd.buffer_out);
    *len = n;
    uint8_t *out = NULL;
    if (s->large.alloc) {
        *handle = s->large.alloc(s->large.ctx, n ? n : 1, &out);
        if (!*handle) *refused = 1;
    } else {
        out = malloc(n ? n : 1);
    }
    if (out) {
        size_t at = 0;
        grpc_slice sl;
        while (grpc_byte_buffer_reader_next(&rd, &sl)) {
            size_t k = GRPC_SLICE_LENGTH(sl);
            if (k > n - at) k = n - at; /* cannot happen: the length counts the slices */
            memcpy(out + at, GRPC_SLICE_START_PTR(sl), k);
            at += k;
            grpc_slice_unref(sl);
        }
        *len = at;
    }
    grpc_byte_buffer_reader_destroy(&rd);
    return out;
}

typedef struct {
    zkp_rpc_server *s;
    zkp_rpc_call *call;
    const rpc_method *m;
} decode_job;

/* A large message: one copy out of gRPC's slices into its final buffer,
 * gRPC's slices freed at once, then the handler; off the completion-queue
 * threads. */
static void *decoder_(void *arg) {
    decode_job *dj = arg;
    /* Bulk copying yields to the threads that answer small calls: when
     * CPUs are short, a status call waits for a scheduler tick, not for a
     * 50 MB copy. Linux applies a nice value to the calling thread alone. */
    (void)setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), DECODER_NICE);
    zkp_rpc_server *s = dj->s;
    zkp_rpc_call *c = dj->call;
    size_t len;
    void *handle;
    int refused;
    uint8_t *flat = flatten_(s, c->request, &len, &handle, &refused);
    grpc_byte_buffer_destroy(c->request);
    c->request = NULL;
    /* The transport read the message into malloc'd slices of a few KiB to
     * a few MiB; with them freed, their pages go back to the system now
     * rather than staying in the C library's arenas. */
    zkp_mem_trim_heap();
    if (!flat) {
        if (refused)
            zkp_rpc_reply_error(c, ZKP_RPC_RESOURCE_EXHAUSTED,
                                "the memory budget cannot hold a request of %zu bytes now; retry later",
                                len);
        else
            zkp_rpc_reply_error(c, ZKP_RPC_RESOURCE_EXHAUSTED, "out of memory for the request");
    } else {
        dj->m->fn(dj->m->ctx, c, flat, len);
        if (handle) s->large.release(s->large.ctx, handle);
        else free(flat);
    }
    op_done_(c);
    free(dj);
    pthread_mutex_lock(&s->lk);
    s->decoders--;
    pthread_cond_broadcast(&s->cv);
    pthread_mutex_unlock(&s->lk);
    return NULL;
}

/* Starts a decoder for a large message; 0 when no thread can start. */
static int decode_apart_(zkp_rpc_server *s, zkp_rpc_call *c, const rpc_method *m) {
    decode_job *dj = malloc(sizeof *dj);
    if (!dj) return 0;
    *dj = (decode_job){s, c, m};
    pthread_mutex_lock(&s->lk);
    int closed = s->decoders_closed;
    if (!closed) s->decoders++;
    pthread_mutex_unlock(&s->lk);
    if (closed) { /* a message that completed as the server stopped */
        free(dj);
        return 0;
    }
    pthread_attr_t at;
    pthread_attr_init(&at);
    pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
    pthread_attr_setstacksize(&at, 256 * 1024);
    pthread_t t;
    int ok = pthread_create(&t, &at, decoder_, dj) == 0;
    pthread_attr_destroy(&at);
    if (!ok) {
        free(dj);
        pthread_mutex_lock(&s->lk);
        s->decoders--;
        pthread_cond_broadcast(&s->cv);
        pthread_mutex_unlock(&s->lk);
    }
    return ok;
}

static void on_recv_(zkp_rpc_server *s, zkp_rpc_call *c, int ok) {
    if (!ok || !c->request) {
        zkp_rpc_reply_error(c, ok ? ZKP_RPC_INVALID_ARGUMENT : ZKP_RPC_CANCELLED,
                            ok ? "the request has no message" : "the call ended before its request arrived");
    } else {
        const rpc_method *m = route_(s, c->method);
        if (!m) {
            zkp_rpc_reply_error(c, ZKP_RPC_UNIMPLEMENTED, "unknown method %s", c->method);
        } else if (s->large.min_bytes && grpc_byte_buffer_length(c->request) >= s->large.min_bytes) {
            /* Never here: the allocator may wait for memory. */
            if (decode_apart_(s, c, m)) return; /* the decoder finishes the op */
            zkp_rpc_reply_error(c, ZKP_RPC_RESOURCE_EXHAUSTED, "no thread for a large request; retry later");
        } else {
            grpc_byte_buffer_reader rd;
            if (!grpc_byte_buffer_reader_init(&rd, c->request)) {
                zkp_rpc_reply_error(c, ZKP_RPC_INVALID_ARGUMENT, "cannot decode the request");
            } else {
                grpc_slice all = grpc_byte_buffer_reader_readall(&rd);
                grpc_byte_buffer_reader_destroy(&rd);
                /* The flat copy is what handlers parse; the buffer goes now
                 * so a request is held once, not twice. */
                grpc_byte_buffer_destroy(c->request);
                c->request = NULL;
                m->fn(m->ctx, c, GRPC_SLICE_START_PTR(all), GRPC_SLICE_LENGTH(all));
                grpc_slice_unref(all);
            }
        }
    }
    op_done_(c);
}

static void on_close_(zkp_rpc_call *c) {
    if (c->cancelled_flag) {
        /* The watcher runs under the call's lock, so an answer being sent
         * concurrently waits for it to finish (see send_). */
        pthread_mutex_lock(&c->lk);
        atomic_store(&c->gone, 1);
        if (c->on_gone) c->on_gone(c->on_gone_arg);
        c->on_gone = NULL;
        pthread_mutex_unlock(&c->lk);
    }
    /* A call that is never answered (its client gone before the handler
     * replied, or cancelled at shutdown) leaves the in-flight count when
     * the answer comes; one that never will is not ours to count. */
    op_done_(c);
}

static void on_send_(zkp_rpc_call *c) {
    atomic_fetch_sub(&c->srv->in_flight, 1);
    zkp_rpc_call_unref(c);
}

static void request_next_(zkp_rpc_server *s) {
    if (atomic_load(&s->shutting_down)) return;
    zkp_rpc_call *c = calloc(1, sizeof *c);
    if (!c) return; /* retried on the next call; with none in flight, the server stops accepting */
    c->srv = s;
    atomic_init(&c->refs, 1);
    pthread_mutex_init(&c->lk, NULL);
    c->status_details = grpc_empty_slice();
    grpc_call_details_init(&c->details);
    grpc_metadata_array_init(&c->request_md);
    c->new_tag = (rpc_tag){TAG_NEW_CALL, c};
    c->recv_tag = (rpc_tag){TAG_RECV, c};
    c->close_tag = (rpc_tag){TAG_CLOSE, c};
    c->send_tag = (rpc_tag){TAG_SEND, c};
    pthread_rwlock_rdlock(&s->ops_lk);
    int ok = !s->ops_closed;
    if (ok) {
        handoff_release_(s);
        ok = grpc_server_request_call(s->server, &c->call, &c->details, &c->request_md, s->cq,
                                      s->cq, &c->new_tag) == GRPC_CALL_OK;
    }
    pthread_rwlock_unlock(&s->ops_lk);
    if (!ok) call_free_(c);
}

static void *cq_thread_(void *arg) {
    zkp_rpc_server *s = arg;
    for (;;) {
        grpc_event ev = grpc_completion_queue_next(s->cq, gpr_inf_future(GPR_CLOCK_REALTIME), NULL);
        if (ev.type == GRPC_QUEUE_SHUTDOWN) break;
        if (ev.type != GRPC_OP_COMPLETE) continue;
        handoff_acquire_(s);
        rpc_tag *t = ev.tag;
        switch (t->kind) {
        case TAG_NEW_CALL: on_new_call_(s, t->call, ev.success); break;
        case TAG_RECV: on_recv_(s, t->call, ev.success); break;
        case TAG_CLOSE: on_close_(t->call); break;
        case TAG_SEND: on_send_(t->call); break;
        case TAG_SHUTDOWN:
            pthread_mutex_lock(&s->lk);
            s->shutdown_done = 1;
            pthread_cond_broadcast(&s->cv);
            pthread_mutex_unlock(&s->lk);
            break;
        }
    }
    return NULL;
}

zkpipe_status zkp_rpc_server_start(zkp_rpc_server *s, zkp_diag *d) {
    grpc_server_start(s->server);
    /* Several calls may be accepted at once; each accepted call asks for
     * one more. */
    for (int i = 0; i < 8; i++) request_next_(s);
    s->started = 1;
    for (; s->n_threads < ZKP_RPC_CQ_THREADS; s->n_threads++)
        if (pthread_create(&s->threads[s->n_threads], NULL, cq_thread_, s) != 0) break;
    if (s->n_threads == 0) {
        /* destroy drains the queue itself when no thread runs. */
        s->started = 0;
        grpc_server_shutdown_and_notify(s->server, s->cq, &s->shutdown_tag);
        grpc_server_cancel_all_calls(s->server);
        return zkp_diag_fail(d, ZKPIPE_ERR_IO, "cannot start the server threads");
    }
    return ZKPIPE_OK;
}

void zkp_rpc_server_set_large_messages(zkp_rpc_server *s, const zkp_rpc_large_messages *lm) {
    s->large = *lm;
}

void zkp_rpc_server_set_observer(zkp_rpc_server *s, void (*fn)(void *ctx, const char *method, int code),
                                 void *ctx) {
    s->observer = fn;
    s->observer_ctx = ctx;
}

size_t zkp_rpc_server_in_flight(zkp_rpc_server *s) { return atomic_load(&s->in_flight); }

static int wait_until_(zkp_rpc_server *s, int *flag, int64_t ms) {
    struct timespec dl;
    zkp_realtime_after_ms(&dl, ms);
    pthread_mutex_lock(&s->lk);
    while (!*flag)
        if (pthread_cond_timedwait(&s->cv, &s->lk, &dl) != 0) break;
    int r = *flag;
    pthread_mutex_unlock(&s->lk);
    return r;
}

void zkp_rpc_server_destroy(zkp_rpc_server **sp, int64_t grace_ms) {
    zkp_rpc_server *s = *sp;
    if (!s) return;
    atomic_store(&s->shutting_down, 1);
    if (s->started) {
        /* Shutdown completes once every call in flight has ended at the
         * transport; their last events may still be on the queue, and
         * the threads handle them after (ops_closed). */
        grpc_server_shutdown_and_notify(s->server, s->cq, &s->shutdown_tag);
        if (!wait_until_(s, &s->shutdown_done, grace_ms > 0 ? grace_ms : 0)) {
            grpc_server_cancel_all_calls(s->server);
            wait_until_(s, &s->shutdown_done, INT64_C(3600000));
        }
        /* Decoders still running answer their calls (dropped by now) and
         * read the handlers' context: they end before anything goes. */
        pthread_mutex_lock(&s->lk);
        while (s->decoders) pthread_cond_wait(&s->cv, &s->lk);
        s->decoders_closed = 1;
        pthread_mutex_unlock(&s->lk);
    }
    pthread_rwlock_wrlock(&s->ops_lk);
    s->ops_closed = 1;
    pthread_rwlock_unlock(&s->ops_lk);
    grpc_server_destroy(s->server);
    grpc_completion_queue_shutdown(s->cq);
    if (s->started) {
        for (size_t i = 0; i < s->n_threads; i++) pthread_join(s->threads[i], NULL);
    } else {
        while (grpc_completion_queue_next(s->cq, gpr_inf_future(GPR_CLOCK_REALTIME), NULL).type !=
               GRPC_QUEUE_SHUTDOWN) {
        }
    }
    grpc_completion_queue_destroy(s->cq);
    for (size_t i = 0; i < s->n_methods; i++) free(s->methods[i].path);
    if (s->token) explicit_bzero(s->token, s->token_len);
    free(s->token);
    pthread_cond_destroy(&s->cv);
    pthread_mutex_destroy(&s->lk);
    pthread_rwlock_destroy(&s->ops_lk);
    free(s);
    /* Only now: handlers, which may read the caller's pointer, have all run. */
    *sp = NULL;
}

/* ------------------------------------------------------------------------
 * Client */

zkpipe_status zkp_rpc_client_call(const char *target, const zkp_rpc_client_security *sec,
                                  const char *method, const uint8_t *req, size_t req_len,
                                  int64_t timeout_ms, size_t max_message, zkp_rpc_code *code,
                                  uint8_t **resp, size_t *resp_len, char *msg, size_t msg_len) {
    *resp = NULL;
    *resp_len = 0;
    if (msg_len) msg[0] = 0;
    if (max_message == 0 || max_message > (size_t)INT32_MAX) return ZKPIPE_ERR_OUT_OF_RANGE;
    pthread_once(&grpc_once, grpc_init_once_);
    grpc_arg args[3];
    grpc_channel_args cargs = size_args_(args, max_message);
    grpc_channel_credentials *creds;
    if (sec && (sec->tls || sec->ca || sec->cert_chain || sec->server_name)) {
        grpc_ssl_pem_key_cert_pair pair = {sec->private_key, sec->cert_chain};
        creds = grpc_ssl_credentials_create(sec->ca, sec->cert_chain ? &pair : NULL, NULL, NULL);
        if (sec->server_name) {
            args[2].type = GRPC_ARG_STRING;
            args[2].key = (char *)GRPC_SSL_TARGET_NAME_OVERRIDE_ARG;
            args[2].value.string = (char *)sec->server_name;
            cargs.num_args = 3;
        }
    } else {
        creds = grpc_insecure_credentials_create();
    }
    grpc_channel *ch = grpc_channel_create(target, creds, &cargs);
    grpc_channel_credentials_release(creds);
    grpc_completion_queue *cq = grpc_completion_queue_create_for_pluck(NULL);
    gpr_timespec deadline =
        timeout_ms > 0 ? gpr_time_add(gpr_now(GPR_CLOCK_REALTIME),
                                      gpr_time_from_millis(timeout_ms, GPR_TIMESPAN))
                       : gpr_inf_future(GPR_CLOCK_REALTIME);
    grpc_slice mslice = grpc_slice_from_copied_string(method);
    grpc_call *call =
        grpc_channel_create_call(ch, NULL, GRPC_PROPAGATE_DEFAULTS, cq, mslice, NULL, deadline, NULL);
    grpc_slice_unref(mslice);

    grpc_slice body = grpc_slice_from_copied_buffer((const char *)req, req_len);
    grpc_byte_buffer *send = grpc_raw_byte_buffer_create(&body, 1);
    grpc_slice_unref(body);
    grpc_byte_buffer *recv = NULL;
    grpc_metadata_array init_md, trail_md;
    grpc_metadata_array_init(&init_md);
    grpc_metadata_array_init(&trail_md);
    grpc_status_code status = GRPC_STATUS_UNKNOWN;
    grpc_slice details = grpc_empty_slice();

    /* The token goes as plain metadata, not as gRPC call credentials,
     * which gRPC sends over TLS only: over loopback a token without TLS
     * is a choice the daemon's operator may make. */
    grpc_metadata auth;
    memset(&auth, 0, sizeof auth);
    auth.value = grpc_empty_slice();
    if (sec && sec->token) {
        size_t n = strlen(sec->token);
        auth.key = grpc_slice_from_static_string("authorization");
        auth.value = grpc_slice_malloc(7 + n);
        memcpy(GRPC_SLICE_START_PTR(auth.value), "Bearer ", 7);
        memcpy(GRPC_SLICE_START_PTR(auth.value) + 7, sec->token, n);
    }

    grpc_op ops[6];
    memset(ops, 0, sizeof ops);
    ops[0].op = GRPC_OP_SEND_INITIAL_METADATA;
    if (sec && sec->token) {
        ops[0].data.send_initial_metadata.count = 1;
        ops[0].data.send_initial_metadata.metadata = &auth;
    }
    ops[1].op = GRPC_OP_SEND_MESSAGE;
    ops[1].data.send_message.send_message = send;
    ops[2].op = GRPC_OP_SEND_CLOSE_FROM_CLIENT;
    ops[3].op = GRPC_OP_RECV_INITIAL_METADATA;
    ops[3].data.recv_initial_metadata.recv_initial_metadata = &init_md;
    ops[4].op = GRPC_OP_RECV_MESSAGE;
    ops[4].data.recv_message.recv_message = &recv;
    ops[5].op = GRPC_OP_RECV_STATUS_ON_CLIENT;
    ops[5].data.recv_status_on_client.trailing_metadata = &trail_md;
    ops[5].data.recv_status_on_client.status = &status;
    ops[5].data.recv_status_on_client.status_details = &details;
    static int tag;
    zkpipe_status st = ZKPIPE_OK;
    if (grpc_call_start_batch(call, ops, 6, &tag, NULL) != GRPC_CALL_OK) {
        st = ZKPIPE_ERR_IO;
    } else {
        grpc_event ev = grpc_completion_queue_pluck(cq, &tag, gpr_inf_future(GPR_CLOCK_REALTIME), NULL);
        if (ev.type != GRPC_OP_COMPLETE || !ev.success) st = ZKPIPE_ERR_IO;
    }
    if (st == ZKPIPE_OK) {
        *code = (zkp_rpc_code)status;
        if (msg_len) {
            size_t n = GRPC_SLICE_LENGTH(details);
            if (n >= msg_len) n = msg_len - 1;
            memcpy(msg, GRPC_SLICE_START_PTR(details), n);
            msg[n] = 0;
        }
        if (status == GRPC_STATUS_OK && recv) {
            grpc_byte_buffer_reader rd;
            if (grpc_byte_buffer_reader_init(&rd, recv)) {
                grpc_slice all = grpc_byte_buffer_reader_readall(&rd);
                grpc_byte_buffer_reader_destroy(&rd);
                size_t n = GRPC_SLICE_LENGTH(all);
                *resp = malloc(n ? n : 1);
                if (*resp) {
                    memcpy(*resp, GRPC_SLICE_START_PTR(all), n);
                    *resp_len = n;
                } else {
                    st = ZKPIPE_ERR_NO_MEMORY;
                }
                grpc_slice_unref(all);
            } else {
                st = ZKPIPE_ERR_IO;
            }
        } else if (status == GRPC_STATUS_OK) {
            *resp = malloc(1); /* an empty message */
            if (!*resp) st = ZKPIPE_ERR_NO_MEMORY;
        }
    }
    if (recv) grpc_byte_buffer_destroy(recv);
    grpc_byte_buffer_destroy(send);
    grpc_slice_unref(auth.value);
    grpc_slice_unref(details);
    grpc_metadata_array_destroy(&init_md);
    grpc_metadata_array_destroy(&trail_md);
    grpc_call_unref(call);
    grpc_completion_queue_shutdown(cq);
    while (grpc_completion_queue_pluck(cq, NULL, gpr_inf_future(GPR_CLOCK_REALTIME), NULL).type !=
           GRPC_QUEUE_SHUTDOWN) {
    }
    grpc_completion_queue_destroy(cq);
    grpc_channel_destroy(ch);
    return st;
}
