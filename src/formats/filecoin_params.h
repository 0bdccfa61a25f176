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
 * the layers, C the challenges per partition and <shape> the tree_r_last
 * arities base-sub-top ("8-8-0"). The identifier holds no porep id, so V1,
 * V1_1 and V1_2 share files. The files live in $FIL_PROOFS_PARAMETER_CACHE,
 * by default /var/tmp/filecoin-proof-parameters.
 *
 * The circuit's numbers come from the caller (filecoin/registry.h has them
 * for every registered proof): this layer knows the naming, not the sector
 * sizes. */
#ifndef ZKP_FORMATS_FILECOIN_PARAMS_H
#define ZKP_FORMATS_FILECOIN_PARAMS_H

#include <stddef.h>
#include <stdint.h>

/* The version in every parameter file name (parameter_cache.rs VERSION). */
#define ZKP_FIL_PARAMS_VERSION 28
#define ZKP_FIL_PARAMS_DEFAULT_CACHE "/var/tmp/filecoin-proof-parameters"
#define ZKP_FIL_PARAMS_CACHE_ENV "FIL_PROOFS_PARAMETER_CACHE"

/* What a PoRep circuit's public parameters hold. */
typedef struct {
    uint64_t nodes;      /* sector bytes / 32 */
    uint32_t layers;
    uint32_t challenges; /* per partition */
    uint32_t base_arity, sub_arity, top_arity; /* tree_r_last; 0 when absent */
} zkp_fil_params_circuit;

/* Writes the public-params identifier into out[0..cap) with its terminator.
 * Returns its length, or 0 when cap is too small. */
size_t zkp_fil_params_identifier(char *out, size_t cap, const zkp_fil_params_circuit *c);

/* Writes the file name of c's parameters with the extension ext ("params",
 * "vk" or "meta"): the SHA-256 of the identifier in hex, as Filecoin does.
 * Returns its length, or 0 when cap is too small. */
size_t zkp_fil_params_file_name(char *out, size_t cap, const zkp_fil_params_circuit *c,
                                const char *ext);

/* $FIL_PROOFS_PARAMETER_CACHE when set and not empty, else the default. */
const char *zkp_fil_params_cache_dir(void);

/* The path of c's file with extension ext in dir; NULL or "" is the cache
 * directory, where Filecoin's tools put it. Returns the length, or 0 when
 * cap is too small. */
size_t zkp_fil_params_lookup(char *out, size_t cap, const char *dir,
                             const zkp_fil_params_circuit *c, const char *ext);

#endif
