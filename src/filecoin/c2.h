/* C2: the Groth16 proof of a sealed sector's PoRep, from its C1 output and
 * bellperson's parameters of the PoRep circuit (Filecoin's published
 * files, or `zkpipe setup dev --filecoin porep`).
 *
 * A key is made once per parameter file (zkp_fil_c2_key_load, or its two
 * steps: zkp_fil_c2_key_open maps the file and reads its header, so the
 * caller can check which file it got before any work; zkp_fil_c2_key_make
 * does the rest):
 *   1. the blank partition circuit of the proof's shape is synthesized
 *      into the CSR back end's count-only mode, and the file's section
 *      lengths are checked against it (setup/bp_key.h), so a file of
 *      another circuit is refused before anything big is decoded;
 *   2. the blank circuit's matrices are recorded (into memory from the
 *      caller's allocator, sized by the count), the key's coefficients and
 *      the columns in use taken from them, and the matrices freed; then
 *      every section of the file is decoded, one after the other (each
 *      point checked: curve, subgroup; a section's pages of the file leave
 *      the resident set once it is decoded, and the caller may pay for
 *      them while they are in: zkp_fil_c2_options.pages), and zkpipe's
 *      prover key made (setup/bp_key.h).
 * Then each partition is synthesized with its witness from the C1
 * (zkp_fil_c2_synthesize: the CSR's witness-only mode, no matrices, the
 * values written straight into the witness vector the prover takes), proved
 * with that key, and verified before it is returned, against public
 * inputs derived independently from the C1's commitments and seed
 * (zkp_fil_c2_public_inputs, filecoin/public_inputs.h), never from the
 * circuit's own values. A proof that does not verify is an error, never an
 * output. */
#ifndef ZKP_FILECOIN_C2_H
#define ZKP_FILECOIN_C2_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "filecoin/c1.h"
#include "filecoin/registry.h"
#include "formats/bellperson.h"
#include "formats/filecoin_params.h"
#include "gadgets/csr.h"
#include "groth16/groth16.h"
#include "setup/bp_key.h"
#include "util/alloc.h"
#include "util/diag.h"

/* 1 when the proofs a and b have one PoRep circuit (V1, V1_1 and synthetic
 * PoRep of one sector size share theirs). */
int zkp_fil_same_circuit(const zkp_fil_seal_proof *a, const zkp_fil_seal_proof *b);

/* ZKPIPE_OK when params has the section lengths of p's PoRep circuit
 * (setup/bp_key.h: zkp_bp_params_fit), from its blank partition counted
 * without a witness: a second at 2 KiB, minutes at 32 GiB. Otherwise
 * ZKPIPE_ERR_SIZE_MISMATCH naming the lengths that differ, or the count's
 * failure (ZKPIPE_ERR_NO_MEMORY). */
ZKP_WARN_UNUSED zkpipe_status zkp_fil_params_fit(const zkp_bp_params *params,
                                                 const zkp_fil_seal_proof *p, zkp_diag *diag);

typedef struct {
    unsigned nthreads;          /* 0 = every online CPU */
    const zkp_allocator *alloc; /* NULL = the default; sections and key as ZKP_MEM_KEY */
    /* 1: the sections' points are checked in the subgroup as well as on the
     * curve (formats/bellperson.h: curve_only). It costs most of the key's
     * loading time; every proof is verified before it is returned either
     * way, so a bad point costs an error, never a wrong proof. */
    int check_subgroups;
    /* Who pays for the file's pages while each section is decoded
     * (formats/bellperson.h); NULL: nobody. */
    const zkp_bp_file_pages *pages;
} zkp_fil_c2_options;

typedef struct {
    const zkp_fil_seal_proof *proof; /* whose circuit the key proves */
    zkp_bp_params params;
    zkp_bp_key key;
    uint64_t rows; /* the circuit's constraints with the input constraints */
    double seconds_check, seconds_shape, seconds_decode, seconds_key;
} zkp_fil_c2_key;

/* Loads params_path as the parameters of p's PoRep circuit: open, then
 * make. On failure *k is left empty and the status is the loader's (ERR_IO,
 * a parse or point error naming the file), ZKPIPE_ERR_SIZE_MISMATCH (the
 * file is another circuit's: the message lists the lengths), or
 * ZKPIPE_ERR_NO_MEMORY. */
ZKP_WARN_UNUSED zkpipe_status zkp_fil_c2_key_load(zkp_fil_c2_key *k, const zkp_fil_seal_proof *p,
                                                  const char *params_path,
                                                  const zkp_fil_c2_options *opt, zkp_diag *diag);

/* The first step of zkp_fil_c2_key_load: maps params_path and reads its
 * verifying key and section headers only (zkp_bp_params_load), so the
 * caller can check the file it got (k->params.file.stamp,
 * zkp_bp_params_header_digest) before anything is counted or decoded. Free
 * with zkp_fil_c2_key_free; on failure *k is left empty. opt (may be NULL)
 * must be the one make gets. */
ZKP_WARN_UNUSED zkpipe_status zkp_fil_c2_key_open(zkp_fil_c2_key *k, const zkp_fil_seal_proof *p,
                                                  const char *params_path,
                                                  const zkp_fil_c2_options *opt, zkp_diag *diag);

/* The second step: the key of an opened file (steps 1 and 2 above). On
 * failure the key is freed (*k left empty), with zkp_fil_c2_key_load's
 * statuses. */
ZKP_WARN_UNUSED zkpipe_status zkp_fil_c2_key_make(zkp_fil_c2_key *k, const zkp_fil_c2_options *opt,
                                                  zkp_diag *diag);

/* The blank partition of p with its matrices, as step 2 records them: a
 * count first, then the matrices in memory from alloc (NULL: the default)
 * under ZKP_MEM_CSR, allocated once at the counted size. Free with
 * zkp_fil_c2_blank_free. ZKPIPE_ERR_NO_MEMORY, or synthesis's failure. */
ZKP_WARN_UNUSED zkpipe_status zkp_fil_c2_blank_matrices(zkp_cs_csr **out,
                                                        const zkp_fil_seal_proof *p,
                                                        const zkp_allocator *alloc,
                                                        zkp_diag *diag);
void zkp_fil_c2_blank_free(zkp_cs_csr **r);

void zkp_fil_c2_key_free(zkp_fil_c2_key *k);

/* Frees the decoded points of the key's sets named in sets (bits of
 * ZKP_G16_SETS_*, groth16_common.h) and clears the key's pointers to them;
 * returns the bytes freed. For sets a device holds for good (the engine,
 * once every GPU has them resident): at 32 GiB the five sets are 47 GB of
 * host memory. The file is unmapped by then, so the key cannot decode them
 * again: a prover that needs them (on the CPU, or to upload them anew)
 * needs the key loaded again, and says so (groth16/backend.c). */
uint64_t zkp_fil_c2_key_drop_points(zkp_fil_c2_key *k, unsigned sets);

/* A partition's proof is made by the engine (zkpipe/engine.h: a PoRep key
 * and a C1 job), which runs these as its synthesis stage and checks each
 * proof against these public inputs.
 *
 * ZKPIPE_OK when c1 is a sector of key_proof's circuit; otherwise
 * ZKPIPE_ERR_INVALID_ARGUMENT saying which each is. */
ZKP_WARN_UNUSED zkpipe_status zkp_fil_c2_check_c1(const zkp_fil_seal_proof *key_proof,
                                                  const zkp_fil_c1 *c1, zkp_diag *diag);

/* Partition k of c1 synthesized witness-only into witness[0 .. pk->n_vars)
 * (4 limbs each, canonical), shaped like pk: the one, the inputs, then the
 * aux variables. ZKPIPE_ERR_OUT_OF_RANGE for k past c1's partitions, the
 * CSR's statuses for a circuit not shaped like pk (SIZE_MISMATCH,
 * OUT_OF_RANGE: the message gives both shapes), ZKPIPE_ERR_NO_MEMORY. The
 * challenges are synthesized on nthreads threads (0 or 1: one); the
 * witness is the same whatever the count (zkp_fil_porep_circuit_mt).
 * cancel (may be NULL; a job's flag) stops it between challenges with
 * ZKPIPE_ERR_CANCELLED. */
ZKP_WARN_UNUSED zkpipe_status zkp_fil_c2_synthesize(uint64_t *witness,
                                                    const bls12_381_g16_pk_t *pk,
                                                    const zkp_fil_c1 *c1, unsigned k,
                                                    unsigned nthreads, const atomic_int *cancel,
                                                    zkp_diag *diag);

/* The public inputs of partition k of c1, derived from its commitments and
 * seed alone, never from a synthesized circuit: pub->values from malloc
 * (free them), canonical limbs. ZKPIPE_ERR_NO_MEMORY, or a value of the C1
 * that is not a field element (ZKPIPE_ERR_INVALID_ARGUMENT). */
ZKP_WARN_UNUSED zkpipe_status zkp_fil_c2_public_inputs(zkp_g16_public *pub, const zkp_fil_c1 *c1,
                                                       unsigned k, zkp_diag *diag);

/* Prefixes diag for a partition proof that does not verify after a proof
 * made with the key: the C1 or the parameters are at fault. */
void zkp_fil_c2_unsatisfied_prefix(zkp_diag *diag);

/* Checks the concatenated partition proofs proof[0..len) of c1 against the
 * verifying key vk of its circuit, each against the public inputs derived
 * from c1's commitments and seed: Filecoin's seal verification with the C1
 * standing for the sector's identity. ZKPIPE_OK when every partition
 * verifies; ZKPIPE_ERR_PROOF_INVALID (the message names the first that
 * does not); ZKPIPE_ERR_SIZE_MISMATCH when len is not 192 bytes per
 * partition; a decoding status for a point that is not one
 * (formats/bellperson.h); ZKPIPE_ERR_INVALID_ARGUMENT when vk is another
 * circuit's (its input count). */
ZKP_WARN_UNUSED zkpipe_status zkp_fil_c2_verify(const zkp_bp_vk *vk, const zkp_fil_c1 *c1,
                                                const uint8_t *proof, size_t len, zkp_diag *diag);

#endif
