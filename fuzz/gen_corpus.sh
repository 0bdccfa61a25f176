#!/usr/bin/env bash
# Regenerates the seed corpora under fuzz/corpus/<target>/ (committed; each
# file at most 64 KiB). Run by hand, not by the build:
#
#     fuzz/gen_corpus.sh
#
# The binary seeds (.r1cs, .wtns, .zkey) and the snarkjs JSON seeds are made by
# circom 2 and snarkjs (tests/fixtures/node_modules; `npm ci` there first) from
# a two-constraint circuit on both curves, with a 2^4 powers-of-tau ceremony
# and fixed beacons, so every file except proof.json is reproducible byte for
# byte. Each binary seed also gets truncated variants (cut after the magic,
# inside the first section, halfway, and one byte short), which start the
# fuzzer on the parsers' length checks. The JSON reader's seeds are small
# hand-written documents plus one snarkjs key.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
NM=$ROOT/tests/fixtures/node_modules
SNARKJS=$NM/.bin/snarkjs
CIRCOM=$NM/.bin/circom2
CORPUS=$ROOT/fuzz/corpus
[ -x "$SNARKJS" ] && [ -x "$CIRCOM" ] || { echo "run npm ci in tests/fixtures first" >&2; exit 1; }

WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
cd "$WORK"
BEACON=0102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f

cat > mul.circom <<'CIRCUIT'
pragma circom 2.0.0;
// out = a·b·c + a, with c public: two constraints, one public input.
template Mul() {
    signal input a;
    signal input b;
    signal input c;
    signal output out;
    signal t;
    t <== a * b;
    out <== t * c + a;
}
component main {public [c]} = Mul();
CIRCUIT
echo '{"a": "3", "b": "5", "c": "7"}' > input.json

for t in json snarkjs_proof snarkjs_public snarkjs_vk r1cs wtns zkey; do
    rm -rf "${CORPUS:?}/$t"
    mkdir -p "$CORPUS/$t"
done

# Truncated copies of a binary seed: name.cut<N>.
truncations() {
    local f=$1 dir=$2 base size
    base=$(basename "$f")
    size=$(stat -c %s "$f")
    for n in 4 20 $((size / 2)) $((size - 1)); do
        head -c "$n" "$f" > "$dir/$base.cut$n"
    done
}

for curve in bn128 bls12381; do
    mkdir -p "$curve"
    "$CIRCOM" mul.circom --r1cs --wasm --prime "$curve" -o "$curve" > /dev/null
    "$SNARKJS" powersoftau new "$curve" 4 "p0_$curve.ptau" > /dev/null
    "$SNARKJS" powersoftau beacon "p0_$curve.ptau" "p1_$curve.ptau" "$BEACON" 10 > /dev/null
    "$SNARKJS" powersoftau prepare phase2 "p1_$curve.ptau" "pf_$curve.ptau" > /dev/null
    "$SNARKJS" groth16 setup "$curve/mul.r1cs" "pf_$curve.ptau" "$curve/k0.zkey" > /dev/null
    "$SNARKJS" zkey beacon "$curve/k0.zkey" "$curve/mul.zkey" "$BEACON" 10 > /dev/null
    "$SNARKJS" zkey export verificationkey "$curve/mul.zkey" "$curve/vk.json" > /dev/null
    node "$curve/mul_js/generate_witness.js" "$curve/mul_js/mul.wasm" input.json "$curve/mul.wtns"
    "$SNARKJS" groth16 prove "$curve/mul.zkey" "$curve/mul.wtns" "$curve/proof.json" "$curve/public.json"
    "$SNARKJS" groth16 verify "$curve/vk.json" "$curve/public.json" "$curve/proof.json" > /dev/null

    cp "$curve/mul.r1cs" "$CORPUS/r1cs/mul_$curve.r1cs"
    cp "$curve/mul.wtns" "$CORPUS/wtns/mul_$curve.wtns"
    cp "$curve/mul.zkey" "$CORPUS/zkey/mul_$curve.zkey"
    truncations "$CORPUS/r1cs/mul_$curve.r1cs" "$CORPUS/r1cs"
    truncations "$CORPUS/wtns/mul_$curve.wtns" "$CORPUS/wtns"
    truncations "$CORPUS/zkey/mul_$curve.zkey" "$CORPUS/zkey"
    cp "$curve/proof.json" "$CORPUS/snarkjs_proof/proof_$curve.json"
    cp "$curve/public.json" "$CORPUS/snarkjs_public/public_$curve.json"
    cp "$curve/vk.json" "$CORPUS/snarkjs_vk/vk_$curve.json"
done
cp bn128/vk.json "$CORPUS/json/vk_bn128.json"

# A key and a proof with no public inputs, and edge cases of public.json.
printf '[\n]' > "$CORPUS/snarkjs_public/empty.json"
printf '["0", "21888242871839275222246405745257275088548364400416034343698204186575808495616"]' \
    > "$CORPUS/snarkjs_public/bn128_r_minus_1.json"

# The JSON reader: the grammar's corners.
J=$CORPUS/json
printf '{"a": [1, -0.5e+10, true, false, null], "b": {"c": "\\u00e9\\ud83d\\ude00\\n"}}' > "$J/mixed.json"
printf '[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]' > "$J/deep.json"
printf '"\\u0000 \\" \\\\ \\/ \\b \\f \\r \\t"' > "$J/escapes.json"
printf ' \t\r\n 0 ' > "$J/zero.json"
printf '{"k": 1, "k\\u0000": 2, "": {}}' > "$J/names.json"
printf '[1e308, -1E-308, 123456789012345678901234567890, 0.0]' > "$J/numbers.json"

ls -lR "$CORPUS" | awk '$5 > 65536 { print "too large: " $0; bad = 1 } END { exit bad }'
