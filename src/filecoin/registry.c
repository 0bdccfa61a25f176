#include "filecoin/registry.h"

#include <string.h>

#define KIB ((uint64_t)1 << 10)
#define MIB ((uint64_t)1 << 20)
#define GIB ((uint64_t)1 << 30)

/* One sector size: its position among the five, bytes, layers, partitions
 * and challenges of the interactive proof, the tree shape, and the
 * partitions of NI-PoRep. */
#define SIZES(X)                                      \
    X(0, 2KiB, 2 * KIB, 2, 1, 2, 8, 0, 0, 13)         \
    X(1, 8MiB, 8 * MIB, 2, 1, 2, 8, 0, 0, 13)         \
    X(2, 512MiB, 512 * MIB, 2, 1, 2, 8, 0, 0, 13)     \
    X(3, 32GiB, 32 * GIB, 11, 10, 18, 8, 8, 0, 126)   \
    X(4, 64GiB, 64 * GIB, 11, 10, 18, 8, 8, 2, 126)

/* Filecoin numbers the 20 proofs version by version, five sizes each.
 * rust-filecoin-proofs-api gives synthetic PoRep API version V1_2_0 despite
 * its V1_1 name. */
#define ROW(id, size, bytes, layers, parts, chal, b, s, t, suffix, api, kind)                   \
    {"StackedDrg" #size suffix, id, bytes, (bytes) / 32, layers, parts, chal, b, s, t, api, kind, \
     "StackedDrg" #size "V1"},
#define V1_0(i, size, bytes, l, p, c, b, s, t, n) \
    ROW(i, size, bytes, l, p, c, b, s, t, "V1", ZKP_FIL_API_V1_0, ZKP_FIL_CHALLENGES_INTERACTIVE)
#define V1_1(i, size, bytes, l, p, c, b, s, t, n)                                    \
    ROW(5 + i, size, bytes, l, p, c, b, s, t, "V1_1", ZKP_FIL_API_V1_1,              \
        ZKP_FIL_CHALLENGES_INTERACTIVE)
#define SYNTH(i, size, bytes, l, p, c, b, s, t, n)                                   \
    ROW(10 + i, size, bytes, l, p, c, b, s, t, "V1_1_Feat_SyntheticPoRep", ZKP_FIL_API_V1_2, \
        ZKP_FIL_CHALLENGES_SYNTHETIC)
#define NI(i, size, bytes, l, p, c, b, s, t, n)                                      \
    ROW(15 + i, size, bytes, l, n, c, b, s, t, "V1_2_Feat_NonInteractivePoRep",       \
        ZKP_FIL_API_V1_2, ZKP_FIL_CHALLENGES_NON_INTERACTIVE)

static const zkp_fil_seal_proof rows_[] = {SIZES(V1_0) SIZES(V1_1) SIZES(SYNTH) SIZES(NI)};

#define N_ROWS (sizeof rows_ / sizeof rows_[0])

const zkp_fil_seal_proof *zkp_fil_seal_proofs(size_t *n) {
    *n = N_ROWS;
    return rows_;
}

const zkp_fil_seal_proof *zkp_fil_seal_proof_by_name(const char *name, size_t len) {
    for (size_t i = 0; i < N_ROWS; i++)
        if (strlen(rows_[i].name) == len && !memcmp(rows_[i].name, name, len)) return &rows_[i];
    return NULL;
}

const zkp_fil_seal_proof *zkp_fil_seal_proof_by_id(uint32_t id) {
    return id < N_ROWS ? &rows_[id] : NULL;
}

uint32_t zkp_fil_tree_base_levels(const zkp_fil_seal_proof *p) {
    uint64_t leaves = p->nodes;
    if (p->sub_arity) leaves /= p->sub_arity;
    if (p->top_arity) leaves /= p->top_arity;
    uint32_t levels = 0;
    while (leaves > 1) {
        if (leaves % p->base_arity) return 0;
        leaves /= p->base_arity;
        levels++;
    }
    return levels;
}

uint32_t zkp_fil_tree_d_levels(const zkp_fil_seal_proof *p) {
    uint32_t levels = 0;
    while (((uint64_t)1 << levels) < p->nodes) levels++;
    return levels;
}
