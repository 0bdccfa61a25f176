/* Group property tests, instantiated once per group by test_curve.c with
 *
 *   #define G   bn254_g1     the group
 *   #define GF  bn254_fq     its coordinate field
 *   #define GS  bn254_fr     its scalar field (modulus r = the group order)
 *   #define GSK BN254_FR     the scalar field's constant prefix
 *   #define G_COFACTOR_ONE 1 when every point on the curve is in the group
 *
 * test_curve.c defines test_rand_GF(), a field element drawn from the seeded
 * test generator. Each function below is one generic body; test_curve.c wraps
 * them in named TEST_CASEs. */
#define TG(op) ZKP_CAT(ZKP_CAT(test_, G), ZKP_CAT(_, op))
#define GFN(op) ZKP_CAT(ZKP_CAT(G, _), op)
#define FFN(op) ZKP_CAT(ZKP_CAT(GF, _), op)
#define SFN(op) ZKP_CAT(ZKP_CAT(GS, _), op)
#define SK(k) ZKP_CAT(ZKP_CAT(GSK, _), k)
#define AFF ZKP_CAT(G, _affine_t)
#define JAC ZKP_CAT(G, _jacobian_t)
#define XYZZ ZKP_CAT(G, _xyzz_t)
#define FT ZKP_CAT(GF, _t)
#define ST ZKP_CAT(GS, _t)
#define SLIMBS SK(LIMBS)
#define SBITS SK(BITS)

/* On failure prints both points in affine form, as raw Montgomery limbs. */
#include "point_assert_impl.h"

static void TG(rand_nonzero)(FT *r) {
    do {
        test_rand_field(r);
    } while (FFN(is_zero)(r));
}

/* Try and increment: a random x, then x + 1, x + 2, ... until x^3 + b is a
 * square; y is the root sqrt_var picks, negated half of the time. The point
 * is on the curve but, when the cofactor is not 1, almost surely outside the
 * group. */
static void TG(rand_curve_point)(AFF *r) {
    FT x, y, rhs, one;
    FFN(set_one)(&one);
    test_rand_field(&x);
    for (;;) {
        FFN(sqr)(&rhs, &x);
        FFN(mul)(&rhs, &rhs, &x);
        FFN(add)(&rhs, &rhs, &GFN(b));
        if (FFN(sqrt_var)(&y, &rhs)) break;
        FFN(add)(&x, &x, &one);
    }
    if (test_rng_u64() & 1) FFN(neg)(&y, &y);
    r->x = x;
    r->y = y;
    ASSERT(GFN(affine_is_on_curve)(r));
}

/* The same point with a random Z: (X z^2, Y z^3, Z z). */
static void TG(rescale)(JAC *r, const JAC *p) {
    FT z, z2, z3;
    TG(rand_nonzero)(&z);
    FFN(sqr)(&z2, &z);
    FFN(mul)(&z3, &z2, &z);
    FFN(mul)(&r->x, &p->x, &z2);
    FFN(mul)(&r->y, &p->y, &z3);
    FFN(mul)(&r->z, &p->z, &z);
}

/* A point of the curve outside the group (when there is a cofactor), in
 * Jacobian form with a random Z. */
static void TG(rand_curve_jac)(JAC *r) {
    AFF a;
    TG(rand_curve_point)(&a);
    GFN(from_affine)(r, &a);
    TG(rescale)(r, r);
}

/* A random point of the group: a curve point with its cofactor cleared. */
static void TG(rand_group_jac)(JAC *r) {
    TG(rand_curve_jac)(r);
    GFN(clear_cofactor_var)(r, r);
    ASSERT(!GFN(is_infinity)(r));
    TG(rescale)(r, r);
}

/* XYZZ form of p with a random scale: (x zz, y zzz, zz, zzz), zz = z^2, zzz = z^3. */
static void TG(to_xyzz)(XYZZ *r, const JAC *p) {
    AFF a;
    FT z, zz, zzz;
    GFN(to_affine)(&a, p);
    GFN(xyzz_from_affine)(r, &a);
    if (GFN(is_infinity)(p)) return;
    TG(rand_nonzero)(&z);
    FFN(sqr)(&zz, &z);
    FFN(mul)(&zzz, &zz, &z);
    FFN(mul)(&r->x, &r->x, &zz);
    FFN(mul)(&r->y, &r->y, &zzz);
    r->zz = zz;
    r->zzz = zzz;
}

static void TG(from_xyzz)(JAC *r, const XYZZ *p) {
    ASSERT(GFN(xyzz_is_on_curve)(p));
    GFN(xyzz_to_jacobian)(r, p);
    ASSERT(GFN(is_on_curve)(r));
}

/* A random scalar below r, as canonical limbs, with its field element. */
static void TG(rand_scalar)(uint64_t k[SLIMBS], ST *s) {
    ST c;
    do {
        test_rng_bytes(c.l, sizeof c.l);
        c.l[SLIMBS - 1] &= (~(uint64_t)0) >> (64 * SLIMBS - SBITS);
    } while (!SFN(is_reduced)(&c));
    if (s) SFN(to_mont)(s, &c);
    memcpy(k, c.l, sizeof c.l);
}

/* Left-to-right double-and-add over add and dbl: the reference for mul. */
static void TG(mul_ref)(JAC *r, const JAC *p, const uint64_t *k, size_t nbits) {
    JAC acc;
    GFN(set_infinity)(&acc);
    for (size_t i = nbits; i-- > 0;) {
        GFN(dbl)(&acc, &acc);
        if ((k[i / 64] >> (i % 64)) & 1) GFN(add)(&acc, &acc, p);
    }
    *r = acc;
}

static void TG(generator)(void) {
    AFF g, ga;
    JAC gj, t;
    static const ST r = {SK(MODULUS)};
    GFN(generator)(&g);
    ASSERT(GFN(affine_is_on_curve)(&g));
    ASSERT(!GFN(affine_is_infinity)(&g));
    ASSERT(GFN(affine_in_subgroup_var)(&g));
    GFN(from_affine)(&gj, &g);
    ASSERT(GFN(is_on_curve)(&gj));
    ASSERT(GFN(in_subgroup_slow_var)(&gj));
    ASSERT(GFN(in_subgroup_var)(&gj));
    GFN(mul)(&t, &gj, r.l, SBITS);
    ASSERT(GFN(is_infinity)(&t));
    GFN(mul_var)(&t, &gj, r.l, SBITS);
    ASSERT(GFN(is_infinity)(&t));
    GFN(to_affine)(&ga, &gj);
    ASSERT(GFN(affine_eq)(&ga, &g));
}

static void TG(group_laws)(void) {
    unsigned iters = test_iters(40);
    for (unsigned it = 0; it < iters; it++) {
        JAC p, q, s, t1, t2, t3;
        AFF qa, pa, npa;
        /* Group points, and (on curves with a cofactor) arbitrary curve points:
         * the law holds on the whole curve. */
        if (it % 2) {
            TG(rand_group_jac)(&p);
            TG(rand_group_jac)(&q);
            TG(rand_group_jac)(&s);
        } else {
            TG(rand_curve_jac)(&p);
            TG(rand_curve_jac)(&q);
            TG(rand_curve_jac)(&s);
        }
        /* (p + q) + s == p + (q + s); p + q == q + p */
        GFN(add)(&t1, &p, &q);
        GFN(add)(&t1, &t1, &s);
        GFN(add)(&t2, &q, &s);
        GFN(add)(&t2, &p, &t2);
        ASSERT_PT_EQ("associativity", &t1, &t2);
        ASSERT(GFN(is_on_curve)(&t1) && GFN(is_on_curve)(&t2));
        /* eq is a projective comparison: true across scalings, false for -p and q. */
        TG(rescale)(&t3, &p);
        ASSERT(GFN(eq)(&p, &t3) && GFN(eq)(&t3, &p));
        GFN(neg)(&t3, &t3);
        ASSERT(!GFN(eq)(&p, &t3) && !GFN(eq)(&t3, &p));
        ASSERT(!GFN(eq)(&p, &q));
        GFN(add)(&t1, &p, &q);
        GFN(add)(&t2, &q, &p);
        ASSERT_PT_EQ("commutativity", &t1, &t2);
        ASSERT(!GFN(is_infinity)(&t1));
        /* p - q + q == p */
        GFN(sub)(&t2, &t1, &q);
        ASSERT_PT_EQ("sub", &t2, &p);
        /* p + (-p) == inf, also with a different Z for -p; p - p == inf */
        GFN(neg)(&t1, &p);
        TG(rescale)(&t1, &t1);
        GFN(add)(&t2, &p, &t1);
        ASSERT(GFN(is_infinity)(&t2));
        GFN(sub)(&t2, &p, &p);
        ASSERT(GFN(is_infinity)(&t2));
        /* p + p via add == dbl, with equal and with different Z */
        GFN(dbl)(&t1, &p);
        GFN(add)(&t2, &p, &p);
        ASSERT_PT_EQ("add(p, p) == dbl(p)", &t2, &t1);
        TG(rescale)(&t3, &p);
        GFN(add)(&t2, &p, &t3);
        ASSERT_PT_EQ("add(p, p') == dbl(p)", &t2, &t1);
        /* dbl == add of p to itself through the mixed formula */
        GFN(to_affine)(&pa, &p);
        GFN(add_affine)(&t2, &t3, &pa);
        ASSERT_PT_EQ("add_affine(p, p) == dbl(p)", &t2, &t1);
        GFN(affine_neg)(&npa, &pa);
        GFN(add_affine)(&t2, &t3, &npa);
        ASSERT(GFN(is_infinity)(&t2));
        /* add_affine == add */
        GFN(to_affine)(&qa, &q);
        GFN(add_affine)(&t1, &p, &qa);
        GFN(add)(&t2, &p, &q);
        ASSERT_PT_EQ("add_affine == add", &t1, &t2);
        /* dbl(p + q) == dbl(p) + dbl(q) */
        GFN(dbl)(&t1, &t2);
        GFN(dbl)(&t2, &p);
        GFN(dbl)(&t3, &q);
        GFN(add)(&t2, &t2, &t3);
        ASSERT_PT_EQ("dbl distributes", &t1, &t2);
        /* aliasing: r == p and r == q */
        t1 = p;
        GFN(add)(&t1, &t1, &q);
        t2 = q;
        GFN(add)(&t2, &p, &t2);
        ASSERT_PT_EQ("aliased add", &t1, &t2);
    }
}

static void TG(infinity_handling)(void) {
    JAC inf, inf2, p, t;
    AFF ainf, pa, ta;
    XYZZ xinf, xp, xt;
    TG(rand_group_jac)(&p);
    GFN(to_affine)(&pa, &p);
    GFN(set_infinity)(&inf);
    ASSERT(GFN(is_infinity)(&inf) && GFN(is_on_curve)(&inf));
    GFN(affine_set_infinity)(&ainf);
    ASSERT(GFN(affine_is_infinity)(&ainf) && GFN(affine_is_on_curve)(&ainf));
    GFN(from_affine)(&inf2, &ainf); /* (0, 0, 0): a second representation */
    ASSERT(GFN(is_infinity)(&inf2));
    ASSERT(GFN(eq)(&inf, &inf2));
    ASSERT(!GFN(eq)(&inf, &p) && !GFN(eq)(&p, &inf));
    GFN(to_affine)(&ta, &inf);
    ASSERT(GFN(affine_is_infinity)(&ta));
    GFN(neg)(&t, &inf);
    ASSERT(GFN(is_infinity)(&t));
    GFN(affine_neg)(&ta, &ainf);
    ASSERT(GFN(affine_is_infinity)(&ta));
    const JAC *infs[2] = {&inf, &inf2};
    for (int i = 0; i < 2; i++) {
        const JAC *o = infs[i];
        GFN(dbl)(&t, o);
        ASSERT(GFN(is_infinity)(&t));
        GFN(add)(&t, o, &p);
        ASSERT_PT_EQ("inf + p", &t, &p);
        GFN(add)(&t, &p, o);
        ASSERT_PT_EQ("p + inf", &t, &p);
        GFN(add)(&t, o, o);
        ASSERT(GFN(is_infinity)(&t));
        GFN(add)(&t, o, infs[1 - i]);
        ASSERT(GFN(is_infinity)(&t));
        GFN(sub)(&t, o, &p);
        GFN(neg)(&t, &t);
        ASSERT_PT_EQ("inf - p", &t, &p);
        GFN(add_affine)(&t, o, &pa);
        ASSERT_PT_EQ("inf + affine p", &t, &p);
        GFN(add_affine)(&t, o, &ainf);
        ASSERT(GFN(is_infinity)(&t));
    }
    GFN(add_affine)(&t, &p, &ainf);
    ASSERT_PT_EQ("p + affine inf", &t, &p);
    /* XYZZ */
    GFN(xyzz_set_infinity)(&xinf);
    ASSERT(GFN(xyzz_is_infinity)(&xinf) && GFN(xyzz_is_on_curve)(&xinf));
    GFN(xyzz_to_jacobian)(&t, &xinf);
    ASSERT(GFN(is_infinity)(&t));
    GFN(xyzz_from_affine)(&xt, &ainf);
    ASSERT(GFN(xyzz_is_infinity)(&xt));
    TG(to_xyzz)(&xp, &p);
    GFN(xyzz_dbl)(&xt, &xinf);
    ASSERT(GFN(xyzz_is_infinity)(&xt));
    GFN(xyzz_add)(&xt, &xinf, &xp);
    TG(from_xyzz)(&t, &xt);
    ASSERT_PT_EQ("xyzz inf + p", &t, &p);
    GFN(xyzz_add)(&xt, &xp, &xinf);
    TG(from_xyzz)(&t, &xt);
    ASSERT_PT_EQ("xyzz p + inf", &t, &p);
    GFN(xyzz_add)(&xt, &xinf, &xinf);
    ASSERT(GFN(xyzz_is_infinity)(&xt));
    GFN(xyzz_add_affine)(&xt, &xinf, &pa);
    TG(from_xyzz)(&t, &xt);
    ASSERT_PT_EQ("xyzz inf + affine p", &t, &p);
    GFN(xyzz_add_affine)(&xt, &xp, &ainf);
    TG(from_xyzz)(&t, &xt);
    ASSERT_PT_EQ("xyzz p + affine inf", &t, &p);
    GFN(xyzz_add_affine)(&xt, &xinf, &ainf);
    ASSERT(GFN(xyzz_is_infinity)(&xt));
    GFN(xyzz_add_var)(&xt, &xinf, &xp);
    TG(from_xyzz)(&t, &xt);
    ASSERT_PT_EQ("xyzz_var inf + p", &t, &p);
    GFN(xyzz_add_var)(&xt, &xp, &xinf);
    TG(from_xyzz)(&t, &xt);
    ASSERT_PT_EQ("xyzz_var p + inf", &t, &p);
    GFN(xyzz_add_var)(&xt, &xinf, &xinf);
    ASSERT(GFN(xyzz_is_infinity)(&xt));
    GFN(xyzz_add_affine_var)(&xt, &xinf, &pa);
    TG(from_xyzz)(&t, &xt);
    ASSERT_PT_EQ("xyzz_var inf + affine p", &t, &p);
    GFN(xyzz_add_affine_var)(&xt, &xp, &ainf);
    TG(from_xyzz)(&t, &xt);
    ASSERT_PT_EQ("xyzz_var p + affine inf", &t, &p);
    GFN(xyzz_add_affine_var)(&xt, &xinf, &ainf);
    ASSERT(GFN(xyzz_is_infinity)(&xt));
    /* Scalar multiplications of infinity. */
    uint64_t k[SLIMBS];
    TG(rand_scalar)(k, NULL);
    GFN(mul)(&t, &inf, k, SBITS);
    ASSERT(GFN(is_infinity)(&t));
    GFN(mul_var)(&t, &inf2, k, SBITS);
    ASSERT(GFN(is_infinity)(&t));
    ASSERT(GFN(in_subgroup_var)(&inf) && GFN(in_subgroup_slow_var)(&inf));
    ASSERT(GFN(affine_in_subgroup_var)(&ainf));
}

static void TG(xyzz_matches_jacobian)(void) {
    unsigned iters = test_iters(40);
    for (unsigned it = 0; it < iters; it++) {
        JAC p, q, t1, t2, np;
        AFF qa, pa, npa;
        XYZZ xp, xq, xp2, xt;
        if (it % 2) {
            TG(rand_group_jac)(&p);
            TG(rand_group_jac)(&q);
        } else {
            TG(rand_curve_jac)(&p);
            TG(rand_curve_jac)(&q);
        }
        TG(to_xyzz)(&xp, &p);
        TG(to_xyzz)(&xp2, &p); /* the same point, another scale */
        TG(to_xyzz)(&xq, &q);
        GFN(to_affine)(&qa, &q);
        GFN(to_affine)(&pa, &p);
        TG(from_xyzz)(&t1, &xp);
        ASSERT_PT_EQ("xyzz round trip", &t1, &p);
        GFN(add)(&t2, &p, &q);
        GFN(xyzz_add)(&xt, &xp, &xq);
        TG(from_xyzz)(&t1, &xt);
        ASSERT_PT_EQ("xyzz_add", &t1, &t2);
        GFN(xyzz_add_var)(&xt, &xp, &xq);
        TG(from_xyzz)(&t1, &xt);
        ASSERT_PT_EQ("xyzz_add_var", &t1, &t2);
        GFN(xyzz_add_affine)(&xt, &xp, &qa);
        TG(from_xyzz)(&t1, &xt);
        ASSERT_PT_EQ("xyzz_add_affine", &t1, &t2);
        GFN(xyzz_add_affine_var)(&xt, &xp, &qa);
        TG(from_xyzz)(&t1, &xt);
        ASSERT_PT_EQ("xyzz_add_affine_var", &t1, &t2);
        GFN(dbl)(&t2, &p);
        GFN(xyzz_dbl)(&xt, &xp);
        TG(from_xyzz)(&t1, &xt);
        ASSERT_PT_EQ("xyzz_dbl", &t1, &t2);
        GFN(xyzz_add)(&xt, &xp, &xp2);
        TG(from_xyzz)(&t1, &xt);
        ASSERT_PT_EQ("xyzz_add(p, p)", &t1, &t2);
        GFN(xyzz_add_affine)(&xt, &xp2, &pa);
        TG(from_xyzz)(&t1, &xt);
        ASSERT_PT_EQ("xyzz_add_affine(p, p)", &t1, &t2);
        GFN(xyzz_add_var)(&xt, &xp, &xp2);
        TG(from_xyzz)(&t1, &xt);
        ASSERT_PT_EQ("xyzz_add_var(p, p)", &t1, &t2);
        GFN(xyzz_add_affine_var)(&xt, &xp2, &pa);
        TG(from_xyzz)(&t1, &xt);
        ASSERT_PT_EQ("xyzz_add_affine_var(p, p)", &t1, &t2);
        GFN(neg)(&np, &p);
        GFN(affine_neg)(&npa, &pa);
        XYZZ xnp;
        TG(to_xyzz)(&xnp, &np);
        GFN(xyzz_add)(&xt, &xp, &xnp);
        ASSERT(GFN(xyzz_is_infinity)(&xt));
        GFN(xyzz_add_affine)(&xt, &xp, &npa);
        ASSERT(GFN(xyzz_is_infinity)(&xt));
        GFN(xyzz_add_var)(&xt, &xp, &xnp);
        ASSERT(GFN(xyzz_is_infinity)(&xt));
        GFN(xyzz_add_affine_var)(&xt, &xp, &npa);
        ASSERT(GFN(xyzz_is_infinity)(&xt));
        /* A bucket-style chain: sum of p, q, p, -q, p through mixed additions is 3p. */
        GFN(xyzz_set_infinity)(&xt);
        AFF nqa;
        GFN(affine_neg)(&nqa, &qa);
        const AFF *chain[5] = {&pa, &qa, &pa, &nqa, &pa};
        for (int i = 0; i < 5; i++) GFN(xyzz_add_affine)(&xt, &xt, chain[i]);
        TG(from_xyzz)(&t1, &xt);
        GFN(dbl)(&t2, &p);
        GFN(add)(&t2, &t2, &p);
        ASSERT_PT_EQ("bucket chain", &t1, &t2);
        GFN(xyzz_set_infinity)(&xt);
        for (int i = 0; i < 5; i++) GFN(xyzz_add_affine_var)(&xt, &xt, chain[i]);
        TG(from_xyzz)(&t1, &xt);
        ASSERT_PT_EQ("bucket chain (var)", &t1, &t2);
        /* Aliased outputs: r == q for the two-input XYZZ additions. */
        XYZZ xa = xq;
        GFN(xyzz_add)(&xa, &xp, &xa);
        XYZZ xb = xq;
        GFN(xyzz_add_var)(&xb, &xp, &xb);
        TG(from_xyzz)(&t1, &xa);
        TG(from_xyzz)(&t2, &xb);
        ASSERT_PT_EQ("aliased xyzz_add", &t1, &t2);
        GFN(add)(&t2, &p, &q);
        ASSERT_PT_EQ("aliased xyzz_add == add", &t1, &t2);
    }
}

static void TG(to_affine_batch)(void) {
    enum { N = 17 };
    JAC pts[N];
    AFF out[N], one;
    for (int i = 0; i < N; i++) {
        if (i % 5 == 3)
            GFN(set_infinity)(&pts[i]);
        else
            TG(rand_curve_jac)(&pts[i]);
    }
    GFN(batch_to_affine_var)(out, pts, N);
    for (int i = 0; i < N; i++) {
        GFN(to_affine)(&one, &pts[i]);
        ASSERT(GFN(affine_eq)(&one, &out[i]));
        ASSERT(GFN(affine_is_on_curve)(&out[i]));
        ASSERT_EQ_INT(GFN(affine_is_infinity)(&out[i]), i % 5 == 3);
        JAC back;
        GFN(from_affine)(&back, &out[i]);
        ASSERT_PT_EQ("affine round trip", &back, &pts[i]);
    }
    GFN(batch_to_affine_var)(out, pts, 1);
    GFN(to_affine)(&one, &pts[0]);
    ASSERT(GFN(affine_eq)(&one, &out[0]));
    GFN(batch_to_affine_var)(out, pts, 0);
    /* All at infinity. */
    for (int i = 0; i < 3; i++) GFN(set_infinity)(&pts[i]);
    GFN(batch_to_affine_var)(out, pts, 3);
    for (int i = 0; i < 3; i++) ASSERT(GFN(affine_is_infinity)(&out[i]));
}

static void TG(mul_matches_reference)(void) {
    unsigned iters = test_iters(16);
    for (unsigned it = 0; it < iters; it++) {
        JAC p, a, b, c;
        uint64_t k[SLIMBS + 1] = {0};
        if (it % 2)
            TG(rand_group_jac)(&p);
        else
            TG(rand_curve_jac)(&p);
        /* A reduced scalar, then a full-width one (>= r allowed) one limb longer. */
        TG(rand_scalar)(k, NULL);
        GFN(mul)(&a, &p, k, SBITS);
        GFN(mul_var)(&b, &p, k, SBITS);
        TG(mul_ref)(&c, &p, k, SBITS);
        ASSERT_PT_EQ("mul == reference", &a, &c);
        ASSERT_PT_EQ("mul_var == reference", &b, &c);
        test_rng_bytes(k, sizeof k);
        size_t nbits = 64 * (SLIMBS + 1) - (size_t)(test_rng_u64() % 70);
        GFN(mul)(&a, &p, k, nbits);
        GFN(mul_var)(&b, &p, k, nbits);
        TG(mul_ref)(&c, &p, k, nbits);
        ASSERT_PT_EQ("wide mul == reference", &a, &c);
        ASSERT_PT_EQ("wide mul_var == reference", &b, &c);
        /* Short scalars of every length up to 70 bits, including ones that end inside a window. */
        for (size_t bits = 0; bits <= 70; bits += 1 + (size_t)(test_rng_u64() % 9)) {
            uint64_t s[2];
            test_rng_bytes(s, sizeof s);
            GFN(mul)(&a, &p, s, bits);
            GFN(mul_var)(&b, &p, s, bits);
            TG(mul_ref)(&c, &p, s, bits);
            ASSERT_PT_EQ("short mul == reference", &a, &c);
            ASSERT_PT_EQ("short mul_var == reference", &b, &c);
        }
    }
}

static void TG(mul_edge_scalars)(void) {
    static const ST r = {SK(MODULUS)};
    JAC p, np, a, b, t;
    uint64_t k[SLIMBS];
    TG(rand_group_jac)(&p);
    GFN(neg)(&np, &p);
    /* 0, 1, 2, r - 1, r, r + 1, and all ones over SBITS bits. */
    for (int e = 0; e < 7; e++) {
        memset(k, 0, sizeof k);
        switch (e) {
        case 0: break;
        case 1: k[0] = 1; break;
        case 2: k[0] = 2; break;
        case 3: memcpy(k, r.l, sizeof k), k[0] -= 1; break;
        case 4: memcpy(k, r.l, sizeof k); break;
        case 5: memcpy(k, r.l, sizeof k), k[0] += 1; break;
        default: memset(k, 0xff, sizeof k), k[SLIMBS - 1] >>= 64 * SLIMBS - SBITS; break;
        }
        GFN(mul)(&a, &p, k, SBITS);
        GFN(mul_var)(&b, &p, k, SBITS);
        ASSERT_PT_EQ("edge mul == mul_var", &a, &b);
        TG(mul_ref)(&t, &p, k, SBITS);
        ASSERT_PT_EQ("edge mul == reference", &a, &t);
        switch (e) {
        case 0: ASSERT(GFN(is_infinity)(&a)); break;
        case 1: ASSERT_PT_EQ("[1]p", &a, &p); break;
        case 2: GFN(dbl)(&t, &p), ASSERT_PT_EQ("[2]p", &a, &t); break;
        case 3: ASSERT_PT_EQ("[r-1]p", &a, &np); break;
        case 4: ASSERT(GFN(is_infinity)(&a)); break;
        case 5: ASSERT_PT_EQ("[r+1]p", &a, &p); break;
        default: break;
        }
    }
    /* [k] p for p outside the group and k = r: not infinity (when there is a cofactor). */
    if (!G_COFACTOR_ONE) {
        TG(rand_curve_jac)(&p);
        GFN(mul)(&a, &p, r.l, SBITS);
        ASSERT(!GFN(is_infinity)(&a));
        GFN(mul_var)(&b, &p, r.l, SBITS);
        ASSERT_PT_EQ("[r] outside the group", &a, &b);
    }
}

static void TG(mul_composes)(void) {
    unsigned iters = test_iters(10);
    for (unsigned it = 0; it < iters; it++) {
        JAC p, t1, t2, t3;
        ST a, b, c, kc;
        uint64_t ka[SLIMBS], kb[SLIMBS];
        TG(rand_group_jac)(&p);
        TG(rand_scalar)(ka, &a);
        TG(rand_scalar)(kb, &b);
        /* [a]([b] p) == [a b mod r] p */
        SFN(mul)(&c, &a, &b);
        SFN(from_mont)(&kc, &c);
        GFN(mul)(&t1, &p, kb, SBITS);
        GFN(mul)(&t1, &t1, ka, SBITS);
        GFN(mul_var)(&t2, &p, kc.l, SBITS);
        ASSERT_PT_EQ("[a][b]p == [ab]p", &t1, &t2);
        /* [a] p + [b] p == [a + b mod r] p */
        SFN(add)(&c, &a, &b);
        SFN(from_mont)(&kc, &c);
        GFN(mul_var)(&t1, &p, ka, SBITS);
        GFN(mul)(&t2, &p, kb, SBITS);
        GFN(add)(&t1, &t1, &t2);
        GFN(mul)(&t3, &p, kc.l, SBITS);
        ASSERT_PT_EQ("[a]p + [b]p == [a+b]p", &t1, &t3);
        /* [-a] p == -[a] p */
        SFN(neg)(&c, &a);
        SFN(from_mont)(&kc, &c);
        GFN(mul)(&t1, &p, kc.l, SBITS);
        GFN(mul_var)(&t2, &p, ka, SBITS);
        GFN(neg)(&t2, &t2);
        ASSERT_PT_EQ("[-a]p == -[a]p", &t1, &t2);
    }
}

static void TG(on_curve_rejects_tweaked)(void) {
    unsigned iters = test_iters(30);
    FT one;
    FFN(set_one)(&one);
    for (unsigned it = 0; it < iters; it++) {
        AFF a, t;
        JAC j, tj;
        XYZZ x, tx;
        TG(rand_curve_point)(&a);
        /* y + 1, x + 1, and -y (which stays on the curve). */
        t = a;
        FFN(add)(&t.y, &t.y, &one);
        ASSERT(!GFN(affine_is_on_curve)(&t));
        t = a;
        FFN(add)(&t.x, &t.x, &one);
        ASSERT(!GFN(affine_is_on_curve)(&t));
        GFN(affine_neg)(&t, &a);
        ASSERT(GFN(affine_is_on_curve)(&t));
        /* Zero in one coordinate only: not infinity, and not on the curve. */
        t = a;
        FFN(set_zero)(&t.y);
        ASSERT(!GFN(affine_is_infinity)(&t) && !GFN(affine_is_on_curve)(&t));
        /* Jacobian: tweak each coordinate of a valid point. */
        GFN(from_affine)(&j, &a);
        TG(rescale)(&j, &j);
        ASSERT(GFN(is_on_curve)(&j));
        tj = j;
        FFN(add)(&tj.x, &tj.x, &one);
        ASSERT(!GFN(is_on_curve)(&tj));
        tj = j;
        FFN(add)(&tj.y, &tj.y, &one);
        ASSERT(!GFN(is_on_curve)(&tj));
        tj = j;
        FFN(add)(&tj.z, &tj.z, &one);
        ASSERT(!GFN(is_on_curve)(&tj));
        /* XYZZ: the curve equation, and the ZZ^3 = ZZZ^2 invariant. */
        TG(to_xyzz)(&x, &j);
        ASSERT(GFN(xyzz_is_on_curve)(&x));
        tx = x;
        FFN(add)(&tx.y, &tx.y, &one);
        ASSERT(!GFN(xyzz_is_on_curve)(&tx));
        tx = x;
        FFN(add)(&tx.zzz, &tx.zzz, &one);
        ASSERT(!GFN(xyzz_is_on_curve)(&tx));
        tx = x;
        FFN(set_zero)(&tx.zzz);
        ASSERT(!GFN(xyzz_is_on_curve)(&tx));
    }
}

/* Generator, infinity and random group points are accepted; random curve
 * points (outside the group when there is a cofactor) are rejected. */
static void TG(subgroup_accepts_and_rejects)(void) {
    unsigned iters = test_iters(16);
    AFF g;
    JAC gj, t;
    GFN(generator)(&g);
    GFN(from_affine)(&gj, &g);
    ASSERT(GFN(in_subgroup_var)(&gj));
    TG(rescale)(&t, &gj);
    ASSERT(GFN(in_subgroup_var)(&t));
    for (unsigned it = 0; it < iters; it++) {
        AFF a;
        TG(rand_group_jac)(&t);
        ASSERT(GFN(in_subgroup_var)(&t));
        GFN(to_affine)(&a, &t);
        ASSERT(GFN(affine_in_subgroup_var)(&a));
        TG(rand_curve_jac)(&t);
        GFN(to_affine)(&a, &t);
        ASSERT_EQ_INT(GFN(in_subgroup_var)(&t), G_COFACTOR_ONE);
        ASSERT_EQ_INT(GFN(affine_in_subgroup_var)(&a), G_COFACTOR_ONE);
        /* The sum of a group point and an outside point is outside too. */
        JAC u;
        GFN(add)(&u, &t, &gj);
        ASSERT_EQ_INT(GFN(in_subgroup_var)(&u), G_COFACTOR_ONE);
    }
}

/* The fast test against [r] P = infinity, on points of both kinds. */
static void TG(subgroup_fast_matches_slow)(void) {
    unsigned iters = test_iters(64);
    unsigned inside = 0, outside = 0;
    for (unsigned it = 0; it < iters; it++) {
        JAC p;
        if (it % 2)
            TG(rand_group_jac)(&p);
        else
            TG(rand_curve_jac)(&p);
        int slow = GFN(in_subgroup_slow_var)(&p);
        int fast = GFN(in_subgroup_var)(&p);
        ASSERT_EQ_INT(fast, slow);
        if (slow)
            inside++;
        else
            outside++;
    }
    ASSERT(inside >= iters / 2);
    if (!G_COFACTOR_ONE) ASSERT(outside >= iters / 2);
}

static void TG(clear_cofactor)(void) {
    unsigned iters = test_iters(12);
    for (unsigned it = 0; it < iters; it++) {
        JAC p, c, t;
        TG(rand_curve_jac)(&p);
        GFN(clear_cofactor_var)(&c, &p);
        ASSERT(GFN(is_on_curve)(&c));
        ASSERT(!GFN(is_infinity)(&c));
        ASSERT(GFN(in_subgroup_slow_var)(&c));
        ASSERT(GFN(in_subgroup_var)(&c));
        /* Clearing commutes with the group law: it is a multiplication. */
        GFN(dbl)(&t, &p);
        GFN(clear_cofactor_var)(&t, &t);
        GFN(dbl)(&c, &c);
        ASSERT_PT_EQ("clear(2p) == 2 clear(p)", &t, &c);
    }
}

#undef ASSERT_PT_EQ
#undef TG
#undef GFN
#undef FFN
#undef SFN
#undef SK
#undef AFF
#undef JAC
#undef XYZZ
#undef FT
#undef ST
#undef SLIMBS
#undef SBITS
#undef G
#undef GF
#undef GS
#undef GSK
#undef G_COFACTOR_ONE
#undef test_rand_field
