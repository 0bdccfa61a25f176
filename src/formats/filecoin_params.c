/* Filecoin's parameter file names. See filecoin_params.h. */
#include "formats/filecoin_params.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* filecoin-proofs constants.rs: layers and challenges per sector size;
 * the tree shapes of the published sizes. */
static const zkp_fil_porep_size fil_sizes[] = {
    {(uint64_t)2 << 10, "2KiB", (uint64_t)1 << 6, 2, 2, 1, "8-0-0"},
    {(uint64_t)8 << 20, "8MiB", (uint64_t)1 << 18, 2, 2, 1, "8-0-0"},
    {(uint64_t)512 << 20, "512MiB", (uint64_t)1 << 24, 2, 2, 1, "8-0-0"},
    {(uint64_t)32 << 30, "32GiB", (uint64_t)1 << 30, 11, 18, 10, "8-8-0"},
    {(uint64_t)64 << 30, "64GiB", (uint64_t)1 << 31, 11, 18, 10, "8-8-2"},
};

const zkp_fil_porep_size *zkp_fil_porep_sizes(size_t *n) {
    *n = sizeof fil_sizes / sizeof fil_sizes[0];
    return fil_sizes;
}

const zkp_fil_porep_size *zkp_fil_porep_size_find(uint64_t sector_size) {
    for (size_t i = 0; i < sizeof fil_sizes / sizeof fil_sizes[0]; i++)
        if (fil_sizes[i].sector_size == sector_size) return &fil_sizes[i];
    return NULL;
}

/* snprintf's length when it fit, else 0. */
static size_t fil_fit(int n, size_t cap) { return n >= 0 && (size_t)n < cap ? (size_t)n : 0; }

size_t zkp_fil_params_identifier(char *out, size_t cap, const zkp_fil_porep_size *s) {
    /* The Display impls of rust-fil-proofs' public params, verbatim: note
     * the missing comma after expansion_degree. */
    int n = snprintf(out, cap,
                     "layered_drgporep::PublicParams{ graph: stacked_graph::StackedGraph{"
                     "expansion_degree: 8 base_graph: drgraph::BucketGraph{size: %" PRIu64
                     "; degree: 6; hasher: poseidon_hasher} }, challenges: LayerChallenges { "
                     "layers: %u, max_count: %u }, tree: merkletree-poseidon_hasher-%s }",
                     s->nodes, s->layers, s->challenges, s->shape);
    return fil_fit(n, cap);
}

size_t zkp_fil_params_file_name(char *out, size_t cap, const zkp_fil_porep_size *s,
                                const uint8_t identifier_sha256[32], const char *ext) {
    char hex[65];
    for (int i = 0; i < 32; i++) snprintf(hex + 2 * i, 3, "%02x", identifier_sha256[i]);
    int n = snprintf(out, cap,
                     "v%d-stacked-proof-of-replication-merkletree-poseidon_hasher-%s-sha256_hasher-"
                     "%s.%s",
                     ZKP_FIL_PARAMS_VERSION, s->shape, hex, ext);
    return fil_fit(n, cap);
}

const char *zkp_fil_params_cache_dir(void) {
    const char *env = getenv(ZKP_FIL_PARAMS_CACHE_ENV);
    return env && *env ? env : ZKP_FIL_PARAMS_DEFAULT_CACHE;
}

size_t zkp_fil_params_path(char *out, size_t cap, const char *dir, const char *name) {
    size_t dl = strlen(dir);
    int slash = dl > 0 && dir[dl - 1] == '/';
    int n = snprintf(out, cap, "%s%s%s", dir, slash ? "" : "/", name);
    return fil_fit(n, cap);
}
