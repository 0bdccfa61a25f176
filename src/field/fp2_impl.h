/* Generic quadratic extension F[u]/(u^2 + 1) over a prime field F with
 * p = 3 mod 4 (so -1 is a non-residue): the inline half. Both BN254 and
 * BLS12-381 build their Fp2 this way. Instantiated by the tower header with
 *
 *     #define FP2_NAME bn254_fq2   (prefix of the type and functions)
 *     #define FP2_BASE bn254_fq    (the prime field)
 *     #define FP2_BASE_PARAM BN254_FQ
 *
 * An element is c0 + c1·u. The operations mirror the prime-field contract in
 * field.h (same names, same constant-time rules), so the curve template can
 * run over F and F2 alike. */
#define F2_T ZKP_CAT(FP2_NAME, _t)
#define F2_FN(op) ZKP_CAT(ZKP_CAT(FP2_NAME, _), op)
#define B_T ZKP_CAT(FP2_BASE, _t)
#define B_FN(op) ZKP_CAT(ZKP_CAT(FP2_BASE, _), op)

typedef struct {
    B_T c0, c1;
} F2_T;

static inline int F2_FN(is_reduced)(const F2_T *a) {
    return B_FN(is_reduced)(&a->c0) && B_FN(is_reduced)(&a->c1);
}
static inline void F2_FN(set_zero)(F2_T *r) {
    B_FN(set_zero)(&r->c0);
    B_FN(set_zero)(&r->c1);
}
static inline void F2_FN(set_one)(F2_T *r) {
    B_FN(set_one)(&r->c0);
    B_FN(set_zero)(&r->c1);
}
static inline int F2_FN(is_zero)(const F2_T *a) { return B_FN(is_zero)(&a->c0) & B_FN(is_zero)(&a->c1); }
static inline int F2_FN(is_one)(const F2_T *a) { return B_FN(is_one)(&a->c0) & B_FN(is_zero)(&a->c1); }
static inline int F2_FN(eq)(const F2_T *a, const F2_T *b) {
    return B_FN(eq)(&a->c0, &b->c0) & B_FN(eq)(&a->c1, &b->c1);
}
static inline void F2_FN(cmov)(F2_T *r, const F2_T *a, int flag) {
    B_FN(cmov)(&r->c0, &a->c0, flag);
    B_FN(cmov)(&r->c1, &a->c1, flag);
}
static inline void F2_FN(add)(F2_T *r, const F2_T *a, const F2_T *b) {
    B_FN(add)(&r->c0, &a->c0, &b->c0);
    B_FN(add)(&r->c1, &a->c1, &b->c1);
}
static inline void F2_FN(sub)(F2_T *r, const F2_T *a, const F2_T *b) {
    B_FN(sub)(&r->c0, &a->c0, &b->c0);
    B_FN(sub)(&r->c1, &a->c1, &b->c1);
}
static inline void F2_FN(dbl)(F2_T *r, const F2_T *a) {
    B_FN(dbl)(&r->c0, &a->c0);
    B_FN(dbl)(&r->c1, &a->c1);
}
static inline void F2_FN(half)(F2_T *r, const F2_T *a) {
    B_FN(half)(&r->c0, &a->c0);
    B_FN(half)(&r->c1, &a->c1);
}
static inline void F2_FN(neg)(F2_T *r, const F2_T *a) {
    B_FN(neg)(&r->c0, &a->c0);
    B_FN(neg)(&r->c1, &a->c1);
}
/* The conjugate c0 - c1·u, which is also the p-power Frobenius. */
static inline void F2_FN(conj)(F2_T *r, const F2_T *a) {
    r->c0 = a->c0;
    B_FN(neg)(&r->c1, &a->c1);
}
static inline void F2_FN(mul_base)(F2_T *r, const F2_T *a, const B_T *b) {
    B_FN(mul)(&r->c0, &a->c0, b);
    B_FN(mul)(&r->c1, &a->c1, b);
}

/* Karatsuba: three base products instead of four, using u^2 = -1:
 * (a0 + a1 u)(b0 + b1 u) = (a0 b0 - a1 b1) + ((a0 + a1)(b0 + b1) - a0 b0 - a1 b1) u. */
static inline void F2_FN(mul)(F2_T *r, const F2_T *a, const F2_T *b) {
    B_T t0, t1, s0, s1;
    B_FN(mul)(&t0, &a->c0, &b->c0);
    B_FN(mul)(&t1, &a->c1, &b->c1);
    B_FN(add)(&s0, &a->c0, &a->c1);
    B_FN(add)(&s1, &b->c0, &b->c1);
    B_FN(mul)(&s0, &s0, &s1);
    B_FN(sub)(&r->c0, &t0, &t1);
    B_FN(sub)(&s0, &s0, &t0);
    B_FN(sub)(&r->c1, &s0, &t1);
}

/* Complex squaring: (a0 + a1 u)^2 = (a0 + a1)(a0 - a1) + 2 a0 a1 u. */
static inline void F2_FN(sqr)(F2_T *r, const F2_T *a) {
    B_T s, d, m;
    B_FN(add)(&s, &a->c0, &a->c1);
    B_FN(sub)(&d, &a->c0, &a->c1);
    B_FN(mul)(&m, &a->c0, &a->c1);
    B_FN(mul)(&r->c0, &s, &d);
    B_FN(dbl)(&r->c1, &m);
}

/* Out-of-line operations (fp2_body.h). */
void F2_FN(inv)(F2_T *r, const F2_T *a);
void F2_FN(inv_var)(F2_T *r, const F2_T *a);
/* On input out and in do not overlap; zeros map to zero. */
void F2_FN(batch_inv_var)(F2_T *out, const F2_T *in, size_t n);
void F2_FN(pow)(F2_T *r, const F2_T *a, const uint64_t *exp, size_t exp_limbs);
int F2_FN(sqrt_var)(F2_T *r, const F2_T *a);
int F2_FN(legendre_var)(const F2_T *a);
ZKP_WARN_UNUSED zkpipe_status F2_FN(random)(F2_T *r);

#undef F2_T
#undef F2_FN
#undef B_T
#undef B_FN
