/* Where the device half of prove_start runs: the CPU, or one GPU.
 *
 * prove_start does three kinds of heavy work after synthesis: the H
 * polynomial (six NTTs and a pointwise step), the H MSM over the values it
 * produces, and the MSMs of the witness over the key's A, B1 and L bases.
 * A backend does those three things, through one small table of
 * operations; the prover calls the table and nothing else, so the CPU code
 * and the CUDA code are two implementations of the same interface:
 *
 *   key_load         makes a key's four G1 base sets ready (resident in
 *                    VRAM for CUDA; nothing to do on the CPU, where the key
 *                    already lies)
 *   h_scalars        a, b, c on the domain -> the H scalars on the coset
 *   witness_scalars  the witness where the MSMs read it: in place on the
 *                    CPU, uploaded once on a GPU, where the A, B1 and L
 *                    MSMs all read the one copy
 *   msm_g1           sum of a run of those scalars times one base set
 *   msm_g2           the witness times the key's B2 bases (G2), for a
 *                    backend that holds them (a GPU, by default)
 *
 * Where the B2 MSM runs is the backend's choice. The system zkpipe
 * reimplements keeps it on a CPU thread in prove_finalize, so a GPU worker
 * moves on to the next partition while the CPU finishes this one; that
 * pays only while the CPU's G2 MSM is shorter than the GPU's half of the
 * next partition. It is not: for a PoRep partition the B2 MSM took 8.4 s
 * on 16 cores against 0.65 s on an H200 (docs/PERFORMANCE.md), so a CUDA
 * backend holds the B2 bases and runs it in prove_start, leaving the
 * assembly alone to prove_finalize; zkp_g16_backend_set_g2_on_cpu chooses
 * the other way.
 *
 * A key too big for the device's memory is still proved there: a G1 base
 * set that does not fit is streamed, copied from host memory through a
 * window of device memory chunk by chunk at each MSM, and a B2 set that
 * does not fit leaves the B2 MSM to the CPU in prove_finalize. Streaming
 * costs the copy of the set at every proof (about 13 GB for a PoRep
 * partition's H set, a quarter of a second on PCIe 5), so resident sets
 * come first: the engine drops other keys' copies before it lets a key
 * stream (zkp_g16_rkey_streamed_sets).
 *
 * A backend is opened once per device and a key is loaded once per
 * backend (zkp_g16_rkey, a "ready key"); prove_start takes the ready key
 * through zkp_g16_prove_opts.rkey (NULL: the CPU, as before). Calls on one
 * CUDA backend must not overlap: the engine's device lock, or the one
 * thread of the command line, serialises them. The one exception is
 * zkp_g16_witness_to_device, which only books a buffer and queues a copy,
 * so that the next partition's witness crosses the bus while the device
 * computes the one before it. */
#ifndef ZKP_GROTH16_BACKEND_H
#define ZKP_GROTH16_BACKEND_H

#include <pthread.h>

#include "gpu/gpu.h"
#include "groth16/groth16.h"

typedef struct zkp_g16_backend zkp_g16_backend;

/* A vector of MSM scalars (canonical, four limbs each) where a backend
 * left it: in host memory (the H values over a, or the witness itself, on
 * the CPU) or in a device buffer of its GPU. */
typedef struct {
    const uint64_t *host;
    zkp_gpu_buf *dev;
} zkp_g16_scalars;

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
    /* circuit (may be NULL): the key's compiled circuit, for a backend that
     * makes a, b and c itself (zkp_g16_rkey_load_with_circuit). */
    ZKP_WARN_UNUSED zkpipe_status (*key_load)(zkp_g16_rkey *k, const zkp_gpu_csr_src *circuit,
                                              zkp_diag *diag);
    void (*key_unload)(zkp_g16_rkey *k);
    /* abc: 3n elements (Montgomery, host), overwritten; root: the domain's
     * primitive root and shift the coset's, both Montgomery, four limbs. */
    ZKP_WARN_UNUSED zkpipe_status (*h_scalars)(const zkp_g16_rkey *k, zkp_g16_scalars *h,
                                               uint64_t *abc, const uint64_t *root,
                                               const uint64_t *shift, const zkp_g16_cpu_work *w,
                                               zkp_diag *diag);
    /* h_scalars with a, b and c made on the device from the witness ws
     * (witness_scalars), through the key's circuit there (k->csr, set by
     * zkp_g16_rkey_load_with_circuit); NULL on the CPU. */
    ZKP_WARN_UNUSED zkpipe_status (*h_scalars_circuit)(const zkp_g16_rkey *k, zkp_g16_scalars *h,
                                                       const zkp_g16_scalars *ws,
                                                       const uint64_t *root, const uint64_t *shift,
                                                       zkp_diag *diag);
    /* witness: n canonical values in host memory, which must outlive *s.
     * It reads nothing of a ready key, and may run beside the other calls
     * (zkp_g16_witness_to_device). */
    ZKP_WARN_UNUSED zkpipe_status (*witness_scalars)(const zkp_g16_backend *be,
                                                     zkp_g16_scalars *s, const uint64_t *witness,
                                                     size_t n, zkp_diag *diag);
    void (*scalars_free)(zkp_g16_scalars *s); /* a zeroed *s is a no-op */
    /* out: a Jacobian point of the key's G1, the sum over i < n of scalar
     * first + i of s times base i of the set. */
    ZKP_WARN_UNUSED zkpipe_status (*msm_g1)(const zkp_g16_rkey *k, void *out, zkp_g16_base_set set,
                                            const zkp_g16_scalars *s, size_t first, size_t n,
                                            const zkp_g16_cpu_work *w, zkp_diag *diag);
    /* out: a Jacobian point of the key's G2, the witness s times the B2
     * bases; called only when k->b2 holds them. */
    ZKP_WARN_UNUSED zkpipe_status (*msm_g2)(const zkp_g16_rkey *k, void *out,
                                            const zkp_g16_scalars *s, zkp_diag *diag);
} zkp_g16_backend_ops;

struct zkp_g16_backend {
    const zkp_g16_backend_ops *ops;
    zkp_gpu *gpu; /* the CUDA backend's context */
    char name[160];
    int g2_on_cpu; /* a GPU leaves the B2 MSM to prove_finalize on the CPU */
    size_t resident_limit; /* bytes of a G1 set above which it streams; 0: no limit */
    size_t stream_chunk;   /* points per chunk of a streamed set */
    /* Set once, when the device is found failing every call
     * (zkp_g16_backend_probe), under lost_lock. */
    pthread_mutex_t lost_lock;
    int lost;
    char why_lost[ZKP_DIAG_MAX];
};

struct zkp_g16_rkey {
    zkp_g16_backend *be;
    const zkp_g16_pk *pk; /* borrowed: must outlive the ready key */
    zkp_gpu_bases *bases[ZKP_G16_SET_COUNT];
    zkp_gpu_bases *b2; /* the B2 bases where the backend runs the B2 MSM, else NULL */
    /* A sparse key's column lists of A and of B (B1 and B2) on the device,
     * through which the witness is gathered before those MSMs; NULL for a
     * dense key. */
    zkp_gpu_buf *cols[2];
    /* The key's compiled circuit on the device, where a, b and c are made
     * from the witness (zkp_g16_rkey_load_with_circuit); NULL: they come
     * from the host. */
    zkp_gpu_csr *csr;
    unsigned streamed; /* bit s: G1 set s is streamed from the key at each MSM */
};

/* What a device name names: ZKP_DEVICE_CPU ("cpu"), ZKP_DEVICE_AUTO
 * ("auto"), ZKP_DEVICE_CUDA ("cuda", GPU 0, or "cuda:N", GPU N for N up to
 * 1024, digits only) with *ordinal set; -1 for anything else. */
enum { ZKP_DEVICE_CPU = 0, ZKP_DEVICE_AUTO, ZKP_DEVICE_CUDA };
int zkp_g16_device_parse(const char *device, unsigned *ordinal);

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

/* Out of service. A fault in a GPU kernel (an illegal address, an
 * uncorrectable ECC error, the driver resetting the device) fails that
 * call and every later one on the device until the process ends, where any
 * other failure refuses only the call that met it. After a call on be
 * fails, zkp_g16_backend_probe asks the device which it was and, for a
 * fault, marks be lost for good, keeping the driver's message; it returns
 * 1 where be is lost. zkp_g16_backend_lost reads the mark (and the
 * message, into why) without asking the device. The CPU is never lost. */
int zkp_g16_backend_probe(zkp_g16_backend *be);
int zkp_g16_backend_lost(zkp_g16_backend *be, char *why, size_t why_len);
/* For the tests: on a GPU, queues a kernel that traps, a real fault that
 * the next call meets; on the CPU, which has no device to fault, marks the
 * backend lost as a probe would. */
void zkp_g16_backend_test_fault(zkp_g16_backend *be);
/* on: keys loaded from now on leave the B2 MSM to prove_finalize on the
 * CPU, as the CPU backend always does. */
void zkp_g16_backend_set_g2_on_cpu(zkp_g16_backend *be, int on);
/* Keys loaded from now on stream every G1 base set whose points take more
 * than resident_limit bytes (0: only those that do not fit), through a
 * window of chunk points (0: the default, 2^22). For tests and benchmarks
 * of the streamed path on a device where everything fits. */
void zkp_g16_backend_set_streaming(zkp_g16_backend *be, size_t resident_limit, size_t chunk);

/* The witness's copy to be's GPU, queued now rather than at prove_start,
 * so that it runs beside the partition the GPU is busy with: the engine's
 * device worker queues it before it waits for the device. *out receives
 * the device buffer, for zkp_g16_prove_opts.witness_on_device, or NULL
 * where nothing was queued: on the CPU, which reads the witness where it
 * lies, and where the GPU's free memory less what a partition's working
 * set (zkp_g16_device_work_bytes) may still ask for has no room for it;
 * prove_start uploads it then. witness must hold pk's n_vars values and
 * stay until the buffer is freed. Safe beside another thread's prove_start
 * on the same backend. */
ZKP_WARN_UNUSED zkpipe_status zkp_g16_witness_to_device(zkp_gpu_buf **out,
                                                        const zkp_g16_backend *be,
                                                        const zkp_g16_pk *pk,
                                                        const zkp_buffer *witness,
                                                        zkp_diag *diag);

/* pk made ready for be (its G1 bases resident on a GPU); pk must outlive
 * it. */
ZKP_WARN_UNUSED zkpipe_status zkp_g16_rkey_load(zkp_g16_rkey **out, zkp_g16_backend *be,
                                                const zkp_g16_pk *pk, zkp_diag *diag);

/* zkp_g16_rkey_load with the key's compiled circuit (circuit/circuit.h, in
 * gpu.h's terms: src's rows must be the key's domain) put on the GPU too,
 * so that prove_start_abc makes a, b and c there from the witness when it
 * is given none, and a partition takes its witness alone in host memory.
 * The circuit goes up first, and only if it fits beside all of the key's
 * bases and a partition's working set: resident bases come first, since a
 * streamed set costs its copy at every proof where a, b and c made on the
 * host cost host memory. (*out)->csr says whether it went. On the CPU
 * the circuit is not used. */
ZKP_WARN_UNUSED zkpipe_status zkp_g16_rkey_load_with_circuit(zkp_g16_rkey **out,
                                                             zkp_g16_backend *be,
                                                             const zkp_g16_pk *pk,
                                                             const zkp_gpu_csr_src *src,
                                                             zkp_diag *diag);
void zkp_g16_rkey_free(zkp_g16_rkey *k); /* NULL is a no-op */
/* The device memory one partition of pk takes beside its key's bases, as
 * estimated when a key is made resident under a device memory budget
 * (zkp_gpu_set_memory_budget): the sets that do not fit beside it stream. */
uint64_t zkp_g16_device_work_bytes(const zkp_g16_pk *pk);

/* How many of k's G1 base sets are streamed rather than resident (0 on the
 * CPU). */
unsigned zkp_g16_rkey_streamed_sets(const zkp_g16_rkey *k);


/* The point sets (ZKP_G16_SETS_*) k reads from the key in host memory at
 * each proof: every set on the CPU; on a GPU the streamed sets, and B2
 * when its MSM is left to the CPU. A set that is in none of a key's ready
 * keys' masks, with a ready key on every device that proves it, is needed
 * in host memory only to make it ready again (the engine frees it then:
 * engine/keys.c). */
unsigned zkp_g16_rkey_host_sets(const zkp_g16_rkey *k);

/* The CPU's table, which prove_start uses when opts->rkey is NULL. */
extern const zkp_g16_backend_ops zkp_g16_cpu_ops;

/* The CPU implementation, per curve (groth16_body.h). */
#define ZKP_G16_CPU_OPS_DECLARE_(C)                                                             \
    zkpipe_status C##_g16_cpu_h_scalars(const zkp_g16_rkey *k, zkp_g16_scalars *h, uint64_t *abc, \
                                        const uint64_t *root, const uint64_t *shift,           \
                                        const zkp_g16_cpu_work *w, zkp_diag *diag);             \
    zkpipe_status C##_g16_cpu_msm_g1(const zkp_g16_rkey *k, void *out, zkp_g16_base_set set,     \
                                     const zkp_g16_scalars *s, size_t first, size_t n,          \
                                     const zkp_g16_cpu_work *w, zkp_diag *diag);
ZKP_G16_CPU_OPS_DECLARE_(bn254)
ZKP_G16_CPU_OPS_DECLARE_(bls12_381)
#undef ZKP_G16_CPU_OPS_DECLARE_

#endif
