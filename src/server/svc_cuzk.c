/* cuzk.v1.ProvingEngine on the daemon's job table (daemon_internal.h).
 *
 * POREP_SEAL_COMMIT is proved: Curio's envelope of the C1 becomes an engine
 * job of the PoRep key of its registered proof (daemon.c), and the answer
 * holds the concatenated 192-byte partition proofs. The other Filecoin
 * kinds need circuits zkpipe does not have yet: their jobs are accepted
 * and fail at once with a message, so a client sees an AwaitProofResponse
 * with status FAILED rather than a transport error.
 * Everything else acts on the engine: cancel, key preload and eviction,
 * status and metrics. */
#include <stdlib.h>
#include <string.h>

#include "cuzk/v1/proving.pb-c.h"
#include "server/daemon_internal.h"
#include "server/svc_common.h"

#define PATH_PREFIX "/cuzk.v1.ProvingEngine/"

static void await_free_(void *p) { cuzk__v1__await_proof_request__free_unpacked(p, NULL); }
static void preload_free_(void *p) { cuzk__v1__preload_srs_request__free_unpacked(p, NULL); }

/* Checks a SubmitProofRequest and fills the table's request from it, the
 * payload aside. On a bad request returns its code with msg. */
static zkp_rpc_code submit_req_(const Cuzk__V1__SubmitProofRequest *m, srv_submit_req *r, char *msg,
                                size_t msg_len) {
    memset(r, 0, sizeof *r);
    if (m->proof_kind <= CUZK__V1__PROOF_KIND__PROOF_KIND_UNSPECIFIED ||
        m->proof_kind > CUZK__V1__PROOF_KIND__WINNING_POST) {
        snprintf(msg, msg_len, "proof_kind %d is not a proof kind", (int)m->proof_kind);
        return ZKP_RPC_INVALID_ARGUMENT;
    }
    if (!svc_priority((int)m->priority, &r->priority)) {
        snprintf(msg, msg_len, "priority %d is not a priority", (int)m->priority);
        return ZKP_RPC_INVALID_ARGUMENT;
    }
    r->kind = (srv_kind)m->proof_kind;
    r->vanilla_proof = m->vanilla_proof.data;
    r->vanilla_proof_len = m->vanilla_proof.len;
    r->registered_proof = m->registered_proof;
    r->request_id = m->request_id;
    r->service = SRV_SERVICE_CUZK;
    r->submit_msg = &m->base;
    return ZKP_RPC_OK;
}

/* submit_req_ over the message m (with its arena), which becomes the
 * payload: freed on failure too. */
static zkp_rpc_code submit_req_payload_(const Cuzk__V1__SubmitProofRequest *s, ProtobufCMessage *m,
                                        svc_arena *arena, srv_submit_req *r, char *msg,
                                        size_t msg_len) {
    zkp_rpc_code code = submit_req_(s, r, msg, msg_len);
    if (code != ZKP_RPC_OK) {
        svc_unpacked_free(m, arena);
        return code;
    }
    svc_payload *p = svc_payload_new(m, arena);
    if (!p) {
        snprintf(msg, msg_len, "out of memory");
        return ZKP_RPC_RESOURCE_EXHAUSTED;
    }
    r->payload = p;
    r->payload_free = svc_payload_free;
    return ZKP_RPC_OK;
}

zkp_rpc_code svc_cuzk_decode_submit(zkp_daemon *d, const uint8_t *req, size_t len,
                                    srv_submit_req *r, char *msg, size_t msg_len) {
    svc_arena *arena;
    zkp_rpc_code why;
    memset(r, 0, sizeof *r);
    Cuzk__V1__SubmitProofRequest *m = (Cuzk__V1__SubmitProofRequest *)svc_unpack(
        d, &cuzk__v1__submit_proof_request__descriptor, req, len, &arena, &why);
    if (!m) {
        svc_unpack_error(why, "SubmitProofRequest", len, msg, msg_len);
        return why == ZKP_RPC_RESOURCE_EXHAUSTED ? why : ZKP_RPC_INVALID_ARGUMENT;
    }
    zkp_rpc_code code = submit_req_payload_(m, &m->base, arena, r, msg, msg_len);
    if (code == ZKP_RPC_OK) r->payload_bytes = len;
    return code;
}

static void fill_await_(Cuzk__V1__AwaitProofResponse *resp, const srv_job *j, int final,
                        uint8_t **proof_buf) {
    resp->job_id = (char *)j->id_text;
    *proof_buf = NULL;
    if (!final) {
        resp->status = CUZK__V1__AWAIT_PROOF_RESPONSE__STATUS__TIMEOUT;
        resp->error_message = (char *)"the job is not final yet";
        return;
    }
    resp->status = j->outcome == ZKP_OUTCOME_COMPLETED   ? CUZK__V1__AWAIT_PROOF_RESPONSE__STATUS__COMPLETED
                   : j->outcome == ZKP_OUTCOME_CANCELLED ? CUZK__V1__AWAIT_PROOF_RESPONSE__STATUS__CANCELLED
                                                         : CUZK__V1__AWAIT_PROOF_RESPONSE__STATUS__FAILED;
    resp->error_message = (char *)j->error;
    const zkpipe_stage_times *t = &j->times;
    resp->queue_wait_ms = svc_ms(t->queue_wait);
    resp->srs_load_ms = svc_ms(t->key_load);
    resp->synthesis_ms = svc_ms(t->synthesis);
    resp->gpu_compute_ms = svc_ms(t->device + t->finalize);
    resp->total_ms = svc_ms(j->t_final - j->t_submit);
    if (j->outcome != ZKP_OUTCOME_COMPLETED) return;
    /* A multi-partition job's proofs, one after another. */
    size_t n = 0;
    for (size_t i = 0; i < j->result.n_partitions; i++) n += j->result.partitions[i].proof_len;
    uint8_t *b = malloc(n ? n : 1);
    if (!b) return;
    size_t at = 0;
    for (size_t i = 0; i < j->result.n_partitions; i++) {
        memcpy(b + at, j->result.partitions[i].proof, j->result.partitions[i].proof_len);
        at += j->result.partitions[i].proof_len;
    }
    resp->proof.data = b;
    resp->proof.len = n;
    *proof_buf = b;
}

static void reply_await_(zkp_rpc_call *call, const srv_job *j, int final, int wrap) {
    Cuzk__V1__AwaitProofResponse resp = CUZK__V1__AWAIT_PROOF_RESPONSE__INIT;
    uint8_t *proof;
    fill_await_(&resp, j, final, &proof);
    if (wrap) {
        Cuzk__V1__ProveResponse pr = CUZK__V1__PROVE_RESPONSE__INIT;
        pr.result = &resp;
        srv_reply_message(call, &pr.base);
    } else {
        srv_reply_message(call, &resp.base);
    }
    free(proof);
}

static void submit_(void *ctx, zkp_rpc_call *call, const uint8_t *req, size_t len) {
    zkp_daemon *d = ctx;
    srv_submit_req r;
    srv_job *j;
    uint32_t pos;
    char msg[300];
    zkp_rpc_code code = svc_cuzk_decode_submit(d, req, len, &r, msg, sizeof msg);
    if (code == ZKP_RPC_OK) code = srv_submit(d, &r, &j, &pos, msg, sizeof msg);
    if (code != ZKP_RPC_OK) {
        zkp_rpc_reply_error(call, code, "%s", msg);
        return;
    }
    Cuzk__V1__SubmitProofResponse resp = CUZK__V1__SUBMIT_PROOF_RESPONSE__INIT;
    resp.job_id = (char *)j->id_text;
    resp.queue_position = pos;
    srv_reply_message(call, &resp.base);
    srv_job_put(d, j);
}

static void await_thread_(zkp_daemon *d, zkp_rpc_call *call, void *arg) {
    Cuzk__V1__AwaitProofRequest *m = arg;
    srv_job *j = srv_job_get(d, m->job_id);
    if (!j) {
        /* As cuzk answers an id it does not know: a status, not a response
         * with status UNKNOWN. */
        zkp_rpc_reply_error(call, ZKP_RPC_NOT_FOUND,
                            "no such job: '%.80s' (unknown, from an earlier start of the daemon, or "
                            "collected and dropped)",
                            svc_utf8_ok(m->job_id) ? m->job_id : "");
        return;
    }
    int final = srv_job_wait(d, j, m->timeout_ms ? (int64_t)m->timeout_ms : -1, call);
    reply_await_(call, j, final, 0);
    srv_job_put(d, j);
}

static void await_(void *ctx, zkp_rpc_call *call, const uint8_t *req, size_t len) {
    Cuzk__V1__AwaitProofRequest *m = cuzk__v1__await_proof_request__unpack(NULL, len, req);
    if (!m) {
        zkp_rpc_reply_error(call, ZKP_RPC_INVALID_ARGUMENT, "malformed AwaitProofRequest");
        return;
    }
    srv_run_blocking(ctx, call, await_thread_, m, await_free_);
}

static void reply_prove_(zkp_rpc_call *call, const srv_job *j, int final) {
    reply_await_(call, j, final, 1);
}

static void prove_(void *ctx, zkp_rpc_call *call, const uint8_t *req, size_t len) {
    zkp_daemon *d = ctx;
    svc_arena *arena;
    zkp_rpc_code why;
    Cuzk__V1__ProveRequest *m = (Cuzk__V1__ProveRequest *)svc_unpack(
        d, &cuzk__v1__prove_request__descriptor, req, len, &arena, &why);
    if (!m || !m->submit) {
        if (m || why == ZKP_RPC_INVALID_ARGUMENT)
            zkp_rpc_reply_error(call, ZKP_RPC_INVALID_ARGUMENT, "malformed ProveRequest (submit is required)");
        else
            srv_reply_unpack_error(call, why, "ProveRequest", len);
        svc_unpacked_free(m ? &m->base : NULL, arena);
        return;
    }
    srv_submit_req r;
    char msg[300];
    zkp_rpc_code code = submit_req_payload_(m->submit, &m->base, arena, &r, msg, sizeof msg);
    if (code != ZKP_RPC_OK) {
        zkp_rpc_reply_error(call, code, "%s", msg);
        return;
    }
    r.payload_bytes = len;
    svc_prove(d, call, &r, reply_prove_);
}

static void cancel_(void *ctx, zkp_rpc_call *call, const uint8_t *req, size_t len) {
    Cuzk__V1__CancelProofRequest *m = cuzk__v1__cancel_proof_request__unpack(NULL, len, req);
    if (!m) {
        zkp_rpc_reply_error(call, ZKP_RPC_INVALID_ARGUMENT, "malformed CancelProofRequest");
        return;
    }
    int was_running;
    if (srv_job_cancel(ctx, m->job_id, &was_running) != ZKP_RPC_OK) {
        zkp_rpc_reply_error(call, ZKP_RPC_NOT_FOUND, "no such job: '%.80s'", m->job_id);
    } else {
        Cuzk__V1__CancelProofResponse resp = CUZK__V1__CANCEL_PROOF_RESPONSE__INIT;
        resp.was_running = was_running;
        srv_reply_message(call, &resp.base);
    }
    cuzk__v1__cancel_proof_request__free_unpacked(m, NULL);
}

static Cuzk__V1__SRSStatus__Tier tier_(zkpipe_key_tier t) {
    return t == ZKPIPE_KEY_HOT ? CUZK__V1__SRSSTATUS__TIER__HOT
           : t == ZKPIPE_KEY_COLD ? CUZK__V1__SRSSTATUS__TIER__COLD
                                  : CUZK__V1__SRSSTATUS__TIER__WARM;
}

static void get_status_(void *ctx, zkp_rpc_call *call, const uint8_t *req, size_t len) {
    zkp_daemon *d = ctx;
    Cuzk__V1__GetStatusRequest *m = cuzk__v1__get_status_request__unpack(NULL, len, req);
    if (!m) {
        zkp_rpc_reply_error(call, ZKP_RPC_INVALID_ARGUMENT, "malformed GetStatusRequest");
        return;
    }
    cuzk__v1__get_status_request__free_unpacked(m, NULL);
    zkpipe_engine_status *st = malloc(sizeof *st);
    zkp_server_view view;
    if (!st || srv_metrics_source(d, st, &view) != 0) {
        free(st);
        zkp_rpc_reply_error(call, ZKP_RPC_INTERNAL, "the engine status is unavailable");
        return;
    }
    Cuzk__V1__GetStatusResponse resp = CUZK__V1__GET_STATUS_RESPONSE__INIT;

    /* The proving devices: each GPU with its memory as the driver reports
     * it, or the CPU. */
    Cuzk__V1__GPUStatus gpu[ZKPIPE_ENGINE_STATUS_MAX_DEVICES];
    Cuzk__V1__GPUStatus *gpus[ZKPIPE_ENGINE_STATUS_MAX_DEVICES];
    for (size_t i = 0; i < st->n_devices; i++) {
        const zkpipe_device_status *dv = &st->devices[i];
        cuzk__v1__gpustatus__init(&gpu[i]);
        gpu[i].ordinal = dv->is_gpu ? dv->ordinal : 0;
        gpu[i].name = (char *)dv->name;
        gpu[i].vram_total_bytes = dv->vram_total_bytes;
        gpu[i].vram_free_bytes = dv->vram_free_bytes;
        gpus[i] = &gpu[i];
    }
    resp.n_gpus = st->n_devices;
    resp.gpus = gpus;

    Cuzk__V1__SRSStatus srs[ZKPIPE_ENGINE_STATUS_MAX_KEYS];
    Cuzk__V1__SRSStatus *srsp[ZKPIPE_ENGINE_STATUS_MAX_KEYS];
    char names[ZKPIPE_ENGINE_STATUS_MAX_KEYS][SRV_KEY_NAME_MAX + 8];
    for (size_t i = 0; i < st->n_keys; i++) {
        const zkpipe_key_status *k = &st->keys[i];
        cuzk__v1__srsstatus__init(&srs[i]);
        svc_key_name(&view, k->id, names[i], sizeof names[i]);
        srs[i].circuit_id = names[i];
        srs[i].tier = tier_(k->tier);
        srs[i].size_bytes = k->tier == ZKPIPE_KEY_HOT ? k->resident_bytes : k->file_bytes;
        srs[i].ref_count = k->running;
        srsp[i] = &srs[i];
    }
    resp.n_loaded_srs = st->n_keys;
    resp.loaded_srs = srsp;

    /* Every kind is listed, so a client computing spare capacity from
     * pending + in_progress sees the whole daemon. Counts are partitions:
     * pending not admitted yet, in progress admitted and not done, from
     * the keys' counts (a PoRep key's are porep_seal_commit's). The other
     * Filecoin kinds fail as they arrive and never wait. */
    Cuzk__V1__QueueStatus qs[SRV_KIND_COUNT];
    Cuzk__V1__QueueStatus *qsp[SRV_KIND_COUNT];
    for (int k = 0; k < SRV_KIND_COUNT; k++) {
        cuzk__v1__queue_status__init(&qs[k]);
        qs[k].proof_kind = (char *)srv_kind_name((srv_kind)k);
        qsp[k] = &qs[k];
    }
    uint64_t pending[2] = {0, 0}, running[2] = {0, 0};
    for (size_t i = 0; i < st->n_keys; i++) {
        pending[st->keys[i].porep != 0] += st->keys[i].queued;
        running[st->keys[i].porep != 0] += st->keys[i].running;
    }
    static const srv_kind kinds[2] = {SRV_KIND_CIRCOM, SRV_KIND_POREP_SEAL_COMMIT};
    for (int i = 0; i < 2; i++) {
        qs[kinds[i]].pending = pending[i] > UINT32_MAX ? UINT32_MAX : (uint32_t)pending[i];
        qs[kinds[i]].in_progress = running[i] > UINT32_MAX ? UINT32_MAX : (uint32_t)running[i];
    }
    resp.n_queues = SRV_KIND_COUNT;
    resp.queues = qsp;
    resp.total_proofs_completed = st->jobs_completed;
    /* The engine's failures and the daemon's own: jobs it failed before
     * they reached the engine (the Filecoin kinds). */
    resp.total_proofs_failed = st->jobs_failed + view.server_jobs_failed;
    resp.uptime_seconds = (uint64_t)view.uptime_seconds;
    /* The engine's memory budget stands in for cuzk's pinned memory. */
    resp.pinned_memory_bytes = st->budget_reserved_bytes;
    resp.pinned_memory_limit_bytes = st->budget_total_bytes;
    srv_reply_message(call, &resp.base);
    free(st);
}

static void get_metrics_(void *ctx, zkp_rpc_call *call, const uint8_t *req, size_t len) {
    Cuzk__V1__GetMetricsRequest *m = cuzk__v1__get_metrics_request__unpack(NULL, len, req);
    if (!m) {
        zkp_rpc_reply_error(call, ZKP_RPC_INVALID_ARGUMENT, "malformed GetMetricsRequest");
        return;
    }
    cuzk__v1__get_metrics_request__free_unpacked(m, NULL);
    char *text = svc_render(ctx, 0);
    if (!text) {
        zkp_rpc_reply_error(call, ZKP_RPC_INTERNAL, "cannot render the metrics");
        return;
    }
    Cuzk__V1__GetMetricsResponse resp = CUZK__V1__GET_METRICS_RESPONSE__INIT;
    resp.prometheus_text = text;
    srv_reply_message(call, &resp.base);
    free(text);
}

static void preload_thread_(zkp_daemon *d, zkp_rpc_call *call, void *arg) {
    Cuzk__V1__PreloadSrsRequest *m = arg;
    int was_hot;
    double ms;
    char msg[512];
    zkp_rpc_code code = svc_key_load(d, m->circuit_id, &was_hot, &ms, msg, sizeof msg);
    if (code != ZKP_RPC_OK) {
        zkp_rpc_reply_error(call, code, "%s", msg);
        return;
    }
    Cuzk__V1__PreloadSrsResponse resp = CUZK__V1__PRELOAD_SRS_RESPONSE__INIT;
    resp.already_loaded = was_hot;
    resp.load_time_ms = svc_ms(ms / 1000.0);
    srv_reply_message(call, &resp.base);
}

static void preload_(void *ctx, zkp_rpc_call *call, const uint8_t *req, size_t len) {
    Cuzk__V1__PreloadSrsRequest *m = cuzk__v1__preload_srs_request__unpack(NULL, len, req);
    if (!m) {
        zkp_rpc_reply_error(call, ZKP_RPC_INVALID_ARGUMENT, "malformed PreloadSrsRequest");
        return;
    }
    srv_run_blocking(ctx, call, preload_thread_, m, preload_free_);
}

static void evict_(void *ctx, zkp_rpc_call *call, const uint8_t *req, size_t len) {
    Cuzk__V1__EvictSrsRequest *m = cuzk__v1__evict_srs_request__unpack(NULL, len, req);
    if (!m) {
        zkp_rpc_reply_error(call, ZKP_RPC_INVALID_ARGUMENT, "malformed EvictSrsRequest");
        return;
    }
    int was_loaded;
    uint64_t freed;
    zkp_rpc_code code = svc_key_evict(ctx, m->circuit_id, &was_loaded, &freed);
    if (code != ZKP_RPC_OK) {
        zkp_rpc_reply_error(call, code,
                            code == ZKP_RPC_NOT_FOUND ? "no key is registered as '%.80s'"
                                                      : "key '%.80s' has partitions in flight",
                            m->circuit_id);
    } else {
        Cuzk__V1__EvictSrsResponse resp = CUZK__V1__EVICT_SRS_RESPONSE__INIT;
        resp.was_loaded = was_loaded;
        resp.freed_bytes = freed;
        srv_reply_message(call, &resp.base);
    }
    cuzk__v1__evict_srs_request__free_unpacked(m, NULL);
}

zkpipe_status srv_cuzk_register(zkp_daemon *d) {
    static const svc_method methods[] = {
        {"SubmitProof", submit_}, {"AwaitProof", await_},      {"Prove", prove_},
        {"CancelProof", cancel_}, {"GetStatus", get_status_},  {"GetMetrics", get_metrics_},
        {"PreloadSRS", preload_}, {"EvictSRS", evict_},
    };
    return svc_register(d, PATH_PREFIX, methods, sizeof methods / sizeof methods[0]);
}
