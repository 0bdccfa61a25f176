/* NTT property tests, instantiated once per scalar field by test_ntt.c with
 *   #define F     bn254_fr   (the field)
 *   #define FK    BN254_FR   (its constants)
 *   #define FGEN  5          (the generator behind F_root_of_unity)
 * Each function is one generic body; test_ntt.c wraps them in named
 * TEST_CASEs. Every expected value comes from the definitions in ntt.h,
 * computed here the slow way (Horner's rule on each point, an index-by-index
 * bit reversal, schoolbook products), never from the layer under test. */
#include <stdlib.h>

#define T_ ZKP_CAT(F, _t)
#define FN(op) ZKP_CAT(ZKP_CAT(F, _), op)
#define NTT(op) ZKP_CAT(ZKP_CAT(F, _ntt_), op)
#define DOM_ ZKP_CAT(F, _ntt_domain_t)
#define PLAN_ ZKP_CAT(F, _ntt_plan_t)
#define OPT_ ZKP_CAT(F, _ntt_options_t)
#define K(k) ZKP_CAT(ZKP_CAT(FK, _), k)
#define TFN(op) ZKP_CAT(ZKP_CAT(test_, F), ZKP_CAT(_ntt_, op))

/* ------------------------------------------------------------ helpers */

static void TFN(rand)(T_ *r) {
    static const T_ p = {K(MODULUS)};
    do {
        test_rng_bytes(r->l, sizeof r->l);
        r->l[K(LIMBS) - 1] &= (~(uint64_t)0) >> (64 * K(LIMBS) - K(BITS));
    } while (!zkp_limbs_lt(r->l, p.l, K(LIMBS)));
}

static void TFN(rand_nonzero)(T_ *r) {
    do TFN(rand)(r);
    while (FN(is_zero)(r));
}

static T_ *TFN(alloc)(size_t n) {
    T_ *a = malloc((n ? n : 1) * sizeof *a);
    ASSERT(a != NULL);
    return a;
}

static T_ *TFN(random_vec)(size_t n) {
    T_ *a = TFN(alloc)(n);
    for (size_t i = 0; i < n; i++) TFN(rand)(&a[i]);
    return a;
}

static T_ *TFN(copy)(const T_ *a, size_t n) {
    T_ *b = TFN(alloc)(n);
    memcpy(b, a, n * sizeof *a);
    return b;
}

static void TFN(assert_elem_eq)(const char *what, size_t i, const T_ *a, const T_ *b) {
    if (!FN(eq)(a, b)) {
        char ha[2 * sizeof a->l + 1], hb[2 * sizeof b->l + 1];
        test_hex(ha, a->l, sizeof a->l);
        test_hex(hb, b->l, sizeof b->l);
        test_fail(__FILE__, __LINE__, "%s: index %zu: %s (limbs LE) != %s", what, i, ha, hb);
    }
}

static void TFN(assert_vec_eq)(const char *what, const T_ *a, const T_ *b, size_t n) {
    for (size_t i = 0; i < n; i++) TFN(assert_elem_eq)(what, i, &a[i], &b[i]);
}

/* The log-bit reversal of i, bit by bit: the reference for the layer's. */
static size_t TFN(rev)(size_t i, unsigned log_n) {
    size_t r = 0;
    for (unsigned b = 0; b < log_n; b++) r |= ((i >> b) & 1) << (log_n - 1 - b);
    return r;
}

/* out[rev(i)] = in[i]. */
static void TFN(permute)(T_ *out, const T_ *in, unsigned log_n) {
    size_t n = (size_t)1 << log_n;
    for (size_t i = 0; i < n; i++) out[TFN(rev)(i, log_n)] = in[i];
}

/* P(x) for P(x) = sum_i c_i x^i. */
static void TFN(horner)(T_ *r, const T_ *c, size_t n, const T_ *x) {
    T_ acc;
    FN(set_zero)(&acc);
    for (size_t i = n; i-- > 0;) {
        FN(mul)(&acc, &acc, x);
        FN(add)(&acc, &acc, &c[i]);
    }
    *r = acc;
}

/* out[j] = P(g w^j) for j < n (g = 1 when NULL): the O(n^2) definition. */
static void TFN(direct)(T_ *out, const T_ *c, size_t n, const T_ *w, const T_ *g) {
    T_ x;
    if (g)
        x = *g;
    else
        FN(set_one)(&x);
    for (size_t j = 0; j < n; j++) {
        TFN(horner)(&out[j], c, n, &x);
        FN(mul)(&x, &x, w);
    }
}

/* The inverse by definition: out[i] = g^(-i) (1/n) sum_j v_j w^(-ij). */
static void TFN(direct_inverse)(T_ *out, const T_ *v, size_t n, const T_ *w, const T_ *g) {
    T_ wi, ninv, gi, f;
    FN(inv_var)(&wi, w);
    TFN(direct)(out, v, n, &wi, NULL);
    FN(set_u64)(&ninv, n);
    FN(inv_var)(&ninv, &ninv);
    if (g)
        FN(inv_var)(&gi, g);
    else
        FN(set_one)(&gi);
    f = ninv;
    for (size_t i = 0; i < n; i++) {
        FN(mul)(&out[i], &out[i], &f);
        FN(mul)(&f, &f, &gi);
    }
}

/* A domain with its memory; free with TFN(dom_free). */
static void *TFN(dom_make)(DOM_ *d, unsigned log_n, const OPT_ *opt) {
    size_t bytes = NTT(domain_bytes_opt)(log_n, opt);
    ASSERT(bytes > 0);
    void *mem = malloc(bytes);
    ASSERT(mem != NULL);
    ASSERT_OK(NTT(domain_init_opt)(d, log_n, opt, mem, bytes));
    return mem;
}

static void TFN(dom_free)(DOM_ *d, void *mem) {
    NTT(domain_clear)(d);
    free(mem);
}

/* Expected values for one size: random coefficients c and values v, the
 * evaluations ev of c on g H and the coefficients co interpolating v on
 * g H (g = 1 when NULL), each also in bit-reversed order (_r). Computed
 * once and checked against any number of domains of that size. */
typedef struct {
    unsigned log_n;
    size_t n;
    T_ *c, *v, *ev, *co, *ev_r, *co_r, *c_r, *v_r;
} TFN(refs);

static void TFN(refs_make)(TFN(refs) * r, unsigned log_n, const T_ *w, const T_ *g) {
    const size_t n = (size_t)1 << log_n;
    r->log_n = log_n;
    r->n = n;
    r->c = TFN(random_vec)(n);
    r->v = TFN(random_vec)(n);
    r->ev = TFN(alloc)(n);
    r->co = TFN(alloc)(n);
    r->ev_r = TFN(alloc)(n);
    r->co_r = TFN(alloc)(n);
    r->c_r = TFN(alloc)(n);
    r->v_r = TFN(alloc)(n);
    TFN(direct)(r->ev, r->c, n, w, g);
    TFN(direct_inverse)(r->co, r->v, n, w, g);
    TFN(permute)(r->ev_r, r->ev, log_n);
    TFN(permute)(r->co_r, r->co, log_n);
    TFN(permute)(r->c_r, r->c, log_n);
    TFN(permute)(r->v_r, r->v, log_n);
}

static void TFN(refs_free)(TFN(refs) * r) {
    free(r->c), free(r->v), free(r->ev), free(r->co);
    free(r->ev_r), free(r->co_r), free(r->c_r), free(r->v_r);
}

/* Runs kind on a copy of in and compares with want. */
static void TFN(expect)(const char *what, const DOM_ *d, zkp_ntt_kind kind, const T_ *g,
                        const T_ *in, const T_ *want) {
    T_ *x = TFN(copy)(in, d->n);
    ASSERT_OK(NTT(transform)(d, x, d->n, kind, g, 1));
    TFN(assert_vec_eq)(what, x, want, d->n);
    free(x);
}

/* All six transform kinds of domain d against the definitions, with the
 * coset shift g the refs were made for (NULL for none); without a shift
 * also the bare permutation. */
static void TFN(check_kinds_refs)(const DOM_ *d, const TFN(refs) * r, const T_ *g) {
    ASSERT_EQ_U64(d->n, r->n);
    TFN(expect)("FORWARD", d, ZKP_NTT_FORWARD, g, r->c, r->ev);
    TFN(expect)("FORWARD_NR", d, ZKP_NTT_FORWARD_NR, g, r->c, r->ev_r);
    TFN(expect)("FORWARD_RN", d, ZKP_NTT_FORWARD_RN, g, r->c_r, r->ev);
    TFN(expect)("INVERSE", d, ZKP_NTT_INVERSE, g, r->v, r->co);
    TFN(expect)("INVERSE_NR", d, ZKP_NTT_INVERSE_NR, g, r->v, r->co_r);
    TFN(expect)("INVERSE_RN", d, ZKP_NTT_INVERSE_RN, g, r->v_r, r->co);
    if (g == NULL) TFN(expect)("BIT_REVERSE", d, ZKP_NTT_BIT_REVERSE, NULL, r->c, r->c_r);
}

static void TFN(check_kinds)(const DOM_ *d, const T_ *w, const T_ *g) {
    TFN(refs) r;
    TFN(refs_make)(&r, d->log_n, w, g);
    TFN(check_kinds_refs)(d, &r, g);
    TFN(refs_free)(&r);
}

/* ------------------------------------------------------------ cases */

/* The roots are the documented family: F_root_of_unity(k) is
 * FGEN^((p-1)/2^k), a primitive 2^k-th root, and the domain holds it. The
 * snarkjs family (generator 5) is the same for bn254_fr and a different
 * one for bls12_381_fr, where a domain built on it is still exact. */
static void TFN(root_convention)(void) {
    T_ gen, five, w, wg, w5, t, one, minus_one;
    FN(set_u64)(&gen, FGEN);
    FN(set_u64)(&five, 5);
    FN(set_one)(&one);
    FN(neg)(&minus_one, &one);
    for (unsigned k = 0; k <= K(TWO_ADICITY); k++) {
        ASSERT_OK(FN(root_of_unity)(&w, k));
        ASSERT_OK(NTT(root_from_generator)(&wg, &gen, k));
        TFN(assert_elem_eq)("root_of_unity(k) = gen^((p-1)/2^k)", k, &w, &wg);
        t = w;
        for (unsigned i = 1; i < k; i++) FN(sqr)(&t, &t);
        if (k == 0)
            ASSERT(FN(is_one)(&w));
        else
            TFN(assert_elem_eq)("w^(2^(k-1)) = -1", k, &t, &minus_one);
        ASSERT_OK(NTT(root_from_generator)(&w5, &five, k));
        /* For bls12_381_fr the two families agree up to k = 2 (5^t = 7^(t u)
         * with u = 5 mod 8) and part from k = 3 on. */
        if (FGEN == 5 || k < 3)
            TFN(assert_elem_eq)("snarkjs root", k, &w5, &w);
        else
            ASSERT_MSG(!FN(eq)(&w5, &w), "snarkjs root equals the field root at k = %u", k);
    }
    /* Domains at a few sizes, the largest included: the tables are
     * O(sqrt(n)), so even 2^adicity costs little memory. */
    const unsigned sizes[] = {0, 1, 2, 11, 12, 13, 20, K(TWO_ADICITY)};
    for (size_t s = 0; s < ZKP_ARRAY_LEN(sizes); s++) {
        unsigned k = sizes[s];
        DOM_ d;
        void *mem = TFN(dom_make)(&d, k, NULL);
        ASSERT_OK(FN(root_of_unity)(&w, k));
        TFN(assert_elem_eq)("domain root", k, &d.omega, &w);
        FN(mul)(&t, &d.omega, &d.omega_inv);
        ASSERT(FN(is_one)(&t));
        FN(set_u64)(&t, (uint64_t)1 << k);
        FN(mul)(&t, &t, &d.n_inv);
        ASSERT(FN(is_one)(&t));
        ASSERT_EQ_U64(d.n, (uint64_t)1 << k);
        TFN(dom_free)(&d, mem);
    }
    /* A domain on the snarkjs root transforms with that root. */
    for (unsigned k = 0; k <= 6; k++) {
        DOM_ d;
        OPT_ opt = {0};
        ASSERT_OK(NTT(root_from_generator)(&w5, &five, k));
        opt.root = &w5;
        opt.max_level_bits = 2; /* several levels, so the twiddle step uses the chosen root too */
        void *mem = TFN(dom_make)(&d, k, &opt);
        TFN(assert_elem_eq)("chosen root", k, &d.omega, &w5);
        TFN(check_kinds)(&d, &w5, NULL);
        TFN(dom_free)(&d, mem);
    }
}

/* Every kind against the O(n^2) definitions for n = 1 .. 2^10, plain and
 * on a random coset, with the default domain (a single level here). */
static void TFN(direct_small)(void) {
    for (unsigned k = 0; k <= 10; k++) {
        DOM_ d;
        T_ w, g;
        void *mem = TFN(dom_make)(&d, k, NULL);
        ASSERT_OK(FN(root_of_unity)(&w, k));
        TFN(check_kinds)(&d, &w, NULL);
        TFN(rand_nonzero)(&g);
        TFN(check_kinds)(&d, &w, &g);
        TFN(dom_free)(&d, mem);
    }
}

/* The same checks through every way of cutting the transform into levels
 * and chunks: levels of 1 to 6 bits (so up to 10 levels and every twiddle
 * step), chunks from one element to the whole array. This is the
 * exhaustive check of the indexing that larger sizes rely on. */
static void TFN(levels_direct)(void) {
    const unsigned sizes[] = {3, 7, 10};
    const unsigned level_bits[] = {1, 2, 3, 4, 5, 6};
    const unsigned block_bits[] = {1, 3, 6, 12};
    for (size_t s = 0; s < ZKP_ARRAY_LEN(sizes); s++) {
        unsigned k = sizes[s];
        T_ w, g;
        TFN(refs) plain, coset;
        ASSERT_OK(FN(root_of_unity)(&w, k));
        TFN(rand_nonzero)(&g);
        TFN(refs_make)(&plain, k, &w, NULL);
        TFN(refs_make)(&coset, k, &w, &g);
        for (size_t lb = 0; lb < ZKP_ARRAY_LEN(level_bits); lb++)
            for (size_t bb = 0; bb < ZKP_ARRAY_LEN(block_bits); bb++) {
                DOM_ d;
                OPT_ opt = {0};
                opt.max_level_bits = level_bits[lb];
                opt.block_bits = block_bits[bb];
                void *mem = TFN(dom_make)(&d, k, &opt);
                TFN(check_kinds_refs)(&d, &plain, NULL);
                TFN(check_kinds_refs)(&d, &coset, &g);
                TFN(dom_free)(&d, mem);
            }
        TFN(refs_free)(&plain);
        TFN(refs_free)(&coset);
    }
}

/* The cosets the provers use: snarkjs's g = w_{2n} (so g^n = -1) and its
 * g = 25 at the largest size, bellperson's multiplicative generator. */
static void TFN(coset_direct)(void) {
    for (unsigned k = 0; k <= 10; k++) {
        DOM_ d;
        OPT_ opt = {0};
        T_ w, g;
        opt.max_level_bits = 3;
        void *mem = TFN(dom_make)(&d, k, &opt);
        ASSERT_OK(FN(root_of_unity)(&w, k));
        ASSERT_OK(FN(root_of_unity)(&g, k + 1));
        TFN(check_kinds)(&d, &w, &g);
        FN(set_u64)(&g, 25);
        TFN(check_kinds)(&d, &w, &g);
        FN(set_u64)(&g, FGEN);
        TFN(check_kinds)(&d, &w, &g);
        TFN(dom_free)(&d, mem);
    }
}

/* inverse(forward(x)) = x, plain and on a coset, and the no-permutation
 * pairs, for n = 1 .. 2^16. */
static void TFN(round_trip)(void) {
    for (unsigned k = 0; k <= 16; k++) {
        DOM_ d;
        void *mem = TFN(dom_make)(&d, k, NULL);
        const size_t n = d.n;
        T_ *x = TFN(random_vec)(n), *y = TFN(copy)(x, n), g;
        TFN(rand_nonzero)(&g);
        ASSERT_OK(NTT(forward)(&d, y, n));
        ASSERT_OK(NTT(inverse)(&d, y, n));
        TFN(assert_vec_eq)("inverse(forward(x))", y, x, n);
        ASSERT_OK(NTT(transform)(&d, y, n, ZKP_NTT_FORWARD_NR, NULL, 1));
        ASSERT_OK(NTT(transform)(&d, y, n, ZKP_NTT_INVERSE_RN, NULL, 1));
        TFN(assert_vec_eq)("inverse_rn(forward_nr(x))", y, x, n);
        ASSERT_OK(NTT(transform)(&d, y, n, ZKP_NTT_INVERSE_NR, &g, 1));
        ASSERT_OK(NTT(transform)(&d, y, n, ZKP_NTT_FORWARD_RN, &g, 1));
        TFN(assert_vec_eq)("coset forward_rn(inverse_nr(x))", y, x, n);
        ASSERT_OK(NTT(coset_forward)(&d, y, n, &g));
        ASSERT_OK(NTT(coset_inverse)(&d, y, n, &g));
        TFN(assert_vec_eq)("coset_inverse(coset_forward(x))", y, x, n);
        free(x), free(y);
        TFN(dom_free)(&d, mem);
    }
}

/* The default (multi-level) path at sizes too large for the O(n^2)
 * definition: a forward transform checked against Horner's rule at a few
 * points (the first, the last and random ones), then the inverse back to
 * the input. 2^16 always; 2^20 in an optimized build, test_iters times. */
static void TFN(large_one)(unsigned k, int points) {
    DOM_ d;
    void *mem = TFN(dom_make)(&d, k, NULL);
    const size_t n = d.n;
    T_ *c = TFN(random_vec)(n), *y = TFN(copy)(c, n), x, e;
    ASSERT(d.nlevels > 1);
    ASSERT_OK(NTT(forward)(&d, y, n));
    for (int i = 0; i < points; i++) {
        size_t j = i == 0 ? 0 : i == 1 ? n - 1 : (size_t)(test_rng_u64() & (n - 1));
        uint64_t ej = j;
        FN(pow)(&x, &d.omega, &ej, 1);
        TFN(horner)(&e, c, n, &x);
        TFN(assert_elem_eq)("forward vs P(w^j)", j, &y[j], &e);
    }
    ASSERT_OK(NTT(inverse)(&d, y, n));
    TFN(assert_vec_eq)("inverse(forward(x))", y, c, n);
    free(c), free(y);
    TFN(dom_free)(&d, mem);
}

static void TFN(large)(void) {
    TFN(large_one)(16, 6);
#ifdef NDEBUG
    for (unsigned it = 0; it < test_iters(1); it++) TFN(large_one)(20, 3);
#endif
}

/* Runs one plan on nthreads and compares with the single-threaded result;
 * then runs it the way an engine would, chunk by chunk in reverse order. */
static void TFN(mt_case)(const DOM_ *d, zkp_ntt_kind kind, const T_ *g, const unsigned *threads,
                         size_t nthreads_len) {
    const size_t n = d->n;
    T_ *x = TFN(random_vec)(n), *ref = TFN(copy)(x, n), *y = TFN(alloc)(n);
    PLAN_ pl;
    ASSERT_OK(NTT(plan_init)(&pl, d, ref, n, kind, g));
    NTT(run)(&pl);
    for (size_t t = 0; t < nthreads_len; t++) {
        memcpy(y, x, n * sizeof *y);
        ASSERT_OK(NTT(transform)(d, y, n, kind, g, threads[t]));
        ASSERT_MSG(memcmp(y, ref, n * sizeof *y) == 0, "kind %d, %u threads: differs from 1 thread",
                   (int)kind, threads[t]);
    }
    memcpy(y, x, n * sizeof *y);
    ASSERT_OK(NTT(plan_init)(&pl, d, y, n, kind, g));
    for (unsigned pass = 0; pass < NTT(plan_passes)(&pl); pass++)
        for (size_t ch = NTT(plan_chunks)(&pl, pass); ch-- > 0;)
            NTT(run_range)(&pl, pass, ch, ch + 1);
    ASSERT_MSG(memcmp(y, ref, n * sizeof *y) == 0, "kind %d, chunks in reverse: differs",
               (int)kind);
    free(x), free(ref), free(y);
}

static void TFN(threads_match)(void) {
    static const unsigned many[] = {1, 2, 3, 5, 16};
    static const unsigned few[] = {2, 3};
    /* 2^12 cut into 3 levels of 4 bits with 64-element chunks: every pass
     * has 64 chunks, more than any thread count. */
    {
        DOM_ d;
        OPT_ opt = {0};
        opt.max_level_bits = 4;
        opt.block_bits = 6;
        void *mem = TFN(dom_make)(&d, 12, &opt);
        T_ g;
        TFN(rand_nonzero)(&g);
        for (int kind = 0; kind < ZKP_NTT_KIND_COUNT_; kind++) {
            TFN(mt_case)(&d, (zkp_ntt_kind)kind, NULL, many, ZKP_ARRAY_LEN(many));
            if (kind != ZKP_NTT_BIT_REVERSE)
                TFN(mt_case)(&d, (zkp_ntt_kind)kind, &g, many, ZKP_ARRAY_LEN(many));
        }
        TFN(dom_free)(&d, mem);
    }
    /* Default tuning, odd sizes: 2^15 and 2^17 (two levels of unequal bits). */
    const unsigned sizes[] = {15, 17};
    for (size_t s = 0; s < ZKP_ARRAY_LEN(sizes); s++) {
        DOM_ d;
        void *mem = TFN(dom_make)(&d, sizes[s], NULL);
        T_ g;
        TFN(rand_nonzero)(&g);
        TFN(mt_case)(&d, ZKP_NTT_FORWARD, NULL, few, ZKP_ARRAY_LEN(few));
        if (sizes[s] == 15) {
            TFN(mt_case)(&d, ZKP_NTT_INVERSE_RN, &g, few, ZKP_ARRAY_LEN(few));
            TFN(mt_case)(&d, ZKP_NTT_INVERSE, &g, few, ZKP_ARRAY_LEN(few));
            TFN(mt_case)(&d, ZKP_NTT_FORWARD_RN, &g, few, ZKP_ARRAY_LEN(few));
        }
        TFN(dom_free)(&d, mem);
    }
}

/* The permutation alone: y[rev(i)] = x[i] and applying it twice gives x
 * back, for sizes below and above the tiled path (2^8). */
static void TFN(bit_reverse)(void) {
    for (unsigned k = 0; k <= 17; k++) {
        const size_t n = (size_t)1 << k;
        T_ *x = TFN(random_vec)(n), *y = TFN(copy)(x, n), *ref = TFN(alloc)(n);
        ASSERT_OK(NTT(bit_reverse)(y, n));
        TFN(permute)(ref, x, k);
        TFN(assert_vec_eq)("bit_reverse", y, ref, n);
        ASSERT_OK(NTT(bit_reverse)(y, n));
        TFN(assert_vec_eq)("bit_reverse twice", y, x, n);
        free(x), free(y), free(ref);
    }
}

/* Polynomial products through the transforms equal schoolbook products,
 * both with the natural-order wrappers and with the no-permutation pair
 * (FORWARD_NR of both factors, the pointwise product in bit-reversed order,
 * INVERSE_RN). */
static void TFN(poly_mul)(void) {
    unsigned iters = test_iters(3);
    for (unsigned it = 0; it < iters; it++)
        for (unsigned k = 1; k <= 9; k++) {
            DOM_ d;
            void *mem = TFN(dom_make)(&d, k, NULL);
            const size_t n = d.n, m = n / 2; /* factors of m coefficients, product of n - 1 */
            T_ *p = TFN(alloc)(n), *q = TFN(alloc)(n), *ref = TFN(alloc)(n), t;
            for (size_t i = 0; i < n; i++) {
                if (i < m) {
                    TFN(rand)(&p[i]);
                    TFN(rand)(&q[i]);
                } else {
                    FN(set_zero)(&p[i]);
                    FN(set_zero)(&q[i]);
                }
                FN(set_zero)(&ref[i]);
            }
            for (size_t i = 0; i < m; i++)
                for (size_t j = 0; j < m; j++) {
                    FN(mul)(&t, &p[i], &q[j]);
                    FN(add)(&ref[i + j], &ref[i + j], &t);
                }
            T_ *p2 = TFN(copy)(p, n), *q2 = TFN(copy)(q, n);
            ASSERT_OK(NTT(forward)(&d, p, n));
            ASSERT_OK(NTT(forward)(&d, q, n));
            for (size_t i = 0; i < n; i++) FN(mul)(&p[i], &p[i], &q[i]);
            ASSERT_OK(NTT(inverse)(&d, p, n));
            TFN(assert_vec_eq)("natural-order product", p, ref, n);
            ASSERT_OK(NTT(transform)(&d, p2, n, ZKP_NTT_FORWARD_NR, NULL, 1));
            ASSERT_OK(NTT(transform)(&d, q2, n, ZKP_NTT_FORWARD_NR, NULL, 1));
            for (size_t i = 0; i < n; i++) FN(mul)(&p2[i], &p2[i], &q2[i]);
            ASSERT_OK(NTT(transform)(&d, p2, n, ZKP_NTT_INVERSE_RN, NULL, 1));
            TFN(assert_vec_eq)("no-permutation product", p2, ref, n);
            free(p), free(q), free(ref), free(p2), free(q2);
            TFN(dom_free)(&d, mem);
        }
}

/* The Groth16 quotient the way the provers compute it. A and B are random
 * polynomials of degree < n, a = A(w^j), b = B(w^j) and c = a b (a
 * satisfied system). Interpolate, evaluate on the coset g H with
 * g = w_{2n}, form (a b - c) / Z with Z = g^n - 1 = -2 there, and
 * interpolate back: h must have degree <= n - 2 and satisfy
 * A B - C = h Z at a random point. The same coset evaluations must come
 * out of the permutation-free pipeline INVERSE_NR then FORWARD_RN. */
static void TFN(h_polynomial)(void) {
    for (unsigned k = 1; k <= 10; k++) {
        DOM_ d;
        OPT_ opt = {0};
        opt.max_level_bits = k > 4 ? 3 : 0; /* multi-level from 2^5 on */
        void *mem = TFN(dom_make)(&d, k, &opt);
        const size_t n = d.n;
        T_ g, zg, x, t, u, v;
        ASSERT_OK(FN(root_of_unity)(&g, k + 1));
        T_ *ev[3], *cf[3], *cos[3];
        for (int i = 0; i < 2; i++) {
            cf[i] = TFN(random_vec)(n);
            ev[i] = TFN(copy)(cf[i], n);
            ASSERT_OK(NTT(forward)(&d, ev[i], n));
        }
        ev[2] = TFN(alloc)(n);
        for (size_t j = 0; j < n; j++) FN(mul)(&ev[2][j], &ev[0][j], &ev[1][j]);
        cf[2] = TFN(copy)(ev[2], n);
        ASSERT_OK(NTT(inverse)(&d, cf[2], n));
        for (int i = 0; i < 3; i++) {
            T_ *alt = TFN(copy)(ev[i], n);
            cos[i] = TFN(copy)(ev[i], n);
            ASSERT_OK(NTT(inverse)(&d, cos[i], n));
            ASSERT_OK(NTT(coset_forward)(&d, cos[i], n, &g));
            ASSERT_OK(NTT(transform)(&d, alt, n, ZKP_NTT_INVERSE_NR, NULL, 1));
            ASSERT_OK(NTT(transform)(&d, alt, n, ZKP_NTT_FORWARD_RN, &g, 1));
            TFN(assert_vec_eq)("coset evaluations, permutation-free", alt, cos[i], n);
            free(alt);
        }
        /* Z(g w^j) = g^n - 1 = -2 for every j. */
        uint64_t en = n;
        FN(pow)(&zg, &g, &en, 1);
        FN(set_one)(&t);
        FN(sub)(&zg, &zg, &t);
        FN(set_u64)(&t, 2);
        FN(neg)(&t, &t);
        TFN(assert_elem_eq)("Z on the coset", n, &zg, &t);
        FN(inv_var)(&t, &zg);
        T_ *h = TFN(alloc)(n);
        for (size_t j = 0; j < n; j++) {
            FN(mul)(&h[j], &cos[0][j], &cos[1][j]);
            FN(sub)(&h[j], &h[j], &cos[2][j]);
            FN(mul)(&h[j], &h[j], &t);
        }
        ASSERT_OK(NTT(coset_inverse)(&d, h, n, &g));
        ASSERT_MSG(FN(is_zero)(&h[n - 1]), "deg h = n - 1 at n = %zu", n);
        TFN(rand)(&x);
        TFN(horner)(&t, cf[0], n, &x);
        TFN(horner)(&u, cf[1], n, &x);
        FN(mul)(&t, &t, &u);
        TFN(horner)(&u, cf[2], n, &x);
        FN(sub)(&t, &t, &u); /* A B - C at x */
        FN(pow)(&v, &x, &en, 1);
        FN(set_one)(&u);
        FN(sub)(&v, &v, &u); /* Z(x) */
        TFN(horner)(&u, h, n, &x);
        FN(mul)(&u, &u, &v);
        TFN(assert_elem_eq)("A B - C = h Z", n, &t, &u);
        for (int i = 0; i < 3; i++) free(ev[i]), free(cf[i]), free(cos[i]);
        free(h);
        TFN(dom_free)(&d, mem);
    }
}

/* Arguments the layer must refuse, leaving the data untouched. */
static void TFN(refuse)(void) {
    const unsigned S = K(TWO_ADICITY);
    DOM_ d;
    OPT_ opt = {0};
    T_ w, zero, one, g;
    ASSERT_EQ_U64(NTT(domain_bytes)(S + 1), 0);
    ASSERT(NTT(domain_bytes)(S) > 0);
    size_t bytes = NTT(domain_bytes)(10);
    unsigned char *mem = malloc(bytes);
    ASSERT(mem != NULL);
    ASSERT_EQ_STATUS(NTT(domain_init)(&d, S + 1, mem, bytes), ZKPIPE_ERR_INVALID_ARGUMENT);
    ASSERT_EQ_STATUS(NTT(domain_init)(&d, 10, mem, bytes - 1), ZKPIPE_ERR_INVALID_ARGUMENT);
    ASSERT_EQ_STATUS(NTT(domain_init)(&d, 10, NULL, bytes), ZKPIPE_ERR_INVALID_ARGUMENT);
    ASSERT_EQ_STATUS(NTT(domain_init)(NULL, 10, mem, bytes), ZKPIPE_ERR_INVALID_ARGUMENT);
    /* Misaligned memory is fine: the size includes room to align. */
    ASSERT_OK(NTT(domain_init)(&d, 10, mem, bytes));
    NTT(domain_clear)(&d);
    unsigned char *mem2 = malloc(bytes + 1);
    ASSERT(mem2 != NULL);
    ASSERT_OK(NTT(domain_init)(&d, 10, mem2 + 1, bytes));
    NTT(domain_clear)(&d);
    free(mem2);
    opt.max_level_bits = ZKP_NTT_MAX_LOG + 1;
    ASSERT_EQ_U64(NTT(domain_bytes_opt)(10, &opt), 0);
    ASSERT_EQ_STATUS(NTT(domain_init_opt)(&d, 10, &opt, mem, bytes), ZKPIPE_ERR_INVALID_ARGUMENT);
    opt.max_level_bits = 0;
    opt.block_bits = ZKP_NTT_MAX_BLOCK_BITS + 1;
    ASSERT_EQ_STATUS(NTT(domain_init_opt)(&d, 10, &opt, mem, bytes), ZKPIPE_ERR_INVALID_ARGUMENT);
    opt.block_bits = 0;
    /* Roots that are not primitive 2^10-th roots, or not reduced. */
    ASSERT_OK(FN(root_of_unity)(&w, 9));
    opt.root = &w;
    ASSERT_EQ_STATUS(NTT(domain_init_opt)(&d, 10, &opt, mem, bytes), ZKPIPE_ERR_INVALID_ARGUMENT);
    ASSERT_OK(FN(root_of_unity)(&w, 11));
    ASSERT_EQ_STATUS(NTT(domain_init_opt)(&d, 10, &opt, mem, bytes), ZKPIPE_ERR_INVALID_ARGUMENT);
    FN(set_one)(&one);
    opt.root = &one;
    ASSERT_EQ_STATUS(NTT(domain_init_opt)(&d, 10, &opt, mem, bytes), ZKPIPE_ERR_INVALID_ARGUMENT);
    T_ p = {K(MODULUS)};
    opt.root = &p;
    ASSERT_EQ_STATUS(NTT(domain_init_opt)(&d, 10, &opt, mem, bytes), ZKPIPE_ERR_INVALID_ARGUMENT);
    ASSERT_EQ_STATUS(NTT(root_from_generator)(&w, &one, S + 1), ZKPIPE_ERR_INVALID_ARGUMENT);

    /* Transforms: wrong n, no array, zero or unreduced shift, a shift on
     * the bare permutation, an unknown kind, no threads, a cleared domain. */
    ASSERT_OK(NTT(domain_init)(&d, 10, mem, bytes));
    const size_t n = d.n;
    T_ *x = TFN(random_vec)(2 * n), *keep = TFN(copy)(x, 2 * n);
    FN(set_zero)(&zero);
    TFN(rand_nonzero)(&g);
    PLAN_ pl;
    ASSERT_EQ_STATUS(NTT(forward)(&d, x, n / 2), ZKPIPE_ERR_INVALID_ARGUMENT);
    ASSERT_EQ_STATUS(NTT(forward)(&d, x, 2 * n), ZKPIPE_ERR_INVALID_ARGUMENT);
    ASSERT_EQ_STATUS(NTT(inverse)(&d, x, 0), ZKPIPE_ERR_INVALID_ARGUMENT);
    ASSERT_EQ_STATUS(NTT(forward)(&d, NULL, n), ZKPIPE_ERR_INVALID_ARGUMENT);
    ASSERT_EQ_STATUS(NTT(coset_forward)(&d, x, n, &zero), ZKPIPE_ERR_INVALID_ARGUMENT);
    ASSERT_EQ_STATUS(NTT(coset_inverse)(&d, x, n, NULL), ZKPIPE_ERR_INVALID_ARGUMENT);
    ASSERT_EQ_STATUS(NTT(coset_forward)(&d, x, n, &p), ZKPIPE_ERR_INVALID_ARGUMENT);
    ASSERT_EQ_STATUS(NTT(transform)(&d, x, n, ZKP_NTT_BIT_REVERSE, &g, 1),
                     ZKPIPE_ERR_INVALID_ARGUMENT);
    ASSERT_EQ_STATUS(NTT(transform)(&d, x, n, ZKP_NTT_KIND_COUNT_, NULL, 1),
                     ZKPIPE_ERR_INVALID_ARGUMENT);
    ASSERT_EQ_STATUS(NTT(transform)(&d, x, n, ZKP_NTT_FORWARD, NULL, 0),
                     ZKPIPE_ERR_INVALID_ARGUMENT);
    ASSERT_EQ_STATUS(NTT(forward_mt)(&d, x, n, 0), ZKPIPE_ERR_INVALID_ARGUMENT);
    ASSERT_OK(NTT(plan_init)(&pl, &d, x, n, ZKP_NTT_FORWARD, NULL));
    ASSERT_EQ_STATUS(NTT(run_mt)(&pl, 0), ZKPIPE_ERR_INVALID_ARGUMENT);
    ASSERT_EQ_STATUS(NTT(bit_reverse)(x, 3), ZKPIPE_ERR_INVALID_ARGUMENT);
    ASSERT_EQ_STATUS(NTT(bit_reverse)(x, 0), ZKPIPE_ERR_INVALID_ARGUMENT);
    TFN(assert_vec_eq)("refused calls leave the data", x, keep, 2 * n);
    NTT(domain_clear)(&d);
    ASSERT_EQ_STATUS(NTT(forward)(&d, x, n), ZKPIPE_ERR_INVALID_ARGUMENT);
    free(x), free(keep), free(mem);
}

#undef T_
#undef FN
#undef NTT
#undef DOM_
#undef PLAN_
#undef OPT_
#undef K
#undef TFN
#undef F
#undef FK
#undef FGEN
