#!/usr/bin/env bash
# The sweep of issue 18 (docs/PERFORMANCE.md, "PoRep C2 (bench porep)"):
# `zkpipe bench porep` over a grid of memory budgets and synthesis worker
# counts, one run per pair, with a table of what each run did against its
# budget. A benchmark, not a test: nothing runs it by default.
#
# usage: bench/porep_sweep.sh [options]
#   --bin PATH            zkpipe to run (default: build/release/zkpipe)
#   --sector-size S       sector size (default 2KiB; 32GiB on the device machine)
#   --params DIR          its parameters (default: where filecoin c2 looks)
#   --budgets "B.."       budgets, e.g. "32GiB 64GiB 96GiB 110GiB" (default 3200MiB)
#   --synth-workers "N.." synthesis worker counts (default "1 2")
#   --synth-threads N     threads of one synthesis (default 1)
#   --sectors N           sectors per run (default 1)
#   --device D            cpu, cuda or auto (default: bench porep's)
#   --timeout S           seconds one run may take before it is stopped (default
#                         0: no limit); a stopped run is a row, not a failure
#   --out DIR             keep each run's JSON, timeline and output there
#                         (default: a temporary directory, removed at the end)
#   --slack-mib N         resident memory the budget does not cover: small
#                         malloc'd buffers, thread stacks (default 8)
#
# Prints one row per run: seconds per proof, peak RSS against baseline +
# budget, the largest |RSS - (baseline + tracked)| / RSS while proving, the
# longest wait of a partition for memory, sectors verified, proofs per hour
# per GiB of budget, and how busy synthesis and the device were. A run the
# engine refused (a budget that cannot hold a partition beside the key: its
# jobs fail with that message), a run with no report (its last line is
# shown) and a run stopped by --timeout are rows too, and do not count
# against the exit status, which is 0 when every other run stayed within
# baseline + budget + slack and verified every sector, 1 otherwise, 2 on a
# usage error.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
BIN=$ROOT/build/release/zkpipe SIZE=2KiB PARAMS='' BUDGETS=3200MiB SYNTH='1 2' SYNTH_THREADS=1
SECTORS=1 DEVICE='' TIMEOUT=0 OUT_DIR='' SLACK_MIB=8

# The comment above from "usage:" on.
usage() { awk 'NR >= 7 && /^#/ { sub(/^# ?/, ""); print; next } NR >= 7 { exit }' "$0" >&2; exit 2; }
while [ $# -gt 0 ]; do
    [ $# -ge 2 ] || usage
    case $1 in
        --bin) BIN=$2 ;;
        --sector-size) SIZE=$2 ;;
        --params) PARAMS=$2 ;;
        --budgets) BUDGETS=$2 ;;
        --synth-workers) SYNTH=$2 ;;
        --synth-threads) SYNTH_THREADS=$2 ;;
        --sectors) SECTORS=$2 ;;
        --device) DEVICE=$2 ;;
        --timeout) TIMEOUT=$2 ;;
        --out) OUT_DIR=$2 ;;
        --slack-mib) SLACK_MIB=$2 ;;
        *) usage ;;
    esac
    shift 2
done
[ -x "$BIN" ] || { echo "$BIN is not an executable zkpipe (build it, or pass --bin)" >&2; exit 2; }

if [ -n "$OUT_DIR" ]; then
    mkdir -p "$OUT_DIR"
else
    OUT_DIR=$(mktemp -d)
    trap 'rm -rf "$OUT_DIR"' EXIT
fi
extra=()
[ -n "$PARAMS" ] && extra+=(--params "$PARAMS")
[ -n "$DEVICE" ] && extra+=(--device "$DEVICE")
echo "machine: $(nproc) CPUs, $(awk '/MemTotal/ {printf "%.1f GiB", $2 / 1048576}' /proc/meminfo)," \
    "$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')," \
    "load $(cut -d' ' -f1-3 /proc/loadavg)" >&2

runs=()
for budget in $BUDGETS; do
    for synth in $SYNTH; do
        run=$budget-$synth
        echo "running: budget $budget, $synth synthesis workers" >&2
        rc=0
        timeout -s INT "$TIMEOUT" "$BIN" bench porep --sector-size "$SIZE" "${extra[@]}" \
            --sectors "$SECTORS" --synth-workers "$synth" --synth-threads "$SYNTH_THREADS" \
            --budget "$budget" --json "$OUT_DIR/$run.json" --timeline "$OUT_DIR/$run.csv" \
            >"$OUT_DIR/$run.out" 2>&1 || rc=$?
        # timeout's status for a stopped command; 0 as the limit means none.
        if [ "$TIMEOUT" != 0 ] && [ "$rc" = 124 ]; then
            echo stopped >"$OUT_DIR/$run.state"
        elif [ -s "$OUT_DIR/$run.json" ]; then
            echo ran >"$OUT_DIR/$run.state"
        else
            # No report: the engine refused the run (a budget that cannot
            # hold the key) or it failed; its last line says which.
            echo "no report: $(tail -n 1 "$OUT_DIR/$run.out" | cut -c1-160)" >"$OUT_DIR/$run.state"
        fi
        runs+=("$run")
    done
done

python3 - "$OUT_DIR" "$SLACK_MIB" "${runs[@]}" <<'EOF'
import json, sys
out, slack, runs = sys.argv[1], float(sys.argv[2]) * 1048576, sys.argv[3:]
M = 1048576.0
ok = True
print(" | ".join(("budget", "synth workers", "s per proof", "peak RSS MiB", "baseline+budget MiB",
                  "over MiB", "max deviation proving", "longest wait s", "verified",
                  "proofs/h/GiB", "synthesis busy", "device busy")))
for run in runs:
    budget, synth = run.rsplit("-", 1)
    state = open(f"{out}/{run}.state").read().strip()
    if state != "ran":
        print(" | ".join((budget, synth, state) + ("",) * 9))
        continue
    r = json.load(open(f"{out}/{run}.json"))
    refusal = [l for l in open(f"{out}/{run}.out") if "do not fit the budget" in l]
    if r["proofs_verified"] < r["proofs"] and refusal:
        # The engine refused the partitions this budget cannot hold beside
        # the key: a finding of the sweep, not a failure of the run.
        why = refusal[0].strip()
        why = why[why.find("partition"):] if "partition" in why else why
        print(" | ".join((budget, synth, "refused: " + why[:150]) + ("",) * 9))
        continue
    bound = r["baseline_rss_bytes"] + r["budget_bytes"]
    over = r["peak_rss_bytes"] - bound
    verified = r["proofs_verified"] == r["proofs"] and r["jobs_failed"] == 0
    print(" | ".join((budget, synth, f"{r['seconds_per_proof']:.1f}",
                      f"{r['peak_rss_bytes'] / M:.1f}", f"{bound / M:.1f}", f"{over / M:+.1f}",
                      f"{100 * r['max_tracked_rss_deviation_proving']:.2f} %",
                      f"{r['stage_seconds']['queue_wait_max']:.1f}",
                      f"{r['proofs_verified']}/{r['proofs']}",
                      f"{r['proofs_per_hour_per_gib']:.3f}", f"{100 * r['synthesis_busy']:.0f} %",
                      f"{100 * r['device_busy']:.0f} %")))
    ok = ok and over <= slack and verified
print("every run within baseline + budget, every sector verified" if ok else
      f"NOT every run within baseline + budget + {slack / M:.0f} MiB with every sector verified")
sys.exit(0 if ok else 1)
EOF
