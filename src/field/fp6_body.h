/* Generic cubic extension Fp6 = Fp2[v]/(v^3 - xi): the out-of-line half.
 * Included once per curve, by that curve's Fp6 .c file, after the header
 * (which sets FP6_NAME, FP6_BASE, FP6_PRIME and FP6_PARAM). */
#define F6_T ZKP_CAT(FP6_NAME, _t)
#define F6_FN(op) ZKP_CAT(ZKP_CAT(FP6_NAME, _), op)
#define F2_T ZKP_CAT(FP6_BASE, _t)
#define F2_FN(op) ZKP_CAT(ZKP_CAT(FP6_BASE, _), op)
#define WFP2_T ZKP_CAT(FP6_NAME, _wfp2_t)
#define WFP6_T ZKP_CAT(FP6_NAME, _wfp6_t)

/* Karatsuba over three coefficients (Devegili, O hEigeartaigh, Scott, Dahab,
 * "Multiplication and squaring on pairing-friendly fields", ePrint 2006/471,
 * section 4): with t_i = a_i b_i,
 *   c0 = t0 + xi((a1 + a2)(b1 + b2) - t1 - t2)
 *   c1 = (a0 + a1)(b0 + b1) - t0 - t1 + xi t2
 *   c2 = (a0 + a2)(b0 + b2) - t0 - t2 + t1
 * six Fp2 products instead of nine, all left at double precision and
 * combined there (Aranha et al., algorithm 3 in spirit). The sums a_i + a_j
 * are reduced, since the Fp2 product of wfp2_mul_ adds components again. */
void F6_FN(wfp6_mul_)(WFP6_T *r, const F6_T *a, const F6_T *b) {
    WFP2_T t0, t1, t2, x;
    F2_T s, u;
    F6_FN(wfp2_mul_)(&t0, &a->c0, &b->c0);
    F6_FN(wfp2_mul_)(&t1, &a->c1, &b->c1);
    F6_FN(wfp2_mul_)(&t2, &a->c2, &b->c2);

    F2_FN(add)(&s, &a->c1, &a->c2);
    F2_FN(add)(&u, &b->c1, &b->c2);
    F6_FN(wfp2_mul_)(&x, &s, &u);
    F6_FN(wfp2_sub_)(&x, &x, &t1);
    F6_FN(wfp2_sub_)(&x, &x, &t2);
    F6_FN(wfp2_mul_xi_)(&x, &x);
    F6_FN(wfp2_add_)(&r->c0, &x, &t0);

    F2_FN(add)(&s, &a->c0, &a->c1);
    F2_FN(add)(&u, &b->c0, &b->c1);
    F6_FN(wfp2_mul_)(&x, &s, &u);
    F6_FN(wfp2_sub_)(&x, &x, &t0);
    F6_FN(wfp2_sub_)(&x, &x, &t1);
    F6_FN(wfp2_mul_xi_)(&r->c1, &t2);
    F6_FN(wfp2_add_)(&r->c1, &r->c1, &x);

    F2_FN(add)(&s, &a->c0, &a->c2);
    F2_FN(add)(&u, &b->c0, &b->c2);
    F6_FN(wfp2_mul_)(&x, &s, &u);
    F6_FN(wfp2_sub_)(&x, &x, &t0);
    F6_FN(wfp2_sub_)(&x, &x, &t2);
    F6_FN(wfp2_add_)(&r->c2, &x, &t1);
}

void F6_FN(mul)(F6_T *r, const F6_T *a, const F6_T *b) {
    WFP6_T t;
    F6_FN(wfp6_mul_)(&t, a, b);
    F6_FN(wfp6_redc_)(r, &t);
}

/* Chung-Hasan SQR2 (Chung and Hasan, "Asymmetric squaring formulae", ARITH
 * 2007; the Fp6 form is in Devegili et al., section 4): with
 *   s0 = a0^2, s1 = 2 a0 a1, s2 = (a0 - a1 + a2)^2, s3 = 2 a1 a2, s4 = a2^2,
 * the square is c0 = s0 + xi s3, c1 = s1 + xi s4, c2 = s1 + s2 + s3 - s0 - s4.
 * Two products and three squarings, against six products for mul. */
void F6_FN(wfp6_sqr_)(WFP6_T *r, const F6_T *a) {
    WFP2_T s0, s1, s2, s3, s4, t;
    F2_T d;
    F6_FN(wfp2_sqr_)(&s0, &a->c0);
    F6_FN(wfp2_mul_)(&s1, &a->c0, &a->c1);
    F6_FN(wfp2_add_)(&s1, &s1, &s1);
    F2_FN(sub)(&d, &a->c0, &a->c1);
    F2_FN(add)(&d, &d, &a->c2);
    F6_FN(wfp2_sqr_)(&s2, &d);
    F6_FN(wfp2_mul_)(&s3, &a->c1, &a->c2);
    F6_FN(wfp2_add_)(&s3, &s3, &s3);
    F6_FN(wfp2_sqr_)(&s4, &a->c2);

    F6_FN(wfp2_mul_xi_)(&t, &s3);
    F6_FN(wfp2_add_)(&r->c0, &s0, &t);
    F6_FN(wfp2_add_)(&s2, &s2, &s1);
    F6_FN(wfp2_add_)(&s2, &s2, &s3);
    F6_FN(wfp2_sub_)(&s2, &s2, &s0);
    F6_FN(wfp2_sub_)(&r->c2, &s2, &s4);
    F6_FN(wfp2_mul_xi_)(&t, &s4);
    F6_FN(wfp2_add_)(&r->c1, &s1, &t);
}

void F6_FN(sqr)(F6_T *r, const F6_T *a) {
    WFP6_T t;
    F6_FN(wfp6_sqr_)(&t, a);
    F6_FN(wfp6_redc_)(r, &t);
}

void F6_FN(wfp6_mul_fp2_)(WFP6_T *r, const F6_T *a, const F2_T *b) {
    F6_FN(wfp2_mul_)(&r->c0, &a->c0, b);
    F6_FN(wfp2_mul_)(&r->c1, &a->c1, b);
    F6_FN(wfp2_mul_)(&r->c2, &a->c2, b);
}

/* a·(b0 + b1 v), for the sparse line values of the Miller loop: the
 * Karatsuba formulas of mul with b2 = 0 need five Fp2 products:
 *   c0 = a0 b0 + xi a2 b1, c1 = (a0 + a1)(b0 + b1) - a0 b0 - a1 b1,
 *   c2 = (a0 + a2) b0 - a0 b0 + a1 b1. */
void F6_FN(wfp6_mul_by_01_)(WFP6_T *r, const F6_T *a, const F2_T *b0, const F2_T *b1) {
    WFP2_T t0, t1, x;
    F2_T s, u;
    F6_FN(wfp2_mul_)(&t0, &a->c0, b0);
    F6_FN(wfp2_mul_)(&t1, &a->c1, b1);

    F6_FN(wfp2_mul_)(&x, &a->c2, b1);
    F6_FN(wfp2_mul_xi_)(&x, &x);
    F6_FN(wfp2_add_)(&r->c0, &x, &t0);

    F2_FN(add)(&s, &a->c0, &a->c1);
    F2_FN(add)(&u, b0, b1);
    F6_FN(wfp2_mul_)(&x, &s, &u);
    F6_FN(wfp2_sub_)(&x, &x, &t0);
    F6_FN(wfp2_sub_)(&r->c1, &x, &t1);

    F2_FN(add)(&s, &a->c0, &a->c2);
    F6_FN(wfp2_mul_)(&x, &s, b0);
    F6_FN(wfp2_sub_)(&x, &x, &t0);
    F6_FN(wfp2_add_)(&r->c2, &x, &t1);
}

void F6_FN(mul_by_01)(F6_T *r, const F6_T *a, const F2_T *b0, const F2_T *b1) {
    WFP6_T t;
    F6_FN(wfp6_mul_by_01_)(&t, a, b0, b1);
    F6_FN(wfp6_redc_)(r, &t);
}

/* a·(b1 v) = xi a2 b1 + a0 b1 v + a1 b1 v^2: three Fp2 products. */
void F6_FN(wfp6_mul_by_1_)(WFP6_T *r, const F6_T *a, const F2_T *b1) {
    WFP2_T x;
    F6_FN(wfp2_mul_)(&x, &a->c2, b1);
    F6_FN(wfp2_mul_)(&r->c1, &a->c0, b1);
    F6_FN(wfp2_mul_)(&r->c2, &a->c1, b1);
    F6_FN(wfp2_mul_xi_)(&r->c0, &x);
}

void F6_FN(mul_by_1)(F6_T *r, const F6_T *a, const F2_T *b1) {
    WFP6_T t;
    F6_FN(wfp6_mul_by_1_)(&t, a, b1);
    F6_FN(wfp6_redc_)(r, &t);
}

/* The inverse through the norm to Fp2 (Scott, "Implementing cryptographic
 * pairings", Pairing 2007, section 3.2): with
 *   A = a0^2 - xi a1 a2, B = xi a2^2 - a0 a1, C = a1^2 - a0 a2,
 * a·(A + B v + C v^2) = N lies in Fp2, N = a0 A + xi (a2 B + a1 C), so
 * 1/a = (A + B v + C v^2)/N: one Fp2 inversion, which is one Fp inversion.
 * A zero a gives N = 0, whose inverse is 0, so 1/0 = 0 as for Fp. */
#define FP6_INV_BODY(fp2_inv)                 \
    F2_T A, B, C, t, n;                       \
    F2_FN(sqr)(&A, &a->c0);                   \
    F2_FN(mul)(&t, &a->c1, &a->c2);           \
    F6_FN(mul_xi)(&t, &t);                    \
    F2_FN(sub)(&A, &A, &t);                   \
    F2_FN(sqr)(&B, &a->c2);                   \
    F6_FN(mul_xi)(&B, &B);                    \
    F2_FN(mul)(&t, &a->c0, &a->c1);           \
    F2_FN(sub)(&B, &B, &t);                   \
    F2_FN(sqr)(&C, &a->c1);                   \
    F2_FN(mul)(&t, &a->c0, &a->c2);           \
    F2_FN(sub)(&C, &C, &t);                   \
    F2_FN(mul)(&n, &a->c2, &B);               \
    F2_FN(mul)(&t, &a->c1, &C);               \
    F2_FN(add)(&n, &n, &t);                   \
    F6_FN(mul_xi)(&n, &n);                    \
    F2_FN(mul)(&t, &a->c0, &A);               \
    F2_FN(add)(&n, &n, &t);                   \
    fp2_inv(&n, &n);                          \
    F2_FN(mul)(&r->c0, &A, &n);               \
    F2_FN(mul)(&r->c1, &B, &n);               \
    F2_FN(mul)(&r->c2, &C, &n);

void F6_FN(inv)(F6_T *r, const F6_T *a) { FP6_INV_BODY(F2_FN(inv)) }
void F6_FN(inv_var)(F6_T *r, const F6_T *a) { FP6_INV_BODY(F2_FN(inv_var)) }
#undef FP6_INV_BODY

/* (c0 + c1 v + c2 v^2)^(p^k) = c0^(p^k) + c1^(p^k) v^(p^k) + c2^(p^k) v^(2 p^k).
 * On Fp2 the p-power map is conjugation, so c^(p^k) is c for even k and its
 * conjugate for odd k; v = w^2 picks up xi^(2(p^k - 1)/6) and v^2 = w^4 picks
 * up xi^(4(p^k - 1)/6), entries 2 and 4 of the generated table. */
void F6_FN(frobenius)(F6_T *r, const F6_T *a, unsigned k) {
    static const F2_T gamma[3][5] = ZKP_CAT(FP6_PARAM, _TOWER_FROB);
    ZKP_VERIFY_CHECK(k >= 1 && k <= 3);
    F2_T c0 = a->c0, c1 = a->c1, c2 = a->c2;
    if (k & 1) {
        F2_FN(conj)(&c0, &c0);
        F2_FN(conj)(&c1, &c1);
        F2_FN(conj)(&c2, &c2);
    }
    r->c0 = c0;
    F2_FN(mul)(&r->c1, &c1, &gamma[k - 1][1]);
    F2_FN(mul)(&r->c2, &c2, &gamma[k - 1][3]);
}

/* Square and multiply over the bits of a public exponent; only the tests
 * need it, so it favours plainness over speed. */
void F6_FN(pow)(F6_T *r, const F6_T *a, const uint64_t *exp, size_t exp_limbs) {
    F6_T acc, base = *a;
    F6_FN(set_one)(&acc);
    for (size_t i = 0; i < 64 * exp_limbs; i++) {
        if ((exp[i / 64] >> (i % 64)) & 1) F6_FN(mul)(&acc, &acc, &base);
        F6_FN(sqr)(&base, &base);
    }
    *r = acc;
}

#undef F6_T
#undef F6_FN
#undef F2_T
#undef F2_FN
#undef WFP2_T
#undef WFP6_T
