/* zkp_bench [--json] [filter...]: runs the registered benchmarks whose
 * name contains one of the filters (all when none is given) and prints the
 * machine, then one line per case with the median ns per operation. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"
#include "hash/sha256.h"
#include "util/cpu.h"

typedef struct {
    const bench_case *cases;
    size_t count;
} bench_table;

static double now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double run_case(const bench_case *c, uint64_t *iters_out) {
    uint64_t iters = 1;
    /* Calibrate: grow iters until one sample takes at least 20 ms. */
    for (;;) {
        double t0 = now_ns();
        c->fn(iters);
        double dt = now_ns() - t0;
        if (dt >= 20e6 || iters >= (1ULL << 40)) break;
        iters = dt < 1e5 ? iters * 16 : (uint64_t)(iters * 25e6 / dt) + 1;
    }
    double samples[BENCH_SAMPLES];
    for (int s = 0; s < BENCH_SAMPLES; s++) {
        double t0 = now_ns();
        c->fn(iters);
        samples[s] = (now_ns() - t0) / (double)iters;
    }
    qsort(samples, BENCH_SAMPLES, sizeof samples[0], cmp_double);
    *iters_out = iters;
    return samples[BENCH_SAMPLES / 2];
}

static void cpu_model(char *out, size_t cap) {
    snprintf(out, cap, "unknown");
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f) return;
    char line[512];
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "model name", 10) == 0) {
            char *colon = strchr(line, ':');
            if (colon) {
                colon += 2;
                colon[strcspn(colon, "\n")] = '\0';
                snprintf(out, cap, "%s", colon);
            }
            break;
        }
    }
    fclose(f);
}

static int selected(const char *name, int argc, char **argv, int first) {
    if (first >= argc) return 1;
    for (int i = first; i < argc; i++)
        if (strstr(name, argv[i])) return 1;
    return 0;
}

int main(int argc, char **argv) {
    int json = argc > 1 && strcmp(argv[1], "--json") == 0;
    int first = json ? 2 : 1;
    const bench_table tables[] = {
        {bench_field_cases, bench_field_count},
        {bench_curve_cases, bench_curve_count},
        {bench_pairing_cases, bench_pairing_count},
        {bench_ntt_cases, bench_ntt_count},
        {bench_msm_cases, bench_msm_count},
        {bench_hash_cases, bench_hash_count},
        {bench_poseidon_cases, bench_poseidon_count},
    };
    char model[256];
    cpu_model(model, sizeof model);
    if (json)
        printf("{\"cpu\": \"%s\", \"cores\": %ld, \"arith\": \"%s\", \"sha256\": \"%s\", "
               "\"compiler\": \"%s\", \"results\": [",
               model, sysconf(_SC_NPROCESSORS_ONLN), zkp_cpu_path_name(), zkp_sha256_path_name(),
               __VERSION__);
    else
        printf("cpu: %s\ncores: %ld\narithmetic path: %s\nsha-256 path: %s\ncompiler: %s\n"
               "samples: %d, median reported\n\n%-10s %-36s %14s\n",
               model, sysconf(_SC_NPROCESSORS_ONLN), zkp_cpu_path_name(), zkp_sha256_path_name(),
               __VERSION__, BENCH_SAMPLES,
               "group", "case", "ns/op");
    int n = 0;
    for (size_t t = 0; t < sizeof tables / sizeof tables[0]; t++)
        for (size_t i = 0; i < tables[t].count; i++) {
            const bench_case *c = &tables[t].cases[i];
            if (!selected(c->name, argc, argv, first)) continue;
            uint64_t iters;
            double ns = run_case(c, &iters);
            if (json)
                printf("%s{\"group\": \"%s\", \"name\": \"%s\", \"ns_per_op\": %.2f}", n ? ", " : "",
                       c->group, c->name, ns);
            else
                printf("%-10s %-36s %14.1f\n", c->group, c->name, ns);
            fflush(stdout);
            n++;
        }
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    if (json)
        printf("], \"peak_rss_bytes\": %ld}\n", ru.ru_maxrss * 1024L);
    else
        printf("\npeak RSS: %ld KiB\n", ru.ru_maxrss);
    return 0;
}
