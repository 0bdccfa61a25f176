#!/usr/bin/env bash
# Two or more zkpipe builds on one `zkpipe bench` command, alternated, so that
# a drift of the machine over the run (a GPU's clock as it warms, another
# job) falls on every build alike rather than on whichever ran last.
#
# usage: bench/ab.sh NAME=ZKPIPE [NAME=ZKPIPE ...] -- BENCH-ARGS...
#   e.g. bench/ab.sh before=old/zkpipe after=build/release/zkpipe -- \
#            ntt --curve bls12381 --log 26,27 --device cuda --no-cpu --check 0
#   ROUNDS=2     rounds; round k runs the builds in turn, starting from build
#                k mod (number of builds)
#   COLUMN=name  the column of `bench msm|ntt` to report (default "gpu ms", or
#                "cpu ms" with --device cpu)
#
# Reads the tables that `bench msm|ntt` (one row per size) and `bench prove`
# (one row per stage) print, and prints one row per size or stage: each
# build's figures in the order they ran, and the ratio of each build's mean
# to the first build's. A run that fails stops the script with its output.
set -euo pipefail

usage() {
    sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2
    exit 2
}

names=()
bins=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do
    case $1 in
    *=*) names+=("${1%%=*}"); bins+=("${1#*=}") ;;
    *) usage ;;
    esac
    shift
done
[ $# -gt 1 ] && [ ${#names[@]} -ge 1 ] || usage
shift
for b in "${bins[@]}"; do
    [ -x "$b" ] || { echo "ab.sh: $b is not an executable" >&2; exit 2; }
done

ROUNDS=${ROUNDS:-2}
case " $* " in
*" --device cpu "* | *" --device=cpu "*) COLUMN=${COLUMN:-cpu ms} ;;
*) COLUMN=${COLUMN:-gpu ms} ;;
esac
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT

# parse <output file>: "row<TAB>value" lines. bench msm|ntt: the size under
# "log n" and the value under $COLUMN, from the header's column names; bench
# prove: the stage's name and its median, between "stage (median)" and
# "prove_finalize".
parse() {
    awk -v col="$COLUMN" '
        /log n/ {
            # "bn254_fr NTT  log n  cpu ms  gpu ms ...": names two or more
            # spaces apart; a row has no table name, so its field k sits
            # under name k + 1.
            line = $0
            sub(/^ +/, "", line)
            n = split(line, names, /  +/)
            want = 0; size = 0
            for (i = 2; i <= n; i++) {
                if (names[i] == "log n") size = i - 1
                if (names[i] == col) want = i - 1
            }
            table = $1; next
        }
        table != "" && /^ +[0-9]/ && want > 0 { printf "%s 2^%s\t%s\n", table, $size, $want; next }
        /^stage \(median\)/ { stages = 1; next }
        stages && /^prove_finalize/ { stages = 0 }
        stages && /^[A-Za-z]/ {
            label = substr($0, 1, 26); sub(/ +$/, "", label)
            rest = substr($0, 27); split(rest, v, " ")
            printf "%s\t%s\n", label, v[1]
        }' "$1"
}

nb=${#names[@]}
for ((r = 0; r < ROUNDS; r++)); do
    for ((k = 0; k < nb; k++)); do
        i=$(((r + k) % nb))
        if ! "${bins[$i]}" bench "$@" >"$OUT/run" 2>&1; then
            echo "ab.sh: ${names[$i]} failed:" >&2
            cat "$OUT/run" >&2
            exit 1
        fi
        parse "$OUT/run" | awk -F'\t' -v b="$i" '{ print b "\t" $0 }' >>"$OUT/all"
    done
done
[ -s "$OUT/all" ] || { echo "ab.sh: no figures found in the output" >&2; exit 1; }

# One row per size or stage, in first-seen order.
printf 'builds, in the order of round 1:'
for ((k = 0; k < nb; k++)); do printf ' %s' "${names[$k]}"; done
printf '\n'
awk -F'\t' -v nb="$nb" -v names="${names[*]}" '
    BEGIN { split(names, nm, " ") }
    !($2 in seen) { seen[$2] = 1; order[++rows] = $2 }
    { vals[$2, $1] = vals[$2, $1] " " $3; sum[$2, $1] += $3; cnt[$2, $1]++ }
    END {
        for (r = 1; r <= rows; r++) {
            row = order[r]
            printf "%s:", row
            for (b = 0; b < nb; b++) printf " | %s%s", nm[b + 1], vals[row, b]
            base = cnt[row, 0] ? sum[row, 0] / cnt[row, 0] : 0
            for (b = 1; b < nb; b++)
                if (base > 0 && cnt[row, b])
                    printf " | %s/%s %.3f", nm[b + 1], nm[1], sum[row, b] / cnt[row, b] / base
            printf "\n"
        }
    }' "$OUT/all"
