/* Variable-time modular inversion by divsteps; modinv.h explains the method.
 *
 * A number in signed 62-bit limbs is sum s[i] 2^(62 i) over L limbs, every
 * limb but the top one in [0, 2^62) and the top one signed: the sign of the
 * number is the sign of its top limb. */
#include "field/modinv.h"

#include <string.h>

#define S62_MASK (UINT64_MAX >> 2)
/* Signed 62-bit limbs for n 64-bit limbs and a sign (s62_limbs). */
#define S62_MAX_LIMBS (ZKP_MODINV_MAX_LIMBS * 64 / 62 + 1)

typedef __int128 s62_wide;

/* The matrix of 62 divsteps: 2^62 (f', g') = (u f + v g, q f + r g). */
typedef struct {
    int64_t u, v, q, r;
} s62_matrix;

static size_t s62_limbs(size_t n) { return n * 64 / 62 + 1; }

static void s62_from_u64(int64_t *s, const uint64_t *a, size_t n, size_t len) {
    for (size_t i = 0; i < len; i++) {
        size_t pos = 62 * i, limb = pos / 64, off = pos % 64;
        uint64_t v = limb < n ? a[limb] >> off : 0;
        if (off > 2 && limb + 1 < n) v |= a[limb + 1] << (64 - off);
        s[i] = (int64_t)(v & S62_MASK);
    }
}

/* s must hold a number in [0, 2^(64 n)). */
static void s62_to_u64(uint64_t *a, const int64_t *s, size_t n, size_t len) {
    unsigned __int128 acc = 0;
    unsigned bits = 0;
    size_t j = 0;
    for (size_t i = 0; i < len && j < n; i++) {
        acc |= (unsigned __int128)(uint64_t)s[i] << bits;
        bits += 62;
        if (bits >= 64) {
            a[j++] = (uint64_t)acc;
            acc >>= 64;
            bits -= 64;
        }
    }
    while (j < n) {
        a[j++] = (uint64_t)acc;
        acc >>= 64;
    }
}

static int s62_is_negative(const int64_t *s, size_t len) { return s[len - 1] < 0; }

static int s62_is_zero(const int64_t *s, size_t len) {
    for (size_t i = 0; i < len; i++)
        if (s[i] != 0) return 0;
    return 1;
}

/* r = a + sign p, sign = +-1, normalised. r may alias a. */
static void s62_add_signed(int64_t *r, const int64_t *a, const int64_t *p, int64_t sign, size_t len) {
    s62_wide c = 0;
    for (size_t i = 0; i + 1 < len; i++) {
        c += (s62_wide)a[i] + (s62_wide)sign * p[i];
        r[i] = (int64_t)((uint64_t)c & S62_MASK);
        c >>= 62;
    }
    r[len - 1] = (int64_t)(c + a[len - 1] + (s62_wide)sign * p[len - 1]);
}

/* r = -a, normalised. */
static void s62_negate(int64_t *r, const int64_t *a, size_t len) {
    s62_wide c = 0;
    for (size_t i = 0; i + 1 < len; i++) {
        c -= a[i];
        r[i] = (int64_t)((uint64_t)c & S62_MASK);
        c >>= 62;
    }
    r[len - 1] = (int64_t)(c - a[len - 1]);
}

/* 62 divsteps on the low words of f and g (f odd): fills m, returns eta. */
static int64_t s62_divsteps(int64_t eta, uint64_t f, uint64_t g, s62_matrix *m) {
    uint64_t u = 1, v = 0, q = 0, r = 1, x;
    int left = 62;
    for (;;) {
        /* Halve g as often as it is even, but at most `left` times: the
         * bit at `left` stops the count. The row of f doubles instead, which
         * keeps the matrix integral. */
        int z = __builtin_ctzll(g | (UINT64_MAX << left));
        g >>= z;
        u <<= z;
        v <<= z;
        eta -= z;
        left -= z;
        if (left == 0) break;
        if (eta < 0) { /* (f, g) <- (g, -f): the step then adds f to g */
            eta = -eta;
            x = f, f = g, g = -x;
            x = u, u = q, q = -x;
            x = v, v = r, r = -x;
        }
        /* The next `bits` steps all add f to an odd g (eta stays >= 0 for
         * eta + 1 of them) or halve an even one; together they add w f with
         * w = -g / f mod 2^bits. f (f^2 - 2) is f^-1 mod 2^6, because f^2 = 1
         * mod 8 for odd f and one Newton step doubles the precision. */
        int bits = eta + 1 < left ? (int)eta + 1 : left;
        uint64_t mask = (UINT64_MAX >> (64 - bits)) & 63;
        uint64_t w = (g * f * (f * f - 2)) & mask;
        g += f * w;
        q += u * w;
        r += v * w;
    }
    m->u = (int64_t)u;
    m->v = (int64_t)v;
    m->q = (int64_t)q;
    m->r = (int64_t)r;
    return eta;
}

/* (f, g) <- M (f, g) / 2^62; the division is exact by construction. */
static void s62_update_fg(int64_t *f, int64_t *g, const s62_matrix *m, size_t len) {
    s62_wide cf = (s62_wide)m->u * f[0] + (s62_wide)m->v * g[0];
    s62_wide cg = (s62_wide)m->q * f[0] + (s62_wide)m->r * g[0];
    cf >>= 62;
    cg >>= 62;
    for (size_t i = 1; i < len; i++) {
        cf += (s62_wide)m->u * f[i] + (s62_wide)m->v * g[i];
        cg += (s62_wide)m->q * f[i] + (s62_wide)m->r * g[i];
        f[i - 1] = (int64_t)((uint64_t)cf & S62_MASK);
        g[i - 1] = (int64_t)((uint64_t)cg & S62_MASK);
        cf >>= 62;
        cg >>= 62;
    }
    f[len - 1] = (int64_t)cf;
    g[len - 1] = (int64_t)cg;
}

/* Brings d from (-2p, 2p) into [-p, p). */
static void s62_fold(int64_t *d, const int64_t *p, size_t len) {
    int64_t t[S62_MAX_LIMBS];
    s62_add_signed(t, d, p, -1, len);
    if (!s62_is_negative(t, len)) {
        memcpy(d, t, len * sizeof *d);
        return;
    }
    s62_add_signed(t, d, p, 1, len);
    if (s62_is_negative(t, len)) memcpy(d, t, len * sizeof *d);
}

/* (d, e) <- M (d, e) / 2^62 mod p. With md, me in [0, 2^62) chosen so that
 * p md and p me clear the low 62 bits, the division is exact; |d|, |e| <= p
 * and |u| + |v|, |q| + |r| <= 2^62 keep the results inside (-2p, 2p), and
 * the fold returns them to [-p, p). */
static void s62_update_de(int64_t *d, int64_t *e, const s62_matrix *m, const int64_t *p, uint64_t pinv,
                          size_t len) {
    s62_wide cd = (s62_wide)m->u * d[0] + (s62_wide)m->v * e[0];
    s62_wide ce = (s62_wide)m->q * d[0] + (s62_wide)m->r * e[0];
    int64_t md = (int64_t)((0 - (uint64_t)cd * pinv) & S62_MASK);
    int64_t me = (int64_t)((0 - (uint64_t)ce * pinv) & S62_MASK);
    cd += (s62_wide)md * p[0];
    ce += (s62_wide)me * p[0];
    cd >>= 62;
    ce >>= 62;
    for (size_t i = 1; i < len; i++) {
        cd += (s62_wide)m->u * d[i] + (s62_wide)m->v * e[i] + (s62_wide)md * p[i];
        ce += (s62_wide)m->q * d[i] + (s62_wide)m->r * e[i] + (s62_wide)me * p[i];
        d[i - 1] = (int64_t)((uint64_t)cd & S62_MASK);
        e[i - 1] = (int64_t)((uint64_t)ce & S62_MASK);
        cd >>= 62;
        ce >>= 62;
    }
    d[len - 1] = (int64_t)cd;
    e[len - 1] = (int64_t)ce;
    s62_fold(d, p, len);
    s62_fold(e, p, len);
}

void zkp_modinv_var(uint64_t *r, const uint64_t *a, const uint64_t *p, size_t n) {
    const size_t len = s62_limbs(n);
    int64_t f[S62_MAX_LIMBS], g[S62_MAX_LIMBS], d[S62_MAX_LIMBS] = {0}, e[S62_MAX_LIMBS] = {1},
        pm[S62_MAX_LIMBS];
    s62_from_u64(pm, p, n, len);
    s62_from_u64(g, a, n, len);
    memcpy(f, pm, len * sizeof *f);
    /* p^-1 mod 2^64 by Newton's iteration from p, which is its own inverse
     * mod 8: each step doubles the bits that are right (3, 6, 12, 24, 48, 96). */
    uint64_t pinv = p[0];
    for (int i = 0; i < 5; i++) pinv *= 2 - p[0] * pinv;
    int64_t eta = -1;
    while (!s62_is_zero(g, len)) {
        s62_matrix m;
        eta = s62_divsteps(eta, (uint64_t)f[0] | (uint64_t)f[1] << 62, (uint64_t)g[0] | (uint64_t)g[1] << 62,
                           &m);
        s62_update_fg(f, g, &m, len);
        s62_update_de(d, e, &m, pm, pinv, len);
    }
    /* f = +-1 now (gcd(a, p) = 1), and d a = f. */
    if (s62_is_negative(f, len)) s62_negate(d, d, len);
    if (s62_is_negative(d, len)) s62_add_signed(d, d, pm, 1, len);
    s62_to_u64(r, d, n, len);
}
