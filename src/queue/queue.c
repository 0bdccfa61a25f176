/* Cluster mode's job queue in PostgreSQL: connection, migrations, enqueue,
 * claim, lease, fencing. queue.h states the guarantees; docs/CLUSTER.md
 * the schema. Every operation but a migration (a transaction) and a
 * heartbeat (two statements) is one statement; values always travel as
 * parameters, never inside the SQL; integers are read at whatever width
 * the database gives them (CockroachDB's INTEGER is eight bytes). */
#include "queue/queue.h"

#include <errno.h>
#include <libpq-fe.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "queue/queue_internal.h"

/* ---- connection and statements ------------------------------------------ */

/* libpq's last message on conn. */
const char *zkp_queue_pq_message(const PGconn *conn) {
    const char *m = PQerrorMessage(conn);
    return (m && *m) ? m : "unknown error";
}

/* libpq's messages span lines ("...failed: ...\n\tIs the server
 * running...?\n"); a diagnostic is one line, so each run of white space
 * becomes one space. */
static void flatten_(char *out, size_t cap, const char *m) {
    size_t n = 0;
    int space = 0;
    for (; *m && n + 1 < cap; m++) {
        if (*m == '\n' || *m == '\t' || *m == '\r' || *m == ' ') {
            space = n > 0;
            continue;
        }
        if (space && n + 2 < cap) out[n++] = ' ';
        space = 0;
        out[n++] = *m;
    }
    out[n] = 0;
}

static zkpipe_status sql_fail_(zkp_diag *d, const char *what, const PGconn *conn, PGresult *res) {
    const char *m = res ? PQresultErrorMessage(res) : "";
    if (!m || !*m) m = zkp_queue_pq_message(conn);
    char flat[ZKP_DIAG_MAX];
    flatten_(flat, sizeof flat, m);
    zkpipe_status st = zkp_diag_fail(d, ZKPIPE_ERR_IO, "database: %s: %s", what, flat);
    PQclear(res);
    return st;
}

zkpipe_status zkp_queue_connect(zkp_queue **out, const char *url, zkp_diag *d) {
    return zkp_queue_open(out, url, NULL, d);
}

zkpipe_status zkp_queue_open(zkp_queue **out, const char *url, const zkp_queue_options *opts,
                             zkp_diag *d) {
    *out = NULL;
    if (!url || !*url) return zkp_diag_fail(d, ZKPIPE_ERR_INVALID_ARGUMENT, "queue: empty url");
    zkp_queue *q = calloc(1, sizeof *q);
    if (!q) return zkp_diag_fail(d, ZKPIPE_ERR_NO_MEMORY, "queue: out of memory");
    q->poll = opts && opts->poll;
    q->poll_ms = opts && opts->poll_ms ? opts->poll_ms : ZKP_QUEUE_POLL_MS_DEFAULT;
    q->conn = PQconnectdb(url);
    if (!q->conn || PQstatus(q->conn) != CONNECTION_OK) {
        char flat[ZKP_DIAG_MAX];
        flatten_(flat, sizeof flat, q->conn ? zkp_queue_pq_message(q->conn) : "out of memory");
        zkpipe_status st = zkp_diag_fail(d, ZKPIPE_ERR_IO, "database: cannot connect: %s", flat);
        zkp_queue_close(q);
        return st;
    }
    /* Notices (CREATE ... IF NOT EXISTS that skips) are not errors. */
    PQsetNoticeProcessor(q->conn, zkp_queue_quiet_notice, NULL);
    *out = q;
    return ZKPIPE_OK;
}

int zkp_queue_polling(const zkp_queue *q) { return q->poll; }

uint32_t zkp_queue_poll_ms(const zkp_queue *q) { return q->poll_ms; }

void zkp_queue_close(zkp_queue *q) {
    if (!q) return;
    if (q->conn) PQfinish(q->conn);
    free(q);
}

void zkp_queue_quiet_notice(void *arg, const char *message) {
    (void)arg;
    (void)message;
}

/* Whether a statement that failed this way may simply be run again: a
 * serialization failure or a deadlock. CockroachDB reports every conflict
 * between transactions as 40001 and leaves the retry to the client;
 * PostgreSQL and YugabyteDB do the same under SERIALIZABLE, and any of them
 * on a deadlock. */
static int retryable_(const PGresult *res) {
    const char *code = res ? PQresultErrorField(res, PG_DIAG_SQLSTATE) : NULL;
    return code && (!strcmp(code, "40001") || !strcmp(code, "40P01"));
}

/* Sleeps us microseconds, through interruptions by signals. */
static void sleep_us_(int64_t us) {
    struct timespec ts = {(time_t)(us / 1000000), (long)(us % 1000000) * 1000L};
    while (nanosleep(&ts, &ts) != 0) {
    }
}

/* Waits before retry number attempt (0, 1, ...): 4 ms doubling, with
 * jitter so that members that conflicted do not meet again in step. */
static void backoff_(zkp_queue *q, unsigned attempt) {
    q->jitter = q->jitter * 6364136223846793005ULL + 1442695040888963407ULL;
    sleep_us_((4000L << attempt) + (long)((q->jitter >> 33) % (4000UL << attempt)));
}

/* Runs one statement through run (PQexec or PQexecParams), again after a
 * retryable failure, at most ZKP_QUEUE_RETRIES times, but only when no
 * transaction was open before it: then the failed statement was its own
 * transaction, rolled back whole, and running it again is safe. Inside an
 * explicit transaction the caller's whole transaction would have to be
 * replayed, and a failed COMMIT run again would report a success. */
typedef PGresult *(*run_fn_)(zkp_queue *q, const void *args);

static zkpipe_status run_(zkp_queue *q, const char *what, run_fn_ run, const void *args,
                          PGresult **res_out, zkp_diag *d) {
    int alone = PQtransactionStatus(q->conn) == PQTRANS_IDLE;
    for (unsigned attempt = 0;; attempt++) {
        PGresult *res = run(q, args);
        ExecStatusType s = res ? PQresultStatus(res) : PGRES_FATAL_ERROR;
        if (s == PGRES_COMMAND_OK || s == PGRES_TUPLES_OK) {
            if (res_out)
                *res_out = res;
            else
                PQclear(res);
            return ZKPIPE_OK;
        }
        if (!alone || attempt == ZKP_QUEUE_RETRIES || !retryable_(res) ||
            PQtransactionStatus(q->conn) != PQTRANS_IDLE)
            return sql_fail_(d, what, q->conn, res);
        PQclear(res);
        q->retries++;
        if (q->retries_sink) atomic_fetch_add(q->retries_sink, 1);
        backoff_(q, attempt);
    }
}

typedef struct {
    const char *sql;
    int n_params;
    const char *const *values;
    const int *lengths, *formats;
    int binary_result;
} exec_args_;

static PGresult *exec_params_(zkp_queue *q, const void *args) {
    const exec_args_ *a = args;
    return PQexecParams(q->conn, a->sql, a->n_params, NULL, a->values, a->lengths, a->formats,
                        a->binary_result);
}

static PGresult *exec_simple_(zkp_queue *q, const void *sql) { return PQexec(q->conn, sql); }

zkpipe_status zkp_queue_exec(zkp_queue *q, const char *what, const char *sql, int n_params,
                             const char *const *values, const int *lengths, const int *formats,
                             int binary_result, PGresult **res_out, zkp_diag *d) {
    *res_out = NULL;
    exec_args_ a = {sql, n_params, values, lengths, formats, binary_result};
    return run_(q, what, exec_params_, &a, res_out, d);
}

zkpipe_status zkp_queue_simple(zkp_queue *q, const char *what, const char *sql, zkp_diag *d) {
    return run_(q, what, exec_simple_, sql, NULL, d);
}

uint64_t zkp_queue_retries(const zkp_queue *q) { return q ? q->retries : 0; }

void zkp_queue_count_retries_into(zkp_queue *q, _Atomic uint64_t *counter) {
    q->retries_sink = counter;
}

/* A binary integer column of 2, 4 or 8 bytes, big-endian. */
int zkp_queue_get_int(const PGresult *res, int row, int col, int64_t *out) {
    if (PQgetisnull(res, row, col)) return -1;
    int len = PQgetlength(res, row, col);
    if (len != 2 && len != 4 && len != 8) return -1;
    const unsigned char *p = (const unsigned char *)PQgetvalue(res, row, col);
    uint64_t v = 0;
    for (int i = 0; i < len; i++) v = (v << 8) | p[i];
    if (len < 8 && (p[0] & 0x80)) v |= ~(uint64_t)0 << (8 * len);
    *out = (int64_t)v;
    return 0;
}

/* A text column into buf (cap bytes with the terminator); NULL reads "". */
int zkp_queue_get_text(const PGresult *res, int row, int col, char *buf, size_t cap) {
    buf[0] = 0;
    if (PQgetisnull(res, row, col)) return 0;
    size_t len = (size_t)PQgetlength(res, row, col);
    if (len >= cap) return -1;
    memcpy(buf, PQgetvalue(res, row, col), len);
    buf[len] = 0;
    return 0;
}

static zkpipe_status check_name_(const char *what, const char *s, zkp_diag *d) {
    if (!s || !*s) return zkp_diag_fail(d, ZKPIPE_ERR_INVALID_ARGUMENT, "queue: %s is empty", what);
    if (strlen(s) > ZKP_QUEUE_NAME_MAX)
        return zkp_diag_fail(d, ZKPIPE_ERR_INVALID_ARGUMENT, "queue: %s is longer than %d bytes",
                             what, ZKP_QUEUE_NAME_MAX);
    return ZKPIPE_OK;
}

/* Key and filter names: what the daemon allows in a key name (and kinds
 * and curves), so nothing needs quoting inside an array literal. */
static int name_chars_ok_(const char *s) {
    size_t len = s ? strlen(s) : 0;
    if (len == 0 || len > 64) return 0;
    for (size_t j = 0; j < len; j++) {
        char c = s[j];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '_' || c == '.' || c == '-'))
            return 0;
    }
    return 1;
}

/* ---- migrations ---------------------------------------------------------- */

/* Each migration is applied once, in a transaction; a new version is a
 * new entry at the end, never an edit of an old one. Job ids are
 * BIGSERIAL (a sequence in PostgreSQL and YugabyteDB, unique_rowid() in
 * CockroachDB): only their uniqueness is relied on, and age is created_at. */
static const struct {
    unsigned version;
    const char *description;
    const char *sql;
} migrations_[] = {
    {1, "members and jobs",
     "CREATE TABLE zkpipe_members ("
     "  id text PRIMARY KEY,"
     "  host text NOT NULL,"
     "  started_at timestamptz NOT NULL DEFAULT now(),"
     "  heartbeat_at timestamptz NOT NULL DEFAULT now());"
     "CREATE TABLE zkpipe_jobs ("
     "  id bigserial PRIMARY KEY,"
     "  request_id text NOT NULL UNIQUE,"
     "  kind text NOT NULL,"
     "  curve text NOT NULL,"
     "  key text,"
     "  cost_bytes bigint NOT NULL DEFAULT 0 CHECK (cost_bytes >= 0),"
     "  priority integer NOT NULL DEFAULT 0,"
     "  inputs bytea,"
     "  inputs_path text,"
     "  state text NOT NULL DEFAULT 'queued'"
     "    CHECK (state IN ('queued', 'leased', 'done', 'failed', 'cancelled')),"
     "  attempts integer NOT NULL DEFAULT 0,"
     "  max_attempts integer NOT NULL CHECK (max_attempts > 0),"
     "  last_error text,"
     "  lease_owner text,"
     "  lease_generation bigint NOT NULL DEFAULT 0,"
     "  lease_expires_at timestamptz,"
     "  created_at timestamptz NOT NULL DEFAULT now(),"
     "  claimed_at timestamptz,"
     "  finished_at timestamptz,"
     "  result bytea,"
     "  CHECK ((inputs IS NULL) <> (inputs_path IS NULL)),"
     "  CHECK ((state = 'leased') = (lease_owner IS NOT NULL AND lease_expires_at IS NOT NULL)));"
     "CREATE INDEX zkpipe_jobs_queued ON zkpipe_jobs (priority DESC, created_at, id)"
     "  WHERE state = 'queued';"
     "CREATE INDEX zkpipe_jobs_leased ON zkpipe_jobs (lease_expires_at) WHERE state = 'leased';"
     "CREATE INDEX zkpipe_jobs_owner ON zkpipe_jobs (lease_owner) WHERE state = 'leased';"},
    /* A plain ADD COLUMN with a constant default, the form the three
     * databases share: the rows already there (jobs of members that did
     * not know the figure) read as unknown, which every claimer admits.
     * enqueue refuses what would not fit a bigint, so none is negative. */
    {2, "device memory of a job",
     "ALTER TABLE zkpipe_jobs ADD COLUMN vram_bytes bigint NOT NULL DEFAULT 0;"},
};

unsigned zkp_queue_schema_latest(void) {
    return migrations_[sizeof migrations_ / sizeof migrations_[0] - 1].version;
}

static const char create_schema_table_[] =
    "CREATE TABLE IF NOT EXISTS zkpipe_schema ("
    "  version integer PRIMARY KEY,"
    "  description text NOT NULL,"
    "  applied_at timestamptz NOT NULL DEFAULT now())";

zkpipe_status zkp_queue_schema_version(zkp_queue *q, unsigned *version, zkp_diag *d) {
    *version = 0;
    PGresult *res;
    zkpipe_status st = zkp_queue_exec(q, "reading the schema version",
                                      "SELECT to_regclass('zkpipe_schema') IS NOT NULL", 0, NULL,
                                      NULL, NULL, 0, &res, d);
    if (st != ZKPIPE_OK) return st;
    int exists = PQntuples(res) == 1 && !strcmp(PQgetvalue(res, 0, 0), "t");
    PQclear(res);
    if (!exists) return ZKPIPE_OK;
    st = zkp_queue_exec(q, "reading the schema version",
                        "SELECT coalesce(max(version), 0)::bigint FROM zkpipe_schema", 0, NULL,
                        NULL, NULL, 1, &res, d);
    if (st != ZKPIPE_OK) return st;
    int64_t v = 0;
    if (PQntuples(res) != 1 || zkp_queue_get_int(res, 0, 0, &v) != 0 || v < 0 || v > 1000000) {
        PQclear(res);
        return zkp_diag_fail(d, ZKPIPE_ERR_PARSE, "queue: zkpipe_schema holds no valid version");
    }
    PQclear(res);
    *version = (unsigned)v;
    return ZKPIPE_OK;
}

/* Applies one migration unless its version is present. */
static zkpipe_status migrate_one_(zkp_queue *q, size_t i, int *did, zkp_diag *d) {
    *did = 0;
    zkpipe_status st = zkp_queue_simple(q, "BEGIN", "BEGIN", d);
    if (st != ZKPIPE_OK) return st;
    char version[16];
    snprintf(version, sizeof version, "%u", migrations_[i].version);
    const char *values[2] = {version, migrations_[i].description};
    PGresult *res;
    /* Inserting the version first makes a concurrent migrator wait here
     * until this transaction ends, then find the row and do nothing. */
    st = zkp_queue_exec(q, "recording a migration",
                        "INSERT INTO zkpipe_schema (version, description) VALUES ($1::integer, $2)"
                        " ON CONFLICT (version) DO NOTHING RETURNING version",
                        2, values, NULL, NULL, 0, &res, d);
    if (st == ZKPIPE_OK) {
        int fresh = PQntuples(res) == 1;
        PQclear(res);
        if (!fresh) return zkp_queue_simple(q, "ROLLBACK", "ROLLBACK", d);
        st = zkp_queue_simple(q, "applying a migration", migrations_[i].sql, d);
        if (st == ZKPIPE_OK) st = zkp_queue_simple(q, "COMMIT", "COMMIT", d);
        if (st == ZKPIPE_OK) {
            *did = 1;
            return ZKPIPE_OK;
        }
    }
    zkp_diag keep;
    (void)zkp_queue_simple(q, "ROLLBACK", "ROLLBACK", &keep);
    if (d) {
        char prefix[64];
        snprintf(prefix, sizeof prefix, "migration %u", migrations_[i].version);
        zkp_diag_prefix(d, prefix);
    }
    return st;
}

zkpipe_status zkp_queue_migrate(zkp_queue *q, unsigned *applied, zkp_diag *d) {
    *applied = 0;
    zkpipe_status st = zkp_queue_simple(q, "creating zkpipe_schema", create_schema_table_, d);
    if (st != ZKPIPE_OK) {
        /* Two first migrations at once may race inside CREATE TABLE IF NOT
         * EXISTS itself; the loser succeeds on a second try. */
        st = zkp_queue_simple(q, "creating zkpipe_schema", create_schema_table_, d);
        if (st != ZKPIPE_OK) return st;
    }
    unsigned have;
    st = zkp_queue_schema_version(q, &have, d);
    if (st != ZKPIPE_OK) return st;
    if (have > zkp_queue_schema_latest())
        return zkp_diag_fail(d, ZKPIPE_ERR_BAD_VERSION,
                             "queue: the database's schema is version %u; this zkpipe knows up "
                             "to %u",
                             have, zkp_queue_schema_latest());
    for (size_t i = 0; i < sizeof migrations_ / sizeof migrations_[0]; i++) {
        if (migrations_[i].version <= have) continue;
        int did;
        st = migrate_one_(q, i, &did, d);
        if (st != ZKPIPE_OK) return st;
        *applied += (unsigned)did;
    }
    return ZKPIPE_OK;
}

/* ---- members ------------------------------------------------------------- */

zkpipe_status zkp_queue_heartbeat(zkp_queue *q, const char *member, uint32_t lease_ms,
                                  unsigned *renewed, zkp_diag *d) {
    if (renewed) *renewed = 0;
    zkpipe_status st = check_name_("member", member, d);
    if (st != ZKPIPE_OK) return st;
    char host[256] = "";
    if (gethostname(host, sizeof host - 1) != 0) strcpy(host, "?");
    char ms[16];
    snprintf(ms, sizeof ms, "%u", lease_ms);
    const char *v2[2] = {member, host};
    PGresult *res;
    st = zkp_queue_exec(q, "heartbeat",
                        "INSERT INTO zkpipe_members (id, host) VALUES ($1, $2)"
                        " ON CONFLICT (id) DO UPDATE SET heartbeat_at = now()",
                        2, v2, NULL, NULL, 0, &res, d);
    if (st != ZKPIPE_OK) return st;
    PQclear(res);
    const char *v[2] = {member, ms};
    st = zkp_queue_exec(q, "renewing leases",
                        "UPDATE zkpipe_jobs SET lease_expires_at = now() + $2::bigint * interval "
                        "'1 millisecond'"
                        " WHERE state = 'leased' AND lease_owner = $1 AND lease_expires_at > now()",
                        2, v, NULL, NULL, 0, &res, d);
    if (st != ZKPIPE_OK) return st;
    if (renewed) *renewed = (unsigned)strtoul(PQcmdTuples(res), NULL, 10);
    PQclear(res);
    return ZKPIPE_OK;
}

zkpipe_status zkp_queue_prune_members(zkp_queue *q, uint32_t stale_ms, unsigned *pruned,
                                      zkp_diag *d) {
    if (pruned) *pruned = 0;
    char ms[16];
    snprintf(ms, sizeof ms, "%u", stale_ms);
    const char *v[1] = {ms};
    PGresult *res;
    zkpipe_status st = zkp_queue_exec(
        q, "pruning members",
        "DELETE FROM zkpipe_members m"
        " WHERE m.heartbeat_at < now() - $1::bigint * interval '1 millisecond'"
        " AND NOT EXISTS (SELECT 1 FROM zkpipe_jobs j WHERE j.state = 'leased'"
        "   AND j.lease_owner = m.id)",
        1, v, NULL, NULL, 0, &res, d);
    if (st != ZKPIPE_OK) return st;
    if (pruned) *pruned = (unsigned)strtoul(PQcmdTuples(res), NULL, 10);
    PQclear(res);
    return ZKPIPE_OK;
}

/* ---- jobs ---------------------------------------------------------------- */

/* Statements that announce what they wrote come in two variants made from
 * one text at compile time: [1] with the pg_notify of the rows written in
 * the same statement, [0] without, for a connection that polls. Only the
 * first column is read, so both read alike. */
#define ENQUEUE_ADD_                                                                               \
    "WITH added AS (INSERT INTO zkpipe_jobs (request_id, kind, curve, priority,"                   \
    " inputs, inputs_path, max_attempts, key, cost_bytes, vram_bytes)"                             \
    " VALUES ($1, $2, $3, $4::integer, $5::bytea, $6, $7::integer, $8, $9::bigint, $10::bigint)"   \
    " ON CONFLICT (request_id) DO NOTHING RETURNING id)"
static const char *const enqueue_sql_[2] = {
    ENQUEUE_ADD_ " SELECT id FROM added",
    ENQUEUE_ADD_ " SELECT id, pg_notify('" ZKP_QUEUE_QUEUED_CHANNEL "', CAST(id AS text))"
                 " FROM added"};

zkpipe_status zkp_queue_enqueue(zkp_queue *q, const zkp_queue_job_spec *spec, int64_t *job_id,
                                int *existed, zkp_diag *d) {
    *job_id = 0;
    *existed = 0;
    zkpipe_status st = check_name_("request_id", spec->request_id, d);
    if (st == ZKPIPE_OK) st = check_name_("kind", spec->kind, d);
    if (st == ZKPIPE_OK) st = check_name_("curve", spec->curve, d);
    if (st != ZKPIPE_OK) return st;
    int by_path = spec->inputs_path != NULL;
    if (by_path == (spec->inputs != NULL))
        return zkp_diag_fail(d, ZKPIPE_ERR_INVALID_ARGUMENT,
                             "queue: a job has its inputs or a path to them, not both or neither");
    if (by_path && (st = check_name_("inputs_path", spec->inputs_path, d)) != ZKPIPE_OK) return st;
    if (spec->key && !name_chars_ok_(spec->key))
        return zkp_diag_fail(d, ZKPIPE_ERR_INVALID_ARGUMENT,
                             "queue: key name must be 1 to 64 characters of A-Z a-z 0-9 . _ -");
    if (spec->cost_bytes > (uint64_t)INT64_MAX || spec->vram_bytes > (uint64_t)INT64_MAX)
        return zkp_diag_fail(d, ZKPIPE_ERR_OUT_OF_RANGE,
                             "queue: cost_bytes or vram_bytes out of range");
    if (!by_path && spec->inputs_len > ZKP_QUEUE_INLINE_INPUT_MAX)
        return zkp_diag_fail(d, ZKPIPE_ERR_OUT_OF_RANGE,
                             "queue: %zu bytes of inputs; more than %zu go in a shared directory",
                             spec->inputs_len, ZKP_QUEUE_INLINE_INPUT_MAX);
    char prio[16], attempts[16], cost[24], vram[24];
    snprintf(prio, sizeof prio, "%d", (int)spec->priority);
    snprintf(attempts, sizeof attempts, "%u", spec->max_attempts ? spec->max_attempts : 3u);
    snprintf(cost, sizeof cost, "%llu", (unsigned long long)spec->cost_bytes);
    snprintf(vram, sizeof vram, "%llu", (unsigned long long)spec->vram_bytes);
    const char *values[10] = {spec->request_id, spec->kind, spec->curve, prio,
                              by_path ? NULL : (const char *)spec->inputs,
                              by_path ? spec->inputs_path : NULL, attempts, spec->key, cost, vram};
    int lengths[10] = {0, 0, 0, 0, (int)spec->inputs_len, 0, 0, 0, 0, 0};
    int formats[10] = {0, 0, 0, 0, 1, 0, 0, 0, 0, 0};
    PGresult *res;
    st = zkp_queue_exec(q, "enqueue", enqueue_sql_[!q->poll], 10, values, lengths, formats, 1,
                        &res, d);
    if (st != ZKPIPE_OK) return st;
    if (PQntuples(res) == 0) {
        PQclear(res);
        *existed = 1;
        const char *v1[1] = {spec->request_id};
        st = zkp_queue_exec(q, "enqueue", "SELECT id FROM zkpipe_jobs WHERE request_id = $1", 1,
                            v1, NULL, NULL, 1, &res, d);
        if (st != ZKPIPE_OK) return st;
    }
    int ok = PQntuples(res) == 1 && zkp_queue_get_int(res, 0, 0, job_id) == 0;
    PQclear(res);
    return ok ? ZKPIPE_OK : zkp_diag_fail(d, ZKPIPE_ERR_PARSE, "queue: enqueue returned no id");
}

/* A filter list as an array literal, {"a","b"}; NULL for none. */
static zkpipe_status array_literal_(const char *what, const char *const *names, size_t n,
                                    char *buf, size_t cap, const char **out, zkp_diag *d) {
    *out = NULL;
    if (!names) return ZKPIPE_OK;
    size_t at = 0;
    buf[at++] = '{';
    for (size_t i = 0; i < n; i++) {
        const char *s = names[i];
        if (!name_chars_ok_(s))
            return zkp_diag_fail(d, ZKPIPE_ERR_INVALID_ARGUMENT,
                                 "queue: a %s name must be 1 to 64 characters of A-Z a-z 0-9 . _ -",
                                 what);
        size_t len = strlen(s);
        if (at + len + 4 > cap)
            return zkp_diag_fail(d, ZKPIPE_ERR_OUT_OF_RANGE, "queue: too many %s names", what);
        if (i) buf[at++] = ',';
        buf[at++] = '"';
        memcpy(buf + at, s, len);
        at += len;
        buf[at++] = '"';
    }
    buf[at++] = '}';
    buf[at] = 0;
    *out = buf;
    return ZKPIPE_OK;
}

/* The claim: one statement, so a claim is all or nothing. The inner
 * SELECT locks the first row in claim order that no other transaction has
 * locked (SKIP LOCKED: concurrent claimers pass over each other's rows
 * instead of waiting), and the UPDATE takes it. */
static const char claim_sql_[] =
    "UPDATE zkpipe_jobs SET state = 'leased', lease_owner = $1,"
    " lease_generation = lease_generation + 1, attempts = attempts + 1,"
    " lease_expires_at = now() + $2::bigint * interval '1 millisecond', claimed_at = now()"
    " WHERE id = (SELECT id FROM zkpipe_jobs WHERE state = 'queued'"
    "   AND ($3::text[] IS NULL OR kind = ANY ($3::text[]))"
    "   AND ($4::text[] IS NULL OR curve = ANY ($4::text[]))"
    "   AND ($5::text[] IS NULL OR key IS NULL OR key = ANY ($5::text[]))"
    "   AND ($7::bigint = 0 OR cost_bytes <= $7::bigint)"
    "   AND ($8::bigint = 0 OR vram_bytes <= $8::bigint)"
    "   ORDER BY priority DESC, coalesce(key = ANY ($6::text[]), false) DESC, created_at, id"
    "   LIMIT 1 FOR UPDATE SKIP LOCKED)"
    " AND state = 'queued'"
    " RETURNING id, lease_generation, attempts, priority, request_id, kind, curve, inputs,"
    " inputs_path, key, cost_bytes, vram_bytes";

zkpipe_status zkp_queue_claim_next(zkp_queue *q, const char *member, uint32_t lease_ms,
                                   const zkp_queue_filter *filter, zkp_queue_claim *out,
                                   int *claimed, zkp_diag *d) {
    memset(out, 0, sizeof *out);
    *claimed = 0;
    zkpipe_status st = check_name_("member", member, d);
    if (st != ZKPIPE_OK) return st;
    char kinds_buf[1024], curves_buf[1024], keys_buf[8192], hot_buf[8192];
    const char *kinds = NULL, *curves = NULL, *keys = NULL, *hot = NULL;
    char max_cost[24] = "0", max_vram[24] = "0";
    if (filter) {
        st = array_literal_("kind", filter->kinds, filter->n_kinds, kinds_buf, sizeof kinds_buf,
                            &kinds, d);
        if (st == ZKPIPE_OK)
            st = array_literal_("curve", filter->curves, filter->n_curves, curves_buf,
                                sizeof curves_buf, &curves, d);
        if (st == ZKPIPE_OK)
            st = array_literal_("key", filter->keys, filter->n_keys, keys_buf, sizeof keys_buf,
                                &keys, d);
        if (st == ZKPIPE_OK)
            st = array_literal_("key", filter->hot_keys, filter->n_hot_keys, hot_buf,
                                sizeof hot_buf, &hot, d);
        if (st != ZKPIPE_OK) return st;
        if (filter->max_cost_bytes > (uint64_t)INT64_MAX ||
            filter->max_vram_bytes > (uint64_t)INT64_MAX)
            return zkp_diag_fail(d, ZKPIPE_ERR_OUT_OF_RANGE,
                                 "queue: max_cost_bytes or max_vram_bytes too large");
        snprintf(max_cost, sizeof max_cost, "%llu", (unsigned long long)filter->max_cost_bytes);
        snprintf(max_vram, sizeof max_vram, "%llu", (unsigned long long)filter->max_vram_bytes);
    }
    char ms[16];
    snprintf(ms, sizeof ms, "%u", lease_ms);
    const char *values[8] = {member, ms, kinds, curves, keys, hot, max_cost, max_vram};
    PGresult *res;
    st = zkp_queue_exec(q, "claim", claim_sql_, 8, values, NULL, NULL, 1, &res, d);
    if (st != ZKPIPE_OK) return st;
    if (PQntuples(res) == 0) {
        PQclear(res);
        return ZKPIPE_OK;
    }
    int64_t attempts = 0, priority = 0, cost = 0, vram = 0;
    int bad = PQntuples(res) != 1 || zkp_queue_get_int(res, 0, 0, &out->id) ||
              zkp_queue_get_int(res, 0, 1, &out->generation) ||
              zkp_queue_get_int(res, 0, 2, &attempts) || zkp_queue_get_int(res, 0, 3, &priority) ||
              attempts < 1 || attempts > UINT32_MAX || priority < INT32_MIN ||
              priority > INT32_MAX ||
              zkp_queue_get_text(res, 0, 4, out->request_id, sizeof out->request_id) ||
              zkp_queue_get_text(res, 0, 5, out->kind, sizeof out->kind) ||
              zkp_queue_get_text(res, 0, 6, out->curve, sizeof out->curve) ||
              zkp_queue_get_text(res, 0, 9, out->key, sizeof out->key) ||
              zkp_queue_get_int(res, 0, 10, &cost) || cost < 0 ||
              zkp_queue_get_int(res, 0, 11, &vram) || vram < 0;
    if (!bad && !PQgetisnull(res, 0, 7)) {
        size_t len = (size_t)PQgetlength(res, 0, 7);
        out->inputs = malloc(len ? len : 1);
        if (!out->inputs) {
            PQclear(res);
            return zkp_diag_fail(d, ZKPIPE_ERR_NO_MEMORY, "queue: %zu bytes of inputs", len);
        }
        memcpy(out->inputs, PQgetvalue(res, 0, 7), len);
        out->inputs_len = len;
    } else if (!bad && !PQgetisnull(res, 0, 8)) {
        size_t len = (size_t)PQgetlength(res, 0, 8);
        out->inputs_path = malloc(len + 1);
        if (!out->inputs_path) {
            PQclear(res);
            return zkp_diag_fail(d, ZKPIPE_ERR_NO_MEMORY, "queue: out of memory");
        }
        memcpy(out->inputs_path, PQgetvalue(res, 0, 8), len);
        out->inputs_path[len] = 0;
    } else {
        bad = 1;
    }
    PQclear(res);
    if (bad) {
        zkp_queue_claim_release(out);
        return zkp_diag_fail(d, ZKPIPE_ERR_PARSE, "queue: a claimed job's row is malformed");
    }
    out->attempts = (uint32_t)attempts;
    out->priority = (int32_t)priority;
    out->cost_bytes = (uint64_t)cost;
    out->vram_bytes = (uint64_t)vram;
    *claimed = 1;
    return ZKPIPE_OK;
}

void zkp_queue_claim_release(zkp_queue_claim *c) {
    free(c->inputs);
    free(c->inputs_path);
    c->inputs = NULL;
    c->inputs_path = NULL;
    c->inputs_len = 0;
}

/* Every right-hand side reads the row as it was before the update, so
 * last_error names the owner whose lease expired. A job failed here wakes
 * its waiters in the same statement (the notifying variant, as enqueue_sql_). */
#define REAP_                                                                                      \
    "WITH reaped AS (UPDATE zkpipe_jobs SET"                                                       \
    " state = CASE WHEN attempts >= max_attempts THEN 'failed' ELSE 'queued' END,"                 \
    " last_error = 'the lease of ' || lease_owner || ' expired (attempt '"                         \
    "   || CAST(attempts AS text) || ' of ' || CAST(max_attempts AS text) || ')',"                 \
    " finished_at = CASE WHEN attempts >= max_attempts THEN now() END,"                            \
    " lease_owner = NULL, lease_expires_at = NULL"                                                 \
    " WHERE state = 'leased' AND lease_expires_at < now()"                                         \
    " RETURNING id, state)"
static const char *const reap_sql_[2] = {
    REAP_ " SELECT state FROM reaped",
    REAP_ " SELECT state, CASE WHEN state = 'failed' THEN pg_notify('" ZKP_QUEUE_NOTIFY_CHANNEL
          "', CAST(id AS text)) ELSE pg_notify('" ZKP_QUEUE_QUEUED_CHANNEL
          "', CAST(id AS text)) END FROM reaped"};

zkpipe_status zkp_queue_reap(zkp_queue *q, unsigned *requeued, unsigned *failed, zkp_diag *d) {
    *requeued = 0;
    *failed = 0;
    PGresult *res;
    zkpipe_status st = zkp_queue_exec(q, "reaping expired leases", reap_sql_[!q->poll], 0, NULL,
                                      NULL, NULL, 0, &res, d);
    if (st != ZKPIPE_OK) return st;
    int n = PQntuples(res);
    for (int i = 0; i < n; i++) {
        if (!strcmp(PQgetvalue(res, i, 0), "failed"))
            (*failed)++;
        else
            (*requeued)++;
    }
    PQclear(res);
    return ZKPIPE_OK;
}

/* A fenced write: one statement, the UPDATE ... WHERE lease_generation =
 * gen ... RETURNING id in update_sql and the NOTIFY of the row it changed
 * (none when refused), so the write and its wake-up commit together and a
 * waiter is woken only after the state it will read is there. A polling
 * connection runs update_sql alone: the same fencing, and the row it
 * returns (none when refused) says the same. */
static zkpipe_status fenced_write_(zkp_queue *q, const char *what, const char *update_sql,
                                   int n, const char *const *values, const int *lengths,
                                   const int *formats, int *accepted, zkp_diag *d) {
    *accepted = 0;
    char sql[1024];
    int len = snprintf(sql, sizeof sql,
                       q->poll ? "%s"
                               : "WITH written AS (%s) SELECT pg_notify('" ZKP_QUEUE_NOTIFY_CHANNEL
                                 "', CAST(id AS text)) FROM written",
                       update_sql);
    if (len < 0 || (size_t)len >= sizeof sql)
        return zkp_diag_fail(d, ZKPIPE_ERR_OUT_OF_RANGE, "queue: %s: statement too long", what);
    PGresult *res;
    zkpipe_status st = zkp_queue_exec(q, what, sql, n, values, lengths, formats, 0, &res, d);
    if (st != ZKPIPE_OK) return st;
    *accepted = PQntuples(res) == 1;
    PQclear(res);
    return ZKPIPE_OK;
}

zkpipe_status zkp_queue_complete(zkp_queue *q, int64_t id, int64_t gen, const uint8_t *result,
                                 size_t result_len, int *accepted, zkp_diag *d) {
    *accepted = 0;
    if (!result || result_len == 0 || result_len > ZKP_QUEUE_RESULT_MAX)
        return zkp_diag_fail(d, ZKPIPE_ERR_OUT_OF_RANGE,
                             "queue: a result of %zu bytes (1 to %zu)", result_len,
                             ZKP_QUEUE_RESULT_MAX);
    char ids[24], gens[24];
    snprintf(ids, sizeof ids, "%lld", (long long)id);
    snprintf(gens, sizeof gens, "%lld", (long long)gen);
    const char *values[3] = {ids, gens, (const char *)result};
    int lengths[3] = {0, 0, (int)result_len};
    int formats[3] = {0, 0, 1};
    return fenced_write_(q, "writing a result",
                         "UPDATE zkpipe_jobs SET state = 'done', result = $3::bytea,"
                         " finished_at = now(), lease_owner = NULL, lease_expires_at = NULL"
                         " WHERE id = $1::bigint AND lease_generation = $2::bigint"
                         " AND state = 'leased' RETURNING id",
                         3, values, lengths, formats, accepted, d);
}

zkpipe_status zkp_queue_fail(zkp_queue *q, int64_t id, int64_t gen, const char *error, int retry,
                             int *accepted, zkp_diag *d) {
    char ids[24], gens[24];
    snprintf(ids, sizeof ids, "%lld", (long long)id);
    snprintf(gens, sizeof gens, "%lld", (long long)gen);
    char err[ZKP_DIAG_MAX];
    snprintf(err, sizeof err, "%s", error && *error ? error : "failed");
    const char *values[4] = {ids, gens, err, retry ? "t" : "f"};
    return fenced_write_(
        q, "recording a failure",
        "UPDATE zkpipe_jobs SET last_error = $3,"
        " state = CASE WHEN $4::boolean AND attempts < max_attempts THEN 'queued' ELSE 'failed'"
        " END,"
        " finished_at = CASE WHEN $4::boolean AND attempts < max_attempts THEN NULL ELSE now()"
        " END,"
        " lease_owner = NULL, lease_expires_at = NULL"
        " WHERE id = $1::bigint AND lease_generation = $2::bigint AND state = 'leased'"
        " RETURNING id",
        4, values, NULL, NULL, accepted, d);
}

zkpipe_status zkp_queue_cancel(zkp_queue *q, int64_t id, int *cancelled, zkp_diag *d) {
    *cancelled = 0;
    char ids[24];
    snprintf(ids, sizeof ids, "%lld", (long long)id);
    const char *values[1] = {ids};
    zkpipe_status st = fenced_write_(
        q, "cancelling",
        "UPDATE zkpipe_jobs SET state = 'cancelled', last_error = 'cancelled',"
        " finished_at = now(), lease_owner = NULL, lease_expires_at = NULL"
        " WHERE id = $1::bigint AND state IN ('queued', 'leased') RETURNING id",
        1, values, NULL, NULL, cancelled, d);
    if (st != ZKPIPE_OK || *cancelled) return st;
    /* Nothing changed: a final job, or none at all. */
    zkp_queue_job_info info;
    st = zkp_queue_job_get(q, id, &info, d);
    zkp_queue_job_info_release(&info);
    return st;
}

static const char *const state_names_[] = {"queued", "leased", "done", "failed", "cancelled"};

zkpipe_status zkp_queue_job_get(zkp_queue *q, int64_t id, zkp_queue_job_info *out, zkp_diag *d) {
    memset(out, 0, sizeof *out);
    char ids[24];
    snprintf(ids, sizeof ids, "%lld", (long long)id);
    const char *values[1] = {ids};
    PGresult *res;
    zkpipe_status st = zkp_queue_exec(
        q, "reading a job",
        "SELECT state, attempts, lease_generation, lease_owner, last_error, result, kind, key,"
        " priority FROM zkpipe_jobs WHERE id = $1::bigint",
        1, values, NULL, NULL, 1, &res, d);
    if (st != ZKPIPE_OK) return st;
    if (PQntuples(res) != 1) {
        PQclear(res);
        return zkp_diag_fail(d, ZKPIPE_ERR_OUT_OF_RANGE, "queue: no job %lld", (long long)id);
    }
    char state[16];
    int64_t attempts = 0, priority = 0;
    int bad = zkp_queue_get_text(res, 0, 6, out->kind, sizeof out->kind) ||
              zkp_queue_get_text(res, 0, 7, out->key, sizeof out->key) ||
              zkp_queue_get_int(res, 0, 8, &priority) || priority < INT32_MIN ||
              priority > INT32_MAX || zkp_queue_get_text(res, 0, 0, state, sizeof state) ||
              zkp_queue_get_int(res, 0, 1, &attempts) || attempts < 0 ||
              attempts > UINT32_MAX || zkp_queue_get_int(res, 0, 2, &out->generation) ||
              zkp_queue_get_text(res, 0, 3, out->lease_owner, sizeof out->lease_owner);
    if (!bad) {
        /* An error longer than the buffer is cut, not refused. */
        size_t len = PQgetisnull(res, 0, 4) ? 0 : (size_t)PQgetlength(res, 0, 4);
        if (len >= sizeof out->last_error) len = sizeof out->last_error - 1;
        memcpy(out->last_error, PQgetvalue(res, 0, 4), len);
        out->last_error[len] = 0;
        size_t s;
        for (s = 0; s < 5 && strcmp(state, state_names_[s]); s++) {
        }
        bad = s == 5;
        out->state = (zkp_queue_state)s;
    }
    if (!bad && !PQgetisnull(res, 0, 5)) {
        size_t len = (size_t)PQgetlength(res, 0, 5);
        if (len > ZKP_QUEUE_RESULT_MAX) {
            bad = 1;
        } else {
            out->result = malloc(len ? len : 1);
            if (!out->result) {
                PQclear(res);
                return zkp_diag_fail(d, ZKPIPE_ERR_NO_MEMORY, "queue: out of memory");
            }
            memcpy(out->result, PQgetvalue(res, 0, 5), len);
            out->result_len = len;
        }
    }
    PQclear(res);
    if (bad) {
        zkp_queue_job_info_release(out);
        return zkp_diag_fail(d, ZKPIPE_ERR_PARSE, "queue: job %lld's row is malformed",
                             (long long)id);
    }
    out->attempts = (uint32_t)attempts;
    out->priority = (int32_t)priority;
    return ZKPIPE_OK;
}

void zkp_queue_job_info_release(zkp_queue_job_info *info) {
    free(info->result);
    info->result = NULL;
    info->result_len = 0;
}

static int is_final_(zkp_queue_state s) {
    return s == ZKP_QUEUE_DONE || s == ZKP_QUEUE_FAILED || s == ZKP_QUEUE_CANCELLED;
}

static int64_t now_ms_(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* zkp_queue_wait without notifications: the job's row is read every poll
 * interval (and once more at the timeout, so out holds the state then). */
static zkpipe_status wait_polling_(zkp_queue *q, int64_t id, int64_t timeout_ms,
                                   zkp_queue_job_info *out, int *final, zkp_diag *d) {
    int64_t deadline = now_ms_() + (timeout_ms > 0 ? timeout_ms : 0);
    for (;;) {
        zkpipe_status st = zkp_queue_job_get(q, id, out, d);
        if (st != ZKPIPE_OK) return st;
        if (is_final_(out->state)) {
            *final = 1;
            return ZKPIPE_OK;
        }
        int64_t left = deadline - now_ms_();
        if (left <= 0) return ZKPIPE_OK;
        sleep_us_(1000 * (left < (int64_t)q->poll_ms ? left : (int64_t)q->poll_ms));
        zkp_queue_job_info_release(out);
    }
}

zkpipe_status zkp_queue_wait(zkp_queue *q, int64_t id, int64_t timeout_ms,
                             zkp_queue_job_info *out, int *final, zkp_diag *d) {
    memset(out, 0, sizeof *out);
    *final = 0;
    if (q->poll) return wait_polling_(q, id, timeout_ms, out, final, d);
    zkpipe_status st;
    if (!q->listening) {
        st = zkp_queue_simple(q, "LISTEN", "LISTEN " ZKP_QUEUE_NOTIFY_CHANNEL, d);
        if (st != ZKPIPE_OK) return st;
        q->listening = 1;
    }
    char want[24];
    snprintf(want, sizeof want, "%lld", (long long)id);
    int64_t deadline = now_ms_() + (timeout_ms > 0 ? timeout_ms : 0);
    for (;;) {
        st = zkp_queue_job_get(q, id, out, d);
        if (st != ZKPIPE_OK) return st;
        if (is_final_(out->state)) {
            *final = 1;
            return ZKPIPE_OK;
        }
        /* Sleep on the socket until a notification names this job. */
        int woken = 0;
        while (!woken) {
            PGnotify *n;
            while ((n = PQnotifies(q->conn)) != NULL) {
                woken |= !strcmp(n->extra, want);
                PQfreemem(n);
            }
            if (woken) break;
            int64_t left = deadline - now_ms_();
            if (left <= 0) return ZKPIPE_OK;
            struct pollfd p = {.fd = PQsocket(q->conn), .events = POLLIN};
            if (p.fd < 0)
                return zkp_diag_fail(d, ZKPIPE_ERR_IO, "database: the connection is closed");
            int r = poll(&p, 1, left > 60000 ? 60000 : (int)left);
            if (r < 0 && errno != EINTR)
                return zkp_diag_fail(d, ZKPIPE_ERR_IO, "database: poll: %s", strerror(errno));
            if (r > 0 && !PQconsumeInput(q->conn)) {
                char flat[ZKP_DIAG_MAX];
                flatten_(flat, sizeof flat, zkp_queue_pq_message(q->conn));
                return zkp_diag_fail(d, ZKPIPE_ERR_IO, "database: waiting: %s", flat);
            }
        }
        zkp_queue_job_info_release(out);
    }
}

zkpipe_status zkp_queue_notifications(zkp_queue *q, int64_t timeout_ms, int wake_fd, int64_t *ids,
                                      size_t cap, size_t *n, int *queued, zkp_diag *d) {
    *n = 0;
    *queued = 0;
    if (q->poll)
        return zkp_diag_fail(d, ZKPIPE_ERR_UNSUPPORTED,
                             "queue: a polling connection has no notifications to wait for");
    if (!q->listening) {
        zkpipe_status st = zkp_queue_simple(q, "LISTEN", "LISTEN " ZKP_QUEUE_NOTIFY_CHANNEL, d);
        if (st != ZKPIPE_OK) return st;
        q->listening = 1;
    }
    if (!q->listening_queued) {
        zkpipe_status st = zkp_queue_simple(q, "LISTEN", "LISTEN " ZKP_QUEUE_QUEUED_CHANNEL, d);
        if (st != ZKPIPE_OK) return st;
        q->listening_queued = 1;
    }
    int64_t deadline = now_ms_() + (timeout_ms > 0 ? timeout_ms : 0);
    for (;;) {
        PGnotify *note;
        while ((note = PQnotifies(q->conn)) != NULL) {
            if (!strcmp(note->relname, ZKP_QUEUE_QUEUED_CHANNEL)) {
                *queued = 1;
                PQfreemem(note);
                continue;
            }
            char *end = NULL;
            errno = 0;
            long long id = strtoll(note->extra, &end, 10);
            if (errno == 0 && end != note->extra && *end == 0 && id > 0 && *n < cap)
                ids[(*n)++] = (int64_t)id;
            PQfreemem(note);
        }
        if (*n || *queued) return ZKPIPE_OK;
        int64_t left = deadline - now_ms_();
        if (left <= 0) return ZKPIPE_OK;
        struct pollfd p[2] = {{.fd = PQsocket(q->conn), .events = POLLIN},
                              {.fd = wake_fd, .events = POLLIN}};
        if (p[0].fd < 0)
            return zkp_diag_fail(d, ZKPIPE_ERR_IO, "database: the connection is closed");
        int r = poll(p, wake_fd >= 0 ? 2 : 1, left > 60000 ? 60000 : (int)left);
        if (r < 0 && errno != EINTR)
            return zkp_diag_fail(d, ZKPIPE_ERR_IO, "database: poll: %s", strerror(errno));
        if (r > 0 && wake_fd >= 0 && (p[1].revents & POLLIN)) return ZKPIPE_OK;
        if (r > 0 && !PQconsumeInput(q->conn)) {
            char flat[ZKP_DIAG_MAX];
            flatten_(flat, sizeof flat, zkp_queue_pq_message(q->conn));
            return zkp_diag_fail(d, ZKPIPE_ERR_IO, "database: listening: %s", flat);
        }
    }
}

zkpipe_status zkp_queue_settled(zkp_queue *q, const int64_t *ids, size_t n, int64_t *out,
                                size_t *n_out, zkp_diag *d) {
    *n_out = 0;
    if (n == 0) return ZKPIPE_OK;
    /* An array literal, {1,2,...}: 20 characters and a comma at most each. */
    if (n > ((size_t)1 << 24))
        return zkp_diag_fail(d, ZKPIPE_ERR_OUT_OF_RANGE, "queue: %zu jobs at once", n);
    size_t cap = n * 21 + 3, at = 0;
    char *arr = malloc(cap);
    if (!arr) return zkp_diag_fail(d, ZKPIPE_ERR_NO_MEMORY, "queue: out of memory");
    arr[at++] = '{';
    for (size_t i = 0; i < n; i++)
        at += (size_t)snprintf(arr + at, cap - at, "%s%lld", i ? "," : "", (long long)ids[i]);
    arr[at++] = '}';
    arr[at] = 0;
    const char *values[1] = {arr};
    PGresult *res;
    zkpipe_status st = zkp_queue_exec(
        q, "reading jobs' states",
        "SELECT u.id FROM unnest($1::bigint[]) AS u(id) WHERE NOT EXISTS (SELECT 1 FROM"
        " zkpipe_jobs j WHERE j.id = u.id AND j.state IN ('queued', 'leased'))",
        1, values, NULL, NULL, 1, &res, d);
    free(arr);
    if (st != ZKPIPE_OK) return st;
    int rows = PQntuples(res);
    for (int i = 0; i < rows; i++) {
        int64_t v;
        if ((size_t)i >= n || zkp_queue_get_int(res, i, 0, &v) != 0) {
            PQclear(res);
            *n_out = 0;
            return zkp_diag_fail(d, ZKPIPE_ERR_PARSE, "queue: jobs' states came back malformed");
        }
        out[(*n_out)++] = v;
    }
    PQclear(res);
    return ZKPIPE_OK;
}

zkpipe_status zkp_queue_depth(zkp_queue *q, uint64_t *depth, size_t n, zkp_diag *d) {
    memset(depth, 0, n * sizeof *depth);
    PGresult *res;
    zkpipe_status st = zkp_queue_exec(q, "depth",
                                      "SELECT priority, count(*) FROM zkpipe_jobs"
                                      " WHERE state = 'queued' GROUP BY priority",
                                      0, NULL, NULL, NULL, 1, &res, d);
    if (st != ZKPIPE_OK) return st;
    for (int i = 0; i < PQntuples(res); i++) {
        int64_t prio, count;
        if (zkp_queue_get_int(res, i, 0, &prio) || zkp_queue_get_int(res, i, 1, &count) ||
            count < 0) {
            PQclear(res);
            return zkp_diag_fail(d, ZKPIPE_ERR_PARSE, "queue: the depth's row is malformed");
        }
        if (prio >= 0 && (uint64_t)prio < n) depth[prio] = (uint64_t)count;
    }
    PQclear(res);
    return ZKPIPE_OK;
}
