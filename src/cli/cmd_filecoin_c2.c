/* zkpipe filecoin c2: a sealed sector's PoRep proof from its C1 output
 * (filecoin/c2.h), every partition verified before the file is written. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "filecoin/c2.h"
#include "filecoin/porep_circuit.h"
#include "util/fileio.h"
#include "util/mapped_file.h"

static const char c2_usage[] =
    "usage: zkpipe filecoin c2 <c1.json> --out <proof.bin> [--params DIR] [--threads N]\n"
    "                          [--check-subgroups]\n"
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
    "Options:\n"
    "  --out FILE     where the proof goes (written to a temporary name, then renamed)\n"
    "  --params DIR   the directory of the parameter files\n"
    "  --threads N    1 to 4096 (default: every CPU)\n"
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

/* The path of the parameter file (ext "params" or "vk") of p's circuit in
 * dir (NULL: Filecoin's cache); 0 when it does not fit out. */
static int params_path_(char *out, size_t cap, const char *dir, const zkp_fil_seal_proof *p,
                        const char *ext) {
    zkp_fil_params_circuit fc;
    zkp_fil_porep_shape_of(&fc, p);
    char name[256];
    if (!dir) dir = zkp_fil_params_cache_dir();
    return zkp_fil_params_file_name(name, sizeof name, &fc, ext) &&
           (size_t)snprintf(out, cap, "%s/%s", dir, name) < cap;
}

int cli_filecoin_c2(int argc, char **argv) {
    const char *c1_path = NULL, *out_path = NULL, *dir = NULL, *v = NULL;
    unsigned nthreads = 0;
    int check_subgroups = 0;
    for (int i = 0; i < argc; i++) {
        int r;
        if (cli_is_help(argv[i])) {
            fputs(c2_usage, stdout);
            return CLI_OK;
        }
        if ((r = cli_opt("filecoin c2", argc, argv, &i, "--out", "the proof file", &v))) {
            if (r < 0) goto usage;
            out_path = v;
        } else if ((r = cli_opt("filecoin c2", argc, argv, &i, "--params", "a directory", &v))) {
            if (r < 0) goto usage;
            dir = v;
        } else if ((r = cli_opt("filecoin c2", argc, argv, &i, "--threads",
                                "a number from 1 to 4096", &v))) {
            if (r < 0 || cli_parse_threads(v, &nthreads)) goto usage;
        } else if (!strcmp(argv[i], "--check-subgroups")) {
            check_subgroups = 1;
        } else if (argv[i][0] == '-' && argv[i][1]) {
            goto usage;
        } else if (!c1_path) {
            c1_path = argv[i];
        } else {
            goto usage;
        }
    }
    if (!c1_path || !out_path) goto usage;

    zkp_output out;
    const char *out_paths[1] = {out_path}, *in_paths[1] = {c1_path};
    int code = cli_outputs_open("filecoin c2", &out, out_paths, 1, in_paths, 1);
    if (code != CLI_OK) return code;
    zkp_diag d = {{0}};
    zkp_fil_c1 c1;
    memset(&c1, 0, sizeof c1);
    zkp_fil_c2_key key;
    memset(&key, 0, sizeof key);
    uint8_t *proofs = NULL;
    zkpipe_status st = load_c1_(&c1, c1_path, &d);
    if (st != ZKPIPE_OK) {
        code = cli_fail("filecoin c2", st, &d, CLI_BAD_INPUT);
        goto done;
    }
    char params_path[4096];
    if (!params_path_(params_path, sizeof params_path, dir, c1.proof, "params")) {
        fprintf(stderr, "zkpipe filecoin c2: --params: the path is too long\n");
        code = CLI_USAGE;
        goto done;
    }
    size_t n_parts = c1.vanilla_proofs.n;
    fprintf(stderr, "zkpipe filecoin c2: %s, %zu partition(s); parameters %s\n", c1.proof->name,
            n_parts, params_path);
    zkp_fil_c2_options opt = {nthreads, NULL, check_subgroups};
    double t0 = cli_now();
    st = zkp_fil_c2_key_load(&key, c1.proof, params_path, &opt, &d);
    if (st != ZKPIPE_OK) {
        code = cli_fail("filecoin c2", st, &d, st == ZKPIPE_ERR_NO_MEMORY ? CLI_INVALID
                                                                          : CLI_BAD_INPUT);
        goto done;
    }
    fprintf(stderr,
            "zkpipe filecoin c2: key ready in %.2f s (lengths checked %.2f s, circuit %.2f s, "
            "%llu rows; points decoded %.2f s; key %.2f s)\n",
            cli_now() - t0, key.seconds_check, key.seconds_shape, (unsigned long long)key.rows,
            key.seconds_decode, key.seconds_key);

    proofs = malloc(n_parts * ZKP_BP_PROOF_BYTES);
    if (!proofs) {
        code = cli_fail("filecoin c2", ZKPIPE_ERR_NO_MEMORY, NULL, CLI_INVALID);
        goto done;
    }
    for (size_t k = 0; k < n_parts; k++) {
        zkp_fil_c2_timings tm;
        st = zkp_fil_c2_prove_partition(proofs + k * ZKP_BP_PROOF_BYTES, &key, &c1, (unsigned)k,
                                        &opt, &tm, &d);
        if (st != ZKPIPE_OK) {
            code = cli_fail("filecoin c2", st, &d, code_of_(st));
            goto done;
        }
        fprintf(stderr,
                "zkpipe filecoin c2: partition %zu of %zu: synthesis %.2f s, proof %.2f s, "
                "verified in %.3f s\n",
                k + 1, n_parts, tm.synthesis, tm.prove, tm.verify);
    }
    const char *texts[1] = {(const char *)proofs};
    size_t lens[1] = {n_parts * ZKP_BP_PROOF_BYTES};
    code = cli_outputs_write("filecoin c2", &out, texts, lens, 1);
    if (code == CLI_OK)
        printf("%s: %zu partition proof(s) verified, %zu bytes written to %s in %.2f s\n",
               c1.proof->name, n_parts, lens[0], out_path, cli_now() - t0);
done:
    free(proofs);
    zkp_fil_c2_key_free(&key);
    zkp_fil_c1_free(&c1);
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
            if (r < 0) goto usage;
            dir = v;
        } else if ((argv[i][0] == '-' && argv[i][1]) || npos == 2) {
            goto usage;
        } else {
            pos[npos++] = argv[i];
        }
    }
    if (npos != 2) goto usage;
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
    if (st == ZKPIPE_OK && !params_path_(vk_path, sizeof vk_path, dir, c1.proof, "vk")) {
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
