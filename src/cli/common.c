/* Helpers every subcommand shares (cli.h). */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "cli/cli.h"

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
