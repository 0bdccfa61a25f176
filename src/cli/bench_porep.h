/* What bench porep's two ways of running share: the engine in this process
 * (cmd_bench_porep.c) and a daemon over cuzk.v1 (cmd_bench_porep_daemon.c,
 * in zkpipe-daemon): the sectors' C1s and the steady-state measure. */
#ifndef ZKP_CLI_BENCH_POREP_H
#define ZKP_CLI_BENCH_POREP_H

#include <stddef.h>
#include <stdint.h>

#include "filecoin/registry.h"
#include "util/diag.h"

/* More distinct sectors add nothing to what is measured and cost their C1s'
 * memory and the time to seal them. */
#define CLI_POREP_DISTINCT_MAX 8u
/* Sealing is in memory and single-threaded: beyond this, a synthetic C1. */
#define CLI_POREP_SEAL_MAX_BYTES ((uint64_t)8 << 20)

/* 64 hex digits into 32 bytes: 0, or -1 for anything else. */
int cli_parse_hex32(const char *s, uint8_t out[32]);

/* Sector i's C1 of p as JSON (*json, *len; free with zkp_free under
 * ZKP_MEM_AUX): sealed here from data drawn from seed and i up to
 * CLI_POREP_SEAL_MAX_BYTES, synthetic (INSECURE) beyond. */
ZKP_WARN_UNUSED zkpipe_status cli_porep_c1(const zkp_fil_seal_proof *p, const uint8_t seed[32],
                                           unsigned i, uint8_t **json, size_t *len, zkp_diag *d);

/* The steady-state pace: the median time between one sector's completion
 * and the next, which leaves out the pipeline's filling (the first sector
 * waits for all its partitions' synthesis; later ones overlap). 0 with
 * fewer than two sectors. done_at (completion times) is reordered. */
double cli_sector_interval_median(double *done_at, unsigned n);

#endif
