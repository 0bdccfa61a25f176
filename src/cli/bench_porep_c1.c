/* bench porep's C1s and steady-state measure (bench_porep.h). */
#include "cli/bench_porep.h"

#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "filecoin/c1.h"
#include "filecoin/seal.h"
#include "util/splitmix.h"

static int hex_digit_(char c) {
    return c >= '0' && c <= '9' ? c - '0'
           : c >= 'a' && c <= 'f' ? c - 'a' + 10
           : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                  : -1;
}

int cli_parse_hex32(const char *s, uint8_t out[32]) {
    if (strlen(s) != 64) return -1;
    for (int i = 0; i < 64; i += 2) {
        int hi = hex_digit_(s[i]), lo = hex_digit_(s[i + 1]);
        if (hi < 0 || lo < 0) return -1;
        out[i / 2] = (uint8_t)(hi << 4 | lo);
    }
    return 0;
}

/* 32 bytes of the sequence: each sector's values differ, and a run is
 * repeatable from --seed. */
static void fill32_(uint8_t out[32], uint64_t *state) {
    for (int i = 0; i < 32; i += 8) {
        uint64_t x = zkp_splitmix64(state);
        memcpy(out + i, &x, 8);
    }
}

zkpipe_status cli_porep_c1(const zkp_fil_seal_proof *p, const uint8_t seed[32], unsigned i,
                           uint8_t **json, size_t *len, zkp_diag *d) {
    uint64_t state;
    memcpy(&state, seed, 8);
    state ^= 0x5eed0000u + i;
    for (int k = 8; k < 32; k += 8) {
        uint64_t x;
        memcpy(&x, seed + k, 8);
        state = state * 31 + x;
    }
    zkp_fil_c1 c1;
    memset(&c1, 0, sizeof c1);
    zkpipe_status st;
    if (p->sector_bytes <= CLI_POREP_SEAL_MAX_BYTES) {
        zkp_fil_seal_inputs in;
        memset(&in, 0, sizeof in);
        in.proof = p;
        in.sector_id = i + 1;
        fill32_(in.prover_id, &state);
        fill32_(in.ticket, &state);
        fill32_(in.seed, &state);
        uint8_t *data = malloc((size_t)p->sector_bytes);
        if (!data) return zkp_diag_fail(d, ZKPIPE_ERR_NO_MEMORY, "no memory for a sector");
        for (uint64_t off = 0; off < p->sector_bytes; off += 32) {
            fill32_(data + off, &state);
            data[off + 31] &= 0x3f; /* fr32: every node below 2^254 */
        }
        st = zkp_fil_seal(&c1, NULL, &in, data, NULL, ZKP_MEM_AUX, d);
        free(data);
    } else {
        uint8_t s[32];
        fill32_(s, &state);
        st = zkp_fil_c1_synthesize(&c1, p, s, NULL, ZKP_MEM_AUX, d);
    }
    if (st == ZKPIPE_OK) st = zkp_fil_c1_write(&c1, json, len, NULL, ZKP_MEM_AUX, d);
    zkp_fil_c1_free(&c1);
    return st;
}

double cli_sector_interval_median(double *done_at, unsigned n) {
    if (n < 2) return 0;
    cli_median(done_at, n); /* sorts */
    for (unsigned i = 0; i + 1 < n; i++) done_at[i] = done_at[i + 1] - done_at[i];
    return cli_median(done_at, n - 1);
}
