/* The daemon's metrics: counters and latency histograms the server feeds as
 * jobs end, rendered together with an engine status snapshot as Prometheus
 * text (GetMetrics, HTTP /metrics) or as one JSON document (zkpipe.v1
 * Status, HTTP /status).
 *
 * Recording takes one short mutex; rendering copies the counters under it
 * and formats outside it, so neither ever waits behind proving work. */
#ifndef ZKP_SERVER_METRICS_H
#define ZKP_SERVER_METRICS_H

#include <stddef.h>
#include <stdint.h>

#include "util/diag.h"
#include "zkpipe/engine.h"

typedef struct zkp_metrics zkp_metrics;

typedef enum {
    ZKP_OUTCOME_COMPLETED = 0,
    ZKP_OUTCOME_FAILED = 1,
    ZKP_OUTCOME_CANCELLED = 2,
} zkp_job_outcome;

/* NULL when out of memory. */
zkp_metrics *zkp_metrics_create(void);
void zkp_metrics_destroy(zkp_metrics *m);

/* One job reached its end. key: the key's name ("" for jobs that never had
 * one); kind: "circom", or a cuzk proof kind name ("porep_seal_commit", ...).
 * times may be NULL (a job that failed before it reached the engine);
 * otherwise each stage's seconds go into that stage's histogram. */
void zkp_metrics_job_done(zkp_metrics *m, const char *key, const char *kind,
                          zkp_job_outcome outcome, const zkpipe_stage_times *times);

/* One RPC answered: method is its full path ("/cuzk.v1.ProvingEngine/Prove"),
 * code its gRPC status code. */
void zkp_metrics_rpc_done(zkp_metrics *m, const char *method, int grpc_code);

/* What the server adds to the engine's snapshot when rendering. */
typedef struct {
    double uptime_seconds;
    int draining;                /* SIGTERM received: no new work admitted */
    size_t server_jobs_live;     /* jobs in the server's table not yet final */
    uint64_t server_jobs_failed; /* jobs the server failed itself, never reaching the engine */
    size_t server_payload_bytes; /* request messages held for jobs the engine still reads */
    size_t rpc_in_flight;        /* calls being answered now */
    /* Names of the engine's keys: key_names[i] names the key whose id is
     * key_ids[i]; keys of the status not listed here render as "key<id>". */
    size_t n_key_names;
    const uint32_t *key_ids;
    const char *const *key_names;
    /* Cluster mode (queue.url): this member's view of the shared queue. */
    int cluster_member;
    uint64_t cluster_depth[4]; /* queued jobs by priority, LOW..CRITICAL, as last read */
    uint64_t cluster_enqueued, cluster_claims, cluster_completed, cluster_failed;
    uint64_t cluster_refused_writes; /* results refused: the lease was taken over or cancelled */
    uint64_t cluster_lease_expiries; /* expired leases this member's reaper ended */
    uint64_t cluster_retries;        /* statements run again (SQLSTATE 40001, 40P01) */
    uint64_t cluster_running;        /* claims running here now */
} zkp_server_view;

/* Prometheus text exposition format 0.0.4 (# HELP / # TYPE lines, one
 * family per metric name, label values escaped). Families, all prefixed
 * zkpipe_:
 *   jobs_total{key,kind,outcome}            counter
 *   stage_seconds{stage}                    histogram (stage: queue_wait,
 *                                           key_load, synthesis, device,
 *                                           finalize, verify, total)
 *   rpc_total{method,code}                  counter
 *   rpc_in_flight                           gauge
 *   queue_partitions{stage}                 gauge (admit, synth, device, finalize)
 *   running_partitions{stage}               gauge (synth, device, finalize)
 *   workers{role,state}                     gauge
 *   memory_bytes{category}                  gauge, live; memory_peak_bytes{category}
 *   tracked_bytes, rss_bytes, peak_rss_bytes, baseline_rss_bytes,
 *   budget_bytes, budget_reserved_bytes, budget_available_bytes,
 *   reservations_waiting, reservation_violations_total
 *   key_tier{key,tier}                      gauge, 1 for the key's tier
 *   key_resident_bytes{key}, key_loads_total{key}, key_evictions_total{key}
 *   jobs_live, uptime_seconds, draining
 *   device_info{device}, device_lost{device}  gauge, each proving device
 *   gpu_memory_total_bytes{device}, gpu_memory_free_bytes{device},
 *   gpu_memory_budget_bytes{device}, gpu_memory_bytes{device,category},
 *   gpu_busy_seconds_total{device}, gpu_transfer_bytes_total{device,direction}
 *   cluster_queue_depth{priority}           gauge    (cluster mode only, as are
 *   cluster_jobs_enqueued_total, cluster_claims_total,  the rest)
 *   cluster_results_total{outcome} (completed, failed, refused),
 *   cluster_lease_expiries_total, cluster_claims_running,
 *   cluster_statement_retries_total
 * Returns a malloc'd NUL-terminated string, NULL when out of memory. */
char *zkp_metrics_prometheus(zkp_metrics *m, const zkpipe_engine_status *st,
                             const zkp_server_view *view);

/* The same facts as one JSON object:
 * {"uptime_seconds":..,"draining":..,"jobs":{"live":..,"completed":..,...},
 *  "queues":{...},"workers":[{"role":..,"state":..},...],
 *  "memory":{"budget_bytes":..,...,"categories":{"key":{"live":..,"peak":..},...}},
 *  "devices":[{"name":..,"gpu":..,"lost":..,"lost_reason" (when lost),...}],
 *  "keys":[{"name":..,"tier":..,...}],"jobs_by_key":[{"key":..,"kind":..,
 *  "completed":..,"failed":..,"cancelled":..}],
 *  "stages":{"queue_wait":{"count":..,"sum_seconds":..},...},
 *  "rpcs":[{"method":..,"code":"0","count":..}]}
 * Returns a malloc'd NUL-terminated string, NULL when out of memory. */
char *zkp_metrics_status_json(zkp_metrics *m, const zkpipe_engine_status *st,
                              const zkp_server_view *view);

/* Fills the view and the snapshot for one rendering; called by the HTTP
 * server on each request. Returns 0 on success. */
typedef int (*zkp_metrics_source)(void *ctx, zkpipe_engine_status *st, zkp_server_view *view);

/* The optional HTTP endpoint (libmicrohttpd, its own polling thread):
 * GET /metrics (text/plain; version=0.0.4) and GET /status
 * (application/json); 404 for other paths, 405 for other methods.
 * listen is "host:port" or ":port" (all interfaces). */
typedef struct zkp_http zkp_http;
zkpipe_status zkp_http_start(zkp_http **out, const char *listen, zkp_metrics *m,
                             zkp_metrics_source source, void *source_ctx, zkp_diag *d);
void zkp_http_stop(zkp_http **h); /* accepts *h == NULL */

/* The port the endpoint listens on: the one asked for, or the one the
 * system chose for port 0. */
unsigned zkp_http_port(const zkp_http *h);

#endif
