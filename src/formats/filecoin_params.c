/* Filecoin's parameter file names. See filecoin_params.h. */
#include "formats/filecoin_params.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hash/sha256.h"

/* snprintf's length when it fit, else 0. */
static size_t fil_fit(int n, size_t cap) { return n >= 0 && (size_t)n < cap ? (size_t)n : 0; }

size_t zkp_fil_params_identifier(char *out, size_t cap, const zkp_fil_params_circuit *c) {
    /* The Display impls of rust-fil-proofs' public params, verbatim: note
     * the missing comma after expansion_degree. */
    int n = snprintf(out, cap,
                     "layered_drgporep::PublicParams{ graph: stacked_graph::StackedGraph{"
                     "expansion_degree: 8 base_graph: drgraph::BucketGraph{size: %" PRIu64
                     "; degree: 6; hasher: poseidon_hasher} }, challenges: LayerChallenges { "
                     "layers: %" PRIu32 ", max_count: %" PRIu32
                     " }, tree: merkletree-poseidon_hasher-%" PRIu32 "-%" PRIu32 "-%" PRIu32
                     " }",
                     c->nodes, c->layers, c->challenges, c->base_arity, c->sub_arity,
                     c->top_arity);
    return fil_fit(n, cap);
}

size_t zkp_fil_params_file_name(char *out, size_t cap, const zkp_fil_params_circuit *c,
                                const char *ext) {
    char id[512];
    size_t id_len = zkp_fil_params_identifier(id, sizeof id, c);
    if (id_len == 0) return 0;
    uint8_t digest[ZKP_SHA256_DIGEST_BYTES];
    zkp_sha256(digest, id, id_len);
    char hex[2 * ZKP_SHA256_DIGEST_BYTES + 1];
    for (int i = 0; i < ZKP_SHA256_DIGEST_BYTES; i++)
        snprintf(hex + 2 * i, 3, "%02x", digest[i]);
    int n = snprintf(out, cap,
                     "v%d-stacked-proof-of-replication-merkletree-poseidon_hasher-%" PRIu32
                     "-%" PRIu32 "-%" PRIu32 "-sha256_hasher-%s.%s",
                     ZKP_FIL_PARAMS_VERSION, c->base_arity, c->sub_arity, c->top_arity, hex,
                     ext);
    return fil_fit(n, cap);
}

const char *zkp_fil_params_cache_dir(void) {
    const char *env = getenv(ZKP_FIL_PARAMS_CACHE_ENV);
    return env && *env ? env : ZKP_FIL_PARAMS_DEFAULT_CACHE;
}

size_t zkp_fil_params_lookup(char *out, size_t cap, const char *dir,
                             const zkp_fil_params_circuit *c, const char *ext) {
    char name[256];
    if (zkp_fil_params_file_name(name, sizeof name, c, ext) == 0) return 0;
    if (!dir || !*dir) dir = zkp_fil_params_cache_dir();
    size_t dl = strlen(dir);
    int slash = dl > 0 && dir[dl - 1] == '/';
    return fil_fit(snprintf(out, cap, "%s%s%s", dir, slash ? "" : "/", name), cap);
}
