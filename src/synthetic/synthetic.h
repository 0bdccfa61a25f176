/* Synthetic Groth16 workloads: a snarkjs-format proving key and witnesses
 * for a circuit of any size from 2^ZKP_SYNTHETIC_MIN_LOG to
 * 2^ZKP_SYNTHETIC_MAX_LOG rows, made without a powers-of-tau file or a
 * snarkjs setup (far too slow beyond 2^15 constraints on a small machine),
 * so that the prover and the engine can be benchmarked and tested at every
 * size.
 *
 * INSECURE BY CONSTRUCTION. The toxic waste (tau, alpha, beta, gamma, delta)
 * is derived from a 64-bit seed, so anyone who knows the seed, or guesses
 * it, can forge proofs for the key. Never use these keys for anything but
 * benchmarks and tests. The MPC section of every key says so in ASCII.
 *
 * The circuit, for a domain of n = 2^log_n rows (m = n - 3):
 *
 *     signals   w_0 = 1, w_1 = out (public output), w_2 = x_0 (public
 *               input), w_{2+i} = x_i for 1 <= i < m (private)
 *     rows      i < m:  x_i · x_i = x_{i+1} - k_i · 1   with k_i = i + 1
 *                       and x_m = out: a squaring chain
 *               m + s for s = 0, 1, 2: A = w_s, the rows snarkjs adds so
 *               that every public signal enters A
 *
 * so n_public = 2, n_vars = n - 1 and the domain is exactly n (a circuit of
 * n R1CS constraints would need a domain of 2n). A witness is the chain
 * from a starting x_0 drawn from the seed and the witness's index, so
 * witnesses of one key are distinct and each satisfies the circuit.
 *
 * The key follows snarkjs's zkey_new to the byte: the sections in snarkjs's
 * order (1, 2, 4, 3, 9, 8, 5, 6, 7, 10), coefficients as coef·R² mod r,
 * points in the circom layout, the H query L^{2n}_{2j+1}(tau)/delta (the
 * odd Lagrange polynomials of the 2n-th roots of snarkjs's family), IC and
 * the C (L) query as (beta·u + alpha·v + w)/gamma and /delta. Only gamma
 * differs: snarkjs leaves it the generator, here it is random like delta.
 *
 * The points are fixed-base multiples of the generators: windowed tables of
 * signed digits and additions in affine coordinates that share one
 * inversion over a batch of points, on nthreads threads. */
#ifndef ZKP_SYNTHETIC_SYNTHETIC_H
#define ZKP_SYNTHETIC_SYNTHETIC_H

#include <stddef.h>
#include <stdint.h>

#include "util/diag.h"
#include "zkpipe/curve.h"

/* log2 of the domain. 2^2 is the smallest domain with one chain row; at
 * 2^26 a BN254 key is already 25 GiB. */
#define ZKP_SYNTHETIC_MIN_LOG 2
#define ZKP_SYNTHETIC_MAX_LOG 26

typedef struct {
    zkpipe_curve curve;
    unsigned log_n;    /* the domain is 2^log_n rows */
    uint64_t seed;     /* the toxic waste and the witnesses' starting values */
    unsigned nthreads; /* 0: every online CPU */
} zkp_synthetic_params;

typedef struct {
    uint32_t domain_size;   /* 2^log_n */
    uint32_t n_constraints; /* chain rows: domain_size - n_public - 1 */
    uint32_t n_public;      /* 2: out, then x_0 */
    uint32_t n_vars;        /* domain_size - 1, counting w_0 = 1 */
    size_t zkey_bytes;      /* size of the key file */
    size_t wtns_bytes;      /* size of one witness file */
} zkp_synthetic_shape;

/* Parses "<curve>:<log2>": the curve bn254, bn128 or alt_bn128, or
 * bls12381, bls12_381 or bls12-381 (any case); log2 decimal in
 * [ZKP_SYNTHETIC_MIN_LOG, ZKP_SYNTHETIC_MAX_LOG]. ZKPIPE_ERR_INVALID_ARGUMENT
 * with a message otherwise. */
ZKP_WARN_UNUSED zkpipe_status zkp_synthetic_parse_spec(const char *spec, zkpipe_curve *curve,
                                                       unsigned *log_n, zkp_diag *diag);

/* The dimensions and file sizes of p's workload (sizes overflow-checked):
 * ZKPIPE_ERR_INVALID_ARGUMENT for an unknown curve or log_n out of range,
 * ZKPIPE_ERR_OUT_OF_RANGE when a file would not fit in size_t. */
ZKP_WARN_UNUSED zkpipe_status zkp_synthetic_shape_of(const zkp_synthetic_params *p,
                                                     zkp_synthetic_shape *out, zkp_diag *diag);

/* The key file's bytes: *out from malloc (free() it), *len = its size.
 * The same params give the same bytes. */
ZKP_WARN_UNUSED zkpipe_status zkp_synthetic_zkey(const zkp_synthetic_params *p, uint8_t **out,
                                                 size_t *len, zkp_diag *diag);

/* The bytes of witness number index of p's circuit, as zkp_synthetic_zkey. */
ZKP_WARN_UNUSED zkpipe_status zkp_synthetic_wtns(const zkp_synthetic_params *p, uint64_t index,
                                                 uint8_t **out, size_t *len, zkp_diag *diag);

/* The same, written to path with zkp_write_file_atomic. */
ZKP_WARN_UNUSED zkpipe_status zkp_synthetic_write_zkey(const zkp_synthetic_params *p,
                                                       const char *path, zkp_diag *diag);
ZKP_WARN_UNUSED zkpipe_status zkp_synthetic_write_wtns(const zkp_synthetic_params *p,
                                                       uint64_t index, const char *path,
                                                       zkp_diag *diag);

#endif
