// Generates the known-answer vectors bn254.json and bls12_381.json from
// @noble/curves, an implementation written independently of zkpipe.
//
// Run: cd tests/vectors && npm ci && node gen.mjs
//
// The output is deterministic: every random input comes from a SHA-256
// counter-mode generator seeded with a fixed string per curve, so re-running
// the script with the pinned noble version rewrites identical files. The
// schema is described in README.md.
//
// Beyond recording noble's answers, the script checks them against each other
// wherever a second route exists (scalar multiplication by our own
// double-and-add, pairing bilinearity, serialization round trips, the tower
// relations), so a vector file is only written when those checks pass.

import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { bls12_381 } from '@noble/curves/bls12-381.js';
import { bn254 } from '@noble/curves/bn254.js';

const HERE = dirname(fileURLToPath(import.meta.url));
const NOBLE_VERSION = JSON.parse(
  readFileSync(join(HERE, 'node_modules/@noble/curves/package.json'), 'utf8')
).version;

function check(cond, what) {
  if (!cond) throw new Error('self-check failed: ' + what);
}

// ---------------------------------------------------------------------------
// Deterministic randomness.
//
// Block i of the stream is SHA-256(seed || ":" || i). A value below a modulus
// m is drawn from 64 more bits than m has and reduced, which makes the bias
// negligible and, more importantly, keeps the stream consumption fixed.

class Rng {
  constructor(seed) {
    this.seed = seed;
    this.counter = 0;
    this.pool = Buffer.alloc(0);
  }
  bytes(n) {
    while (this.pool.length < n) {
      const block = createHash('sha256').update(`${this.seed}:${this.counter++}`).digest();
      this.pool = Buffer.concat([this.pool, block]);
    }
    const out = this.pool.subarray(0, n);
    this.pool = this.pool.subarray(n);
    return Buffer.from(out);
  }
  bits(nbits) {
    const nbytes = Math.ceil(nbits / 8);
    const v = BigInt('0x' + this.bytes(nbytes).toString('hex'));
    return v & ((1n << BigInt(nbits)) - 1n);
  }
  below(m) {
    return this.bits(bitLength(m) + 64) % m;
  }
}

function bitLength(x) {
  return x === 0n ? 0 : x.toString(2).length;
}

// ---------------------------------------------------------------------------
// Encodings.

// A field element or scalar as big-endian hex, zero-padded to the byte width
// of its field so that every value of one field has the same length.
function hexN(x, nbytes) {
  check(x >= 0n && x < 1n << BigInt(8 * nbytes), `value fits in ${nbytes} bytes`);
  return '0x' + x.toString(16).padStart(2 * nbytes, '0');
}

function leBytesHex(x, nbytes) {
  let s = '';
  for (let i = 0; i < nbytes; i++) {
    s += Number((x >> BigInt(8 * i)) & 0xffn)
      .toString(16)
      .padStart(2, '0');
  }
  check(x >> BigInt(8 * nbytes) === 0n, 'little-endian value fits');
  return s;
}

function beBytesHex(x, nbytes) {
  return hexN(x, nbytes).slice(2);
}

// ---------------------------------------------------------------------------
// One curve.

function generate(name, curve, opts) {
  const { Fp, Fp2, Fp6, Fp12, Fr } = curve.fields;
  const p = Fp.ORDER;
  const r = Fr.ORDER;
  const G1 = curve.G1.Point;
  const G2 = curve.G2.Point;
  const rng = new Rng(`zkpipe test vectors / ${name}`);

  // Byte widths: snarkjs stores each field in 64-bit limbs, so the byte width
  // is the limb count times 8 (32 for 254/255-bit fields, 48 for 381 bits).
  const fpBytes = Math.ceil(bitLength(p) / 64) * 8;
  const frBytes = Math.ceil(bitLength(r) / 64) * 8;
  const hp = (x) => hexN(x, fpBytes);
  const hr = (x) => hexN(x, frBytes);
  const hp2 = (a) => [hp(a.c0), hp(a.c1)];
  const pt1 = (P) => (P.is0() ? null : { x: hp(P.toAffine().x), y: hp(P.toAffine().y) });
  const pt2 = (P) => (P.is0() ? null : { x: hp2(P.toAffine().x), y: hp2(P.toAffine().y) });

  // The tower must be Fp2 = Fp[u]/(u^2+1), Fp6 = Fp2[v]/(v^3 - xi),
  // Fp12 = Fp6[w]/(w^2 - v). Check it through noble's own multiplication
  // rather than trusting its documentation, since the flattened pairing
  // output is only meaningful for this exact tower.
  {
    const u = Fp2.create({ c0: 0n, c1: 1n });
    check(Fp2.eql(Fp2.sqr(u), Fp2.create({ c0: p - 1n, c1: 0n })), `${name}: u^2 = -1`);
    const v = { c0: Fp2.ZERO, c1: Fp2.ONE, c2: Fp2.ZERO };
    const xi = Fp2.create({ c0: opts.xi[0], c1: opts.xi[1] });
    check(
      Fp6.eql(Fp6.mul(Fp6.sqr(v), v), { c0: xi, c1: Fp2.ZERO, c2: Fp2.ZERO }),
      `${name}: v^3 = xi`
    );
    const w = { c0: Fp6.ZERO, c1: Fp6.ONE };
    check(Fp12.eql(Fp12.sqr(w), { c0: v, c1: Fp6.ZERO }), `${name}: w^2 = v`);
  }

  // ----- prime fields -----

  function primeField(F, m, hx, nbytes) {
    const rnd = () => rng.below(m);
    const edges = [0n, 1n, 2n, m - 1n];
    const nonzeroEdges = [1n, 2n, m - 1n];
    const isSquare = (a) => a === 0n || F.pow(a, (m - 1n) / 2n) === 1n;
    const out = {
      mul: [],
      sqr: [],
      add: [],
      sub: [],
      inv: [],
      sqrt: [],
      non_squares: [],
      pow: [],
      decimal: [],
    };
    const pairs = [];
    for (const a of edges) for (const b of edges) pairs.push([a, b]);
    for (let i = 0; i < 20; i++) pairs.push([rnd(), rnd()]);
    for (const [a, b] of pairs) {
      out.mul.push({ a: hx(a), b: hx(b), out: hx(F.mul(a, b)) });
      out.add.push({ a: hx(a), b: hx(b), out: hx(F.add(a, b)) });
      out.sub.push({ a: hx(a), b: hx(b), out: hx(F.sub(a, b)) });
      check(F.mul(a, b) === (a * b) % m, 'mul matches bigint');
      check(F.add(a, b) === (a + b) % m, 'add matches bigint');
      check(F.sub(a, b) === (((a - b) % m) + m) % m, 'sub matches bigint');
    }
    for (const a of [...edges, ...Array.from({ length: 20 }, rnd)]) {
      out.sqr.push({ a: hx(a), out: hx(F.sqr(a)) });
    }
    for (const a of [...nonzeroEdges, ...Array.from({ length: 20 }, rnd)]) {
      if (a === 0n) continue;
      const inv = F.inv(a);
      check(F.mul(a, inv) === 1n, 'inverse');
      out.inv.push({ a: hx(a), out: hx(inv) });
    }
    // Squares: the edges that are squares, small squares, and squares of
    // random elements. Elements that are not squares go to non_squares.
    const sqrtInputs = [0n, 1n, 4n, m - 1n];
    for (let i = 0; i < 20; i++) sqrtInputs.push(F.sqr(rnd()));
    for (const a of sqrtInputs) {
      if (!isSquare(a)) continue;
      const s = F.sqrt(a);
      check(F.sqr(s) === a, 'sqrt squares back');
      out.sqrt.push({ a: hx(a), out: hx(s) });
    }
    const nonSquares = [];
    if (!isSquare(m - 1n)) nonSquares.push(m - 1n);
    for (let c = 2n; nonSquares.length < 2; c++) if (!isSquare(c)) nonSquares.push(c);
    while (nonSquares.length < 12) {
      const a = rnd();
      if (!isSquare(a)) nonSquares.push(a);
    }
    for (const a of nonSquares) {
      let threw = false;
      try {
        F.sqrt(a);
      } catch {
        threw = true;
      }
      check(threw, 'noble rejects sqrt of a non-square');
      out.non_squares.push(hx(a));
    }
    // Exponents are drawn up to the limb width (they need not be reduced);
    // 0^0 is taken as 1, as square-and-multiply gives.
    const limbMax = (1n << BigInt(8 * nbytes)) - 1n;
    const powCases = [
      [0n, 0n],
      [0n, 5n],
      [5n, 0n],
      [m - 1n, 1n],
      [2n, m - 1n],
      [3n, m - 2n],
      [m - 1n, 2n],
      [2n, limbMax],
    ];
    for (let i = 0; i < 20; i++) powCases.push([rnd(), rng.bits(8 * nbytes)]);
    for (const [a, e] of powCases) {
      const v = F.pow(a, e);
      check(e !== 0n || v === 1n, '0^0 is 1');
      out.pow.push({ a: hx(a), e: hexN(e, nbytes), out: hx(v) });
    }
    for (const a of [0n, 1n, 10n, m - 1n, ...Array.from({ length: 12 }, rnd)]) {
      out.decimal.push({ hex: hx(a), dec: a.toString(10) });
    }
    return out;
  }

  // ----- Fp2 -----

  function fp2Section() {
    const rnd2 = () => Fp2.create({ c0: rng.below(p), c1: rng.below(p) });
    const mk = (c0, c1) => Fp2.create({ c0, c1 });
    const edges = [mk(0n, 0n), mk(1n, 0n), mk(0n, 1n), mk(p - 1n, p - 1n), mk(1n, 1n)];
    edges.push(mk(opts.xi[0], opts.xi[1]));
    const isSquare2 = (a) => {
      // a is a square in Fp2 exactly when its norm c0^2 + c1^2 is a square in Fp.
      const n = Fp.add(Fp.sqr(a.c0), Fp.sqr(a.c1));
      return n === 0n || Fp.pow(n, (p - 1n) / 2n) === 1n;
    };
    const out = { mul: [], sqr: [], add: [], sub: [], inv: [], sqrt: [], non_squares: [] };
    const pairs = [];
    for (const a of edges) for (const b of edges) pairs.push([a, b]);
    for (let i = 0; i < 20; i++) pairs.push([rnd2(), rnd2()]);
    for (const [a, b] of pairs) {
      out.mul.push({ a: hp2(a), b: hp2(b), out: hp2(Fp2.mul(a, b)) });
      out.add.push({ a: hp2(a), b: hp2(b), out: hp2(Fp2.add(a, b)) });
      out.sub.push({ a: hp2(a), b: hp2(b), out: hp2(Fp2.sub(a, b)) });
    }
    for (const a of [...edges, ...Array.from({ length: 20 }, rnd2)]) {
      out.sqr.push({ a: hp2(a), out: hp2(Fp2.sqr(a)) });
    }
    for (const a of [...edges, ...Array.from({ length: 20 }, rnd2)]) {
      if (Fp2.is0(a)) continue;
      const inv = Fp2.inv(a);
      check(Fp2.eql(Fp2.mul(a, inv), Fp2.ONE), 'Fp2 inverse');
      out.inv.push({ a: hp2(a), out: hp2(inv) });
    }
    // Squares include elements of Fp that are not squares in Fp (such as -1),
    // whose roots are purely imaginary: a classic place for sqrt bugs.
    const sqrtInputs = [...edges, mk(p - 1n, 0n), mk(p - 4n, 0n), mk(4n, 0n)];
    for (let i = 0; i < 20; i++) sqrtInputs.push(Fp2.sqr(rnd2()));
    for (const a of sqrtInputs) {
      if (!isSquare2(a)) continue;
      const s = Fp2.sqrt(a);
      check(Fp2.eql(Fp2.sqr(s), a), 'Fp2 sqrt squares back');
      out.sqrt.push({ a: hp2(a), out: hp2(s) });
    }
    const nonSquares = edges.filter((a) => !isSquare2(a));
    while (nonSquares.length < 10) {
      const a = rnd2();
      if (!isSquare2(a)) nonSquares.push(a);
    }
    for (const a of nonSquares) {
      let threw = false;
      try {
        Fp2.sqrt(a);
      } catch {
        threw = true;
      }
      check(threw, 'noble rejects Fp2 sqrt of a non-square');
      out.non_squares.push(hp2(a));
    }
    return out;
  }

  // ----- groups -----

  // Scalar multiplication by plain left-to-right double-and-add over noble's
  // add and double. It accepts any k >= 0 (including r and beyond), which
  // noble's multiply() does not, and gives a second route to check against.
  function ladder(P, k, Zero) {
    let acc = Zero;
    for (let i = bitLength(k) - 1; i >= 0; i--) {
      acc = acc.double();
      if ((k >> BigInt(i)) & 1n) acc = acc.add(P);
    }
    return acc;
  }

  function groupSection(Point, pt, which) {
    const Zero = Point.ZERO;
    const Base = Point.BASE;
    const rndPoint = () => Base.multiply(rng.below(r - 1n) + 1n);
    const out = {
      generator: pt(Base),
      add: [],
      double: [],
      mul: [],
      not_on_curve: [],
      not_in_subgroup: [],
    };
    const addPair = (P, Q) => out.add.push({ p: pt(P), q: pt(Q), out: pt(P.add(Q)) });
    const P0 = rndPoint();
    addPair(P0, P0.negate()); // P + (-P) = infinity
    addPair(P0, P0); // doubling through add
    addPair(P0, Zero);
    addPair(Zero, P0);
    addPair(Zero, Zero);
    addPair(Base, Base);
    addPair(Base, Base.double());
    addPair(Base.negate(), Base.double()); // -G + 2G = G
    for (let i = 0; i < 16; i++) addPair(rndPoint(), rndPoint());
    check(P0.add(P0.negate()).is0(), 'P + (-P) = 0');

    out.double.push({ p: pt(Zero), out: pt(Zero) });
    out.double.push({ p: pt(Base), out: pt(Base.double()) });
    for (let i = 0; i < 16; i++) {
      const P = rndPoint();
      check(P.double().equals(P.add(P)), 'double = add');
      out.double.push({ p: pt(P), out: pt(P.double()) });
    }

    const mulCase = (P, k) => {
      const Q = ladder(P, k, Zero);
      const kr = k % r;
      check(Q.equals(kr === 0n ? Zero : P.multiply(kr)), 'ladder matches noble multiply');
      out.mul.push({ p: pt(P), k: hexN(k, 32), out: pt(Q) });
    };
    const maxK = (1n << 256n) - 1n;
    const edgeK = [0n, 1n, 2n, r - 1n, r, r + 1n, maxK];
    for (const k of edgeK) mulCase(Base, k);
    const P1 = rndPoint();
    for (const k of edgeK) mulCase(P1, k);
    mulCase(Zero, rng.below(r));
    for (let i = 0; i < 16; i++) mulCase(rndPoint(), rng.below(r));
    check(ladder(Base, r, Zero).is0(), 'r * G = 0');
    return out;
  }

  // Points that fail the curve equation. (0, 0) is left out because some
  // formats (EIP-196, noble's fromAffine) read it as the point at infinity.
  function notOnCurve1() {
    const b = Fp.create(opts.b1);
    const list = [];
    const cand = [
      [G1.BASE.toAffine().x, Fp.add(G1.BASE.toAffine().y, 1n)],
      [0n, 1n],
      [1n, 1n],
      [p - 1n, p - 1n],
    ];
    for (let i = 0; i < 6; i++) cand.push([rng.below(p), rng.below(p)]);
    for (const [x, y] of cand) {
      if (Fp.sqr(y) === Fp.add(Fp.mul(Fp.sqr(x), x), b)) continue;
      let threw = false;
      try {
        G1.fromAffine({ x, y }).assertValidity();
      } catch {
        threw = true;
      }
      check(threw, 'noble rejects a G1 point off the curve');
      list.push({ x: hp(x), y: hp(y) });
    }
    return list;
  }

  function notOnCurve2() {
    const b = G2.CURVE().b;
    const list = [];
    const g = G2.BASE.toAffine();
    const rnd2 = () => Fp2.create({ c0: rng.below(p), c1: rng.below(p) });
    const cand = [
      [g.x, Fp2.add(g.y, Fp2.ONE)],
      [g.x, Fp2.create({ c0: g.y.c0, c1: Fp.add(g.y.c1, 1n) })],
      [Fp2.ZERO, Fp2.ONE],
    ];
    for (let i = 0; i < 6; i++) cand.push([rnd2(), rnd2()]);
    for (const [x, y] of cand) {
      if (Fp2.eql(Fp2.sqr(y), Fp2.add(Fp2.mul(Fp2.sqr(x), x), b))) continue;
      let threw = false;
      try {
        G2.fromAffine({ x, y }).assertValidity();
      } catch {
        threw = true;
      }
      check(threw, 'noble rejects a G2 point off the curve');
      list.push({ x: hp2(x), y: hp2(y) });
    }
    return list;
  }

  // On-curve points outside the r-torsion: random x until x^3 + b is a
  // square. With a cofactor this large, a random curve point lands in the
  // subgroup with negligible probability, and noble confirms each one.
  function notInSubgroup(Point, F, b, rndF, extra) {
    const list = [];
    const pts = [...extra];
    while (pts.length < 8) {
      const x = rndF();
      let y;
      try {
        y = F.sqrt(F.add(F.mul(F.sqr(x), x), b));
      } catch {
        continue;
      }
      pts.push({ x, y });
    }
    for (const a of pts) {
      const P = Point.fromAffine(a);
      check(!P.is0(), 'not infinity');
      check(F.eql(F.sqr(a.y), F.add(F.mul(F.sqr(a.x), a.x), b)), 'on curve');
      check(!P.isTorsionFree(), 'outside the subgroup');
      check(!ladder(P, r, Point.ZERO).is0(), 'r * P != 0');
      let threw = false;
      try {
        P.assertValidity();
      } catch {
        threw = true;
      }
      check(threw, 'noble rejects a point outside the subgroup');
      list.push(a);
    }
    return list;
  }

  const g1 = groupSection(G1, pt1, 'g1');
  g1.not_on_curve = notOnCurve1();
  const b1 = Fp.create(opts.b1);
  const b2 = G2.CURVE().b;
  if (opts.g1Cofactor) {
    // (0, 2) lies on y^2 = x^3 + 4 and has order 3: the cofactor of
    // BLS12-381 G1 is divisible by 3.
    g1.not_in_subgroup = notInSubgroup(G1, Fp, b1, () => rng.below(p), [{ x: 0n, y: 2n }]).map(
      (a) => ({ x: hp(a.x), y: hp(a.y) })
    );
  }
  const g2 = groupSection(G2, pt2, 'g2');
  g2.not_on_curve = notOnCurve2();
  g2.not_in_subgroup = notInSubgroup(
    G2,
    Fp2,
    b2,
    () => Fp2.create({ c0: rng.below(p), c1: rng.below(p) }),
    []
  ).map((a) => ({ x: hp2(a.x), y: hp2(a.y) }));

  // ----- pairing -----

  // The exact reduced pairing: noble's Miller loop output (pairing(.., false))
  // raised to (p^12 - 1)/r by plain square-and-multiply. This avoids any
  // dependence on how a fast final exponentiation is organised, since some
  // of those compute a fixed power of the pairing instead.
  const finalExp = (p ** 12n - 1n) / r;
  check((p ** 12n - 1n) % r === 0n, 'r divides p^12 - 1');
  const flat12 = (f) => {
    const out = [];
    for (const c6 of [f.c0, f.c1]) for (const c2 of [c6.c0, c6.c1, c6.c2]) out.push(c2.c0, c2.c1);
    return out.map(hp);
  };
  const exactPairing = (P, Q) => Fp12.pow(curve.pairing(P, Q, false), finalExp);
  const pairings = [];
  let nobleMatches = true;
  const eBase = exactPairing(G1.BASE, G2.BASE);
  check(!Fp12.eql(eBase, Fp12.ONE), 'e(G1, G2) != 1');
  check(Fp12.eql(Fp12.pow(eBase, r), Fp12.ONE), 'e(G1, G2)^r = 1');
  // Pin e(G1, G2) to a value published outside noble, so the exact pairing
  // (and the flattening order) is not only self-consistent.
  check(flat12(eBase).join() === opts.knownPairing.map((x) => hp(BigInt(x))).join(), 'e(G1, G2)');
  const scalars = [[1n, 1n]];
  for (let i = 0; i < 4; i++) scalars.push([rng.below(r - 1n) + 1n, rng.below(r - 1n) + 1n]);
  for (const [a, b] of scalars) {
    const P = G1.BASE.multiply(a);
    const Q = G2.BASE.multiply(b);
    const e = exactPairing(P, Q);
    // Bilinearity: e(aG1, bG2) = e(G1, G2)^(ab).
    check(Fp12.eql(e, Fp12.pow(eBase, (a * b) % r)), 'bilinearity');
    if (!Fp12.eql(e, curve.pairing(P, Q))) nobleMatches = false;
    pairings.push({ a: hr(a), b: hr(b), p: pt1(P), q: pt2(Q), out: flat12(e) });
  }

  // noble's fast final exponentiation computes a fixed power e^m of the exact
  // pairing (m = 3 for BLS12-381, the Hayashida-Hayasaka-Teruya chain;
  // m = 2x(6x^2+3x+1) for BN254, the Fuentes-Castaneda-Knapp-Rodriguez-Henriquez
  // chain). Record which m, so that a reader comparing against noble or a
  // library with the same chain knows the relation, and fail loudly if a
  // future noble version changes it.
  let noblePower = null;
  {
    const fast = curve.pairing(G1.BASE, G2.BASE);
    for (const [formula, m] of opts.noblePowers) {
      const mm = ((m % r) + r) % r;
      if (Fp12.eql(Fp12.pow(eBase, mm), fast)) {
        noblePower = { formula, m: hr(mm) };
        break;
      }
    }
    check(nobleMatches === (noblePower !== null && noblePower.formula === '1'), 'noble power');
    check(noblePower !== null, 'noble pairing is a known power of the exact pairing');
  }

  // ----- circom / snarkjs binary layout -----

  // snarkjs stores field elements in Montgomery form x * R mod m with
  // R = 2^(64 * limbs), little-endian.
  const mont = (x, m, nbytes) => leBytesHex((x << BigInt(8 * nbytes)) % m, nbytes);
  const montP = (x) => mont(x, p, fpBytes);
  const circomPoint1 = (P) =>
    P.is0() ? '00'.repeat(2 * fpBytes) : montP(P.toAffine().x) + montP(P.toAffine().y);
  const circomPoint2 = (P) => {
    if (P.is0()) return '00'.repeat(4 * fpBytes);
    const { x, y } = P.toAffine();
    return montP(x.c0) + montP(x.c1) + montP(y.c0) + montP(y.c1);
  };
  const circom = { fr: [], fp: [], g1: [], g2: [] };
  for (const v of [0n, 1n, 2n, r - 1n, ...Array.from({ length: 6 }, () => rng.below(r))]) {
    circom.fr.push({ value: hr(v), bytes: mont(v, r, frBytes) });
  }
  for (const v of [0n, 1n, 2n, p - 1n, ...Array.from({ length: 6 }, () => rng.below(p))]) {
    circom.fp.push({ value: hp(v), bytes: montP(v) });
  }
  const circomPts1 = [G1.ZERO, G1.BASE];
  const circomPts2 = [G2.ZERO, G2.BASE];
  for (let i = 0; i < 6; i++) {
    circomPts1.push(G1.BASE.multiply(rng.below(r - 1n) + 1n));
    circomPts2.push(G2.BASE.multiply(rng.below(r - 1n) + 1n));
  }
  for (const P of circomPts1) circom.g1.push({ point: pt1(P), bytes: circomPoint1(P) });
  for (const P of circomPts2) circom.g2.push({ point: pt2(P), bytes: circomPoint2(P) });

  const doc = {
    curve: name,
    generator: `@noble/curves ${NOBLE_VERSION}`,
    p: hp(p),
    r: hr(r),
    fp: primeField(Fp, p, hp, fpBytes),
    fr: primeField(Fr, r, hr, frBytes),
    fp2: fp2Section(),
    g1,
    g2,
    pairing_exponent: 'exact (p^12-1)/r',
    noble_pairing_matches_exact: nobleMatches,
    noble_pairing_power: noblePower,
    pairing: pairings,
    circom,
  };
  if (opts.zcash) doc.zcash = zcashSection();
  return doc;

  // ----- ZCash / blst serialization (BLS12-381 only) -----

  function zcashSection() {
    const out = { g1: [], g2: [], invalid: [] };
    const pts1 = [G1.ZERO, G1.BASE];
    const pts2 = [G2.ZERO, G2.BASE];
    for (let i = 0; i < 8; i++) {
      pts1.push(G1.BASE.multiply(rng.below(r - 1n) + 1n));
      pts2.push(G2.BASE.multiply(rng.below(r - 1n) + 1n));
    }
    const sortSeen = { g1: new Set(), g2: new Set() };
    const enc = (group, Point, pt, P) => {
      const compressed = P.toHex(true);
      const uncompressed = P.toHex(false);
      check(Point.fromHex(compressed).equals(P), 'compressed round trip');
      check(Point.fromHex(uncompressed).equals(P), 'uncompressed round trip');
      if (!P.is0()) sortSeen[group].add(parseInt(compressed.slice(0, 2), 16) & 0x20);
      return { point: pt(P), compressed, uncompressed };
    };
    for (const P of pts1) out.g1.push(enc('g1', G1, pt1, P));
    for (const P of pts2) out.g2.push(enc('g2', G2, pt2, P));
    check(sortSeen.g1.size === 2 && sortSeen.g2.size === 2, 'both sort-flag values covered');

    const W = 48;
    const setFlags = (hex, flags) => {
      const b0 = parseInt(hex.slice(0, 2), 16);
      check((b0 & 0xe0) === 0, 'flag bits free');
      return (b0 | flags).toString(16).padStart(2, '0') + hex.slice(2);
    };
    // Encoders that put arbitrary field values (also ones >= p) into the
    // wire layout: G2 puts the imaginary part c1 first.
    const encFp = (x) => beBytesHex(x, W);
    const encFp2 = (a) => beBytesHex(a.c1, W) + beBytesHex(a.c0, W);
    const C = 0x80,
      I = 0x40,
      S = 0x20;
    // Each invalid encoding must be rejected by noble, and for the reason its
    // tag names; noble's messages are mapped back to our four classes.
    const nobleClass = (msg) => {
      if (/expected \d+ bytes|non-canonical zero|invalid encoding flag/.test(msg))
        return 'bad_encoding';
      if (/outside of range/.test(msg)) return 'non_canonical';
      if (/square root|equation left != right|invalid G[12] point: uncompressed/.test(msg))
        return 'not_on_curve';
      if (/subgroup/.test(msg)) return 'not_in_subgroup';
      return 'unknown: ' + msg;
    };
    const add = (group, hex, error) => {
      const Point = group === 'g1' ? G1 : G2;
      let got = 'accepted';
      try {
        Point.fromHex(hex);
      } catch (e) {
        got = nobleClass(e.message);
      }
      check(got === error, `noble rejects ${group} ${hex} as ${error}, got ${got}`);
      out.invalid.push({ group, hex, error });
    };
    const find = (F, rndF, b, wantSquare) => {
      for (;;) {
        const x = rndF();
        const rhs = F.add(F.mul(F.sqr(x), x), b);
        let y = null;
        try {
          y = F.sqrt(rhs);
        } catch {
          y = null;
        }
        if ((y !== null) === wantSquare) return { x, y };
      }
    };
    const groups = [
      {
        g: 'g1',
        Point: G1,
        F: Fp,
        b: b1,
        encF: encFp,
        rndF: () => rng.below(p),
      },
      {
        g: 'g2',
        Point: G2,
        F: Fp2,
        b: b2,
        encF: encFp2,
        rndF: () => Fp2.create({ c0: rng.below(p), c1: rng.below(p) }),
      },
    ];
    for (const { g, Point, F, b, encF, rndF } of groups) {
      const n = g === 'g1' ? W : 2 * W;
      const P = Point.BASE.multiply(rng.below(r - 1n) + 1n);
      const comp = P.toHex(true);
      const unc = P.toHex(false);
      const { x, y } = P.toAffine();
      // Wrong lengths.
      add(g, '', 'bad_encoding');
      add(g, comp.slice(0, -2), 'bad_encoding');
      add(g, comp + '00', 'bad_encoding');
      add(g, unc.slice(0, -2), 'bad_encoding');
      add(g, unc + '00', 'bad_encoding');
      // Compression flag that disagrees with the length.
      add(g, encF(x), 'bad_encoding'); // n bytes, C clear
      add(g, setFlags(encF(x) + encF(y), C), 'bad_encoding'); // 2n bytes, C set
      // Infinity flag with a nonzero body, with and without compression.
      add(g, setFlags('00'.repeat(n - 1) + '01', C | I), 'bad_encoding');
      add(g, setFlags('00'.repeat(2 * n - 1) + '01', I), 'bad_encoding');
      add(g, setFlags(encF(x), C | I), 'bad_encoding');
      // Infinity together with the sort flag.
      add(g, setFlags('00'.repeat(n), C | I | S), 'bad_encoding');
      add(g, setFlags('00'.repeat(2 * n), I | S), 'bad_encoding');
      // The sort flag on an uncompressed encoding.
      add(g, setFlags(encF(x) + encF(y), S), 'bad_encoding');
      // Uncompressed all-zero body without the infinity flag: (0, 0) is not
      // on the curve, and infinity has its own encoding.
      add(g, '00'.repeat(2 * n), 'not_on_curve');
      // Coordinates >= p.
      const overP = [p, (1n << 381n) - 1n];
      if (g === 'g1') {
        for (const v of overP) {
          add(g, setFlags(encFp(v), C), 'non_canonical');
          add(g, encFp(v) + encFp(y), 'non_canonical');
          add(g, encFp(x) + encFp(v), 'non_canonical');
        }
      } else {
        for (const v of overP) {
          add(g, setFlags(encFp2({ c0: x.c0, c1: v }), C), 'non_canonical');
          add(g, setFlags(encFp2({ c0: v, c1: x.c1 }), C), 'non_canonical');
          add(g, encFp2({ c0: x.c0, c1: v }) + encFp2(y), 'non_canonical');
          add(g, encFp2(x) + encFp2({ c0: v, c1: y.c1 }), 'non_canonical');
        }
      }
      // Compressed x for which x^3 + b has no square root.
      for (let i = 0; i < 2; i++) add(g, setFlags(encF(find(F, rndF, b, false).x), C), 'not_on_curve');
      // Uncompressed points off the curve.
      add(g, encF(x) + encF(F.add(y, F.ONE)), 'not_on_curve');
      add(g, encF(F.ONE) + encF(F.ONE), 'not_on_curve');
      // On the curve but outside the subgroup, in both forms and both signs.
      for (let i = 0; i < 2; i++) {
        const q = find(F, rndF, b, true);
        const Q = Point.fromAffine({ x: q.x, y: q.y });
        check(!Q.isTorsionFree(), 'outside the subgroup');
        for (const R of [Q, Q.negate()]) {
          const a = R.toAffine();
          // Build the compressed form by hand: noble refuses to encode a
          // point that fails assertValidity().
          const yp = g === 'g1' ? [a.y] : [a.y.c1, a.y.c0];
          let sort = false;
          for (const part of yp) {
            if (part !== 0n) {
              sort = part * 2n > p;
              break;
            }
          }
          add(g, setFlags(encF(a.x), C | (sort ? S : 0)), 'not_in_subgroup');
          add(g, encF(a.x) + encF(a.y), 'not_in_subgroup');
        }
      }
      if (g === 'g1') {
        // x = 0 decompresses to (0, +-2), a point of order 3.
        add(g, setFlags(encFp(0n), C), 'not_in_subgroup');
        add(g, setFlags(encFp(0n), C | S), 'not_in_subgroup');
        add(g, encFp(0n) + encFp(2n), 'not_in_subgroup');
      }
    }
    return out;
  }
}

// The BN254 seed x, from which p, r and the Miller loop length 6x + 2 derive.
const BN_X = 4965661367192848881n;

const curves = [
  {
    name: 'bn254',
    curve: bn254,
    opts: {
      xi: [9n, 1n],
      b1: 3n,
      g1Cofactor: false,
      zcash: false,
      // e(G1, G2) in the flattening order of the README, as published for
      // example as the GT generator of gnark-crypto and halo2curves (decimal).
      knownPairing: [
        '8493334370784016972005089913588211327688223499729897951716206968320726508021',
        '3758435817766288188804561253838670030762970764366672594784247447067868088068',
        '6565798094314091391201231504228224566495939541538094766881371862976727043038',
        '14656606573936501743457633041048024656612227301473084805627390748872617280984',
        '634997487638609332803583491743335852620873788902390365055086820718589720118',
        '19455424343576886430889849773367397946457449073528455097210946839000147698372',
        '20049218015652006197026173611347504489508678646783216776320737476707192559881',
        '18059168546148152671857026372711724379319778306792011146784665080987064164612',
        '12145052038566888241256672223106590273978429515702193755778990643425246950730',
        '17918828665069491344039743589118342552553375221610735811112289083834142789347',
        '6223602427219597392892794664899549544171383137467762280768257680446283161705',
        '7484542354754424633621663080190936924481536615300815203692506276894207018007',
      ],
      noblePowers: [
        ['1', 1n],
        ['2x(6x^2+3x+1), x = 4965661367192848881', 2n * BN_X * (6n * BN_X ** 2n + 3n * BN_X + 1n)],
      ],
    },
  },
  {
    name: 'bls12_381',
    curve: bls12_381,
    opts: {
      xi: [1n, 1n],
      b1: 4n,
      g1Cofactor: true,
      zcash: true,
      // e(G1, G2) from draft-irtf-cfrg-pairing-friendly-curves, section
      // "BLS12_381" of the test vectors, e_0 .. e_11 (same order as ours).
      knownPairing: [
        '0x11619b45f61edfe3b47a15fac19442526ff489dcda25e59121d9931438907dfd448299a87dde3a649bdba96e84d54558',
        '0x153ce14a76a53e205ba8f275ef1137c56a566f638b52d34ba3bf3bf22f277d70f76316218c0dfd583a394b8448d2be7f',
        '0x095668fb4a02fe930ed44767834c915b283b1c6ca98c047bd4c272e9ac3f3ba6ff0b05a93e59c71fba77bce995f04692',
        '0x16deedaa683124fe7260085184d88f7d036b86f53bb5b7f1fc5e248814782065413e7d958d17960109ea006b2afdeb5f',
        '0x09c92cf02f3cd3d2f9d34bc44eee0dd50314ed44ca5d30ce6a9ec0539be7a86b121edc61839ccc908c4bdde256cd6048',
        '0x111061f398efc2a97ff825b04d21089e24fd8b93a47e41e60eae7e9b2a38d54fa4dedced0811c34ce528781ab9e929c7',
        '0x01ecfcf31c86257ab00b4709c33f1c9c4e007659dd5ffc4a735192167ce197058cfb4c94225e7f1b6c26ad9ba68f63bc',
        '0x08890726743a1f94a8193a166800b7787744a8ad8e2f9365db76863e894b7a11d83f90d873567e9d645ccf725b32d26f',
        '0x0e61c752414ca5dfd258e9606bac08daec29b3e2c57062669556954fb227d3f1260eedf25446a086b0844bcd43646c10',
        '0x0fe63f185f56dd29150fc498bbeea78969e7e783043620db33f75a05a0a2ce5c442beaff9da195ff15164c00ab66bdde',
        '0x10900338a92ed0b47af211636f7cfdec717b7ee43900eee9b5fc24f0000c5874d4801372db478987691c566a8c474978',
        '0x1454814f3085f0e6602247671bc408bbce2007201536818c901dbd4d2095dd86c1ec8b888e59611f60a301af7776be3d',
      ],
      noblePowers: [
        ['1', 1n],
        ['3', 3n],
      ],
    },
  },
];

for (const { name, curve, opts } of curves) {
  const doc = generate(name, curve, opts);
  const text = JSON.stringify(doc, null, 1) + '\n';
  const file = join(HERE, `${name}.json`);
  writeFileSync(file, text);
  console.log(
    `${file}: ${text.length} bytes, noble pairing matches exact: ${doc.noble_pairing_matches_exact}`
  );
}
