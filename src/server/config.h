/* The daemon's configuration: one table of keys, four layered sources.
 *
 * Every setting of `zkpipe serve` is a row of one table (name, type, default,
 * limits, help). A resolved configuration takes each key from the highest of
 *
 *     defaults < config file < environment < command-line overrides
 *
 * and remembers where each value came from, for --print-config.
 *
 * The file is a TOML subset: [section] headers; key = value lines whose
 * value is a "string" (escapes \" \\ \n \t), an integer, true/false, or an
 * array of strings (which may span lines); # comments. A size key takes an
 * integer (bytes) or a string with a unit: "64GiB", "512 MiB", "1000KB"
 * (B, KiB, MiB, GiB, TiB, KB, MB, GB, TB). Input is limited to
 * ZKP_CONFIG_MAX_INPUT bytes.
 *
 * Environment variables are named after the key: engine.budget is
 * ZKPIPE_ENGINE_BUDGET. Their values and override values ("--set
 * engine.budget=64GiB", passed in as "engine.budget=64GiB") are plain text:
 * a string as is, an integer, true/false (also 1/0, yes/no, on/off), a size,
 * or an array as comma-separated items (or a TOML array starting with '[').
 *
 * Errors: ZKPIPE_ERR_PARSE for syntax (and malformed sizes),
 * ZKPIPE_ERR_OUT_OF_RANGE for values outside a key's limits, overflowing
 * numbers and oversized input, ZKPIPE_ERR_INVALID_ARGUMENT for unknown keys,
 * wrong types and duplicates, ZKPIPE_ERR_IO for an unreadable file. The
 * zkp_diag message names the place ("zkpipe.toml:3:11: ..." or
 * "environment ZKPIPE_ENGINE_BUDGET: ...") and the key. Every load is
 * all-or-nothing: on failure the configuration is unchanged. */
#ifndef ZKP_SERVER_CONFIG_H
#define ZKP_SERVER_CONFIG_H

#include <stdint.h>
#include <stdio.h>

#include "util/diag.h"
#include "util/util.h"

#define ZKP_CONFIG_MAX_INPUT ((size_t)1 << 20)    /* file / value bytes */
#define ZKP_CONFIG_MAX_ARRAY 4096                 /* elements of an array */

typedef enum {
    ZKP_CFG_STRING,
    ZKP_CFG_INT,
    ZKP_CFG_BOOL,
    ZKP_CFG_SIZE,    /* bytes, uint64; units allowed */
    ZKP_CFG_STRINGS, /* array of strings */
} zkp_cfg_type;

typedef enum {
    ZKP_CFG_SRC_DEFAULT,
    ZKP_CFG_SRC_FILE,
    ZKP_CFG_SRC_ENV,
    ZKP_CFG_SRC_CLI,
} zkp_cfg_source;

/* Key ids: the index of each key in the table. */
typedef enum {
    ZKP_CFG_SERVER_SOCKET,       /* string: unix socket path ("" = <runtime_dir>/zkpipe.sock) */
    ZKP_CFG_SERVER_TCP,          /* string: host:port, "" = no TCP */
    ZKP_CFG_SERVER_RUNTIME_DIR,  /* string */
    ZKP_CFG_SERVER_MAX_MESSAGE,  /* size, default 256 MiB */
    ZKP_CFG_SERVER_KEYS,         /* strings, each "name=path" */
    ZKP_CFG_SERVER_DRAIN_TIMEOUT_MS, /* int: SIGTERM waits this long for live jobs */
    ZKP_CFG_SERVER_RESULT_TTL_MS,    /* int: results kept for awaiting */
    ZKP_CFG_SERVER_MAX_JOBS,     /* int: jobs in the table, live or awaiting collection */
    ZKP_CFG_ENGINE_BUDGET,       /* size, 0 = detect */
    ZKP_CFG_ENGINE_SYNTHESIS_WORKERS, /* int, 0 = auto */
    ZKP_CFG_ENGINE_DEVICE_WORKERS,    /* int, 0 = auto */
    ZKP_CFG_ENGINE_DEVICE_THREADS,   /* int, 0 = every CPU */
    ZKP_CFG_ENGINE_FINALIZE_WORKERS,  /* int, 0 = auto */
    ZKP_CFG_ENGINE_VERIFY,       /* bool */
    ZKP_CFG_METRICS_HTTP,        /* string: host:port, "" = off */
    ZKP_CFG_METRICS_POLL_MS,     /* int: RSS sampler period */
    ZKP_CFG_ENGINE_DEVICE,       /* string: cpu, cuda or auto */
    ZKP_CFG_ENGINE_DEVICES,      /* int: GPUs to use, 0 = every one */
    ZKP_CFG_SERVER_KEY_DIRS,     /* strings: directories RegisterKey may open files under */
    ZKP_CFG_SERVER_ALLOW_INSECURE_TCP, /* bool: listen on a non-loopback TCP address */
    ZKP_CFG_SERVER_TLS_CERT,        /* string: PEM certificate chain of TCP, "" = no TLS */
    ZKP_CFG_SERVER_TLS_KEY,         /* string: PEM private key of tls_cert */
    ZKP_CFG_SERVER_TLS_CLIENT_CA,   /* string: PEM CAs of client certificates, "" = none */
    ZKP_CFG_SERVER_AUTH_TOKEN_FILE, /* string: file of the TCP bearer token, "" = none */
    ZKP_CFG_QUEUE_URL,          /* string: PostgreSQL of cluster mode, "" = standalone */
    ZKP_CFG_QUEUE_INPUTS_DIR,   /* string: shared directory of large inputs, "" = none */
    ZKP_CFG_QUEUE_LEASE_MS,     /* int: a claim's lease, renewed at a third of it */
    ZKP_CFG_QUEUE_MAX_CLAIMS,   /* int: jobs of the queue this member runs at once */
    ZKP_CFG_QUEUE_MAX_ATTEMPTS, /* int: claims of a job before it fails */
    ZKP_CFG_QUEUE_IDLE_MS,      /* int: claim attempts of an idle member are this far apart */
    ZKP_CFG_QUEUE_INLINE_MAX,   /* size: inputs up to this go into the database, larger to inputs_dir */
    ZKP_CFG_FILECOIN_PARAMS_DIR, /* string: Filecoin's parameter files, "" = Filecoin's own lookup */
    ZKP_CFG_FILECOIN_CHECK_SUBGROUPS, /* bool: decode the parameters with subgroup checks */
    ZKP_CFG_ENGINE_VRAM_BUDGET,  /* size: device memory per GPU, 0 = the whole device */
    ZKP_CFG_ENGINE_ABC_ON_HOST,  /* bool: a, b, c made in host memory even on GPUs */
    ZKP_CFG_QUEUE_NOTIFY,        /* string: on (LISTEN/NOTIFY) or off (re-read on a timer) */
    ZKP_CFG_QUEUE_POLL_MS,       /* int: the timer of queue.notify = off */
    ZKP_CFG_ENGINE_POOL_IDLE_MAX, /* size: idle pooled memory kept, 0 = the engine's default */
    ZKP_CFG_KEY_COUNT
} zkp_cfg_id;

typedef struct {
    const char *name; /* "section.key" */
    zkp_cfg_type type;
    const char *def_str; /* default of a STRING key */
    int64_t def_num;     /* default of INT, BOOL (0/1), SIZE */
    int64_t min, max;    /* INT limits */
    uint64_t umin, umax; /* SIZE limits */
    const char *help;
} zkp_cfg_key;

typedef struct zkp_config zkp_config;

/* The table. id must be < ZKP_CFG_KEY_COUNT. */
const zkp_cfg_key *zkp_config_key(zkp_cfg_id id);
/* Id of a key by full name, or -1. */
int zkp_config_find(const char *name);
/* "ZKPIPE_ENGINE_BUDGET" for engine.budget, into buf (64 bytes suffice). */
void zkp_config_env_name(zkp_cfg_id id, char *buf, size_t cap);

/* A configuration holding every default. */
zkpipe_status zkp_config_new(zkp_config **out);
void zkp_config_free(zkp_config *cfg);

/* Loads file text (origin names it in messages; may be NULL). */
zkpipe_status zkp_config_load_text(zkp_config *cfg, const char *text, size_t len,
                                   const char *origin, zkp_diag *d);
zkpipe_status zkp_config_load_file(zkp_config *cfg, const char *path, zkp_diag *d);
/* Reads ZKPIPE_<KEY> variables from envp ("NAME=value" strings, NULL-ended),
 * or from the process environment when envp is NULL. Other variables,
 * including unknown ZKPIPE_* ones, are ignored. */
zkpipe_status zkp_config_load_env(zkp_config *cfg, const char *const *envp, zkp_diag *d);
/* Applies "key=value" overrides in order (a later one for the same key wins). */
zkpipe_status zkp_config_apply_sets(zkp_config *cfg, const char *const *sets, size_t n,
                                    zkp_diag *d);

typedef struct {
    const char *file;        /* NULL: no config file */
    int use_env;             /* read the environment at all */
    const char *const *envp; /* NULL: the process environment */
    const char *const *sets; /* command-line overrides */
    size_t n_sets;
} zkp_config_sources;

/* defaults < file < environment < overrides, in one call. */
zkpipe_status zkp_config_resolve(zkp_config **out, const zkp_config_sources *src, zkp_diag *d);

/* Typed getters; the id's type must match (checked in ZKP_VERIFY builds;
 * otherwise a mismatch reads as 0 / "" / empty). Strings are owned by cfg. */
const char *zkp_config_str(const zkp_config *cfg, zkp_cfg_id id);
int64_t zkp_config_int(const zkp_config *cfg, zkp_cfg_id id);
int zkp_config_bool(const zkp_config *cfg, zkp_cfg_id id);
uint64_t zkp_config_size(const zkp_config *cfg, zkp_cfg_id id);
size_t zkp_config_strings(const zkp_config *cfg, zkp_cfg_id id, const char *const **items);
zkp_cfg_source zkp_config_source(const zkp_config *cfg, zkp_cfg_id id);
/* "default", "file", "env", "cli". */
const char *zkp_config_source_name(zkp_cfg_source s);

/* Parses a size ("64GiB", "512 MiB", "4096", "1KB"): digits, optional
 * spaces, optional unit. ERR_PARSE when malformed, ERR_OUT_OF_RANGE on
 * overflow of 64 bits. */
zkpipe_status zkp_config_parse_size(const char *s, size_t len, uint64_t *out);

#define ZKP_CONFIG_DUMP_SOURCES 1u /* "# from env ZKPIPE_..." after each value */
#define ZKP_CONFIG_DUMP_HELP 2u    /* the help text above each key */

/* The resolved configuration as a config file (which loads back to the same
 * values). Returns a malloc'd string, NULL when out of memory. */
char *zkp_config_dump(const zkp_config *cfg, unsigned flags);
/* zkp_config_dump(cfg, SOURCES | HELP) to f, for `zkpipe serve --print-config`. */
zkpipe_status zkp_config_print(const zkp_config *cfg, FILE *f);

#endif
