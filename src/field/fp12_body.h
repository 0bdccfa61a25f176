/* Generic quadratic extension Fp12 = Fp6[w]/(w^2 - v): the out-of-line half.
 * Included once per curve, by that curve's Fp12 .c file, after the header
 * (which sets FP12_NAME, FP12_FP6, FP12_FP2 and FP12_PARAM). */
#define F12_T ZKP_CAT(FP12_NAME, _t)
#define F12_FN(op) ZKP_CAT(ZKP_CAT(FP12_NAME, _), op)
#define F6_T ZKP_CAT(FP12_FP6, _t)
#define F6_FN(op) ZKP_CAT(ZKP_CAT(FP12_FP6, _), op)
#define F2_T ZKP_CAT(FP12_FP2, _t)
#define F2_FN(op) ZKP_CAT(ZKP_CAT(FP12_FP2, _), op)
#define F12_K(k) ZKP_CAT(ZKP_CAT(FP12_PARAM, _TOWER_), k)
#define WFP2_T ZKP_CAT(FP12_FP6, _wfp2_t)
#define WFP6_T ZKP_CAT(FP12_FP6, _wfp6_t)

/* Karatsuba: (a0 + a1 w)(b0 + b1 w) = (a0 b0 + v a1 b1)
 *                                    + ((a0 + a1)(b0 + b1) - a0 b0 - a1 b1) w,
 * the three Fp6 products kept at double precision, so that the whole
 * product takes 12 Montgomery reductions. */
void F12_FN(mul)(F12_T *r, const F12_T *a, const F12_T *b) {
    WFP6_T t0, t1, x;
    F6_T s, u;
    F6_FN(wfp6_mul_)(&t0, &a->c0, &b->c0);
    F6_FN(wfp6_mul_)(&t1, &a->c1, &b->c1);
    F6_FN(add)(&s, &a->c0, &a->c1);
    F6_FN(add)(&u, &b->c0, &b->c1);
    F6_FN(wfp6_mul_)(&x, &s, &u);
    F6_FN(wfp6_sub_)(&x, &x, &t0);
    F6_FN(wfp6_sub_)(&x, &x, &t1);
    F6_FN(wfp6_redc_)(&r->c1, &x);
    F6_FN(wfp6_mul_by_nonresidue_)(&t1, &t1);
    F6_FN(wfp6_add_)(&t0, &t0, &t1);
    F6_FN(wfp6_redc_)(&r->c0, &t0);
}

/* Complex squaring: with t = a0 a1,
 * (a0 + a1 w)^2 = (a0 + a1)(a0 + v a1) - t - v t + 2 t w. */
void F12_FN(sqr)(F12_T *r, const F12_T *a) {
    WFP6_T t, x, vt;
    F6_T s, u;
    F6_FN(wfp6_mul_)(&t, &a->c0, &a->c1);
    F6_FN(add)(&s, &a->c0, &a->c1);
    F6_FN(mul_by_nonresidue)(&u, &a->c1);
    F6_FN(add)(&u, &u, &a->c0);
    F6_FN(wfp6_mul_)(&x, &s, &u);
    F6_FN(wfp6_sub_)(&x, &x, &t);
    F6_FN(wfp6_mul_by_nonresidue_)(&vt, &t);
    F6_FN(wfp6_sub_)(&x, &x, &vt);
    F6_FN(wfp6_redc_)(&r->c0, &x);
    F6_FN(wfp6_add_)(&t, &t, &t);
    F6_FN(wfp6_redc_)(&r->c1, &t);
}

/* 1/(a0 + a1 w) = (a0 - a1 w)/(a0^2 - v a1^2), the denominator in Fp6. */
#define FP12_INV_BODY(fp6_inv)              \
    F6_T t0, t1;                            \
    F6_FN(sqr)(&t0, &a->c0);                \
    F6_FN(sqr)(&t1, &a->c1);                \
    F6_FN(mul_by_nonresidue)(&t1, &t1);     \
    F6_FN(sub)(&t0, &t0, &t1);              \
    fp6_inv(&t0, &t0);                      \
    F6_FN(mul)(&r->c0, &a->c0, &t0);        \
    F6_FN(mul)(&t1, &a->c1, &t0);           \
    F6_FN(neg)(&r->c1, &t1);

void F12_FN(inv)(F12_T *r, const F12_T *a) { FP12_INV_BODY(F6_FN(inv)) }
void F12_FN(inv_var)(F12_T *r, const F12_T *a) { FP12_INV_BODY(F6_FN(inv_var)) }
#undef FP12_INV_BODY

/* The coefficient e_i of w^i goes to e_i^(p^k) xi^(i (p^k - 1)/6) w^i, since
 * w^(p^k) = w·w^(p^k - 1) = w·xi^((p^k - 1)/6); on Fp2 the p-power map is
 * conjugation. gamma[k-1][i-1] is the generated xi^(i (p^k - 1)/6). */
void F12_FN(frobenius)(F12_T *r, const F12_T *a, unsigned k) {
    static const F2_T gamma[3][5] = F12_K(FROB);
    ZKP_VERIFY_CHECK(k >= 1 && k <= 3);
    F12_T t = *a;
    if (k & 1) {
        F2_FN(conj)(&t.c0.c0, &t.c0.c0);
        F2_FN(conj)(&t.c0.c1, &t.c0.c1);
        F2_FN(conj)(&t.c0.c2, &t.c0.c2);
        F2_FN(conj)(&t.c1.c0, &t.c1.c0);
        F2_FN(conj)(&t.c1.c1, &t.c1.c1);
        F2_FN(conj)(&t.c1.c2, &t.c1.c2);
    }
    const F2_T *g = gamma[k - 1];
    r->c0.c0 = t.c0.c0;
    F2_FN(mul)(&r->c0.c1, &t.c0.c1, &g[1]); /* w^2 */
    F2_FN(mul)(&r->c0.c2, &t.c0.c2, &g[3]); /* w^4 */
    F2_FN(mul)(&r->c1.c0, &t.c1.c0, &g[0]); /* w^1 */
    F2_FN(mul)(&r->c1.c1, &t.c1.c1, &g[2]); /* w^3 */
    F2_FN(mul)(&r->c1.c2, &t.c1.c2, &g[4]); /* w^5 */
}

/* The line value of a D-type twist, c0 + (c3 + c4 v) w, against a full a:
 * with l0 = c0 and l1 = c3 + c4 v, Karatsuba over w needs a0 l0 (3 Fp2
 * products), a1 l1 and (a0 + a1)(l0 + l1) (5 each, mul_by_01): 13 Fp2
 * products instead of the 18 of a full product. */
void F12_FN(mul_by_034)(F12_T *r, const F12_T *a, const F2_T *c0, const F2_T *c3, const F2_T *c4) {
    WFP6_T t0, t1, x;
    F6_T s;
    F2_T l0;
    F6_FN(wfp6_mul_fp2_)(&t0, &a->c0, c0);
    F6_FN(wfp6_mul_by_01_)(&t1, &a->c1, c3, c4);
    F6_FN(add)(&s, &a->c0, &a->c1);
    F2_FN(add)(&l0, c0, c3);
    F6_FN(wfp6_mul_by_01_)(&x, &s, &l0, c4);
    F6_FN(wfp6_sub_)(&x, &x, &t0);
    F6_FN(wfp6_sub_)(&x, &x, &t1);
    F6_FN(wfp6_redc_)(&r->c1, &x);
    F6_FN(wfp6_mul_by_nonresidue_)(&t1, &t1);
    F6_FN(wfp6_add_)(&t0, &t0, &t1);
    F6_FN(wfp6_redc_)(&r->c0, &t0);
}

/* The line value of an M-type twist, (c0 + c1 v) + (c4 v) w: with
 * l0 = c0 + c1 v and l1 = c4 v, a0 l0 and (a0 + a1)(l0 + l1) take 5 Fp2
 * products each and a1 l1 takes 3, again 13 in all. */
void F12_FN(mul_by_014)(F12_T *r, const F12_T *a, const F2_T *c0, const F2_T *c1, const F2_T *c4) {
    WFP6_T t0, t1, x;
    F6_T s;
    F2_T l1;
    F6_FN(wfp6_mul_by_01_)(&t0, &a->c0, c0, c1);
    F6_FN(wfp6_mul_by_1_)(&t1, &a->c1, c4);
    F6_FN(add)(&s, &a->c0, &a->c1);
    F2_FN(add)(&l1, c1, c4);
    F6_FN(wfp6_mul_by_01_)(&x, &s, c0, &l1);
    F6_FN(wfp6_sub_)(&x, &x, &t0);
    F6_FN(wfp6_sub_)(&x, &x, &t1);
    F6_FN(wfp6_redc_)(&r->c1, &x);
    F6_FN(wfp6_mul_by_nonresidue_)(&t1, &t1);
    F6_FN(wfp6_add_)(&t0, &t0, &t1);
    F6_FN(wfp6_redc_)(&r->c0, &t0);
}

/* (a + b s)^2 in Fp4 = Fp2[s]/(s^2 - xi): (a^2 + xi b^2) + 2ab s, with the
 * cross term as (a + b)^2 - a^2 - b^2: three Fp2 squarings at double
 * precision and two reductions per output. */
static inline void F12_FN(fp4_sqr_)(F2_T *r0, F2_T *r1, const F2_T *a, const F2_T *b) {
    WFP2_T a2, b2, x;
    F2_T s;
    F6_FN(wfp2_sqr_)(&a2, a);
    F6_FN(wfp2_sqr_)(&b2, b);
    F2_FN(add)(&s, a, b);
    F6_FN(wfp2_sqr_)(&x, &s);
    F6_FN(wfp2_sub_)(&x, &x, &a2);
    F6_FN(wfp2_sub_)(&x, &x, &b2);
    F6_FN(wfp2_redc_)(r1, &x);
    F6_FN(wfp2_mul_xi_)(&b2, &b2);
    F6_FN(wfp2_add_)(&a2, &a2, &b2);
    F6_FN(wfp2_redc_)(r0, &a2);
}

/* Granger and Scott, "Faster squaring in the cyclotomic subgroup of sixth
 * degree extensions" (PKC 2010), section 3.2. Write Fp12 = Fp4[t]/(t^3 - s)
 * with t = w and s = w^3, so that a = A + B t + C t^2 with
 *   A = e0 + e3 s, B = e1 + e4 s, C = e2 + e5 s   (e_i the coefficient of w^i).
 * For a in the cyclotomic subgroup the conjugate over Fp4 is the inverse,
 * and the square collapses to
 *   A' = 3A^2 - 2 conj(A), B' = 3 s C^2 + 2 conj(B), C' = 3B^2 - 2 conj(C),
 * where conj(x + y s) = x - y s: three Fp4 squarings, 9 Fp2 squarings in all,
 * against 12 Fp2 products for sqr. */
void F12_FN(cyclotomic_sqr)(F12_T *r, const F12_T *a) {
    F2_T t0, t1, t2, t3, t4, t5, u;
    F12_FN(fp4_sqr_)(&t0, &t1, &a->c0.c0, &a->c1.c1); /* A^2 */
    F12_FN(fp4_sqr_)(&t2, &t3, &a->c1.c0, &a->c0.c2); /* B^2 */
    F12_FN(fp4_sqr_)(&t4, &t5, &a->c0.c1, &a->c1.c2); /* C^2 */

    /* Each new coefficient is 3t -/+ 2e = 2(t -/+ e) + t. */
#define GS_MINUS(out, t, e)          \
    do {                             \
        F2_FN(sub)(&u, t, e);        \
        F2_FN(dbl)(&u, &u);          \
        F2_FN(add)(out, &u, t);      \
    } while (0)
#define GS_PLUS(out, t, e)           \
    do {                             \
        F2_FN(add)(&u, t, e);        \
        F2_FN(dbl)(&u, &u);          \
        F2_FN(add)(out, &u, t);      \
    } while (0)
    GS_MINUS(&r->c0.c0, &t0, &a->c0.c0); /* e0 */
    GS_PLUS(&r->c1.c1, &t1, &a->c1.c1);  /* e3 */
    F6_FN(mul_xi)(&t5, &t5);             /* s C^2 = xi c1 + c0 s */
    GS_PLUS(&r->c1.c0, &t5, &a->c1.c0);  /* e1 */
    GS_MINUS(&r->c0.c2, &t4, &a->c0.c2); /* e4 */
    GS_MINUS(&r->c0.c1, &t2, &a->c0.c1); /* e2 */
    GS_PLUS(&r->c1.c2, &t3, &a->c1.c2);  /* e5 */
#undef GS_MINUS
#undef GS_PLUS
}

/* Left-to-right signed-window exponentiation. The table holds the odd
 * powers a, a^3, ..., a^(2m-1) up to the largest digit; negative digits use
 * the conjugate, which is the inverse on the cyclotomic subgroup. Digits
 * are public (they encode fixed curve constants), so branching on them
 * leaks nothing about a. */
void F12_FN(cyclotomic_pow_digits)(F12_T *r, const F12_T *a, const int8_t *d, size_t n) {
    F12_T table[8], acc, t;
    int max = 1;
    ZKP_VERIFY_CHECK(n > 0 && d[0] != 0);
    for (size_t i = 0; i < n; i++) {
        int m = d[i] < 0 ? -d[i] : d[i];
        ZKP_VERIFY_CHECK(m <= 15 && (m == 0 || (m & 1)));
        if (m > max) max = m;
    }
    table[0] = *a;
    if (max > 1) {
        F12_FN(cyclotomic_sqr)(&t, a);
        for (int j = 1; 2 * j + 1 <= max; j++) F12_FN(mul)(&table[j], &table[j - 1], &t);
    }
#define DIGIT_POWER(out, digit)                                        \
    do {                                                               \
        int m_ = (digit) < 0 ? -(digit) : (digit);                     \
        if ((digit) < 0)                                               \
            F12_FN(conj)(out, &table[(m_ - 1) / 2]);                   \
        else                                                           \
            *(out) = table[(m_ - 1) / 2];                              \
    } while (0)
    DIGIT_POWER(&acc, d[0]);
    for (size_t i = 1; i < n; i++) {
        F12_FN(cyclotomic_sqr)(&acc, &acc);
        if (d[i] != 0) {
            DIGIT_POWER(&t, d[i]);
            F12_FN(mul)(&acc, &acc, &t);
        }
    }
#undef DIGIT_POWER
    *r = acc;
}

/* a^x for the curve seed x: the generated signed-window digits of |x| (the
 * generator picks the window width with the fewest products: the NAF for
 * the sparse BLS12-381 seed, width 4 for the denser BN254 one) and, for
 * x < 0, one conjugation. */
void F12_FN(cyclotomic_exp_x)(F12_T *r, const F12_T *a) {
    static const int8_t x_digits[F12_K(X_DIGITS_LEN)] = F12_K(X_DIGITS);
    F12_FN(cyclotomic_pow_digits)(r, a, x_digits, F12_K(X_DIGITS_LEN));
    if (F12_K(X_NEG)) F12_FN(conj)(r, r);
}

/* Square and multiply over the bits of a public exponent, for any a; the
 * tests use it as the slow reference for the Frobenius and the final
 * exponentiation. */
void F12_FN(pow)(F12_T *r, const F12_T *a, const uint64_t *exp, size_t exp_limbs) {
    F12_T acc, base = *a;
    F12_FN(set_one)(&acc);
    for (size_t i = 0; i < 64 * exp_limbs; i++) {
        if ((exp[i / 64] >> (i % 64)) & 1) F12_FN(mul)(&acc, &acc, &base);
        F12_FN(sqr)(&base, &base);
    }
    *r = acc;
}

#undef F12_T
#undef F12_FN
#undef F6_T
#undef F6_FN
#undef F2_T
#undef F2_FN
#undef F12_K
#undef WFP2_T
#undef WFP6_T
