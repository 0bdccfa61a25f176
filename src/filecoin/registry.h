/* Filecoin's registered seal proofs: one row per RegisteredSealProof, with
 * the sector shape its circuit is built for.
 *
 * A registered proof names a sector size and a proof version. The version
 * decides the porep id (and with it the graph's parent order) and how the
 * challenges are drawn; the sector size decides everything the circuit's
 * shape depends on: nodes, layers, partitions, challenges per partition and
 * the tree_r_last / tree_c shape (base arity 8, then sub and top arities, 0
 * when absent). The numbers are Filecoin's (rust-filecoin-proofs-api
 * registry, filecoin-proofs constants; docs/FILECOIN.md). */
#ifndef ZKP_FILECOIN_REGISTRY_H
#define ZKP_FILECOIN_REGISTRY_H

#include <stddef.h>
#include <stdint.h>

typedef enum {
    ZKP_FIL_API_V1_0, /* StackedDrg*V1: graph parents in the V1_0 order */
    ZKP_FIL_API_V1_1, /* StackedDrg*V1_1 */
    ZKP_FIL_API_V1_2  /* StackedDrg*V1_1_Feat_SyntheticPoRep and *V1_2_Feat_NonInteractivePoRep;
                         the graph is V1_1's */
} zkp_fil_api_version;

/* How a proof draws its challenges (filecoin/porep.h): from the seed
 * (interactive), from the seed among a set fixed by comm_r (synthetic), or
 * from comm_r alone (non-interactive, with 13 or 126 partitions). */
typedef enum {
    ZKP_FIL_CHALLENGES_INTERACTIVE,
    ZKP_FIL_CHALLENGES_SYNTHETIC,
    ZKP_FIL_CHALLENGES_NON_INTERACTIVE
} zkp_fil_challenge_kind;

typedef struct {
    const char *name;        /* "StackedDrg2KiBV1_1", as serde writes the enum */
    uint32_t id;             /* the numeric RegisteredSealProof (cuzk's registered_proof) */
    uint64_t sector_bytes;
    uint64_t nodes;          /* sector_bytes / 32 */
    uint32_t layers;
    uint32_t partitions;
    uint32_t challenges;     /* per partition */
    uint32_t base_arity, sub_arity, top_arity; /* tree_r_last and tree_c */
    zkp_fil_api_version api;
    zkp_fil_challenge_kind challenge_kind;
    /* The key of the C1's vanilla_proofs enum: the V1 name of the sector size
     * for every version ("StackedDrg2KiBV1"). */
    const char *vanilla_key;
} zkp_fil_seal_proof;

/* The row named name (exact spelling), or NULL. */
const zkp_fil_seal_proof *zkp_fil_seal_proof_by_name(const char *name, size_t len);

/* The row with numeric id, or NULL. */
const zkp_fil_seal_proof *zkp_fil_seal_proof_by_id(uint32_t id);

/* Every row, in id order; *n gets the count. */
const zkp_fil_seal_proof *zkp_fil_seal_proofs(size_t *n);

/* Levels of a tree of nodes leaves with the row's shape: the base levels
 * (arity base_arity) over nodes / (sub * top) leaves each, then one sub
 * level and one top level where present. 0 if nodes does not fit the shape. */
uint32_t zkp_fil_tree_base_levels(const zkp_fil_seal_proof *p);

/* Levels of tree_d, the binary tree over every node: log2(nodes). */
uint32_t zkp_fil_tree_d_levels(const zkp_fil_seal_proof *p);

#endif
