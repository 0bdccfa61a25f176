#!/usr/bin/env python3
"""Derives the constants of the Fp6/Fp12 towers and of the optimal ate pairing
for BN254 and BLS12-381, and writes two headers. Run from the repository root:

    python3 tools/gen_tower_params.py           # rewrites both headers
    python3 tools/gen_tower_params.py --check   # fails if they are stale

  src/field/tower_params.h      xi and the Frobenius constants of the towers
  src/pairing/pairing_params.h  Miller loop digits, twist constants, the
                                final-exponentiation digit strings and, for
                                the tests, the exact exponent (p^12 - 1)/r

Nothing is copied from another implementation: every value is computed from
p, r, the curve seed x and the non-residue xi, and the script asserts each
property the C code relies on (irreducibility of the tower, the Frobenius
constants lying where the code expects them, the twist Frobenius acting as
[p] on the G2 generator, and the final-exponentiation chains in
src/pairing/pairing_impl.h computing exactly (p^4 - p^2 + 1)/r)."""

import os
import sys

CURVES = {
    "BN254": dict(
        field="BN254_FQ",
        p=0x30644E72E131A029B85045B68181585D97816A916871CA8D3C208C16D87CFD47,
        r=0x30644E72E131A029B85045B68181585D2833E84879B9709143E1F593F0000001,
        x=4965661367192848881,
        b=3,
        xi=(9, 1),
        twist="D",
        # EIP-197 generator of G2, used only to check the twist constants.
        g2=((0x1800DEEF121F1E76426A00665E5C4479674322D4F75EDADD46DEBD5CD992F6ED,
             0x198E9393920D483A7260BFB731FB5D25F1AA493335A9E71297E485B7AEF312C2),
            (0x12C85EA5DB8C6DEB4AAB71808DCB408FE3D1E7690C43D37B4CE6CC0166FA7DAA,
             0x090689D0585FF075EC9E99AD690C3395BC4B313370B38EF355ACDADCD122975B)),
    ),
    "BLS12_381": dict(
        field="BLS12_381_FP",
        p=0x1A0111EA397FE69A4B1BA7B6434BACD764774B84F38512BF6730D2A0F6B0F6241EABFFFEB153FFFFB9FEFFFFFFFFAAAB,
        r=0x73EDA753299D7D483339D80809A1D80553BDA402FFFE5BFEFFFFFFFF00000001,
        x=-0xD201000000010000,
        b=4,
        xi=(1, 1),
        twist="M",
        # Generator of G2 (draft-irtf-cfrg-pairing-friendly-curves, section 4.2.1).
        g2=((0x024AA2B2F08F0A91260805272DC51051C6E47AD4FA403B02B4510B647AE3D1770BAC0326A805BBEFD48056C8C121BDB8,
             0x13E02B6052719F607DACD3A088274F65596BD0D09920B61AB5DA61BBDC7F5049334CF11213945D57E5AC7D055D042B7E),
            (0x0CE5D527727D6E118CC9CDC6DA2E351AADFD9BAA8CBDD3A76D429A695160D12C923AC9CC3BACA289E193548608B82801,
             0x0606C4A02EA734CC32ACD2B02BC28B99CB3E287E85A763AF267492AB572E99AB3F370D275CEC1DA1AAA9075FF05F79BE)),
    ),
}


# --- Fp2 = Fp[u]/(u^2 + 1) -------------------------------------------------

class F2:
    def __init__(self, p):
        self.p = p

    def mul(self, a, b):
        p = self.p
        return ((a[0] * b[0] - a[1] * b[1]) % p, (a[0] * b[1] + a[1] * b[0]) % p)

    def add(self, a, b):
        return ((a[0] + b[0]) % self.p, (a[1] + b[1]) % self.p)

    def sub(self, a, b):
        return ((a[0] - b[0]) % self.p, (a[1] - b[1]) % self.p)

    def neg(self, a):
        return ((-a[0]) % self.p, (-a[1]) % self.p)

    def conj(self, a):
        return (a[0], (-a[1]) % self.p)

    def pow(self, a, e):
        acc, base = (1, 0), a
        while e:
            if e & 1:
                acc = self.mul(acc, base)
            base = self.mul(base, base)
            e >>= 1
        return acc

    def inv(self, a):
        p = self.p
        n = pow(a[0] * a[0] + a[1] * a[1], -1, p)
        return (a[0] * n % p, (-a[1]) * n % p)


# --- Points on the twist, affine, None for infinity -------------------------

def ec_add(F, P, Q):
    if P is None:
        return Q
    if Q is None:
        return P
    if P[0] == Q[0]:
        if F.add(P[1], Q[1]) == (0, 0):
            return None
        lam = F.mul(F.mul((3, 0), F.mul(P[0], P[0])), F.inv(F.add(P[1], P[1])))
    else:
        lam = F.mul(F.sub(Q[1], P[1]), F.inv(F.sub(Q[0], P[0])))
    x3 = F.sub(F.sub(F.mul(lam, lam), P[0]), Q[0])
    y3 = F.sub(F.mul(lam, F.sub(P[0], x3)), P[1])
    return (x3, y3)


def ec_mul(F, P, k):
    acc = None
    for bit in bin(k)[2:]:
        acc = ec_add(F, acc, acc)
        if bit == "1":
            acc = ec_add(F, acc, P)
    return acc


# --- Digit strings -----------------------------------------------------------

def naf(n):
    """Non-adjacent form, least significant digit first."""
    assert n > 0
    d = []
    while n:
        if n & 1:
            z = 2 - (n % 4)
            n -= z
        else:
            z = 0
        d.append(z)
        n //= 2
    return d


def wnaf(n, w):
    """Width-w NAF: odd digits |d| < 2^(w-1), least significant first."""
    d = []
    while n:
        if n & 1:
            z = n % (1 << w)
            if z >= 1 << (w - 1):
                z -= 1 << w
            n -= z
        else:
            z = 0
        d.append(z)
        n //= 2
    return d


def digits_value(d):
    return sum(z << i for i, z in enumerate(d))


def exp_cost(d, w):
    """Multiplications of a left-to-right signed-window exponentiation,
    counting the table of odd powers (one squaring and 2^(w-2) - 1 products)."""
    table = 0 if w == 2 else 1 + (1 << (w - 2)) - 1
    return table + sum(1 for z in d[:-1] if z)


# --- Formatting --------------------------------------------------------------

def limbs(x, n):
    return [(x >> (64 * i)) & (2**64 - 1) for i in range(n)]


def fmt_fp(x, n):
    return "{{" + ", ".join("0x%016xULL" % v for v in limbs(x, n)) + "}}"


def fmt_fp2(a, n, R, p):
    return "{%s, %s}" % (fmt_fp(a[0] * R % p, n), fmt_fp(a[1] * R % p, n))


def fmt_digits(d):
    """Most significant digit first, as the loops consume them."""
    return "{" + ", ".join(str(z) for z in reversed(d)) + "}"


def wrap_list(items, indent="    ", width=100):
    lines, cur = [], indent
    for i, it in enumerate(items):
        piece = it + ("," if i + 1 < len(items) else "")
        if len(cur) + len(piece) + 1 > width and cur.strip():
            lines.append(cur.rstrip())
            cur = indent
        cur += piece + " "
    lines.append(cur.rstrip())
    return lines


# --- Per-curve derivation ----------------------------------------------------

def derive(name, c):
    p, r, x, xi = c["p"], c["r"], c["x"], c["xi"]
    F = F2(p)
    n = (p.bit_length() + 63) // 64
    R = 1 << (64 * n)
    phi12 = p**4 - p**2 + 1

    # The curve family: BN (p = 36x^4 + 36x^3 + 24x^2 + 6x + 1) or BLS12.
    if c["twist"] == "D":
        assert p == 36 * x**4 + 36 * x**3 + 24 * x**2 + 6 * x + 1
        assert r == 36 * x**4 + 36 * x**3 + 18 * x**2 + 6 * x + 1
    else:
        assert r == x**4 - x**2 + 1
        assert (x - 1) ** 2 % 3 == 0 and p == (x - 1) ** 2 * r // 3 + x
    assert xi[1] == 1  # xi = c + u: the shape the Fp6 template multiplies by
    assert 4 * p < R  # products of factors below 2p stay below pR (fp6_impl.h, lazy reduction)
    assert p % 4 == 3  # u^2 = -1 is irreducible (the Fp2 template's assumption)
    assert p % 6 == 1  # 6 | p - 1, so the Frobenius exponents below are integers
    assert phi12 % r == 0 and (p**12 - 1) % r == 0

    # w^6 - xi is irreducible over Fp2 (so v^3 - xi over Fp2 and w^2 - v over
    # Fp6 are too) exactly when xi is neither a square nor a cube in Fp2.
    assert F.pow(xi, (p * p - 1) // 2) != (1, 0), "xi must be a non-square"
    assert F.pow(xi, (p * p - 1) // 3) != (1, 0), "xi must be a non-cube"

    # Frobenius: (c w^i)^(p^k) = c^(p^k) w^i xi^(i (p^k - 1)/6), so the
    # coefficient of w^i is conjugated k times and multiplied by gamma[k][i].
    gamma = {}
    for k in (1, 2, 3):
        assert (p**k - 1) % 6 == 0
        g1 = F.pow(xi, (p**k - 1) // 6)
        for i in range(1, 6):
            gamma[k, i] = F.pow(g1, i)
            assert gamma[k, i] == F.pow(xi, i * (p**k - 1) // 6)
    # The p^2-power constants lie in Fp (the Fp12 code may rely on it for
    # speed), and so does xi^((p^2 - 1)/2), which is -1.
    for i in range(1, 6):
        assert gamma[2, i][1] == 0
    assert gamma[2, 3] == (p - 1, 0), "xi^((p^2-1)/2) = -1 since xi is a non-square"
    assert F.pow(xi, (p**6 - 1) // 6) == (p - 1, 0), "w^(p^6) = -w: the p^6 Frobenius is conjugation"

    # The twist E': y^2 = x^3 + b' and its generator.
    b_twist = F.mul((c["b"], 0), F.inv(xi)) if c["twist"] == "D" else F.mul((c["b"], 0), xi)
    Q = c["g2"]
    assert F.mul(Q[1], Q[1]) == F.add(F.mul(Q[0], F.mul(Q[0], Q[0])), b_twist), "G2 on the twist"
    assert ec_mul(F, Q, r) is None, "G2 generator has order r"
    b3 = F.mul((3, 0), b_twist)
    if c["twist"] == "M":
        # bls12_381_pairing.c multiplies by 3b' as 12 xi with additions.
        assert b3 == F.mul((12, 0), xi)

    out = dict(n=n, R=R, F=F, gamma=gamma, b3=b3, field=c["field"])

    if c["twist"] == "D":
        # BN: the loop runs over 6x + 2, followed by the lines through
        # pi(Q) and -pi^2(Q). On a D-type twist (x', y') -> (x' w^2, y' w^3),
        # so pi acts on twist coordinates as (conj(x') xi^((p-1)/3),
        # conj(y') xi^((p-1)/2)), and pi^2 as (x' xi^((p^2-1)/3), -y').
        loop = 6 * x + 2
        fx, fy = gamma[1, 2], gamma[1, 3]
        f2x = gamma[2, 2]
        piQ = (F.mul(F.conj(Q[0]), fx), F.mul(F.conj(Q[1]), fy))
        assert piQ == ec_mul(F, Q, p % r), "pi(Q) = [p]Q on G2"
        pi2Q = (F.mul(Q[0], f2x), F.neg(Q[1]))
        assert pi2Q == ec_mul(F, Q, p * p % r), "pi^2(Q) = [p^2]Q on G2"
        # The optimal ate relation 6x + 2 + p - p^2 + p^3 = 0 mod r.
        assert (6 * x + 2 + p - p**2 + p**3) % r == 0
        out.update(frob_x=fx, frob_y=fy, frob2_x=f2x)
    else:
        # BLS12: the loop runs over |x|; x < 0 is handled by conjugating f.
        loop = abs(x)
        assert (x - p) % r == 0  # the ate relation x = p mod r
    loop_d = naf(loop)
    assert digits_value(loop_d) == loop and loop_d[-1] == 1
    out["loop"] = loop_d[:-1]  # the leading 1 is the starting point T = Q

    # Final exponentiation, hard part h = (p^4 - p^2 + 1)/r. The chains in
    # pairing_impl.h are modelled here as integer exponents of the input g and
    # checked to equal h modulo phi12 = p^4 - p^2 + 1, a multiple of the order
    # of g (g lies in the cyclotomic subgroup after the easy part). The models
    # are also checked to be the exact integer h where that holds, so the
    # result is f^((p^12 - 1)/r) and not a power of it.
    h = phi12 // r
    ax = abs(x)
    # The exponentiation by |x| uses the signed window that needs the fewest
    # products (width 2 is the plain NAF, no table).
    best = None
    for w in (2, 3, 4, 5):
        d = wnaf(ax, w)
        assert digits_value(d) == ax
        cost = exp_cost(d, w)
        if best is None or cost < best[0]:
            best = (cost, w, d)
    out["x_w"], out["x_digits"] = best[1], best[2]
    out["x_neg"] = x < 0
    if c["twist"] == "D":
        # Scott, Benger, Charlemagne, Dominguez Perez, Kachisa, "On the final
        # exponentiation for calculating pairings on ordinary elliptic curves"
        # (Pairing 2009), section 4: h = l0 + l1 p + l2 p^2 + l3 p^3.
        l3 = 1
        l2 = 6 * x**2 + 1
        l1 = -36 * x**3 - 18 * x**2 - 12 * x + 1
        l0 = -36 * x**3 - 30 * x**2 - 18 * x - 2
        assert l0 + l1 * p + l2 * p**2 + l3 * p**3 == h
        # The vector addition chain, step by step as in bn_hard_part.
        y0 = p + p**2 + p**3
        y1 = -1
        y2 = x**2 * p**2
        y3 = -x * p
        y4 = -(x + x**2 * p)
        y5 = -(x**2)
        y6 = -(x**3 + x**3 * p)
        t0 = 2 * y6 + y4 + y5
        t1 = y3 + y5 + t0
        t0 = t0 + y2
        t1 = 2 * (2 * t1 + t0)
        t0 = t1 + y1
        t1 = t1 + y0
        t0 = 2 * t0
        e = t0 + t1
        assert e == h, "BN hard-part chain is exact"
    else:
        # Hayashida, Hayasaka, Teruya, "Efficient final exponentiation via
        # cyclotomic structure for pairings over families of elliptic curves"
        # (ePrint 2020/875): 3h = (x - 1)^2 (x + p)(x^2 + p^2 - 1) + 3. The
        # division by 3 is absorbed into k = (x - 1)/3, an integer because
        # x = 1 mod 3, so h = k (x - 1)(x + p)(x^2 + p^2 - 1) + 1 exactly.
        assert 3 * h == (x - 1) ** 2 * (x + p) * (x**2 + p**2 - 1) + 3
        assert (x - 1) % 3 == 0
        kk = (x - 1) // 3
        assert kk * (x - 1) * (x + p) * (x**2 + p**2 - 1) + 1 == h, "BLS12 hard-part chain is exact"
        assert kk < 0
        best = None
        for w in (2, 3, 4, 5):
            d = wnaf(-kk, w)
            assert digits_value(d) == -kk
            cost = exp_cost(d, w)
            if best is None or cost < best[0]:
                best = (cost, w, d)
        out["k_w"], out["k_wnaf"] = best[1], best[2]
        out["k_neg"] = True

    e = (p**12 - 1) // r
    out["exp_limbs"] = (e.bit_length() + 63) // 64
    out["exp"] = e
    return out


def tower_header(results):
    L = []
    L.append("/* Generated by tools/gen_tower_params.py; do not edit by hand.")
    L.append(" *")
    L.append(" * Per curve: XI_C0, with xi = XI_C0 + u the non-residue of Fp6 = Fp2[v]/(v^3 - xi)")
    L.append(" * and Fp12 = Fp6[w]/(w^2 - v), and FROB[k-1][i-1] = xi^(i (p^k - 1)/6) for")
    L.append(" * k = 1, 2, 3 and i = 1..5, the factor by which the p^k-power Frobenius")
    L.append(" * multiplies the coefficient of w^i (v = w^2), in Montgomery form. X_DIGITS is a")
    L.append(" * width-X_W signed-window form of |x| for the curve seed x (odd digits below")
    L.append(" * 2^(X_W - 1) in absolute value, most significant first; width 2 is the NAF),")
    L.append(" * and X_NEG says x < 0; the final exponentiation raises to x with it. */")
    L.append("#ifndef ZKP_FIELD_TOWER_PARAMS_H")
    L.append("#define ZKP_FIELD_TOWER_PARAMS_H")
    for name, c in CURVES.items():
        o = results[name]
        n, R, p = o["n"], o["R"], c["p"]
        L.append("")
        L.append("/* %s: xi = %d + u */" % (name, c["xi"][0]))
        L.append("#define %s_TOWER_XI_C0 %d" % (name, c["xi"][0]))
        L.append("#define %s_TOWER_FROB \\" % name)
        L.append("    { \\")
        for k in (1, 2, 3):
            L.append("        { \\")
            for i in range(1, 6):
                sep = "," if i < 5 else ""
                L.append("            %s%s \\" % (fmt_fp2(o["gamma"][k, i], n, R, p), sep))
            L.append("        }%s \\" % ("," if k < 3 else ""))
        L.append("    }")
        L.append("#define %s_TOWER_X_NEG %d" % (name, 1 if o["x_neg"] else 0))
        L.append("#define %s_TOWER_X_W %d" % (name, o["x_w"]))
        L.append("#define %s_TOWER_X_DIGITS_LEN %d" % (name, len(o["x_digits"])))
        L.append("#define %s_TOWER_X_DIGITS \\" % name)
        L.append("    { \\")
        for line in wrap_list([str(z) for z in reversed(o["x_digits"])], "        "):
            L.append(line + " \\")
        L.append("    }")
    L.append("")
    L.append("#endif")
    return "\n".join(L) + "\n"


def pairing_header(results):
    L = []
    L.append("/* Generated by tools/gen_tower_params.py; do not edit by hand.")
    L.append(" *")
    L.append(" * Per curve:")
    L.append(" *   LOOP_DIGITS   NAF of the Miller loop parameter (6x + 2 for BN254, |x| for")
    L.append(" *                 BLS12-381), most significant first, the leading 1 left out;")
    L.append(" *                 LOOP_NEG says the parameter is negative (x < 0)")
    L.append(" *   TWIST_B3      3b' for the twist E': y^2 = x^3 + b', Montgomery form")
    L.append(" *   FROB_X/Y, FROB2_X   (BN254) the p- and p^2-power Frobenius on twist coordinates")
    L.append(" *   K_WNAF        (BLS12-381) width-K_W NAF of |(x - 1)/3| for the exact hard part")
    L.append(" *   FINAL_EXP     (p^12 - 1)/r, little-endian limbs, for tests only */")
    L.append("#ifndef ZKP_PAIRING_PAIRING_PARAMS_H")
    L.append("#define ZKP_PAIRING_PAIRING_PARAMS_H")
    for name, c in CURVES.items():
        o = results[name]
        n, R, p = o["n"], o["R"], c["p"]
        L.append("")
        L.append("/* %s: x = %s%s */" % (name, "-" if c["x"] < 0 else "", hex(abs(c["x"]))))
        L.append("#define %s_LOOP_NEG %d" % (name, 1 if c["x"] < 0 else 0))
        L.append("#define %s_LOOP_LEN %d" % (name, len(o["loop"])))
        L.append("#define %s_LOOP_DIGITS \\" % name)
        L.append("    { \\")
        for line in wrap_list([str(z) for z in reversed(o["loop"])], "        "):
            L.append(line + " \\")
        L.append("    }")
        L.append("#define %s_TWIST_B3 %s" % (name, fmt_fp2(o["b3"], n, R, p)))
        if "frob_x" in o:
            L.append("#define %s_FROB_X %s" % (name, fmt_fp2(o["frob_x"], n, R, p)))
            L.append("#define %s_FROB_Y %s" % (name, fmt_fp2(o["frob_y"], n, R, p)))
            L.append("#define %s_FROB2_X %s" % (name, fmt_fp2(o["frob2_x"], n, R, p)))
        if "k_wnaf" in o:
            L.append("#define %s_K_W %d" % (name, o["k_w"]))
            L.append("#define %s_K_NEG %d" % (name, 1 if o["k_neg"] else 0))
            L.append("#define %s_K_WNAF_LEN %d" % (name, len(o["k_wnaf"])))
            L.append("#define %s_K_WNAF \\" % name)
            L.append("    { \\")
            for line in wrap_list([str(z) for z in reversed(o["k_wnaf"])], "        "):
                L.append(line + " \\")
            L.append("    }")
        L.append("#define %s_FINAL_EXP_LIMBS %d" % (name, o["exp_limbs"]))
        L.append("#define %s_FINAL_EXP \\" % name)
        L.append("    { \\")
        for line in wrap_list(["0x%016xULL" % v for v in limbs(o["exp"], o["exp_limbs"])], "        "):
            L.append(line + " \\")
        L.append("    }")
    L.append("")
    L.append("#endif")
    return "\n".join(L) + "\n"


def main():
    results = {name: derive(name, c) for name, c in CURVES.items()}
    files = {
        os.path.join("src", "field", "tower_params.h"): tower_header(results),
        os.path.join("src", "pairing", "pairing_params.h"): pairing_header(results),
    }
    check = "--check" in sys.argv[1:]
    stale = False
    for path, text in files.items():
        if check:
            try:
                with open(path) as f:
                    if f.read() != text:
                        print("stale: " + path)
                        stale = True
            except FileNotFoundError:
                print("missing: " + path)
                stale = True
        else:
            with open(path, "w") as f:
                f.write(text)
    sys.exit(1 if stale else 0)


main()
