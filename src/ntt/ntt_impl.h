/* Generic NTT over a scalar field: types and declarations.
 *
 * Instantiated by each curve's NTT header, never included on its own:
 *
 *     #define NTT_FIELD bn254_fr   (the field: prefix of its type and operations)
 *     #define NTT_PARAM BN254_FR   (prefix of its constants in field_params.h)
 *     #include "ntt/ntt_impl.h"
 *
 * and in exactly one .c file per curve, ntt_body.h after it for the code.
 * See ntt.h for the contract. The names are the field's, then _ntt_: for
 * example bn254_fr_ntt_domain_t and bn254_fr_ntt_forward. */
#include <stddef.h>
#include <stdint.h>

#include "ntt/ntt_common.h"
#include "util/util.h"

#define NTT_T ZKP_CAT(NTT_FIELD, _t)
#define NTT_DOM ZKP_CAT(NTT_FIELD, _ntt_domain_t)
#define NTT_PLAN ZKP_CAT(NTT_FIELD, _ntt_plan_t)
#define NTT_OPT ZKP_CAT(NTT_FIELD, _ntt_options_t)
#define NTT_FN(op) ZKP_CAT(ZKP_CAT(NTT_FIELD, _ntt_), op)

/* Domain options; a zeroed struct (or NULL) means the defaults. */
typedef struct {
    const NTT_T *root;       /* a primitive 2^log_n-th root; NULL: F_root_of_unity */
    unsigned max_level_bits; /* 1..32, the largest sub-transform; 0: default */
    unsigned block_bits;     /* 1..ZKP_NTT_MAX_BLOCK_BITS, chunk size; 0: default */
} NTT_OPT;

/* A domain of n = 2^log_n points. Callers may read log_n, n, nlevels,
 * omega (the root w), omega_inv and n_inv; the rest belongs to the body,
 * and nothing may be written after init. The transform of log_n bits is cut
 * into nlevels levels, level 0 holding the top bits of the index: level t
 * transforms level_bits[t] bits, with the level_lo[t] bits below it (its
 * "columns", stride 2^level_lo[t]) carried along. See ntt_body.h. */
typedef struct {
    unsigned log_n;
    size_t n;
    unsigned nlevels;
    unsigned level_bits[ZKP_NTT_MAX_LEVELS];
    unsigned level_lo[ZKP_NTT_MAX_LEVELS];
    size_t level_ncols[ZKP_NTT_MAX_LEVELS];  /* columns one chunk carries */
    size_t level_group[ZKP_NTT_MAX_LEVELS];  /* sub-blocks one chunk carries */
    size_t level_chunks[ZKP_NTT_MAX_LEVELS]; /* chunks of the level's pass */
    size_t br_mids;                          /* bit reversal: tile rows per chunk */
    size_t br_chunks;
    unsigned split_bits; /* the two-level tables: w^e = hi[e >> split] lo[e & mask] */
    /* stage_fwd[h + p] = w_{2h}^p and stage_inv[h + p] = w_{2h}^(-p) for
     * h = 1, 2, 4, .., 2^(tw_bits-1) and p < h: the twiddles of every
     * sub-transform up to 2^tw_bits points, each stage contiguous. */
    unsigned tw_bits;
    const NTT_T *stage_fwd, *stage_inv;
    /* Only when nlevels > 1: lo_tab[e] = w^e (e < 2^split_bits),
     * hi_tab[e] = w^(e 2^split_bits), hi_inv_n[e] = hi_tab[e] / n. */
    const NTT_T *lo_tab, *hi_tab, *hi_inv_n;
    NTT_T omega, omega_inv, n_inv;
} NTT_DOM;

/* A transform bound to its array: see "Threads" in ntt.h. Built by
 * plan_init, read-only afterwards (the thread driver shares it). */
typedef struct {
    const NTT_DOM *dom;
    NTT_T *a;
    unsigned npasses;
    signed char pass_level[ZKP_NTT_MAX_PASSES]; /* a level, or -1: bit reversal */
    size_t pass_chunks[ZKP_NTT_MAX_PASSES];
    unsigned char dit;        /* 0: decimation in frequency, 1: in time */
    unsigned char inverse;    /* twiddles are powers of w^-1 */
    unsigned char scale;      /* how the coefficient side is scaled (ntt_body.h) */
    unsigned char tw_scaled;  /* 1/n is folded into the level-0 twiddles */
    NTT_T s, h, h_stride;     /* coefficient c_i gets s h^i */
    NTT_T q[ZKP_NTT_MAX_LOG]; /* running-product steps for h^rev(p) */
} NTT_PLAN;

size_t NTT_FN(domain_bytes)(unsigned log_n);
size_t NTT_FN(domain_bytes_opt)(unsigned log_n, const NTT_OPT *opt);
ZKP_WARN_UNUSED zkpipe_status NTT_FN(domain_init)(NTT_DOM *d, unsigned log_n, void *mem,
                                                  size_t mem_len);
ZKP_WARN_UNUSED zkpipe_status NTT_FN(domain_init_opt)(NTT_DOM *d, unsigned log_n,
                                                      const NTT_OPT *opt, void *mem,
                                                      size_t mem_len);
void NTT_FN(domain_clear)(NTT_DOM *d);
ZKP_WARN_UNUSED zkpipe_status NTT_FN(root_from_generator)(NTT_T *r, const NTT_T *g, unsigned log_n);

ZKP_WARN_UNUSED zkpipe_status NTT_FN(plan_init)(NTT_PLAN *plan, const NTT_DOM *dom, NTT_T *a,
                                                size_t n, zkp_ntt_kind kind, const NTT_T *shift);
unsigned NTT_FN(plan_passes)(const NTT_PLAN *plan);
size_t NTT_FN(plan_chunks)(const NTT_PLAN *plan, unsigned pass);
void NTT_FN(run_range)(const NTT_PLAN *plan, unsigned pass, size_t begin, size_t end);
void NTT_FN(run)(const NTT_PLAN *plan);
ZKP_WARN_UNUSED zkpipe_status NTT_FN(run_mt)(const NTT_PLAN *plan, unsigned nthreads);

ZKP_WARN_UNUSED zkpipe_status NTT_FN(transform)(const NTT_DOM *dom, NTT_T *a, size_t n,
                                                zkp_ntt_kind kind, const NTT_T *shift,
                                                unsigned nthreads);
ZKP_WARN_UNUSED zkpipe_status NTT_FN(forward)(const NTT_DOM *dom, NTT_T *a, size_t n);
ZKP_WARN_UNUSED zkpipe_status NTT_FN(inverse)(const NTT_DOM *dom, NTT_T *a, size_t n);
ZKP_WARN_UNUSED zkpipe_status NTT_FN(coset_forward)(const NTT_DOM *dom, NTT_T *a, size_t n,
                                                    const NTT_T *shift);
ZKP_WARN_UNUSED zkpipe_status NTT_FN(coset_inverse)(const NTT_DOM *dom, NTT_T *a, size_t n,
                                                    const NTT_T *shift);
ZKP_WARN_UNUSED zkpipe_status NTT_FN(forward_mt)(const NTT_DOM *dom, NTT_T *a, size_t n,
                                                 unsigned nthreads);
ZKP_WARN_UNUSED zkpipe_status NTT_FN(bit_reverse)(NTT_T *a, size_t n);

#undef NTT_T
#undef NTT_DOM
#undef NTT_PLAN
#undef NTT_OPT
#undef NTT_FN
