/* The output of Filecoin's seal commit phase 1 (SealCommitPhase1Output),
 * the input of C2: read and written as the JSON that filecoin-ffi's serde
 * produces, and unwrapped from the envelope Curio sends to cuzk.
 *
 * The document (docs/FILECOIN.md has the whole schema):
 *   {"registered_proof":"StackedDrg2KiBV1_1",
 *    "vanilla_proofs":{"StackedDrg2KiBV1":[[<challenge proof>...]...]},
 *    "comm_r":[32 ints],"comm_d":[..],"replica_id":[..],"seed":[..],"ticket":[..]}
 * with each 32-byte value an array of 32 integers 0..255, the vanilla_proofs
 * key the V1 name of the sector size whatever the version, and the column
 * proofs' PhantomData written as "_h":null.
 *
 * A 32 GiB C1 is about 50 MB of JSON holding 12 million small integers, so
 * the reader is written for this one schema instead of building a generic
 * tree: it walks the text once and stores only the 32-byte values, in one
 * arena from the caller's allocator. It is strict: members may come in any
 * order (serde's and Go's encoders order them differently), but a missing,
 * repeated or unknown member, a value out of range or a shape that does not
 * match the registered proof is an error whose message names the member by
 * its path, e.g. "vanilla_proofs[0][1].replica_column_proofs.drg_parents[2]
 * .inclusion_proof.data.Single.path.path[1].hashes: 6 values, a tree of
 * arity 8 needs 7". */
#ifndef ZKP_FILECOIN_C1_H
#define ZKP_FILECOIN_C1_H

#include <stddef.h>
#include <stdint.h>

#include "filecoin/registry.h"
#include "util/alloc.h"
#include "util/diag.h"

typedef struct {
    uint8_t b[32];
} zkp_fil_domain;

/* Every list is a pointer and a count (the reader fills them all through
 * one layout). */
#define ZKP_FIL_LIST(name, type) \
    typedef struct {             \
        type *v;                 \
        uint32_t n;              \
    } name

ZKP_FIL_LIST(zkp_fil_domains, zkp_fil_domain);

typedef struct {
    zkp_fil_domains hashes; /* the siblings, arity - 1 of them */
    uint64_t index;         /* the node's position among its siblings */
} zkp_fil_path_elem;

ZKP_FIL_LIST(zkp_fil_path, zkp_fil_path_elem); /* leaf side first */

typedef enum { ZKP_FIL_MERKLE_SINGLE, ZKP_FIL_MERKLE_SUB, ZKP_FIL_MERKLE_TOP } zkp_fil_merkle_kind;

typedef struct {
    zkp_fil_merkle_kind kind;
    zkp_fil_domain root, leaf;
    zkp_fil_path base, sub, top; /* sub for SUB and TOP, top for TOP only */
} zkp_fil_merkle_proof;

typedef struct {
    uint32_t index;
    zkp_fil_domains rows; /* one label per layer */
    zkp_fil_merkle_proof inclusion;
} zkp_fil_column_proof;

ZKP_FIL_LIST(zkp_fil_column_proofs, zkp_fil_column_proof);

/* A labeling proof, and the encoding proof, which has the same fields. */
typedef struct {
    zkp_fil_domains parents;
    uint32_t layer_index;
    uint64_t node;
} zkp_fil_labeling_proof;

ZKP_FIL_LIST(zkp_fil_labeling_proofs, zkp_fil_labeling_proof);

typedef struct {
    zkp_fil_column_proof c_x;
    zkp_fil_column_proofs drg_parents, exp_parents;
} zkp_fil_replica_columns;

typedef struct {
    zkp_fil_merkle_proof comm_d_proofs;
    zkp_fil_merkle_proof comm_r_last_proof;
    zkp_fil_replica_columns replica_column_proofs;
    zkp_fil_labeling_proofs labeling_proofs; /* one per layer, layer_index 1.. */
    zkp_fil_labeling_proof encoding_proof;
} zkp_fil_challenge_proof;

ZKP_FIL_LIST(zkp_fil_partition_proofs, zkp_fil_challenge_proof);
ZKP_FIL_LIST(zkp_fil_partitions, zkp_fil_partition_proofs);

typedef struct zkp_fil_arena zkp_fil_arena;

typedef struct {
    const zkp_fil_seal_proof *proof; /* the registered proof */
    zkp_fil_partitions vanilla_proofs;
    zkp_fil_domain comm_r, comm_d, replica_id, seed, ticket;
    zkp_fil_arena *arena; /* everything above points into it */
} zkp_fil_c1;

/* Parses a C1 JSON document text[0..len) (name for messages; may be NULL)
 * and checks its shape against its registered proof: partitions,
 * challenges, layers, parents, path lengths and arities. Values are not
 * checked here (zkp_fil_c1_verify is the vanilla verifier).
 * Memory comes from alloc (NULL: the default) under category cat.
 * On failure: ZKPIPE_ERR_PARSE (not the schema; the message names the member
 * and the byte offset), ZKPIPE_ERR_OUT_OF_RANGE (a number too large for its
 * field), ZKPIPE_ERR_UNSUPPORTED (an unknown registered proof),
 * ZKPIPE_ERR_NO_MEMORY; *out is left empty. */
ZKP_WARN_UNUSED zkpipe_status zkp_fil_c1_parse(zkp_fil_c1 *out, const char *text, size_t len,
                                               const char *name, const zkp_allocator *alloc,
                                               zkp_mem_category cat, zkp_diag *diag);

/* Writes c1 as serde_json's compact output: *out gets the bytes (from
 * alloc under cat, *out_len of them, to be freed with zkp_free with the same
 * size and category). */
ZKP_WARN_UNUSED zkpipe_status zkp_fil_c1_write(const zkp_fil_c1 *c1, uint8_t **out,
                                               size_t *out_len, const zkp_allocator *alloc,
                                               zkp_mem_category cat, zkp_diag *diag);

/* An empty C1 of proof p whose lists a producer (the sealer) fills with
 * zkp_fil_c1_alloc. ZKPIPE_ERR_NO_MEMORY. */
ZKP_WARN_UNUSED zkpipe_status zkp_fil_c1_init(zkp_fil_c1 *c1, const zkp_fil_seal_proof *p,
                                              const zkp_allocator *alloc, zkp_mem_category cat);

/* bytes of zeroed memory that lives as long as c1; NULL when out of memory. */
void *zkp_fil_c1_alloc(zkp_fil_c1 *c1, size_t bytes);

/* Frees what c1 holds; *c1 is left empty. Accepts an empty one. */
void zkp_fil_c1_free(zkp_fil_c1 *c1);

/* Curio's envelope for cuzk, {"SectorNum":n,"Phase1Out":"<base64 C1>",
 * "SectorSize":n}: *c1_json gets the decoded C1 text (from alloc under cat,
 * *c1_len bytes, free with zkp_free), *sector_num and *sector_size the
 * numbers. The same strictness as the C1 reader. */
ZKP_WARN_UNUSED zkpipe_status zkp_fil_c1_envelope_parse(const char *text, size_t len,
                                                        uint64_t *sector_num,
                                                        uint64_t *sector_size, char **c1_json,
                                                        size_t *c1_len,
                                                        const zkp_allocator *alloc,
                                                        zkp_mem_category cat, zkp_diag *diag);

#endif
