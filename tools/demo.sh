#!/usr/bin/env bash
# The main job, end to end: prove a bundled circom circuit with zkpipe on
# both curves, verify the proof with zkpipe and with snarkjs, and print the
# timings next to snarkjs's own prover on the same files.
#
# usage: tools/demo.sh [zkpipe binary]   (make demo builds it first)
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
ZKPIPE=${1:-$ROOT/build/release/zkpipe}
FIX=$ROOT/tests/fixtures
SNARKJS=$FIX/node_modules/.bin/snarkjs
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT

now() { date +%s.%N; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", b - a }'; }

# The large fixtures (tests/fixtures/gen.sh large) are used when present.
examples="poseidon_small_bn128 poseidon_small_bls12381"
for big in poseidon_large_bn128 poseidon_large_bls12381; do
    [ -f "$FIX/large/$big/circuit.zkey" ] && examples="$examples large/$big"
done

printf '%-32s %-9s %12s %12s %12s %14s\n' example curve "zkpipe prove" "zkpipe vfy" "snarkjs vfy" "snarkjs prove"
for ex in $examples; do
    d=$FIX/$ex
    name=$(basename "$ex")
    curve=${name##*_}
    "$ZKPIPE" info "$d/circuit.zkey" >"$OUT/info"
    t0=$(now)
    "$ZKPIPE" prove "$d/circuit.zkey" "$d/witness.wtns" "$OUT/proof.json" "$OUT/public.json" --quiet
    t1=$(now)
    "$ZKPIPE" verify "$d/verification_key.json" "$OUT/public.json" "$OUT/proof.json" >/dev/null
    t2=$(now)
    sv="n/a" sp="n/a"
    if [ -x "$SNARKJS" ]; then
        "$SNARKJS" groth16 verify "$d/verification_key.json" "$OUT/public.json" "$OUT/proof.json" | grep -q "OK!" \
            || { echo "snarkjs rejected zkpipe's proof for $ex" >&2; exit 1; }
        t3=$(now)
        "$SNARKJS" groth16 prove "$d/circuit.zkey" "$d/witness.wtns" "$OUT/sp.json" "$OUT/spub.json"
        t4=$(now)
        sv=$(secs "$t2" "$t3")
        sp=$(secs "$t3" "$t4")
    fi
    printf '%-32s %-9s %11ss %11ss %11ss %13ss\n' "$name" "$curve" "$(secs "$t0" "$t1")" "$(secs "$t1" "$t2")" "$sv" "$sp"
done
echo
echo "Every zkpipe proof above was checked by zkpipe before it was written and by snarkjs after."
echo "Per-stage times: $ZKPIPE prove <zkey> <wtns> proof.json public.json --timings"
