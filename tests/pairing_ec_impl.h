/* A deliberately small short-Weierstrass group (y^2 = x^3 + b) for the
 * pairing tests: Jacobian coordinates, textbook formulas, a double-and-add
 * scalar multiplication. It only has to produce points for the pairing
 * tests, independently of the curve layer, so it favours plainness; it is
 * not constant time. Instantiated by test_pairing.c with
 *   #define EC test_bn254_g1   (prefix of the names)
 *   #define EF bn254_fq        (the coordinate field: Fp or Fp2)
 *   #define EA bn254_g1_affine_t   (the affine type, (0, 0) = infinity) */
#define EC_T ZKP_CAT(EC, _jac_t)
#define EC_FN(op) ZKP_CAT(ZKP_CAT(EC, _), op)
#define EF_T ZKP_CAT(EF, _t)
#define EF_FN(op) ZKP_CAT(ZKP_CAT(EF, _), op)

typedef struct {
    EF_T x, y, z; /* (X/Z^2, Y/Z^3); Z = 0 is the point at infinity */
} EC_T;

static void EC_FN(from_affine)(EC_T *r, const EA *a) {
    r->x = a->x;
    r->y = a->y;
    EF_FN(set_one)(&r->z);
    if (EF_FN(is_zero)(&a->x) && EF_FN(is_zero)(&a->y)) EF_FN(set_zero)(&r->z);
}

static void EC_FN(to_affine)(EA *r, const EC_T *a) {
    EF_T zi, zi2;
    if (EF_FN(is_zero)(&a->z)) {
        EF_FN(set_zero)(&r->x);
        EF_FN(set_zero)(&r->y);
        return;
    }
    EF_FN(inv_var)(&zi, &a->z);
    EF_FN(sqr)(&zi2, &zi);
    EF_FN(mul)(&r->x, &a->x, &zi2);
    EF_FN(mul)(&zi2, &zi2, &zi);
    EF_FN(mul)(&r->y, &a->y, &zi2);
}

/* Doubling for a = 0 (Cohen, Miyaji, Ono): with A = X^2, B = Y^2, C = B^2,
 * D = 2((X + B)^2 - A - C), E = 3A: X3 = E^2 - 2D, Y3 = E(D - X3) - 8C,
 * Z3 = 2YZ. */
static void EC_FN(dbl)(EC_T *r, const EC_T *a) {
    EF_T A, B, C, D, E, t;
    EF_FN(sqr)(&A, &a->x);
    EF_FN(sqr)(&B, &a->y);
    EF_FN(sqr)(&C, &B);
    EF_FN(add)(&D, &a->x, &B);
    EF_FN(sqr)(&D, &D);
    EF_FN(sub)(&D, &D, &A);
    EF_FN(sub)(&D, &D, &C);
    EF_FN(dbl)(&D, &D);
    EF_FN(dbl)(&E, &A);
    EF_FN(add)(&E, &E, &A);
    EF_FN(mul)(&t, &a->y, &a->z);
    EF_FN(dbl)(&r->z, &t);
    EF_FN(sqr)(&t, &E);
    EF_FN(sub)(&t, &t, &D);
    EF_FN(sub)(&r->x, &t, &D);
    EF_FN(sub)(&t, &D, &r->x);
    EF_FN(mul)(&t, &E, &t);
    EF_FN(dbl)(&C, &C);
    EF_FN(dbl)(&C, &C);
    EF_FN(dbl)(&C, &C);
    EF_FN(sub)(&r->y, &t, &C);
}

/* General addition, with the equal and opposite cases handled by branches. */
static void EC_FN(add)(EC_T *r, const EC_T *a, const EC_T *b) {
    EF_T z1z1, z2z2, u1, u2, s1, s2, h, rr, hh, hhh, v, t;
    if (EF_FN(is_zero)(&a->z)) {
        *r = *b;
        return;
    }
    if (EF_FN(is_zero)(&b->z)) {
        *r = *a;
        return;
    }
    EF_FN(sqr)(&z1z1, &a->z);
    EF_FN(sqr)(&z2z2, &b->z);
    EF_FN(mul)(&u1, &a->x, &z2z2);
    EF_FN(mul)(&u2, &b->x, &z1z1);
    EF_FN(mul)(&s1, &a->y, &b->z);
    EF_FN(mul)(&s1, &s1, &z2z2);
    EF_FN(mul)(&s2, &b->y, &a->z);
    EF_FN(mul)(&s2, &s2, &z1z1);
    if (EF_FN(eq)(&u1, &u2)) {
        if (EF_FN(eq)(&s1, &s2)) {
            EC_FN(dbl)(r, a);
        } else {
            EF_FN(set_one)(&r->x);
            EF_FN(set_one)(&r->y);
            EF_FN(set_zero)(&r->z);
        }
        return;
    }
    EF_FN(sub)(&h, &u2, &u1);
    EF_FN(sub)(&rr, &s2, &s1);
    EF_FN(sqr)(&hh, &h);
    EF_FN(mul)(&hhh, &hh, &h);
    EF_FN(mul)(&v, &u1, &hh);
    EF_FN(mul)(&t, &a->z, &b->z);
    EF_FN(mul)(&r->z, &t, &h);
    EF_FN(sqr)(&t, &rr);
    EF_FN(sub)(&t, &t, &hhh);
    EF_FN(sub)(&t, &t, &v);
    EF_FN(sub)(&t, &t, &v);
    EF_FN(sub)(&v, &v, &t);
    EF_FN(mul)(&v, &rr, &v);
    EF_FN(mul)(&s1, &s1, &hhh);
    EF_FN(sub)(&r->y, &v, &s1);
    r->x = t;
}

/* r = k·a for k as little-endian limbs, most significant bit first. */
static void EC_FN(mul)(EA *r, const EA *a, const uint64_t *k, size_t limbs) {
    EC_T acc, base;
    EC_FN(from_affine)(&base, a);
    EF_FN(set_zero)(&acc.z);
    EF_FN(set_one)(&acc.x);
    EF_FN(set_one)(&acc.y);
    for (size_t i = 64 * limbs; i-- > 0;) {
        EC_FN(dbl)(&acc, &acc);
        if ((k[i / 64] >> (i % 64)) & 1) EC_FN(add)(&acc, &acc, &base);
    }
    EC_FN(to_affine)(r, &acc);
}

static void EC_FN(neg)(EA *r, const EA *a) {
    r->x = a->x;
    EF_FN(neg)(&r->y, &a->y);
}

static int EC_FN(is_inf)(const EA *a) { return EF_FN(is_zero)(&a->x) && EF_FN(is_zero)(&a->y); }

static int EC_FN(eq)(const EA *a, const EA *b) { return EF_FN(eq)(&a->x, &b->x) && EF_FN(eq)(&a->y, &b->y); }

/* y^2 = x^3 + b for the given b. */
static int EC_FN(on_curve)(const EA *a, const EF_T *b) {
    EF_T l, r;
    EF_FN(sqr)(&l, &a->y);
    EF_FN(sqr)(&r, &a->x);
    EF_FN(mul)(&r, &r, &a->x);
    EF_FN(add)(&r, &r, b);
    return EF_FN(eq)(&l, &r);
}

#undef EC_T
#undef EC_FN
#undef EF_T
#undef EF_FN
#undef EC
#undef EF
#undef EA
