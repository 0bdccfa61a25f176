/* Generic NTT: the code. Included once per curve, by that curve's .c file,
 * after its header and with NTT_FIELD and NTT_PARAM set (see ntt_impl.h).
 *
 * The algorithm. A transform of L = log_n bits is a decimation-in-frequency
 * (DIF, Gentleman-Sande) transform, natural order in and bit-reversed order
 * out, or its transpose, the decimation-in-time (DIT, Cooley-Tukey)
 * transform, bit-reversed in and natural out. Because the DFT matrix F is
 * symmetric, the transpose of the DIF factorization R F (R the bit-reversal
 * permutation) is F R: running the DIF steps backwards with each butterfly
 * transposed, (x, y) -> (x + y, (x - y) w) becoming (x, y) -> (x + w y,
 * x - w y) with the same w, gives the DIT transform with no new twiddles.
 *
 * Levels (cache blocking). Split the index i = r 2^lo + c into its top d
 * bits r and its low lo bits c, and the output index k = k0 + 2^d k' the
 * other way round. With N = 2^(d+lo) and w_N a primitive N-th root,
 *
 *     X[k0 + 2^d k'] = sum_c w_{2^lo}^(c k') [ w_N^(c k0) sum_r a[r 2^lo + c] w_{2^d}^(r k0) ],
 *
 * so the transform is: for every column c, a transform of 2^d points over
 * the rows (stride 2^lo); then a multiplication of the element at row k0,
 * column c by w_N^(c k0) (the "twiddle step"); then for every row a
 * transform of 2^lo points. With DIF sub-transforms the rows come out in
 * bit-reversed order (row k0 lands at rev_d(k0)) and each row's output too,
 * and rev_d(k0) 2^lo + rev_lo(k') is exactly rev_L(k0 + 2^d k'): the whole
 * output is bit-reversed with no transposition anywhere. Applied again to
 * the row transforms this cuts L into levels of at most max_level_bits bits
 * (level 0 the top bits; split_levels_ says how the bits are shared).
 * Level t transforms its d_t bits for every value of the bits above it
 * (already transformed: the "block" T) and every column below it, then
 * applies its twiddle step; only the last level, whose columns are single
 * elements, has no twiddle step. A chunk of a level is a batch of adjacent
 * columns of one block (or, at the last level, a run of whole blocks): 2^d
 * rows of ncols contiguous elements, about 2^block_bits elements in all
 * but never less than one column of one block, so each sub-transform runs
 * in cache, and the chunks of one level touch disjoint elements.
 *
 * Twiddles. The sub-transforms need only the twiddles of 2^d points, at
 * most 2^max_level_bits of them (stage_fwd/stage_inv, one contiguous run
 * per stage). The twiddle step needs w^e for any e < n; two tables of
 * about sqrt(n) entries give it with one product, w^e = hi[e >> s] lo[e &
 * (2^s - 1)], so the domain stays O(sqrt(n)) instead of the O(n) table that
 * would double the memory of a 2^27 transform. w^(-e) is w^(n - e). The
 * twiddle step costs two products per element and runs once per level
 * boundary: once for 2^14 to 2^21 points, twice for 2^22 to 2^29, three
 * times above.
 *
 * Butterflies. Stages are taken two at a time (radix 2^2): four elements
 * x_p, x_(p+q), x_(p+2q), x_(p+3q) go through both stages while in
 * registers, which halves the passes over the data compared with radix 2.
 * A field has no free multiplication by the fourth root of unity, so the
 * product count is the same as radix 2; with p = 0 three of the four
 * products are by 1 and are skipped. An odd d ends (DIF) or starts (DIT)
 * with one radix-2 stage of twiddle 1, which has no product at all.
 *
 * Scaling. The 1/n of the inverse and the g^i of a coset are applied on the
 * coefficient side, inside the level pass that holds those elements in
 * cache rather than in a pass of their own: coefficients in natural order
 * are the input of DIF level 0 (or the output of DIT level 0), where
 * element (r, c) is index r 2^lo + c, and coefficients in bit-reversed order
 * are the output of the DIF last level (input of the DIT last level), whose
 * chunks are contiguous. An inverse without a coset folds 1/n into the
 * level-0 twiddle step (the table hi_inv_n), so it costs nothing there; a
 * one-level transform has no twiddle step and multiplies by 1/n at the end
 * of its only pass. */
#include <string.h>

#include "ntt/ntt_ifma.h"
#include "util/cpu.h"

#define NTT_T ZKP_CAT(NTT_FIELD, _t)
#define NTT_DOM ZKP_CAT(NTT_FIELD, _ntt_domain_t)
#define NTT_PLAN ZKP_CAT(NTT_FIELD, _ntt_plan_t)
#define NTT_OPT ZKP_CAT(NTT_FIELD, _ntt_options_t)
#define NTT_FN(op) ZKP_CAT(ZKP_CAT(NTT_FIELD, _ntt_), op)
#define NTT_F(op) ZKP_CAT(ZKP_CAT(NTT_FIELD, _), op)
#define NTT_K(k) ZKP_CAT(ZKP_CAT(NTT_PARAM, _), k)

_Static_assert(NTT_K(TWO_ADICITY) <= ZKP_NTT_MAX_LOG, "2-adicity above the NTT index width");

/* How a plan scales the coefficient side (NTT_PLAN.scale). */
enum {
    NTT_SCALE_NONE = 0,
    NTT_SCALE_CONST,   /* every element times s (the 1/n of a one-level inverse) */
    NTT_SCALE_NATURAL, /* element at natural index i times s h^i */
    NTT_SCALE_BITREV   /* element at index p times s h^rev(p) */
};

/* ---------------------------------------------------------------- domain */

/* The level split of log_n bits into levels of at most maxb bits. The last
 * level's sub-transforms run on contiguous elements, the cheapest place for
 * a large one, so it takes all maxb bits; the bits above it are shared as
 * evenly as possible (spare bits going to the later levels) among as few
 * strided levels of at most ZKP_NTT_STRIDED_BITS bits as will hold them.
 * Few rows in a strided level leave room for many columns per chunk, so
 * its runs of contiguous elements are long. */
static unsigned NTT_FN(split_levels_)(unsigned log_n, unsigned maxb,
                                      unsigned bits[ZKP_NTT_MAX_LEVELS]) {
    if (log_n <= maxb) {
        bits[0] = log_n;
        return 1;
    }
    unsigned ub = maxb < ZKP_NTT_STRIDED_BITS ? maxb : ZKP_NTT_STRIDED_BITS;
    unsigned rest = log_n - maxb, m = (rest + ub - 1) / ub;
    unsigned base = rest / m, extra = rest % m;
    for (unsigned t = 0; t < m; t++) bits[t] = base + (t >= m - extra ? 1 : 0);
    bits[m] = maxb;
    return m + 1;
}

/* Resolves the options; 0 if they are out of range. */
static int NTT_FN(options_)(const NTT_OPT *opt, unsigned *maxb, unsigned *block_bits) {
    *maxb = ZKP_NTT_DEFAULT_LEVEL_BITS;
    *block_bits = ZKP_NTT_DEFAULT_BLOCK_BITS;
    if (opt == NULL) return 1;
    if (opt->max_level_bits > ZKP_NTT_MAX_LOG || opt->block_bits > ZKP_NTT_MAX_BLOCK_BITS) return 0;
    if (opt->max_level_bits != 0) *maxb = opt->max_level_bits;
    if (opt->block_bits != 0) *block_bits = opt->block_bits;
    return 1;
}

/* Elements of table memory for a domain: the two stage tables, and the
 * three sqrt(n) tables when there is more than one level. */
static size_t NTT_FN(table_elems_)(unsigned log_n, unsigned nlevels, unsigned tw_bits,
                                   unsigned split_bits) {
    size_t e = (size_t)2 << tw_bits;
    if (nlevels > 1) e += ((size_t)1 << split_bits) + ((size_t)2 << (log_n - split_bits));
    return e;
}

static unsigned NTT_FN(max_bits_)(const unsigned *bits, unsigned m) {
    unsigned mx = 0;
    for (unsigned t = 0; t < m; t++)
        if (bits[t] > mx) mx = bits[t];
    return mx;
}

size_t NTT_FN(domain_bytes_opt)(unsigned log_n, const NTT_OPT *opt) {
    unsigned maxb, block_bits, bits[ZKP_NTT_MAX_LEVELS];
    if (log_n > NTT_K(TWO_ADICITY) || !NTT_FN(options_)(opt, &maxb, &block_bits)) return 0;
    unsigned m = NTT_FN(split_levels_)(log_n, maxb, bits);
    size_t elems = NTT_FN(table_elems_)(log_n, m, NTT_FN(max_bits_)(bits, m), (log_n + 1) / 2);
    /* 63 spare bytes let init align the tables to a cache line. */
    return elems * sizeof(NTT_T) + 63;
}

size_t NTT_FN(domain_bytes)(unsigned log_n) { return NTT_FN(domain_bytes_opt)(log_n, NULL); }

zkpipe_status NTT_FN(root_from_generator)(NTT_T *r, const NTT_T *g, unsigned log_n) {
    if (r == NULL || g == NULL || log_n > NTT_K(TWO_ADICITY) || !NTT_F(is_reduced)(g))
        return ZKPIPE_ERR_INVALID_ARGUMENT;
    /* e = (p - 1) >> log_n; p is odd, so p - 1 only clears bit 0. */
    static const NTT_T p = {NTT_K(MODULUS)};
    uint64_t e[NTT_K(LIMBS)];
    const int n = NTT_K(LIMBS);
    for (int i = 0; i < n; i++) {
        uint64_t lo = p.l[i] - (i == 0 ? 1 : 0);
        uint64_t hi = i + 1 < n ? p.l[i + 1] : 0;
        e[i] = log_n == 0 ? lo : (lo >> log_n) | (hi << (64 - log_n));
    }
    NTT_F(pow)(r, g, e, (size_t)n);
    return ZKPIPE_OK;
}

/* 1 if w has multiplicative order exactly 2^log_n: w^(2^(log_n-1)) = -1
 * (then w^(2^log_n) = 1 and no smaller power of two is 1), or w = 1 for
 * log_n = 0. */
static int NTT_FN(is_primitive_)(const NTT_T *w, unsigned log_n) {
    NTT_T t = *w, minus_one;
    if (log_n == 0) return NTT_F(is_one)(w);
    for (unsigned i = 1; i < log_n; i++) NTT_F(sqr)(&t, &t);
    NTT_F(set_one)(&minus_one);
    NTT_F(neg)(&minus_one, &minus_one);
    return NTT_F(eq)(&t, &minus_one);
}

zkpipe_status NTT_FN(domain_init_opt)(NTT_DOM *d, unsigned log_n, const NTT_OPT *opt, void *mem,
                                      size_t mem_len) {
    unsigned maxb, block_bits, bits[ZKP_NTT_MAX_LEVELS];
    if (d == NULL || log_n > NTT_K(TWO_ADICITY) || !NTT_FN(options_)(opt, &maxb, &block_bits))
        return ZKPIPE_ERR_INVALID_ARGUMENT;
    size_t need = NTT_FN(domain_bytes_opt)(log_n, opt);
    if (mem == NULL || mem_len < need) return ZKPIPE_ERR_INVALID_ARGUMENT;

    NTT_T w;
    if (opt != NULL && opt->root != NULL) {
        if (!NTT_F(is_reduced)(opt->root) || !NTT_FN(is_primitive_)(opt->root, log_n))
            return ZKPIPE_ERR_INVALID_ARGUMENT;
        w = *opt->root;
    } else if (NTT_F(root_of_unity)(&w, log_n) != ZKPIPE_OK) {
        return ZKPIPE_ERR_INVALID_ARGUMENT;
    }

    memset(d, 0, sizeof *d);
    const unsigned L = log_n;
    const size_t n = (size_t)1 << L, block = (size_t)1 << block_bits;
    unsigned m = NTT_FN(split_levels_)(L, maxb, bits);
    d->log_n = L;
    d->n = n;
    d->nlevels = m;
    unsigned below = L;
    for (unsigned t = 0; t < m; t++) {
        below -= bits[t];
        size_t rows = (size_t)1 << bits[t], cols = (size_t)1 << below;
        size_t nblocks = n / (rows * cols);
        /* Columns per chunk; 0 if one column alone exceeds a chunk. */
        size_t per_row = block / rows;
        size_t ncols = per_row == 0 ? 1 : (per_row < cols ? per_row : cols);
        size_t group = 1;
        if (ncols == cols && per_row / cols > 1)
            group = per_row / cols < nblocks ? per_row / cols : nblocks;
        d->level_bits[t] = bits[t];
        d->level_lo[t] = below;
        d->level_ncols[t] = ncols;
        d->level_group[t] = group;
        d->level_chunks[t] = (nblocks / group) * (cols / ncols);
    }
    if (L >= 2 * ZKP_NTT_BR_BITS) {
        size_t mids = (size_t)1 << (L - 2 * ZKP_NTT_BR_BITS);
        size_t per = block >> (2 * ZKP_NTT_BR_BITS);
        d->br_mids = per == 0 ? 1 : (per < mids ? per : mids);
        d->br_chunks = mids / d->br_mids;
    } else {
        d->br_mids = 0; /* one chunk, swapped element by element */
        d->br_chunks = 1;
    }
    d->tw_bits = NTT_FN(max_bits_)(bits, m);
    d->split_bits = (L + 1) / 2;

    NTT_T *tab = (NTT_T *)(((uintptr_t)mem + 63) & ~(uintptr_t)63);
    NTT_T *sf = tab, *si = sf + ((size_t)1 << d->tw_bits);
    tab = si + ((size_t)1 << d->tw_bits);

    d->omega = w;
    NTT_F(inv_var)(&d->omega_inv, &w);
    NTT_F(set_u64)(&d->n_inv, (uint64_t)n);
    NTT_F(inv_var)(&d->n_inv, &d->n_inv);

    /* Stage tables, from the largest stage down: the twiddles w_{2h}^p
     * (p < h) of one stage are every other twiddle w_{4h}^(2p) of the stage
     * above, and all are powers of this domain's w. Entry 0 is unused. */
    NTT_F(set_one)(&sf[0]);
    NTT_F(set_one)(&si[0]);
    if (d->tw_bits > 0) {
        size_t top = (size_t)1 << (d->tw_bits - 1);
        NTT_T wt = w, acc;
        for (unsigned i = d->tw_bits; i < L; i++) NTT_F(sqr)(&wt, &wt); /* w_{2 top} */
        NTT_F(set_one)(&acc);
        for (size_t p = 0; p < top; p++) {
            sf[top + p] = acc;
            NTT_F(mul)(&acc, &acc, &wt);
        }
        for (size_t h = top >> 1; h >= 1; h >>= 1)
            for (size_t p = 0; p < h; p++) sf[h + p] = sf[2 * h + 2 * p];
        /* w_{2h}^(-p) = w_{2h}^(2h - p) = -w_{2h}^(h - p), since w_{2h}^h = -1. */
        for (size_t h = top; h >= 1; h >>= 1) {
            NTT_F(set_one)(&si[h]);
            for (size_t p = 1; p < h; p++) NTT_F(neg)(&si[h + p], &sf[h + (h - p)]);
        }
    }
    d->stage_fwd = sf;
    d->stage_inv = si;

    if (m > 1) {
        size_t nlo = (size_t)1 << d->split_bits, nhi = n >> d->split_bits;
        NTT_T *lo = tab, *hi = lo + nlo, *hin = hi + nhi, acc, step = w;
        NTT_F(set_one)(&acc);
        for (size_t e = 0; e < nlo; e++) {
            lo[e] = acc;
            NTT_F(mul)(&acc, &acc, &w);
        }
        for (unsigned i = 0; i < d->split_bits; i++) NTT_F(sqr)(&step, &step);
        NTT_F(set_one)(&acc);
        for (size_t e = 0; e < nhi; e++) {
            hi[e] = acc;
            NTT_F(mul)(&hin[e], &acc, &d->n_inv);
            NTT_F(mul)(&acc, &acc, &step);
        }
        d->lo_tab = lo;
        d->hi_tab = hi;
        d->hi_inv_n = hin;
    }
    return ZKPIPE_OK;
}

zkpipe_status NTT_FN(domain_init)(NTT_DOM *d, unsigned log_n, void *mem, size_t mem_len) {
    return NTT_FN(domain_init_opt)(d, log_n, NULL, mem, mem_len);
}

void NTT_FN(domain_clear)(NTT_DOM *d) {
    if (d != NULL) memset(d, 0, sizeof *d);
}

/* ---------------------------------------------------------------- kernels */

/* Radix-2^2 DIF butterfly: the stage of span 2q (pairs x0,x2 and x1,x3 with
 * twiddles w1 = w_{4q}^p, w2 = w_{4q}^(p+q)), then the stage of span q
 * (pairs x0,x1 and x2,x3, both with w3 = w_{2q}^p). */
static inline void NTT_FN(dif4_)(NTT_T *x0, NTT_T *x1, NTT_T *x2, NTT_T *x3, const NTT_T *w1,
                                 const NTT_T *w2, const NTT_T *w3) {
    NTT_T u0, u1, u2, u3;
    NTT_F(add)(&u0, x0, x2);
    NTT_F(sub)(&u2, x0, x2);
    NTT_F(mul)(&u2, &u2, w1);
    NTT_F(add)(&u1, x1, x3);
    NTT_F(sub)(&u3, x1, x3);
    NTT_F(mul)(&u3, &u3, w2);
    NTT_F(add)(x0, &u0, &u1);
    NTT_F(sub)(x1, &u0, &u1);
    NTT_F(mul)(x1, x1, w3);
    NTT_F(add)(x2, &u2, &u3);
    NTT_F(sub)(x3, &u2, &u3);
    NTT_F(mul)(x3, x3, w3);
}

/* The same at p = 0, where w1 = w3 = 1 and w2 = w4, the fourth root of unity. */
static inline void NTT_FN(dif4_p0_)(NTT_T *x0, NTT_T *x1, NTT_T *x2, NTT_T *x3, const NTT_T *w4) {
    NTT_T u0, u1, u2, u3;
    NTT_F(add)(&u0, x0, x2);
    NTT_F(sub)(&u2, x0, x2);
    NTT_F(add)(&u1, x1, x3);
    NTT_F(sub)(&u3, x1, x3);
    NTT_F(mul)(&u3, &u3, w4);
    NTT_F(add)(x0, &u0, &u1);
    NTT_F(sub)(x1, &u0, &u1);
    NTT_F(add)(x2, &u2, &u3);
    NTT_F(sub)(x3, &u2, &u3);
}

/* The transpose of dif4_: span q first (w3), then span 2q (w1, w2). */
static inline void NTT_FN(dit4_)(NTT_T *x0, NTT_T *x1, NTT_T *x2, NTT_T *x3, const NTT_T *w1,
                                 const NTT_T *w2, const NTT_T *w3) {
    NTT_T t, a0, a1, a2, a3;
    NTT_F(mul)(&t, x1, w3);
    NTT_F(add)(&a0, x0, &t);
    NTT_F(sub)(&a1, x0, &t);
    NTT_F(mul)(&t, x3, w3);
    NTT_F(add)(&a2, x2, &t);
    NTT_F(sub)(&a3, x2, &t);
    NTT_F(mul)(&t, &a2, w1);
    NTT_F(add)(x0, &a0, &t);
    NTT_F(sub)(x2, &a0, &t);
    NTT_F(mul)(&t, &a3, w2);
    NTT_F(add)(x1, &a1, &t);
    NTT_F(sub)(x3, &a1, &t);
}

static inline void NTT_FN(dit4_p0_)(NTT_T *x0, NTT_T *x1, NTT_T *x2, NTT_T *x3, const NTT_T *w4) {
    NTT_T t, a0, a1, a2, a3;
    NTT_F(add)(&a0, x0, x1);
    NTT_F(sub)(&a1, x0, x1);
    NTT_F(add)(&a2, x2, x3);
    NTT_F(sub)(&a3, x2, x3);
    NTT_F(add)(x0, &a0, &a2);
    NTT_F(sub)(x2, &a0, &a2);
    NTT_F(mul)(&t, &a3, w4);
    NTT_F(add)(x1, &a1, &t);
    NTT_F(sub)(x3, &a1, &t);
}

/* The radix-2 stage of span 1 (twiddle 1). */
static inline void NTT_FN(bfly2_)(NTT_T *x0, NTT_T *x1) {
    NTT_T u;
    NTT_F(sub)(&u, x0, x1);
    NTT_F(add)(x0, x0, x1);
    *x1 = u;
}

/* DIF transform of 2^d points, natural in and bit-reversed out, on each of
 * ncols adjacent columns: point r of column c is x[r S + c]. tw is a stage
 * table (stage_fwd or stage_inv). */
static void NTT_FN(dif_)(NTT_T *x, size_t S, size_t ncols, unsigned d, const NTT_T *tw) {
    const size_t len = (size_t)1 << d;
    unsigned j = d;
    for (; j >= 2; j -= 2) {
        const size_t q = (size_t)1 << (j - 2);
#ifdef ZKP_HAVE_X86_ASM
        if (zkp_cpu_use_ifma && NTT_FN(ifma_stage)(x, S, ncols, len, q, tw, 0)) continue;
#endif
        for (size_t b = 0; b < len; b += 4 * q) {
            NTT_T *r0 = x + b * S, *r1 = r0 + q * S, *r2 = r1 + q * S, *r3 = r2 + q * S;
            for (size_t c = 0; c < ncols; c++)
                NTT_FN(dif4_p0_)(&r0[c], &r1[c], &r2[c], &r3[c], &tw[3 * q]);
            for (size_t p = 1; p < q; p++) {
                const NTT_T *w1 = &tw[2 * q + p], *w2 = &tw[3 * q + p], *w3 = &tw[q + p];
                r0 += S, r1 += S, r2 += S, r3 += S;
                for (size_t c = 0; c < ncols; c++)
                    NTT_FN(dif4_)(&r0[c], &r1[c], &r2[c], &r3[c], w1, w2, w3);
            }
        }
    }
    if (j == 1)
        for (size_t b = 0; b < len; b += 2)
            for (size_t c = 0; c < ncols; c++) NTT_FN(bfly2_)(&x[b * S + c], &x[(b + 1) * S + c]);
}

/* DIT transform of 2^d points, bit-reversed in and natural out: the
 * transpose of dif_, stage by stage in the opposite order. */
static void NTT_FN(dit_)(NTT_T *x, size_t S, size_t ncols, unsigned d, const NTT_T *tw) {
    const size_t len = (size_t)1 << d;
    unsigned j = 2;
    if (d & 1) {
        for (size_t b = 0; b < len; b += 2)
            for (size_t c = 0; c < ncols; c++) NTT_FN(bfly2_)(&x[b * S + c], &x[(b + 1) * S + c]);
        j = 3;
    }
    for (; j <= d; j += 2) {
        const size_t q = (size_t)1 << (j - 2);
#ifdef ZKP_HAVE_X86_ASM
        if (zkp_cpu_use_ifma && NTT_FN(ifma_stage)(x, S, ncols, len, q, tw, 1)) continue;
#endif
        for (size_t b = 0; b < len; b += 4 * q) {
            NTT_T *r0 = x + b * S, *r1 = r0 + q * S, *r2 = r1 + q * S, *r3 = r2 + q * S;
            for (size_t c = 0; c < ncols; c++)
                NTT_FN(dit4_p0_)(&r0[c], &r1[c], &r2[c], &r3[c], &tw[3 * q]);
            for (size_t p = 1; p < q; p++) {
                const NTT_T *w1 = &tw[2 * q + p], *w2 = &tw[3 * q + p], *w3 = &tw[q + p];
                r0 += S, r1 += S, r2 += S, r3 += S;
                for (size_t c = 0; c < ncols; c++)
                    NTT_FN(dit4_)(&r0[c], &r1[c], &r2[c], &r3[c], w1, w2, w3);
            }
        }
    }
}

/* The twiddle step of a level with d bits, lo bits below it and
 * L - d - lo = top bits above it, on columns [c0, c0 + ncols) of one
 * block: the element at (bit-reversed) row r, column c is multiplied by
 * w_N^(c k) with k = rev_d(r) and N = 2^(d+lo), that is by w^E with
 * E = c k 2^top. With scaled set (the level 0 of a plain inverse) the factor
 * is w^E / n, read from hi_inv_n, and no element is skipped. */
static void NTT_FN(twiddle_)(const NTT_PLAN *pl, NTT_T *x, unsigned d, size_t S, size_t ncols,
                             size_t c0, unsigned top, int scaled) {
    const NTT_DOM *dm = pl->dom;
    const NTT_T *lo = dm->lo_tab, *hi = scaled ? dm->hi_inv_n : dm->hi_tab;
    const unsigned sb = dm->split_bits;
#ifdef ZKP_HAVE_X86_ASM
    if (zkp_cpu_use_ifma && NTT_FN(ifma_twiddle)(x, d, S, ncols, c0, top, pl->inverse, dm->n, lo, hi, sb)) return;
#endif
    const uint64_t nmask = (uint64_t)dm->n - 1, lmask = ((uint64_t)1 << sb) - 1;
    const size_t rows = (size_t)1 << d;
    for (size_t r = 0; r < rows; r++) {
        const uint64_t k = zkp_ntt_bitrev(r, d);
        NTT_T *row = x + r * S;
        for (size_t c = 0; c < ncols; c++) {
            uint64_t e = ((uint64_t)(c0 + c) * k) << top;
            if (pl->inverse) e = ((uint64_t)dm->n - e) & nmask;
            const uint64_t eh = e >> sb, el = e & lmask;
            NTT_T f;
            if (!scaled) {
                if (e == 0) continue;
                if (eh == 0) {
                    NTT_F(mul)(&row[c], &row[c], &lo[el]);
                    continue;
                }
            }
            NTT_F(mul)(&f, &hi[eh], &lo[el]);
            NTT_F(mul)(&row[c], &row[c], &f);
        }
    }
}

/* Natural-order coefficient scaling on level 0: element (r, c) of the
 * chunk is index i = r S + c (level 0 has no bits above it), and gets
 * s h^i. One pow per chunk, then running products along rows and columns. */
static void NTT_FN(scale_natural_)(const NTT_PLAN *pl, NTT_T *x, size_t rows, size_t S,
                                   size_t ncols, size_t c0) {
    NTT_T row, v;
    const uint64_t e = c0;
    NTT_F(pow)(&row, &pl->h, &e, 1);
    NTT_F(mul)(&row, &row, &pl->s);
    for (size_t r = 0; r < rows; r++) {
        NTT_T *xr = x + r * S;
        v = row;
        for (size_t c = 0; c < ncols; c++) {
            NTT_F(mul)(&xr[c], &xr[c], &v);
            if (c + 1 < ncols) NTT_F(mul)(&v, &v, &pl->h);
        }
        if (r + 1 < rows) NTT_F(mul)(&row, &row, &pl->h_stride);
    }
}

/* Bit-reversed-order coefficient scaling on the contiguous run
 * x = a[p0 .. p0 + len): the element at index p gets s h^rev(p). Going
 * from p to p + 1 clears the t = ctz(~p) trailing ones of p and sets bit t,
 * so rev(p + 1) = rev(p) + 2^(L-1-t) - sum_{i<t} 2^(L-1-i), and the factor
 * advances by the precomputed q[t] = h^(that difference). */
static void NTT_FN(scale_bitrev_)(const NTT_PLAN *pl, NTT_T *x, size_t p0, size_t len) {
    NTT_T v;
    const uint64_t e = zkp_ntt_bitrev(p0, pl->dom->log_n);
    NTT_F(pow)(&v, &pl->h, &e, 1);
    NTT_F(mul)(&v, &v, &pl->s);
    for (size_t i = 0; i < len; i++) {
        NTT_F(mul)(&x[i], &x[i], &v);
        if (i + 1 < len) NTT_F(mul)(&v, &v, &pl->q[__builtin_ctzll(~(uint64_t)(p0 + i))]);
    }
}

static void NTT_FN(scale_const_)(const NTT_PLAN *pl, NTT_T *x, size_t len) {
    for (size_t i = 0; i < len; i++) NTT_F(mul)(&x[i], &x[i], &pl->s);
}

/* One chunk of level t. */
static void NTT_FN(level_chunk_)(const NTT_PLAN *pl, unsigned t, size_t ch) {
    const NTT_DOM *dm = pl->dom;
    const unsigned d = dm->level_bits[t], lo = dm->level_lo[t];
    const unsigned top = dm->log_n - d - lo;
    const size_t S = (size_t)1 << lo, rows = (size_t)1 << d, blk = rows * S;
    const size_t ncols = dm->level_ncols[t], group = dm->level_group[t], nb = S / ncols;
    const size_t T0 = (ch / nb) * group, c0 = (ch % nb) * ncols;
    const NTT_T *tw = pl->inverse ? dm->stage_inv : dm->stage_fwd;
    const int first = t == 0, last = t + 1 == dm->nlevels;
    for (size_t T = T0; T < T0 + group; T++) {
        NTT_T *x = pl->a + T * blk + c0;
        if (!pl->dit) {
            if (first && pl->scale == NTT_SCALE_NATURAL)
                NTT_FN(scale_natural_)(pl, x, rows, S, ncols, c0);
            NTT_FN(dif_)(x, S, ncols, d, tw);
            if (!last) NTT_FN(twiddle_)(pl, x, d, S, ncols, c0, top, first && pl->tw_scaled);
            if (last && pl->scale == NTT_SCALE_BITREV) NTT_FN(scale_bitrev_)(pl, x, T * blk, blk);
            if (last && pl->scale == NTT_SCALE_CONST) NTT_FN(scale_const_)(pl, x, blk);
        } else {
            if (last && pl->scale == NTT_SCALE_BITREV) NTT_FN(scale_bitrev_)(pl, x, T * blk, blk);
            if (!last) NTT_FN(twiddle_)(pl, x, d, S, ncols, c0, top, first && pl->tw_scaled);
            NTT_FN(dit_)(x, S, ncols, d, tw);
            if (first && pl->scale == NTT_SCALE_NATURAL)
                NTT_FN(scale_natural_)(pl, x, rows, S, ncols, c0);
            if (last && pl->scale == NTT_SCALE_CONST) NTT_FN(scale_const_)(pl, x, blk);
        }
    }
}

static inline void NTT_FN(swap_)(NTT_T *a, NTT_T *b) {
    NTT_T t = *a;
    *a = *b;
    *b = t;
}

/* One chunk of the bit-reversal permutation of 2^L elements. With
 * b = ZKP_NTT_BR_BITS, write i = (hi, mid, lo) with b-bit hi and lo; then
 * rev(i) = (rev(lo), rev(mid), rev(hi)), so the 2^b x 2^b tile of row
 * "mid" (rows of 2^b contiguous elements) swaps with the tile of
 * rev(mid) as a whole. A chunk handles br_mids values of mid and only the
 * pairs with mid <= rev(mid), so every pair is swapped once, by one chunk. */
static void NTT_FN(bitrev_run_)(NTT_T *a, unsigned L, size_t mids_per_chunk, size_t ch) {
    if (mids_per_chunk == 0) {
        const size_t n = (size_t)1 << L;
        for (size_t i = 0; i < n; i++) {
            size_t j = (size_t)zkp_ntt_bitrev(i, L);
            if (i < j) NTT_FN(swap_)(&a[i], &a[j]);
        }
        return;
    }
    const unsigned b = ZKP_NTT_BR_BITS, mb = L - 2 * b, sh = L - b;
    const size_t side = (size_t)1 << b;
    size_t rb[(size_t)1 << ZKP_NTT_BR_BITS];
    for (size_t v = 0; v < side; v++) rb[v] = (size_t)zkp_ntt_bitrev(v, b);
    for (size_t mid = ch * mids_per_chunk; mid < (ch + 1) * mids_per_chunk; mid++) {
        const size_t mid2 = (size_t)zkp_ntt_bitrev(mid, mb);
        if (mid2 < mid) continue;
        for (size_t hi = 0; hi < side; hi++) {
            NTT_T *src = a + (hi << sh) + (mid << b);
            NTT_T *dst = a + (mid2 << b) + rb[hi];
            for (size_t lo = 0; lo < side; lo++) {
                NTT_T *y = dst + (rb[lo] << sh);
                if (mid == mid2 && y <= src + lo) continue;
                NTT_FN(swap_)(&src[lo], y);
            }
        }
    }
}

/* ---------------------------------------------------------------- plans */

zkpipe_status NTT_FN(plan_init)(NTT_PLAN *pl, const NTT_DOM *dom, NTT_T *a, size_t n,
                                zkp_ntt_kind kind, const NTT_T *shift) {
    if (pl == NULL || dom == NULL || a == NULL || dom->n == 0 || n != dom->n ||
        (unsigned)kind >= ZKP_NTT_KIND_COUNT_)
        return ZKPIPE_ERR_INVALID_ARGUMENT;
    if (shift != NULL &&
        (kind == ZKP_NTT_BIT_REVERSE || !NTT_F(is_reduced)(shift) || NTT_F(is_zero)(shift)))
        return ZKPIPE_ERR_INVALID_ARGUMENT;
    memset(pl, 0, sizeof *pl);
    pl->dom = dom;
    pl->a = a;
    const unsigned m = dom->nlevels;
    if (kind == ZKP_NTT_BIT_REVERSE) {
        pl->npasses = 1;
        pl->pass_level[0] = -1;
        pl->pass_chunks[0] = dom->br_chunks;
        return ZKPIPE_OK;
    }
    pl->dit = kind == ZKP_NTT_FORWARD_RN || kind == ZKP_NTT_INVERSE_RN;
    pl->inverse =
        kind == ZKP_NTT_INVERSE || kind == ZKP_NTT_INVERSE_NR || kind == ZKP_NTT_INVERSE_RN;
    for (unsigned i = 0; i < m; i++) {
        unsigned t = pl->dit ? m - 1 - i : i;
        pl->pass_level[i] = (signed char)t;
        pl->pass_chunks[i] = dom->level_chunks[t];
    }
    pl->npasses = m;
    if (kind == ZKP_NTT_FORWARD || kind == ZKP_NTT_INVERSE) {
        pl->pass_level[m] = -1;
        pl->pass_chunks[m] = dom->br_chunks;
        pl->npasses = m + 1;
    }

    if (pl->inverse)
        pl->s = dom->n_inv;
    else
        NTT_F(set_one)(&pl->s);
    if (shift == NULL) {
        if (pl->inverse) {
            if (m > 1)
                pl->tw_scaled = 1;
            else
                pl->scale = NTT_SCALE_CONST;
        }
        return ZKPIPE_OK;
    }
    /* The coefficients are the DIF input (natural order) of a forward DIF,
     * the DIF output (bit-reversed) of an inverse DIF, and the other way
     * round for DIT. */
    if (pl->inverse)
        NTT_F(inv_var)(&pl->h, shift);
    else
        pl->h = *shift;
    if (pl->dit == pl->inverse) {
        pl->scale = NTT_SCALE_NATURAL;
        NTT_T hs = pl->h;
        for (unsigned i = 0; i < dom->level_lo[0]; i++) NTT_F(sqr)(&hs, &hs);
        pl->h_stride = hs;
    } else {
        pl->scale = NTT_SCALE_BITREV;
        /* q[t] = h^(2^(L-1-t)) / h^(2^(L-1) + ... + 2^(L-t)). */
        const unsigned L = dom->log_n;
        NTT_T pw[ZKP_NTT_MAX_LOG], pwi[ZKP_NTT_MAX_LOG], hinv, acc;
        NTT_F(inv_var)(&hinv, &pl->h);
        for (unsigned j = 0; j < L; j++) {
            if (j == 0) {
                pw[0] = pl->h;
                pwi[0] = hinv;
            } else {
                NTT_F(sqr)(&pw[j], &pw[j - 1]);
                NTT_F(sqr)(&pwi[j], &pwi[j - 1]);
            }
        }
        NTT_F(set_one)(&acc);
        for (unsigned t = 0; t < L; t++) {
            NTT_F(mul)(&pl->q[t], &pw[L - 1 - t], &acc);
            NTT_F(mul)(&acc, &acc, &pwi[L - 1 - t]);
        }
    }
    return ZKPIPE_OK;
}

unsigned NTT_FN(plan_passes)(const NTT_PLAN *pl) { return pl->npasses; }

size_t NTT_FN(plan_chunks)(const NTT_PLAN *pl, unsigned pass) {
    return pass < pl->npasses ? pl->pass_chunks[pass] : 0;
}

void NTT_FN(run_range)(const NTT_PLAN *pl, unsigned pass, size_t begin, size_t end) {
    if (pass >= pl->npasses) return;
    if (end > pl->pass_chunks[pass]) end = pl->pass_chunks[pass];
    const int t = pl->pass_level[pass];
    for (size_t ch = begin; ch < end; ch++) {
        if (t < 0)
            NTT_FN(bitrev_run_)(pl->a, pl->dom->log_n, pl->dom->br_mids, ch);
        else
            NTT_FN(level_chunk_)(pl, (unsigned)t, ch);
    }
}

void NTT_FN(run)(const NTT_PLAN *pl) {
    for (unsigned pass = 0; pass < pl->npasses; pass++)
        NTT_FN(run_range)(pl, pass, 0, pl->pass_chunks[pass]);
}

static void NTT_FN(chunk_cb_)(const void *pl, unsigned pass, size_t ch) {
    NTT_FN(run_range)((const NTT_PLAN *)pl, pass, ch, ch + 1);
}

zkpipe_status NTT_FN(run_mt)(const NTT_PLAN *pl, unsigned nthreads) {
    if (pl == NULL || nthreads == 0) return ZKPIPE_ERR_INVALID_ARGUMENT;
    if (nthreads == 1)
        NTT_FN(run)(pl);
    else
        zkp_ntt_run_passes_mt(pl, pl->npasses, pl->pass_chunks, NTT_FN(chunk_cb_), nthreads);
    return ZKPIPE_OK;
}

/* ---------------------------------------------------------------- wrappers */

zkpipe_status NTT_FN(transform)(const NTT_DOM *dom, NTT_T *a, size_t n, zkp_ntt_kind kind,
                                const NTT_T *shift, unsigned nthreads) {
    NTT_PLAN pl;
    if (nthreads == 0) return ZKPIPE_ERR_INVALID_ARGUMENT;
    zkpipe_status st = NTT_FN(plan_init)(&pl, dom, a, n, kind, shift);
    if (st != ZKPIPE_OK) return st;
    return NTT_FN(run_mt)(&pl, nthreads);
}

zkpipe_status NTT_FN(forward)(const NTT_DOM *dom, NTT_T *a, size_t n) {
    return NTT_FN(transform)(dom, a, n, ZKP_NTT_FORWARD, NULL, 1);
}

zkpipe_status NTT_FN(inverse)(const NTT_DOM *dom, NTT_T *a, size_t n) {
    return NTT_FN(transform)(dom, a, n, ZKP_NTT_INVERSE, NULL, 1);
}

zkpipe_status NTT_FN(coset_forward)(const NTT_DOM *dom, NTT_T *a, size_t n, const NTT_T *shift) {
    if (shift == NULL) return ZKPIPE_ERR_INVALID_ARGUMENT;
    return NTT_FN(transform)(dom, a, n, ZKP_NTT_FORWARD, shift, 1);
}

zkpipe_status NTT_FN(coset_inverse)(const NTT_DOM *dom, NTT_T *a, size_t n, const NTT_T *shift) {
    if (shift == NULL) return ZKPIPE_ERR_INVALID_ARGUMENT;
    return NTT_FN(transform)(dom, a, n, ZKP_NTT_INVERSE, shift, 1);
}

zkpipe_status NTT_FN(forward_mt)(const NTT_DOM *dom, NTT_T *a, size_t n, unsigned nthreads) {
    return NTT_FN(transform)(dom, a, n, ZKP_NTT_FORWARD, NULL, nthreads);
}

zkpipe_status NTT_FN(bit_reverse)(NTT_T *a, size_t n) {
    if (a == NULL || n == 0 || (n & (n - 1)) != 0) return ZKPIPE_ERR_INVALID_ARGUMENT;
    const unsigned L = (unsigned)__builtin_ctzll((unsigned long long)n);
    if (L < 2 * ZKP_NTT_BR_BITS) {
        NTT_FN(bitrev_run_)(a, L, 0, 0);
    } else {
        const size_t mids = (size_t)1 << (L - 2 * ZKP_NTT_BR_BITS);
        NTT_FN(bitrev_run_)(a, L, mids, 0);
    }
    return ZKPIPE_OK;
}

#undef NTT_T
#undef NTT_DOM
#undef NTT_PLAN
#undef NTT_OPT
#undef NTT_FN
#undef NTT_F
#undef NTT_K
