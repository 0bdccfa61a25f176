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
# Where zkpipe runs its AVX-512 IFMA kernels, a row "zkpipe-scalar" runs the
# same binary with ZKPIPE_NO_IFMA=1 (the scalar kernels), for comparison.
#
# Prints one row per fixture and prover: median wall seconds, median CPU
# seconds (user + system: on a loaded machine the steadier measure), peak RSS
# (MiB), and the wall and CPU ratios to zkpipe's medians measured in the same
# run. Every proof is checked with `zkpipe verify`.
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

# run_timed <label> <cmd...>: appends "wall_s rss_kib cpu_s" to $OUT/<label>
run_timed() {
    local label=$1
    shift
    /usr/bin/time -f "%e %M %U %S" -o "$OUT/t" "$@" >/dev/null 2>"$OUT/err" || {
        echo "$label failed:" >&2; cat "$OUT/err" >&2; exit 1; }
    awk '{ print $1, $2, $3 + $4 }' "$OUT/t" >>"$OUT/$label"
    "$ZKPIPE" verify "$d/verification_key.json" "$OUT/public.json" "$OUT/proof.json" >/dev/null \
        || { echo "$label made a proof that does not verify" >&2; exit 1; }
}

median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

echo "machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) CPUs; runs: $RUNS; zkpipe threads: ${THREADS:-all}"
printf '%-28s %-11s %9s %9s %9s %9s %9s\n' fixture prover "wall s" "cpu s" "rss MiB" "wall/zk" "cpu/zk"
for d in "${dirs[@]}"; do
    d=${d%/}
    name=$(basename "$d")
    rm -f "$OUT"/zkpipe "$OUT"/zkpipe-scalar "$OUT"/snarkjs "$OUT"/rapidsnark
    provers=(zkpipe)
    "$ZKPIPE" --version | grep -q avx512ifma && provers+=(zkpipe-scalar)
    [ -z "${SKIP_SNARKJS:-}" ] && [ -x "$SNARKJS" ] && provers+=(snarkjs)
    case "$name" in *bn128) [ -n "$RAPIDSNARK" ] && provers+=(rapidsnark) ;; esac
    for ((i = 0; i < RUNS; i++)); do
        for p in "${provers[@]}"; do
            case $p in
            zkpipe) run_timed zkpipe "$ZKPIPE" prove "$d/circuit.zkey" "$d/witness.wtns" "$OUT/proof.json" "$OUT/public.json" --quiet "${threads_arg[@]}" ;;
            zkpipe-scalar) run_timed zkpipe-scalar env ZKPIPE_NO_IFMA=1 "$ZKPIPE" prove "$d/circuit.zkey" "$d/witness.wtns" "$OUT/proof.json" "$OUT/public.json" --quiet "${threads_arg[@]}" ;;
            snarkjs) run_timed snarkjs "$SNARKJS" groth16 prove "$d/circuit.zkey" "$d/witness.wtns" "$OUT/proof.json" "$OUT/public.json" ;;
            rapidsnark) run_timed rapidsnark "$RAPIDSNARK" "$d/circuit.zkey" "$d/witness.wtns" "$OUT/proof.json" "$OUT/public.json" ;;
            esac
        done
    done
    base=$(cut -d' ' -f1 "$OUT/zkpipe" | median)
    cbase=$(cut -d' ' -f3 "$OUT/zkpipe" | median)
    for p in "${provers[@]}"; do
        s=$(cut -d' ' -f1 "$OUT/$p" | median)
        rss=$(cut -d' ' -f2 "$OUT/$p" | median)
        cpu=$(cut -d' ' -f3 "$OUT/$p" | median)
        awk -v n="$name" -v p="$p" -v s="$s" -v r="$rss" -v c="$cpu" -v b="$base" -v cb="$cbase" \
            'BEGIN { printf "%-28s %-11s %9.3f %9.3f %9.1f %9.2f %9.2f\n", n, p, s, c, r / 1024, s / b, c / cb }'
    done
done
