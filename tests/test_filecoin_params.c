/* Filecoin's parameter file names (formats/filecoin_params.h), derived from
 * each registered proof's circuit (filecoin/registry.h) and compared with
 * the names in rust-fil-proofs' parameters.json (commit 87348a7), and the
 * identifier with the one FACTS §2.1 quotes from its Display impls. */
#include <stdlib.h>

#include "filecoin/registry.h"
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

static zkp_fil_params_circuit circuit_of(const zkp_fil_seal_proof *p) {
    zkp_fil_params_circuit c = {p->nodes,      p->layers,    p->challenges,
                                p->base_arity, p->sub_arity, p->top_arity};
    return c;
}

TEST_CASE(filecoin_params_identifier) {
    const zkp_fil_seal_proof *p = zkp_fil_seal_proof_by_name("StackedDrg2KiBV1", 16);
    ASSERT(p != NULL);
    zkp_fil_params_circuit c = circuit_of(p);
    char id[512];
    ASSERT(zkp_fil_params_identifier(id, sizeof id, &c) > 0);
    ASSERT_STR_EQ(id,
                  "layered_drgporep::PublicParams{ graph: stacked_graph::StackedGraph{"
                  "expansion_degree: 8 base_graph: drgraph::BucketGraph{size: 64; degree: 6; "
                  "hasher: poseidon_hasher} }, challenges: LayerChallenges { layers: 2, "
                  "max_count: 2 }, tree: merkletree-poseidon_hasher-8-0-0 }");
    p = zkp_fil_seal_proof_by_name("StackedDrg64GiBV1", 17);
    ASSERT(p != NULL);
    c = circuit_of(p);
    ASSERT(zkp_fil_params_identifier(id, sizeof id, &c) > 0);
    ASSERT(strstr(id, "BucketGraph{size: 2147483648; degree: 6;") != NULL);
    ASSERT(strstr(id, "LayerChallenges { layers: 11, max_count: 18 }") != NULL);
    ASSERT(strstr(id, "tree: merkletree-poseidon_hasher-8-8-2 }") != NULL);
    /* Too small a buffer is refused, not cut. */
    ASSERT_EQ_U64(zkp_fil_params_identifier(id, 40, &c), 0);
}

/* All five sizes, and the V1_1 and synthetic-PoRep proofs of each, which
 * share the V1 files (the identifier holds no porep id). */
TEST_CASE(filecoin_params_file_names) {
    static const char *const versions[] = {"V1", "V1_1", "V1_1_Feat_SyntheticPoRep"};
    static const char *const sizes[] = {"2KiB", "8MiB", "512MiB", "32GiB", "64GiB"};
    for (size_t i = 0; i < ZKP_ARRAY_LEN(published); i++) {
        for (size_t v = 0; v < ZKP_ARRAY_LEN(versions); v++) {
            char pname[64];
            snprintf(pname, sizeof pname, "StackedDrg%s%s", sizes[i], versions[v]);
            const zkp_fil_seal_proof *p = zkp_fil_seal_proof_by_name(pname, strlen(pname));
            ASSERT_MSG(p != NULL, "%s", pname);
            ASSERT_EQ_U64(p->sector_bytes, published[i].sector_size);
            zkp_fil_params_circuit c = circuit_of(p);
            const char *exts[] = {"params", "vk", "meta"};
            for (size_t e = 0; e < 3; e++) {
                char want[256], got[256];
                snprintf(want, sizeof want, "%s.%s", published[i].name, exts[e]);
                ASSERT(zkp_fil_params_file_name(got, sizeof got, &c, exts[e]) > 0);
                ASSERT_STR_EQ(got, want);
            }
        }
    }
    /* One challenge more is another circuit, another name. */
    zkp_fil_params_circuit c = circuit_of(zkp_fil_seal_proof_by_name("StackedDrg2KiBV1", 16));
    c.challenges++;
    char got[256];
    ASSERT(zkp_fil_params_file_name(got, sizeof got, &c, "vk") > 0);
    ASSERT(strncmp(got, published[0].name, strlen(published[0].name)) != 0);
}

TEST_CASE(filecoin_params_cache_lookup) {
    const char *old = getenv(ZKP_FIL_PARAMS_CACHE_ENV);
    char *saved = old ? strdup(old) : NULL;
    zkp_fil_params_circuit c = circuit_of(zkp_fil_seal_proof_by_name("StackedDrg32GiBV1", 17));
    char path[512], want[512];
    unsetenv(ZKP_FIL_PARAMS_CACHE_ENV);
    ASSERT_STR_EQ(zkp_fil_params_cache_dir(), "/var/tmp/filecoin-proof-parameters");
    ASSERT(zkp_fil_params_lookup(path, sizeof path, NULL, &c, "params") > 0);
    snprintf(want, sizeof want, "/var/tmp/filecoin-proof-parameters/%s.params",
             published[3].name);
    ASSERT_STR_EQ(path, want);
    setenv(ZKP_FIL_PARAMS_CACHE_ENV, "", 1);
    ASSERT_STR_EQ(zkp_fil_params_cache_dir(), "/var/tmp/filecoin-proof-parameters");
    setenv(ZKP_FIL_PARAMS_CACHE_ENV, "/srv/params/", 1);
    ASSERT(zkp_fil_params_lookup(path, sizeof path, NULL, &c, "vk") > 0);
    snprintf(want, sizeof want, "/srv/params/%s.vk", published[3].name);
    ASSERT_STR_EQ(path, want);
    setenv(ZKP_FIL_PARAMS_CACHE_ENV, "/srv/p", 1);
    ASSERT(zkp_fil_params_lookup(path, sizeof path, NULL, &c, "vk") > 0);
    snprintf(want, sizeof want, "/srv/p/%s.vk", published[3].name);
    ASSERT_STR_EQ(path, want);
    ASSERT_EQ_U64(zkp_fil_params_lookup(path, 40, NULL, &c, "vk"), 0);
    if (saved) {
        setenv(ZKP_FIL_PARAMS_CACHE_ENV, saved, 1);
        free(saved);
    } else {
        unsetenv(ZKP_FIL_PARAMS_CACHE_ENV);
    }
}
