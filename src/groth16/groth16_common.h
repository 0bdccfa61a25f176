/* Curve-independent parts of the Groth16 prover interface: options, stages
 * and the owned-buffer handle. Included by groth16_impl.h. */
#ifndef ZKP_GROTH16_GROTH16_COMMON_H
#define ZKP_GROTH16_GROTH16_COMMON_H

#include <stdatomic.h>
#include <stddef.h>

#include "util/alloc.h"

/* The stages of one proof, in order; prove_start runs SYNTHESIZE..MSM_C and
 * prove_finalize MSM_B2..ASSEMBLE, except that a backend holding the B2
 * bases (groth16/backend.h) runs MSM_B2 at the end of prove_start. The H
 * MSM comes first so that a, b and c are freed before the witness MSMs.
 * X(name, label) */
#define ZKP_G16_STAGE_MAP(X)            \
    X(SYNTHESIZE, "synthesize a, b, c") \
    X(NTT, "H polynomial (NTTs)")       \
    X(MSM_H, "MSM H (G1)")              \
    X(MSM_A, "MSM A (G1)")              \
    X(MSM_B1, "MSM B (G1)")             \
    X(MSM_C, "MSM L (G1)")              \
    X(MSM_B2, "MSM B (G2)")             \
    X(ASSEMBLE, "assemble")

typedef enum {
#define ZKP_G16_STAGE_ENUM_(name, label) ZKP_G16_##name,
    ZKP_G16_STAGE_MAP(ZKP_G16_STAGE_ENUM_)
#undef ZKP_G16_STAGE_ENUM_
    ZKP_G16_STAGE_COUNT
} zkp_g16_stage;

const char *zkp_g16_stage_label(zkp_g16_stage s);

/* Seconds spent in each stage of one proof. */
typedef struct {
    double seconds[ZKP_G16_STAGE_COUNT];
} zkp_g16_timings;

/* The G1 base sets of a proving key that prove_start sums over. */
typedef enum {
    ZKP_G16_SET_A = 0, /* A_j(tau), n_vars points */
    ZKP_G16_SET_B1,    /* B_j(tau) in G1, n_vars points */
    ZKP_G16_SET_L,     /* the L query of the private signals */
    ZKP_G16_SET_H,     /* the H query, domain_size points */
    ZKP_G16_SET_COUNT
} zkp_g16_base_set;

/* Sets of a key's point sets as bits: bit s for G1 set s, and one more for
 * the B2 bases (G2). */
#define ZKP_G16_SETS_B2 (1u << ZKP_G16_SET_COUNT)
#define ZKP_G16_SETS_ALL ((ZKP_G16_SETS_B2 << 1) - 1)

/* A key made ready for a backend (groth16/backend.h). */
typedef struct zkp_g16_rkey zkp_g16_rkey;
/* A buffer in a GPU's memory (gpu/gpu.h). */
typedef struct zkp_gpu_buf zkp_gpu_buf;

typedef struct {
    unsigned nthreads;          /* 0: every online CPU */
    const zkp_allocator *alloc; /* working buffers; NULL: zkp_default_allocator() */
    /* Called as each stage begins (from the proving thread), if set. */
    void (*progress)(void *ctx, zkp_g16_stage stage);
    void *progress_ctx;
    /* If set, read at every stage boundary (a relaxed atomic load, so another
     * thread may set it at any time): nonzero stops the proof with
     * ZKPIPE_ERR_CANCELLED at the next boundary. */
    const atomic_int *cancel;
    /* Where the H polynomial and the G1 MSMs run: a key made ready for a
     * backend (a GPU) from the same key as prove_start's; NULL: the CPU. */
    const zkp_g16_rkey *rkey;
    /* The witness already on its way to rkey's GPU, queued by
     * zkp_g16_witness_to_device from the witness prove_start is given;
     * NULL: prove_start uploads it. prove_start takes it over with the
     * witness and frees it on every path, before the witness. */
    zkp_gpu_buf *witness_on_device;
    /* Tests only: the blinding scalars r then s (canonical, four limbs
     * each, nonzero and < r) instead of fresh ones from the OS, so that two
     * backends' proofs of one witness can be compared bit for bit. A proof
     * made with fixed blinding is not zero-knowledge; nothing but the tests
     * sets this. */
    const uint64_t *test_fixed_rs;
} zkp_g16_prove_opts;

/* A buffer handed from one owner to the next together with the allocator
 * that frees it. The receiver takes ownership: it sets ptr to NULL in the
 * caller's handle and frees the memory when done, on failure too. */
typedef struct {
    void *ptr;
    size_t bytes;
    zkp_mem_category cat;
    const zkp_allocator *alloc;
} zkp_buffer;

static inline void zkp_buffer_release(zkp_buffer *b) {
    zkp_free(b->alloc, b->ptr, b->bytes, b->cat);
    b->ptr = NULL;
    b->bytes = 0;
}

/* Gives up the witness prove_start was given (NULL: none), and first its
 * copy queued to the device (opts->witness_on_device), since freeing that
 * waits for the transfer that reads the witness: every path of prove_start
 * that does not keep the witness ends here. */
void zkp_g16_release_witness(zkp_buffer *witness, const zkp_g16_prove_opts *opts);

/* The thread count opts asks for, resolving 0 to the online CPUs. */
unsigned zkp_g16_threads(const zkp_g16_prove_opts *opts);

#endif
