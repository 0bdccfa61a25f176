/* `zkpipe serve`: the proving daemon. It wraps one engine and answers two
 * gRPC services on it, cuzk.v1.ProvingEngine (Filecoin's Curio speaks it)
 * and zkpipe.v1.Prover (circom/snarkjs keys), over a unix socket and
 * optionally TCP, with Prometheus metrics and a JSON status over gRPC and
 * optionally HTTP. docs/DAEMON.md is the operator's guide. */
#ifndef ZKP_SERVER_DAEMON_H
#define ZKP_SERVER_DAEMON_H

#include <stdio.h>

#include "server/config.h"
#include "util/diag.h"

typedef struct {
    const zkp_config *cfg;
    /* Replaces the configured listeners when not NULL: "unix:///path",
     * "unix:/path" or "host:port". */
    const char *listen;
    FILE *log; /* one line per event worth an operator's eye */
} zkp_serve_opts;

/* Runs until SIGTERM or SIGINT: the first drains (no new work; live jobs
 * finish, or are cancelled when server.drain_timeout_ms passes; results
 * still waiting may be collected until then), a second exits at once.
 * Returns the process exit status: 0 after a drain, 1 on a start-up error
 * (described in d). */
int zkp_serve(const zkp_serve_opts *opts, zkp_diag *d);

#endif
