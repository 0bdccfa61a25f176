/* What the queue's files share: the connection and the statement helpers. */
#ifndef ZKP_QUEUE_QUEUE_INTERNAL_H
#define ZKP_QUEUE_QUEUE_INTERNAL_H

#include <libpq-fe.h>
#include <stdatomic.h>
#include <stdint.h>

#include "queue/queue.h"

struct zkp_queue {
    PGconn *conn;
    int listening; /* LISTEN zkpipe_job_done was issued (zkp_queue_wait) */
    int listening_queued; /* LISTEN zkpipe_job_queued (zkp_queue_notifications) */
    uint64_t retries;     /* statements run again after a serialization failure */
    _Atomic uint64_t *retries_sink; /* zkp_queue_count_retries_into; NULL: none */
    uint64_t jitter;      /* the retries' backoff jitter */
    int poll;             /* zkp_queue_options.poll: no pg_notify, no LISTEN */
    uint32_t poll_ms;     /* how long a polling wait sleeps between reads */
};

const char *zkp_queue_pq_message(const PGconn *conn);
void zkp_queue_quiet_notice(void *arg, const char *message);

/* The most times a statement is run again after a serialization failure
 * or a deadlock (SQLSTATE 40001, 40P01) when it was its own transaction. */
#define ZKP_QUEUE_RETRIES 5

/* One statement with parameters ($1..$n; formats[i] = 1 for binary, NULL
 * for all text), results in binary when binary_result. On success *res_out
 * holds the result (PQclear it); on failure d names what and why. Both
 * this and zkp_queue_simple retry as ZKP_QUEUE_RETRIES says. */
zkpipe_status zkp_queue_exec(zkp_queue *q, const char *what, const char *sql, int n_params,
                             const char *const *values, const int *lengths, const int *formats,
                             int binary_result, PGresult **res_out, zkp_diag *d);
/* A statement without parameters or result rows worth reading (may hold
 * several statements: the simple query protocol). */
zkpipe_status zkp_queue_simple(zkp_queue *q, const char *what, const char *sql, zkp_diag *d);

/* Binary-result readers: 0 on success, -1 for NULL, a bad width or text
 * that does not fit. */
int zkp_queue_get_int(const PGresult *res, int row, int col, int64_t *out);
int zkp_queue_get_text(const PGresult *res, int row, int col, char *buf, size_t cap);

#endif
