/* What synthetic.c (the curve-neutral half: files, layout, dispatch) and
 * the per-curve bodies (bn254_synthetic.c, bls12_381_synthetic.c, from
 * synthetic_body.h) share. See synthetic.h. */
#ifndef ZKP_SYNTHETIC_SYNTHETIC_INTERNAL_H
#define ZKP_SYNTHETIC_SYNTHETIC_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "synthetic/synthetic.h"
#include "util/splitmix.h"

#define ZKP_SYNTH_N_PUBLIC 2

/* The zkey's section ids (formats/zkey.h). */
enum {
    ZKP_SYNTH_SEC_PROTOCOL = 1,
    ZKP_SYNTH_SEC_HEADER = 2,
    ZKP_SYNTH_SEC_IC = 3,
    ZKP_SYNTH_SEC_COEFS = 4,
    ZKP_SYNTH_SEC_A = 5,
    ZKP_SYNTH_SEC_B1 = 6,
    ZKP_SYNTH_SEC_B2 = 7,
    ZKP_SYNTH_SEC_C = 8,
    ZKP_SYNTH_SEC_H = 9,
    ZKP_SYNTH_SEC_CONTRIB = 10,
    ZKP_SYNTH_SEC_COUNT
};

/* Where every section of one key lies in its file. */
typedef struct {
    zkpipe_curve curve;
    unsigned log_n;
    uint32_t n;       /* domain size */
    uint32_t m;       /* chain rows, n - n_public - 1 */
    uint32_t n_vars;  /* n - 1 */
    uint32_t n_coefs; /* 2m + n_public + 1 */
    size_t q_bytes, g1_bytes, g2_bytes;
    size_t off[ZKP_SYNTH_SEC_COUNT];  /* body offset of section t */
    size_t size[ZKP_SYNTH_SEC_COUNT]; /* body size of section t */
    size_t total;
} zkp_synth_layout;

static inline void zkp_synth_put32(uint8_t *p, uint32_t v) {
    for (int i = 0; i < 4; i++) p[i] = (uint8_t)(v >> (8 * i));
}

static inline void zkp_synth_put64(uint8_t *p, uint64_t v) {
    for (int i = 0; i < 8; i++) p[i] = (uint8_t)(v >> (8 * i));
}

/* Four limbs below 2^253, so below r of both curves. */
static inline void zkp_synth_scalar(uint64_t out[4], uint64_t *state) {
    for (int i = 0; i < 4; i++) out[i] = zkp_splitmix64(state);
    out[3] &= (1ULL << 61) - 1;
}

/* The generator state of witness index of a key made from seed: distinct
 * from the key's and from every other index's. */
static inline uint64_t zkp_synth_witness_state(uint64_t seed, uint64_t index) {
    return seed ^ 0x7769746e65737321ULL ^ ((index + 1) * 0xd1b54a32d192ed03ULL);
}

/* Fill the bodies of sections 2 to 9 of a key (the container, section 1
 * and section 10 are synthetic.c's). ZKPIPE_ERR_NO_MEMORY if the tables
 * cannot be allocated. */
zkpipe_status bn254_synthetic_fill_zkey(uint8_t *file, const zkp_synth_layout *l, uint64_t seed,
                                        unsigned nthreads);
zkpipe_status bls12_381_synthetic_fill_zkey(uint8_t *file, const zkp_synth_layout *l,
                                            uint64_t seed, unsigned nthreads);

/* The n_vars witness values of witness index, canonical little-endian, 32
 * bytes each, into out. */
void bn254_synthetic_fill_wtns(uint8_t *out, const zkp_synth_layout *l, uint64_t seed,
                               uint64_t index);
void bls12_381_synthetic_fill_wtns(uint8_t *out, const zkp_synth_layout *l, uint64_t seed,
                                   uint64_t index);

/* [k_i] G for the generator G of G1 or G2 and n scalars (4 canonical
 * limbs each), through the same tables and batches as the keys: out holds
 * n affine points of the group. For tests against G_mul_var. */
zkpipe_status bn254_synthetic_fixed_base_g1(void *out, const uint64_t *scalars, size_t n,
                                            unsigned nthreads);
zkpipe_status bn254_synthetic_fixed_base_g2(void *out, const uint64_t *scalars, size_t n,
                                            unsigned nthreads);
zkpipe_status bls12_381_synthetic_fixed_base_g1(void *out, const uint64_t *scalars, size_t n,
                                                unsigned nthreads);
zkpipe_status bls12_381_synthetic_fixed_base_g2(void *out, const uint64_t *scalars, size_t n,
                                                unsigned nthreads);

#endif
