/* zkpipe: the command line. See cli.h for the exit codes. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "gpu/gpu.h"
#include "util/cpu.h"
#include "util/fault.h"

static const char usage[] =
    "usage: zkpipe <command> [args]\n"
    "\n"
    "  prove <circuit.zkey> <witness.wtns> <proof.json> <public.json> [options]\n"
    "        make a Groth16 proof (snarkjs/rapidsnark zkeys, BN254 or BLS12-381)\n"
    "        --device D     cpu, cuda, cuda:N or auto (default: a GPU if there is one)\n"
    "        --threads N    worker threads, 1 to 4096 (default: every CPU)\n"
    "        --no-verify    skip checking the proof before writing it\n"
    "        --check-key    also check that every key point is in its subgroup\n"
    "        --timings      print the time of each stage\n"
    "        --quiet        no progress on the terminal\n"
    "  verify <verification_key.json> <public.json> <proof.json>\n"
    "        check a proof; prints OK (exit 0) or INVALID (exit 1)\n"
    "  zkey export-vk <circuit.zkey> <verification_key.json>\n"
    "        write the verification key in snarkjs's format\n"
    "  info <file>\n"
    "        describe a .zkey, .wtns, .r1cs or snarkjs JSON file, or bellperson's .vk,\n"
    "        .params or 192-byte proofs\n"
    "  filecoin seal --sector-size <size> --data <file> ... --out <dir>\n"
    "        seal a test sector: its replica and C1 JSON; --help for options\n"
    "  filecoin c1 synth --sector-size <size> --out <c1.json> | c1 verify <c1.json>\n"
    "        a synthetic C1 (INSECURE: benchmarks and tests only); the vanilla verifier\n"
    "  filecoin params inspect <file.params> [--check]\n"
    "        the section lengths of a bellperson .params file; --check every point\n"
    "  filecoin params from-zkey <key.zkey> <out.params> <out.vk>\n"
    "        write a BLS12-381 zkey in bellperson's layout\n"
    "  filecoin params locate --sector-size <size>\n"
    "        where Filecoin keeps a sector size's PoRep parameters, as it names them\n"
    "  setup dev --circuit sha256 --bytes N --out <dir> [--seed HEX]\n"
    "        INSECURE Groth16 parameters for a built-in circuit, as bellperson's .params\n"
    "        and .vk (tests and development only; Filecoin's PoRep comes with its circuit)\n"
    "  bench pipeline --key <zkey> --witness <wtns> [options]\n"
    "  bench pipeline --synthetic <curve>:<log2> [options]\n"
    "        prove through the engine and one after another, on files or on a built-in\n"
    "        synthetic circuit of 2^log2 rows; --help for options\n"
    "  bench synthetic <curve>:<log2> <out-dir> [--witnesses N] [--seed S]\n"
    "        write a synthetic circuit.zkey and witnesses (INSECURE key: benchmarks only)\n"
    "  bench msm|ntt --curve <c> --log <L,...> [--device cpu|cuda|cuda:N|auto]\n"
    "        one kernel on the CPU and on a GPU, checked against each other\n"
    "  bench prove [--curve <c>] [--log <L>] [--device ...]\n"
    "        the device half of a PoRep-shaped partition, stage by stage\n"
    "  bench porep --sector-size <size> [--params DIR] [--sectors N] [options]\n"
    "        Filecoin PoRep C2 of whole sectors through the engine, every proof verified\n"
    "  serve [--config FILE] [--listen ADDR] [--set KEY=VALUE]... [--print-config]\n"
    "        the proving daemon (gRPC: cuzk.v1 and zkpipe.v1); --help for options\n"
    "  client [--addr ADDR] <command> ...\n"
    "        talk to a daemon: register-key, prove, submit, await, cancel, jobs,\n"
    "        status, metrics, preload, evict; --help for details\n"
    "  queue migrate|status --url URL\n"
    "        cluster mode's PostgreSQL queue: apply the schema, show members, leases,\n"
    "        depth and failed jobs (docs/CLUSTER.md)\n"
    "  version\n"
    "\n"
    "Every command takes --help. " CLI_OPTIONS_HELP CLI_EXIT_CODES_HELP;

/* serve, client and queue live in the sibling program zkpipe-daemon, so that this
 * one does not load gRPC and its ~60 shared libraries for every proof.
 * Like git's subcommands, the sibling is found next to this executable. */
static int exec_daemon_(int argc, char **argv) {
    char self[4096];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 32);
    if (n <= 0) {
        fprintf(stderr, "zkpipe: cannot find my own executable: %s\n", strerror(errno));
        return CLI_USAGE;
    }
    self[n] = 0;
    char *slash = strrchr(self, '/');
    strcpy(slash ? slash + 1 : self, "zkpipe-daemon");
    argv[0] = self;
    (void)argc;
    execv(self, argv);
    fprintf(stderr, "zkpipe: cannot run %s: %s\n", self, strerror(errno));
    return CLI_USAGE;
}

int main(int argc, char **argv) {
    if (argc < 2 || !strcmp(argv[1], "help") || !strcmp(argv[1], "--help") ||
        !strcmp(argv[1], "-h")) {
        fputs(usage, argc < 2 ? stderr : stdout);
        return argc < 2 ? CLI_USAGE : CLI_OK;
    }
    const char *cmd = argv[1];
    /* The engine's commands (the daemon, the pipeline benchmark) measure
     * the engine's memory against a baseline that should hold the kernels;
     * a one-shot proof starts faster loading only those it runs. */
    if (!strcmp(cmd, "serve") || !strcmp(cmd, "bench")) zkp_gpu_prefer_eager_loading();
    if (!strcmp(cmd, "prove")) return cli_prove(argc - 2, argv + 2);
    if (!strcmp(cmd, "verify")) return cli_verify(argc - 2, argv + 2);
    if (!strcmp(cmd, "zkey")) return cli_zkey(argc - 2, argv + 2);
    if (!strcmp(cmd, "info")) return cli_info(argc - 2, argv + 2);
    if (!strcmp(cmd, "filecoin")) return cli_filecoin(argc - 2, argv + 2);
    if (!strcmp(cmd, "setup")) return cli_setup(argc - 2, argv + 2);
    if (!strcmp(cmd, "bench")) {
        /* Through a daemon, the bench talks gRPC: the sibling runs it. */
        if (argc > 2 && !strcmp(argv[2], "porep"))
            for (int i = 3; i < argc; i++)
                if (!strcmp(argv[i], "--daemon") || !strncmp(argv[i], "--daemon=", 9))
                    return exec_daemon_(argc, argv);
        return cli_bench(argc - 2, argv + 2);
    }
    if (!strcmp(cmd, "serve") || !strcmp(cmd, "client") || !strcmp(cmd, "queue"))
        return exec_daemon_(argc, argv);
    if (!strcmp(cmd, "version") || !strcmp(cmd, "--version")) {
        if (argc > 2 && cli_is_help(argv[2])) {
            printf("usage: zkpipe version\nPrints the version and the arithmetic path in use.\n");
            return CLI_OK;
        }
        printf("zkpipe %s (%s arithmetic)\n", ZKPIPE_VERSION, zkp_cpu_path_name());
        /* On stdout too, where a script that records the version looks. */
        const char *fault = zkp_fault_warning();
        if (fault) printf("%s\n", fault);
        return CLI_OK;
    }
    fprintf(stderr, "zkpipe: unknown command \"%s\"\n\n%s", cmd, usage);
    return CLI_USAGE;
}
