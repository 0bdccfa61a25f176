#!/usr/bin/env bash
# Interop with snarkjs, through both command lines, on every committed fixture:
#   - `snarkjs groth16 verify` accepts every proof `zkpipe prove` makes;
#   - `zkpipe verify` accepts snarkjs's proofs and prints OK;
#   - `zkpipe zkey export-vk` writes snarkjs's verification_key.json byte for byte;
#   - tampered files are rejected by both verifiers (exit 1, INVALID);
#   - failures leave no output file behind and exit with the documented codes;
#   - synthetic keys (zkpipe bench synthetic) are zkeys snarkjs reads, proves and verifies with.
#
# usage: interop.sh <path to the zkpipe binary>
# snarkjs comes from tests/fixtures/node_modules (make deps runs npm ci there).
set -euo pipefail

ZKPIPE=$(realpath "$1")
HERE=$(cd "$(dirname "$0")" && pwd)
FIX="$HERE/fixtures"
SNARKJS="$FIX/node_modules/.bin/snarkjs"
if [ ! -x "$SNARKJS" ]; then
    echo "interop: snarkjs is not installed; run 'make deps' (npm ci in tests/fixtures)" >&2
    exit 1
fi
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

. "$HERE/cli_lib.sh"

snarkjs_verify() { "$SNARKJS" groth16 verify "$@" 2>&1 | grep -q "OK!"; }

# node rewrites one JSON value: edit <in> <out> <js expression on j>
edit_json() { node -e 'const fs=require("fs"); const j=JSON.parse(fs.readFileSync(process.argv[1])); '"$3"'; fs.writeFileSync(process.argv[2], JSON.stringify(j, null, 1));' "$1" "$2"; }

fixtures=$(cd "$FIX" && ls -d *_small_* 2>/dev/null)
[ -n "$fixtures" ] || { echo "interop: no fixtures under $FIX" >&2; exit 1; }

for f in $fixtures; do
    d="$FIX/$f"
    w="$WORK/$f"
    mkdir -p "$w"
    case "$f" in *bls12381) r=52435875175126190479447740508185965837690552500527637822603658699938581184513 ;;
                 *) r=21888242871839275222246405745257275098696311801838077059847261158121855270337 ;; esac

    # zkpipe proves, snarkjs verifies.
    expect_exit 0 "$f: zkpipe prove" "$ZKPIPE" prove "$d/circuit.zkey" "$d/witness.wtns" "$w/proof.json" "$w/public.json" --quiet
    if snarkjs_verify "$d/verification_key.json" "$w/public.json" "$w/proof.json"; then
        ok "$f: snarkjs verifies zkpipe's proof"; else fail "$f: snarkjs rejects zkpipe's proof"; fi
    cmp -s "$w/public.json" "$d/public.json" && ok "$f: public.json matches snarkjs's" || fail "$f: public.json differs from snarkjs's"

    # snarkjs proves (committed), zkpipe verifies; and zkpipe verifies its own.
    expect_exit 0 "$f: zkpipe verifies snarkjs's proof" "$ZKPIPE" verify "$d/verification_key.json" "$d/public.json" "$d/proof.json"
    grep -qx OK "$WORK/out" || fail "$f: zkpipe verify did not print OK"
    expect_exit 0 "$f: zkpipe verifies its own proof" "$ZKPIPE" verify "$d/verification_key.json" "$w/public.json" "$w/proof.json"

    # The verification key, byte for byte.
    expect_exit 0 "$f: zkpipe zkey export-vk" "$ZKPIPE" zkey export-vk "$d/circuit.zkey" "$w/vk.json"
    cmp -s "$w/vk.json" "$d/verification_key.json" && ok "$f: export-vk equals snarkjs's file" || fail "$f: export-vk differs from snarkjs's file"
    expect_exit 0 "$f: zkpipe info" "$ZKPIPE" info "$d/circuit.zkey"

    # Tampered files: both verifiers must reject.
    edit_json "$w/public.json" "$w/pub_plus1.json" 'j[0] = (BigInt(j[0]) + 1n).toString()'
    edit_json "$w/public.json" "$w/pub_plus_r.json" "j[0] = (BigInt(j[0]) + ${r}n).toString()"
    edit_json "$w/proof.json" "$w/swap.json" '[j.pi_a, j.pi_c] = [j.pi_c, j.pi_a]'
    edit_json "$w/proof.json" "$w/offcurve.json" 'j.pi_a[1] = (BigInt(j.pi_a[1]) + 1n).toString()'
    for t in pub_plus1 pub_plus_r; do
        expect_exit 1 "$f: zkpipe rejects $t" "$ZKPIPE" verify "$d/verification_key.json" "$w/$t.json" "$w/proof.json"
        grep -qx INVALID "$WORK/out" || fail "$f: $t: zkpipe verify did not print INVALID"
        snarkjs_verify "$d/verification_key.json" "$w/$t.json" "$w/proof.json" && fail "$f: snarkjs accepts $t"
    done
    for t in swap offcurve; do
        expect_exit 1 "$f: zkpipe rejects $t" "$ZKPIPE" verify "$d/verification_key.json" "$w/public.json" "$w/$t.json"
        snarkjs_verify "$d/verification_key.json" "$w/public.json" "$w/$t.json" && fail "$f: snarkjs accepts $t"
    done
done

# Error paths: clear exit codes, nothing half-written.
first=$(echo "$fixtures" | head -n1)
d="$FIX/$first"
e="$WORK/errors"
mkdir -p "$e"
expect_exit 2 "usage error" "$ZKPIPE" prove "$d/circuit.zkey"
expect_exit 3 "missing key file" "$ZKPIPE" prove "$e/none.zkey" "$d/witness.wtns" "$e/p.json" "$e/q.json"
head -c 1000 "$d/circuit.zkey" >"$e/trunc.zkey"
expect_exit 3 "truncated key" "$ZKPIPE" prove "$e/trunc.zkey" "$d/witness.wtns" "$e/p.json" "$e/q.json"
grep -q "trunc.zkey" "$WORK/err" || fail "truncated key: the message does not name the file"
other=$(echo "$fixtures" | grep -v "${first##*_}" | head -n1 || true)
if [ -n "$other" ]; then
    expect_exit 3 "witness of the other curve" "$ZKPIPE" prove "$d/circuit.zkey" "$FIX/$other/witness.wtns" "$e/p.json" "$e/q.json"
fi
expect_exit 5 "output directory missing" "$ZKPIPE" prove "$d/circuit.zkey" "$d/witness.wtns" "$e/no/such/dir/p.json" "$e/q.json"
leftovers=$(ls -A "$e" | grep -v '^trunc.zkey$' || true)
[ -z "$leftovers" ] && ok "no files left behind by failures" || fail "files left behind: $leftovers"

# Synthetic keys (src/synthetic; INSECURE, for benchmarks and tests): snarkjs must take them for
# its own. zkpipe writes a 2^8 key and two witnesses on each curve and proves; snarkjs verifies
# against zkpipe's exported vk, exports the same vk from the key itself, and proves with the key
# and a witness, a proof zkpipe accepts.
for sc in bn128 bls12381; do
    s="$WORK/synthetic_$sc"
    expect_exit 0 "synthetic $sc: zkpipe bench synthetic" "$ZKPIPE" bench synthetic "$sc:8" "$s" --witnesses 2 --seed 7
    [ -f "$s/circuit.zkey" ] && [ -f "$s/witness_0.wtns" ] && [ -f "$s/witness_1.wtns" ] || { fail "synthetic $sc: files missing"; continue; }
    expect_exit 0 "synthetic $sc: zkpipe prove" "$ZKPIPE" prove "$s/circuit.zkey" "$s/witness_1.wtns" "$s/proof.json" "$s/public.json" --quiet
    expect_exit 0 "synthetic $sc: zkpipe zkey export-vk" "$ZKPIPE" zkey export-vk "$s/circuit.zkey" "$s/vk.json"
    if snarkjs_verify "$s/vk.json" "$s/public.json" "$s/proof.json"; then
        ok "synthetic $sc: snarkjs verifies zkpipe's proof"; else fail "synthetic $sc: snarkjs rejects zkpipe's proof"; fi
    edit_json "$s/public.json" "$s/pub_plus1.json" 'j[1] = (BigInt(j[1]) + 1n).toString()'
    snarkjs_verify "$s/vk.json" "$s/pub_plus1.json" "$s/proof.json" && fail "synthetic $sc: snarkjs accepts a wrong input"
    if "$SNARKJS" zkey export verificationkey "$s/circuit.zkey" "$s/vk_snarkjs.json" >"$WORK/out" 2>&1 &&
        cmp -s "$s/vk.json" "$s/vk_snarkjs.json"; then
        ok "synthetic $sc: snarkjs exports the same vk"; else fail "synthetic $sc: snarkjs's vk differs or export failed"; cat "$WORK/out" >&2; fi
    if "$SNARKJS" groth16 prove "$s/circuit.zkey" "$s/witness_0.wtns" "$s/sj_proof.json" "$s/sj_public.json" >"$WORK/out" 2>&1; then
        expect_exit 0 "synthetic $sc: zkpipe verifies snarkjs's proof on the synthetic key" "$ZKPIPE" verify "$s/vk.json" "$s/sj_public.json" "$s/sj_proof.json"
        cmp -s "$s/sj_public.json" "$s/public.json" && fail "synthetic $sc: two witnesses give the same public inputs"
    else
        fail "synthetic $sc: snarkjs groth16 prove failed on the synthetic key"; cat "$WORK/out" >&2
    fi
done

if [ "$failures" -ne 0 ]; then echo "interop: $failures failure(s)" >&2; exit 1; fi
echo "interop: all checks passed"
