/* zkpipe bench prove: the device half of one Groth16 partition (the H step
 * and the H, A, B1 and L MSMs, and on a GPU the B2 MSM: what
 * prove_start_abc runs), then prove_finalize, on a partition of a chosen
 * shape, with the key resident on the device, stage by stage.
 *
 * The shape is a Filecoin PoRep partition's by default: a domain of 2^27,
 * 130,278,869 constraints, 328 public inputs, 130,169,893 aux variables,
 * of which 129,753,292 appear in A and 33,112,281 in B, and witness values
 * that are mostly 0 and 1 (51 % zeros, 48 % ones and 1 % random values
 * below r by default, as a real partition's). --log L scales it to a
 * domain of 2^L with the same proportions. The key is laid out as
 * Filecoin's (bellperson's .params: A and B points only for the variables
 * those columns use, H over h's coefficients) unless --key-layout zkey
 * asks for snarkjs's (a point per variable, H over the coset's
 * evaluations). The key's points are 2^16 distinct points repeated and a,
 * b, c are random: the kernels' work does not depend on the values, and a
 * real key of this size is 44 GB. Each set of bases is made resident once
 * (timed), then every run feeds the device half through the same backend
 * table that prove_start uses, and the stage times come from the prover's
 * own progress calls. On a GPU the run buffers of a, b, c and the witness
 * are registered with the driver once, as the engine registers its pool's
 * regions (--pageable leaves them pageable, to compare). With --abc-on
 * device a, b and c are made on the GPU from the witness instead, through
 * a circuit of the partition's shape resident with the key, as the engine
 * does for a key with its circuit. Nothing here is a proof: see the test
 * suite for GPU proofs checked against the CPU's. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "curve/curve.h"
#include "field/field.h"
#include "groth16/backend.h"
#include "groth16/groth16.h"
#include "mem/mem.h"
#include "util/parallel.h"
#include "util/splitmix.h"

static const char prove_usage[] =
    "usage: zkpipe bench prove [--curve C] [--log L] [--device cpu|cuda|cuda:N|auto] [options]\n"
    "  --curve C      bls12381 (default) or bn254\n"
    "  --log L        a domain of 2^L with a PoRep partition's proportions (default 27:\n"
    "                 the 32 GiB sector's partition itself)\n"
    "  --device D     default auto\n"
    "  --runs R       timed runs (default 3; medians reported)\n"
    "  --threads N    CPU threads (default: every CPU)\n"
    "  --zeros P      percent of aux values that are 0 (default 51)\n"
    "  --ones P       percent that are 1 (default 48); the rest are random below r. The\n"
    "                 defaults are a 32 GiB partition's witness: of the 129.8 M variables A\n"
    "                 lists, 61.6 M are 1 and 1.3 M neither 0 nor 1\n"
    "  --g2 W         where the B2 (G2) MSM runs on a GPU: device (default, in prove_start)\n"
    "                 or cpu (in prove_finalize, as on the CPU backend)\n"
    "  --pageable yes leave the run buffers of a, b, c and the witness pageable (on a GPU they\n"
    "                 are registered with the driver by default, as the engine's pool is)\n"
    "  --cache no     on a GPU, give freed working buffers back to the driver at once (by\n"
    "                 default they are kept for the next run, as the engine's device workers\n"
    "                 keep them)\n"
    "  --stream yes   on a GPU, stream every G1 base set from host memory at each MSM, as a\n"
    "                 key too big for the device's memory is (and leave B2 to the CPU)\n"
    "  --key-layout K params (default): as bellperson's .params files, a Filecoin key's, keep\n"
    "                 A and B points only for the variables their columns use, and the H\n"
    "                 query over h's coefficients; zkey: as snarkjs's, a point per variable\n"
    "                 (the identity where a column is empty) and H over the coset's\n"
    "                 evaluations (six NTTs either way)\n"
    "  --abc-on W     host (default): a, b and c are made on the host and uploaded; device\n"
    "                 (a GPU only): made on the GPU from the witness through a circuit of the\n"
    "                 partition's shape (random columns and values) resident with the key, the\n"
    "                 witness's copy finished before the clock starts, as the engine's device\n"
    "                 workers queue it before their turn\n" CLI_OPTIONS_HELP;

typedef struct {
    unsigned log_n, runs, nthreads, zeros, ones;
    const char *device;
    int pageable, g2_on_cpu, stream, zkey_layout, abc_on_device, cache;
} prove_bench_opts_;

/* The 32 GiB PoRep partition (FACTS.md, issue figures). */
#define POREP_LOG 27
#define POREP_CONSTRAINTS 130278869.0
#define POREP_PUBLIC 328u
#define POREP_AUX 130169893.0
#define POREP_A_AUX 129753292.0
#define POREP_B_AUX 33112281.0
#define POREP_A_NNZ 309.4e6
#define POREP_B_NNZ 130.3e6
/* A's rows are not uniform: 0.2 % of them, longer than 32 entries (up to
 * 929), hold 37 % of its non-zeros (measured at 2 KiB and 8 MiB,
 * PERFORMANCE.md); B's hold one or two. */
#define POREP_A_LONG_ROWS 0.002
#define POREP_A_LONG_SHARE 0.37
#define SYNTH_DICT 4096u /* distinct values of the circuit's table */

typedef struct {
    double t0, stage_start[ZKP_G16_STAGE_COUNT];
    int seen[ZKP_G16_STAGE_COUNT];
} stage_clock_;

static void on_stage_(void *ctx, zkp_g16_stage s) {
    stage_clock_ *c = ctx;
    c->stage_start[s] = cli_now();
    c->seen[s] = 1;
}

/* A draw uniform in [0, 1) from the top 53 bits of r, and from the next
 * splitmix64. */
static double unit_of_(uint64_t r) { return (double)(r >> 11) * 0x1p-53; }
static double unit_draw_(uint64_t *seed) { return unit_of_(zkp_splitmix64(seed)); }

/* One matrix of a partition-shaped circuit: row_ptr[0..n_rows] for about
 * nnz entries over the first n_cons rows (the rest are the domain's
 * padding), a long_rows share of them (every n_cons / n_long-th) holding a
 * long_share of the entries, their lengths uniform from 33 to twice their
 * mean less 33, the others the floor or the ceiling of theirs; then the
 * columns (uniform over n_vars) and the indices into a table of SYNTH_DICT
 * values. Row i's length and entry k's draw are draws i and k of two
 * streams seeded from *seed, made by nthreads threads (a 2^27 partition's
 * 440 M entries took 38 s on one). 0, or -1 out of memory. */
#define SYNTH_UNIT_ ((size_t)1 << 20)

typedef struct {
    uint64_t *rp;
    uint32_t *col;
    uint16_t *vidx;
    size_t n_rows, n_entries, n_cons, n_vars, n_long, every;
    unsigned short_base, long_span;
    double short_frac;
    uint64_t s_rows, s_entries;
} synth_ctx_;

/* Units of rows: each row's length at rp[i + 1], summed afterwards. */
static void synth_rows_(void *arg, unsigned tid, size_t unit) {
    synth_ctx_ *x = arg;
    (void)tid;
    size_t lo = unit * SYNTH_UNIT_;
    size_t hi = lo + SYNTH_UNIT_ < x->n_rows ? lo + SYNTH_UNIT_ : x->n_rows;
    for (size_t i = lo; i < hi; i++) {
        uint64_t r = zkp_splitmix64_at(x->s_rows, i), len = 0;
        if (i < x->n_cons && x->every && i % x->every == 0 && i / x->every < x->n_long)
            len = 33 + r % x->long_span;
        else if (i < x->n_cons)
            len = x->short_base + (unit_of_(r) < x->short_frac);
        x->rp[i + 1] = len;
    }
}

static void synth_entries_(void *arg, unsigned tid, size_t unit) {
    synth_ctx_ *x = arg;
    (void)tid;
    size_t lo = unit * SYNTH_UNIT_;
    size_t hi = lo + SYNTH_UNIT_ < x->n_entries ? lo + SYNTH_UNIT_ : x->n_entries;
    for (size_t k = lo; k < hi; k++) {
        uint64_t r = zkp_splitmix64_at(x->s_entries, k);
        x->col[k] = (uint32_t)((r >> 16) % x->n_vars);
        x->vidx[k] = (uint16_t)(r % SYNTH_DICT);
    }
}

static int synth_matrix_(zkp_gpu_csr_src *src, int m, size_t n_rows, size_t n_cons, size_t n_vars,
                         double nnz, double long_rows, double long_share, uint64_t *seed,
                         unsigned nthreads) {
    synth_ctx_ x = {0};
    x.rp = malloc((n_rows + 1) * sizeof *x.rp);
    if (!x.rp) return -1;
    x.n_rows = n_rows, x.n_cons = n_cons, x.n_vars = n_vars;
    x.n_long = (size_t)(long_rows * (double)n_cons), x.every = x.n_long ? n_cons / x.n_long : 0;
    double long_mean = x.n_long ? long_share * nnz / (double)x.n_long : 0;
    double short_mean = (1 - long_share) * nnz / (double)(n_cons - x.n_long);
    x.short_base = (unsigned)short_mean;
    x.long_span = long_mean > 34 ? (unsigned)(2 * long_mean) - 65 : 1;
    x.short_frac = short_mean - x.short_base;
    x.s_rows = zkp_splitmix64(seed);
    x.s_entries = zkp_splitmix64(seed);
    x.rp[0] = 0;
    zkp_parallel_for(nthreads, (n_rows + SYNTH_UNIT_ - 1) / SYNTH_UNIT_, synth_rows_, &x);
    for (size_t i = 0; i < n_rows; i++) x.rp[i + 1] += x.rp[i];
    size_t total = (size_t)x.rp[n_rows];
    x.col = malloc((total ? total : 1) * sizeof *x.col);
    x.vidx = malloc((total ? total : 1) * sizeof *x.vidx);
    if (!x.col || !x.vidx) {
        free(x.rp);
        free(x.col);
        free(x.vidx);
        return -1;
    }
    x.n_entries = total;
    zkp_parallel_for(nthreads, (total + SYNTH_UNIT_ - 1) / SYNTH_UNIT_, synth_entries_, &x);
    src->row_ptr[m] = x.rp;
    src->col[m] = x.col;
    src->vidx[m] = x.vidx;
    src->nnz[m] = total;
    return 0;
}

static void synth_free_(zkp_gpu_csr_src *src) {
    for (int m = 0; m < 2; m++) {
        free((void *)src->row_ptr[m]);
        free((void *)src->col[m]);
        free((void *)src->vidx[m]);
    }
    free((void *)src->dict);
    memset(src, 0, sizeof *src);
}

/* Registration wants whole pages. */
#define PAGE_ ((size_t)4096)
static size_t page_round_(size_t bytes) { return (bytes + PAGE_ - 1) / PAGE_ * PAGE_; }

#define BENCH_PROVE_(C, G1, G2, FR, FK)                                                           \
    static int bench_prove_##C##_(const prove_bench_opts_ *bo) {                                  \
        unsigned log_n = bo->log_n, runs = bo->runs, nthreads = bo->nthreads, zeros = bo->zeros;    \
        unsigned ones = bo->ones;                                                                 \
        int pageable = bo->pageable, g2_on_cpu = bo->g2_on_cpu;                                   \
        const char *device = bo->device;                                                         \
        size_t n = (size_t)1 << log_n;                                                            \
        double scale = (double)n / (double)((size_t)1 << POREP_LOG);                              \
        uint32_t n_public = log_n == POREP_LOG ? POREP_PUBLIC : (uint32_t)(POREP_PUBLIC * scale) + 1; \
        size_t n_aux = (size_t)(POREP_AUX * scale), n_vars = n_aux + n_public + 1;                \
        size_t a_aux = (size_t)(POREP_A_AUX * scale), b_aux = (size_t)(POREP_B_AUX * scale);      \
        size_t nb = n > n_vars ? n : n_vars;                                                      \
        static const uint64_t modulus[4] = FK##_MODULUS;                                          \
        zkp_diag d = {{0}};                                                                       \
        char fallback[ZKP_DIAG_MAX];                                                              \
        zkp_g16_backend *be = NULL;                                                               \
        zkp_g16_rkey *rk = NULL;                                                                  \
        zkpipe_status st = zkp_g16_backend_open(&be, device, fallback, sizeof fallback, &d);      \
        if (st != ZKPIPE_OK) return cli_fail("bench", st, &d, CLI_INVALID);                       \
        if (bo->abc_on_device && !zkp_g16_backend_is_gpu(be)) {                                   \
            zkp_diag_fail(&d, ZKPIPE_ERR_INVALID_ARGUMENT,                                        \
                          "--abc-on device makes a, b and c on a GPU, and the backend is %s",     \
                          zkp_g16_backend_name(be));                                              \
            zkp_g16_backend_close(be);                                                            \
            return cli_fail("bench", ZKPIPE_ERR_INVALID_ARGUMENT, &d, CLI_USAGE);                 \
        }                                                                                         \
        zkp_g16_backend_set_g2_on_cpu(be, g2_on_cpu);                                             \
        if (zkp_g16_backend_gpu(be)) zkp_gpu_set_cache(zkp_g16_backend_gpu(be), bo->cache);       \
        if (bo->stream) zkp_g16_backend_set_streaming(be, 1, 0);                                  \
        if (fallback[0]) fprintf(stderr, "zkpipe bench: CPU (--device auto): %s\n", fallback);    \
        printf("device: %s; curve " #C ", domain 2^%u, %zu vars (%zu aux: %zu in A, %zu in B), "  \
               "%u public; witness %u%% zeros, %u%% ones; key layout %s\n",                      \
               zkp_g16_backend_name(be), log_n, n_vars, n_aux, a_aux, b_aux, n_public, zeros,     \
               ones, bo->zkey_layout ? "zkey" : "params");                                        \
        zkp_g16_pk whole;                                                                         \
        G1##_affine_t *pts = malloc(nb * sizeof *pts), *pts_b = NULL;                             \
        /* a, b and c from the device need no host copy: one element stands in. */              \
        size_t abc_n = bo->abc_on_device ? 1 : 3 * n;                                             \
        FR##_t *abc = malloc(abc_n * sizeof *abc), *w = malloc(n_vars * sizeof *w);               \
        size_t abc_bytes = page_round_(abc_n * sizeof *abc), w_bytes = page_round_(n_vars * sizeof *w); \
        FR##_t *abc_run = aligned_alloc(PAGE_, abc_bytes), *w_run = aligned_alloc(PAGE_, w_bytes);  \
        zkp_gpu_csr_src csr;                                                                      \
        memset(&csr, 0, sizeof csr);                                                              \
        int abc_pinned = 0, w_pinned = 0;                                                         \
        G1##_jacobian_t *tmp = malloc(((size_t)1 << 16) * sizeof *tmp);                          \
        G2##_affine_t *pts2 = NULL; /* after the columns: a params key has B's alone */           \
        G2##_jacobian_t *tmp2 = malloc(((size_t)1 << 16) * sizeof *tmp2);                        \
        uint32_t *a_cols = NULL, *b_cols = NULL;                                                  \
        if (bo->zkey_layout) {                                                                    \
            pts_b = malloc(n_vars * sizeof *pts_b);                                               \
        } else {                                                                                  \
            a_cols = malloc(n_vars * sizeof *a_cols);                                             \
            b_cols = malloc(n_vars * sizeof *b_cols);                                             \
        }                                                                                         \
        size_t a_len = 0, b_len = 0;                                                              \
        int code = CLI_OK;                                                                        \
        if (!pts || !abc || !w || !abc_run || !w_run || !tmp || !tmp2 ||                          \
            (bo->zkey_layout ? !pts_b : !a_cols || !b_cols)) {                                    \
            code = cli_fail("bench", ZKPIPE_ERR_NO_MEMORY, NULL, CLI_INVALID);                    \
            goto out;                                                                             \
        }                                                                                         \
        CLI_BENCH_BASES(G1, pts, nb, tmp, nb < ((size_t)1 << 16) ? nb : ((size_t)1 << 16));      \
        uint64_t seed = 42;                                                                       \
        for (size_t i = 0; i < abc_n; i++) FR##_set_u64(&abc[i], zkp_splitmix64(&seed));          \
        /* The witness: 1, the public inputs (random), then the aux values. A uses an a_aux / \
         * n_aux share of the aux variables and B a b_aux / n_aux share, drawn at random, and  \
         * both every input. A params-layout key lists the variables each uses (a_cols,        \
         * b_cols) and has points for those only; in a zkey-layout key a variable that a query \
         * does not use has the point at infinity as its base there, and B1 has its own points \
         * for that. */                                                                        \
        memset(w, 0, n_vars * sizeof *w);                                                         \
        for (size_t i = 0; i < n_vars; i++) {                                                     \
            double u_a = unit_draw_(&seed), u_b = unit_draw_(&seed);                              \
            int in_a = i <= n_public || u_a * (double)n_aux < (double)a_aux;                      \
            int in_b = i <= n_public || u_b * (double)n_aux < (double)b_aux;                      \
            if (in_a && a_cols) a_cols[a_len++] = (uint32_t)i;                                    \
            if (in_b && b_cols) b_cols[b_len++] = (uint32_t)i;                                    \
            if (!pts_b) continue;                                                                 \
            if (in_b)                                                                             \
                pts_b[i] = pts[i];                                                                \
            else                                                                                  \
                G1##_affine_set_infinity(&pts_b[i]);                                              \
        }                                                                                         \
        {                                                                                         \
            /* B2: a point per variable in a zkey key (infinity where B1 has it), one per     \
             * listed variable in a params key. */                                            \
            size_t n2 = pts_b ? n_vars : b_len;                                                   \
            size_t distinct = n2 < ((size_t)1 << 16) ? n2 : ((size_t)1 << 16);                    \
            if (!(pts2 = malloc((n2 ? n2 : 1) * sizeof *pts2))) {                                 \
                code = cli_fail("bench", ZKPIPE_ERR_NO_MEMORY, NULL, CLI_INVALID);                \
                goto out;                                                                         \
            }                                                                                     \
            CLI_BENCH_BASES(G2, pts2, n2, tmp2, distinct);                                        \
            for (size_t i = 0; pts_b && i < n_vars; i++)                                          \
                if (G1##_affine_is_infinity(&pts_b[i])) G2##_affine_set_infinity(&pts2[i]);       \
        }                                                                                         \
        w[0].l[0] = 1;                                                                            \
        for (size_t i = 1; i < n_vars; i++) {                                                     \
            unsigned r = (unsigned)(zkp_splitmix64(&seed) % 100);                                           \
            if (i <= n_public || r >= zeros + ones) {                                             \
                cli_random_scalar(w[i].l, modulus, FK##_BITS, &seed);                             \
            } else if (r >= zeros) {                                                              \
                w[i].l[0] = 1;                                                                    \
            }                                                                                     \
        }                                                                                         \
        memset(&whole, 0, sizeof whole);                                                          \
        C##_g16_pk_t *pk = &whole.u.C;                                                            \
        whole.curve = C##_curve_id_;                                                              \
        pk->n_vars = (uint32_t)n_vars;                                                            \
        pk->n_public = n_public;                                                                  \
        pk->domain_size = (uint32_t)n;                                                            \
        pk->log_domain = log_n;                                                                   \
        pk->a = pk->c = pk->h = pts;                                                              \
        pk->b2 = pts2;                                                                            \
        if (bo->zkey_layout) {                                                                    \
            pk->b1 = pts_b;                                                                       \
        } else {                                                                                  \
            pk->b1 = pts;                                                                         \
            pk->a_cols = a_cols;                                                                  \
            pk->a_len = a_len;                                                                    \
            pk->b_cols = b_cols;                                                                  \
            pk->b_len = b_len;                                                                    \
            pk->h_coefficients = 1;                                                               \
        }                                                                                         \
        if (bo->abc_on_device) {                                                                  \
            size_t n_cons = (size_t)(POREP_CONSTRAINTS * scale);                                  \
            FR##_t *dict = malloc(SYNTH_DICT * sizeof *dict);                                     \
            csr.dict = dict;                                                                      \
            csr.n_dict = SYNTH_DICT;                                                              \
            csr.n_rows = (uint32_t)n;                                                             \
            if (!dict || synth_matrix_(&csr, 0, n, n_cons, n_vars, POREP_A_NNZ * scale,           \
                                       POREP_A_LONG_ROWS, POREP_A_LONG_SHARE, &seed, nthreads) || \
                synth_matrix_(&csr, 1, n, n_cons, n_vars, POREP_B_NNZ * scale, 0, 0, &seed,       \
                              nthreads)) {                                                        \
                code = cli_fail("bench", ZKPIPE_ERR_NO_MEMORY, NULL, CLI_INVALID);                \
                goto out;                                                                         \
            }                                                                                     \
            for (unsigned i = 0; i < SYNTH_DICT; i++) FR##_set_u64(&dict[i], zkp_splitmix64(&seed)); \
        }                                                                                         \
        double t_up = cli_now();                                                                  \
        st = bo->abc_on_device ? zkp_g16_rkey_load_with_circuit(&rk, be, &whole, &csr, &d)       \
                               : zkp_g16_rkey_load(&rk, be, &whole, &d);                          \
        if (st == ZKPIPE_OK && bo->abc_on_device && !rk->csr)                                     \
            st = zkp_diag_fail(&d, ZKPIPE_ERR_NO_MEMORY,                                          \
                               "the circuit (%.2f GiB) does not fit on the device beside the "   \
                               "key's bases and a partition's working set",                       \
                               zkp_gpu_csr_bytes(&csr) / 1073741824.0);                           \
        if (st != ZKPIPE_OK) {                                                                    \
            code = cli_fail("bench", st, &d, CLI_INVALID);                                        \
            goto out;                                                                             \
        }                                                                                         \
        t_up = cli_now() - t_up;                                                                  \
        printf("key bases resident in %.2f s (%u of 4 G1 sets streamed instead)", t_up,          \
               zkp_g16_rkey_streamed_sets(rk));                                                   \
        if (zkp_g16_backend_is_gpu(be)) {                                                         \
            zkp_gpu_stats gs0;                                                                    \
            zkp_gpu_stats_get(zkp_g16_backend_gpu(be), &gs0);                                     \
            printf(", the key holding %.2f GiB on the GPU",                                       \
                   gs0.live_bytes[ZKP_GPU_MEM_BASES] / 1073741824.0);                             \
        }                                                                                         \
        printf("\n");                                                                             \
        if (bo->abc_on_device)                                                                    \
            printf("circuit on the device: %.2f GiB, %zu and %zu non-zeros in A and B\n",         \
                   zkp_gpu_csr_bytes(&csr) / 1073741824.0, csr.nnz[0], csr.nnz[1]);               \
        if (zkp_g16_backend_is_gpu(be) && !pageable) {                                            \
            double t_pin = cli_now();                                                             \
            st = zkp_gpu_host_register(abc_run, abc_bytes, &d);                                   \
            abc_pinned = st == ZKPIPE_OK;                                                         \
            if (abc_pinned) w_pinned = (st = zkp_gpu_host_register(w_run, w_bytes, &d)) == ZKPIPE_OK; \
            if (st != ZKPIPE_OK) {                                                                \
                code = cli_fail("bench", st, &d, CLI_INVALID);                                    \
                goto out;                                                                         \
            }                                                                                     \
            printf("run buffers (%.2f GiB) registered with the driver in %.2f s\n",               \
                   (abc_bytes + w_bytes) / 1073741824.0, cli_now() - t_pin);                      \
        }                                                                                         \
        double stage[ZKP_G16_STAGE_COUNT][64], total[64], fin[64];                                \
        for (unsigned k = 0; k <= runs && code == CLI_OK; k++) {                                  \
            memcpy(abc_run, abc, abc_n * sizeof *abc);                                            \
            memcpy(w_run, w, n_vars * sizeof *w);                                                 \
            zkp_buffer wb = {w_run, n_vars * sizeof *w, ZKP_MEM_WITNESS, &keep_alloc_};           \
            /* No a, b, c where the GPU makes them. */                                            \
            zkp_buffer ab = {bo->abc_on_device ? NULL : abc_run,                                  \
                             bo->abc_on_device ? 0 : 3 * n * sizeof *abc, ZKP_MEM_ABC,            \
                             &keep_alloc_};                                                       \
            stage_clock_ sc;                                                                      \
            memset(&sc, 0, sizeof sc);                                                            \
            zkp_g16_prove_opts o = {.nthreads = nthreads, .progress = on_stage_,                  \
                                    .progress_ctx = &sc, .rkey = rk};                             \
            if (bo->abc_on_device) {                                                              \
                /* The witness goes up first, and a download of its first scalar waits for  \
                 * the copy, which the engine's pipeline hides behind the partition before   \
                 * it. */                                                                      \
                zkp_gpu_buf *wdev = NULL;                                                         \
                uint64_t first[4];                                                                \
                st = zkp_g16_witness_to_device(&wdev, be, &whole, &wb, &d);                       \
                if (st == ZKPIPE_OK && wdev) st = zkp_gpu_buf_download(first, wdev, 0, 32, &d);   \
                if (st != ZKPIPE_OK) {                                                            \
                    zkp_gpu_buf_free(wdev);                                                       \
                    code = cli_fail("bench", st, &d, CLI_INVALID);                                \
                    break;                                                                        \
                }                                                                                 \
                o.witness_on_device = wdev;                                                       \
            }                                                                                     \
            zkp_g16_pending *p = NULL;                                                            \
            sc.t0 = cli_now();                                                                    \
            st = zkp_g16_prove_start_abc(&p, &whole, &wb, &ab, &o, &d);                          \
            double end = cli_now();                                                               \
            /* The key's alpha, beta and delta are zero (infinity): the assembly's cost does  \
             * not depend on them, and this proof is not checked. */                          \
            zkp_g16_proof proof;                                                                  \
            if (st == ZKPIPE_OK) st = zkp_g16_prove_finalize(&proof, p, NULL, &d);                \
            else zkp_g16_pending_free(p);                                                         \
            double fin_end = cli_now();                                                           \
            if (st != ZKPIPE_OK) {                                                                \
                code = cli_fail("bench", st, &d, CLI_INVALID);                                    \
                break;                                                                            \
            }                                                                                     \
            if (!k) continue; /* the warm-up */                                                   \
            for (int s = ZKP_G16_NTT; s <= ZKP_G16_MSM_B2; s++) {                                 \
                /* Stages of prove_start only: one ends where the next of them begins. */    \
                double next = end;                                                                \
                for (int t = ZKP_G16_MSM_B2; t > s; t--)                                          \
                    if (sc.seen[t] && sc.stage_start[t] <= end) next = sc.stage_start[t];         \
                int in_start = sc.seen[s] && sc.stage_start[s] <= end;                            \
                stage[s][k - 1] = in_start ? next - sc.stage_start[s] : 0;                        \
            }                                                                                     \
            total[k - 1] = end - sc.t0;                                                           \
            fin[k - 1] = fin_end - end;                                                           \
        }                                                                                         \
        if (code == CLI_OK) {                                                                     \
            printf("%-26s %10s\n", "stage (median)", "ms");                                       \
            for (int s = ZKP_G16_NTT; s <= ZKP_G16_MSM_B2; s++)                                   \
                if (s != ZKP_G16_MSM_B2 || !g2_on_cpu)                                            \
                    printf("%-26s %10.1f\n", zkp_g16_stage_label((zkp_g16_stage)s),               \
                           1e3 * cli_median(stage[s], runs));                                     \
            double med = cli_median(total, runs);                                                 \
            printf("%-26s %10.1f  (min %.1f, max %.1f)\n", "prove_start in all", 1e3 * med,      \
                   1e3 * total[0], 1e3 * total[runs - 1]);                                        \
            printf("%-26s %10.1f  (B2 MSM %s)\n", "prove_finalize", 1e3 * cli_median(fin, runs), \
                   zkp_g16_backend_is_gpu(be) && !g2_on_cpu ? "on the GPU in prove_start"          \
                                                            : "on the CPU here");                  \
            zkp_gpu *g = zkp_g16_backend_gpu(be);                                                 \
            if (g) {                                                                              \
                zkp_gpu_stats gs;                                                                 \
                zkp_gpu_stats_get(g, &gs);                                                        \
                printf("GPU memory: %.2f GiB held (bases %.2f, freed buffers cached %.2f), "      \
                       "peak %.2f; copied %.2f GiB up, %.3f GiB down\n",                          \
                       gs.live_total / 1073741824.0, gs.live_bytes[ZKP_GPU_MEM_BASES] / 1073741824.0, \
                       gs.live_bytes[ZKP_GPU_MEM_CACHED] / 1073741824.0,                          \
                       gs.peak_total / 1073741824.0, gs.h2d_bytes / 1073741824.0,                 \
                       gs.d2h_bytes / 1073741824.0);                                              \
            }                                                                                     \
            /* The key and the run buffers are plain heap memory here, not the engine's pool,  \
             * so the books hold none of it: RSS is the measure. */                            \
            uint64_t hwm = 0;                                                                     \
            if (zkp_mem_read_peak_rss(&hwm) == ZKPIPE_OK)                                         \
                printf("host memory: peak RSS %.2f GiB\n", hwm / 1073741824.0);                   \
        }                                                                                         \
    out:                                                                                          \
        if (abc_pinned) zkp_gpu_host_unregister(abc_run, abc_bytes);                              \
        if (w_pinned) zkp_gpu_host_unregister(w_run, w_bytes);                                    \
        zkp_g16_rkey_free(rk);                                                                    \
        zkp_g16_backend_close(be);                                                                \
        synth_free_(&csr);                                                                        \
        free(pts);                                                                                \
        free(pts_b);                                                                              \
        free(pts2);                                                                               \
        free(tmp2);                                                                               \
        free(a_cols);                                                                             \
        free(b_cols);                                                                             \
        free(abc);                                                                                \
        free(abc_run);                                                                            \
        free(w_run);                                                                              \
        free(w);                                                                                  \
        free(tmp);                                                                                \
        return code;                                                                              \
    }

/* prove_start frees a, b, c and the witness through their allocator as
 * soon as it is done with them; the bench reuses its buffers across runs,
 * so their allocator frees nothing. */
static void *keep_alloc_fn_(void *ctx, size_t bytes, zkp_mem_category cat) {
    (void)ctx, (void)bytes, (void)cat;
    return NULL;
}
static void keep_free_fn_(void *ctx, void *p, size_t bytes, zkp_mem_category cat) {
    (void)ctx, (void)p, (void)bytes, (void)cat;
}
static const zkp_allocator keep_alloc_ = {keep_alloc_fn_, keep_free_fn_, NULL};


static const zkpipe_curve bn254_curve_id_ = ZKPIPE_CURVE_BN254;
static const zkpipe_curve bls12_381_curve_id_ = ZKPIPE_CURVE_BLS12_381;

BENCH_PROVE_(bn254, bn254_g1, bn254_g2, bn254_fr, BN254_FR)
BENCH_PROVE_(bls12_381, bls12_381_g1, bls12_381_g2, bls12_381_fr, BLS12_381_FR)

int cli_bench_prove(int argc, char **argv) {
    zkpipe_curve curve = ZKPIPE_CURVE_BLS12_381;
    prove_bench_opts_ o = {
        .log_n = POREP_LOG, .runs = 3, .zeros = 51, .ones = 48, .device = "auto", .cache = 1};
    for (int i = 0; i < argc; i++) {
        const char *v = NULL;
        if (cli_is_help(argv[i])) {
            fputs(prove_usage, stdout);
            return CLI_OK;
        }
        /* Every option takes a value: --name value or --name=value. */
        char opt[16];
        int r = cli_opt_named("bench", argc, argv, &i, opt, sizeof opt, "see bench prove --help", &v);
        if (r == 0) return cli_unknown("bench", argv[i], "bench prove --help");
        if (r < 0) return CLI_USAGE;
        uint64_t num;
        if (!strcmp(opt, "--curve")) {
            if (cli_parse_curve(v, &curve)) return cli_refused("bench", opt, CLI_CURVE_WANT, v);
        } else if (!strcmp(opt, "--log")) {
            if (cli_parse_u64(v, 28, &num) || num < 10)
                return cli_refused("bench", opt, "a number from 10 to 28", v);
            o.log_n = (unsigned)num;
        } else if (!strcmp(opt, "--device")) {
            o.device = v;
        } else if (!strcmp(opt, "--runs")) {
            if (cli_parse_u64(v, 63, &num) || num < 1)
                return cli_refused("bench", opt, "a number from 1 to 63", v);
            o.runs = (unsigned)num;
        } else if (!strcmp(opt, "--threads")) {
            if (cli_parse_threads(v, &o.nthreads))
                return cli_refused("bench", opt, CLI_THREADS_WANT, v);
        } else if (!strcmp(opt, "--zeros") || !strcmp(opt, "--ones")) {
            if (cli_parse_u64(v, 100, &num))
                return cli_refused("bench", opt, "a percentage from 0 to 100", v);
            if (!strcmp(opt, "--zeros")) o.zeros = (unsigned)num;
            else o.ones = (unsigned)num;
        } else if (!strcmp(opt, "--g2")) {
            if (cli_parse_choice(v, "cpu", "device", &o.g2_on_cpu))
                return cli_refused("bench", opt, "cpu or device", v);
        } else if (!strcmp(opt, "--pageable")) {
            if (cli_parse_choice(v, "yes", "no", &o.pageable))
                return cli_refused("bench", opt, "yes or no", v);
        } else if (!strcmp(opt, "--key-layout")) {
            if (cli_parse_choice(v, "zkey", "params", &o.zkey_layout))
                return cli_refused("bench", opt, "zkey or params", v);
        } else if (!strcmp(opt, "--abc-on")) {
            if (cli_parse_choice(v, "device", "host", &o.abc_on_device))
                return cli_refused("bench", opt, "device or host", v);
        } else if (!strcmp(opt, "--cache")) {
            if (cli_parse_choice(v, "yes", "no", &o.cache))
                return cli_refused("bench", opt, "yes or no", v);
        } else if (!strcmp(opt, "--stream")) {
            if (cli_parse_choice(v, "yes", "no", &o.stream))
                return cli_refused("bench", opt, "yes or no", v);
        } else {
            return cli_unknown("bench", opt, "bench prove --help");
        }
    }
    if (o.zeros + o.ones > 100) {
        fprintf(stderr, "zkpipe bench: --zeros and --ones add up to %u %%, more than 100\n",
                o.zeros + o.ones);
        return CLI_USAGE;
    }
    return curve == ZKPIPE_CURVE_BN254 ? bench_prove_bn254_(&o) : bench_prove_bls12_381_(&o);
}
