/* The batch-affine bucket additions of msm_body.h, eight at a time with
 * AVX-512 IFMA. Included once per group by msm_ifma.c, with MSM_G (the
 * group), MSM_FIELD (its coordinate field) and MSM_VEC (that field's
 * eight-lane form, already instantiated from field/fp8_ifma_body.h or
 * field/fp2x8_ifma_body.h, which share their names) set.
 *
 * Addition j of the k goes to lane j mod 8 of row j / 8. Each lane runs its
 * own chain of Montgomery's trick over its rows, so a row is one vector
 * step; the eight lane products are inverted together on the scalar side
 * (one inversion). The last row is padded with additions to a dummy point
 * whose x difference is one. */
#define MSMI_AFF ZKP_CAT(MSM_G, _affine_t)
#define MSMI_F ZKP_CAT(MSM_FIELD, _t)
#define MSMI_FF(op) ZKP_CAT(ZKP_CAT(MSM_FIELD, _), op)
#define MSMI_V ZKP_CAT(MSM_VEC, _t)
#define MSMI_V_FN(op) ZKP_CAT(ZKP_CAT(MSM_VEC, _), op)

void ZKP_CAT(MSM_G, _msm_ifma_batch_add)(MSMI_AFF *const *dst, const MSMI_AFF *const *src, const MSMI_F *den,
                                         size_t k) {
    enum { ROWS = ZKP_MSM_BATCH / 8 };
    if (k == 0 || k > ZKP_MSM_BATCH) return;
    ZKP_CAT(MSM_VEC, _ctx) c;
    MSMI_V_FN(ctx_init)(&c);
    size_t rows = (k + 7) / 8;
    /* The prefix products stay here, 32 KiB at most (Fp2 of BLS12-381); the
     * x differences are gathered again on the way back rather than kept. */
    MSMI_V pre[ROWS], d;

    /* The last row's pointers and x differences, padded. */
    MSMI_AFF dummy;
    MSMI_F one, pden[8];
    MSMI_FF(set_one)(&one);
    dummy.x = dummy.y = one;
    const void *pdst[8], *psrc[8];
    for (size_t l = 0; l < 8; l++) {
        size_t j = 8 * (rows - 1) + l;
        pdst[l] = j < k ? (const void *)dst[j] : (const void *)&dummy;
        psrc[l] = j < k ? (const void *)src[j] : (const void *)&dummy;
        pden[l] = j < k ? den[j] : one;
    }
    const long long fs = (long long)sizeof(MSMI_F);
#define MSMI_ROW_DEN_(q) zkp_ifma_lanes((q) + 1 < rows ? den + 8 * (q) : pden, fs)
#define MSMI_ROW_PTRS_(arr, parr, q) \
    _mm512_loadu_si512((q) + 1 < rows ? (const void *)((arr) + 8 * (q)) : (const void *)(parr))

    /* pre[q] = d[0] d[1] ... d[q], lane by lane. */
    MSMI_V_FN(gather)(&pre[0], MSMI_ROW_DEN_(0), &c);
    for (size_t q = 1; q < rows; q++) {
        MSMI_V_FN(gather)(&d, MSMI_ROW_DEN_(q), &c);
        MSMI_V_FN(mul)(&pre[q], &pre[q - 1], &d, &c);
    }
    MSMI_F tot[8], tinv[8];
    MSMI_V_FN(scatter)(zkp_ifma_lanes(tot, fs), &pre[rows - 1], &c);
    MSMI_FF(batch_inv_var)(tinv, tot, 8);
    MSMI_V inv, dinv, lam, t, u;
    MSMI_V_FN(gather)(&inv, zkp_ifma_lanes(tinv, fs), &c);

    const __m512i yoff = _mm512_set1_epi64((long long)sizeof(MSMI_F));
    for (size_t q = rows; q-- > 0;) {
        /* inv = 1 / (d[0] ... d[q]) per lane here. */
        if (q > 0) {
            MSMI_V_FN(mul)(&dinv, &inv, &pre[q - 1], &c);
            MSMI_V_FN(gather)(&d, MSMI_ROW_DEN_(q), &c);
            MSMI_V_FN(mul)(&inv, &inv, &d, &c);
        } else {
            dinv = inv;
        }
        __m512i bp = MSMI_ROW_PTRS_(dst, pdst, q), pp = MSMI_ROW_PTRS_(src, psrc, q);
        MSMI_V bx, by, px, py;
        MSMI_V_FN(gather)(&bx, bp, &c);
        MSMI_V_FN(gather)(&by, _mm512_add_epi64(bp, yoff), &c);
        MSMI_V_FN(gather)(&px, pp, &c);
        MSMI_V_FN(gather)(&py, _mm512_add_epi64(pp, yoff), &c);
        /* lambda = (y2 - y1) / (x2 - x1), x3 = lambda^2 - x1 - x2,
         * y3 = lambda (x1 - x3) - y1 */
        MSMI_V_FN(sub)(&lam, &py, &by, &c);
        MSMI_V_FN(mul)(&lam, &lam, &dinv, &c);
        MSMI_V_FN(sqr)(&t, &lam, &c);
        MSMI_V_FN(sub)(&t, &t, &bx, &c);
        MSMI_V_FN(sub)(&t, &t, &px, &c);
        MSMI_V_FN(sub)(&u, &bx, &t, &c);
        MSMI_V_FN(mul)(&u, &u, &lam, &c);
        MSMI_V_FN(sub)(&u, &u, &by, &c);
        MSMI_V_FN(scatter)(bp, &t, &c);
        MSMI_V_FN(scatter)(_mm512_add_epi64(bp, yoff), &u, &c);
    }
#undef MSMI_ROW_DEN_
#undef MSMI_ROW_PTRS_
}

#undef MSMI_AFF
#undef MSMI_F
#undef MSMI_FF
#undef MSMI_V
#undef MSMI_V_FN
