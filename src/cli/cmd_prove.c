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

static const char prove_usage[] =
    "usage: zkpipe prove <circuit.zkey> <witness.wtns> <proof.json> <public.json> [options]\n"
    "  --device D     cpu, cuda, cuda:N or auto (default: a GPU if there is one)\n"
    "  --threads N    worker threads, 1 to 4096 (default: every CPU)\n"
    "  --no-verify    skip checking the proof before writing it\n"
    "  --check-key    also check that every key point is in its subgroup\n"
    "  --timings      print the time of each stage\n"
    "  --quiet        no progress on the terminal\n"
    "  --help         this text\n" CLI_OPTIONS_HELP
    "The outputs are checked before any work and written together: both or neither.\n"
    "A regular file is replaced through a temporary file renamed into place (keeping\n"
    "its mode), a symbolic link's target is replaced, and a device or FIFO (/dev/null)\n"
    "is written in place. An output that is an input, or both outputs one file, is\n"
    "refused.\n" CLI_EXIT_CODES_HELP;

/* Renders the proof and the public inputs, and writes both outputs together. */
static int write_outputs(zkp_output outs[2], const zkp_g16_proof *proof,
                         const zkp_g16_public *pub) {
    char *texts[2] = {NULL, NULL};
    size_t lens[2] = {0, 0};
    zkpipe_status st = zkp_snarkjs_write_proof(proof, &texts[0], &lens[0]);
    if (st == ZKPIPE_OK) st = zkp_snarkjs_write_public(pub, &texts[1], &lens[1]);
    int code = st == ZKPIPE_OK
                   ? cli_outputs_write("prove", outs, (const char *const *)texts, lens, 2)
                   : cli_fail("prove", st, NULL, CLI_INVALID);
    free(texts[0]);
    free(texts[1]);
    return code;
}

int cli_prove(int argc, char **argv) {
    const char *paths[4];
    int npaths = 0, verify = 1, timings = 0, quiet = 0;
    const char *device = "auto";
    zkp_zkey_options kopt = {0};
    for (int i = 0; i < argc; i++) {
        const char *v = NULL;
        int r;
        if (cli_is_help(argv[i])) {
            fputs(prove_usage, stdout);
            return CLI_OK;
        } else if ((r = cli_opt("prove", argc, argv, &i, "--threads", CLI_THREADS_WANT,
                                &v)) != 0) {
            if (r < 0) return CLI_USAGE;
            if (cli_parse_threads(v, &kopt.nthreads))
                return cli_refused("prove", "--threads", CLI_THREADS_WANT, v);
        } else if ((r = cli_opt("prove", argc, argv, &i, "--device", "cpu, cuda, cuda:N or auto",
                                &v)) != 0) {
            if (r < 0) return CLI_USAGE;
            device = v;
        } else if (!strcmp(argv[i], "--no-verify")) {
            verify = 0;
        } else if (!strcmp(argv[i], "--check-key")) {
            kopt.check_subgroup = 1;
        } else if (!strcmp(argv[i], "--timings")) {
            timings = 1;
        } else if (!strcmp(argv[i], "--quiet")) {
            quiet = 1;
        } else if (argv[i][0] == '-' && argv[i][1]) {
            fprintf(stderr, "zkpipe prove: unknown option %s (--help lists them)\n", argv[i]);
            return CLI_USAGE;
        } else if (npaths < 4) {
            paths[npaths++] = argv[i];
        } else {
            npaths = 5;
        }
    }
    if (npaths != 4) {
        fputs(prove_usage, stderr);
        return CLI_USAGE;
    }
    /* The outputs before any work: a refused or unwritable one costs
     * nothing, and a failure later cannot leave a mismatched pair. */
    zkp_output outs[2];
    int code = cli_outputs_open("prove", outs, paths + 2, 2, paths, 2);
    if (code != CLI_OK) return code;
    progress_state ps = {!quiet && isatty(2), cli_now()};
    zkp_diag d = {{0}};
    zkp_zkey key = {0};
    zkp_wtns wtns = {0};
    zkp_g16_public pub = {0};
    zkp_g16_pending *pending = NULL;
    zkp_g16_backend *be = NULL;
    zkp_g16_rkey *rkey = NULL;
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
    if ((code = write_outputs(outs, &proof, &pub)) != CLI_OK) goto done;
    if (timings) {
        fprintf(stderr, "%-24s %s\n", "device", zkp_g16_backend_name(be));
        print_timings(&t, load_s, upload_s, verify_s, cli_now() - ps.start);
    }
done:
    cli_outputs_close(outs, 2);
    zkp_g16_pending_free(pending);
    zkp_g16_rkey_free(rkey);
    zkp_g16_backend_close(be);
    zkp_g16_public_release(&pub);
    zkp_wtns_free(&wtns);
    zkp_zkey_free(&key);
    return code;
}
