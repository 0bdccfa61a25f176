/* The NTT's radix-4 stages with AVX-512 IFMA: see ntt_ifma.h. Included once
 * per field by ntt_ifma.c, with NTT_FIELD (the scalar field) and NTT_VEC
 * (its eight-lane form from field/fp8_ifma_body.h) set. The butterflies are
 * ntt_body.h's dif4_ and dit4_, lane by lane. */
#define NI_T ZKP_CAT(NTT_FIELD, _t)
#define NI_V ZKP_CAT(NTT_VEC, _t)
#define NI_VF(op) ZKP_CAT(ZKP_CAT(NTT_VEC, _), op)
#define NI_CTX ZKP_CAT(NTT_VEC, _ctx)

/* dif4_ or dit4_ of ntt_body.h on the eight lanes of x0..x3. */
static inline void ZKP_CAT(NTT_FIELD, _ntt_ifma_bfly_)(NI_V *x0, NI_V *x1, NI_V *x2, NI_V *x3, const NI_V *w1,
                                                      const NI_V *w2, const NI_V *w3, int dit, const NI_CTX *c) {
    NI_V u0, u1, u2, u3;
    if (!dit) {
        NI_VF(add)(&u0, x0, x2, c);
        NI_VF(sub)(&u2, x0, x2, c);
        NI_VF(mul)(&u2, &u2, w1, c);
        NI_VF(add)(&u1, x1, x3, c);
        NI_VF(sub)(&u3, x1, x3, c);
        NI_VF(mul)(&u3, &u3, w2, c);
        NI_VF(add)(x0, &u0, &u1, c);
        NI_VF(sub)(x1, &u0, &u1, c);
        NI_VF(mul)(x1, x1, w3, c);
        NI_VF(add)(x2, &u2, &u3, c);
        NI_VF(sub)(x3, &u2, &u3, c);
        NI_VF(mul)(x3, x3, w3, c);
    } else {
        NI_VF(mul)(&u1, x1, w3, c);
        NI_VF(add)(&u0, x0, &u1, c);
        NI_VF(sub)(&u1, x0, &u1, c);
        NI_VF(mul)(&u3, x3, w3, c);
        NI_VF(add)(&u2, x2, &u3, c);
        NI_VF(sub)(&u3, x2, &u3, c);
        NI_VF(mul)(&u2, &u2, w1, c);
        NI_VF(add)(x0, &u0, &u2, c);
        NI_VF(sub)(x2, &u0, &u2, c);
        NI_VF(mul)(&u3, &u3, w2, c);
        NI_VF(add)(x1, &u1, &u3, c);
        NI_VF(sub)(x3, &u1, &u3, c);
    }
}

/* The butterflies of the eight adjacent elements at each of r0..r3
 * (rows span elements apart). */
static inline void ZKP_CAT(NTT_FIELD, _ntt_ifma_bfly_seq_)(NI_T *r0, size_t span, const NI_V *w1, const NI_V *w2,
                                                          const NI_V *w3, int dit, const NI_CTX *c) {
    NI_V x0, x1, x2, x3;
    NI_VF(load_seq)(&x0, r0, c);
    NI_VF(load_seq)(&x1, r0 + span, c);
    NI_VF(load_seq)(&x2, r0 + 2 * span, c);
    NI_VF(load_seq)(&x3, r0 + 3 * span, c);
    ZKP_CAT(NTT_FIELD, _ntt_ifma_bfly_)(&x0, &x1, &x2, &x3, w1, w2, w3, dit, c);
    NI_VF(store_seq)(r0, &x0, c);
    NI_VF(store_seq)(r0 + span, &x1, c);
    NI_VF(store_seq)(r0 + 2 * span, &x2, c);
    NI_VF(store_seq)(r0 + 3 * span, &x3, c);
}

/* The same for lanes whose elements lie at the byte addresses in a0 (row 0)
 * and span bytes further per row. */
static inline void ZKP_CAT(NTT_FIELD, _ntt_ifma_bfly_at_)(__m512i a0, __m512i span, const NI_V *w1,
                                                         const NI_V *w2, const NI_V *w3, int dit,
                                                         const NI_CTX *c) {
    __m512i a1 = _mm512_add_epi64(a0, span), a2 = _mm512_add_epi64(a1, span), a3 = _mm512_add_epi64(a2, span);
    NI_V x0, x1, x2, x3;
    NI_VF(gather)(&x0, a0, c);
    NI_VF(gather)(&x1, a1, c);
    NI_VF(gather)(&x2, a2, c);
    NI_VF(gather)(&x3, a3, c);
    ZKP_CAT(NTT_FIELD, _ntt_ifma_bfly_)(&x0, &x1, &x2, &x3, w1, w2, w3, dit, c);
    NI_VF(scatter)(a0, &x0, c);
    NI_VF(scatter)(a1, &x1, c);
    NI_VF(scatter)(a2, &x2, c);
    NI_VF(scatter)(a3, &x3, c);
}

int ZKP_CAT(NTT_FIELD, _ntt_ifma_stage)(NI_T *x, size_t S, size_t ncols, size_t len, size_t q, const NI_T *tw,
                                        int dit) {
    const long long es = (long long)sizeof(NI_T);
    NI_CTX c;
    NI_VF(ctx_init)(&c);
    /* The twiddles at p = 0 are 1, w4 and 1 (the table holds them), so
     * the general butterfly serves there too. */
    if (ncols % 8 == 0) {
        /* Lane l: column c + l, adjacent in memory; the twiddles are the
         * same in every lane. */
        for (size_t b = 0; b < len; b += 4 * q)
            for (size_t p = 0; p < q; p++) {
                NI_V w1, w2, w3;
                NI_VF(set1)(&w1, &tw[2 * q + p]);
                NI_VF(set1)(&w2, &tw[3 * q + p]);
                NI_VF(set1)(&w3, &tw[q + p]);
                NI_T *r0 = x + (b + p) * S;
                for (size_t col = 0; col < ncols; col += 8)
                    ZKP_CAT(NTT_FIELD, _ntt_ifma_bfly_seq_)(r0 + col, q * S, &w1, &w2, &w3, dit, &c);
            }
        return 1;
    }
    if (q % 8 == 0) {
        /* Lane l: position p + l, rows S apart (adjacent when S = 1); the
         * twiddles are adjacent. */
        const __m512i span = _mm512_set1_epi64((long long)(q * S) * es);
        for (size_t b = 0; b < len; b += 4 * q)
            for (size_t p = 0; p < q; p += 8) {
                NI_V w1, w2, w3;
                NI_VF(load_seq)(&w1, &tw[2 * q + p], &c);
                NI_VF(load_seq)(&w2, &tw[3 * q + p], &c);
                NI_VF(load_seq)(&w3, &tw[q + p], &c);
                for (size_t col = 0; col < ncols; col++) {
                    NI_T *r0 = x + (b + p) * S + col;
                    if (S == 1)
                        ZKP_CAT(NTT_FIELD, _ntt_ifma_bfly_seq_)(r0, q, &w1, &w2, &w3, dit, &c);
                    else
                        ZKP_CAT(NTT_FIELD, _ntt_ifma_bfly_at_)(zkp_ifma_lanes(r0, (long long)S * es), span,
                                                               &w1, &w2, &w3, dit, &c);
                }
            }
        return 1;
    }
    return 0;
}

int ZKP_CAT(NTT_FIELD, _ntt_ifma_twiddle)(NI_T *x, unsigned d, size_t S, size_t ncols, size_t c0, unsigned top,
                                          int inverse, uint64_t n, const NI_T *lo, const NI_T *hi,
                                          unsigned split_bits) {
    if (ncols % 8 != 0) return 0;
    _Static_assert((sizeof(NI_T) & (sizeof(NI_T) - 1)) == 0, "element size a power of two");
    const unsigned es_log = (unsigned)__builtin_ctzll(sizeof(NI_T));
    const __m512i nv = _mm512_set1_epi64((long long)n), nmask = _mm512_set1_epi64((long long)(n - 1));
    const __m512i lmask = _mm512_set1_epi64((long long)(((uint64_t)1 << split_bits) - 1));
    const __m512i lo_base = _mm512_set1_epi64((long long)(uintptr_t)lo);
    const __m512i hi_base = _mm512_set1_epi64((long long)(uintptr_t)hi);
    NI_CTX c;
    NI_VF(ctx_init)(&c);
    const size_t rows = (size_t)1 << d;
    for (size_t r = 0; r < rows; r++) {
        const uint64_t k = zkp_ntt_bitrev(r, d);
        /* Exponents of eight adjacent columns: e, e + s, ..., e + 7 s. */
        const long long s = (long long)(k << top);
        const __m512i step = zkp_ifma_steps(s);
        NI_T *row = x + r * S;
        for (size_t col = 0; col < ncols; col += 8) {
            __m512i e = _mm512_add_epi64(_mm512_set1_epi64((long long)(((c0 + col) * k) << top)), step);
            if (inverse) e = _mm512_and_si512(_mm512_sub_epi64(nv, e), nmask);
            __m512i eh = _mm512_srli_epi64(e, split_bits), el = _mm512_and_si512(e, lmask);
            NI_V fh, fl, v;
            NI_VF(gather)(&fh, _mm512_add_epi64(hi_base, _mm512_slli_epi64(eh, es_log)), &c);
            NI_VF(gather)(&fl, _mm512_add_epi64(lo_base, _mm512_slli_epi64(el, es_log)), &c);
            NI_VF(mul)(&fh, &fh, &fl, &c);
            NI_VF(load_seq)(&v, row + col, &c);
            NI_VF(mul)(&v, &v, &fh, &c);
            NI_VF(store_seq)(row + col, &v, &c);
        }
    }
    return 1;
}

#undef NI_T
#undef NI_V
#undef NI_VF
#undef NI_CTX
