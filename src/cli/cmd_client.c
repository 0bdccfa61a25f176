/* zkpipe client: talks to a daemon over both services. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/cli_rpc.h"
#include "cuzk/v1/proving.pb-c.h"
#include "formats/wtns.h"
#include "server/rpc.h"
#include "server/tcpsec.h"
#include "util/fileio.h"
#include "zkpipe/v1/prover.pb-c.h"

#define DEFAULT_ADDR "unix:///run/zkpipe/zkpipe.sock"

static const char client_usage[] =
    "usage: zkpipe client [--addr ADDR] [--timeout-ms N] [TLS and token options] <command> [args]\n"
    "  ADDR: unix:///path or host:port (default $ZKPIPE_ADDR, else " DEFAULT_ADDR ")\n"
    "TLS and token options (for a daemon's TCP listener):\n"
    "  --tls                   TLS, the daemon's certificate checked against gRPC's roots\n"
    "  --tls-ca FILE           TLS, the daemon's certificate checked against FILE's CAs (PEM)\n"
    "  --tls-cert FILE --tls-key FILE\n"
    "                          a client certificate and its key (PEM), for server.tls_client_ca\n"
    "  --tls-server-name NAME  the name the daemon's certificate must carry (default: ADDR's)\n"
    "  --token-file FILE       send the bearer token in FILE (not readable by other users);\n"
    "                          default: $ZKPIPE_TOKEN, the token itself, if set\n"
    "commands (zkpipe.v1):\n"
    "  register-key <name> <circuit.zkey>      the path is read by the daemon\n"
    "  prove <name> <witness.wtns> <proof.json> <public.json> [--priority P] [--request-id ID]\n"
    "  submit <name> <witness.wtns>... [--priority P] [--request-id ID]   prints the job id\n"
    "  await <job-id> [--wait-ms N] [--out DIR]  prints the state; writes DIR/proof_<i>.json\n"
    "                                            and DIR/public_<i>.json\n"
    "  cancel <job-id>\n"
    "  jobs                                    list the daemon's jobs\n"
    "  status                                  the status document (JSON)\n"
    "commands (cuzk.v1):\n"
    "  prove-proof <kind> <vanilla-proof> <proof.bin> [--priority P] [--request-id ID]\n"
    "              [--registered-proof N]\n"
    "                                          one proof; kind: porep_seal_commit,\n"
    "                                          snap_deals_update, window_post_partition or\n"
    "                                          winning_post; writes the proof's bytes.\n"
    "                                          porep_seal_commit takes Curio's envelope\n"
    "                                          of a C1 and --registered-proof\n"
    "  metrics                                 Prometheus text\n"
    "  preload <key-name> | evict <key-name>\n"
    "  P: low, normal, high or critical\n"
    "  --timeout-ms N: the deadline of each call, 0 (the default) for none\n"
    "  --wait-ms N: how long await waits for the job, 0 (the default) for as long as it takes\n"
    "Every command takes --help. " CLI_OPTIONS_HELP
    "Witnesses are checked here before they are sent. prove checks its outputs before\n"
    "the call and writes both or neither, as zkpipe prove does.\n" CLI_EXIT_CODES_HELP;

/* The longest deadline or wait accepted: about 24 days, within what every
 * layer below can hold in milliseconds as a signed 32-bit count. */
#define MAX_MS ((uint64_t)INT32_MAX)

typedef struct {
    const char *addr;
    int64_t timeout_ms;
    zkp_rpc_client_security sec;
} client;

void *cli_rpc_call(const char *cmd, const char *addr, const zkp_rpc_client_security *sec,
                   int64_t timeout_ms, const char *method, const ProtobufCMessage *req,
                   cli_rpc_unpack_fn unpack) {
    size_t n = protobuf_c_message_get_packed_size(req);
    uint8_t *buf = malloc(n ? n : 1);
    if (!buf) {
        fprintf(stderr, "zkpipe %s: out of memory\n", cmd);
        return NULL;
    }
    protobuf_c_message_pack(req, buf);
    zkp_rpc_code code;
    uint8_t *resp;
    size_t resp_len;
    char msg[512];
    zkpipe_status st = zkp_rpc_client_call(addr, sec, method, buf, n, timeout_ms,
                                           CLI_RPC_MAX_MESSAGE, &code, &resp, &resp_len, msg,
                                           sizeof msg);
    free(buf);
    if (st != ZKPIPE_OK) {
        fprintf(stderr, "zkpipe %s: %s: %s\n", cmd, method, zkpipe_strerror(st));
        return NULL;
    }
    if (code != ZKP_RPC_OK) {
        fprintf(stderr, "zkpipe %s: %s: gRPC status %d (%s): %s\n", cmd, method, (int)code,
                zkp_rpc_code_name((int)code), msg);
        return NULL;
    }
    void *m = unpack(NULL, resp_len, resp);
    free(resp);
    if (!m) fprintf(stderr, "zkpipe %s: %s: malformed response\n", cmd, method);
    return m;
}

#define CALL(c, svc, method, req, type)                                                            \
    ((type *)cli_rpc_call("client", (c)->addr, &(c)->sec, (c)->timeout_ms, svc method,             \
                          &(req).base, (cli_rpc_unpack_fn)type##_unpack_fn))

/* The position of s in names[0..n), or -1. */
static int name_index_(const char *s, const char *const *names, int n) {
    for (int i = 0; i < n; i++)
        if (!strcmp(s, names[i])) return i;
    return -1;
}

static int parse_priority_(const char *s, Zkpipe__V1__Priority *p) {
    static const char *const names[] = {"low", "normal", "high", "critical"};
    int i = name_index_(s, names, 4);
    if (i < 0) return 0;
    *p = (Zkpipe__V1__Priority)(i + 1);
    return 1;
}

static const char *state_name_(Zkpipe__V1__JobState s) {
    switch (s) {
    case ZKPIPE__V1__JOB_STATE__LIVE: return "live";
    case ZKPIPE__V1__JOB_STATE__COMPLETED: return "completed";
    case ZKPIPE__V1__JOB_STATE__FAILED: return "failed";
    case ZKPIPE__V1__JOB_STATE__CANCELLED: return "cancelled";
    case ZKPIPE__V1__JOB_STATE__TIMEOUT: return "timeout";
    default: return "unknown";
    }
}

/* protobuf-c's unpack functions take a typed message; these adapt them. */
#define UNPACK_FN(type, fn)                                                                        \
    static void *type##_unpack_fn(ProtobufCAllocator *a, size_t n, const uint8_t *b) {               \
        return fn(a, n, b);                                                                         \
    }
UNPACK_FN(Zkpipe__V1__RegisterKeyResponse, zkpipe__v1__register_key_response__unpack)
UNPACK_FN(Zkpipe__V1__ProveResponse, zkpipe__v1__prove_response__unpack)
UNPACK_FN(Zkpipe__V1__SubmitResponse, zkpipe__v1__submit_response__unpack)
UNPACK_FN(Zkpipe__V1__AwaitResponse, zkpipe__v1__await_response__unpack)
UNPACK_FN(Zkpipe__V1__CancelResponse, zkpipe__v1__cancel_response__unpack)
UNPACK_FN(Zkpipe__V1__ListJobsResponse, zkpipe__v1__list_jobs_response__unpack)
UNPACK_FN(Zkpipe__V1__StatusResponse, zkpipe__v1__status_response__unpack)
UNPACK_FN(Cuzk__V1__ProveResponse, cuzk__v1__prove_response__unpack)
UNPACK_FN(Cuzk__V1__GetMetricsResponse, cuzk__v1__get_metrics_response__unpack)
UNPACK_FN(Cuzk__V1__PreloadSrsResponse, cuzk__v1__preload_srs_response__unpack)
UNPACK_FN(Cuzk__V1__EvictSrsResponse, cuzk__v1__evict_srs_response__unpack)

#define ZK "/zkpipe.v1.Prover/"
#define CZ "/cuzk.v1.ProvingEngine/"

/* Reads the witness files into a SubmitRequest's witnesses, each parsed
 * here first: a file that is not a witness is the caller's bad input (exit
 * 3, naming it), not a job that the daemon fails or a call it refuses. */
static int read_witnesses_(char **paths, size_t n, Zkpipe__V1__SubmitRequest *s) {
    s->witnesses = calloc(n, sizeof *s->witnesses);
    if (!s->witnesses) return 0;
    s->n_witnesses = n;
    for (size_t i = 0; i < n; i++) {
        char *data;
        size_t len;
        zkp_diag d = {{0}};
        zkpipe_status st = zkp_read_file(paths[i], CLI_RPC_MAX_MESSAGE, &data, &len, &d);
        if (st != ZKPIPE_OK) {
            cli_fail("client", st, &d, CLI_BAD_INPUT);
            return 0;
        }
        s->witnesses[i].data = (uint8_t *)data;
        s->witnesses[i].len = len;
        zkp_wtns w = {0};
        st = zkp_wtns_parse(&w, (const uint8_t *)data, len, paths[i], NULL, &d);
        zkp_wtns_free(&w);
        if (st != ZKPIPE_OK) {
            cli_fail("client", st, &d, CLI_BAD_INPUT);
            return 0;
        }
    }
    return 1;
}

static void free_witnesses_(Zkpipe__V1__SubmitRequest *s) {
    for (size_t i = 0; i < s->n_witnesses; i++) free(s->witnesses[i].data);
    free(s->witnesses);
}

/* Options after the positional arguments of submit and prove. Returns the
 * number of positional arguments, or -1 on a usage error (-2 when the
 * message is already printed). */
static int submit_opts_(int argc, char **argv, Zkpipe__V1__SubmitRequest *s) {
    int npos = 0;
    for (int i = 0; i < argc; i++) {
        const char *v = NULL;
        int r;
        if ((r = cli_opt("client", argc, argv, &i, "--priority", "low, normal, high or critical",
                         &v)) != 0) {
            if (r < 0) return -2;
            if (!parse_priority_(v, &s->priority)) return -1;
        } else if ((r = cli_opt("client", argc, argv, &i, "--request-id", "a string", &v)) != 0) {
            if (r < 0) return -2;
            s->request_id = (char *)v;
        } else if (argv[i][0] == '-' && argv[i][1] == '-') {
            return -1;
        } else {
            argv[npos++] = argv[i];
        }
    }
    return npos;
}

static int report_job_(const Zkpipe__V1__AwaitResponse *r) {
    printf("job %s: %s", r->job_id, state_name_(r->state));
    if (r->error_message && *r->error_message) printf(": %s", r->error_message);
    if (r->times)
        printf(" (total %llu ms: queue %llu, synthesis %llu, device %llu, finalize %llu, verify %llu)",
               (unsigned long long)r->times->total_ms, (unsigned long long)r->times->queue_wait_ms,
               (unsigned long long)r->times->synthesis_ms, (unsigned long long)r->times->device_ms,
               (unsigned long long)r->times->finalize_ms, (unsigned long long)r->times->verify_ms);
    printf("\n");
    return r->state == ZKPIPE__V1__JOB_STATE__COMPLETED ? CLI_OK : CLI_INVALID;
}

static int cmd_prove_(const client *c, int argc, char **argv) {
    Zkpipe__V1__SubmitRequest s = ZKPIPE__V1__SUBMIT_REQUEST__INIT;
    int npos = submit_opts_(argc, argv, &s);
    if (npos == -2) return CLI_USAGE;
    if (npos != 4) return -1;
    s.key = argv[0];
    /* The outputs before the call, as zkpipe prove does: a proof made
     * only to be lost at the end is work wasted on the daemon. */
    zkp_output outs[2];
    int rc = cli_outputs_open("client", outs, (const char *const *)&argv[2], 2,
                              (const char *const *)&argv[1], 1);
    if (rc != CLI_OK) return rc;
    if (!read_witnesses_(&argv[1], 1, &s)) {
        free_witnesses_(&s);
        cli_outputs_close(outs, 2);
        return CLI_BAD_INPUT;
    }
    Zkpipe__V1__ProveRequest req = ZKPIPE__V1__PROVE_REQUEST__INIT;
    req.submit = &s;
    Zkpipe__V1__ProveResponse *r = CALL(c, ZK, "Prove", req, Zkpipe__V1__ProveResponse);
    free_witnesses_(&s);
    if (!r) {
        cli_outputs_close(outs, 2);
        return CLI_RPC_ERROR;
    }
    rc = r->result ? report_job_(r->result) : CLI_INVALID;
    if (rc == CLI_OK && r->result->n_proofs != 1) {
        fprintf(stderr, "zkpipe client: the daemon answered with %zu proofs, not 1\n",
                r->result->n_proofs);
        rc = CLI_INVALID;
    }
    if (rc == CLI_OK) {
        const char *texts[2] = {r->result->proofs[0]->proof_json,
                                r->result->proofs[0]->public_json};
        size_t lens[2] = {strlen(texts[0]), strlen(texts[1])};
        rc = cli_outputs_write("client", outs, texts, lens, 2);
    }
    cli_outputs_close(outs, 2);
    zkpipe__v1__prove_response__free_unpacked(r, NULL);
    return rc;
}

static int cmd_submit_(const client *c, int argc, char **argv) {
    Zkpipe__V1__SubmitRequest s = ZKPIPE__V1__SUBMIT_REQUEST__INIT;
    int npos = submit_opts_(argc, argv, &s);
    if (npos == -2) return CLI_USAGE;
    if (npos < 2) return -1;
    s.key = argv[0];
    if (!read_witnesses_(&argv[1], (size_t)npos - 1, &s)) {
        free_witnesses_(&s);
        return CLI_BAD_INPUT;
    }
    Zkpipe__V1__SubmitResponse *r = CALL(c, ZK, "Submit", s, Zkpipe__V1__SubmitResponse);
    free_witnesses_(&s);
    if (!r) return CLI_RPC_ERROR;
    printf("%s\n", r->job_id);
    zkpipe__v1__submit_response__free_unpacked(r, NULL);
    return CLI_OK;
}

static int cmd_await_(const client *c, int argc, char **argv) {
    Zkpipe__V1__AwaitRequest req = ZKPIPE__V1__AWAIT_REQUEST__INIT;
    const char *out = NULL;
    int npos = 0;
    for (int i = 0; i < argc; i++) {
        const char *v = NULL;
        int r;
        if ((r = cli_opt("client", argc, argv, &i, "--wait-ms", "milliseconds", &v)) != 0) {
            uint64_t ms;
            if (r < 0) return CLI_USAGE;
            if (cli_parse_u64(v, MAX_MS, &ms)) {
                fprintf(stderr, "zkpipe client: --wait-ms wants milliseconds from 0 to %llu, not \"%s\"\n",
                        (unsigned long long)MAX_MS, v);
                return CLI_USAGE;
            }
            req.timeout_ms = ms;
        } else if ((r = cli_opt("client", argc, argv, &i, "--out", "a directory", &v)) != 0) {
            if (r < 0) return CLI_USAGE;
            out = v;
        } else if (argv[i][0] == '-') {
            return -1;
        } else {
            argv[npos++] = argv[i];
        }
    }
    if (npos != 1) return -1;
    req.job_id = argv[0];
    Zkpipe__V1__AwaitResponse *r = CALL(c, ZK, "Await", req, Zkpipe__V1__AwaitResponse);
    if (!r) return CLI_RPC_ERROR;
    int rc = report_job_(r);
    /* Each proof's pair is written together, both files or neither. */
    for (size_t i = 0; out && rc == CLI_OK && i < r->n_proofs; i++) {
        char paths[2][4096];
        int n0 = snprintf(paths[0], sizeof paths[0], "%s/proof_%zu.json", out, i);
        int n1 = snprintf(paths[1], sizeof paths[1], "%s/public_%zu.json", out, i);
        if (n0 < 0 || n1 < 0 || (size_t)n0 >= sizeof paths[0] || (size_t)n1 >= sizeof paths[1]) {
            fprintf(stderr, "zkpipe client: --out %s: path too long\n", out);
            rc = CLI_USAGE;
            break;
        }
        const char *names[2] = {paths[0], paths[1]};
        zkp_output outs[2];
        if ((rc = cli_outputs_open("client", outs, names, 2, NULL, 0)) != CLI_OK) break;
        const char *texts[2] = {r->proofs[i]->proof_json, r->proofs[i]->public_json};
        size_t lens[2] = {strlen(texts[0]), strlen(texts[1])};
        rc = cli_outputs_write("client", outs, texts, lens, 2);
        cli_outputs_close(outs, 2);
    }
    zkpipe__v1__await_response__free_unpacked(r, NULL);
    return rc;
}

/* cuzk.v1's proof kinds by the names its enum gives them. */
static int parse_proof_kind_(const char *s, Cuzk__V1__ProofKind *k) {
    static const char *const names[] = {"porep_seal_commit", "snap_deals_update",
                                        "window_post_partition", "winning_post"};
    int i = name_index_(s, names, 4);
    if (i < 0) return 0;
    *k = (Cuzk__V1__ProofKind)(i + 1);
    return 1;
}

static const char *proof_status_name_(Cuzk__V1__AwaitProofResponse__Status s) {
    switch (s) {
    case CUZK__V1__AWAIT_PROOF_RESPONSE__STATUS__COMPLETED: return "completed";
    case CUZK__V1__AWAIT_PROOF_RESPONSE__STATUS__FAILED: return "failed";
    case CUZK__V1__AWAIT_PROOF_RESPONSE__STATUS__CANCELLED: return "cancelled";
    case CUZK__V1__AWAIT_PROOF_RESPONSE__STATUS__TIMEOUT: return "timeout";
    default: return "unknown";
    }
}

/* prove-proof: cuzk.v1 Prove, the call Curio makes. The output is opened
 * before the call, as prove does. */
static int cmd_prove_proof_(const client *c, int argc, char **argv) {
    /* --registered-proof N: the numeric RegisteredSealProof Curio sends
     * (taken out here; submit_opts_ reads the rest). */
    uint64_t registered = 0;
    int kept = 0;
    for (int i = 0; i < argc; i++) {
        const char *v = NULL;
        int r = cli_opt("client", argc, argv, &i, "--registered-proof", "a number", &v);
        if (r < 0) return CLI_USAGE;
        if (r == 0) {
            argv[kept++] = argv[i];
        } else if (cli_parse_u64(v, UINT32_MAX, &registered)) {
            fprintf(stderr, "zkpipe client: --registered-proof takes a number, not \"%s\"\n", v);
            return CLI_USAGE;
        }
    }
    argc = kept;
    Zkpipe__V1__SubmitRequest opts = ZKPIPE__V1__SUBMIT_REQUEST__INIT;
    int npos = submit_opts_(argc, argv, &opts);
    if (npos == -2) return CLI_USAGE;
    if (npos != 3) return -1;
    Cuzk__V1__SubmitProofRequest s = CUZK__V1__SUBMIT_PROOF_REQUEST__INIT;
    if (!parse_proof_kind_(argv[0], &s.proof_kind)) {
        fprintf(stderr, "zkpipe client: \"%s\" is not a proof kind\n", argv[0]);
        return CLI_USAGE;
    }
    /* Both services number the priorities alike, from LOW = 1. */
    s.priority = opts.priority ? (Cuzk__V1__Priority)opts.priority : CUZK__V1__PRIORITY__NORMAL;
    s.request_id = opts.request_id;
    s.registered_proof = registered;
    zkp_output out;
    int rc = cli_outputs_open("client", &out, (const char *const *)&argv[2], 1,
                              (const char *const *)&argv[1], 1);
    if (rc != CLI_OK) return rc;
    char *data;
    size_t len;
    zkp_diag d = {{0}};
    zkpipe_status st = zkp_read_file(argv[1], CLI_RPC_MAX_MESSAGE, &data, &len, &d);
    if (st != ZKPIPE_OK) {
        cli_outputs_close(&out, 1);
        return cli_fail("client", st, &d, CLI_BAD_INPUT);
    }
    s.vanilla_proof.data = (uint8_t *)data;
    s.vanilla_proof.len = len;
    Cuzk__V1__ProveRequest req = CUZK__V1__PROVE_REQUEST__INIT;
    req.submit = &s;
    Cuzk__V1__ProveResponse *r = CALL(c, CZ, "Prove", req, Cuzk__V1__ProveResponse);
    free(data);
    if (!r || !r->result) {
        if (r) cuzk__v1__prove_response__free_unpacked(r, NULL);
        cli_outputs_close(&out, 1);
        return CLI_RPC_ERROR;
    }
    const Cuzk__V1__AwaitProofResponse *a = r->result;
    printf("job %s: %s", a->job_id, proof_status_name_(a->status));
    if (a->error_message && *a->error_message) printf(": %s", a->error_message);
    printf(" (total %llu ms)\n", (unsigned long long)a->total_ms);
    rc = a->status == CUZK__V1__AWAIT_PROOF_RESPONSE__STATUS__COMPLETED ? CLI_OK : CLI_INVALID;
    if (rc == CLI_OK) {
        const char *bytes = (const char *)a->proof.data;
        rc = cli_outputs_write("client", &out, &bytes, &a->proof.len, 1);
    }
    cli_outputs_close(&out, 1);
    cuzk__v1__prove_response__free_unpacked(r, NULL);
    return rc;
}

/* The files of the TLS and token options, read before any call. */
typedef struct {
    const char *ca, *cert, *key, *token_file;
    char *ca_pem, *cert_pem, *key_pem, *token;
} client_files;

static void client_files_free_(client_files *f) {
    free(f->ca_pem);
    free(f->cert_pem);
    if (f->key_pem) explicit_bzero(f->key_pem, strlen(f->key_pem));
    free(f->key_pem);
    if (f->token) explicit_bzero(f->token, strlen(f->token));
    free(f->token);
}

static int read_pem_(const char *opt, const char *path, char **out) {
    size_t len;
    zkp_diag d = {{0}};
    zkpipe_status st = zkp_read_file(path, SRV_PEM_MAX, out, &len, &d);
    if (st == ZKPIPE_OK && memchr(*out, 0, len)) {
        st = zkp_diag_fail(&d, ZKPIPE_ERR_PARSE, "%s: holds a NUL byte, not PEM text", path);
        free(*out);
        *out = NULL;
    }
    if (st != ZKPIPE_OK) {
        fprintf(stderr, "zkpipe client: %s: %s\n", opt, d.msg);
        return CLI_BAD_INPUT;
    }
    return CLI_OK;
}

/* Fills c->sec from the options (and $ZKPIPE_TOKEN). CLI_OK, or the exit
 * code with the reason printed. */
static int client_security_(client *c, client_files *f) {
    if (!f->cert != !f->key) {
        fprintf(stderr, "zkpipe client: --tls-cert and --tls-key go together\n");
        return CLI_USAGE;
    }
    int rc = CLI_OK;
    if (f->ca && (rc = read_pem_("--tls-ca", f->ca, &f->ca_pem)) != CLI_OK) return rc;
    if (f->cert && (rc = read_pem_("--tls-cert", f->cert, &f->cert_pem)) != CLI_OK) return rc;
    if (f->key && (rc = read_pem_("--tls-key", f->key, &f->key_pem)) != CLI_OK) return rc;
    c->sec.ca = f->ca_pem;
    c->sec.cert_chain = f->cert_pem;
    c->sec.private_key = f->key_pem;
    zkp_diag d = {{0}};
    const char *env = getenv("ZKPIPE_TOKEN");
    if (f->token_file) {
        if (srv_token_read("--token-file", f->token_file, &f->token, &d) != ZKPIPE_OK) {
            fprintf(stderr, "zkpipe client: %s\n", d.msg);
            return CLI_BAD_INPUT;
        }
    } else if (env && *env) {
        size_t n;
        if (srv_token_check("ZKPIPE_TOKEN", env, &n, &d) != ZKPIPE_OK) {
            fprintf(stderr, "zkpipe client: %s\n", d.msg);
            return CLI_USAGE;
        }
        if (!(f->token = strndup(env, n))) {
            fprintf(stderr, "zkpipe client: out of memory\n");
            return CLI_INVALID;
        }
    }
    c->sec.token = f->token;
    return CLI_OK;
}

static int run_command_(const client *c, const char *cmd, int n, char **a);

int cli_client(int argc, char **argv) {
    client c = {getenv("ZKPIPE_ADDR") ? getenv("ZKPIPE_ADDR") : DEFAULT_ADDR, 0, {0}};
    client_files files = {0};
    int i = 0;
    /* --help anywhere, before the command or after it, prints the usage. */
    for (int k = 0; k < argc; k++)
        if (cli_is_help(argv[k])) {
            fputs(client_usage, stdout);
            return CLI_OK;
        }
    for (; i < argc && argv[i][0] == '-'; i++) {
        const char *v = NULL;
        int r;
        if ((r = cli_opt("client", argc, argv, &i, "--addr", "unix:///path or host:port", &v)) !=
            0) {
            if (r < 0) return CLI_USAGE;
            c.addr = v;
        } else if ((r = cli_opt("client", argc, argv, &i, "--timeout-ms", "milliseconds", &v)) !=
                   0) {
            uint64_t ms;
            if (r < 0) return CLI_USAGE;
            if (cli_parse_u64(v, MAX_MS, &ms)) {
                fprintf(stderr,
                        "zkpipe client: --timeout-ms wants milliseconds from 0 to %llu, not \"%s\"\n",
                        (unsigned long long)MAX_MS, v);
                return CLI_USAGE;
            }
            c.timeout_ms = (int64_t)ms;
        } else if (!strcmp(argv[i], "--tls")) {
            c.sec.tls = 1;
        } else if ((r = cli_opt("client", argc, argv, &i, "--tls-ca", "a PEM file of CAs",
                                &v)) != 0) {
            if (r < 0) return CLI_USAGE;
            files.ca = v;
            c.sec.tls = 1;
        } else if ((r = cli_opt("client", argc, argv, &i, "--tls-cert", "a PEM certificate file",
                                &v)) != 0) {
            if (r < 0) return CLI_USAGE;
            files.cert = v;
            c.sec.tls = 1;
        } else if ((r = cli_opt("client", argc, argv, &i, "--tls-key", "a PEM private key file",
                                &v)) != 0) {
            if (r < 0) return CLI_USAGE;
            files.key = v;
            c.sec.tls = 1;
        } else if ((r = cli_opt("client", argc, argv, &i, "--tls-server-name", "a host name",
                                &v)) != 0) {
            if (r < 0) return CLI_USAGE;
            c.sec.server_name = v;
            c.sec.tls = 1;
        } else if ((r = cli_opt("client", argc, argv, &i, "--token-file",
                                "a file holding the token", &v)) != 0) {
            if (r < 0) return CLI_USAGE;
            files.token_file = v;
        } else {
            fprintf(stderr, "zkpipe client: unknown option %s\n%s", argv[i], client_usage);
            return CLI_USAGE;
        }
    }
    if (i >= argc) {
        fputs(client_usage, stderr);
        return CLI_USAGE;
    }
    int rc = client_security_(&c, &files);
    if (rc == CLI_OK) rc = run_command_(&c, argv[i], argc - i - 1, argv + i + 1);
    client_files_free_(&files);
    return rc;
}

static int run_command_(const client *c, const char *cmd, int n, char **a) {
    int rc = -1;
    if (!strcmp(cmd, "register-key") && n == 2) {
        Zkpipe__V1__RegisterKeyRequest req = ZKPIPE__V1__REGISTER_KEY_REQUEST__INIT;
        req.name = a[0];
        /* The daemon opens the file: give it an absolute path. */
        char *abs = realpath(a[1], NULL);
        req.path = abs ? abs : a[1];
        Zkpipe__V1__RegisterKeyResponse *r =
            CALL(c, ZK, "RegisterKey", req, Zkpipe__V1__RegisterKeyResponse);
        free(abs);
        if (!r) return CLI_RPC_ERROR;
        printf("key %s: %llu bytes%s\n", r->name, (unsigned long long)r->file_bytes,
               r->already_registered ? " (registered before)" : "");
        zkpipe__v1__register_key_response__free_unpacked(r, NULL);
        return CLI_OK;
    } else if (!strcmp(cmd, "prove")) {
        rc = cmd_prove_(c, n, a);
    } else if (!strcmp(cmd, "submit")) {
        rc = cmd_submit_(c, n, a);
    } else if (!strcmp(cmd, "await")) {
        rc = cmd_await_(c, n, a);
    } else if (!strcmp(cmd, "cancel") && n == 1) {
        Zkpipe__V1__CancelRequest req = ZKPIPE__V1__CANCEL_REQUEST__INIT;
        req.job_id = a[0];
        Zkpipe__V1__CancelResponse *r = CALL(c, ZK, "Cancel", req, Zkpipe__V1__CancelResponse);
        if (!r) return CLI_RPC_ERROR;
        printf("job %s: %s\n", a[0], r->was_running ? "cancelled" : "was not running");
        zkpipe__v1__cancel_response__free_unpacked(r, NULL);
        return CLI_OK;
    } else if (!strcmp(cmd, "jobs") && n == 0) {
        Zkpipe__V1__ListJobsRequest req = ZKPIPE__V1__LIST_JOBS_REQUEST__INIT;
        Zkpipe__V1__ListJobsResponse *r = CALL(c, ZK, "ListJobs", req, Zkpipe__V1__ListJobsResponse);
        if (!r) return CLI_RPC_ERROR;
        printf("%-10s %-20s %-22s %-10s %5s %10s  %s\n", "job", "key", "kind", "state", "parts",
               "age_ms", "request_id");
        for (size_t k = 0; k < r->n_jobs; k++) {
            const Zkpipe__V1__JobInfo *j = r->jobs[k];
            printf("%-10s %-20s %-22s %-10s %5u %10llu  %s\n", j->job_id, j->key, j->kind,
                   state_name_(j->state), j->partitions, (unsigned long long)j->age_ms, j->request_id);
        }
        zkpipe__v1__list_jobs_response__free_unpacked(r, NULL);
        return CLI_OK;
    } else if (!strcmp(cmd, "status") && n == 0) {
        Zkpipe__V1__StatusRequest req = ZKPIPE__V1__STATUS_REQUEST__INIT;
        Zkpipe__V1__StatusResponse *r = CALL(c, ZK, "Status", req, Zkpipe__V1__StatusResponse);
        if (!r) return CLI_RPC_ERROR;
        printf("%s\n", r->status_json);
        zkpipe__v1__status_response__free_unpacked(r, NULL);
        return CLI_OK;
    } else if (!strcmp(cmd, "prove-proof")) {
        rc = cmd_prove_proof_(c, n, a);
    } else if (!strcmp(cmd, "metrics") && n == 0) {
        Cuzk__V1__GetMetricsRequest req = CUZK__V1__GET_METRICS_REQUEST__INIT;
        Cuzk__V1__GetMetricsResponse *r = CALL(c, CZ, "GetMetrics", req, Cuzk__V1__GetMetricsResponse);
        if (!r) return CLI_RPC_ERROR;
        fputs(r->prometheus_text, stdout);
        cuzk__v1__get_metrics_response__free_unpacked(r, NULL);
        return CLI_OK;
    } else if (!strcmp(cmd, "preload") && n == 1) {
        Cuzk__V1__PreloadSrsRequest req = CUZK__V1__PRELOAD_SRS_REQUEST__INIT;
        req.circuit_id = a[0];
        Cuzk__V1__PreloadSrsResponse *r = CALL(c, CZ, "PreloadSRS", req, Cuzk__V1__PreloadSrsResponse);
        if (!r) return CLI_RPC_ERROR;
        printf("key %s: %s in %llu ms\n", a[0], r->already_loaded ? "already loaded" : "loaded",
               (unsigned long long)r->load_time_ms);
        cuzk__v1__preload_srs_response__free_unpacked(r, NULL);
        return CLI_OK;
    } else if (!strcmp(cmd, "evict") && n == 1) {
        Cuzk__V1__EvictSrsRequest req = CUZK__V1__EVICT_SRS_REQUEST__INIT;
        req.circuit_id = a[0];
        Cuzk__V1__EvictSrsResponse *r = CALL(c, CZ, "EvictSRS", req, Cuzk__V1__EvictSrsResponse);
        if (!r) return CLI_RPC_ERROR;
        printf("key %s: %s (%llu bytes freed)\n", a[0], r->was_loaded ? "evicted" : "was not loaded",
               (unsigned long long)r->freed_bytes);
        cuzk__v1__evict_srs_response__free_unpacked(r, NULL);
        return CLI_OK;
    }
    if (rc < 0) {
        fprintf(stderr, "zkpipe client: bad arguments for \"%s\"\n%s", cmd, client_usage);
        return CLI_USAGE;
    }
    return rc;
}
