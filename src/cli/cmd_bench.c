/* zkpipe bench pipeline: J jobs of P partitions through the engine, then
 * the same proofs one after another through the plain prover (what
 * `zkpipe prove` does), with throughput, per-stage times and the memory
 * story: peak RSS against the budget, tracked bytes against RSS. The key
 * and witnesses are files, or a synthetic workload (src/synthetic: an
 * INSECURE key of any size) made in a temporary directory for the run.
 *
 * zkpipe bench synthetic: writes such a workload's files, for `zkpipe
 * prove` and other benchmarks. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/bench_report.h"
#include "cli/cli.h"
#include "formats/wtns.h"
#include "formats/zkey.h"
#include "groth16/backend.h"
#include "groth16/groth16.h"
#include "mem/mem.h"
#include "synthetic/synthetic.h"
#include "zkpipe/engine.h"

static const char bench_usage[] =
    "usage: zkpipe bench pipeline --key <circuit.zkey> --witness <witness.wtns> [--witness ...]\n"
    "                             [--key ... --witness ...] [--partitions P] [--jobs J]\n"
    "                             [--budget SIZE] [options]\n"
    "       zkpipe bench pipeline --synthetic <curve>:<log2> [--seed S] [options]\n"
    "       zkpipe bench synthetic <curve>:<log2> <out-dir> [--witnesses N] [--seed S]\n"
    "                             [--threads N]\n"
    "       zkpipe bench msm|ntt --curve C --log L[,L...] [--device D] (see bench msm --help)\n"
    "       zkpipe bench prove [--curve C] [--log L] [--device D] (see bench prove --help)\n"
    "       zkpipe bench porep --sector-size S [--params DIR] [--sectors N] (bench porep --help)\n"
    "  --key K --witness W   a key and its witnesses; repeat --key (up to 8) for jobs that\n"
    "                        alternate between keys, each followed by its own witnesses\n"
    "  --synthetic C:L       instead of --key/--witness: a built-in squaring-chain circuit\n"
    "                        of 2^L rows on curve C (bn254, bn128, bls12381, bls12_381),\n"
    "                        its key and one witness per partition made in a temporary\n"
    "                        directory (removed afterwards); INSECURE key, benchmarks only\n"
    "  --seed S              the synthetic key's toxic waste and witnesses (default 1)\n"
    "  --partitions P        partitions per job (default 4); witnesses are used in turn\n"
    "  --jobs J              jobs (default 2)\n"
    "  --budget SIZE         memory budget, e.g. 64MiB, 2GiB (default: detect)\n"
    "  --vram-budget SIZE    device memory the engine may take on each GPU (default: all)\n"
    "  --synth-workers N     synthesis workers (default 1)\n"
    "  --synth-threads N     threads per synthesis (default 1)\n"
    "  --device D            cpu, cuda (every GPU) or auto (default: the GPUs if any)\n"
    "  --device-workers M    workers per device, sharing it (default 2)\n"
    "  --device-threads N    threads per prove_start/finalize (default: every CPU)\n"
    "  --finalize-workers N  finalize + verify workers (default 1)\n"
    "  --priority P          low|normal|high|critical|mixed (default normal; mixed cycles)\n"
    "  --timeline out.csv    write the RSS / tracked-bytes timeline, and out.svg drawing it\n"
    "  --period-ms N         RSS sampling period (default 20)\n"
    "  --no-verify           do not verify proofs (engine and baseline)\n"
    "  --no-baseline         skip the sequential run\n"
    "  --json                print one JSON object\n"
    "bench synthetic writes <out-dir>/circuit.zkey and witness_<i>.wtns (i < N, default 1)\n"
    "for `zkpipe prove` and prints their paths. The circuit: x_{i+1} = x_i^2 + (i + 1),\n"
    "public input x_0, public output the last x, 2^L - 3 constraints plus snarkjs's 3\n"
    "public-input rows, so the domain is exactly 2^L. The toxic waste comes from the seed:\n"
    "anyone can forge proofs for these keys; never use them but to benchmark and test.\n"
    CLI_OPTIONS_HELP;

/* A synthetic workload in a directory: the key and witness paths, and
 * whether the directory is ours to remove. */
typedef struct {
    char *dir;
    char *zkey;
    char **wtns;
    size_t nwtns;
    int made_dir;
    double key_seconds, wtns_seconds;
    zkp_synthetic_shape shape;
} bench_synth_;

static char *path_join_(const char *dir, const char *name) {
    size_t n = strlen(dir) + strlen(name) + 2;
    char *p = malloc(n);
    if (p) snprintf(p, n, "%s/%s", dir, name);
    return p;
}

/* What --seed wants, as a refusal says it. */
#define SEED_WANT_ "a number below 2^64, in decimal, 0x hex or 0 octal"

static int parse_seed_(const char *v, uint64_t *out) {
    /* strtoull would also take leading spaces and a sign (" -1" is 2^64 - 1):
     * a seed starts with a digit. */
    if (*v < '0' || *v > '9') return -1;
    char *end;
    errno = 0;
    unsigned long long x = strtoull(v, &end, 0);
    if (*end || errno) return -1;
    *out = x;
    return 0;
}

/* mkdir -p: every missing directory of path, in place (path is restored). */
static int mkdir_p_(char *path) {
    for (char *c = path + 1;; c++) {
        if (*c != '/' && *c) continue;
        char saved = *c;
        *c = 0;
        int rc = mkdir(path, 0777) != 0 && errno != EEXIST ? -1 : 0;
        *c = saved;
        if (rc || !saved) return rc;
    }
}

/* Removes the files made (every one that exists) and, when it made the
 * directory, the directory. Accepts a half-made workload. */
static void bench_synth_clear_(bench_synth_ *s) {
    if (s->made_dir && s->zkey) unlink(s->zkey);
    for (size_t i = 0; i < s->nwtns; i++) {
        if (s->made_dir && s->wtns[i]) unlink(s->wtns[i]);
        free(s->wtns[i]);
    }
    if (s->made_dir && s->dir && rmdir(s->dir) != 0)
        fprintf(stderr, "zkpipe bench: cannot remove %s: %s\n", s->dir, strerror(errno));
    free(s->wtns);
    free(s->zkey);
    free(s->dir);
    memset(s, 0, sizeof *s);
}

/* Writes the key and nwtns witnesses of p into dir (made with mkdtemp from
 * a template when tmp is set, else created if missing). Returns a CLI exit
 * code; on failure what was written stays listed in s for
 * bench_synth_clear_. */
static int bench_synth_make_(bench_synth_ *s, const zkp_synthetic_params *p, const char *dir,
                             int tmp, size_t nwtns) {
    zkp_diag d = {{0}};
    zkpipe_status st = zkp_synthetic_shape_of(p, &s->shape, &d);
    if (st != ZKPIPE_OK) return cli_fail("bench", st, &d, CLI_USAGE);
    s->dir = strdup(dir);
    if (!s->dir) return cli_fail("bench", ZKPIPE_ERR_NO_MEMORY, NULL, CLI_INVALID);
    if (tmp) {
        if (!mkdtemp(s->dir)) {
            fprintf(stderr, "zkpipe bench: cannot make a directory like %s: %s\n", dir,
                    strerror(errno));
            return CLI_INVALID;
        }
        s->made_dir = 1;
    } else if (mkdir_p_(s->dir) != 0) {
        fprintf(stderr, "zkpipe bench: cannot make %s: %s\n", dir, strerror(errno));
        return CLI_INVALID;
    }
    s->zkey = path_join_(s->dir, "circuit.zkey");
    s->wtns = calloc(nwtns, sizeof *s->wtns);
    if (!s->zkey || !s->wtns) return cli_fail("bench", ZKPIPE_ERR_NO_MEMORY, NULL, CLI_INVALID);
    double t0 = cli_now();
    if ((st = zkp_synthetic_write_zkey(p, s->zkey, &d)) != ZKPIPE_OK)
        return cli_fail("bench", st, &d, CLI_INVALID);
    double t1 = cli_now();
    for (size_t i = 0; i < nwtns; i++) {
        char name[64];
        snprintf(name, sizeof name, "witness_%zu.wtns", i);
        s->wtns[i] = path_join_(s->dir, name);
        s->nwtns = i + 1;
        if (!s->wtns[i]) return cli_fail("bench", ZKPIPE_ERR_NO_MEMORY, NULL, CLI_INVALID);
        if ((st = zkp_synthetic_write_wtns(p, i, s->wtns[i], &d)) != ZKPIPE_OK)
            return cli_fail("bench", st, &d, CLI_INVALID);
    }
    s->key_seconds = t1 - t0;
    s->wtns_seconds = cli_now() - t1;
    return CLI_OK;
}

static const char *curve_label_(zkpipe_curve c) {
    return c == ZKPIPE_CURVE_BN254 ? "bn254" : "bls12_381";
}

/* One line on the workload and the time it took to make. */
static void bench_synth_report_(FILE *f, const bench_synth_ *s, const zkp_synthetic_params *p) {
    const double M = 1048576.0;
    char threads[32] = "every CPU";
    if (p->nthreads) snprintf(threads, sizeof threads, "%u threads", p->nthreads);
    fprintf(f,
            "synthetic workload (INSECURE key): %s 2^%u rows, %u constraints, %u variables; "
            "key %.1f MiB made and written in %.3f s on %s, %zu witness(es) in %.3f s\n",
            curve_label_(p->curve), p->log_n, (unsigned)s->shape.n_constraints,
            (unsigned)s->shape.n_vars, (double)s->shape.zkey_bytes / M, s->key_seconds, threads,
            s->nwtns, s->wtns_seconds);
}

static int bench_synthetic_(int argc, char **argv) {
    const char *spec = NULL, *dir = NULL;
    zkp_synthetic_params p = {ZKPIPE_CURVE_BN254, 0, 1, 0};
    unsigned nwtns = 1;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i], *v = NULL;
        int r;
        if (cli_is_help(a)) {
            fputs(bench_usage, stdout);
            return CLI_OK;
        }
        if ((r = cli_opt("bench", argc, argv, &i, "--witnesses", "a count from 1 to 4096", &v))) {
            if (r < 0) return CLI_USAGE;
            if (cli_parse_threads(v, &nwtns))
                return cli_refused("bench", "--witnesses", "a count from 1 to 4096", v);
        } else if ((r = cli_opt("bench", argc, argv, &i, "--seed", SEED_WANT_, &v))) {
            if (r < 0) return CLI_USAGE;
            if (parse_seed_(v, &p.seed)) return cli_refused("bench", "--seed", SEED_WANT_, v);
        } else if ((r = cli_opt("bench", argc, argv, &i, "--threads", CLI_THREADS_WANT,
                                &v))) {
            if (r < 0) return CLI_USAGE;
            if (cli_parse_threads(v, &p.nthreads))
                return cli_refused("bench", "--threads", CLI_THREADS_WANT, v);
        } else if (a[0] == '-' && a[1] == '-') {
            return cli_unknown("bench", a, "bench synthetic --help");
        } else if (!spec) {
            spec = a;
        } else if (!dir) {
            dir = a;
        } else {
            fprintf(stderr, "zkpipe bench: synthetic takes <curve>:<log2> and <out-dir>, not also "
                            "\"%s\"\n", a);
            return CLI_USAGE;
        }
    }
    if (!spec || !dir) {
        fprintf(stderr, "zkpipe bench: synthetic needs %s\n",
                spec ? "<out-dir> after <curve>:<log2>" : "<curve>:<log2> and <out-dir>");
        goto usage;
    }
    zkp_diag d = {{0}};
    zkpipe_status st = zkp_synthetic_parse_spec(spec, &p.curve, &p.log_n, &d);
    if (st != ZKPIPE_OK) return cli_fail("bench", st, &d, CLI_USAGE);
    bench_synth_ s;
    memset(&s, 0, sizeof s);
    int rc = bench_synth_make_(&s, &p, dir, 0, nwtns);
    if (rc == CLI_OK) {
        bench_synth_report_(stderr, &s, &p);
        printf("%s\n", s.zkey);
        for (size_t i = 0; i < s.nwtns; i++) printf("%s\n", s.wtns[i]);
    }
    bench_synth_clear_(&s);
    return rc;
usage:
    fputs(bench_usage, stderr);
    return CLI_USAGE;
}

static int parse_prio_(const char *s, int *out) {
    static const char *names[] = {"low", "normal", "high", "critical", "mixed"};
    for (int i = 0; i < 5; i++)
        if (!strcmp(s, names[i])) {
            *out = i;
            return 0;
        }
    return -1;
}

#define BENCH_MAX_KEYS 8

/* One --key and the witnesses that follow it. */
typedef struct {
    const char *zkey;
    char **wit; /* into the shared witness list */
    size_t nwit;
    uint32_t id;
} bench_key_;

/* `total` proofs on one loaded key with the plain prover, one after
 * another, as `zkpipe prove` makes them (its own synthesis, the default
 * allocator). */
static int sequential_key_(const zkp_zkey *key, char **wit, size_t nwit, size_t total,
                           unsigned threads, int verify, zkp_g16_backend *be, size_t *verified) {
    zkp_diag d = {{0}};
    zkp_g16_pk pk;
    zkp_zkey_pk(key, &pk);
    zkp_g16_vk vk;
    zkp_zkey_vk(key, &vk);
    int rc = 0;
    /* On a GPU the key goes to the device once, as `zkpipe prove` does it. */
    zkp_g16_rkey *rk = NULL;
    if (be && zkp_g16_backend_is_gpu(be) && zkp_g16_rkey_load(&rk, be, &pk, &d) != ZKPIPE_OK) {
        fprintf(stderr, "zkpipe bench: baseline: %s\n", d.msg);
        return -1;
    }
    for (size_t i = 0; i < total && !rc; i++) {
        zkp_wtns w = {0};
        zkp_g16_pending *p = NULL;
        zkp_g16_proof proof;
        zkp_g16_public pub = {0};
        if (zkp_wtns_load(&w, wit[i % nwit], NULL, &d) != ZKPIPE_OK ||
            zkp_wtns_check_zkey(&w, key, &d) != ZKPIPE_OK) {
            rc = -1;
        } else {
            pub.curve = w.curve;
            pub.n = zkp_zkey_n_public(key);
            pub.values = malloc(pub.n * 32 + 1);
            if (pub.values) memcpy(pub.values, w.values + 4, pub.n * 32);
            zkp_buffer wb = {w.values, w.values_bytes, ZKP_MEM_WITNESS, w.alloc};
            w.values = NULL;
            zkp_g16_prove_opts o = {.nthreads = threads, .rkey = rk};
            if (!pub.values || zkp_g16_prove_start(&p, &pk, &wb, &o, &d) != ZKPIPE_OK ||
                zkp_g16_prove_finalize(&proof, p, NULL, &d) != ZKPIPE_OK)
                rc = -1;
            else if (verify) {
                if (zkp_g16_verify(&vk, &pub, &proof, &d) != ZKPIPE_OK)
                    rc = -1;
                else
                    (*verified)++;
            }
        }
        if (rc) fprintf(stderr, "zkpipe bench: baseline: %s\n", d.msg);
        zkp_g16_public_release(&pub);
        zkp_wtns_free(&w);
    }
    zkp_g16_rkey_free(rk);
    return rc;
}

/* The pipeline's proofs made one after another: job j (of `parts`
 * partitions) on key j % nkeys, one key loaded at a time. */
static int sequential_(const bench_key_ *keys, size_t nkeys, unsigned jobs, unsigned parts,
                       unsigned threads, int verify, zkp_g16_backend *be, double *seconds,
                       size_t *verified) {
    double t0 = cli_now();
    int rc = 0;
    *verified = 0;
    for (unsigned j = 0; j < jobs && !rc; j++) {
        const bench_key_ *bk = &keys[j % nkeys];
        zkp_diag d = {{0}};
        zkp_zkey key = {0};
        zkp_zkey_options ko = {.nthreads = threads};
        if (zkp_zkey_load(&key, bk->zkey, &ko, &d) != ZKPIPE_OK) {
            fprintf(stderr, "zkpipe bench: %s\n", d.msg);
            return -1;
        }
        rc = sequential_key_(&key, bk->wit, bk->nwit, parts, threads, verify, be, verified);
        zkp_zkey_free(&key);
    }
    *seconds = cli_now() - t0;
    return rc;
}

/* wit: room for every --witness, or for the synthetic witnesses (one per
 * partition, at most 4096). */
static int bench_pipeline_main_(int argc, char **argv, char **wit, bench_synth_ *synth) {
    const char *timeline = NULL, *synth_spec = NULL;
    /* Made on every CPU whatever --device-threads says: making the workload
     * is not part of what is measured. */
    zkp_synthetic_params sp = {ZKPIPE_CURVE_BN254, 0, 1, 0};
    size_t nwit = 0, nkeys = 0;
    bench_key_ keys[BENCH_MAX_KEYS];
    memset(keys, 0, sizeof keys);
    unsigned parts = 4, jobs = 2, period = 20;
    int json = 0, baseline = 1, prio = 1, verify = 1, seed_given = 0;
    zkpipe_engine_config cfg;
    (void)zkpipe_engine_config_default(&cfg);
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i], *v = NULL;
        unsigned *num = NULL;
        if (!strcmp(a, "--json")) { json = 1; continue; }
        if (!strcmp(a, "--no-baseline")) { baseline = 0; continue; }
        if (!strcmp(a, "--no-verify")) { verify = 0; continue; }
        /* Every other option takes a value; a becomes the bare name. */
        char name[32];
        int r = cli_opt_named("bench", argc, argv, &i, name, sizeof name, "see bench --help", &v);
        if (r == 0) return cli_unknown("bench", a, "bench pipeline --help");
        if (r < 0) return CLI_USAGE;
        a = name;
        if (!strcmp(a, "--key")) {
            if (nkeys == BENCH_MAX_KEYS) {
                fprintf(stderr, "zkpipe bench: at most %d --key\n", BENCH_MAX_KEYS);
                return CLI_USAGE;
            }
            keys[nkeys++] = (bench_key_){v, wit + nwit, 0, 0};
        } else if (!strcmp(a, "--witness")) {
            if (!nkeys) {
                fprintf(stderr, "zkpipe bench: --witness %s comes before any --key\n", v);
                return CLI_USAGE;
            }
            wit[nwit++] = (char *)v;
            keys[nkeys - 1].nwit++;
        }
        else if (!strcmp(a, "--synthetic")) synth_spec = v;
        else if (!strcmp(a, "--seed")) {
            if (parse_seed_(v, &sp.seed)) return cli_refused("bench", a, SEED_WANT_, v);
            seed_given = 1;
        }
        else if (!strcmp(a, "--timeline")) timeline = v;
        else if (!strcmp(a, "--budget") || !strcmp(a, "--vram-budget")) {
            if (cli_parse_size(v, !strcmp(a, "--budget") ? &cfg.budget_bytes
                                                         : &cfg.vram_budget_bytes))
                return cli_refused("bench", a, "a size, e.g. 64MiB or 2GiB", v);
        } else if (!strcmp(a, "--priority")) {
            if (parse_prio_(v, &prio))
                return cli_refused("bench", a, "low, normal, high, critical or mixed", v);
        } else if (!strcmp(a, "--partitions")) num = &parts;
        else if (!strcmp(a, "--jobs")) num = &jobs;
        else if (!strcmp(a, "--synth-workers")) num = &cfg.synth_workers;
        else if (!strcmp(a, "--synth-threads")) num = &cfg.synth_threads;
        else if (!strcmp(a, "--device")) cfg.device = v;
        else if (!strcmp(a, "--device-workers")) num = &cfg.device_workers;
        else if (!strcmp(a, "--device-threads")) num = &cfg.device_threads;
        else if (!strcmp(a, "--finalize-workers")) num = &cfg.finalize_workers;
        else if (!strcmp(a, "--period-ms")) num = &period;
        else return cli_unknown("bench", a, "bench pipeline --help");
        if (num && cli_parse_threads(v, num))
            return cli_refused("bench", a, CLI_THREADS_WANT, v);
    }
    if (seed_given && !synth_spec) {
        fprintf(stderr, "zkpipe bench: --seed is the seed of --synthetic, which is not given\n");
        return CLI_USAGE;
    }
    if (synth_spec) {
        if (nkeys) {
            fprintf(stderr, "zkpipe bench: --synthetic or --key, not both\n");
            return CLI_USAGE;
        }
        zkp_diag d = {{0}};
        zkpipe_status sst = zkp_synthetic_parse_spec(synth_spec, &sp.curve, &sp.log_n, &d);
        if (sst != ZKPIPE_OK) return cli_fail("bench", sst, &d, CLI_USAGE);
        const char *tmp = getenv("TMPDIR");
        char *templ = path_join_(tmp && *tmp ? tmp : "/tmp", "zkpipe-synthetic-XXXXXX");
        if (!templ) return CLI_INVALID;
        int rc = bench_synth_make_(synth, &sp, templ, 1, parts);
        free(templ);
        if (rc != CLI_OK) return rc;
        if (!json) bench_synth_report_(stdout, synth, &sp);
        keys[0] = (bench_key_){synth->zkey, wit, 0, 0};
        for (size_t i = 0; i < synth->nwtns; i++) wit[nwit++] = synth->wtns[i];
        keys[0].nwit = synth->nwtns;
        nkeys = 1;
    }
    if (!nkeys) {
        fprintf(stderr, "zkpipe bench: pipeline needs --key and --witness, or --synthetic\n");
        goto usage;
    }
    for (size_t k = 0; k < nkeys; k++)
        if (!keys[k].nwit) {
            fprintf(stderr, "zkpipe bench: --key %s needs a --witness after it\n", keys[k].zkey);
            goto usage;
        }
    cfg.verify = verify;
    cfg.rss_period_ms = period;
    char tmpcsv[64] = "";
    if (!timeline) {
        snprintf(tmpcsv, sizeof tmpcsv, "/tmp/zkpipe-bench-%ld.csv", (long)getpid());
        timeline = tmpcsv;
    }
    cfg.timeline_csv = timeline;

    (void)zkp_mem_reset_peak_rss();
    double t_create = cli_now();
    zkpipe_engine *e = NULL;
    char err[256] = "";
    zkpipe_status st = zkpipe_engine_create(&e, &cfg, err, sizeof err);
    if (st != ZKPIPE_OK) {
        fprintf(stderr, "zkpipe bench: %s (%s)\n", err, zkpipe_status_name(st));
        return CLI_INVALID;
    }
    for (size_t k = 0; k < nkeys; k++)
        if ((st = zkpipe_engine_register_key(e, &keys[k].id, keys[k].zkey)) != ZKPIPE_OK) {
            fprintf(stderr, "zkpipe bench: cannot open %s (%s)\n", keys[k].zkey,
                    zkpipe_status_name(st));
            (void)zkpipe_engine_destroy(&e);
            return CLI_BAD_INPUT;
        }
    /* Partition i of a job on key k uses that key's witnesses in turn. */
    zkpipe_witness *wv = calloc((size_t)parts * nkeys, sizeof *wv);
    uint64_t *ids = calloc(jobs, sizeof *ids);
    if (!wv || !ids) return CLI_INVALID;
    for (size_t k = 0; k < nkeys; k++)
        for (unsigned i = 0; i < parts; i++) wv[k * parts + i].path = keys[k].wit[i % keys[k].nwit];
    double t0 = cli_now();
    for (unsigned j = 0; j < jobs; j++) {
        size_t k = j % nkeys;
        zkpipe_job_request r = {keys[k].id, wv + k * parts, parts,
                                (zkpipe_priority)(prio == 4 ? (int)(j % 4) : prio), NULL, 0, NULL, 0,
                                NULL};
        if ((st = zkpipe_engine_submit(e, &ids[j], &r)) != ZKPIPE_OK) {
            fprintf(stderr, "zkpipe bench: submit: %s\n", zkpipe_status_name(st));
            return CLI_INVALID;
        }
    }
    bench_summary sum;
    memset(&sum, 0, sizeof sum);
    for (unsigned j = 0; j < jobs; j++) {
        zkpipe_job_result r;
        if ((st = zkpipe_engine_await(e, ids[j], -1, &r)) != ZKPIPE_OK) return CLI_INVALID;
        if (r.status != ZKPIPE_OK) {
            fprintf(stderr, "zkpipe bench: job %llu: %s\n", (unsigned long long)r.job_id, r.error);
            sum.jobs_failed++;
        }
        for (size_t i = 0; i < r.n_partitions; i++)
            sum.proofs_verified += (size_t)r.partitions[i].verified;
        zkpipe_stage_times_add(&sum.stages, &r.times);
        zkpipe_job_result_clear(&r);
    }
    double t_end = cli_now();
    sum.seconds = t_end - t0;
    sum.proofs = jobs;
    sum.partitions = (size_t)jobs * parts;
    uint32_t key_ids[BENCH_MAX_KEYS];
    for (size_t k = 0; k < nkeys; k++) key_ids[k] = keys[k].id;
    bench_engine_finish(&e, key_ids, nkeys, !json, &sum);
    char svg[4096];
    bench_timeline_finish(timeline, tmpcsv[0] != 0, t_end - t_create, &sum, svg, sizeof svg);
    if (svg[0] && !json) printf("timeline: %s and %s\n", timeline, svg);

    if (baseline) {
        /* The baseline proves where the engine proved: on its first GPU,
         * or on the CPU. */
        zkp_g16_backend *be = NULL;
        zkp_diag bd = {{0}};
        const char *name = sum.on_gpu ? "cuda:0" : "cpu";
        if (zkp_g16_backend_open(&be, name, NULL, 0, &bd) != ZKPIPE_OK) {
            fprintf(stderr, "zkpipe bench: baseline: %s\n", bd.msg);
            return CLI_INVALID;
        }
        int rc = sequential_(keys, nkeys, jobs, parts, cfg.device_threads, verify, be,
                             &sum.sequential_seconds, &sum.sequential_proofs_verified);
        zkp_g16_backend_close(be);
        if (rc) return CLI_INVALID;
        (void)zkp_mem_read_rss(&sum.rss_after_sequential_bytes);
    }
    size_t failed = sum.jobs_failed;
    if (json) {
        if (synth_spec)
            printf("{\"synthetic\":{\"curve\":\"%s\",\"log_n\":%u,\"constraints\":%u,"
                   "\"zkey_bytes\":%zu,\"key_seconds\":%.6f,\"witness_seconds\":%.6f},",
                   curve_label_(sp.curve), sp.log_n, (unsigned)synth->shape.n_constraints,
                   synth->shape.zkey_bytes, synth->key_seconds, synth->wtns_seconds);
        else
            printf("{");
        bench_summary_json(stdout, &sum);
        printf(",\"reservation_violations\":%llu}\n",
               (unsigned long long)sum.reservation_violations);
    } else {
        printf("pipeline: %u jobs x %u partitions = %zu proofs in %.3f s (%.2f partitions/s)\n",
               jobs, parts, sum.partitions, sum.seconds, sum.partitions / sum.seconds);
        if (baseline)
            printf("sequential (plain prover): %.3f s; pipeline speedup %.2fx\n",
                   sum.sequential_seconds, sum.sequential_seconds / sum.seconds);
        bench_summary_text(stdout, &sum);
        printf("proofs verified: %zu of %zu%s\n", sum.proofs_verified, sum.partitions,
               failed ? " (some jobs FAILED)" : "");
    }
    free(wv);
    free(ids);
    return failed ? CLI_INVALID : CLI_OK;
usage:
    fputs(bench_usage, stderr);
    return CLI_USAGE;
}

/* The synthetic workload's directory, and the witness list, go whichever
 * way the run ends. */
static int bench_pipeline_(int argc, char **argv) {
    char **wit = calloc((size_t)argc + 4097, sizeof *wit);
    if (!wit) return cli_fail("bench", ZKPIPE_ERR_NO_MEMORY, NULL, CLI_INVALID);
    bench_synth_ synth;
    memset(&synth, 0, sizeof synth);
    int rc = bench_pipeline_main_(argc, argv, wit, &synth);
    bench_synth_clear_(&synth);
    free(wit);
    return rc;
}

int cli_bench(int argc, char **argv) {
    if (argc >= 1 && !strcmp(argv[0], "pipeline")) {
        for (int i = 1; i < argc; i++)
            if (cli_is_help(argv[i])) {
                fputs(bench_usage, stdout);
                return CLI_OK;
            }
        return bench_pipeline_(argc - 1, argv + 1);
    }
    if (argc >= 1 && !strcmp(argv[0], "synthetic")) return bench_synthetic_(argc - 1, argv + 1);
    if (argc >= 1 && !strcmp(argv[0], "prove")) return cli_bench_prove(argc - 1, argv + 1);
    if (argc >= 1 && !strcmp(argv[0], "porep")) return cli_bench_porep(argc - 1, argv + 1);
    if (argc >= 1 && (!strcmp(argv[0], "msm") || !strcmp(argv[0], "ntt")))
        return cli_bench_kernel(argv[0], argc - 1, argv + 1);
    fputs(bench_usage, argc >= 1 && cli_is_help(argv[0]) ? stdout : stderr);
    return argc >= 1 && cli_is_help(argv[0]) ? CLI_OK : CLI_USAGE;
}
