/* The StackedDRG PoRep circuit of one partition, synthesized into any
 * constraint-system back end (gadgets/cs.h) in storage-proofs-porep's order
 * (circuit/proof.rs and circuit/params.rs; FACTS 2.3), so that the
 * variables, the constraints and the public inputs are bellperson's:
 *
 *   replica_id (new variable, made public, its 255 bits in SHA-256 order),
 *   comm_d and comm_r (each a new variable made public), comm_r_last and
 *   comm_c (private), comm_r == Poseidon-2(comm_c, comm_r_last);
 *   then per challenge:
 *     the data node, its inclusion in tree_d (SHA-256, binary) under comm_d;
 *     each of the 6 DRG and then 8 expander parents' columns: one variable
 *       per layer, the column's Poseidon hash (arity = layers) and its
 *       inclusion in tree_c under comm_c;
 *     the challenge as 64 bits, packed into one public input;
 *     for layer 1 .. L, the label: the DRG parents' values at that layer
 *       (and above layer 1 the expander parents' values of the layer below),
 *       each decomposed into bits, repeated to 37 parents, and
 *       create_label_circuit (gadgets/label.h);
 *     the encoded node = last label + data node, its inclusion in
 *       tree_r_last under comm_r_last;
 *     the labels' column hash, its inclusion in tree_c under comm_c.
 * Each inclusion adds one public input (the leaf's index), so a partition
 * has 4 + 18 * challenges inputs with ONE, in zkp_fil_porep_public_inputs'
 * order (filecoin/public_inputs.h).
 *
 * Two sources of values. A C1's partition is the witness (the columns'
 * rows, the paths, the data node, the roots; the labeling and encoding
 * proofs are not used, as in rust-fil-proofs). Without one, the blank
 * circuit of a shape is built from zero values: the structure depends on
 * the shape only, so this is what counts a partition (the count-only back
 * end needs no witness) or compiles its matrices. */
#ifndef ZKP_FILECOIN_POREP_CIRCUIT_H
#define ZKP_FILECOIN_POREP_CIRCUIT_H

#include <stdatomic.h>
#include <stdint.h>

#include "filecoin/c1.h"
#include "filecoin/registry.h"
#include "formats/filecoin_params.h"
#include "gadgets/cs.h"
#include "gadgets/csr.h"
#include "util/diag.h"

#define ZKP_FIL_DRG_PARENTS 6
#define ZKP_FIL_EXP_PARENTS 8

/* What the circuit's structure depends on, which is also what its
 * parameter files are named after (formats/filecoin_params.h): nodes (a
 * power of two, 2 .. 2^40), layers (2 or 11: the column hash has this
 * arity), challenges per partition (at least 1), and the arities of
 * tree_r_last and tree_c, which share the Poseidon shape: base levels of
 * base_arity, then one level of sub_arity and one of top_arity where not 0
 * (2, 4, 8 or 16). tree_d is binary over nodes. */
typedef zkp_fil_params_circuit zkp_fil_porep_shape;

/* The shape of a registered proof's partition (V1, V1_1 and synthetic
 * PoRep of one sector size share it). */
void zkp_fil_porep_shape_of(zkp_fil_porep_shape *out, const zkp_fil_seal_proof *p);

/* The blank partition of shape, every witness value zero. The shape is
 * checked first: ZKPIPE_ERR_INVALID_ARGUMENT (diag says why) with nothing
 * added. Otherwise returns the system's status after synthesis (a back
 * end's failure, e.g. ZKPIPE_ERR_NO_MEMORY). */
ZKP_WARN_UNUSED zkpipe_status zkp_fil_porep_circuit_blank(zkp_cs *cs,
                                                          const zkp_fil_porep_shape *shape,
                                                          zkp_diag *diag);

/* zkp_fil_porep_circuit_blank into a CSR back end without its witness,
 * the challenges after the first on nthreads threads (0: every online
 * CPU; 1: one), each
 * into a slice of r (gadgets/csr.h): r comes out as with one thread, row
 * for row. ZKPIPE_ERR_INVALID_ARGUMENT (a failed synthesis) if a challenge
 * records other numbers of rows or entries than the first. */
ZKP_WARN_UNUSED zkpipe_status zkp_fil_porep_circuit_blank_mt(zkp_cs_csr *r,
                                                             const zkp_fil_porep_shape *shape,
                                                             unsigned nthreads, zkp_diag *diag);

/* Partition k of c1 with its witness. ZKPIPE_ERR_OUT_OF_RANGE for k past
 * the C1's partitions; ZKPIPE_ERR_INVALID_ARGUMENT when a value is not a
 * field element below r or a path does not have the shape of c1's
 * registered proof (checked before anything is added). The circuit is
 * built whether or not the witness is consistent: a wrong C1 gives
 * unsatisfied constraints, which a checking back end reports. */
ZKP_WARN_UNUSED zkpipe_status zkp_fil_porep_circuit(zkp_cs *cs, const zkp_fil_c1 *c1,
                                                    unsigned partition_k, zkp_diag *diag);

/* zkp_fil_porep_circuit with the challenges on nthreads threads. Every
 * challenge of a partition allocates the same numbers of inputs and aux
 * variables, so the first is synthesized on cs, and each other one on a
 * copy of cs whose counters start where the challenge's variables fall;
 * the copies share cs's back end, which must therefore take values at
 * distinct indices from several threads at once and record nothing else
 * (the CSR back end's witness-only mode writing into a vector:
 * filecoin/c2.h). The variables come out numbered, valued and counted as
 * with one thread; a challenge that allocates otherwise fails the
 * synthesis with ZKPIPE_ERR_INVALID_ARGUMENT. nthreads 0 or 1: one
 * thread. cancel (may be NULL) is looked at before each challenge: once
 * raised, no further challenge starts and the synthesis fails with
 * ZKPIPE_ERR_CANCELLED (a 32 GiB partition's eighteen challenges take tens
 * of seconds, which a cancelled job should not wait for). */
ZKP_WARN_UNUSED zkpipe_status zkp_fil_porep_circuit_mt(zkp_cs *cs, const zkp_fil_c1 *c1,
                                                       unsigned partition_k, unsigned nthreads,
                                                       const atomic_int *cancel, zkp_diag *diag);

#endif
