/* The daemon's shared state: the job table in front of the engine, the key
 * names, and the helpers both services use. Not a public interface. */
#ifndef ZKP_SERVER_DAEMON_INTERNAL_H
#define ZKP_SERVER_DAEMON_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "server/config.h"
#include "server/metrics.h"
#include "server/rpc.h"
#include "zkpipe/engine.h"

#define SRV_KEY_NAME_MAX 64
#define SRV_MAX_KEYS ZKPIPE_ENGINE_STATUS_MAX_KEYS
#define SRV_REQUEST_ID_MAX 256
#define SRV_MAX_BLOCKING_CALLS 1024 /* calls answered from threads of their own */

/* What a job proves. Filecoin kinds take the cuzk numbering. */
typedef enum {
    SRV_KIND_CIRCOM = 0,
    SRV_KIND_POREP_SEAL_COMMIT = 1,
    SRV_KIND_SNAP_DEALS_UPDATE = 2,
    SRV_KIND_WINDOW_POST_PARTITION = 3,
    SRV_KIND_WINNING_POST = 4,
    SRV_KIND_COUNT
} srv_kind;

const char *srv_kind_name(srv_kind k);

/* A wire job id: this start's 16 hex digits, '-', the job's decimal
 * sequence number ("3f09c2a7d41e8b55-17"); in cluster mode, a job of the
 * queue is "cluster-" and its id there, the same on every member. */
#define SRV_ID_TEXT_MAX 40

/* The service a request came in on, and so the parser of its inputs when a
 * member claims it from the cluster's queue (svc_decode_submit). */
typedef enum { SRV_SERVICE_ZKPIPE = 1, SRV_SERVICE_CUZK = 2 } srv_service;

typedef struct srv_job {
    uint64_t id; /* the sequence number, from 1, in this start of the daemon */
    char id_text[SRV_ID_TEXT_MAX];
    uint64_t engine_id; /* 0: never reached the engine */
    int64_t cluster_id; /* cluster mode: the queue's job this entry waits for (0: a local job) */
    char *inputs_path;  /* the inputs this member wrote to queue.inputs_dir, removed when final */
    char *request_id;   /* idempotency key, or NULL */
    char key[SRV_KEY_NAME_MAX + 1];
    srv_kind kind;
    zkpipe_priority priority;
    uint32_t n_parts;
    /* Owned request data the engine borrows (the witnesses), freed once the
     * engine is done with the job. */
    void *payload;
    void (*payload_free)(void *);
    size_t payload_bytes; /* the request message it came from, counted in d->payload_bytes */
    double t_submit, t_final;
    /* Under the daemon lock: */
    int final;
    int delivered;   /* an await has returned the outcome */
    unsigned refs;   /* handlers holding the job; not dropped from the table while > 0 */
    unsigned owners; /* live Prove calls: the last one to go cancels the job */
    /* Set once when final, read-only after: */
    zkp_job_outcome outcome;
    zkpipe_status status;
    char error[512];
    zkpipe_job_result result; /* when engine_id != 0; partitions only when it completed */
    zkpipe_stage_times times; /* the wire's stage times (svc_stage_times) */
    struct srv_job *next;
} srv_job;

typedef struct {
    char name[SRV_KEY_NAME_MAX + 1];
    char *path;
    uint32_t engine_id;
} srv_key;

typedef struct zkp_daemon {
    zkpipe_engine *engine;
    zkp_metrics *metrics;
    zkp_rpc_server *rpc;
    double t_start;
    /* Random per start: ids handed out by an earlier start (or another
     * daemon) never name a job of this one. */
    uint64_t id_epoch;
    size_t max_message;
    int64_t result_ttl_ms;
    size_t max_jobs;
    /* filecoin.params_dir ("" = Filecoin's own lookup; the config's string,
     * which outlives the daemon) and filecoin.check_subgroups. */
    const char *fil_params_dir;
    int fil_check_subgroups;

    pthread_mutex_t lk;
    pthread_cond_t cv; /* a job became final, a call went, a blocking call ended, draining began */
    srv_job *jobs;     /* newest first */
    size_t n_jobs, n_live;
    uint64_t n_failed_here; /* jobs failed by the daemon itself (Filecoin kinds) */
    size_t payload_bytes;   /* request messages jobs hold (srv_job.payload_bytes) */
    uint64_t next_id;
    srv_key keys[SRV_MAX_KEYS];
    size_t n_keys;
    char **key_dirs; /* server.key_dirs, resolved */
    size_t n_key_dirs;
    size_t blocking_calls;
    int draining; /* no new work */
    int closing;  /* the drain is over and teardown follows: no blocking call starts */
    int stopping; /* the collector ends */
    pthread_t collector;
    struct srv_cluster *cluster; /* cluster mode (queue.url), else NULL */
} zkp_daemon;

/* Why new work is refused with UNAVAILABLE once the drain has begun. */
#define SRV_DRAINING_MSG "the daemon is shutting down and takes no new work"

double srv_now(void);

/* Keys by name. srv_key_register: ALREADY_EXISTS when the name is taken by
 * another path; *again = 1 when the same name and path were registered
 * (the key is then bound to the file as it is now, should it have
 * changed). A path from a client (from_client) must lie under
 * server.key_dirs and is registered by its resolved form; UNAVAILABLE
 * while draining. */
zkp_rpc_code srv_key_register(zkp_daemon *d, const char *name, const char *path, int from_client,
                              int *again, uint64_t *file_bytes, char *msg, size_t msg_len);
/* Engine id of a key name, 0 when unknown. */
uint32_t srv_key_lookup(zkp_daemon *d, const char *name);
/* The name a PoRep registered proof's key is registered under when a job
 * of it runs here ("porep-2KiB"); 0 when the number is not a PoRep seal
 * proof's. */
int srv_porep_key_name(uint64_t registered_proof, char *name, size_t cap);
/* Registers "porep-<size>" (srv_porep_key_name) from filecoin.params_dir
 * as a POREP_SEAL_COMMIT job of that size would, so that a key can be
 * preloaded before its first job; *key_id gets its engine id. NOT_FOUND
 * when name is no PoRep key's; FAILED_PRECONDITION, said in msg, when its
 * parameter file is not there. */
zkp_rpc_code srv_porep_key_register_named(zkp_daemon *d, const char *name, uint32_t *key_id,
                                          char *msg, size_t msg_len);
/* The PoRep key names ("porep-32GiB") whose parameter files are in
 * filecoin.params_dir now, up to cap: what a cluster member can prove
 * without having met the key yet. */
#define SRV_POREP_KEYS_MAX 8
size_t srv_porep_keys_present(zkp_daemon *d, char (*names)[SRV_KEY_NAME_MAX + 1], size_t cap);

typedef struct {
    srv_kind kind;
    const char *key;              /* SRV_KIND_CIRCOM */
    const zkpipe_witness *witnesses;
    size_t n_witnesses;
    zkpipe_priority priority;
    const char *request_id;       /* "" or NULL: none */
    void *payload;                /* taken over (freed) in every case */
    void (*payload_free)(void *);
    size_t payload_bytes;         /* the size of the request message behind it */
    /* SRV_KIND_POREP_SEAL_COMMIT: Curio's envelope of the C1 and the numeric
     * registered proof, borrowed from the payload. */
    const uint8_t *vanilla_proof;
    size_t vanilla_proof_len;
    uint64_t registered_proof;
    int owned_by_call;            /* a Prove: the job dies with the call */
    /* Cluster mode: the service's submit message inside the payload, which
     * becomes the queued job's inputs, and whether the request was claimed
     * from the queue (it then runs here, on the engine). */
    srv_service service;
    const struct ProtobufCMessage *submit_msg;
    int from_queue;
} srv_submit_req;

/* Queues a job or attaches to the live one with the same request id.
 * Returns ZKP_RPC_OK and *job (with a reference) or an error code with msg.
 * Filecoin kinds become a job that has failed already. */
zkp_rpc_code srv_submit(zkp_daemon *d, const srv_submit_req *r, srv_job **job,
                        uint32_t *queue_position, char *msg, size_t msg_len);

/* Cluster mode: the table's entry for the queue's job cluster_id, made
 * (with a reference, and a Prove's ownership when r->owned_by_call) or
 * attached to when there is one; the cluster side finishes it with
 * srv_job_finish_cluster. r's payload is not used (the caller freed it):
 * key, kind, priority, request_id and n_witnesses describe the job. */
zkp_rpc_code srv_job_attach_cluster(zkp_daemon *d, int64_t cluster_id, const srv_submit_req *r,
                                    const char *inputs_path, srv_job **out, char *msg,
                                    size_t msg_len);
/* Files the outcome of a cluster job read from the queue (result taken
 * over: its partitions, for a completed job). A job final already is left
 * as it is. */
void srv_job_finish_cluster(zkp_daemon *d, srv_job *j, zkp_job_outcome outcome, zkpipe_status st,
                            const char *error, zkpipe_job_result *result,
                            const zkpipe_stage_times *times);
/* The entry for the queue's job cluster_id, with a reference: a live one
 * only (live_only), or any still held; NULL when none. */
srv_job *srv_job_find_cluster(zkp_daemon *d, int64_t cluster_id, int live_only);
/* The queue ids of every live cluster entry (malloc'd, *n of them): what a
 * member re-reads after it may have missed notifications. */
int64_t *srv_cluster_live_ids(zkp_daemon *d, size_t *n);
/* Cancels a local job's engine work, if it is live (a cancel of a job this
 * member holds, read from the queue). */
void srv_job_cancel_engine(zkp_daemon *d, srv_job *j);

/* A job by wire id, with a reference; NULL when unknown. */
srv_job *srv_job_get(zkp_daemon *d, const char *id_text);
void srv_job_put(zkp_daemon *d, srv_job *j);

/* Waits until the job is final (1), timeout_ms passed (0; < 0 waits as long
 * as it takes), or the call's client went (0). A final outcome waited for
 * counts as delivered. */
int srv_job_wait(zkp_daemon *d, srv_job *j, int64_t timeout_ms, zkp_rpc_call *call);

/* Drops a Prove call's ownership; the last owner to go cancels the job. */
void srv_job_disown(zkp_daemon *d, srv_job *j, int cancel_if_last);

/* Cancels by wire id: ZKP_RPC_NOT_FOUND for an unknown id; *was_running
 * when the job was live. */
zkp_rpc_code srv_job_cancel(zkp_daemon *d, const char *id_text, int *was_running);

/* Answers the call from a thread of its own (fn(d, call, arg) must answer
 * it). The call's reference is taken here and dropped after fn. Refuses
 * with RESOURCE_EXHAUSTED past SRV_MAX_BLOCKING_CALLS. arg is freed with
 * arg_free when fn returns or when the thread cannot start. */
typedef void (*srv_blocking_fn)(zkp_daemon *d, zkp_rpc_call *call, void *arg);
void srv_run_blocking(zkp_daemon *d, zkp_rpc_call *call, srv_blocking_fn fn, void *arg,
                      void (*arg_free)(void *));

/* One metrics rendering's inputs (zkp_metrics_source). */
int srv_metrics_source(void *ctx, zkpipe_engine_status *st, zkp_server_view *view);
/* Packs a protobuf-c message and answers the call with it. */
struct ProtobufCMessage;
void srv_reply_message(zkp_rpc_call *call, const struct ProtobufCMessage *m);
/* Answers a request that unpacking could not take (why): malformed, or too
 * large for the memory budget now. what names the message. */
void srv_reply_unpack_error(zkp_rpc_call *call, zkp_rpc_code why, const char *what, size_t len);

/* Registers each service's methods with the RPC server. */
zkpipe_status srv_cuzk_register(zkp_daemon *d);
zkpipe_status srv_zkpipe_register(zkp_daemon *d);

/* 1 when a gRPC TCP address ("host:port", "[v6]:port", "ipv4:", "ipv6:"
 * prefixes allowed) names only the loopback interface: 127.0.0.0/8, ::1 or
 * localhost. Anything else (0.0.0.0, [::], a name, an interface address)
 * reaches other machines. */
int srv_tcp_is_loopback(const char *addr);

/* The wire id of job seq in the start whose epoch is given. */
void srv_format_id(char out[SRV_ID_TEXT_MAX], uint64_t epoch, uint64_t seq);
/* The sequence number of a wire job id of the start with this epoch; 0 when
 * malformed or when the id belongs to another start. */
uint64_t srv_parse_id(const char *s, uint64_t epoch);

#endif
