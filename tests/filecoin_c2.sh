#!/usr/bin/env bash
# Filecoin C2 end to end at 2 KiB, the way an operator runs it:
#   - INSECURE parameters for the PoRep circuit (`setup dev --filecoin
#     porep`), under the names `filecoin params locate` gives;
#   - a sector sealed here, its C1 proved by `filecoin c2` and the proof
#     checked by `filecoin verify` against the C1's commitments;
#   - a changed proof and a C1 with another seed refused (exit 1, no output
#     written), parameters of another circuit refused before any point is
#     decoded (exit 3, the lengths named);
#   - the daemon proving the sector as Curio asks cuzk for it (cuzk.v1 with
#     Curio's envelope, from grpc-go and from `zkpipe client`).
# Minutes of point arithmetic (2.7 M constraints, a domain of 2^22), so it
# runs in the optimised build only (CMakeLists.txt).
#
# usage: filecoin_c2.sh <path to the zkpipe binary>
set -uo pipefail

ZKPIPE=$(realpath "$1")
HERE=$(cd "$(dirname "$0")" && pwd)
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
. "$HERE/cli_lib.sh"

P="$WORK/params"
F="$WORK/sector"
mkdir -p "$P" "$F"
H1=$(printf '%064x' 1)
H2=$(printf '%064x' 2)

expect_exit 0 "setup dev --filecoin porep 2KiB" "$ZKPIPE" setup dev --filecoin porep \
  --sector-size 2KiB --out "$P" --seed "$H2" --threads 2 --quiet
err_has "INSECURE" "the parameters are said to be insecure"
expect_exit 0 "params locate" env FIL_PROOFS_PARAMETER_CACHE="$P" "$ZKPIPE" filecoin params locate \
  --sector-size 2KiB
PARAMS=$(sed -n 1p "$WORK/out")
VKFILE=$(sed -n 2p "$WORK/out")
[ -s "$PARAMS" ] && [ -s "$VKFILE" ] && ok "written under Filecoin's names" || fail "the files are not where locate says"

# 2 KiB of random bytes with their top two bits cleared, so every 32-byte
# node is fr32-padded.
head -c 2048 /dev/urandom | tr '\100-\177\200-\277\300-\377' '\000-\077\000-\077\000-\077' >"$F/data"
expect_exit 0 "seal a 2KiB sector" "$ZKPIPE" filecoin seal --sector-size 2KiB --data "$F/data" \
  --prover-id "$H1" --sector-id 11 --ticket "$H1" --seed "$H2" --out "$F"

expect_exit 0 "c2" "$ZKPIPE" filecoin c2 "$F/c1.json" --params "$P" --out "$F/proof.bin" --threads 2
[ "$(wc -c <"$F/proof.bin")" -eq 192 ] && ok "one 192-byte partition proof" || fail "proof size"
err_has "partition 1 of 1: waited" "the engine's stage times are reported"
err_has "peak RSS" "the peak memory is reported"
expect_exit 0 "verify the proof" "$ZKPIPE" filecoin verify "$F/c1.json" "$F/proof.bin" --params "$P"

# The last byte of C: still a point on the curve with little chance, and
# never the proof's.
cp "$F/proof.bin" "$F/changed.bin"
printf '\x5a' | dd of="$F/changed.bin" bs=1 seek=191 conv=notrunc 2>/dev/null
expect_exit 1 "verify: a changed proof" "$ZKPIPE" filecoin verify "$F/c1.json" "$F/changed.bin" --params "$P"
err_has "partition 0" "the partition is named"

# Another seed: the seed's challenges are not the nodes the C1's vanilla
# proofs open, which the vanilla verifier sees before any proving. The data
# is random, so the first challenge the new seed moves is any of them: a
# 2 KiB sector's 64 nodes leave a challenge where it was once in 64.
sed 's/"seed":\[\([0-9]*\),/"seed":[7\1,/' "$F/c1.json" >"$F/other_seed.json"
cmp -s "$F/other_seed.json" "$F/c1.json" && fail "the seed was not changed"
expect_exit 3 "c2: a C1 with another seed" "$ZKPIPE" filecoin c2 "$F/other_seed.json" --params "$P" \
  --out "$F/never.bin" --threads 2
err_has "vanilla proofs do not verify" "the failure says the C1's vanilla proofs do not verify"
err_has "vanilla_proofs[0][" "the failing proof is named"
[ -e "$F/never.bin" ] && fail "c2 wrote a proof for a C1 that does not verify" || ok "no proof written"
expect_exit 1 "verify: the proof against the other seed" "$ZKPIPE" filecoin verify \
  "$F/other_seed.json" "$F/proof.bin" --params "$P"

# The daemon, as Curio calls cuzk: Prove with POREP_SEAL_COMMIT, the C1 in
# Curio's envelope, the numeric registered proof (StackedDrg2KiBV1_1 is 5);
# the parameters come from filecoin.params_dir.
if [ -x "$(dirname "$ZKPIPE")/zkpipe-daemon" ]; then
    SOCK="$WORK/d.sock"
    "$ZKPIPE" serve --no-env --listen "unix://$SOCK" --set engine.budget=8GiB \
        --set engine.synthesis_workers=1 --set engine.device_threads=2 \
        --set filecoin.params_dir="$P" >"$WORK/daemon.log" 2>&1 &
    DPID=$!
    for t in $(seq 1 300); do
        grep -q "ready (pid $DPID)" "$WORK/daemon.log" 2>/dev/null && break
        kill -0 "$DPID" 2>/dev/null || break
        sleep 0.2
    done
    printf '{"SectorNum":11,"Phase1Out":"%s","SectorSize":2048}' "$(base64 -w0 <"$F/c1.json")" \
        >"$F/envelope.json"
    # PreloadSRS before any job: the key of a PoRep size is registered from
    # filecoin.params_dir by its name; a size without parameters there, or
    # a name that is no key's, is said to be so.
    expect_exit 0 "daemon: PreloadSRS porep-2KiB before any job" "$ZKPIPE" client \
        --addr "unix://$SOCK" preload porep-2KiB
    out_has "key porep-2KiB: loaded in" "daemon: the preload loaded the key"
    expect_exit 4 "daemon: PreloadSRS of a size without parameters" "$ZKPIPE" client \
        --addr "unix://$SOCK" preload porep-8MiB
    err_has "StackedDrg8MiBV1_1 parameters" "daemon: the refusal names the missing parameters"
    expect_exit 4 "daemon: PreloadSRS of an unknown name" "$ZKPIPE" client \
        --addr "unix://$SOCK" preload porep-3KiB
    err_has "no key is registered as 'porep-3KiB'" "daemon: the refusal names the key"
    # Curio's own calls, from grpc-go: SubmitProof, GetStatus while the job
    # runs, AwaitProof.
    . "$HERE/go_interop.sh"
    if go_interop_build "$WORK" "$ZKPIPE" 2>"$WORK/go.err"; then
        "$WORK/interop" -mode=porep -sock "$SOCK" -fixtures "$HERE/fixtures" -envelope "$F/envelope.json" \
            -registered-proof 5 -sector-size 2048 -proof-out "$F/go.bin" >"$WORK/go.out" 2>&1 &&
            ok "daemon: the Go client's Submit, GetStatus and Await ($(grep -c PASS "$WORK/go.out") checks)" ||
            { fail "daemon: the Go client"; cat "$WORK/go.out" >&2; }
        cat "$WORK/go.out"
        expect_exit 0 "daemon: the Go client's proof verifies" "$ZKPIPE" filecoin verify \
            "$F/c1.json" "$F/go.bin" --params "$P"
    else
        fail "daemon: cannot build the Go client"
        cat "$WORK/go.err" >&2
    fi
    expect_exit 0 "daemon: porep_seal_commit through cuzk.v1 Prove" "$ZKPIPE" client \
        --addr "unix://$SOCK" prove-proof porep_seal_commit "$F/envelope.json" "$F/daemon.bin" \
        --registered-proof 5
    expect_exit 0 "daemon: the proof verifies" "$ZKPIPE" filecoin verify "$F/c1.json" \
        "$F/daemon.bin" --params "$P"
    [ "$(wc -c <"$F/daemon.bin")" -eq 192 ] && ok "daemon: one 192-byte partition proof" ||
        fail "daemon: proof size"
    # Synthetic PoRep of 2 KiB (10) has the same circuit and parameters: the
    # key registered for V1_1 serves it.
    expect_exit 0 "daemon: registered proof 10 shares the 2KiB key" "$ZKPIPE" client \
        --addr "unix://$SOCK" prove-proof porep_seal_commit "$F/envelope.json" "$F/daemon10.bin" \
        --registered-proof 10
    expect_exit 0 "daemon: that proof verifies" "$ZKPIPE" filecoin verify "$F/c1.json" \
        "$F/daemon10.bin" --params "$P"
    expect_exit 4 "daemon: the C1 with another seed is refused" "$ZKPIPE" client --addr "unix://$SOCK" \
        prove-proof porep_seal_commit <(printf '{"SectorNum":11,"Phase1Out":"%s","SectorSize":2048}' \
        "$(base64 -w0 <"$F/other_seed.json")") "$F/never.bin" --registered-proof 5
    err_has "the engine refused the C1" "daemon: the refusal says the C1 is at fault"
    err_has "vanilla_proofs[0][" "daemon: the failing vanilla proof is named"
    [ -e "$F/never.bin" ] && fail "daemon: a proof that does not verify was written" ||
        ok "daemon: no proof written"
    expect_exit 4 "daemon: 8MiB's registered proof for a 2KiB envelope" "$ZKPIPE" client \
        --addr "unix://$SOCK" prove-proof porep_seal_commit "$F/envelope.json" "$F/never.bin" \
        --registered-proof 6
    err_has "SectorSize 2048 is not StackedDrg8MiBV1_1" "daemon: the size mismatch is said"
    # bench porep through the daemon: Curio's call, two in flight, every
    # proof verified again by the bench against the .vk.
    expect_exit 0 "daemon: bench porep --daemon" "$ZKPIPE" bench porep --daemon "unix://$SOCK" \
        --sector-size 2KiB --params "$P" --sectors 2 --in-flight 2 --json "$F/bench_daemon.json"
    out_has "sectors verified: 2 of 2" "daemon: bench porep --daemon verified both sectors"
    grep -q '"proofs_verified":2,' "$F/bench_daemon.json" &&
        grep -q '"reservation_violations":0}' "$F/bench_daemon.json" &&
        ok "daemon: bench porep --daemon's summary" || fail "daemon: bench porep --daemon's summary"
    expect_exit 2 "daemon: bench porep --daemon refuses the engine's options" "$ZKPIPE" bench porep \
        --daemon "unix://$SOCK" --sector-size 2KiB --budget 3GiB
    err_has "the daemon's to set" "daemon: the refusal says whose option it is"
    printf 'not an envelope' >"$F/junk.json"
    expect_exit 4 "daemon: a vanilla proof that is not an envelope" "$ZKPIPE" client \
        --addr "unix://$SOCK" prove-proof porep_seal_commit "$F/junk.json" "$F/never.bin" \
        --registered-proof 5
    err_has "not Curio's C1 envelope" "daemon: the envelope is said to be wrong"
    kill -TERM "$DPID" 2>/dev/null
    wait "$DPID" && ok "daemon: exits 0 on SIGTERM" || { fail "daemon exit"; cat "$WORK/daemon.log" >&2; }
else
    echo "skip: the daemon checks (zkpipe-daemon was not built)"
fi

# A C1 with one value changed is not what the sealer made, and is refused
# before the key loads, with the vanilla proof that fails named: one path
# element (the first sibling hash of the first inclusion proof), one label
# (the first byte of c_x's first row; the circuit recomputes labels from
# their parents, so without the check this one gave a proof that verifies)
# and one root (comm_r_last's, against comm_r).
perl -0pe 's/"hashes":\[\[(\d+)/"\"hashes\":[[" . ($1 == 7 ? 8 : 7)/e' "$F/c1.json" >"$F/other_path.json"
perl -0pe 's/"rows":\[\[(\d+)/"\"rows\":[[" . ($1 == 7 ? 8 : 7)/e' "$F/c1.json" >"$F/other_label.json"
perl -0pe 's/"comm_r_last_proof":\{"data":\{"Single":\{"root":\[(\d+)/"\"comm_r_last_proof\":{\"data\":{\"Single\":{\"root\":[" . ($1 == 7 ? 8 : 7)/e' \
    "$F/c1.json" >"$F/other_root.json"
for what in path label root; do
    cmp -s "$F/other_$what.json" "$F/c1.json" && fail "the $what was not changed"
    expect_exit 3 "c2: a C1 with one $what changed" "$ZKPIPE" filecoin c2 "$F/other_$what.json" \
      --params "$P" --out "$F/never.bin" --threads 2
    err_has "vanilla proofs do not verify" "c2: the changed $what is refused as the C1's fault"
    [ -e "$F/never.bin" ] && fail "c2 wrote a proof for a changed $what" || ok "no proof written"
done
err_has "comm_r" "c2: the changed root is named"

# Parameters of another circuit under the 2 KiB names.
Q="$WORK/other"
mkdir -p "$Q"
expect_exit 0 "setup dev sha256" "$ZKPIPE" setup dev --circuit sha256 --bytes 8 --out "$Q" --quiet
cp "$Q/dev-INSECURE-sha256-8b.params" "$Q/$(basename "$PARAMS")"
expect_exit 3 "c2: parameters of another circuit" "$ZKPIPE" filecoin c2 "$F/c1.json" --params "$Q" \
  --out "$F/never.bin"
err_has "not this circuit's" "the misfit is said"
err_has "l has" "the lengths are named"
expect_exit 3 "c2: no parameters there" "$ZKPIPE" filecoin c2 "$F/c1.json" --params "$WORK/none" \
  --out "$F/never.bin"
expect_exit 2 "c2 without --out" "$ZKPIPE" filecoin c2 "$F/c1.json" --params "$P"
expect_exit 2 "c2 over its input" "$ZKPIPE" filecoin c2 "$F/c1.json" --params "$P" --out "$F/c1.json"
expect_exit 0 "c2 --help" "$ZKPIPE" filecoin c2 --help
expect_exit 2 "verify without a proof" "$ZKPIPE" filecoin verify "$F/c1.json"

# bench porep: three sectors sealed on the fly and proved through the engine
# with the parameters above, every proof verified, the JSON summary written
# with the partitions the phase completed and the RSS drift over the
# sectors after the first two (three peaks recorded).
expect_exit 0 "bench porep 2KiB, 3 sectors" "$ZKPIPE" bench porep --sector-size 2KiB --sectors 3 \
  --params "$P" --threads 2 --json "$WORK/porep.json" --timeline "$WORK/porep.csv"
for want in '"proofs":3,' '"proofs_verified":3,' '"partitions_verified":3,' \
  '"reservation_violations":0,' '"device_busy":0.' '"phases":[{"synth_workers":1,' \
  '"partitions_completed":3,' '"rss_drift_from_sector":2,'; do
    grep -qF "$want" "$WORK/porep.json" && ok "bench porep: $want" ||
      { fail "bench porep: the JSON lacks $want"; cat "$WORK/porep.json" >&2; }
done
grep -qE '"rss_drift":-?[0-9.]+,.*"sector_peak_rss_bytes":\[[0-9]+,[0-9]+,[0-9]+\]' \
  "$WORK/porep.json" && ok "bench porep: the drift and three per-sector peaks in the JSON" ||
  { fail "bench porep: the drift"; cat "$WORK/porep.json" >&2; }
out_has "RSS drift" "bench porep: the drift printed"
[ -s "$WORK/porep.svg" ] && [ -s "$WORK/porep.stages.svg" ] && ok "bench porep: the timelines drawn" ||
  fail "bench porep: no timeline SVG"
# Two phases with one key load: each sets its workers and budget, and each
# is reported against its own budget, and recorded in --results as it ends.
expect_exit 0 "bench porep --phases" "$ZKPIPE" bench porep --sector-size 2KiB --sectors 1 \
  --params "$P" --threads 2 --phases 1@3GiB,2@2600MiB --json "$WORK/phases.json" \
  --results "$WORK/sweep.jsonl"
[ "$(grep -cE '^ +[12] +[12] +[0-9.]+ +1 .* yes ' "$WORK/out")" = 2 ] &&
  ok "bench porep --phases: a row per phase, within baseline + its budget" ||
  { fail "bench porep --phases: the table"; cat "$WORK/out" >&2; }
grep -qF '"phases":[{"synth_workers":1,"budget_bytes":3221225472,"sectors":1,"sectors_verified":1,' \
  "$WORK/phases.json" && grep -qF '{"synth_workers":2,"budget_bytes":2726297600,"sectors":1,"sectors_verified":1,' \
  "$WORK/phases.json" && ok "bench porep --phases: each phase's limits and sector" ||
  { fail "bench porep --phases: the JSON"; cat "$WORK/phases.json" >&2; }
[ "$(grep -c '^{"phase":[12],"sweep":"1@3GiB,2@2600MiB","sector_size":"2KiB","synth_workers":' \
  "$WORK/sweep.jsonl")" = 2 ] && ok "bench porep --results: a line per phase" ||
  { fail "bench porep --results: the lines"; cat "$WORK/sweep.jsonl" >&2; }
# A sweep stopped after its first phase resumes at the second: only it
# runs, and its line joins the first; then nothing is left to run, and a
# file of another sweep is refused and kept.
head -n 1 "$WORK/sweep.jsonl" >"$WORK/first.jsonl"
expect_exit 0 "bench porep --results: resumed" "$ZKPIPE" bench porep --sector-size 2KiB \
  --sectors 1 --params "$P" --threads 2 --phases 1@3GiB,2@2600MiB --results "$WORK/first.jsonl"
err_has "resuming at phase 2" "bench porep --results: resumes at the first phase not recorded"
[ "$(grep -cE '^ +[12] +[12] +[0-9.]+ +1 .* yes ' "$WORK/out")" = 1 ] &&
  grep -qE '^ +2 +2 +2.5 +1 ' "$WORK/out" && ok "bench porep --results: only phase 2 ran" ||
  { fail "bench porep --results: the resumed table"; cat "$WORK/out" >&2; }
[ "$(wc -l <"$WORK/first.jsonl")" = 2 ] && grep -q '^{"phase":2,' "$WORK/first.jsonl" &&
  ok "bench porep --results: the resumed phase's line added" ||
  { fail "bench porep --results: after resuming"; cat "$WORK/first.jsonl" >&2; }
expect_exit 0 "bench porep --results: nothing left" "$ZKPIPE" bench porep --sector-size 2KiB \
  --sectors 1 --params "$P" --phases 1@3GiB,2@2600MiB --results "$WORK/first.jsonl"
err_has "every phase is recorded" "bench porep --results: a finished sweep runs nothing"
cp "$WORK/first.jsonl" "$WORK/kept.jsonl"
expect_exit 2 "bench porep --results: another sweep's file" "$ZKPIPE" bench porep \
  --sector-size 2KiB --sectors 1 --params "$P" --phases 1@3GiB --results "$WORK/first.jsonl"
err_has "not phase 1 of this sweep" "bench porep --results: says whose file it is"
cmp -s "$WORK/first.jsonl" "$WORK/kept.jsonl" && ok "bench porep --results: a refused file is kept" ||
  fail "bench porep --results: a refused file was changed"
# Phases too short for any sector: each says so and the next one still
# runs; the run fails, with no summary written, because none completed one.
expect_exit 1 "bench porep: phases that complete nothing" "$ZKPIPE" bench porep --sector-size 2KiB \
  --sectors 1 --params "$P" --threads 2 --phases 1@3GiB,1@3GiB --duration 0.001 \
  --json "$WORK/nothing.json"
[ "$(grep -c 'no sector completed within --duration 0.001' "$WORK/err")" -eq 2 ] &&
  ok "bench porep: each empty phase is reported and the next runs" ||
  { fail "bench porep: empty phases"; cat "$WORK/err" >&2; }
err_has "no phase completed a sector" "bench porep: the run says why it failed"
[ -e "$WORK/nothing.json" ] && fail "bench porep: a summary of nothing was written" ||
  ok "bench porep: no summary for a run that proved nothing"

if [ "$failures" -ne 0 ]; then echo "filecoin_c2: $failures failure(s)" >&2; exit 1; fi
echo "filecoin_c2: all checks passed"
