/* zkpipe setup dev: INSECURE development parameters (setup/dev_params.h)
 * for a circuit the gadgets layer can synthesize, in bellperson's layout:
 * SHA-256 of N bytes, or a Filecoin PoRep partition. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "filecoin/porep_circuit.h"
#include "gadgets/csr.h"
#include "gadgets/multipack.h"
#include "gadgets/sha256.h"
#include "groth16/backend.h"
#include "setup/dev_params.h"

static const char setup_usage[] =
    "usage: zkpipe setup dev --circuit sha256 --bytes N --out DIR [options]\n"
    "       zkpipe setup dev --filecoin porep --sector-size S --out DIR [options]\n"
    "\n"
    "Writes INSECURE Groth16 parameters for a circuit, in bellperson's .params and .vk\n"
    "layout, for tests and development only: the toxic waste is drawn by this process, so\n"
    "anyone who has it (or the seed) can forge proofs. bellperson's files have no field to\n"
    "say so; the file names say it where they can (dev-INSECURE-<circuit>.params and .vk).\n"
    "\n"
    "Circuits:\n"
    "  sha256 --bytes N   SHA-256 of N private bytes (1 to 4096), bellperson's gadget,\n"
    "                     the digest's 256 bits packed into 2 public inputs\n"
    "  --filecoin porep --sector-size 2KiB|8MiB|512MiB|32GiB|64GiB\n"
    "                     one partition of Filecoin's PoRep circuit (V1, V1_1 and synthetic\n"
    "                     PoRep share it), written under Filecoin's own file names (the\n"
    "                     SHA-256 of the circuit's identifier, as `zkpipe filecoin params\n"
    "                     locate` prints them), so that `zkpipe filecoin c2 --params DIR`\n"
    "                     and Filecoin's tools find them. Those names cannot say INSECURE:\n"
    "                     keep such a directory apart from real parameters. No .meta file\n"
    "                     is written. 2KiB and 8MiB take two minutes or so on two\n"
    "                     cores; 32GiB needs the memory of a proving machine.\n"
    "\n"
    "Options:\n"
    "  --out DIR        the directory to write into (made if missing; its parent must exist)\n"
    "  --seed HEX       64 hex digits: the toxic waste from this seed, so the same seed\n"
    "                   gives the same files (default: the OS random source)\n"
    "  --threads N      1 to 4096 (default: every CPU)\n"
    "  --device D       cpu, cuda, cuda:N or auto (default: a GPU if there is one): where\n"
    "                   the G1 points are made (the G2 points stay on the CPU); the files\n"
    "                   are the same bytes either way\n"
    "  --quiet          no progress on the terminal\n"
    "\n" CLI_OPTIONS_HELP CLI_EXIT_CODES_HELP;

typedef struct {
    int tty, quiet;
    unsigned logged; /* without a terminal: the last tenth logged */
    double start;
} progress_state;

/* On a terminal, one line redrawn; in a log, a line every tenth, since a
 * 32 GiB sector's parameters take minutes. */
static void on_progress_(void *ctx, uint64_t done, uint64_t total) {
    progress_state *ps = ctx;
    unsigned pct = (unsigned)(total ? done * 100 / total : 100);
    if (ps->quiet) return;
    if (ps->tty) {
        fprintf(stderr, "\r\033[K[%6.2fs] INSECURE dev params: %llu of %llu points (%u%%)",
                cli_now() - ps->start, (unsigned long long)done, (unsigned long long)total, pct);
    } else if (pct / 10 > ps->logged) {
        ps->logged = pct / 10;
        fprintf(stderr, "zkpipe setup: [%.1f s] %llu of %llu points (%u%%)\n",
                cli_now() - ps->start, (unsigned long long)done, (unsigned long long)total, pct);
    }
    fflush(stderr);
}

static int hex_seed_(const char *s, uint8_t out[32]) {
    if (strlen(s) != 64) return -1;
    for (int i = 0; i < 64; i++) {
        char ch = s[i];
        int v = ch >= '0' && ch <= '9'   ? ch - '0'
                : ch >= 'a' && ch <= 'f' ? ch - 'a' + 10
                : ch >= 'A' && ch <= 'F' ? ch - 'A' + 10
                                         : -1;
        if (v < 0) return -1;
        if (i % 2 == 0)
            out[i / 2] = (uint8_t)(v << 4);
        else
            out[i / 2] |= (uint8_t)v;
    }
    return 0;
}

/* SHA-256 of n private bytes (all zero: parameters do not depend on the
 * values), the digest packed into public inputs. */
static zkpipe_status sha256_circuit_(zkp_cs *cs, size_t n_bytes) {
    zkp_bool *bits = calloc(8 * n_bytes, sizeof *bits), digest[256];
    if (!bits) return ZKPIPE_ERR_NO_MEMORY;
    for (size_t i = 0; i < 8 * n_bytes; i++) bits[i] = zkp_bool_alloc(cs, 0);
    zkp_sha256_gadget(cs, bits, 8 * n_bytes, digest);
    zkp_pack_into_inputs(cs, digest, 256);
    free(bits);
    return zkp_cs_status(cs);
}

int cli_setup(int argc, char **argv) {
    if (argc < 1 || strcmp(argv[0], "dev") != 0) {
        if (argc >= 1 && cli_is_help(argv[0])) {
            fputs(setup_usage, stdout);
            return CLI_OK;
        }
        if (argc >= 1)
            fprintf(stderr, "zkpipe setup: dev is the one subcommand, not \"%s\"\n", argv[0]);
        goto usage;
    }
    const char *circuit = NULL, *out_dir = NULL, *v = NULL;
    const char *filecoin = NULL, *sector_size = NULL, *device = "auto";
    uint64_t n_bytes = 0;
    unsigned nthreads = 0;
    int quiet = 0, have_bytes = 0, seeded = 0;
    uint8_t seed[32];
    for (int i = 1; i < argc; i++) {
        int r;
        if (cli_is_help(argv[i])) {
            fputs(setup_usage, stdout);
            return CLI_OK;
        }
        if ((r = cli_opt("setup", argc, argv, &i, "--circuit", "sha256", &v))) {
            if (r < 0) return CLI_USAGE;
            if (strcmp(v, "sha256") != 0) return cli_refused("setup", "--circuit", "sha256", v);
            circuit = v;
        } else if ((r = cli_opt("setup", argc, argv, &i, "--bytes", "1 to 4096", &v))) {
            if (r < 0) return CLI_USAGE;
            if (cli_parse_u64(v, 4096, &n_bytes) || n_bytes == 0)
                return cli_refused("setup", "--bytes", "a number from 1 to 4096", v);
            have_bytes = 1;
        } else if ((r = cli_opt("setup", argc, argv, &i, "--out", "a directory", &v))) {
            if (r < 0) return CLI_USAGE;
            out_dir = v;
        } else if ((r = cli_opt("setup", argc, argv, &i, "--seed", "64 hex digits", &v))) {
            if (r < 0) return CLI_USAGE;
            if (hex_seed_(v, seed)) return cli_refused("setup", "--seed", "64 hex digits", v);
            seeded = 1;
        } else if ((r = cli_opt("setup", argc, argv, &i, "--threads", CLI_THREADS_WANT,
                                &v))) {
            if (r < 0) return CLI_USAGE;
            if (cli_parse_threads(v, &nthreads))
                return cli_refused("setup", "--threads", CLI_THREADS_WANT, v);
        } else if ((r = cli_opt("setup", argc, argv, &i, "--filecoin", "porep", &v))) {
            if (r < 0) return CLI_USAGE;
            if (strcmp(v, "porep") != 0) return cli_refused("setup", "--filecoin", "porep", v);
            filecoin = v;
        } else if ((r = cli_opt("setup", argc, argv, &i, "--sector-size", "2KiB ... 64GiB",
                                &v))) {
            if (r < 0) return CLI_USAGE;
            sector_size = v;
        } else if ((r = cli_opt("setup", argc, argv, &i, "--device", "cpu, cuda, cuda:N or auto",
                                &v))) {
            if (r < 0) return CLI_USAGE;
            device = v;
        } else if (!strcmp(argv[i], "--quiet")) {
            quiet = 1;
        } else {
            return cli_unknown("setup", argv[i], "setup --help");
        }
    }
    /* One of the two circuits, with what it needs: a clash is named alone,
     * something missing with the usage. */
    const char *clash = circuit && filecoin      ? "--circuit and --filecoin: one or the other"
                        : circuit && sector_size ? "--sector-size goes with --filecoin porep"
                        : filecoin && have_bytes ? "--bytes goes with --circuit sha256"
                                                 : NULL;
    if (clash) {
        fprintf(stderr, "zkpipe setup: %s\n", clash);
        return CLI_USAGE;
    }
    const char *missing = !out_dir                   ? "--out is required"
                          : !circuit && !filecoin    ? "--circuit or --filecoin is required"
                          : circuit && !have_bytes   ? "--bytes is required with --circuit"
                          : filecoin && !sector_size ? "--sector-size is required with --filecoin"
                                                     : NULL;
    if (missing) {
        fprintf(stderr, "zkpipe setup: %s\n", missing);
        goto usage;
    }
    const zkp_fil_seal_proof *porep = NULL;
    if (filecoin && !(porep = cli_fil_v1_proof(sector_size))) {
        fprintf(stderr, "zkpipe setup: --sector-size %s: not one of 2KiB, 8MiB, 512MiB, 32GiB, "
                        "64GiB\n", sector_size);
        return CLI_USAGE;
    }
    zkp_fil_porep_shape shape;
    if (porep) zkp_fil_porep_shape_of(&shape, porep);

    char names[2][256], params_path[4096], vk_path[4096];
    int named = 1;
    if (porep) {
        named = zkp_fil_params_file_name(names[0], sizeof names[0], &shape, "params") &&
                zkp_fil_params_file_name(names[1], sizeof names[1], &shape, "vk");
    } else {
        snprintf(names[0], sizeof names[0], "dev-INSECURE-sha256-%llub.params",
                 (unsigned long long)n_bytes);
        snprintf(names[1], sizeof names[1], "dev-INSECURE-sha256-%llub.vk",
                 (unsigned long long)n_bytes);
    }
    if (!named ||
        (size_t)snprintf(params_path, sizeof params_path, "%s/%s", out_dir, names[0]) >=
            sizeof params_path ||
        (size_t)snprintf(vk_path, sizeof vk_path, "%s/%s", out_dir, names[1]) >= sizeof vk_path) {
        fprintf(stderr, "zkpipe setup: --out: the path is too long\n");
        return CLI_USAGE;
    }
    /* The directory is made when missing (its parent must exist), as
     * `filecoin seal --out` makes its own; the outputs are checked before
     * the work. */
    int code = cli_make_out_dir("setup", out_dir);
    if (code != CLI_OK) return code;
    zkp_output outs[2];
    const char *out_paths[2] = {params_path, vk_path};
    code = cli_outputs_open("setup", outs, out_paths, 2, NULL, 0);
    if (code != CLI_OK) return code;
    cli_outputs_close(outs, 2);

    /* The device first: a GPU asked for and not there fails before any
     * work. */
    zkp_g16_backend *be = NULL;
    zkp_diag d = {{0}};
    char fallback[ZKP_DIAG_MAX];
    zkpipe_status st = zkp_g16_backend_open(&be, device, fallback, sizeof fallback, &d);
    if (st != ZKPIPE_OK)
        return cli_fail("setup", st, &d,
                        st == ZKPIPE_ERR_INVALID_ARGUMENT ? CLI_USAGE : CLI_INVALID);
    if (fallback[0] && zkp_gpu_built() && !quiet)
        fprintf(stderr, "zkpipe setup: the points on the CPU (--device auto): %s\n", fallback);
    zkp_gpu *gpu = zkp_g16_backend_gpu(be);
    zkp_cs_csr *r = calloc(1, sizeof *r);
    if (!r) {
        zkp_g16_backend_close(be);
        return cli_fail("setup", ZKPIPE_ERR_NO_MEMORY, NULL, CLI_INVALID);
    }
    zkp_cs_csr_init(r, ZKP_CSR_MATRICES);
    double t0 = cli_now();
    char what[128];
    if (porep) {
        st = zkp_fil_porep_circuit_blank_mt(r, &shape, nthreads, &d);
        snprintf(what, sizeof what, "one partition of the %s PoRep circuit", sector_size);
    } else {
        st = sha256_circuit_(&r->cs, (size_t)n_bytes);
        snprintf(what, sizeof what, "SHA-256 of a %llu-byte message", (unsigned long long)n_bytes);
    }
    if (st == ZKPIPE_OK) st = zkp_cs_csr_finish(r);
    if (st != ZKPIPE_OK) {
        code = cli_fail("setup", st, &d, CLI_INVALID);
        goto done;
    }
    double t_synth = cli_now() - t0;
    fprintf(stderr,
            "zkpipe setup: INSECURE development parameters (never for real proofs): %s, %llu "
            "constraints (the %llu input constraints included), %llu aux variables; G1 points "
            "on the %s\n",
            what, (unsigned long long)r->n_rows, (unsigned long long)r->cs.num_inputs,
            (unsigned long long)r->cs.num_aux, gpu ? "GPU" : "CPU");
    progress_state ps = {!quiet && isatty(2), quiet, 0, cli_now()};
    zkp_dev_params_options o = {.seed = seeded ? seed : NULL,
                                .nthreads = nthreads,
                                .progress = on_progress_,
                                .progress_ctx = &ps,
                                .gpu = gpu};
    zkp_dev_params_made made;
    st = zkp_dev_params_make_files(r, &o, params_path, vk_path, &made, &d);
    if (ps.tty) fputs("\r\033[K", stderr);
    if (st != ZKPIPE_OK) {
        code = cli_fail("setup", st, &d,
                        st == ZKPIPE_ERR_IO || st == ZKPIPE_ERR_UNSUPPORTED ? CLI_CANNOT_WRITE
                                                                            : CLI_INVALID);
        goto done;
    }
    fprintf(stderr,
            "zkpipe setup: wrote INSECURE %s and %s: domain 2^%u; synthesis %.2f s, "
            "generation and writing %.2f s\n",
            params_path, vk_path, made.log_domain, t_synth, made.seconds);
done:
    zkp_cs_csr_free(r);
    free(r);
    zkp_g16_backend_close(be);
    return code;
usage:
    fputs(setup_usage, stderr);
    return CLI_USAGE;
}
