/* zkpipe filecoin: Filecoin's files. This file dispatches the subcommands
 * (seal and c1 are cmd_filecoin_seal.c's, c2 and verify cmd_filecoin_c2.c's)
 * and holds params:
 *
 *   params inspect FILE [--check] [--fit] [--threads N]
 *       the verifying key and the five section lengths of a bellperson
 *       .params file (mapped, so a 47 GB file costs nothing to open); with
 *       --check every point is decoded and checked (curve, subgroup, no
 *       identity) and the time per section is printed; with --fit every
 *       length is compared with the circuit the file is named for.
 *   params from-zkey KEY.zkey OUT.params OUT.vk [--threads N]
 *       a BLS12-381 zkey written in bellperson's layout, its H query moved
 *       to bellperson's coefficient basis.
 *   params locate --sector-size SIZE
 *       where Filecoin's tools keep that sector size's PoRep parameters:
 *       $FIL_PROOFS_PARAMETER_CACHE and the name derived from the circuit.
 *   circuit-info --sector-size SIZE [--nnz]
 *       one PoRep partition's blank circuit synthesized (filecoin/
 *       porep_circuit.h) into the count-only back end: constraints, inputs
 *       and aux variables, and the time it took; with --nnz through the CSR
 *       back end's counting mode as well, for the matrices' non-zeros and
 *       the A and B densities a .params file's sections follow from. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "filecoin/c2.h"
#include "filecoin/porep_circuit.h"
#include "filecoin/public_inputs.h"
#include "filecoin/registry.h"
#include "formats/bellperson.h"
#include "formats/filecoin_params.h"
#include "formats/zkey.h"
#include "gadgets/csr.h"

static const char filecoin_usage[] =
    "usage: zkpipe filecoin seal ... | c1 synth ... | c1 verify ...   (zkpipe filecoin seal --help)\n"
    "       zkpipe filecoin c2 <c1.json> --out <proof.bin> [--params DIR]   (c2 --help)\n"
    "       zkpipe filecoin verify <c1.json> <proof.bin> [--params DIR]   (verify --help)\n"
    "       zkpipe filecoin params inspect <file.params> [--check] [--fit] [--threads N]\n"
    "       zkpipe filecoin params from-zkey <key.zkey> <out.params> <out.vk> [--threads N]\n"
    "       zkpipe filecoin params locate --sector-size 2KiB|8MiB|512MiB|32GiB|64GiB\n"
    "       zkpipe filecoin circuit-info --sector-size 2KiB|8MiB|512MiB|32GiB|64GiB [--nnz]\n"
    "\n"
    "params inspect prints the verifying key's input count and each section's point\n"
    "count, bytes and offset of a bellperson .params file. Only the key's points are\n"
    "decoded; --check decodes and checks every point of every section (on the curve,\n"
    "in the subgroup, not the identity) and prints the time each section took; --fit\n"
    "compares every section's length with the circuit the file is named for (its\n"
    "partition counted without a witness: seconds at 2KiB, minutes at 32GiB).\n"
    "params from-zkey writes a BLS12-381 .zkey as bellperson's .params and .vk, the\n"
    "H query converted to bellperson's basis (tau^i Z(tau)/delta).\n"
    "params locate prints the paths of a sector size's PoRep .params, .vk and .meta files\n"
    "as Filecoin names them, in $FIL_PROOFS_PARAMETER_CACHE (default\n"
    "/var/tmp/filecoin-proof-parameters). V1, V1_1 and synthetic PoRep share them.\n"
    "params inspect also says which sector size's circuit a file is named for.\n"
    "circuit-info synthesizes one PoRep partition of that sector size without a witness\n"
    "and prints its constraints (synthesis's own, without the prover's one per input),\n"
    "inputs (with ONE) and aux variables; --nnz also counts the non-zeros of A, B and C\n"
    "and the A and B column densities, as bellperson's prover sees them.\n" CLI_OPTIONS_HELP
        CLI_EXIT_CODES_HELP;

/* The interactive V1 proof of each published sector size: the rows whose
 * circuits name the parameter files (V1_1 and synthetic PoRep share them). */
const zkp_fil_seal_proof *cli_fil_v1_proof(const char *size) {
    char name[64];
    snprintf(name, sizeof name, "StackedDrg%sV1", size);
    return zkp_fil_seal_proof_by_name(name, strlen(name));
}

static const char *const sector_sizes_[] = {"2KiB", "8MiB", "512MiB", "32GiB", "64GiB"};

/* The sector size whose parameter file is called like path, or NULL. */
static const char *named_for_(const char *path) {
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    for (size_t i = 0; i < sizeof sector_sizes_ / sizeof sector_sizes_[0]; i++) {
        const zkp_fil_seal_proof *p = cli_fil_v1_proof(sector_sizes_[i]);
        if (!p) continue;
        zkp_fil_params_circuit c;
        zkp_fil_porep_shape_of(&c, p);
        char name[256];
        if (zkp_fil_params_file_name(name, sizeof name, &c, "params") && !strcmp(name, base))
            return sector_sizes_[i];
    }
    return NULL;
}

static int params_locate_(const char *size) {
    const zkp_fil_seal_proof *p = size ? cli_fil_v1_proof(size) : NULL;
    if (!p) {
        fprintf(stderr, "zkpipe filecoin: --sector-size %s: not one of 2KiB, 8MiB, 512MiB, "
                        "32GiB, 64GiB\n", size ? size : "(missing)");
        return CLI_USAGE;
    }
    zkp_fil_params_circuit c;
    zkp_fil_porep_shape_of(&c, p);
    static const char *const exts[] = {"params", "vk", "meta"};
    for (size_t e = 0; e < 3; e++) {
        char path[4096];
        if (!zkp_fil_params_lookup(path, sizeof path, NULL, &c, exts[e])) {
            fprintf(stderr, "zkpipe filecoin: the parameter cache path is too long\n");
            return CLI_USAGE;
        }
        printf("%s\n", path);
    }
    return CLI_OK;
}

static int circuit_info_(const char *size, int nnz) {
    const zkp_fil_seal_proof *p = size ? cli_fil_v1_proof(size) : NULL;
    if (!p) {
        fprintf(stderr, "zkpipe filecoin: --sector-size %s: not one of 2KiB, 8MiB, 512MiB, "
                        "32GiB, 64GiB\n", size ? size : "(missing)");
        return CLI_USAGE;
    }
    zkp_fil_porep_shape shape;
    zkp_fil_porep_shape_of(&shape, p);
    printf("circuit: PoRep %s, one partition: %u challenges, %u layers, %llu nodes, "
           "trees %u-%u-%u\n", size, (unsigned)shape.challenges, (unsigned)shape.layers,
           (unsigned long long)shape.nodes, shape.base_arity, shape.sub_arity, shape.top_arity);
    zkp_diag d = {{0}};
    zkp_cs cs;
    zkp_cs_init_counter(&cs);
    double t0 = cli_now();
    zkpipe_status st = zkp_fil_porep_circuit_blank(&cs, &shape, &d);
    if (st != ZKPIPE_OK) return cli_fail("filecoin", st, &d, CLI_INVALID);
    printf("constraints: %llu\ninputs: %llu\naux: %llu\ncount time: %.2f s\n",
           (unsigned long long)cs.num_constraints, (unsigned long long)cs.num_inputs,
           (unsigned long long)cs.num_aux, cli_now() - t0);
    if (!nnz) return CLI_OK;
    zkp_cs_csr *r = calloc(1, sizeof *r);
    if (!r) return cli_fail("filecoin", ZKPIPE_ERR_NO_MEMORY, NULL, CLI_INVALID);
    zkp_cs_csr_init(r, ZKP_CSR_COUNTS);
    t0 = cli_now();
    st = zkp_fil_porep_circuit_blank(&r->cs, &shape, &d);
    if (st == ZKPIPE_OK) st = zkp_cs_csr_finish(r);
    zkp_csr_density den;
    if (st == ZKPIPE_OK) st = zkp_cs_csr_density(r, &den);
    if (st == ZKPIPE_OK) {
        printf("rows with the input constraints: %llu\n", (unsigned long long)r->n_rows);
        printf("nnz A: %llu\nnnz B: %llu\nnnz C: %llu\n",
               (unsigned long long)zkp_cs_csr_nnz(r, ZKP_CSR_A),
               (unsigned long long)zkp_cs_csr_nnz(r, ZKP_CSR_B),
               (unsigned long long)zkp_cs_csr_nnz(r, ZKP_CSR_C));
        printf("density: a_input %llu, a_aux %llu, b_input %llu, b_aux %llu\n",
               (unsigned long long)den.a_input, (unsigned long long)den.a_aux,
               (unsigned long long)den.b_input, (unsigned long long)den.b_aux);
        printf("nnz time: %.2f s\n", cli_now() - t0);
    }
    zkp_cs_csr_free(r);
    free(r);
    if (st != ZKPIPE_OK) return cli_fail("filecoin", st, &d, CLI_INVALID);
    return CLI_OK;
}

/* Whether the file's section lengths are those of the named size's
 * circuit (filecoin/c2.h). */
static void print_fit_(const zkp_bp_params *p, const char *size) {
    zkp_diag d = {{0}};
    zkpipe_status st = zkp_fil_params_fit(p, cli_fil_v1_proof(size), &d);
    if (st == ZKPIPE_OK)
        printf("sections fit that circuit: yes\n");
    else
        printf("sections fit that circuit: NO (%s)\n", d.msg[0] ? d.msg : zkpipe_strerror(st));
}

static int params_inspect_(const char *path, int check, int fit, unsigned nthreads) {
    zkp_diag d = {{0}};
    zkp_bp_params p;
    zkp_bp_params_options opt = {NULL, nthreads, 0, NULL};
    zkpipe_status st = zkp_bp_params_load(&p, path, &opt, &d);
    if (st != ZKPIPE_OK) return cli_fail("filecoin", st, &d, CLI_BAD_INPUT);
    printf("file: %s\nfile bytes: %zu\npublic inputs: %u (ic points: %u)\n"
           "domain size: %llu\n",
           path, p.file_size, p.vk.n_ic - 1, p.vk.n_ic,
           (unsigned long long)p.sec[ZKP_BP_H].count + 1);
    const char *named = named_for_(path);
    if (named) {
        printf("named for: the %s PoRep circuit (V1, V1_1 and synthetic PoRep)\n", named);
        /* The input count follows from the challenges (filecoin/public_inputs.h); the
         * other sections' lengths need the circuit's synthesis. */
        size_t want = zkp_fil_porep_public_input_count(cli_fil_v1_proof(named)) + 1;
        if (want == p.vk.n_ic)
            printf("public inputs fit that circuit: yes (%zu with ONE)\n", want);
        else
            printf("public inputs fit that circuit: NO (it has %zu with ONE, the file %u)\n",
                   want, p.vk.n_ic);
        if (fit) print_fit_(&p, named);
    } else {
        printf("named for: no published PoRep circuit\n");
    }
    printf("%-6s %12s %16s %16s\n", "section", "points", "bytes", "offset");
    for (int s = 0; s < ZKP_BP_SECTION_COUNT; s++) {
        printf("%-6s %12u %16llu %16llu\n", zkp_bp_section_name((zkp_bp_section)s),
               p.sec[s].count, (unsigned long long)p.sec[s].count * p.sec[s].elem,
               (unsigned long long)p.sec[s].offset);
    }
    int code = CLI_OK;
    if (check) {
        uint64_t points = 0;
        double seconds = 0;
        for (int s = 0; s < ZKP_BP_SECTION_COUNT && code == CLI_OK; s++) {
            zkp_bp_decode_stats stats = {0, 0};
            st = zkp_bp_params_check_section(&p, (zkp_bp_section)s, &stats, &d);
            if (st != ZKPIPE_OK) {
                code = cli_fail("filecoin", st, &d, CLI_BAD_INPUT);
                break;
            }
            points += stats.points;
            seconds += stats.seconds;
            printf("checked %-5s %12llu points in %9.3f s (%.0f points/s)\n",
                   zkp_bp_section_name((zkp_bp_section)s), (unsigned long long)stats.points,
                   stats.seconds, stats.seconds > 0 ? (double)stats.points / stats.seconds : 0.0);
        }
        if (code == CLI_OK)
            printf("checked all %llu points in %.3f s on %u threads (%.0f points/s): OK\n",
                   (unsigned long long)points, seconds, p.opt.nthreads,
                   seconds > 0 ? (double)points / seconds : 0.0);
    }
    zkp_bp_params_free(&p);
    return code;
}

static int params_from_zkey_(const char *zkey_path, const char *params_path, const char *vk_path,
                             unsigned nthreads) {
    zkp_output outs[2];
    const char *out_paths[2] = {params_path, vk_path};
    const char *in_paths[1] = {zkey_path};
    int code = cli_outputs_open("filecoin", outs, out_paths, 2, in_paths, 1);
    if (code != CLI_OK) return code;
    zkp_diag d = {{0}};
    zkp_zkey key;
    zkp_zkey_options ko = {NULL, nthreads, 0};
    zkpipe_status st = zkp_zkey_load(&key, zkey_path, &ko, &d);
    if (st != ZKPIPE_OK) {
        cli_outputs_close(outs, 2);
        return cli_fail("filecoin", st, &d, CLI_BAD_INPUT);
    }
    uint8_t *params = NULL, *vk_bytes = NULL;
    bls12_381_g1_affine_t *h = NULL;
    size_t params_len = 0, vk_len = 0, h_bytes = 0;
    if (key.curve != ZKPIPE_CURVE_BLS12_381) {
        zkp_diag_fail(&d, ZKPIPE_ERR_WRONG_CURVE,
                      "%s: a bn254 key; bellperson's files are BLS12-381", zkey_path);
        code = cli_fail("filecoin", ZKPIPE_ERR_WRONG_CURVE, &d, CLI_BAD_INPUT);
        goto done;
    }
    const bls12_381_g16_pk_t *pk = &key.pk.bls12_381;
    h_bytes = (size_t)(pk->domain_size - 1) * sizeof *h;
    h = zkp_alloc(NULL, h_bytes, ZKP_MEM_KEY);
    if (!h) {
        code = cli_fail("filecoin", ZKPIPE_ERR_NO_MEMORY, NULL, CLI_INVALID);
        goto done;
    }
    zkp_bp_vk vk;
    zkp_bp_params_src src;
    if ((st = zkp_bp_params_src_from_g16_pk(&src, &vk, h, pk, nthreads, NULL, &d)) != ZKPIPE_OK ||
        (st = zkp_bp_params_size(&src, &params_len, &d)) != ZKPIPE_OK) {
        code = cli_fail("filecoin", st, &d, CLI_INVALID);
        goto done;
    }
    vk_len = (size_t)zkp_bp_vk_bytes(vk.n_ic);
    params = zkp_alloc(NULL, params_len, ZKP_MEM_SCRATCH);
    if (!params) {
        code = cli_fail("filecoin", ZKPIPE_ERR_NO_MEMORY, NULL, CLI_INVALID);
        goto done;
    }
    if ((st = zkp_bp_params_encode(params, params_len, &src, &d)) != ZKPIPE_OK) {
        code = cli_fail("filecoin", st, &d, CLI_INVALID);
        goto done;
    }
    /* The .vk is the start of the .params file. */
    vk_bytes = params;
    const char *texts[2] = {(const char *)params, (const char *)vk_bytes};
    size_t lens[2] = {params_len, vk_len};
    code = cli_outputs_write("filecoin", outs, texts, lens, 2);
    if (code == CLI_OK)
        fprintf(stderr, "wrote %s (%zu bytes) and %s (%zu bytes)\n", params_path, params_len,
                vk_path, vk_len);
done:
    zkp_free(NULL, params, params_len, ZKP_MEM_SCRATCH);
    zkp_free(NULL, h, h_bytes, ZKP_MEM_KEY);
    zkp_zkey_free(&key);
    cli_outputs_close(outs, 2);
    return code;
}

int cli_filecoin(int argc, char **argv) {
    if (argc >= 1 && cli_is_help(argv[0])) {
        fputs(filecoin_usage, stdout);
        return CLI_OK;
    }
    /* seal and c1 live in cmd_filecoin_seal.c. */
    if (argc >= 1 && !strcmp(argv[0], "seal")) return cli_filecoin_seal(argc - 1, argv + 1);
    if (argc >= 1 && !strcmp(argv[0], "c1")) return cli_filecoin_c1(argc - 1, argv + 1);
    if (argc >= 1 && !strcmp(argv[0], "c2")) return cli_filecoin_c2(argc - 1, argv + 1);
    if (argc >= 1 && !strcmp(argv[0], "verify")) return cli_filecoin_verify(argc - 1, argv + 1);
    int info = argc >= 1 && !strcmp(argv[0], "circuit-info");
    if (argc == 0) goto usage;
    if (!info && strcmp(argv[0], "params") != 0) {
        fprintf(stderr, "zkpipe filecoin: unknown subcommand \"%s\"\n", argv[0]);
        goto usage;
    }
    if (!info && argc < 2) {
        fputs("zkpipe filecoin: params needs inspect, from-zkey or locate\n", stderr);
        goto usage;
    }
    /* The files each command takes; those that take none take --sector-size. */
    static const struct {
        const char *name, *files;
        size_t nfiles;
    } cmds[] = {{"inspect", "<file.params>", 1},
                {"from-zkey", "<key.zkey> <out.params> <out.vk>", 3},
                {"locate", "no file", 0},
                {"circuit-info", "no file", 0}};
    const char *what = info ? "circuit-info" : argv[1];
    size_t c = info ? 3 : 0;
    while (c < 3 && strcmp(what, cmds[c].name) != 0) c++;
    if (c == 3 && !info) {
        fprintf(stderr, "zkpipe filecoin: params inspect, from-zkey or locate, not \"%s\"\n",
                what);
        goto usage;
    }
    const int sized = cmds[c].nfiles == 0;
    char cmd[40]; /* "filecoin params from-zkey" at most */
    snprintf(cmd, sizeof cmd, "filecoin %s%s", info ? "" : "params ", what);
    int nnz = 0;
    const char *pos[3] = {NULL, NULL, NULL};
    size_t npos = 0;
    int check = 0, fit = 0;
    unsigned nthreads = 0;
    const char *sector_size = NULL;
    for (int i = info ? 1 : 2; i < argc; i++) {
        const char *a = argv[i], *v = NULL;
        int r;
        if (cli_is_help(a)) {
            fputs(filecoin_usage, stdout);
            return CLI_OK;
        }
        if ((r = cli_opt(cmd, argc, argv, &i, "--threads", CLI_THREADS_WANT, &v))) {
            if (r < 0) return CLI_USAGE;
            if (cli_parse_threads(v, &nthreads))
                return cli_refused(cmd, "--threads", CLI_THREADS_WANT, v);
        } else if (sized &&
                   (r = cli_opt(cmd, argc, argv, &i, "--sector-size", "2KiB ... 64GiB", &v))) {
            if (r < 0) return CLI_USAGE;
            sector_size = v;
        } else if (!strcmp(a, "--check") && c == 0) {
            check = 1;
        } else if (!strcmp(a, "--fit") && c == 0) {
            fit = 1;
        } else if (!strcmp(a, "--nnz") && info) {
            nnz = 1;
        } else if (a[0] == '-' && a[1]) {
            return cli_unknown(cmd, a, "filecoin --help");
        } else {
            if (npos < 3) pos[npos] = a;
            npos++;
        }
    }
    if (npos != cmds[c].nfiles) {
        fprintf(stderr, "zkpipe %s: wants %s, not %zu file(s)\n", cmd, cmds[c].files, npos);
        goto usage;
    }
    if (sized && !sector_size) {
        fprintf(stderr, "zkpipe %s: --sector-size is required\n", cmd);
        goto usage;
    }
    if (c == 0) return params_inspect_(pos[0], check, fit, nthreads);
    if (c == 1) return params_from_zkey_(pos[0], pos[1], pos[2], nthreads);
    if (c == 2) return params_locate_(sector_size);
    return circuit_info_(sector_size, nnz);
usage:
    fputs(filecoin_usage, stderr);
    return CLI_USAGE;
}
