/* Cluster mode's queue (src/queue) against a real PostgreSQL server: the
 * one tests/cluster_pg.sh starts (shared by CTest through
 * ZKPIPE_TEST_PG_STATE, or started here for a case run alone). Each case
 * works in a schema of its own, so cases run in parallel on one server.
 *
 * What is checked comes from the queue's contract, not from its output:
 * the order the cases enqueue in, the ids they hold, the bytes they wrote,
 * and PostgreSQL's own view through a separate plain libpq connection. */
#include <libpq-fe.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "queue/queue.h"
#include "queue/queue_internal.h" /* the connection, to ask it what it listens to */
#include "test.h"

/* ---- the server and a schema per case ----------------------------------- */

typedef struct {
    char state[512];   /* the state file of a server started by this case */
    char conninfo[1024];
    char schema[64];
    PGconn *admin;     /* plain libpq: the database seen from outside */
} pg_case;

static pg_case the_case_;

static void sleep_ms_(unsigned ms) {
    struct timespec ts = {(time_t)(ms / 1000), (long)(ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0) {
    }
}

static void stop_own_server_(void *arg) {
    pg_case *c = arg;
    char cmd[4096];
    int n = snprintf(cmd, sizeof cmd, "bash '%s' stop '%s'", test_data_path("cluster_pg.sh"),
                     c->state);
    if (n < 0 || (size_t)n >= sizeof cmd || system(cmd) != 0)
        fprintf(stderr, "cluster_pg.sh stop failed\n");
}

static void drop_schema_(void *arg) {
    pg_case *c = arg;
    char sql[160];
    snprintf(sql, sizeof sql, "DROP SCHEMA IF EXISTS %s CASCADE", c->schema);
    PQclear(PQexec(c->admin, sql));
    PQfinish(c->admin);
    c->admin = NULL;
}

static void quiet_notice_(void *arg, const char *message) {
    (void)arg;
    (void)message;
}

static void admin_exec_(pg_case *c, const char *sql) {
    PGresult *r = PQexec(c->admin, sql);
    ExecStatusType s = PQresultStatus(r);
    int ok = s == PGRES_COMMAND_OK || s == PGRES_TUPLES_OK;
    char msg[512];
    snprintf(msg, sizeof msg, "%s", PQresultErrorMessage(r));
    PQclear(r);
    ASSERT_MSG(ok, "%s: %s", sql, msg);
}

/* Finds (or starts) the server, makes schema zkpt_<name>_<pid> and sets
 * c->conninfo to a connection string whose search_path is that schema. */
static pg_case *pg_case_open_(const char *name) {
    pg_case *c = &the_case_;
    memset(c, 0, sizeof *c);
    const char *state = getenv("ZKPIPE_TEST_PG_STATE");
    if (!state) {
        snprintf(c->state, sizeof c->state, "/tmp/zkpipe-pg-state.%d", (int)getpid());
        char cmd[4096];
        int n = snprintf(cmd, sizeof cmd, "bash '%s' start '%s' >&2",
                         test_data_path("cluster_pg.sh"), c->state);
        ASSERT(n > 0 && (size_t)n < sizeof cmd);
        ASSERT_MSG(system(cmd) == 0, "tests/cluster_pg.sh start failed");
        test_defer(stop_own_server_, c);
        state = c->state;
    }
    FILE *f = fopen(state, "r");
    if (!f) test_skip("no PostgreSQL server (tests/cluster_pg.sh found no initdb)");
    char dir[512] = "";
    int got = fgets(dir, sizeof dir, f) != NULL;
    fclose(f);
    ASSERT(got);
    dir[strcspn(dir, "\n")] = 0;
    snprintf(c->schema, sizeof c->schema, "zkpt_%s_%d", name, (int)getpid());
    snprintf(c->conninfo, sizeof c->conninfo,
             "host=%s user=postgres dbname=postgres options='-c search_path=%s'", dir, c->schema);
    c->admin = PQconnectdb(c->conninfo);
    ASSERT_MSG(PQstatus(c->admin) == CONNECTION_OK, "connect: %s", PQerrorMessage(c->admin));
    PQsetNoticeProcessor(c->admin, quiet_notice_, NULL);
    test_defer(drop_schema_, c);
    char sql[160];
    snprintf(sql, sizeof sql, "CREATE SCHEMA %s", c->schema);
    admin_exec_(c, sql);
    return c;
}

static void close_queue_(void *arg) { zkp_queue_close(arg); }

static zkp_queue *connect_(pg_case *c) {
    zkp_queue *q = NULL;
    zkp_diag d = {{0}};
    zkpipe_status st = zkp_queue_connect(&q, c->conninfo, &d);
    ASSERT_MSG(st == ZKPIPE_OK, "connect: %s", d.msg);
    test_defer(close_queue_, q);
    return q;
}

static zkp_queue *migrated_(pg_case *c) {
    zkp_queue *q = connect_(c);
    unsigned applied;
    zkp_diag d = {{0}};
    ASSERT_MSG(zkp_queue_migrate(q, &applied, &d) == ZKPIPE_OK, "migrate: %s", d.msg);
    return q;
}

#define OK(call)                                                          \
    do {                                                                  \
        zkp_diag d_ = {{0}};                                              \
        zkpipe_status st_ = (call);                                       \
        ASSERT_MSG(st_ == ZKPIPE_OK, "%s: %s (%s)", #call, d_.msg,        \
                   zkpipe_status_name(st_));                              \
    } while (0)

static int64_t enqueue_(zkp_queue *q, const char *request_id, const char *curve, int prio,
                        uint32_t max_attempts) {
    zkp_queue_job_spec s = {.request_id = request_id,
                            .kind = "groth16",
                            .curve = curve,
                            .priority = prio,
                            .inputs = (const uint8_t *)request_id,
                            .inputs_len = strlen(request_id),
                            .max_attempts = max_attempts};
    int64_t id;
    int existed;
    zkp_diag d = {{0}};
    ASSERT_MSG(zkp_queue_enqueue(q, &s, &id, &existed, &d) == ZKPIPE_OK, "enqueue: %s", d.msg);
    ASSERT_EQ_INT(existed, 0);
    return id;
}

/* The row as PostgreSQL holds it: "state attempts generation owner". */
static void row_(pg_case *c, int64_t id, char *out, size_t cap) {
    char sql[256];
    snprintf(sql, sizeof sql,
             "SELECT state || ' ' || attempts || ' ' || lease_generation || ' ' ||"
             " coalesce(lease_owner, '-') FROM zkpipe_jobs WHERE id = %lld",
             (long long)id);
    PGresult *r = PQexec(c->admin, sql);
    ASSERT_MSG(PQresultStatus(r) == PGRES_TUPLES_OK && PQntuples(r) == 1, "%s: %s", sql,
               PQresultErrorMessage(r));
    snprintf(out, cap, "%s", PQgetvalue(r, 0, 0));
    PQclear(r);
}

#define ASSERT_ROW(c, id, expected)                                               \
    do {                                                                          \
        char row_buf_[600];                                                       \
        row_((c), (id), row_buf_, sizeof row_buf_);                               \
        ASSERT_MSG(!strcmp(row_buf_, (expected)), "job %lld is \"%s\", not \"%s\"", \
                   (long long)(id), row_buf_, (expected));                        \
    } while (0)

/* ---- migrations ----------------------------------------------------------- */

typedef struct {
    pg_case *c;
    unsigned applied;
    zkpipe_status st;
    zkp_diag d;
} migrator_;

static void *migrate_thread_(void *arg) {
    migrator_ *m = arg;
    zkp_queue *q = NULL;
    m->st = zkp_queue_connect(&q, m->c->conninfo, &m->d);
    if (m->st == ZKPIPE_OK) m->st = zkp_queue_migrate(q, &m->applied, &m->d);
    zkp_queue_close(q);
    return NULL;
}

TEST_CASE(cluster_migrate_idempotent) {
    pg_case *c = pg_case_open_("migrate");
    zkp_queue *q = connect_(c);
    unsigned version = 99, applied = 99;
    OK(zkp_queue_schema_version(q, &version, &d_));
    ASSERT_EQ_U64(version, 0);

    /* Three migrators at once on an empty schema: the versions are
     * applied once between them, and none fails. */
    migrator_ m[3];
    pthread_t t[3];
    for (int i = 0; i < 3; i++) {
        memset(&m[i], 0, sizeof m[i]);
        m[i].c = c;
        ASSERT(pthread_create(&t[i], NULL, migrate_thread_, &m[i]) == 0);
    }
    unsigned total = 0;
    for (int i = 0; i < 3; i++) {
        pthread_join(t[i], NULL);
        ASSERT_MSG(m[i].st == ZKPIPE_OK, "migrator %d: %s", i, m[i].d.msg);
        total += m[i].applied;
    }
    ASSERT_EQ_U64(total, zkp_queue_schema_latest());
    OK(zkp_queue_schema_version(q, &version, &d_));
    ASSERT_EQ_U64(version, zkp_queue_schema_latest());

    /* Once more: nothing to do, twice. */
    OK(zkp_queue_migrate(q, &applied, &d_));
    ASSERT_EQ_U64(applied, 0);
    OK(zkp_queue_migrate(q, &applied, &d_));
    ASSERT_EQ_U64(applied, 0);

    /* One row per version, and the tables are there. */
    PGresult *r = PQexec(c->admin,
                         "SELECT count(*), count(DISTINCT version) FROM zkpipe_schema");
    ASSERT(PQresultStatus(r) == PGRES_TUPLES_OK);
    ASSERT_EQ_U64(strtoull(PQgetvalue(r, 0, 0), NULL, 10), zkp_queue_schema_latest());
    ASSERT_EQ_U64(strtoull(PQgetvalue(r, 0, 1), NULL, 10), zkp_queue_schema_latest());
    PQclear(r);
    admin_exec_(c, "SELECT id, request_id, lease_generation FROM zkpipe_jobs");
    admin_exec_(c, "SELECT id, heartbeat_at FROM zkpipe_members");

    /* A database migrated by a newer zkpipe is refused, not downgraded. */
    admin_exec_(c, "INSERT INTO zkpipe_schema (version, description) VALUES (1000, 'future')");
    zkp_diag d2 = {{0}};
    ASSERT_EQ_INT(zkp_queue_migrate(q, &applied, &d2), ZKPIPE_ERR_BAD_VERSION);
    ASSERT(strstr(d2.msg, "1000") != NULL);
}

/* ---- claim order, filters and request ids -------------------------------- */

TEST_CASE(cluster_claim_order) {
    pg_case *c = pg_case_open_("order");
    zkp_queue *q = migrated_(c);
    /* Enqueued in this order; the claim order must be priority first
     * (higher first), then age: r1, r3 (both 3, r1 older), r4, r0, r2. */
    const int prio[5] = {1, 3, 0, 3, 2};
    const char *names[5] = {"r0", "r1", "r2", "r3", "r4"};
    int64_t ids[5];
    for (int i = 0; i < 5; i++) ids[i] = enqueue_(q, names[i], "bls12-381", prio[i], 3);
    /* A BN254 job of the highest priority that the member below cannot take. */
    int64_t bn = enqueue_(q, "bn", "bn254", 9, 3);

    /* A request id submitted again attaches to its job. */
    zkp_queue_job_spec again = {.request_id = "r3", .kind = "groth16", .curve = "bls12-381",
                                .priority = 0, .inputs_path = "/elsewhere"};
    int64_t id;
    int existed;
    OK(zkp_queue_enqueue(q, &again, &id, &existed, &d_));
    ASSERT_EQ_INT(existed, 1);
    ASSERT_EQ_U64(id, ids[3]);

    const char *curves[1] = {"bls12-381"};
    zkp_queue_filter only_bls = {.curves = curves, .n_curves = 1};
    const int expect[5] = {1, 3, 4, 0, 2};
    for (int k = 0; k < 5; k++) {
        zkp_queue_claim cl;
        int claimed;
        OK(zkp_queue_claim_next(q, "m1", 60000, &only_bls, &cl, &claimed, &d_));
        ASSERT_MSG(claimed, "claim %d found nothing", k);
        int i = expect[k];
        ASSERT_MSG(cl.id == ids[i], "claim %d took job %lld (%s), expected %s", k,
                   (long long)cl.id, cl.request_id, names[i]);
        ASSERT(!strcmp(cl.request_id, names[i]));
        ASSERT(!strcmp(cl.curve, "bls12-381") && !strcmp(cl.kind, "groth16"));
        ASSERT_EQ_INT(cl.priority, prio[i]);
        ASSERT_EQ_U64(cl.attempts, 1);
        ASSERT_EQ_U64(cl.generation, 1);
        /* The inputs come back byte for byte (the request id was used). */
        ASSERT_EQ_U64(cl.inputs_len, strlen(names[i]));
        ASSERT(cl.inputs_path == NULL && !memcmp(cl.inputs, names[i], cl.inputs_len));
        zkp_queue_claim_release(&cl);
        ASSERT_ROW(c, ids[i], "leased 1 1 m1");
    }
    zkp_queue_claim cl;
    int claimed;
    OK(zkp_queue_claim_next(q, "m1", 60000, &only_bls, &cl, &claimed, &d_));
    ASSERT_EQ_INT(claimed, 0);
    ASSERT_ROW(c, bn, "queued 0 0 -");

    /* Without a filter the BN254 job is next; a job by path keeps its path. */
    zkp_queue_job_spec by_path = {.request_id = "p", .kind = "groth16", .curve = "bn254",
                                  .priority = 0, .inputs_path = "/shared/in/p.wtns"};
    OK(zkp_queue_enqueue(q, &by_path, &id, &existed, &d_));
    OK(zkp_queue_claim_next(q, "m2", 60000, NULL, &cl, &claimed, &d_));
    ASSERT(claimed && cl.id == bn);
    zkp_queue_claim_release(&cl);
    OK(zkp_queue_claim_next(q, "m2", 60000, NULL, &cl, &claimed, &d_));
    ASSERT(claimed && cl.id == id && cl.inputs == NULL);
    ASSERT(cl.inputs_path && !strcmp(cl.inputs_path, "/shared/in/p.wtns"));
    zkp_queue_claim_release(&cl);

    /* Bad specs are refused before the database sees them. */
    zkp_queue_job_spec both = {.request_id = "x", .kind = "groth16", .curve = "bn254",
                               .inputs = (const uint8_t *)"x", .inputs_len = 1,
                               .inputs_path = "/x"};
    zkp_diag d2 = {{0}};
    ASSERT_EQ_INT(zkp_queue_enqueue(q, &both, &id, &existed, &d2), ZKPIPE_ERR_INVALID_ARGUMENT);
    const char *bad_curve[1] = {"bn254'; DROP TABLE zkpipe_jobs; --"};
    zkp_queue_filter bad = {.curves = bad_curve, .n_curves = 1};
    ASSERT_EQ_INT(zkp_queue_claim_next(q, "m1", 1000, &bad, &cl, &claimed, &d2),
                  ZKPIPE_ERR_INVALID_ARGUMENT);
}

/* ---- concurrent claimers --------------------------------------------------- */

#define CONCURRENT_JOBS 200
#define CLAIMERS 4

typedef struct {
    pg_case *c;
    char member[32];
    int64_t *got; /* ids claimed, in order */
    unsigned n_got;
    unsigned refused; /* fenced writes refused (must stay 0) */
    zkpipe_status st;
    zkp_diag d;
} claimer_;

static void *claim_thread_(void *arg) {
    claimer_ *w = arg;
    zkp_queue *q = NULL;
    w->st = zkp_queue_connect(&q, w->c->conninfo, &w->d);
    while (w->st == ZKPIPE_OK) {
        zkp_queue_claim cl;
        int claimed, accepted;
        w->st = zkp_queue_claim_next(q, w->member, 60000, NULL, &cl, &claimed, &w->d);
        if (w->st != ZKPIPE_OK || !claimed) break;
        w->got[w->n_got++] = cl.id;
        uint8_t proof[8];
        memcpy(proof, &cl.id, sizeof proof);
        w->st = zkp_queue_complete(q, cl.id, cl.generation, proof, sizeof proof, &accepted, &w->d);
        if (!accepted) w->refused++;
        zkp_queue_claim_release(&cl);
    }
    zkp_queue_close(q);
    return NULL;
}

static int cmp_i64_(const void *a, const void *b) {
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

TEST_CASE(cluster_concurrent_claims) {
    pg_case *c = pg_case_open_("concurrent");
    zkp_queue *q = migrated_(c);
    static int64_t ids[CONCURRENT_JOBS], got[CLAIMERS][CONCURRENT_JOBS], all[CONCURRENT_JOBS];
    for (int i = 0; i < CONCURRENT_JOBS; i++) {
        char rid[32];
        snprintf(rid, sizeof rid, "job-%d", i);
        ids[i] = enqueue_(q, rid, (i & 1) ? "bn254" : "bls12-381", i % 4, 3);
    }
    claimer_ w[CLAIMERS];
    pthread_t t[CLAIMERS];
    for (int k = 0; k < CLAIMERS; k++) {
        memset(&w[k], 0, sizeof w[k]);
        w[k].c = c;
        w[k].got = got[k];
        snprintf(w[k].member, sizeof w[k].member, "member-%d", k);
        ASSERT(pthread_create(&t[k], NULL, claim_thread_, &w[k]) == 0);
    }
    unsigned n = 0;
    for (int k = 0; k < CLAIMERS; k++) pthread_join(t[k], NULL);
    for (int k = 0; k < CLAIMERS; k++) {
        ASSERT_MSG(w[k].st == ZKPIPE_OK, "%s: %s", w[k].member, w[k].d.msg);
        ASSERT_EQ_U64(w[k].refused, 0);
        for (unsigned j = 0; j < w[k].n_got; j++) all[n++] = w[k].got[j];
        fprintf(stderr, "%s claimed %u\n", w[k].member, w[k].n_got);
    }
    /* Every job claimed exactly once: the multiset of claims is the set
     * of ids enqueued. */
    ASSERT_EQ_U64(n, CONCURRENT_JOBS);
    qsort(all, n, sizeof all[0], cmp_i64_);
    qsort(ids, CONCURRENT_JOBS, sizeof ids[0], cmp_i64_);
    for (unsigned i = 0; i < n; i++)
        ASSERT_MSG(all[i] == ids[i], "claim %u is job %lld, expected %lld", i,
                   (long long)all[i], (long long)ids[i]);
    /* And the database agrees: every job done once, on its first lease,
     * with its own result. */
    PGresult *r = PQexec(c->admin,
                         "SELECT count(*) FROM zkpipe_jobs WHERE state = 'done' AND attempts = 1"
                         " AND lease_generation = 1 AND length(result) = 8");
    ASSERT(PQresultStatus(r) == PGRES_TUPLES_OK);
    ASSERT_EQ_U64(strtoull(PQgetvalue(r, 0, 0), NULL, 10), CONCURRENT_JOBS);
    PQclear(r);
}

/* ---- leases: heartbeat, expiry, takeover, attempts ------------------------ */

TEST_CASE(cluster_lease_takeover) {
    pg_case *c = pg_case_open_("lease");
    zkp_queue *q = migrated_(c);
    int64_t id = enqueue_(q, "lease", "bn254", 0, 2);
    zkp_queue_claim cl;
    int claimed;
    unsigned renewed, requeued, failed;
    OK(zkp_queue_heartbeat(q, "A", 200, &renewed, &d_));
    ASSERT_EQ_U64(renewed, 0);
    OK(zkp_queue_claim_next(q, "A", 200, NULL, &cl, &claimed, &d_));
    ASSERT(claimed && cl.id == id);
    zkp_queue_claim_release(&cl);

    /* A heart-beating member keeps its lease past the first expiry. */
    sleep_ms_(120);
    OK(zkp_queue_heartbeat(q, "A", 200, &renewed, &d_));
    ASSERT_EQ_U64(renewed, 1);
    sleep_ms_(120);
    OK(zkp_queue_reap(q, &requeued, &failed, &d_));
    ASSERT_EQ_U64(requeued + failed, 0);
    ASSERT_ROW(c, id, "leased 1 1 A");

    /* A member that stops heart-beating loses it; a late heartbeat does
     * not bring it back. */
    sleep_ms_(300);
    OK(zkp_queue_heartbeat(q, "A", 200, &renewed, &d_));
    ASSERT_EQ_U64(renewed, 0);
    OK(zkp_queue_reap(q, &requeued, &failed, &d_));
    ASSERT_EQ_U64(requeued, 1);
    ASSERT_EQ_U64(failed, 0);
    ASSERT_ROW(c, id, "queued 1 1 -");
    zkp_queue_job_info info;
    OK(zkp_queue_job_get(q, id, &info, &d_));
    ASSERT_MSG(strstr(info.last_error, "the lease of A expired (attempt 1 of 2)") != NULL, "%s",
               info.last_error);
    zkp_queue_job_info_release(&info);

    /* B takes it over: the second attempt, a new generation. */
    OK(zkp_queue_claim_next(q, "B", 100, NULL, &cl, &claimed, &d_));
    ASSERT(claimed && cl.id == id && cl.attempts == 2 && cl.generation == 2);
    zkp_queue_claim_release(&cl);
    OK(zkp_queue_reap(q, &requeued, &failed, &d_)); /* not expired yet: no effect */
    ASSERT_EQ_U64(requeued + failed, 0);
    /* B dies too: that was the last attempt, so the job fails, and a
     * listener is told. */
    admin_exec_(c, "LISTEN " ZKP_QUEUE_NOTIFY_CHANNEL);
    sleep_ms_(200);
    OK(zkp_queue_reap(q, &requeued, &failed, &d_));
    ASSERT_EQ_U64(requeued, 0);
    ASSERT_EQ_U64(failed, 1);
    ASSERT_ROW(c, id, "failed 2 2 -");
    PGnotify *note = NULL;
    for (int tries = 0; tries < 100; tries++) {
        ASSERT(PQconsumeInput(c->admin));
        if ((note = PQnotifies(c->admin)) != NULL) break;
        sleep_ms_(10);
    }
    ASSERT_MSG(note != NULL, "no notification of the failed job");
    ASSERT_EQ_U64(strtoull(note->extra, NULL, 10), (uint64_t)id);
    PQfreemem(note);
    admin_exec_(c, "UNLISTEN *");
    OK(zkp_queue_job_get(q, id, &info, &d_));
    ASSERT(info.state == ZKP_QUEUE_FAILED && info.result == NULL);
    ASSERT_MSG(strstr(info.last_error, "the lease of B expired (attempt 2 of 2)") != NULL, "%s",
               info.last_error);
    zkp_queue_job_info_release(&info);
    OK(zkp_queue_claim_next(q, "C", 100, NULL, &cl, &claimed, &d_));
    ASSERT_EQ_INT(claimed, 0);

    /* Errors a member reports: a retryable one requeues while attempts
     * remain, a final one fails at once. */
    int64_t r = enqueue_(q, "retry", "bn254", 0, 2), f = enqueue_(q, "final", "bn254", 0, 5);
    int accepted;
    for (int attempt = 1; attempt <= 2; attempt++) {
        OK(zkp_queue_claim_next(q, "A", 60000, NULL, &cl, &claimed, &d_));
        ASSERT(claimed && cl.id == r);
        OK(zkp_queue_fail(q, cl.id, cl.generation, "out of device memory", 1, &accepted, &d_));
        ASSERT_EQ_INT(accepted, 1);
        zkp_queue_claim_release(&cl);
        ASSERT_ROW(c, r, attempt == 1 ? "queued 1 1 -" : "failed 2 2 -");
    }
    OK(zkp_queue_claim_next(q, "A", 60000, NULL, &cl, &claimed, &d_));
    ASSERT(claimed && cl.id == f);
    OK(zkp_queue_fail(q, cl.id, cl.generation, "witness does not satisfy", 0, &accepted, &d_));
    ASSERT_EQ_INT(accepted, 1);
    zkp_queue_claim_release(&cl);
    ASSERT_ROW(c, f, "failed 1 1 -");
}

/* ---- fencing ------------------------------------------------------------- */

TEST_CASE(cluster_fencing) {
    pg_case *c = pg_case_open_("fencing");
    zkp_queue *a = migrated_(c), *b = connect_(c);
    int64_t id = enqueue_(a, "fenced", "bls12-381", 1, 3);

    /* A waiter listening for results, on its own connection. */
    admin_exec_(c, "LISTEN " ZKP_QUEUE_NOTIFY_CHANNEL);

    zkp_queue_claim ca, cb;
    int claimed, accepted;
    unsigned requeued, failed;
    OK(zkp_queue_claim_next(a, "A", 100, NULL, &ca, &claimed, &d_));
    ASSERT(claimed && ca.id == id && ca.generation == 1);
    /* A stalls past its lease (as a paused process would); B takes over. */
    sleep_ms_(250);
    OK(zkp_queue_reap(b, &requeued, &failed, &d_));
    ASSERT_EQ_U64(requeued, 1);
    OK(zkp_queue_claim_next(b, "B", 60000, NULL, &cb, &claimed, &d_));
    ASSERT(claimed && cb.id == id && cb.generation == 2);

    /* A wakes and writes with its stale generation: the database refuses
     * the result and the error alike, and changes nothing. */
    const uint8_t proof_a[4] = {0xaa, 0xaa, 0xaa, 0xaa}, proof_b[4] = {0xbb, 0xbb, 0xbb, 0xbb};
    OK(zkp_queue_complete(a, id, ca.generation, proof_a, sizeof proof_a, &accepted, &d_));
    ASSERT_EQ_INT(accepted, 0);
    OK(zkp_queue_fail(a, id, ca.generation, "late", 1, &accepted, &d_));
    ASSERT_EQ_INT(accepted, 0);
    ASSERT_ROW(c, id, "leased 2 2 B");
    /* No wake-up for a refused write. */
    ASSERT(PQconsumeInput(c->admin));
    PGnotify *n = PQnotifies(c->admin);
    ASSERT(n == NULL);

    /* B, the holder of the current lease, writes the result that counts. */
    OK(zkp_queue_complete(b, id, cb.generation, proof_b, sizeof proof_b, &accepted, &d_));
    ASSERT_EQ_INT(accepted, 1);
    ASSERT_ROW(c, id, "done 2 2 -");
    /* Exactly one result: neither a second write by B nor A's gets in. */
    OK(zkp_queue_complete(b, id, cb.generation, proof_a, sizeof proof_a, &accepted, &d_));
    ASSERT_EQ_INT(accepted, 0);
    OK(zkp_queue_complete(a, id, ca.generation, proof_a, sizeof proof_a, &accepted, &d_));
    ASSERT_EQ_INT(accepted, 0);
    zkp_queue_job_info info;
    OK(zkp_queue_job_get(a, id, &info, &d_));
    ASSERT(info.state == ZKP_QUEUE_DONE && info.generation == 2);
    ASSERT(info.result_len == sizeof proof_b && !memcmp(info.result, proof_b, sizeof proof_b));
    zkp_queue_job_info_release(&info);
    zkp_queue_claim_release(&ca);
    zkp_queue_claim_release(&cb);

    /* The waiter was woken once, with the job's id, after the commit. */
    char want[24];
    snprintf(want, sizeof want, "%lld", (long long)id);
    for (int tries = 0; tries < 100 && !(n = PQnotifies(c->admin)); tries++) {
        sleep_ms_(10);
        ASSERT(PQconsumeInput(c->admin));
    }
    ASSERT_MSG(n != NULL, "no notification");
    ASSERT(!strcmp(n->relname, ZKP_QUEUE_NOTIFY_CHANNEL) && !strcmp(n->extra, want));
    PQfreemem(n);
    ASSERT(PQconsumeInput(c->admin));
    n = PQnotifies(c->admin);
    ASSERT(n == NULL);
}

/* ---- status ---------------------------------------------------------------- */

TEST_CASE(cluster_status) {
    pg_case *c = pg_case_open_("status");
    zkp_queue *q = connect_(c);
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    ASSERT(f);
    OK(zkp_queue_status_write(q, f, 20, &d_));
    fclose(f);
    ASSERT_MSG(strstr(text, "schema: version 0") && strstr(text, "zkpipe queue migrate"), "%s",
               text);
    free(text);

    unsigned applied;
    OK(zkp_queue_migrate(q, &applied, &d_));
    OK(zkp_queue_heartbeat(q, "member-one", 60000, NULL, &d_));
    enqueue_(q, "s1", "bn254", 2, 3);
    enqueue_(q, "s2", "bn254", 2, 3);
    enqueue_(q, "s3", "bn254", 0, 1);
    int64_t gone = enqueue_(q, "s4", "bn254", 5, 1);
    zkp_queue_claim cl;
    int claimed, accepted;
    OK(zkp_queue_claim_next(q, "member-one", 60000, NULL, &cl, &claimed, &d_));
    ASSERT(claimed && cl.id == gone);
    OK(zkp_queue_fail(q, cl.id, cl.generation, "bad witness", 0, &accepted, &d_));
    zkp_queue_claim_release(&cl);
    OK(zkp_queue_claim_next(q, "member-one", 60000, NULL, &cl, &claimed, &d_));
    zkp_queue_claim_release(&cl);

    /* A member gone quiet with no lease is pruned; one holding a lease
     * is kept however quiet it is. */
    OK(zkp_queue_heartbeat(q, "member-gone", 60000, NULL, &d_));
    sleep_ms_(150);
    unsigned pruned = 99;
    OK(zkp_queue_prune_members(q, 100, &pruned, &d_));
    ASSERT_EQ_U64(pruned, 1);
    OK(zkp_queue_prune_members(q, 100, &pruned, &d_));
    ASSERT_EQ_U64(pruned, 0);

    f = open_memstream(&text, &len);
    ASSERT(f);
    OK(zkp_queue_status_write(q, f, 20, &d_));
    fclose(f);
    /* One member holding one lease; s2 (priority 2) and s3 (0) queued;
     * s4 failed with its error. */
    ASSERT_MSG(strstr(text, "members: 1\n") && strstr(text, "leases: 1\n") &&
                   strstr(text, "queued, by priority: 2\n") && strstr(text, "  2 1 ") &&
                   strstr(text, "  0 1 ") && strstr(text, "failed (newest first): 1\n") &&
                   strstr(text, " s4 1 bad witness\n") && strstr(text, " member-one ") &&
                   strstr(text, " s1 member-one 1 1 "),
               "%s", text);
    free(text);
}

/* ---- waiting for a result ------------------------------------------------ */

typedef struct {
    pg_case *c;
    const char *conninfo;          /* c->conninfo unless a case says otherwise */
    const zkp_queue_options *opts; /* NULL: notifications */
    int64_t id, timeout_ms;
    int final;
    zkp_queue_job_info info;
    double waited_ms;
    long listening; /* channels the connection listened to at the end */
    zkpipe_status st;
    zkp_diag d;
} waiter_;

/* How many channels q's connection listens to. */
static long listening_(zkp_queue *q) {
    PGresult *r = PQexec(q->conn, "SELECT count(*) FROM pg_listening_channels()");
    long n = PQresultStatus(r) == PGRES_TUPLES_OK && PQntuples(r) == 1
                 ? strtol(PQgetvalue(r, 0, 0), NULL, 10)
                 : -1;
    PQclear(r);
    return n;
}

static double mono_ms_(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static void *wait_thread_(void *arg) {
    waiter_ *w = arg;
    zkp_queue *q = NULL;
    w->st = zkp_queue_open(&q, w->conninfo, w->opts, &w->d);
    double t0 = mono_ms_();
    if (w->st == ZKPIPE_OK)
        w->st = zkp_queue_wait(q, w->id, w->timeout_ms, &w->info, &w->final, &w->d);
    w->waited_ms = mono_ms_() - t0;
    if (q) w->listening = listening_(q);
    zkp_queue_close(q);
    return NULL;
}

static void start_waiter_with_(waiter_ *w, pthread_t *t, pg_case *c, const char *conninfo,
                               const zkp_queue_options *opts, int64_t id, int64_t timeout_ms) {
    memset(w, 0, sizeof *w);
    w->c = c;
    w->conninfo = conninfo;
    w->opts = opts;
    w->id = id;
    w->timeout_ms = timeout_ms;
    ASSERT(pthread_create(t, NULL, wait_thread_, w) == 0);
}

static void start_waiter_(waiter_ *w, pthread_t *t, pg_case *c, int64_t id, int64_t timeout_ms) {
    start_waiter_with_(w, t, c, c->conninfo, NULL, id, timeout_ms);
}

TEST_CASE(cluster_wait) {
    pg_case *c = pg_case_open_("wait");
    zkp_queue *q = migrated_(c);
    int64_t id = enqueue_(q, "waited", "bn254", 0, 3);
    zkp_queue_claim cl, co;
    int claimed, accepted;

    /* Nothing happens: the wait ends at its timeout, not final. */
    waiter_ w;
    pthread_t t;
    start_waiter_(&w, &t, c, id, 150);
    pthread_join(t, NULL);
    ASSERT_MSG(w.st == ZKPIPE_OK, "%s", w.d.msg);
    ASSERT_EQ_INT(w.final, 0);
    ASSERT(w.info.state == ZKP_QUEUE_QUEUED);
    ASSERT_MSG(w.waited_ms >= 145, "returned after %.0f ms", w.waited_ms);
    zkp_queue_job_info_release(&w.info);

    /* A waiter with a long timeout is woken by the result, not by the
     * timeout; another job's result and a requeue do not end its wait. */
    start_waiter_(&w, &t, c, id, 20000);
    OK(zkp_queue_claim_next(q, "A", 60000, NULL, &cl, &claimed, &d_));
    ASSERT(claimed && cl.id == id);
    OK(zkp_queue_fail(q, id, cl.generation, "retry me", 1, &accepted, &d_));
    ASSERT_EQ_INT(accepted, 1);
    zkp_queue_claim_release(&cl);
    int64_t other = enqueue_(q, "other", "bn254", 1, 1); /* claimed before the requeued one */
    OK(zkp_queue_claim_next(q, "A", 60000, NULL, &co, &claimed, &d_));
    ASSERT(claimed && co.id == other);
    const uint8_t po[3] = {1, 2, 3}, proof[5] = {9, 8, 7, 6, 5};
    OK(zkp_queue_complete(q, other, co.generation, po, sizeof po, &accepted, &d_));
    zkp_queue_claim_release(&co);
    sleep_ms_(200);
    OK(zkp_queue_claim_next(q, "A", 60000, NULL, &cl, &claimed, &d_));
    ASSERT(claimed && cl.id == id && cl.attempts == 2);
    double t_done = mono_ms_();
    OK(zkp_queue_complete(q, id, cl.generation, proof, sizeof proof, &accepted, &d_));
    ASSERT_EQ_INT(accepted, 1);
    zkp_queue_claim_release(&cl);
    pthread_join(t, NULL);
    double latency = mono_ms_() - t_done;
    ASSERT_MSG(w.st == ZKPIPE_OK, "%s", w.d.msg);
    ASSERT_EQ_INT(w.final, 1);
    ASSERT(w.info.state == ZKP_QUEUE_DONE && w.info.attempts == 2);
    ASSERT(w.info.result_len == sizeof proof && !memcmp(w.info.result, proof, sizeof proof));
    ASSERT_MSG(w.waited_ms < 10000, "waited %.0f ms: the timeout, not the result", w.waited_ms);
    fprintf(stderr, "woken %.1f ms after the result was written\n", latency);
    zkp_queue_job_info_release(&w.info);

    /* A job that is final already returns at once; so does a failed one. */
    start_waiter_(&w, &t, c, other, 20000);
    pthread_join(t, NULL);
    ASSERT(w.st == ZKPIPE_OK && w.final == 1 && w.info.result_len == sizeof po);
    ASSERT_MSG(w.waited_ms < 5000, "waited %.0f ms", w.waited_ms);
    zkp_queue_job_info_release(&w.info);
    int64_t bad = enqueue_(q, "bad", "bn254", 0, 3);
    start_waiter_(&w, &t, c, bad, 20000);
    OK(zkp_queue_claim_next(q, "A", 60000, NULL, &cl, &claimed, &d_));
    ASSERT(claimed && cl.id == bad);
    OK(zkp_queue_fail(q, bad, cl.generation, "malformed witness", 0, &accepted, &d_));
    zkp_queue_claim_release(&cl);
    pthread_join(t, NULL);
    ASSERT(w.st == ZKPIPE_OK && w.final == 1 && w.info.state == ZKP_QUEUE_FAILED);
    ASSERT(!strcmp(w.info.last_error, "malformed witness") && w.info.result == NULL);
    zkp_queue_job_info_release(&w.info);
}

/* ---- cancel ------------------------------------------------------------------ */

TEST_CASE(cluster_cancel) {
    pg_case *c = pg_case_open_("cancel");
    zkp_queue *q = migrated_(c);
    int64_t queued = enqueue_(q, "c-queued", "bn254", 0, 3);
    int64_t running = enqueue_(q, "c-running", "bn254", 5, 3);
    zkp_queue_claim cl;
    int claimed, cancelled, accepted;
    OK(zkp_queue_claim_next(q, "A", 60000, NULL, &cl, &claimed, &d_));
    ASSERT(claimed && cl.id == running);
    /* The member holding the job listens (here on the admin connection). */
    admin_exec_(c, "LISTEN " ZKP_QUEUE_NOTIFY_CHANNEL);

    /* A queued job is cancelled before anyone claims it. */
    OK(zkp_queue_cancel(q, queued, &cancelled, &d_));
    ASSERT_EQ_INT(cancelled, 1);
    ASSERT_ROW(c, queued, "cancelled 0 0 -");
    zkp_queue_claim none;
    OK(zkp_queue_claim_next(q, "B", 60000, NULL, &none, &claimed, &d_));
    ASSERT_EQ_INT(claimed, 0);

    /* A running job: its waiter wakes with the outcome, its holder is
     * told, and the holder's result is refused. */
    waiter_ w;
    pthread_t t;
    start_waiter_(&w, &t, c, running, 20000);
    sleep_ms_(100);
    OK(zkp_queue_cancel(q, running, &cancelled, &d_));
    ASSERT_EQ_INT(cancelled, 1);
    pthread_join(t, NULL);
    ASSERT_MSG(w.st == ZKPIPE_OK, "%s", w.d.msg);
    ASSERT(w.final == 1 && w.info.state == ZKP_QUEUE_CANCELLED && w.info.result == NULL);
    ASSERT(!strcmp(w.info.last_error, "cancelled"));
    zkp_queue_job_info_release(&w.info);
    int told = 0;
    for (int tries = 0; tries < 100 && !told; tries++) {
        ASSERT(PQconsumeInput(c->admin));
        PGnotify *n;
        while ((n = PQnotifies(c->admin)) != NULL) {
            told |= strtoll(n->extra, NULL, 10) == running;
            PQfreemem(n);
        }
        if (!told) sleep_ms_(10);
    }
    ASSERT_MSG(told, "the holder was not told of the cancel");
    const uint8_t proof[2] = {1, 2};
    OK(zkp_queue_complete(q, running, cl.generation, proof, sizeof proof, &accepted, &d_));
    ASSERT_EQ_INT(accepted, 0);
    ASSERT_ROW(c, running, "cancelled 1 1 -");
    zkp_queue_claim_release(&cl);

    /* A final job stays as it is; an unknown one is an error. */
    OK(zkp_queue_cancel(q, running, &cancelled, &d_));
    ASSERT_EQ_INT(cancelled, 0);
    zkp_diag d2 = {{0}};
    ASSERT_EQ_INT(zkp_queue_cancel(q, running + queued + 1000, &cancelled, &d2),
                  ZKPIPE_ERR_OUT_OF_RANGE);
}

/* ---- what a member can admit: keys, hot keys, memory ------------------------- */

static int64_t enqueue_keyed_(zkp_queue *q, const char *request_id, const char *key,
                              uint64_t cost, uint64_t vram, int prio) {
    zkp_queue_job_spec s = {.request_id = request_id, .kind = "groth16", .curve = "bls12-381",
                            .key = key, .cost_bytes = cost, .vram_bytes = vram, .priority = prio,
                            .inputs_path = "/shared/x"};
    int64_t id;
    int existed;
    zkp_diag d = {{0}};
    ASSERT_MSG(zkp_queue_enqueue(q, &s, &id, &existed, &d) == ZKPIPE_OK, "enqueue: %s", d.msg);
    return id;
}

TEST_CASE(cluster_claim_admission) {
    pg_case *c = pg_case_open_("admission");
    zkp_queue *q = migrated_(c);
    int64_t big = enqueue_keyed_(q, "big", "k1", 100, 0, 2);
    int64_t cold = enqueue_keyed_(q, "cold", "k2", 10, 0, 1);
    int64_t hot = enqueue_keyed_(q, "hot", "k1", 10, 0, 1);
    int64_t unknown = enqueue_keyed_(q, "unknown", "k9", 1, 0, 3);
    int64_t keyless = enqueue_keyed_(q, "keyless", NULL, 0, 0, 0);

    /* A member with k1 and k2 registered, k1 hot, 50 bytes free: not the
     * job of a key it lacks, not the one too large; among equal
     * priorities the hot key first although the other is older. */
    const char *keys[2] = {"k1", "k2"}, *hot_keys[1] = {"k1"};
    zkp_queue_filter f = {.keys = keys, .n_keys = 2, .hot_keys = hot_keys, .n_hot_keys = 1,
                          .max_cost_bytes = 50};
    const int64_t expect[3] = {hot, cold, keyless};
    for (int k = 0; k < 3; k++) {
        zkp_queue_claim cl;
        int claimed;
        OK(zkp_queue_claim_next(q, "m", 60000, &f, &cl, &claimed, &d_));
        ASSERT_MSG(claimed && cl.id == expect[k], "claim %d: %s", k,
                   claimed ? cl.request_id : "nothing");
        ASSERT_EQ_U64(cl.cost_bytes, k == 2 ? 0 : 10);
        ASSERT(!strcmp(cl.key, k == 0 ? "k1" : k == 1 ? "k2" : ""));
        zkp_queue_claim_release(&cl);
    }
    zkp_queue_claim cl;
    int claimed;
    OK(zkp_queue_claim_next(q, "m", 60000, &f, &cl, &claimed, &d_));
    ASSERT_EQ_INT(claimed, 0);

    /* With room and every key: by priority again. */
    zkp_queue_filter any = {.max_cost_bytes = 0};
    OK(zkp_queue_claim_next(q, "m", 60000, &any, &cl, &claimed, &d_));
    ASSERT(claimed && cl.id == unknown);
    zkp_queue_claim_release(&cl);
    OK(zkp_queue_claim_next(q, "m", 60000, &any, &cl, &claimed, &d_));
    ASSERT(claimed && cl.id == big && cl.cost_bytes == 100);
    zkp_queue_claim_release(&cl);

    zkp_queue_job_spec bad = {.request_id = "bad", .kind = "groth16", .curve = "bn254",
                              .key = "two words", .inputs_path = "/x"};
    int64_t id;
    int existed;
    zkp_diag d2 = {{0}};
    ASSERT_EQ_INT(zkp_queue_enqueue(q, &bad, &id, &existed, &d2), ZKPIPE_ERR_INVALID_ARGUMENT);
}

/* A GPU member's device memory: a job whose partition would not fit is
 * passed over although it comes first, one that fits and one of unknown
 * size are taken; with no limit (a member proving on the CPU) it is. */
TEST_CASE(cluster_claim_vram) {
    pg_case *c = pg_case_open_("vram");
    zkp_queue *q = migrated_(c);
    int64_t big = enqueue_keyed_(q, "big", "k1", 1, 1000, 2);
    int64_t fits = enqueue_keyed_(q, "fits", "k1", 1, 600, 1);
    int64_t unknown = enqueue_keyed_(q, "unknown", "k1", 1, 0, 0);

    zkp_queue_filter f = {.max_vram_bytes = 600};
    const int64_t expect[2] = {fits, unknown};
    for (int k = 0; k < 2; k++) {
        zkp_queue_claim cl;
        int claimed;
        OK(zkp_queue_claim_next(q, "gpu", 60000, &f, &cl, &claimed, &d_));
        ASSERT_MSG(claimed && cl.id == expect[k], "claim %d: %s", k,
                   claimed ? cl.request_id : "nothing");
        ASSERT_EQ_U64(cl.vram_bytes, k == 0 ? 600 : 0);
        zkp_queue_claim_release(&cl);
    }
    zkp_queue_claim cl;
    int claimed;
    OK(zkp_queue_claim_next(q, "gpu", 60000, &f, &cl, &claimed, &d_));
    ASSERT_EQ_INT(claimed, 0);

    zkp_queue_filter cpu = {.max_vram_bytes = 0};
    OK(zkp_queue_claim_next(q, "cpu", 60000, &cpu, &cl, &claimed, &d_));
    ASSERT(claimed && cl.id == big && cl.vram_bytes == 1000);
    zkp_queue_claim_release(&cl);

    zkp_queue_job_spec bad = {.request_id = "bad", .kind = "groth16", .curve = "bn254",
                              .vram_bytes = (uint64_t)INT64_MAX + 1, .inputs_path = "/x"};
    int64_t id;
    int existed;
    zkp_diag d2 = {{0}};
    ASSERT_EQ_INT(zkp_queue_enqueue(q, &bad, &id, &existed, &d2), ZKPIPE_ERR_OUT_OF_RANGE);
}

/* ---- a member's listener: outcomes and new work on one connection ----------- */

TEST_CASE(cluster_notifications) {
    pg_case *c = pg_case_open_("notifications");
    zkp_queue *q = migrated_(c);
    zkp_queue *listener = connect_(c);
    int64_t ids[4];
    size_t n;
    int queued;
    /* The first call LISTENs; nothing has happened yet. */
    OK(zkp_queue_notifications(listener, 0, -1, ids, 4, &n, &queued, &d_));
    ASSERT(n == 0 && queued == 0);

    /* A new job is announced as work; a repeated request id is not. */
    int64_t id = enqueue_(q, "n-1", "bn254", 0, 1);
    OK(zkp_queue_notifications(listener, 5000, -1, ids, 4, &n, &queued, &d_));
    ASSERT(n == 0 && queued == 1);
    zkp_queue_job_spec again = {.request_id = "n-1", .kind = "groth16", .curve = "bn254",
                                .inputs = (const uint8_t *)"x", .inputs_len = 1};
    int64_t same;
    int existed;
    OK(zkp_queue_enqueue(q, &again, &same, &existed, &d_));
    ASSERT(existed == 1 && same == id);
    OK(zkp_queue_notifications(listener, 300, -1, ids, 4, &n, &queued, &d_));
    ASSERT_MSG(n == 0 && queued == 0, "a repeated request id woke the listener");

    /* A result names its job. */
    zkp_queue_claim cl;
    int claimed, accepted;
    OK(zkp_queue_claim_next(q, "A", 60000, NULL, &cl, &claimed, &d_));
    ASSERT(claimed && cl.id == id);
    const uint8_t proof[3] = {1, 2, 3};
    OK(zkp_queue_complete(q, id, cl.generation, proof, sizeof proof, &accepted, &d_));
    ASSERT_EQ_INT(accepted, 1);
    zkp_queue_claim_release(&cl);
    OK(zkp_queue_notifications(listener, 5000, -1, ids, 4, &n, &queued, &d_));
    ASSERT(n == 1 && ids[0] == id && queued == 0);

    /* A lease the reaper ends puts the job back as work. */
    int64_t id2 = enqueue_(q, "n-2", "bn254", 0, 3);
    OK(zkp_queue_notifications(listener, 5000, -1, ids, 4, &n, &queued, &d_));
    ASSERT(queued == 1);
    OK(zkp_queue_claim_next(q, "B", 1, NULL, &cl, &claimed, &d_));
    ASSERT(claimed && cl.id == id2);
    zkp_queue_claim_release(&cl);
    sleep_ms_(20);
    unsigned requeued, failed;
    OK(zkp_queue_reap(q, &requeued, &failed, &d_));
    ASSERT(requeued == 1 && failed == 0);
    OK(zkp_queue_notifications(listener, 5000, -1, ids, 4, &n, &queued, &d_));
    ASSERT(n == 0 && queued == 1);

    /* The wake descriptor ends a wait at once. */
    int p[2];
    ASSERT(pipe(p) == 0);
    ASSERT(write(p[1], "x", 1) == 1);
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    zkp_diag d = {{0}};
    zkpipe_status st = zkp_queue_notifications(listener, 10000, p[0], ids, 4, &n, &queued, &d);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    close(p[0]);
    close(p[1]);
    ASSERT_MSG(st == ZKPIPE_OK, "%s", d.msg);
    double waited = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
    ASSERT_MSG(n == 0 && waited < 5.0, "woken after %.3f s with %zu ids", waited, n);
}

/* ---- retries ------------------------------------------------------------- */

/* A statement that fails as CockroachDB reports a conflict between
 * transactions (SQLSTATE 40001), or on a deadlock (40P01), is run again: a
 * trigger fails a job's first two inserts that way, and the enqueue
 * succeeds with one row and two retries counted. A conflict that outlasts
 * the retries comes back as the server's error after five, and any other
 * error at once. */
TEST_CASE(cluster_retries_serialization_failures) {
    pg_case *c = pg_case_open_("retries");
    zkp_queue *q = migrated_(c);
    admin_exec_(c, "CREATE SEQUENCE conflicts");
    admin_exec_(c,
                "CREATE FUNCTION conflict() RETURNS trigger LANGUAGE plpgsql AS $$"
                " DECLARE k bigint; BEGIN"
                "  IF NEW.request_id LIKE 'flaky-%' THEN"
                "   k := nextval('conflicts');"
                "   IF k = 1 THEN RAISE EXCEPTION 'conflict %', k USING ERRCODE = '40001'; END IF;"
                "   IF k = 2 THEN RAISE EXCEPTION 'deadlock %', k USING ERRCODE = '40P01'; END IF;"
                "  END IF;"
                "  IF NEW.request_id LIKE 'stuck-%' THEN"
                "   RAISE EXCEPTION 'always in conflict' USING ERRCODE = '40001';"
                "  END IF;"
                "  IF NEW.request_id LIKE 'broken-%' THEN"
                "   RAISE EXCEPTION 'not a conflict' USING ERRCODE = '22023';"
                "  END IF;"
                "  RETURN NEW; END $$");
    admin_exec_(c, "CREATE TRIGGER conflict BEFORE INSERT ON zkpipe_jobs"
                   " FOR EACH ROW EXECUTE FUNCTION conflict()");

    uint64_t before = zkp_queue_retries(q);
    _Atomic uint64_t summed = 0; /* what a member's metrics add up over its connections */
    zkp_queue_count_retries_into(q, &summed);
    int64_t id = enqueue_(q, "flaky-1", "bn254", 0, 1);
    ASSERT_EQ_U64(zkp_queue_retries(q) - before, 2);
    char row[128];
    row_(c, id, row, sizeof row);
    ASSERT_STR_EQ(row, "queued 0 0 -");
    PGresult *r = PQexec(c->admin, "SELECT count(*) FROM zkpipe_jobs");
    ASSERT(PQresultStatus(r) == PGRES_TUPLES_OK);
    ASSERT_EQ_U64(strtoull(PQgetvalue(r, 0, 0), NULL, 10), 1);
    PQclear(r);

    const char *failing[2] = {"stuck-1", "broken-1"};
    const uint64_t retried[2] = {5, 0};
    for (int i = 0; i < 2; i++) {
        zkp_queue_job_spec s = {.request_id = failing[i],
                                .kind = "groth16",
                                .curve = "bn254",
                                .inputs = (const uint8_t *)"x",
                                .inputs_len = 1,
                                .max_attempts = 1};
        int64_t got;
        int existed;
        zkp_diag d = {{0}};
        before = zkp_queue_retries(q);
        ASSERT_EQ_INT(zkp_queue_enqueue(q, &s, &got, &existed, &d), ZKPIPE_ERR_IO);
        ASSERT_MSG(strstr(d.msg, i ? "not a conflict" : "always in conflict") != NULL, "%s",
                   d.msg);
        ASSERT_EQ_U64(zkp_queue_retries(q) - before, retried[i]);
    }
    ASSERT_EQ_U64(atomic_load(&summed), 2 + 5);
    zkp_queue_count_retries_into(q, NULL);
}

/* ---- without LISTEN/NOTIFY ---------------------------------------------------- */

/* For a database without LISTEN/NOTIFY: the connections poll, and run as a
 * role that may not call pg_notify, so a statement that still did would
 * fail here; none may LISTEN either (pg_listening_channels on each), and a
 * listener on the admin connection hears nothing. */
typedef struct {
    pg_case *c;
    char role[64];
} poll_role_;

static void drop_poll_role_(void *arg) {
    poll_role_ *r = arg;
    char sql[256];
    PQclear(PQexec(r->c->admin, "UNLISTEN *"));
    PQclear(PQexec(r->c->admin, "GRANT EXECUTE ON FUNCTION pg_notify(text, text) TO PUBLIC"));
    snprintf(sql, sizeof sql, "DROP OWNED BY %s; DROP ROLE %s", r->role, r->role);
    PQclear(PQexec(r->c->admin, sql));
}

static zkp_queue *open_polling_(const char *conninfo, const zkp_queue_options *o) {
    zkp_queue *q = NULL;
    zkp_diag d = {{0}};
    zkpipe_status st = zkp_queue_open(&q, conninfo, o, &d);
    ASSERT_MSG(st == ZKPIPE_OK, "connect: %s", d.msg);
    test_defer(close_queue_, q);
    ASSERT(zkp_queue_polling(q) && zkp_queue_poll_ms(q) == o->poll_ms);
    return q;
}

TEST_CASE(cluster_polling) {
    pg_case *c = pg_case_open_("polling");
    static poll_role_ role;
    role.c = c;
    snprintf(role.role, sizeof role.role, "zkpt_poll_%d", (int)getpid());
    char sql[512];
    snprintf(sql, sizeof sql, "CREATE ROLE %s LOGIN; GRANT USAGE, CREATE ON SCHEMA %s TO %s",
             role.role, c->schema, role.role);
    admin_exec_(c, sql);
    test_defer(drop_poll_role_, &role);
    /* Superusers (every other case) keep it; the test's role loses it. */
    admin_exec_(c, "REVOKE EXECUTE ON FUNCTION pg_notify(text, text) FROM PUBLIC");
    admin_exec_(c, "LISTEN " ZKP_QUEUE_NOTIFY_CHANNEL "; LISTEN " ZKP_QUEUE_QUEUED_CHANNEL);
    static char conninfo[1200];
    snprintf(conninfo, sizeof conninfo, "%s user=%s", c->conninfo, role.role);

    /* The role really cannot notify. */
    PGconn *plain = PQconnectdb(conninfo);
    ASSERT_MSG(PQstatus(plain) == CONNECTION_OK, "connect: %s", PQerrorMessage(plain));
    PGresult *r = PQexec(plain, "SELECT pg_notify('" ZKP_QUEUE_NOTIFY_CHANNEL "', '1')");
    const char *code = PQresultErrorField(r, PG_DIAG_SQLSTATE);
    int refused = PQresultStatus(r) == PGRES_FATAL_ERROR && code && !strcmp(code, "42501");
    PQclear(r);
    PQfinish(plain);
    ASSERT_MSG(refused, "the test role may still call pg_notify");

    const zkp_queue_options o = {.poll = 1, .poll_ms = 50};
    zkp_queue *q = open_polling_(conninfo, &o), *holder = open_polling_(conninfo, &o);
    unsigned applied;
    OK(zkp_queue_migrate(q, &applied, &d_));
    int64_t ids[4];
    size_t n;
    int queued;
    zkp_diag d2 = {{0}};
    ASSERT_EQ_INT(zkp_queue_notifications(q, 0, -1, ids, 4, &n, &queued, &d2),
                  ZKPIPE_ERR_UNSUPPORTED);

    /* Enqueue, a repeated request id, a wait that times out. */
    int64_t id = enqueue_(q, "p-1", "bn254", 0, 3);
    zkp_queue_job_spec again = {.request_id = "p-1", .kind = "groth16", .curve = "bn254",
                                .inputs = (const uint8_t *)"x", .inputs_len = 1};
    int64_t same;
    int existed;
    OK(zkp_queue_enqueue(q, &again, &same, &existed, &d_));
    ASSERT(existed == 1 && same == id);
    waiter_ w;
    pthread_t t;
    start_waiter_with_(&w, &t, c, conninfo, &o, id, 120);
    pthread_join(t, NULL);
    ASSERT_MSG(w.st == ZKPIPE_OK, "%s", w.d.msg);
    ASSERT(w.final == 0 && w.info.state == ZKP_QUEUE_QUEUED && w.listening == 0);
    ASSERT_MSG(w.waited_ms >= 115, "returned after %.0f ms", w.waited_ms);
    zkp_queue_job_info_release(&w.info);

    /* A waiter woken by polling: a retryable error requeues the job, and
     * the result of its second lease is read within an interval or so. */
    start_waiter_with_(&w, &t, c, conninfo, &o, id, 20000);
    zkp_queue_claim cl;
    int claimed, accepted;
    OK(zkp_queue_claim_next(holder, "A", 60000, NULL, &cl, &claimed, &d_));
    ASSERT(claimed && cl.id == id && cl.attempts == 1);
    OK(zkp_queue_fail(holder, id, cl.generation, "retry me", 1, &accepted, &d_));
    ASSERT_EQ_INT(accepted, 1);
    zkp_queue_claim_release(&cl);
    OK(zkp_queue_claim_next(holder, "A", 60000, NULL, &cl, &claimed, &d_));
    ASSERT(claimed && cl.id == id && cl.attempts == 2);
    sleep_ms_(100); /* the waiter has read the job leased */
    const uint8_t proof[4] = {4, 3, 2, 1};
    double t_done = mono_ms_();
    OK(zkp_queue_complete(holder, id, cl.generation, proof, sizeof proof, &accepted, &d_));
    ASSERT_EQ_INT(accepted, 1);
    OK(zkp_queue_complete(holder, id, cl.generation, proof, sizeof proof, &accepted, &d_));
    ASSERT_EQ_INT(accepted, 0); /* fenced as ever */
    zkp_queue_claim_release(&cl);
    pthread_join(t, NULL);
    double latency = mono_ms_() - t_done;
    ASSERT_MSG(w.st == ZKPIPE_OK, "%s", w.d.msg);
    ASSERT(w.final == 1 && w.info.state == ZKP_QUEUE_DONE && w.info.attempts == 2);
    ASSERT(w.info.result_len == sizeof proof && !memcmp(w.info.result, proof, sizeof proof));
    ASSERT_EQ_INT(w.listening, 0);
    ASSERT_MSG(latency < 5000, "read %.0f ms after the write", latency);
    fprintf(stderr, "polling every %u ms: the result read %.1f ms after it was written\n",
            o.poll_ms, latency);
    zkp_queue_job_info_release(&w.info);

    /* The reaper: one expired lease requeued, one failed at its last attempt. */
    int64_t id2 = enqueue_(q, "p-2", "bn254", 0, 3), id3 = enqueue_(q, "p-3", "bn254", 0, 1);
    for (int k = 0; k < 2; k++) {
        OK(zkp_queue_claim_next(holder, "B", 1, NULL, &cl, &claimed, &d_));
        ASSERT(claimed && cl.id == (k ? id3 : id2));
        zkp_queue_claim_release(&cl);
    }
    sleep_ms_(20);
    unsigned requeued, failed;
    OK(zkp_queue_reap(q, &requeued, &failed, &d_));
    ASSERT(requeued == 1 && failed == 1);
    ASSERT_ROW(c, id2, "queued 1 1 -");
    ASSERT_ROW(c, id3, "failed 1 1 -");

    /* A cancel reaches the holder: the read its watcher makes every
     * interval finds the job it holds final (and a job that is gone). */
    int64_t run = enqueue_(q, "p-run", "bn254", 5, 3);
    OK(zkp_queue_claim_next(holder, "A", 60000, NULL, &cl, &claimed, &d_));
    ASSERT(claimed && cl.id == run);
    const int64_t watch[3] = {run, id2, run + 1000};
    int64_t settled[3];
    OK(zkp_queue_settled(holder, watch, 3, settled, &n, &d_));
    ASSERT(n == 1 && settled[0] == run + 1000);
    start_waiter_with_(&w, &t, c, conninfo, &o, run, 20000);
    sleep_ms_(60);
    int cancelled;
    OK(zkp_queue_cancel(q, run, &cancelled, &d_));
    ASSERT_EQ_INT(cancelled, 1);
    pthread_join(t, NULL);
    ASSERT_MSG(w.st == ZKPIPE_OK, "%s", w.d.msg);
    ASSERT(w.final == 1 && w.info.state == ZKP_QUEUE_CANCELLED && w.listening == 0);
    zkp_queue_job_info_release(&w.info);
    OK(zkp_queue_settled(holder, watch, 3, settled, &n, &d_));
    ASSERT(n == 2 && settled[0] != settled[1]);
    for (size_t i = 0; i < n; i++) ASSERT(settled[i] == run || settled[i] == run + 1000);
    const uint8_t late[2] = {1, 2};
    OK(zkp_queue_complete(holder, run, cl.generation, late, sizeof late, &accepted, &d_));
    ASSERT_EQ_INT(accepted, 0);
    ASSERT_ROW(c, run, "cancelled 1 1 -");
    zkp_queue_claim_release(&cl);

    /* Nothing listened and nothing was announced; a connection that
     * notifies fails here, so none of the statements above did. */
    ASSERT(listening_(q) == 0 && listening_(holder) == 0);
    ASSERT(PQconsumeInput(c->admin));
    PGnotify *note = PQnotifies(c->admin);
    ASSERT_MSG(note == NULL, "%s was announced", note ? note->relname : "");
    zkp_queue *notifying = NULL;
    OK(zkp_queue_connect(&notifying, conninfo, &d_));
    test_defer(close_queue_, notifying);
    zkp_queue_job_spec s = {.request_id = "p-notify", .kind = "groth16", .curve = "bn254",
                            .inputs = (const uint8_t *)"x", .inputs_len = 1};
    int64_t nid;
    zkp_diag d3 = {{0}};
    ASSERT_EQ_INT(zkp_queue_enqueue(notifying, &s, &nid, &existed, &d3), ZKPIPE_ERR_IO);
    ASSERT_MSG(strstr(d3.msg, "pg_notify") != NULL, "%s", d3.msg);
}
