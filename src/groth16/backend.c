/* The two backends of prove_start's device half (backend.h): the CPU's
 * table, whose work is in groth16_body.h, and the CUDA table, which hands
 * the same work to src/gpu. */
#include "groth16/backend.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "curve/curve.h"
#include "ntt/ntt_common.h"

/* ---- The CPU ---- */

static zkpipe_status cpu_key_load(zkp_g16_rkey *k, const zkp_gpu_csr_src *circuit,
                                  zkp_diag *diag) {
    (void)k, (void)circuit, (void)diag;
    return ZKPIPE_OK;
}

static void cpu_key_unload(zkp_g16_rkey *k) { (void)k; }

static zkpipe_status cpu_h_scalars(const zkp_g16_rkey *k, zkp_g16_scalars *h, uint64_t *abc,
                                   const uint64_t *root, const uint64_t *shift,
                                   const zkp_g16_cpu_work *w, zkp_diag *diag) {
    switch (k->pk->curve) {
    case ZKPIPE_CURVE_BN254: return bn254_g16_cpu_h_scalars(k, h, abc, root, shift, w, diag);
    case ZKPIPE_CURVE_BLS12_381: return bls12_381_g16_cpu_h_scalars(k, h, abc, root, shift, w, diag);
    default: return ZKPIPE_ERR_UNSUPPORTED;
    }
}

/* The MSMs read the witness where it lies. */
static zkpipe_status cpu_witness_scalars(const zkp_g16_backend *be, zkp_g16_scalars *s,
                                         const uint64_t *witness, size_t n, zkp_diag *diag) {
    (void)be, (void)n, (void)diag;
    s->host = witness;
    s->dev = NULL;
    return ZKPIPE_OK;
}

/* The H values lie over a, which the prover frees with a, b and c, and the
 * witness is the prover's. */
static void cpu_scalars_free(zkp_g16_scalars *s) { s->host = NULL; }

static zkpipe_status cpu_msm_g1(const zkp_g16_rkey *k, void *out, zkp_g16_base_set set,
                                const zkp_g16_scalars *s, size_t first, size_t n,
                                const zkp_g16_cpu_work *w, zkp_diag *diag) {
    switch (k->pk->curve) {
    case ZKPIPE_CURVE_BN254: return bn254_g16_cpu_msm_g1(k, out, set, s, first, n, w, diag);
    case ZKPIPE_CURVE_BLS12_381:
        return bls12_381_g16_cpu_msm_g1(k, out, set, s, first, n, w, diag);
    default: return ZKPIPE_ERR_UNSUPPORTED;
    }
}

/* The B2 MSM stays in prove_finalize, on a CPU thread of its own. */
const zkp_g16_backend_ops zkp_g16_cpu_ops = {.kind = "cpu",
                                             .key_load = cpu_key_load,
                                             .key_unload = cpu_key_unload,
                                             .h_scalars = cpu_h_scalars,
                                             .witness_scalars = cpu_witness_scalars,
                                             .scalars_free = cpu_scalars_free,
                                             .msm_g1 = cpu_msm_g1,
                                             .msm_g2 = NULL};

/* ---- CUDA ---- */

/* A base set's points and count, from the key of either curve. */
static void base_set(const zkp_g16_pk *pk, zkp_g16_base_set set, const void **pts, size_t *n) {
#define BASE_SET_(C)                                                              \
    do {                                                                          \
        const C##_g16_pk_t *q = &pk->u.C;                                         \
        switch (set) {                                                            \
        case ZKP_G16_SET_A: *pts = q->a, *n = C##_g16_a_count(q); break;          \
        case ZKP_G16_SET_B1: *pts = q->b1, *n = C##_g16_b_count(q); break;        \
        case ZKP_G16_SET_L: *pts = q->c, *n = q->n_vars - q->n_public - 1; break; \
        default: *pts = q->h, *n = C##_g16_h_len(q); break;                       \
        }                                                                         \
    } while (0)
    if (pk->curve == ZKPIPE_CURVE_BN254)
        BASE_SET_(bn254);
    else
        BASE_SET_(bls12_381);
#undef BASE_SET_
}

/* The column list of A (b = 0) or of B (b = 1) of a sparse key; NULL and 0
 * for a dense one. */
static void key_cols(const zkp_g16_pk *pk, int b, const uint32_t **cols, size_t *n) {
#define KEY_COLS_(C)                                                             \
    do {                                                                         \
        const C##_g16_pk_t *q = &pk->u.C;                                        \
        *cols = b ? q->b_cols : q->a_cols;                                       \
        *n = !*cols ? 0 : b ? q->b_len : q->a_len;                               \
    } while (0)
    if (pk->curve == ZKPIPE_CURVE_BN254)
        KEY_COLS_(bn254);
    else
        KEY_COLS_(bls12_381);
#undef KEY_COLS_
}

static const char *const set_names[ZKP_G16_SET_COUNT] = {"A", "B1", "L", "H"};

static void cuda_key_unload(zkp_g16_rkey *k) {
    for (int i = 0; i < ZKP_G16_SET_COUNT; i++) {
        zkp_gpu_bases_free(k->bases[i]);
        k->bases[i] = NULL;
    }
    zkp_gpu_bases_free(k->b2);
    k->b2 = NULL;
    for (int i = 0; i < 2; i++) {
        zkp_gpu_buf_free(k->cols[i]);
        k->cols[i] = NULL;
    }
    zkp_gpu_csr_free(k->csr);
    k->csr = NULL;
}

/* A sparse key's column lists go to the device first: every A, B1 and B2
 * MSM gathers the witness through them. */
static zkpipe_status cuda_cols_upload(zkp_g16_rkey *k, zkp_diag *diag) {
    for (int b = 0; b < 2; b++) {
        const uint32_t *cols;
        size_t n;
        key_cols(k->pk, b, &cols, &n);
        if (!cols) continue;
        size_t bytes = n * sizeof *cols;
        zkpipe_status st = zkp_gpu_buf_alloc(k->be->gpu, &k->cols[b], bytes ? bytes : 4,
                                             ZKP_GPU_MEM_BASES, diag);
        if (st == ZKPIPE_OK && bytes) st = zkp_gpu_buf_upload(k->cols[b], 0, cols, bytes, diag);
        if (st != ZKPIPE_OK) {
            zkp_diag_prefix(diag, b ? "uploading the key's B columns"
                                    : "uploading the key's A columns");
            return st;
        }
    }
    return ZKPIPE_OK;
}

/* The B2 set's points and a G2 point's bytes in host memory, per curve. */
static size_t b2_count(const zkp_g16_pk *pk) {
    return pk->curve == ZKPIPE_CURVE_BN254 ? bn254_g16_b_count(&pk->u.bn254)
                                           : bls12_381_g16_b_count(&pk->u.bls12_381);
}
static size_t g2_point_bytes(const zkp_g16_pk *pk) {
    return pk->curve == ZKPIPE_CURVE_BN254 ? sizeof(bn254_g2_affine_t)
                                           : sizeof(bls12_381_g2_affine_t);
}

/* A G1 point's bytes in host memory, per curve. */
static size_t g1_point_bytes(const zkp_g16_pk *pk) {
    return pk->curve == ZKPIPE_CURVE_BN254 ? sizeof(bn254_g1_affine_t)
                                           : sizeof(bls12_381_g1_affine_t);
}

/* The device memory one partition of pk takes beside its key's bases: a,
 * b, c and the H values, the scalars, and the MSMs' sort keys, buckets and
 * reductions. 384 bytes a domain element bounds what a 2^27 BLS12-381
 * partition was measured to take (342: a peak of 113 GiB with 70 GiB of
 * bases resident, docs/PERFORMANCE.md); small domains have buckets and sort
 * buffers out of proportion to their rows, hence the floor. */
#define DEVICE_WORK_BYTES_PER_ROW 384u
#define DEVICE_WORK_MIN_BYTES ((uint64_t)256 << 20)

uint64_t zkp_g16_device_work_bytes(const zkp_g16_pk *pk) {
    uint64_t n = pk->curve == ZKPIPE_CURVE_BN254 ? pk->u.bn254.domain_size
                                                 : pk->u.bls12_381.domain_size;
    uint64_t work = n * DEVICE_WORK_BYTES_PER_ROW;
    return work > DEVICE_WORK_MIN_BYTES ? work : DEVICE_WORK_MIN_BYTES;
}

/* Whether bytes more of bases fit in the device's budget beside what is
 * held and the working set of a partition (always, without a budget). */
static int fits_budget(zkp_gpu *g, uint64_t bytes, uint64_t work) {
    uint64_t budget = zkp_gpu_memory_budget(g);
    if (!budget) return 1;
    zkp_gpu_stats s;
    zkp_gpu_stats_get(g, &s);
    return s.live_total + work + bytes <= budget;
}

/* A key whose host copy of a set was freed once every device held it
 * (zkp_g16_rkey_host_sets) cannot be made ready from it again. */
static zkpipe_status points_gone(const char *set, zkp_diag *diag) {
    return zkp_diag_fail(diag, ZKPIPE_ERR_INVALID_ARGUMENT,
                         "the key's %s points are no longer in host memory; load the key again",
                         set);
}

/* The bytes of all of k's bases as uploaded, before precomputed copies. */
static uint64_t bases_bytes(const zkp_g16_rkey *k) {
    const zkp_g16_pk *pk = k->pk;
    uint64_t total = (uint64_t)b2_count(pk) * g2_point_bytes(pk);
    for (int i = 0; i < ZKP_G16_SET_COUNT; i++) {
        const void *pts;
        size_t n;
        base_set(pk, (zkp_g16_base_set)i, &pts, &n);
        total += (uint64_t)n * g1_point_bytes(pk);
    }
    return total;
}

/* The G1 sets in the order they go up. An upload precomputes shifted
 * copies in what the device has left beside the sets still to come and a
 * partition's working set, so the sets first in line get them: H first,
 * whose scalars (h's coefficients) are always dense and so always use
 * them, where a witness's A, B1 and L scalars are mostly 0 and 1 in a
 * Filecoin partition and leave their copies unread (trim_copies). */
static const zkp_g16_base_set upload_order[ZKP_G16_SET_COUNT] = {
    ZKP_G16_SET_H, ZKP_G16_SET_A, ZKP_G16_SET_B1, ZKP_G16_SET_L};

static zkpipe_status cuda_key_upload(zkp_g16_rkey *k, uint64_t work, zkp_diag *diag) {
    const zkp_g16_backend *be = k->be;
    uint64_t to_come = bases_bytes(k);
    if (be->g2_on_cpu) to_come -= (uint64_t)b2_count(k->pk) * g2_point_bytes(k->pk);
    for (int j = 0; j < ZKP_G16_SET_COUNT; j++) {
        int i = upload_order[j];
        const void *pts;
        size_t n;
        base_set(k->pk, (zkp_g16_base_set)i, &pts, &n);
        if (n && !pts) {
            cuda_key_unload(k);
            return points_gone(set_names[i], diag);
        }
        const uint64_t bytes = (uint64_t)n * g1_point_bytes(k->pk);
        to_come -= bytes;
        zkp_gpu_set_upload_reserve(be->gpu, work + to_come);
        if ((be->resident_limit && n > be->resident_limit / g1_point_bytes(k->pk)) ||
            !fits_budget(be->gpu, bytes, work)) {
            k->streamed |= 1u << i;
            continue;
        }
        zkp_diag tried = {{0}};
        zkpipe_status st = k->pk->curve == ZKPIPE_CURVE_BN254
                               ? bn254_g1_gpu_bases_upload(be->gpu, &k->bases[i], pts, n, &tried)
                               : bls12_381_g1_gpu_bases_upload(be->gpu, &k->bases[i], pts, n, &tried);
        if (st == ZKPIPE_ERR_NO_MEMORY) {
            /* It does not fit beside what is resident: streamed instead. */
            k->streamed |= 1u << i;
            continue;
        }
        if (st != ZKPIPE_OK) {
            if (diag) *diag = tried;
            char what[64];
            snprintf(what, sizeof what, "uploading the key's %s bases", set_names[i]);
            zkp_diag_prefix(diag, what);
            cuda_key_unload(k);
            return st;
        }
    }
    const zkp_g16_pk *pk = k->pk;
    int bn = pk->curve == ZKPIPE_CURVE_BN254;
    size_t g2_bytes = g2_point_bytes(pk), n_b2 = b2_count(pk);
    const void *b2 = bn ? (const void *)pk->u.bn254.b2 : (const void *)pk->u.bls12_381.b2;
    if (n_b2 && !b2) {
        cuda_key_unload(k);
        return points_gone("B2", diag);
    }
    zkp_gpu_set_upload_reserve(be->gpu, work);
    if (be->g2_on_cpu || (be->resident_limit && n_b2 > be->resident_limit / g2_bytes) ||
        !fits_budget(be->gpu, (uint64_t)n_b2 * g2_bytes, work))
        return ZKPIPE_OK;
    zkp_diag tried = {{0}};
    zkpipe_status st =
        bn ? bn254_g2_gpu_bases_upload(be->gpu, &k->b2, pk->u.bn254.b2, n_b2, &tried)
           : bls12_381_g2_gpu_bases_upload(be->gpu, &k->b2, pk->u.bls12_381.b2, n_b2, &tried);
    /* No room for B2: its MSM stays on the CPU, in prove_finalize. */
    if (st == ZKPIPE_ERR_NO_MEMORY) return ZKPIPE_OK;
    if (st != ZKPIPE_OK) {
        if (diag) *diag = tried;
        zkp_diag_prefix(diag, "uploading the key's B2 bases");
        cuda_key_unload(k);
    }
    return st;
}

/* The circuit goes first, where it fits beside every base and a
 * partition's working set (under the budget, or in what the device has
 * free); one that does not is left out, and a, b and c come from the
 * host. */
static zkpipe_status cuda_csr_upload(zkp_g16_rkey *k, const zkp_gpu_csr_src *src,
                                     uint64_t work, zkp_diag *diag) {
    if (!src) return ZKPIPE_OK;
    const zkp_g16_pk *pk = k->pk;
    uint32_t n = pk->curve == ZKPIPE_CURVE_BN254 ? pk->u.bn254.domain_size
                                                  : pk->u.bls12_381.domain_size;
    if (src->n_rows != n)
        return zkp_diag_fail(diag, ZKPIPE_ERR_SIZE_MISMATCH,
                             "the circuit has %u rows; the key's domain is %u", src->n_rows, n);
    uint64_t need = zkp_gpu_csr_bytes(src) + bases_bytes(k);
    zkp_gpu_info info;
    if (!fits_budget(k->be->gpu, need, work) ||
        zkp_gpu_device_info(&info, zkp_gpu_ordinal(k->be->gpu), NULL) != ZKPIPE_OK ||
        info.free_bytes < need + work)
        return ZKPIPE_OK;
    zkpipe_status st = zkp_gpu_csr_upload(k->be->gpu, &k->csr, src, diag);
    return st == ZKPIPE_ERR_NO_MEMORY ? ZKPIPE_OK : st;
}

/* Under a device memory budget, a set that does not fit beside what is
 * resident and a partition's working set is streamed. With or without
 * one, the copies an upload precomputes leave that working set and the
 * sets still to come free (cuda_key_upload). */
static zkpipe_status cuda_key_load(zkp_g16_rkey *k, const zkp_gpu_csr_src *circuit,
                                   zkp_diag *diag) {
    uint64_t work = zkp_g16_device_work_bytes(k->pk);
    zkpipe_status st = cuda_cols_upload(k, diag);
    if (st == ZKPIPE_OK) st = cuda_csr_upload(k, circuit, work, diag);
    if (st != ZKPIPE_OK) {
        cuda_key_unload(k);
        return st;
    }
    st = cuda_key_upload(k, work, diag);
    zkp_gpu_set_upload_reserve(k->be->gpu, 0);
    return st;
}

static unsigned key_log_domain(const zkp_g16_pk *pk) {
    return pk->curve == ZKPIPE_CURVE_BN254 ? pk->u.bn254.log_domain : pk->u.bls12_381.log_domain;
}

/* A key in the coefficient basis (Filecoin's) takes h's coefficients, the
 * evaluations interpolated back from the coset on the device; one in the
 * evaluation basis (snarkjs's) takes the evaluations. */
static int key_h_coefficients(const zkp_g16_pk *pk) {
    return pk->curve == ZKPIPE_CURVE_BN254 ? pk->u.bn254.h_coefficients
                                           : pk->u.bls12_381.h_coefficients;
}

static zkpipe_status cuda_h_scalars(const zkp_g16_rkey *k, zkp_g16_scalars *h, uint64_t *abc,
                                    const uint64_t *root, const uint64_t *shift,
                                    const zkp_g16_cpu_work *w, zkp_diag *diag) {
    (void)w;
    h->host = NULL;
    h->dev = NULL;
    int bn = k->pk->curve == ZKPIPE_CURVE_BN254;
    unsigned log_n = key_log_domain(k->pk);
    int coef = key_h_coefficients(k->pk);
    return bn ? bn254_fr_gpu_h_evals(k->be->gpu, &h->dev, abc, log_n, root, shift, coef, diag)
              : bls12_381_fr_gpu_h_evals(k->be->gpu, &h->dev, abc, log_n, root, shift, coef,
                                         diag);
}

static zkpipe_status cuda_h_scalars_circuit(const zkp_g16_rkey *k, zkp_g16_scalars *h,
                                            const zkp_g16_scalars *ws, const uint64_t *root,
                                            const uint64_t *shift, zkp_diag *diag) {
    h->host = NULL;
    h->dev = NULL;
    int bn = k->pk->curve == ZKPIPE_CURVE_BN254;
    unsigned log_n = key_log_domain(k->pk);
    int coef = key_h_coefficients(k->pk);
    zkpipe_status st =
        bn ? bn254_fr_gpu_h_evals_csr(k->be->gpu, &h->dev, k->csr, ws->dev, log_n, root, shift,
                                      coef, diag)
           : bls12_381_fr_gpu_h_evals_csr(k->be->gpu, &h->dev, k->csr, ws->dev, log_n, root,
                                          shift, coef, diag);
    if (st != ZKPIPE_OK) zkp_diag_prefix(diag, "a, b and c from the circuit on the GPU");
    return st;
}

/* One upload of the witness serves the A, B1, L and B2 MSMs; the copy
 * comes from registered memory at the bus's speed when the witness lies in
 * the engine's pool (gpu.h). It is queued, not waited for: it runs beside
 * the H MSM, and the MSMs that read it wait for it on the device. */
static zkpipe_status cuda_witness_scalars(const zkp_g16_backend *be, zkp_g16_scalars *s,
                                          const uint64_t *witness, size_t n, zkp_diag *diag) {
    s->host = NULL;
    s->dev = NULL;
    size_t bytes = n * 32; /* n <= n_vars of a validated key: no overflow */
    zkpipe_status st = zkp_gpu_buf_alloc(be->gpu, &s->dev, bytes ? bytes : 32,
                                         ZKP_GPU_MEM_SCALARS, diag);
    if (st == ZKPIPE_OK && bytes) st = zkp_gpu_buf_upload_async(s->dev, 0, witness, bytes, diag);
    if (st != ZKPIPE_OK) {
        zkp_diag_prefix(diag, "uploading the witness");
        zkp_gpu_buf_free(s->dev);
        s->dev = NULL;
    }
    return st;
}

zkpipe_status zkp_g16_witness_to_device(zkp_gpu_buf **out, const zkp_g16_backend *be,
                                        const zkp_g16_pk *pk, const zkp_buffer *witness,
                                        zkp_diag *diag) {
    *out = NULL;
    size_t n = pk->curve == ZKPIPE_CURVE_BN254 ? pk->u.bn254.n_vars : pk->u.bls12_381.n_vars;
    if (!witness->ptr || witness->bytes / 32 != n || witness->bytes % 32)
        return zkp_diag_fail(diag, ZKPIPE_ERR_SIZE_MISMATCH,
                             "witness has %zu bytes; the key needs %zu values", witness->bytes, n);
    zkp_gpu *g = be->gpu;
    if (!g) return ZKPIPE_OK;
    /* The partition on the device now may still ask for the rest of its
     * working set: the working buffers it holds count towards that. */
    uint64_t room;
    zkpipe_status st = zkp_gpu_room(g, &room, diag);
    if (st != ZKPIPE_OK) return st;
    zkp_gpu_stats s;
    zkp_gpu_stats_get(g, &s);
    uint64_t idle = s.live_bytes[ZKP_GPU_MEM_BASES] + s.live_bytes[ZKP_GPU_MEM_CACHED];
    uint64_t working = s.live_total > idle ? s.live_total - idle : 0;
    uint64_t work = zkp_g16_device_work_bytes(pk);
    uint64_t lack = work > working ? work - working : 0;
    if (room < lack || room - lack < witness->bytes) return ZKPIPE_OK;
    zkp_g16_scalars ws;
    st = be->ops->witness_scalars(be, &ws, witness->ptr, n, diag);
    if (st == ZKPIPE_OK) *out = ws.dev;
    return st;
}

static void cuda_scalars_free(zkp_g16_scalars *s) {
    zkp_gpu_buf_free(s->dev);
    s->dev = NULL;
    s->host = NULL;
}

#define STREAM_CHUNK_DEFAULT ((size_t)1 << 22)

/* The MSM over points pts[first .. first + n) of a streamed set: each chunk
 * of points copied into one window of device memory, its MSM run over the
 * matching scalars, and the chunks' sums added on the host. */
#define STREAMED_MSM_(G)                                                                          \
    static zkpipe_status G##_streamed_msm_(const zkp_g16_backend *be, G##_xyzz_t *out,            \
                                           const G##_affine_t *pts, size_t first,                 \
                                           const zkp_gpu_buf *scalars, size_t s_first, size_t n,  \
                                           zkp_diag *diag) {                                      \
        G##_xyzz_set_infinity(out);                                                               \
        if (n == 0) return ZKPIPE_OK;                                                             \
        size_t chunk = be->stream_chunk ? be->stream_chunk : STREAM_CHUNK_DEFAULT;                \
        if (chunk > n) chunk = n;                                                                 \
        zkp_gpu_bases *win = NULL;                                                                \
        zkpipe_status st = G##_gpu_bases_window(be->gpu, &win, chunk, diag);                      \
        for (size_t lo = 0; st == ZKPIPE_OK && lo < n; lo += chunk) {                             \
            size_t cnt = n - lo < chunk ? n - lo : chunk;                                         \
            G##_xyzz_t part;                                                                      \
            st = zkp_gpu_bases_fill(win, pts + first + lo, cnt, diag);                            \
            if (st == ZKPIPE_OK)                                                                  \
                st = G##_gpu_msm_dev(be->gpu, &part, win, 0, scalars, s_first + lo, cnt, diag);   \
            if (st == ZKPIPE_OK) G##_xyzz_add(out, out, &part);                                   \
        }                                                                                         \
        zkp_gpu_bases_free(win);                                                                  \
        return st;                                                                                \
    }
STREAMED_MSM_(bn254_g1)
STREAMED_MSM_(bls12_381_g1)
#undef STREAMED_MSM_

/* The scalars of an MSM over a sparse key's A or B bases (b = 0, 1): the
 * witness gathered through the key's column list into *gathered, which
 * the caller frees, and the MSM runs over all of it. A dense key's MSM
 * reads the witness as it lies. */
static zkpipe_status gather_for(const zkp_g16_rkey *k, int b, const zkp_gpu_buf **scalars,
                                zkp_gpu_buf **gathered, size_t *first, size_t *n,
                                zkp_diag *diag) {
    *gathered = NULL;
    const uint32_t *cols;
    size_t len;
    key_cols(k->pk, b, &cols, &len);
    if (!cols) return ZKPIPE_OK;
    zkpipe_status st = zkp_gpu_gather_scalars(gathered, *scalars, k->cols[b], len, diag);
    if (st != ZKPIPE_OK) return st;
    *scalars = *gathered;
    *first = 0;
    *n = len;
    return ZKPIPE_OK;
}

/* After an MSM over a resident set: its shifted copies go back if the MSM
 * planned without them (gpu.h). A PoRep witness's B1 MSM does, and they
 * are 32.6 GiB of a 32 GiB sector's key of 74.3 (docs/PERFORMANCE.md). */
static zkpipe_status trim_copies(zkp_gpu_bases *b, zkp_diag *diag) {
    uint64_t freed = 0;
    return b ? zkp_gpu_bases_trim(b, &freed, diag) : ZKPIPE_OK;
}

/* The scalars are on the device: the H values where the H step left them,
 * or the witness as witness_scalars uploaded it. */
static zkpipe_status cuda_msm_g1(const zkp_g16_rkey *k, void *out, zkp_g16_base_set set,
                                 const zkp_g16_scalars *s, size_t first, size_t n,
                                 const zkp_g16_cpu_work *w, zkp_diag *diag) {
    (void)w;
    zkp_gpu *g = k->be->gpu;
    const zkp_gpu_bases *b = k->bases[set];
    const void *pts = NULL;
    size_t count;
    if (!b) base_set(k->pk, set, &pts, &count);
    const zkp_gpu_buf *sc = s->dev;
    zkp_gpu_buf *gathered = NULL;
    zkpipe_status st = ZKPIPE_OK;
    if (set == ZKP_G16_SET_A || set == ZKP_G16_SET_B1)
        st = gather_for(k, set == ZKP_G16_SET_B1, &sc, &gathered, &first, &n, diag);
    if (st == ZKPIPE_OK && k->pk->curve == ZKPIPE_CURVE_BN254) {
        bn254_g1_xyzz_t r;
        st = b ? bn254_g1_gpu_msm_dev(g, &r, b, 0, sc, first, n, diag)
               : bn254_g1_streamed_msm_(k->be, &r, pts, 0, sc, first, n, diag);
        if (st == ZKPIPE_OK) bn254_g1_xyzz_to_jacobian(out, &r);
    } else if (st == ZKPIPE_OK) {
        bls12_381_g1_xyzz_t r;
        st = b ? bls12_381_g1_gpu_msm_dev(g, &r, b, 0, sc, first, n, diag)
               : bls12_381_g1_streamed_msm_(k->be, &r, pts, 0, sc, first, n, diag);
        if (st == ZKPIPE_OK) bls12_381_g1_xyzz_to_jacobian(out, &r);
    }
    zkp_gpu_buf_free(gathered);
    if (st == ZKPIPE_OK) st = trim_copies(k->bases[set], diag);
    if (st != ZKPIPE_OK) {
        char what[64];
        snprintf(what, sizeof what, "MSM %s on the GPU", set_names[set]);
        zkp_diag_prefix(diag, what);
    }
    return st;
}

static zkpipe_status cuda_msm_g2(const zkp_g16_rkey *k, void *out, const zkp_g16_scalars *s,
                                 zkp_diag *diag) {
    zkp_gpu *g = k->be->gpu;
    size_t first = 0, n = zkp_gpu_bases_count(k->b2);
    const zkp_gpu_buf *sc = s->dev;
    zkp_gpu_buf *gathered = NULL;
    zkpipe_status st = gather_for(k, 1, &sc, &gathered, &first, &n, diag);
    if (st == ZKPIPE_OK && k->pk->curve == ZKPIPE_CURVE_BN254) {
        bn254_g2_xyzz_t r;
        st = bn254_g2_gpu_msm_dev(g, &r, k->b2, 0, sc, first, n, diag);
        if (st == ZKPIPE_OK) bn254_g2_xyzz_to_jacobian(out, &r);
    } else if (st == ZKPIPE_OK) {
        bls12_381_g2_xyzz_t r;
        st = bls12_381_g2_gpu_msm_dev(g, &r, k->b2, 0, sc, first, n, diag);
        if (st == ZKPIPE_OK) bls12_381_g2_xyzz_to_jacobian(out, &r);
    }
    zkp_gpu_buf_free(gathered);
    if (st == ZKPIPE_OK) st = trim_copies(k->b2, diag);
    if (st != ZKPIPE_OK) zkp_diag_prefix(diag, "MSM B2 on the GPU");
    return st;
}

static const zkp_g16_backend_ops cuda_ops = {.kind = "cuda",
                                             .key_load = cuda_key_load,
                                             .key_unload = cuda_key_unload,
                                             .h_scalars = cuda_h_scalars,
                                             .h_scalars_circuit = cuda_h_scalars_circuit,
                                             .witness_scalars = cuda_witness_scalars,
                                             .scalars_free = cuda_scalars_free,
                                             .msm_g1 = cuda_msm_g1,
                                             .msm_g2 = cuda_msm_g2};

/* ---- Opening a backend, making a key ready ---- */

static zkpipe_status open_cuda(zkp_g16_backend **out, unsigned ordinal, zkp_diag *diag) {
    zkp_g16_backend *be = calloc(1, sizeof *be);
    if (!be) return ZKPIPE_ERR_NO_MEMORY;
    zkpipe_status st = zkp_gpu_open(&be->gpu, ordinal, diag);
    if (st != ZKPIPE_OK) {
        free(be);
        return st;
    }
    pthread_mutex_init(&be->lost_lock, NULL);
    zkp_gpu_info info;
    if (zkp_gpu_device_info(&info, ordinal, NULL) == ZKPIPE_OK)
        snprintf(be->name, sizeof be->name, "cuda:%u (%s)", ordinal, info.name);
    else
        snprintf(be->name, sizeof be->name, "cuda:%u", ordinal);
    be->ops = &cuda_ops;
    *out = be;
    return ZKPIPE_OK;
}

static zkpipe_status open_cpu(zkp_g16_backend **out) {
    zkp_g16_backend *be = calloc(1, sizeof *be);
    if (!be) return ZKPIPE_ERR_NO_MEMORY;
    be->ops = &zkp_g16_cpu_ops;
    pthread_mutex_init(&be->lost_lock, NULL);
    snprintf(be->name, sizeof be->name, "cpu");
    *out = be;
    return ZKPIPE_OK;
}

int zkp_g16_device_parse(const char *device, unsigned *ordinal) {
    *ordinal = 0;
    if (strcmp(device, "cpu") == 0) return ZKP_DEVICE_CPU;
    if (strcmp(device, "auto") == 0) return ZKP_DEVICE_AUTO;
    if (strncmp(device, "cuda", 4) != 0) return -1;
    const char *rest = device + 4;
    if (*rest == '\0') return ZKP_DEVICE_CUDA;
    if (*rest != ':') return -1;
    /* Digits only: strtoul would take a sign or leading blanks. */
    unsigned long n = 0;
    const char *c = rest + 1;
    for (; *c >= '0' && *c <= '9' && n <= 1024; c++) n = n * 10 + (unsigned long)(*c - '0');
    if (c == rest + 1 || *c || n > 1024) return -1;
    *ordinal = (unsigned)n;
    return ZKP_DEVICE_CUDA;
}

zkpipe_status zkp_g16_backend_open(zkp_g16_backend **out, const char *device, char *fallback,
                                   size_t fallback_len, zkp_diag *diag) {
    *out = NULL;
    if (fallback && fallback_len) fallback[0] = 0;
    if (!device) return open_cpu(out);
    unsigned ordinal;
    switch (zkp_g16_device_parse(device, &ordinal)) {
    case ZKP_DEVICE_CPU: return open_cpu(out);
    case ZKP_DEVICE_CUDA: return open_cuda(out, ordinal, diag);
    case ZKP_DEVICE_AUTO: {
        zkp_diag why = {{0}};
        if (open_cuda(out, 0, &why) == ZKPIPE_OK) return ZKPIPE_OK;
        if (fallback && fallback_len) snprintf(fallback, fallback_len, "%s", why.msg);
        return open_cpu(out);
    }
    default:
        return zkp_diag_fail(diag, ZKPIPE_ERR_INVALID_ARGUMENT,
                             "unknown device \"%s\" (expected cpu, cuda, cuda:N or auto)", device);
    }
}

void zkp_g16_backend_close(zkp_g16_backend *be) {
    if (!be) return;
    zkp_gpu_close(be->gpu);
    pthread_mutex_destroy(&be->lost_lock);
    free(be);
}

const char *zkp_g16_backend_name(const zkp_g16_backend *be) { return be->name; }
int zkp_g16_backend_is_gpu(const zkp_g16_backend *be) { return be->gpu != NULL; }
zkp_gpu *zkp_g16_backend_gpu(const zkp_g16_backend *be) { return be->gpu; }
void zkp_g16_backend_set_g2_on_cpu(zkp_g16_backend *be, int on) { be->g2_on_cpu = on != 0; }

static void mark_lost_(zkp_g16_backend *be, const char *why) {
    pthread_mutex_lock(&be->lost_lock);
    if (!be->lost) snprintf(be->why_lost, sizeof be->why_lost, "%s", why);
    be->lost = 1;
    pthread_mutex_unlock(&be->lost_lock);
}

int zkp_g16_backend_probe(zkp_g16_backend *be) {
    if (zkp_g16_backend_lost(be, NULL, 0)) return 1;
    zkp_diag d = {{0}};
    if (be->gpu && zkp_gpu_check(be->gpu, &d) != ZKPIPE_OK) mark_lost_(be, d.msg);
    return zkp_g16_backend_lost(be, NULL, 0);
}

int zkp_g16_backend_lost(zkp_g16_backend *be, char *why, size_t why_len) {
    pthread_mutex_lock(&be->lost_lock);
    int lost = be->lost;
    if (lost && why && why_len) snprintf(why, why_len, "%s", be->why_lost);
    pthread_mutex_unlock(&be->lost_lock);
    return lost;
}

void zkp_g16_backend_test_fault(zkp_g16_backend *be) {
    if (be->gpu)
        zkp_gpu_test_fault(be->gpu);
    else
        mark_lost_(be, "a fault injected by a test");
}

void zkp_g16_backend_set_streaming(zkp_g16_backend *be, size_t resident_limit, size_t chunk) {
    be->resident_limit = resident_limit;
    be->stream_chunk = chunk;
}

unsigned zkp_g16_rkey_host_sets(const zkp_g16_rkey *k) {
    if (!k->be->gpu) return ZKP_G16_SETS_ALL;
    return k->streamed | (k->b2 ? 0u : ZKP_G16_SETS_B2);
}

unsigned zkp_g16_rkey_streamed_sets(const zkp_g16_rkey *k) {
    unsigned n = 0;
    for (int i = 0; i < ZKP_G16_SET_COUNT; i++) n += (k->streamed >> i) & 1u;
    return n;
}

zkpipe_status zkp_g16_rkey_load(zkp_g16_rkey **out, zkp_g16_backend *be, const zkp_g16_pk *pk,
                                zkp_diag *diag) {
    return zkp_g16_rkey_load_with_circuit(out, be, pk, NULL, diag);
}

zkpipe_status zkp_g16_rkey_load_with_circuit(zkp_g16_rkey **out, zkp_g16_backend *be,
                                             const zkp_g16_pk *pk, const zkp_gpu_csr_src *src,
                                             zkp_diag *diag) {
    *out = NULL;
    if (pk->curve != ZKPIPE_CURVE_BN254 && pk->curve != ZKPIPE_CURVE_BLS12_381)
        return ZKPIPE_ERR_UNSUPPORTED;
    zkp_g16_rkey *k = calloc(1, sizeof *k);
    if (!k) return ZKPIPE_ERR_NO_MEMORY;
    k->be = be;
    k->pk = pk;
    zkpipe_status st = be->ops->key_load(k, src, diag);
    if (st != ZKPIPE_OK) {
        free(k);
        return st;
    }
    *out = k;
    return ZKPIPE_OK;
}

void zkp_g16_rkey_free(zkp_g16_rkey *k) {
    if (!k) return;
    k->be->ops->key_unload(k);
    free(k);
}
