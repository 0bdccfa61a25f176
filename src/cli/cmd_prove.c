/* zkpipe prove: rapidsnark's argument shape, snarkjs's output files. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "formats/snarkjs_json.h"
#include "formats/wtns.h"
#include "formats/zkey.h"
#include "groth16/backend.h"
#include "groth16/groth16.h"
#include "util/fileio.h"

typedef struct {
    int tty;
    double start;
} progress_state;

static void on_stage(void *ctx, zkp_g16_stage stage) {
    progress_state *ps = ctx;
    if (!ps->tty) return;
    fprintf(stderr, "\r\033[K[%d/%d %6.2fs] %s", (int)stage + 1, ZKP_G16_STAGE_COUNT,
            cli_now() - ps->start, zkp_g16_stage_label(stage));
    fflush(stderr);
}

static void print_timings(const zkp_g16_timings *t, double load_s, double upload_s, double verify_s,
                          double total_s) {
    fprintf(stderr, "%-24s %8.3f s\n", "load key and witness", load_s);
    if (upload_s > 0) fprintf(stderr, "%-24s %8.3f s\n", "key to the GPU", upload_s);
    for (int i = 0; i < ZKP_G16_STAGE_COUNT; i++)
        fprintf(stderr, "%-24s %8.3f s\n", zkp_g16_stage_label((zkp_g16_stage)i), t->seconds[i]);
    fprintf(stderr, "%-24s %8.3f s\n", "verify", verify_s);
    fprintf(stderr, "%-24s %8.3f s\n", "total", total_s);
}

/* The public inputs of a witness: values 1 .. n_public. */
static zkpipe_status copy_public(zkp_g16_public *pub, const zkp_wtns *w, uint32_t n_public) {
    pub->curve = w->curve;
    pub->n = n_public;
    pub->values = NULL;
    if (!n_public) return ZKPIPE_OK;
    pub->values = malloc((size_t)n_public * 4 * sizeof(uint64_t));
    if (!pub->values) return ZKPIPE_ERR_NO_MEMORY;
    memcpy(pub->values, w->values + 4, (size_t)n_public * 4 * sizeof(uint64_t));
    return ZKPIPE_OK;
}

static zkpipe_status write_json(zkpipe_status (*render)(const void *, char **, size_t *),
                                const void *obj, const char *path, zkp_diag *d) {
    char *text = NULL;
    size_t len = 0;
    zkpipe_status st = render(obj, &text, &len);
    if (st == ZKPIPE_OK) st = zkp_write_file_atomic(path, text, len, d);
    free(text);
    return st;
}
static zkpipe_status render_proof(const void *p, char **t, size_t *l) {
    return zkp_snarkjs_write_proof(p, t, l);
}
static zkpipe_status render_public(const void *p, char **t, size_t *l) {
    return zkp_snarkjs_write_public(p, t, l);
}

int cli_prove(int argc, char **argv) {
    const char *paths[4];
    int npaths = 0, verify = 1, timings = 0, quiet = 0;
    const char *device = "auto";
    zkp_zkey_options kopt = {0};
    for (int i = 0; i < argc; i++) {
        if (!strcmp(argv[i], "--threads") && i + 1 < argc) {
            if (cli_parse_threads(argv[++i], &kopt.nthreads)) {
                fprintf(stderr, "zkpipe prove: --threads wants a number from 1 to 4096\n");
                return CLI_USAGE;
            }
        } else if (!strcmp(argv[i], "--device") && i + 1 < argc) {
            device = argv[++i];
        } else if (!strcmp(argv[i], "--no-verify")) {
            verify = 0;
        } else if (!strcmp(argv[i], "--check-key")) {
            kopt.check_subgroup = 1;
        } else if (!strcmp(argv[i], "--timings")) {
            timings = 1;
        } else if (!strcmp(argv[i], "--quiet")) {
            quiet = 1;
        } else if (argv[i][0] == '-' && argv[i][1]) {
            fprintf(stderr, "zkpipe prove: unknown option %s\n", argv[i]);
            return CLI_USAGE;
        } else if (npaths < 4) {
            paths[npaths++] = argv[i];
        } else {
            npaths = 5;
        }
    }
    if (npaths != 4) {
        fprintf(stderr, "usage: zkpipe prove <circuit.zkey> <witness.wtns> <proof.json> "
                        "<public.json> [--device cpu|cuda|cuda:N|auto] [--threads N] [--no-verify] "
                        "[--check-key] [--timings] [--quiet]\n");
        return CLI_USAGE;
    }
    progress_state ps = {!quiet && isatty(2), cli_now()};
    zkp_diag d = {{0}};
    zkp_zkey key = {0};
    zkp_wtns wtns = {0};
    zkp_g16_public pub = {0};
    zkp_g16_pending *pending = NULL;
    zkp_g16_backend *be = NULL;
    zkp_g16_rkey *rkey = NULL;
    int code = CLI_OK;
    zkpipe_status st;

    /* The device first: a GPU that is not there fails before any work. */
    char fallback[ZKP_DIAG_MAX];
    if ((st = zkp_g16_backend_open(&be, device, fallback, sizeof fallback, &d)) != ZKPIPE_OK) {
        code = cli_fail("prove", st, &d, st == ZKPIPE_ERR_INVALID_ARGUMENT ? CLI_USAGE : CLI_INVALID);
        goto done;
    }
    if (fallback[0] && zkp_gpu_built() && !quiet)
        fprintf(stderr, "zkpipe prove: proving on the CPU (--device auto): %s\n", fallback);
    if ((st = zkp_zkey_load(&key, paths[0], &kopt, &d)) != ZKPIPE_OK ||
        (st = zkp_wtns_load(&wtns, paths[1], NULL, &d)) != ZKPIPE_OK ||
        (st = zkp_wtns_check_zkey(&wtns, &key, &d)) != ZKPIPE_OK) {
        code = cli_fail("prove", st, &d, CLI_BAD_INPUT);
        goto done;
    }
    double load_s = cli_now() - ps.start;
    zkp_g16_pk pk;
    zkp_zkey_pk(&key, &pk);
    double upload_s = 0;
    if (zkp_g16_backend_is_gpu(be)) {
        double t0 = cli_now();
        if ((st = zkp_g16_rkey_load(&rkey, be, &pk, &d)) != ZKPIPE_OK) {
            code = cli_fail("prove", st, &d, CLI_INVALID);
            goto done;
        }
        upload_s = cli_now() - t0;
    }
    if ((st = copy_public(&pub, &wtns, zkp_zkey_n_public(&key))) != ZKPIPE_OK) {
        code = cli_fail("prove", st, NULL, CLI_INVALID);
        goto done;
    }
    zkp_buffer wbuf = {wtns.values, wtns.values_bytes, ZKP_MEM_WITNESS, wtns.alloc};
    wtns.values = NULL; /* the prover owns it now */
    zkp_g16_prove_opts popt = {
        .nthreads = kopt.nthreads, .progress = on_stage, .progress_ctx = &ps, .rkey = rkey};
    zkp_g16_proof proof;
    zkp_g16_timings t = {{0}};
    if ((st = zkp_g16_prove_start(&pending, &pk, &wbuf, &popt, &d)) != ZKPIPE_OK ||
        (st = zkp_g16_prove_finalize(&proof, pending, &t, &d)) != ZKPIPE_OK) {
        pending = NULL;
        if (ps.tty) fputc('\n', stderr);
        code = cli_fail("prove", st, &d, CLI_INVALID);
        goto done;
    }
    pending = NULL;
    double verify_start = cli_now();
    if (verify) {
        if (ps.tty) fprintf(stderr, "\r\033[K[verify %6.2fs]", verify_start - ps.start);
        zkp_g16_vk vk;
        zkp_zkey_vk(&key, &vk);
        st = zkp_g16_verify(&vk, &pub, &proof, &d);
        if (st != ZKPIPE_OK) {
            if (ps.tty) fputc('\n', stderr);
            zkp_diag_prefix(&d, "the new proof does not verify against the key; nothing written");
            code = cli_fail("prove", st, &d, CLI_INVALID);
            goto done;
        }
    }
    double verify_s = cli_now() - verify_start;
    if (ps.tty) fprintf(stderr, "\r\033[K");
    if ((st = write_json(render_proof, &proof, paths[2], &d)) != ZKPIPE_OK ||
        (st = write_json(render_public, &pub, paths[3], &d)) != ZKPIPE_OK) {
        code = cli_fail("prove", st, &d, CLI_INVALID);
        goto done;
    }
    if (timings) {
        fprintf(stderr, "%-24s %s\n", "device", zkp_g16_backend_name(be));
        print_timings(&t, load_s, upload_s, verify_s, cli_now() - ps.start);
    }
done:
    zkp_g16_pending_free(pending);
    zkp_g16_rkey_free(rkey);
    zkp_g16_backend_close(be);
    zkp_g16_public_release(&pub);
    zkp_wtns_free(&wtns);
    zkp_zkey_free(&key);
    return code;
}
