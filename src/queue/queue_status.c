/* `zkpipe queue status`: the cluster as the database sees it. Read-only,
 * one statement per section, each a consistent snapshot of its own. */
#include <libpq-fe.h>

#include "queue/queue_internal.h"

/* Runs sql (no parameters, text results) and prints its row count, then
 * the header and each row, columns separated by spaces, NULL as "-". */
static zkpipe_status section_(zkp_queue *q, FILE *out, const char *title, const char *header,
                              const char *sql, zkp_diag *d) {
    PGresult *res;
    zkpipe_status st = zkp_queue_exec(q, title, sql, 0, NULL, NULL, NULL, 0, &res, d);
    if (st != ZKPIPE_OK) return st;
    int rows = PQntuples(res), cols = PQnfields(res);
    fprintf(out, "%s: %d\n", title, rows);
    if (rows > 0) fprintf(out, "  %s\n", header);
    for (int r = 0; r < rows; r++) {
        fputs(" ", out);
        for (int c = 0; c < cols; c++)
            fprintf(out, " %s", PQgetisnull(res, r, c) ? "-" : PQgetvalue(res, r, c));
        fputc('\n', out);
    }
    PQclear(res);
    return ZKPIPE_OK;
}

zkpipe_status zkp_queue_status_write(zkp_queue *q, FILE *out, unsigned failed_limit, zkp_diag *d) {
    unsigned version;
    zkpipe_status st = zkp_queue_schema_version(q, &version, d);
    if (st != ZKPIPE_OK) return st;
    fprintf(out, "schema: version %u (this zkpipe knows up to %u)\n", version,
            zkp_queue_schema_latest());
    if (version == 0) {
        fputs("no tables yet: run zkpipe queue migrate\n", out);
        return ZKPIPE_OK;
    }
    st = section_(q, out, "members", "id host heartbeat_age_s leases",
                  "SELECT m.id, m.host,"
                  " CAST(round(CAST(extract(epoch FROM now() - m.heartbeat_at) AS numeric), 1)"
                  " AS text),"
                  " CAST((SELECT count(*) FROM zkpipe_jobs j WHERE j.state = 'leased'"
                  "   AND j.lease_owner = m.id) AS text)"
                  " FROM zkpipe_members m ORDER BY m.heartbeat_at DESC, m.id",
                  d);
    if (st == ZKPIPE_OK)
        st = section_(q, out, "leases",
                      "job request_id owner generation attempt expires_in_s",
                      "SELECT CAST(id AS text), request_id, lease_owner,"
                      " CAST(lease_generation AS text), CAST(attempts AS text),"
                      " CAST(round(CAST(extract(epoch FROM lease_expires_at - now()) AS numeric),"
                      " 1) AS text)"
                      " FROM zkpipe_jobs WHERE state = 'leased' ORDER BY lease_expires_at, id",
                      d);
    if (st == ZKPIPE_OK)
        st = section_(q, out, "queued, by priority", "priority jobs oldest_age_s",
                      "SELECT CAST(priority AS text), CAST(count(*) AS text),"
                      " CAST(round(CAST(extract(epoch FROM now() - min(created_at)) AS numeric),"
                      " 1) AS text)"
                      " FROM zkpipe_jobs WHERE state = 'queued'"
                      " GROUP BY priority ORDER BY priority DESC",
                      d);
    if (st == ZKPIPE_OK)
        st = section_(q, out, "totals", "state jobs",
                      "SELECT state, CAST(count(*) AS text) FROM zkpipe_jobs GROUP BY state"
                      " ORDER BY state",
                      d);
    if (st == ZKPIPE_OK) {
        char sql[512];
        snprintf(sql, sizeof sql,
                 "SELECT CAST(id AS text), request_id, CAST(attempts AS text),"
                 " coalesce(last_error, '-') FROM zkpipe_jobs WHERE state = 'failed'"
                 " ORDER BY finished_at DESC, id DESC LIMIT %u",
                 failed_limit);
        st = section_(q, out, "failed (newest first)", "job request_id attempts last_error", sql,
                      d);
    }
    return st;
}
