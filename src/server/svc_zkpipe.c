/* zkpipe.v1.Prover: circom/snarkjs keys over gRPC, on the daemon's job
 * table (daemon_internal.h). Proofs come back as snarkjs proof.json and
 * public.json text, one pair per witness. */
#include <stdlib.h>
#include <string.h>

#include "server/daemon_internal.h"
#include "server/svc_common.h"
#include "zkpipe/v1/prover.pb-c.h"

#define PATH_PREFIX "/zkpipe.v1.Prover/"

static void await_free_(void *p) { zkpipe__v1__await_request__free_unpacked(p, NULL); }

/* Fills r from a SubmitRequest inside the message m (with its arena, if
 * any), taken over: freed on failure too, else kept by the job until the
 * engine is done with the witnesses, which point into it. On a bad request
 * returns its code with msg. */
static zkp_rpc_code submit_req_(const Zkpipe__V1__SubmitRequest *s, ProtobufCMessage *m,
                                svc_arena *arena, srv_submit_req *r, char *msg, size_t msg_len) {
    memset(r, 0, sizeof *r);
    svc_payload *sp = svc_payload_new(m, arena);
    if (!sp) {
        snprintf(msg, msg_len, "out of memory");
        return ZKP_RPC_RESOURCE_EXHAUSTED;
    }
    if (!svc_priority((int)s->priority, &r->priority)) {
        snprintf(msg, msg_len, "priority %d is not a priority", (int)s->priority);
        svc_payload_free(sp);
        return ZKP_RPC_INVALID_ARGUMENT;
    }
    if (s->n_witnesses == 0) {
        snprintf(msg, msg_len, "a job needs at least one witness");
        svc_payload_free(sp);
        return ZKP_RPC_INVALID_ARGUMENT;
    }
    zkpipe_witness *w = calloc(s->n_witnesses, sizeof *w);
    if (!w) {
        svc_payload_free(sp);
        snprintf(msg, msg_len, "out of memory");
        return ZKP_RPC_RESOURCE_EXHAUSTED;
    }
    for (size_t i = 0; i < s->n_witnesses; i++) {
        w[i].data = s->witnesses[i].data;
        w[i].len = s->witnesses[i].len;
    }
    sp->w = w;
    r->kind = SRV_KIND_CIRCOM;
    r->key = s->key;
    r->witnesses = w;
    r->n_witnesses = s->n_witnesses;
    r->request_id = s->request_id;
    r->payload = sp;
    r->payload_free = svc_payload_free;
    r->service = SRV_SERVICE_ZKPIPE;
    r->submit_msg = &s->base;
    return ZKP_RPC_OK;
}

zkp_rpc_code svc_zkpipe_decode_submit(zkp_daemon *d, const uint8_t *req, size_t len,
                                      srv_submit_req *r, char *msg, size_t msg_len) {
    svc_arena *arena;
    zkp_rpc_code why;
    memset(r, 0, sizeof *r);
    Zkpipe__V1__SubmitRequest *m = (Zkpipe__V1__SubmitRequest *)svc_unpack(
        d, &zkpipe__v1__submit_request__descriptor, req, len, &arena, &why);
    if (!m) {
        svc_unpack_error(why, "SubmitRequest", len, msg, msg_len);
        return why == ZKP_RPC_RESOURCE_EXHAUSTED ? why : ZKP_RPC_INVALID_ARGUMENT;
    }
    zkp_rpc_code code = submit_req_(m, &m->base, arena, r, msg, msg_len);
    if (code == ZKP_RPC_OK) r->payload_bytes = len;
    return code;
}

/* The state of a final job. */
static Zkpipe__V1__JobState state_(const srv_job *j) {
    return j->outcome == ZKP_OUTCOME_COMPLETED   ? ZKPIPE__V1__JOB_STATE__COMPLETED
           : j->outcome == ZKP_OUTCOME_CANCELLED ? ZKPIPE__V1__JOB_STATE__CANCELLED
                                                 : ZKPIPE__V1__JOB_STATE__FAILED;
}

static void reply_await_(zkp_rpc_call *call, const srv_job *j, int final, int wrap) {
    Zkpipe__V1__AwaitResponse resp = ZKPIPE__V1__AWAIT_RESPONSE__INIT;
    Zkpipe__V1__StageTimes times = ZKPIPE__V1__STAGE_TIMES__INIT;
    resp.job_id = (char *)j->id_text;
    resp.state = final ? state_(j) : ZKPIPE__V1__JOB_STATE__TIMEOUT;
    resp.error_message = final ? (char *)j->error : (char *)"the job is not final yet";
    Zkpipe__V1__PartitionProof *pp = NULL, **ppp = NULL;
    if (final) {
        const zkpipe_stage_times *t = &j->times;
        times.queue_wait_ms = svc_ms(t->queue_wait);
        times.key_load_ms = svc_ms(t->key_load);
        times.synthesis_ms = svc_ms(t->synthesis);
        times.device_ms = svc_ms(t->device);
        times.finalize_ms = svc_ms(t->finalize);
        times.verify_ms = svc_ms(t->verify);
        times.total_ms = svc_ms(j->t_final - j->t_submit);
        resp.times = &times;
    }
    size_t n = final && j->outcome == ZKP_OUTCOME_COMPLETED ? j->result.n_partitions : 0;
    if (n) {
        pp = calloc(n, sizeof *pp);
        ppp = calloc(n, sizeof *ppp);
        if (!pp || !ppp) {
            free(pp);
            free(ppp);
            zkp_rpc_reply_error(call, ZKP_RPC_RESOURCE_EXHAUSTED, "out of memory");
            return;
        }
        for (size_t i = 0; i < n; i++) {
            const zkpipe_partition_result *p = &j->result.partitions[i];
            zkpipe__v1__partition_proof__init(&pp[i]);
            pp[i].proof_json = p->proof_json ? p->proof_json : (char *)"";
            pp[i].public_json = p->public_json ? p->public_json : (char *)"";
            pp[i].proof.data = (uint8_t *)p->proof;
            pp[i].proof.len = p->proof_len;
            pp[i].verified = p->verified;
            ppp[i] = &pp[i];
        }
        resp.n_proofs = n;
        resp.proofs = ppp;
    }
    if (wrap) {
        Zkpipe__V1__ProveResponse pr = ZKPIPE__V1__PROVE_RESPONSE__INIT;
        pr.result = &resp;
        srv_reply_message(call, &pr.base);
    } else {
        srv_reply_message(call, &resp.base);
    }
    free(pp);
    free(ppp);
}


static void register_key_(void *ctx, zkp_rpc_call *call, const uint8_t *req, size_t len) {
    Zkpipe__V1__RegisterKeyRequest *m = zkpipe__v1__register_key_request__unpack(NULL, len, req);
    if (!m) {
        zkp_rpc_reply_error(call, ZKP_RPC_INVALID_ARGUMENT, "malformed RegisterKeyRequest");
        return;
    }
    int again;
    uint64_t bytes = 0;
    char msg[300];
    zkp_rpc_code code = srv_key_register(ctx, m->name, m->path, 1, &again, &bytes, msg, sizeof msg);
    if (code != ZKP_RPC_OK) {
        zkp_rpc_reply_error(call, code, "%s", msg);
    } else {
        Zkpipe__V1__RegisterKeyResponse resp = ZKPIPE__V1__REGISTER_KEY_RESPONSE__INIT;
        resp.name = m->name;
        resp.file_bytes = bytes;
        resp.already_registered = again;
        srv_reply_message(call, &resp.base);
    }
    zkpipe__v1__register_key_request__free_unpacked(m, NULL);
}

static void submit_(void *ctx, zkp_rpc_call *call, const uint8_t *req, size_t len) {
    zkp_daemon *d = ctx;
    srv_submit_req r;
    srv_job *j;
    uint32_t pos;
    char msg[300];
    zkp_rpc_code code = svc_zkpipe_decode_submit(d, req, len, &r, msg, sizeof msg);
    if (code == ZKP_RPC_OK) code = srv_submit(d, &r, &j, &pos, msg, sizeof msg);
    if (code != ZKP_RPC_OK) {
        zkp_rpc_reply_error(call, code, "%s", msg);
        return;
    }
    Zkpipe__V1__SubmitResponse resp = ZKPIPE__V1__SUBMIT_RESPONSE__INIT;
    resp.job_id = j->id_text;
    resp.queue_position = pos;
    srv_reply_message(call, &resp.base);
    srv_job_put(d, j);
}

static void reply_prove_(zkp_rpc_call *call, const srv_job *j, int final) {
    reply_await_(call, j, final, 1);
}

static void prove_(void *ctx, zkp_rpc_call *call, const uint8_t *req, size_t len) {
    svc_arena *arena;
    zkp_rpc_code why;
    Zkpipe__V1__ProveRequest *m = (Zkpipe__V1__ProveRequest *)svc_unpack(
        ctx, &zkpipe__v1__prove_request__descriptor, req, len, &arena, &why);
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
    zkp_rpc_code code = submit_req_(m->submit, &m->base, arena, &r, msg, sizeof msg);
    if (code != ZKP_RPC_OK) {
        zkp_rpc_reply_error(call, code, "%s", msg);
        return;
    }
    r.payload_bytes = len;
    svc_prove(ctx, call, &r, reply_prove_);
}

static void await_thread_(zkp_daemon *d, zkp_rpc_call *call, void *arg) {
    Zkpipe__V1__AwaitRequest *m = arg;
    srv_job *j = srv_job_get(d, m->job_id);
    if (!j) {
        zkp_rpc_reply_error(call, ZKP_RPC_NOT_FOUND,
                            "no such job: '%.80s' (unknown, or collected and dropped)", m->job_id);
        return;
    }
    int final = srv_job_wait(d, j, m->timeout_ms ? (int64_t)m->timeout_ms : -1, call);
    reply_await_(call, j, final, 0);
    srv_job_put(d, j);
}

static void await_(void *ctx, zkp_rpc_call *call, const uint8_t *req, size_t len) {
    Zkpipe__V1__AwaitRequest *m = zkpipe__v1__await_request__unpack(NULL, len, req);
    if (!m) {
        zkp_rpc_reply_error(call, ZKP_RPC_INVALID_ARGUMENT, "malformed AwaitRequest");
        return;
    }
    srv_run_blocking(ctx, call, await_thread_, m, await_free_);
}

static void cancel_(void *ctx, zkp_rpc_call *call, const uint8_t *req, size_t len) {
    Zkpipe__V1__CancelRequest *m = zkpipe__v1__cancel_request__unpack(NULL, len, req);
    if (!m) {
        zkp_rpc_reply_error(call, ZKP_RPC_INVALID_ARGUMENT, "malformed CancelRequest");
        return;
    }
    int was_running;
    if (srv_job_cancel(ctx, m->job_id, &was_running) != ZKP_RPC_OK) {
        zkp_rpc_reply_error(call, ZKP_RPC_NOT_FOUND, "no such job: '%.80s'", m->job_id);
    } else {
        Zkpipe__V1__CancelResponse resp = ZKPIPE__V1__CANCEL_RESPONSE__INIT;
        resp.was_running = was_running;
        srv_reply_message(call, &resp.base);
    }
    zkpipe__v1__cancel_request__free_unpacked(m, NULL);
}

static void list_jobs_(void *ctx, zkp_rpc_call *call, const uint8_t *req, size_t len) {
    zkp_daemon *d = ctx;
    Zkpipe__V1__ListJobsRequest *m = zkpipe__v1__list_jobs_request__unpack(NULL, len, req);
    if (!m) {
        zkp_rpc_reply_error(call, ZKP_RPC_INVALID_ARGUMENT, "malformed ListJobsRequest");
        return;
    }
    zkpipe__v1__list_jobs_request__free_unpacked(m, NULL);
    /* Copied under the lock, packed after it. Strings are copied whole: a
     * cut could split a UTF-8 sequence, which proto3 clients reject. */
    pthread_mutex_lock(&d->lk);
    size_t n = d->n_jobs, i = 0;
    Zkpipe__V1__JobInfo *info = calloc(n ? n : 1, sizeof *info);
    Zkpipe__V1__JobInfo **infop = calloc(n ? n : 1, sizeof *infop);
    int ok = info && infop;
    double now = srv_now();
    static const int wire_priority[] = {1, 2, 3, 4};
    for (srv_job *j = d->jobs; j && ok; j = j->next, i++) {
        zkpipe__v1__job_info__init(&info[i]);
        info[i].job_id = strdup(j->id_text);
        info[i].key = strdup(j->key);
        info[i].request_id = strdup(j->request_id ? j->request_id : "");
        ok = info[i].job_id && info[i].key && info[i].request_id;
        info[i].kind = (char *)srv_kind_name(j->kind);
        info[i].state = j->final ? state_(j) : ZKPIPE__V1__JOB_STATE__LIVE;
        info[i].priority = (Zkpipe__V1__Priority)wire_priority[j->priority];
        info[i].partitions = j->n_parts;
        info[i].age_ms = svc_ms(now - j->t_submit);
        infop[i] = &info[i];
    }
    pthread_mutex_unlock(&d->lk);
    if (!ok) {
        zkp_rpc_reply_error(call, ZKP_RPC_RESOURCE_EXHAUSTED, "out of memory");
    } else {
        Zkpipe__V1__ListJobsResponse resp = ZKPIPE__V1__LIST_JOBS_RESPONSE__INIT;
        resp.n_jobs = i;
        resp.jobs = infop;
        srv_reply_message(call, &resp.base);
    }
    for (size_t k = 0; info && k < i; k++) {
        free(info[k].job_id);
        free(info[k].key);
        free(info[k].request_id);
    }
    free(info);
    free(infop);
}

static void status_(void *ctx, zkp_rpc_call *call, const uint8_t *req, size_t len) {
    Zkpipe__V1__StatusRequest *m = zkpipe__v1__status_request__unpack(NULL, len, req);
    if (!m) {
        zkp_rpc_reply_error(call, ZKP_RPC_INVALID_ARGUMENT, "malformed StatusRequest");
        return;
    }
    zkpipe__v1__status_request__free_unpacked(m, NULL);
    char *json = svc_render(ctx, 1);
    if (!json) {
        zkp_rpc_reply_error(call, ZKP_RPC_INTERNAL, "cannot render the status");
        return;
    }
    Zkpipe__V1__StatusResponse resp = ZKPIPE__V1__STATUS_RESPONSE__INIT;
    resp.status_json = json;
    srv_reply_message(call, &resp.base);
    free(json);
}

zkpipe_status srv_zkpipe_register(zkp_daemon *d) {
    static const svc_method methods[] = {
        {"RegisterKey", register_key_}, {"Prove", prove_},         {"Submit", submit_},
        {"Await", await_},              {"Cancel", cancel_},       {"ListJobs", list_jobs_},
        {"Status", status_},
    };
    return svc_register(d, PATH_PREFIX, methods, sizeof methods / sizeof methods[0]);
}
