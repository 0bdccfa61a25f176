/* The x86-64 mulx/adcx/adox Montgomery kernels (src/field/mont_x86.c)
 * against an independent reference: schoolbook product followed by a
 * word-by-word Montgomery reduction (REDC) with unsigned __int128, written
 * here with no shared code. Runs for the four moduli zkpipe uses. */
#include <stdint.h>

#include "field/mont_x86.h"
#include "test.h"
#include "util/cpu.h"

#define MX_MAXN 6

typedef struct {
    const char *name;
    int n;
    uint64_t p[MX_MAXN]; /* little-endian limbs */
} mx_modulus;

static const mx_modulus mx_bn254_fq = {
    "BN254 Fq",
    4,
    {0x3c208c16d87cfd47ULL, 0x97816a916871ca8dULL, 0xb85045b68181585dULL, 0x30644e72e131a029ULL}};
static const mx_modulus mx_bn254_fr = {
    "BN254 Fr",
    4,
    {0x43e1f593f0000001ULL, 0x2833e84879b97091ULL, 0xb85045b68181585dULL, 0x30644e72e131a029ULL}};
static const mx_modulus mx_bls_fr = {
    "BLS12-381 Fr",
    4,
    {0xffffffff00000001ULL, 0x53bda402fffe5bfeULL, 0x3339d80809a1d805ULL, 0x73eda753299d7d48ULL}};
static const mx_modulus mx_bls_fp = {"BLS12-381 Fp",
                                     6,
                                     {0xb9feffffffffaaabULL, 0x1eabfffeb153ffffULL,
                                      0x6730d2a0f6b0f624ULL, 0x64774b84f38512bfULL,
                                      0x4b1ba7b6434bacd7ULL, 0x1a0111ea397fe69aULL}};

static void mx_require_adx(void) {
#ifdef ZKP_HAVE_X86_ASM
    if (!zkp_cpu_use_adx) test_skip("x86-64 ADX/BMI2 path not selected on this machine");
#else
    test_skip("built without ZKP_HAVE_X86_ASM");
#endif
}

/* ---- reference arithmetic (n limbs, little-endian) ------------------- */

/* -p^(-1) mod 2^64 by Newton iteration: each step doubles the correct bits
 * (p*x == 1 mod 2^3 for x = p since p is odd; 3 -> 6 -> ... -> 96). */
static uint64_t mx_n0(uint64_t p0) {
    uint64_t x = p0;
    for (int i = 0; i < 5; i++) x *= 2 - p0 * x;
    return (uint64_t)0 - x;
}

static int mx_cmp(const uint64_t *a, const uint64_t *b, int n) {
    for (int i = n - 1; i >= 0; i--) {
        if (a[i] != b[i]) return a[i] < b[i] ? -1 : 1;
    }
    return 0;
}

/* r = a - b, returns the borrow. */
static uint64_t mx_sub(uint64_t *r, const uint64_t *a, const uint64_t *b, int n) {
    uint64_t borrow = 0;
    for (int i = 0; i < n; i++) {
        unsigned __int128 d = (unsigned __int128)a[i] - b[i] - borrow;
        r[i] = (uint64_t)d;
        borrow = (uint64_t)(d >> 64) & 1;
    }
    return borrow;
}

/* r = a + b mod p for a, b < p. */
static void mx_add_mod(uint64_t *r, const uint64_t *a, const uint64_t *b, const mx_modulus *m) {
    uint64_t s[MX_MAXN + 1], carry = 0;
    for (int i = 0; i < m->n; i++) {
        unsigned __int128 t = (unsigned __int128)a[i] + b[i] + carry;
        s[i] = (uint64_t)t;
        carry = (uint64_t)(t >> 64);
    }
    s[m->n] = carry;
    uint64_t p1[MX_MAXN + 1];
    memcpy(p1, m->p, sizeof(uint64_t) * (size_t)m->n);
    p1[m->n] = 0;
    if (mx_cmp(s, p1, m->n + 1) >= 0) mx_sub(s, s, p1, m->n + 1);
    memcpy(r, s, sizeof(uint64_t) * (size_t)m->n);
}

/* r = a*b*2^(-64n) mod p: full product, then REDC one word at a time. */
static void mx_ref_mont_mul(uint64_t *r, const uint64_t *a, const uint64_t *b,
                            const mx_modulus *m) {
    const int n = m->n;
    const uint64_t n0 = mx_n0(m->p[0]);
    uint64_t t[2 * MX_MAXN + 1];
    memset(t, 0, sizeof t);
    for (int i = 0; i < n; i++) {
        uint64_t carry = 0;
        for (int j = 0; j < n; j++) {
            unsigned __int128 s = (unsigned __int128)a[i] * b[j] + t[i + j] + carry;
            t[i + j] = (uint64_t)s;
            carry = (uint64_t)(s >> 64);
        }
        t[i + n] = carry;
    }
    for (int i = 0; i < n; i++) {
        uint64_t q = t[i] * n0, carry = 0;
        for (int j = 0; j < n; j++) {
            unsigned __int128 s = (unsigned __int128)q * m->p[j] + t[i + j] + carry;
            t[i + j] = (uint64_t)s;
            carry = (uint64_t)(s >> 64);
        }
        for (int k = i + n; k <= 2 * n && carry != 0; k++) {
            unsigned __int128 s = (unsigned __int128)t[k] + carry;
            t[k] = (uint64_t)s;
            carry = (uint64_t)(s >> 64);
        }
        ASSERT_EQ_U64(t[i], 0);
    }
    /* t[n..2n] < 2p */
    uint64_t p1[MX_MAXN + 1];
    memcpy(p1, m->p, sizeof(uint64_t) * (size_t)n);
    p1[n] = 0;
    if (mx_cmp(t + n, p1, n + 1) >= 0) mx_sub(t + n, t + n, p1, n + 1);
    ASSERT_EQ_U64(t[2 * n], 0);
    memcpy(r, t + n, sizeof(uint64_t) * (size_t)n);
}

/* Uniform element below p by rejection (p's top bits masked first). */
static void mx_random_below(uint64_t *x, const mx_modulus *m) {
    const uint64_t top = m->p[m->n - 1];
    uint64_t mask = ~(uint64_t)0 >> __builtin_clzll(top);
    do {
        for (int i = 0; i < m->n; i++) x[i] = test_rng_u64();
        x[m->n - 1] &= mask;
    } while (mx_cmp(x, m->p, m->n) >= 0);
}

/* 2^(64n) mod p by 64n modular doublings of 1. */
static void mx_r_mod_p(uint64_t *x, const mx_modulus *m) {
    memset(x, 0, sizeof(uint64_t) * MX_MAXN);
    x[0] = 1;
    for (int i = 0; i < 64 * m->n; i++) mx_add_mod(x, x, x, m);
}

#ifdef ZKP_HAVE_X86_ASM

static void mx_fast_mul(uint64_t *r, const uint64_t *a, const uint64_t *b, const mx_modulus *m,
                        uint64_t n0) {
    if (m->n == 4)
        zkp_mont_mul_4_adx(r, a, b, m->p, n0);
    else
        zkp_mont_mul_6_adx(r, a, b, m->p, n0);
}

static void mx_fast_sqr(uint64_t *r, const uint64_t *a, const mx_modulus *m, uint64_t n0) {
    if (m->n == 4)
        zkp_mont_sqr_4_adx(r, a, m->p, n0);
    else
        zkp_mont_sqr_6_adx(r, a, m->p, n0);
}

/* Checks mul(a, b) and sqr(a), sqr(b) against the reference, and the
 * aliasing forms r == a, r == b, r == a == b. */
static void mx_check_pair(const uint64_t *a, const uint64_t *b, const mx_modulus *m, uint64_t n0) {
    const size_t bytes = sizeof(uint64_t) * (size_t)m->n;
    uint64_t want[MX_MAXN], got[MX_MAXN], t[MX_MAXN], u[MX_MAXN];

    mx_ref_mont_mul(want, a, b, m);
    memset(got, 0xa5, sizeof got);
    mx_fast_mul(got, a, b, m, n0);
    ASSERT_MSG(memcmp(got, want, bytes) == 0, "%s: mul mismatch", m->name);

    memcpy(t, a, bytes); /* r == a */
    mx_fast_mul(t, t, b, m, n0);
    ASSERT_MEM_EQ(t, want, bytes);
    memcpy(t, b, bytes); /* r == b */
    mx_fast_mul(t, a, t, m, n0);
    ASSERT_MEM_EQ(t, want, bytes);

    /* a*a both ways, then r == a == b */
    mx_ref_mont_mul(want, a, a, m);
    mx_fast_sqr(got, a, m, n0);
    ASSERT_MEM_EQ(got, want, bytes);
    memcpy(t, a, bytes);
    mx_fast_sqr(t, t, m, n0);
    ASSERT_MEM_EQ(t, want, bytes);
    memcpy(u, a, bytes);
    mx_fast_mul(u, u, u, m, n0);
    ASSERT_MEM_EQ(u, want, bytes);
    mx_fast_mul(got, a, a, m, n0);
    ASSERT_MEM_EQ(got, want, bytes);

    mx_ref_mont_mul(want, b, b, m);
    mx_fast_sqr(got, b, m, n0);
    ASSERT_MEM_EQ(got, want, bytes);
}

static void mx_random_cases(const mx_modulus *m) {
    mx_require_adx();
    const uint64_t n0 = mx_n0(m->p[0]);
    ASSERT_EQ_U64(m->p[0] * n0, ~(uint64_t)0); /* p*n0 == -1 mod 2^64 */
    const unsigned iters = test_iters(5000);
    uint64_t a[MX_MAXN], b[MX_MAXN], c[MX_MAXN];
    for (unsigned it = 0; it < iters; it++) {
        mx_random_below(a, m);
        mx_random_below(b, m);
        mx_check_pair(a, b, m, n0);
    }
    /* Long dependent chains, as a field exponentiation would run them. */
    mx_random_below(a, m);
    mx_random_below(b, m);
    memcpy(c, a, sizeof c);
    for (unsigned it = 0; it < iters; it++) {
        uint64_t want[MX_MAXN], got[MX_MAXN];
        mx_ref_mont_mul(want, c, b, m);
        mx_fast_mul(got, c, b, m, n0);
        ASSERT_MEM_EQ(got, want, sizeof(uint64_t) * (size_t)m->n);
        mx_ref_mont_mul(c, got, got, m);
        mx_fast_sqr(got, got, m, n0);
        ASSERT_MEM_EQ(got, c, sizeof(uint64_t) * (size_t)m->n);
    }
}

/* Edge values: 0, 1, 2, p-1, p-2, (p-1)/2, (p+1)/2, R mod p, R^2 mod p,
 * and values made of all-ones limbs that are still below p. */
static int mx_edge_values(uint64_t out[][MX_MAXN], const mx_modulus *m) {
    const int n = m->n;
    int k = 0;
    uint64_t one[MX_MAXN] = {1}, two[MX_MAXN] = {2};
    memset(out, 0, sizeof(uint64_t) * MX_MAXN * 40);
    k++; /* 0 */
    out[k++][0] = 1;
    out[k++][0] = 2;
    mx_sub(out[k++], m->p, one, n);
    mx_sub(out[k++], m->p, two, n);
    for (int i = 0; i < n; i++) { /* (p-1)/2 */
        out[k][i] = (m->p[i] >> 1) | (i + 1 < n ? m->p[i + 1] << 63 : 0);
    }
    k++;
    mx_add_mod(out[k], out[k - 1], one, m); /* (p+1)/2 */
    k++;
    mx_r_mod_p(out[k++], m);
    mx_add_mod(out[k], out[k - 1], out[k - 1], m); /* 2R */
    k++;
    /* R^2 mod p = R * 2^(64n) mod p: keep doubling R. */
    memcpy(out[k], out[k - 2], sizeof out[0]);
    for (int i = 0; i < 64 * n; i++) mx_add_mod(out[k], out[k], out[k], m);
    k++;
    /* all-ones below limb j: 2^(64j) - 1, j = 1..n-1 */
    for (int j = 1; j < n; j++, k++)
        for (int i = 0; i < j; i++) out[k][i] = ~(uint64_t)0;
    /* one all-ones limb at position j < n-1, the rest zero */
    for (int j = 0; j < n - 1; j++, k++) out[k][j] = ~(uint64_t)0;
    /* all-ones low limbs under the top limb of p minus one: the largest
     * values with all-ones low limbs */
    for (int i = 0; i < n - 1; i++) out[k][i] = ~(uint64_t)0;
    out[k][n - 1] = m->p[n - 1] - 1;
    k++;
    /* same low limbs under top limb 0x..ff masked to stay below p */
    for (int i = 0; i < n - 1; i++) out[k][i] = ~(uint64_t)0;
    out[k][n - 1] = ~(uint64_t)0 >> (__builtin_clzll(m->p[n - 1]) + 1);
    k++;
    for (int i = 0; i < k; i++) ASSERT(mx_cmp(out[i], m->p, n) < 0);
    return k;
}

static void mx_edge_cases(const mx_modulus *m) {
    mx_require_adx();
    const uint64_t n0 = mx_n0(m->p[0]);
    uint64_t v[40][MX_MAXN];
    int k = mx_edge_values(v, m);
    for (int i = 0; i < k; i++)
        for (int j = 0; j < k; j++) mx_check_pair(v[i], v[j], m, n0);
    /* Edge values against random partners. */
    for (int i = 0; i < k; i++) {
        for (unsigned it = 0; it < test_iters(50); it++) {
            uint64_t x[MX_MAXN];
            mx_random_below(x, m);
            mx_check_pair(v[i], x, m, n0);
            mx_check_pair(x, v[i], m, n0);
        }
    }
}

/* Identities that tie the reference to the Montgomery domain, checked on
 * the fast path: mul(x, R) == x, mul(x, 1) * R^2 round trip, mul(1, R^2) == R. */
static void mx_identity_cases(const mx_modulus *m) {
    mx_require_adx();
    const uint64_t n0 = mx_n0(m->p[0]);
    const size_t bytes = sizeof(uint64_t) * (size_t)m->n;
    uint64_t v[40][MX_MAXN];
    (void)mx_edge_values(v, m);
    const uint64_t *one = v[1], *rmod = v[7], *r2 = v[9];
    uint64_t x[MX_MAXN], y[MX_MAXN], z[MX_MAXN];
    mx_fast_mul(y, one, r2, m, n0);
    ASSERT_MEM_EQ(y, rmod, bytes);
    for (unsigned it = 0; it < test_iters(1000); it++) {
        mx_random_below(x, m);
        mx_fast_mul(y, x, rmod, m, n0);
        ASSERT_MEM_EQ(y, x, bytes);
        mx_fast_mul(y, x, r2, m, n0); /* to Montgomery form */
        mx_fast_mul(z, y, one, m, n0); /* and back */
        ASSERT_MEM_EQ(z, x, bytes);
    }
}

/* ---- wide product and separate reduction ------------------------------ */

/* r = a*b as a 2n-limb integer, by the schoolbook method. */
static void mx_ref_mul_wide(uint64_t *r, const uint64_t *a, const uint64_t *b, int n) {
    uint64_t t[2 * MX_MAXN];
    memset(t, 0, sizeof t);
    for (int i = 0; i < n; i++) {
        uint64_t carry = 0;
        for (int j = 0; j < n; j++) {
            unsigned __int128 s = (unsigned __int128)a[i] * b[j] + t[i + j] + carry;
            t[i + j] = (uint64_t)s;
            carry = (uint64_t)(s >> 64);
        }
        t[i + n] = carry;
    }
    memcpy(r, t, sizeof(uint64_t) * 2 * (size_t)n);
}

/* r = t*2^(-64n) mod p for any 2n-limb t whose high half is below p, by a
 * route that shares nothing with REDC: t mod p by shift-and-subtract over
 * its 128n bits, then n*64 modular halvings (x/2 = x even ? x/2 :
 * (x + p)/2). */
static void mx_ref_redc(uint64_t *r, const uint64_t *t, const mx_modulus *m) {
    const int n = m->n;
    uint64_t x[MX_MAXN + 1], p1[MX_MAXN + 1];
    memset(x, 0, sizeof x);
    memcpy(p1, m->p, sizeof(uint64_t) * (size_t)n);
    p1[n] = 0;
    for (int bit = 128 * n - 1; bit >= 0; bit--) {
        /* x = 2x + bit, then x < 2p, so one subtraction reduces it. */
        uint64_t in = (t[bit / 64] >> (bit % 64)) & 1;
        for (int i = n; i > 0; i--) x[i] = (x[i] << 1) | (x[i - 1] >> 63);
        x[0] = (x[0] << 1) | in;
        if (mx_cmp(x, p1, n + 1) >= 0) mx_sub(x, x, p1, n + 1);
    }
    for (int k = 0; k < 64 * n; k++) {
        uint64_t odd = x[0] & 1, carry = 0;
        if (odd) {
            for (int i = 0; i < n; i++) {
                unsigned __int128 s = (unsigned __int128)x[i] + m->p[i] + carry;
                x[i] = (uint64_t)s;
                carry = (uint64_t)(s >> 64);
            }
        }
        x[n] = carry;
        for (int i = 0; i < n; i++) x[i] = (x[i] >> 1) | (x[i + 1] << 63);
    }
    memcpy(r, x, sizeof(uint64_t) * (size_t)n);
}

static void mx_fast_mul_wide(uint64_t *r, const uint64_t *a, const uint64_t *b, int n) {
    if (n == 4)
        zkp_mul_wide_4_adx(r, a, b);
    else
        zkp_mul_wide_6_adx(r, a, b);
}

static void mx_fast_redc(uint64_t *r, const uint64_t *t, const mx_modulus *m, uint64_t n0) {
    if (m->n == 4)
        zkp_redc_4_adx(r, t, m->p, n0);
    else
        zkp_redc_6_adx(r, t, m->p, n0);
}

/* The wide product of a and b against the reference, also with r over a,
 * over b and over both (r is 2n limbs, so a and b sit in its low half or
 * its high half); then the reduction of that product against the
 * reference, also in place, and against the Montgomery product where both
 * factors are below p. */
static void mx_check_wide(const uint64_t *a, const uint64_t *b, const mx_modulus *m, uint64_t n0) {
    const int n = m->n;
    const size_t bytes = sizeof(uint64_t) * (size_t)n;
    uint64_t want[2 * MX_MAXN], got[2 * MX_MAXN], buf[2 * MX_MAXN];
    uint64_t red_want[MX_MAXN], red_got[MX_MAXN];

    mx_ref_mul_wide(want, a, b, n);
    memset(got, 0xa5, sizeof got);
    mx_fast_mul_wide(got, a, b, n);
    ASSERT_MSG(memcmp(got, want, 2 * bytes) == 0, "%s: mul_wide mismatch", m->name);
    for (int half = 0; half < 2; half++) {
        uint64_t *slot = buf + half * n;
        memset(buf, 0x5a, sizeof buf);
        memcpy(slot, a, bytes); /* r over a */
        mx_fast_mul_wide(buf, slot, b, n);
        ASSERT_MEM_EQ(buf, want, 2 * bytes);
        memset(buf, 0x5a, sizeof buf);
        memcpy(slot, b, bytes); /* r over b */
        mx_fast_mul_wide(buf, a, slot, n);
        ASSERT_MEM_EQ(buf, want, 2 * bytes);
    }
    mx_ref_mul_wide(want, a, a, n);
    memcpy(buf, a, bytes); /* r over a == b */
    mx_fast_mul_wide(buf, buf, buf, n);
    ASSERT_MEM_EQ(buf, want, 2 * bytes);
    mx_ref_mul_wide(want, a, b, n);

    /* The reduction needs the high half below p. */
    if (mx_cmp(want + n, m->p, n) >= 0) return;
    mx_ref_redc(red_want, want, m);
    memset(red_got, 0xa5, sizeof red_got);
    mx_fast_redc(red_got, want, m, n0);
    ASSERT_MSG(memcmp(red_got, red_want, bytes) == 0, "%s: redc mismatch", m->name);
    memcpy(buf, want, 2 * bytes); /* r over t */
    mx_fast_redc(buf, buf, m, n0);
    ASSERT_MEM_EQ(buf, red_want, bytes);
    if (mx_cmp(a, m->p, n) < 0 && mx_cmp(b, m->p, n) < 0) {
        uint64_t mont[MX_MAXN];
        mx_ref_mont_mul(mont, a, b, m);
        ASSERT_MEM_EQ(red_got, mont, bytes);
    }
}

/* Reduction of a given 2n-limb t (high half below p) against the reference. */
static void mx_check_redc(const uint64_t *t, const mx_modulus *m, uint64_t n0) {
    uint64_t want[MX_MAXN], got[MX_MAXN];
    ASSERT(mx_cmp(t + m->n, m->p, m->n) < 0);
    mx_ref_redc(want, t, m);
    mx_fast_redc(got, t, m, n0);
    ASSERT_MEM_EQ(got, want, sizeof(uint64_t) * (size_t)m->n);
}

static void mx_wide_cases(const mx_modulus *m) {
    mx_require_adx();
    const int n = m->n;
    const uint64_t n0 = mx_n0(m->p[0]);
    uint64_t v[40][MX_MAXN], a[MX_MAXN], b[MX_MAXN], t[2 * MX_MAXN];
    int k = mx_edge_values(v, m);
    /* Edge values, and factors up to 2p - 1 (sums of two reduced values, as
     * the towers feed the wide product). */
    for (int i = 0; i < k; i++)
        for (int j = 0; j < k; j++) {
            mx_check_wide(v[i], v[j], m, n0);
            uint64_t carry = 0;
            for (int l = 0; l < n; l++) { /* a = v[i] + p - 1 < 2p - 1 */
                unsigned __int128 s = (unsigned __int128)v[i][l] + m->p[l] + carry - (l == 0);
                a[l] = (uint64_t)s;
                carry = (uint64_t)(s >> 64);
            }
            mx_check_wide(a, v[j], m, n0);
        }
    /* All-ones factors: the largest product (the reduction is skipped, its
     * high half being above p). */
    memset(a, 0xff, sizeof a);
    mx_check_wide(a, a, m, n0);
    /* Reduction inputs at the edges of its range: t = 0, t = p*2^(64n) - 1
     * (the largest allowed), high half p - 1 with low halves 0 and all ones,
     * and high half 0 under an all-ones low half. */
    memset(t, 0, sizeof t);
    mx_check_redc(t, m, n0);
    memcpy(t + n, m->p, sizeof(uint64_t) * (size_t)n);
    mx_sub(t, t, (const uint64_t[2 * MX_MAXN]){1}, 2 * n);
    mx_check_redc(t, m, n0);
    memset(t, 0, sizeof t);
    mx_sub(t + n, m->p, (const uint64_t[MX_MAXN]){1}, n);
    mx_check_redc(t, m, n0);
    memset(t, 0xff, sizeof(uint64_t) * (size_t)n);
    mx_check_redc(t, m, n0);
    memset(t + n, 0, sizeof(uint64_t) * (size_t)n);
    mx_check_redc(t, m, n0);
    /* Random factors below p and below 2p, random t in range. */
    for (unsigned it = 0; it < test_iters(3000); it++) {
        mx_random_below(a, m);
        mx_random_below(b, m);
        mx_check_wide(a, b, m, n0);
        mx_add_mod(a, a, b, m);
        uint64_t carry = 0;
        for (int l = 0; l < n; l++) { /* b += p: below 2p */
            unsigned __int128 s = (unsigned __int128)b[l] + m->p[l] + carry;
            b[l] = (uint64_t)s;
            carry = (uint64_t)(s >> 64);
        }
        mx_check_wide(a, b, m, n0);
        for (int l = 0; l < n; l++) t[l] = test_rng_u64();
        mx_random_below(t + n, m);
        mx_check_redc(t, m, n0);
    }
}

#endif /* ZKP_HAVE_X86_ASM */

TEST_CASE(mont_x86_reference_self_check) {
    /* The reference against arithmetic done a different way: with R mod p
     * from doublings, mont(x, R mod p) must give x back. */
    const mx_modulus *mods[] = {&mx_bn254_fq, &mx_bn254_fr, &mx_bls_fr, &mx_bls_fp};
    for (size_t k = 0; k < sizeof mods / sizeof mods[0]; k++) {
        const mx_modulus *m = mods[k];
        uint64_t rmod[MX_MAXN], x[MX_MAXN], y[MX_MAXN];
        mx_r_mod_p(rmod, m);
        for (int it = 0; it < 200; it++) {
            mx_random_below(x, m);
            mx_ref_mont_mul(y, x, rmod, m);
            ASSERT_MEM_EQ(y, x, sizeof(uint64_t) * (size_t)m->n);
        }
    }
}

#ifdef ZKP_HAVE_X86_ASM
#define MX_RUN(fn, m) fn(m)
#else
#define MX_RUN(fn, m) ((void)(m), mx_require_adx())
#endif

TEST_CASE(mont_x86_random_bn254_fq) { MX_RUN(mx_random_cases, &mx_bn254_fq); }
TEST_CASE(mont_x86_random_bn254_fr) { MX_RUN(mx_random_cases, &mx_bn254_fr); }
TEST_CASE(mont_x86_random_bls12_381_fr) { MX_RUN(mx_random_cases, &mx_bls_fr); }
TEST_CASE(mont_x86_random_bls12_381_fp) { MX_RUN(mx_random_cases, &mx_bls_fp); }

TEST_CASE(mont_x86_edges_bn254_fq) { MX_RUN(mx_edge_cases, &mx_bn254_fq); }
TEST_CASE(mont_x86_edges_bn254_fr) { MX_RUN(mx_edge_cases, &mx_bn254_fr); }
TEST_CASE(mont_x86_edges_bls12_381_fr) { MX_RUN(mx_edge_cases, &mx_bls_fr); }
TEST_CASE(mont_x86_edges_bls12_381_fp) { MX_RUN(mx_edge_cases, &mx_bls_fp); }

TEST_CASE(mont_x86_identities) {
    MX_RUN(mx_identity_cases, &mx_bn254_fq);
    MX_RUN(mx_identity_cases, &mx_bn254_fr);
    MX_RUN(mx_identity_cases, &mx_bls_fr);
    MX_RUN(mx_identity_cases, &mx_bls_fp);
}

TEST_CASE(mont_x86_wide_bn254_fq) { MX_RUN(mx_wide_cases, &mx_bn254_fq); }
TEST_CASE(mont_x86_wide_bn254_fr) { MX_RUN(mx_wide_cases, &mx_bn254_fr); }
TEST_CASE(mont_x86_wide_bls12_381_fr) { MX_RUN(mx_wide_cases, &mx_bls_fr); }
TEST_CASE(mont_x86_wide_bls12_381_fp) { MX_RUN(mx_wide_cases, &mx_bls_fp); }
