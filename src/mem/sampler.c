/* Resident memory: one-off reads and the sampling thread.
 *
 * RSS comes from /proc/self/statm (its second field, in pages): one short
 * line, cheap enough to read every few milliseconds. The sampler keeps the
 * file open and re-reads it from offset 0, so a sample is one pread. The
 * peak it reports is the highest sample; the kernel's own high-water mark
 * (zkp_mem_read_peak_rss) is exact but process-wide and only resettable
 * through /proc/self/clear_refs, so both are offered. */
#define _GNU_SOURCE
#include <errno.h>
#if defined(__GLIBC__)
#include <malloc.h>
#endif
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mem/mem.h"
#include "mem/mem_internal.h"

#define STATM_PATH "/proc/self/statm"
#define DEFAULT_PERIOD_MS 100

struct zkp_mem_sampler {
    unsigned period_ms;
    const zkp_mem_tracker *tracker;
    const zkp_mem_budget *budget;
    int statm_fd;
    uint64_t page_size;
    uint64_t start_ns;
    FILE *csv;     /* written by the sampling thread only, and by start/stop around it */
    int csv_error; /* a write failed */
    atomic_uint_fast64_t rss, peak_rss, samples;

    pthread_mutex_t mu;
    pthread_cond_t wake;
    int stopping;
    pthread_t thread;
};

/* RSS in bytes from the statm text "size resident shared ...". */
static zkpipe_status rss_from_statm_fd(int fd, uint64_t page_size, uint64_t *out) {
    char text[256];
    ssize_t n;
    do {
        n = pread(fd, text, sizeof text - 1, 0);
    } while (n < 0 && errno == EINTR);
    if (n <= 0) return ZKPIPE_ERR_IO;
    text[n] = '\0';
    unsigned long long size_pages, resident_pages;
    if (sscanf(text, "%llu %llu", &size_pages, &resident_pages) != 2) return ZKPIPE_ERR_PARSE;
    *out = (uint64_t)resident_pages * page_size;
    return ZKPIPE_OK;
}

static uint64_t page_size(void) {
    long ps = sysconf(_SC_PAGESIZE);
    return ps > 0 ? (uint64_t)ps : 4096;
}

zkpipe_status zkp_mem_read_rss(uint64_t *out) {
    if (!out) return ZKPIPE_ERR_INVALID_ARGUMENT;
    int fd = open(STATM_PATH, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return ZKPIPE_ERR_IO;
    zkpipe_status st = rss_from_statm_fd(fd, page_size(), out);
    close(fd);
    return st;
}

zkpipe_status zkp_mem_read_peak_rss(uint64_t *out) {
    if (!out) return ZKPIPE_ERR_INVALID_ARGUMENT;
    char text[8192];
    if (zkp_mem_read_small_file("/proc/self/status", text, sizeof text) != 0) return ZKPIPE_ERR_IO;
    return zkp_mem_parse_kib_field(text, "VmHWM", out);
}

zkpipe_status zkp_mem_reset_peak_rss(void) {
    int fd = open("/proc/self/clear_refs", O_WRONLY | O_CLOEXEC);
    if (fd < 0) return ZKPIPE_ERR_IO;
    /* "5" resets the peak RSS and nothing else (Documentation/filesystems/proc.rst). */
    ssize_t n = write(fd, "5", 1);
    close(fd);
    return n == 1 ? ZKPIPE_OK : ZKPIPE_ERR_IO;
}

/* ---- the sampler ---- */

static void raise_peak(atomic_uint_fast64_t *peak, uint64_t value) {
    uint_fast64_t seen = atomic_load(peak);
    while (seen < value && !atomic_compare_exchange_weak(peak, &seen, value)) {
    }
}

/* Reads RSS and updates the counters; 0 when statm could not be read. */
static uint64_t take_sample(zkp_mem_sampler *s) {
    uint64_t rss;
    if (rss_from_statm_fd(s->statm_fd, s->page_size, &rss) != ZKPIPE_OK) return 0;
    atomic_store(&s->rss, rss);
    raise_peak(&s->peak_rss, rss);
    atomic_fetch_add(&s->samples, 1);
    return rss;
}

static void write_csv_header(zkp_mem_sampler *s) {
    int ok = fputs("time_s,rss_bytes,tracked_bytes", s->csv) >= 0;
    for (int c = 0; c < ZKP_MEM_CATEGORY_COUNT; c++)
        ok &= fprintf(s->csv, ",%s", zkp_mem_category_name((zkp_mem_category)c)) >= 0;
    ok &= fputs(",budget_reserved_bytes,budget_total_bytes\n", s->csv) >= 0;
    if (!ok) s->csv_error = 1;
}

static void write_csv_line(zkp_mem_sampler *s, uint64_t rss, const zkp_mem_snapshot *snapp) {
    const zkp_mem_snapshot snap = *snapp;
    zkp_mem_budget_stats budget;
    memset(&budget, 0, sizeof budget);
    if (s->budget) (void)zkp_mem_budget_stats_get(s->budget, &budget);
    double t = (double)(zkp_mem_now_ns() - s->start_ns) / (double)ZKP_NS_PER_S;
    int ok = fprintf(s->csv, "%.3f,%" PRIu64 ",%" PRIu64, t, rss, snap.total_live_bytes) >= 0;
    for (int c = 0; c < ZKP_MEM_CATEGORY_COUNT; c++)
        ok &= fprintf(s->csv, ",%" PRIu64, snap.cat[c].live_bytes) >= 0;
    ok &= fprintf(s->csv, ",%" PRIu64 ",%" PRIu64 "\n", budget.reserved_bytes,
                  budget.total_bytes) >= 0;
    /* Flushed per line: a timeline is most wanted after a crash. */
    ok &= fflush(s->csv) == 0;
    if (!ok) s->csv_error = 1;
}

/* A timeline line pairs RSS with the tracked bytes, so both are read as
 * one: the tracker before and after the RSS, again (a few times at most)
 * when a buffer came or went in between. Otherwise a megabyte freed between
 * the two reads shows up as a megabyte of RSS nobody tracks. */
static void sample_and_record(zkp_mem_sampler *s) {
    if (!s->csv) {
        (void)take_sample(s);
        return;
    }
    zkp_mem_snapshot before, after;
    memset(&before, 0, sizeof before);
    memset(&after, 0, sizeof after);
    uint64_t rss = 0;
    for (int tries = 0; tries < 4; tries++) {
        if (s->tracker) (void)zkp_mem_tracker_snapshot(s->tracker, &before);
        rss = take_sample(s);
        if (s->tracker) (void)zkp_mem_tracker_snapshot(s->tracker, &after);
        if (before.total_live_bytes == after.total_live_bytes) break;
    }
    write_csv_line(s, rss, &after);
}

static void *sampler_main(void *arg) {
    zkp_mem_sampler *s = arg;
    pthread_mutex_lock(&s->mu);
    while (!s->stopping) {
        zkp_mem_cond_wait_until(&s->wake, &s->mu,
                                zkp_mem_now_ns() + (uint64_t)s->period_ms * ZKP_NS_PER_MS);
        if (s->stopping) break;
        pthread_mutex_unlock(&s->mu);
        sample_and_record(s);
        pthread_mutex_lock(&s->mu);
    }
    pthread_mutex_unlock(&s->mu);
    return NULL;
}

static void sampler_free(zkp_mem_sampler *s) {
    if (s->csv) fclose(s->csv);
    if (s->statm_fd >= 0) close(s->statm_fd);
    free(s);
}

zkpipe_status zkp_mem_sampler_start(zkp_mem_sampler **out, const zkp_mem_sampler_config *cfg,
                                    zkp_diag *diag) {
    if (!out) return zkp_diag_fail(diag, ZKPIPE_ERR_INVALID_ARGUMENT, "no output given");
    *out = NULL;
    zkp_mem_sampler *s = calloc(1, sizeof *s);
    if (!s) return zkp_diag_fail(diag, ZKPIPE_ERR_NO_MEMORY, "cannot allocate the sampler");
    s->period_ms = cfg && cfg->period_ms ? cfg->period_ms : DEFAULT_PERIOD_MS;
    s->tracker = cfg ? cfg->tracker : NULL;
    s->budget = cfg ? cfg->budget : NULL;
    s->page_size = page_size();
    s->start_ns = zkp_mem_now_ns();
    atomic_init(&s->rss, 0);
    atomic_init(&s->peak_rss, 0);
    atomic_init(&s->samples, 0);
    s->statm_fd = open(STATM_PATH, O_RDONLY | O_CLOEXEC);
    if (s->statm_fd < 0) {
        int err = errno;
        sampler_free(s);
        return zkp_diag_fail(diag, ZKPIPE_ERR_IO, "%s: cannot open: %s", STATM_PATH, strerror(err));
    }
    if (cfg && cfg->csv_path) {
        s->csv = fopen(cfg->csv_path, "we");
        if (!s->csv) {
            int err = errno;
            sampler_free(s);
            return zkp_diag_fail(diag, ZKPIPE_ERR_IO, "%s: cannot create: %s", cfg->csv_path,
                                 strerror(err));
        }
        write_csv_header(s);
    }
    sample_and_record(s);
    if (pthread_mutex_init(&s->mu, NULL) != 0) {
        sampler_free(s);
        return zkp_diag_fail(diag, ZKPIPE_ERR_NO_MEMORY, "cannot create the sampler's lock");
    }
    if (zkp_mem_cond_init_monotonic(&s->wake) != 0) {
        pthread_mutex_destroy(&s->mu);
        sampler_free(s);
        return zkp_diag_fail(diag, ZKPIPE_ERR_NO_MEMORY, "cannot create the sampler's condition");
    }
    if (pthread_create(&s->thread, NULL, sampler_main, s) != 0) {
        pthread_cond_destroy(&s->wake);
        pthread_mutex_destroy(&s->mu);
        sampler_free(s);
        return zkp_diag_fail(diag, ZKPIPE_ERR_NO_MEMORY, "cannot start the sampling thread");
    }
    *out = s;
    return ZKPIPE_OK;
}

static void stats_of(zkp_mem_sampler *s, zkp_mem_sampler_stats *out) {
    out->rss_bytes = atomic_load(&s->rss);
    out->peak_rss_bytes = atomic_load(&s->peak_rss);
    out->samples = atomic_load(&s->samples);
}

zkpipe_status zkp_mem_sampler_stats_get(zkp_mem_sampler *s, zkp_mem_sampler_stats *out) {
    if (!s || !out) return ZKPIPE_ERR_INVALID_ARGUMENT;
    if (!take_sample(s)) return ZKPIPE_ERR_IO;
    stats_of(s, out);
    return ZKPIPE_OK;
}

zkpipe_status zkp_mem_sampler_reset_peak(zkp_mem_sampler *s) {
    if (!s) return ZKPIPE_ERR_INVALID_ARGUMENT;
    uint64_t rss;
    zkpipe_status st = rss_from_statm_fd(s->statm_fd, s->page_size, &rss);
    if (st != ZKPIPE_OK) return st;
    atomic_store(&s->rss, rss);
    atomic_store(&s->peak_rss, rss);
    return ZKPIPE_OK;
}

zkpipe_status zkp_mem_sampler_stop(zkp_mem_sampler **sp, zkp_mem_sampler_stats *last) {
    if (!sp) return ZKPIPE_ERR_INVALID_ARGUMENT;
    zkp_mem_sampler *s = *sp;
    if (!s) return ZKPIPE_OK;
    pthread_mutex_lock(&s->mu);
    s->stopping = 1;
    pthread_cond_signal(&s->wake);
    pthread_mutex_unlock(&s->mu);
    pthread_join(s->thread, NULL);
    pthread_cond_destroy(&s->wake);
    pthread_mutex_destroy(&s->mu);
    sample_and_record(s);
    if (last) stats_of(s, last);
    int csv_failed = s->csv_error;
    if (s->csv) {
        csv_failed |= fclose(s->csv) != 0;
        s->csv = NULL;
    }
    sampler_free(s);
    *sp = NULL;
    return csv_failed ? ZKPIPE_ERR_IO : ZKPIPE_OK;
}

/* Whether a /proc/self/maps line names code a proof runs: the object this
 * function is in (the program, or libzkpipe.so), or the C and math
 * libraries. Other libraries (a daemon's gRPC, say) stay as lazy as ever. */
static int is_prover_code_(const char *line, uintptr_t lo, uintptr_t hi) {
    uintptr_t self = (uintptr_t)(const void *)is_prover_code_;
    if (self >= lo && self < hi) return 1;
    return strstr(line, "/libc.so") != NULL || strstr(line, "/libm.so") != NULL;
}

zkpipe_status zkp_mem_prefault_code(void) {
    FILE *f = fopen("/proc/self/maps", "re");
    if (!f) return ZKPIPE_ERR_IO;
    long pg = sysconf(_SC_PAGESIZE);
    uintptr_t step = pg > 0 ? (uintptr_t)pg : 4096;
    char line[512];
    zkpipe_status st = ZKPIPE_ERR_IO;
    while (fgets(line, sizeof line, f)) {
        uintptr_t lo, hi;
        char perm[8];
        if (sscanf(line, "%" SCNxPTR "-%" SCNxPTR " %7s", &lo, &hi, perm) != 3) continue;
        if (perm[0] != 'r' || perm[2] != 'x' || !is_prover_code_(line, lo, hi)) continue;
        /* One read per page maps it; the xor keeps the reads from being
         * optimised away. */
        volatile unsigned char sink = 0;
        for (uintptr_t p = lo; p < hi; p += step) sink ^= *(volatile const unsigned char *)p;
        (void)sink;
        st = ZKPIPE_OK;
    }
    fclose(f);
    return st;
}

void zkp_mem_trim_heap(void) {
#if defined(__GLIBC__)
    (void)malloc_trim(0);
#endif
}
