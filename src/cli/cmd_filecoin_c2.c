/* zkpipe filecoin c2: a sealed sector's PoRep proof from its C1 output,
 * proved through the engine (its memory budget, synthesis workers and
 * split prove_start / finalize; the key is filecoin/c2.h's), every
 * partition verified before the file is written. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "filecoin/c2.h"
#include "filecoin/porep_circuit.h"
#include "filecoin/seal.h"
#include "util/fileio.h"
#include "util/mapped_file.h"
#include "zkpipe/engine.h"

static const char c2_usage[] =
    "usage: zkpipe filecoin c2 <c1.json> --out <proof.bin> [--params DIR] [--threads N]\n"
    "                          [--budget SIZE] [--synth-workers N] [--check-subgroups]\n"
    "\n"
    "Proves every partition of a C1 output (from `zkpipe filecoin seal`, `filecoin c1\n"
    "synth` or rust-fil-proofs' seal_commit_phase1) with the PoRep circuit's Groth16\n"
    "parameters, and writes the concatenated 192-byte partition proofs, as\n"
    "seal_commit_phase2 returns them. Each partition is verified against the public\n"
    "inputs derived from the C1's commitments and seed before anything is written: a\n"
    "C1 that does not satisfy the circuit, or parameters that are not a setup of it,\n"
    "fail with exit code 1 and leave no output.\n"
    "\n"
    "The parameters are found by Filecoin's file name for the sector size's circuit\n"
    "(`zkpipe filecoin params locate`): in DIR, or in $FIL_PROOFS_PARAMETER_CACHE, or in\n"
    "/var/tmp/filecoin-proof-parameters. Their section lengths are checked against the\n"
    "circuit before any point is decoded; a file made for another circuit is refused\n"
    "with the lengths that differ. `zkpipe setup dev --filecoin porep` makes INSECURE\n"
    "ones for development.\n"
    "\n"
    "The partitions go through the proving engine: each is admitted when its working\n"
    "set fits the memory budget, synthesized from the C1 by a synthesis worker, then\n"
    "proved, so partition k+1 is synthesized while partition k is proved.\n"
    "\n"
    "Options:\n"
    "  --out FILE     where the proof goes (written to a temporary name, then renamed)\n"
    "  --params DIR   the directory of the parameter files\n"
    "  --threads N    threads of one proof, 1 to 4096 (default: every CPU)\n"
    "  --budget SIZE  memory budget, e.g. 8GiB (default: the cgroup limit or the\n"
    "                 machine's memory, less a margin)\n"
    "  --synth-workers N\n"
    "                 partitions synthesized at once, 1 to 4096 (default 1)\n"
    "  --check-subgroups\n"
    "                 check every point of the parameters in the prime-order subgroup,\n"
    "                 not only on the curve. Filecoin's own loader skips it; the\n"
    "                 subgroup check is most of the loading time (about 10,000 points\n"
    "                 a second per core: 19 CPU-minutes at 2KiB), and a bad point can only\n"
    "                 make a proof fail its verification, never pass it. The verifying\n"
    "                 key is always checked whole.\n"
    "\n" CLI_OPTIONS_HELP CLI_EXIT_CODES_HELP;

/* The exit code a failed partition gets: invalid proofs and inputs the C1
 * holds are the C1's fault (or the parameters'), resources are not. */
static int code_of_(zkpipe_status st) {
    return st == ZKPIPE_ERR_INVALID_ARGUMENT || st == ZKPIPE_ERR_OUT_OF_RANGE ? CLI_BAD_INPUT
                                                                             : CLI_INVALID;
}

/* The C1 at path, parsed and checked for shape. */
static zkpipe_status load_c1_(zkp_fil_c1 *c1, const char *path, zkp_diag *d) {
    zkp_mapped_file mf;
    zkpipe_status st = zkp_mapped_file_open(&mf, path, d);
    if (st != ZKPIPE_OK) return st;
    st = zkp_fil_c1_parse(c1, (const char *)mf.data, mf.size, path, NULL, ZKP_MEM_AUX, d);
    zkp_mapped_file_close(&mf);
    return st;
}

int cli_fil_params_path(char *out, size_t cap, const char *dir, const zkp_fil_seal_proof *p,
                        const char *ext) {
    zkp_fil_params_circuit fc;
    zkp_fil_porep_shape_of(&fc, p);
    return zkp_fil_params_lookup(out, cap, dir, &fc, ext) > 0;
}

/* Waits for the engine's job, printing each partition as it completes. */
static zkpipe_status await_progress_(zkpipe_engine *e, uint64_t job, size_t n_parts, double t0,
                                     zkpipe_job_result *res) {
    uint64_t seen = 0;
    for (;;) {
        zkpipe_status st = zkpipe_engine_await(e, job, 1000, res);
        if (st != ZKPIPE_ERR_TIMEOUT) return st;
        zkpipe_engine_status es;
        if (zkpipe_engine_get_status(e, &es) == ZKPIPE_OK && es.partitions_completed != seen) {
            seen = es.partitions_completed;
            fprintf(stderr, "zkpipe filecoin c2: %llu of %zu partition(s) proved and verified "
                    "(%.1f s)\n", (unsigned long long)seen, n_parts, cli_now() - t0);
        }
    }
}

int cli_filecoin_c2(int argc, char **argv) {
    const char *c1_path = NULL, *out_path = NULL, *dir = NULL, *v = NULL;
    zkpipe_engine_config cfg;
    (void)zkpipe_engine_config_default(&cfg);
    cfg.synth_workers = 1;
    int check_subgroups = 0;
    for (int i = 0; i < argc; i++) {
        int r;
        if (cli_is_help(argv[i])) {
            fputs(c2_usage, stdout);
            return CLI_OK;
        }
        if ((r = cli_opt("filecoin c2", argc, argv, &i, "--out", "the proof file", &v))) {
            if (r < 0) return CLI_USAGE;
            out_path = v;
        } else if ((r = cli_opt("filecoin c2", argc, argv, &i, "--params", "a directory", &v))) {
            if (r < 0) return CLI_USAGE;
            dir = v;
        } else if ((r = cli_opt("filecoin c2", argc, argv, &i, "--threads",
                                CLI_THREADS_WANT, &v))) {
            if (r < 0) return CLI_USAGE;
            if (cli_parse_threads(v, &cfg.device_threads))
                return cli_refused("filecoin c2", "--threads", CLI_THREADS_WANT, v);
        } else if ((r = cli_opt("filecoin c2", argc, argv, &i, "--synth-workers",
                                CLI_THREADS_WANT, &v))) {
            if (r < 0) return CLI_USAGE;
            if (cli_parse_threads(v, &cfg.synth_workers))
                return cli_refused("filecoin c2", "--synth-workers", CLI_THREADS_WANT, v);
        } else if ((r = cli_opt("filecoin c2", argc, argv, &i, "--budget", "a size", &v))) {
            if (r < 0) return CLI_USAGE;
            if (cli_parse_size(v, &cfg.budget_bytes) || cfg.budget_bytes == 0)
                return cli_refused("filecoin c2", "--budget", "a size above 0, e.g. 8GiB", v);
        } else if (!strcmp(argv[i], "--check-subgroups")) {
            check_subgroups = 1;
        } else if (argv[i][0] == '-' && argv[i][1]) {
            return cli_unknown("filecoin c2", argv[i], "filecoin c2 --help");
        } else if (!c1_path) {
            c1_path = argv[i];
        } else {
            fprintf(stderr, "zkpipe filecoin c2: one <c1.json>, not also \"%s\"\n", argv[i]);
            return CLI_USAGE;
        }
    }
    if (!c1_path || !out_path) {
        fprintf(stderr, "zkpipe filecoin c2: %s is required\n", !c1_path ? "<c1.json>" : "--out");
        goto usage;
    }

    zkp_output out;
    const char *out_paths[1] = {out_path}, *in_paths[1] = {c1_path};
    int code = cli_outputs_open("filecoin c2", &out, out_paths, 1, in_paths, 1);
    if (code != CLI_OK) return code;
    zkp_diag d = {{0}};
    zkp_fil_c1 c1;
    memset(&c1, 0, sizeof c1);
    zkp_mapped_file c1_file;
    memset(&c1_file, 0, sizeof c1_file);
    zkpipe_engine *e = NULL;
    zkpipe_job_result res;
    memset(&res, 0, sizeof res);
    uint8_t *proofs = NULL;
    /* The C1 is read here for its sector size (which parameters) and to
     * refuse a bad one before the key loads; the engine parses its own
     * copy at submit. */
    zkpipe_status st = zkp_mapped_file_open(&c1_file, c1_path, &d);
    if (st == ZKPIPE_OK)
        st = zkp_fil_c1_parse(&c1, (const char *)c1_file.data, c1_file.size, c1_path, NULL,
                              ZKP_MEM_AUX, &d);
    /* The vanilla proofs too (the engine checks them again at submit):
     * a C1 that is not what the sealer made is refused before the key
     * loads, saying which proof fails. */
    if (st == ZKPIPE_OK && (st = zkp_fil_c1_verify(&c1, &d)) != ZKPIPE_OK)
        fprintf(stderr, "zkpipe filecoin c2: %s: the C1's vanilla proofs do not verify\n",
                c1_path);
    if (st != ZKPIPE_OK) {
        code = cli_fail("filecoin c2", st, &d, CLI_BAD_INPUT);
        goto done;
    }
    char params_path[4096];
    if (!cli_fil_params_path(params_path, sizeof params_path, dir, c1.proof, "params")) {
        fprintf(stderr, "zkpipe filecoin c2: --params: the path is too long\n");
        code = CLI_USAGE;
        goto done;
    }
    size_t n_parts = c1.vanilla_proofs.n;
    fprintf(stderr, "zkpipe filecoin c2: %s, %zu partition(s); parameters %s\n", c1.proof->name,
            n_parts, params_path);
    double t0 = cli_now();
    char err[256];
    if ((st = zkpipe_engine_create(&e, &cfg, err, sizeof err)) != ZKPIPE_OK) {
        fprintf(stderr, "zkpipe filecoin c2: %s\n", err);
        code = CLI_INVALID;
        goto done;
    }
    uint32_t key;
    if ((st = zkpipe_engine_register_porep_key(e, &key, params_path, c1.proof->id,
                                               check_subgroups)) != ZKPIPE_OK) {
        snprintf(d.msg, sizeof d.msg, "%.400s: %s", params_path, zkpipe_strerror(st));
        code = cli_fail("filecoin c2", st, &d, CLI_BAD_INPUT);
        goto done;
    }
    /* The key loads before the job: a wrong file is refused with the
     * lengths that differ, and the time it takes is reported apart. */
    if ((st = zkpipe_engine_load_key_msg(e, key, d.msg, sizeof d.msg)) != ZKPIPE_OK) {
        code = cli_fail("filecoin c2", st, &d,
                        st == ZKPIPE_ERR_NO_MEMORY ? CLI_INVALID : CLI_BAD_INPUT);
        goto done;
    }
    fprintf(stderr, "zkpipe filecoin c2: key ready in %.2f s\n", cli_now() - t0);
    zkpipe_job_request req = {.key_id = key,
                              .priority = ZKPIPE_PRIORITY_NORMAL,
                              .porep_c1 = c1_file.data,
                              .porep_c1_len = c1_file.size};
    uint64_t job;
    if ((st = zkpipe_engine_submit(e, &job, &req)) != ZKPIPE_OK) {
        code = cli_fail("filecoin c2", st, NULL, CLI_BAD_INPUT);
        goto done;
    }
    if ((st = await_progress_(e, job, n_parts, t0, &res)) != ZKPIPE_OK) {
        code = cli_fail("filecoin c2", st, NULL, CLI_INVALID);
        goto done;
    }
    if (res.status != ZKPIPE_OK) {
        fprintf(stderr, "zkpipe filecoin c2: %s\n", res.error);
        code = code_of_(res.status);
        goto done;
    }
    proofs = malloc(n_parts * ZKP_BP_PROOF_BYTES);
    if (!proofs) {
        code = cli_fail("filecoin c2", ZKPIPE_ERR_NO_MEMORY, NULL, CLI_INVALID);
        goto done;
    }
    for (size_t k = 0; k < n_parts; k++) {
        const zkpipe_partition_result *r = &res.partitions[k];
        if (r->proof_len != ZKP_BP_PROOF_BYTES || !r->verified) {
            fprintf(stderr, "zkpipe filecoin c2: partition %zu has no verified proof\n", k);
            code = CLI_INVALID;
            goto done;
        }
        memcpy(proofs + k * ZKP_BP_PROOF_BYTES, r->proof, ZKP_BP_PROOF_BYTES);
        fprintf(stderr,
                "zkpipe filecoin c2: partition %zu of %zu: waited %.2f s, synthesis %.2f s, "
                "proof %.2f s (start %.2f s, finalize %.2f s), verified in %.3f s\n",
                k + 1, n_parts, r->times.queue_wait, r->times.synthesis,
                r->times.device + r->times.finalize, r->times.device, r->times.finalize,
                r->times.verify);
    }
    const char *texts[1] = {(const char *)proofs};
    size_t lens[1] = {n_parts * ZKP_BP_PROOF_BYTES};
    code = cli_outputs_write("filecoin c2", &out, texts, lens, 1);
    if (code == CLI_OK) {
        zkpipe_engine_status es;
        if (zkpipe_engine_get_status(e, &es) == ZKPIPE_OK)
            fprintf(stderr, "zkpipe filecoin c2: peak RSS %.2f GiB, peak tracked %.2f GiB\n",
                    (double)es.peak_rss_bytes / (1u << 30),
                    (double)es.tracked_peak_bytes / (1u << 30));
        printf("%s: %zu partition proof(s) verified, %zu bytes written to %s in %.2f s\n",
               c1.proof->name, n_parts, lens[0], out_path, cli_now() - t0);
    }
done:
    free(proofs);
    zkpipe_job_result_clear(&res);
    (void)zkpipe_engine_destroy(&e);
    zkp_fil_c1_free(&c1);
    zkp_mapped_file_close(&c1_file);
    cli_outputs_close(&out, 1);
    return code;
usage:
    fputs(c2_usage, stderr);
    return CLI_USAGE;
}

static const char verify_usage[] =
    "usage: zkpipe filecoin verify <c1.json> <proof.bin> [--params DIR]\n"
    "\n"
    "Checks a PoRep proof (the concatenated 192-byte partition proofs of `filecoin c2` or\n"
    "seal_commit_phase2) against the C1 it was made from: each partition against the\n"
    "public inputs derived from the C1's commitments and seed, under the verifying key\n"
    "(.vk) named for the sector size's circuit in DIR, $FIL_PROOFS_PARAMETER_CACHE or\n"
    "/var/tmp/filecoin-proof-parameters. Exit code 0: every partition verifies; 1: one\n"
    "does not, or the proof is not one (a point off the curve, a wrong length); the\n"
    "message names the partition.\n"
    "\n" CLI_OPTIONS_HELP CLI_EXIT_CODES_HELP;

/* A proof is at most this many partitions of 192 bytes (NI-PoRep's 126). */
#define VERIFY_MAX_PROOF ((size_t)1024 * ZKP_BP_PROOF_BYTES)
#define VERIFY_MAX_VK ((size_t)1 << 20)

int cli_filecoin_verify(int argc, char **argv) {
    const char *pos[2] = {NULL, NULL}, *dir = NULL, *v = NULL;
    size_t npos = 0;
    for (int i = 0; i < argc; i++) {
        int r;
        if (cli_is_help(argv[i])) {
            fputs(verify_usage, stdout);
            return CLI_OK;
        }
        if ((r = cli_opt("filecoin verify", argc, argv, &i, "--params", "a directory", &v))) {
            if (r < 0) return CLI_USAGE;
            dir = v;
        } else if (argv[i][0] == '-' && argv[i][1]) {
            return cli_unknown("filecoin verify", argv[i], "filecoin verify --help");
        } else if (npos == 2) {
            fprintf(stderr, "zkpipe filecoin verify: <c1.json> and <proof.bin>, not also \"%s\"\n",
                    argv[i]);
            return CLI_USAGE;
        } else {
            pos[npos++] = argv[i];
        }
    }
    if (npos != 2) {
        fprintf(stderr, "zkpipe filecoin verify: %s\n",
                npos ? "<proof.bin> is required" : "<c1.json> and <proof.bin> are required");
        goto usage;
    }
    zkp_diag d = {{0}};
    zkp_fil_c1 c1;
    memset(&c1, 0, sizeof c1);
    zkp_bp_vk vk;
    memset(&vk, 0, sizeof vk);
    char *proof = NULL, *vk_bytes = NULL;
    size_t proof_len = 0, vk_len = 0;
    char vk_path[4096];
    int code = CLI_BAD_INPUT;
    zkpipe_status st = load_c1_(&c1, pos[0], &d);
    if (st == ZKPIPE_OK) st = zkp_read_file(pos[1], VERIFY_MAX_PROOF, &proof, &proof_len, &d);
    if (st == ZKPIPE_OK && !cli_fil_params_path(vk_path, sizeof vk_path, dir, c1.proof, "vk")) {
        fprintf(stderr, "zkpipe filecoin verify: --params: the path is too long\n");
        code = CLI_USAGE;
        goto done;
    }
    if (st == ZKPIPE_OK) st = zkp_read_file(vk_path, VERIFY_MAX_VK, &vk_bytes, &vk_len, &d);
    if (st == ZKPIPE_OK)
        st = zkp_bp_vk_parse(&vk, (const uint8_t *)vk_bytes, vk_len, 1, NULL, vk_path, NULL, &d);
    if (st != ZKPIPE_OK) {
        code = cli_fail("filecoin verify", st, &d, CLI_BAD_INPUT);
        goto done;
    }
    st = zkp_fil_c2_verify(&vk, &c1, (const uint8_t *)proof, proof_len, &d);
    if (st == ZKPIPE_OK) {
        printf("%s: %s, %zu partition(s): the proof verifies\n", pos[1], c1.proof->name,
               (size_t)c1.vanilla_proofs.n);
        code = CLI_OK;
    } else {
        /* A proof that is not one (a bad point, a wrong length) is invalid;
         * a key of another circuit is a bad input. */
        code = cli_fail("filecoin verify", st, &d,
                        st == ZKPIPE_ERR_INVALID_ARGUMENT ? CLI_BAD_INPUT : CLI_INVALID);
    }
done:
    zkp_bp_vk_free(&vk);
    free(vk_bytes);
    free(proof);
    zkp_fil_c1_free(&c1);
    return code;
usage:
    fputs(verify_usage, stderr);
    return CLI_USAGE;
}
