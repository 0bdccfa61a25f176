/* Hash and SDR benchmarks: SHA-256 on both compression bodies (the
 * dispatching entry with zkp_cpu_use_sha forced for the case, so one run
 * shows both), BLAKE2b and ChaCha8 in the shapes the SDR graph calls them,
 * the graph per node, and one SDR label per operation (layer >= 2: 14
 * parents, 20 compressions) on each body. Each SHA-NI case reports 0 ns and
 * does nothing on a CPU without the extensions. */
#include <string.h>

#include "bench.h"
#include "filecoin/sdr_graph.h"
#include "filecoin/sdr_labels.h"
#include "hash/blake2b.h"
#include "hash/chacha.h"
#include "hash/sha256.h"
#include "util/cpu.h"

/* Runs body with the SHA-256 body chosen by `shani`, then restores the
 * start-up choice. Benchmarks run on one thread, so flipping the flag here
 * races with nothing. */
#define WITH_SHA_PATH(shani, body)                          \
    do {                                                    \
        if ((shani) && !zkp_cpu_has_sha_ni()) return;       \
        int saved_ = zkp_cpu_use_sha;                       \
        zkp_cpu_use_sha = (shani);                          \
        body;                                               \
        zkp_cpu_use_sha = saved_;                           \
    } while (0)

static void sha256_64_loop(uint64_t iters) {
    uint8_t buf[64] = {1};
    for (uint64_t i = 0; i < iters; i++) zkp_sha256_64(buf, buf); /* a chain: out feeds in */
    bench_consume(buf, sizeof buf);
}
static void bench_sha256_64B_portable(uint64_t iters) { WITH_SHA_PATH(0, sha256_64_loop(iters)); }
static void bench_sha256_64B_shani(uint64_t iters) { WITH_SHA_PATH(1, sha256_64_loop(iters)); }

/* 16 KiB per operation through the incremental API: the streaming rate. */
static void sha256_16k_loop(uint64_t iters) {
    static uint8_t buf[16384];
    uint8_t out[32];
    for (uint64_t i = 0; i < iters; i++) {
        zkp_sha256(out, buf, sizeof buf);
        buf[0] = out[0];
    }
    bench_consume(out, sizeof out);
}
static void bench_sha256_16KiB_portable(uint64_t iters) { WITH_SHA_PATH(0, sha256_16k_loop(iters)); }
static void bench_sha256_16KiB_shani(uint64_t iters) { WITH_SHA_PATH(1, sha256_16k_loop(iters)); }

static void bench_blake2b512_16B(uint64_t iters) {
    uint8_t in[16] = {1}, out[64];
    for (uint64_t i = 0; i < iters; i++) {
        zkp_blake2b512_16(out, in);
        memcpy(in, out, 16);
    }
    bench_consume(out, sizeof out);
}

static void bench_chacha8_block(uint64_t iters) {
    uint32_t key[8] = {1}, out[16];
    const uint32_t input[4] = {0};
    for (uint64_t i = 0; i < iters; i++) {
        zkp_chacha_block(out, key, input, 8);
        key[0] = out[0];
    }
    bench_consume(out, sizeof out);
}

/* The 32 GiB V1_1 graph (2^30 nodes): its Feistel domain needs 2^32, as
 * large a walk as any real sector. */
static const zkp_sdr_graph *bench_graph(void) {
    static zkp_sdr_graph g;
    static int ready;
    if (!ready) {
        uint8_t porep_id[32];
        zkp_fil_porep_id(porep_id, 8);
        if (zkp_sdr_graph_init(&g, 1ULL << 30, porep_id, ZKP_FIL_API_V1_1, NULL) != ZKPIPE_OK)
            return NULL;
        ready = 1;
    }
    return &g;
}

static void bench_sdr_drg_parents_32GiB(uint64_t iters) {
    const zkp_sdr_graph *g = bench_graph();
    uint32_t p[ZKP_SDR_DRG_DEGREE] = {0};
    for (uint64_t i = 0; i < iters && g; i++)
        zkp_sdr_drg_parents(g, (uint32_t)((i * 2654435761u) % g->nodes), p);
    bench_consume(p, sizeof p);
}

static void bench_sdr_exp_parents_32GiB(uint64_t iters) {
    const zkp_sdr_graph *g = bench_graph();
    uint32_t p[ZKP_SDR_EXP_DEGREE] = {0};
    for (uint64_t i = 0; i < iters && g; i++)
        zkp_sdr_exp_parents(g, (uint32_t)((i * 2654435761u) % g->nodes), p);
    bench_consume(p, sizeof p);
}

static void sdr_label_loop(uint64_t iters) {
    static uint8_t labels[ZKP_SDR_DEGREE][32];
    const uint8_t *src[ZKP_SDR_DEGREE];
    for (int j = 0; j < ZKP_SDR_DEGREE; j++) src[j] = labels[j];
    uint8_t replica_id[32] = {9};
    for (uint64_t i = 0; i < iters; i++)
        zkp_sdr_label(labels[i % ZKP_SDR_DEGREE], replica_id, 2, i + 1, src, ZKP_SDR_DEGREE);
    bench_consume(labels, sizeof labels);
}
static void bench_sdr_label_portable(uint64_t iters) { WITH_SHA_PATH(0, sdr_label_loop(iters)); }
static void bench_sdr_label_shani(uint64_t iters) { WITH_SHA_PATH(1, sdr_label_loop(iters)); }

const bench_case bench_hash_cases[] = {
    {"hash", "sha256_64B_portable", bench_sha256_64B_portable},
    {"hash", "sha256_64B_shani", bench_sha256_64B_shani},
    {"hash", "sha256_16KiB_portable", bench_sha256_16KiB_portable},
    {"hash", "sha256_16KiB_shani", bench_sha256_16KiB_shani},
    {"hash", "blake2b512_16B", bench_blake2b512_16B},
    {"hash", "chacha8_block", bench_chacha8_block},
    {"sdr", "sdr_drg_parents_32GiB", bench_sdr_drg_parents_32GiB},
    {"sdr", "sdr_exp_parents_32GiB", bench_sdr_exp_parents_32GiB},
    {"sdr", "sdr_label_portable", bench_sdr_label_portable},
    {"sdr", "sdr_label_shani", bench_sdr_label_shani},
};
const size_t bench_hash_count = sizeof bench_hash_cases / sizeof bench_hash_cases[0];
