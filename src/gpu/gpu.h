/* The GPU layer: the device half of the prover on NVIDIA GPUs, in CUDA.
 *
 * This header is the whole surface of src/gpu/ for the rest of the tree,
 * and it is plain C: the CUDA code stays in the .cu files behind it, so
 * nothing above this layer includes a CUDA header. A build without CUDA
 * (ZKPIPE_ENABLE_CUDA=OFF, or AUTO with no nvcc) compiles gpu_none.c
 * instead, where every entry point answers ZKPIPE_ERR_UNSUPPORTED with a
 * message that says so.
 *
 * Data crosses in the CPU's own layouts: a field element is the four or
 * six little-endian 64-bit limbs of field/field.h in Montgomery form, an
 * affine point is (x, y) with (0, 0) for infinity as in curve/ec_impl.h,
 * and an XYZZ point is (X, Y, ZZ, ZZZ) as there. Scalars are canonical,
 * four limbs each, as the MSMs on the CPU take them.
 *
 * Errors. Every CUDA call is checked. A failure returns ZKPIPE_ERR_DEVICE
 * (ZKPIPE_ERR_NO_MEMORY when the device is out of memory) with diag naming
 * the call and CUDA's message, frees what the failing call had allocated,
 * and leaves the context usable for the next call; no exception and no
 * abort crosses this boundary. The exception is a fault inside a kernel
 * (an illegal address, a trap, an uncorrectable ECC error): CUDA then
 * fails every later call on the device until the process ends, which
 * zkp_gpu_check tells apart.
 *
 * Threads. A context belongs to one device. Calls on one context must not
 * overlap (the engine's device lock serialises them); distinct contexts,
 * on one device or several, are independent. */
#ifndef ZKP_GPU_GPU_H
#define ZKP_GPU_GPU_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#include "util/diag.h"

/* 1 when this build has the CUDA backend, else 0. */
int zkp_gpu_built(void);

/* Asks the CUDA runtime to load every kernel when it starts, rather than
 * each at its first launch (CUDA_MODULE_LOADING=EAGER, unless the
 * environment already says otherwise). A long-lived engine calls it so that
 * the host memory the loaded kernels take is there before the engine
 * measures its baseline: loaded lazily, it appears in the middle of the
 * first jobs, as memory no category holds (docs/MEMORY.md). It sets an
 * environment variable, so it must be called before any other thread
 * starts and before the first CUDA call: first thing in main. */
void zkp_gpu_prefer_eager_loading(void);

/* The number of CUDA devices. ZKPIPE_ERR_NO_DEVICE, with diag saying why
 * (no driver, no device), when there is none; ZKPIPE_ERR_UNSUPPORTED in a
 * build without CUDA. */
ZKP_WARN_UNUSED zkpipe_status zkp_gpu_device_count(unsigned *count, zkp_diag *diag);

typedef struct {
    unsigned ordinal;
    char name[128];
    int cc_major, cc_minor; /* compute capability */
    unsigned multiprocessors;
    uint64_t total_bytes, free_bytes; /* device memory, as the driver reports it */
} zkp_gpu_info;

ZKP_WARN_UNUSED zkpipe_status zkp_gpu_device_info(zkp_gpu_info *info, unsigned ordinal,
                                                  zkp_diag *diag);

/* Device memory a context holds, by what it holds. */
typedef enum {
    ZKP_GPU_MEM_BASES = 0, /* resident key bases (and their precomputed multiples) */
    ZKP_GPU_MEM_ABC,       /* a, b, c and the H values */
    ZKP_GPU_MEM_SCALARS,   /* witness scalars of the MSMs */
    ZKP_GPU_MEM_SCRATCH,   /* buckets, sort keys, twiddles */
    ZKP_GPU_MEM_CACHED,    /* freed working buffers kept for reuse (zkp_gpu_set_cache) */
    ZKP_GPU_MEM_COUNT_
} zkp_gpu_mem_category;

const char *zkp_gpu_mem_category_name(zkp_gpu_mem_category c);

typedef struct {
    uint64_t live_bytes[ZKP_GPU_MEM_COUNT_];
    uint64_t live_total, peak_total;
    uint64_t h2d_bytes, d2h_bytes; /* copied so far, host to device and back */
    double busy_seconds;           /* time inside this context's calls */
} zkp_gpu_stats;

/* A context on one device. */
typedef struct zkp_gpu zkp_gpu;

ZKP_WARN_UNUSED zkpipe_status zkp_gpu_open(zkp_gpu **out, unsigned ordinal, zkp_diag *diag);
void zkp_gpu_close(zkp_gpu *g); /* NULL is a no-op; frees every buffer of g */
unsigned zkp_gpu_ordinal(const zkp_gpu *g);
void zkp_gpu_stats_get(const zkp_gpu *g, zkp_gpu_stats *out);

/* Whether g's device still works, asked after a call failed: ZKPIPE_OK
 * where the failure refused only that call (no memory, a bad argument),
 * ZKPIPE_ERR_DEVICE with the driver's message where a kernel's fault left
 * the device failing every call until the process ends. It waits for the
 * device's queued work. */
ZKP_WARN_UNUSED zkpipe_status zkp_gpu_check(zkp_gpu *g, zkp_diag *diag);
/* For the tests: queues a kernel that traps, a fault of the kind that
 * leaves the device failing every later call of the process. */
void zkp_gpu_test_fault(zkp_gpu *g);

/* The most device memory g's buffers may hold together (0, the default:
 * what the device has). An allocation that would pass it fails with
 * ZKPIPE_ERR_NO_MEMORY before the driver is asked, as one the device has
 * no room for does; the bytes are reserved before the allocation, so
 * concurrent allocations cannot pass it together. The free memory that
 * sizes a key's precomputed copies is counted within it too. Lowering it
 * below what is held frees nothing: later allocations fail until enough is
 * freed. */
void zkp_gpu_set_memory_budget(zkp_gpu *g, uint64_t bytes);
uint64_t zkp_gpu_memory_budget(const zkp_gpu *g);

/* Keeps freed working buffers (every category but the bases) for the next
 * allocation of about their size instead of giving them back to the
 * driver: cudaFree waits for all the device's work, every stream's (an
 * upload queued for the next partition too), and the driver unmaps and
 * maps again what the next partition asks for at once. A cached buffer
 * stays in the books, under ZKP_GPU_MEM_CACHED, and within the budget; an
 * allocation that finds no room gives cached buffers back first. Off by
 * default; turning it off gives back what is cached.
 * The buffers are freed only once no device work uses them (each entry
 * point synchronises its streams first), so one handed out again is free
 * on every stream. */
void zkp_gpu_set_cache(zkp_gpu *g, int on);
/* Gives every cached buffer back to the driver; returns the bytes. */
uint64_t zkp_gpu_release_cached(zkp_gpu *g);

/* The device memory a new buffer could take now: what the driver reports
 * free and what the cache holds, within the budget, less the upload
 * reserve while one is set. */
ZKP_WARN_UNUSED zkpipe_status zkp_gpu_room(zkp_gpu *g, uint64_t *bytes, zkp_diag *diag);

/* Device memory that uploads of bases leave alone when they size their
 * precomputed copies, within the budget or, without one, within what the
 * device has free: the working set of a partition that will use them (a,
 * b, c, its scalars, the MSMs' scratch) and the key's sets still to come,
 * which must fit beside them. Set around a key's upload (calls on a
 * context do not overlap); 0 leaves none. */
void zkp_gpu_set_upload_reserve(zkp_gpu *g, uint64_t bytes);

/* Host memory pinned for the devices: cudaHostRegister, portable to every
 * context of the process. A copy between the device and registered memory
 * runs at the bus's speed (about 50 GB/s on PCIe 5) without the driver's
 * staging through its own pinned bounce buffers (about 7 GB/s from
 * pageable memory). Registering costs time in proportion to the bytes, so
 * it pays for memory that is copied many times: the engine registers its
 * pool's regions when they are mapped, and they stay registered while
 * they are recycled. p and bytes must be page-aligned; p must be
 * unregistered before its memory is unmapped. The bytes registered now
 * are counted process-wide. */
ZKP_WARN_UNUSED zkpipe_status zkp_gpu_host_register(void *p, size_t bytes, zkp_diag *diag);
void zkp_gpu_host_unregister(void *p, size_t bytes); /* only what register accepted */
uint64_t zkp_gpu_host_registered_bytes(void);
/* The registrations and unregistrations made so far in the process, and
 * the seconds they took: the driver pins each page, and other threads'
 * CUDA calls may wait meanwhile. */
void zkp_gpu_host_register_stats(uint64_t *calls, double *seconds);

/* A buffer in device memory, owned by its context's accounting. */
typedef struct zkp_gpu_buf zkp_gpu_buf;

ZKP_WARN_UNUSED zkpipe_status zkp_gpu_buf_alloc(zkp_gpu *g, zkp_gpu_buf **out, size_t bytes,
                                                zkp_gpu_mem_category cat, zkp_diag *diag);
void zkp_gpu_buf_free(zkp_gpu_buf *b); /* NULL is a no-op */
size_t zkp_gpu_buf_bytes(const zkp_gpu_buf *b);
zkp_gpu *zkp_gpu_buf_gpu(const zkp_gpu_buf *b); /* the context whose books hold b */
ZKP_WARN_UNUSED zkpipe_status zkp_gpu_buf_upload(zkp_gpu_buf *dst, size_t offset, const void *src,
                                                 size_t bytes, zkp_diag *diag);
ZKP_WARN_UNUSED zkpipe_status zkp_gpu_buf_download(void *dst, const zkp_gpu_buf *src,
                                                   size_t offset, size_t bytes, zkp_diag *diag);
/* The upload, queued on the context's upload stream and returning at once,
 * so that it runs beside the work the caller queues next. The device work
 * that reads the buffer (an MSM or NTT over it, a download) waits for it
 * on the device; src must stay as it is until then, or until the buffer
 * is freed, which waits for the copy. */
ZKP_WARN_UNUSED zkpipe_status zkp_gpu_buf_upload_async(zkp_gpu_buf *dst, size_t offset,
                                                       const void *src, size_t bytes,
                                                       zkp_diag *diag);

/* *out = a new device buffer (category SCALARS) of n scalars of 32 bytes,
 * scalar i being scalar cols[i] of src: the witness values of the
 * variables a sparse key's base set lists (groth16.h: a_cols). cols is a
 * device buffer of at least n 32-bit indices; an index past src's scalars
 * gives zero rather than a read outside it. The gather runs on the
 * compute stream after src's upload, so the MSMs queued next read it in
 * order. */
ZKP_WARN_UNUSED zkpipe_status zkp_gpu_gather_scalars(zkp_gpu_buf **out, const zkp_gpu_buf *src,
                                                     const zkp_gpu_buf *cols, size_t n,
                                                     zkp_diag *diag);

/* ---- A compiled circuit resident on the device ----
 *
 * The A and B matrices in the compressed rows of circuit/circuit_impl.h,
 * copied to device memory once per key (category BASES: what a key keeps
 * resident), so that a partition's a, b and c are made on the device from
 * its witness (F_gpu_h_evals_csr) instead of in host memory, where they
 * take three domains of scalars (12 GiB a 32 GiB PoRep partition). */
typedef struct {
    uint32_t n_rows;
    size_t nnz[2];
    const uint64_t *row_ptr[2]; /* n_rows + 1 offsets per matrix */
    const uint32_t *col[2];     /* nnz[m] columns */
    /* Entry k's value (32 bytes, raw: coefficient·R²) is dict[vidx[m][k]]
     * when vidx is set, else val[m][k]. */
    const uint16_t *vidx[2];
    const void *val[2];
    const void *dict;
    size_t n_dict;
} zkp_gpu_csr_src;

typedef struct zkp_gpu_csr zkp_gpu_csr;

/* The device memory zkp_gpu_csr_upload takes for src. */
uint64_t zkp_gpu_csr_bytes(const zkp_gpu_csr_src *src);
ZKP_WARN_UNUSED zkpipe_status zkp_gpu_csr_upload(zkp_gpu *g, zkp_gpu_csr **out,
                                                 const zkp_gpu_csr_src *src, zkp_diag *diag);
void zkp_gpu_csr_free(zkp_gpu_csr *c); /* NULL is a no-op */

/* ---- The NTT, per scalar field F in {bn254_fr, bls12_381_fr} ----
 *
 * F_gpu_ntt(g, a, log_n, kind, root, shift, diag): in place on the
 * 2^log_n elements of a (host memory, Montgomery form), exactly the
 * transform F_ntt_transform computes on a domain built on root (a
 * primitive 2^log_n-th root of unity, Montgomery form; ntt/ntt.h gives the
 * conventions), with shift NULL or the coset shift. Every zkp_ntt_kind but
 * BIT_REVERSE. F_gpu_ntt_dev does the same on elements already in device
 * memory. The natural-order kinds (FORWARD, INVERSE) take a second array of
 * the transform's size as scratch where it fits, and reverse in place
 * where it does not.
 *
 * F_gpu_h_evals(g, h, abc, log_n, root, shift, coefficients, diag): the H
 * scalars of Groth16 as the CPU prover computes them (groth16/groth16_body.h):
 * a, b and c (abc: 3·2^log_n elements of host memory, Montgomery form, a
 * then b then c) are each interpolated and evaluated on the coset shift·H,
 * and h_j = a_j·b_j - c_j is written to *h, a new device buffer of 2^log_n
 * canonical scalars (category ABC) for the H MSM. With coefficients
 * nonzero, *h holds h's coefficients instead, the values interpolated back
 * from the coset (INVERSE with shift), for a key in the coefficient basis.
 * Either comes out in natural order. */
#define ZKP_GPU_NTT_DECLARE_(F)                                                                  \
    ZKP_WARN_UNUSED zkpipe_status F##_gpu_ntt(zkp_gpu *g, uint64_t *a, unsigned log_n, int kind,   \
                                              const uint64_t *root, const uint64_t *shift,       \
                                              zkp_diag *diag);                                   \
    ZKP_WARN_UNUSED zkpipe_status F##_gpu_ntt_dev(zkp_gpu *g, zkp_gpu_buf *a, unsigned log_n,      \
                                                  int kind, const uint64_t *root,                \
                                                  const uint64_t *shift, zkp_diag *diag);        \
    ZKP_WARN_UNUSED zkpipe_status F##_gpu_h_evals(zkp_gpu *g, zkp_gpu_buf **h, const uint64_t *abc, \
                                                  unsigned log_n, const uint64_t *root,          \
                                                  const uint64_t *shift, int coefficients,       \
                                                  zkp_diag *diag);
ZKP_GPU_NTT_DECLARE_(bn254_fr)
ZKP_GPU_NTT_DECLARE_(bls12_381_fr)
#undef ZKP_GPU_NTT_DECLARE_

/* F_gpu_h_evals_csr(g, h, csr, witness, log_n, root, shift, coefficients, diag):
 * F_gpu_h_evals with a, b and c made on the device: a = A·w and b = B·w
 * over csr's rows (2^log_n of them), c = a∘b, from the witness w on the
 * device (canonical scalars, as the MSMs read it), each product of a raw
 * value and a canonical scalar being the Montgomery form of their product,
 * as on the CPU (circuit/circuit_body.h). */
#define ZKP_GPU_H_CSR_DECLARE_(F)                                                                \
    ZKP_WARN_UNUSED zkpipe_status F##_gpu_h_evals_csr(                                           \
        zkp_gpu *g, zkp_gpu_buf **h, const zkp_gpu_csr *csr, const zkp_gpu_buf *witness,         \
        unsigned log_n, const uint64_t *root, const uint64_t *shift, int coefficients,            \
        zkp_diag *diag);
ZKP_GPU_H_CSR_DECLARE_(bn254_fr)
ZKP_GPU_H_CSR_DECLARE_(bls12_381_fr)
#undef ZKP_GPU_H_CSR_DECLARE_

/* ---- The MSM over resident bases, per group G in {bn254_g1, bls12_381_g1,
 * bn254_g2, bls12_381_g2} ----
 *
 * G_gpu_bases_upload(g, out, bases, n, diag): n affine points (host, the
 * CPU layout, over Fp2 for G2) copied to device memory once, with whatever
 * precomputation the MSM uses, charged to category BASES. The bases are
 * trusted: the key loader has checked them (they lie in the subgroup of
 * order r).
 *
 * G_gpu_msm(g, out, bases, first, scalars, n, diag): *out (an XYZZ point,
 * CPU layout) = sum over i < n of scalars[i]·base[first + i], with the
 * scalars canonical (4 limbs each, each < r) in host memory.
 * G_gpu_msm_dev(g, out, bases, first, scalars, scalars_first, n, diag)
 * takes them from a device buffer, from its scalar scalars_first on (the H
 * values, or a witness uploaded once for several MSMs). Zero scalars are
 * skipped and scalars equal to one are summed without bucket work.
 * ERR_OUT_OF_RANGE when first + n exceeds the base count. An MSM whose
 * scratch does not fit what the device has free, or what its budget
 * leaves, runs over its points in pieces, each a whole MSM, rather than
 * failing; the environment variable ZKPIPE_GPU_MSM_PIECE caps a piece's
 * points (for tests).
 *
 * Bases too many to keep in device memory are streamed through a window:
 * G_gpu_bases_window(g, out, capacity, diag) makes an empty set with room
 * for capacity points and no precomputation, and zkp_gpu_bases_fill(b,
 * pts, n, diag) copies n <= capacity points into it (returning once they
 * are there), so that an MSM over many points runs as MSMs over chunks of
 * them.
 *
 * The upload sizes its precomputed copies for scalars that are all neither
 * 0 nor 1, before any witness is seen; a witness's MSMs, whose scalars are
 * mostly 0 and 1, may find fewer windows over the points alone cheaper.
 * zkp_gpu_bases_trim(b, freed, diag) gives the copies back, keeping the
 * points, when the last MSM over all of b's points planned without them;
 * *freed is the bytes given back, 0 when it kept them (they were used, or
 * the device had no room for the points' new buffer, which it fills from
 * the old one before freeing that). Later MSMs over b plan without copies,
 * whatever their scalars. */
typedef struct zkp_gpu_bases zkp_gpu_bases;
void zkp_gpu_bases_free(zkp_gpu_bases *b); /* NULL is a no-op */
size_t zkp_gpu_bases_count(const zkp_gpu_bases *b);
ZKP_WARN_UNUSED zkpipe_status zkp_gpu_bases_fill(zkp_gpu_bases *b, const void *pts, size_t n,
                                                 zkp_diag *diag);
ZKP_WARN_UNUSED zkpipe_status zkp_gpu_bases_trim(zkp_gpu_bases *b, uint64_t *freed,
                                                 zkp_diag *diag);

#define ZKP_GPU_MSM_DECLARE_(G)                                                                  \
    ZKP_WARN_UNUSED zkpipe_status G##_gpu_bases_upload(zkp_gpu *g, zkp_gpu_bases **out,          \
                                                       const void *bases, size_t n,              \
                                                       zkp_diag *diag);                          \
    ZKP_WARN_UNUSED zkpipe_status G##_gpu_bases_window(zkp_gpu *g, zkp_gpu_bases **out,          \
                                                       size_t capacity, zkp_diag *diag);         \
    ZKP_WARN_UNUSED zkpipe_status G##_gpu_msm(zkp_gpu *g, void *out, const zkp_gpu_bases *bases,  \
                                              size_t first, const uint64_t *scalars, size_t n,   \
                                              zkp_diag *diag);                                   \
    ZKP_WARN_UNUSED zkpipe_status G##_gpu_msm_dev(                                              \
        zkp_gpu *g, void *out, const zkp_gpu_bases *bases, size_t first,                         \
        const zkp_gpu_buf *scalars, size_t scalars_first, size_t n, zkp_diag *diag);
ZKP_GPU_MSM_DECLARE_(bn254_g1)
ZKP_GPU_MSM_DECLARE_(bls12_381_g1)
ZKP_GPU_MSM_DECLARE_(bn254_g2)
ZKP_GPU_MSM_DECLARE_(bls12_381_g2)
#undef ZKP_GPU_MSM_DECLARE_

/* ---- Fixed-base multiplication, for the development setup ----
 *
 * G_gpu_fixed_base_new(g, out, table, w, nwin, diag): uploads the table of
 * a fixed point P as msm/fixed_base_impl.h builds it on the CPU: nwin
 * windows of 2^(w-1) affine points each (CPU layout), window win holding
 * [d·2^(w·win)] P for d = 1 .. 2^(w-1), with nwin·w >= the scalars' bits
 * + 1. Charged to category BASES until zkp_gpu_fixed_base_free.
 *
 * G_gpu_fixed_base_eval(fb, out, scalars, n, diag): out[i] = [k_i] P,
 * affine in the CPU layout ((0, 0) for infinity), for n canonical scalars
 * (4 limbs each) in host memory: the points msm/fixed_base_impl.h's eval
 * gives for the same table, bit for bit. Its device buffers (category
 * SCRATCH) are kept for the next call and grow to the largest n. Calls on
 * one fb must not overlap; it belongs to its context. */
typedef struct zkp_gpu_fixed_base zkp_gpu_fixed_base;
void zkp_gpu_fixed_base_free(zkp_gpu_fixed_base *fb); /* NULL is a no-op */

#define ZKP_GPU_FB_DECLARE_(G)                                                                   \
    ZKP_WARN_UNUSED zkpipe_status G##_gpu_fixed_base_new(zkp_gpu *g, zkp_gpu_fixed_base **out,   \
                                                         const void *table, unsigned w,          \
                                                         unsigned nwin, zkp_diag *diag);         \
    ZKP_WARN_UNUSED zkpipe_status G##_gpu_fixed_base_eval(zkp_gpu_fixed_base *fb, void *out,     \
                                                          const uint64_t *scalars, size_t n,     \
                                                          zkp_diag *diag);
ZKP_GPU_FB_DECLARE_(bls12_381_g1)
ZKP_GPU_FB_DECLARE_(bls12_381_g2)
#undef ZKP_GPU_FB_DECLARE_

/* ---- The device arithmetic run on the host, for the unit tests ----
 *
 * The field and curve templates compile for the host too (same source,
 * portable C in place of the PTX), so the tests compare them with field/
 * and curve/ on machines without a GPU. field: 0 bn254_fq, 1 bn254_fr,
 * 2 bls12_381_fp, 3 bls12_381_fr, and on the host also 4 bn254_fq2 and
 * 5 bls12_381_fp2; op: 0 mul, 1 add, 2 sub, 3 from_mont, 4 to_mont,
 * 5 sqr, 6 inv (of a; b unread), and for fields 0 to 3 only 7, a·b by
 * Shoup's product (b the factor's Montgomery form, as the NTT's tables
 * have it). zkp_gpu_host_madd(group, acc, p): acc (XYZZ) += p (affine),
 * group 0 BN254 G1, 1 BLS12-381 G1, 2 BN254 G2, 3 BLS12-381 G2 (the G2
 * cases run the Fp2 arithmetic). zkp_gpu_dev_field_op runs op on
 * the device over n pairs (host arrays), for the GPU suite. */
ZKP_WARN_UNUSED zkpipe_status zkp_gpu_host_field_op(int field, int op, uint64_t *out,
                                                    const uint64_t *a, const uint64_t *b);
ZKP_WARN_UNUSED zkpipe_status zkp_gpu_host_madd(int group, uint64_t *acc, const uint64_t *p);
ZKP_WARN_UNUSED zkpipe_status zkp_gpu_dev_field_op(zkp_gpu *g, int field, int op, uint64_t *out,
                                                   const uint64_t *a, const uint64_t *b, size_t n,
                                                   zkp_diag *diag);

/* G_gpu_host_msm_digits(m, n, copies, shift, scalar, out): the windows that
 * group G's MSM plans for m scalars other than 0 and 1 (1 to 2^32 - 1) over
 * a set of n >= m points with copies shifted copies shift bits apart
 * (copies 1: none, shift unread), and the signed digits of scalar (4 limbs,
 * below the group's r) under them, as the device computes them: window w is
 * width[w] bits at bit offset[w], |digit[w]| <= 2^(width[w] - 1), and the
 * scalar is the sum of digit[w]·2^offset[w]; ZKPIPE_ERR_OUT_OF_RANGE where
 * a carry is left over (a scalar the windows cannot hold). Window w's entry
 * goes to row row[w] of the sort's input with bucket key key[w], and the
 * sort orders the keys' low sort_bits bits. */
#define ZKP_GPU_MSM_MAX_WINDOWS 128
typedef struct {
    unsigned nwin, sets, sort_bits;
    unsigned width[ZKP_GPU_MSM_MAX_WINDOWS], offset[ZKP_GPU_MSM_MAX_WINDOWS];
    int32_t digit[ZKP_GPU_MSM_MAX_WINDOWS];
    unsigned row[ZKP_GPU_MSM_MAX_WINDOWS];
    uint32_t key[ZKP_GPU_MSM_MAX_WINDOWS];
} zkp_gpu_msm_digits;
/* G_gpu_host_bucket_sums(buckets, sets, per_set, len, out): the MSM's
 * reduction of its bucket sets (step 6 of gpu_msm_body.cuh) with the
 * device's code: out[w] = sum_b (b + 1)·buckets[w·per_set + b], the points
 * XYZZ in curve/'s layout, in chunks of len buckets; per_set and len powers
 * of 2, len <= per_set, sets·per_set <= 2^24. */
#define ZKP_GPU_MSM_HOST_DECLARE_(G)                                                             \
    ZKP_WARN_UNUSED zkpipe_status G##_gpu_host_msm_digits(size_t m, size_t n, unsigned copies,   \
                                                          unsigned shift, const uint64_t *scalar, \
                                                          zkp_gpu_msm_digits *out);              \
    ZKP_WARN_UNUSED zkpipe_status G##_gpu_host_bucket_sums(const void *buckets, unsigned sets,   \
                                                           uint32_t per_set, uint32_t len,        \
                                                           void *out);
ZKP_GPU_MSM_HOST_DECLARE_(bn254_g1)
ZKP_GPU_MSM_HOST_DECLARE_(bls12_381_g1)
ZKP_GPU_MSM_HOST_DECLARE_(bn254_g2)
ZKP_GPU_MSM_HOST_DECLARE_(bls12_381_g2)
#undef ZKP_GPU_MSM_HOST_DECLARE_

#ifdef __cplusplus
}
#endif

#endif
