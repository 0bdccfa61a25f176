/* zkpipe bench msm | ntt: one kernel at a time, on the CPU and on a GPU, in
 * one run, so that every GPU time stands beside the CPU's on the same data.
 *
 * The G1 MSM is timed three ways on a GPU: with the bases already resident
 * and the scalars already on the device (what a resident key and the H
 * values of prove_start see, and how GPU libraries are usually quoted),
 * with the scalars coming from host memory (the witness MSMs), and the
 * one-time upload of the bases. The NTT likewise, device-resident and from
 * host memory. Every GPU result is compared with the CPU's (up to --check
 * elements), so a fast wrong kernel cannot pass for a fast one. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "curve/curve.h"
#include "field/field.h"
#include "gpu/gpu.h"
#include "groth16/backend.h"
#include "msm/msm.h"
#include "ntt/ntt.h"
#include "util/rand.h"

static const char kernels_usage[] =
    "usage: zkpipe bench msm --curve C --log L[,L...] [--device cpu|cuda|cuda:N|auto] [options]\n"
    "       zkpipe bench ntt --curve C --log L[,L...] [--device ...] [options]\n"
    "  --curve C      bn254 (bn128) or bls12381 (bls12_381)\n"
    "  --log L        sizes 2^L, comma-separated (MSM: 1..28, NTT: 1..the 2-adicity)\n"
    "  --device D     where to run beside the CPU (default auto: the first GPU if any)\n"
    "  --runs R       timed runs per size, 1 to 63 (default 5; the median is reported)\n"
    "  --threads N    CPU threads (default: every CPU)\n"
    "  --no-cpu       skip the CPU timing (the results are still checked up to --check)\n"
    "  --check L      compare GPU and CPU results up to 2^L elements (default 20)\n"
    "  --cache no     give the GPU's freed working buffers back to the driver at once (by\n"
    "                 default they are kept for the next run, as the engine keeps them)\n"
    "MSM data: 2^14 random bases repeated, random scalars below r.\n" CLI_OPTIONS_HELP;

typedef struct {
    zkpipe_curve curve; /* 0 until --curve names one */
    unsigned logs[32], nlogs, runs, nthreads, check_log;
    int no_cpu, cache;
    zkp_gpu *gpu;
} kbench_;

/* n scalars uniform below r. */
static void random_scalars_(uint64_t *s, size_t n, const uint64_t *r, unsigned bits) {
    uint64_t state = 0x9e3779b97f4a7c15ULL ^ (uint64_t)n;
    for (size_t i = 0; i < n; i++) cli_random_scalar(s + 4 * i, r, bits, &state);
}

#define BENCH_MSM_DISTINCT_ 16384

/* The MSM of one group G over scalar field FR (prefix FK). */
#define BENCH_MSM_(G, FK)                                                                         \
    static int bench_msm_##G##_(const kbench_ *b) {                                              \
        static const uint64_t r[4] = FK##_MODULUS;                                                \
        size_t nmax = 0;                                                                          \
        for (unsigned i = 0; i < b->nlogs; i++)                                                   \
            if (((size_t)1 << b->logs[i]) > nmax) nmax = (size_t)1 << b->logs[i];                 \
        G##_affine_t *bases = malloc(nmax * sizeof *bases);                                       \
        uint64_t *sc = malloc(nmax * 4 * sizeof *sc);                                             \
        size_t distinct = nmax < BENCH_MSM_DISTINCT_ ? nmax : BENCH_MSM_DISTINCT_;                \
        G##_jacobian_t *tmp = malloc(distinct * sizeof *tmp);                                     \
        int code = CLI_OK;                                                                        \
        if (!bases || !sc || !tmp) {                                                              \
            code = cli_fail("bench", ZKPIPE_ERR_NO_MEMORY, NULL, CLI_INVALID);                    \
            goto out;                                                                             \
        }                                                                                         \
        CLI_BENCH_BASES(G, bases, nmax, tmp, distinct);                                           \
        random_scalars_(sc, nmax, r, FK##_BITS);                                                  \
        printf("%-14s %6s %12s %12s %12s %12s %8s\n", #G " MSM", "log n", "cpu ms", "gpu ms",     \
               "gpu+h2d ms", "upload ms", "cpu/gpu");                                             \
        for (unsigned li = 0; li < b->nlogs && code == CLI_OK; li++) {                            \
            size_t n = (size_t)1 << b->logs[li];                                                  \
            double cpu[64], gdev[64], ghost[64], up = 0, cpu_med = 0, gdev_med = 0, ghost_med = 0; \
            G##_jacobian_t want, got;                                                             \
            G##_xyzz_t gx;                                                                        \
            int have_want = 0;                                                                    \
            if (!b->no_cpu || (b->gpu && b->logs[li] <= b->check_log)) {                          \
                size_t sb = G##_msm_scratch_bytes(n, b->nthreads);                                \
                void *scratch = malloc(sb ? sb : 1);                                              \
                if (!scratch) {                                                                   \
                    code = cli_fail("bench", ZKPIPE_ERR_NO_MEMORY, NULL, CLI_INVALID);            \
                    break;                                                                        \
                }                                                                                 \
                unsigned runs = b->no_cpu ? 1 : b->runs;                                          \
                for (unsigned k = 0; k < runs; k++) {                                             \
                    double t0 = cli_now();                                                        \
                    zkpipe_status st =                                                            \
                        G##_msm_mt_var(&want, bases, sc, n, b->nthreads, scratch, sb);            \
                    cpu[k] = 1e3 * (cli_now() - t0);                                              \
                    if (st != ZKPIPE_OK) code = cli_fail("bench", st, NULL, CLI_INVALID);         \
                }                                                                                 \
                free(scratch);                                                                    \
                have_want = 1;                                                                    \
                cpu_med = b->no_cpu ? 0 : cli_median(cpu, runs);                                     \
            }                                                                                     \
            if (b->gpu && code == CLI_OK) {                                                       \
                zkp_diag d = {{0}};                                                               \
                zkp_gpu_bases *gb = NULL;                                                         \
                zkp_gpu_buf *sbuf = NULL;                                                         \
                double t0 = cli_now();                                                            \
                zkpipe_status st = G##_gpu_bases_upload(b->gpu, &gb, bases, n, &d);               \
                up = 1e3 * (cli_now() - t0);                                                      \
                if (st == ZKPIPE_OK)                                                              \
                    st = zkp_gpu_buf_alloc(b->gpu, &sbuf, n * 32, ZKP_GPU_MEM_SCALARS, &d);       \
                if (st == ZKPIPE_OK) st = zkp_gpu_buf_upload(sbuf, 0, sc, n * 32, &d);            \
                /* One warm-up run of each form, then the timed ones. */                        \
                for (unsigned k = 0; k <= b->runs && st == ZKPIPE_OK; k++) {                      \
                    t0 = cli_now();                                                               \
                    st = G##_gpu_msm_dev(b->gpu, &gx, gb, 0, sbuf, 0, n, &d);                     \
                    if (k) gdev[k - 1] = 1e3 * (cli_now() - t0);                                  \
                    if (st != ZKPIPE_OK) break;                                                   \
                    t0 = cli_now();                                                               \
                    st = G##_gpu_msm(b->gpu, &gx, gb, 0, sc, n, &d);                              \
                    if (k) ghost[k - 1] = 1e3 * (cli_now() - t0);                                 \
                }                                                                                 \
                zkp_gpu_buf_free(sbuf);                                                           \
                zkp_gpu_bases_free(gb);                                                           \
                if (st != ZKPIPE_OK) {                                                            \
                    code = cli_fail("bench", st, &d, CLI_INVALID);                                \
                    break;                                                                        \
                }                                                                                 \
                gdev_med = cli_median(gdev, b->runs);                                                \
                ghost_med = cli_median(ghost, b->runs);                                              \
                G##_xyzz_to_jacobian(&got, &gx);                                                  \
                if (have_want && !G##_eq(&want, &got)) {                                          \
                    fprintf(stderr, "zkpipe bench: the GPU's " #G " MSM of 2^%u points differs "   \
                                    "from the CPU's\n", b->logs[li]);                             \
                    code = CLI_INVALID;                                                           \
                }                                                                                 \
            }                                                                                     \
            printf("%-14s %6u %12.2f %12.2f %12.2f %12.2f %8.2f%s\n", "", b->logs[li], cpu_med,   \
                   gdev_med, ghost_med, up, gdev_med > 0 ? cpu_med / gdev_med : 0,                \
                   have_want && b->gpu ? "  checked" : "");                                       \
            fflush(stdout);                                                                       \
        }                                                                                         \
    out:                                                                                          \
        free(bases);                                                                              \
        free(sc);                                                                                 \
        free(tmp);                                                                                \
        return code;                                                                              \
    }
BENCH_MSM_(bn254_g1, BN254_FR)
BENCH_MSM_(bls12_381_g1, BLS12_381_FR)

/* The NTT of one scalar field F: the forward transform on the field's own
 * root family, natural order in and out. */
#define BENCH_NTT_(F)                                                                             \
    static int bench_ntt_##F##_(const kbench_ *b) {                                              \
        int code = CLI_OK;                                                                        \
        printf("%-14s %6s %12s %12s %12s %8s\n", #F " NTT", "log n", "cpu ms", "gpu ms",          \
               "gpu+xfer ms", "cpu/gpu");                                                         \
        for (unsigned li = 0; li < b->nlogs && code == CLI_OK; li++) {                            \
            unsigned log_n = b->logs[li];                                                         \
            size_t n = (size_t)1 << log_n;                                                        \
            F##_t *v = malloc(n * sizeof *v), *w = malloc(n * sizeof *w), root;                   \
            size_t db = F##_ntt_domain_bytes(log_n);                                              \
            void *dm = malloc(db ? db : 1);                                                       \
            double cpu[64], gdev[64], ghost[64], cpu_med = 0, gdev_med = 0, ghost_med = 0;        \
            F##_ntt_domain_t dom;                                                                 \
            if (!v || !w || !dm || F##_root_of_unity(&root, log_n) != ZKPIPE_OK ||                \
                F##_ntt_domain_init(&dom, log_n, dm, db) != ZKPIPE_OK) {                          \
                code = cli_fail("bench", ZKPIPE_ERR_NO_MEMORY, NULL, CLI_INVALID);                \
                goto next_##F;                                                                    \
            }                                                                                     \
            for (size_t i = 0; i < n; i++) F##_set_u64(&v[i], (uint64_t)i * 0x9e3779b97f4a7c15ULL); \
            if (!b->no_cpu) {                                                                     \
                for (unsigned k = 0; k < b->runs; k++) {                                          \
                    memcpy(w, v, n * sizeof *v);                                                  \
                    double t0 = cli_now();                                                        \
                    zkpipe_status st =                                                            \
                        F##_ntt_transform(&dom, w, n, ZKP_NTT_FORWARD, NULL, b->nthreads);        \
                    cpu[k] = 1e3 * (cli_now() - t0);                                              \
                    if (st != ZKPIPE_OK) code = cli_fail("bench", st, NULL, CLI_INVALID);         \
                }                                                                                 \
                cpu_med = cli_median(cpu, b->runs);                                                  \
            }                                                                                     \
            if (b->gpu && code == CLI_OK) {                                                       \
                zkp_diag d = {{0}};                                                               \
                zkp_gpu_buf *buf = NULL;                                                          \
                zkpipe_status st = zkp_gpu_buf_alloc(b->gpu, &buf, n * sizeof *v,                 \
                                                     ZKP_GPU_MEM_ABC, &d);                        \
                if (st == ZKPIPE_OK) st = zkp_gpu_buf_upload(buf, 0, v, n * sizeof *v, &d);       \
                for (unsigned k = 0; k <= b->runs && st == ZKPIPE_OK; k++) {                      \
                    double t0 = cli_now();                                                        \
                    st = F##_gpu_ntt_dev(b->gpu, buf, log_n, ZKP_NTT_FORWARD, root.l, NULL, &d);  \
                    if (k) gdev[k - 1] = 1e3 * (cli_now() - t0);                                  \
                    if (st != ZKPIPE_OK) break;                                                   \
                    memcpy(w, v, n * sizeof *v);                                                  \
                    t0 = cli_now();                                                               \
                    st = F##_gpu_ntt(b->gpu, w[0].l, log_n, ZKP_NTT_FORWARD, root.l, NULL, &d);   \
                    if (k) ghost[k - 1] = 1e3 * (cli_now() - t0);                                 \
                }                                                                                 \
                zkp_gpu_buf_free(buf);                                                            \
                if (st != ZKPIPE_OK) {                                                            \
                    code = cli_fail("bench", st, &d, CLI_INVALID);                                \
                    goto next_##F;                                                                \
                }                                                                                 \
                gdev_med = cli_median(gdev, b->runs);                                                \
                ghost_med = cli_median(ghost, b->runs);                                              \
                if (log_n <= b->check_log) {                                                      \
                    /* w holds the GPU's transform of v; the CPU's must agree exactly. */        \
                    F##_t *c = malloc(n * sizeof *c);                                             \
                    if (c) {                                                                      \
                        memcpy(c, v, n * sizeof *v);                                              \
                        if (F##_ntt_transform(&dom, c, n, ZKP_NTT_FORWARD, NULL, b->nthreads) !=  \
                                ZKPIPE_OK ||                                                      \
                            memcmp(c, w, n * sizeof *c) != 0) {                                   \
                            fprintf(stderr, "zkpipe bench: the GPU's NTT of 2^%u points differs " \
                                            "from the CPU's\n", log_n);                           \
                            code = CLI_INVALID;                                                   \
                        }                                                                         \
                        free(c);                                                                  \
                    }                                                                             \
                }                                                                                 \
            }                                                                                     \
            printf("%-14s %6u %12.2f %12.2f %12.2f %8.2f%s\n", "", log_n, cpu_med, gdev_med,      \
                   ghost_med, gdev_med > 0 ? cpu_med / gdev_med : 0,                              \
                   b->gpu && log_n <= b->check_log ? "  checked" : "");                           \
            fflush(stdout);                                                                       \
        next_##F:                                                                                 \
            F##_ntt_domain_clear(&dom);                                                           \
            free(dm);                                                                             \
            free(v);                                                                              \
            free(w);                                                                              \
        }                                                                                         \
        return code;                                                                              \
    }
BENCH_NTT_(bn254_fr)
BENCH_NTT_(bls12_381_fr)

/* Sizes by commas, each a plain number: strtoul alone would also take a
 * leading space or sign, and the loop a trailing comma. */
static int parse_logs_(const char *s, kbench_ *b) {
    b->nlogs = 0;
    for (;;) {
        if (*s < '0' || *s > '9') return -1;
        char *end;
        unsigned long v = strtoul(s, &end, 10);
        if (v < 1 || v > 28 || b->nlogs == 32) return -1;
        b->logs[b->nlogs++] = (unsigned)v;
        if (!*end) return 0;
        if (*end != ',') return -1;
        s = end + 1;
    }
}

int cli_bench_kernel(const char *what, int argc, char **argv) {
    kbench_ b = {.curve = 0, .runs = 5, .check_log = 20, .cache = 1};
    const char *device = "auto";
    for (int i = 0; i < argc; i++) {
        const char *v = NULL;
        if (cli_is_help(argv[i])) {
            fputs(kernels_usage, stdout);
            return CLI_OK;
        }
        if (!strcmp(argv[i], "--no-cpu")) {
            b.no_cpu = 1;
            continue;
        }
        /* Every other option takes a value: --name value or --name=value. */
        char name[16];
        int r = cli_opt_named("bench", argc, argv, &i, name, sizeof name, "see bench msm --help", &v);
        if (r == 0) return cli_unknown("bench", argv[i], "bench msm --help");
        if (r < 0) return CLI_USAGE;
        uint64_t num;
        if (!strcmp(name, "--curve")) {
            if (cli_parse_curve(v, &b.curve)) return cli_refused("bench", name, CLI_CURVE_WANT, v);
        } else if (!strcmp(name, "--log")) {
            if (parse_logs_(v, &b))
                return cli_refused("bench", name, "up to 32 sizes from 1 to 28, by commas", v);
        } else if (!strcmp(name, "--device")) {
            device = v;
        } else if (!strcmp(name, "--runs")) {
            if (cli_parse_u64(v, 63, &num) || num < 1)
                return cli_refused("bench", name, "a number from 1 to 63", v);
            b.runs = (unsigned)num;
        } else if (!strcmp(name, "--threads")) {
            if (cli_parse_threads(v, &b.nthreads))
                return cli_refused("bench", name, CLI_THREADS_WANT, v);
        } else if (!strcmp(name, "--check")) {
            if (cli_parse_u64(v, 63, &num))
                return cli_refused("bench", name, "a number from 0 to 63", v);
            b.check_log = (unsigned)num;
        } else if (!strcmp(name, "--cache")) {
            if (cli_parse_choice(v, "yes", "no", &b.cache))
                return cli_refused("bench", name, "yes or no", v);
        } else {
            return cli_unknown("bench", name, "bench msm --help");
        }
    }
    if (!b.curve || !b.nlogs) {
        fprintf(stderr, "zkpipe bench: %s needs --curve and --log\n", what);
        fputs(kernels_usage, stderr);
        return CLI_USAGE;
    }
    if (!b.nthreads) {
        long n = sysconf(_SC_NPROCESSORS_ONLN);
        b.nthreads = n > 0 && n < 4096 ? (unsigned)n : 1;
    }
    zkp_diag d = {{0}};
    unsigned ordinal;
    const int kind = zkp_g16_device_parse(device, &ordinal);
    if (kind < 0) {
        fprintf(stderr,
                "zkpipe bench: unknown device \"%s\" (expected cpu, cuda, cuda:N or auto)\n",
                device);
        return CLI_USAGE;
    }
    if (kind != ZKP_DEVICE_CPU) {
        zkpipe_status st = zkp_gpu_open(&b.gpu, ordinal, &d);
        if (st != ZKPIPE_OK) {
            if (kind != ZKP_DEVICE_AUTO) return cli_fail("bench", st, &d, CLI_INVALID);
            fprintf(stderr, "zkpipe bench: CPU only (--device auto): %s\n", d.msg);
        } else {
            zkp_gpu_set_cache(b.gpu, b.cache);
            zkp_gpu_info info;
            if (zkp_gpu_device_info(&info, ordinal, &d) == ZKPIPE_OK)
                printf("device: cuda:%u %s, compute %d.%d, %u SMs, %.0f GiB\n", ordinal, info.name,
                       info.cc_major, info.cc_minor, info.multiprocessors,
                       (double)info.total_bytes / (1u << 30));
        }
    }
    printf("cpu: %u threads; medians of %u runs\n", b.nthreads, b.runs);
    int code, bn254 = b.curve == ZKPIPE_CURVE_BN254;
    if (!strcmp(what, "msm"))
        code = bn254 ? bench_msm_bn254_g1_(&b) : bench_msm_bls12_381_g1_(&b);
    else
        code = bn254 ? bench_ntt_bn254_fr_(&b) : bench_ntt_bls12_381_fr_(&b);
    zkp_gpu_close(b.gpu);
    return code;
}
