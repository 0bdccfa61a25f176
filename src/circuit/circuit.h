/* Pre-compiled circuits: the R1CS matrices A and B of a Groth16 key in
 * compressed sparse rows, and the threaded synthesis (SpMV) that turns a
 * witness into a, b and c.
 *
 * The prover can synthesize from the key's coefficient list by itself
 * (groth16's prove_start scatters entry by entry, on one thread, with no
 * extra memory). The engine compiles each key once instead, charging the
 * compiled form to its budget, and runs synthesis as its own stage: rows
 * are independent, so any number of threads share the work, and the output
 * goes into buffers of the partition's reservation, then to
 * C_g16_prove_start_abc.
 *
 * Per curve C (bn254, bls12_381), from the one body circuit_body.h:
 *   C_csr_t, C_csr_bytes(pk), C_csr_build(csr, pk, alloc, diag),
 *   C_csr_free(csr), C_csr_synthesize(csr, w, abc, nthreads),
 *   C_csr_synthesize_rows(csr, w, abc, lo, hi), C_csr_column_used(csr, m, j)
 * and the curve-tagged wrapper below. */
#ifndef ZKP_CIRCUIT_CIRCUIT_H
#define ZKP_CIRCUIT_CIRCUIT_H

#include "circuit/bls12_381_circuit.h"
#include "circuit/bn254_circuit.h"
#include "gpu/gpu.h"
#include "groth16/groth16.h"

typedef struct {
    zkpipe_curve curve;
    union {
        bn254_csr_t bn254;
        bls12_381_csr_t bls12_381;
    } u;
} zkp_circuit;

size_t zkp_circuit_bytes(const zkp_g16_pk *pk);
ZKP_WARN_UNUSED zkpipe_status zkp_circuit_build(zkp_circuit *c, const zkp_g16_pk *pk,
                                                const zkp_allocator *alloc, zkp_diag *diag);
void zkp_circuit_free(zkp_circuit *c);
/* abc: 3·n_rows elements of the curve's scalar field (32 bytes each). */
void zkp_circuit_synthesize(const zkp_circuit *c, const uint64_t *w, void *abc, unsigned nthreads);
/* Bytes of the a, b, c buffer synthesis fills. */
size_t zkp_circuit_abc_bytes(const zkp_circuit *c);
/* c's arrays as a GPU takes them (gpu/gpu.h), borrowed from c. */
void zkp_circuit_gpu_src(const zkp_circuit *c, zkp_gpu_csr_src *out);

#endif
