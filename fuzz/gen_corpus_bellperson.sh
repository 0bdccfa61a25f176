#!/usr/bin/env bash
# Regenerates the seed corpora of the bellperson parsers (fuzz/corpus/bp_vk,
# bp_params, bp_proof; committed). Run by hand, with a built zkpipe:
#
#     fuzz/gen_corpus_bellperson.sh [path/to/zkpipe]    (default build/release/zkpipe)
#
# The .params and .vk seeds are synthetic BLS12-381 keys of 2^2 and 2^3 rows
# written in bellperson's layout by `zkpipe filecoin params from-zkey` (fixed
# seeds, so the bytes are reproducible), each with truncated variants. The
# proof seeds are real proofs from rust-fil-proofs' v16 seal regression
# records (tests/fixtures/filecoin/), single and concatenated.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
ZKPIPE=${1:-$ROOT/build/release/zkpipe}
CORPUS=$ROOT/fuzz/corpus
RECORDS=$ROOT/tests/fixtures/filecoin/seal_regression_records-v16-2KiB.jsonl
[ -x "$ZKPIPE" ] || { echo "no zkpipe at $ZKPIPE; build first or name it" >&2; exit 1; }

WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
for t in bp_vk bp_params bp_proof; do
    rm -rf "${CORPUS:?}/$t"
    mkdir -p "$CORPUS/$t"
done

truncations() {
    local f=$1 dir=$2 base size
    base=$(basename "$f")
    size=$(stat -c %s "$f")
    for n in 4 100 $((size / 2)) $((size - 1)); do
        head -c "$n" "$f" > "$dir/$base.cut$n"
    done
}

for log in 2 3; do
    "$ZKPIPE" bench synthetic "bls12381:$log" "$WORK/s$log" --seed 7 --threads 1 >/dev/null 2>&1
    "$ZKPIPE" filecoin params from-zkey "$WORK/s$log/circuit.zkey" "$WORK/synth$log.params" \
        "$WORK/synth$log.vk" --threads 1 2>/dev/null
    cp "$WORK/synth$log.params" "$CORPUS/bp_params/"
    cp "$WORK/synth$log.vk" "$CORPUS/bp_vk/"
    truncations "$WORK/synth$log.params" "$CORPUS/bp_params"
    truncations "$WORK/synth$log.vk" "$CORPUS/bp_vk"
done

# Proof bytes of record lines (1-based) into one file.
proof_of() {
    local out=$1
    shift
    : > "$out"
    for line in "$@"; do
        sed -n "${line}p" "$RECORDS" | grep -o '"proof":\[[0-9,]*\]' | grep -o '[0-9][0-9]*' |
            while read -r b; do printf "\\$(printf %03o "$b")"; done >> "$out"
    done
}
proof_of "$CORPUS/bp_proof/v16_2KiB_v1_0.proof" 1
proof_of "$CORPUS/bp_proof/v16_2KiB_v1_2_synthetic.proof" 4
proof_of "$CORPUS/bp_proof/v16_2KiB_x3.proof" 2 3 5
head -c 191 "$CORPUS/bp_proof/v16_2KiB_v1_0.proof" > "$CORPUS/bp_proof/v16_2KiB_v1_0.proof.cut191"
echo "seeds written under $CORPUS/bp_{vk,params,proof}"
