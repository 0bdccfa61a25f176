/* zkpipe: the command line. See cli.h for the exit codes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli/cli.h"
#include "util/cpu.h"

static const char usage[] =
    "usage: zkpipe <command> [args]\n"
    "\n"
    "  prove <circuit.zkey> <witness.wtns> <proof.json> <public.json> [options]\n"
    "        make a Groth16 proof (snarkjs/rapidsnark zkeys, BN254 or BLS12-381)\n"
    "        --threads N    worker threads (default: every CPU)\n"
    "        --no-verify    skip checking the proof before writing it\n"
    "        --check-key    also check that every key point is in its subgroup\n"
    "        --timings      print the time of each stage\n"
    "        --quiet        no progress on the terminal\n"
    "  verify <verification_key.json> <public.json> <proof.json>\n"
    "        check a proof; prints OK (exit 0) or INVALID (exit 1)\n"
    "  zkey export-vk <circuit.zkey> <verification_key.json>\n"
    "        write the verification key in snarkjs's format\n"
    "  info <file>\n"
    "        describe a .zkey, .wtns, .r1cs or snarkjs JSON file\n"
    "  bench pipeline --key <zkey> --witness <wtns> [options]\n"
    "        prove through the engine and one after another; --help for options\n"
    "  serve [--config FILE] [--listen ADDR] [--set KEY=VALUE]... [--print-config]\n"
    "        the proving daemon (gRPC: cuzk.v1 and zkpipe.v1); --help for options\n"
    "  client [--addr ADDR] <command> ...\n"
    "        talk to a daemon: register-key, prove, submit, await, cancel, jobs,\n"
    "        status, metrics, preload, evict; --help for details\n"
    "  version\n"
    "\n"
    "exit codes: 0 success, 1 invalid or failed proof, 2 usage, 3 bad input file\n";

int cli_fail(const char *cmd, zkpipe_status st, const zkp_diag *d, int code) {
    const char *msg = d && d->msg[0] ? d->msg : zkpipe_strerror(st);
    fprintf(stderr, "zkpipe %s: %s (%s)\n", cmd, msg, zkpipe_status_name(st));
    return code;
}

int cli_parse_threads(const char *s, unsigned *out) {
    char *end;
    long v = strtol(s, &end, 10);
    if (!*s || *end || v < 1 || v > 4096) return -1;
    *out = (unsigned)v;
    return 0;
}

double cli_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int main(int argc, char **argv) {
    if (argc < 2 || !strcmp(argv[1], "help") || !strcmp(argv[1], "--help") ||
        !strcmp(argv[1], "-h")) {
        fputs(usage, argc < 2 ? stderr : stdout);
        return argc < 2 ? CLI_USAGE : CLI_OK;
    }
    const char *cmd = argv[1];
    if (!strcmp(cmd, "prove")) return cli_prove(argc - 2, argv + 2);
    if (!strcmp(cmd, "verify")) return cli_verify(argc - 2, argv + 2);
    if (!strcmp(cmd, "zkey")) return cli_zkey(argc - 2, argv + 2);
    if (!strcmp(cmd, "info")) return cli_info(argc - 2, argv + 2);
    if (!strcmp(cmd, "bench")) return cli_bench(argc - 2, argv + 2);
    if (!strcmp(cmd, "serve")) return cli_serve(argc - 2, argv + 2);
    if (!strcmp(cmd, "client")) return cli_client(argc - 2, argv + 2);
    if (!strcmp(cmd, "version") || !strcmp(cmd, "--version")) {
        printf("zkpipe %s (%s arithmetic)\n", ZKPIPE_VERSION, zkp_cpu_path_name());
        return CLI_OK;
    }
    fprintf(stderr, "zkpipe: unknown command \"%s\"\n\n%s", cmd, usage);
    return CLI_USAGE;
}
