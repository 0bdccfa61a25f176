/* zkpipe bench porep --daemon ADDR: the same sectors as bench porep, proved
 * by a running daemon through cuzk.v1 Prove, the call Curio makes (Curio's
 * envelope of each C1, POREP_SEAL_COMMIT), K calls in flight at once. Every
 * proof that comes back is verified here as well, against the .vk in
 * --params, and the daemon's memory figures are read from its metrics at
 * the end. Lives in zkpipe-daemon, which links gRPC; zkpipe runs it there
 * when --daemon is given. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/bench_porep.h"
#include "cli/cli.h"
#include "cli/cli_rpc.h"
#include "cuzk/v1/proving.pb-c.h"
#include "filecoin/c1.h"
#include "filecoin/c2.h"
#include "filecoin/porep_circuit.h"
#include "formats/filecoin_params.h"
#include "formats/bellperson.h"
#include "server/rpc.h"
#include "util/fileio.h"

static const char daemon_usage[] =
    "usage: zkpipe bench porep --daemon ADDR --sector-size S [--params DIR] [--sectors N]\n"
    "                          [--in-flight K] [--duration SECONDS] [--seed HEX]\n"
    "                          [--json FILE]\n"
    "\n"
    "bench porep through a running daemon (zkpipe serve, ADDR as zkpipe client takes it;\n"
    "a bearer token from $ZKPIPE_TOKEN): each sector's C1, in Curio's envelope, goes to\n"
    "cuzk.v1 Prove as POREP_SEAL_COMMIT, K calls at a time (--in-flight, default 2), so the\n"
    "daemon's engine pipelines them as it would Curio's. Every proof is verified here too,\n"
    "against the .vk found as bench porep finds the parameters. The daemon's own config\n"
    "sets its workers, budget and devices; the key loads with the first sector (report its\n"
    "latency apart, or preload it). With --duration no sector is started once it is up,\n"
    "and those in flight are waited for. The daemon's peak RSS, baseline and budget are\n"
    "read from its metrics (GetMetrics) at the end. Exit code 1 when any sector fails.\n"
    "\n" CLI_OPTIONS_HELP CLI_EXIT_CODES_HELP;

/* Calls in flight at once, one thread each; and what --in-flight wants,
 * which says the same. */
#define DAEMON_IN_FLIGHT_MAX 64u
#define DAEMON_IN_FLIGHT_WANT "a number from 1 to 64"

/* bench porep's options for the engine it runs in process: through a
 * daemon, the daemon's config sets what they set. */
static const char *const engine_opts_[] = {
    "--phases", "--budget", "--vram-budget", "--abc-on", "--synth-workers", "--synth-threads",
    "--device", "--device-workers", "--threads", "--finalize-workers", "--timeline",
    "--period-ms", "--results", "--check-subgroups"};

typedef struct {
    const char *addr, *size, *params_dir, *json_path;
    unsigned sectors, in_flight;
    double duration;
    uint8_t seed[32];
} dopts_;

/* What every calling thread shares. */
typedef struct {
    const dopts_ *o;
    const zkp_fil_seal_proof *p;
    zkp_rpc_client_security sec;
    char *env[CLI_POREP_DISTINCT_MAX]; /* Curio's envelopes */
    size_t env_len[CLI_POREP_DISTINCT_MAX];
    zkp_fil_c1 c1[CLI_POREP_DISTINCT_MAX];
    unsigned distinct;
    zkp_bp_vk vk;
    double t0;
    _Atomic unsigned next;
    pthread_mutex_t lk; /* guards what follows */
    unsigned attempted, done, verified; /* calls answered; proofs back; verified here */
    double *latency, *done_at;
} drun_;

static int parse_(int argc, char **argv, dopts_ *o) {
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i], *v = NULL;
        if (cli_is_help(a)) {
            fputs(daemon_usage, stdout);
            return CLI_OK;
        }
        const char *eq = strchr(a, '=');
        size_t n = eq ? (size_t)(eq - a) : strlen(a);
        for (size_t k = 0; k < sizeof engine_opts_ / sizeof *engine_opts_; k++)
            if (strlen(engine_opts_[k]) == n && !strncmp(a, engine_opts_[k], n)) {
                fprintf(stderr, "zkpipe bench porep: %s is the daemon's to set (its config), "
                                "not an option of --daemon\n", engine_opts_[k]);
                return CLI_USAGE;
            }
        char name[32];
        int r = cli_opt_named("bench porep", argc, argv, &i, name, sizeof name,
                              "see bench porep --daemon ADDR --help", &v);
        if (r == 0) return cli_unknown("bench porep", a, "bench porep --daemon ADDR --help");
        if (r < 0) return CLI_USAGE;
        uint64_t num;
        if (!strcmp(name, "--daemon")) o->addr = v;
        else if (!strcmp(name, "--sector-size")) o->size = v;
        else if (!strcmp(name, "--params")) o->params_dir = v;
        else if (!strcmp(name, "--json")) o->json_path = v;
        else if (!strcmp(name, "--seed")) {
            if (cli_parse_hex32(v, o->seed))
                return cli_refused("bench porep", name, "64 hex digits", v);
        } else if (!strcmp(name, "--duration")) {
            if (cli_parse_duration(v, &o->duration))
                return cli_refused("bench porep", name, CLI_DURATION_WANT, v);
        } else if (!strcmp(name, "--sectors")) {
            if (cli_parse_threads(v, &o->sectors))
                return cli_refused("bench porep", name, CLI_THREADS_WANT, v);
        } else if (!strcmp(name, "--in-flight")) {
            if (cli_parse_u64(v, DAEMON_IN_FLIGHT_MAX, &num) || !num)
                return cli_refused("bench porep", name, DAEMON_IN_FLIGHT_WANT, v);
            o->in_flight = (unsigned)num;
        } else {
            return cli_unknown("bench porep", name, "bench porep --daemon ADDR --help");
        }
    }
    if (!o->addr || !o->size) {
        fprintf(stderr, "zkpipe bench porep: %s is required\n",
                !o->addr ? "--daemon" : "--sector-size");
        fputs(daemon_usage, stderr);
        return CLI_USAGE;
    }
    if (!o->sectors) o->sectors = o->duration > 0 ? 1000 : 1;
    return -1;
}

static const char b64_[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/* Curio's envelope of one C1: {"SectorNum":n,"Phase1Out":"<base64>","SectorSize":n}. */
static char *envelope_(const uint8_t *c1, size_t len, uint64_t sector, uint64_t sector_bytes,
                       size_t *out_len) {
    size_t b64 = (len + 2) / 3 * 4, cap = b64 + 96;
    char *s = malloc(cap);
    if (!s) return NULL;
    size_t n = (size_t)snprintf(s, cap, "{\"SectorNum\":%llu,\"Phase1Out\":\"",
                                (unsigned long long)sector);
    for (size_t i = 0; i < len; i += 3) {
        uint32_t x = (uint32_t)c1[i] << 16;
        if (i + 1 < len) x |= (uint32_t)c1[i + 1] << 8;
        if (i + 2 < len) x |= c1[i + 2];
        s[n++] = b64_[x >> 18 & 63];
        s[n++] = b64_[x >> 12 & 63];
        s[n++] = i + 1 < len ? b64_[x >> 6 & 63] : '=';
        s[n++] = i + 2 < len ? b64_[x & 63] : '=';
    }
    n += (size_t)snprintf(s + n, cap - n, "\",\"SectorSize\":%llu}",
                          (unsigned long long)sector_bytes);
    *out_len = n;
    return s;
}

/* One cuzk.v1 call; the unpacked answer, or NULL with the reason printed. */
static void *call_(const drun_ *r, const char *method, const ProtobufCMessage *req,
                   cli_rpc_unpack_fn unpack) {
    return cli_rpc_call("bench porep", r->o->addr, &r->sec, 0, method, req, unpack);
}

/* One calling thread: sectors one after another until they, or the
 * duration, run out. */
static void *caller_main_(void *arg) {
    drun_ *r = arg;
    for (;;) {
        unsigned i = atomic_fetch_add(&r->next, 1);
        if (i >= r->o->sectors) break;
        if (r->o->duration > 0 && cli_now() - r->t0 >= r->o->duration) break;
        unsigned c = i % r->distinct;
        char rid[64];
        snprintf(rid, sizeof rid, "bench-porep-%llu-%u", (unsigned long long)(r->t0 * 1e6), i);
        Cuzk__V1__SubmitProofRequest s = CUZK__V1__SUBMIT_PROOF_REQUEST__INIT;
        s.request_id = rid;
        s.proof_kind = CUZK__V1__PROOF_KIND__POREP_SEAL_COMMIT;
        s.sector_size = r->p->sector_bytes;
        s.registered_proof = r->p->id;
        s.priority = CUZK__V1__PRIORITY__NORMAL;
        s.sector_number = c + 1; /* as its envelope says */
        s.vanilla_proof.data = (uint8_t *)r->env[c];
        s.vanilla_proof.len = r->env_len[c];
        Cuzk__V1__ProveRequest req = CUZK__V1__PROVE_REQUEST__INIT;
        req.submit = &s;
        double t = cli_now();
        Cuzk__V1__ProveResponse *resp =
            call_(r, "/cuzk.v1.ProvingEngine/Prove", &req.base,
                  (cli_rpc_unpack_fn)cuzk__v1__prove_response__unpack);
        double now = cli_now();
        int ok = 0, good = 0;
        char why[ZKP_DIAG_MAX] = "";
        if (resp && resp->result &&
            resp->result->status == CUZK__V1__AWAIT_PROOF_RESPONSE__STATUS__COMPLETED) {
            ok = 1;
            zkp_diag d = {{0}};
            good = zkp_fil_c2_verify(&r->vk, &r->c1[c], resp->result->proof.data,
                                     resp->result->proof.len, &d) == ZKPIPE_OK;
            if (!good) snprintf(why, sizeof why, "does not verify here: %.400s", d.msg);
        } else if (resp && resp->result) {
            snprintf(why, sizeof why, "%s", resp->result->error_message);
        }
        if (resp) cuzk__v1__prove_response__free_unpacked(resp, NULL);
        pthread_mutex_lock(&r->lk);
        if (ok) {
            r->done_at[r->done] = now - r->t0;
            r->latency[r->done++] = now - t;
            r->verified += good;
        }
        r->attempted++;
        fprintf(stderr, "zkpipe bench porep: sector %u: %s, %.2f s from submission (%.2f s into "
                "the run)%s%s\n", i + 1, good ? "verified" : "FAILED", now - t, now - r->t0,
                why[0] ? ": " : "", why);
        pthread_mutex_unlock(&r->lk);
    }
    return NULL;
}

/* A gauge's value in the daemon's Prometheus text; 0 when absent. */
static uint64_t gauge_(const char *text, const char *name) {
    size_t n = strlen(name);
    for (const char *l = text; l && *l;) {
        if (!strncmp(l, name, n) && l[n] == ' ') return strtoull(l + n + 1, NULL, 10);
        l = strchr(l, '\n');
        if (l) l++;
    }
    return 0;
}

/* js: the --json summary, opened before any work, committed at the end. */
static int run_(dopts_ *o, drun_ *r, cli_summary *js) {
    char want[64];
    snprintf(want, sizeof want, "StackedDrg%sV1_1", o->size);
    r->p = zkp_fil_seal_proof_by_name(want, strlen(want));
    if (!r->p) {
        fprintf(stderr, "zkpipe bench porep: --sector-size %s: 2KiB, 8MiB, 512MiB, 32GiB or "
                        "64GiB\n", o->size);
        return CLI_USAGE;
    }
    /* The verifying key, to check every proof here as well. */
    char path[4096];
    zkp_fil_params_circuit fc;
    zkp_fil_porep_shape_of(&fc, r->p);
    if (zkp_fil_params_lookup(path, sizeof path, o->params_dir, &fc, "vk") <= 0) {
        fprintf(stderr, "zkpipe bench porep: --params: the path is too long\n");
        return CLI_USAGE;
    }
    char *vk_bytes;
    size_t vk_len;
    zkp_diag d = {{0}};
    zkpipe_status st = zkp_read_file(path, (size_t)1 << 26, &vk_bytes, &vk_len, &d);
    if (st == ZKPIPE_OK) {
        st = zkp_bp_vk_parse(&r->vk, (const uint8_t *)vk_bytes, vk_len, 1, NULL, path, NULL, &d);
        free(vk_bytes);
    }
    if (st != ZKPIPE_OK) return cli_fail("bench porep", st, &d, CLI_BAD_INPUT);

    r->distinct = o->sectors < CLI_POREP_DISTINCT_MAX ? o->sectors : CLI_POREP_DISTINCT_MAX;
    for (unsigned i = 0; i < r->distinct; i++) {
        uint8_t *json;
        size_t len;
        if ((st = cli_porep_c1(r->p, o->seed, i, &json, &len, &d)) == ZKPIPE_OK) {
            st = zkp_fil_c1_parse(&r->c1[i], (const char *)json, len, "C1", NULL, ZKP_MEM_AUX,
                                  &d);
            r->env[i] = envelope_(json, len, i + 1, r->p->sector_bytes, &r->env_len[i]);
            zkp_free(NULL, json, len, ZKP_MEM_AUX);
            if (st == ZKPIPE_OK && !r->env[i]) st = ZKPIPE_ERR_NO_MEMORY;
        }
        if (st != ZKPIPE_OK) return cli_fail("bench porep", st, &d, CLI_INVALID);
    }
    const char *made = r->p->sector_bytes <= CLI_POREP_SEAL_MAX_BYTES
                           ? "sealed here"
                           : "SYNTHETIC (INSECURE, benchmarks only)";
    fprintf(stderr, "zkpipe bench porep: %s through the daemon at %s: %u sector(s) (%u C1(s) %s), "
            "%u in flight\n", r->p->name, o->addr, o->sectors, r->distinct, made, o->in_flight);

    r->latency = calloc(o->sectors, sizeof(double));
    r->done_at = calloc(o->sectors, sizeof(double));
    pthread_t th[DAEMON_IN_FLIGHT_MAX];
    unsigned started = 0;
    if (!r->latency || !r->done_at)
        return cli_fail("bench porep", ZKPIPE_ERR_NO_MEMORY, NULL, CLI_INVALID);
    r->t0 = cli_now();
    for (; started < o->in_flight; started++)
        if (pthread_create(&th[started], NULL, caller_main_, r) != 0) break;
    for (unsigned i = 0; i < started; i++) pthread_join(th[i], NULL);
    if (!started) return cli_fail("bench porep", ZKPIPE_ERR_NO_MEMORY, NULL, CLI_INVALID);
    double seconds = 0; /* to the last completion */
    for (unsigned i = 0; i < r->done; i++)
        if (r->done_at[i] > seconds) seconds = r->done_at[i];

    /* The daemon's memory, from its metrics. */
    Cuzk__V1__GetMetricsRequest mreq = CUZK__V1__GET_METRICS_REQUEST__INIT;
    Cuzk__V1__GetMetricsResponse *m =
        call_(r, "/cuzk.v1.ProvingEngine/GetMetrics", &mreq.base,
              (cli_rpc_unpack_fn)cuzk__v1__get_metrics_response__unpack);
    uint64_t peak = 0, base = 0, budget = 0, violations = 0;
    if (m) {
        peak = gauge_(m->prometheus_text, "zkpipe_peak_rss_bytes");
        base = gauge_(m->prometheus_text, "zkpipe_baseline_rss_bytes");
        budget = gauge_(m->prometheus_text, "zkpipe_budget_bytes");
        violations = gauge_(m->prometheus_text, "zkpipe_reservation_violations_total");
        cuzk__v1__get_metrics_response__free_unpacked(m, NULL);
    }

    const double G = 1073741824.0;
    double latency_median = r->done ? cli_median(r->latency, r->done) : 0;
    double interval = cli_sector_interval_median(r->done_at, r->done);
    double per_proof = r->done ? seconds / r->done : 0;
    printf("bench porep: %s through the daemon at %s, %u sector(s) in %.3f s: %.3f s per proof, "
           "median sector latency %.3f s\n",
           r->p->name, o->addr, r->done, seconds, per_proof, latency_median);
    if (interval > 0)
        printf("steady state: a sector every %.3f s (the median time between completions)\n",
               interval);
    if (budget)
        printf("the daemon: peak RSS %.2f GiB, baseline %.2f GiB, budget %.2f GiB (%s), "
               "reservation violations %llu\n", peak / G, base / G, budget / G,
               peak <= base + budget ? "within baseline + budget" : "ABOVE baseline + budget",
               (unsigned long long)violations);
    else
        printf("the daemon's memory: its metrics could not be read\n");
    printf("sectors verified: %u of %u\n", r->verified, r->attempted);
    int code = r->verified != r->attempted || !r->done ? CLI_INVALID : CLI_OK;
    if (js) {
        fprintf(js->f,
                "{\"bench\":\"porep\",\"daemon\":\"%s\",\"registered_proof\":\"%s\","
                "\"sector_bytes\":%llu,\"in_flight\":%u,\"proofs\":%u,\"proofs_verified\":%u,"
                "\"attempted\":%u,\"seconds\":%.6f,\"seconds_per_proof\":%.6f,"
                "\"sector_seconds_median\":%.6f,\"sector_interval_median\":%.6f,"
                "\"duration\":%.3f,\"peak_rss_bytes\":%llu,\"baseline_rss_bytes\":%llu,"
                "\"budget_bytes\":%llu,\"reservation_violations\":%llu}\n",
                o->addr, r->p->name, (unsigned long long)r->p->sector_bytes, o->in_flight, r->done,
                r->verified, r->attempted, seconds, per_proof, latency_median, interval,
                o->duration,
                (unsigned long long)peak, (unsigned long long)base, (unsigned long long)budget,
                (unsigned long long)violations);
        int wrote = cli_summary_commit("bench porep", js);
        if (wrote != CLI_OK) code = wrote;
    }
    return code;
}

int cli_bench_porep_daemon(int argc, char **argv) {
    dopts_ o;
    memset(&o, 0, sizeof o);
    o.in_flight = 2;
    int code = parse_(argc, argv, &o);
    if (code >= 0) return code;
    cli_summary js;
    if (o.json_path && (code = cli_summary_open("bench porep", &js, o.json_path)) != CLI_OK)
        return code;
    drun_ *r = calloc(1, sizeof *r);
    if (!r) {
        if (o.json_path) cli_summary_close(&js);
        return cli_fail("bench porep", ZKPIPE_ERR_NO_MEMORY, NULL, CLI_INVALID);
    }
    r->o = &o;
    pthread_mutex_init(&r->lk, NULL);
    atomic_init(&r->next, 0);
    const char *token = getenv("ZKPIPE_TOKEN");
    if (token && *token) r->sec.token = token;
    code = run_(&o, r, o.json_path ? &js : NULL);
    if (o.json_path) cli_summary_close(&js); /* committed already, unless the run failed */
    for (unsigned i = 0; i < CLI_POREP_DISTINCT_MAX; i++) {
        free(r->env[i]);
        zkp_fil_c1_free(&r->c1[i]);
    }
    zkp_bp_vk_free(&r->vk);
    free(r->latency);
    free(r->done_at);
    pthread_mutex_destroy(&r->lk);
    free(r);
    return code;
}
