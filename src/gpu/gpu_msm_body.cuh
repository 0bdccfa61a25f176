/* The MSM on the device, written once over the coordinate field F and the
 * bit length SBITS of the scalar field; bn254_g1_msm.cu,
 * bls12_381_g1_msm.cu and their _g2_ twins (F the quadratic extension)
 * instantiate it (gpu.h gives the contract).
 *
 * The steps of one MSM over n points:
 *
 *  1. One pass over the scalars (cub::DevicePartition) lists the indices
 *     whose scalar is 1 and the m others; zeros drop out here. Witness
 *     vectors are mostly zeros and ones, so this leaves few points.
 *  2. The bases of the ones are summed: grid-stride accumulation per
 *     thread over the listed indices, then a tree in shared memory per
 *     block and a tree over the blocks.
 *  3. Each remaining scalar is cut into signed digits of width c, in
 *     (-2^(c-1), 2^(c-1)], and every nonzero digit emits a key (its bucket:
 *     bucket set and magnitude) and a value (the point's index, its sign in
 *     the top bit). Zero digits emit a value that adds nothing, with a key
 *     past every bucket, which sorts last and is skipped, or where there
 *     are several sets, the key of their set's first bucket.
 *  4. cub::DeviceRadixSort orders the pairs by key, or by the magnitude
 *     bits alone where there are several bucket sets (step 3 writes the
 *     windows set by set), so every bucket is one run of the sorted array.
 *  5. The sorted array is cut into segments of equal length L, one thread
 *     each, so the work per thread is the same whatever the bucket sizes.
 *     A thread adds its points into XYZZ accumulators run by run; a run
 *     that begins and ends inside its segment is a whole bucket and is
 *     stored as it is. A run that crosses a segment boundary leaves pieces
 *     in per-segment slots (the first run of a segment if it began before,
 *     the last if it goes on); the occupied slots, compacted, again hold
 *     each key's pieces together, and the same step reduces them, until
 *     none crosses.
 *     One bucket with all the points (equal scalars) costs log_L(n) rounds
 *     rather than n serial additions.
 *  6. Each bucket set's sum_k k·B_k is computed in parallel: chunks of
 *     consecutive buckets run the usual running sums from the top, and the
 *     chunks' offsets (a chunk starting at bucket s owes s·(sum of its
 *     buckets)) are made up by the same reduction over the chunks' plain
 *     sums; the results are summed in block trees.
 *  7. The host combines the bucket sets' sums by doubling (Horner), with
 *     the CPU's curve code (gpu_horner.h), and adds the sum of the ones.
 *
 * Precomputed bases. bases_upload may store copies of the bases shifted by
 * 2^shift, 2^(2·shift), ... (gpu_msm.cuh). A window w of width c that
 * divides shift then reads copy w·c / shift in bucket set (w·c mod shift)/c,
 * so with enough copies all windows share one bucket set: the additions per
 * point stay one per window, but the per-window reductions collapse into
 * one, which lets c grow and the number of windows shrink. Where the room
 * holds fewer copies than that, each serves several windows in as many
 * sets: a few sets cost nearly what one does, against one per window. The
 * windows of some of those sets may be a bit narrower than the others
 * (layout), so that a shift between multiples of c still covers the
 * scalar with as few windows and fewer buckets. */
#ifndef ZKP_GPU_GPU_MSM_BODY_CUH
#define ZKP_GPU_GPU_MSM_BODY_CUH

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <new>

#include <cub/device/device_partition.cuh>
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_select.cuh>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/discard_iterator.h>

#include "gpu/gpu_curve.cuh"
#include "gpu/gpu_msm.cuh"

namespace zkp_cuda {
namespace msm {
/* Internal to each group's translation unit: both instantiate kernels
 * that do not depend on the field. */
namespace {

constexpr uint32_t EMPTY = 0xffffffffu; /* no index, no slot */
constexpr uint32_t NEG = 0x80000000u;   /* the sign bit of a value */
constexpr unsigned RED_THREADS = 128;   /* block size of the tree reductions */
constexpr unsigned SEG_THREADS = 128;
/* The bucket step waits on dependent multiply-add chains and on gathers
 * of bases, and hides both only with enough warps: three blocks of 128 per
 * multiprocessor cap the kernel at 170 registers, where the 12-word field
 * would otherwise take about 184 and leave room for two. */
constexpr unsigned SEG_MIN_BLOCKS = 3;
constexpr unsigned LEVEL_L = 8;         /* segment length of the slot rounds */
constexpr size_t WHOLE_WAVES_MAX = 8;   /* step 5 sizes its segments to whole waves up to this */
constexpr unsigned MAX_C = 24;
/* The fewest points an MSM's piece is cut to (in_pieces): below it the
 * buckets and slots, which do not shrink with the piece, outweigh the
 * sort's arrays. */
constexpr uint32_t MIN_PIECE = (uint32_t)1 << 16;
constexpr unsigned SCALAR_WORDS = 8;    /* 4 64-bit limbs */

__device__ __forceinline__ void load_scalar(const uint32_t *s, size_t i, uint32_t w[SCALAR_WORDS]) {
    const uint4 *p = (const uint4 *)(s + SCALAR_WORDS * i);
    uint4 a = p[0], b = p[1];
    w[0] = a.x, w[1] = a.y, w[2] = a.z, w[3] = a.w;
    w[4] = b.x, w[5] = b.y, w[6] = b.z, w[7] = b.w;
}

/* One affine point in 16-byte loads. The point type is an array of 32-bit
 * words to the compiler, which would read it word by word; a base read at
 * random in the bucket step then costs 16 or 24 load instructions instead
 * of 4 or 6 (twice that for G2). Device allocations are 256-byte aligned
 * and a point is 64, 96, 128 or 192 bytes, so every point is 16-byte
 * aligned. */
template <class F>
struct elem_load;

template <class P>
struct elem_load<fp<P>> {
    static_assert(P::N % 4 == 0, "field elements are whole uint4s");
    static constexpr int QUADS = P::N / 4;
    __device__ __forceinline__ static fp<P> from(const uint4 *q) {
        fp<P> r;
#pragma unroll
        for (int k = 0; k < QUADS; k++) {
            uint4 v = __ldg(q + k);
            r.w[4 * k] = v.x, r.w[4 * k + 1] = v.y, r.w[4 * k + 2] = v.z, r.w[4 * k + 3] = v.w;
        }
        return r;
    }
};

template <class B>
struct elem_load<fp2<B>> {
    static constexpr int QUADS = 2 * elem_load<B>::QUADS;
    __device__ __forceinline__ static fp2<B> from(const uint4 *q) {
        return {elem_load<B>::from(q), elem_load<B>::from(q + elem_load<B>::QUADS)};
    }
};

template <class F>
__device__ __forceinline__ affine<F> load_affine(const affine<F> *p) {
    static_assert(sizeof(affine<F>) == 32 * elem_load<F>::QUADS, "affine points are whole uint4s");
    const uint4 *q = (const uint4 *)p;
    return {elem_load<F>::from(q), elem_load<F>::from(q + elem_load<F>::QUADS)};
}

/* The sum of the block's values, by a tree in shared memory; thread 0
 * writes it. */
template <class F>
__device__ void block_sum(xyzz<F> v, xyzz<F> *out) {
    __shared__ xyzz<F> sh[RED_THREADS];
    sh[threadIdx.x] = v;
    __syncthreads();
    for (unsigned s = RED_THREADS / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s) {
            xyzz<F> a = sh[threadIdx.x];
            a.add(sh[threadIdx.x + s]);
            sh[threadIdx.x] = a;
        }
        __syncthreads();
    }
    if (threadIdx.x == 0) *out = sh[0];
}

/* Step 1's classes of a scalar, read by the partition: one, or neither
 * zero nor one. */
struct scalar_is_one {
    const uint32_t *scalars;
    __device__ bool operator()(uint32_t i) const {
        uint32_t w[SCALAR_WORDS];
        load_scalar(scalars, i, w);
        return (w[1] | w[2] | w[3] | w[4] | w[5] | w[6] | w[7]) == 0 && w[0] == 1;
    }
};
struct scalar_is_other {
    const uint32_t *scalars;
    __device__ bool operator()(uint32_t i) const {
        uint32_t w[SCALAR_WORDS];
        load_scalar(scalars, i, w);
        return (w[1] | w[2] | w[3] | w[4] | w[5] | w[6] | w[7]) != 0 || w[0] > 1;
    }
};

/* Step 1's sum: partial[block] = the sum of the bases idx[i] that the
 * block's threads visit. Over the compacted indices every lane of a warp
 * adds on every step; over the scalars themselves, a warp would step
 * through every index whatever share of its lanes had a one there. */
template <class F>
__global__ void __launch_bounds__(RED_THREADS)
    ones_kernel(const affine<F> *bases, const uint32_t *idx, size_t k, xyzz<F> *partial) {
    xyzz<F> acc = xyzz<F>::inf();
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < k;
         i += (size_t)gridDim.x * blockDim.x)
        acc.add_affine(load_affine(bases + idx[i]));
    block_sum(acc, &partial[blockIdx.x]);
}

/* out[b] = the sum of in[b·group .. min((b + 1)·group, count)). */
template <class F>
__global__ void __launch_bounds__(RED_THREADS)
    group_sum_kernel(const xyzz<F> *in, size_t count, size_t group, xyzz<F> *out) {
    size_t lo = (size_t)blockIdx.x * group, hi = lo + group < count ? lo + group : count;
    xyzz<F> acc = xyzz<F>::inf();
    for (size_t i = lo + threadIdx.x; i < hi; i += RED_THREADS) acc.add(in[i]);
    block_sum(acc, &out[blockIdx.x]);
}

struct not_empty {
    __host__ __device__ bool operator()(uint32_t v) const { return v != EMPTY; }
};

/* The layout of the windows over the bases: window w reads copy w / wpc
 * into bucket set w % wpc, so wpc = nwin when nothing is precomputed.
 * Sets 0 to wide - 1 take windows of c bits and the others c - 1, so that
 * the windows need cover no more bits than the scalar's signed digits take
 * (a window of c - 1 bits fills half of its set's buckets). With copies, a
 * copy stands for a fixed shift, the bits of its wpc windows; narrower
 * windows in some sets let that shift fall between multiples of c (two
 * windows of 24 and 23 bits a copy: 11 windows over 6 copies, as 24 and
 * 24 do, with a quarter fewer buckets to reduce). */
struct layout {
    unsigned c, nwin, wide, wpc, sets;
    uint32_t buckets_per_set; /* 2^(c-1) */
    uint32_t nb;              /* sets · buckets_per_set: the key of a zero digit in one set */
    size_t copy_stride;       /* points per copy of the bases */
    size_t first;
    /* Each window its own bucket set (no copies): the windows may be
     * narrower than c (choose). With several sets, grouped or not, the
     * sort orders the magnitude bits alone (step 4), and a zero digit takes
     * its set's first bucket, as a value that adds nothing. */
    bool grouped;

    ZKP_GPU_HD unsigned width(unsigned w) const { return w % wpc < wide ? c : c - 1; }
    /* The bits of the first s windows of a copy; span(wpc) is its shift. */
    ZKP_GPU_HD unsigned span(unsigned s) const {
        return s < wide ? s * c : wide * c + (s - wide) * (c - 1);
    }
    ZKP_GPU_HD unsigned offset(unsigned w) const { return (w / wpc) * span(wpc) + span(w % wpc); }
    /* Where window w's entries go among the nwin rows of m: set by set,
     * so that a stable sort by magnitude alone keeps each set's runs
     * apart (set s holds windows s, s + wpc, ..., the first nwin % wpc
     * sets one more than the rest). */
    ZKP_GPU_HD unsigned row(unsigned w) const {
        const unsigned set = w % wpc, per = nwin / wpc, extra = nwin % wpc;
        return set * per + (set < extra ? set : extra) + w / wpc;
    }
};

/* The signed digit of window win of the scalar w (8 words, least
 * significant first), with carry the carry out of the window below and,
 * on return, out of this one: the digit is -mag where neg is set, else
 * mag, and mag is at most 2^(width - 1). */
ZKP_GPU_HD uint32_t window_digit(const layout &lay, const uint32_t *w, unsigned win,
                                 uint32_t &carry, bool &neg) {
    const unsigned c = lay.width(win); /* below 32 */
    const uint32_t half = 1u << (c - 1), mask = (1u << c) - 1u;
    const unsigned bit = lay.offset(win), wd = bit >> 5, sh = bit & 31;
    uint32_t v = 0;
    if (wd < SCALAR_WORDS) {
        v = w[wd] >> sh;
        if (sh && wd + 1 < SCALAR_WORDS) v |= w[wd + 1] << (32 - sh);
    }
    v = (v & mask) + carry;
    neg = v > half;
    carry = neg ? 1 : 0;
    return neg ? (mask + 1) - v : v;
}

/* The bucket of window win's digit of magnitude mag: its set's, or for a
 * zero digit (mag 0) the key that adds nothing (step 3). */
ZKP_GPU_HD uint32_t digit_key(const layout &lay, unsigned win, uint32_t mag) {
    const uint32_t first = (win % lay.wpc) * lay.buckets_per_set;
    if (mag) return first + (mag - 1);
    return lay.sets > 1 ? first : lay.nb;
}

/* Step 3: the keys and values of the m points idx[0..m), set by set
 * (layout::row). */
__global__ void digits_kernel(const uint32_t *scalars, const uint32_t *idx, uint32_t m, layout lay,
                              uint32_t *keys, uint32_t *vals) {
    uint32_t j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= m) return;
    uint32_t i = idx[j];
    uint32_t w[SCALAR_WORDS];
    load_scalar(scalars, i, w);
    uint32_t carry = 0;
    for (unsigned win = 0; win < lay.nwin; win++) {
        bool neg;
        const uint32_t mag = window_digit(lay, w, win, carry, neg), sign = neg ? NEG : 0;
        const unsigned q = win / lay.wpc;
        const size_t at = (size_t)lay.row(win) * m + j;
        keys[at] = digit_key(lay, win, mag);
        vals[at] = mag ? (uint32_t)(q * lay.copy_stride + lay.first + i) | sign : EMPTY;
    }
}

/* Step 5, one round. FIRST: the items are the sorted (key, value) pairs,
 * a value naming a base and its sign, or EMPTY for a zero digit. Otherwise:
 * item e is the partial sum src_pt[vals[e]] with key src_key[vals[e]]. A
 * whole run goes to buckets[key]; the pieces of a crossing run go to this
 * segment's two slots (2s: the run it continues, 2s + 1: the run it starts
 * and hands on), whose indices are left in dst_idx, EMPTY where unused. A
 * piece that summed nothing (zero digits only) takes no slot: the run's
 * other pieces, or the bucket's zeros (the point at infinity), stand for
 * it. Runs need only be contiguous, not in key order. */
template <class F, bool FIRST>
__global__ void __launch_bounds__(SEG_THREADS, SEG_MIN_BLOCKS)
    segment_kernel(const uint32_t *keys, const uint32_t *vals, const affine<F> *bases,
                   const xyzz<F> *src_pt, size_t total, unsigned L, uint32_t nb,
                   xyzz<F> *buckets, uint32_t *dst_key, xyzz<F> *dst_pt, uint32_t *dst_idx) {
    size_t s = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    size_t lo = s * L;
    if (lo >= total) return;
    size_t hi = lo + L < total ? lo + L : total;
    auto key_at = [&](size_t e) -> uint32_t { return FIRST ? keys[e] : keys[vals[e]]; };
    dst_idx[2 * s] = EMPTY;
    dst_idx[2 * s + 1] = EMPTY;
    uint32_t k = key_at(lo);
    bool head = lo > 0 && key_at(lo - 1) == k;
    xyzz<F> acc = xyzz<F>::inf();
    for (size_t e = lo; e < hi; e++) {
        uint32_t ke = key_at(e);
        if (ke != k) {
            /* The run of k ends inside the segment. */
            if (k < nb) {
                if (!head)
                    buckets[k] = acc;
                else if (!acc.is_inf()) {
                    dst_key[2 * s] = k;
                    dst_pt[2 * s] = acc;
                    dst_idx[2 * s] = (uint32_t)(2 * s);
                }
            }
            head = false;
            k = ke;
            acc = xyzz<F>::inf();
        }
        if (k >= nb) return; /* keyed zero digits sort last: nothing more to add */
        if (FIRST) {
            uint32_t v = vals[e];
            if (v == EMPTY) continue;
            affine<F> p = load_affine(bases + (v & ~NEG));
            if (v & NEG) p = p.neg();
            acc.add_affine(p);
        } else {
            acc.add(src_pt[vals[e]]);
        }
    }
    bool tail = hi < total && key_at(hi) == k;
    if (!head && !tail) {
        buckets[k] = acc;
    } else if (!acc.is_inf()) {
        const size_t at = head ? 2 * s : 2 * s + 1;
        dst_key[at] = k;
        dst_pt[at] = acc;
        dst_idx[at] = (uint32_t)at;
    }
}

/* Step 6 in two levels. A set's sum_b (b + 1)·B_b over buckets cut into
 * chunks of len is sum_j S_j + len·sum_j j·P_j, where chunk j's S_j is the
 * running sum over its own buckets (weights 1 to len) and P_j their plain
 * sum. Level one makes S_j and P_j, a thread a chunk. Level two makes
 * len·sum_j j·P_j, the same reduction again over the far fewer P_j (weights
 * from 0), and adds it into the S_j the tree then sums. Each level-one
 * thread used to multiply its P_j by its offset j·len itself, about 15
 * doublings beside a short chunk's 8 additions where a set has few buckets
 * per thread (32 K buckets in 16 sets). */

/* b·k by doubling and adding over the bits of k. */
template <class F>
ZKP_GPU_HD xyzz<F> times(const xyzz<F> &b, uint32_t k) {
    xyzz<F> r = xyzz<F>::inf();
    if (k == 0 || b.is_inf()) return r;
    int bit = 31;
    while (!((k >> bit) & 1)) bit--;
    for (; bit >= 0; bit--) {
        r = r.dbl();
        if ((k >> bit) & 1) r.add(b);
    }
    return r;
}

/* sum_k (k + first)·b[k] over k < len, first 0 or 1, by running sums from
 * the top; *plain = sum_k b[k]. */
template <class F>
ZKP_GPU_HD xyzz<F> weighted_run(const xyzz<F> *b, uint32_t len, uint32_t first, xyzz<F> *plain) {
    xyzz<F> acc = xyzz<F>::inf(), sum = xyzz<F>::inf();
    for (uint32_t k = len; k-- > 0;) {
        acc.add(b[k]);
        if (k + first > 0) sum.add(acc);
    }
    *plain = acc;
    return sum;
}

/* Level one, thread t: chunk j = t % per_set_chunks of set t / per_set_chunks
 * (bucket b holds magnitude b + 1, each set per_set_chunks·len buckets). */
template <class F>
ZKP_GPU_HD void chunk_sum(uint32_t t, const xyzz<F> *buckets, uint32_t len, uint32_t per_set_chunks,
                          xyzz<F> *sums, xyzz<F> *plain) {
    uint32_t set = t / per_set_chunks, j = t % per_set_chunks;
    const xyzz<F> *b = buckets + ((size_t)set * per_set_chunks + j) * len;
    sums[t] = weighted_run(b, len, 1, &plain[t]);
}

/* Level two, thread u: P_j for j in [i·len2, (i + 1)·len2) of its set,
 * i = u % (per_set_chunks / len2); len·sum_j j·P_j over them goes into the
 * S_j of the range's first chunk, which no other thread touches. */
template <class F>
ZKP_GPU_HD void offset_sum(uint32_t u, const xyzz<F> *plain, uint32_t len, uint32_t len2,
                           uint32_t per_set_chunks, xyzz<F> *sums) {
    uint32_t per_set = per_set_chunks / len2, set = u / per_set, i = u % per_set;
    size_t first = (size_t)set * per_set_chunks + (size_t)i * len2;
    xyzz<F> p, w = weighted_run(plain + first, len2, 0, &p);
    w.add(times(p, i * len2));
    sums[first].add(times(w, len));
}

/* Level two's run length: long enough that its threads are few beside
 * level one's, short enough that each ends soon after them. Its threads
 * are a chain of dependent additions and doublings (about 60 for runs of
 * 16 at 2^24, 38 for runs of 4), which nothing else hides. */
ZKP_GPU_HD uint32_t offset_len(uint32_t per_set_chunks) {
    return per_set_chunks < 4 ? per_set_chunks : 4;
}

template <class F>
__global__ void __launch_bounds__(SEG_THREADS)
    chunk_kernel(const xyzz<F> *buckets, uint32_t len, uint32_t per_set_chunks, uint32_t chunks,
                 xyzz<F> *sums, xyzz<F> *plain) {
    uint32_t t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t < chunks) chunk_sum(t, buckets, len, per_set_chunks, sums, plain);
}

template <class F>
__global__ void __launch_bounds__(SEG_THREADS)
    offset_kernel(const xyzz<F> *plain, uint32_t len, uint32_t len2, uint32_t per_set_chunks,
                  uint32_t threads, xyzz<F> *sums) {
    uint32_t u = blockIdx.x * blockDim.x + threadIdx.x;
    if (u < threads) offset_sum(u, plain, len, len2, per_set_chunks, sums);
}

/* ---- Precomputation of the shifted copies ---- */

/* a^(p-2) = a^(-1) for a != 0, by square and multiply over the bits of
 * p - 2 (p is odd and its low word above 2, so p - 2 only changes word 0). */
template <class P>
__device__ fp<P> inverse(const fp<P> &a) {
    fp<P> r = fp<P>::one();
    bool started = false;
    for (int i = P::N - 1; i >= 0; i--) {
        uint32_t e = P::p(i) - (i == 0 ? 2u : 0u);
        for (int bit = 31; bit >= 0; bit--) {
            if (started) r = r.sqr();
            if ((e >> bit) & 1) {
                r = started ? r * a : a;
                started = true;
            }
        }
    }
    return r;
}

/* 1/a in B[u]/(u^2 + 1): conj(a) / (c0^2 + c1^2), one inversion in B. */
template <class B>
__device__ fp2<B> inverse(const fp2<B> &a) {
    B t = inverse(a.c0.sqr() + a.c1.sqr());
    return {a.c0 * t, (a.c1 * t).neg()};
}

/* A point in Jacobian coordinates (X/Z^2, Y/Z^3), Z = 0 at infinity: the
 * form of the doubling chains at upload, where doubling is all there is
 * and costs 2M + 5S (dbl-2009-l, a = 0) against 6M + 3S in XYZZ. The
 * bases lie in the subgroup of odd prime order r, so no finite one has
 * y = 0 and a doubling never meets the exceptional case; infinity stays
 * infinity since Z3 = 2·Y·Z. */
template <class F>
struct jacobian {
    F x, y, z;

    ZKP_GPU_HD void dbl_in_place() {
        F a = x.sqr(), b = y.sqr(), c = b.sqr();
        F d = (x + b).sqr() - a - c;
        d = d.dbl();
        F e = a.dbl() + a, f = e.sqr();
        z = (y * z).dbl();
        x = f - d.dbl();
        F c8 = c.dbl().dbl().dbl();
        y = e * (d - x) - c8;
    }
};

/* cur[i] = 2^shift·src[i], src affine: the next shifted copy from the one
 * before it. Each thread runs the whole doubling chain of one point. */
template <class F>
__global__ void __launch_bounds__(SEG_THREADS)
    shift_kernel(const affine<F> *src, jacobian<F> *cur, size_t n, unsigned shift) {
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const affine<F> a = load_affine(src + i);
    jacobian<F> p;
    p.x = a.x;
    p.y = a.y;
    p.z = a.is_inf() ? F::zero() : F::one();
    for (unsigned k = 0; k < shift; k++) p.dbl_in_place();
    cur[i] = p;
}

/* out[i] = cur[i] in affine form, BATCH points per thread sharing one
 * inversion (Montgomery's trick): with zi = 1/Z, x = X·zi^2, y = Y·zi^3. */
constexpr unsigned BATCH = 32;
template <class F>
__global__ void __launch_bounds__(SEG_THREADS)
    to_affine_kernel(const jacobian<F> *cur, affine<F> *out, size_t n) {
    size_t lo = ((size_t)blockIdx.x * blockDim.x + threadIdx.x) * BATCH;
    if (lo >= n) return;
    unsigned cnt = n - lo < BATCH ? (unsigned)(n - lo) : BATCH;
    F prefix[BATCH];
    F run = F::one();
    for (unsigned k = 0; k < cnt; k++) {
        prefix[k] = run;
        const F z = cur[lo + k].z;
        if (!z.is_zero()) run = run * z;
    }
    F inv = inverse(run);
    for (unsigned k = cnt; k-- > 0;) {
        const jacobian<F> p = cur[lo + k];
        affine<F> a;
        if (p.z.is_zero()) {
            a.x = F::zero();
            a.y = F::zero();
        } else {
            F zi = inv * prefix[k];
            inv = inv * p.z;
            F zi2 = zi.sqr(), zi3 = zi2 * zi;
            a.x = p.x * zi2;
            a.y = p.y * zi3;
        }
        out[lo + k] = a;
    }
}

/* The split of a copy's shift bits into wpc windows, the first wide of c
 * bits and the others c - 1; false where windows of c and c - 1 bits
 * cannot make exactly shift. Splits of two widths take the widths the
 * upload makes copies for (c from COPY_MIN_C), which also bounds the
 * number of windows. */
constexpr unsigned COPY_MIN_C = 12;
static bool copy_split(unsigned shift, unsigned c, unsigned *wpc, unsigned *wide) {
    if (c < 2 || shift == 0) return false;
    const unsigned k = (shift + c - 1) / c;
    if (k * (c - 1) >= shift || (k * c != shift && c < COPY_MIN_C)) return false;
    *wpc = k;
    *wide = shift - k * (c - 1);
    return true;
}

/* The number of windows of lay's widths (c, wpc and wide set) that cover
 * bits. */
static unsigned windows_covering(const layout &lay, unsigned bits) {
    unsigned nwin = 0;
    for (unsigned covered = 0; covered < bits; nwin++) covered += lay.width(nwin);
    return nwin;
}

/* The windows for m points: their widths, and whether the precomputed
 * copies can serve them. The cost counts a bucket addition per point and
 * window, about three per bucket for the reduction of each bucket set, and
 * a read for each bucket that no digit reaches (the upper half of a set
 * of narrower windows). */
struct plan {
    layout lay;
    double cost;
};

template <int SBITS>
static plan choose(size_t m, const zkp_gpu_bases *b) {
    /* Signed digits take a bit more than the scalar: the top window
     * absorbs the last carry. */
    const unsigned bits = SBITS + 1;
    plan best{};
    best.cost = -1;
    for (unsigned c = 2; c <= MAX_C; c++) {
        layout lay{};
        lay.c = c;
        lay.nwin = (bits + c - 1) / c;
        lay.wpc = lay.wide = lay.nwin;
        /* Copies serve the dense MSMs they are made for. Where fewer than a
         * quarter of the set's points have scalars other than 0 and 1 (a
         * PoRep witness's B1 MSM: 1.2 M of 33.1 M), the plan leaves them
         * idle: they would save that MSM only its few sets' reductions,
         * and keep zkp_gpu_bases_trim from giving them back. */
        unsigned wpc, wide;
        if (b->copies > 1 && 4 * m >= b->n && copy_split(b->shift, c, &wpc, &wide)) {
            layout cp = lay;
            cp.wpc = wpc;
            cp.wide = wide;
            cp.nwin = windows_covering(cp, bits);
            if (wpc < cp.nwin && (cp.nwin + wpc - 1) / wpc <= b->copies) lay = cp;
        }
        lay.sets = lay.wpc < lay.nwin ? lay.wpc : lay.nwin;
        double nbk = (double)lay.sets * (double)(1u << (c - 1)), live = 0;
        for (unsigned s = 0; s < lay.sets; s++) live += (double)(1u << (lay.width(s) - 1));
        double cost = (double)lay.nwin * (double)m + 3.0 * live + 0.2 * (nbk - live);
        /* Keep the keys and values within 32 bits each. */
        if (nbk >= 2147483648.0) continue;
        if (best.cost < 0 || cost < best.cost) {
            best.cost = cost;
            best.lay = lay;
            best.lay.copy_stride = b->n;
            best.lay.grouped = lay.wpc >= lay.nwin;
        }
    }
    /* Each window its own set: the same windows, as narrow as the bits
     * allow (the H MSM's 12 windows of 22 bits covered 264 where 256
     * will do, and become 4 of 22 and 8 of 21, a third fewer buckets to
     * reduce). The cost above counted every window at c bits. */
    layout &lay = best.lay;
    if (lay.grouped) {
        lay.c = (bits + lay.nwin - 1) / lay.nwin;
        lay.wide = bits - lay.nwin * (lay.c - 1);
    }
    lay.buckets_per_set = 1u << (lay.c - 1);
    lay.nb = lay.sets << (lay.c - 1);
    return best;
}

static inline unsigned bits_of(uint32_t v) { return v ? 32 - __builtin_clz(v) : 0; }

/* The key bits step 4 orders. */
static inline unsigned sort_bits(const layout &lay) {
    return lay.sets > 1 ? lay.c - 1 : bits_of(lay.nb);
}

template <class F, int SBITS, int GROUP>
struct driver {
    typedef affine<F> aff_t;
    typedef xyzz<F> pt_t;

    static zkpipe_status upload(zkp_gpu *g, zkp_gpu_bases **out, const void *bases, size_t n,
                                zkp_diag *diag) {
        *out = nullptr;
        if (!g || (!bases && n)) return zkp_diag_fail(diag, ZKPIPE_ERR_INVALID_ARGUMENT, "GPU bases: NULL argument");
        if (n >= ((size_t)1 << 31))
            return zkp_diag_fail(diag, ZKPIPE_ERR_INVALID_ARGUMENT, "GPU bases: %zu points is too many", n);
        zkpipe_status st = bind(g, diag);
        if (st != ZKPIPE_OK) return st;
        busy_scope busy(g);
        zkp_gpu_bases *b = new (std::nothrow) zkp_gpu_bases();
        if (!b) return zkp_diag_fail(diag, ZKPIPE_ERR_NO_MEMORY, "GPU bases: out of host memory");
        b->g = g;
        b->n = n;
        b->point_bytes = sizeof(aff_t);
        b->group = GROUP;
        b->copies = 1;
        b->shift = 0;
        /* Shifted copies when the MSM over all of them gains from them, the
         * cheapest layout that fits in the room copies_room leaves. */
        if (n >= ((size_t)1 << 16)) {
            size_t room = 0;
            st = copies_room(g, &room, diag);
            if (st != ZKPIPE_OK) {
                delete b;
                return st;
            }
            zkp_gpu_bases probe = *b;
            plan bestp = choose<SBITS>(n, &probe);
            for (unsigned c = COPY_MIN_C; c <= MAX_C; c++) {
                /* A copy every wpc windows, the first wide of them c bits
                 * and the rest c - 1: nwin copies take one set, fewer take
                 * wpc sets. */
                for (unsigned wpc = 1; wpc < (SBITS + 1 + c - 2) / (c - 1); wpc++) {
                    for (unsigned wide = 1; wide <= wpc; wide++) {
                        layout lay{};
                        lay.c = c;
                        lay.wpc = wpc;
                        lay.wide = wide;
                        const unsigned nwin = windows_covering(lay, SBITS + 1);
                        probe.shift = lay.span(wpc);
                        probe.copies = (nwin + wpc - 1) / wpc;
                        if (wpc >= nwin || (double)probe.copies * n * sizeof(aff_t) > (double)room ||
                            (size_t)probe.copies * n >= ((size_t)1 << 31))
                            continue;
                        plan p = choose<SBITS>(n, &probe);
                        if (p.cost < bestp.cost) {
                            bestp = p;
                            b->shift = probe.shift;
                            b->copies = probe.copies;
                        }
                    }
                }
            }
        }
        b->bytes = (size_t)b->copies * n * sizeof(aff_t);
        st = dev_alloc(g, &b->ptr, b->bytes, ZKP_GPU_MEM_BASES, diag);
        if (st != ZKPIPE_OK) {
            delete b;
            return st;
        }
        st = fill(g, b, bases, diag);
        cudaError_t e = cudaStreamSynchronize(g->compute);
        if (st == ZKPIPE_OK && e != cudaSuccess)
            st = cuda_fail(diag, e, "cudaStreamSynchronize", __FILE__, __LINE__);
        if (st != ZKPIPE_OK) {
            zkp_gpu_bases_free(b);
            return st;
        }
        *out = b;
        return ZKPIPE_OK;
    }

    static zkpipe_status window(zkp_gpu *g, zkp_gpu_bases **out, size_t capacity, zkp_diag *diag) {
        *out = nullptr;
        if (!g) return zkp_diag_fail(diag, ZKPIPE_ERR_INVALID_ARGUMENT, "GPU bases: NULL argument");
        if (capacity == 0 || capacity >= ((size_t)1 << 31))
            return zkp_diag_fail(diag, ZKPIPE_ERR_INVALID_ARGUMENT, "GPU bases: a window of %zu points",
                                 capacity);
        zkpipe_status st = bind(g, diag);
        if (st != ZKPIPE_OK) return st;
        zkp_gpu_bases *b = new (std::nothrow) zkp_gpu_bases();
        if (!b) return zkp_diag_fail(diag, ZKPIPE_ERR_NO_MEMORY, "GPU bases: out of host memory");
        b->g = g;
        b->n = 0;
        b->point_bytes = sizeof(aff_t);
        b->group = GROUP;
        b->copies = 1;
        b->shift = 0;
        b->bytes = capacity * sizeof(aff_t);
        st = dev_alloc(g, &b->ptr, b->bytes, ZKP_GPU_MEM_BASES, diag);
        if (st != ZKPIPE_OK) {
            delete b;
            return st;
        }
        *out = b;
        return ZKPIPE_OK;
    }

    /* The copies are made chunk by chunk: while the host copies one chunk
     * of the key's points (the upload stream), the device derives the
     * shifted copies of the chunk before it (the compute stream, which
     * waits for each chunk's copy through an event). Each copy is doubled
     * from the one before it, so only a chunk's doubling chains need
     * scratch. */
    static constexpr size_t FILL_CHUNK = (size_t)1 << 22;

    static zkpipe_status fill(zkp_gpu *g, zkp_gpu_bases *b, const void *bases, zkp_diag *diag) {
        size_t n = b->n;
        if (!n) return ZKPIPE_OK;
        aff_t *dst = (aff_t *)b->ptr;
        if (b->copies == 1) return copy_h2d(g, dst, bases, n * sizeof(aff_t), g->compute, diag);
        size_t chunk = n < FILL_CHUNK ? n : FILL_CHUNK;
        dev_mem cur(g, ZKP_GPU_MEM_SCRATCH);
        zkpipe_status st = cur.alloc(chunk * sizeof(jacobian<F>), diag);
        if (st != ZKPIPE_OK) return st;
        cudaEvent_t copied;
        ZKP_CUDA_TRY(diag, cudaEventCreateWithFlags(&copied, cudaEventDisableTiming));
        st = fill_chunks(g, b, (const aff_t *)bases, cur.as<jacobian<F>>(), chunk, copied, diag);
        /* Neither stream may still touch the scratch or the event. */
        cudaError_t e1 = cudaStreamSynchronize(g->upload);
        cudaError_t e2 = cudaStreamSynchronize(g->compute);
        cudaError_t e3 = cudaEventDestroy(copied);
        if (st == ZKPIPE_OK && e1 != cudaSuccess) st = cuda_fail(diag, e1, "cudaStreamSynchronize", __FILE__, __LINE__);
        if (st == ZKPIPE_OK && e2 != cudaSuccess) st = cuda_fail(diag, e2, "cudaStreamSynchronize", __FILE__, __LINE__);
        if (st == ZKPIPE_OK && e3 != cudaSuccess) st = cuda_fail(diag, e3, "cudaEventDestroy", __FILE__, __LINE__);
        return st;
    }

    static zkpipe_status fill_chunks(zkp_gpu *g, zkp_gpu_bases *b, const aff_t *bases, jacobian<F> *cur,
                                     size_t chunk, cudaEvent_t copied, zkp_diag *diag) {
        size_t n = b->n;
        aff_t *dst = (aff_t *)b->ptr;
        for (size_t lo = 0; lo < n; lo += chunk) {
            size_t cnt = n - lo < chunk ? n - lo : chunk;
            zkpipe_status st = copy_h2d(g, dst + lo, bases + lo, cnt * sizeof(aff_t), g->upload, diag);
            if (st != ZKPIPE_OK) return st;
            ZKP_CUDA_TRY(diag, cudaEventRecord(copied, g->upload));
            ZKP_CUDA_TRY(diag, cudaStreamWaitEvent(g->compute, copied, 0));
            for (unsigned q = 1; q < b->copies; q++) {
                shift_kernel<F><<<blocks_for(cnt, SEG_THREADS), SEG_THREADS, 0, g->compute>>>(
                    dst + (size_t)(q - 1) * n + lo, cur, cnt, b->shift);
                ZKP_CUDA_LAUNCHED(diag, shift_kernel);
                to_affine_kernel<F><<<blocks_for(blocks_for(cnt, BATCH), SEG_THREADS), SEG_THREADS, 0,
                                      g->compute>>>(cur, dst + (size_t)q * n + lo, cnt);
                ZKP_CUDA_LAUNCHED(diag, to_affine_kernel);
            }
        }
        return ZKPIPE_OK;
    }

    static zkpipe_status check(zkp_gpu *g, void *out, const zkp_gpu_bases *b, size_t first, size_t n,
                               zkp_diag *diag) {
        if (!g || !out || !b)
            return zkp_diag_fail(diag, ZKPIPE_ERR_INVALID_ARGUMENT, "GPU MSM: NULL argument");
        if (b->group != GROUP || b->g != g)
            return zkp_diag_fail(diag, ZKPIPE_ERR_INVALID_ARGUMENT,
                                 "GPU MSM: the bases belong to another group or context");
        if (first > b->n || n > b->n - first)
            return zkp_diag_fail(diag, ZKPIPE_ERR_OUT_OF_RANGE,
                                 "GPU MSM: points [%zu, %zu + %zu) of %zu bases", first, first, n, b->n);
        return ZKPIPE_OK;
    }

    static void write_out(void *out, const pt_t &r) {
        pt_t v = r.is_inf() ? pt_t::inf() : r;
        memcpy(out, &v, sizeof v);
    }

    /* Reduces count points in place-free rounds of at most 512 per block
     * until `groups` results remain, groups dividing count; returns where.
     * A block sums a divisor of what each group has left, so groups never
     * mix; where the largest divisor up to 512 is 1 (a prime above 512: the
     * ones' sum has one partial per block, up to 8 per multiprocessor),
     * one block takes the whole group, which ends the rounds. */
    static zkpipe_status tree(zkp_gpu *g, pt_t *a, pt_t *b, size_t count, size_t groups,
                              pt_t **result, zkp_diag *diag) {
        size_t per = count / groups;
        while (per > 1) {
            size_t grp = per < 512 ? per : 512;
            while (per % grp) grp--;
            if (grp == 1) grp = per;
            size_t blocks = count / grp;
            group_sum_kernel<F><<<(unsigned)blocks, RED_THREADS, 0, g->compute>>>(a, count, grp, b);
            ZKP_CUDA_LAUNCHED(diag, group_sum_kernel);
            count = blocks;
            per /= grp;
            pt_t *t = a;
            a = b;
            b = t;
        }
        *result = a;
        return ZKPIPE_OK;
    }

    /* The MSM over scalars already on the device. */
    static zkpipe_status run(zkp_gpu *g, void *out, const zkp_gpu_bases *b, size_t first,
                             const uint32_t *scalars, size_t n, zkp_diag *diag) {
        const aff_t *bases = (const aff_t *)b->ptr;
        cudaStream_t s = g->compute;
        zkpipe_status st;
        trace tr(s, "gpu msm trace");

        /* Step 1: the indices of the ones and of the rest, in one pass;
         * the zeros drop out. */
        dev_mem ones_idx(g, ZKP_GPU_MEM_SCRATCH), rest(g, ZKP_GPU_MEM_SCRATCH),
            count(g, ZKP_GPU_MEM_SCRATCH), temp(g, ZKP_GPU_MEM_SCRATCH);
        if ((st = ones_idx.alloc(n * sizeof(uint32_t), diag)) != ZKPIPE_OK) return st;
        if ((st = rest.alloc(n * sizeof(uint32_t), diag)) != ZKPIPE_OK) return st;
        if ((st = count.alloc(2 * sizeof(uint64_t), diag)) != ZKPIPE_OK) return st;
        thrust::counting_iterator<uint32_t> all(0);
        thrust::discard_iterator<> zeros;
        scalar_is_one is_one{scalars};
        scalar_is_other is_other{scalars};
        size_t temp_bytes = 0;
        ZKP_CUDA_TRY(diag, cub::DevicePartition::If(nullptr, temp_bytes, all, ones_idx.as<uint32_t>(),
                                                    rest.as<uint32_t>(), zeros, count.as<uint64_t>(),
                                                    (int64_t)n, is_one, is_other, s));
        if ((st = temp.alloc(temp_bytes, diag)) != ZKPIPE_OK) return st;
        ZKP_CUDA_TRY(diag, cub::DevicePartition::If(temp.p, temp_bytes, all, ones_idx.as<uint32_t>(),
                                                    rest.as<uint32_t>(), zeros, count.as<uint64_t>(),
                                                    (int64_t)n, is_one, is_other, s));
        /* temp and ones_idx stay until the MSM returns: cudaFree waits for
         * every stream of the device, so freeing them here made the first
         * MSM of a partition wait for the witness's upload, which the
         * prover queues on the upload stream to run beside it. */
        uint64_t counts[2] = {0, 0};
        if ((st = copy_d2h(g, counts, count.p, sizeof counts, s, diag)) != ZKPIPE_OK) return st;
        ZKP_CUDA_TRY(diag, cudaStreamSynchronize(s));
        size_t k = (size_t)counts[0];
        uint32_t m = (uint32_t)counts[1];
        tr.mark("partition");

        /* Step 2: the sum of the ones. */
        pt_t total_ones = pt_t::inf();
        if (k > 0) {
            unsigned ones_blocks = blocks_for(k, RED_THREADS);
            unsigned cap = g->multiprocessors * 8;
            if (ones_blocks > cap) ones_blocks = cap;
            dev_mem ones(g, ZKP_GPU_MEM_SCRATCH);
            if ((st = ones.alloc((size_t)2 * ones_blocks * sizeof(pt_t), diag)) != ZKPIPE_OK) return st;
            ones_kernel<F><<<ones_blocks, RED_THREADS, 0, s>>>(bases + first, ones_idx.as<uint32_t>(), k,
                                                               ones.as<pt_t>());
            ZKP_CUDA_LAUNCHED(diag, ones_kernel);
            pt_t *ones_sum = nullptr;
            st = tree(g, ones.as<pt_t>(), ones.as<pt_t>() + ones_blocks, ones_blocks, 1, &ones_sum, diag);
            if (st != ZKPIPE_OK) return st;
            if ((st = copy_d2h(g, &total_ones, ones_sum, sizeof total_ones, s, diag)) != ZKPIPE_OK) return st;
            ZKP_CUDA_TRY(diag, cudaStreamSynchronize(s));
        }
        tr.mark("ones");

        pt_t result = pt_t::inf();
        layout lay{};
        unsigned pieces = 0;
        if (m > 0) {
            plan pl = choose<SBITS>(m, b);
            lay = pl.lay;
            lay.first = first;
            st = in_pieces(g, &result, bases, scalars, rest.as<uint32_t>(), m, lay, tr, &pieces, diag);
            if (st != ZKPIPE_OK) return st;
        }
        /* Windows read the copies only when a copy serves several of them. */
        if (first == 0 && n == b->n) b->copies_idle = m == 0 || lay.wpc >= lay.nwin;
        if (tr.on) {
            char what[160];
            snprintf(what, sizeof what,
                     "group %d n=%zu ones=%zu m=%u c=%u windows=%u sets=%u (%u of c bits) "
                     "copies=%u sort bits=%u pieces=%u",
                     GROUP, n, k, m, lay.c, lay.nwin, lay.sets, lay.wide, b->copies,
                     sort_bits(lay), pieces);
            tr.print(what);
        }
        result.add(total_ones);
        write_out(out, result);
        return ZKPIPE_OK;
    }

    /* The points of the first piece. The sort's four arrays (16 bytes an
     * entry) and the buckets are the least steps 3 to 6 take, and most of
     * it where room runs short: while they fit in the device's usable free
     * memory, all m go at once, as they did before pieces (a shortfall
     * after them costs a halving); once they do not, pieces of three
     * quarters of what fits leave room for the rest. Never 2^32 entries or
     * more. ZKPIPE_GPU_MSM_PIECE caps it, below MIN_PIECE too, so that the
     * tests run pieces on inputs of any size. */
    static uint32_t first_piece(zkp_gpu *g, uint32_t m, const layout &lay) {
        size_t room = 0;
        zkp_diag unused;
        if (usable_free_bytes(g, &room, &unused) != ZKPIPE_OK) room = SIZE_MAX;
        const size_t buckets = (size_t)lay.nb * sizeof(pt_t);
        const size_t fit = room > buckets ? (room - buckets) / ((size_t)lay.nwin * 16) : 0;
        size_t piece = fit < m ? fit / 4 * 3 : m;
        const size_t cap = (((size_t)1 << 32) - 1) / lay.nwin;
        if (piece > cap) piece = cap;
        if (piece < MIN_PIECE) piece = MIN_PIECE;
        if (const char *e = getenv("ZKPIPE_GPU_MSM_PIECE")) {
            const size_t want = strtoull(e, nullptr, 10);
            if (want && want < piece) piece = want;
        }
        return piece < m ? (uint32_t)piece : m;
    }

    /* Steps 3 to 7 over idx[0..m) in pieces, each a whole Pippenger into
     * buckets of its own, their sums added: an MSM whose scratch does not
     * fit what the device has free, or its budget (a 2^27 H MSM sorts 26
     * GB of keys and values beside a 44 GB key on an 80 GB card), runs in
     * pieces rather than failing. A piece that still runs out of memory is
     * halved and tried again, down to MIN_PIECE. */
    static zkpipe_status in_pieces(zkp_gpu *g, pt_t *result, const aff_t *bases,
                                   const uint32_t *scalars, const uint32_t *idx, uint32_t m,
                                   const layout &lay, trace &tr, unsigned *pieces, zkp_diag *diag) {
        uint32_t piece = first_piece(g, m, lay);
        *result = pt_t::inf();
        *pieces = 0;
        for (uint32_t done = 0; done < m;) {
            const uint32_t take = m - done < piece ? m - done : piece;
            pt_t part;
            zkpipe_status st = pippenger(g, &part, bases, scalars, idx + done, take, lay, tr, diag);
            if (st == ZKPIPE_ERR_NO_MEMORY && take >= 2 * MIN_PIECE) {
                piece = take / 2;
                continue;
            }
            if (st != ZKPIPE_OK) return st;
            result->add(part);
            done += take;
            (*pieces)++;
        }
        return ZKPIPE_OK;
    }

    /* Steps 3 to 7 over the m points idx[0..m). */
    static zkpipe_status pippenger(zkp_gpu *g, pt_t *result, const aff_t *bases,
                                   const uint32_t *scalars, const uint32_t *idx, uint32_t m,
                                   const layout &lay, trace &tr, zkp_diag *diag) {
        cudaStream_t s = g->compute;
        zkpipe_status st;
        size_t total = (size_t)lay.nwin * m;
        if (total >= ((size_t)1 << 32))
            return zkp_diag_fail(diag, ZKPIPE_ERR_NO_MEMORY, "GPU MSM: %zu bucket entries", total);
        dev_mem keys(g, ZKP_GPU_MEM_SCRATCH), vals(g, ZKP_GPU_MEM_SCRATCH),
            keys2(g, ZKP_GPU_MEM_SCRATCH), vals2(g, ZKP_GPU_MEM_SCRATCH);
        if ((st = keys.alloc(total * 4, diag)) != ZKPIPE_OK) return st;
        if ((st = vals.alloc(total * 4, diag)) != ZKPIPE_OK) return st;
        if ((st = keys2.alloc(total * 4, diag)) != ZKPIPE_OK) return st;
        if ((st = vals2.alloc(total * 4, diag)) != ZKPIPE_OK) return st;

        /* Step 3. */
        digits_kernel<<<blocks_for(m, 256), 256, 0, s>>>(scalars, idx, m, lay, keys.as<uint32_t>(),
                                                         vals.as<uint32_t>());
        ZKP_CUDA_LAUNCHED(diag, digits_kernel);
        tr.mark("digits");

        /* Step 4. The radix sort is stable, and the keys come set by set,
         * so where there are several sets, ordering the magnitude's c - 1
         * bits alone leaves every bucket's entries together (by magnitude,
         * then set): the H MSM's 25-bit keys (12 sets of 2^21) take three
         * passes of 8 bits instead of four, and so do 2 sets of 2^23. */
        int end_bit = (int)sort_bits(lay);
        cub::DoubleBuffer<uint32_t> dk(keys.as<uint32_t>(), keys2.as<uint32_t>());
        cub::DoubleBuffer<uint32_t> dv(vals.as<uint32_t>(), vals2.as<uint32_t>());
        size_t sort_bytes = 0;
        ZKP_CUDA_TRY(diag, cub::DeviceRadixSort::SortPairs(nullptr, sort_bytes, dk, dv, (uint32_t)total,
                                                           0, end_bit, s));

        /* Step 5's sizes: segments of L entries, as long as that leaves
         * enough threads to fill the device. Nearly every segment that a
         * run crosses leaves two pieces for the slot rounds, and the H
         * MSM's runs hold 64 to 128 entries: segments of up to 1024 leave
         * an eighth of the pieces that 128 did (on an H100, 1.4 ms of slot
         * rounds at 2^26 against 8.7, and a bucket step 7 ms shorter). */
        size_t want_threads = (size_t)g->multiprocessors * 1024;
        size_t L = total / want_threads;
        if (L < 8) L = 8;
        if (L > 1024) L = 1024;
        /* Where segments of 1024 make few waves of blocks, the blocks start
         * and end together, and a last wave partly full costs a whole one:
         * the fewest waves of segments up to 1024 long, then the shortest
         * segments that fill them. Over more waves the blocks no longer
         * keep step, and shorter segments only add run ends. */
        if (L == 1024) {
            int per_sm = 0;
            ZKP_CUDA_TRY(diag, cudaOccupancyMaxActiveBlocksPerMultiprocessor(
                                   &per_sm, segment_kernel<F, true>, SEG_THREADS, 0));
            size_t wave = (size_t)(per_sm > 0 ? per_sm : 1) * g->multiprocessors * SEG_THREADS;
            size_t waves = (total + wave * L - 1) / (wave * L);
            if (waves <= WHOLE_WAVES_MAX) L = (total + waves * wave - 1) / (waves * wave);
        }
        size_t segs = (total + L - 1) / L;
        size_t slots_a = 2 * segs, slots_b = 2 * ((slots_a + LEVEL_L - 1) / LEVEL_L) + 2;
        size_t select_bytes = 0;
        dev_mem count(g, ZKP_GPU_MEM_SCRATCH);
        if ((st = count.alloc(sizeof(uint64_t), diag)) != ZKPIPE_OK) return st;
        ZKP_CUDA_TRY(diag, cub::DeviceSelect::If(nullptr, select_bytes, (uint32_t *)nullptr,
                                                 count.as<uint64_t>(), (int64_t)slots_a, not_empty(), s));
        dev_mem temp(g, ZKP_GPU_MEM_SCRATCH);
        size_t temp_bytes = sort_bytes > select_bytes ? sort_bytes : select_bytes;
        if ((st = temp.alloc(temp_bytes, diag)) != ZKPIPE_OK) return st;
        ZKP_CUDA_TRY(diag, cub::DeviceRadixSort::SortPairs(temp.p, sort_bytes, dk, dv, (uint32_t)total,
                                                           0, end_bit, s));
        const uint32_t *skeys = dk.Current(), *svals = dv.Current();
        tr.mark("sort");

        /* Step 5. */
        dev_mem buckets(g, ZKP_GPU_MEM_SCRATCH);
        if ((st = buckets.alloc((size_t)lay.nb * sizeof(pt_t), diag)) != ZKPIPE_OK) return st;
        ZKP_CUDA_TRY(diag, cudaMemsetAsync(buckets.p, 0, buckets.bytes, s));
        dev_mem ka(g, ZKP_GPU_MEM_SCRATCH), pa(g, ZKP_GPU_MEM_SCRATCH), ia(g, ZKP_GPU_MEM_SCRATCH),
            kb(g, ZKP_GPU_MEM_SCRATCH), pb(g, ZKP_GPU_MEM_SCRATCH), ib(g, ZKP_GPU_MEM_SCRATCH);
        if ((st = ka.alloc(slots_a * 4, diag)) != ZKPIPE_OK) return st;
        if ((st = pa.alloc(slots_a * sizeof(pt_t), diag)) != ZKPIPE_OK) return st;
        if ((st = ia.alloc(slots_a * 4, diag)) != ZKPIPE_OK) return st;
        if ((st = kb.alloc(slots_b * 4, diag)) != ZKPIPE_OK) return st;
        if ((st = pb.alloc(slots_b * sizeof(pt_t), diag)) != ZKPIPE_OK) return st;
        if ((st = ib.alloc(slots_b * 4, diag)) != ZKPIPE_OK) return st;
        segment_kernel<F, true><<<(unsigned)blocks_for(segs, SEG_THREADS), SEG_THREADS, 0, s>>>(
            skeys, svals, bases, nullptr, total, (unsigned)L, lay.nb, buckets.as<pt_t>(),
            ka.as<uint32_t>(), pa.as<pt_t>(), ia.as<uint32_t>());
        ZKP_CUDA_LAUNCHED(diag, segment_kernel);
        tr.mark("buckets");
        dev_mem *cur_k = &ka, *cur_p = &pa, *cur_i = &ia, *nxt_k = &kb, *nxt_p = &pb, *nxt_i = &ib;
        size_t slots = slots_a;
        for (;;) {
            ZKP_CUDA_TRY(diag, cub::DeviceSelect::If(temp.p, select_bytes, cur_i->as<uint32_t>(),
                                                     count.as<uint64_t>(), (int64_t)slots, not_empty(), s));
            uint64_t left = 0;
            if ((st = copy_d2h(g, &left, count.p, sizeof left, s, diag)) != ZKPIPE_OK) return st;
            ZKP_CUDA_TRY(diag, cudaStreamSynchronize(s));
            if (left == 0) break;
            size_t lsegs = (left + LEVEL_L - 1) / LEVEL_L;
            segment_kernel<F, false><<<(unsigned)blocks_for(lsegs, SEG_THREADS), SEG_THREADS, 0, s>>>(
                cur_k->as<uint32_t>(), cur_i->as<uint32_t>(), nullptr, cur_p->as<pt_t>(), left, LEVEL_L,
                lay.nb, buckets.as<pt_t>(), nxt_k->as<uint32_t>(), nxt_p->as<pt_t>(), nxt_i->as<uint32_t>());
            ZKP_CUDA_LAUNCHED(diag, segment_kernel);
            slots = 2 * lsegs;
            dev_mem *t;
            t = cur_k, cur_k = nxt_k, nxt_k = t;
            t = cur_p, cur_p = nxt_p, nxt_p = t;
            t = cur_i, cur_i = nxt_i, nxt_i = t;
        }
        tr.mark("slot rounds");
        keys.release();
        vals.release();
        keys2.release();
        vals2.release();

        /* Step 6: chunks of len buckets, enough of them to fill the device. */
        uint32_t per_set = lay.buckets_per_set;
        uint32_t len = (uint32_t)((size_t)lay.nb / ((size_t)g->multiprocessors * 512));
        if (len < 1) len = 1;
        uint32_t p2 = 1;
        while (p2 * 2 <= len) p2 *= 2;
        len = p2 < per_set ? p2 : per_set;
        uint32_t per_set_chunks = per_set / len, chunks = per_set_chunks * lay.sets;
        uint32_t len2 = offset_len(per_set_chunks), threads2 = chunks / len2;
        dev_mem ch(g, ZKP_GPU_MEM_SCRATCH);
        if ((st = ch.alloc((size_t)2 * chunks * sizeof(pt_t), diag)) != ZKPIPE_OK) return st;
        pt_t *chunk_sums = ch.as<pt_t>(), *plain = chunk_sums + chunks;
        chunk_kernel<F><<<blocks_for(chunks, SEG_THREADS), SEG_THREADS, 0, s>>>(
            buckets.as<pt_t>(), len, per_set_chunks, chunks, chunk_sums, plain);
        ZKP_CUDA_LAUNCHED(diag, chunk_kernel);
        tr.mark("chunk sums");
        offset_kernel<F><<<blocks_for(threads2, SEG_THREADS), SEG_THREADS, 0, s>>>(
            plain, len, len2, per_set_chunks, threads2, chunk_sums);
        ZKP_CUDA_LAUNCHED(diag, offset_kernel);
        tr.mark("offsets");
        /* The tree's second buffer is plain's, read by now. */
        pt_t *sums = nullptr;
        st = tree(g, chunk_sums, plain, chunks, lay.sets, &sums, diag);
        if (st != ZKPIPE_OK) return st;
        pt_t set_sum[MAX_C * 16];
        if ((st = copy_d2h(g, set_sum, sums, lay.sets * sizeof(pt_t), s, diag)) != ZKPIPE_OK) return st;
        ZKP_CUDA_TRY(diag, cudaStreamSynchronize(s));
        tr.mark("set sums");

        /* Step 7: set w is window w (of the scalar, or of its copy), and
         * 2^width(w) is the weight of window w + 1 over window w's. */
        unsigned width[MAX_C * 16];
        for (unsigned w = 0; w < lay.sets; w++) width[w] = lay.width(w);
        if (zkp_gpu_horner(GROUP, result, set_sum, width, lay.sets) != 0)
            return zkp_diag_fail(diag, ZKPIPE_ERR_INVALID_ARGUMENT, "GPU MSM: group %d", GROUP);
        tr.mark("horner");
        return ZKPIPE_OK;
    }

    /* Step 6 with the device's code on the host, for the tests: out[w] =
     * sum_b (b + 1)·buckets[w·per_set + b] in chunks of len (powers of 2,
     * len <= per_set). */
    static zkpipe_status host_bucket_sums(const pt_t *buckets, unsigned sets, uint32_t per_set,
                                          uint32_t len, pt_t *out) {
        if (!buckets || !out || sets == 0 || per_set == 0 || len == 0 || len > per_set ||
            (per_set & (per_set - 1)) || (len & (len - 1)) || (uint64_t)sets * per_set > (1u << 24))
            return ZKPIPE_ERR_INVALID_ARGUMENT;
        uint32_t per_set_chunks = per_set / len, chunks = per_set_chunks * sets;
        uint32_t len2 = offset_len(per_set_chunks);
        pt_t *sums = new (std::nothrow) pt_t[(size_t)2 * chunks];
        if (!sums) return ZKPIPE_ERR_NO_MEMORY;
        pt_t *plain = sums + chunks;
        for (uint32_t t = 0; t < chunks; t++) chunk_sum(t, buckets, len, per_set_chunks, sums, plain);
        for (uint32_t u = 0; u < chunks / len2; u++) offset_sum(u, plain, len, len2, per_set_chunks, sums);
        for (unsigned w = 0; w < sets; w++) {
            out[w] = pt_t::inf();
            for (uint32_t j = 0; j < per_set_chunks; j++) out[w].add(sums[(size_t)w * per_set_chunks + j]);
        }
        delete[] sums;
        return ZKPIPE_OK;
    }

    /* The plan for m scalars over a set of n points and copies copies
     * shift bits apart, and scalar's digits under it, on the host (gpu.h). */
    static zkpipe_status host_digits(size_t m, size_t n, unsigned copies, unsigned shift,
                                     const uint64_t *scalar, zkp_gpu_msm_digits *out) {
        if (!scalar || !out || m == 0 || m >= ((size_t)1 << 32) || n < m || copies == 0 ||
            (copies > 1 && (shift == 0 || shift > SBITS)))
            return ZKPIPE_ERR_INVALID_ARGUMENT;
        zkp_gpu_bases b{};
        b.n = n;
        b.copies = copies;
        b.shift = copies > 1 ? shift : 0;
        const layout lay = choose<SBITS>(m, &b).lay;
        static_assert((SBITS + 1 + 1) / 2 <= ZKP_GPU_MSM_MAX_WINDOWS, "windows of 2 bits fit");
        out->nwin = lay.nwin;
        out->sets = lay.sets;
        out->sort_bits = sort_bits(lay);
        uint32_t w[SCALAR_WORDS];
        for (unsigned k = 0; k < SCALAR_WORDS / 2; k++) {
            w[2 * k] = (uint32_t)scalar[k];
            w[2 * k + 1] = (uint32_t)(scalar[k] >> 32);
        }
        uint32_t carry = 0;
        for (unsigned win = 0; win < lay.nwin; win++) {
            bool neg;
            const uint32_t mag = window_digit(lay, w, win, carry, neg);
            out->width[win] = lay.width(win);
            out->offset[win] = lay.offset(win);
            out->digit[win] = neg ? -(int32_t)mag : (int32_t)mag;
            out->row[win] = lay.row(win);
            out->key[win] = digit_key(lay, win, mag);
        }
        return carry == 0 ? ZKPIPE_OK : ZKPIPE_ERR_OUT_OF_RANGE;
    }

    static zkpipe_status msm(zkp_gpu *g, void *out, const zkp_gpu_bases *b, size_t first,
                             const uint64_t *scalars, size_t n, zkp_diag *diag) {
        zkpipe_status st = check(g, out, b, first, n, diag);
        if (st != ZKPIPE_OK) return st;
        if (n == 0) {
            write_out(out, pt_t::inf());
            return ZKPIPE_OK;
        }
        if (!scalars) return zkp_diag_fail(diag, ZKPIPE_ERR_INVALID_ARGUMENT, "GPU MSM: NULL scalars");
        if ((st = bind(g, diag)) != ZKPIPE_OK) return st;
        busy_scope busy(g);
        {
            dev_mem sc(g, ZKP_GPU_MEM_SCALARS);
            st = sc.alloc(n * 32, diag);
            if (st == ZKPIPE_OK) st = copy_h2d(g, sc.p, scalars, n * 32, g->compute, diag);
            if (st == ZKPIPE_OK) st = run(g, out, b, first, sc.as<uint32_t>(), n, diag);
            /* Nothing may still use the scratch when it is freed. */
            (void)cudaStreamSynchronize(g->compute);
        }
        return st;
    }

    static zkpipe_status msm_dev(zkp_gpu *g, void *out, const zkp_gpu_bases *b, size_t first,
                                 const zkp_gpu_buf *scalars, size_t scalars_first, size_t n,
                                 zkp_diag *diag) {
        zkpipe_status st = check(g, out, b, first, n, diag);
        if (st != ZKPIPE_OK) return st;
        if (n == 0) {
            write_out(out, pt_t::inf());
            return ZKPIPE_OK;
        }
        if (!scalars || scalars->g != g)
            return zkp_diag_fail(diag, ZKPIPE_ERR_INVALID_ARGUMENT, "GPU MSM: no scalars on this context");
        size_t held = zkp_gpu_buf_bytes(scalars) / 32;
        if (scalars_first > held || n > held - scalars_first)
            return zkp_diag_fail(diag, ZKPIPE_ERR_OUT_OF_RANGE,
                                 "GPU MSM: %zu scalars from %zu in a buffer of %zu bytes", n,
                                 scalars_first, zkp_gpu_buf_bytes(scalars));
        if ((st = bind(g, diag)) != ZKPIPE_OK) return st;
        if ((st = buf_ready_on(scalars, g->compute, diag)) != ZKPIPE_OK) return st;
        busy_scope busy(g);
        st = run(g, out, b, first, (const uint32_t *)scalars->ptr + 8 * scalars_first, n, diag);
        (void)cudaStreamSynchronize(g->compute);
        return st;
    }
};

} /* namespace */
} /* namespace msm */
} /* namespace zkp_cuda */

/* The three entry points of group G over field F. */
#define ZKP_GPU_MSM_DEFINE(G, F, SBITS, GROUP)                                                     \
    extern "C" {                                                                                   \
    zkpipe_status G##_gpu_bases_upload(zkp_gpu *g, zkp_gpu_bases **out, const void *bases,        \
                                       size_t n, zkp_diag *diag) {                                \
        return zkp_cuda::msm::driver<zkp_cuda::F, SBITS, GROUP>::upload(g, out, bases, n, diag);  \
    }                                                                                              \
    zkpipe_status G##_gpu_bases_window(zkp_gpu *g, zkp_gpu_bases **out, size_t capacity,          \
                                       zkp_diag *diag) {                                           \
        return zkp_cuda::msm::driver<zkp_cuda::F, SBITS, GROUP>::window(g, out, capacity, diag);  \
    }                                                                                              \
    zkpipe_status G##_gpu_msm(zkp_gpu *g, void *out, const zkp_gpu_bases *bases, size_t first,     \
                              const uint64_t *scalars, size_t n, zkp_diag *diag) {                 \
        return zkp_cuda::msm::driver<zkp_cuda::F, SBITS, GROUP>::msm(g, out, bases, first,       \
                                                                     scalars, n, diag);           \
    }                                                                                              \
    zkpipe_status G##_gpu_msm_dev(zkp_gpu *g, void *out, const zkp_gpu_bases *bases,               \
                                  size_t first, const zkp_gpu_buf *scalars, size_t scalars_first,  \
                                  size_t n, zkp_diag *diag) {                                      \
        return zkp_cuda::msm::driver<zkp_cuda::F, SBITS, GROUP>::msm_dev(                        \
            g, out, bases, first, scalars, scalars_first, n, diag);                                \
    }                                                                                              \
    zkpipe_status G##_gpu_host_bucket_sums(const void *buckets, unsigned sets, uint32_t per_set,  \
                                           uint32_t len, void *out) {                              \
        using drv = zkp_cuda::msm::driver<zkp_cuda::F, SBITS, GROUP>;                              \
        return drv::host_bucket_sums((const drv::pt_t *)buckets, sets, per_set, len,               \
                                     (drv::pt_t *)out);                                            \
    }                                                                                              \
    zkpipe_status G##_gpu_host_msm_digits(size_t m, size_t n, unsigned copies, unsigned shift,     \
                                          const uint64_t *scalar, zkp_gpu_msm_digits *out) {       \
        return zkp_cuda::msm::driver<zkp_cuda::F, SBITS, GROUP>::host_digits(m, n, copies, shift, \
                                                                             scalar, out);        \
    }                                                                                              \
    }

#endif
