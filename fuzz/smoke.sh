#!/usr/bin/env bash
# The fuzzing smoke run of `make test-fuzz`: each libFuzzer target in
# build/fuzz over its committed seeds (fuzz/corpus/<name>/) and what earlier
# runs found (build/fuzz/corpus/<name>/), for a fixed time, JOBS targets at
# a time: each target takes one core, so the run lasts about
# ceil(targets / JOBS) times SECONDS. New inputs go to build/fuzz/corpus/,
# crashes to build/fuzz/artifacts/. A target that fails prints the end of
# its log, and the run exits 1 once the others are done.
#
# usage: fuzz/smoke.sh SECONDS JOBS NAME...
set -uo pipefail
[ $# -ge 3 ] || { echo "usage: $0 SECONDS JOBS NAME..." >&2; exit 2; }
seconds=$1
jobs=$2
shift 2
mkdir -p build/fuzz/artifacts

one() {
    local t=$1 seconds=$2 log=build/fuzz/fuzz_$1.log
    mkdir -p "build/fuzz/corpus/$t"
    if ! "./build/fuzz/fuzz_$t" -max_total_time="$seconds" -rss_limit_mb=2048 -timeout=10 \
        -artifact_prefix="build/fuzz/artifacts/$t-" "build/fuzz/corpus/$t" "fuzz/corpus/$t" \
        >"$log" 2>&1; then
        tail -n 60 "$log"
        echo "fuzz_$t FAILED (log: $log)" >&2
        return 1
    fi
    printf 'fuzz_%-15s %s\n' "$t" "$(grep -E '^Done [0-9]+ runs' "$log")"
}
export -f one

printf '%s\n' "$@" | xargs -P "$jobs" -I{} bash -c 'one "$1" "$2"' _ {} "$seconds" || exit 1
