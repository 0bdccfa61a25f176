#!/usr/bin/env bash
# The control run of docs/MEMORY.md, "The seed's fault, recreated": the same
# `zkpipe bench pipeline` workload through a normal build and through one
# built with -DZKPIPE_FAULT_EARLY_RELEASE=ON, where a partition's reservation
# goes back to the budget as soon as synthesis hands the partition on. The
# normal build must keep peak RSS within baseline + budget; the fault build
# is expected to go past it while its budget books still read "within".
#
# A benchmark, not a test: it builds a second tree and proves for minutes, so
# nothing runs it by default (it is not registered with CTest).
#
# usage: bench/control_early_release.sh [options]
#   --normal PATH         zkpipe of a normal build (default: build/release/zkpipe,
#                         built if missing)
#   --fault PATH          zkpipe of a fault build (default: build/fault/zkpipe,
#                         configured and built if missing)
#   --synthetic SPEC      workload (default bls12381:15)
#   --jobs N              jobs (default 4)
#   --partitions N        partitions per job (default 6)
#   --synth-workers N     synthesis workers (default 4)
#   --device-workers N    prove_start workers (default 1)
#   --device-threads N    threads of each prove_start and finalize (default 1)
#   --budget SIZE         the engine's budget (default 52MiB: the key, 36.8 MiB,
#                         and 1.6 partitions of 9.5 MiB of the default workload)
#   --out DIR             keep the JSON reports and timelines there (default: a
#                         temporary directory, removed at the end)
#   --jobs-build N        make -j for the builds (default 2)
#   --slack-mib N         resident memory the budget does not cover: small
#                         malloc'd buffers, thread stacks (default 8, as
#                         engine_rss_within_budget_and_back_to_baseline allows)
#
# Prints one row per build: peak RSS, baseline + budget, how far over it RSS
# went, peak tracked bytes, peak reserved bytes, reservation violations,
# proofs verified and wall seconds. Exits 0 when the normal build stayed
# within baseline + budget + slack and the fault build did not, 1 otherwise,
# 2 on a usage or build error.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
NORMAL= FAULT= OUT_DIR=
SPEC=bls12381:15 JOBS=4 PARTS=6 SYNTH=4 DEVW=1 DEVT=1 BUDGET=52MiB BUILD_JOBS=2 SLACK_MIB=8

usage() { sed -n '12,36p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
while [ $# -gt 0 ]; do
    [ $# -ge 2 ] || usage
    case $1 in
        --normal) NORMAL=$2 ;;
        --fault) FAULT=$2 ;;
        --synthetic) SPEC=$2 ;;
        --jobs) JOBS=$2 ;;
        --partitions) PARTS=$2 ;;
        --synth-workers) SYNTH=$2 ;;
        --device-workers) DEVW=$2 ;;
        --device-threads) DEVT=$2 ;;
        --budget) BUDGET=$2 ;;
        --out) OUT_DIR=$2 ;;
        --jobs-build) BUILD_JOBS=$2 ;;
        --slack-mib) SLACK_MIB=$2 ;;
        *) usage ;;
    esac
    shift 2
done

# build <dir> <extra cmake args...>: configures and builds the command line
# only (no daemon, tests or benchmarks: the control run needs none of them).
build() {
    local dir=$1
    shift
    echo "building $dir" >&2
    cmake -S "$ROOT" -B "$dir" -DCMAKE_BUILD_TYPE=Release -DZKPIPE_ENABLE_CUDA=OFF \
        -DZKPIPE_ENABLE_SERVER=OFF -DZKPIPE_ENABLE_TESTS=OFF -DZKPIPE_ENABLE_BENCH=OFF \
        "$@" >/dev/null || exit 2
    cmake --build "$dir" -j "$BUILD_JOBS" --target zkpipe_cli >/dev/null || exit 2
}
if [ -z "$NORMAL" ]; then
    NORMAL=$ROOT/build/release/zkpipe
    [ -x "$NORMAL" ] || build "$ROOT/build/release"
fi
if [ -z "$FAULT" ]; then
    FAULT=$ROOT/build/fault/zkpipe
    [ -x "$FAULT" ] || build "$ROOT/build/fault" -DZKPIPE_FAULT_EARLY_RELEASE=ON
fi
# Each program must be the build it is said to be: the fault build says so
# in its version, the normal one must not.
if "$NORMAL" version | grep -q ZKPIPE_FAULT_; then
    echo "$NORMAL has a fault compiled in" >&2
    exit 2
fi
if ! "$FAULT" version | grep -q ZKPIPE_FAULT_EARLY_RELEASE; then
    echo "$FAULT was not built with -DZKPIPE_FAULT_EARLY_RELEASE=ON" >&2
    exit 2
fi

if [ -n "$OUT_DIR" ]; then
    mkdir -p "$OUT_DIR"
else
    OUT_DIR=$(mktemp -d)
    trap 'rm -rf "$OUT_DIR"' EXIT
fi

echo "workload: --synthetic $SPEC --jobs $JOBS --partitions $PARTS --synth-workers $SYNTH" \
    "--device-workers $DEVW --device-threads $DEVT --budget $BUDGET" >&2
echo "machine: $(nproc) CPUs, $(awk '/MemTotal/ {printf "%.1f GiB", $2 / 1048576}' /proc/meminfo)," \
    "$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//'), load $(cut -d' ' -f1-3 /proc/loadavg)" >&2
for variant in normal fault; do
    bin=$NORMAL
    [ "$variant" = fault ] && bin=$FAULT
    echo "running the $variant build" >&2
    # --no-baseline: the plain prover's run is not what is compared here.
    "$bin" bench pipeline --synthetic "$SPEC" --jobs "$JOBS" --partitions "$PARTS" \
        --synth-workers "$SYNTH" --device-workers "$DEVW" --device-threads "$DEVT" \
        --finalize-workers 1 --budget "$BUDGET" --no-baseline --json \
        --timeline "$OUT_DIR/$variant.csv" >"$OUT_DIR/$variant.json" 2>"$OUT_DIR/$variant.err" || {
        echo "the $variant build failed:" >&2
        cat "$OUT_DIR/$variant.err" >&2
        exit 2
    }
done

python3 - "$OUT_DIR" "$SLACK_MIB" <<'EOF'
import json, sys
out = sys.argv[1]
M = 1048576.0
slack = float(sys.argv[2]) * M
rows, ok = [], True
for variant in ("normal", "fault"):
    r = json.load(open(f"{out}/{variant}.json"))
    bound = r["baseline_rss_bytes"] + r["budget_bytes"]
    over = r["peak_rss_bytes"] - bound
    rows.append((variant, r["peak_rss_bytes"] / M, bound / M, over / M,
                 r["peak_tracked_bytes"] / M, r["peak_reserved_bytes"] / M,
                 r["reservation_violations"], f'{r["proofs_verified"]}/{r["partitions"]}',
                 r["seconds"]))
    if (variant == "fault") != (r["build_fault"] == "early_release"):
        sys.exit(f"{variant}: the report says build_fault={r['build_fault']}")
    # The normal build stays within baseline + budget (and the slack for
    # what no reservation covers); the fault build is expected to go past it.
    ok = ok and ((over <= slack) if variant == "normal" else (over > slack))
print(f"key {r['key_bytes'] / M:.1f} MiB, partition {r['partition_bytes'] / M:.1f} MiB, "
      f"budget {r['budget_bytes'] / M:.1f} MiB")
head = ("build", "peak RSS MiB", "baseline+budget MiB", "over MiB", "peak tracked MiB",
        "peak reserved MiB", "violations", "verified", "seconds")
print(" | ".join(head))
for row in rows:
    print(" | ".join([row[0], f"{row[1]:.1f}", f"{row[2]:.1f}", f"{row[3]:+.2f}"] +
                     [f"{x:.1f}" for x in row[4:6]] + [str(row[6]), row[7], f"{row[8]:.1f}"]))
print("as expected" if ok else "NOT as expected: the normal build must stay within "
      f"baseline + budget + {slack / M:.0f} MiB and the fault build go past it")
sys.exit(0 if ok else 1)
EOF
