/* Cluster mode, the daemon's side: enqueueing, the watcher, the claimer
 * and its runners (cluster.h).
 *
 * Threads and connections. A libpq connection serves one thread at a time:
 * the watcher and the claimer have one each, and the rest (submits,
 * cancels, the runners' write-backs) take one from a small pool. A
 * connection that failed once is closed, and the next use connects again,
 * so a restarted PostgreSQL costs the calls in flight at that moment and
 * nothing more.
 *
 * Lock order: the cluster lock, then the daemon lock (a cancel of a held
 * job reaches the engine under both); no database round trip is made
 * under either. */
#include "server/cluster.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <protobuf-c/protobuf-c.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "queue/queue.h"
#include "server/svc_common.h"
#include "util/clock.h"
#include "util/rand.h"

#define POOL_IDLE_MAX 8
/* Notifications taken per wake-up; more means some were dropped, and every
 * live job is read again. */
#define NOTIFY_BATCH 256
/* Members silent this many leases (and holding none) are pruned. */
#define PRUNE_AFTER_LEASES 10
/* How long a runner keeps trying to write its outcome back: past the
 * lease, the job is someone else's anyway. */
#define WRITE_RETRY_MS 1000

typedef struct held {
    int64_t id;
    srv_job *local;
    struct held *next;
} held;

struct srv_cluster {
    zkp_daemon *d;
    FILE *log;
    char *url;
    char member[ZKP_QUEUE_NAME_MAX + 1];
    char inputs_dir[PATH_MAX]; /* resolved; "" when none */
    uint32_t lease_ms, max_attempts;
    unsigned max_claims;
    int64_t idle_ms;
    size_t file_max;   /* inputs read from the shared directory, at most */
    size_t inline_max; /* inputs stored in the database, at most */
    zkp_queue_options qopts; /* queue.notify = off: every connection polls */

    pthread_mutex_t lk;
    pthread_cond_t cv; /* a claim ended, work arrived, stopping */
    /* Counts the wake-ups on cv, so that the claimer, which looks for work
     * without the lock, does not then sleep through one that came while it
     * looked (the next job of a client that waited for the last one). */
    uint64_t wakes;
    zkp_queue *idle[POOL_IDLE_MAX];
    size_t n_idle;
    held *held; /* the claims running here */
    unsigned running;
    int stopping;
    int said_no_device; /* the claimer's own: it logged that no device is in service */
    int wake_pipe[2]; /* written to stop the watcher */
    pthread_t claimer, watcher;
    int threads;
    uint64_t next_request_seq;

    _Atomic uint64_t enqueued, claims, completed, failed, refused, expiries, reaped_failed;
    _Atomic uint64_t retries; /* statements the connections ran again (zkp_queue_retries) */
    _Atomic uint64_t depth[4];
};

static void log_(srv_cluster *c, const char *fmt, ...) ZKP_PRINTF(2, 3);
static void log_(srv_cluster *c, const char *fmt, ...) {
    if (!c->log) return;
    va_list ap;
    va_start(ap, fmt);
    flockfile(c->log);
    fputs("zkpipe serve: cluster: ", c->log);
    vfprintf(c->log, fmt, ap);
    fputc('\n', c->log);
    fflush(c->log);
    funlockfile(c->log);
    va_end(ap);
}

static int64_t mono_ms_(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

/* Wakes the claimer and every other waiter on cv (lock held). */
static void wake_locked_(srv_cluster *c) {
    c->wakes++;
    pthread_cond_broadcast(&c->cv);
}

/* Waits on the cluster's condition for up to ms (lock held). */
static void wait_ms_locked_(srv_cluster *c, int64_t ms) {
    struct timespec dl;
    zkp_realtime_after_ms(&dl, ms > 0 ? ms : 1);
    pthread_cond_timedwait(&c->cv, &c->lk, &dl);
}

/* ------------------------------------------------------------------------
 * Formats */

static void put_u32_(uint8_t *p, uint32_t v) {
    for (int i = 0; i < 4; i++) p[i] = (uint8_t)(v >> (8 * i));
}
static void put_u64_(uint8_t *p, uint64_t v) {
    for (int i = 0; i < 8; i++) p[i] = (uint8_t)(v >> (8 * i));
}
static uint32_t get_u32_(const uint8_t *p) {
    uint32_t v = 0;
    for (int i = 3; i >= 0; i--) v = v << 8 | p[i];
    return v;
}
static uint64_t get_u64_(const uint8_t *p) {
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--) v = v << 8 | p[i];
    return v;
}

uint8_t *srv_cluster_encode_inputs(srv_service service, const ProtobufCMessage *msg, size_t *len) {
    *len = 0;
    /* Without the fields this zkpipe does not know: protobuf-c keeps them as
     * read (a field number 0 included) and may pack them into bytes it then
     * cannot read, which would make a job no member can decode. The daemon
     * reads the known fields only. A shallow copy: packing only reads. */
    ProtobufCMessage *m = malloc(msg->descriptor->sizeof_message);
    if (!m) return NULL;
    memcpy(m, msg, msg->descriptor->sizeof_message);
    m->n_unknown_fields = 0;
    m->unknown_fields = NULL;
    size_t n = protobuf_c_message_get_packed_size(m);
    uint8_t *b = n <= SIZE_MAX - SRV_CLUSTER_INPUTS_HEADER ? malloc(SRV_CLUSTER_INPUTS_HEADER + n)
                                                           : NULL;
    if (!b) {
        free(m);
        return NULL;
    }
    memcpy(b, "ZKPJ", 4);
    b[4] = 1;
    b[5] = (uint8_t)service;
    b[6] = b[7] = 0;
    put_u64_(b + 8, (uint64_t)n);
    protobuf_c_message_pack(m, b + SRV_CLUSTER_INPUTS_HEADER);
    free(m);
    *len = SRV_CLUSTER_INPUTS_HEADER + n;
    return b;
}

int srv_cluster_decode_inputs(const uint8_t *buf, size_t len, srv_service *service,
                              const uint8_t **msg, size_t *msg_len, char *why, size_t why_len) {
    if (len < SRV_CLUSTER_INPUTS_HEADER || memcmp(buf, "ZKPJ", 4) != 0) {
        snprintf(why, why_len, "the job's inputs are not a zkpipe request (%zu bytes)", len);
        return -1;
    }
    if (buf[4] != 1) {
        snprintf(why, why_len, "the job's inputs are of version %u; this zkpipe reads 1", buf[4]);
        return -1;
    }
    if ((buf[5] != SRV_SERVICE_ZKPIPE && buf[5] != SRV_SERVICE_CUZK) || buf[6] || buf[7]) {
        snprintf(why, why_len, "the job's inputs name no known service");
        return -1;
    }
    uint64_t n = get_u64_(buf + 8);
    if (n != (uint64_t)(len - SRV_CLUSTER_INPUTS_HEADER)) {
        snprintf(why, why_len, "the job's inputs say %llu bytes of request and hold %zu",
                 (unsigned long long)n, len - SRV_CLUSTER_INPUTS_HEADER);
        return -1;
    }
    *service = (srv_service)buf[5];
    *msg = buf + SRV_CLUSTER_INPUTS_HEADER;
    *msg_len = (size_t)n;
    return 0;
}

#define RESULT_HEADER (4 + 4 + 4 + 6 * 8)
#define PART_HEADER (1 + 3 * 4)
/* Stage times beyond about 30 years are not times. */
#define MAX_TIME_US ((uint64_t)1 << 50)

static uint64_t time_us_(double s) {
    if (!(s > 0)) return 0;
    double us = s * 1e6;
    return us >= (double)MAX_TIME_US ? MAX_TIME_US : (uint64_t)us;
}

uint8_t *srv_cluster_encode_result(const zkpipe_job_result *r, const zkpipe_stage_times *t,
                                   size_t *len, char *why, size_t why_len) {
    *len = 0;
    size_t n = RESULT_HEADER;
    for (size_t i = 0; i < r->n_partitions; i++) {
        const zkpipe_partition_result *p = &r->partitions[i];
        size_t add = PART_HEADER + p->proof_len + (p->proof_json ? strlen(p->proof_json) : 0) +
                     (p->public_json ? strlen(p->public_json) : 0);
        if (add > ZKP_QUEUE_RESULT_MAX || n > ZKP_QUEUE_RESULT_MAX - add) {
            snprintf(why, why_len, "the result of %zu partitions exceeds the queue's %zu bytes",
                     r->n_partitions, ZKP_QUEUE_RESULT_MAX);
            return NULL;
        }
        n += add;
    }
    uint8_t *b = malloc(n);
    if (!b) {
        snprintf(why, why_len, "out of memory");
        return NULL;
    }
    memcpy(b, "ZKPR", 4);
    b[4] = 1;
    b[5] = b[6] = b[7] = 0;
    put_u32_(b + 8, (uint32_t)r->n_partitions);
    const double times[6] = {t->queue_wait, t->key_load, t->synthesis,
                             t->device,     t->finalize, t->verify};
    for (int i = 0; i < 6; i++) put_u64_(b + 12 + 8 * i, time_us_(times[i]));
    size_t at = RESULT_HEADER;
    for (size_t i = 0; i < r->n_partitions; i++) {
        const zkpipe_partition_result *p = &r->partitions[i];
        size_t lj = p->proof_json ? strlen(p->proof_json) : 0;
        size_t lp = p->public_json ? strlen(p->public_json) : 0;
        b[at] = p->verified ? 1 : 0;
        put_u32_(b + at + 1, (uint32_t)p->proof_len);
        put_u32_(b + at + 5, (uint32_t)lj);
        put_u32_(b + at + 9, (uint32_t)lp);
        at += PART_HEADER;
        memcpy(b + at, p->proof, p->proof_len);
        at += p->proof_len;
        if (lj) memcpy(b + at, p->proof_json, lj);
        at += lj;
        if (lp) memcpy(b + at, p->public_json, lp);
        at += lp;
    }
    *len = n;
    return b;
}

/* A JSON text of the result: no NUL inside, valid UTF-8 (it is echoed in
 * proto3 strings, which strict clients check). NULL when empty. */
static int text_(const uint8_t *p, size_t n, char **out) {
    *out = NULL;
    if (n == 0) return 0;
    if (memchr(p, 0, n)) return -1;
    char *s = malloc(n + 1);
    if (!s) return -1;
    memcpy(s, p, n);
    s[n] = 0;
    if (!svc_utf8_ok(s)) {
        free(s);
        return -1;
    }
    *out = s;
    return 0;
}

int srv_cluster_decode_result(const uint8_t *buf, size_t len, zkpipe_job_result *out,
                              zkpipe_stage_times *t, char *why, size_t why_len) {
    memset(out, 0, sizeof *out);
    memset(t, 0, sizeof *t);
    if (len < RESULT_HEADER || len > ZKP_QUEUE_RESULT_MAX || memcmp(buf, "ZKPR", 4) != 0 ||
        buf[4] != 1 || buf[5] || buf[6] || buf[7]) {
        snprintf(why, why_len, "the job's result is not a zkpipe result of version 1");
        return -1;
    }
    uint32_t n = get_u32_(buf + 8);
    /* Each partition takes its header at least: a count past that is a lie,
     * caught before anything is allocated for it. */
    if (n == 0 || n > (len - RESULT_HEADER) / PART_HEADER) {
        snprintf(why, why_len, "the job's result claims %u partitions in %zu bytes", n, len);
        return -1;
    }
    double *times[6] = {&t->queue_wait, &t->key_load, &t->synthesis,
                        &t->device,     &t->finalize, &t->verify};
    for (int i = 0; i < 6; i++) {
        uint64_t us = get_u64_(buf + 12 + 8 * i);
        if (us > MAX_TIME_US) {
            snprintf(why, why_len, "the job's result has a stage time out of range");
            return -1;
        }
        *times[i] = (double)us / 1e6;
    }
    out->partitions = calloc(n, sizeof *out->partitions);
    if (!out->partitions) {
        snprintf(why, why_len, "out of memory");
        return -1;
    }
    out->n_partitions = n;
    size_t at = RESULT_HEADER;
    for (uint32_t i = 0; i < n; i++) {
        zkpipe_partition_result *p = &out->partitions[i];
        if (len - at < PART_HEADER) goto truncated;
        uint8_t verified = buf[at];
        size_t lproof = get_u32_(buf + at + 1), lj = get_u32_(buf + at + 5),
               lp = get_u32_(buf + at + 9);
        at += PART_HEADER;
        if (verified > 1 || lproof == 0 || lproof > ZKPIPE_PROOF_MAX_BYTES) {
            snprintf(why, why_len, "partition %u of the job's result is malformed", i);
            goto fail;
        }
        if (len - at < lproof || len - at - lproof < lj || len - at - lproof - lj < lp)
            goto truncated;
        memcpy(p->proof, buf + at, lproof);
        p->proof_len = lproof;
        at += lproof;
        if (text_(buf + at, lj, &p->proof_json) || text_(buf + at + lj, lp, &p->public_json)) {
            snprintf(why, why_len, "partition %u of the job's result has malformed JSON text", i);
            goto fail;
        }
        at += lj + lp;
        p->verified = verified;
        p->status = ZKPIPE_OK;
    }
    if (at != len) {
        snprintf(why, why_len, "the job's result has %zu bytes past its partitions", len - at);
        goto fail;
    }
    out->status = ZKPIPE_OK;
    return 0;
truncated:
    snprintf(why, why_len, "the job's result is truncated");
fail:
    zkpipe_job_result_clear(out);
    return -1;
}

/* ------------------------------------------------------------------------
 * Connections */

static zkp_queue *conn_get_(srv_cluster *c, zkp_diag *d) {
    pthread_mutex_lock(&c->lk);
    zkp_queue *q = c->n_idle ? c->idle[--c->n_idle] : NULL;
    pthread_mutex_unlock(&c->lk);
    if (!q) {
        if (zkp_queue_open(&q, c->url, &c->qopts, d) != ZKPIPE_OK) return NULL;
        zkp_queue_count_retries_into(q, &c->retries);
    }
    return q;
}

/* Returns a connection to the pool, or closes it after a failure (it may
 * be broken) or when the pool is full. */
static void conn_put_(srv_cluster *c, zkp_queue *q, int failed) {
    if (!q) return;
    pthread_mutex_lock(&c->lk);
    if (!failed && c->n_idle < POOL_IDLE_MAX) {
        c->idle[c->n_idle++] = q;
        q = NULL;
    }
    pthread_mutex_unlock(&c->lk);
    zkp_queue_close(q);
}

/* ------------------------------------------------------------------------
 * A job's outcome into the table */

/* Reads the queue's job behind j and files its outcome when it is final. */
static zkpipe_status refresh_(srv_cluster *c, zkp_queue *q, srv_job *j, zkp_diag *d) {
    zkp_queue_job_info info;
    zkpipe_status st = zkp_queue_job_get(q, j->cluster_id, &info, d);
    if (st == ZKPIPE_ERR_OUT_OF_RANGE) {
        /* Pruned, or deleted by hand: nothing will ever finish it. */
        srv_job_finish_cluster(c->d, j, ZKP_OUTCOME_FAILED, ZKPIPE_ERR_OUT_OF_RANGE,
                               "the job is no longer in the cluster's queue", NULL, NULL);
        return ZKPIPE_OK;
    }
    if (st != ZKPIPE_OK) return st;
    char why[ZKP_DIAG_MAX];
    if (info.state == ZKP_QUEUE_DONE) {
        zkpipe_job_result r;
        zkpipe_stage_times t;
        if (srv_cluster_decode_result(info.result, info.result_len, &r, &t, why, sizeof why) == 0)
            srv_job_finish_cluster(c->d, j, ZKP_OUTCOME_COMPLETED, ZKPIPE_OK, "", &r, &t);
        else
            srv_job_finish_cluster(c->d, j, ZKP_OUTCOME_FAILED, ZKPIPE_ERR_PARSE, why, NULL, NULL);
    } else if (info.state == ZKP_QUEUE_FAILED) {
        srv_job_finish_cluster(c->d, j, ZKP_OUTCOME_FAILED, ZKPIPE_ERR_IO,
                               info.last_error[0] ? info.last_error : "the job failed", NULL, NULL);
    } else if (info.state == ZKP_QUEUE_CANCELLED) {
        srv_job_finish_cluster(c->d, j, ZKP_OUTCOME_CANCELLED, ZKPIPE_ERR_CANCELLED,
                               "the job was cancelled", NULL, NULL);
    }
    zkp_queue_job_info_release(&info);
    return ZKPIPE_OK;
}

/* Reads again the queue's job id if a live entry waits for it. */
static zkpipe_status refresh_id_(srv_cluster *c, zkp_queue *q, int64_t id, zkp_diag *d) {
    srv_job *j = srv_job_find_cluster(c->d, id, 1);
    if (!j) return ZKPIPE_OK;
    zkpipe_status st = refresh_(c, q, j, d);
    srv_job_put(c->d, j);
    return st;
}

static zkpipe_status refresh_all_(srv_cluster *c, zkp_queue *q, zkp_diag *d) {
    size_t n;
    int64_t *ids = srv_cluster_live_ids(c->d, &n);
    if (!ids) return zkp_diag_fail(d, ZKPIPE_ERR_NO_MEMORY, "out of memory");
    zkpipe_status st = ZKPIPE_OK;
    for (size_t i = 0; i < n && st == ZKPIPE_OK; i++) st = refresh_id_(c, q, ids[i], d);
    free(ids);
    return st;
}

/* A notification for a job held here can only be a cancel: nobody else can
 * complete it while the lease is this member's, and a lease that expired
 * leaves the result refused anyway. */
static void cancel_if_held_(srv_cluster *c, int64_t id) {
    pthread_mutex_lock(&c->lk);
    srv_job *local = NULL;
    for (held *h = c->held; h; h = h->next)
        if (h->id == id) local = h->local;
    /* The runner holds its reference until it leaves the list, which
     * needs this lock: the job cannot go while it is used below. */
    if (local) srv_job_cancel_engine(c->d, local);
    pthread_mutex_unlock(&c->lk);
}

static int stopping_(srv_cluster *c) {
    pthread_mutex_lock(&c->lk);
    int stop = c->stopping;
    pthread_mutex_unlock(&c->lk);
    return stop;
}

static void *watcher_(void *arg) {
    srv_cluster *c = arg;
    zkp_queue *q = NULL;
    int64_t ids[NOTIFY_BATCH];
    for (;;) {
        if (stopping_(c)) break;
        zkp_diag d = {{0}};
        zkpipe_status st = ZKPIPE_OK;
        if (!q) {
            /* A new connection LISTENs from its first wait on: anything
             * finished while there was none is found by reading again. */
            size_t none;
            int queued;
            if ((q = conn_get_(c, &d)) == NULL ||
                (st = zkp_queue_notifications(q, 0, -1, ids, 0, &none, &queued, &d)) != ZKPIPE_OK ||
                (st = refresh_all_(c, q, &d)) != ZKPIPE_OK) {
                log_(c, "watcher: %s; again in a second", d.msg);
                zkp_queue_close(q);
                q = NULL;
                pthread_mutex_lock(&c->lk);
                if (!c->stopping) wait_ms_locked_(c, 1000);
                pthread_mutex_unlock(&c->lk);
                continue;
            }
        }
        size_t n = 0;
        int queued = 0;
        st = zkp_queue_notifications(q, 60000, c->wake_pipe[0], ids, NOTIFY_BATCH, &n, &queued, &d);
        if (queued) {
            /* Work to claim: the claimer looks now, not at its next look. */
            pthread_mutex_lock(&c->lk);
            wake_locked_(c);
            pthread_mutex_unlock(&c->lk);
        }
        for (size_t i = 0; i < n && st == ZKPIPE_OK; i++) {
            cancel_if_held_(c, ids[i]);
            st = refresh_id_(c, q, ids[i], &d);
        }
        if (st == ZKPIPE_OK && n == NOTIFY_BATCH) st = refresh_all_(c, q, &d);
        if (st != ZKPIPE_OK) {
            log_(c, "watcher: %s", d.msg);
            zkp_queue_close(q);
            q = NULL;
        }
    }
    zkp_queue_close(q);
    return NULL;
}

/* The watcher where the database has no LISTEN/NOTIFY (queue.notify =
 * off): every queue.poll_ms one statement finds which of the jobs this
 * member watches (the entries clients wait on, and the claims running
 * here) are final, and each is handled as a notification naming it would
 * be: a held one can only have been cancelled (or taken over and
 * finished), and its engine job stops. Nothing is read while there is
 * nothing to watch. */
static void *poller_(void *arg) {
    srv_cluster *c = arg;
    zkp_queue *q = NULL;
    for (;;) {
        if (stopping_(c)) break;
        zkp_diag d = {{0}};
        zkpipe_status st = ZKPIPE_OK;
        size_t n = 0, n_settled = 0;
        int64_t *ids = srv_cluster_live_ids(c->d, &n), *settled = NULL;
        if (ids) {
            pthread_mutex_lock(&c->lk);
            size_t n_held = 0;
            for (held *h = c->held; h; h = h->next) n_held++;
            int64_t *all = realloc(ids, (n + n_held + 1) * sizeof *ids);
            if (all) {
                ids = all;
                for (held *h = c->held; h; h = h->next) ids[n++] = h->id;
            }
            pthread_mutex_unlock(&c->lk);
            if (!all) {
                free(ids);
                ids = NULL;
            }
        }
        if (ids) settled = malloc((n ? n : 1) * sizeof *settled);
        if (!settled) {
            st = zkp_diag_fail(&d, ZKPIPE_ERR_NO_MEMORY, "out of memory");
        } else if (n) {
            if (!q && (q = conn_get_(c, &d)) == NULL) st = ZKPIPE_ERR_IO;
            if (st == ZKPIPE_OK) st = zkp_queue_settled(q, ids, n, settled, &n_settled, &d);
            for (size_t i = 0; i < n_settled && st == ZKPIPE_OK; i++) {
                cancel_if_held_(c, settled[i]);
                st = refresh_id_(c, q, settled[i], &d);
            }
        }
        free(ids);
        free(settled);
        int64_t wait = (int64_t)c->qopts.poll_ms;
        if (st != ZKPIPE_OK) {
            log_(c, "watcher: %s; again in a second", d.msg);
            zkp_queue_close(q);
            q = NULL;
            if (wait < 1000) wait = 1000;
        }
        /* The stop writes to the pipe; nothing else does. */
        struct pollfd p = {.fd = c->wake_pipe[0], .events = POLLIN};
        (void)poll(&p, 1, (int)wait);
    }
    zkp_queue_close(q);
    return NULL;
}

/* ------------------------------------------------------------------------
 * Submitting */

static int name_ok_(const char *s) {
    size_t n = strlen(s);
    if (n == 0 || n > SRV_KEY_NAME_MAX) return 0;
    return strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-") == n;
}

/* Writes inputs to the shared directory under a random name (a temporary
 * name, then a rename: a member never reads half a file). */
static int write_shared_(srv_cluster *c, const uint8_t *b, size_t len, char *path, size_t cap,
                         char *msg, size_t msg_len) {
    uint8_t rnd[16];
    if (zkp_random_bytes(rnd, sizeof rnd) != ZKPIPE_OK) {
        snprintf(msg, msg_len, "no random bytes for a file name");
        return -1;
    }
    char name[64] = "job-";
    for (int i = 0; i < 16; i++) snprintf(name + 4 + 2 * i, 3, "%02x", rnd[i]);
    strcat(name, ".zkpj");
    char tmp[PATH_MAX];
    if (snprintf(path, cap, "%s/%s", c->inputs_dir, name) >= (int)cap ||
        snprintf(tmp, sizeof tmp, "%s/.%s.tmp", c->inputs_dir, name) >= (int)sizeof tmp) {
        snprintf(msg, msg_len, "queue.inputs_dir is too long");
        return -1;
    }
    int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0640);
    int ok = fd >= 0;
    for (size_t at = 0; ok && at < len;) {
        ssize_t w = write(fd, b + at, len - at);
        if (w < 0 && errno == EINTR) continue;
        ok = w > 0;
        if (ok) at += (size_t)w;
    }
    int err = errno;
    if (fd >= 0 && fsync(fd) != 0 && ok) ok = 0, err = errno;
    if (fd >= 0 && close(fd) != 0 && ok) ok = 0, err = errno;
    if (ok && rename(tmp, path) != 0) ok = 0, err = errno;
    if (!ok) {
        (void)unlink(tmp);
        snprintf(msg, msg_len, "cannot write the job's inputs to queue.inputs_dir: %s",
                 strerror(err));
        return -1;
    }
    return 0;
}

/* The cost a claimer must be able to admit: the request, plus one
 * partition's working set when this member knows the key. Every kind has
 * one: a claimer whose budget is full is offered only jobs of cost 0
 * (filter_), and a PoRep job it took then would fail for memory, be
 * queued again, and be taken again by it at once (its claimer wakes as
 * the failed run ends) until its attempts were spent, while other members
 * had room. A PoRep job's key is its registered proof's, under the name
 * its claimer registers it by. *vram is the device memory of one
 * partition, for GPU claimers (filter_); 0 when the key is unknown here. */
static uint64_t cost_(zkp_daemon *d, const srv_submit_req *r, const char **curve,
                      uint64_t *vram) {
    uint64_t cost = r->payload_bytes;
    *curve = "any";
    *vram = 0;
    uint32_t id = 0;
    char porep_key[SRV_KEY_NAME_MAX + 1];
    if (r->kind == SRV_KIND_CIRCOM && r->key)
        id = srv_key_lookup(d, r->key);
    else if (r->kind == SRV_KIND_POREP_SEAL_COMMIT &&
             srv_porep_key_name(r->registered_proof, porep_key, sizeof porep_key))
        id = srv_key_lookup(d, porep_key);
    if (!id) return cost;
    zkpipe_engine_status *st = malloc(sizeof *st);
    if (st && zkpipe_engine_get_status(d->engine, st) == ZKPIPE_OK) {
        for (size_t i = 0; i < st->n_keys; i++) {
            if (st->keys[i].id != id) continue;
            cost += st->keys[i].partition_bytes;
            *vram = st->keys[i].device_partition_bytes;
            /* A circom job's row names its curve; a PoRep job's stays
             * "any", as on a member that has not met its key yet. */
            if (r->kind != SRV_KIND_CIRCOM) continue;
            if (st->keys[i].curve == ZKPIPE_CURVE_BN254) *curve = "bn254";
            if (st->keys[i].curve == ZKPIPE_CURVE_BLS12_381) *curve = "bls12-381";
        }
    }
    free(st);
    return cost;
}

zkp_rpc_code srv_cluster_submit(zkp_daemon *d, const srv_submit_req *r, srv_job **out, char *msg,
                                size_t msg_len) {
    srv_cluster *c = d->cluster;
    *out = NULL;
    zkp_rpc_code code = ZKP_RPC_OK;
    uint8_t *inputs = NULL;
    size_t len = 0;
    char rid[ZKP_QUEUE_NAME_MAX + 1], key[SRV_KEY_NAME_MAX + 1] = "", path[PATH_MAX] = "";
    const char *curve = "any";
    uint64_t cost = 0, vram = 0;
    /* What the job is, copied before the payload (where it lives) goes. */
    srv_submit_req desc = *r;
    const int client_rid = r->request_id && *r->request_id;
    /* Before the queue has it: a job enqueued and then refused locally
     * would run on the other members for a client told it was not taken.
     * (A drain that begins after this look refuses at the attach below; the
     * queued job then stays for the others, as a drain leaves such jobs.) */
    pthread_mutex_lock(&d->lk);
    int draining = d->draining;
    pthread_mutex_unlock(&d->lk);
    if (draining) {
        snprintf(msg, msg_len, "%s", SRV_DRAINING_MSG);
        code = ZKP_RPC_UNAVAILABLE;
        goto out;
    }
    if (client_rid) {
        if (strlen(r->request_id) > ZKP_QUEUE_NAME_MAX) {
            snprintf(msg, msg_len, "in cluster mode a request_id has at most %d bytes",
                     ZKP_QUEUE_NAME_MAX);
            code = ZKP_RPC_INVALID_ARGUMENT;
            goto out;
        }
        snprintf(rid, sizeof rid, "%s", r->request_id);
    } else {
        /* Unique across the cluster: the member's name is. */
        pthread_mutex_lock(&c->lk);
        uint64_t seq = ++c->next_request_seq;
        pthread_mutex_unlock(&c->lk);
        snprintf(rid, sizeof rid, "zkpipe:%.200s:%llu", c->member, (unsigned long long)seq);
    }
    if (r->kind == SRV_KIND_CIRCOM) {
        if (!r->key || !name_ok_(r->key)) {
            snprintf(msg, msg_len, "key name '%.80s' must be 1 to %d characters of A-Z a-z 0-9 . _ -",
                     r->key ? r->key : "", SRV_KEY_NAME_MAX);
            code = ZKP_RPC_INVALID_ARGUMENT;
            goto out;
        }
        snprintf(key, sizeof key, "%s", r->key);
    } else if (r->kind == SRV_KIND_POREP_SEAL_COMMIT) {
        /* Named like the key its claimer registers, so that only members
         * with the size's parameters claim it (filter_). An unknown
         * registered proof keeps none: it fails on whichever member. */
        (void)srv_porep_key_name(r->registered_proof, key, sizeof key);
    }
    cost = cost_(d, r, &curve, &vram);
    inputs = r->submit_msg ? srv_cluster_encode_inputs(r->service, r->submit_msg, &len) : NULL;
    if (!inputs) {
        snprintf(msg, msg_len, "out of memory");
        code = ZKP_RPC_RESOURCE_EXHAUSTED;
        goto out;
    }
    if (len > c->inline_max) {
        if (!c->inputs_dir[0]) {
            snprintf(msg, msg_len,
                     "a request of %zu bytes is larger than the cluster's database takes "
                     "(queue.inline_max, %zu); set queue.inputs_dir to a directory every member "
                     "mounts",
                     len, c->inline_max);
            code = ZKP_RPC_RESOURCE_EXHAUSTED;
            goto out;
        }
        if (write_shared_(c, inputs, len, path, sizeof path, msg, msg_len) != 0) {
            code = ZKP_RPC_UNAVAILABLE;
            goto out;
        }
    }
out:
    /* The request data: the queue holds it now (or the call failed). */
    if (r->payload_free) r->payload_free(r->payload);
    desc.payload = NULL;
    desc.payload_free = NULL;
    desc.witnesses = NULL;
    desc.submit_msg = NULL;
    desc.key = key;
    desc.request_id = client_rid ? rid : NULL;
    if (code != ZKP_RPC_OK) {
        free(inputs);
        return code;
    }
    zkp_queue_job_spec spec = {.request_id = rid,
                               .kind = srv_kind_name(r->kind),
                               .curve = curve,
                               .key = key[0] ? key : NULL,
                               .cost_bytes = cost,
                               .vram_bytes = vram,
                               .priority = (int32_t)r->priority,
                               .inputs = path[0] ? NULL : inputs,
                               .inputs_len = path[0] ? 0 : len,
                               .inputs_path = path[0] ? path : NULL,
                               .max_attempts = c->max_attempts};
    zkp_diag dg = {{0}};
    int64_t id = 0;
    int existed = 0;
    zkp_queue *q = conn_get_(c, &dg);
    zkpipe_status st = q ? zkp_queue_enqueue(q, &spec, &id, &existed, &dg) : ZKPIPE_ERR_IO;
    free(inputs);
    if (st != ZKPIPE_OK) {
        conn_put_(c, q, 1);
        if (path[0]) (void)unlink(path);
        snprintf(msg, msg_len, "the cluster's queue refused the job: %s", dg.msg);
        return st == ZKPIPE_ERR_IO ? ZKP_RPC_UNAVAILABLE : ZKP_RPC_INVALID_ARGUMENT;
    }
    /* Attached to a job submitted before: its inputs are the ones kept. */
    if (existed && path[0]) {
        (void)unlink(path);
        path[0] = 0;
    }
    atomic_fetch_add(&c->enqueued, !existed);
    code = srv_job_attach_cluster(d, id, &desc, path[0] ? path : NULL, out, msg, msg_len);
    if (code != ZKP_RPC_OK) {
        conn_put_(c, q, 0);
        return code;
    }
    /* Final already (a repeated request id), or finished before the entry
     * existed: the watcher's notification found no entry then. */
    st = refresh_(c, q, *out, &dg);
    conn_put_(c, q, st != ZKPIPE_OK);
    /* Work for this member's claimer, without waiting for its next look. */
    pthread_mutex_lock(&c->lk);
    wake_locked_(c);
    pthread_mutex_unlock(&c->lk);
    return ZKP_RPC_OK;
}

void srv_cluster_cancel(zkp_daemon *d, int64_t cluster_id) {
    srv_cluster *c = d->cluster;
    if (!c) return;
    zkp_diag dg = {{0}};
    zkp_queue *q = conn_get_(c, &dg);
    int cancelled = 0;
    zkpipe_status st = q ? zkp_queue_cancel(q, cluster_id, &cancelled, &dg) : ZKPIPE_ERR_IO;
    if (st != ZKPIPE_OK && st != ZKPIPE_ERR_OUT_OF_RANGE)
        log_(c, "cannot cancel job %lld: %s", (long long)cluster_id, dg.msg);
    conn_put_(c, q, st != ZKPIPE_OK && st != ZKPIPE_ERR_OUT_OF_RANGE);
}

/* The queue's id in a wire id "cluster-<decimal>", one spelling per id;
 * 0 when it is not one. */
static int64_t parse_cluster_id_(const char *s) {
    static const char prefix[] = "cluster-";
    size_t n = sizeof prefix - 1;
    if (!s || strncmp(s, prefix, n) != 0 || s[n] < '1' || s[n] > '9' || strlen(s + n) > 18 ||
        strspn(s + n, "0123456789") != strlen(s + n))
        return 0;
    return (int64_t)strtoll(s + n, NULL, 10);
}

static srv_kind kind_of_(const char *name) {
    for (int k = 0; k < SRV_KIND_COUNT; k++)
        if (!strcmp(srv_kind_name((srv_kind)k), name)) return (srv_kind)k;
    return SRV_KIND_COUNT;
}

srv_job *srv_cluster_job_get(zkp_daemon *d, const char *id_text) {
    srv_cluster *c = d->cluster;
    int64_t id = parse_cluster_id_(id_text);
    if (!c || !id) return NULL;
    srv_job *j = srv_job_find_cluster(d, id, 0);
    if (j) return j;
    /* A job another member took: an entry here, from its row, that the
     * watcher finishes like any other. */
    zkp_diag dg = {{0}};
    zkp_queue *q = conn_get_(c, &dg);
    zkp_queue_job_info info;
    zkpipe_status st = q ? zkp_queue_job_get(q, id, &info, &dg) : ZKPIPE_ERR_IO;
    if (st != ZKPIPE_OK) {
        if (st != ZKPIPE_ERR_OUT_OF_RANGE) log_(c, "reading job %lld: %s", (long long)id, dg.msg);
        conn_put_(c, q, st != ZKPIPE_ERR_OUT_OF_RANGE);
        return NULL;
    }
    srv_submit_req desc;
    memset(&desc, 0, sizeof desc);
    desc.kind = kind_of_(info.kind);
    desc.key = info.key;
    desc.priority = info.priority >= ZKPIPE_PRIORITY_LOW && info.priority <= ZKPIPE_PRIORITY_CRITICAL
                        ? (zkpipe_priority)info.priority
                        : ZKPIPE_PRIORITY_NORMAL;
    zkp_queue_job_info_release(&info);
    char msg[300];
    if (desc.kind == SRV_KIND_COUNT ||
        srv_job_attach_cluster(d, id, &desc, NULL, &j, msg, sizeof msg) != ZKP_RPC_OK) {
        conn_put_(c, q, 0);
        return NULL;
    }
    st = refresh_(c, q, j, &dg);
    conn_put_(c, q, st != ZKPIPE_OK);
    return j;
}

zkp_rpc_code srv_cluster_cancel_id(zkp_daemon *d, const char *id_text, int *was_running) {
    srv_cluster *c = d->cluster;
    int64_t id = parse_cluster_id_(id_text);
    *was_running = 0;
    if (!c || !id) return ZKP_RPC_NOT_FOUND;
    zkp_diag dg = {{0}};
    zkp_queue *q = conn_get_(c, &dg);
    zkpipe_status st = q ? zkp_queue_cancel(q, id, was_running, &dg) : ZKPIPE_ERR_IO;
    conn_put_(c, q, st != ZKPIPE_OK && st != ZKPIPE_ERR_OUT_OF_RANGE);
    if (st == ZKPIPE_ERR_OUT_OF_RANGE) return ZKP_RPC_NOT_FOUND;
    if (st != ZKPIPE_OK) {
        log_(c, "cannot cancel job %lld: %s", (long long)id, dg.msg);
        return ZKP_RPC_UNAVAILABLE;
    }
    return ZKP_RPC_OK;
}

/* ------------------------------------------------------------------------
 * Running a claimed job */

typedef struct {
    srv_cluster *c;
    zkp_queue_claim claim;
} run_arg;

/* Reads inputs from the shared directory: only a file this daemon's
 * naming could have made, directly in queue.inputs_dir (the row is
 * untrusted: no other path is opened), a regular file of a size a request
 * may have. -1 for a path that cannot be one (the job fails), -2 for a
 * file that cannot be read here (another member may). */
static int read_shared_(srv_cluster *c, const char *path, uint8_t **buf, size_t *len, char *why,
                        size_t why_len) {
    *buf = NULL;
    *len = 0;
    size_t dl = strlen(c->inputs_dir);
    const char *name = path + dl + 1;
    if (!c->inputs_dir[0] || strncmp(path, c->inputs_dir, dl) != 0 || path[dl] != '/' ||
        strlen(name) != 4 + 32 + 5 || strncmp(name, "job-", 4) != 0 ||
        strspn(name + 4, "0123456789abcdef") != 32 || strcmp(name + 36, ".zkpj") != 0) {
        snprintf(why, why_len, "the job's inputs path is not a file of queue.inputs_dir");
        return -1;
    }
    int rc = -2;
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    struct stat sb;
    if (fd < 0 || fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode)) {
        snprintf(why, why_len, "%s: %s", path, fd < 0 ? strerror(errno) : "not a regular file");
        if (fd >= 0) close(fd);
        return rc;
    }
    if (sb.st_size < 0 || (uint64_t)sb.st_size > c->file_max) {
        snprintf(why, why_len, "%s: %lld bytes, more than a request may have", path,
                 (long long)sb.st_size);
        close(fd);
        return -1;
    }
    size_t n = (size_t)sb.st_size;
    uint8_t *b = malloc(n ? n : 1);
    size_t at = 0;
    while (b && at < n) {
        ssize_t r = read(fd, b + at, n - at);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) break;
        at += (size_t)r;
    }
    close(fd);
    if (!b || at != n) {
        free(b);
        snprintf(why, why_len, "%s: %s", path, b ? "short read" : "out of memory");
        return rc;
    }
    *buf = b;
    *len = n;
    return 0;
}

/* Writes the outcome under the claim's generation, trying again on a new
 * connection while the database cannot be reached (a restart). */
static void write_back_(srv_cluster *c, const zkp_queue_claim *cl, const uint8_t *result,
                        size_t result_len, const char *error, int retry) {
    int64_t give_up = mono_ms_() + c->lease_ms;
    for (;;) {
        zkp_diag d = {{0}};
        int accepted = 0;
        zkp_queue *q = conn_get_(c, &d);
        zkpipe_status st = !q        ? ZKPIPE_ERR_IO
                           : result ? zkp_queue_complete(q, cl->id, cl->generation, result,
                                                          result_len, &accepted, &d)
                                    : zkp_queue_fail(q, cl->id, cl->generation, error, retry,
                                                     &accepted, &d);
        conn_put_(c, q, st != ZKPIPE_OK);
        if (st == ZKPIPE_OK) {
            if (!accepted) {
                atomic_fetch_add(&c->refused, 1);
                log_(c, "job %lld: the write of attempt %u was refused (the lease was taken "
                        "over or the job cancelled)", (long long)cl->id, cl->attempts);
            } else {
                atomic_fetch_add(result ? &c->completed : &c->failed, 1);
            }
            return;
        }
        pthread_mutex_lock(&c->lk);
        int stop = c->stopping;
        pthread_mutex_unlock(&c->lk);
        if (stop || mono_ms_() >= give_up) {
            log_(c, "job %lld: cannot write the outcome back (%s); its lease will expire",
                 (long long)cl->id, d.msg);
            return;
        }
        pthread_mutex_lock(&c->lk);
        wait_ms_locked_(c, WRITE_RETRY_MS);
        pthread_mutex_unlock(&c->lk);
    }
}

static void run_claim_(srv_cluster *c, zkp_queue_claim *cl) {
    zkp_daemon *d = c->d;
    char why[512];
    uint8_t *file = NULL;
    const uint8_t *in = cl->inputs;
    size_t in_len = cl->inputs_len;
    if (cl->inputs_path) {
        int rc = read_shared_(c, cl->inputs_path, &file, &in_len, why, sizeof why);
        if (rc != 0) {
            /* A file unreadable here may be a mount missing here only. */
            write_back_(c, cl, NULL, 0, why, rc == -2);
            return;
        }
        in = file;
    }
    srv_service service;
    const uint8_t *m;
    size_t m_len;
    srv_submit_req r;
    zkp_rpc_code code;
    if (srv_cluster_decode_inputs(in, in_len, &service, &m, &m_len, why, sizeof why) != 0) {
        free(file);
        write_back_(c, cl, NULL, 0, why, 0);
        return;
    }
    /* The service's own parser and checks, as for a client's call. */
    code = svc_decode_submit(d, service, m, m_len, &r, why, sizeof why);
    free(file);
    /* The row's kind and key decided who claims it; the inputs decide what
     * is proved: they must agree. */
    if (code == ZKP_RPC_OK &&
        (strcmp(srv_kind_name(r.kind), cl->kind) != 0 ||
         (r.kind == SRV_KIND_CIRCOM && strcmp(r.key ? r.key : "", cl->key) != 0))) {
        snprintf(why, sizeof why, "the job's row (kind %.40s, key %.64s) and its inputs disagree",
                 cl->kind, cl->key);
        if (r.payload_free) r.payload_free(r.payload);
        code = ZKP_RPC_INVALID_ARGUMENT;
    }
    srv_job *j = NULL;
    if (code == ZKP_RPC_OK) {
        r.from_queue = 1;
        r.request_id = NULL; /* the queue's job is the unit of idempotency */
        uint32_t pos;
        code = srv_submit(d, &r, &j, &pos, why, sizeof why);
    }
    if (code != ZKP_RPC_OK) {
        /* Memory or a shutdown here is this member's: another may take it. */
        int retry = code == ZKP_RPC_RESOURCE_EXHAUSTED || code == ZKP_RPC_UNAVAILABLE;
        write_back_(c, cl, NULL, 0, why, retry);
        return;
    }
    held h = {cl->id, j, NULL};
    pthread_mutex_lock(&c->lk);
    h.next = c->held;
    c->held = &h;
    pthread_mutex_unlock(&c->lk);
    /* Waits in steps so that a stop without a drain still ends the job. */
    while (!srv_job_wait(d, j, 1000, NULL)) {
        pthread_mutex_lock(&c->lk);
        int stop = c->stopping;
        pthread_mutex_unlock(&c->lk);
        if (stop) srv_job_cancel_engine(d, j);
    }
    pthread_mutex_lock(&c->lk);
    for (held **at = &c->held; *at; at = &(*at)->next)
        if (*at == &h) {
            *at = h.next;
            break;
        }
    pthread_mutex_unlock(&c->lk);
    /* Final: read-only from here on. */
    if (j->outcome == ZKP_OUTCOME_COMPLETED) {
        size_t len;
        uint8_t *res = srv_cluster_encode_result(&j->result, &j->times, &len, why, sizeof why);
        if (res)
            write_back_(c, cl, res, len, NULL, 0);
        else
            write_back_(c, cl, NULL, 0, why, 0);
        free(res);
    } else {
        /* A cancel here (a drain) leaves the job to another member; a bad
         * witness or key fails the same everywhere. */
        zkpipe_status s = j->status;
        int retry = !(s == ZKPIPE_ERR_INVALID_ARGUMENT || s == ZKPIPE_ERR_PARSE ||
                      s == ZKPIPE_ERR_UNSUPPORTED || s == ZKPIPE_ERR_BAD_ENCODING ||
                      s == ZKPIPE_ERR_SIZE_MISMATCH || s == ZKPIPE_ERR_WRONG_CURVE);
        write_back_(c, cl, NULL, 0, j->error[0] ? j->error : zkpipe_strerror(s), retry);
    }
    srv_job_put(d, j);
}

static void *runner_(void *arg) {
    run_arg *ra = arg;
    srv_cluster *c = ra->c;
    run_claim_(c, &ra->claim);
    zkp_queue_claim_release(&ra->claim);
    free(ra);
    pthread_mutex_lock(&c->lk);
    c->running--;
    wake_locked_(c);
    pthread_mutex_unlock(&c->lk);
    return NULL;
}

/* ------------------------------------------------------------------------
 * The claimer */

/* What this member can take now. Names point into d->keys (never
 * unregistered) or into porep, and are copied nowhere. */
typedef struct {
    const char *keys[SRV_MAX_KEYS + SRV_POREP_KEYS_MAX];
    const char *hot[SRV_MAX_KEYS];
    char porep[SRV_POREP_KEYS_MAX][SRV_KEY_NAME_MAX + 1];
    zkp_queue_filter f;
    /* Every device of the engine is out of service (zkpipe_device_status
     * lost): a claim would only spend one of the job's attempts. */
    int no_device;
} filter_buf;

/* The most device memory a partition of a claimed job may take: that of
 * the GPU with the most room beside what is resident on it (the keys'
 * bases and compiled circuits; engine.vram_budget, or the whole device,
 * less those). The working sets of partitions in flight are not counted
 * against it: they are gone when the partition is, and a partition that
 * finds its device busy waits for it, so a member whose GPU is proving
 * still takes the next job to synthesize meanwhile. 0 (no limit) on a
 * member that proves on the CPU; 1 on a GPU member without room, which
 * then takes only jobs whose device memory is unknown, as a full budget
 * does with cost_bytes. */
static uint64_t vram_room_(const zkpipe_engine_status *st) {
    uint64_t best = 0;
    int gpu = 0;
    for (size_t i = 0; i < st->n_devices; i++) {
        const zkpipe_device_status *dv = &st->devices[i];
        if (!dv->is_gpu) continue;
        gpu = 1;
        uint64_t cap = dv->vram_budget_bytes ? dv->vram_budget_bytes : dv->vram_total_bytes;
        if (!cap) return 0; /* the driver did not say: no grounds to refuse */
        uint64_t resident = 0;
        for (unsigned k = 0; k < ZKPIPE_ENGINE_GPU_MEM_CATEGORIES; k++)
            if (!strcmp(zkpipe_engine_gpu_mem_category_name(k), "bases"))
                resident = dv->vram_bytes[k];
        if (cap > resident && cap - resident > best) best = cap - resident;
    }
    return !gpu ? 0 : best ? best : 1;
}

int srv_cluster_can_prove(const zkpipe_engine_status *st) {
    for (size_t i = 0; i < st->n_devices; i++)
        if (!st->devices[i].lost) return 1;
    return st->n_devices == 0;
}

static void filter_(srv_cluster *c, filter_buf *fb) {
    zkp_daemon *d = c->d;
    memset(fb, 0, sizeof *fb);
    zkpipe_engine_status *st = malloc(sizeof *st);
    int have = st && zkpipe_engine_get_status(d->engine, st) == ZKPIPE_OK;
    pthread_mutex_lock(&d->lk);
    for (size_t i = 0; i < d->n_keys; i++) {
        fb->keys[fb->f.n_keys++] = d->keys[i].name;
        for (size_t k = 0; have && k < st->n_keys; k++)
            if (st->keys[k].id == d->keys[i].engine_id && st->keys[k].tier == ZKPIPE_KEY_HOT)
                fb->hot[fb->f.n_hot_keys++] = d->keys[i].name;
    }
    pthread_mutex_unlock(&d->lk);
    /* PoRep keys not met yet, of the sizes whose parameters are here: a
     * member without them does not take those jobs only to fail them. */
    size_t n_porep = srv_porep_keys_present(d, fb->porep, SRV_POREP_KEYS_MAX);
    for (size_t i = 0; i < n_porep; i++) {
        size_t k = 0;
        while (k < fb->f.n_keys && strcmp(fb->keys[k], fb->porep[i])) k++;
        if (k == fb->f.n_keys) fb->keys[fb->f.n_keys++] = fb->porep[i];
    }
    fb->f.keys = fb->keys;
    fb->f.hot_keys = fb->hot;
    /* An empty key list would read as "any key": a member without keys
     * takes only the jobs that need none. */
    static const char *const no_key[] = {"-"};
    if (!fb->f.n_keys) {
        fb->f.keys = no_key;
        fb->f.n_keys = 1;
    }
    /* 0 means no limit to the queue: a full budget admits 1 byte. */
    fb->f.max_cost_bytes = have ? (st->budget_available_bytes ? st->budget_available_bytes : 1) : 0;
    fb->f.max_vram_bytes = have ? vram_room_(st) : 0;
    fb->no_device = have && !srv_cluster_can_prove(st);
    free(st);
}

static void *claimer_(void *arg) {
    srv_cluster *c = arg;
    zkp_daemon *d = c->d;
    zkp_queue *q = NULL;
    int64_t next_beat = 0, next_reap = 0, next_prune = 0;
    const int64_t beat_every = c->lease_ms / 3;
    for (;;) {
        pthread_mutex_lock(&c->lk);
        int stop = c->stopping;
        uint64_t wakes = c->wakes;
        pthread_mutex_unlock(&c->lk);
        if (stop) break;
        zkp_diag dg = {{0}};
        zkpipe_status st = ZKPIPE_OK;
        if (!q && (q = conn_get_(c, &dg)) == NULL) st = ZKPIPE_ERR_IO;
        int64_t now = mono_ms_();
        if (st == ZKPIPE_OK && now >= next_beat) {
            st = zkp_queue_heartbeat(q, c->member, c->lease_ms, NULL, &dg);
            if (st == ZKPIPE_OK) next_beat = now + beat_every;
        }
        if (st == ZKPIPE_OK && now >= next_reap) {
            unsigned requeued = 0, failed = 0;
            uint64_t depth[4];
            st = zkp_queue_reap(q, &requeued, &failed, &dg);
            if (st == ZKPIPE_OK) st = zkp_queue_depth(q, depth, 4, &dg);
            if (st == ZKPIPE_OK) {
                atomic_fetch_add(&c->expiries, requeued + failed);
                atomic_fetch_add(&c->reaped_failed, failed);
                for (int i = 0; i < 4; i++) atomic_store(&c->depth[i], depth[i]);
                if (requeued || failed)
                    log_(c, "reaper: %u expired leases requeued, %u jobs failed", requeued, failed);
                next_reap = now + beat_every;
            }
        }
        if (st == ZKPIPE_OK && now >= next_prune) {
            st = zkp_queue_prune_members(q, c->lease_ms * PRUNE_AFTER_LEASES, NULL, &dg);
            if (st == ZKPIPE_OK) next_prune = now + (int64_t)c->lease_ms * PRUNE_AFTER_LEASES;
        }
        int claimed = 0;
        pthread_mutex_lock(&d->lk);
        int draining = d->draining;
        pthread_mutex_unlock(&d->lk);
        pthread_mutex_lock(&c->lk);
        int room = c->running < c->max_claims;
        pthread_mutex_unlock(&c->lk);
        if (st == ZKPIPE_OK && room && !draining) {
            filter_buf fb;
            filter_(c, &fb);
            if (fb.no_device && !c->said_no_device)
                log_(c, "no device is in service here: this member claims no more jobs (a "
                        "restart of the daemon brings the devices back)");
            c->said_no_device = fb.no_device;
            run_arg *ra = NULL;
            if (fb.no_device) {
                /* Nothing to prove with: the heartbeat and the reaper go on. */
            } else if ((ra = calloc(1, sizeof *ra)) == NULL) {
                st = zkp_diag_fail(&dg, ZKPIPE_ERR_NO_MEMORY, "out of memory");
            } else {
                ra->c = c;
                st = zkp_queue_claim_next(q, c->member, c->lease_ms, &fb.f, &ra->claim, &claimed,
                                          &dg);
            }
            if (claimed) {
                atomic_fetch_add(&c->claims, 1);
                pthread_mutex_lock(&c->lk);
                c->running++;
                pthread_mutex_unlock(&c->lk);
                pthread_attr_t at;
                pthread_attr_init(&at);
                pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
                pthread_t t;
                if (pthread_create(&t, &at, runner_, ra) != 0) {
                    /* Its lease expires and another member takes it. */
                    log_(c, "cannot start a thread for job %lld", (long long)ra->claim.id);
                    zkp_queue_claim_release(&ra->claim);
                    free(ra);
                    pthread_mutex_lock(&c->lk);
                    c->running--;
                    pthread_mutex_unlock(&c->lk);
                    claimed = 0;
                }
                pthread_attr_destroy(&at);
            } else {
                free(ra);
            }
        }
        if (st != ZKPIPE_OK) {
            log_(c, "%s; again in a second", dg.msg);
            zkp_queue_close(q);
            q = NULL;
        }
        if (claimed) continue; /* perhaps more to take at once */
        /* Idle: until a claim ends, work is submitted here, the next
         * heartbeat, or the time to look for other members' work. */
        int64_t wait = st != ZKPIPE_OK ? 1000 : c->idle_ms;
        int64_t to_beat = next_beat - mono_ms_();
        if (to_beat < wait) wait = to_beat;
        pthread_mutex_lock(&c->lk);
        if (!c->stopping && c->wakes == wakes) wait_ms_locked_(c, wait);
        pthread_mutex_unlock(&c->lk);
    }
    zkp_queue_close(q);
    return NULL;
}

/* ------------------------------------------------------------------------
 * Start and stop */

/* hostname-pid-random: unique to this run of the daemon. */
static zkpipe_status member_name_(char *out, size_t cap) {
    char host[64] = "";
    if (gethostname(host, sizeof host - 1) != 0) host[0] = 0;
    host[sizeof host - 1] = 0;
    for (char *p = host; *p; p++)
        if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-", *p))
            *p = '_';
    uint32_t rnd;
    zkpipe_status st = zkp_random_bytes(&rnd, sizeof rnd);
    if (st != ZKPIPE_OK) return st;
    snprintf(out, cap, "%s-%ld-%08x", host[0] ? host : "host", (long)getpid(), rnd);
    return ZKPIPE_OK;
}

zkpipe_status srv_cluster_start(zkp_daemon *d, const zkp_config *cfg, FILE *log, zkp_diag *diag) {
    srv_cluster *c = calloc(1, sizeof *c);
    if (!c) return zkp_diag_fail(diag, ZKPIPE_ERR_NO_MEMORY, "out of memory");
    c->d = d;
    c->log = log;
    c->wake_pipe[0] = c->wake_pipe[1] = -1;
    c->url = strdup(zkp_config_str(cfg, ZKP_CFG_QUEUE_URL));
    c->lease_ms = (uint32_t)zkp_config_int(cfg, ZKP_CFG_QUEUE_LEASE_MS);
    c->max_claims = (unsigned)zkp_config_int(cfg, ZKP_CFG_QUEUE_MAX_CLAIMS);
    c->max_attempts = (uint32_t)zkp_config_int(cfg, ZKP_CFG_QUEUE_MAX_ATTEMPTS);
    c->idle_ms = zkp_config_int(cfg, ZKP_CFG_QUEUE_IDLE_MS);
    c->qopts.poll = !strcmp(zkp_config_str(cfg, ZKP_CFG_QUEUE_NOTIFY), "off");
    c->qopts.poll_ms = (uint32_t)zkp_config_int(cfg, ZKP_CFG_QUEUE_POLL_MS);
    /* Without notifications nothing tells the claimer of work submitted on
     * other members: it looks at least every poll interval. */
    if (c->qopts.poll && c->idle_ms > (int64_t)c->qopts.poll_ms) c->idle_ms = c->qopts.poll_ms;
    c->file_max = d->max_message + SRV_CLUSTER_INPUTS_HEADER;
    c->inline_max = (size_t)zkp_config_size(cfg, ZKP_CFG_QUEUE_INLINE_MAX);
    pthread_mutex_init(&c->lk, NULL);
    pthread_cond_init(&c->cv, NULL);
    d->cluster = c;
    zkpipe_status st = c->url ? member_name_(c->member, sizeof c->member) : ZKPIPE_ERR_NO_MEMORY;
    if (st != ZKPIPE_OK) return zkp_diag_fail(diag, st, "cannot name this member");
    const char *dir = zkp_config_str(cfg, ZKP_CFG_QUEUE_INPUTS_DIR);
    if (*dir) {
        struct stat sb;
        if (dir[0] != '/' || !realpath(dir, c->inputs_dir) || stat(c->inputs_dir, &sb) != 0 ||
            !S_ISDIR(sb.st_mode))
            return zkp_diag_fail(diag, ZKPIPE_ERR_INVALID_ARGUMENT,
                                 "queue.inputs_dir %s must be an absolute path to a directory",
                                 dir);
    }
    /* The schema is the operator's to migrate (`zkpipe queue migrate`): a
     * member does not change a database others use on its own. */
    zkp_queue *q = conn_get_(c, diag);
    if (!q) return ZKPIPE_ERR_IO;
    unsigned version = 0;
    st = zkp_queue_schema_version(q, &version, diag);
    if (st == ZKPIPE_OK && version != zkp_queue_schema_latest())
        st = zkp_diag_fail(diag, ZKPIPE_ERR_BAD_VERSION,
                           "the cluster's database is at schema version %u, this zkpipe needs %u: "
                           "run `zkpipe queue migrate`",
                           version, zkp_queue_schema_latest());
    if (st == ZKPIPE_OK) st = zkp_queue_heartbeat(q, c->member, c->lease_ms, NULL, diag);
    conn_put_(c, q, st != ZKPIPE_OK);
    if (st != ZKPIPE_OK) return st;
    if (pipe(c->wake_pipe) != 0 || fcntl(c->wake_pipe[0], F_SETFD, FD_CLOEXEC) != 0 ||
        fcntl(c->wake_pipe[1], F_SETFD, FD_CLOEXEC) != 0)
        return zkp_diag_fail(diag, ZKPIPE_ERR_IO, "pipe: %s", strerror(errno));
    if (pthread_create(&c->watcher, NULL, c->qopts.poll ? poller_ : watcher_, c) != 0)
        return zkp_diag_fail(diag, ZKPIPE_ERR_IO, "cannot start the cluster's watcher thread");
    c->threads = 1;
    if (pthread_create(&c->claimer, NULL, claimer_, c) != 0)
        return zkp_diag_fail(diag, ZKPIPE_ERR_IO, "cannot start the cluster's claimer thread");
    c->threads = 2;
    char polling[64] = "";
    if (c->qopts.poll)
        snprintf(polling, sizeof polling, ", no notifications (polling every %u ms)",
                 c->qopts.poll_ms);
    log_(c, "member %s, lease %u ms, up to %u claims at once%s%s%s", c->member, c->lease_ms,
         c->max_claims, polling, c->inputs_dir[0] ? ", large inputs in " : "", c->inputs_dir);
    return ZKPIPE_OK;
}

void srv_cluster_stop(zkp_daemon *d) {
    srv_cluster *c = d->cluster;
    if (!c) return;
    pthread_mutex_lock(&c->lk);
    c->stopping = 1;
    wake_locked_(c);
    pthread_mutex_unlock(&c->lk);
    if (c->wake_pipe[1] >= 0) {
        ssize_t w;
        do {
            w = write(c->wake_pipe[1], "x", 1);
        } while (w < 0 && errno == EINTR);
    }
    if (c->threads >= 1) pthread_join(c->watcher, NULL);
    if (c->threads >= 2) pthread_join(c->claimer, NULL);
    /* The runners end once their local jobs are final and written back. */
    pthread_mutex_lock(&c->lk);
    while (c->running) wait_ms_locked_(c, 1000);
    while (c->n_idle) zkp_queue_close(c->idle[--c->n_idle]);
    pthread_mutex_unlock(&c->lk);
    if (c->wake_pipe[0] >= 0) close(c->wake_pipe[0]);
    if (c->wake_pipe[1] >= 0) close(c->wake_pipe[1]);
    d->cluster = NULL;
    pthread_cond_destroy(&c->cv);
    pthread_mutex_destroy(&c->lk);
    free(c->url);
    free(c);
}

void srv_cluster_get_stats(zkp_daemon *d, srv_cluster_stats *out) {
    memset(out, 0, sizeof *out);
    srv_cluster *c = d->cluster;
    if (!c) return;
    out->member = 1;
    out->enqueued = atomic_load(&c->enqueued);
    out->claims = atomic_load(&c->claims);
    out->completed = atomic_load(&c->completed);
    out->failed = atomic_load(&c->failed);
    out->refused_writes = atomic_load(&c->refused);
    out->lease_expiries = atomic_load(&c->expiries);
    out->reaped_failed = atomic_load(&c->reaped_failed);
    out->retries = atomic_load(&c->retries);
    for (int i = 0; i < 4; i++) out->depth[i] = atomic_load(&c->depth[i]);
    pthread_mutex_lock(&c->lk);
    out->running = c->running;
    pthread_mutex_unlock(&c->lk);
}
