/* Generic short Weierstrass group y^2 = x^3 + b (a = 0): the inline half.
 *
 * Instantiated by each group header, never included on its own:
 *
 *     #define EC_NAME  bn254_g1   (prefix of the types and functions)
 *     #define EC_FIELD bn254_fq   (coordinate field: a prime field or an Fp2)
 *     #define EC_PARAM BN254_G1   (prefix of the constants in curve_params.h)
 *     #include "curve/ec_impl.h"
 *
 * and in exactly one .c file per group, ec_body.h after it for the
 * out-of-line operations, with two more macros set: EC_SCALAR (bn254_fr, the
 * scalar field, whose modulus is the group order r) and EC_SCALAR_PARAM
 * (BN254_FR). See curve.h for the contract.
 *
 * The b-constant hook is EC_PARAM##_B, the Montgomery-form initializer of b
 * (or of b' on a twist) that curve_params.h provides; the formulas use it only
 * in the on-curve checks, because every a = 0 addition and doubling formula
 * below is independent of b.
 *
 * Every formula here without a _var suffix is constant time and complete:
 * the exceptional inputs (the point at infinity, P + P, P + (-P)) are handled
 * by selection with cmov, never by branches, at the cost of one squaring and
 * a few selections per addition. The two XYZZ _var additions at the end are
 * the branching versions for public points.
 *
 *   - The two-input additions are "unified": a chord-and-tangent addition
 *     in which the chord slope R/H is replaced by the tangent slope when the
 *     two points turn out equal. With U_i = x_i W^2, S_i = y_i W^3 for the
 *     common denominator W (W = Z1 Z2 in Jacobian coordinates), the chord
 *     slope is (S2 - S1)/(W (U2 - U1)) and the tangent slope at P1 is
 *     3 U1^2 / (W 2 S1). Writing the result as
 *         X3 = R^2 - H^2 (U1 + U2),  Y3 = R (U1 H^2 - X3) - S1 H^3,  Z3 = W H
 *     covers both cases, and in the chord case H^2 (U1 + U2) is exactly the
 *     H^3 + 2 U1 H^2 of the usual formulas. So the only changes to EFD's
 *     formulas are: when H = R = 0 replace (H, R) by (2 S1, 3 U1^2) and drop
 *     the H^3 term from X3. That costs one squaring and a few cmovs. When
 *     H = 0 but R != 0 (P + (-P)) the formulas already give Z3 = 0.
 *   - The doublings are complete as they stand: Z = 0 stays 0, and a point
 *     with y = 0 (which no group here has; every group order is odd) would
 *     map to Z3 = 0.
 *
 * The Jacobian formulas are EFD's g1p/auto-shortw-jacobian-0 (a = 0):
 * dbl-2009-l, add-2007-bl and madd-2007-bl. The XYZZ formulas are EFD's
 * g1p/auto-shortw-xyzz: dbl-2008-s-1, add-2008-s and madd-2008-s, with
 * a = 0. All outputs may alias inputs. */
#include <stddef.h>
#include <stdint.h>

#include "curve/curve_params.h"
#include "util/util.h"

#define EC_AFF ZKP_CAT(EC_NAME, _affine_t)
#define EC_JAC ZKP_CAT(EC_NAME, _jacobian_t)
#define EC_XYZZ ZKP_CAT(EC_NAME, _xyzz_t)
#define EC_FN(op) ZKP_CAT(ZKP_CAT(EC_NAME, _), op)
#define EC_K(k) ZKP_CAT(ZKP_CAT(EC_PARAM, _), k)
#define ECF_T ZKP_CAT(EC_FIELD, _t)
#define ECF(op) ZKP_CAT(ZKP_CAT(EC_FIELD, _), op)

/* (x, y); the point at infinity is (0, 0), which is not on the curve since b != 0. */
typedef struct {
    ECF_T x, y;
} EC_AFF;

/* (X, Y, Z) for the affine point (X/Z^2, Y/Z^3); Z = 0 is the point at infinity. */
typedef struct {
    ECF_T x, y, z;
} EC_JAC;

/* (X, Y, ZZ, ZZZ) for (X/ZZ, Y/ZZZ) with ZZ^3 = ZZZ^2; ZZ = 0 is the point at infinity. */
typedef struct {
    ECF_T x, y, zz, zzz;
} EC_XYZZ;

/* b (or b' on the twist) in Montgomery form. */
static const ECF_T EC_FN(b) = EC_K(B);

/* r = 3 a */
static inline void EC_FN(f_mul3_)(ECF_T *r, const ECF_T *a) {
    ECF_T t;
    ECF(dbl)(&t, a);
    ECF(add)(r, &t, a);
}

/* ---------------------------------------------------------------- affine */

static inline void EC_FN(affine_set_infinity)(EC_AFF *r) {
    ECF(set_zero)(&r->x);
    ECF(set_zero)(&r->y);
}

static inline int EC_FN(affine_is_infinity)(const EC_AFF *p) {
    return ECF(is_zero)(&p->x) & ECF(is_zero)(&p->y);
}

/* 1 if p is on the curve or is the point at infinity. Constant time. */
static inline int EC_FN(affine_is_on_curve)(const EC_AFF *p) {
    ECF_T lhs, rhs;
    ECF(sqr)(&lhs, &p->y);
    ECF(sqr)(&rhs, &p->x);
    ECF(mul)(&rhs, &rhs, &p->x);
    ECF(add)(&rhs, &rhs, &EC_FN(b));
    return ECF(eq)(&lhs, &rhs) | EC_FN(affine_is_infinity)(p);
}

static inline int EC_FN(affine_eq)(const EC_AFF *a, const EC_AFF *b) {
    return ECF(eq)(&a->x, &b->x) & ECF(eq)(&a->y, &b->y);
}

/* -(0, 0) is (0, 0) again, since the field negation of 0 is 0. */
static inline void EC_FN(affine_neg)(EC_AFF *r, const EC_AFF *p) {
    r->x = p->x;
    ECF(neg)(&r->y, &p->y);
}

static inline void EC_FN(affine_cmov)(EC_AFF *r, const EC_AFF *a, int flag) {
    ECF(cmov)(&r->x, &a->x, flag);
    ECF(cmov)(&r->y, &a->y, flag);
}

/* ---------------------------------------------------------------- Jacobian */

static inline void EC_FN(set_infinity)(EC_JAC *r) {
    ECF(set_one)(&r->x);
    ECF(set_one)(&r->y);
    ECF(set_zero)(&r->z);
}

static inline int EC_FN(is_infinity)(const EC_JAC *p) { return ECF(is_zero)(&p->z); }

/* 1 if Y^2 = X^3 + b Z^6, or Z = 0 (any point at infinity). Constant time. */
static inline int EC_FN(is_on_curve)(const EC_JAC *p) {
    ECF_T lhs, rhs, z2, z6;
    ECF(sqr)(&lhs, &p->y);
    ECF(sqr)(&rhs, &p->x);
    ECF(mul)(&rhs, &rhs, &p->x);
    ECF(sqr)(&z2, &p->z);
    ECF(sqr)(&z6, &z2);
    ECF(mul)(&z6, &z6, &z2);
    ECF(mul)(&z6, &z6, &EC_FN(b));
    ECF(add)(&rhs, &rhs, &z6);
    return ECF(eq)(&lhs, &rhs) | EC_FN(is_infinity)(p);
}

static inline void EC_FN(cmov)(EC_JAC *r, const EC_JAC *a, int flag) {
    ECF(cmov)(&r->x, &a->x, flag);
    ECF(cmov)(&r->y, &a->y, flag);
    ECF(cmov)(&r->z, &a->z, flag);
}

/* The affine point at infinity (0, 0) becomes (0, 0, 0). */
static inline void EC_FN(from_affine)(EC_JAC *r, const EC_AFF *a) {
    ZKP_VERIFY_CHECK(EC_FN(affine_is_on_curve)(a));
    ECF_T zero;
    int inf = EC_FN(affine_is_infinity)(a);
    ECF(set_zero)(&zero);
    r->x = a->x;
    r->y = a->y;
    ECF(set_one)(&r->z);
    ECF(cmov)(&r->z, &zero, inf);
}

/* X1 Z2^2 = X2 Z1^2 and Y1 Z2^3 = Y2 Z1^3, or both at infinity. Constant time. */
static inline int EC_FN(eq)(const EC_JAC *p, const EC_JAC *q) {
    ECF_T z1z1, z2z2, u1, u2, s1, s2;
    ECF(sqr)(&z1z1, &p->z);
    ECF(sqr)(&z2z2, &q->z);
    ECF(mul)(&u1, &p->x, &z2z2);
    ECF(mul)(&u2, &q->x, &z1z1);
    ECF(mul)(&s1, &p->y, &q->z);
    ECF(mul)(&s1, &s1, &z2z2);
    ECF(mul)(&s2, &q->y, &p->z);
    ECF(mul)(&s2, &s2, &z1z1);
    int inf_p = EC_FN(is_infinity)(p), inf_q = EC_FN(is_infinity)(q);
    int same = ECF(eq)(&u1, &u2) & ECF(eq)(&s1, &s2);
    return (inf_p & inf_q) | (((inf_p | inf_q) ^ 1) & same);
}

static inline void EC_FN(neg)(EC_JAC *r, const EC_JAC *p) {
    r->x = p->x;
    ECF(neg)(&r->y, &p->y);
    r->z = p->z;
}

/* dbl-2009-l: 2M + 5S. */
static inline void EC_FN(dbl)(EC_JAC *r, const EC_JAC *p) {
    ZKP_VERIFY_CHECK(EC_FN(is_on_curve)(p));
    ECF_T a, b, c, d, e, f, t;
    ECF(sqr)(&a, &p->x);
    ECF(sqr)(&b, &p->y);
    ECF(sqr)(&c, &b);
    ECF(add)(&d, &p->x, &b); /* D = 2((X + B)^2 - A - C) = 4 X Y^2 */
    ECF(sqr)(&d, &d);
    ECF(sub)(&d, &d, &a);
    ECF(sub)(&d, &d, &c);
    ECF(dbl)(&d, &d);
    EC_FN(f_mul3_)(&e, &a); /* E = 3 X^2, the tangent slope numerator for a = 0 */
    ECF(sqr)(&f, &e);
    ECF(mul)(&r->z, &p->y, &p->z); /* Z3 = 2 Y Z: the last read of p, so r may alias it */
    ECF(dbl)(&r->z, &r->z);
    ECF(dbl)(&t, &d);
    ECF(sub)(&r->x, &f, &t); /* X3 = F - 2D */
    ECF(sub)(&t, &d, &r->x);
    ECF(mul)(&t, &e, &t);
    ECF(dbl)(&c, &c);
    ECF(dbl)(&c, &c);
    ECF(dbl)(&c, &c);
    ECF(sub)(&r->y, &t, &c); /* Y3 = E (D - X3) - 8C */
}

/* add-2007-bl made unified (see the top of this file): 11M + 6S. Complete. */
static inline void EC_FN(add)(EC_JAC *r, const EC_JAC *p, const EC_JAC *q) {
    ZKP_VERIFY_CHECK(EC_FN(is_on_curve)(p) && EC_FN(is_on_curve)(q));
    ECF_T z1z1, z2z2, u1, u2, s1, s2, h, rr, t, i, j, v;
    EC_JAC o;
    ECF(sqr)(&z1z1, &p->z);
    ECF(sqr)(&z2z2, &q->z);
    ECF(mul)(&u1, &p->x, &z2z2);
    ECF(mul)(&u2, &q->x, &z1z1);
    ECF(mul)(&s1, &p->y, &q->z);
    ECF(mul)(&s1, &s1, &z2z2);
    ECF(mul)(&s2, &q->y, &p->z);
    ECF(mul)(&s2, &s2, &z1z1);
    ECF(sub)(&h, &u2, &u1);
    ECF(sub)(&rr, &s2, &s1);
    /* P = Q (as points): take the tangent, H = 2 S1, R = 3 U1^2. */
    int is_dbl = ECF(is_zero)(&h) & ECF(is_zero)(&rr);
    ECF(dbl)(&t, &s1);
    ECF(cmov)(&h, &t, is_dbl);
    ECF(sqr)(&t, &u1);
    EC_FN(f_mul3_)(&t, &t);
    ECF(cmov)(&rr, &t, is_dbl);
    /* From here on add-2007-bl, which scales H and R by 2: I = (2H)^2, J = H I, r = 2R. */
    ECF(dbl)(&i, &h);
    ECF(sqr)(&i, &i);
    ECF(mul)(&j, &h, &i);
    ECF(dbl)(&rr, &rr);
    ECF(mul)(&v, &u1, &i);
    /* X3 = r^2 - J - 2V, without J when doubling (X3 = R^2 - H^2 (U1 + U2) with U1 = U2). */
    ECF(set_zero)(&t);
    ECF(cmov)(&t, &j, is_dbl ^ 1);
    ECF(sqr)(&o.x, &rr);
    ECF(sub)(&o.x, &o.x, &t);
    ECF(sub)(&o.x, &o.x, &v);
    ECF(sub)(&o.x, &o.x, &v);
    /* Y3 = r (V - X3) - 2 S1 J */
    ECF(sub)(&o.y, &v, &o.x);
    ECF(mul)(&o.y, &o.y, &rr);
    ECF(mul)(&t, &s1, &j);
    ECF(dbl)(&t, &t);
    ECF(sub)(&o.y, &o.y, &t);
    /* Z3 = ((Z1 + Z2)^2 - Z1Z1 - Z2Z2) H = 2 Z1 Z2 H */
    ECF(add)(&o.z, &p->z, &q->z);
    ECF(sqr)(&o.z, &o.z);
    ECF(sub)(&o.z, &o.z, &z1z1);
    ECF(sub)(&o.z, &o.z, &z2z2);
    ECF(mul)(&o.z, &o.z, &h);
    /* With an input at infinity the result above is meaningless; return the other input. */
    int inf_p = EC_FN(is_infinity)(p), inf_q = EC_FN(is_infinity)(q);
    EC_FN(cmov)(&o, q, inf_p);
    EC_FN(cmov)(&o, p, inf_q);
    *r = o;
}

/* madd-2007-bl made unified: 7M + 5S. Complete; q = (0, 0) returns p. */
static inline void EC_FN(add_affine)(EC_JAC *r, const EC_JAC *p, const EC_AFF *q) {
    ZKP_VERIFY_CHECK(EC_FN(is_on_curve)(p) && EC_FN(affine_is_on_curve)(q));
    ECF_T z1z1, u2, s2, h, hh, rr, t, i, j, v;
    EC_JAC o, qj;
    ECF(sqr)(&z1z1, &p->z);
    ECF(mul)(&u2, &q->x, &z1z1);
    ECF(mul)(&s2, &q->y, &p->z);
    ECF(mul)(&s2, &s2, &z1z1);
    ECF(sub)(&h, &u2, &p->x);
    ECF(sub)(&rr, &s2, &p->y);
    /* Tangent case (U1 = X1, S1 = Y1): H = 2 Y1, R = 3 X1^2. */
    int is_dbl = ECF(is_zero)(&h) & ECF(is_zero)(&rr);
    ECF(dbl)(&t, &p->y);
    ECF(cmov)(&h, &t, is_dbl);
    ECF(sqr)(&t, &p->x);
    EC_FN(f_mul3_)(&t, &t);
    ECF(cmov)(&rr, &t, is_dbl);
    ECF(sqr)(&hh, &h);
    ECF(dbl)(&i, &hh); /* I = 4 HH */
    ECF(dbl)(&i, &i);
    ECF(mul)(&j, &h, &i);
    ECF(dbl)(&rr, &rr);
    ECF(mul)(&v, &p->x, &i);
    ECF(set_zero)(&t);
    ECF(cmov)(&t, &j, is_dbl ^ 1);
    ECF(sqr)(&o.x, &rr); /* X3 = r^2 - J - 2V, without J when doubling */
    ECF(sub)(&o.x, &o.x, &t);
    ECF(sub)(&o.x, &o.x, &v);
    ECF(sub)(&o.x, &o.x, &v);
    ECF(sub)(&o.y, &v, &o.x); /* Y3 = r (V - X3) - 2 Y1 J */
    ECF(mul)(&o.y, &o.y, &rr);
    ECF(mul)(&t, &p->y, &j);
    ECF(dbl)(&t, &t);
    ECF(sub)(&o.y, &o.y, &t);
    ECF(add)(&o.z, &p->z, &h); /* Z3 = (Z1 + H)^2 - Z1Z1 - HH = 2 Z1 H */
    ECF(sqr)(&o.z, &o.z);
    ECF(sub)(&o.z, &o.z, &z1z1);
    ECF(sub)(&o.z, &o.z, &hh);
    int inf_p = EC_FN(is_infinity)(p), inf_q = EC_FN(affine_is_infinity)(q);
    EC_FN(from_affine)(&qj, q);
    EC_FN(cmov)(&o, &qj, inf_p);
    EC_FN(cmov)(&o, p, inf_q);
    *r = o;
}

static inline void EC_FN(sub)(EC_JAC *r, const EC_JAC *p, const EC_JAC *q) {
    EC_JAC nq;
    EC_FN(neg)(&nq, q);
    EC_FN(add)(r, p, &nq);
}

/* ---------------------------------------------------------------- XYZZ */

static inline void EC_FN(xyzz_set_infinity)(EC_XYZZ *r) {
    ECF(set_one)(&r->x);
    ECF(set_one)(&r->y);
    ECF(set_zero)(&r->zz);
    ECF(set_zero)(&r->zzz);
}

static inline int EC_FN(xyzz_is_infinity)(const EC_XYZZ *p) { return ECF(is_zero)(&p->zz); }

/* 1 if the point is at infinity (ZZ = ZZZ = 0), or ZZ^3 = ZZZ^2 and
 * Y^2 = X^3 + b ZZ^3 (the curve equation multiplied by ZZZ^2 = ZZ^3). */
static inline int EC_FN(xyzz_is_on_curve)(const EC_XYZZ *p) {
    ECF_T lhs, rhs, zz3, zzz2;
    ECF(sqr)(&zz3, &p->zz);
    ECF(mul)(&zz3, &zz3, &p->zz);
    ECF(sqr)(&zzz2, &p->zzz);
    int weights = ECF(eq)(&zz3, &zzz2);
    ECF(sqr)(&lhs, &p->y);
    ECF(sqr)(&rhs, &p->x);
    ECF(mul)(&rhs, &rhs, &p->x);
    ECF(mul)(&zz3, &zz3, &EC_FN(b));
    ECF(add)(&rhs, &rhs, &zz3);
    int inf = ECF(is_zero)(&p->zz) & ECF(is_zero)(&p->zzz);
    return inf | (weights & ECF(eq)(&lhs, &rhs));
}

static inline void EC_FN(xyzz_cmov)(EC_XYZZ *r, const EC_XYZZ *a, int flag) {
    ECF(cmov)(&r->x, &a->x, flag);
    ECF(cmov)(&r->y, &a->y, flag);
    ECF(cmov)(&r->zz, &a->zz, flag);
    ECF(cmov)(&r->zzz, &a->zzz, flag);
}

/* (x, y, 1, 1); the affine point at infinity becomes (0, 0, 0, 0). */
static inline void EC_FN(xyzz_from_affine)(EC_XYZZ *r, const EC_AFF *a) {
    ZKP_VERIFY_CHECK(EC_FN(affine_is_on_curve)(a));
    ECF_T zero;
    int inf = EC_FN(affine_is_infinity)(a);
    ECF(set_zero)(&zero);
    r->x = a->x;
    r->y = a->y;
    ECF(set_one)(&r->zz);
    ECF(cmov)(&r->zz, &zero, inf);
    r->zzz = r->zz;
}

/* With z = ZZZ/ZZ (so ZZ = z^2, ZZZ = z^3 by the invariant ZZ^3 = ZZZ^2),
 * the Jacobian triple (X ZZ^2, Y ZZZ^2, ZZZ) has x = X ZZ^2 / ZZZ^2 = X / ZZ
 * and y = Y ZZZ^2 / ZZZ^3 = Y / ZZZ, with no inversion: 2M + 2S. Infinity
 * (ZZZ = 0) maps to Z = 0. */
static inline void EC_FN(xyzz_to_jacobian)(EC_JAC *r, const EC_XYZZ *p) {
    ZKP_VERIFY_CHECK(EC_FN(xyzz_is_on_curve)(p));
    ECF_T t;
    ECF(sqr)(&t, &p->zz);
    ECF(mul)(&r->x, &p->x, &t);
    ECF(sqr)(&t, &p->zzz);
    ECF(mul)(&r->y, &p->y, &t);
    r->z = p->zzz;
}

/* dbl-2008-s-1 with a = 0: 6M + 3S. Complete as it stands. */
static inline void EC_FN(xyzz_dbl)(EC_XYZZ *r, const EC_XYZZ *p) {
    ZKP_VERIFY_CHECK(EC_FN(xyzz_is_on_curve)(p));
    ECF_T u, v, w, s, m, t;
    ECF(dbl)(&u, &p->y); /* U = 2Y */
    ECF(sqr)(&v, &u);    /* V = U^2 */
    ECF(mul)(&w, &u, &v); /* W = U V */
    ECF(mul)(&s, &p->x, &v); /* S = X V */
    ECF(sqr)(&m, &p->x);     /* M = 3 X^2 */
    EC_FN(f_mul3_)(&m, &m);
    ECF(mul)(&r->zz, &v, &p->zz); /* ZZ3 = V ZZ, ZZZ3 = W ZZZ: zz, zzz are not read again */
    ECF(mul)(&r->zzz, &w, &p->zzz);
    ECF(mul)(&w, &w, &p->y); /* W Y, before y is overwritten */
    ECF(sqr)(&t, &m);        /* X3 = M^2 - 2S */
    ECF(sub)(&t, &t, &s);
    ECF(sub)(&r->x, &t, &s);
    ECF(sub)(&t, &s, &r->x); /* Y3 = M (S - X3) - W Y */
    ECF(mul)(&t, &m, &t);
    ECF(sub)(&r->y, &t, &w);
}

/* add-2008-s made unified: 12M + 3S. Complete. */
static inline void EC_FN(xyzz_add)(EC_XYZZ *r, const EC_XYZZ *p, const EC_XYZZ *q) {
    ZKP_VERIFY_CHECK(EC_FN(xyzz_is_on_curve)(p) && EC_FN(xyzz_is_on_curve)(q));
    ECF_T u1, u2, s1, s2, pd, rr, pp, ppp, qq, t;
    EC_XYZZ o;
    ECF(mul)(&u1, &p->x, &q->zz);
    ECF(mul)(&u2, &q->x, &p->zz);
    ECF(mul)(&s1, &p->y, &q->zzz);
    ECF(mul)(&s2, &q->y, &p->zzz);
    ECF(sub)(&pd, &u2, &u1); /* P = U2 - U1 */
    ECF(sub)(&rr, &s2, &s1); /* R = S2 - S1 */
    int is_dbl = ECF(is_zero)(&pd) & ECF(is_zero)(&rr);
    ECF(dbl)(&t, &s1); /* tangent: P = 2 S1, R = 3 U1^2 */
    ECF(cmov)(&pd, &t, is_dbl);
    ECF(sqr)(&t, &u1);
    EC_FN(f_mul3_)(&t, &t);
    ECF(cmov)(&rr, &t, is_dbl);
    ECF(sqr)(&pp, &pd);
    ECF(mul)(&ppp, &pd, &pp);
    ECF(mul)(&qq, &u1, &pp);
    ECF(set_zero)(&t); /* X3 = R^2 - PPP - 2Q, without PPP when doubling */
    ECF(cmov)(&t, &ppp, is_dbl ^ 1);
    ECF(sqr)(&o.x, &rr);
    ECF(sub)(&o.x, &o.x, &t);
    ECF(sub)(&o.x, &o.x, &qq);
    ECF(sub)(&o.x, &o.x, &qq);
    ECF(sub)(&o.y, &qq, &o.x); /* Y3 = R (Q - X3) - S1 PPP */
    ECF(mul)(&o.y, &o.y, &rr);
    ECF(mul)(&t, &s1, &ppp);
    ECF(sub)(&o.y, &o.y, &t);
    ECF(mul)(&o.zz, &p->zz, &q->zz); /* ZZ3 = ZZ1 ZZ2 PP, ZZZ3 = ZZZ1 ZZZ2 PPP */
    ECF(mul)(&o.zz, &o.zz, &pp);
    ECF(mul)(&o.zzz, &p->zzz, &q->zzz);
    ECF(mul)(&o.zzz, &o.zzz, &ppp);
    int inf_p = EC_FN(xyzz_is_infinity)(p), inf_q = EC_FN(xyzz_is_infinity)(q);
    EC_FN(xyzz_cmov)(&o, q, inf_p);
    EC_FN(xyzz_cmov)(&o, p, inf_q);
    *r = o;
}

/* madd-2008-s made unified: 8M + 3S. Complete; q = (0, 0) returns p. This
 * is the bucket accumulation step of the MSM. */
static inline void EC_FN(xyzz_add_affine)(EC_XYZZ *r, const EC_XYZZ *p, const EC_AFF *q) {
    ZKP_VERIFY_CHECK(EC_FN(xyzz_is_on_curve)(p) && EC_FN(affine_is_on_curve)(q));
    ECF_T u2, s2, pd, rr, pp, ppp, qq, t;
    EC_XYZZ o, qx;
    ECF(mul)(&u2, &q->x, &p->zz);
    ECF(mul)(&s2, &q->y, &p->zzz);
    ECF(sub)(&pd, &u2, &p->x); /* P = U2 - X1 */
    ECF(sub)(&rr, &s2, &p->y); /* R = S2 - Y1 */
    int is_dbl = ECF(is_zero)(&pd) & ECF(is_zero)(&rr);
    ECF(dbl)(&t, &p->y); /* tangent: P = 2 Y1, R = 3 X1^2 */
    ECF(cmov)(&pd, &t, is_dbl);
    ECF(sqr)(&t, &p->x);
    EC_FN(f_mul3_)(&t, &t);
    ECF(cmov)(&rr, &t, is_dbl);
    ECF(sqr)(&pp, &pd);
    ECF(mul)(&ppp, &pd, &pp);
    ECF(mul)(&qq, &p->x, &pp);
    ECF(set_zero)(&t); /* X3 = R^2 - PPP - 2Q, without PPP when doubling */
    ECF(cmov)(&t, &ppp, is_dbl ^ 1);
    ECF(sqr)(&o.x, &rr);
    ECF(sub)(&o.x, &o.x, &t);
    ECF(sub)(&o.x, &o.x, &qq);
    ECF(sub)(&o.x, &o.x, &qq);
    ECF(sub)(&o.y, &qq, &o.x); /* Y3 = R (Q - X3) - Y1 PPP */
    ECF(mul)(&o.y, &o.y, &rr);
    ECF(mul)(&t, &p->y, &ppp);
    ECF(sub)(&o.y, &o.y, &t);
    ECF(mul)(&o.zz, &p->zz, &pp); /* ZZ3 = ZZ1 PP, ZZZ3 = ZZZ1 PPP */
    ECF(mul)(&o.zzz, &p->zzz, &ppp);
    int inf_p = EC_FN(xyzz_is_infinity)(p), inf_q = EC_FN(affine_is_infinity)(q);
    EC_FN(xyzz_from_affine)(&qx, q);
    EC_FN(xyzz_cmov)(&o, &qx, inf_p);
    EC_FN(xyzz_cmov)(&o, p, inf_q);
    *r = o;
}

/* Variable-time XYZZ additions for public points: the MSM bucket and
 * running-sum steps. The unified forms above pay, on every call, one extra
 * squaring plus about a dozen selections to stay branch-free, which measured
 * 10-30% of a mixed addition on the portable path. Here the exceptional cases
 * (infinity, P = Q, P = -Q) are rare branches instead, with the same
 * results. */

/* mdbl-2008-s-1: the doubling of an affine point into XYZZ, 4M + 3S. */
static inline void EC_FN(xyzz_dbl_affine_)(EC_XYZZ *r, const EC_AFF *q) {
    ECF_T u, v, w, s, m, t;
    ECF(dbl)(&u, &q->y);
    ECF(sqr)(&v, &u);
    ECF(mul)(&w, &u, &v);
    ECF(mul)(&s, &q->x, &v);
    ECF(sqr)(&m, &q->x);
    EC_FN(f_mul3_)(&m, &m);
    ECF(mul)(&t, &w, &q->y);
    r->zz = v;
    r->zzz = w;
    ECF(sqr)(&r->x, &m); /* X3 = M^2 - 2S */
    ECF(sub)(&r->x, &r->x, &s);
    ECF(sub)(&r->x, &r->x, &s);
    ECF(sub)(&s, &s, &r->x); /* Y3 = M (S - X3) - W Y */
    ECF(mul)(&s, &m, &s);
    ECF(sub)(&r->y, &s, &t);
}

/* madd-2008-s: 8M + 2S on the common path. */
static inline void EC_FN(xyzz_add_affine_var)(EC_XYZZ *r, const EC_XYZZ *p, const EC_AFF *q) {
    ZKP_VERIFY_CHECK(EC_FN(xyzz_is_on_curve)(p) && EC_FN(affine_is_on_curve)(q));
    if (ZKP_UNLIKELY(EC_FN(affine_is_infinity)(q))) {
        *r = *p;
        return;
    }
    if (ZKP_UNLIKELY(EC_FN(xyzz_is_infinity)(p))) {
        EC_FN(xyzz_from_affine)(r, q);
        return;
    }
    ECF_T u2, s2, pd, rr, pp, ppp, qq, t, x3;
    ECF(mul)(&u2, &q->x, &p->zz);
    ECF(mul)(&s2, &q->y, &p->zzz);
    ECF(sub)(&pd, &u2, &p->x);
    ECF(sub)(&rr, &s2, &p->y);
    if (ZKP_UNLIKELY(ECF(is_zero)(&pd))) {
        if (ECF(is_zero)(&rr))
            EC_FN(xyzz_dbl_affine_)(r, q);
        else
            EC_FN(xyzz_set_infinity)(r);
        return;
    }
    ECF(sqr)(&pp, &pd);
    ECF(mul)(&ppp, &pd, &pp);
    ECF(mul)(&qq, &p->x, &pp);
    ECF(mul)(&t, &p->y, &ppp);
    ECF(mul)(&r->zz, &p->zz, &pp); /* x and y of p are not read after this */
    ECF(mul)(&r->zzz, &p->zzz, &ppp);
    ECF(sqr)(&x3, &rr); /* X3 = R^2 - PPP - 2Q */
    ECF(sub)(&x3, &x3, &ppp);
    ECF(sub)(&x3, &x3, &qq);
    ECF(sub)(&x3, &x3, &qq);
    ECF(sub)(&qq, &qq, &x3); /* Y3 = R (Q - X3) - Y1 PPP */
    ECF(mul)(&qq, &qq, &rr);
    ECF(sub)(&r->y, &qq, &t);
    r->x = x3;
}

/* add-2008-s: 12M + 2S on the common path. */
static inline void EC_FN(xyzz_add_var)(EC_XYZZ *r, const EC_XYZZ *p, const EC_XYZZ *q) {
    ZKP_VERIFY_CHECK(EC_FN(xyzz_is_on_curve)(p) && EC_FN(xyzz_is_on_curve)(q));
    if (ZKP_UNLIKELY(EC_FN(xyzz_is_infinity)(q))) {
        *r = *p;
        return;
    }
    if (ZKP_UNLIKELY(EC_FN(xyzz_is_infinity)(p))) {
        *r = *q;
        return;
    }
    ECF_T u1, u2, s1, s2, pd, rr, pp, ppp, qq, x3;
    ECF(mul)(&u1, &p->x, &q->zz);
    ECF(mul)(&u2, &q->x, &p->zz);
    ECF(mul)(&s1, &p->y, &q->zzz);
    ECF(mul)(&s2, &q->y, &p->zzz);
    ECF(sub)(&pd, &u2, &u1);
    ECF(sub)(&rr, &s2, &s1);
    if (ZKP_UNLIKELY(ECF(is_zero)(&pd))) {
        if (ECF(is_zero)(&rr))
            EC_FN(xyzz_dbl)(r, p);
        else
            EC_FN(xyzz_set_infinity)(r);
        return;
    }
    ECF(sqr)(&pp, &pd);
    ECF(mul)(&ppp, &pd, &pp);
    ECF(mul)(&qq, &u1, &pp);
    ECF(mul)(&r->zz, &p->zz, &q->zz); /* only u1, s1 and the z's are read after this */
    ECF(mul)(&r->zz, &r->zz, &pp);
    ECF(mul)(&r->zzz, &p->zzz, &q->zzz);
    ECF(mul)(&r->zzz, &r->zzz, &ppp);
    ECF(sqr)(&x3, &rr);
    ECF(sub)(&x3, &x3, &ppp);
    ECF(sub)(&x3, &x3, &qq);
    ECF(sub)(&x3, &x3, &qq);
    ECF(sub)(&qq, &qq, &x3);
    ECF(mul)(&qq, &qq, &rr);
    ECF(mul)(&s1, &s1, &ppp);
    ECF(sub)(&r->y, &qq, &s1);
    r->x = x3;
}

/* ---------------------------------------------------------------- out of line (ec_body.h) */

void EC_FN(generator)(EC_AFF *r);
/* One constant-time inversion; infinity gives (0, 0). */
void EC_FN(to_affine)(EC_AFF *r, const EC_JAC *p);
/* On input out and in do not overlap. One inversion for all n points;
 * points at infinity give (0, 0). */
void EC_FN(batch_to_affine_var)(EC_AFF *out, const EC_JAC *in, size_t n);
/* r = [k] p for the scalar in the low nbits bits of the little-endian limbs k
 * (any value below 2^nbits, also >= r). Constant time in k and p; nbits is
 * public. */
void EC_FN(mul)(EC_JAC *r, const EC_JAC *p, const uint64_t *k, size_t nbits);
/* The same product for public scalars: width-5 wNAF. */
void EC_FN(mul_var)(EC_JAC *r, const EC_JAC *p, const uint64_t *k, size_t nbits);
/* On input p is on the curve. 1 if [r] p is the point at infinity. The
 * reference the fast tests are checked against. */
int EC_FN(in_subgroup_slow_var)(const EC_JAC *p);
/* On input p is on the curve. 1 if p is in the prime-order subgroup (the
 * point at infinity is). Group-specific fast test. */
int EC_FN(in_subgroup_var)(const EC_JAC *p);
int EC_FN(affine_in_subgroup_var)(const EC_AFF *p);
/* On input p is on the curve. r is a multiple of p that lies in the
 * prime-order subgroup (group-specific: see curve.h). */
void EC_FN(clear_cofactor_var)(EC_JAC *r, const EC_JAC *p);

#undef EC_AFF
#undef EC_JAC
#undef EC_XYZZ
#undef EC_FN
#undef EC_K
#undef ECF_T
#undef ECF
