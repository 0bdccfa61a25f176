/* Helpers every subcommand shares (cli.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>

#include "cli/cli.h"
#include "util/splitmix.h"

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

int cli_parse_size(const char *s, uint64_t *out) {
    /* strtod would also take leading spaces, a sign, "inf" and "nan" (which
     * no comparison below refuses): a size starts with a digit or a point. */
    if (!((*s >= '0' && *s <= '9') || *s == '.')) return -1;
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || errno || v < 0) return -1;
    uint64_t mul = 1;
    if (!strcmp(end, "") || !strcmp(end, "B")) mul = 1;
    else if (!strcasecmp(end, "K") || !strcasecmp(end, "KiB") || !strcasecmp(end, "KB")) mul = 1ull << 10;
    else if (!strcasecmp(end, "M") || !strcasecmp(end, "MiB") || !strcasecmp(end, "MB")) mul = 1ull << 20;
    else if (!strcasecmp(end, "G") || !strcasecmp(end, "GiB") || !strcasecmp(end, "GB")) mul = 1ull << 30;
    else return -1;
    if (v * (double)mul >= 18446744073709551616.0) return -1;
    *out = (uint64_t)(v * (double)mul);
    return 0;
}

double cli_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int cmp_double_(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

double cli_median(double *v, unsigned n) {
    qsort(v, n, sizeof *v, cmp_double_);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

void cli_random_scalar(uint64_t x[4], const uint64_t r[4], unsigned bits, uint64_t *state) {
    uint64_t mask = bits % 64 ? (~(uint64_t)0) >> (64 - bits % 64) : ~(uint64_t)0;
    for (;;) {
        for (int j = 0; j < 4; j++) x[j] = zkp_splitmix64(state);
        x[3] &= mask;
        for (int j = 3; j >= 0; j--)
            if (x[j] != r[j]) {
                if (x[j] < r[j]) return;
                break;
            }
    }
}

int cli_parse_u64(const char *s, uint64_t max, uint64_t *out) {
    if (s == NULL || *s < '0' || *s > '9') return -1;
    uint64_t v = 0;
    for (; *s; s++) {
        if (*s < '0' || *s > '9') return -1;
        unsigned digit = (unsigned)(*s - '0');
        if (v > (max - digit) / 10) return -1;
        v = v * 10 + digit;
    }
    *out = v;
    return 0;
}

int cli_parse_duration(const char *s, double *out) {
    /* strtod would also take leading spaces, a sign and "inf". */
    if (s == NULL || !((*s >= '0' && *s <= '9') || *s == '.')) return -1;
    char *end;
    double v = strtod(s, &end);
    if (*end || !(v > 0 && v < 1e7)) return -1;
    *out = v;
    return 0;
}

int cli_parse_choice(const char *s, const char *one, const char *zero, int *out) {
    if (s == NULL) return -1;
    if (!strcmp(s, one)) *out = 1;
    else if (!strcmp(s, zero)) *out = 0;
    else return -1;
    return 0;
}

int cli_parse_curve(const char *s, zkpipe_curve *out) {
    if (s == NULL) return -1;
    if (!strcmp(s, "bn254") || !strcmp(s, "bn128")) *out = ZKPIPE_CURVE_BN254;
    else if (!strcmp(s, "bls12381") || !strcmp(s, "bls12_381")) *out = ZKPIPE_CURVE_BLS12_381;
    else return -1;
    return 0;
}

int cli_refused(const char *cmd, const char *name, const char *want, const char *value) {
    fprintf(stderr, "zkpipe %s: %s wants %s, not \"%s\"\n", cmd, name, want, value);
    return CLI_USAGE;
}

int cli_unknown(const char *cmd, const char *arg, const char *help) {
    fprintf(stderr, "zkpipe %s: unknown option %s (see %s)\n", cmd, arg, help);
    return CLI_USAGE;
}

int cli_is_help(const char *arg) { return !strcmp(arg, "--help") || !strcmp(arg, "-h"); }

int cli_opt(const char *cmd, int argc, char **argv, int *i, const char *name, const char *what,
            const char **value) {
    const char *a = argv[*i];
    size_t n = strlen(name);
    if (strncmp(a, name, n) != 0) return 0;
    if (a[n] == '=') {
        *value = a + n + 1;
        return 1;
    }
    if (a[n] != '\0') return 0;
    if (*i + 1 >= argc || !strncmp(argv[*i + 1], "--", 2)) {
        fprintf(stderr, "zkpipe %s: %s needs a value (%s)\n", cmd, name, what);
        return -1;
    }
    *value = argv[++*i];
    return 1;
}

int cli_opt_named(const char *cmd, int argc, char **argv, int *i, char *name, size_t cap,
                  const char *what, const char **value) {
    const char *a = argv[*i], *eq = strchr(a, '=');
    size_t n = eq ? (size_t)(eq - a) : strlen(a);
    if (a[0] != '-' || a[1] != '-' || n >= cap) return 0;
    memcpy(name, a, n);
    name[n] = '\0';
    return cli_opt(cmd, argc, argv, i, name, what, value) == 1 ? 1 : -1;
}

int cli_make_out_dir(const char *cmd, const char *dir) {
    if (mkdir(dir, 0777) == 0 || errno == EEXIST) return CLI_OK;
    fprintf(stderr, "zkpipe %s: --out %s: cannot make the directory: %s\n", cmd, dir,
            strerror(errno));
    return CLI_CANNOT_WRITE;
}

int cli_outputs_open(const char *cmd, zkp_output *outs, const char *const *out_paths,
                     size_t n_out, const char *const *in_paths, size_t n_in) {
    memset(outs, 0, n_out * sizeof *outs);
    for (size_t k = 0; k < n_out; k++) {
        zkp_diag d = {{0}};
        zkpipe_status st = zkp_output_open(&outs[k], out_paths[k], &d);
        if (st != ZKPIPE_OK) {
            cli_outputs_close(outs, k);
            return cli_fail(cmd, st, &d,
                            st == ZKPIPE_ERR_INVALID_ARGUMENT || st == ZKPIPE_ERR_UNSUPPORTED
                                ? CLI_USAGE
                                : CLI_CANNOT_WRITE);
        }
        /* Writing over an input would destroy it, and two outputs in one
         * file would lose the first: both are refused before any work. */
        for (size_t j = 0; j < n_in; j++) {
            if (zkp_output_is(&outs[k], in_paths[j])) {
                fprintf(stderr, "zkpipe %s: the output %s is the input %s; refusing to overwrite it\n",
                        cmd, out_paths[k], in_paths[j]);
                cli_outputs_close(outs, k + 1);
                return CLI_USAGE;
            }
        }
        for (size_t j = 0; j < k; j++) {
            if (zkp_output_same(&outs[k], &outs[j])) {
                fprintf(stderr, "zkpipe %s: the outputs %s and %s are the same file\n", cmd,
                        out_paths[j], out_paths[k]);
                cli_outputs_close(outs, k + 1);
                return CLI_USAGE;
            }
        }
    }
    return CLI_OK;
}

int cli_outputs_write(const char *cmd, zkp_output *outs, const char *const *texts,
                      const size_t *lens, size_t n) {
    zkp_diag d = {{0}};
    zkpipe_status st = ZKPIPE_OK;
    for (size_t k = 0; k < n && st == ZKPIPE_OK; k++)
        st = zkp_output_stage(&outs[k], texts[k], lens[k], &d);
    if (st == ZKPIPE_OK) st = zkp_output_commit(outs, n, &d);
    if (st != ZKPIPE_OK) return cli_fail(cmd, st, &d, CLI_CANNOT_WRITE);
    return CLI_OK;
}

void cli_outputs_close(zkp_output *outs, size_t n) {
    for (size_t k = 0; k < n; k++) zkp_output_close(&outs[k]);
}

int cli_summary_open(const char *cmd, cli_summary *s, const char *path) {
    memset(s, 0, sizeof *s);
    s->to_stdout = !strcmp(path, "-");
    int rc = s->to_stdout ? CLI_OK : cli_outputs_open(cmd, &s->out, &path, 1, NULL, 0);
    if (rc != CLI_OK) return rc;
    s->f = open_memstream(&s->buf, &s->len);
    if (!s->f) {
        if (!s->to_stdout) cli_outputs_close(&s->out, 1);
        return cli_fail(cmd, ZKPIPE_ERR_NO_MEMORY, NULL, CLI_CANNOT_WRITE);
    }
    return CLI_OK;
}

int cli_summary_commit(const char *cmd, cli_summary *s) {
    int rc = fclose(s->f) != 0 ? cli_fail(cmd, ZKPIPE_ERR_NO_MEMORY, NULL, CLI_CANNOT_WRITE)
                               : CLI_OK;
    s->f = NULL;
    if (rc == CLI_OK && s->to_stdout) {
        if (fwrite(s->buf, 1, s->len, stdout) != s->len || fflush(stdout) != 0) {
            fprintf(stderr, "zkpipe %s: cannot write the summary to stdout\n", cmd);
            rc = CLI_CANNOT_WRITE;
        }
    } else if (rc == CLI_OK) {
        const char *text = s->buf;
        rc = cli_outputs_write(cmd, &s->out, &text, &s->len, 1);
    }
    cli_summary_close(s);
    return rc;
}

void cli_summary_close(cli_summary *s) {
    if (s->f) fclose(s->f);
    s->f = NULL;
    if (!s->to_stdout) cli_outputs_close(&s->out, 1);
    s->to_stdout = 1; /* nothing left to close */
    free(s->buf);
    s->buf = NULL;
}
