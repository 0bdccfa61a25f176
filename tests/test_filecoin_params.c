/* Filecoin's parameter file names (formats/filecoin_params.h), against the
 * names in rust-fil-proofs' parameters.json (commit 87348a7) and the
 * identifier that FACTS §2.1 quotes from its Display impls. The digest in
 * each name is the SHA-256 of the identifier; until zkpipe has SHA-256 the
 * digests are given here as parameters.json has them, so these cases check
 * the identifier and the assembly of the name. */
#include <stdlib.h>

#include "formats/filecoin_params.h"
#include "test.h"
#include "test_support.h"

static const struct {
    uint64_t sector_size;
    const char *name; /* parameters.json, without the extension */
} published[] = {
    {(uint64_t)2 << 10,
     "v28-stacked-proof-of-replication-merkletree-poseidon_hasher-8-0-0-sha256_hasher-"
     "032d3138d22506ec0082ed72b2dcba18df18477904e35bafee82b3793b06832f"},
    {(uint64_t)8 << 20,
     "v28-stacked-proof-of-replication-merkletree-poseidon_hasher-8-0-0-sha256_hasher-"
     "ecd683648512ab1765faa2a5f14bab48f676e633467f0aa8aad4b55dcb0652bb"},
    {(uint64_t)512 << 20,
     "v28-stacked-proof-of-replication-merkletree-poseidon_hasher-8-0-0-sha256_hasher-"
     "6babf46ce344ae495d558e7770a585b2382d54f225af8ed0397b8be7c3fcd472"},
    {(uint64_t)32 << 30,
     "v28-stacked-proof-of-replication-merkletree-poseidon_hasher-8-8-0-sha256_hasher-"
     "82a357d2f2ca81dc61bb45f4a762807aedee1b0a53fd6c4e77b46a01bfef7820"},
    {(uint64_t)64 << 30,
     "v28-stacked-proof-of-replication-merkletree-poseidon_hasher-8-8-2-sha256_hasher-"
     "96f1b4a04c5c51e4759bbf224bbc2ef5a42c7100f16ec0637123f16a845ddfb2"},
};

TEST_CASE(filecoin_params_identifier) {
    const zkp_fil_porep_size *s = zkp_fil_porep_size_find(2048);
    ASSERT(s != NULL);
    char id[512];
    ASSERT(zkp_fil_params_identifier(id, sizeof id, s) > 0);
    ASSERT_STR_EQ(id,
                  "layered_drgporep::PublicParams{ graph: stacked_graph::StackedGraph{"
                  "expansion_degree: 8 base_graph: drgraph::BucketGraph{size: 64; degree: 6; "
                  "hasher: poseidon_hasher} }, challenges: LayerChallenges { layers: 2, "
                  "max_count: 2 }, tree: merkletree-poseidon_hasher-8-0-0 }");
    s = zkp_fil_porep_size_find((uint64_t)64 << 30);
    ASSERT(s != NULL);
    ASSERT(zkp_fil_params_identifier(id, sizeof id, s) > 0);
    ASSERT(strstr(id, "BucketGraph{size: 2147483648; degree: 6;") != NULL);
    ASSERT(strstr(id, "LayerChallenges { layers: 11, max_count: 18 }") != NULL);
    ASSERT(strstr(id, "tree: merkletree-poseidon_hasher-8-8-2 }") != NULL);
    /* Too small a buffer is refused, not cut. */
    ASSERT_EQ_U64(zkp_fil_params_identifier(id, 40, s), 0);
    ASSERT(zkp_fil_porep_size_find(4096) == NULL);
}

TEST_CASE(filecoin_params_file_names) {
    size_t n = 0;
    const zkp_fil_porep_size *sizes = zkp_fil_porep_sizes(&n);
    ASSERT_EQ_U64(n, ZKP_ARRAY_LEN(published));
    for (size_t i = 0; i < n; i++) {
        ASSERT_EQ_U64(sizes[i].sector_size, published[i].sector_size);
        ASSERT_EQ_U64(sizes[i].nodes * 32, sizes[i].sector_size);
        uint8_t digest[32];
        const char *hex = strrchr(published[i].name, '-') + 1;
        ASSERT_EQ_U64(test_unhex(digest, sizeof digest, hex), 32);
        const char *exts[] = {"params", "vk", "meta"};
        for (size_t e = 0; e < 3; e++) {
            char want[256], got[256];
            snprintf(want, sizeof want, "%s.%s", published[i].name, exts[e]);
            ASSERT(zkp_fil_params_file_name(got, sizeof got, &sizes[i], digest, exts[e]) > 0);
            ASSERT_STR_EQ(got, want);
        }
    }
}

TEST_CASE(filecoin_params_cache_dir) {
    const char *old = getenv(ZKP_FIL_PARAMS_CACHE_ENV);
    char *saved = old ? strdup(old) : NULL;
    unsetenv(ZKP_FIL_PARAMS_CACHE_ENV);
    ASSERT_STR_EQ(zkp_fil_params_cache_dir(), "/var/tmp/filecoin-proof-parameters");
    setenv(ZKP_FIL_PARAMS_CACHE_ENV, "", 1);
    ASSERT_STR_EQ(zkp_fil_params_cache_dir(), "/var/tmp/filecoin-proof-parameters");
    setenv(ZKP_FIL_PARAMS_CACHE_ENV, "/srv/params/", 1);
    ASSERT_STR_EQ(zkp_fil_params_cache_dir(), "/srv/params/");
    char path[256];
    ASSERT(zkp_fil_params_path(path, sizeof path, zkp_fil_params_cache_dir(), "a.vk") > 0);
    ASSERT_STR_EQ(path, "/srv/params/a.vk");
    ASSERT(zkp_fil_params_path(path, sizeof path, "/x", "a.vk") > 0);
    ASSERT_STR_EQ(path, "/x/a.vk");
    ASSERT_EQ_U64(zkp_fil_params_path(path, 4, "/x", "a.vk"), 0);
    if (saved) {
        setenv(ZKP_FIL_PARAMS_CACHE_ENV, saved, 1);
        free(saved);
    } else {
        unsetenv(ZKP_FIL_PARAMS_CACHE_ENV);
    }
}
