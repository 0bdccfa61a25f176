/* The engine benchmarks' shared end of a run, timeline and summary (see
 * bench_report.h). */
#include "cli/bench_report.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gpu/gpu.h"
#include "mem/mem.h"
#include "util/fault.h"

/* The largest |RSS - (baseline + tracked)| / RSS over the timeline's
 * samples from the first that tracks anything (the first key's file being
 * read in: key loading counts) or from start_s, whichever is later, to
 * end_s (the last job collected; the engine's teardown after it is not
 * part of the run). Samples before the first tracked one are the engine
 * starting up, taken before its baseline was. */
double bench_timeline_deviation(const char *csv, uint64_t baseline, double start_s, double end_s,
                                size_t *nsamples) {
    FILE *f = fopen(csv, "r");
    *nsamples = 0;
    if (!f) return -1;
    char line[1024];
    double worst = 0;
    int started = 0;
    if (!fgets(line, sizeof line, f)) {
        fclose(f);
        return -1;
    }
    while (fgets(line, sizeof line, f)) {
        double t;
        unsigned long long rss, tracked;
        if (sscanf(line, "%lf,%llu,%llu", &t, &rss, &tracked) != 3 || !rss) continue;
        if (!started && !tracked) continue;
        started = 1;
        if (t < start_s || t > end_s) continue;
        double dev = fabs((double)rss - (double)(baseline + tracked)) / (double)rss;
        if (dev > worst) worst = dev;
        (*nsamples)++;
    }
    fclose(f);
    return worst;
}

/* A timeline read from a CSV: its times and four series. */
typedef struct {
    double *t, *v[4];
    size_t n;
} series_;

static void series_free_(series_ *s) {
    free(s->t);
    for (int k = 0; k < 4; k++) free(s->v[k]);
}

/* Reads every row after the header that row turns into a time and four
 * values (returning 0; other rows are skipped). 0, or -1 with s freed. */
static int series_read_(series_ *s, const char *csv,
                        int (*row)(const char *line, const void *ctx, double *t, double v[4]),
                        const void *ctx) {
    memset(s, 0, sizeof *s);
    FILE *f = fopen(csv, "r");
    if (!f) return -1;
    char line[1024];
    size_t cap = 0;
    int ok = fgets(line, sizeof line, f) != NULL;
    while (ok && fgets(line, sizeof line, f)) {
        double t, v[4];
        if (row(line, ctx, &t, v) != 0) continue;
        if (s->n == cap) {
            cap = cap ? 2 * cap : 1024;
            double *nt = realloc(s->t, cap * sizeof *nt);
            ok = nt != NULL;
            if (nt) s->t = nt;
            for (int k = 0; k < 4 && ok; k++) {
                double *nv = realloc(s->v[k], cap * sizeof *nv);
                ok = nv != NULL;
                if (nv) s->v[k] = nv;
            }
            if (!ok) break;
        }
        s->t[s->n] = t;
        for (int k = 0; k < 4; k++) s->v[k][s->n] = v[k];
        s->n++;
    }
    fclose(f);
    if (ok && s->n) return 0;
    series_free_(s);
    return -1;
}

/* The largest value of series k (-1: the times); at least floor. */
static double series_max_(const series_ *s, int k, double floor) {
    const double *x = k < 0 ? s->t : s->v[k];
    for (size_t i = 0; i < s->n; i++)
        if (x[i] > floor) floor = x[i];
    return floor;
}

/* Series against seconds, as an SVG line chart. */
typedef struct {
    const double *t;
    double *const *v; /* nseries arrays of n values */
    size_t n;
    int nseries;
    const char *const *label, *const *color;
    double tmax, vmax;
    const char *unit;
    /* When set, the last series is not drawn and this is said instead. */
    const char *last_note;
} svg_chart_;

static int svg_chart_write_(const char *path, const svg_chart_ *c) {
    FILE *o = fopen(path, "w");
    if (!o) return -1;
    const int W = 900, H = 420, L = 70, R = 20, T = 30, B = 50;
    double vmax = (c->vmax > 0 ? c->vmax : 1) * 1.05, tmax = c->tmax > 0 ? c->tmax : 1;
    fprintf(o, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
               "font-family=\"sans-serif\" font-size=\"12\">\n", W, H);
    fprintf(o, "<rect width=\"%d\" height=\"%d\" fill=\"white\"/>\n", W, H);
    fprintf(o, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"black\"/>\n", L, H - B,
            W - R, H - B);
    fprintf(o, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"black\"/>\n", L, T, L,
            H - B);
    for (int i = 0; i <= 4; i++) {
        double y = H - B - (double)(H - T - B) * i / 4, x = L + (double)(W - L - R) * i / 4;
        fprintf(o, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%.1f</text>\n", L - 6, y + 4,
                vmax * i / 4);
        fprintf(o, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%.2f</text>\n", x,
                H - B + 16, tmax * i / 4);
    }
    fprintf(o, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">seconds</text>\n", (W + L) / 2,
            H - 10);
    fprintf(o, "<text x=\"14\" y=\"%d\" transform=\"rotate(-90 14 %d)\" "
               "text-anchor=\"middle\">%s</text>\n", (H - B + T) / 2, (H - B + T) / 2, c->unit);
    const int step = (W - L - R) / c->nseries;
    for (int k = c->nseries - 1; k >= 0; k--) {
        if (k == c->nseries - 1 && c->last_note) {
            fprintf(o, "<text x=\"%d\" y=\"%d\" fill=\"%s\">%s</text>\n", L + 10 + step * k,
                    18, c->color[k], c->last_note);
            continue;
        }
        fprintf(o, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"1.5\" points=\"",
                c->color[k]);
        for (size_t i = 0; i < c->n; i++)
            fprintf(o, "%.1f,%.1f ", L + (W - L - R) * c->t[i] / tmax,
                    H - B - (H - T - B) * c->v[k][i] / vmax);
        fprintf(o, "\"/>\n");
        fprintf(o, "<text x=\"%d\" y=\"%d\" fill=\"%s\">%s</text>\n", L + 10 + step * k, 18,
                c->color[k], c->label[k]);
    }
    fprintf(o, "</svg>\n");
    return fclose(o) == 0 ? 0 : -1;
}

/* A row of the engine's timeline: time, rss, tracked, one column per
 * category, reserved, budget (the last two found by count, so new
 * categories move nothing), as MiB of RSS and of baseline + tracked,
 * reserved and budget. */
static int memory_row_(const char *line, const void *ctx, double *t, double v[4]) {
    const uint64_t baseline = *(const uint64_t *)ctx;
    unsigned long long c[3 + ZKP_MEM_CATEGORY_COUNT];
    int used = 0, nc = 0;
    if (sscanf(line, "%lf%n", t, &used) != 1) return -1;
    const char *at = line + used;
    while (nc < (int)(sizeof c / sizeof c[0]) && sscanf(at, ",%llu%n", &c[nc], &used) == 1) {
        at += used;
        nc++;
    }
    if (nc < 4) return -1;
    const double M = 1048576.0;
    v[0] = c[0] / M;
    v[1] = (baseline + c[1]) / M;
    v[2] = (baseline + c[nc - 2]) / M;
    v[3] = (baseline + c[nc - 1]) / M;
    return 0;
}

/* Draws the timeline as an SVG: RSS, baseline + tracked bytes, baseline +
 * reserved bytes and baseline + budget, in MiB against seconds. */
static int draw_svg_(const char *csv, const char *svg, uint64_t baseline) {
    series_ s;
    if (series_read_(&s, csv, memory_row_, &baseline) != 0) return -1;
    static const char *const color[4] = {"#d62728", "#1f77b4", "#2ca02c", "#7f7f7f"};
    static const char *const label[4] = {"RSS", "baseline + tracked", "baseline + reserved",
                                         "baseline + budget"};
    /* The scale follows the memory in use; the budget line is drawn only
     * when it fits (a detected budget can be a hundred times the work). */
    double vmax = 1, bmax = series_max_(&s, 3, 0);
    for (int k = 0; k < 3; k++) vmax = series_max_(&s, k, vmax);
    int draw_budget = bmax <= 2 * vmax;
    if (draw_budget && bmax > vmax) vmax = bmax;
    char note[64];
    snprintf(note, sizeof note, "budget %.0f MiB, off scale", bmax);
    svg_chart_ c = {s.t, s.v, s.n, 4, label, color, series_max_(&s, -1, 0), vmax, "MiB",
                    draw_budget ? NULL : note};
    int rc = svg_chart_write_(svg, &c);
    series_free_(&s);
    return rc;
}

void bench_engine_finish(zkpipe_engine **e, const uint32_t *keys, size_t nkeys, int verbose,
                         bench_summary *s) {
    zkpipe_engine_status st;
    (void)zkpipe_engine_get_status(*e, &st);
    /* The kernel's high-water mark catches a peak between two samples. */
    uint64_t hwm = 0;
    (void)zkp_mem_read_peak_rss(&hwm);
    s->peak_rss_bytes = st.peak_rss_bytes > hwm ? st.peak_rss_bytes : hwm;
    s->final_rss_bytes = st.rss_bytes;
    s->baseline_rss_bytes = st.baseline_rss_bytes;
    s->budget_bytes = st.budget_total_bytes;
    s->peak_tracked_bytes = st.tracked_peak_bytes;
    s->peak_reserved_bytes = st.budget_peak_reserved_bytes;
    s->reservation_violations = st.reservation_violations;
    memcpy(s->live_end, st.mem_live, sizeof s->live_end);
    /* Keys may have been evicted: their resident bytes then read 0, their
     * partition bytes stay known. */
    for (size_t k = 0; k < st.n_keys; k++) {
        if (st.keys[k].resident_bytes > s->key_bytes) s->key_bytes = st.keys[k].resident_bytes;
        if (st.keys[k].partition_bytes > s->partition_bytes)
            s->partition_bytes = st.keys[k].partition_bytes;
    }
    s->on_gpu = st.n_devices && st.devices[0].is_gpu;
    for (size_t k = 0; k < st.n_devices; k++)
        if (st.devices[k].vram_peak_bytes > s->vram_peak_bytes)
            s->vram_peak_bytes = st.devices[k].vram_peak_bytes;
    /* Each GPU's memory as the engine tracks it beside what the driver
     * reports in use (which adds the CUDA context), while the keys are
     * still resident. */
    const double G = 1073741824.0;
    for (size_t k = 0; k < st.n_devices && verbose; k++)
        if (st.devices[k].is_gpu)
            printf("device %s: GPU memory tracked %.3f GiB (peak %.3f), driver in use %.3f GiB; "
                   "busy %.2f s; copied %.2f GiB up, %.3f GiB down\n",
                   st.devices[k].name, st.devices[k].vram_tracked_bytes / G,
                   st.devices[k].vram_peak_bytes / G,
                   (st.devices[k].vram_total_bytes - st.devices[k].vram_free_bytes) / G,
                   st.devices[k].busy_seconds, st.devices[k].h2d_bytes / G,
                   st.devices[k].d2h_bytes / G);
    if (st.n_devices && st.devices[0].is_gpu && verbose) {
        uint64_t calls;
        double secs;
        zkp_gpu_host_register_stats(&calls, &secs);
        printf("host memory registered with the GPU driver (the pool's regions): %.3f GiB; "
               "%llu registrations and unregistrations took %.2f s\n",
               zkp_gpu_host_registered_bytes() / G, (unsigned long long)calls, secs);
    }
    for (size_t k = 0; k < nkeys; k++)
        if (zkpipe_engine_evict_key(*e, keys[k]) != ZKPIPE_OK)
            fprintf(stderr, "zkpipe bench: a key could not be evicted\n");
    (void)zkp_mem_read_rss(&s->idle_rss_bytes);
    (void)zkpipe_engine_trim(*e, 0);
    (void)zkp_mem_read_rss(&s->trimmed_rss_bytes);
    (void)zkpipe_engine_destroy(e);
}

void bench_timeline_finish(const char *csv, int is_temporary, double end_s, bench_summary *s,
                           char *svg_out, size_t cap) {
    if (cap) svg_out[0] = 0;
    s->max_tracked_rss_deviation =
        bench_timeline_deviation(csv, s->baseline_rss_bytes, 0, end_s, &s->rss_samples);
    if (is_temporary) {
        unlink(csv);
        return;
    }
    size_t n = strlen(csv);
    if (n + 5 > cap) return;
    memcpy(svg_out, csv, n + 1);
    if (n > 4 && !strcmp(svg_out + n - 4, ".csv")) svg_out[n - 4] = 0;
    strcat(svg_out, ".svg");
    if (draw_svg_(csv, svg_out, s->baseline_rss_bytes) != 0) {
        fprintf(stderr, "zkpipe bench: cannot draw %s\n", svg_out);
        svg_out[0] = 0;
    }
}

void bench_summary_json(FILE *f, const bench_summary *s) {
    const zkpipe_stage_times *t = &s->stages;
    /* A control run's figures must not pass for a normal build's. */
    const char *fault = zkp_fault_name();
    fprintf(f,
            "\"proofs\":%u,\"partitions\":%zu,\"seconds\":%.6f,\"sequential_seconds\":%.6f,"
            "\"speedup\":%.4f,\"partitions_per_second\":%.4f,\"budget_bytes\":%llu,"
            "\"peak_rss_bytes\":%llu,\"baseline_rss_bytes\":%llu,\"final_rss_bytes\":%llu,"
            "\"idle_rss_bytes\":%llu,\"trimmed_rss_bytes\":%llu,"
            "\"rss_after_sequential_bytes\":%llu,\"peak_tracked_bytes\":%llu,"
            "\"peak_reserved_bytes\":%llu,\"max_tracked_rss_deviation\":%.6f,"
            "\"rss_samples\":%zu,\"proofs_verified\":%zu,\"sequential_proofs_verified\":%zu,"
            "\"jobs_failed\":%zu,\"key_bytes\":%llu,\"partition_bytes\":%llu,"
            "\"stage_seconds\":{\"queue_wait_max\":%.6f,\"key_load\":%.6f,\"synthesis\":%.6f,"
            "\"device\":%.6f,\"finalize\":%.6f,\"verify\":%.6f",
            s->proofs, s->partitions, s->seconds, s->sequential_seconds,
            s->sequential_seconds > 0 ? s->sequential_seconds / s->seconds : 0,
            s->partitions / s->seconds, (unsigned long long)s->budget_bytes,
            (unsigned long long)s->peak_rss_bytes, (unsigned long long)s->baseline_rss_bytes,
            (unsigned long long)s->final_rss_bytes, (unsigned long long)s->idle_rss_bytes,
            (unsigned long long)s->trimmed_rss_bytes,
            (unsigned long long)s->rss_after_sequential_bytes,
            (unsigned long long)s->peak_tracked_bytes, (unsigned long long)s->peak_reserved_bytes,
            s->max_tracked_rss_deviation, s->rss_samples, s->proofs_verified,
            s->sequential_proofs_verified, s->jobs_failed, (unsigned long long)s->key_bytes,
            (unsigned long long)s->partition_bytes, t->queue_wait, t->key_load, t->synthesis,
            t->device, t->finalize, t->verify);
    for (int i = 0; i < ZKPIPE_N_STEPS; i++)
        fprintf(f, ",\"%s\":%.6f", zkpipe_proof_step_name((zkpipe_proof_step)i), t->steps[i]);
    fprintf(f, "},\"build_fault\":%s%s%s", fault ? "\"" : "", fault ? fault : "null",
            fault ? "\"" : "");
}

void bench_summary_text(FILE *f, const bench_summary *s) {
    const double M = 1048576.0;
    const zkpipe_stage_times *t = &s->stages;
    fprintf(f,
            "stage seconds (summed over partitions): key load %.3f, synthesis %.3f, device %.3f, "
            "finalize %.3f, verify %.3f; longest admission wait %.3f\n",
            t->key_load, t->synthesis, t->device, t->finalize, t->verify, t->queue_wait);
    if (s->partitions) {
        fprintf(f, "proof steps (ms, mean per partition):");
        for (int i = 0; i < ZKPIPE_N_STEPS; i++)
            fprintf(f, "%s %s %.1f", i ? "," : "", zkpipe_proof_step_name((zkpipe_proof_step)i),
                    1e3 * t->steps[i] / s->partitions);
        fprintf(f, "\n");
    }
    fprintf(f,
            "budget %.1f MiB: peak reserved %.1f MiB (largest key %.1f MiB, largest partition "
            "%.1f MiB)\n",
            s->budget_bytes / M, s->peak_reserved_bytes / M, s->key_bytes / M,
            s->partition_bytes / M);
    fprintf(f,
            "RSS: baseline %.1f MiB, peak %.1f MiB, final %.1f MiB, idle (keys evicted) %.1f MiB, "
            "trimmed %.1f MiB",
            s->baseline_rss_bytes / M, s->peak_rss_bytes / M, s->final_rss_bytes / M,
            s->idle_rss_bytes / M, s->trimmed_rss_bytes / M);
    if (s->rss_after_sequential_bytes)
        fprintf(f, ", after sequential %.1f MiB", s->rss_after_sequential_bytes / M);
    fprintf(f,
            "\ntracked: peak %.1f MiB; max |RSS - (baseline + tracked)| / RSS = %.2f%% over %zu "
            "samples\n",
            s->peak_tracked_bytes / M, 100 * s->max_tracked_rss_deviation, s->rss_samples);
    fprintf(f, "tracked at the end:");
    for (unsigned c = 0; c < ZKPIPE_ENGINE_MEM_CATEGORIES; c++)
        fprintf(f, " %s %.1f MiB%s", zkpipe_engine_mem_category_name(c), s->live_end[c] / M,
                c + 1 < ZKPIPE_ENGINE_MEM_CATEGORIES ? "," : "\n");
}

/* A row of the stage timeline: waiting for memory, then each stage with
 * the partitions queued before it (admitted partitions, holding their
 * reservations). */
static int stage_row_(const char *line, const void *ctx, double *t, double v[4]) {
    (void)ctx;
    unsigned long long c[7];
    if (sscanf(line, "%lf,%llu,%llu,%llu,%llu,%llu,%llu,%llu", t, &c[0], &c[1], &c[2], &c[3],
               &c[4], &c[5], &c[6]) != 8)
        return -1;
    v[0] = (double)c[0];
    v[1] = (double)(c[1] + c[2]);
    v[2] = (double)(c[3] + c[4]);
    v[3] = (double)(c[5] + c[6]);
    return 0;
}

int bench_stages_svg(const char *csv, const char *svg) {
    series_ s;
    if (series_read_(&s, csv, stage_row_, NULL) != 0) return -1;
    static const char *const color[4] = {"#7f7f7f", "#ff7f0e", "#9467bd", "#17becf"};
    static const char *const label[4] = {"waiting for memory", "synthesis (+ queued)",
                                         "device (+ queued)", "finalize (+ queued)"};
    double vmax = 1;
    for (int k = 0; k < 4; k++) vmax = series_max_(&s, k, vmax);
    svg_chart_ c = {s.t, s.v, s.n, 4, label, color, series_max_(&s, -1, 0), vmax, "partitions",
                    NULL};
    int rc = svg_chart_write_(svg, &c);
    series_free_(&s);
    return rc;
}
