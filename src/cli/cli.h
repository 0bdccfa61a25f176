/* The zkpipe command: shared helpers of the subcommands.
 *
 * Exit codes, one table for every subcommand (README.md and --help say the
 * same):
 *   0 success (for verify: the proof is valid)
 *   1 the proof is invalid (verify: it does not verify, or a value in it is
 *     out of range: a point off the curve, a public input not below r), or
 *     it could not be made; client: the job failed or was cancelled
 *   2 usage: bad arguments, or outputs refused before any work (an output
 *     that is one of the inputs, two outputs that are one file, a block
 *     device)
 *   3 an input file is unreadable or malformed
 *   4 client only: the daemon refused the call or could not be reached
 *   5 an output cannot be written (its directory is missing or read-only,
 *     the disk is full); checked before any work where it can be, and then
 *     no output is changed
 * Every error is one line on stderr naming what failed. */
#ifndef ZKP_CLI_CLI_H
#define ZKP_CLI_CLI_H

#include <stdint.h>
#include <stdio.h>

#include "filecoin/registry.h"
#include "util/diag.h"
#include "util/fileio.h"
#include "util/util.h"
#include "zkpipe/curve.h"

enum {
    CLI_OK = 0,
    CLI_INVALID = 1,
    CLI_USAGE = 2,
    CLI_BAD_INPUT = 3,
    CLI_RPC_ERROR = 4,
    CLI_CANNOT_WRITE = 5
};

/* The table above as --help prints it. */
#define CLI_EXIT_CODES_HELP                                                                        \
    "exit codes: 0 success; 1 invalid or failed proof (client: the job failed or was\n"            \
    "            cancelled); 2 usage, or an output refused (one of the inputs, or both\n"          \
    "            outputs one file); 3 an input unreadable or malformed; 4 client: the\n"          \
    "            daemon refused the call or could not be reached; 5 an output cannot\n"           \
    "            be written\n"

/* Options that take a value accept both spellings; --help says so. */
#define CLI_OPTIONS_HELP "Options with a value may also be written --option=value.\n"

/* The benchmarks' bases of group G (curve/curve.h): g, 2g, ..., distinct·g
 * of its generator, made through tmp (distinct Jacobian points), then
 * repeated to n points in out; an MSM's cost does not depend on which
 * points it sums. 0 < distinct <= n. */
#define CLI_BENCH_BASES(G, out, n, tmp, distinct)                                                  \
    do {                                                                                           \
        size_t d_ = (distinct), n_ = (n);                                                          \
        G##_affine_t gen_;                                                                         \
        G##_generator(&gen_);                                                                      \
        G##_from_affine(&(tmp)[0], &gen_);                                                         \
        for (size_t i_ = 1; i_ < d_; i_++) G##_add_affine(&(tmp)[i_], &(tmp)[i_ - 1], &gen_);      \
        G##_batch_to_affine_var((out), (tmp), d_);                                                 \
        for (size_t i_ = d_; i_ < n_; i_++) (out)[i_] = (out)[i_ % d_];                            \
    } while (0)

/* Prints "zkpipe <cmd>: <diag or status message>" on stderr; returns code. */
int cli_fail(const char *cmd, zkpipe_status st, const zkp_diag *d, int code);

/* Parses a positive decimal thread count (1..4096). 0 on success. */
int cli_parse_threads(const char *s, unsigned *out);

/* What cli_parse_threads takes, as an option's want and a refusal say it. */
#define CLI_THREADS_WANT "a number from 1 to 4096"

/* Parses a byte size: a decimal number with an optional unit (B, K/KiB/KB,
 * M/MiB/MB, G/GiB/GB; all binary). 0 on success. */
int cli_parse_size(const char *s, uint64_t *out);

/* Parses a decimal integer from 0 to max: digits only (no sign, no
 * spaces), no overflow. 0 on success. */
int cli_parse_u64(const char *s, uint64_t max, uint64_t *out);

/* Parses a run's length in seconds, above 0 and below 10^7 (fractions
 * too), the whole string. 0 on success. */
int cli_parse_duration(const char *s, double *out);

/* What a duration wants, as a refusal (cli_refused) says it. */
#define CLI_DURATION_WANT "seconds above 0 and below 10^7"

/* Parses an option that names one of two choices: *out = 1 for s equal to
 * one, 0 for s equal to zero. 0 on success. */
int cli_parse_choice(const char *s, const char *one, const char *zero, int *out);

/* Parses a curve name as the benchmarks' --curve takes it: bn254 (or
 * bn128) and bls12381 (or bls12_381). 0 on success. */
int cli_parse_curve(const char *s, zkpipe_curve *out);

/* What --curve wants, as a refusal (cli_refused) says it. */
#define CLI_CURVE_WANT "bn254 (bn128) or bls12381 (bls12_381)"

/* For a value an option refuses: prints "zkpipe <cmd>: <name> wants <want>,
 * not "<value>"" on stderr and returns CLI_USAGE. */
int cli_refused(const char *cmd, const char *name, const char *want, const char *value);

/* For an argument a command does not know: prints "zkpipe <cmd>: unknown
 * option <arg> (see <help>)" on stderr and returns CLI_USAGE. */
int cli_unknown(const char *cmd, const char *arg, const char *help);

/* 1 when arg asks for help: --help or -h. */
int cli_is_help(const char *arg);

/* An option that takes a value, given as "--name value" or "--name=value".
 * When argv[*i] is that option: *value is its value, *i moves to the last
 * argument used, and the result is 1. 0 when argv[*i] is something else.
 * -1 when the value is missing (no argument follows, or the next one is an
 * option: it starts with "--"), after printing on stderr
 * "zkpipe <cmd>: <name> needs a value (<what>)". */
int cli_opt(const char *cmd, int argc, char **argv, int *i, const char *name, const char *what,
            const char **value);

/* Any option that takes a value, "--name value" or "--name=value", for
 * commands that look the name up themselves: name (cap bytes) receives the
 * bare name. 1 with *value set; 0 when argv[*i] is not "--" and a name
 * shorter than cap; -1 when the value is missing (said as cli_opt says it). */
int cli_opt_named(const char *cmd, int argc, char **argv, int *i, char *name, size_t cap,
                  const char *what, const char **value);

/* Makes the --out directory dir when it is missing (its parent must
 * exist). Returns CLI_OK, or prints why and returns CLI_CANNOT_WRITE. */
int cli_make_out_dir(const char *cmd, const char *dir);

/* Opens the outputs out_paths[0..n_out) into outs (zkp_output_open),
 * before any work, and refuses any that is one of the inputs
 * in_paths[0..n_in) (by device and inode: every spelling of a file) or the
 * same file as another output. Returns CLI_OK, or prints the reason and
 * returns CLI_USAGE (refused) or CLI_CANNOT_WRITE (not writable), with
 * every output closed. */
int cli_outputs_open(const char *cmd, zkp_output *outs, const char *const *out_paths,
                     size_t n_out, const char *const *in_paths, size_t n_in);

/* Stages texts[i] (lens[i] bytes) into outs[i] and commits them together:
 * all or nothing. CLI_OK, or the reason printed and CLI_CANNOT_WRITE. */
int cli_outputs_write(const char *cmd, zkp_output *outs, const char *const *texts,
                      const size_t *lens, size_t n);

/* zkp_output_close on each. */
void cli_outputs_close(zkp_output *outs, size_t n);

/* A summary written as a whole or not at all. cli_summary_open, before any
 * work, opens path as an output (stdout for "-"; CLI_OK, or the reason
 * printed and the exit code, as cli_outputs_open) and gives s->f, a stream
 * into memory; cli_summary_commit writes what was put there (through a
 * temporary file renamed over path) and closes s; cli_summary_close
 * closes it without writing. */
typedef struct {
    FILE *f;
    char *buf;
    size_t len;
    zkp_output out;
    int to_stdout;
} cli_summary;
int cli_summary_open(const char *cmd, cli_summary *s, const char *path);
int cli_summary_commit(const char *cmd, cli_summary *s);
void cli_summary_close(cli_summary *s);

/* Seconds since an arbitrary epoch (monotonic). */
double cli_now(void);

/* The median of v[0..n) (n >= 1), the mean of the middle two for even n;
 * sorts v in place, so v[0] and v[n - 1] are then the extremes. */
double cli_median(double *v, unsigned n);

/* x = a scalar uniform below r (4 limbs, little-endian, of a field of
 * `bits` bits): 256 draws of the sequence with the top bits cleared,
 * drawn again until below r. */
void cli_random_scalar(uint64_t x[4], const uint64_t r[4], unsigned bits, uint64_t *state);

int cli_prove(int argc, char **argv);
int cli_verify(int argc, char **argv);
int cli_zkey(int argc, char **argv);
int cli_info(int argc, char **argv);
/* filecoin (cmd_filecoin.c) dispatches to params (there), seal and c1
 * (cmd_filecoin_seal.c, each given the arguments after its name). */
int cli_filecoin(int argc, char **argv);
int cli_setup(int argc, char **argv);
int cli_filecoin_seal(int argc, char **argv);
int cli_filecoin_c1(int argc, char **argv);
int cli_filecoin_c2(int argc, char **argv);
int cli_filecoin_verify(int argc, char **argv);
/* The interactive V1 proof of a published sector size ("2KiB" ... "64GiB"),
 * whose circuit names the parameter files (V1_1 and synthetic PoRep share
 * them); NULL for another string. */
const zkp_fil_seal_proof *cli_fil_v1_proof(const char *size);
/* The path of the parameter file (ext "params" or "vk") of p's circuit, by
 * Filecoin's name, in dir (NULL: $FIL_PROOFS_PARAMETER_CACHE or Filecoin's
 * default cache); 0 when it does not fit in cap bytes. */
int cli_fil_params_path(char *out, size_t cap, const char *dir, const zkp_fil_seal_proof *p,
                        const char *ext);
int cli_bench(int argc, char **argv);
/* bench porep (cmd_bench_porep.c): PoRep C2 proofs of whole sectors through the engine. */
int cli_bench_porep(int argc, char **argv);
/* bench porep --daemon (cmd_bench_porep_daemon.c, in zkpipe-daemon): the same
 * sectors through a running daemon's cuzk.v1 Prove. */
int cli_bench_porep_daemon(int argc, char **argv);
/* bench msm | ntt (cmd_bench_kernels.c); what is "msm" or "ntt". */
int cli_bench_kernel(const char *what, int argc, char **argv);
/* bench prove (cmd_bench_prove.c): the device half of a PoRep-shaped partition. */
int cli_bench_prove(int argc, char **argv);
int cli_serve(int argc, char **argv);
int cli_client(int argc, char **argv);
int cli_queue(int argc, char **argv);

#endif
