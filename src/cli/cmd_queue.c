/* zkpipe queue: cluster mode's database (queue/queue.h): migrate, status. */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "queue/queue.h"

static const char queue_usage[] =
    "usage: zkpipe queue migrate --url URL\n"
    "       zkpipe queue status --url URL [--failed N]\n"
    "  migrate          apply the schema migrations the database lacks (safe to repeat,\n"
    "                   and to run from several machines at once)\n"
    "  status           members and their heartbeats, leases, queued jobs by priority,\n"
    "                   totals by state and the newest N failed jobs (default 20)\n"
    "  --url URL        a PostgreSQL connection string or postgresql:// URI; keep the\n"
    "                   password out of it (~/.pgpass or PGPASSFILE)\n"
    "See docs/CLUSTER.md.\n" CLI_OPTIONS_HELP;

int cli_queue(int argc, char **argv) {
    if (argc < 1 || cli_is_help(argv[0])) {
        fputs(queue_usage, argc < 1 ? stderr : stdout);
        return argc < 1 ? CLI_USAGE : CLI_OK;
    }
    const char *sub = argv[0];
    int migrate = !strcmp(sub, "migrate");
    if (!migrate && strcmp(sub, "status")) {
        fprintf(stderr, "zkpipe queue: unknown command \"%s\"\n%s", sub, queue_usage);
        return CLI_USAGE;
    }
    const char *url = NULL;
    uint64_t failed = 20;
    for (int i = 1; i < argc; i++) {
        const char *v = NULL;
        int r = 0;
        if (cli_is_help(argv[i])) {
            fputs(queue_usage, stdout);
            return CLI_OK;
        } else if ((r = cli_opt("queue", argc, argv, &i, "--url", "a connection URL", &v)) > 0) {
            url = v;
        } else if (!r && !migrate &&
                   (r = cli_opt("queue", argc, argv, &i, "--failed", "a count", &v)) > 0) {
            if (cli_parse_u64(v, 100000, &failed) != 0) {
                fprintf(stderr, "zkpipe queue: --failed takes a count from 0 to 100000\n");
                return CLI_USAGE;
            }
        } else if (r < 0) {
            return CLI_USAGE;
        } else {
            fprintf(stderr, "zkpipe queue: unexpected argument \"%s\"\n%s", argv[i], queue_usage);
            return CLI_USAGE;
        }
    }
    if (!url) {
        fprintf(stderr, "zkpipe queue %s: --url is required\n", sub);
        return CLI_USAGE;
    }
    zkp_diag d = {{0}};
    zkp_queue *q = NULL;
    zkpipe_status st = zkp_queue_connect(&q, url, &d);
    if (st != ZKPIPE_OK) return cli_fail("queue", st, &d, CLI_RPC_ERROR);
    if (migrate) {
        unsigned applied = 0, version = 0;
        st = zkp_queue_migrate(q, &applied, &d);
        if (st == ZKPIPE_OK) st = zkp_queue_schema_version(q, &version, &d);
        if (st == ZKPIPE_OK)
            printf("schema at version %u (%u migration%s applied now)\n", version, applied,
                   applied == 1 ? "" : "s");
    } else {
        st = zkp_queue_status_write(q, stdout, (unsigned)failed, &d);
    }
    zkp_queue_close(q);
    return st == ZKPIPE_OK ? CLI_OK : cli_fail("queue", st, &d, CLI_RPC_ERROR);
}
