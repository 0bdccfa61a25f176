/* Where Filecoin keeps its Groth16 parameters, and what it names them.
 *
 * rust-fil-proofs names a PoRep parameter file after its circuit's public
 * parameters (storage-proofs-core parameter_cache.rs):
 *
 *     v28-stacked-proof-of-replication-merkletree-poseidon_hasher-<shape>
 *         -sha256_hasher-<SHA-256 of the identifier, hex>.params  (.vk, .meta)
 *
 * with the identifier
 *
 *     layered_drgporep::PublicParams{ graph: stacked_graph::StackedGraph{
 *     expansion_degree: 8 base_graph: drgraph::BucketGraph{size: N; degree: 6;
 *     hasher: poseidon_hasher} }, challenges: LayerChallenges { layers: L,
 *     max_count: C }, tree: merkletree-poseidon_hasher-<shape> }
 *
 * (one line, spaces exactly as shown), N the sector's nodes of 32 bytes, L
 * the layers, C the challenges per partition and <shape> the tree_r arities
 * base-sub-top. The identifier holds no porep id, so V1, V1_1 and V1_2
 * share files. The files live in $FIL_PROOFS_PARAMETER_CACHE, by default
 * /var/tmp/filecoin-proof-parameters. */
#ifndef ZKP_FORMATS_FILECOIN_PARAMS_H
#define ZKP_FORMATS_FILECOIN_PARAMS_H

#include <stddef.h>
#include <stdint.h>

/* The version in every parameter file name (parameter_cache.rs VERSION). */
#define ZKP_FIL_PARAMS_VERSION 28
#define ZKP_FIL_PARAMS_DEFAULT_CACHE "/var/tmp/filecoin-proof-parameters"
#define ZKP_FIL_PARAMS_CACHE_ENV "FIL_PROOFS_PARAMETER_CACHE"

/* One published PoRep sector size. */
typedef struct {
    uint64_t sector_size; /* bytes */
    const char *label;    /* "2KiB", "8MiB", "512MiB", "32GiB", "64GiB" */
    uint64_t nodes;       /* sector_size / 32 */
    unsigned layers;
    unsigned challenges; /* per partition, interactive PoRep */
    unsigned partitions;
    const char *shape; /* tree_r arities, base-sub-top: "8-0-0" */
} zkp_fil_porep_size;

/* The five published sizes, smallest first; *n receives 5. */
const zkp_fil_porep_size *zkp_fil_porep_sizes(size_t *n);

/* The size with this many bytes, or NULL. */
const zkp_fil_porep_size *zkp_fil_porep_size_find(uint64_t sector_size);

/* Writes the public-params identifier of size s into out[0..cap) with its
 * terminator. Returns its length, or 0 when cap is too small. */
size_t zkp_fil_params_identifier(char *out, size_t cap, const zkp_fil_porep_size *s);

/* Writes the file name for size s, given the SHA-256 of its identifier,
 * with the extension ext ("params", "vk" or "meta"). Returns its length, or
 * 0 when cap is too small. */
size_t zkp_fil_params_file_name(char *out, size_t cap, const zkp_fil_porep_size *s,
                                const uint8_t identifier_sha256[32], const char *ext);

/* $FIL_PROOFS_PARAMETER_CACHE when set and not empty, else the default. */
const char *zkp_fil_params_cache_dir(void);

/* dir/name (one slash between them) into out[0..cap). Returns the length,
 * or 0 when cap is too small. */
size_t zkp_fil_params_path(char *out, size_t cap, const char *dir, const char *name);

#endif
