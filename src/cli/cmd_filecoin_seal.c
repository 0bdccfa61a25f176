/* zkpipe filecoin seal and zkpipe filecoin c1: test sectors and their C1.
 *
 *   seal --sector-size SIZE --data FILE --prover-id HEX --sector-id N
 *        --ticket HEX --seed HEX --out DIR [--api VERSION | --porep-id HEX]
 *       VERSION is a registered proof's name after the sector size: V1,
 *       V1_1, V1_1_Feat_SyntheticPoRep or V1_2_Feat_NonInteractivePoRep.
 *       seals FILE (exactly the sector's size, fr32-padded) and writes
 *       DIR/replica and DIR/c1.json, all or nothing.
 *   c1 synth --sector-size SIZE --out FILE [--api V1|V1_1] [--seed HEX]
 *       a synthetic C1 (filecoin/seal.h): for benchmarks and tests only.
 *   c1 verify FILE
 *       reads a C1 JSON and runs the vanilla verifier: exit 0 when every
 *       proof holds, 1 naming the first member that does not, 3 when the
 *       file is not a C1. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "filecoin/seal.h"
#include "util/mapped_file.h"

static const char seal_usage[] =
    "usage: zkpipe filecoin seal --sector-size 2KiB|8MiB|512MiB --data <file>\n"
    "                            --prover-id <hex> --sector-id <n> --ticket <hex> --seed <hex>\n"
    "                            --out <dir> [--api <version>] [--porep-id <hex>]\n"
    "       zkpipe filecoin c1 synth --sector-size <size> --out <c1.json> [--api V1|V1_1]\n"
    "                                [--seed <hex>]\n"
    "       zkpipe filecoin c1 verify <c1.json>\n"
    "\n"
    "seal runs SDR on the data (exactly the sector size, each 32-byte node fr32-padded:\n"
    "its top two bits clear) and writes <dir>/replica and <dir>/c1.json (making <dir> if\n"
    "it is missing), the C1 that\n"
    "Filecoin's seal_commit_phase1 would return. 32-byte values are 64 hex digits. The\n"
    "proof version comes from --api (default V1_1) or --porep-id (a registered proof's\n"
    "porep id, ids 0 to 19). Versions: V1, V1_1 (interactive: challenges from --seed),\n"
    "V1_1_Feat_SyntheticPoRep (synthetic: --seed selects among challenges fixed by\n"
    "comm_r), V1_2_Feat_NonInteractivePoRep (NI: challenges from comm_r alone, 13 or\n"
    "126 partitions; --seed is recorded but not used). Sectors are sealed in memory:\n"
    "meant for test sizes.\n"
    "c1 synth makes a C1 for any sector size (2KiB .. 64GiB) without sealing: labels,\n"
    "data and tree nodes only where the challenges look, drawn from --seed (default\n"
    "zero). It passes the vanilla verifier and so the circuit, but commits to nothing:\n"
    "FOR BENCHMARKS AND TESTS ONLY, never for the chain. Interactive versions only:\n"
    "synthetic and NI challenges follow from comm_r (their circuits are V1_1's).\n"
    "c1 verify checks a C1's vanilla proofs (Merkle paths, labels and encodings against\n"
    "comm_d, comm_r, replica_id and seed) and names the first member that fails.\n" CLI_OPTIONS_HELP
        CLI_EXIT_CODES_HELP;

/* Options that each take one value. Returns -1 when argv is all options
 * (their values stored), else the exit code: CLI_OK after printing the
 * help, CLI_USAGE after saying what is wrong. */
typedef struct {
    const char *flag, *what;
    const char **dst;
} opt_;

static int parse_opts_(const char *cmd, int argc, char **argv, const opt_ *opts, size_t n) {
    for (int i = 0; i < argc; i++) {
        if (cli_is_help(argv[i])) {
            fputs(seal_usage, stdout);
            return CLI_OK;
        }
        size_t k = 0;
        int r = 0;
        for (; k < n; k++) {
            const char *v;
            if ((r = cli_opt(cmd, argc, argv, &i, opts[k].flag, opts[k].what, &v)) != 0) {
                if (r > 0) *opts[k].dst = v;
                break;
            }
        }
        if (r < 0) return CLI_USAGE;
        if (k == n) {
            fprintf(stderr, "zkpipe %s: unknown argument %s\n%s", cmd, argv[i], seal_usage);
            return CLI_USAGE;
        }
    }
    return -1;
}

static int hex32_(const char *s, uint8_t out[32]) {
    if (!s || strlen(s) != 64) return -1;
    for (int i = 0; i < 64; i++) {
        char c = s[i];
        int v = c >= '0' && c <= '9'   ? c - '0'
                : c >= 'a' && c <= 'f' ? c - 'a' + 10
                : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                       : -1;
        if (v < 0) return -1;
        out[i / 2] = (uint8_t)(i % 2 ? out[i / 2] | v : v << 4);
    }
    return 0;
}

/* The registered proof of a sector size and version, or of a porep id. */
static const zkp_fil_seal_proof *proof_of_(const char *size, const char *api,
                                           const char *porep_hex) {
    if (porep_hex) {
        uint8_t id[32];
        if (hex32_(porep_hex, id) != 0) return NULL;
        uint64_t v = 0;
        for (int i = 7; i >= 0; i--) v = v << 8 | id[i];
        for (int i = 8; i < 32; i++)
            if (id[i]) return NULL;
        const zkp_fil_seal_proof *p = v < 32 ? zkp_fil_seal_proof_by_id((uint32_t)v) : NULL;
        char want[64];
        snprintf(want, sizeof want, "StackedDrg%sV", size);
        return p && !strncmp(p->name, want, strlen(want)) ? p : NULL;
    }
    char name[64];
    snprintf(name, sizeof name, "StackedDrg%s%s", size, api);
    return zkp_fil_seal_proof_by_name(name, strlen(name));
}

static int seal_(int argc, char **argv) {
    const char *size = NULL, *data_path = NULL, *out = NULL, *api = "V1_1", *porep = NULL;
    const char *prover = NULL, *sector = NULL, *ticket = NULL, *seed = NULL;
    const opt_ opts[] = {
        {"--sector-size", "2KiB, 8MiB or 512MiB", &size},
        {"--data", "the sector's data file", &data_path},
        {"--out", "a directory", &out},
        {"--api", "a proof version", &api},
        {"--porep-id", "64 hex digits", &porep},
        {"--prover-id", "64 hex digits", &prover},
        {"--sector-id", "a number", &sector},
        {"--ticket", "64 hex digits", &ticket},
        {"--seed", "64 hex digits", &seed},
    };
    int code = parse_opts_("filecoin seal", argc, argv, opts, sizeof opts / sizeof opts[0]);
    if (code >= 0) return code;
    if (!size || !data_path || !out || !prover || !sector || !ticket || !seed) {
        fprintf(stderr,
                "zkpipe filecoin seal: --sector-size, --data, --prover-id, --sector-id, "
                "--ticket, --seed and --out are required\n%s",
                seal_usage);
        return CLI_USAGE;
    }
    zkp_fil_seal_inputs in;
    memset(&in, 0, sizeof in);
    if (strcmp(api, "V1") && strcmp(api, "V1_1") && strcmp(api, "V1_1_Feat_SyntheticPoRep") &&
        strcmp(api, "V1_2_Feat_NonInteractivePoRep")) {
        fprintf(stderr,
                "zkpipe filecoin seal: --api %s: V1, V1_1, V1_1_Feat_SyntheticPoRep or "
                "V1_2_Feat_NonInteractivePoRep\n",
                api);
        return CLI_USAGE;
    }
    in.proof = proof_of_(size, api, porep);
    if (!in.proof) {
        fprintf(stderr,
                "zkpipe filecoin seal: no registered proof for --sector-size %s with %s %s\n", size,
                porep ? "--porep-id" : "--api", porep ? porep : api);
        return CLI_USAGE;
    }
    if (hex32_(prover, in.prover_id) || hex32_(ticket, in.ticket) || hex32_(seed, in.seed) ||
        cli_parse_u64(sector, UINT64_MAX, &in.sector_id)) {
        fprintf(stderr, "zkpipe filecoin seal: --prover-id, --ticket and --seed take 64 hex "
                        "digits, --sector-id a number\n");
        return CLI_USAGE;
    }
    char replica_path[4096], c1_path[4096];
    if ((size_t)snprintf(replica_path, sizeof replica_path, "%s/replica", out) >=
            sizeof replica_path ||
        (size_t)snprintf(c1_path, sizeof c1_path, "%s/c1.json", out) >= sizeof c1_path) {
        fprintf(stderr, "zkpipe filecoin seal: --out %s: path too long\n", out);
        return CLI_USAGE;
    }
    /* The directory is made when missing (its parent must exist). */
    code = cli_make_out_dir("filecoin seal", out);
    if (code != CLI_OK) return code;
    zkp_output outs[2];
    const char *out_paths[2] = {replica_path, c1_path};
    code = cli_outputs_open("filecoin seal", outs, out_paths, 2, &data_path, 1);
    if (code != CLI_OK) return code;
    zkp_diag d = {{0}};
    zkp_mapped_file mf;
    zkp_fil_c1 c1;
    memset(&c1, 0, sizeof c1);
    uint8_t *replica = NULL, *json = NULL;
    size_t json_len = 0;
    zkpipe_status st = zkp_mapped_file_open(&mf, data_path, &d);
    if (st != ZKPIPE_OK) {
        code = cli_fail("filecoin seal", st, &d, CLI_BAD_INPUT);
        goto done;
    }
    if (mf.size != in.proof->sector_bytes) {
        fprintf(stderr, "zkpipe filecoin seal: %s: %zu bytes, a %s sector holds %llu\n", data_path,
                mf.size, size, (unsigned long long)in.proof->sector_bytes);
        code = CLI_BAD_INPUT;
        goto done;
    }
    replica = malloc((size_t)in.proof->sector_bytes);
    if (!replica) {
        code = cli_fail("filecoin seal", ZKPIPE_ERR_NO_MEMORY, NULL, CLI_INVALID);
        goto done;
    }
    double t0 = cli_now();
    st = zkp_fil_seal(&c1, replica, &in, mf.data, NULL, ZKP_MEM_AUX, &d);
    if (st != ZKPIPE_OK) {
        code = cli_fail("filecoin seal", st, &d,
                        st == ZKPIPE_ERR_INVALID_ARGUMENT ? CLI_BAD_INPUT : CLI_INVALID);
        goto done;
    }
    double t1 = cli_now();
    /* Never hand out a C1 that does not verify. */
    if ((st = zkp_fil_c1_verify(&c1, &d)) != ZKPIPE_OK ||
        (st = zkp_fil_c1_write(&c1, &json, &json_len, NULL, ZKP_MEM_AUX, &d)) != ZKPIPE_OK) {
        code = cli_fail("filecoin seal", st, &d, CLI_INVALID);
        goto done;
    }
    const char *texts[2] = {(const char *)replica, (const char *)json};
    size_t lens[2] = {(size_t)in.proof->sector_bytes, json_len};
    code = cli_outputs_write("filecoin seal", outs, texts, lens, 2);
    if (code == CLI_OK)
        printf("%s: sealed in %.3f s, C1 verified; wrote %s and %s (%zu bytes)\n", in.proof->name,
               t1 - t0, replica_path, c1_path, json_len);
done:
    cli_outputs_close(outs, 2);
    zkp_free(NULL, json, json_len, ZKP_MEM_AUX);
    zkp_fil_c1_free(&c1);
    free(replica);
    zkp_mapped_file_close(&mf);
    return code;
}

static int c1_verify_(const char *path) {
    zkp_diag d = {{0}};
    zkp_mapped_file mf;
    zkpipe_status st = zkp_mapped_file_open(&mf, path, &d);
    if (st != ZKPIPE_OK) return cli_fail("filecoin c1 verify", st, &d, CLI_BAD_INPUT);
    zkp_fil_c1 c1;
    st = zkp_fil_c1_parse(&c1, (const char *)mf.data, mf.size, path, NULL, ZKP_MEM_AUX, &d);
    zkp_mapped_file_close(&mf);
    if (st != ZKPIPE_OK) return cli_fail("filecoin c1 verify", st, &d, CLI_BAD_INPUT);
    st = zkp_fil_c1_verify(&c1, &d);
    int code = CLI_OK;
    if (st == ZKPIPE_OK)
        printf("%s: %s, %u partition(s) of %u challenge(s): the vanilla proofs hold\n", path,
               c1.proof->name, (unsigned)c1.vanilla_proofs.n, (unsigned)c1.proof->challenges);
    else
        code = cli_fail("filecoin c1 verify", st, &d,
                        st == ZKPIPE_ERR_PROOF_INVALID ? CLI_INVALID : CLI_BAD_INPUT);
    zkp_fil_c1_free(&c1);
    return code;
}

static int c1_synth_(int argc, char **argv) {
    const char *size = NULL, *out = NULL, *api = "V1_1", *seed_hex = NULL;
    const opt_ opts[] = {{"--sector-size", "2KiB .. 64GiB", &size},
                         {"--out", "the C1 file", &out},
                         {"--api", "V1 or V1_1", &api},
                         {"--seed", "64 hex digits", &seed_hex}};
    int code = parse_opts_("filecoin c1 synth", argc, argv, opts, sizeof opts / sizeof opts[0]);
    if (code >= 0) return code;
    uint8_t seed[32] = {0};
    const zkp_fil_seal_proof *p =
        size && (!strcmp(api, "V1") || !strcmp(api, "V1_1")) ? proof_of_(size, api, NULL) : NULL;
    if (!p || !out || (seed_hex && hex32_(seed_hex, seed))) {
        fprintf(stderr, "zkpipe filecoin c1 synth: needs --sector-size (2KiB, 8MiB, 512MiB, 32GiB "
                        "or 64GiB), --out, --api V1 or V1_1 (synthetic and NI challenges "
                        "follow from comm_r), --seed as 64 hex digits\n");
        return CLI_USAGE;
    }
    zkp_output o;
    code = cli_outputs_open("filecoin c1 synth", &o, &out, 1, NULL, 0);
    if (code != CLI_OK) return code;
    fprintf(stderr, "zkpipe filecoin c1 synth: a SYNTHETIC C1 (no sector was sealed): for "
                    "benchmarks and tests only, never for the chain\n");
    zkp_diag d = {{0}};
    zkp_fil_c1 c1;
    uint8_t *json = NULL;
    size_t len = 0;
    double t0 = cli_now();
    zkpipe_status st = zkp_fil_c1_synthesize(&c1, p, seed, NULL, ZKP_MEM_AUX, &d);
    double t1 = cli_now();
    if (st == ZKPIPE_OK) st = zkp_fil_c1_verify(&c1, &d);
    double t2 = cli_now();
    if (st == ZKPIPE_OK) st = zkp_fil_c1_write(&c1, &json, &len, NULL, ZKP_MEM_AUX, &d);
    if (st != ZKPIPE_OK) {
        code = cli_fail("filecoin c1 synth", st, &d, CLI_INVALID);
    } else {
        const char *text = (const char *)json;
        code = cli_outputs_write("filecoin c1 synth", &o, &text, &len, 1);
        if (code == CLI_OK)
            printf("%s: %u partition(s) of %u challenge(s) made in %.3f s, verified in %.3f s; "
                   "wrote %s (%zu bytes)\n",
                   p->name, (unsigned)p->partitions, (unsigned)p->challenges, t1 - t0, t2 - t1, out,
                   len);
    }
    cli_outputs_close(&o, 1);
    zkp_free(NULL, json, len, ZKP_MEM_AUX);
    zkp_fil_c1_free(&c1);
    return code;
}

int cli_filecoin_seal(int argc, char **argv) { return seal_(argc, argv); }

int cli_filecoin_c1(int argc, char **argv) {
    if (argc >= 1 && cli_is_help(argv[0])) {
        fputs(seal_usage, stdout);
        return CLI_OK;
    }
    if (argc == 2 && !strcmp(argv[0], "verify")) {
        if (cli_is_help(argv[1])) {
            fputs(seal_usage, stdout);
            return CLI_OK;
        }
        return c1_verify_(argv[1]);
    }
    if (argc >= 1 && !strcmp(argv[0], "synth")) return c1_synth_(argc - 1, argv + 1);
    fprintf(stderr, "zkpipe filecoin c1: expected: synth or verify <c1.json>\n%s", seal_usage);
    return CLI_USAGE;
}
