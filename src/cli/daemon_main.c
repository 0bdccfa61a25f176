/* zkpipe-daemon: `zkpipe serve`, `zkpipe client`, `zkpipe queue` and
 * `zkpipe bench porep --daemon`, which
 * `zkpipe` runs through this program so that only it links gRPC and libpq. */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "gpu/gpu.h"

int main(int argc, char **argv) {
    /* The daemon's engine lives long: its kernels belong in its baseline. */
    zkp_gpu_prefer_eager_loading();
    if (argc >= 2 && !strcmp(argv[1], "serve")) return cli_serve(argc - 2, argv + 2);
    if (argc >= 2 && !strcmp(argv[1], "client")) return cli_client(argc - 2, argv + 2);
    if (argc >= 2 && !strcmp(argv[1], "queue")) return cli_queue(argc - 2, argv + 2);
    if (argc >= 3 && !strcmp(argv[1], "bench") && !strcmp(argv[2], "porep"))
        return cli_bench_porep_daemon(argc - 3, argv + 3);
    fprintf(stderr,
            "usage: zkpipe serve ... | zkpipe client ... | zkpipe queue ...  (zkpipe --help)\n");
    return CLI_USAGE;
}
