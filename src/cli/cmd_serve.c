/* zkpipe serve: the daemon (server/daemon.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "server/config.h"
#include "server/daemon.h"

static const char serve_usage[] =
    "usage: zkpipe serve [--config FILE] [--listen ADDR] [--set KEY=VALUE]... [--no-env]\n"
    "                    [--print-config]\n"
    "  --config FILE    a config file (TOML subset; see docs/DAEMON.md)\n"
    "  --listen ADDR    listen only on ADDR: unix:///path or host:port\n"
    "  --set KEY=VALUE  override one key (repeatable), e.g. --set engine.budget=64GiB\n"
    "  --no-env         ignore ZKPIPE_* environment variables\n"
    "  --print-config   print the resolved configuration with its sources, and exit\n"
    "Precedence: defaults < config file < environment < --set.\n" CLI_OPTIONS_HELP;

int cli_serve(int argc, char **argv) {
    const char *file = NULL, *listen = NULL;
    int print = 0, use_env = 1;
    const char **sets = calloc((size_t)argc + 1, sizeof *sets);
    size_t n_sets = 0;
    if (!sets) return cli_fail("serve", ZKPIPE_ERR_NO_MEMORY, NULL, CLI_INVALID);
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i], *v = NULL;
        int r = 0;
        if (cli_is_help(a)) {
            fputs(serve_usage, stdout);
            free(sets);
            return CLI_OK;
        } else if (!strcmp(a, "--print-config")) {
            print = 1;
        } else if (!strcmp(a, "--no-env")) {
            use_env = 0;
        } else if ((r = cli_opt("serve", argc, argv, &i, "--config", "a file", &v)) > 0) {
            file = v;
        } else if (!r && (r = cli_opt("serve", argc, argv, &i, "--listen",
                                      "unix:///path or host:port", &v)) > 0) {
            listen = v;
        } else if (!r && (r = cli_opt("serve", argc, argv, &i, "--set", "KEY=VALUE", &v)) > 0) {
            sets[n_sets++] = v;
        } else if (r < 0) {
            free(sets);
            return CLI_USAGE;
        } else {
            fprintf(stderr, "zkpipe serve: unexpected argument \"%s\"\n%s", a, serve_usage);
            free(sets);
            return CLI_USAGE;
        }
    }
    zkp_config_sources src = {.file = file, .use_env = use_env, .sets = sets, .n_sets = n_sets};
    zkp_config *cfg = NULL;
    zkp_diag d = {{0}};
    zkpipe_status st = zkp_config_resolve(&cfg, &src, &d);
    free(sets);
    if (st != ZKPIPE_OK) return cli_fail("serve", st, &d, CLI_USAGE);
    int rc;
    if (print) {
        st = zkp_config_print(cfg, stdout);
        rc = st == ZKPIPE_OK ? CLI_OK : cli_fail("serve", st, NULL, CLI_INVALID);
    } else {
        zkp_serve_opts o = {.cfg = cfg, .listen = listen, .log = stderr};
        rc = zkp_serve(&o, &d);
        if (rc != 0 && d.msg[0]) fprintf(stderr, "zkpipe serve: %s\n", d.msg);
    }
    zkp_config_free(cfg);
    return rc;
}
