#!/usr/bin/env bash
# End-to-end prove times as command lines, against snarkjs and (BN254 only)
# rapidsnark, on the same files, interleaved, median of RUNS runs each.
#
# usage: bench/prove_bench.sh [fixture dir...]
#   default: every fixture under tests/fixtures/large/ (tests/fixtures/gen.sh large)
#   RUNS=5            runs per prover and fixture (median reported)
#   THREADS=N         zkpipe --threads (default: every CPU)
#   RAPIDSNARK=path   rapidsnark's `prover` binary (default: ref/rapidsnark/... if
#                     built there; rapidsnark is never part of this tree)
#   SKIP_SNARKJS=1    leave snarkjs out (it is slow)
#
# Prints one row per fixture and prover: median wall seconds, peak RSS (MiB),
# and the ratio to zkpipe's median measured in the same run. Every proof is
# checked with `zkpipe verify`.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
ZKPIPE=${ZKPIPE:-$ROOT/build/release/zkpipe}
SNARKJS=$ROOT/tests/fixtures/node_modules/.bin/snarkjs
RUNS=${RUNS:-5}
if [ -z "${RAPIDSNARK:-}" ]; then
    RAPIDSNARK=$(find "$ROOT/ref/rapidsnark" -type f -name prover -perm -u+x 2>/dev/null | head -n1 || true)
fi
threads_arg=()
[ -n "${THREADS:-}" ] && threads_arg=(--threads "$THREADS")

if [ $# -gt 0 ]; then dirs=("$@"); else dirs=("$ROOT"/tests/fixtures/large/*/); fi
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT

# run_timed <label> <cmd...>: appends "seconds rss_kib" to $OUT/<label>
run_timed() {
    local label=$1
    shift
    /usr/bin/time -f "%e %M" -o "$OUT/t" "$@" >/dev/null 2>"$OUT/err" || {
        echo "$label failed:" >&2; cat "$OUT/err" >&2; exit 1; }
    cat "$OUT/t" >>"$OUT/$label"
    "$ZKPIPE" verify "$d/verification_key.json" "$OUT/public.json" "$OUT/proof.json" >/dev/null \
        || { echo "$label made a proof that does not verify" >&2; exit 1; }
}

median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

echo "machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) CPUs; runs: $RUNS; zkpipe threads: ${THREADS:-all}"
printf '%-28s %-11s %10s %10s %10s\n' fixture prover "median s" "rss MiB" "/ zkpipe"
for d in "${dirs[@]}"; do
    d=${d%/}
    name=$(basename "$d")
    rm -f "$OUT"/zkpipe "$OUT"/snarkjs "$OUT"/rapidsnark
    provers=(zkpipe)
    [ -z "${SKIP_SNARKJS:-}" ] && [ -x "$SNARKJS" ] && provers+=(snarkjs)
    case "$name" in *bn128) [ -n "$RAPIDSNARK" ] && provers+=(rapidsnark) ;; esac
    for ((i = 0; i < RUNS; i++)); do
        for p in "${provers[@]}"; do
            case $p in
            zkpipe) run_timed zkpipe "$ZKPIPE" prove "$d/circuit.zkey" "$d/witness.wtns" "$OUT/proof.json" "$OUT/public.json" --quiet "${threads_arg[@]}" ;;
            snarkjs) run_timed snarkjs "$SNARKJS" groth16 prove "$d/circuit.zkey" "$d/witness.wtns" "$OUT/proof.json" "$OUT/public.json" ;;
            rapidsnark) run_timed rapidsnark "$RAPIDSNARK" "$d/circuit.zkey" "$d/witness.wtns" "$OUT/proof.json" "$OUT/public.json" ;;
            esac
        done
    done
    base=$(cut -d' ' -f1 "$OUT/zkpipe" | median)
    for p in "${provers[@]}"; do
        s=$(cut -d' ' -f1 "$OUT/$p" | median)
        rss=$(cut -d' ' -f2 "$OUT/$p" | median)
        awk -v n="$name" -v p="$p" -v s="$s" -v r="$rss" -v b="$base" \
            'BEGIN { printf "%-28s %-11s %10.3f %10.1f %10.2f\n", n, p, s, r / 1024, s / b }'
    done
done
