/* Unary gRPC over gRPC core's C API: every call into libgrpc the daemon and
 * its client make lives behind this header (rpc.c), so the rest of the
 * server deals in method paths and serialized messages only.
 *
 * Server. A few completion-queue threads accept calls, read each request
 * message and hand it to the handler registered for its method path
 * (unknown paths get UNIMPLEMENTED). Small messages are handled on those
 * threads; a message of at least zkp_rpc_large_messages.min_bytes is
 * copied once, out of gRPC's slices into its final buffer, and handled on
 * a thread of its own, so a large upload never keeps small calls waiting.
 * Handlers run concurrently and must not block: a handler answers at once
 * with zkp_rpc_reply*, or takes a reference (zkp_rpc_call_ref) and answers
 * later from any thread. Every call is answered exactly once; a call whose
 * client went away (disconnect, deadline, cancel) still takes its answer,
 * which is dropped.
 *
 * The rules gRPC core sets and this file keeps: the status is sent in a
 * batch of its own send ops, never together with a receive op; the
 * completion-queue threads never wait on anything but the queue. */
#ifndef ZKP_SERVER_RPC_H
#define ZKP_SERVER_RPC_H

#include <stddef.h>
#include <stdint.h>

#include "util/diag.h"

/* gRPC status codes the server uses (values are gRPC's). */
typedef enum {
    ZKP_RPC_OK = 0,
    ZKP_RPC_CANCELLED = 1,
    ZKP_RPC_UNKNOWN = 2,
    ZKP_RPC_INVALID_ARGUMENT = 3,
    ZKP_RPC_DEADLINE_EXCEEDED = 4,
    ZKP_RPC_NOT_FOUND = 5,
    ZKP_RPC_ALREADY_EXISTS = 6,
    ZKP_RPC_PERMISSION_DENIED = 7,
    ZKP_RPC_RESOURCE_EXHAUSTED = 8,
    ZKP_RPC_FAILED_PRECONDITION = 9,
    ZKP_RPC_UNIMPLEMENTED = 12,
    ZKP_RPC_INTERNAL = 13,
    ZKP_RPC_UNAVAILABLE = 14,
    ZKP_RPC_UNAUTHENTICATED = 16,
} zkp_rpc_code;

/* gRPC's name of a status code ("NOT_FOUND"), for messages; "?" outside
 * 0..16. */
const char *zkp_rpc_code_name(int code);

typedef struct zkp_rpc_server zkp_rpc_server;
typedef struct zkp_rpc_call zkp_rpc_call;

/* req is the request message, valid until the handler returns. Handlers
 * of one server run concurrently, on several threads. */
typedef void (*zkp_rpc_handler)(void *ctx, zkp_rpc_call *call, const uint8_t *req, size_t len);

/* max_message: the largest message accepted or sent, both ways; larger
 * requests are refused by gRPC with RESOURCE_EXHAUSTED before any handler
 * sees them. */
zkpipe_status zkp_rpc_server_create(zkp_rpc_server **out, size_t max_message, zkp_diag *d);

/* Routes a method path ("/pkg.Service/Method") to a handler. Before start. */
zkpipe_status zkp_rpc_server_add_method(zkp_rpc_server *s, const char *path, zkp_rpc_handler h,
                                        void *ctx);

/* Listens on a gRPC address: "unix:/abs/path" or "host:port" (port 0 picks
 * a free one; *port receives it, may be NULL). Before start. */
zkpipe_status zkp_rpc_server_listen(zkp_rpc_server *s, const char *addr, int *port, zkp_diag *d);

/* Where large request messages are received. alloc returns a handle and
 * sets *data to bytes bytes, or returns NULL to refuse (the call is
 * answered RESOURCE_EXHAUSTED); it runs on the message's own thread and may
 * wait. release(ctx, handle) runs once the handler has returned. Messages
 * below min_bytes, and every message while alloc is NULL, are flattened
 * into malloc'd memory. Before start. */
typedef struct {
    size_t min_bytes; /* 0: every message on the completion-queue threads */
    void *(*alloc)(void *ctx, size_t bytes, uint8_t **data);
    void (*release)(void *ctx, void *handle);
    void *ctx;
} zkp_rpc_large_messages;
void zkp_rpc_server_set_large_messages(zkp_rpc_server *s, const zkp_rpc_large_messages *lm);

/* fn(ctx, method, code) sees every answer as it is sent (for metrics).
 * Before start. */
void zkp_rpc_server_set_observer(zkp_rpc_server *s, void (*fn)(void *ctx, const char *method, int code),
                                 void *ctx);

/* Starts serving on the completion-queue threads. */
zkpipe_status zkp_rpc_server_start(zkp_rpc_server *s, zkp_diag *d);

/* Calls being served now (received, not yet answered). */
size_t zkp_rpc_server_in_flight(zkp_rpc_server *s);

/* TLS of a listener: PEM text, NUL-terminated, copied by the call. */
typedef struct {
    const char *cert_chain;  /* the listener's certificate, then any intermediates */
    const char *private_key; /* cert_chain's key */
    const char *client_ca;   /* NULL: no client certificate asked for; else every client must
                              * present one that chains to these CAs, or the handshake fails */
} zkp_rpc_tls;

/* As zkp_rpc_server_listen, with TLS on a TCP address. A certificate and
 * key gRPC cannot use (a key that is not the certificate's, malformed PEM)
 * fail here with ZKPIPE_ERR_INVALID_ARGUMENT. Before start. */
zkpipe_status zkp_rpc_server_listen_tls(zkp_rpc_server *s, const char *addr, const zkp_rpc_tls *tls,
                                        int *port, zkp_diag *d);

/* Every call that does not come in through a unix socket must carry the
 * metadata "authorization: Bearer <token>" (the scheme in any case);
 * others are answered UNAUTHENTICATED before their message is read. Calls
 * on a unix socket are let in by the socket file's mode alone. Copied.
 * Before start. */
zkpipe_status zkp_rpc_server_require_token(zkp_rpc_server *s, const char *token);

/* 1 when got equals want. The time taken depends on want_len (the
 * secret's length, fixed for a server) only, never on got or on where the
 * two differ. */
int zkp_rpc_token_equal(const char *want, size_t want_len, const char *got, size_t got_len);

/* Stops accepting calls, waits up to grace_ms for the calls in flight to be
 * answered, cancels those left, joins the thread and frees everything.
 * Accepts *s == NULL. */
void zkp_rpc_server_destroy(zkp_rpc_server **s, int64_t grace_ms);

/* Calls. */
void zkp_rpc_call_ref(zkp_rpc_call *c);
void zkp_rpc_call_unref(zkp_rpc_call *c);
const char *zkp_rpc_call_method(const zkp_rpc_call *c);

/* 1 once the client is gone: disconnected, cancelled or past its
 * deadline. */
int zkp_rpc_call_gone(const zkp_rpc_call *c);

/* fn(arg) runs once, on a completion-queue thread, when the client goes
 * (as zkp_rpc_call_gone turns 1); at once if it has gone already. It never
 * runs for a call that was answered first. One watcher per call. */
void zkp_rpc_call_on_gone(zkp_rpc_call *c, void (*fn)(void *arg), void *arg);

/* Answers: the response message with status OK, or a status and message
 * with no response. The second and later answers to one call are ignored. */
void zkp_rpc_reply(zkp_rpc_call *c, const uint8_t *resp, size_t len);
void zkp_rpc_reply_error(zkp_rpc_call *c, zkp_rpc_code code, const char *fmt, ...)
    ZKP_PRINTF(3, 4);

/* How the client reaches a server; every field may be NULL / 0. */
typedef struct {
    int tls;                 /* TLS rather than plaintext (implied by the fields below) */
    const char *ca;          /* PEM roots the server's certificate must chain to; NULL: gRPC's
                              * default roots */
    const char *cert_chain;  /* the client's certificate, PEM, with private_key */
    const char *private_key;
    const char *server_name; /* the name the server's certificate must carry; NULL: the
                              * target's host */
    const char *token;       /* sent as "authorization: Bearer <token>" */
} zkp_rpc_client_security;

/* Client: one unary call. target is a gRPC address ("unix:/path",
 * "unix:///path", "host:port"); sec NULL: plaintext, no token. On
 * ZKPIPE_OK the call completed and *code is its status (gRPC's own for
 * transport failures: UNAVAILABLE when nothing listens or the TLS
 * handshake fails, DEADLINE_EXCEEDED when timeout_ms > 0 passed): with ZKP_RPC_OK,
 * *resp (malloc'd, may be empty) holds the response; otherwise msg holds the
 * status message. Other statuses only for local failures. */
zkpipe_status zkp_rpc_client_call(const char *target, const zkp_rpc_client_security *sec,
                                  const char *method, const uint8_t *req, size_t req_len,
                                  int64_t timeout_ms, size_t max_message, zkp_rpc_code *code,
                                  uint8_t **resp, size_t *resp_len, char *msg, size_t msg_len);

#endif
