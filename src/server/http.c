/* The HTTP endpoint for /metrics and /status (see metrics.h), on
 * libmicrohttpd's own polling thread. */
#include <arpa/inet.h>
#include <errno.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "server/metrics.h"

/* Scrapers hold one connection each; a handful is plenty, and a bound keeps
 * a misbehaving client from taking file descriptors the gRPC side needs. */
#define HTTP_CONNECTION_LIMIT 64
#define HTTP_CONNECTION_TIMEOUT_S 30

struct zkp_http {
    struct MHD_Daemon *daemon;
    zkp_metrics *metrics;
    zkp_metrics_source source;
    void *source_ctx;
    unsigned port;
    /* The library's messages: kept for zkp_http_start's diagnostic while
     * starting, written to stderr once running (they come from the
     * daemon's thread, hence the lock). */
    pthread_mutex_t log_mu;
    int running;
    char last_log[256];
};

static void log_cb(void *cls, const char *fmt, va_list ap) {
    zkp_http *h = cls;
    char msg[256];
    vsnprintf(msg, sizeof msg, fmt, ap);
    size_t n = strlen(msg);
    while (n && (msg[n - 1] == '\n' || msg[n - 1] == '\r')) msg[--n] = '\0';
    pthread_mutex_lock(&h->log_mu);
    memcpy(h->last_log, msg, n + 1);
    int running = h->running;
    pthread_mutex_unlock(&h->log_mu);
    if (running) fprintf(stderr, "zkpipe: metrics http: %s\n", msg);
}

static enum MHD_Result reply_text(struct MHD_Connection *conn, unsigned code, const char *text,
                                  const char *allow) {
    struct MHD_Response *resp =
        MHD_create_response_from_buffer(strlen(text), (void *)text, MHD_RESPMEM_PERSISTENT);
    if (!resp) return MHD_NO;
    MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, "text/plain; charset=utf-8");
    if (allow) MHD_add_response_header(resp, MHD_HTTP_HEADER_ALLOW, allow);
    enum MHD_Result ret = MHD_queue_response(conn, code, resp);
    MHD_destroy_response(resp);
    return ret;
}

static enum MHD_Result answer(void *cls, struct MHD_Connection *conn, const char *url,
                              const char *method, const char *version, const char *upload_data,
                              size_t *upload_data_size, void **con_cls) {
    zkp_http *h = cls;
    (void)version;
    (void)upload_data;
    /* The first call only announces the request. Answering on a later one
     * lets the library read a request body first (dropped here: no route
     * takes one), so the connection stays in a clean state. */
    if (*con_cls == NULL) {
        *con_cls = h;
        return MHD_YES;
    }
    if (*upload_data_size) {
        *upload_data_size = 0;
        return MHD_YES;
    }

    int want_metrics = strcmp(url, "/metrics") == 0;
    if (!want_metrics && strcmp(url, "/status") != 0)
        return reply_text(conn, MHD_HTTP_NOT_FOUND, "not found\n", NULL);
    /* HEAD as well: HTTP asks every server to take it wherever GET goes,
     * and the library leaves out the body by itself. */
    if (strcmp(method, MHD_HTTP_METHOD_GET) != 0 && strcmp(method, MHD_HTTP_METHOD_HEAD) != 0)
        return reply_text(conn, MHD_HTTP_METHOD_NOT_ALLOWED, "method not allowed\n", "GET, HEAD");

    /* A few KiB: on the heap rather than the library thread's stack. */
    zkpipe_engine_status *st = calloc(1, sizeof *st);
    if (!st) return reply_text(conn, MHD_HTTP_INTERNAL_SERVER_ERROR, "out of memory\n", NULL);
    zkp_server_view view;
    memset(&view, 0, sizeof view);
    if (h->source && h->source(h->source_ctx, st, &view) != 0) {
        free(st);
        return reply_text(conn, MHD_HTTP_SERVICE_UNAVAILABLE, "status unavailable\n", NULL);
    }
    char *body = want_metrics ? zkp_metrics_prometheus(h->metrics, st, &view)
                              : zkp_metrics_status_json(h->metrics, st, &view);
    free(st);
    if (!body) return reply_text(conn, MHD_HTTP_INTERNAL_SERVER_ERROR, "out of memory\n", NULL);

    struct MHD_Response *resp =
        MHD_create_response_from_buffer(strlen(body), body, MHD_RESPMEM_MUST_FREE);
    if (!resp) {
        free(body);
        return MHD_NO;
    }
    MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE,
                            want_metrics ? "text/plain; version=0.0.4; charset=utf-8"
                                         : "application/json");
    /* Every answer is a fresh snapshot. */
    MHD_add_response_header(resp, MHD_HTTP_HEADER_CACHE_CONTROL, "no-store");
    enum MHD_Result ret = MHD_queue_response(conn, MHD_HTTP_OK, resp);
    MHD_destroy_response(resp);
    return ret;
}

/* "host:port" or ":port"; host an IPv4 literal or "localhost". */
static zkpipe_status parse_listen(const char *listen, struct sockaddr_in *sa, zkp_diag *d) {
    memset(sa, 0, sizeof *sa);
    sa->sin_family = AF_INET;
    if (!listen || !*listen)
        return zkp_diag_fail(d, ZKPIPE_ERR_INVALID_ARGUMENT, "metrics http: empty listen address");
    const char *colon = strrchr(listen, ':');
    if (!colon)
        return zkp_diag_fail(d, ZKPIPE_ERR_INVALID_ARGUMENT,
                             "metrics http: listen address '%s': expected host:port or :port",
                             listen);
    const char *p = colon + 1;
    unsigned long port = 0;
    if (!*p) goto bad_port;
    for (; *p; p++) {
        if (*p < '0' || *p > '9') goto bad_port;
        port = port * 10 + (unsigned long)(*p - '0');
        if (port > 65535) goto bad_port;
    }
    sa->sin_port = htons((uint16_t)port);

    size_t host_len = (size_t)(colon - listen);
    char host[64];
    if (host_len >= sizeof host)
        return zkp_diag_fail(d, ZKPIPE_ERR_INVALID_ARGUMENT,
                             "metrics http: listen address '%s': host too long", listen);
    memcpy(host, listen, host_len);
    host[host_len] = '\0';
    if (host_len == 0) {
        sa->sin_addr.s_addr = htonl(INADDR_ANY);
    } else if (strcmp(host, "localhost") == 0) {
        sa->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    } else if (inet_pton(AF_INET, host, &sa->sin_addr) != 1) {
        return zkp_diag_fail(d, ZKPIPE_ERR_INVALID_ARGUMENT,
                             "metrics http: listen address '%s': host '%s' is not an IPv4 "
                             "address or localhost",
                             listen, host);
    }
    return ZKPIPE_OK;

bad_port:
    return zkp_diag_fail(d, ZKPIPE_ERR_INVALID_ARGUMENT,
                         "metrics http: listen address '%s': port must be a number 0..65535",
                         listen);
}

zkpipe_status zkp_http_start(zkp_http **out, const char *listen, zkp_metrics *m,
                             zkp_metrics_source source, void *source_ctx, zkp_diag *d) {
    if (!out || !m)
        return zkp_diag_fail(d, ZKPIPE_ERR_INVALID_ARGUMENT, "metrics http: no %s",
                             out ? "metrics" : "output");
    *out = NULL;
    struct sockaddr_in sa;
    zkpipe_status st = parse_listen(listen, &sa, d);
    if (st != ZKPIPE_OK) return st;

    zkp_http *h = calloc(1, sizeof *h);
    if (!h) return zkp_diag_fail(d, ZKPIPE_ERR_NO_MEMORY, "metrics http: out of memory");
    if (pthread_mutex_init(&h->log_mu, NULL) != 0) {
        free(h);
        return zkp_diag_fail(d, ZKPIPE_ERR_NO_MEMORY, "metrics http: cannot create a mutex");
    }
    h->metrics = m;
    h->source = source;
    h->source_ctx = source_ctx;

    /* MHD_USE_AUTO picks epoll or poll: select() would fail on descriptors
     * past FD_SETSIZE, which a busy daemon reaches. */
    errno = 0;
    h->daemon = MHD_start_daemon(
        MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_AUTO | MHD_USE_ERROR_LOG, ntohs(sa.sin_port),
        NULL, NULL, answer, h, MHD_OPTION_EXTERNAL_LOGGER, log_cb, h, MHD_OPTION_SOCK_ADDR,
        (struct sockaddr *)&sa, MHD_OPTION_CONNECTION_LIMIT, (unsigned)HTTP_CONNECTION_LIMIT,
        MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)HTTP_CONNECTION_TIMEOUT_S, MHD_OPTION_END);
    if (!h->daemon) {
        int err = errno;
        pthread_mutex_lock(&h->log_mu);
        st = zkp_diag_fail(d, ZKPIPE_ERR_IO, "metrics http: cannot listen on %s: %s", listen,
                           h->last_log[0] ? h->last_log : err ? strerror(err) : "unknown error");
        pthread_mutex_unlock(&h->log_mu);
        pthread_mutex_destroy(&h->log_mu);
        free(h);
        return st;
    }
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(h->daemon, MHD_DAEMON_INFO_BIND_PORT);
    h->port = info && info->port ? info->port : ntohs(sa.sin_port);
    pthread_mutex_lock(&h->log_mu);
    h->running = 1;
    pthread_mutex_unlock(&h->log_mu);
    *out = h;
    return ZKPIPE_OK;
}

unsigned zkp_http_port(const zkp_http *h) { return h ? h->port : 0; }

void zkp_http_stop(zkp_http **hp) {
    if (!hp || !*hp) return;
    zkp_http *h = *hp;
    MHD_stop_daemon(h->daemon);
    pthread_mutex_destroy(&h->log_mu);
    free(h);
    *hp = NULL;
}
