/* Cluster mode, the daemon's side (queue.url): a member of many daemons
 * that share one job queue in PostgreSQL (src/queue, docs/CLUSTER.md).
 *
 * DESIGN. The job table (daemon.c) stays the one place clients are
 * answered from; cluster mode changes where a job is proved, not how a
 * client sees it:
 * - Submit and Prove on either service enqueue the request (its submit
 *   message, framed by srv_cluster_encode_inputs) and make a table entry
 *   that waits for the queue's job (srv_job.cluster_id). A watcher thread
 *   LISTENs on the queue's channel with one connection and files each
 *   outcome in the table, where Await, Prove and the status calls find it.
 * - A claimer thread heart-beats the member, runs the reaper and the prune,
 *   and claims what the engine can admit now (free budget bytes, registered
 *   and hot keys), up to queue.max_claims at once. Each claim runs on a
 *   thread of its own: the row is parsed by the service's own request
 *   parser, proved on the local engine as a local job, and its result (or
 *   error) written back under the claim's lease generation.
 * - A notification for a job this member holds can only be a cancel (no
 *   one else can complete it): its engine job is cancelled.
 * - With queue.notify = off (a database without LISTEN/NOTIFY) nothing is
 *   announced or listened to: the watcher reads which of those jobs are
 *   final every queue.poll_ms, and the claimer looks at least as often.
 * The database is the only shared state: any member may die at any time,
 * and its jobs go to the others when its leases expire. */
#ifndef ZKP_SERVER_CLUSTER_H
#define ZKP_SERVER_CLUSTER_H

#include <stdio.h>

#include "server/config.h"
#include "server/daemon_internal.h"

typedef struct srv_cluster srv_cluster;

/* Connects (the schema must be migrated: `zkpipe queue migrate`), registers
 * the member and starts its threads; sets d->cluster. */
zkpipe_status srv_cluster_start(zkp_daemon *d, const zkp_config *cfg, FILE *log, zkp_diag *diag);
/* Stops claiming, waits for the running claims to write back, joins the
 * threads and closes the connections. Accepts d->cluster == NULL. */
void srv_cluster_stop(zkp_daemon *d);

/* srv_submit in cluster mode: enqueues r (its payload is freed here in
 * every case) and returns the table entry that waits for the job. */
zkp_rpc_code srv_cluster_submit(zkp_daemon *d, const srv_submit_req *r, srv_job **out, char *msg,
                                size_t msg_len);
/* Cancels the queue's job (a client's cancel, or its Prove call gone). */
void srv_cluster_cancel(zkp_daemon *d, int64_t cluster_id);

/* The queue's job by its wire id ("cluster-<id>"), with a reference, for
 * an Await on any member: this member's entry for it, or a new one made
 * from its row. NULL for another id or a job the queue does not have. */
srv_job *srv_cluster_job_get(zkp_daemon *d, const char *id_text);
/* Cancel by wire id: NOT_FOUND for another id or an unknown job;
 * *was_running when the job was queued or running. */
zkp_rpc_code srv_cluster_cancel_id(zkp_daemon *d, const char *id_text, int *was_running);

/* Counters for the Prometheus text (zero without cluster mode). */
typedef struct {
    int member; /* 1 in cluster mode */
    uint64_t enqueued, claims, completed, failed, refused_writes, lease_expiries, reaped_failed;
    uint64_t retries; /* statements run again after a serialization failure or deadlock */
    uint64_t running; /* claims running now */
    uint64_t depth[4]; /* queued jobs by priority (LOW..CRITICAL), as last read */
} srv_cluster_stats;
void srv_cluster_get_stats(zkp_daemon *d, srv_cluster_stats *out);

/* The queued job's inputs: "ZKPJ", version 1, the service, three zero
 * bytes, the message's length (u64, little-endian), the service's submit
 * message. */
#define SRV_CLUSTER_INPUTS_HEADER 16
uint8_t *srv_cluster_encode_inputs(srv_service service, const struct ProtobufCMessage *m,
                                   size_t *len);
/* Checks the frame; *msg and *msg_len point into buf. 0 or -1 (why). */
int srv_cluster_decode_inputs(const uint8_t *buf, size_t len, srv_service *service,
                              const uint8_t **msg, size_t *msg_len, char *why, size_t why_len);

/* A job's result in the queue: "ZKPR", version 1, three zero bytes, the
 * partitions (u32), the stage times (6 x u64 microseconds), then per
 * partition verified (u8), proof, proof.json and public.json lengths (u32
 * each) and their bytes. At most ZKP_QUEUE_RESULT_MAX bytes. */
uint8_t *srv_cluster_encode_result(const zkpipe_job_result *r, const zkpipe_stage_times *times,
                                   size_t *len, char *why, size_t why_len);
/* Parses a result into out (partitions malloc'd as the engine's are:
 * zkpipe_job_result_clear frees them). 0 or -1 (why). */
int srv_cluster_decode_result(const uint8_t *buf, size_t len, zkpipe_job_result *out,
                              zkpipe_stage_times *times, char *why, size_t why_len);

/* Whether a member whose engine reports st can prove anything: 0 once a
 * fault has taken every one of its devices out of service, when a claim
 * would only spend one of the job's attempts. */
int srv_cluster_can_prove(const zkpipe_engine_status *st);

#endif
