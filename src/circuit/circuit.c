/* The curve-tagged wrappers of the pre-compiled circuit. */
#include "circuit/circuit.h"

#include <string.h>

size_t zkp_circuit_bytes(const zkp_g16_pk *pk) {
    switch (pk->curve) {
    case ZKPIPE_CURVE_BN254:
        return bn254_csr_bytes(&pk->u.bn254);
    case ZKPIPE_CURVE_BLS12_381:
        return bls12_381_csr_bytes(&pk->u.bls12_381);
    }
    return 0;
}

zkpipe_status zkp_circuit_build(zkp_circuit *c, const zkp_g16_pk *pk, const zkp_allocator *alloc,
                                zkp_diag *diag) {
    memset(c, 0, sizeof *c);
    c->curve = pk->curve;
    switch (pk->curve) {
    case ZKPIPE_CURVE_BN254:
        return bn254_csr_build(&c->u.bn254, &pk->u.bn254, alloc, diag);
    case ZKPIPE_CURVE_BLS12_381:
        return bls12_381_csr_build(&c->u.bls12_381, &pk->u.bls12_381, alloc, diag);
    }
    return zkp_diag_fail(diag, ZKPIPE_ERR_UNSUPPORTED, "unsupported curve");
}

void zkp_circuit_free(zkp_circuit *c) {
    switch (c->curve) {
    case ZKPIPE_CURVE_BN254:
        bn254_csr_free(&c->u.bn254);
        break;
    case ZKPIPE_CURVE_BLS12_381:
        bls12_381_csr_free(&c->u.bls12_381);
        break;
    }
}

void zkp_circuit_synthesize(const zkp_circuit *c, const uint64_t *w, void *abc, unsigned nthreads) {
    switch (c->curve) {
    case ZKPIPE_CURVE_BN254:
        bn254_csr_synthesize(&c->u.bn254, w, abc, nthreads);
        break;
    case ZKPIPE_CURVE_BLS12_381:
        bls12_381_csr_synthesize(&c->u.bls12_381, w, abc, nthreads);
        break;
    }
}

size_t zkp_circuit_abc_bytes(const zkp_circuit *c) {
    /* Both scalar fields are 32 bytes. */
    size_t rows = c->curve == ZKPIPE_CURVE_BN254 ? c->u.bn254.n_rows : c->u.bls12_381.n_rows;
    return 3 * rows * 32;
}

#define GPU_SRC_(csr, out)                                                  \
    do {                                                                    \
        (out)->n_rows = (csr)->n_rows;                                      \
        for (int m = 0; m < 2; m++) {                                       \
            (out)->nnz[m] = (csr)->nnz[m];                                  \
            (out)->row_ptr[m] = (csr)->row_ptr[m];                          \
            (out)->col[m] = (csr)->col[m];                                  \
            (out)->vidx[m] = (csr)->vidx[m];                                \
            (out)->val[m] = (csr)->val[m];                                  \
        }                                                                   \
        (out)->dict = (csr)->dict;                                          \
        (out)->n_dict = (csr)->n_dict;                                      \
    } while (0)

void zkp_circuit_gpu_src(const zkp_circuit *c, zkp_gpu_csr_src *out) {
    memset(out, 0, sizeof *out);
    switch (c->curve) {
    case ZKPIPE_CURVE_BN254:
        GPU_SRC_(&c->u.bn254, out);
        break;
    case ZKPIPE_CURVE_BLS12_381:
        GPU_SRC_(&c->u.bls12_381, out);
        break;
    }
}
#undef GPU_SRC_
