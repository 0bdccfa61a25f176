/* Cluster mode's durable job queue: many daemons share one PostgreSQL
 * database (libpq), and each job is proved by the member holding its lease.
 *
 * DESIGN. A zkp_queue is one database connection, used by one thread at a
 * time (libpq connections are not shared between threads); a member opens
 * one per thread that talks to the database. Nothing here keeps state
 * between calls beyond the connection: the database is the only source of
 * truth, so any member may die at any moment without losing a job.
 *
 * The guarantees rest on the database alone (docs/CLUSTER.md):
 * - request_id is UNIQUE: submitting it twice attaches to the first job.
 * - A claim is one UPDATE of the oldest queued job of the highest priority,
 *   found with SELECT ... FOR UPDATE SKIP LOCKED, so concurrent claimers
 *   never take the same row. It adds one to the job's attempts and to its
 *   lease generation, the fencing token the claim returns.
 * - A lease runs until lease_expires_at, by the database's clock; a
 *   member's heartbeat extends its unexpired leases. zkp_queue_reap returns
 *   expired leases to the queue, or fails the job once its attempts reach
 *   max_attempts.
 * - A result or an error is written only WHERE the lease generation is the
 *   one the writer claimed and the job is still leased; a writer whose
 *   lease was taken over changes no row and learns so (accepted = 0).
 *
 * Only plain SQL is used (no advisory locks, no extensions, no stored
 * procedures), the subset PostgreSQL shares with YugabyteDB and CockroachDB.
 * NOTIFY is a wake-up only: a waiter that misses one finds the state on
 * its next read, so nothing depends on it being delivered; where the
 * database has no LISTEN/NOTIFY, a connection opened to poll issues
 * neither and its waits re-read on a timer (zkp_queue_options). */
#ifndef ZKP_QUEUE_QUEUE_H
#define ZKP_QUEUE_QUEUE_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "util/diag.h"

typedef struct zkp_queue zkp_queue;

/* Inputs up to this size are stored in the jobs table; larger ones must be
 * written to a shared directory and enqueued by path. PostgreSQL caps a
 * bytea at 1 GB; the lower limit keeps a claim's transfer and the table's
 * TOAST storage reasonable. */
#define ZKP_QUEUE_INLINE_INPUT_MAX ((size_t)64 << 20)
/* Results are proofs: a few hundred bytes per partition. */
#define ZKP_QUEUE_RESULT_MAX ((size_t)1 << 20)
/* request_id, kind, curve, member ids and paths: at most this many bytes. */
#define ZKP_QUEUE_NAME_MAX 255
/* Channel on which completed, failed and cancelled jobs are announced (the
 * payload is the job id in decimal). */
#define ZKP_QUEUE_NOTIFY_CHANNEL "zkpipe_job_done"
/* Channel on which a job becoming claimable is announced (enqueued, or
 * requeued by the reaper; payload: the job id), so idle members claim at
 * once rather than at their next look. */
#define ZKP_QUEUE_QUEUED_CHANNEL "zkpipe_job_queued"

/* Connects to url (a libpq connection string or postgresql:// URI), with
 * wake-ups by LISTEN/NOTIFY. ZKPIPE_ERR_IO with the server's message when
 * it cannot. */
zkpipe_status zkp_queue_connect(zkp_queue **out, const char *url, zkp_diag *d);

/* How long a polling connection's waits sleep between reads, unless told. */
#define ZKP_QUEUE_POLL_MS_DEFAULT 250

/* How a connection learns that something changed. Zeroed: LISTEN/NOTIFY,
 * as zkp_queue_connect. */
typedef struct {
    /* 1: for databases without LISTEN/NOTIFY (CockroachDB; YugabyteDB
     * unless yb_enable_listen_notify is set). No statement calls
     * pg_notify, none LISTENs; zkp_queue_wait reads its job every poll_ms,
     * and zkp_queue_notifications is refused (a member re-reads its jobs
     * with zkp_queue_settled instead). Every member of a queue must agree:
     * a polling member's writes wake no listener. */
    int poll;
    uint32_t poll_ms; /* the interval of poll; 0: ZKP_QUEUE_POLL_MS_DEFAULT */
} zkp_queue_options;

/* zkp_queue_connect with options (NULL: the defaults). */
zkpipe_status zkp_queue_open(zkp_queue **out, const char *url, const zkp_queue_options *opts,
                             zkp_diag *d);

/* Whether q polls (zkp_queue_options.poll), and its interval in ms. */
int zkp_queue_polling(const zkp_queue *q);
uint32_t zkp_queue_poll_ms(const zkp_queue *q);
void zkp_queue_close(zkp_queue *q);

/* How many statements q ran again after a serialization failure or a
 * deadlock (SQLSTATE 40001 or 40P01): each statement that runs as its own
 * transaction is retried up to 5 times, 4 ms apart and doubling, before
 * its error is returned. */
uint64_t zkp_queue_retries(const zkp_queue *q);

/* From now on each of q's retries also adds one to *counter (atomically),
 * so that a caller holding many connections sums them in one place; NULL
 * stops it. */
void zkp_queue_count_retries_into(zkp_queue *q, _Atomic uint64_t *counter);

/* The newest schema version this build knows. */
unsigned zkp_queue_schema_latest(void);
/* The version the database is at: 0 when no migration ran. */
zkpipe_status zkp_queue_schema_version(zkp_queue *q, unsigned *version, zkp_diag *d);
/* Applies every migration the database lacks, each in its own transaction
 * that first inserts its version into zkpipe_schema: two members migrating
 * at once serialize on that row's primary key, and the later one finds the
 * version present and skips it. *applied counts what this call applied. A
 * database newer than this build is refused (ZKPIPE_ERR_BAD_VERSION). */
zkpipe_status zkp_queue_migrate(zkp_queue *q, unsigned *applied, zkp_diag *d);

/* Registers member (a name unique to one run of one daemon) or refreshes
 * its heartbeat, and extends its leases that have not expired to lease_ms
 * from now. A lease that expired stays expired: its job may already belong
 * to another member. *renewed (may be NULL) counts the leases extended. */
zkpipe_status zkp_queue_heartbeat(zkp_queue *q, const char *member, uint32_t lease_ms,
                                  unsigned *renewed, zkp_diag *d);

/* Deletes the members whose last heartbeat is older than stale_ms and that
 * hold no lease: each run of a daemon is a new member, so without this the
 * table (and `zkpipe queue status`) keeps every run there ever was.
 * *pruned (may be NULL) counts them. */
zkpipe_status zkp_queue_prune_members(zkp_queue *q, uint32_t stale_ms, unsigned *pruned,
                                      zkp_diag *d);

typedef struct {
    const char *request_id; /* unique across the cluster */
    const char *kind;       /* what the member must do, e.g. "groth16" */
    const char *curve;      /* "bn254", "bls12-381" */
    const char *key;        /* the proving key's name, [A-Za-z0-9_.-]; NULL: none */
    uint64_t cost_bytes;    /* memory the job needs to be admitted (0: unknown) */
    /* Device memory one partition takes on a GPU beside its key's resident
     * bases (0: unknown, or no key). */
    uint64_t vram_bytes;
    int32_t priority;       /* higher first (zkpipe_priority's order) */
    /* Exactly one of: the inputs themselves (at most
     * ZKP_QUEUE_INLINE_INPUT_MAX bytes) or a path in a shared directory. */
    const uint8_t *inputs;
    size_t inputs_len;
    const char *inputs_path;
    uint32_t max_attempts; /* claims before the job fails; 0 means 3 */
} zkp_queue_job_spec;

/* Adds a job, or finds the one already submitted with its request_id
 * (*existed = 1; its inputs are not compared). A new job is announced on
 * ZKP_QUEUE_QUEUED_CHANNEL (unless q polls: then nothing is announced,
 * here or by any write below). */
zkpipe_status zkp_queue_enqueue(zkp_queue *q, const zkp_queue_job_spec *spec, int64_t *job_id,
                                int *existed, zkp_diag *d);

/* Which jobs a member can take now: NULL lists mean any. Names are
 * [A-Za-z0-9_.-] only. */
typedef struct {
    const char *const *kinds;
    size_t n_kinds;
    const char *const *curves;
    size_t n_curves;
    const char *const *keys; /* the keys it has registered: jobs without a key pass */
    size_t n_keys;
    /* Preferred among jobs of equal priority: the keys it has hot, so a
     * claim does not make it load a key another member has loaded. */
    const char *const *hot_keys;
    size_t n_hot_keys;
    uint64_t max_cost_bytes; /* what its engine can admit now; 0: no limit */
    /* The device memory its largest GPU has beside what is resident there;
     * 0: no limit (a member that proves on the CPU). Jobs of vram_bytes 0
     * pass any limit. */
    uint64_t max_vram_bytes;
} zkp_queue_filter;

typedef struct {
    int64_t id;
    int64_t generation; /* the fencing token: pass it to complete/fail */
    uint32_t attempts;  /* including this claim */
    int32_t priority;
    char request_id[ZKP_QUEUE_NAME_MAX + 1];
    char kind[ZKP_QUEUE_NAME_MAX + 1];
    char curve[ZKP_QUEUE_NAME_MAX + 1];
    char key[ZKP_QUEUE_NAME_MAX + 1]; /* "" when none */
    uint64_t cost_bytes;
    uint64_t vram_bytes;
    uint8_t *inputs; /* malloc'd, or NULL when inputs_path is set */
    size_t inputs_len;
    char *inputs_path; /* malloc'd, or NULL */
} zkp_queue_claim;

/* Claims the queued job that comes first by priority (higher first), then
 * a hot key, then age, among those filter admits, with a lease of lease_ms. *claimed = 0
 * when there is none; otherwise out is filled (release it with
 * zkp_queue_claim_release). */
zkpipe_status zkp_queue_claim_next(zkp_queue *q, const char *member, uint32_t lease_ms,
                                   const zkp_queue_filter *filter, zkp_queue_claim *out,
                                   int *claimed, zkp_diag *d);
void zkp_queue_claim_release(zkp_queue_claim *c);

/* Returns the jobs whose lease expired to the queue, or fails those that
 * used their attempts, recording why in last_error. Any member may run it
 * at any time; concurrent runs never act twice on one lease. */
zkpipe_status zkp_queue_reap(zkp_queue *q, unsigned *requeued, unsigned *failed, zkp_diag *d);

/* Writes the result of job id as the holder of lease generation gen.
 * *accepted = 1 when the job was still leased under gen and is now done;
 * 0 when the write was refused (the lease was taken over, the job was
 * cancelled). Announces the job on ZKP_QUEUE_NOTIFY_CHANNEL on commit. */
zkpipe_status zkp_queue_complete(zkp_queue *q, int64_t id, int64_t gen, const uint8_t *result,
                                 size_t result_len, int *accepted, zkp_diag *d);

/* Records error for job id's attempt under generation gen. With retry the
 * job goes back to the queue while attempts remain, and fails after the
 * last; without, it fails now (the inputs are bad: another attempt would
 * fail the same way). Fenced like zkp_queue_complete. */
zkpipe_status zkp_queue_fail(zkp_queue *q, int64_t id, int64_t gen, const char *error, int retry,
                             int *accepted, zkp_diag *d);

typedef enum {
    ZKP_QUEUE_QUEUED,
    ZKP_QUEUE_LEASED,
    ZKP_QUEUE_DONE,
    ZKP_QUEUE_FAILED,
    ZKP_QUEUE_CANCELLED
} zkp_queue_state;

typedef struct {
    zkp_queue_state state;
    uint32_t attempts;
    int64_t generation;
    char lease_owner[ZKP_QUEUE_NAME_MAX + 1]; /* "" when not leased */
    char last_error[ZKP_DIAG_MAX];            /* "" when none */
    uint8_t *result; /* malloc'd when done, else NULL */
    size_t result_len;
    /* What the job is (as enqueued). */
    char kind[ZKP_QUEUE_NAME_MAX + 1];
    char key[ZKP_QUEUE_NAME_MAX + 1]; /* "" when none */
    int32_t priority;
} zkp_queue_job_info;

/* Cancels job id if it is queued or leased: it becomes cancelled (final),
 * its lease ends, and the cancel is announced on ZKP_QUEUE_NOTIFY_CHANNEL
 * in the same statement, which wakes its waiters and tells the member
 * holding it (a notification for a job it holds can only be a cancel:
 * nobody else can complete it). That member's result is then refused
 * like any stale write. *cancelled = 0 when the job was final already.
 * ZKPIPE_ERR_OUT_OF_RANGE when there is no such job. */
zkpipe_status zkp_queue_cancel(zkp_queue *q, int64_t id, int *cancelled, zkp_diag *d);

/* Reads job id. ZKPIPE_ERR_OUT_OF_RANGE when there is no such job. */
zkpipe_status zkp_queue_job_get(zkp_queue *q, int64_t id, zkp_queue_job_info *out, zkp_diag *d);
void zkp_queue_job_info_release(zkp_queue_job_info *info);

/* Waits until job id is final (done, failed or cancelled: *final = 1,
 * out filled as by zkp_queue_job_get) or timeout_ms passed (*final = 0;
 * out still filled with the state last read). The wake-up is a NOTIFY on
 * ZKP_QUEUE_NOTIFY_CHANNEL, to which this connection LISTENs from the
 * first call on: the state is read after the LISTEN, so a write committed
 * in between is seen either by that read or as a notification, and the
 * wait does not poll. A polling connection (zkp_queue_options.poll) reads
 * the job again every poll interval instead, so it learns of an outcome
 * up to that late. The connection must not be inside a transaction. */
zkpipe_status zkp_queue_wait(zkp_queue *q, int64_t id, int64_t timeout_ms,
                             zkp_queue_job_info *out, int *final, zkp_diag *d);

/* Waits up to timeout_ms for notifications on ZKP_QUEUE_NOTIFY_CHANNEL
 * and ZKP_QUEUE_QUEUED_CHANNEL (LISTENing to both from the first call on)
 * and returns the job ids the first names in ids (at most cap; *n of them;
 * the rest are dropped: a notification is a hint, and a listener re-reads
 * what it cares about); *queued = 1 when the second announced work.
 * Returns early, with *n = 0, when wake_fd (>= 0) becomes readable: a
 * member's watcher thread is woken that way to stop. Used by a member to
 * learn at once of its jobs' outcomes and of cancels of the jobs it holds,
 * with one connection for all of them. ZKPIPE_ERR_UNSUPPORTED on a polling
 * connection: there is nothing to listen to. */
zkpipe_status zkp_queue_notifications(zkp_queue *q, int64_t timeout_ms, int wake_fd, int64_t *ids,
                                      size_t cap, size_t *n, int *queued, zkp_diag *d);

/* Which of the jobs ids[0..n) no longer wait on anyone: final (done,
 * failed, cancelled) or gone. They are written to out (room for n; *n_out
 * of them) in no particular order; the rest are queued or leased. One
 * statement for all of them: a polling member's watcher reads what its
 * waiting clients and the jobs it holds became this way, every interval
 * (a held job that became final was cancelled: nobody else can finish
 * it). Works with or without notifications. */
zkpipe_status zkp_queue_settled(zkp_queue *q, const int64_t *ids, size_t n, int64_t *out,
                                size_t *n_out, zkp_diag *d);

/* The queued jobs by priority: depth[p] for priorities 0..n-1 (zkpipe's
 * LOW..CRITICAL); jobs of other priorities are not counted. */
zkpipe_status zkp_queue_depth(zkp_queue *q, uint64_t *depth, size_t n, zkp_diag *d);

/* Writes what `zkpipe queue status` shows: the schema version, the
 * members and their heartbeats, the leases, the queue's depth by priority
 * and the failed jobs (the newest `failed_limit`). */
zkpipe_status zkp_queue_status_write(zkp_queue *q, FILE *out, unsigned failed_limit, zkp_diag *d);

#endif
