#!/usr/bin/env python3
"""Derives the constants of the curve layer and writes src/curve/curve_params.h.
Run from the repository root:

    python3 tools/gen_curve_params.py > src/curve/curve_params.h

The inputs are the curve seeds, the b coefficients, the twist types and the
standard generators. Everything else (cofactors, twist orders, the cube root
of unity beta, the psi coefficients, the scalars of the subgroup tests) is
computed here, and the script asserts each property the C code relies on
before it prints anything:

  - p and r are the BN / BLS12 polynomials evaluated at the seed;
  - the generators lie on their curves and have order r;
  - beta is a primitive cube root of unity in Fp and sigma(x, y) = (beta x, y)
    acts on BLS12-381 G1 as multiplication by -x^2;
  - psi = twist o Frobenius o untwist maps each twist to itself, satisfies
    psi^2 - t psi + p = 0 on random twist points and acts on G2 as p mod r;
  - the fast subgroup tests have no false positives: the kernel of the
    endomorphism they test meets E(F) in exactly the r-torsion (see
    subgroup_test_is_exact below);
  - the fast BLS12-381 G2 cofactor clearing lands in G2 and equals
    multiplication by h_eff = 3 (x^2 - 1) h2.

When tests/vectors/*.json (computed by @noble/curves) exist, the generators
are also compared with them, an independent source for the constants."""

import json
from math import gcd, isqrt
import os
import random

RNG = random.Random(20240611)  # fixed seed: the checks are reproducible


# ---------------------------------------------------------------- arithmetic
class Fp:
    """Prime-field arithmetic on ints, for one modulus."""

    def __init__(self, p):
        self.p = p
        self.zero = 0
        self.one = 1

    def add(self, a, b): return (a + b) % self.p
    def sub(self, a, b): return (a - b) % self.p
    def mul(self, a, b): return a * b % self.p
    def neg(self, a): return -a % self.p
    def inv(self, a): return pow(a, -1, self.p)
    def eq(self, a, b): return a % self.p == b % self.p
    def small(self, k): return k % self.p
    def rand(self): return RNG.randrange(self.p)

    def pow(self, a, e): return pow(a, e, self.p)

    def sqrt(self, a):
        assert self.p % 4 == 3
        s = pow(a, (self.p + 1) // 4, self.p)
        return s if s * s % self.p == a % self.p else None


class Fp2:
    """F[u]/(u^2 + 1), elements as (c0, c1) tuples: the tower zkpipe uses."""

    def __init__(self, p):
        self.p = p
        self.zero = (0, 0)
        self.one = (1, 0)

    def add(self, a, b): return ((a[0] + b[0]) % self.p, (a[1] + b[1]) % self.p)
    def sub(self, a, b): return ((a[0] - b[0]) % self.p, (a[1] - b[1]) % self.p)
    def neg(self, a): return (-a[0] % self.p, -a[1] % self.p)
    def eq(self, a, b): return a[0] % self.p == b[0] % self.p and a[1] % self.p == b[1] % self.p
    def small(self, k): return (k % self.p, 0)
    def rand(self): return (RNG.randrange(self.p), RNG.randrange(self.p))
    def conj(self, a): return (a[0], -a[1] % self.p)

    def mul(self, a, b):
        p = self.p
        return ((a[0] * b[0] - a[1] * b[1]) % p, (a[0] * b[1] + a[1] * b[0]) % p)

    def inv(self, a):
        n = pow(a[0] * a[0] + a[1] * a[1], -1, self.p)
        return (a[0] * n % self.p, -a[1] * n % self.p)

    def pow(self, a, e):
        if e < 0:
            a, e = self.inv(a), -e
        r = self.one
        while e:
            if e & 1:
                r = self.mul(r, a)
            a = self.mul(a, a)
            e >>= 1
        return r

    def sqrt(self, a):
        # Tonelli-Shanks in F_{p^2}: p^2 - 1 = 2^s t with t odd.
        q = self.p * self.p
        if a == self.zero:
            return self.zero
        if self.pow(a, (q - 1) // 2) != self.one:
            return None
        s, t = 0, q - 1
        while t % 2 == 0:
            s, t = s + 1, t // 2
        z = (1, 1)
        while self.pow(z, (q - 1) // 2) == self.one:
            z = (z[0] + 1, z[1])
        m, c = s, self.pow(z, t)
        x, b = self.pow(a, (t + 1) // 2), self.pow(a, t)
        while b != self.one:
            i, b2 = 0, b
            while b2 != self.one:
                b2, i = self.mul(b2, b2), i + 1
            g = c
            for _ in range(m - i - 1):
                g = self.mul(g, g)
            x, c = self.mul(x, g), self.mul(g, g)
            b, m = self.mul(b, c), i
        assert self.mul(x, x) == a
        return x


class Curve:
    """y^2 = x^3 + b over a field F, affine points as tuples, None = infinity."""

    def __init__(self, F, b):
        self.F, self.b = F, b

    def on_curve(self, P):
        if P is None:
            return True
        F = self.F
        x, y = P
        return F.eq(F.mul(y, y), F.add(F.mul(F.mul(x, x), x), self.b))

    def neg(self, P):
        return None if P is None else (P[0], self.F.neg(P[1]))

    def add(self, P, Q):
        F = self.F
        if P is None:
            return Q
        if Q is None:
            return P
        if F.eq(P[0], Q[0]):
            if not F.eq(P[1], Q[1]) or F.eq(P[1], F.zero):
                return None
            lam = F.mul(F.mul(F.small(3), F.mul(P[0], P[0])), F.inv(F.add(P[1], P[1])))
        else:
            lam = F.mul(F.sub(Q[1], P[1]), F.inv(F.sub(Q[0], P[0])))
        x3 = F.sub(F.sub(F.mul(lam, lam), P[0]), Q[0])
        return (x3, F.sub(F.mul(lam, F.sub(P[0], x3)), P[1]))

    def mul(self, P, k):
        if k < 0:
            P, k = self.neg(P), -k
        R = None
        while k:
            if k & 1:
                R = self.add(R, P)
            P = self.add(P, P)
            k >>= 1
        return R

    def random_point(self):
        F = self.F
        while True:
            x = F.rand()
            y = F.sqrt(F.add(F.mul(F.mul(x, x), x), self.b))
            if y is not None:
                return (x, y)


# ---------------------------------------------------------------- curve data
BN_X = 4965661367192848881
BN_P = 36 * BN_X**4 + 36 * BN_X**3 + 24 * BN_X**2 + 6 * BN_X + 1
BN_R = 36 * BN_X**4 + 36 * BN_X**3 + 18 * BN_X**2 + 6 * BN_X + 1
BN_T = 6 * BN_X**2 + 1
assert BN_P == 0x30644E72E131A029B85045B68181585D97816A916871CA8D3C208C16D87CFD47
assert BN_R == 0x30644E72E131A029B85045B68181585D2833E84879B9709143E1F593F0000001
assert BN_P + 1 - BN_T == BN_R

BLS_X = -0xD201000000010000
BLS_R = BLS_X**4 - BLS_X**2 + 1
BLS_P = (BLS_X - 1) ** 2 * BLS_R // 3 + BLS_X
BLS_T = BLS_X + 1
BLS_H1 = (BLS_X - 1) ** 2 // 3
assert BLS_P == 0x1A0111EA397FE69A4B1BA7B6434BACD764774B84F38512BF6730D2A0F6B0F6241EABFFFEB153FFFFB9FEFFFFFFFFAAAB
assert BLS_R == 0x73EDA753299D7D483339D80809A1D80553BDA402FFFE5BFEFFFFFFFF00000001
assert BLS_H1 == 0x396C8C005555E1568C00AAAB0000AAAB
assert BLS_P + 1 - BLS_T == BLS_H1 * BLS_R


def sextic_twist_order(p, t, r):
    """The order of the twist of E over F_{p^2} whose order r divides.

    Over F_{p^2} the trace is t2 = t^2 - 2p, and 4p^2 - t2^2 = 3 f^2. The six
    twists have orders p^2 + 1 - t' for t' in {+-t2, +-(t2 + 3f)/2,
    +-(t2 - 3f)/2}; exactly one of the four with t' != +-t2 is divisible by r.
    check_psi below confirms that it is the order of the curve in use, by
    multiplying random points of that curve by it."""
    t2 = t * t - 2 * p
    f2, rem = divmod(4 * p * p - t2 * t2, 3)
    assert rem == 0
    f = isqrt(f2)
    assert f * f == f2
    cands = [p * p + 1 - s * (t2 + e * 3 * f) // 2 for s in (1, -1) for e in (1, -1)]
    hits = [n for n in cands if n % r == 0]
    assert len(hits) == 1
    return hits[0]


BN_N2 = sextic_twist_order(BN_P, BN_T, BN_R)
BN_C2 = BN_N2 // BN_R
assert BN_C2 == 2 * BN_P - BN_R
BLS_N2 = sextic_twist_order(BLS_P, BLS_T, BLS_R)
BLS_H2 = BLS_N2 // BLS_R
x = BLS_X
assert BLS_H2 == (x**8 - 4 * x**7 + 5 * x**6 - 4 * x**4 + 6 * x**3 - 4 * x**2 - 4 * x + 13) // 9

# Every group order is odd: no point of order 2 anywhere, so y = 0 never
# occurs on a valid point (the formulas would still map such a point to
# infinity on doubling).
for n in (BN_R, BLS_H1 * BLS_R, BN_N2, BLS_N2):
    assert n % 2 == 1
# r divides each order exactly once, so the r-torsion of E(F) is cyclic of
# order r: it is G1 or G2 and nothing larger.
for n in (BLS_H1, BN_C2, BLS_H2):
    assert n % BN_R != 0 and n % BLS_R != 0

FBN = Fp(BN_P)
FBN2 = Fp2(BN_P)
FBLS = Fp(BLS_P)
FBLS2 = Fp2(BLS_P)

BN_XI = (9, 1)  # xi = 9 + u; Fp6 = Fp2[v]/(v^3 - xi)
BLS_XI = (1, 1)  # xi = 1 + u
# BN254 G2 is a D-type twist, y^2 = x^3 + 3/xi; BLS12-381 G2 an M-type twist,
# y^2 = x^3 + 4 xi.
BN_B2 = FBN2.mul((3, 0), FBN2.inv(BN_XI))
BLS_B2 = FBLS2.mul((4, 0), BLS_XI)

E_BN1 = Curve(FBN, 3)
E_BN2 = Curve(FBN2, BN_B2)
E_BLS1 = Curve(FBLS, 4)
E_BLS2 = Curve(FBLS2, BLS_B2)

# Standard generators: BN254 G1 = (1, 2); BN254 G2 = the EIP-197 generator;
# BLS12-381 G1/G2 from the IRTF pairing-friendly-curves draft (and the ZCash
# spec). G2 coordinates are (c0, c1) = c0 + c1 u.
GEN = {
    "BN254_G1": (1, 2),
    "BN254_G2": (
        (0x1800DEEF121F1E76426A00665E5C4479674322D4F75EDADD46DEBD5CD992F6ED,
         0x198E9393920D483A7260BFB731FB5D25F1AA493335A9E71297E485B7AEF312C2),
        (0x12C85EA5DB8C6DEB4AAB71808DCB408FE3D1E7690C43D37B4CE6CC0166FA7DAA,
         0x090689D0585FF075EC9E99AD690C3395BC4B313370B38EF355ACDADCD122975B)),
    "BLS12_381_G1": (
        0x17F1D3A73197D7942695638C4FA9AC0FC3688C4F9774B905A14E3A3F171BAC586C55E83FF97A1AEFFB3AF00ADB22C6BB,
        0x08B3F481E3AAA0F1A09E30ED741D8AE4FCF5E095D5D00AF600DB18CB2C04B3EDD03CC744A2888AE40CAA232946C5E7E1),
    "BLS12_381_G2": (
        (0x024AA2B2F08F0A91260805272DC51051C6E47AD4FA403B02B4510B647AE3D1770BAC0326A805BBEFD48056C8C121BDB8,
         0x13E02B6052719F607DACD3A088274F65596BD0D09920B61AB5DA61BBDC7F5049334CF11213945D57E5AC7D055D042B7E),
        (0x0CE5D527727D6E118CC9CDC6DA2E351AADFD9BAA8CBDD3A76D429A695160D12C923AC9CC3BACA289E193548608B82801,
         0x0606C4A02EA734CC32ACD2B02BC28B99CB3E287E85A763AF267492AB572E99AB3F370D275CEC1DA1AAA9075FF05F79BE)),
}
CURVES = {"BN254_G1": (E_BN1, BN_R), "BN254_G2": (E_BN2, BN_R),
          "BLS12_381_G1": (E_BLS1, BLS_R), "BLS12_381_G2": (E_BLS2, BLS_R)}
for name, (E, r) in CURVES.items():
    G = GEN[name]
    assert E.on_curve(G), name
    assert E.mul(G, r) is None, name


def compare_with_vectors():
    here = os.path.dirname(os.path.abspath(__file__))
    for curve, prefix in (("bn254", "BN254"), ("bls12_381", "BLS12_381")):
        path = os.path.join(here, "..", "tests", "vectors", curve + ".json")
        if not os.path.exists(path):
            continue
        with open(path) as f:
            v = json.load(f)
        for g in ("g1", "g2"):
            gen = v[g]["generator"]
            mine = GEN[prefix + "_" + g.upper()]
            if g == "g1":
                theirs = (int(gen["x"], 16), int(gen["y"], 16))
            else:
                theirs = (tuple(int(c, 16) for c in gen["x"]), tuple(int(c, 16) for c in gen["y"]))
            assert mine == theirs, (curve, g)


compare_with_vectors()

# ---------------------------------------------------------------- BLS12-381 G1: sigma
# beta: a primitive cube root of unity in Fp. The eigenvalue of
# sigma(x, y) = (beta x, y) on G1 is one of the two primitive cube roots of
# unity mod r; -x^2 is one of them (x^6 = -1 mod r since r | x^6 + 1), and
# the other choice of beta (beta^2) gives the other root.
LAMBDA_G1 = (-BLS_X**2) % BLS_R
assert pow(LAMBDA_G1, 3, BLS_R) == 1 and LAMBDA_G1 != 1
g = 2
while pow(g, (BLS_P - 1) // 3, BLS_P) == 1:
    g += 1
BETA = pow(g, (BLS_P - 1) // 3, BLS_P)
assert BETA != 1 and pow(BETA, 3, BLS_P) == 1


def sigma(P, beta):
    return (P[0] * beta % BLS_P, P[1])


G = GEN["BLS12_381_G1"]
if sigma(G, BETA) != E_BLS1.mul(G, LAMBDA_G1):
    BETA = BETA * BETA % BLS_P
assert sigma(G, BETA) == E_BLS1.mul(G, LAMBDA_G1)


def subgroup_test_is_exact(deg, n, r):
    """The tests check that P lies in the kernel of an endomorphism alpha
    (sigma + [x^2], psi - [x], psi - [6x^2]) that vanishes on the r-torsion.
    The kernel of a separable alpha has deg(alpha) points over the closure.
    A point of E(F) in the kernel has order dividing both deg(alpha) and the
    group order n; when that gcd is r, and r^2 does not divide n (asserted
    above), the kernel meets E(F) exactly in the cyclic r-torsion G."""
    assert deg % r == 0 and gcd(deg, n) == r, (deg, n)


# sigma^2 + sigma + 1 = 0, so deg(sigma - m) = m^2 + m + 1; with m = -x^2 that
# is x^4 - x^2 + 1 = r itself.
m = -BLS_X**2
subgroup_test_is_exact(m * m + m + 1, BLS_H1 * BLS_R, BLS_R)

# ---------------------------------------------------------------- G2: psi
# psi = twist o Frobenius o untwist with w^6 = xi in F_{p^12}.
#  D-type (BN254): untwist (x, y) -> (x w^2, y w^3), so
#    psi(x, y) = (conj(x) xi^((p-1)/3), conj(y) xi^((p-1)/2)).
#  M-type (BLS12-381): untwist (x, y) -> (x / w^2, y / w^3), so the exponents
#    change sign: psi(x, y) = (conj(x) xi^(-(p-1)/3), conj(y) xi^(-(p-1)/2)).
BN_PSI = (FBN2.pow(BN_XI, (BN_P - 1) // 3), FBN2.pow(BN_XI, (BN_P - 1) // 2))
BLS_PSI = (FBLS2.pow(BLS_XI, -((BLS_P - 1) // 3)), FBLS2.pow(BLS_XI, -((BLS_P - 1) // 2)))


def psi(F, c, P):
    if P is None:
        return None
    return (F.mul(F.conj(P[0]), c[0]), F.mul(F.conj(P[1]), c[1]))


def check_psi(E, F, c, p, t, r, n, name):
    G = GEN[name]
    assert E.on_curve(psi(F, c, G))
    assert psi(F, c, G) == E.mul(G, p % r), name
    for _ in range(4):
        Q = E.random_point()
        assert E.mul(Q, n) is None
        PQ = psi(F, c, Q)
        assert E.on_curve(PQ)
        # The characteristic equation of Frobenius holds for psi on all of E'.
        lhs = E.add(E.add(psi(F, c, PQ), E.mul(PQ, -t)), E.mul(Q, p))
        assert lhs is None, name


check_psi(E_BN2, FBN2, BN_PSI, BN_P, BN_T, BN_R, BN_N2, "BN254_G2")
check_psi(E_BLS2, FBLS2, BLS_PSI, BLS_P, BLS_T, BLS_R, BLS_N2, "BLS12_381_G2")

# Subgroup tests: psi acts on G2 as p mod r, which is 6x^2 for BN (r = p - 6x^2)
# and x for BLS12 (r | p - x). With psi^2 - t psi + p = 0,
# deg(psi - m) = m^2 - t m + p.
assert BN_P % BN_R == 6 * BN_X**2 % BN_R
assert BLS_P % BLS_R == BLS_X % BLS_R
for m, t, p, n, r in ((6 * BN_X**2, BN_T, BN_P, BN_N2, BN_R), (BLS_X, BLS_T, BLS_P, BLS_N2, BLS_R)):
    subgroup_test_is_exact(m * m - t * m + p, n, r)


# Budroni-Pintore cofactor clearing for BLS12-381 G2:
#   [x^2 - x - 1] P + [x - 1] psi(P) + psi^2(2P) = [h_eff] P, h_eff = 3 (x^2 - 1) h2.
def bls_clear_g2(P):
    E, F, c = E_BLS2, FBLS2, BLS_PSI
    t = E.mul(P, BLS_X * BLS_X - BLS_X - 1)
    t = E.add(t, E.mul(psi(F, c, P), BLS_X - 1))
    return E.add(t, psi(F, c, psi(F, c, E.mul(P, 2))))


BLS_H_EFF = 3 * (BLS_X**2 - 1) * BLS_H2
for _ in range(2):
    Q = E_BLS2.random_point()
    C = bls_clear_g2(Q)
    assert C is not None and E_BLS2.mul(C, BLS_R) is None
    assert C == E_BLS2.mul(Q, BLS_H_EFF)

# BN254 G2 cofactor clearing is multiplication by c2 = 2p - r: [c2]Q has
# order dividing r for every twist point Q.
Q = E_BN2.random_point()
assert E_BN2.mul(E_BN2.mul(Q, BN_C2), BN_R) is None

# ---------------------------------------------------------------- output
def limbs(v, n):
    assert 0 <= v < 2 ** (64 * n)
    return [(v >> (64 * i)) & (2**64 - 1) for i in range(n)]


def nlimbs(v):
    return (v.bit_length() + 63) // 64


def fmt_limbs(v, n):
    return "{" + ", ".join("0x%016xULL" % w for w in limbs(v, n)) + "}"


def fp_init(v, p, n):
    """Initializer of an Fp element in Montgomery form."""
    return "{" + fmt_limbs(v * 2 ** (64 * n) % p, n) + "}"


def fp2_init(v, p, n):
    return "{" + fp_init(v[0], p, n) + ", " + fp_init(v[1], p, n) + "}"


def main():
    out = []
    w = out.append
    w("/* Generated by tools/gen_curve_params.py; do not edit by hand.")
    w(" *")
    w(" * Field constants are struct initializers in Montgomery form for the field")
    w(" * type of their group (x R mod p, R = 2^256 for BN254, 2^384 for BLS12-381;")
    w(" * Fp2 as {c0, c1}). Scalars are canonical little-endian 64-bit limbs. */")
    w("#ifndef ZKP_CURVE_CURVE_PARAMS_H")
    w("#define ZKP_CURVE_CURVE_PARAMS_H")
    w("")
    w("/* BN254: seed x = %d, y^2 = x^3 + 3 over Fq; G2 on the D-type twist" % BN_X)
    w(" * y^2 = x^3 + 3/(9 + u) over Fq2. */")
    w("#define BN254_G1_B %s" % fp_init(3, BN_P, 4))
    w("#define BN254_G1_GEN_X %s" % fp_init(GEN["BN254_G1"][0], BN_P, 4))
    w("#define BN254_G1_GEN_Y %s" % fp_init(GEN["BN254_G1"][1], BN_P, 4))
    w("#define BN254_G2_B %s" % fp2_init(BN_B2, BN_P, 4))
    w("#define BN254_G2_GEN_X %s" % fp2_init(GEN["BN254_G2"][0], BN_P, 4))
    w("#define BN254_G2_GEN_Y %s" % fp2_init(GEN["BN254_G2"][1], BN_P, 4))
    w("/* psi(x, y) = (conj(x) CX, conj(y) CY) with CX = xi^((p-1)/3), CY = xi^((p-1)/2). */")
    w("#define BN254_G2_PSI_CX %s" % fp2_init(BN_PSI[0], BN_P, 4))
    w("#define BN254_G2_PSI_CY %s" % fp2_init(BN_PSI[1], BN_P, 4))
    w("/* 6x^2: the eigenvalue of psi on G2 (= p mod r), %d bits. */" % (6 * BN_X**2).bit_length())
    w("#define BN254_G2_PSI_EIGEN %s" % fmt_limbs(6 * BN_X**2, 2))
    w("#define BN254_G2_PSI_EIGEN_BITS %d" % (6 * BN_X**2).bit_length())
    w("/* c2 = #E'(Fq2) / r = 2p - r, %d bits. */" % BN_C2.bit_length())
    w("#define BN254_G2_COFACTOR %s" % fmt_limbs(BN_C2, 4))
    w("#define BN254_G2_COFACTOR_BITS %d" % BN_C2.bit_length())
    w("")
    w("/* BLS12-381: seed x = -0x%x, y^2 = x^3 + 4 over Fp; G2 on the M-type twist" % -BLS_X)
    w(" * y^2 = x^3 + 4(1 + u) over Fp2. */")
    w("#define BLS12_381_X_ABS 0x%016xULL /* |x|; x itself is negative */" % -BLS_X)
    w("#define BLS12_381_X_ABS_BITS %d" % (-BLS_X).bit_length())
    w("#define BLS12_381_G1_B %s" % fp_init(4, BLS_P, 6))
    w("#define BLS12_381_G1_GEN_X %s" % fp_init(GEN["BLS12_381_G1"][0], BLS_P, 6))
    w("#define BLS12_381_G1_GEN_Y %s" % fp_init(GEN["BLS12_381_G1"][1], BLS_P, 6))
    w("/* beta: the primitive cube root of unity in Fp for which sigma(x, y) =")
    w(" * (beta x, y) acts on G1 as multiplication by -x^2 mod r. */")
    w("#define BLS12_381_G1_BETA %s" % fp_init(BETA, BLS_P, 6))
    w("/* h1 = (x - 1)^2 / 3 = #E(Fp) / r, %d bits. */" % BLS_H1.bit_length())
    w("#define BLS12_381_G1_COFACTOR %s" % fmt_limbs(BLS_H1, 2))
    w("#define BLS12_381_G1_COFACTOR_BITS %d" % BLS_H1.bit_length())
    w("#define BLS12_381_G2_B %s" % fp2_init(BLS_B2, BLS_P, 6))
    w("#define BLS12_381_G2_GEN_X %s" % fp2_init(GEN["BLS12_381_G2"][0], BLS_P, 6))
    w("#define BLS12_381_G2_GEN_Y %s" % fp2_init(GEN["BLS12_381_G2"][1], BLS_P, 6))
    w("/* psi(x, y) = (conj(x) CX, conj(y) CY) with CX = xi^(-(p-1)/3), CY = xi^(-(p-1)/2):")
    w(" * the exponents are negated because the twist is M-type. */")
    w("#define BLS12_381_G2_PSI_CX %s" % fp2_init(BLS_PSI[0], BLS_P, 6))
    w("#define BLS12_381_G2_PSI_CY %s" % fp2_init(BLS_PSI[1], BLS_P, 6))
    w("/* h2 = #E'(Fp2) / r, %d bits. */" % BLS_H2.bit_length())
    w("#define BLS12_381_G2_COFACTOR %s" % fmt_limbs(BLS_H2, nlimbs(BLS_H2)))
    w("#define BLS12_381_G2_COFACTOR_BITS %d" % BLS_H2.bit_length())
    w("/* h_eff = 3 (x^2 - 1) h2, %d bits: the fast psi-based clearing computes [h_eff] P"
      % BLS_H_EFF.bit_length())
    w(" * (Budroni-Pintore; the hash-to-curve draft's h_eff for G2). */")
    w("#define BLS12_381_G2_H_EFF %s" % fmt_limbs(BLS_H_EFF, nlimbs(BLS_H_EFF)))
    w("#define BLS12_381_G2_H_EFF_BITS %d" % BLS_H_EFF.bit_length())
    w("")
    w("#endif")
    print("\n".join(out))


main()
