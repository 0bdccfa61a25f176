/* What the engine benchmarks (bench pipeline, bench porep) share: the end
 * of a run (the engine's memory read, its keys evicted, the engine
 * trimmed and destroyed), the timeline's check and drawing, and the
 * summary's common fields, so both commands report one set of numbers the
 * same way. */
#ifndef ZKP_CLI_BENCH_REPORT_H
#define ZKP_CLI_BENCH_REPORT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "zkpipe/engine.h"

/* A run through the engine: what it proved, in how long, and its memory. */
typedef struct {
    unsigned proofs;   /* jobs: for bench porep, sectors */
    size_t partitions; /* partitions of every job */
    double seconds;    /* first submit to last result collected */
    double sequential_seconds;    /* bench pipeline's plain-prover run; 0 when not run */
    size_t proofs_verified;       /* partitions verified; for bench porep, sectors */
    size_t sequential_proofs_verified;
    size_t jobs_failed;
    uint64_t budget_bytes;
    uint64_t peak_rss_bytes, baseline_rss_bytes, final_rss_bytes;
    uint64_t idle_rss_bytes;    /* the keys evicted */
    uint64_t trimmed_rss_bytes; /* then the engine trimmed */
    uint64_t rss_after_sequential_bytes;
    uint64_t peak_tracked_bytes, peak_reserved_bytes;
    double max_tracked_rss_deviation; /* bench_timeline_check */
    size_t rss_samples;
    uint64_t key_bytes, partition_bytes; /* the largest key and partition */
    uint64_t vram_peak_bytes;            /* the largest GPU's peak; 0 on the CPU */
    int on_gpu;                          /* the engine's first device is a GPU */
    uint64_t reservation_violations;     /* must stay 0 */
    zkpipe_stage_times stages; /* summed over partitions; queue_wait: the longest */
    uint64_t live_end[ZKPIPE_ENGINE_MEM_CATEGORIES]; /* tracked when the run ended */
} bench_summary;

/* Ends a run whose last result was collected: reads the engine's status
 * into s (memory, devices), evicts keys[0..nkeys) and reads the idle RSS,
 * trims and reads it again, then destroys the engine. With verbose, each
 * GPU's memory and traffic is printed on stdout while the keys are still
 * resident. */
void bench_engine_finish(zkpipe_engine **e, const uint32_t *keys, size_t nkeys, int verbose,
                         bench_summary *s);

/* The largest |RSS - (baseline + tracked)| / RSS over the samples of the
 * engine's timeline CSV from start_s (or its first tracked sample, if
 * later) to end_s, in seconds after the engine was created; the samples
 * counted go to *nsamples. -1 when the file cannot be read. */
double bench_timeline_deviation(const char *csv, uint64_t baseline, double start_s, double end_s,
                                size_t *nsamples);

/* The timeline CSV the engine wrote (cfg.timeline_csv): the largest
 * |RSS - (baseline + tracked)| / RSS from its first tracked sample to
 * end_s seconds after the engine was created (the last result collected),
 * into s. Then, when is_temporary, the file is removed; else it is drawn
 * as an SVG next to it (out.csv -> out.svg), whose path goes to svg_out
 * (cap bytes; "" when it could not be drawn). */
void bench_timeline_finish(const char *csv, int is_temporary, double end_s, bench_summary *s,
                           char *svg_out, size_t cap);

/* Draws a stage timeline CSV (seconds, then partitions waiting for
 * admission, queued for and in synthesis, the device and finalize, then
 * anything further) as an SVG of partitions per stage against time. */
int bench_stages_svg(const char *csv, const char *svg);

/* The summary's common fields as JSON members, without the braces, in
 * bench pipeline's order. */
void bench_summary_json(FILE *f, const bench_summary *s);

/* The summary's memory lines as text: budget and reservations, RSS,
 * tracked bytes against RSS, tracked bytes per category at the end. */
void bench_summary_text(FILE *f, const bench_summary *s);

#endif
