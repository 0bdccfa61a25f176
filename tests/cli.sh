#!/usr/bin/env bash
# The zkpipe command line as a user drives it, on a committed fixture:
#   - every row of the exit-code table (README.md, zkpipe --help);
#   - outputs: devices and FIFOs written in place, symbolic links followed,
#     long names, modes kept, outputs that are inputs refused, both outputs
#     or neither;
#   - options: --help everywhere, --opt=value, missing and negative values;
#   - public inputs with leading zeros, duplicate JSON keys named.
# Nothing here needs snarkjs. Device nodes are made in a temporary directory
# (as root; otherwise those checks are skipped with a line saying so): the
# system's own /dev/null is never an output here.
#
# usage: cli.sh <path to the zkpipe binary>
set -uo pipefail

ZKPIPE=$(realpath "$1")
HERE=$(cd "$(dirname "$0")" && pwd)
FIX="$HERE/fixtures/poseidon_small_bn128"
WORK=$(mktemp -d)
trap 'chmod -R u+w "$WORK" 2>/dev/null; rm -rf "$WORK"' EXIT

. "$HERE/cli_lib.sh"

K="$FIX/circuit.zkey"
W="$FIX/witness.wtns"
VK="$FIX/verification_key.json"
PUB="$FIX/public.json"
PROOF="$FIX/proof.json"
o="$WORK/o"
mkdir -p "$o"

# ---------------------------------------------------------------- exit codes
expect_exit 0 "prove" "$ZKPIPE" prove "$K" "$W" "$o/p.json" "$o/q.json" --quiet
expect_exit 0 "verify its proof" "$ZKPIPE" verify "$VK" "$o/q.json" "$o/p.json"
grep -qx OK "$WORK/out" || fail "verify did not print OK"
expect_exit 0 "zkey export-vk" "$ZKPIPE" zkey export-vk "$K" "$o/vk.json"
cmp -s "$o/vk.json" "$VK" || fail "export-vk differs from the committed key"
expect_exit 0 "info" "$ZKPIPE" info "$K"

# 1: the proof does not verify, or a value in it is out of range.
echo '["1"]' >"$WORK/pub_other.json"
expect_exit 1 "verify: another public input" "$ZKPIPE" verify "$VK" "$WORK/pub_other.json" "$PROOF"
grep -qx INVALID "$WORK/out" || fail "verify did not print INVALID"
# pi_a's y plus one: still a number below p, but off the curve.
awk 'NR == 4 && match($0, /[0-9]"/) { d = substr($0, RSTART, 1) + 0
                                       $0 = substr($0, 1, RSTART - 1) (d == 9 ? 8 : d + 1) substr($0, RSTART + 1) }
     { print }' "$PROOF" >"$WORK/offcurve.json"
cmp -s "$WORK/offcurve.json" "$PROOF" && fail "the off-curve proof was not changed"
expect_exit 1 "verify: a point off the curve" "$ZKPIPE" verify "$VK" "$PUB" "$WORK/offcurve.json"
# 77 nines: above BN254's r (about 2.19 * 10^76).
echo "[\"$(printf '9%.0s' $(seq 77))\"]" >"$WORK/pub_r.json"
expect_exit 1 "verify: a public input not below r" "$ZKPIPE" verify "$VK" "$WORK/pub_r.json" "$PROOF"

# 2: usage.
expect_exit 2 "prove with too few arguments" "$ZKPIPE" prove "$K"
expect_exit 2 "an unknown option" "$ZKPIPE" prove "$K" "$W" "$o/p.json" "$o/q.json" --fast
expect_exit 2 "verify with two arguments" "$ZKPIPE" verify "$VK" "$PUB"
expect_exit 2 "an unknown command" "$ZKPIPE" frobnicate

# 3: an input unreadable or malformed, whichever file it is.
expect_exit 3 "prove: a missing key" "$ZKPIPE" prove "$WORK/none.zkey" "$W" "$o/p2.json" "$o/q2.json"
echo '{"pi_a": ' >"$WORK/broken.json"
expect_exit 3 "verify: a malformed verification key" "$ZKPIPE" verify "$WORK/broken.json" "$PUB" "$PROOF"
expect_exit 3 "verify: a malformed public file" "$ZKPIPE" verify "$VK" "$WORK/broken.json" "$PROOF"
expect_exit 3 "verify: a malformed proof" "$ZKPIPE" verify "$VK" "$PUB" "$WORK/broken.json"
echo '{"a": 1}' >"$WORK/not_a_proof.json"
expect_exit 3 "verify: a proof without its points" "$ZKPIPE" verify "$VK" "$PUB" "$WORK/not_a_proof.json"
expect_exit 3 "verify: a missing proof" "$ZKPIPE" verify "$VK" "$PUB" "$WORK/none.json"
grep -q INVALID "$WORK/out" && fail "a malformed file printed INVALID"

# 5: an output cannot be written; checked before proving, nothing changed.
printf 'old proof' >"$o/keep.json"
chmod 0600 "$o/keep.json"
expect_exit 5 "prove: the second output's directory is missing" \
    "$ZKPIPE" prove "$K" "$W" "$o/keep.json" "$WORK/nonexistent/dir/pub.json" --quiet
[ "$(cat "$o/keep.json")" = "old proof" ] && ok "the first output was left alone" || fail "the first output changed"
expect_exit 5 "prove: a new first output beside a missing directory" \
    "$ZKPIPE" prove "$K" "$W" "$o/new_p.json" "$WORK/nonexistent/pub.json" --quiet
[ -e "$o/new_p.json" ] && fail "a new first output was written"
printf x >"$WORK/plainfile"
expect_exit 5 "prove: an output under a regular file" "$ZKPIPE" prove "$K" "$W" "$o/p3.json" "$WORK/plainfile/q.json"
expect_exit 5 "zkey export-vk: an output in a missing directory" "$ZKPIPE" zkey export-vk "$K" "$WORK/nonexistent/vk.json"
mkdir "$WORK/adir"
expect_exit 5 "prove: an output that is a directory" "$ZKPIPE" prove "$K" "$W" "$WORK/adir" "$o/q4.json"
if [ "$(id -u)" -ne 0 ]; then
    mkdir "$WORK/ro" && chmod 0555 "$WORK/ro"
    expect_exit 5 "prove: a read-only directory" "$ZKPIPE" prove "$K" "$W" "$WORK/ro/p.json" "$o/q5.json"
else
    echo "skip: the read-only directory check (root writes there anyway)"
fi
leftovers=$(ls -A "$o" | grep -v -x -e p.json -e q.json -e vk.json -e keep.json || true)
[ -z "$leftovers" ] && ok "no files left behind by failures" || fail "files left behind: $leftovers"

# 4: the client, when the daemon cannot be reached.
if [ -x "$(dirname "$ZKPIPE")/zkpipe-daemon" ]; then
    sock="unix://$WORK/no.sock"
    expect_exit 4 "client: no daemon" "$ZKPIPE" client --addr "$sock" status
    expect_exit 3 "client prove: an empty witness" \
        "$ZKPIPE" client --addr "$sock" prove k /dev/null "$o/cp.json" "$o/cq.json"
    : >"$WORK/empty.wtns"
    expect_exit 3 "client prove: an empty witness file" \
        "$ZKPIPE" client --addr "$sock" prove k "$WORK/empty.wtns" "$o/cp.json" "$o/cq.json"
    err_has "empty.wtns" "client prove: the message names the witness"
    head -c 100 "$K" >"$WORK/bad.wtns"
    expect_exit 3 "client prove: a key as the witness" \
        "$ZKPIPE" client --addr "$sock" prove k "$WORK/bad.wtns" "$o/cp.json" "$o/cq.json"
    expect_exit 5 "client prove: outputs checked before the call" \
        "$ZKPIPE" client --addr "$sock" prove k "$W" "$o/cp.json" "$WORK/nonexistent/cq.json"
    expect_exit 2 "client prove: an output that is the witness" \
        "$ZKPIPE" client --addr "$sock" prove k "$W" "$W" "$o/cq.json"
    expect_exit 2 "client: a negative --timeout-ms" "$ZKPIPE" client --addr "$sock" --timeout-ms -5 status
    expect_exit 2 "client: --timeout-ms=junk" "$ZKPIPE" client --addr "$sock" --timeout-ms=5x status
    expect_exit 2 "client: --timeout-ms without a value" "$ZKPIPE" client --addr "$sock" --timeout-ms
    err_has "--timeout-ms needs a value" "client: the message names the missing value"
    expect_exit 4 "client: --addr=... and --timeout-ms=..." "$ZKPIPE" client --addr="$sock" --timeout-ms=100 status
    expect_exit 2 "client await: a negative --wait-ms" "$ZKPIPE" client --addr "$sock" await 1 --wait-ms -1
    expect_exit 2 "client prove-proof: an unknown proof kind" \
        "$ZKPIPE" client --addr "$sock" prove-proof porep "$W" "$o/cz.bin"
    err_has '"porep" is not a proof kind' "client prove-proof: the message names the kind"
    expect_exit 5 "client prove-proof: the output checked before the call" \
        "$ZKPIPE" client --addr "$sock" prove-proof winning_post "$W" "$WORK/nonexistent/cz.bin"
    expect_exit 3 "client prove-proof: a missing vanilla proof" \
        "$ZKPIPE" client --addr "$sock" prove-proof winning_post "$WORK/nonexistent.bin" "$o/cz.bin"
    expect_exit 4 "client prove-proof: no daemon" \
        "$ZKPIPE" client --addr "$sock" prove-proof winning_post "$W" "$o/cz.bin"
    expect_exit 0 "client --help" "$ZKPIPE" client --help
    expect_exit 0 "client prove --help" "$ZKPIPE" client prove --help
    expect_exit 0 "serve --help" "$ZKPIPE" serve --help
    # bench porep --daemon: what it refuses is named (the call would fail fast on the socket).
    expect_exit 2 "bench porep --daemon --in-flight 65" timeout 60 "$ZKPIPE" bench porep \
        --daemon "$sock" --sector-size 2KiB --params "$WORK/none" --in-flight 65
    err_has "--in-flight wants a number from 1 to 64, not \"65\"" "bench porep --daemon: the message names --in-flight"
    expect_exit 2 "bench porep --daemon --frob" timeout 60 "$ZKPIPE" bench porep --daemon "$sock" \
        --sector-size 2KiB --params "$WORK/none" --frob 1
    err_has "bench porep: unknown option --frob" "bench porep --daemon: the unknown option is named"
    expect_exit 2 "bench porep --daemon with an engine option" "$ZKPIPE" bench porep --daemon "$sock" \
        --sector-size 2KiB --synth-workers 2
    err_has "--synth-workers is the daemon's to set" "bench porep --daemon: an engine option is the daemon's"
    expect_exit 2 "bench porep --daemon without --sector-size" "$ZKPIPE" bench porep --daemon "$sock"
    err_has "bench porep: --sector-size is required" "bench porep --daemon: the missing option is named"
    expect_exit 2 "serve --config without a value" "$ZKPIPE" serve --config
    expect_exit 0 "serve --set=... --print-config" "$ZKPIPE" serve --no-env --set=engine.budget=1GiB --print-config
    grep -q "1GiB\|1073741824" "$WORK/out" && ok "serve: --set=KEY=VALUE took effect" || fail "serve: --set=KEY=VALUE ignored"
else
    echo "skip: the client and serve checks (zkpipe-daemon was not built)"
fi

# ---------------------------------------------------------------- options
for c in "prove" "verify" "zkey" "zkey export-vk" "info" "bench" "bench pipeline" "bench synthetic" \
         "bench msm" "bench ntt" "bench prove" "bench porep" "version"; do
    # shellcheck disable=SC2086
    expect_exit 0 "$c --help" "$ZKPIPE" $c --help
    [ -s "$WORK/out" ] && [ ! -s "$WORK/err" ] || fail "$c --help: usage not on stdout alone"
done
grep -q "exit codes" <("$ZKPIPE" prove --help) || fail "prove --help lacks the exit codes"
for layout in params zkey; do
    expect_exit 0 "bench prove --key-layout $layout" "$ZKPIPE" bench prove --log 10 --device cpu \
        --runs 1 --threads 1 --key-layout "$layout"
    grep -q "key layout $layout" "$WORK/out" || fail "bench prove: --key-layout $layout not taken"
done
expect_exit 2 "bench prove --key-layout of no kind" "$ZKPIPE" bench prove --key-layout dense
expect_exit 2 "bench prove --abc-on of no kind" "$ZKPIPE" bench prove --abc-on gpu
expect_exit 2 "bench prove --cache of no kind" "$ZKPIPE" bench prove --cache maybe
expect_exit 2 "bench ntt --cache of no kind" "$ZKPIPE" bench ntt --curve bn254 --log 4 --cache 1
# a, b and c from the circuit are the GPU's: the CPU refuses before any work.
expect_exit 2 "bench prove --abc-on device on the CPU" "$ZKPIPE" bench prove --log 10 --device cpu \
    --abc-on device
err_has "makes a, b and c on a GPU" "bench prove --abc-on device: says it needs a GPU"
expect_exit 2 "bench porep without --sector-size" "$ZKPIPE" bench porep --sectors 2
err_has "bench porep: --sector-size is required" "bench porep: the missing option is named"
err_has "usage: zkpipe bench porep" "bench porep: the usage follows a missing option"
expect_exit 3 "bench porep without parameters" "$ZKPIPE" bench porep --sector-size 2KiB --params "$WORK/none"
err_has "setup dev --filecoin porep --sector-size 2KiB" "bench porep: says how to make the parameters"
# --phases and --duration are refused before any work when malformed.
for bad in "--phases ," "--phases @" "--phases 0@1GiB" "--phases 2@0" "--phases 2@lots" \
  "--duration 0" "--duration -5" "--duration soon"; do
    # shellcheck disable=SC2086
    expect_exit 2 "bench porep $bad" "$ZKPIPE" bench porep --sector-size 2KiB $bad
    err_has "bench porep: ${bad%% *} wants " "bench porep $bad: the message names ${bad%% *}"
done
expect_exit 2 "bench porep --daemon with an engine option" "$ZKPIPE" bench porep --daemon \
  unix:///nonexistent.sock --sector-size 2KiB --synth-workers 2
# A refused value or option is named, and a number is read whole. Each command
# would fail fast on the missing files if its options were taken: the limit is a
# backstop.
expect_exit 2 "bench porep --sectors 26x" timeout 60 "$ZKPIPE" bench porep --sector-size 2KiB \
  --params "$WORK/none" --sectors 26x
err_has "--sectors wants a number from 1 to 4096, not \"26x\"" "bench porep: the message names --sectors"
expect_exit 2 "bench porep --frob" timeout 60 "$ZKPIPE" bench porep --sector-size 2KiB \
  --params "$WORK/none" --frob 1
err_has "bench porep: unknown option --frob" "bench porep: the unknown option is named"
expect_exit 2 "bench pipeline --jobs 26x" timeout 60 "$ZKPIPE" bench pipeline --key "$WORK/none.zkey" \
  --witness "$WORK/none.wtns" --jobs 26x
err_has "--jobs wants a number from 1 to 4096, not \"26x\"" "bench pipeline: the message names --jobs"
# strtod read "nan" as a budget that no comparison refused.
expect_exit 2 "bench pipeline --budget nan" timeout 60 "$ZKPIPE" bench pipeline --key "$WORK/none.zkey" \
  --witness "$WORK/none.wtns" --budget nan
err_has "--budget wants a size" "bench pipeline: the message names --budget"
expect_exit 2 "bench pipeline --priority urgent" timeout 60 "$ZKPIPE" bench pipeline \
  --key "$WORK/none.zkey" --witness "$WORK/none.wtns" --priority urgent
err_has "--priority wants low, normal, high, critical or mixed" "bench pipeline: the priorities are named"
expect_exit 2 "bench pipeline --rounds 2" timeout 60 "$ZKPIPE" bench pipeline --key "$WORK/none.zkey" \
  --witness "$WORK/none.wtns" --rounds 2
err_has "unknown option --rounds" "bench pipeline: the unknown option is named"
expect_exit 2 "bench pipeline: a --key without witnesses" "$ZKPIPE" bench pipeline --key "$WORK/none.zkey"
err_has "needs a --witness after it" "bench pipeline: the missing --witness is named"
err_has "usage: zkpipe bench pipeline" "bench pipeline: the usage follows a missing option"
# strtoull read " -1" as 2^64 - 1.
expect_exit 2 "bench synthetic --seed ' -1'" timeout 60 "$ZKPIPE" bench synthetic bn254:5 "$WORK/syn" \
  --seed " -1"
err_has "--seed wants a number below 2^64" "bench synthetic: the message names --seed"
expect_exit 2 "bench synthetic --witnesses 0" timeout 60 "$ZKPIPE" bench synthetic bn254:5 "$WORK/syn" \
  --witnesses 0
err_has "--witnesses wants a count from 1 to 4096, not \"0\"" "bench synthetic: the message names --witnesses"
[ ! -e "$WORK/syn" ] && ok "bench synthetic: nothing written when refused" || fail "bench synthetic wrote $WORK/syn"
expect_exit 0 "prove --threads=2" "$ZKPIPE" prove "$K" "$W" "$o/t.json" "$o/u.json" --threads=2 --quiet
cmp -s "$o/u.json" "$o/q.json" || fail "--threads=2: a different public.json"
expect_exit 0 "prove --device=cpu" "$ZKPIPE" prove "$K" "$W" "$o/t.json" "$o/u.json" --device=cpu --quiet
expect_exit 2 "prove --threads without a value" "$ZKPIPE" prove "$K" "$W" "$o/t.json" "$o/u.json" --threads
err_has "--threads needs a value" "prove: the message says what is missing"
expect_exit 2 "prove --threads followed by an option" "$ZKPIPE" prove "$K" "$W" "$o/t.json" "$o/u.json" --threads --quiet
expect_exit 2 "prove --threads=0" "$ZKPIPE" prove "$K" "$W" "$o/t.json" "$o/u.json" --threads=0
expect_exit 2 "prove --quiet=1" "$ZKPIPE" prove "$K" "$W" "$o/t.json" "$o/u.json" --quiet=1
expect_exit 2 "bench msm --runs=-1" "$ZKPIPE" bench msm --curve bn254 --log 4 --runs=-1
expect_exit 2 "bench ntt --device cuda:abc" "$ZKPIPE" bench ntt --curve bn254 --log 4 --device cuda:abc
err_has "unknown device \"cuda:abc\"" "bench ntt: the message names the device"
expect_exit 2 "bench msm --device cuda:1x" "$ZKPIPE" bench msm --curve bn254 --log 4 --device cuda:1x
# A refused value is named, with what the option wants.
expect_exit 2 "bench msm --log 40" "$ZKPIPE" bench msm --curve bn254 --log 40 --device cpu
err_has "--log wants up to 32 sizes from 1 to 28, by commas, not \"40\"" "bench msm: the message names --log"
expect_exit 2 "bench msm --log 4," "$ZKPIPE" bench msm --curve bn254 --log 4, --device cpu
expect_exit 2 "bench msm --log +4" "$ZKPIPE" bench msm --curve bn254 --log +4 --device cpu
expect_exit 2 "bench msm --log ' 4'" "$ZKPIPE" bench msm --curve bn254 --log " 4" --device cpu
expect_exit 2 "bench msm --log 4,,5" "$ZKPIPE" bench msm --curve bn254 --log 4,,5 --device cpu
expect_exit 2 "bench ntt --curve bls" "$ZKPIPE" bench ntt --curve bls --log 4 --device cpu
err_has "--curve wants bn254 (bn128) or bls12381 (bls12_381), not \"bls\"" "bench ntt: the message names --curve"
expect_exit 2 "bench msm --threads=0" "$ZKPIPE" bench msm --curve bn254 --log 4 --threads=0
err_has "--threads wants a number from 1 to 4096, not \"0\"" "bench msm: the message names --threads"
expect_exit 2 "bench msm --rounds 2" "$ZKPIPE" bench msm --curve bn254 --log 4 --rounds 2
err_has "unknown option --rounds" "bench msm: the message names the option"
expect_exit 2 "bench msm without --log" "$ZKPIPE" bench msm --curve bn254
err_has "msm needs --curve and --log" "bench msm: the message says what is missing"
expect_exit 2 "bench prove --log 26x" "$ZKPIPE" bench prove --log 26x
err_has "--log wants a number from 10 to 28, not \"26x\"" "bench prove: a size with a tail is refused"
# Shares that wrapped around 2^32 once passed the check that they sum to at most 100.
expect_exit 2 "bench prove --zeros 4294967295 --ones 2" "$ZKPIPE" bench prove --zeros 4294967295 --ones 2
err_has "--zeros wants a percentage from 0 to 100" "bench prove: the message names --zeros"
expect_exit 2 "bench prove --zeros 60 --ones 50" "$ZKPIPE" bench prove --zeros 60 --ones 50
err_has "add up to 110 %, more than 100" "bench prove: the shares' sum is named"
# bench/ab.sh reads bench's tables: two builds alternated, a row per size and stage.
expect_exit 0 "bench/ab.sh on bench ntt" env ROUNDS=2 "$HERE/../bench/ab.sh" a="$ZKPIPE" \
    b="$ZKPIPE" -- ntt --curve bn254 --log 4,5 --device cpu --runs 1
out_has "bn254_fr 2^5: | a " "bench/ab.sh: a row per size"
out_has " | b/a " "bench/ab.sh: the ratio to the first build"
expect_exit 0 "bench/ab.sh on bench prove" env ROUNDS=1 "$HERE/../bench/ab.sh" a="$ZKPIPE" \
    -- prove --log 10 --device cpu --runs 1
out_has "prove_start in all: | a " "bench/ab.sh: a row per stage"
expect_exit 1 "bench/ab.sh with a failing bench" "$HERE/../bench/ab.sh" a="$ZKPIPE" -- ntt --log 4
expect_exit 2 "bench/ab.sh without builds" "$HERE/../bench/ab.sh" -- ntt --log 4

# ---------------------------------------------------------------- outputs
# 2: an output that is an input, under any spelling; two outputs in one file.
cp "$K" "$WORK/k.zkey"
cp "$W" "$WORK/w.wtns"
ln "$WORK/k.zkey" "$WORK/k_hard.zkey"
ln -s k.zkey "$WORK/k_sym.zkey"
for spelling in "$WORK/k.zkey" "$WORK/./k.zkey" "$WORK/../$(basename "$WORK")/k.zkey" "$WORK/k_hard.zkey" "$WORK/k_sym.zkey"; do
    expect_exit 2 "prove: the proof over the key ($spelling)" \
        "$ZKPIPE" prove "$WORK/k.zkey" "$WORK/w.wtns" "$spelling" "$o/q6.json" --quiet
done
err_has "refusing to overwrite" "the refusal says why"
expect_exit 2 "prove: public.json over the witness" \
    "$ZKPIPE" prove "$WORK/k.zkey" "$WORK/w.wtns" "$o/p6.json" "$WORK/w.wtns" --quiet
cmp -s "$WORK/k.zkey" "$K" && cmp -s "$WORK/w.wtns" "$W" && ok "the inputs are intact" || fail "an input was changed"
expect_exit 2 "prove: both outputs one file" "$ZKPIPE" prove "$K" "$W" "$o/same.json" "$o/same.json" --quiet
expect_exit 2 "prove: both outputs one new file, spelt twice" \
    "$ZKPIPE" prove "$K" "$W" "$o/same.json" "$o/../o/same.json" --quiet
expect_exit 2 "prove: both outputs one existing file" "$ZKPIPE" prove "$K" "$W" "$o/p.json" "$o/./p.json" --quiet
expect_exit 2 "zkey export-vk: over the key" "$ZKPIPE" zkey export-vk "$WORK/k.zkey" "$WORK/k_sym.zkey"
cmp -s "$WORK/k.zkey" "$K" || fail "export-vk changed the key"
[ -e "$o/same.json" ] && fail "a refused output was written"

# 5 (item): the mode of a replaced output is kept.
chmod 0600 "$o/p.json"
chmod 0640 "$o/q.json"
expect_exit 0 "prove over 0600 and 0640 outputs" "$ZKPIPE" prove "$K" "$W" "$o/p.json" "$o/q.json" --quiet
[ "$(stat -c %a "$o/p.json") $(stat -c %a "$o/q.json")" = "600 640" ] && ok "modes kept" ||
    fail "modes now $(stat -c %a "$o/p.json") $(stat -c %a "$o/q.json")"

# Symbolic links are followed: the target is replaced, the link stays.
mkdir "$WORK/real"
ln -s "$WORK/real/proof.json" "$o/link_p.json"
ln -s ../real/public.json "$WORK/real/../o/link_q.json"
expect_exit 0 "prove through symbolic links" "$ZKPIPE" prove "$K" "$W" "$o/link_p.json" "$o/link_q.json" --quiet
[ -L "$o/link_p.json" ] && [ -L "$o/link_q.json" ] && [ -f "$WORK/real/proof.json" ] &&
    cmp -s "$WORK/real/public.json" "$o/q.json" && ok "links kept, targets written" || fail "a link was replaced"

# Long names: up to 255 bytes, the temporary's name shortened to fit.
for n in 248 251 255; do
    long=$(printf 'p%.0s' $(seq "$n"))
    expect_exit 0 "prove to a $n-byte name" "$ZKPIPE" prove "$K" "$W" "$o/$long" "$o/long_q.json" --quiet
    expect_exit 0 "prove over the $n-byte name" "$ZKPIPE" prove "$K" "$W" "$o/$long" "$o/long_q.json" --quiet
    rm -f "$o/$long"
done

# A FIFO is written in place: a reader gets the proof, the FIFO stays.
mkfifo "$WORK/fifo"
timeout 300 cat "$WORK/fifo" >"$WORK/from_fifo" &
reader=$!
expect_exit 0 "prove into a FIFO" "$ZKPIPE" prove "$K" "$W" "$WORK/fifo" "$o/q7.json" --quiet
# A replaced FIFO would leave its reader waiting for ever: stop it then.
[ -p "$WORK/fifo" ] && ok "the FIFO is still a FIFO" || { fail "the FIFO was replaced"; kill "$reader"; }
wait "$reader"
grep -q pi_a "$WORK/from_fifo" && ok "the FIFO's reader got the proof" || fail "nothing came through the FIFO"

# A link through /proc to this process's stdout, a pipe here: written in place, as /dev/stdout
# would be (the link is made here, so a regression could only replace this one).
ln -s /proc/self/fd/1 "$WORK/stdout"
"$ZKPIPE" prove "$K" "$W" "$WORK/stdout" "$o/q8.json" --quiet 2>"$WORK/err" | grep -q pi_a &&
    ok "prove to stdout through /proc, a pipe" || { fail "prove to stdout through /proc"; cat "$WORK/err" >&2; }
[ -L "$WORK/stdout" ] || fail "the link to stdout was replaced"

# Character devices, made here (never the system's /dev/null).
if mknod "$WORK/null" c 1 3 2>/dev/null && mknod "$WORK/full" c 1 7 2>/dev/null; then
    expect_exit 0 "prove to a null device" "$ZKPIPE" prove "$K" "$W" "$WORK/null" "$WORK/null" --quiet
    [ -c "$WORK/null" ] && ok "the null device is still a device" || fail "the null device was replaced"
    expect_exit 0 "zkey export-vk to a null device" "$ZKPIPE" zkey export-vk "$K" "$WORK/null"
    [ -c "$WORK/null" ] || fail "export-vk replaced the null device"
    printf 'old public' >"$o/keep_q.json"
    expect_exit 5 "prove to a full device" "$ZKPIPE" prove "$K" "$W" "$WORK/full" "$o/keep_q.json" --quiet
    [ -c "$WORK/full" ] && [ "$(cat "$o/keep_q.json")" = "old public" ] &&
        ok "the full device stays, the other output was not replaced" || fail "a full device failure changed files"
else
    echo "skip: the character-device checks (mknod needs root)"
fi

# ---------------------------------------------------------------- bellperson's files
# A synthetic BLS12-381 key written in bellperson's layout, the files described
# and checked, and the 192-byte proofs of rust-fil-proofs' regression records.
B="$WORK/bp"
mkdir -p "$B"
# flip_byte <file> <offset>: adds 1 to one byte, in place.
flip_byte() {
    local b
    b=$(od -An -tu1 -j "$2" -N1 "$1" | tr -d ' ')
    printf "\\$(printf %03o $(((b + 1) % 256)))" | dd of="$1" bs=1 seek="$2" conv=notrunc 2>/dev/null
}
expect_exit 0 "bench synthetic bls12381:5" "$ZKPIPE" bench synthetic bls12381:5 "$B" --threads 2
expect_exit 0 "filecoin params from-zkey" "$ZKPIPE" filecoin params from-zkey "$B/circuit.zkey" "$B/k.params" "$B/k.vk" --threads 2
[ "$(stat -c %s "$B/k.vk")" -eq $((868 + 96 * 3)) ] && ok ".vk is 868 + 96 bytes per input" || fail ".vk size"
cmp -s -n $((868 + 96 * 3)) "$B/k.vk" "$B/k.params" && ok ".params starts with the .vk" || fail ".params prefix"
expect_exit 0 "info on a .params file" "$ZKPIPE" info "$B/k.params"
grep -q "kind: params" "$WORK/out" && grep -q "domain size: 32" "$WORK/out" && ok "info: params described" || fail "info: params"
expect_exit 0 "info on a .vk file" "$ZKPIPE" info "$B/k.vk"
grep -q "kind: vk" "$WORK/out" && grep -q "public inputs: 2" "$WORK/out" && ok "info: vk described" || fail "info: vk"
expect_exit 0 "filecoin params inspect --check" "$ZKPIPE" filecoin params inspect "$B/k.params" --check --threads=2
grep -q "^h  *31 " "$WORK/out" && grep -q "checked all .* OK" "$WORK/out" && ok "inspect: sections and checks" || fail "inspect output"
BPPROOF="$HERE/../fuzz/corpus/bp_proof/v16_2KiB_x3.proof"   # three v16 regression proofs
expect_exit 0 "info on a 3-partition proof" "$ZKPIPE" info "$BPPROOF"
grep -q "partitions: 3" "$WORK/out" && ok "info: proof partitions" || fail "info: proof"
# 3: a corrupt or truncated file; a bn254 key for bellperson's layout.
cp "$B/k.params" "$B/bad.params"
flip_byte "$B/bad.params" $(($(stat -c %s "$B/k.params") - 10))
cmp -s "$B/bad.params" "$B/k.params" && fail "flip_byte changed nothing"
expect_exit 3 "inspect --check: a bad point in b_g2" "$ZKPIPE" filecoin params inspect "$B/bad.params" --check
err_has "section b_g2: point" "the bad point is named"
head -c 2000 "$B/k.params" >"$B/short.params"
expect_exit 3 "info: a truncated .params file" "$ZKPIPE" info "$B/short.params"
head -c 191 "$BPPROOF" >"$B/short.proof"
expect_exit 3 "info: 191 bytes of a proof" "$ZKPIPE" info "$B/short.proof"
head -c 192 "$BPPROOF" >"$B/bad.proof"
flip_byte "$B/bad.proof" 100
expect_exit 3 "info: a proof with a bad B" "$ZKPIPE" info "$B/bad.proof"
err_has "proof: B" "the bad point of the proof is named"
expect_exit 3 "from-zkey: a bn254 key" "$ZKPIPE" filecoin params from-zkey "$K" "$B/x.params" "$B/x.vk"
[ ! -e "$B/x.params" ] && [ ! -e "$B/x.vk" ] && ok "from-zkey: nothing written on failure" || fail "from-zkey wrote a file"
expect_exit 2 "filecoin params inspect without a file" "$ZKPIPE" filecoin params inspect
expect_exit 2 "filecoin params inspect --threads=0" "$ZKPIPE" filecoin params inspect "$B/k.params" --threads=0
err_has "--threads wants a number from 1 to 4096, not \"0\"" "filecoin params inspect: the message names --threads"
expect_exit 2 "filecoin params from-zkey over its input" "$ZKPIPE" filecoin params from-zkey "$B/circuit.zkey" "$B/circuit.zkey" "$B/y.vk"
expect_exit 2 "filecoin params inspect --sector-size" "$ZKPIPE" filecoin params inspect "$B/k.params" \
  --sector-size 2KiB
err_has "filecoin params inspect: unknown option --sector-size" "filecoin params inspect: the option it lacks is named"
expect_exit 2 "filecoin params from-zkey with two files" "$ZKPIPE" filecoin params from-zkey "$B/circuit.zkey" "$B/z.params"
err_has "wants <key.zkey> <out.params> <out.vk>, not 2 file(s)" "filecoin params from-zkey: the files it wants are named"
expect_exit 2 "filecoin nothing" "$ZKPIPE" filecoin nothing
err_has "unknown subcommand \"nothing\"" "filecoin: the unknown subcommand is named"
expect_exit 0 "filecoin --help" "$ZKPIPE" filecoin --help
# Where Filecoin keeps the parameters: the cache directory and the derived names
# (the 2 KiB digest as in rust-fil-proofs' parameters.json).
N2K=v28-stacked-proof-of-replication-merkletree-poseidon_hasher-8-0-0-sha256_hasher-032d3138d22506ec0082ed72b2dcba18df18477904e35bafee82b3793b06832f
expect_exit 0 "filecoin params locate" env FIL_PROOFS_PARAMETER_CACHE="$B" "$ZKPIPE" filecoin params locate --sector-size 2KiB
[ "$(head -1 "$WORK/out")" = "$B/$N2K.params" ] && grep -qx "$B/$N2K.vk" "$WORK/out" && ok "locate: the cache and the name" || fail "locate: $(cat "$WORK/out")"
expect_exit 0 "filecoin params locate, default cache" env -u FIL_PROOFS_PARAMETER_CACHE "$ZKPIPE" filecoin params locate --sector-size=32GiB
grep -q "^/var/tmp/filecoin-proof-parameters/v28-.*-8-8-0-sha256_hasher-82a357d2" "$WORK/out" && ok "locate: 32GiB in the default cache" || fail "locate: default cache"
expect_exit 2 "filecoin params locate --sector-size 4KiB" "$ZKPIPE" filecoin params locate --sector-size 4KiB
expect_exit 0 "filecoin circuit-info 2KiB" "$ZKPIPE" filecoin circuit-info --sector-size 2KiB
grep -qx "inputs: 40" "$WORK/out" && grep -q "^constraints: [0-9]" "$WORK/out" && ok "circuit-info: 40 inputs with ONE" || fail "circuit-info: $(cat "$WORK/out")"
expect_exit 2 "filecoin circuit-info --sector-size 4KiB" "$ZKPIPE" filecoin circuit-info --sector-size 4KiB
expect_exit 2 "filecoin circuit-info without a size" "$ZKPIPE" filecoin circuit-info
err_has "filecoin circuit-info: --sector-size is required" "circuit-info: the missing option is named"
cp "$B/k.params" "$B/$N2K.params"
expect_exit 0 "inspect a file named for 2 KiB" "$ZKPIPE" filecoin params inspect "$B/$N2K.params"
grep -q "named for: the 2KiB PoRep circuit" "$WORK/out" && ok "inspect: the name is recognised" || fail "inspect: named for"
grep -q "public inputs fit that circuit: NO (it has 40 with ONE" "$WORK/out" && ok "inspect: a misfit is said" || fail "inspect: fit"
expect_exit 0 "inspect --fit: every section's length" "$ZKPIPE" filecoin params inspect "$B/$N2K.params" --fit
grep -q "sections fit that circuit: NO (.*not this circuit's; ic has .*; h has .*; l has" "$WORK/out" \
  && ok "inspect --fit: the lengths that differ are named" || fail "inspect --fit: $(cat "$WORK/out")"

# ---------------------------------------------------------------- sealing and C1
F="$WORK/fil"
mkdir -p "$F"
head -c 2048 /dev/zero | tr '\0' '\1' >"$F/data"
H1=$(printf '%064x' 1)
expect_exit 0 "filecoin seal 2KiB" "$ZKPIPE" filecoin seal --sector-size 2KiB --data "$F/data" \
  --prover-id "$H1" --sector-id 3 --ticket "$H1" --seed "$H1" --out "$F"
[ -s "$F/c1.json" ] && [ "$(wc -c <"$F/replica")" -eq 2048 ] && ok "seal: replica and c1.json" || fail "seal outputs"
expect_exit 0 "filecoin seal into a new directory" "$ZKPIPE" filecoin seal --sector-size 2KiB --data "$F/data" \
  --prover-id "$H1" --sector-id 3 --ticket "$H1" --seed "$H1" --out "$F/new" --api V1
cmp -s "$F/new/replica" "$F/replica" && fail "V1 and V1_1 sealed alike" || ok "V1 seals another replica than V1_1"
expect_exit 0 "filecoin c1 verify a sealed C1" "$ZKPIPE" filecoin c1 verify "$F/c1.json"
sed 's/"seed":\[\([0-9]*\),/"seed":[7\1,/' "$F/c1.json" >"$F/other_seed.json"
expect_exit 1 "c1 verify: another seed" "$ZKPIPE" filecoin c1 verify "$F/other_seed.json"
err_has "vanilla_proofs[0][0]" "the failing challenge is named"
sed 's/"_h":null/"_h":0/' "$F/c1.json" >"$F/bad_h.json"
expect_exit 3 "c1 verify: not a C1" "$ZKPIPE" filecoin c1 verify "$F/bad_h.json"
err_has "_h: null expected" "the bad member is named"
head -c 2048 /dev/zero | tr '\0' '\377' >"$F/unpadded"
expect_exit 3 "filecoin seal: data not fr32-padded" "$ZKPIPE" filecoin seal --sector-size 2KiB \
  --data "$F/unpadded" --prover-id "$H1" --sector-id 3 --ticket "$H1" --seed "$H1" --out "$F/x"
err_has "data node 0" "the unpadded node is named"
head -c 1000 /dev/zero >"$F/short"
expect_exit 3 "filecoin seal: data of the wrong size" "$ZKPIPE" filecoin seal --sector-size 2KiB \
  --data "$F/short" --prover-id "$H1" --sector-id 3 --ticket "$H1" --seed "$H1" --out "$F"
expect_exit 2 "filecoin seal: --api V1_2" "$ZKPIPE" filecoin seal --sector-size 2KiB --data "$F/data" \
  --prover-id "$H1" --sector-id 3 --ticket "$H1" --seed "$H1" --out "$F" --api V1_2
expect_exit 0 "filecoin seal NI-PoRep" "$ZKPIPE" filecoin seal --sector-size 2KiB --data "$F/data" \
  --prover-id "$H1" --sector-id 3 --ticket "$H1" --seed "$H1" --out "$F/ni" --api V1_2_Feat_NonInteractivePoRep
grep -q '"registered_proof":"StackedDrg2KiBV1_2_Feat_NonInteractivePoRep"' "$F/ni/c1.json" && ok "seal: an NI C1" || fail "seal: NI C1"
sed 's/"seed":\[\([0-9]*\),/"seed":[7\1,/' "$F/ni/c1.json" >"$F/ni_other_seed.json"
expect_exit 0 "c1 verify: NI challenges ignore the seed" "$ZKPIPE" filecoin c1 verify "$F/ni_other_seed.json"
grep -q "13 partition(s) of 2 challenge(s)" "$WORK/out" && ok "c1 verify: NI has 13 partitions" || fail "NI partitions: $(cat "$WORK/out")"
expect_exit 0 "filecoin seal synthetic PoRep by porep id" "$ZKPIPE" filecoin seal --sector-size 2KiB --data "$F/data" \
  --prover-id "$H1" --sector-id 3 --ticket "$H1" --seed "$H1" --out "$F/syn" --porep-id "$(printf '0a%062x' 0)"
grep -q '"registered_proof":"StackedDrg2KiBV1_1_Feat_SyntheticPoRep"' "$F/syn/c1.json" && ok "seal: a synthetic C1" || fail "seal: synthetic C1"
expect_exit 0 "c1 verify a synthetic-PoRep C1" "$ZKPIPE" filecoin c1 verify "$F/syn/c1.json"
expect_exit 2 "c1 synth refuses NI-PoRep" "$ZKPIPE" filecoin c1 synth --sector-size 2KiB --out "$F/x.json" \
  --api V1_2_Feat_NonInteractivePoRep
expect_exit 2 "filecoin seal: a short hex value" "$ZKPIPE" filecoin seal --sector-size 2KiB --data "$F/data" \
  --prover-id 12 --sector-id 3 --ticket "$H1" --seed "$H1" --out "$F"
expect_exit 0 "filecoin c1 synth 2KiB" "$ZKPIPE" filecoin c1 synth --sector-size 2KiB --out "$F/synth.json"
err_has "SYNTHETIC" "synth warns that it commits to nothing"
expect_exit 0 "filecoin c1 verify a synthetic C1" "$ZKPIPE" filecoin c1 verify "$F/synth.json"
expect_exit 0 "info on a C1" "$ZKPIPE" info "$F/c1.json"
grep -q "^registered proof: StackedDrg2KiBV1_1 (id 5)" "$WORK/out" && ok "info names the registered proof" || fail "info C1: $(cat "$WORK/out")"
printf '{"SectorNum":12,"Phase1Out":"%s","SectorSize":2048}' "$(base64 -w0 "$F/c1.json")" >"$F/envelope.json"
expect_exit 0 "info on Curio's envelope" "$ZKPIPE" info "$F/envelope.json"
grep -q "^sector number: 12" "$WORK/out" && ok "info reads the envelope" || fail "info envelope: $(cat "$WORK/out")"
expect_exit 3 "info on a damaged C1" "$ZKPIPE" info "$F/bad_h.json"
expect_exit 2 "filecoin c1 synth without --out" "$ZKPIPE" filecoin c1 synth --sector-size 2KiB
# c2 and verify: each refusal named. Taken, these would fail fast on the missing
# parameters; the limit is a backstop.
expect_exit 2 "filecoin c2 without --out" timeout 60 "$ZKPIPE" filecoin c2 "$F/c1.json" --params "$WORK/none"
err_has "filecoin c2: --out is required" "filecoin c2: the missing option is named"
err_has "usage: zkpipe filecoin c2" "filecoin c2: the usage follows a missing option"
expect_exit 2 "filecoin c2 --budget 0" timeout 60 "$ZKPIPE" filecoin c2 "$F/c1.json" --out "$F/c2.bin" \
  --params "$WORK/none" --budget 0
err_has "--budget wants a size above 0" "filecoin c2: the message names --budget"
expect_exit 2 "filecoin c2 --synth-workers 2x" timeout 60 "$ZKPIPE" filecoin c2 "$F/c1.json" \
  --out "$F/c2.bin" --params "$WORK/none" --synth-workers 2x
err_has "--synth-workers wants a number from 1 to 4096, not \"2x\"" "filecoin c2: the message names --synth-workers"
expect_exit 2 "filecoin c2 --fast" timeout 60 "$ZKPIPE" filecoin c2 "$F/c1.json" --out "$F/c2.bin" \
  --params "$WORK/none" --fast
err_has "filecoin c2: unknown option --fast" "filecoin c2: the unknown option is named"
[ ! -e "$F/c2.bin" ] && ok "filecoin c2: nothing written when refused" || fail "filecoin c2 wrote a proof"
expect_exit 2 "filecoin verify without the proof" "$ZKPIPE" filecoin verify "$F/c1.json"
err_has "filecoin verify: <proof.bin> is required" "filecoin verify: the missing file is named"
expect_exit 2 "filecoin verify --fast" "$ZKPIPE" filecoin verify "$F/c1.json" "$F/c1.json" --fast
err_has "filecoin verify: unknown option --fast" "filecoin verify: the unknown option is named"

# ---------------------------------------------------------------- JSON details
sed 's/"\([0-9]\)/"000\1/' "$PUB" >"$WORK/pub_zeros.json"
grep -q '"000' "$WORK/pub_zeros.json" || fail "no leading zeros were added"
expect_exit 0 "verify: public inputs with leading zeros" "$ZKPIPE" verify "$VK" "$WORK/pub_zeros.json" "$PROOF"
sed '0,/"protocol"/s//"curve": "bn128",\n "protocol"/' "$VK" >"$WORK/vk_dup.json"
# INSECURE development parameters for a built-in circuit: SHA-256 of one byte
# (one compression, partly on constant padding bits: between 2^14 and 2^15
# rows), the same seed giving the same bytes, and the PoRep form refused until
# its circuit exists.
SEED=0101010101010101010101010101010101010101010101010101010101010101
expect_exit 0 "setup dev sha256" "$ZKPIPE" setup dev --circuit sha256 --bytes 1 --out "$B" --seed "$SEED" --threads 2
err_has "INSECURE" "setup dev: says INSECURE"
expect_exit 0 "inspect the dev params" "$ZKPIPE" filecoin params inspect "$B/dev-INSECURE-sha256-1b.params"
grep -q "^h  *32767 " "$WORK/out" && grep -q "ic points: 3" "$WORK/out" && ok "setup dev: domain 2^15, 2 inputs" || fail "setup dev: $(cat "$WORK/out")"
cp "$B/dev-INSECURE-sha256-1b.params" "$B/dev1.params"
expect_exit 0 "setup dev again, same seed" "$ZKPIPE" setup dev --circuit sha256 --bytes=1 --out="$B" --seed="$SEED" --quiet
cmp -s "$B/dev1.params" "$B/dev-INSECURE-sha256-1b.params" && ok "setup dev: the seed decides the bytes" || fail "setup dev: not reproducible"
expect_exit 0 "setup dev --device cpu" "$ZKPIPE" setup dev --circuit sha256 --bytes 1 --out "$B" --seed "$SEED" --quiet --device cpu
cmp -s "$B/dev1.params" "$B/dev-INSECURE-sha256-1b.params" && ok "setup dev --device cpu: the same bytes" || fail "setup dev --device cpu: other bytes"
expect_exit 2 "setup dev --device bogus" "$ZKPIPE" setup dev --circuit sha256 --bytes 1 --out "$B" --device bogus
err_has 'unknown device "bogus"' "setup dev: the device asked for is named"
# --device cuda: the same bytes where there is a GPU, a refusal that says why where there is none
rc=0
"$ZKPIPE" setup dev --circuit sha256 --bytes 1 --out "$B" --seed "$SEED" --quiet --device cuda >"$WORK/out" 2>"$WORK/err" || rc=$?
if [ $rc -eq 0 ]; then
    cmp -s "$B/dev1.params" "$B/dev-INSECURE-sha256-1b.params" && ok "setup dev --device cuda: the same bytes" || fail "setup dev --device cuda: other bytes"
elif [ $rc -eq 1 ] && grep -qE "without CUDA|no CUDA|GPU|device" "$WORK/err"; then
    ok "setup dev --device cuda without a GPU: refused, saying why (exit 1)"
    cmp -s "$B/dev1.params" "$B/dev-INSECURE-sha256-1b.params" && ok "setup dev --device cuda refused: the files are untouched" || fail "setup dev --device cuda refused: the files changed"
else
    fail "setup dev --device cuda: exit $rc: $(cat "$WORK/err")"
fi
# (the PoRep form itself runs in tests/filecoin_c2.sh: minutes of work)
expect_exit 2 "setup dev --filecoin porep without a size" "$ZKPIPE" setup dev --filecoin porep --out "$B"
expect_exit 2 "setup dev --filecoin porep --sector-size 4KiB" "$ZKPIPE" setup dev --filecoin porep \
  --sector-size 4KiB --out "$B"
err_has "not one of 2KiB" "setup dev: the sizes are named"
expect_exit 2 "setup dev --filecoin porep with --bytes" "$ZKPIPE" setup dev --filecoin porep \
  --sector-size 2KiB --bytes 8 --out "$B"
expect_exit 2 "setup dev --filecoin post" "$ZKPIPE" setup dev --filecoin post --sector-size 2KiB --out "$B"
err_has "--filecoin wants porep, not \"post\"" "setup dev: the message names --filecoin"
expect_exit 2 "setup dev: two circuits" "$ZKPIPE" setup dev --circuit sha256 --bytes 8 --filecoin porep \
  --sector-size 2KiB --out "$B"
err_has "--circuit and --filecoin: one or the other" "setup dev: the clash is named"
expect_exit 2 "setup dev: a short seed" "$ZKPIPE" setup dev --circuit sha256 --bytes 1 --out "$B" --seed 0102
err_has "--seed wants 64 hex digits, not \"0102\"" "setup dev: the message names --seed"
expect_exit 2 "setup dev --bytes 26x" timeout 60 "$ZKPIPE" setup dev --circuit sha256 --bytes 26x --out "$B"
err_has "--bytes wants a number from 1 to 4096, not \"26x\"" "setup dev: the message names --bytes"
expect_exit 2 "setup dev --fast" timeout 60 "$ZKPIPE" setup dev --circuit sha256 --bytes 1 --out "$B" --fast
err_has "setup: unknown option --fast" "setup dev: the unknown option is named"
expect_exit 2 "setup dev: no circuit" "$ZKPIPE" setup dev --out "$B"
err_has "--circuit or --filecoin is required" "setup dev: the missing option is named"
err_has "usage: zkpipe setup dev" "setup dev: the usage follows a missing option"
expect_exit 0 "setup dev: a missing directory is made" "$ZKPIPE" setup dev --circuit sha256 --bytes 1 --out "$B/new" --quiet
[ -s "$B/new/dev-INSECURE-sha256-1b.params" ] && [ -s "$B/new/dev-INSECURE-sha256-1b.vk" ] && ok "both files are in the new directory" || fail "setup dev: no files in the new directory"
expect_exit 5 "setup dev: a directory whose parent is missing" "$ZKPIPE" setup dev --circuit sha256 --bytes 1 --out "$B/none/deeper"
expect_exit 0 "setup --help" "$ZKPIPE" setup --help
expect_exit 3 "verify: a verification key with a duplicate key" "$ZKPIPE" verify "$WORK/vk_dup.json" "$PUB" "$PROOF"
err_has 'duplicate member name "curve"' "the duplicate key is named"

if [ "$failures" -ne 0 ]; then echo "cli: $failures failure(s)" >&2; exit 1; fi
echo "cli: all checks passed"
