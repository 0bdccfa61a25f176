/* The NTT on the device, for one scalar field: the body that
 * bn254_fr_ntt.cu and bls12_381_fr_ntt.cu instantiate. ntt/ntt.h states the
 * contract (kinds, orders, coset shift, Montgomery form); this file follows
 * it exactly, so every output equals the CPU's F_ntt_transform on a domain
 * built on the same root. Field arithmetic is canonical (every result is
 * reduced), so any correct evaluation order gives the same bits.
 *
 * Levels. As on the CPU (ntt_body.h), a transform of L bits is cut into
 * levels: level t transforms d_t bits of the index for every value of the
 * bits above it (the block T) and every column c below it (stride 2^lo_t),
 * then multiplies the element holding output k of column c by w_N^(c k)
 * (N = 2^(d_t + lo_t)), the twiddle step. One kernel launch runs one level.
 * The DIF kinds (_NR) run the levels top-down, twiddle step after each
 * sub-transform; the DIT kinds (_RN) run the transpose: levels bottom-up,
 * twiddle step before each sub-transform. FORWARD and INVERSE are the _NR
 * kinds with the bit reversal in the last level's stores, out of place
 * through a second array (rev_in_levels), or, where no second array fits,
 * followed by a bit-reversal pass (by tiles, as on the CPU: reverse_kernel).
 *
 * Tiles. A thread block owns a tile of 2^TILE_BITS elements: 2^d rows of C
 * adjacent columns (C = 1 for the last level, whose rows are contiguous;
 * C >= 4 for the strided ones, so each row of the tile is at least 128
 * contiguous bytes of global memory). It loads the tile into shared memory
 * (applying the input-side scalings on the way), runs all d stages there,
 * two at a time (radix 2^2: a thread takes four elements through two stages
 * in registers, so each stage pair costs one round trip through shared
 * memory; an odd d's one radix-2 stage is run by the stores), and writes
 * the tile back (applying the output-side twiddle step or scaling on the
 * way). A transform of up to 2^11 points is one kernel; up to 2^20 two,
 * up to 2^29 three, each one read and one write of the array. A field has
 * no cheap fourth root of unity, so radix 4 costs the same products as
 * radix 2, less the trivial twiddles (below).
 *
 * Shared memory. An element is 32 bytes, kept as two planes of 16-byte
 * halves. A quarter warp's 16-byte accesses are served at once when its
 * eight slots fall in distinct bank groups (slot mod 8). Element s is kept
 * at s XOR (s/8 XOR s/64 XOR s/512) mod 8, a permutation within each row
 * of eight slots: every 3-bit field of s lands on the row's three bits
 * once, so eight lanes at any power-of-two distance (1 for the loads and
 * the wide rounds, 2^(lq+2) for the narrow ones below) touch eight groups.
 *
 * Trivial twiddles. In a radix-4 round the quads at p = 0 need only the
 * fourth root's product (w1 = w3 = 1), a quarter of the others' four: all
 * of the round of q = 1 (DIF's last of an even d, DIT's first), and 1/q of
 * the others. A lane skipping them saves nothing while its warp's other
 * lanes multiply, so in the rounds of q = 2 and 4 (where the saving is 3/8
 * and 3/16 of a product an element) p is taken from unit bits above the
 * warp's lanes, spread so that each scheduler's warps (warp mod 4) get
 * every p alike and the block's barrier waits for no scheduler with more of
 * them. At 2^27 this takes the sub-transforms from 11.5 products an element
 * to 10.75.
 *
 * Twiddles. Nothing is copied by hand: the host derives w^-1, 1/n and the
 * shift's powers from the arguments with the same field template compiled
 * for the host, and a kernel expands each table entry as a power of its
 * base, stored with its quotient for Shoup's product (gpu_field.cuh), by
 * which every product here is made: each multiplies an element by a
 * factor known before the launch, 99 wide multiply-adds where a Montgomery
 * product takes 128 (86 over BLS12-381's r, whose low words save two
 * diagonals). The sub-transforms read one table of 2^(D-1) powers of
 * w_{2^D} (D the largest level); the twiddle step and the coset scaling
 * multiply by w^e (or g^e) as hi[e >> sb] and then lo[e mod 2^sb], two
 * tables of about sqrt(n) entries (1.5 MiB at 2^27, which stays in L2),
 * except level 1's twiddle step in a three-level plan, which reads w^e
 * whole (TAB_TDIR, below). An inverse without shift folds its 1/n into a
 * copy of hi used by level 0's twiddle step, as the CPU does; a coset
 * folds it into the scaling tables. The scaling of natural coefficients
 * costs one product an element where the shift is a square root of the
 * root, as snarkjs's is: its column factor joins level 0's twiddle step
 * (tables_make).
 *
 * Host emulation. Each kernel is a sequence of phases separated by
 * __syncthreads(); the phases are host-device functions of (block, thread),
 * so the same code runs on the host, phase by phase over all threads, and
 * the unit tests check the index arithmetic on machines without a GPU. */
#ifndef ZKP_GPU_GPU_NTT_BODY_CUH
#define ZKP_GPU_GPU_NTT_BODY_CUH

#include <stdlib.h>
#include <string.h>

#include <new>

#include "gpu/gpu_field.cuh"
#include "gpu/gpu_internal.cuh"
#include "ntt/ntt_common.h"

namespace zkp_cuda {
namespace ntt {

/* A block's tile: 2^11 elements, 64 KiB of shared memory; the registers
 * (about 120 a thread) let two blocks of 256 threads share an SM. */
constexpr unsigned TILE_BITS = 11;
/* Strided levels keep at least 4 columns in a tile. */
constexpr unsigned STRIDED_BITS = TILE_BITS - 2;
constexpr unsigned THREADS = 256;
constexpr unsigned MAX_LEVELS = 4; /* 11 + 3 * 9 bits covers a 2-adicity of 32 */

enum { SCALE_NONE = 0, SCALE_CONST, SCALE_NATURAL, SCALE_BITREV, SCALE_ROWS };

/* ---------------------------------------------------------------- plan */

struct plan {
    unsigned L, m;  /* log2 of the size, number of levels */
    unsigned D;     /* bits of the largest level: the stage table's order */
    unsigned sb;    /* split of the exponent for the hi/lo tables */
    unsigned d[MAX_LEVELS], lo[MAX_LEVELS], logc[MAX_LEVELS];
    bool dit, inverse, bitrev;
};

static inline bool kind_ok(int kind) {
    return kind >= ZKP_NTT_FORWARD && kind <= ZKP_NTT_INVERSE_RN;
}

/* The level split: the last level, whose rows are contiguous, takes up to
 * TILE_BITS bits; the bits above it are shared as evenly as possible among
 * as few strided levels of at most STRIDED_BITS bits as will hold them. The
 * product count of the sub-transforms, about (L - 2m)/2 per element, does
 * not depend on how the bits are shared, only the level count does. */
static inline void plan_make(plan *p, unsigned L, int kind) {
    memset(p, 0, sizeof *p);
    p->L = L;
    if (L <= TILE_BITS) {
        p->m = 1;
        p->d[0] = L;
    } else {
        unsigned rest = L - TILE_BITS, ms = (rest + STRIDED_BITS - 1) / STRIDED_BITS;
        unsigned base = rest / ms, extra = rest % ms;
        for (unsigned t = 0; t < ms; t++) p->d[t] = base + (t >= ms - extra ? 1 : 0);
        p->d[ms] = TILE_BITS;
        p->m = ms + 1;
    }
    unsigned below = L;
    p->D = 0;
    for (unsigned t = 0; t < p->m; t++) {
        below -= p->d[t];
        p->lo[t] = below;
        unsigned room = TILE_BITS - p->d[t];
        p->logc[t] = below < room ? below : room;
        if (p->d[t] > p->D) p->D = p->d[t];
    }
    p->sb = (L + 1) / 2;
    p->dit = kind == ZKP_NTT_FORWARD_RN || kind == ZKP_NTT_INVERSE_RN;
    p->inverse =
        kind == ZKP_NTT_INVERSE || kind == ZKP_NTT_INVERSE_NR || kind == ZKP_NTT_INVERSE_RN;
    p->bitrev = kind == ZKP_NTT_FORWARD || kind == ZKP_NTT_INVERSE;
}

/* ---------------------------------------------------------------- element access */

ZKP_GPU_HD uint64_t brev(uint64_t x, unsigned bits) {
    if (bits == 0) return 0;
#ifdef __CUDA_ARCH__
    return __brevll(x) >> (64 - bits);
#else
    return zkp_ntt_bitrev(x, bits);
#endif
}

template <class F>
ZKP_GPU_HD F from_halves(const uint4 &lo, const uint4 &hi) {
    static_assert(F::N == 8, "the NTT keeps 256-bit elements as two 16-byte halves");
    F x;
    x.w[0] = lo.x, x.w[1] = lo.y, x.w[2] = lo.z, x.w[3] = lo.w;
    x.w[4] = hi.x, x.w[5] = hi.y, x.w[6] = hi.z, x.w[7] = hi.w;
    return x;
}

template <class F>
ZKP_GPU_HD void to_halves(const F &x, uint4 *lo, uint4 *hi) {
    *lo = make_uint4(x.w[0], x.w[1], x.w[2], x.w[3]);
    *hi = make_uint4(x.w[4], x.w[5], x.w[6], x.w[7]);
}

/* The data array, read and written by the same block. */
template <class F>
ZKP_GPU_HD F ld(const F *p) {
    const uint4 *q = reinterpret_cast<const uint4 *>(p);
    return from_halves<F>(q[0], q[1]);
}

template <class F>
ZKP_GPU_HD void st(F *p, const F &x) {
    uint4 *q = reinterpret_cast<uint4 *>(p);
    to_halves(x, &q[0], &q[1]);
}

/* A table entry: a twiddle or scaling factor with its quotient, for
 * Shoup's product (gpu_field.cuh), which every product of the transforms
 * is: each multiplies an element by a factor known before the kernel. */
template <class F>
using twiddle = typename F::shoup_factor;

template <class F>
ZKP_GPU_HD F mul(const F &x, const twiddle<F> &t) {
    return F::mul_shoup(x, t);
}

/* 16 bytes from global to shared memory, asynchronously on the device
 * (cp.async, L2 only); copy_async_wait waits for all of the thread's. */
ZKP_GPU_HD void copy_async16(uint4 *shared_dst, const uint4 *global_src) {
#ifdef __CUDA_ARCH__
    const unsigned dst = (unsigned)__cvta_generic_to_shared(shared_dst);
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(dst), "l"(global_src)
                 : "memory");
#else
    *shared_dst = *global_src;
#endif
}

ZKP_GPU_HD void copy_async_wait() {
#ifdef __CUDA_ARCH__
    asm volatile("cp.async.wait_all;\n" ::: "memory");
#endif
}

/* Tables, read-only for the whole kernel: through the read-only cache. */
template <class F>
ZKP_GPU_HD twiddle<F> ldt(const twiddle<F> *p) {
#ifdef __CUDA_ARCH__
    const uint4 *q = reinterpret_cast<const uint4 *>(p);
    twiddle<F> t;
    t.w = from_halves<F>(__ldg(q), __ldg(q + 1));
    t.q = from_halves<F>(__ldg(q + 2), __ldg(q + 3));
    return t;
#else
    return *p;
#endif
}

ZKP_GPU_HD unsigned slot(unsigned s) { return s ^ (((s >> 3) ^ (s >> 6) ^ (s >> 9)) & 7u); }

/* Shared-memory planes of a tile of 2^bits elements (bits <= 11, so that
 * slot's three folds cover every bit). */
ZKP_GPU_HD unsigned plane_len(unsigned bits) { return 1u << bits; }

template <class F>
ZKP_GPU_HD F lds(const uint4 *s_lo, const uint4 *s_hi, unsigned s) {
    unsigned k = slot(s);
    return from_halves<F>(s_lo[k], s_hi[k]);
}

template <class F>
ZKP_GPU_HD void sts(uint4 *s_lo, uint4 *s_hi, unsigned s, const F &x) {
    unsigned k = slot(s);
    to_halves(x, &s_lo[k], &s_hi[k]);
}

/* Entries j0 to j0 + POW_RUN - 1 of a table of count entries, base^j·mult
 * with the quotient for Shoup's product: the first by square and multiply,
 * each next one a product by base. A run costs about log2(j0) + POW_RUN
 * products, where each entry by square and multiply took 1.5·log2(j): 28
 * for level 1's 2^19 twiddles at 2^26 and 2^27. */
constexpr unsigned POW_RUN = 16;
template <class F>
ZKP_GPU_HD void table_run(twiddle<F> *out, size_t count, const F &base, const F &mult, size_t j0) {
    F x = mult, b = base;
    for (uint64_t j = j0; j != 0;) {
        if (j & 1) x = x * b;
        j >>= 1;
        if (j != 0) b = b * b;
    }
    const size_t end = count - j0 < POW_RUN ? count : j0 + POW_RUN;
    for (size_t j = j0; j < end; j++) {
        out[j] = F::shoup_of(x);
        if (j + 1 < end) x = x * base;
    }
}

/* x·w^e from the split tables: x·hi[e >> sb]·lo[e mod 2^sb], two Shoup
 * products, where forming w^e first would take a general product (its
 * quotient is not in any table) and then a Shoup one. */
template <class F>
ZKP_GPU_HD F mul_split(const F &x, const twiddle<F> *lo, const twiddle<F> *hi, uint64_t e,
                       unsigned sb) {
    return mul(mul(x, ldt<F>(hi + (e >> sb))), ldt<F>(lo + (e & (((uint64_t)1 << sb) - 1))));
}

/* ---------------------------------------------------------------- butterflies */

/* Radix-2^2 DIF: the stage of span 2q (pairs x0,x2 and x1,x3, twiddles
 * w1 = w_{4q}^p and w2 = w_{4q}^(p+q)), then the stage of span q (pairs
 * x0,x1 and x2,x3, twiddle w3 = w_{2q}^p). */
template <class F>
ZKP_GPU_HD void dif4(F &x0, F &x1, F &x2, F &x3, const twiddle<F> &w1, const twiddle<F> &w2,
                     const twiddle<F> &w3) {
    F u0 = x0 + x2, u2 = mul(x0 - x2, w1);
    F u1 = x1 + x3, u3 = mul(x1 - x3, w2);
    x0 = u0 + u1;
    x1 = mul(u0 - u1, w3);
    x2 = u2 + u3;
    x3 = mul(u2 - u3, w3);
}

/* The same at p = 0: w1 = w3 = 1 and w2 = w4, the fourth root of unity. */
template <class F>
ZKP_GPU_HD void dif4_p0(F &x0, F &x1, F &x2, F &x3, const twiddle<F> &w4) {
    F u0 = x0 + x2, u2 = x0 - x2;
    F u1 = x1 + x3, u3 = mul(x1 - x3, w4);
    x0 = u0 + u1;
    x1 = u0 - u1;
    x2 = u2 + u3;
    x3 = u2 - u3;
}

/* The transpose of dif4: span q first (w3), then span 2q (w1, w2). */
template <class F>
ZKP_GPU_HD void dit4(F &x0, F &x1, F &x2, F &x3, const twiddle<F> &w1, const twiddle<F> &w2,
                     const twiddle<F> &w3) {
    F t = mul(x1, w3);
    F a0 = x0 + t, a1 = x0 - t;
    t = mul(x3, w3);
    F a2 = x2 + t, a3 = x2 - t;
    t = mul(a2, w1);
    x0 = a0 + t;
    x2 = a0 - t;
    t = mul(a3, w2);
    x1 = a1 + t;
    x3 = a1 - t;
}

template <class F>
ZKP_GPU_HD void dit4_p0(F &x0, F &x1, F &x2, F &x3, const twiddle<F> &w4) {
    F a0 = x0 + x1, a1 = x0 - x1, a2 = x2 + x3, a3 = x2 - x3;
    x0 = a0 + a2;
    x2 = a0 - a2;
    F t = mul(a3, w4);
    x1 = a1 + t;
    x3 = a1 - t;
}

/* ---------------------------------------------------------------- one level */

/* What one launch needs: the level's geometry, its tables and the scalings
 * on its input and output side. */
template <class F>
struct level_args {
    F *a;   /* read */
    F *out; /* written: a, or the other of two arrays (rev_in_levels) */
    int out_rev; /* the last level of a natural-order kind: element i goes to rev(i) */
    const twiddle<F> *stw;       /* stw[j] = w_{2^D}^j, j < 2^(D-1) */
    const twiddle<F> *tlo, *thi; /* twiddle step: w^e (w^-e for an inverse) */
    const twiddle<F> *tdir;      /* or w^e read whole: tdir[e >> top], when not null */
    const twiddle<F> *slo, *shi; /* coefficient scaling: s h^e */
    const twiddle<F> *srow;      /* SCALE_ROWS: level 0's row r takes srow[r] */
    twiddle<F> sconst;           /* SCALE_CONST's factor */
    unsigned L, d, lo, top, logc, D, sb;
    int in_scale, out_scale;
    int in_tw, out_tw;
    int tw_coset;           /* the twiddle step takes h^(col·(2k+1)) from slo, shi */
};

template <class F>
ZKP_GPU_HD F elem_scale(const level_args<F> &A, int mode, uint64_t i, const F &x) {
    switch (mode) {
    case SCALE_CONST: return mul(x, A.sconst);
    case SCALE_NATURAL: return mul_split(x, A.slo, A.shi, i, A.sb);
    case SCALE_BITREV: return mul_split(x, A.slo, A.shi, brev(i, A.L), A.sb);
    case SCALE_ROWS: return mul(x, ldt<F>(A.srow + (i >> A.lo)));
    default: return x;
    }
}

/* The twiddle step for the element at row r of column col: w^(col·rev_d(r)·2^top);
 * with the coset's column factor folded in (tables, SCALE_ROWS), h^(col·(2k+1))
 * for k = rev_d(r), level 0's top being 0. */
template <class F>
ZKP_GPU_HD F elem_twiddle(const level_args<F> &A, uint64_t col, unsigned r, const F &x) {
    const uint64_t k = col * brev(r, A.d);
    if (A.tw_coset) return mul_split(x, A.slo, A.shi, 2 * k + col, A.sb);
    if (A.tdir != nullptr) return mul(x, ldt<F>(A.tdir + k));
    return mul_split(x, A.tlo, A.thi, k << A.top, A.sb);
}

/* Phases of a level: 0 loads, then the radix-4 rounds, then the last one
 * stores. An odd d also takes one radix-2 stage, which the store phase
 * runs on its way out (level_store_pairs): a round of its own would cost a
 * barrier and a pass over shared memory with little or no product to hide
 * them behind. */
template <class F>
ZKP_GPU_HD unsigned level_phases(const level_args<F> &A) {
    return 2 + A.d / 2;
}

/* Phase 0: the tile from global memory into shared memory, with the input
 * side's scalings. Unscaled, the copies go without registers (cp.async),
 * all of a thread's in flight at once, where loads through registers are
 * each waited for before the store to shared memory (at the kernel's
 * register cap, two at a time already spill), and they bypass L1, which
 * keeps the tables. Scaled, the elements go through registers: copying
 * them first and scaling them in shared memory was measured slower
 * (docs/PERFORMANCE.md). */
template <class F>
ZKP_GPU_HD void level_load(const level_args<F> &A, size_t base, size_t c0, unsigned tid,
                           unsigned nt, uint4 *s_lo, uint4 *s_hi) {
    const unsigned tile = 1u << (A.d + A.logc), cmask = (1u << A.logc) - 1;
    const bool plain = A.in_scale == SCALE_NONE && !A.in_tw;
    for (unsigned e = tid; e < tile; e += nt) {
        const unsigned r = e >> A.logc, c = e & cmask;
        const size_t i = base + ((size_t)r << A.lo) + c0 + c;
        if (plain) {
            const uint4 *q = reinterpret_cast<const uint4 *>(A.a + i);
            const unsigned k = slot(e);
            copy_async16(&s_lo[k], q);
            copy_async16(&s_hi[k], q + 1);
        } else {
            F x = elem_scale(A, A.in_scale, i, ld(A.a + i));
            if (A.in_tw) x = elem_twiddle(A, c0 + c, r, x);
            sts(s_lo, s_hi, e, x);
        }
    }
    copy_async_wait();
}

/* Unit bits below P_LOW hold a block's warps' lanes and the scheduler of
 * each warp (bits 5 and 6 of the thread index with 256 threads); p, where
 * it is warp-uniform, comes from the bits above. */
constexpr unsigned P_LOW = 7;

/* One radix-4 round on quads of rows row0 + k·q, q = 2^lq. Unit u takes
 * column u mod C, then p = (u / C) mod q, then the group: consecutive
 * threads touch consecutive slots while q·C allows it. In the rounds of
 * q = 2 and 4 (header: trivial twiddles), p = (u >> P_LOW) mod q instead,
 * and the column and the group come from the other bits; eight lanes then
 * lie 2^(lq+2)·C slots apart, or C >= 8 consecutive, which the slots spread
 * over the bank groups (C = 2 and 4 would not be, and keep the first
 * order). */
template <class F, bool DIT>
ZKP_GPU_HD void radix4_round(const level_args<F> &A, unsigned lq, unsigned tid, unsigned nt,
                             uint4 *s_lo, uint4 *s_hi) {
    const unsigned units = 1u << (A.d + A.logc - 2), cmask = (1u << A.logc) - 1;
    const unsigned q = 1u << lq, sh = A.D - (lq + 2), step = q << A.logc;
    const bool p_high = (lq == 1 || lq == 2) && A.d + A.logc - 2 >= P_LOW + lq &&
                        (A.logc == 0 || A.logc >= 3);
    const twiddle<F> w4 = ldt<F>(A.stw + (1u << (A.D - 2)));
    for (unsigned u = tid; u < units; u += nt) {
        unsigned p, rest;
        if (p_high) {
            p = (u >> P_LOW) & (q - 1);
            rest = (u & ((1u << P_LOW) - 1)) | ((u >> (P_LOW + lq)) << P_LOW);
        } else {
            p = (u >> A.logc) & (q - 1);
            rest = (u & cmask) | ((u >> (A.logc + lq)) << A.logc);
        }
        unsigned c = rest & cmask, grp = rest >> A.logc;
        unsigned s0 = ((((grp << (lq + 2)) + p)) << A.logc) + c;
        /* The butterfly's first factor (w1 for DIF, w3 for DIT) is read
         * before the elements, so that its latency from L1 runs under
         * theirs from shared memory; at p = 0 it goes unused. */
        const twiddle<F> wf = ldt<F>(A.stw + ((DIT ? 2 * p : p) << sh));
        F x0 = lds<F>(s_lo, s_hi, s0), x1 = lds<F>(s_lo, s_hi, s0 + step);
        F x2 = lds<F>(s_lo, s_hi, s0 + 2 * step), x3 = lds<F>(s_lo, s_hi, s0 + 3 * step);
        /* Only where p is the same across the warp: elsewhere the lanes at
         * p = 0 would wait for the others' products anyway. */
        if ((lq == 0 || p_high) && p == 0) {
            if (DIT)
                dit4_p0(x0, x1, x2, x3, w4);
            else
                dif4_p0(x0, x1, x2, x3, w4);
        } else {
            const twiddle<F> w2 = ldt<F>(A.stw + ((p + q) << sh));
            const twiddle<F> w1 = DIT ? ldt<F>(A.stw + (p << sh)) : wf;
            const twiddle<F> w3 = DIT ? wf : ldt<F>(A.stw + ((2 * p) << sh));
            if (DIT)
                dit4(x0, x1, x2, x3, w1, w2, w3);
            else
                dif4(x0, x1, x2, x3, w1, w2, w3);
        }
        sts(s_lo, s_hi, s0, x0);
        sts(s_lo, s_hi, s0 + step, x1);
        sts(s_lo, s_hi, s0 + 2 * step, x2);
        sts(s_lo, s_hi, s0 + 3 * step, x3);
    }
}

/* Element (r, c) of the tile to global memory, with the output side's
 * twiddle step and scaling. */
template <class F>
ZKP_GPU_HD void level_store(const level_args<F> &A, size_t base, size_t c0, unsigned r,
                            unsigned c, F x) {
    const size_t i = base + ((size_t)r << A.lo) + c0 + c;
    if (A.out_tw) x = elem_twiddle(A, c0 + c, r, x);
    x = elem_scale(A, A.out_scale, i, x);
    st(A.out + (A.out_rev ? brev(i, A.L) : i), x);
}

/* The store phase of a level of odd d, with its radix-2 stage: for DIF the
 * last, of span 1 and no twiddle, on the rows 2j and 2j + 1; for DIT the
 * last too, of span h = 2^(d-1) and twiddle w_{2h}^j, on the rows j and
 * j + h. (DIT takes its stages from span 1 up, so the radix-2 one, which
 * could come first at span 1 for free, comes last; the radix-4 rounds then
 * start at q = 1, whose quads all have p = 0, and the products add up the
 * same.) The pairs and the plain store of an even d each inline
 * level_store; one copy shared by both, in a loop kept rolled, took 40 % of
 * the kernel's code away and was slower. */
template <class F, bool DIT>
ZKP_GPU_HD void level_store_pairs(const level_args<F> &A, size_t base, size_t c0, unsigned tid,
                                  unsigned nt, const uint4 *s_lo, const uint4 *s_hi) {
    const unsigned units = 1u << (A.d + A.logc - 1), cmask = (1u << A.logc) - 1;
    const unsigned span = DIT ? 1u << (A.d - 1) : 1;
    for (unsigned u = tid; u < units; u += nt) {
        const unsigned c = u & cmask, j = u >> A.logc, r0 = DIT ? j : j << 1;
        const unsigned s0 = (r0 << A.logc) + c;
        F x0 = lds<F>(s_lo, s_hi, s0), x1 = lds<F>(s_lo, s_hi, s0 + (span << A.logc));
        if (DIT) x1 = mul(x1, ldt<F>(A.stw + (j << (A.D - A.d))));
        level_store(A, base, c0, r0, c, x0 + x1);
        level_store(A, base, c0, r0 + span, c, x0 - x1);
    }
}

/* Phase k of the level for one thread of block `block`. */
template <class F, bool DIT>
ZKP_GPU_HD void level_phase(const level_args<F> &A, unsigned k, size_t block, unsigned tid,
                            unsigned nt, uint4 *s_lo, uint4 *s_hi) {
    const unsigned nph = level_phases(A), tile = 1u << (A.d + A.logc);
    const unsigned cmask = (1u << A.logc) - 1, cg_bits = A.lo - A.logc;
    /* Stores to reversed places: block b takes row rev(b), so the blocks
     * running at once write neighbouring elements of each output row, and
     * L2 joins their 32-byte writes into whole lines. */
    const size_t T = A.out_rev ? brev(block >> cg_bits, A.L - A.d - A.lo) : block >> cg_bits;
    const size_t c0 = (block & (((size_t)1 << cg_bits) - 1)) << A.logc;
    const size_t base = T << (A.d + A.lo);
    if (k == 0) {
        level_load(A, base, c0, tid, nt, s_lo, s_hi);
        return;
    }
    if (k + 1 == nph) {
        if (A.d & 1) {
            level_store_pairs<F, DIT>(A, base, c0, tid, nt, s_lo, s_hi);
            return;
        }
        for (unsigned e = tid; e < tile; e += nt)
            level_store(A, base, c0, e >> A.logc, e & cmask, lds<F>(s_lo, s_hi, e));
        return;
    }
    /* Rounds: DIF takes the stage pairs from the top (span 2^(d-1)) down,
     * DIT from span 1 up; an odd d's radix-2 stage follows them in the
     * store phase. */
    if (!DIT)
        radix4_round<F, false>(A, A.d - 2 * k, tid, nt, s_lo, s_hi);
    else
        radix4_round<F, true>(A, 2 * (k - 1), tid, nt, s_lo, s_hi);
}

#ifdef __CUDACC__
template <class F, bool DIT>
__global__ void __launch_bounds__(THREADS, 2) level_kernel(const level_args<F> A) {
    extern __shared__ uint4 smem_[];
    uint4 *s_lo = smem_, *s_hi = smem_ + plane_len(A.d + A.logc);
    const unsigned nph = level_phases(A);
    for (unsigned k = 0; k < nph; k++) {
        level_phase<F, DIT>(A, k, blockIdx.x, threadIdx.x, blockDim.x, s_lo, s_hi);
        if (k + 1 < nph) __syncthreads();
    }
}
#endif

/* ---------------------------------------------------------------- bit reversal */

/* The bit reversal of the FORWARD and INVERSE kinds where no second array
 * fits (rev_in_levels), and of h's coefficients, in place, by tiles.
 * Split an index of L bits as (x, m, y), x its top RB bits, y its low RB
 * bits (RB = REV_BITS, or L/2 below 2·REV_BITS). Its reverse is (rev(y),
 * rev(m), rev(x)), so tile m, the elements (x, m, y) for all x and y, goes
 * whole to tile rev(m), transposed with both coordinates reversed. The
 * block of m takes tile m and tile rev(m) into shared memory (one tile
 * when m = rev(m); the block of the larger of the two does nothing) and
 * writes each to the other's place: every read and write of global memory
 * is a run of 2^RB contiguous elements (1 KiB), where swapping the pairs
 * (i, rev(i)) one thread each touches 32 bytes at a time all over the
 * array. With c, what is moved is a - c out of Montgomery form, read at the
 * same index: h's coefficients from bit-reversed a and c (gpu_h_evals). */
constexpr unsigned REV_BITS = 5;
constexpr unsigned REV_THREADS = 256;
/* The two tiles' slots: 2^11, as many as a level's tile. */
constexpr unsigned REV_SLOT_BITS = 2 * REV_BITS + 1;
static_assert(REV_SLOT_BITS <= TILE_BITS, "the reversal's tiles fit where a level's tile does");

struct rev_geometry {
    unsigned L, rb, mid; /* bits of the index, of x and y, of m */
};

ZKP_GPU_HD rev_geometry rev_make(unsigned L) {
    rev_geometry r;
    r.L = L;
    r.rb = L >= 2 * REV_BITS ? REV_BITS : L / 2;
    r.mid = L - 2 * r.rb;
    return r;
}

/* Slot of element (x, y) in a tile of rows of 2^rb: y is XORed with bits 2
 * to 4 of x, so that eight lanes reading eight consecutive y of one row, or
 * one y of the rows rev(y') for eight consecutive y' (which differ in x's
 * top three bits), fall in eight bank groups. */
ZKP_GPU_HD unsigned rev_slot(const rev_geometry &r, unsigned x, unsigned y) {
    return (x << r.rb) | (y ^ ((x >> 2) & 7u & ((1u << r.rb) - 1)));
}

ZKP_GPU_HD size_t rev_index(const rev_geometry &r, unsigned x, size_t m, unsigned y) {
    return ((size_t)x << (r.L - r.rb)) | (m << r.rb) | y;
}

/* Phase 0 loads tile m and tile rev(m), phase 1 stores each in the other's
 * place. Tile t of the two (0 for m, 1 for rev(m)) is at slots t·2^(2 rb). */
template <class F>
ZKP_GPU_HD void rev_phase(F *a, const F *c, const rev_geometry &r, unsigned phase, size_t m,
                          unsigned tid, unsigned nt, uint4 *s_lo, uint4 *s_hi) {
    const size_t mr = brev(m, r.mid);
    if (mr < m) return;
    const unsigned tile = 1u << (2 * r.rb), ymask = (1u << r.rb) - 1;
    const unsigned tiles = mr == m ? 1 : 2;
    for (unsigned e = tid; e < tiles * tile; e += nt) {
        const unsigned t = e >> (2 * r.rb), x = (e & (tile - 1)) >> r.rb, y = e & ymask;
        const size_t i = rev_index(r, x, t ? mr : m, y);
        if (phase == 0) {
            F v = ld(a + i);
            if (c != nullptr) v = v - ld(c + i).from_mont();
            const unsigned k = t * tile + rev_slot(r, x, y);
            to_halves(v, &s_lo[k], &s_hi[k]);
        } else {
            /* Position (x, ., y) of tile t receives element (rev(y), .,
             * rev(x)) of the other tile. */
            const unsigned from = tiles == 1 ? 0 : 1 - t;
            const unsigned xs = (unsigned)brev(y, r.rb), ys = (unsigned)brev(x, r.rb);
            const unsigned k = from * tile + rev_slot(r, xs, ys);
            st(a + i, from_halves<F>(s_lo[k], s_hi[k]));
        }
    }
}

ZKP_GPU_HD size_t rev_blocks(const rev_geometry &r) { return (size_t)1 << r.mid; }

#ifdef __CUDACC__
template <class F>
__global__ void __launch_bounds__(REV_THREADS) reverse_kernel(F *a, const F *c,
                                                              const rev_geometry r) {
    extern __shared__ uint4 smem_[];
    uint4 *s_lo = smem_, *s_hi = smem_ + plane_len(REV_SLOT_BITS);
    rev_phase(a, c, r, 0, blockIdx.x, threadIdx.x, blockDim.x, s_lo, s_hi);
    __syncthreads();
    rev_phase(a, c, r, 1, blockIdx.x, threadIdx.x, blockDim.x, s_lo, s_hi);
}

template <class F>
__global__ void pow_kernel(twiddle<F> *out, size_t count, const F base, const F mult) {
    size_t j0 = ((size_t)blockIdx.x * blockDim.x + threadIdx.x) * POW_RUN;
    if (j0 < count) table_run(out, count, base, mult, j0);
}

/* h_j = a_j b_j - c_j, or a_j b_j without c, out of Montgomery form, over
 * a. */
template <class F>
__global__ void h_kernel(F *a, const F *b, const F *c, size_t n) {
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    F x = ld(a + i) * ld(b + i);
    if (c != nullptr) x = x - ld(c + i);
    st(a + i, x.from_mont());
}

/* h's coefficients (times Z) over a: a_j less c_j out of Montgomery form
 * (gpu_h_evals says why), in the order they come; reverse_kernel does the
 * same on the way to natural order when they come bit-reversed. */
template <class F>
__global__ void coef_kernel(F *a, const F *c, size_t n) {
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) st(a + i, ld(a + i) - ld(c + i).from_mont());
}

/* Row i of a matrix of a compiled circuit times the witness w (canonical
 * scalars): the sum over the row's entries of the raw value (coefficient
 * times R^2) times w at the entry's column, each Montgomery product being
 * the Montgomery form of coefficient times w, as on the CPU. With by_dict
 * the values are 16-bit indices into dict (a table of a few thousand
 * values, which the caches hold).
 *
 * One thread a row for its first SPMV_OWN entries: a PoRep row holds one
 * to three entries. Rows longer than that (a PoRep partition's A has rows
 * of up to 929 entries, a third of its non-zeros in rows of more than 32)
 * would hold their warp for hundreds of dependent gathers, so the whole
 * warp takes the rest of each, one row after another, and sums the lanes'
 * shares by shuffles. Field addition is exact, so the order of the sum
 * does not change the result. */
constexpr unsigned SPMV_OWN = 32;
/* Blocks of two warps: a block holds its place on the multiprocessor until
 * its last warp ends, and a warp with a long row ends long after the
 * others. */
constexpr unsigned SPMV_THREADS = 64;

template <class F, bool by_dict>
__device__ __forceinline__ F spmv_entry(uint64_t k, const uint32_t *col, const void *vals,
                                        const F *dict, const F *w) {
    F v = by_dict ? ld(dict + ((const uint16_t *)vals)[k]) : ld((const F *)vals + k);
    return v * ld(w + col[k]);
}

/* The sum of the warp's x, in every lane. */
template <class F>
__device__ __forceinline__ F warp_sum(F x) {
    for (unsigned off = 16; off > 0; off >>= 1) {
        F o;
#pragma unroll
        for (int j = 0; j < F::N; j++) o.w[j] = __shfl_down_sync(0xffffffffu, x.w[j], off);
        x = x + o;
    }
#pragma unroll
    for (int j = 0; j < F::N; j++) x.w[j] = __shfl_sync(0xffffffffu, x.w[j], 0);
    return x;
}

/* Row i goes to out[i], or to out[rev_L(i)] when rev_bits = L > 0. */
template <class F, bool by_dict>
__global__ void spmv_kernel(F *out, const uint64_t *row_ptr, const uint32_t *col,
                            const void *vals, const F *dict, const F *w, size_t n_rows,
                            unsigned rev_bits) {
    /* Every lane of a warp stays to the end, rows or not: the shuffles
     * need them all. The launch is whole warps. */
    const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    const unsigned lane = threadIdx.x & 31;
    const bool live = i < n_rows;
    uint64_t k = live ? row_ptr[i] : 0, end = live ? row_ptr[i + 1] : 0;
    const uint64_t own = end - k > SPMV_OWN ? k + SPMV_OWN : end;
    F acc = F::zero();
    for (; k < own; k++) acc = acc + spmv_entry<F, by_dict>(k, col, vals, dict, w);
    for (unsigned rest = __ballot_sync(0xffffffffu, k < end); rest != 0; rest &= rest - 1) {
        const int src = __ffs(rest) - 1;
        const uint64_t lo = __shfl_sync(0xffffffffu, k, src), hi = __shfl_sync(0xffffffffu, end, src);
        F part = F::zero();
        for (uint64_t e = lo + lane; e < hi; e += 32)
            part = part + spmv_entry<F, by_dict>(e, col, vals, dict, w);
        part = warp_sum(part);
        if ((int)lane == src) acc = acc + part;
    }
    if (live) st(out + (rev_bits ? brev(i, rev_bits) : i), acc);
}

/* c_i = a_i b_i, the C row of a satisfied circuit, as on the CPU. */
template <class F>
__global__ void product_kernel(F *c, const F *a, const F *b, size_t n) {
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) st(c + i, ld(a + i) * ld(b + i));
}
#endif

/* ---------------------------------------------------------------- host scalars */

template <class F>
static F host_load(const uint64_t *limbs) {
    F x;
    memcpy(x.w, limbs, sizeof x.w);
    return x;
}

template <class F>
static bool host_reduced(const F &x) {
    typedef typename F::params P;
    for (int i = F::N - 1; i >= 0; i--) {
        if (x.w[i] != P::p(i)) return x.w[i] < P::p(i);
    }
    return false;
}

/* x^(p-2) = 1/x, left to right over the bits of p - 2. */
template <class F>
static F host_inv(const F &x) {
    typedef typename F::params P;
    uint32_t e[F::N], borrow = 0;
    for (int i = 0; i < F::N; i++) e[i] = subb_(P::p(i), i == 0 ? 2u : 0u, &borrow);
    F r = F::one();
    for (int i = F::N - 1; i >= 0; i--)
        for (int b = 31; b >= 0; b--) {
            r = r.sqr();
            if ((e[i] >> b) & 1) r = r * x;
        }
    return r;
}

template <class F>
static F host_sqr_n(F x, unsigned k) {
    for (unsigned i = 0; i < k; i++) x = x.sqr();
    return x;
}

/* w has order exactly 2^L: w^(2^(L-1)) = -1, or w = 1 for L = 0. */
template <class F>
static bool host_primitive(const F &w, unsigned L) {
    if (L == 0) return w == F::one();
    return host_sqr_n(w, L - 1) == F::one().neg();
}

/* ---------------------------------------------------------------- tables */

enum { TAB_STW = 0, TAB_TLO, TAB_THI, TAB_THIN, TAB_TDIR, TAB_SLO, TAB_SHI, TAB_SROW, TAB_COUNT_ };

/* Level 1's twiddle step of a three-level plan reads w^e whole from a table
 * of the powers of w^(2^top) (e is a multiple of 2^top, below 2^L), one
 * product per element instead of two, while the table has at most 2^20
 * entries (64 MiB; 2^19 at 2^27, 32 MiB). Level 0's exponents span all of
 * 2^L and keep the split tables. */
constexpr unsigned TDIR_MAX_BITS = 20;

template <class F>
struct tables {
    size_t off[TAB_COUNT_], count[TAB_COUNT_], total;
    F base[TAB_COUNT_], mult[TAB_COUNT_];
    int scale;
    F sconst;
};

/* What a transform's tables hold, with every base derived on the host. */
template <class F>
static void tables_make(tables<F> *tb, const plan &p, const F &root, const F *shift) {
    memset(tb, 0, sizeof *tb);
    const F one = F::one();
    const F w = p.inverse ? host_inv(root) : root;
    F n_inv = one;
    if (p.inverse) {
        F nm = F::zero();
        nm.w[0] = (uint32_t)((uint64_t)1 << p.L);
        nm.w[1] = (uint32_t)(((uint64_t)1 << p.L) >> 32);
        n_inv = host_inv(nm.to_mont());
    }
    const size_t nlo = (size_t)1 << p.sb, nhi = (size_t)1 << (p.L - p.sb);
    const F w_hi = host_sqr_n(w, p.sb);
    for (int t = 0; t < TAB_COUNT_; t++) tb->mult[t] = one, tb->base[t] = one;
    tb->count[TAB_STW] = p.D >= 2 ? (size_t)1 << (p.D - 1) : 1;
    tb->base[TAB_STW] = host_sqr_n(w, p.L - p.D);
    if (p.m > 1) {
        tb->count[TAB_TLO] = nlo, tb->base[TAB_TLO] = w;
        tb->count[TAB_THI] = nhi, tb->base[TAB_THI] = w_hi;
        if (p.inverse && shift == nullptr)
            tb->count[TAB_THIN] = nhi, tb->base[TAB_THIN] = w_hi, tb->mult[TAB_THIN] = n_inv;
        if (p.m == 3 && p.L - p.d[0] <= TDIR_MAX_BITS)
            tb->count[TAB_TDIR] = (size_t)1 << (p.L - p.d[0]),
            tb->base[TAB_TDIR] = host_sqr_n(w, p.d[0]);
    }
    tb->scale = SCALE_NONE;
    tb->sconst = one;
    if (shift != nullptr) {
        const F h = p.inverse ? host_inv(*shift) : *shift;
        tb->count[TAB_SLO] = nlo, tb->base[TAB_SLO] = h;
        tb->count[TAB_SHI] = nhi, tb->base[TAB_SHI] = host_sqr_n(h, p.sb), tb->mult[TAB_SHI] = n_inv;
        /* The coefficients are the input of a forward DIF and the output of
         * an inverse DIT (natural order), the other way round in
         * bit-reversed order. */
        tb->scale = p.dit == p.inverse ? SCALE_NATURAL : SCALE_BITREV;
        /* Natural coefficients meet level 0, whose sub-transforms run over
         * the top d0 bits of the index i = r·2^lo + col. The scaling h^i
         * splits into a row factor h^(r·2^lo) and a column factor h^col,
         * which is the same for all of a column's rows and so passes
         * through the sub-transform to its twiddle step, w^(col·k) (w^-1
         * for an inverse). When h² is that w (snarkjs's shift, w_{2n},
         * is), the two make h^(col·(2k+1)), one split lookup as the step's
         * own w^(col·k) was, and the scaling costs one product an element
         * instead of two: h's powers go up to 2^(L+1), and 1/n moves to
         * the rows' table. */
        if (tb->scale == SCALE_NATURAL && p.m > 1 && h.sqr() == w) {
            tb->scale = SCALE_ROWS;
            tb->count[TAB_SHI] = nhi << 1, tb->mult[TAB_SHI] = one;
            tb->count[TAB_SROW] = (size_t)1 << p.d[0];
            tb->base[TAB_SROW] = host_sqr_n(h, p.lo[0]), tb->mult[TAB_SROW] = n_inv;
        }
    } else if (p.inverse && p.m == 1) {
        tb->scale = SCALE_CONST;
        tb->sconst = n_inv;
    }
    size_t off = 0;
    for (int t = 0; t < TAB_COUNT_; t++) {
        tb->off[t] = off;
        off += tb->count[t];
    }
    tb->total = off;
}

/* The arguments of level t, with the tables at tab (device or host). */
template <class F>
static level_args<F> level_make(const plan &p, const tables<F> &tb, const twiddle<F> *tab, F *a,
                                unsigned t) {
    level_args<F> A;
    memset(&A, 0, sizeof A);
    A.a = a;
    A.out = a;
    A.stw = tab + tb.off[TAB_STW];
    A.tlo = tab + tb.off[TAB_TLO];
    A.thi = tab + tb.off[(t == 0 && tb.count[TAB_THIN]) ? TAB_THIN : TAB_THI];
    A.tdir = (t == 1 && tb.count[TAB_TDIR]) ? tab + tb.off[TAB_TDIR] : nullptr;
    A.slo = tab + tb.off[TAB_SLO];
    A.shi = tab + tb.off[TAB_SHI];
    A.srow = tab + tb.off[TAB_SROW];
    A.sconst = F::shoup_of(tb.sconst);
    A.L = p.L, A.d = p.d[t], A.lo = p.lo[t], A.top = p.L - p.d[t] - p.lo[t];
    A.logc = p.logc[t], A.D = p.D, A.sb = p.sb;
    const bool last = t + 1 == p.m;
    const int sc = tb.scale;
    A.in_scale = A.out_scale = SCALE_NONE;
    A.in_tw = A.out_tw = 0;
    const bool natural = sc == SCALE_NATURAL || sc == SCALE_ROWS;
    if (!p.dit) {
        if (t == 0 && (natural || sc == SCALE_CONST)) A.in_scale = sc;
        A.out_tw = !last;
        if (last && sc == SCALE_BITREV) A.out_scale = sc;
    } else {
        if (last && (sc == SCALE_BITREV || sc == SCALE_CONST)) A.in_scale = sc;
        A.in_tw = !last;
        if (t == 0 && natural) A.out_scale = sc;
    }
    A.tw_coset = t == 0 && sc == SCALE_ROWS;
    return A;
}

/* A natural-order kind (FORWARD, INVERSE: DIF, then the bit reversal) can
 * put its reversal into the last level's stores instead of a pass of its
 * own over the array. With one level that is in place: the block holds the
 * whole array. With more, a level's writes must not land on elements other
 * blocks have yet to read, so the transform runs out of place through a
 * second array b of the same size: level 0 from a into b, the middle
 * levels in b, the last from b back into a at the reversed places. Without
 * b (no room for it) the reversal stays a pass. */
static inline bool rev_needs_array(const plan &p) { return p.bitrev && p.m > 1; }

template <class F>
static bool rev_in_levels(const plan &p, const F *b) {
    return p.bitrev && (!rev_needs_array(p) || b != nullptr);
}

template <class F>
static void rev_in_levels_arrays(level_args<F> *A, const plan &p, unsigned t, F *a, F *b) {
    const bool last = t + 1 == p.m;
    A->a = t == 0 ? a : b;
    A->out = last ? a : b;
    A->out_rev = last;
}

/* ---------------------------------------------------------------- device driver */

#ifdef __CUDACC__
/* Expands the tables into tab (device memory) on the compute stream. */
template <class F>
static zkpipe_status tables_launch(zkp_gpu *g, const tables<F> &tb, twiddle<F> *tab,
                                   zkp_diag *diag) {
    for (int t = 0; t < TAB_COUNT_; t++) {
        if (tb.count[t] == 0) continue;
        pow_kernel<F><<<blocks_for(blocks_for(tb.count[t], POW_RUN), 128), 128, 0, g->compute>>>(
            tab + tb.off[t], tb.count[t], tb.base[t], tb.mult[t]);
        ZKP_CUDA_LAUNCHED(diag, pow_kernel);
    }
    return ZKPIPE_OK;
}

static inline size_t level_smem_bytes(unsigned tile_bits) {
    return 2 * (size_t)plane_len(tile_bits) * sizeof(uint4);
}

/* Queues the bit reversal of the 2^L elements at a (device), less c out of
 * Montgomery form where c is not null, on the compute stream. */
template <class F>
static zkpipe_status enqueue_reverse(zkp_gpu *g, F *a, const F *c, unsigned L, zkp_diag *diag) {
    const size_t smem = level_smem_bytes(REV_SLOT_BITS);
    const auto attr = cudaFuncAttributeMaxDynamicSharedMemorySize;
    ZKP_CUDA_TRY(diag, cudaFuncSetAttribute(reverse_kernel<F>, attr, (int)smem));
    const rev_geometry r = rev_make(L);
    reverse_kernel<F><<<(unsigned)rev_blocks(r), REV_THREADS, smem, g->compute>>>(a, c, r);
    ZKP_CUDA_LAUNCHED(diag, reverse_kernel);
    return ZKPIPE_OK;
}

/* Queues the transform of the 2^L elements at a (device) on the compute
 * stream; nothing is waited for. b: the second array of a natural-order
 * kind (rev_in_levels), or null. */
template <class F>
static zkpipe_status enqueue(zkp_gpu *g, F *a, const plan &p, const tables<F> &tb,
                             const twiddle<F> *tab, zkp_diag *diag, F *b = nullptr) {
    const size_t smax = level_smem_bytes(TILE_BITS);
    auto kernel = p.dit ? level_kernel<F, true> : level_kernel<F, false>;
    ZKP_CUDA_TRY(diag, cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                            (int)smax));
    const bool fused = rev_in_levels(p, b);
    for (unsigned i = 0; i < p.m; i++) {
        const unsigned t = p.dit ? p.m - 1 - i : i;
        level_args<F> A = level_make(p, tb, tab, a, t);
        if (fused) rev_in_levels_arrays(&A, p, t, a, b);
        const unsigned tile_bits = A.d + A.logc;
        const size_t blocks = (size_t)1 << (p.L - tile_bits);
        const size_t smem = level_smem_bytes(tile_bits);
        kernel<<<(unsigned)blocks, THREADS, smem, g->compute>>>(A);
        ZKP_CUDA_LAUNCHED(diag, level_kernel);
    }
    return p.bitrev && !fused ? enqueue_reverse<F>(g, a, nullptr, p.L, diag) : ZKPIPE_OK;
}
#endif

/* ---------------------------------------------------------------- argument checks */

/* The checks every entry point shares: a known kind other than BIT_REVERSE,
 * log_n within the 2-adicity, a reduced primitive root and a reduced
 * nonzero shift. On success *w and *gs hold root and shift. */
template <class F>
static zkpipe_status check_args(const char *fname, unsigned log_n, unsigned adicity, int kind,
                                const uint64_t *root, const uint64_t *shift, F *w, F *gs,
                                zkp_diag *diag) {
    if (kind == ZKP_NTT_BIT_REVERSE)
        return zkp_diag_fail(diag, ZKPIPE_ERR_INVALID_ARGUMENT,
                             "%s: the GPU NTT has no BIT_REVERSE kind", fname);
    if (!kind_ok(kind))
        return zkp_diag_fail(diag, ZKPIPE_ERR_INVALID_ARGUMENT, "%s: unknown NTT kind %d", fname,
                             kind);
    if (log_n > adicity)
        return zkp_diag_fail(diag, ZKPIPE_ERR_INVALID_ARGUMENT,
                             "%s: log_n %u exceeds the field's 2-adicity %u", fname, log_n, adicity);
    if (root == nullptr)
        return zkp_diag_fail(diag, ZKPIPE_ERR_INVALID_ARGUMENT, "%s: no root of unity", fname);
    *w = host_load<F>(root);
    if (!host_reduced(*w) || !host_primitive(*w, log_n))
        return zkp_diag_fail(diag, ZKPIPE_ERR_INVALID_ARGUMENT,
                             "%s: the root is not a reduced primitive 2^%u-th root of unity", fname,
                             log_n);
    if (shift != nullptr) {
        *gs = host_load<F>(shift);
        if (!host_reduced(*gs) || gs->is_zero())
            return zkp_diag_fail(diag, ZKPIPE_ERR_INVALID_ARGUMENT,
                                 "%s: the coset shift is zero or not reduced", fname);
    }
    return ZKPIPE_OK;
}

#ifdef __CUDACC__
/* The transform of 2^log_n elements at a (device memory). */
template <class F>
static zkpipe_status ntt_on_device(zkp_gpu *g, F *a, unsigned log_n, int kind, const F &w,
                                   const F *shift, zkp_diag *diag) {
    if (log_n == 0) return ZKPIPE_OK; /* one point: every kind is the identity */
    plan p;
    plan_make(&p, log_n, kind);
    tables<F> tb;
    tables_make<F>(&tb, p, w, shift);
    void *tab = nullptr;
    const size_t tab_bytes = tb.total * sizeof(twiddle<F>);
    zkpipe_status st = dev_alloc(g, &tab, tab_bytes, ZKP_GPU_MEM_SCRATCH, diag);
    if (st != ZKPIPE_OK) return st;
    /* The second array of a natural-order kind, where it fits. */
    void *b = nullptr;
    const size_t b_bytes = rev_needs_array(p) ? ((size_t)1 << log_n) * sizeof(F) : 0;
    zkp_diag no_room = {{0}};
    if (b_bytes && dev_alloc(g, &b, b_bytes, ZKP_GPU_MEM_SCRATCH, &no_room) != ZKPIPE_OK) {
        (void)cudaGetLastError(); /* a refused cudaMalloc is no launch's error */
        b = nullptr;
    }
    st = tables_launch(g, tb, (twiddle<F> *)tab, diag);
    if (st == ZKPIPE_OK) st = enqueue(g, a, p, tb, (const twiddle<F> *)tab, diag, (F *)b);
    cudaError_t e = cudaStreamSynchronize(g->compute);
    if (e != cudaSuccess && st == ZKPIPE_OK)
        st = cuda_fail(diag, e, "cudaStreamSynchronize(compute) after the NTT", __FILE__, __LINE__);
    if (b) dev_free(g, b, b_bytes, ZKP_GPU_MEM_SCRATCH);
    dev_free(g, tab, tab_bytes, ZKP_GPU_MEM_SCRATCH);
    return st;
}

template <class F>
static zkpipe_status gpu_ntt(const char *fname, unsigned adicity, zkp_gpu *g, uint64_t *a,
                             unsigned log_n, int kind, const uint64_t *root, const uint64_t *shift,
                             zkp_diag *diag) {
    if (g == nullptr || a == nullptr)
        return zkp_diag_fail(diag, ZKPIPE_ERR_INVALID_ARGUMENT, "%s: no context or no array", fname);
    F w, gs;
    zkpipe_status st = check_args<F>(fname, log_n, adicity, kind, root, shift, &w, &gs, diag);
    if (st != ZKPIPE_OK) return st;
    st = bind(g, diag);
    if (st != ZKPIPE_OK) return st;
    busy_scope busy(g);
    const size_t bytes = ((size_t)1 << log_n) * sizeof(F);
    void *d = nullptr;
    st = dev_alloc(g, &d, bytes, ZKP_GPU_MEM_SCRATCH, diag);
    if (st != ZKPIPE_OK) return st;
    st = copy_h2d(g, d, a, bytes, g->compute, diag);
    if (st == ZKPIPE_OK) st = ntt_on_device<F>(g, (F *)d, log_n, kind, w, shift ? &gs : nullptr, diag);
    if (st == ZKPIPE_OK) st = copy_d2h(g, a, d, bytes, g->compute, diag);
    if (st == ZKPIPE_OK) {
        cudaError_t e = cudaStreamSynchronize(g->compute);
        if (e != cudaSuccess)
            st = cuda_fail(diag, e, "cudaStreamSynchronize(compute) after the download", __FILE__,
                           __LINE__);
    } else {
        (void)cudaStreamSynchronize(g->compute);
    }
    dev_free(g, d, bytes, ZKP_GPU_MEM_SCRATCH);
    return st;
}

template <class F>
static zkpipe_status gpu_ntt_dev(const char *fname, unsigned adicity, zkp_gpu *g, zkp_gpu_buf *a,
                                 unsigned log_n, int kind, const uint64_t *root,
                                 const uint64_t *shift, zkp_diag *diag) {
    if (g == nullptr || a == nullptr)
        return zkp_diag_fail(diag, ZKPIPE_ERR_INVALID_ARGUMENT, "%s: no context or no buffer",
                             fname);
    F w, gs;
    zkpipe_status st = check_args<F>(fname, log_n, adicity, kind, root, shift, &w, &gs, diag);
    if (st != ZKPIPE_OK) return st;
    const size_t bytes = ((size_t)1 << log_n) * sizeof(F);
    if (a->g != g || a->bytes < bytes)
        return zkp_diag_fail(diag, ZKPIPE_ERR_INVALID_ARGUMENT,
                             "%s: the buffer (%zu bytes) is not this context's or holds fewer than "
                             "2^%u elements",
                             fname, a->bytes, log_n);
    st = bind(g, diag);
    if (st == ZKPIPE_OK) st = buf_ready_on(a, g->compute, diag);
    if (st != ZKPIPE_OK) return st;
    busy_scope busy(g);
    return ntt_on_device<F>(g, (F *)a->ptr, log_n, kind, w, shift ? &gs : nullptr, diag);
}

/* Where a, b and c come from: host memory (host: a then b then c), or a
 * compiled circuit on the device and the witness there. */
struct abc_source {
    const uint64_t *host;
    const zkp_gpu_csr *csr;
    const zkp_gpu_buf *witness;
};

/* a and b from the circuit and the witness into dev[0] and dev[1], and c
 * into dev[2], on the compute stream; in bit-reversed order of log_n bits
 * when rev_bits = log_n, in natural order when it is 0. */
template <class F>
static zkpipe_status abc_on_device(zkp_gpu *g, F *const dev[3], const abc_source &src, size_t n,
                                   unsigned rev_bits, trace &tr, zkp_diag *diag) {
    const zkp_gpu_csr *c = src.csr;
    zkpipe_status st = buf_ready_on(src.witness, g->compute, diag);
    if (st != ZKPIPE_OK) return st;
    tr.mark("witness");
    const F *w = (const F *)src.witness->ptr, *dict = c->dict ? (const F *)c->dict->ptr : nullptr;
    for (int m = 0; m < 2; m++) {
        const uint64_t *rp = (const uint64_t *)c->row_ptr[m]->ptr;
        const uint32_t *col = (const uint32_t *)c->col[m]->ptr;
        if (dict)
            spmv_kernel<F, true><<<blocks_for(n, SPMV_THREADS), SPMV_THREADS, 0, g->compute>>>(
                dev[m], rp, col, c->vals[m]->ptr, dict, w, n, rev_bits);
        else
            spmv_kernel<F, false><<<blocks_for(n, SPMV_THREADS), SPMV_THREADS, 0, g->compute>>>(
                dev[m], rp, col, c->vals[m]->ptr, nullptr, w, n, rev_bits);
        ZKP_CUDA_LAUNCHED(diag, spmv_kernel);
    }
    product_kernel<F><<<blocks_for(n, 256), 256, 0, g->compute>>>(dev[2], dev[0], dev[1], n);
    ZKP_CUDA_LAUNCHED(diag, product_kernel);
    tr.mark("a b c");
    return ZKPIPE_OK;
}

/* The H values. From host memory, a, b and c are uploaded on the upload
 * stream, each transformed on the compute stream once its upload's event
 * has fired, so b's and c's uploads overlap the transforms of a (and c's
 * those of b); from a circuit on the device, they are made there first.
 * Then h over a's buffer, which becomes *h.
 *
 * h's coefficients (times Z, for a key in the coefficient basis) take six
 * transforms, not seven, as on the CPU (groth16/groth16_body.h,
 * cpu_h_scalars): they are the coefficients of AB mod (x^n - g^n) less
 * C's, so c is only interpolated, AB's values on the coset are
 * interpolated back from it, and the difference is taken coefficient by
 * coefficient.
 *
 * The orders. Interpolation takes natural values to bit-reversed
 * coefficients (DIF) and the coset's evaluation takes those back to
 * natural values (DIT), so the evaluations come out in natural order, as
 * a key in the evaluation basis reads them; the two interpolations of the
 * coefficients then leave both in bit-reversed order, and the difference
 * is written in natural order. Made from a circuit, a and b (and so c)
 * can instead be written in bit-reversed order, and every transform runs
 * the other way round (DIT, DIF, DIT) to natural coefficients: a key in
 * the coefficient basis (Filecoin's) gets that. */
template <class F>
static zkpipe_status gpu_h_evals(const char *fname, unsigned adicity, zkp_gpu *g, zkp_gpu_buf **h,
                                 const abc_source &src, unsigned log_n, const uint64_t *root,
                                 const uint64_t *shift, int coefficients, zkp_diag *diag) {
    if (h != nullptr) *h = nullptr;
    if (g == nullptr || h == nullptr || (src.host == nullptr && src.csr == nullptr) ||
        shift == nullptr)
        return zkp_diag_fail(diag, ZKPIPE_ERR_INVALID_ARGUMENT,
                             "%s: no context, output, input or coset shift", fname);
    if (src.csr != nullptr &&
        (src.witness == nullptr || src.csr->g != g || src.witness->g != g ||
         (size_t)src.csr->n_rows != (size_t)1 << log_n))
        return zkp_diag_fail(diag, ZKPIPE_ERR_INVALID_ARGUMENT,
                             "%s: the circuit or the witness is not this context's, or the "
                             "circuit does not have 2^%u rows",
                             fname, log_n);
    F w, gs;
    zkpipe_status st =
        check_args<F>(fname, log_n, adicity, ZKP_NTT_FORWARD_RN, root, shift, &w, &gs, diag);
    if (st != ZKPIPE_OK) return st;
    st = bind(g, diag);
    if (st != ZKPIPE_OK) return st;
    busy_scope busy(g);
    /* Each array's mark covers its upload's wait when it comes from the
     * host, and its two transforms. */
    trace tr(g->compute, "gpu h trace");
    static const char *const transformed[3] = {"a", "b", "c"};

    const size_t n = (size_t)1 << log_n, bytes = n * sizeof(F);
    const bool rev = coefficients && src.csr != nullptr;
    zkp_gpu_buf *out = nullptr;
    void *dbuf[2] = {nullptr, nullptr}, *tab = nullptr;
    size_t tab_bytes = 0;
    cudaEvent_t ev[3] = {nullptr, nullptr, nullptr};
    plan pi, pf, ph;
    tables<F> ti, tf, th;
    F *dev[3];

    st = zkp_gpu_buf_alloc(g, &out, bytes, ZKP_GPU_MEM_ABC, diag);
    if (st != ZKPIPE_OK) goto done;
    for (int i = 0; i < 2 && st == ZKPIPE_OK; i++)
        st = dev_alloc(g, &dbuf[i], bytes, ZKP_GPU_MEM_ABC, diag);
    if (st != ZKPIPE_OK) goto done;
    dev[0] = (F *)out->ptr, dev[1] = (F *)dbuf[0], dev[2] = (F *)dbuf[1];
    for (int i = 0; i < 3; i++)
        ZKP_CUDA_GOTO(diag, st, done, cudaEventCreateWithFlags(&ev[i], cudaEventDisableTiming));

    if (log_n > 0) {
        plan_make(&pi, log_n, rev ? ZKP_NTT_INVERSE_RN : ZKP_NTT_INVERSE_NR);
        plan_make(&pf, log_n, rev ? ZKP_NTT_FORWARD_NR : ZKP_NTT_FORWARD_RN);
        tables_make<F>(&ti, pi, w, nullptr);
        tables_make<F>(&tf, pf, w, &gs);
        size_t h_total = 0;
        if (coefficients) {
            plan_make(&ph, log_n, rev ? ZKP_NTT_INVERSE_RN : ZKP_NTT_INVERSE_NR);
            tables_make<F>(&th, ph, w, &gs);
            h_total = th.total;
        }
        tab_bytes = (ti.total + tf.total + h_total) * sizeof(twiddle<F>);
        st = dev_alloc(g, &tab, tab_bytes, ZKP_GPU_MEM_SCRATCH, diag);
        if (st == ZKPIPE_OK) st = tables_launch(g, ti, (twiddle<F> *)tab, diag);
        if (st == ZKPIPE_OK) st = tables_launch(g, tf, (twiddle<F> *)tab + ti.total, diag);
        if (st == ZKPIPE_OK && coefficients)
            st = tables_launch(g, th, (twiddle<F> *)tab + ti.total + tf.total, diag);
        if (st != ZKPIPE_OK) goto done;
    }
    if (src.csr != nullptr &&
        (st = abc_on_device<F>(g, dev, src, n, rev ? log_n : 0, tr, diag)) != ZKPIPE_OK)
        goto done;
    for (int i = 0; i < 3; i++) {
        if (src.csr == nullptr) {
            st = copy_h2d(g, dev[i], src.host + i * n * (sizeof(F) / 8), bytes, g->upload, diag);
            if (st != ZKPIPE_OK) goto done;
            ZKP_CUDA_GOTO(diag, st, done, cudaEventRecord(ev[i], g->upload));
            ZKP_CUDA_GOTO(diag, st, done, cudaStreamWaitEvent(g->compute, ev[i], 0));
        }
        if (log_n > 0) {
            st = enqueue(g, dev[i], pi, ti, (const twiddle<F> *)tab, diag);
            /* With coefficients, c is interpolated only. */
            if (st == ZKPIPE_OK && !(coefficients && i == 2))
                st = enqueue(g, dev[i], pf, tf, (const twiddle<F> *)tab + ti.total, diag);
            if (st != ZKPIPE_OK) goto done;
        }
        tr.mark(transformed[i]);
    }
    h_kernel<F><<<blocks_for(n, 256), 256, 0, g->compute>>>(dev[0], dev[1],
                                                            coefficients ? nullptr : dev[2], n);
    if ((st = ZKP_CUDA_LAUNCH_STATUS(diag, h_kernel)) != ZKPIPE_OK) goto done;
    tr.mark(coefficients ? "ab" : "h");
    if (coefficients) {
        const twiddle<F> *th_tab = (const twiddle<F> *)tab + ti.total + tf.total;
        if (log_n > 0 && (st = enqueue(g, dev[0], ph, th, th_tab, diag)) != ZKPIPE_OK) goto done;
        if (rev) {
            coef_kernel<F><<<blocks_for(n, 256), 256, 0, g->compute>>>(dev[0], dev[2], n);
            if ((st = ZKP_CUDA_LAUNCH_STATUS(diag, coef_kernel)) != ZKPIPE_OK) goto done;
        } else if ((st = enqueue_reverse<F>(g, dev[0], dev[2], log_n, diag)) != ZKPIPE_OK) {
            goto done;
        }
        tr.mark("h coefficients");
    }
    ZKP_CUDA_GOTO(diag, st, done, cudaStreamSynchronize(g->compute));
    if (tr.on) {
        char what[96];
        snprintf(what, sizeof what, "n=2^%u, a b c from the %s%s", log_n,
                 src.csr != nullptr ? "circuit" : "host", rev ? " in bit-reversed order" : "");
        tr.print(what);
    }

done:
    /* Nothing may still use a buffer when it is freed. */
    (void)cudaStreamSynchronize(g->upload);
    (void)cudaStreamSynchronize(g->compute);
    for (cudaEvent_t e : ev)
        if (e) (void)cudaEventDestroy(e);
    dev_free(g, tab, tab_bytes, ZKP_GPU_MEM_SCRATCH);
    for (void *p : dbuf) dev_free(g, p, bytes, ZKP_GPU_MEM_ABC);
    if (st == ZKPIPE_OK)
        *h = out;
    else
        zkp_gpu_buf_free(out);
    return st;
}
#endif

/* ---------------------------------------------------------------- host emulation */

/* The same transform with every kernel run on the host, phase by phase
 * over all threads of each block, for the unit tests. rev_pass: a
 * natural-order kind's reversal as the pass a device without room for the
 * second array runs (rev_in_levels). */
template <class F>
static zkpipe_status ntt_host(unsigned adicity, uint64_t *a64, unsigned log_n, int kind,
                              const uint64_t *root, const uint64_t *shift, bool rev_pass) {
    F w, gs;
    if (a64 == nullptr ||
        check_args<F>("host NTT", log_n, adicity, kind, root, shift, &w, &gs, nullptr) != ZKPIPE_OK)
        return ZKPIPE_ERR_INVALID_ARGUMENT;
    if (log_n == 0) return ZKPIPE_OK;
    F *a = reinterpret_cast<F *>(a64);
    plan p;
    plan_make(&p, log_n, kind);
    tables<F> tb;
    tables_make<F>(&tb, p, w, shift ? &gs : nullptr);
    twiddle<F> *tab = (twiddle<F> *)malloc(tb.total * sizeof(twiddle<F>));
    uint4 *smem = (uint4 *)malloc(2 * (size_t)plane_len(TILE_BITS) * sizeof(uint4));
    const bool want_b = rev_needs_array(p) && !rev_pass;
    F *b = want_b ? (F *)malloc(((size_t)1 << log_n) * sizeof(F)) : nullptr;
    if (tab == nullptr || smem == nullptr || (want_b && b == nullptr)) {
        free(tab);
        free(smem);
        free(b);
        return ZKPIPE_ERR_NO_MEMORY;
    }
    const bool fused = !rev_pass && rev_in_levels(p, b);
    for (int t = 0; t < TAB_COUNT_; t++)
        for (size_t j0 = 0; j0 < tb.count[t]; j0 += POW_RUN)
            table_run(tab + tb.off[t], tb.count[t], tb.base[t], tb.mult[t], j0);
    auto phase = p.dit ? level_phase<F, true> : level_phase<F, false>;
    for (unsigned i = 0; i < p.m; i++) {
        const unsigned t = p.dit ? p.m - 1 - i : i;
        level_args<F> A = level_make(p, tb, tab, a, t);
        if (fused) rev_in_levels_arrays(&A, p, t, a, b);
        const unsigned tile_bits = A.d + A.logc, nph = level_phases(A);
        uint4 *s_lo = smem, *s_hi = smem + plane_len(tile_bits);
        for (size_t blk = 0; blk < ((size_t)1 << (p.L - tile_bits)); blk++)
            for (unsigned k = 0; k < nph; k++)
                for (unsigned tid = 0; tid < THREADS; tid++)
                    phase(A, k, blk, tid, THREADS, s_lo, s_hi);
    }
    if (p.bitrev && !fused) {
        const rev_geometry r = rev_make(p.L);
        for (size_t m = 0; m < rev_blocks(r); m++)
            for (unsigned k = 0; k < 2; k++)
                for (unsigned tid = 0; tid < REV_THREADS; tid++)
                    rev_phase<F>(a, nullptr, r, k, m, tid, REV_THREADS, smem,
                                 smem + plane_len(REV_SLOT_BITS));
    }
    free(tab);
    free(smem);
    free(b);
    return ZKPIPE_OK;
}

} /* namespace ntt */
} /* namespace zkp_cuda */

/* The entry points of one field F, whose device type is T and 2-adicity A. */
#define ZKP_GPU_NTT_DEFINE(F, T, A)                                                              \
    extern "C" {                                                                                 \
    zkpipe_status F##_gpu_ntt(zkp_gpu *g, uint64_t *a, unsigned log_n, int kind,                 \
                              const uint64_t *root, const uint64_t *shift, zkp_diag *diag) {     \
        return zkp_cuda::ntt::gpu_ntt<T>(#F "_gpu_ntt", A, g, a, log_n, kind, root, shift, diag); \
    }                                                                                            \
    zkpipe_status F##_gpu_ntt_dev(zkp_gpu *g, zkp_gpu_buf *a, unsigned log_n, int kind,          \
                                  const uint64_t *root, const uint64_t *shift, zkp_diag *diag) { \
        return zkp_cuda::ntt::gpu_ntt_dev<T>(#F "_gpu_ntt_dev", A, g, a, log_n, kind, root,      \
                                             shift, diag);                                       \
    }                                                                                            \
    zkpipe_status F##_gpu_h_evals(zkp_gpu *g, zkp_gpu_buf **h, const uint64_t *abc,              \
                                  unsigned log_n, const uint64_t *root, const uint64_t *shift,   \
                                  int coefficients, zkp_diag *diag) {                            \
        zkp_cuda::ntt::abc_source src = {abc, nullptr, nullptr};                                 \
        return zkp_cuda::ntt::gpu_h_evals<T>(#F "_gpu_h_evals", A, g, h, src, log_n, root, shift, \
                                             coefficients, diag);                                \
    }                                                                                            \
    zkpipe_status F##_gpu_h_evals_csr(zkp_gpu *g, zkp_gpu_buf **h, const zkp_gpu_csr *csr,       \
                                      const zkp_gpu_buf *witness, unsigned log_n,                \
                                      const uint64_t *root, const uint64_t *shift,               \
                                      int coefficients, zkp_diag *diag) {                        \
        zkp_cuda::ntt::abc_source src = {nullptr, csr, witness};                                 \
        if (csr == nullptr)                                                                      \
            return zkp_diag_fail(diag, ZKPIPE_ERR_INVALID_ARGUMENT, "%s: no circuit",            \
                                 #F "_gpu_h_evals_csr");                                         \
        return zkp_cuda::ntt::gpu_h_evals<T>(#F "_gpu_h_evals_csr", A, g, h, src, log_n, root,   \
                                             shift, coefficients, diag);                         \
    }                                                                                            \
    /* The kernels' code run on the host, for the tests (not in gpu.h: a    \
     * build without CUDA has no such function, and the tests see that). */ \
    zkpipe_status F##_gpu_ntt_host(uint64_t *a, unsigned log_n, int kind, const uint64_t *root,  \
                                   const uint64_t *shift, int rev_pass);                         \
    zkpipe_status F##_gpu_ntt_host(uint64_t *a, unsigned log_n, int kind, const uint64_t *root,  \
                                   const uint64_t *shift, int rev_pass) {                        \
        return zkp_cuda::ntt::ntt_host<T>(A, a, log_n, kind, root, shift, rev_pass != 0);        \
    }                                                                                            \
    }

#endif
