/* What the two services share beyond the job table: wire enums, the Prove
 * flow (a job owned by its call), key loading and eviction, rendering. */
#ifndef ZKP_SERVER_SVC_COMMON_H
#define ZKP_SERVER_SVC_COMMON_H

#include <protobuf-c/protobuf-c.h>

#include "server/daemon_internal.h"

/* Both services number priorities alike: 0 unspecified (NORMAL), 1 LOW,
 * 2 NORMAL, 3 HIGH, 4 CRITICAL. 0 for a value outside them. */
int svc_priority(int wire, zkpipe_priority *out);

/* 1 when s is valid UTF-8. protobuf-c does not check the proto3 string
 * fields it decodes, and a string echoed back with bad UTF-8 would make a
 * strict client (grpc-go, C++) reject the whole response. */
int svc_utf8_ok(const char *s);

/* Seconds to whole milliseconds, rounded; negative reads as 0. */
uint64_t svc_ms(double seconds);

/* A job's stage times for the wire: each stage is the longest any one
 * partition spent in it (queue_wait as the engine reports it), never the
 * sum over partitions, which would run past the job's wall-clock total
 * when partitions overlap. total is left as the engine's. */
void svc_stage_times(const zkpipe_job_result *r, zkpipe_stage_times *out);

/* Requests of this size or more are received into budget-charged buffers
 * (rpc.h, zkp_rpc_large_messages) and decoded into an arena of them. */
#define SVC_LARGE_MESSAGE ((size_t)1 << 20)
/* How long a large request waits for the budget (ahead of partitions,
 * which give bytes back as they finish) before it is refused. */
#define SVC_BUDGET_WAIT_MS 30000

/* Where a large request is decoded: protobuf-c's allocations for one
 * message, taken from engine buffers (zkpipe_engine_buffer_create: mapped
 * apart, charged to the memory budget and the "request" category) and
 * freed all at once, which unmaps them. */
typedef struct svc_arena svc_arena;

/* Unpacks a request message: a large one (SVC_LARGE_MESSAGE) into a new
 * arena (*arena set), a small one with malloc (*arena NULL). NULL when it
 * cannot: *code is INVALID_ARGUMENT for a malformed message, or
 * RESOURCE_EXHAUSTED when the budget cannot hold it now. */
ProtobufCMessage *svc_unpack(zkp_daemon *d, const ProtobufCMessageDescriptor *desc,
                             const uint8_t *req, size_t len, svc_arena **arena, zkp_rpc_code *code);
/* What srv_reply_unpack_error says, into msg. */
void svc_unpack_error(zkp_rpc_code why, const char *what, size_t len, char *msg, size_t msg_len);
/* Frees what svc_unpack returned (accepts NULL). */
void svc_unpacked_free(ProtobufCMessage *m, svc_arena *arena);

/* A job's request data: the decoded message, its arena if any, and the
 * witness array pointing into it. svc_payload_free is the job's
 * payload_free. */
typedef struct {
    ProtobufCMessage *msg;
    svc_arena *arena;
    zkpipe_witness *w;
} svc_payload;
/* A payload holding msg (taken over: freed on failure too); NULL when out
 * of memory. */
svc_payload *svc_payload_new(ProtobufCMessage *msg, svc_arena *arena);
void svc_payload_free(void *p);

/* A service's submit message (zkpipe.v1 SubmitRequest, cuzk.v1
 * SubmitProofRequest) from its wire bytes into r, with the payload taken
 * from them, through the same checks as a client's call: what a member
 * runs when it claims a job from the cluster's queue (an untrusted row).
 * On a bad request returns its code with msg (nothing to free). */
zkp_rpc_code svc_zkpipe_decode_submit(zkp_daemon *d, const uint8_t *req, size_t len,
                                      srv_submit_req *r, char *msg, size_t msg_len);
zkp_rpc_code svc_cuzk_decode_submit(zkp_daemon *d, const uint8_t *req, size_t len,
                                    srv_submit_req *r, char *msg, size_t msg_len);
zkp_rpc_code svc_decode_submit(zkp_daemon *d, srv_service service, const uint8_t *req, size_t len,
                               srv_submit_req *r, char *msg, size_t msg_len);

/* zkp_rpc_large_messages' alloc and release over the daemon's engine. */
void *svc_large_alloc(void *daemon, size_t bytes, uint8_t **data);
void svc_large_release(void *daemon, void *handle);

/* The Prove flow: submits r as a job owned by the call, then, on a thread
 * of its own, waits for the job and answers with reply(call, job, final).
 * A client that goes away (disconnect, deadline, cancel) takes its job with
 * it: the last owner to go cancels the job, and its memory returns to the
 * budget. Errors are answered here. */
typedef void (*svc_reply_fn)(zkp_rpc_call *call, const srv_job *j, int final);
void svc_prove(zkp_daemon *d, zkp_rpc_call *call, srv_submit_req *r, svc_reply_fn reply);

/* The key's name as the view knows it, or "key<id>". */
void svc_key_name(const zkp_server_view *view, uint32_t id, char *buf, size_t cap);

/* Loads a key now: *was_hot when it was loaded already, *ms the time
 * taken. A PoRep key's name ("porep-32GiB") is registered from the
 * parameter directory first if no job has registered it. Otherwise msg
 * says why not (NOT_FOUND for an unknown name). Blocks: call from a
 * blocking thread. */
zkp_rpc_code svc_key_load(zkp_daemon *d, const char *name, int *was_hot, double *ms, char *msg,
                          size_t msg_len);

/* Evicts a key: NOT_FOUND, or FAILED_PRECONDITION while partitions of it
 * run. *was_loaded and *freed describe what was resident. */
zkp_rpc_code svc_key_evict(zkp_daemon *d, const char *name, int *was_loaded, uint64_t *freed);

/* Routes prefix + name to fn (with the daemon as context) for each row. */
typedef struct {
    const char *name;
    zkp_rpc_handler fn;
} svc_method;
zkpipe_status svc_register(zkp_daemon *d, const char *prefix, const svc_method *m, size_t n);

/* Prometheus text (json == 0) or the status document (json == 1);
 * malloc'd, NULL on failure. */
char *svc_render(zkp_daemon *d, int json);

#endif
