#!/usr/bin/env bash
# The control run of docs/MEMORY.md, "The seed's fault, recreated": the same
# workload through a normal build and through one built with
# -DZKPIPE_FAULT_EARLY_RELEASE=ON, where a partition's reservation goes back
# to the budget as soon as synthesis hands the partition on. The normal build
# must keep peak RSS within baseline + budget; the fault build is expected to
# go past it while its budget books still read "within".
#
# A benchmark, not a test: it builds a second tree and proves for minutes, so
# nothing runs it by default (it is not registered with CTest).
#
# usage: bench/control_early_release.sh [options]
#   --normal PATH         zkpipe of a normal build (default: build/release/zkpipe,
#                         built if missing)
#   --fault PATH          zkpipe of a fault build (default: build/fault/zkpipe,
#                         configured and built if missing)
#   --synth-workers "N.." synthesis workers; a list is a sweep (default 4)
#   --device-workers N    prove_start workers (default 1)
#   --threads N           threads of each prove_start and finalize (default 1;
#                         0: the engine's default, every CPU)
#   --budget SIZE         the engine's budget (default 52MiB: the key, 36.8 MiB,
#                         and 1.6 partitions of 9.5 MiB of the default workload)
#   --device D            the engine's device (default: the CPU)
#  bench pipeline (the default):
#   --synthetic SPEC      workload (default bls12381:15)
#   --jobs N              jobs (default 4)
#   --partitions N        partitions per job (default 6)
#  bench porep instead:
#   --porep SIZE          sector size (2KiB here; 32GiB with --device cuda)
#   --params DIR          its parameters (default: where filecoin c2 looks)
#   --sectors N           sectors (default 4)
#   --in-flight K         sectors submitted at a time (default 4)
#  the run:
#   --out DIR             keep the JSON reports and timelines there (default: a
#                         temporary directory, removed at the end)
#   --jobs-build N        make -j for the builds (default 2)
#   --slack-mib N         resident memory the budget does not cover: small
#                         malloc'd buffers, thread stacks (default 8, as
#                         engine_rss_within_budget_and_back_to_baseline allows)
#   ZKPIPE_CMAKE_ARGS     extra CMake arguments of the builds (default
#                         -DZKPIPE_ENABLE_CUDA=OFF; -DZKPIPE_ENABLE_CUDA=ON on a
#                         GPU machine)
#
# Prints one row per build and synthesis worker count: peak RSS, baseline +
# budget, how far over it RSS went, peak tracked bytes, peak reserved bytes,
# reservation violations, the longest wait of a partition for admission,
# partitions verified and wall seconds. Exits 0 when
# every normal run stayed within baseline + budget + slack and every fault run
# did not, 1 otherwise, 2 on a usage, build or run error.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
NORMAL='' FAULT='' OUT_DIR='' DEVICE='' POREP='' PARAMS=''
SPEC=bls12381:15 JOBS=4 PARTS=6 SYNTH=4 DEVW=1 THREADS=1 BUDGET=52MiB BUILD_JOBS=2 SLACK_MIB=8
SECTORS=4 IN_FLIGHT=4

# The comment above from "usage:" on.
usage() { awk 'NR >= 12 && /^#/ { sub(/^# ?/, ""); print; next } NR >= 12 { exit }' "$0" >&2; exit 2; }
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
        --threads) THREADS=$2 ;;
        --budget) BUDGET=$2 ;;
        --device) DEVICE=$2 ;;
        --porep) POREP=$2 ;;
        --params) PARAMS=$2 ;;
        --sectors) SECTORS=$2 ;;
        --in-flight) IN_FLIGHT=$2 ;;
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
    # shellcheck disable=SC2086 # ZKPIPE_CMAKE_ARGS is a list of words
    cmake -S "$ROOT" -B "$dir" -DCMAKE_BUILD_TYPE=Release ${ZKPIPE_CMAKE_ARGS--DZKPIPE_ENABLE_CUDA=OFF} \
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

device_args=() threads_args=()
[ -n "$DEVICE" ] && device_args=(--device "$DEVICE")
if [ "$THREADS" != 0 ]; then
    threads_args=(--device-threads "$THREADS")
    [ -n "$POREP" ] && threads_args=(--threads "$THREADS")
fi
if [ -n "$POREP" ]; then
    params_args=()
    [ -n "$PARAMS" ] && params_args=(--params "$PARAMS")
    echo "workload: bench porep --sector-size $POREP --sectors $SECTORS --in-flight $IN_FLIGHT" \
        "--device-workers $DEVW ${threads_args[*]} --budget $BUDGET ${device_args[*]}" >&2
else
    echo "workload: bench pipeline --synthetic $SPEC --jobs $JOBS --partitions $PARTS" \
        "--device-workers $DEVW ${threads_args[*]} --budget $BUDGET ${device_args[*]}" >&2
fi
echo "machine: $(nproc) CPUs, $(awk '/MemTotal/ {printf "%.1f GiB", $2 / 1048576}' /proc/meminfo)," \
    "$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')," \
    "load $(cut -d' ' -f1-3 /proc/loadavg)" >&2
runs=()
for synth in $SYNTH; do
    for variant in normal fault; do
        bin=$NORMAL
        [ "$variant" = fault ] && bin=$FAULT
        run=$variant-$synth
        echo "running the $variant build, $synth synthesis workers" >&2
        if [ -n "$POREP" ]; then
            "$bin" bench porep --sector-size "$POREP" "${params_args[@]}" "${device_args[@]}" \
                --sectors "$SECTORS" --in-flight "$IN_FLIGHT" --synth-workers "$synth" \
                --device-workers "$DEVW" "${threads_args[@]}" --finalize-workers 1 \
                --budget "$BUDGET" --json "$OUT_DIR/$run.json" --timeline "$OUT_DIR/$run.csv" \
                >"$OUT_DIR/$run.out" 2>"$OUT_DIR/$run.err"
        else
            # --no-baseline: the plain prover's run is not what is compared here.
            "$bin" bench pipeline --synthetic "$SPEC" --jobs "$JOBS" --partitions "$PARTS" \
                "${device_args[@]}" --synth-workers "$synth" --device-workers "$DEVW" \
                "${threads_args[@]}" --finalize-workers 1 --budget "$BUDGET" \
                --no-baseline --json --timeline "$OUT_DIR/$run.csv" \
                >"$OUT_DIR/$run.json" 2>"$OUT_DIR/$run.err"
        fi || {
            echo "the $variant build failed:" >&2
            cat "$OUT_DIR/$run.err" >&2
            exit 2
        }
        runs+=("$run")
    done
done

python3 - "$OUT_DIR" "$SLACK_MIB" "${runs[@]}" <<'EOF'
import json, sys
out, slack, runs = sys.argv[1], float(sys.argv[2]) * 1048576, sys.argv[3:]
M = 1048576.0
rows, ok = [], True
for run in runs:
    variant, synth = run.split("-")
    r = json.load(open(f"{out}/{run}.json"))
    bound = r["baseline_rss_bytes"] + r["budget_bytes"]
    over = r["peak_rss_bytes"] - bound
    # bench porep counts sectors in proofs_verified, bench pipeline partitions.
    verified = r.get("partitions_verified", r["proofs_verified"])
    rows.append((variant, synth, f"{r['peak_rss_bytes'] / M:.1f}", f"{bound / M:.1f}",
                 f"{over / M:+.1f}", f"{r['peak_tracked_bytes'] / M:.1f}",
                 f"{r['peak_reserved_bytes'] / M:.1f}", str(r["reservation_violations"]),
                 f"{r['stage_seconds']['queue_wait_max']:.1f}", f"{verified}/{r['partitions']}",
                 f"{r['seconds']:.1f}"))
    if (variant == "fault") != (r["build_fault"] == "early_release"):
        sys.exit(f"{run}: the report says build_fault={r['build_fault']}")
    # The normal build stays within baseline + budget (and the slack for
    # what no reservation covers); the fault build is expected to go past it.
    ok = ok and ((over <= slack) if variant == "normal" else (over > slack))
print(f"key {r['key_bytes'] / M:.1f} MiB, partition {r['partition_bytes'] / M:.1f} MiB, "
      f"budget {r['budget_bytes'] / M:.1f} MiB")
print(" | ".join(("build", "synth workers", "peak RSS MiB", "baseline+budget MiB", "over MiB",
                  "peak tracked MiB", "peak reserved MiB", "violations",
                  "longest admission wait s", "verified", "seconds")))
for row in rows:
    print(" | ".join(row))
print("as expected" if ok else "NOT as expected: the normal build must stay within "
      f"baseline + budget + {slack / M:.0f} MiB and the fault build go past it")
sys.exit(0 if ok else 1)
EOF
