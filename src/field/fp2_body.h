/* Generic quadratic extension: the out-of-line half (see fp2_impl.h). */
#define F2_T ZKP_CAT(FP2_NAME, _t)
#define F2_FN(op) ZKP_CAT(ZKP_CAT(FP2_NAME, _), op)
#define B_T ZKP_CAT(FP2_BASE, _t)
#define B_FN(op) ZKP_CAT(ZKP_CAT(FP2_BASE, _), op)
#define B_K(k) ZKP_CAT(ZKP_CAT(FP2_BASE_PARAM, _), k)

/* 1/(a0 + a1 u) = (a0 - a1 u) / (a0^2 + a1^2): one base-field inversion. */
#define FP2_INV_BODY(base_inv)            \
    B_T n0, n1;                           \
    B_FN(sqr)(&n0, &a->c0);               \
    B_FN(sqr)(&n1, &a->c1);               \
    B_FN(add)(&n0, &n0, &n1);             \
    base_inv(&n0, &n0);                   \
    B_FN(mul)(&r->c0, &a->c0, &n0);       \
    B_FN(mul)(&n1, &a->c1, &n0);          \
    B_FN(neg)(&r->c1, &n1);

void F2_FN(inv)(F2_T *r, const F2_T *a) { FP2_INV_BODY(B_FN(inv)) }
void F2_FN(inv_var)(F2_T *r, const F2_T *a) { FP2_INV_BODY(B_FN(inv_var)) }
#undef FP2_INV_BODY

void F2_FN(batch_inv_var)(F2_T *out, const F2_T *in, size_t n) {
    F2_T acc;
    F2_FN(set_one)(&acc);
    for (size_t i = 0; i < n; i++) {
        out[i] = acc;
        if (!F2_FN(is_zero)(&in[i])) F2_FN(mul)(&acc, &acc, &in[i]);
    }
    F2_FN(inv_var)(&acc, &acc);
    for (size_t i = n; i-- > 0;) {
        if (F2_FN(is_zero)(&in[i])) {
            F2_FN(set_zero)(&out[i]);
            continue;
        }
        F2_FN(mul)(&out[i], &out[i], &acc);
        F2_FN(mul)(&acc, &acc, &in[i]);
    }
}

void F2_FN(pow)(F2_T *r, const F2_T *a, const uint64_t *exp, size_t exp_limbs) {
    F2_T acc, base = *a;
    F2_FN(set_one)(&acc);
    for (size_t i = 0; i < 64 * exp_limbs; i++) {
        F2_T t;
        F2_FN(mul)(&t, &acc, &base);
        F2_FN(cmov)(&acc, &t, (int)((exp[i / 64] >> (i % 64)) & 1));
        F2_FN(sqr)(&base, &base);
    }
    *r = acc;
}

/* An element of F2 is a square exactly when its norm a0^2 + a1^2 is a
 * square in F. */
int F2_FN(legendre_var)(const F2_T *a) {
    B_T n0, n1;
    B_FN(sqr)(&n0, &a->c0);
    B_FN(sqr)(&n1, &a->c1);
    B_FN(add)(&n0, &n0, &n1);
    return B_FN(legendre_var)(&n0);
}

/* Square root for p = 3 mod 4 (Adj and Rodriguez-Henriquez, "Square root
 * computation over even extension fields", algorithm 9). With
 * a1 = a^((p-3)/4), alpha = a1^2 a = a^((p-1)/2) and x0 = a1 a: if alpha = -1
 * the root is u·x0, otherwise it is (1 + alpha)^((p-1)/2) x0. The result is
 * checked by squaring, which also rejects non-squares. */
int F2_FN(sqrt_var)(F2_T *r, const F2_T *a) {
    static const uint64_t e1[B_K(LIMBS)] = B_K(P_MINUS_3_DIV_4);
    static const uint64_t e2[B_K(LIMBS)] = B_K(P_MINUS_1_HALF);
    F2_T a1, alpha, x0, x, one, minus_one, check;
    if (F2_FN(is_zero)(a)) {
        F2_FN(set_zero)(r);
        return 1;
    }
    F2_FN(set_one)(&one);
    F2_FN(neg)(&minus_one, &one);
    F2_FN(pow)(&a1, a, e1, B_K(LIMBS));
    F2_FN(sqr)(&alpha, &a1);
    F2_FN(mul)(&alpha, &alpha, a);
    F2_FN(mul)(&x0, &a1, a);
    if (F2_FN(eq)(&alpha, &minus_one)) {
        /* u·(c0 + c1 u) = -c1 + c0 u */
        B_FN(neg)(&x.c0, &x0.c1);
        x.c1 = x0.c0;
    } else {
        F2_T b;
        F2_FN(add)(&b, &alpha, &one);
        F2_FN(pow)(&b, &b, e2, B_K(LIMBS));
        F2_FN(mul)(&x, &b, &x0);
    }
    F2_FN(sqr)(&check, &x);
    if (!F2_FN(eq)(&check, a)) return 0;
    *r = x;
    return 1;
}

zkpipe_status F2_FN(random)(F2_T *r) {
    zkpipe_status st = B_FN(random)(&r->c0);
    if (st != ZKPIPE_OK) return st;
    return B_FN(random)(&r->c1);
}

#undef F2_T
#undef F2_FN
#undef B_T
#undef B_FN
#undef B_K
