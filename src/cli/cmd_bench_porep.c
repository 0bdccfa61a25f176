/* zkpipe bench porep: Filecoin PoRep C2 proofs of whole sectors through
 * the engine, back to back, every partition verified, with the throughput
 * and memory summary of bench pipeline plus what a PoRep operator sizes a
 * machine by: seconds per proof, how busy synthesis and the device were,
 * and proofs per hour per GiB of budget.
 *
 * The C1s are made before the clock starts: small sectors are sealed here
 * (in memory), large ones get a synthetic C1 (filecoin/seal.h), so the same
 * command runs at 2 KiB on a laptop and at 32 GiB on a GPU machine. The
 * parameters are never made here: at 32 GiB that is its own long job. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli/bench_porep.h"
#include "cli/bench_report.h"
#include "cli/cli.h"
#include "formats/bellperson.h"
#include "mem/mem.h"
#include "util/fileio.h"
#include "util/json.h"
#include "zkpipe/engine.h"

static const char porep_usage[] =
    "usage: zkpipe bench porep --sector-size 2KiB|8MiB|512MiB|32GiB|64GiB [--params DIR]\n"
    "                          [--sectors N] [--in-flight K] [--synth-workers N]\n"
    "                          [--device-workers M] [--device cpu|cuda|auto] [--threads N]\n"
    "                          [--duration SECONDS] [--budget SIZE] [--json FILE]\n"
    "                          [--timeline FILE.csv] [--results FILE] [options]\n"
    "\n"
    "Proves N sectors' PoRep C2 (StackedDrg<size>V1_1) through the proving engine and\n"
    "reports the run: seconds per proof, stage times, how busy synthesis and the device\n"
    "were, peak RSS and tracked bytes against the budget, proofs per hour per GiB of\n"
    "budget. Every partition is verified by the engine; a sector counts as verified\n"
    "when all of its partitions are. Exit code 1 when any sector fails.\n"
    "\n"
    "The C1s are made before the clock starts: sectors up to 8MiB are sealed here from\n"
    "data drawn from --seed (in memory), larger ones get a synthetic C1 (as `filecoin c1\n"
    "synth`: INSECURE, benchmarks only). At most 8 distinct C1s are made; further\n"
    "sectors reuse them in turn (each proof is still a fresh one).\n"
    "\n"
    "The parameters are found by Filecoin's file name for the sector size's circuit in\n"
    "--params DIR, else $FIL_PROOFS_PARAMETER_CACHE, else /var/tmp/filecoin-proof-parameters.\n"
    "They are not made here; `zkpipe setup dev --filecoin porep --sector-size SIZE --out\n"
    "DIR` makes INSECURE ones for development. The key is loaded before the clock starts.\n"
    "\n"
    "Sectors are submitted K at a time (--in-flight, default 2): while one sector's last\n"
    "partitions are proved, the next one's are synthesized, so the engine pipelines\n"
    "partitions across sectors; as each sector completes, the next is submitted.\n"
    "With --duration, sectors are submitted until that many seconds of proving have\n"
    "passed (or --sectors, then a cap, is reached); the sectors still in flight then are\n"
    "cancelled and the report covers those completed, up to the last completion. The\n"
    "steady-state rate is the median time between one sector's completion and the next.\n"
    "With --phases, the engine starts with the most workers and the largest budget of any\n"
    "phase or --budget (the key loads under it: pass --budget to measure budgets below the\n"
    "key's loading peak), and each phase sets its own before it starts\n"
    "(zkpipe_engine_set_limits): one key load serves a whole sweep. The sectors in flight\n"
    "when a phase ends go on into the next, so the pipeline does not empty between\n"
    "phases; a phase whose budget is below what is reserved then starts its clock once\n"
    "enough has been given back and RSS is within baseline + its budget. Each phase\n"
    "reports the sectors completed in it, seconds per proof, steady state, peak RSS\n"
    "against baseline + its budget, and tracked bytes against RSS; a phase that\n"
    "completes none says so and the next one runs (the run fails only if no phase\n"
    "completes a sector). Every phase (a run without --phases is one) also reports the\n"
    "partitions completed while its clock ran, a rate for phases too short to complete\n"
    "many sectors, and, over 3 sectors or more, its RSS drift: the largest peak RSS\n"
    "between one completion and the next after a warm-up of a tenth of the sectors (at\n"
    "least 2), against the largest within the warm-up.\n"
    "With --results FILE each phase, once ended, adds a line to FILE (one JSON object, as\n"
    "in the summary's \"phases\", with its number, the sweep and the sector size), the file\n"
    "written whole to a temporary name and renamed, so a run stopped at any point keeps the\n"
    "phases it completed; a run of the same --sector-size and --phases with the same FILE\n"
    "resumes at the first phase not recorded (the key loads again), or runs nothing when\n"
    "every phase is. A FILE of another sweep is refused.\n"
    "This runs the engine in process; --daemon ADDR runs the same sectors through a\n"
    "running daemon's cuzk.v1 Prove instead (bench porep --daemon ADDR --help).\n"
    "\n"
    "Options:\n"
    "  --sector-size S     2KiB, 8MiB (sealed here), 512MiB, 32GiB, 64GiB (synthetic C1)\n"
    "  --params DIR        the directory of the parameter files\n"
    "  --sectors N         sectors proved (default 1; with --duration, a cap: 1000)\n"
    "  --duration S        prove for S seconds of the clock, then stop (above); per phase\n"
    "  --phases LIST       W@SIZE,...: run phase after phase with one key loaded, each\n"
    "                      with W synthesis workers and a budget of SIZE (either may be\n"
    "                      left out: 8, @64GiB), for --duration or --sectors each\n"
    "  --in-flight K       sectors submitted at once (default 2)\n"
    "  --synth-workers N   partitions synthesized at once (default 1)\n"
    "  --synth-threads N   threads of one synthesis (default 1)\n"
    "  --device D          cpu, cuda (every GPU) or auto (the GPUs if any; the default)\n"
    "  --device-workers M  workers per device, sharing it (default 2)\n"
    "  --threads N         threads of one prove_start and its finalize (default: every CPU)\n"
    "  --finalize-workers N  finalize + verify workers (default 1)\n"
    "  --budget SIZE       memory budget, e.g. 110GiB (default: detect)\n"
    "  --vram-budget SIZE  device memory the engine may take on each GPU (default: all)\n"
    "  --abc-on WHERE      host or device (default): where a GPU engine makes a partition's\n"
    "                      a, b and c (the device: from the witness, the circuit resident there)\n"
    "  --json FILE         write the summary as one JSON object (- for stdout)\n"
    "  --timeline F.csv    write the RSS / tracked-bytes timeline, and F.svg drawing it;\n"
    "                      also F.stages.csv and F.stages.svg: partitions waiting for\n"
    "                      memory and in each stage, GPU memory, reserved bytes\n"
    "  --period-ms N       RSS sampling period (default 20)\n"
    "  --results FILE      record each phase as it ends, and resume a sweep (above)\n"
    "  --seed HEX          64 hex digits: the sectors' data, ids, ticket and seed (default 0)\n"
    "  --check-subgroups   check every parameter point in its subgroup when loading\n"
    "\n" CLI_OPTIONS_HELP CLI_EXIT_CODES_HELP;

/* The cap on sectors when --duration decides and --sectors is not given. */
#define POREP_DURATION_SECTORS_MAX 1000u

/* The partitions in each stage and the GPU memory over the run, sampled
 * from the engine's status (short locks only) into a CSV beside the memory
 * timeline: the engine's own timeline has bytes, not stages. */
typedef struct {
    zkpipe_engine *e;
    FILE *csv;
    unsigned period_ms;
    double t0;
    pthread_mutex_t lk;
    pthread_cond_t cv;
    int stop;
    pthread_t thread;
} stage_sampler_;

static void *stage_sampler_main_(void *arg) {
    stage_sampler_ *s = arg;
    pthread_mutex_lock(&s->lk);
    while (!s->stop) {
        pthread_mutex_unlock(&s->lk);
        zkpipe_engine_status st;
        if (zkpipe_engine_get_status(s->e, &st) == ZKPIPE_OK) {
            uint64_t vram = 0;
            for (size_t k = 0; k < st.n_devices; k++) vram += st.devices[k].vram_tracked_bytes;
            fprintf(s->csv, "%.3f,%zu,%zu,%zu,%zu,%zu,%zu,%zu,%llu,%llu\n", cli_now() - s->t0,
                    st.queued_admit, st.queued_synth, st.running_synth, st.queued_device,
                    st.running_device, st.queued_finalize, st.running_finalize,
                    (unsigned long long)vram, (unsigned long long)st.budget_reserved_bytes);
        }
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until);
        uint64_t ns = (uint64_t)until.tv_nsec + (uint64_t)s->period_ms * 1000000u;
        until.tv_sec += (time_t)(ns / 1000000000u);
        until.tv_nsec = (long)(ns % 1000000000u);
        pthread_mutex_lock(&s->lk);
        if (!s->stop) pthread_cond_timedwait(&s->cv, &s->lk, &until);
    }
    pthread_mutex_unlock(&s->lk);
    return NULL;
}

/* Starts sampling into path; 0 on success. */
static int stage_sampler_start_(stage_sampler_ *s, zkpipe_engine *e, const char *path,
                                unsigned period_ms, double t0) {
    memset(s, 0, sizeof *s);
    s->csv = fopen(path, "w");
    if (!s->csv) return -1;
    fprintf(s->csv, "seconds,queued_admit,queued_synth,running_synth,queued_device,"
                    "running_device,queued_finalize,running_finalize,vram_tracked_bytes,"
                    "reserved_bytes\n");
    s->e = e;
    s->period_ms = period_ms ? period_ms : 20;
    s->t0 = t0;
    pthread_mutex_init(&s->lk, NULL);
    pthread_cond_init(&s->cv, NULL);
    if (pthread_create(&s->thread, NULL, stage_sampler_main_, s) != 0) {
        fclose(s->csv);
        s->csv = NULL;
        return -1;
    }
    return 0;
}

/* Stops a started sampler; 0 when its CSV was written whole. */
static int stage_sampler_stop_(stage_sampler_ *s) {
    if (!s->csv) return -1;
    pthread_mutex_lock(&s->lk);
    s->stop = 1;
    pthread_cond_signal(&s->cv);
    pthread_mutex_unlock(&s->lk);
    pthread_join(s->thread, NULL);
    pthread_cond_destroy(&s->cv);
    pthread_mutex_destroy(&s->lk);
    int rc = fclose(s->csv) == 0 ? 0 : -1;
    s->csv = NULL;
    return rc;
}

/* One phase of a run: the limits it runs under and what came of it. A run
 * without --phases is one phase under the engine's own limits. */
typedef struct {
    unsigned synth_workers; /* for the phase (0: the engine's) */
    uint64_t budget;        /* for the phase (0: the engine's) */
    unsigned done;          /* sectors completed */
    size_t partitions, partitions_verified, sectors_verified, failed;
    double t0, t_end; /* seconds from the engine's creation: start, last completion */
    double latency_median, interval_median;
    zkpipe_stage_times stages;
    uint64_t peak_rss;
    double deviation; /* max |RSS - (baseline + tracked)| / RSS over the phase */
    size_t samples;
    /* Partitions the engine completed while the phase's clock ran, of any
     * sector: a rate for phases too short or too slow to complete sectors. */
    uint64_t partitions_proved;
    double partition_window; /* seconds they were counted over */
    /* The peak RSS between one sector's completion and the next (the
     * first: since the clock started), and the drift it shows (below). */
    uint64_t *sector_peak;
    unsigned drift_from; /* 0: too few sectors for a drift */
    double drift;
} porep_phase_;

/* RSS drift over a phase's sectors: the largest of the per-sector peaks
 * after a warm-up of a tenth of them (at least 2), against the largest
 * within it; for 100 sectors, from the 10th to the 100th. Growth past the
 * warm-up's peak is memory that proving a sector leaves behind. */
static void phase_drift_(porep_phase_ *ph) {
    ph->drift_from = 0;
    if (ph->done < 3) return;
    unsigned k0 = ph->done / 10 > 2 ? ph->done / 10 : 2;
    uint64_t warm = 0, after = 0;
    for (unsigned i = 0; i < ph->done; i++) {
        uint64_t *m = i < k0 ? &warm : &after;
        if (ph->sector_peak[i] > *m) *m = ph->sector_peak[i];
    }
    if (!warm) return;
    ph->drift_from = k0;
    ph->drift = ((double)after - (double)warm) / (double)warm;
}

/* The engine's count of completed partitions. */
static uint64_t partitions_completed_(zkpipe_engine *e) {
    zkpipe_engine_status st;
    return zkpipe_engine_get_status(e, &st) == ZKPIPE_OK ? st.partitions_completed : 0;
}

/* The most phases one run takes. */
#define POREP_PHASES_MAX 32u

typedef struct {
    const char *size, *params_dir, *json_path, *timeline;
    const char *phases_text; /* --phases as given; NULL without */
    const char *results_path;
    /* The phases an earlier run recorded in --results (they run no more),
     * and that file's lines, kept to be written again with the new ones. */
    unsigned recorded;
    char *results;
    size_t results_len;
    unsigned sectors, in_flight, period_ms;
    double duration; /* seconds of proving per phase; 0: the sectors decide */
    porep_phase_ phases[POREP_PHASES_MAX];
    unsigned n_phases;
    int phases_given; /* --phases: each phase sets its limits */
    int check_subgroups;
    uint8_t seed[32];
    zkpipe_engine_config cfg;
} porep_opts_;

/* --phases W@SIZE[,W@SIZE...]: each phase's synthesis workers and budget;
 * either may be left out (W, or @SIZE) to keep the engine's. 0 or -1. */
static int parse_phases_(const char *v, porep_opts_ *o) {
    char buf[1024];
    if (strlen(v) >= sizeof buf) return -1;
    strcpy(buf, v);
    o->n_phases = 0;
    for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok;
         tok = strtok_r(NULL, ",", &save)) {
        if (o->n_phases == POREP_PHASES_MAX) return -1;
        porep_phase_ *ph = &o->phases[o->n_phases++];
        memset(ph, 0, sizeof *ph);
        char *at = strchr(tok, '@');
        if (at) {
            *at = 0;
            if (cli_parse_size(at + 1, &ph->budget) || !ph->budget) return -1;
        }
        if (*tok && cli_parse_threads(tok, &ph->synth_workers)) return -1;
        if (!*tok && !at) return -1;
    }
    return o->n_phases ? 0 : -1;
}

/* Returns -1 when the options are good, else the exit code. */
static int parse_(int argc, char **argv, porep_opts_ *o) {
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i], *v = NULL;
        unsigned *num = NULL;
        if (cli_is_help(a)) {
            fputs(porep_usage, stdout);
            return CLI_OK;
        }
        if (!strcmp(a, "--check-subgroups")) {
            o->check_subgroups = 1;
            continue;
        }
        /* Every other option takes a value. */
        char name[32];
        int r = cli_opt_named("bench porep", argc, argv, &i, name, sizeof name,
                              "see bench porep --help", &v);
        if (r == 0) return cli_unknown("bench porep", a, "bench porep --help");
        if (r < 0) return CLI_USAGE;
        if (!strcmp(name, "--sector-size")) o->size = v;
        else if (!strcmp(name, "--phases")) {
            if (parse_phases_(v, o))
                return cli_refused("bench porep", name,
                                   "up to 32 phases W@SIZE by commas (W from 1 to 4096, SIZE "
                                   "above 0, either optional)",
                                   v);
            o->phases_given = 1;
            o->phases_text = v;
        }
        else if (!strcmp(name, "--duration")) {
            if (cli_parse_duration(v, &o->duration))
                return cli_refused("bench porep", name, CLI_DURATION_WANT, v);
        }
        else if (!strcmp(name, "--params")) o->params_dir = v;
        else if (!strcmp(name, "--json")) o->json_path = v;
        else if (!strcmp(name, "--results")) o->results_path = v;
        else if (!strcmp(name, "--timeline")) o->timeline = v;
        else if (!strcmp(name, "--device")) o->cfg.device = v;
        else if (!strcmp(name, "--budget") || !strcmp(name, "--vram-budget")) {
            uint64_t *bytes = !strcmp(name, "--budget") ? &o->cfg.budget_bytes
                                                        : &o->cfg.vram_budget_bytes;
            if (cli_parse_size(v, bytes) || !*bytes)
                return cli_refused("bench porep", name, "a size above 0, e.g. 512MiB or 8GiB", v);
        } else if (!strcmp(name, "--abc-on")) {
            if (cli_parse_choice(v, "host", "device", &o->cfg.abc_on_host))
                return cli_refused("bench porep", name, "host or device", v);
        } else if (!strcmp(name, "--seed")) {
            if (cli_parse_hex32(v, o->seed))
                return cli_refused("bench porep", name, "64 hex digits", v);
        } else if (!strcmp(name, "--sectors")) num = &o->sectors;
        else if (!strcmp(name, "--in-flight")) num = &o->in_flight;
        else if (!strcmp(name, "--synth-workers")) num = &o->cfg.synth_workers;
        else if (!strcmp(name, "--synth-threads")) num = &o->cfg.synth_threads;
        else if (!strcmp(name, "--device-workers")) num = &o->cfg.device_workers;
        else if (!strcmp(name, "--threads")) num = &o->cfg.device_threads;
        else if (!strcmp(name, "--finalize-workers")) num = &o->cfg.finalize_workers;
        else if (!strcmp(name, "--period-ms")) num = &o->period_ms;
        else return cli_unknown("bench porep", name, "bench porep --help");
        if (num && cli_parse_threads(v, num))
            return cli_refused("bench porep", name, CLI_THREADS_WANT, v);
    }
    if (!o->size) {
        fputs("zkpipe bench porep: --sector-size is required\n", stderr);
        fputs(porep_usage, stderr);
        return CLI_USAGE;
    }
    if (!o->sectors) o->sectors = o->duration > 0 ? POREP_DURATION_SECTORS_MAX : 1;
    if (!o->n_phases) o->n_phases = 1; /* the engine's own limits */
    /* The engine starts with the most workers and the largest budget any
     * phase asks for: the key loads under that budget. */
    for (unsigned i = 0; i < o->n_phases; i++) {
        if (o->phases[i].synth_workers > o->cfg.synth_workers)
            o->cfg.synth_workers = o->phases[i].synth_workers;
        if (o->phases[i].budget > o->cfg.budget_bytes) o->cfg.budget_bytes = o->phases[i].budget;
    }
    return -1;
}

static void collect_(const zkpipe_job_result *r, porep_phase_ *ph, unsigned total, double t) {
    size_t ok = 0;
    for (size_t k = 0; k < r->n_partitions; k++)
        ok += r->partitions[k].verified && r->partitions[k].proof_len == ZKP_BP_PROOF_BYTES;
    ph->partitions_verified += ok;
    ph->partitions += r->n_partitions;
    zkpipe_stage_times_add(&ph->stages, &r->times);
    if (r->status != ZKPIPE_OK) {
        fprintf(stderr, "zkpipe bench porep: sector (job %llu): %s\n",
                (unsigned long long)r->job_id, r->error);
        ph->failed++;
    } else if (ok == r->n_partitions) {
        ph->sectors_verified++;
    }
    fprintf(stderr, "zkpipe bench porep: sector %u of %u: %zu of %zu partition(s) verified, "
            "%.2f s from submission (%.2f s into the phase)\n",
            ph->done, total, ok, r->n_partitions, r->times.total, t - ph->t0);
}

/* A phase's members in JSON, without the braces: the summary's "phases"
 * entries and the --results lines. */
static void phase_json_(FILE *f, const porep_phase_ *ph, unsigned partitions) {
    char per[32] = "null"; /* no sector completed in the phase */
    if (ph->done) snprintf(per, sizeof per, "%.6f", (ph->t_end - ph->t0) / ph->done);
    char per_parts[32] = "null", drift[32] = "null";
    if (ph->partitions_proved && ph->partition_window > 0)
        snprintf(per_parts, sizeof per_parts, "%.6f",
                 ph->partition_window * partitions / (double)ph->partitions_proved);
    if (ph->drift_from) snprintf(drift, sizeof drift, "%.6f", ph->drift);
    fprintf(f,
            "\"synth_workers\":%u,\"budget_bytes\":%llu,\"sectors\":%u,"
            "\"sectors_verified\":%zu,\"seconds\":%.6f,\"seconds_per_proof\":%s,"
            "\"sector_interval_median\":%.6f,\"sector_seconds_median\":%.6f,"
            "\"peak_rss_bytes\":%llu,\"max_tracked_rss_deviation\":%.6f,"
            "\"rss_samples\":%zu,\"longest_admission_wait\":%.6f,"
            "\"synthesis_seconds\":%.6f,\"device_seconds\":%.6f,"
            "\"partitions_completed\":%llu,\"partition_window_seconds\":%.6f,"
            "\"seconds_per_proof_from_partitions\":%s,\"rss_drift\":%s,"
            "\"rss_drift_from_sector\":%u,\"sector_peak_rss_bytes\":[",
            ph->synth_workers, (unsigned long long)ph->budget, ph->done, ph->sectors_verified,
            ph->t_end - ph->t0, per, ph->interval_median, ph->latency_median,
            (unsigned long long)ph->peak_rss, ph->deviation, ph->samples, ph->stages.queue_wait,
            ph->stages.synthesis, ph->stages.device, (unsigned long long)ph->partitions_proved,
            ph->partition_window, per_parts, drift, ph->drift_from);
    for (unsigned k = 0; k < ph->done; k++)
        fprintf(f, "%s%llu", k ? "," : "", (unsigned long long)ph->sector_peak[k]);
    fputc(']', f);
}

/* --results: the phases recorded by an earlier run of the same sweep
 * (its lines, one JSON object a phase, in order), kept in o->results and
 * counted in o->recorded. A CLI exit code: a file of another sweep, or one
 * that is not a record, is refused rather than overwritten. */
static int results_load_(porep_opts_ *o) {
    zkp_diag d = {{0}};
    struct stat sb;
    if (stat(o->results_path, &sb) != 0) return CLI_OK; /* the first run */
    zkpipe_status st = zkp_read_file(o->results_path, (size_t)1 << 24, &o->results,
                                     &o->results_len, &d);
    if (st != ZKPIPE_OK) return cli_fail("bench porep", st, &d, CLI_BAD_INPUT);
    const char *sweep = o->phases_text ? o->phases_text : "";
    size_t line_no = 0;
    for (char *line = o->results; line < o->results + o->results_len; line_no++) {
        char *end = memchr(line, '\n', (size_t)(o->results + o->results_len - line));
        if (!end) end = o->results + o->results_len;
        zkp_json *j = NULL;
        int good = zkp_json_parse(&j, line, (size_t)(end - line), NULL) == ZKPIPE_OK;
        const char *phase = good ? zkp_json_number_text(zkp_json_get(j, "phase")) : NULL;
        const char *sw = good ? zkp_json_string(zkp_json_get(j, "sweep"), NULL) : NULL;
        const char *size = good ? zkp_json_string(zkp_json_get(j, "sector_size"), NULL) : NULL;
        char want[16];
        snprintf(want, sizeof want, "%u", o->recorded + 1);
        good = phase && sw && size && !strcmp(phase, want) && !strcmp(sw, sweep) &&
               !strcmp(size, o->size) && o->recorded < o->n_phases;
        zkp_json_free(j);
        if (!good) {
            fprintf(stderr,
                    "zkpipe bench porep: --results %s, line %zu: not phase %u of this sweep "
                    "(--sector-size %s --phases %s); pass the same options to resume it, or "
                    "another file\n",
                    o->results_path, line_no + 1, o->recorded + 1, o->size,
                    *sweep ? sweep : "(none)");
            return CLI_USAGE;
        }
        o->recorded++;
        line = end + 1;
    }
    return CLI_OK;
}

/* Adds phase i's line to --results, the file written whole each time
 * (to a temporary name, then renamed), so that a run stopped at any point
 * leaves the phases it completed. */
static int results_add_(porep_opts_ *o, unsigned i, unsigned partitions) {
    char *line = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&line, &len);
    if (!f) return cli_fail("bench porep", ZKPIPE_ERR_NO_MEMORY, NULL, CLI_INVALID);
    fprintf(f, "{\"phase\":%u,\"sweep\":\"%s\",\"sector_size\":\"%s\",", i + 1,
            o->phases_text ? o->phases_text : "", o->size);
    phase_json_(f, &o->phases[i], partitions);
    fputs("}\n", f);
    if (fclose(f) != 0) {
        free(line);
        return cli_fail("bench porep", ZKPIPE_ERR_NO_MEMORY, NULL, CLI_INVALID);
    }
    char *all = realloc(o->results, o->results_len + len);
    if (!all) {
        free(line);
        return cli_fail("bench porep", ZKPIPE_ERR_NO_MEMORY, NULL, CLI_INVALID);
    }
    memcpy(all + o->results_len, line, len);
    free(line);
    o->results = all;
    o->results_len += len;
    zkp_diag d = {{0}};
    zkpipe_status st = zkp_write_file_atomic(o->results_path, o->results, o->results_len, &d);
    return st == ZKPIPE_OK ? CLI_OK : cli_fail("bench porep", st, &d, CLI_INVALID);
}

/* What every phase proves from, and the jobs in flight, which one phase
 * hands to the next. */
typedef struct {
    zkpipe_engine *e;
    uint32_t key;
    uint8_t **c1s;
    size_t *c1_lens;
    unsigned distinct;
    double t_create; /* cli_now() when the engine was created */
    uint64_t *jobs;  /* every job submitted, in order */
    unsigned cap;    /* room in jobs */
    unsigned submitted, ended; /* jobs submitted; of those, collected */
} porep_run_;

static int submit_one_(porep_run_ *run) {
    if (run->submitted == run->cap) return CLI_INVALID;
    unsigned c = run->submitted % run->distinct;
    zkpipe_job_request req = {.key_id = run->key,
                              .priority = ZKPIPE_PRIORITY_NORMAL,
                              .porep_c1 = run->c1s[c],
                              .porep_c1_len = run->c1_lens[c]};
    zkpipe_status st = zkpipe_engine_submit(run->e, &run->jobs[run->submitted], &req);
    if (st != ZKPIPE_OK) return cli_fail("bench porep", st, NULL, CLI_INVALID);
    run->submitted++;
    return CLI_OK;
}

/* Asks every job still in flight to stop. Results come back in any order,
 * so the uncollected jobs are not a range of the list: every submitted one
 * is asked (a collected one is refused, harmlessly). */
static void cancel_in_flight_(const porep_run_ *run) {
    for (unsigned i = 0; i < run->submitted; i++) (void)zkpipe_engine_cancel(run->e, run->jobs[i]);
}

/* Sets the phase's limits. With a budget below what the last phase left
 * reserved, waits for its sectors in flight to give back enough (they go on
 * meanwhile, and those that complete count in no phase), and then for RSS
 * to come within baseline + the budget: memory freed under the old budget
 * (a loaded key's host points) goes to the pool's idle list first, and its
 * trimmer unmaps it within a second or so. So the phase's peak RSS is
 * measured against its own budget. */
static int change_limits_(porep_run_ *run, const porep_phase_ *ph) {
    char msg[256];
    zkpipe_status st = zkpipe_engine_set_limits(run->e, ph->budget, ph->synth_workers, msg,
                                                sizeof msg);
    if (st != ZKPIPE_OK) {
        fprintf(stderr, "zkpipe bench porep: a phase's limits: %s\n", msg);
        return CLI_INVALID;
    }
    double t = cli_now();
    for (;;) {
        zkpipe_engine_status es;
        if (zkpipe_engine_get_status(run->e, &es) != ZKPIPE_OK) break;
        int reserved_fits = es.budget_reserved_bytes <= es.budget_total_bytes ||
                            run->ended == run->submitted;
        if (reserved_fits &&
            (es.rss_bytes <= es.baseline_rss_bytes + es.budget_total_bytes || cli_now() - t > 30))
            break;
        if (run->ended == run->submitted) {
            nanosleep(&(struct timespec){0, 100000000}, NULL);
            continue;
        }
        zkpipe_job_result r;
        st = zkpipe_engine_await_any(run->e, 100, &r);
        if (st == ZKPIPE_OK) {
            run->ended++;
            zkpipe_job_result_clear(&r);
        } else if (st != ZKPIPE_ERR_TIMEOUT) {
            return cli_fail("bench porep", st, NULL, CLI_INVALID);
        }
    }
    if (cli_now() - t > 0.5)
        fprintf(stderr, "zkpipe bench porep: %.1f s for the last phase's memory to fit the new "
                "budget\n", cli_now() - t);
    return CLI_OK;
}

/* Runs one phase: its limits set, then sectors submitted --in-flight at a
 * time until --sectors have completed in it or, with --duration, the time
 * is up. The sectors in flight then go on into the next phase; after the
 * last one they are cancelled (or counted, if they complete first). A CLI
 * exit code. */
static int prove_phase_(porep_run_ *run, const porep_opts_ *o, porep_phase_ *ph, int last) {
    zkpipe_engine *e = run->e;
    int code = o->phases_given ? change_limits_(run, ph) : CLI_OK;
    if (code != CLI_OK) return code;
    const unsigned room = o->sectors + o->in_flight;
    double *latency = calloc(room, sizeof(double)), *done_at = calloc(room, sizeof(double));
    ph->sector_peak = calloc(room, sizeof(uint64_t));
    if (!latency || !done_at || !ph->sector_peak)
        code = cli_fail("bench porep", ZKPIPE_ERR_NO_MEMORY, NULL, CLI_INVALID);
    (void)zkp_mem_reset_peak_rss();
    const double t0 = cli_now();
    double t_last = t0;
    ph->t0 = t0 - run->t_create;
    const uint64_t parts0 = partitions_completed_(e);
    int stopping = 0; /* the duration is up */
    while (code == CLI_OK && ph->done < o->sectors) {
        unsigned flying = run->submitted - run->ended;
        if (stopping && (!last || !flying)) break;
        while (!stopping && flying < o->in_flight && ph->done + flying < o->sectors &&
               (code = submit_one_(run)) == CLI_OK)
            flying++;
        if (code != CLI_OK) break;
        int64_t wait_ms = -1;
        if (o->duration > 0 && !stopping) {
            double left = t0 + o->duration - cli_now();
            wait_ms = left > 0 ? (int64_t)(left * 1000) + 1 : 0;
        }
        zkpipe_job_result r;
        zkpipe_status st = zkpipe_engine_await_any(e, wait_ms, &r);
        if (st == ZKPIPE_ERR_TIMEOUT) {
            stopping = 1;
            ph->partitions_proved = partitions_completed_(e) - parts0;
            ph->partition_window = cli_now() - t0;
            if (last) {
                fprintf(stderr, "zkpipe bench porep: %g s passed; cancelling the %u sector(s) "
                        "in flight\n", o->duration, flying);
                cancel_in_flight_(run);
            }
            continue;
        }
        if (st != ZKPIPE_OK) {
            code = cli_fail("bench porep", st, NULL, CLI_INVALID);
            break;
        }
        run->ended++;
        if (!stopping || r.status == ZKPIPE_OK) { /* else dropped by the cancel */
            t_last = cli_now();
            done_at[ph->done] = t_last - t0;
            /* This sector's interval peak; the phase's is the largest. */
            uint64_t pk = 0;
            (void)zkp_mem_read_peak_rss(&pk);
            (void)zkp_mem_reset_peak_rss();
            ph->sector_peak[ph->done] = pk;
            if (pk > ph->peak_rss) ph->peak_rss = pk;
            latency[ph->done++] = r.times.total;
            collect_(&r, ph, o->sectors, t_last - run->t_create);
        }
        zkpipe_job_result_clear(&r);
    }
    /* A phase stopped by its duration ends at its last completion: the time
     * spent on the sectors it dropped proved nothing. */
    ph->t_end = (stopping ? t_last : cli_now()) - run->t_create;
    if (!stopping) {
        ph->partitions_proved = partitions_completed_(e) - parts0;
        ph->partition_window = cli_now() - t0;
    }
    if (last || code != CLI_OK) { /* what the run will not need: cancelled, waited for */
        cancel_in_flight_(run);
        while (run->ended < run->submitted) {
            zkpipe_job_result r;
            if (zkpipe_engine_await_any(e, -1, &r) != ZKPIPE_OK) break;
            run->ended++;
            zkpipe_job_result_clear(&r);
        }
    }
    uint64_t pk = 0;
    (void)zkp_mem_read_peak_rss(&pk);
    if (pk > ph->peak_rss) ph->peak_rss = pk;
    if (code == CLI_OK && !ph->done) {
        /* In a sweep, a phase too slow for its duration is a finding, and
         * the phases after it still run; the run fails only if no phase
         * completed a sector. */
        fprintf(stderr, "zkpipe bench porep: no sector completed within --duration %g\n",
                o->duration);
        if (!o->phases_given) code = CLI_INVALID;
    }
    if (code == CLI_OK && ph->done) {
        ph->latency_median = cli_median(latency, ph->done);
        ph->interval_median = cli_sector_interval_median(done_at, ph->done);
        phase_drift_(ph);
    }
    free(latency);
    free(done_at);
    return code;
}

/* js: the --json summary, opened before any work; run_ commits it once the
 * run is reported. */
static int run_(porep_opts_ *o, uint8_t **c1s, size_t *c1_lens, cli_summary *js) {
    char want[64];
    snprintf(want, sizeof want, "StackedDrg%sV1_1", o->size);
    const zkp_fil_seal_proof *p = zkp_fil_seal_proof_by_name(want, strlen(want));
    if (!p) {
        fprintf(stderr, "zkpipe bench porep: --sector-size %s: 2KiB, 8MiB, 512MiB, 32GiB or "
                        "64GiB\n", o->size);
        return CLI_USAGE;
    }
    if (o->results_path) {
        int rc = results_load_(o);
        if (rc != CLI_OK) return rc;
        if (o->recorded == o->n_phases) {
            fprintf(stderr, "zkpipe bench porep: every phase is recorded in %s; nothing to run\n",
                    o->results_path);
            return CLI_OK;
        }
        if (o->recorded)
            fprintf(stderr, "zkpipe bench porep: phase(s) 1 to %u recorded in %s; resuming at "
                    "phase %u\n", o->recorded, o->results_path, o->recorded + 1);
    }
    char params[4096];
    if (!cli_fil_params_path(params, sizeof params, o->params_dir, p, "params")) {
        fprintf(stderr, "zkpipe bench porep: --params: the path is too long\n");
        return CLI_USAGE;
    }
    struct stat sb;
    if (stat(params, &sb) != 0) {
        fprintf(stderr,
                "zkpipe bench porep: no parameters for %s at %s; make INSECURE development "
                "ones with `zkpipe setup dev --filecoin porep --sector-size %s --out DIR` and "
                "pass --params DIR\n",
                p->name, params, o->size);
        return CLI_BAD_INPUT;
    }
    const int sealed = p->sector_bytes <= CLI_POREP_SEAL_MAX_BYTES;
    unsigned distinct = o->sectors < CLI_POREP_DISTINCT_MAX ? o->sectors : CLI_POREP_DISTINCT_MAX;
    fprintf(stderr, "zkpipe bench porep: %s, %u partition(s) a sector; %u sector(s), %u C1(s) %s; "
            "parameters %s\n", p->name, (unsigned)p->partitions, o->sectors, distinct,
            sealed ? "sealed here" : "SYNTHETIC (INSECURE, benchmarks only)", params);
    double t_c1 = cli_now();
    for (unsigned i = 0; i < distinct; i++) {
        zkp_diag d = {{0}};
        zkpipe_status st = cli_porep_c1(p, o->seed, i, &c1s[i], &c1_lens[i], &d);
        if (st != ZKPIPE_OK) return cli_fail("bench porep", st, &d, CLI_INVALID);
    }
    double c1_seconds = cli_now() - t_c1;

    char tmpcsv[64] = "";
    if (!o->timeline) {
        snprintf(tmpcsv, sizeof tmpcsv, "/tmp/zkpipe-bench-porep-%ld.csv", (long)getpid());
        o->timeline = tmpcsv;
    }
    o->cfg.timeline_csv = o->timeline;
    o->cfg.rss_period_ms = o->period_ms;
    (void)zkp_mem_reset_peak_rss();
    double t_create = cli_now();
    zkpipe_engine *e = NULL;
    char err[256] = "";
    zkpipe_status st = zkpipe_engine_create(&e, &o->cfg, err, sizeof err);
    if (st != ZKPIPE_OK) {
        fprintf(stderr, "zkpipe bench porep: %s (%s)\n", err, zkpipe_status_name(st));
        return CLI_INVALID;
    }
    zkpipe_engine_status es;
    (void)zkpipe_engine_get_status(e, &es);
    const unsigned n_devices = es.n_devices ? (unsigned)es.n_devices : 1;
    const char *device_name = es.n_devices ? es.devices[0].name : "cpu";
    uint32_t key;
    zkp_diag d = {{0}};
    if ((st = zkpipe_engine_register_porep_key(e, &key, params, p->id, o->check_subgroups)) !=
        ZKPIPE_OK) {
        snprintf(d.msg, sizeof d.msg, "%.400s: %s", params, zkpipe_strerror(st));
        (void)zkpipe_engine_destroy(&e);
        return cli_fail("bench porep", st, &d, CLI_BAD_INPUT);
    }
    double t_key = cli_now();
    if ((st = zkpipe_engine_load_key_msg(e, key, d.msg, sizeof d.msg)) != ZKPIPE_OK) {
        (void)zkpipe_engine_destroy(&e);
        return cli_fail("bench porep", st, &d,
                        st == ZKPIPE_ERR_NO_MEMORY ? CLI_INVALID : CLI_BAD_INPUT);
    }
    double key_seconds = cli_now() - t_key;
    fprintf(stderr, "zkpipe bench porep: C1s made in %.2f s, key loaded in %.2f s; proving\n",
            c1_seconds, key_seconds);

    /* F.csv: the stages go to F.stages.csv and F.stages.svg. */
    char stages_csv[4096] = "", stages_svg[4096] = "";
    stage_sampler_ sampler;
    memset(&sampler, 0, sizeof sampler);
    if (!tmpcsv[0]) {
        size_t n = strlen(o->timeline);
        if (n > 4 && !strcmp(o->timeline + n - 4, ".csv")) n -= 4;
        if (n + 16 < sizeof stages_csv) {
            snprintf(stages_csv, sizeof stages_csv, "%.*s.stages.csv", (int)n, o->timeline);
            snprintf(stages_svg, sizeof stages_svg, "%.*s.stages.svg", (int)n, o->timeline);
            if (stage_sampler_start_(&sampler, e, stages_csv, o->period_ms, t_create) != 0) {
                fprintf(stderr, "zkpipe bench porep: cannot write %s\n", stages_csv);
                stages_csv[0] = 0;
            }
        }
    }
    porep_run_ run = {e, key, c1s, c1_lens, distinct, t_create, NULL, 0, 0, 0};
    run.cap = o->sectors * o->n_phases;
    run.jobs = calloc(run.cap, sizeof *run.jobs);
    const uint64_t engine_budget = es.budget_total_bytes;
    for (unsigned i = 0; i < o->n_phases; i++) {
        if (!o->phases[i].budget) o->phases[i].budget = engine_budget;
        if (!o->phases[i].synth_workers)
            o->phases[i].synth_workers = o->cfg.synth_workers ? o->cfg.synth_workers : 1;
    }
    bench_summary sum;
    memset(&sum, 0, sizeof sum);
    int code = CLI_OK;
    unsigned ran = o->recorded;
    for (; ran < o->n_phases && code == CLI_OK; ran++) {
        porep_phase_ *ph = &o->phases[ran];
        if (o->phases_given)
            fprintf(stderr, "zkpipe bench porep: phase %u of %u: %u synthesis worker(s), budget "
                    "%.1f GiB\n", ran + 1, o->n_phases, ph->synth_workers,
                    (double)ph->budget / 1073741824.0);
        code = run.jobs ? prove_phase_(&run, o, ph, ran + 1 == o->n_phases)
                        : cli_fail("bench porep", ZKPIPE_ERR_NO_MEMORY, NULL, CLI_INVALID);
        sum.proofs += ph->done;
        sum.seconds += ph->t_end - ph->t0;
        sum.partitions += ph->partitions;
        sum.proofs_verified += ph->sectors_verified;
        sum.jobs_failed += ph->failed;
        zkpipe_stage_times_add(&sum.stages, &ph->stages);
        if (code == CLI_OK && o->results_path) {
            /* The timeline so far is enough for this phase's window. */
            zkpipe_engine_status now;
            if (zkpipe_engine_get_status(e, &now) == ZKPIPE_OK)
                ph->deviation = bench_timeline_deviation(o->timeline, now.baseline_rss_bytes,
                                                         ph->t0, ph->t_end, &ph->samples);
            code = results_add_(o, ran, (unsigned)p->partitions);
        }
    }
    free(run.jobs);
    const double t_end = cli_now() - t_create;
    /* The summary reads the engine's own limits back. */
    if (o->phases_given)
        (void)zkpipe_engine_set_limits(e, engine_budget, o->cfg.synth_workers, NULL, 0);
    if (stages_csv[0] && (stage_sampler_stop_(&sampler) != 0 ||
                          bench_stages_svg(stages_csv, stages_svg) != 0)) {
        fprintf(stderr, "zkpipe bench porep: cannot draw %s\n", stages_svg);
        stages_csv[0] = 0;
    }
    bench_engine_finish(&e, &key, 1, 1, &sum);
    /* The key loads before the clock, its whole file charged while it is
     * read; proving alone is the window the budget's promise is about. */
    double proving_dev = 0;
    size_t proving_samples = 0, partitions_verified = 0;
    for (unsigned i = o->recorded; i < ran; i++) {
        porep_phase_ *ph = &o->phases[i];
        ph->deviation = bench_timeline_deviation(o->timeline, sum.baseline_rss_bytes, ph->t0,
                                                 ph->t_end, &ph->samples);
        if (ph->deviation > proving_dev) proving_dev = ph->deviation;
        proving_samples += ph->samples;
        partitions_verified += ph->partitions_verified;
    }
    char svg[4096];
    bench_timeline_finish(o->timeline, tmpcsv[0] != 0, t_end, &sum, svg, sizeof svg);
    if (code == CLI_OK && !sum.proofs) {
        fprintf(stderr, "zkpipe bench porep: no phase completed a sector\n");
        code = CLI_INVALID;
    }
    if (code != CLI_OK) return code;

    const double G = 1073741824.0;
    const unsigned synth_workers = o->cfg.synth_workers ? o->cfg.synth_workers : 1;
    const porep_phase_ *one = &o->phases[o->recorded];
    double per_proof = sum.seconds / sum.proofs;
    /* Busy over the whole span: sectors carried from one phase into the
     * next did their work between the phases' windows too. */
    const double span = o->phases[o->n_phases - 1].t_end - one->t0;
    double synth_busy = sum.stages.synthesis / (span * synth_workers);
    double device_busy = sum.stages.device / (span * n_devices);
    double finalize_busy = (sum.stages.finalize + sum.stages.verify) /
                           (span * (o->cfg.finalize_workers ? o->cfg.finalize_workers : 1));
    double per_hour_gib = sum.budget_bytes
                              ? (double)sum.proofs_verified * 3600 / sum.seconds /
                                    ((double)sum.budget_bytes / G)
                              : 0;
    printf("bench porep: %s on %s, %u sector(s) x %u partition(s) in %.3f s: %.3f s per proof",
           p->name, device_name, sum.proofs, (unsigned)p->partitions, sum.seconds, per_proof);
    if (!o->phases_given) {
        printf(", median sector latency %.3f s\n", one->latency_median);
        if (one->interval_median > 0)
            printf("steady state: a sector every %.3f s (the median time between completions)\n",
                   one->interval_median);
    } else {
        printf(" over %u phase(s)\n", o->n_phases - o->recorded);
        printf("phase  synth  budget GiB  sectors  s/proof  steady s  peak RSS GiB  "
               "<= baseline+budget  deviation  verified\n");
        for (unsigned i = o->recorded; i < o->n_phases; i++) {
            const porep_phase_ *ph = &o->phases[i];
            char per[16] = "-";
            if (ph->done) snprintf(per, sizeof per, "%.2f", (ph->t_end - ph->t0) / ph->done);
            printf("%5u  %5u  %10.1f  %7u  %7s  %8.2f  %12.2f  %18s  %8.2f%%  %8zu\n", i + 1,
                   ph->synth_workers, ph->budget / G, ph->done, per, ph->interval_median,
                   ph->peak_rss / G,
                   ph->peak_rss <= sum.baseline_rss_bytes + ph->budget ? "yes" : "NO",
                   100 * ph->deviation, ph->sectors_verified);
        }
    }
    for (unsigned i = o->recorded; i < o->n_phases; i++) {
        const porep_phase_ *ph = &o->phases[i];
        if (ph->partitions_proved && ph->partition_window > 0)
            printf("phase %u: %llu partition(s) completed in %.1f s: a sector's %u every "
                   "%.2f s at that rate\n",
                   i + 1, (unsigned long long)ph->partitions_proved, ph->partition_window,
                   (unsigned)p->partitions,
                   ph->partition_window * p->partitions / (double)ph->partitions_proved);
        if (ph->drift_from)
            printf("phase %u: RSS drift %+.2f%%: the largest per-sector peak after sector %u "
                   "of %u against the largest up to it\n",
                   i + 1, 100 * ph->drift, ph->drift_from, ph->done);
    }
    printf("busy: synthesis %.1f%% of %u worker(s), device %.1f%% of %u device(s), "
           "finalize + verify %.1f%%\n",
           100 * synth_busy, synth_workers, 100 * device_busy, n_devices, 100 * finalize_busy);
    bench_summary_text(stdout, &sum);
    printf("while proving: max |RSS - (baseline + tracked)| / RSS = %.2f%% over %zu samples\n",
           100 * proving_dev, proving_samples);
    printf("GPU memory peak %.3f GiB; %.2f proofs per hour per GiB of budget\n",
           sum.vram_peak_bytes / G, per_hour_gib);
    if (svg[0]) printf("timeline: %s and %s\n", o->timeline, svg);
    if (stages_csv[0]) printf("stages: %s and %s\n", stages_csv, stages_svg);
    printf("sectors verified: %zu of %u (%zu of %zu partitions)\n", sum.proofs_verified,
           sum.proofs, partitions_verified, sum.partitions);
    if (js) {
        FILE *f = js->f;
        fprintf(f,
                "{\"bench\":\"porep\",\"registered_proof\":\"%s\",\"sector_bytes\":%llu,"
                "\"c1\":\"%s\",\"sectors\":%u,\"partitions_per_sector\":%u,\"in_flight\":%u,"
                "\"device\":\"%s\",\"devices\":%u,\"synth_workers\":%u,\"device_workers\":%u,"
                "\"c1_seconds\":%.6f,\"key_load_seconds\":%.6f,",
                p->name, (unsigned long long)p->sector_bytes, sealed ? "sealed" : "synthetic",
                sum.proofs, (unsigned)p->partitions, o->in_flight, device_name, n_devices,
                synth_workers, o->cfg.device_workers ? o->cfg.device_workers : 2, c1_seconds,
                key_seconds);
        bench_summary_json(f, &sum);
        fprintf(f,
                ",\"partitions_verified\":%zu,\"seconds_per_proof\":%.6f,"
                "\"sector_seconds_median\":%.6f,\"sector_interval_median\":%.6f,"
                "\"duration\":%.3f,\"synthesis_busy\":%.4f,\"device_busy\":%.4f,"
                "\"finalize_busy\":%.4f,\"vram_peak_bytes\":%llu,"
                "\"max_tracked_rss_deviation_proving\":%.6f,\"rss_samples_proving\":%zu,"
                "\"proofs_per_hour_per_gib\":%.4f,\"reservation_violations\":%llu,\"phases\":[",
                partitions_verified, per_proof, one->latency_median, one->interval_median,
                o->duration, synth_busy, device_busy, finalize_busy,
                (unsigned long long)sum.vram_peak_bytes, proving_dev, proving_samples,
                per_hour_gib, (unsigned long long)sum.reservation_violations);
        for (unsigned i = o->recorded; i < o->n_phases; i++) {
            fputs(i > o->recorded ? ",{" : "{", f);
            phase_json_(f, &o->phases[i], p->partitions);
            fputc('}', f);
        }
        fputs("]}\n", f);
        code = cli_summary_commit("bench porep", js);
    }
    if (code == CLI_OK && (sum.jobs_failed || sum.proofs_verified != sum.proofs))
        code = CLI_INVALID;
    return code;
}

int cli_bench_porep(int argc, char **argv) {
    porep_opts_ o;
    memset(&o, 0, sizeof o);
    (void)zkpipe_engine_config_default(&o.cfg);
    o.in_flight = 2;
    o.period_ms = 20;
    o.cfg.device = "auto";
    int code = parse_(argc, argv, &o);
    if (code >= 0) return code;
    uint8_t *c1s[CLI_POREP_DISTINCT_MAX] = {NULL};
    size_t lens[CLI_POREP_DISTINCT_MAX] = {0};
    cli_summary js;
    if (o.json_path && (code = cli_summary_open("bench porep", &js, o.json_path)) != CLI_OK)
        return code;
    code = run_(&o, c1s, lens, o.json_path ? &js : NULL);
    if (o.json_path) cli_summary_close(&js); /* committed already, unless the run failed */
    for (unsigned i = 0; i < CLI_POREP_DISTINCT_MAX; i++)
        zkp_free(NULL, c1s[i], lens[i], ZKP_MEM_AUX);
    for (unsigned i = 0; i < o.n_phases; i++) free(o.phases[i].sector_peak);
    free(o.results);
    return code;
}
