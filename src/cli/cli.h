/* The zkpipe command: shared helpers of the subcommands.
 *
 * Exit codes: 0 success (for verify: the proof is valid), 1 the proof is
 * invalid or could not be made, 2 a usage error, 3 an input file is
 * unreadable or malformed. Every error is one line on stderr naming what
 * failed. */
#ifndef ZKP_CLI_CLI_H
#define ZKP_CLI_CLI_H

#include "util/diag.h"
#include "util/util.h"

enum { CLI_OK = 0, CLI_INVALID = 1, CLI_USAGE = 2, CLI_BAD_INPUT = 3 };

/* Prints "zkpipe <cmd>: <diag or status message>" on stderr; returns code. */
int cli_fail(const char *cmd, zkpipe_status st, const zkp_diag *d, int code);

/* Parses a positive decimal thread count (1..4096). 0 on success. */
int cli_parse_threads(const char *s, unsigned *out);

/* Seconds since an arbitrary epoch (monotonic). */
double cli_now(void);

int cli_prove(int argc, char **argv);
int cli_verify(int argc, char **argv);
int cli_zkey(int argc, char **argv);
int cli_info(int argc, char **argv);
int cli_bench(int argc, char **argv);
/* bench msm | ntt (cmd_bench_kernels.c); what is "msm" or "ntt". */
int cli_bench_kernel(const char *what, int argc, char **argv);
/* bench prove (cmd_bench_prove.c): the device half of a PoRep-shaped partition. */
int cli_bench_prove(int argc, char **argv);
int cli_serve(int argc, char **argv);
int cli_client(int argc, char **argv);

#endif
