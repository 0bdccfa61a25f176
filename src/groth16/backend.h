/* Where the device half of prove_start runs: the CPU, or one GPU.
 *
 * prove_start does three kinds of heavy work after synthesis: the H
 * polynomial (six NTTs and a pointwise step), the H MSM over the values it
 * produces, and the MSMs of the witness over the key's A, B1 and L bases.
 * A backend does those three things, through one small table of
 * operations; the prover calls the table and nothing else, so the CPU code
 * and the CUDA code are two implementations of the same interface:
 *
 *   key_load   makes a key's four G1 base sets ready (resident in VRAM for
 *              CUDA; nothing to do on the CPU, where the key already lies)
 *   h_scalars  a, b, c on the domain -> the H scalars on the coset
 *   msm_g1     sum of scalars times one base set, from host scalars or
 *              from the H scalars wherever the backend left them
 *
 * The G2 MSM and the assembly stay on the CPU in prove_finalize, as in the
 * system zkpipe reimplements, so a GPU worker moves on to the next
 * partition while a CPU thread finishes this one.
 *
 * A backend is opened once per device and a key is loaded once per
 * backend (zkp_g16_rkey, a "ready key"); prove_start takes the ready key
 * through zkp_g16_prove_opts.rkey (NULL: the CPU, as before). Calls on one
 * CUDA backend must not overlap: the engine's device lock, or the one
 * thread of the command line, serialises them. */
#ifndef ZKP_GROTH16_BACKEND_H
#define ZKP_GROTH16_BACKEND_H

#include "gpu/gpu.h"
#include "groth16/groth16.h"

typedef struct zkp_g16_backend zkp_g16_backend;

/* The H scalars between the H step and the H MSM: in host memory (over a,
 * on the CPU) or in a device buffer. */
typedef struct {
    uint64_t *host;
    zkp_gpu_buf *dev;
} zkp_g16_hvals;

/* What the CPU implementation needs from the prover: threads, MSM scratch
 * and the allocator of its NTT domain. */
typedef struct {
    unsigned nthreads;
    void *scratch;
    size_t scratch_bytes;
    const zkp_allocator *alloc;
} zkp_g16_cpu_work;

typedef struct {
    const char *kind; /* "cpu", "cuda" */
    ZKP_WARN_UNUSED zkpipe_status (*key_load)(zkp_g16_rkey *k, zkp_diag *diag);
    void (*key_unload)(zkp_g16_rkey *k);
    /* abc: 3n elements (Montgomery, host), overwritten; root: the domain's
     * primitive root and shift the coset's, both Montgomery, four limbs. */
    ZKP_WARN_UNUSED zkpipe_status (*h_scalars)(const zkp_g16_rkey *k, zkp_g16_hvals *h,
                                               uint64_t *abc, const uint64_t *root,
                                               const uint64_t *shift, const zkp_g16_cpu_work *w,
                                               zkp_diag *diag);
    void (*hvals_free)(zkp_g16_hvals *h);
    /* out: a Jacobian point of the key's G1. scalars (host, canonical) or,
     * when NULL, the H values h. */
    ZKP_WARN_UNUSED zkpipe_status (*msm_g1)(const zkp_g16_rkey *k, void *out, zkp_g16_base_set set,
                                            const uint64_t *scalars, const zkp_g16_hvals *h,
                                            size_t n, const zkp_g16_cpu_work *w, zkp_diag *diag);
} zkp_g16_backend_ops;

struct zkp_g16_backend {
    const zkp_g16_backend_ops *ops;
    zkp_gpu *gpu; /* the CUDA backend's context */
    char name[160];
};

struct zkp_g16_rkey {
    zkp_g16_backend *be;
    const zkp_g16_pk *pk; /* borrowed: must outlive the ready key */
    zkp_gpu_bases *bases[ZKP_G16_SET_COUNT];
};

/* The backend a device name asks for:
 *   "cpu"      the CPU
 *   "cuda"     GPU 0, "cuda:N" GPU N; ERR_NO_DEVICE (or ERR_UNSUPPORTED in
 *              a build without CUDA) with diag saying why when it is not
 *              there
 *   "auto"     GPU 0 if there is a usable one, else the CPU; *fallback (if
 *              not NULL) receives why the CPU was chosen, or "" */
ZKP_WARN_UNUSED zkpipe_status zkp_g16_backend_open(zkp_g16_backend **out, const char *device,
                                                   char *fallback, size_t fallback_len,
                                                   zkp_diag *diag);
void zkp_g16_backend_close(zkp_g16_backend *be); /* NULL is a no-op */
const char *zkp_g16_backend_name(const zkp_g16_backend *be);
int zkp_g16_backend_is_gpu(const zkp_g16_backend *be);
zkp_gpu *zkp_g16_backend_gpu(const zkp_g16_backend *be); /* NULL on the CPU */

/* pk made ready for be (its G1 bases resident on a GPU); pk must outlive
 * it. */
ZKP_WARN_UNUSED zkpipe_status zkp_g16_rkey_load(zkp_g16_rkey **out, zkp_g16_backend *be,
                                                const zkp_g16_pk *pk, zkp_diag *diag);
void zkp_g16_rkey_free(zkp_g16_rkey *k); /* NULL is a no-op */

/* The CPU's table, which prove_start uses when opts->rkey is NULL. */
extern const zkp_g16_backend_ops zkp_g16_cpu_ops;

/* The CPU implementation, per curve (groth16_body.h). */
#define ZKP_G16_CPU_OPS_DECLARE_(C)                                                             \
    zkpipe_status C##_g16_cpu_h_scalars(const zkp_g16_rkey *k, zkp_g16_hvals *h, uint64_t *abc,  \
                                        const uint64_t *root, const uint64_t *shift,           \
                                        const zkp_g16_cpu_work *w, zkp_diag *diag);             \
    zkpipe_status C##_g16_cpu_msm_g1(const zkp_g16_rkey *k, void *out, zkp_g16_base_set set,     \
                                     const uint64_t *scalars, const zkp_g16_hvals *h, size_t n, \
                                     const zkp_g16_cpu_work *w, zkp_diag *diag);
ZKP_G16_CPU_OPS_DECLARE_(bn254)
ZKP_G16_CPU_OPS_DECLARE_(bls12_381)
#undef ZKP_G16_CPU_OPS_DECLARE_

#endif
