/* zkpipe-daemon: `zkpipe serve` and `zkpipe client`, which `zkpipe` runs
 * through this program so that only it links gRPC. */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"

int main(int argc, char **argv) {
    if (argc >= 2 && !strcmp(argv[1], "serve")) return cli_serve(argc - 2, argv + 2);
    if (argc >= 2 && !strcmp(argv[1], "client")) return cli_client(argc - 2, argv + 2);
    fprintf(stderr, "usage: zkpipe serve ... | zkpipe client ...  (zkpipe --help)\n");
    return CLI_USAGE;
}
