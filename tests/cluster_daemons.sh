#!/usr/bin/env bash
# Cluster mode end to end: three `zkpipe serve` members share one queue in
# a real PostgreSQL (tests/cluster_pg.sh), driven by `zkpipe client`.
#   1. many jobs from concurrent clients, spread over the members, on both
#      curves and every priority: each ends exactly once (one lease, done),
#      each client gets a proof that `zkpipe verify` accepts, and no two
#      clients get the same proof; one job in five comes in on cuzk.v1
#      (Prove, as Curio calls it) instead: a Filecoin kind, which this
#      zkpipe cannot prove, so each of those ends exactly once too (one
#      lease, failed with the reason) and its client, on whichever member,
#      is answered FAILED with that reason;
#      a long job submitted and cancelled through one member while a member
#      runs it stops there at once; rows written straight into the table
#      that are not a member's fail with a message;
#      Filecoin PoRep C2 at 2 KiB, as Curio asks cuzk for it (cuzk.v1 Prove
#      with POREP_SEAL_COMMIT, the C1 in Curio's envelope), on INSECURE dev
#      parameters that every member finds through filecoin.params_dir: a
#      job sent before the parameters exist waits unclaimed; two
#      sealed sectors sent to two members are each proved once, by
#      whichever members claim them, and their clients get proofs that
#      `zkpipe filecoin verify` accepts; a C1 with one label byte changed,
#      sent to the member that keeps large requests in the shared
#      directory, fails once (no retry) with the vanilla proof named, and
#      its client is answered FAILED with that reason. Parameters, key
#      loads and proofs take about a minute of point arithmetic (several
#      under a sanitizer), so CMake turns this part off in the sanitizer
#      and unoptimised builds (ZKPIPE_TEST_CLUSTER_POREP=0), as it leaves
#      out filecoin_c2 there;
#   2. a member kill -9'd while it holds a lease (twice): its jobs are taken over by
#      the others after the lease expires, a client whose call died with it
#      attaches to its job again by request id, and it restarts as a new
#      member;
#   3. fencing: a member paused (SIGSTOP) past its lease while it holds a
#      job; another member takes the job over and completes it; once
#      resumed, the paused member's write is refused, and the client gets
#      the other member's proof;
#   4. PostgreSQL restarted under load: clients that were refused while it
#      was down retry with their request ids, and every job ends once.
# The counts (submitted, completed, retried, taken over, failed) come from
# the database.
#
# usage: cluster_daemons.sh <path to the zkpipe binary>
# Environment: ZKPIPE_TEST_PG_STATE (the server CTest started; else one is
# started here), ZKPIPE_TEST_CLUSTER_JOBS (jobs of part 1, default 200, a
# multiple of 5), ZKPIPE_TEST_CLUSTER_POREP (0: no PoRep part; default 1).
# Exit 77 (a skip) without PostgreSQL's binaries.
set -euo pipefail

[ $# -eq 1 ] || { echo "usage: $0 <path to the zkpipe binary>" >&2; exit 2; }
ZKPIPE=$(realpath "$1")
HERE=$(cd "$(dirname "$0")" && pwd)
FIX="$HERE/fixtures"
JOBS=${ZKPIPE_TEST_CLUSTER_JOBS:-200}
POREP=${ZKPIPE_TEST_CLUSTER_POREP:-1}
# One job in five comes in on cuzk.v1 and one in three on member 2, whose
# requests go by path: fewer than ten, or a count the five do not divide,
# would leave checks below without their jobs and fail them for nothing.
case $JOBS in
*[!0-9]* | '') JOBS=0 ;;
esac
if [ "$JOBS" -lt 10 ] || [ $((JOBS % 5)) -ne 0 ]; then
    echo "$0: ZKPIPE_TEST_CLUSTER_JOBS=${ZKPIPE_TEST_CLUSTER_JOBS:-} must be a multiple of 5, at least 10" >&2
    exit 2
fi
LEASE_MS=3000

WORK=$(mktemp -d "${TMPDIR:-/tmp}/zkpipe-cluster.XXXXXX")
chmod 755 "$WORK"
PIDS=() # daemons started here
OWN_STATE=""
cleanup() {
    local p f
    if [ "${failures:-0}" -gt 0 ]; then
        for f in "$WORK"/d*.log; do
            [ -f "$f" ] && { echo "--- $f" >&2; tail -n 40 "$f" >&2; }
        done
    fi
    for p in "${PIDS[@]}"; do kill -CONT "$p" 2>/dev/null || true; kill -KILL "$p" 2>/dev/null || true; done
    [ -n "$OWN_STATE" ] && bash "$HERE/cluster_pg.sh" stop "$OWN_STATE" || true
    [ -n "${SCHEMA:-}" ] && [ -n "${PGDIR:-}" ] &&
        psql -qX "host=$PGDIR user=postgres dbname=postgres" -c "DROP SCHEMA IF EXISTS $SCHEMA CASCADE" \
            >/dev/null 2>&1 || true
    rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

case "${TSAN_OPTIONS:-}" in
*suppressions=*) ;;
*) export TSAN_OPTIONS="suppressions=$HERE/tsan.supp${TSAN_OPTIONS:+ $TSAN_OPTIONS}" ;;
esac

passes=0
failures=0
fail() { echo "FAIL $*" >&2; failures=$((failures + 1)); }
ok() { echo "PASS $*"; passes=$((passes + 1)); }
die() { fail "$*"; exit 1; }

STATE=${ZKPIPE_TEST_PG_STATE:-}
if [ -z "$STATE" ]; then
    OWN_STATE="$WORK/pg.state"
    STATE=$OWN_STATE
    bash "$HERE/cluster_pg.sh" start "$STATE" >&2 || die "tests/cluster_pg.sh start failed"
fi
if [ ! -f "$STATE" ]; then
    echo "skipped: no PostgreSQL server (tests/cluster_pg.sh found no initdb)"
    exit 77
fi
command -v psql >/dev/null || { echo "skipped: no psql"; exit 77; }
PGDIR=$(head -n 1 "$STATE")
SCHEMA="zkpt_daemons_$$"
ADMIN="host=$PGDIR user=postgres dbname=postgres options='-c search_path=$SCHEMA'"
sql() { psql -qAtX "$ADMIN" -c "$1"; }
psql -qX "host=$PGDIR user=postgres dbname=postgres" -c "CREATE SCHEMA $SCHEMA" >/dev/null
"$ZKPIPE" queue migrate --url "$ADMIN" >/dev/null || die "zkpipe queue migrate"

# ---------------------------------------------------------------------------
# Members

BN="$FIX/poseidon_small_bn128"
BLS="$FIX/poseidon_small_bls12381"
declare -a DPID DLOG
# start_member <i> [--set k=v]...: member i on $WORK/d<i>.sock, logging to
# $WORK/d<i>.<n>.log. Member 2 keeps requests over 1 KiB in the shared
# directory rather than the database. The Filecoin parameters are looked
# for when a PoRep job runs (part 1c writes them). The budget is a bound,
# not an allocation: a 2 KiB PoRep key's load reserves four times its
# 1.1 GB file, more than a smaller budget has beside a partition (about
# 0.5 GiB) and the C1s (the engine then fails the load for memory).
SHARED="$WORK/shared"
FILP="$WORK/filecoin-params"
mkdir -p "$SHARED" "$FILP"
start_member() {
    local i=$1 n=0
    shift
    local extra=("$@")
    [ "$i" -eq 2 ] && extra+=(--set queue.inline_max=1KiB)
    while [ -e "$WORK/d$i.$n.log" ]; do n=$((n + 1)); done
    DLOG[$i]="$WORK/d$i.$n.log"
    "$ZKPIPE" serve --no-env --listen "unix://$WORK/d$i.sock" \
        --set server.keys="bn=$BN/circuit.zkey,bls=$BLS/circuit.zkey" \
        --set engine.budget=8GiB --set engine.synthesis_workers=1 \
        --set engine.device_threads=1 --set engine.finalize_workers=1 \
        --set queue.url="$ADMIN" --set queue.lease_ms=$LEASE_MS --set queue.max_claims=2 \
        --set queue.inputs_dir="$SHARED" --set filecoin.params_dir="$FILP" "${extra[@]}" \
        >"${DLOG[$i]}" 2>&1 &
    DPID[$i]=$!
    PIDS+=("$!")
}
wait_ready() {
    local i=$1 t
    for t in $(seq 1 600); do
        grep -q "ready (pid ${DPID[$i]})" "${DLOG[$i]}" 2>/dev/null && return 0
        kill -0 "${DPID[$i]}" 2>/dev/null || break
        sleep 0.2
    done
    cat "${DLOG[$i]}" >&2
    return 1
}
for i in 0 1 2; do start_member $i; done
for i in 0 1 2; do wait_ready $i || die "member $i did not start"; done
ok "three members started against one PostgreSQL ($(sql 'SELECT count(*) FROM zkpipe_members') registered)"

# is_cuzk <job>: part 1's jobs that come in on cuzk.v1, one in five.
is_cuzk() { [ "$1" -lt "$JOBS" ] && [ $(($1 % 5)) -eq 2 ]; }
# prove <job> <member>: one client; the outputs go to $WORK/out/<job>.
# The service, key and priority follow from the job's number. A cuzk.v1
# job is a WinningPoSt, whose bytes are never read: it fails before.
prove() {
    local j=$1 m=$2 key dir prios=(low normal high critical)
    if [ $((j % 2)) -eq 0 ]; then key=bn; else key=bls; fi
    dir="$WORK/out/$j"
    mkdir -p "$dir"
    if is_cuzk "$j"; then
        "$ZKPIPE" client --addr "unix://$WORK/d$m.sock" prove-proof winning_post "$WORK/vanilla.bin" \
            "$dir/proof.bin" --priority "${prios[$((j % 4))]}" --request-id "job-$j" \
            >"$dir/client.log" 2>&1
        return
    fi
    local wtns="$BN/witness.wtns"
    [ $key = bls ] && wtns="$BLS/witness.wtns"
    "$ZKPIPE" client --addr "unix://$WORK/d$m.sock" prove $key "$wtns" "$dir/proof.json" \
        "$dir/public.json" --priority "${prios[$((j % 4))]}" --request-id "job-$j" \
        >"$dir/client.log" 2>&1
}
# prove_retry <job> <member>: as a client does when its member or the
# database is briefly unavailable: the same request id again, a second
# later, on the next member.
prove_retry() {
    local t
    for t in 0 1 2 3 4 5 6 7 8 9; do
        prove "$1" $((($2 + t) % 3)) && return 0
        sleep 1
    done
    return 1
}
export -f is_cuzk prove prove_retry
export ZKPIPE WORK BN BLS JOBS
head -c 64 /dev/zero >"$WORK/vanilla.bin"
N_CUZK=$((JOBS / 5))

# verify_all <first> <last>: every zkpipe.v1 job's proof verifies; no two
# are alike.
verify_all() {
    local j bad=0 vk
    for j in $(seq "$1" "$2"); do
        is_cuzk "$j" && continue
        if [ $((j % 2)) -eq 0 ]; then vk="$BN/verification_key.json"; else vk="$BLS/verification_key.json"; fi
        if ! "$ZKPIPE" verify "$vk" "$WORK/out/$j/public.json" "$WORK/out/$j/proof.json" >/dev/null 2>&1; then
            bad=$((bad + 1))
            [ $bad -le 3 ] && echo "job $j: $(cat "$WORK/out/$j/client.log" 2>/dev/null)" >&2
        fi
    done
    echo $bad
}
distinct_proofs() {
    local j
    for j in $(seq "$1" "$2"); do is_cuzk "$j" || md5sum <"$WORK/out/$j/proof.json"; done | sort -u | wc -l
}

# ---------------------------------------------------------------------------
# 1. Many jobs from concurrent clients

t0=$(date +%s.%N)
seq 0 $((JOBS - 1)) | xargs -P 12 -I{} bash -c 'prove {} $(({} % 3)) || true'
t1=$(date +%s.%N)
N_ZK=$((JOBS - N_CUZK))
bad=$(verify_all 0 $((JOBS - 1)))
[ "$bad" -eq 0 ] && ok "$N_ZK zkpipe.v1 jobs through three members: every client got a proof that verifies" ||
    fail "$bad of $N_ZK zkpipe.v1 jobs without a verifying proof"
d=$(distinct_proofs 0 $((JOBS - 1)))
[ "$d" -eq "$N_ZK" ] && ok "$N_ZK distinct proofs (none answered with another job's)" ||
    fail "$d distinct proofs for $N_ZK jobs"
UNSUPPORTED="proof kind winning_post needs Filecoin circuits"
row=$(sql "SELECT count(*), count(*) FILTER (WHERE state = 'done' AND kind = 'circom'),
           count(*) FILTER (WHERE state = 'failed' AND kind = 'winning_post'
                            AND last_error LIKE '%$UNSUPPORTED%'),
           count(*) FILTER (WHERE attempts = 1) FROM zkpipe_jobs")
IFS='|' read -r n done cz_failed once <<<"$row"
[ "$n" -eq "$JOBS" ] && [ "$done" -eq "$N_ZK" ] && [ "$cz_failed" -eq "$N_CUZK" ] && [ "$once" -eq "$JOBS" ] &&
    ok "every job ended exactly once, on its first lease ($n jobs: $done zkpipe.v1 done, $cz_failed cuzk.v1 failed as unsupported, $once single-lease)" ||
    fail "jobs: $n submitted, $done zkpipe.v1 done (want $N_ZK), $cz_failed cuzk.v1 failed as unsupported (want $N_CUZK), $once on their first lease (want $JOBS)"
# Each cuzk.v1 client was answered by the member it called, whichever
# member ran the job: FAILED, with the reason, under the queue's job id.
cz_answered=0
for j in $(seq 0 $((JOBS - 1))); do
    is_cuzk "$j" || continue
    grep -q "^job cluster-[0-9]*: failed: .*$UNSUPPORTED" "$WORK/out/$j/client.log" &&
        [ ! -e "$WORK/out/$j/proof.bin" ] && cz_answered=$((cz_answered + 1))
done
[ "$cz_answered" -eq "$N_CUZK" ] &&
    ok "$N_CUZK cuzk.v1 Prove calls answered FAILED with the reason: $(head -n 1 "$WORK/out/2/client.log")" ||
    fail "$cz_answered of $N_CUZK cuzk.v1 Prove calls answered FAILED with the reason; e.g. $(cat "$WORK/out/2/client.log")"
# Each member's own count, from its Prometheus text (cuzk.v1 GetMetrics).
per=""
claims_sum=0
failed_sum=0
for i in 0 1 2; do
    m=$("$ZKPIPE" client --addr "unix://$WORK/d$i.sock" metrics)
    c=$(awk '/^zkpipe_cluster_results_total\{outcome="completed"\}/ { print $2 }' <<<"$m")
    f=$(awk '/^zkpipe_cluster_results_total\{outcome="failed"\}/ { print $2 }' <<<"$m")
    per="$per ${c:-?}/${f:-?}"
    claims_sum=$((claims_sum + ${c:-0}))
    failed_sum=$((failed_sum + ${f:-0}))
done
[ "$claims_sum" -eq "$N_ZK" ] && [ "$failed_sum" -eq "$N_CUZK" ] &&
    ok "the members' metrics count $N_ZK results and $N_CUZK failures written (completed/failed per member:$per)" ||
    fail "the members' metrics count $claims_sum results and $failed_sum failures written, want $N_ZK and $N_CUZK (per member:$per)"
echo "$(awk -v a="$t0" -v b="$t1" -v n="$JOBS" \
    'BEGIN { printf "%.1f s, %.1f jobs/s", b - a, n / (b - a) }')"
prio=$(sql "SELECT string_agg(priority || ':' || round(avg_wait)::text || 'ms', ' ') FROM
           (SELECT priority, 1000 * avg(extract(epoch FROM claimed_at - created_at)) avg_wait
            FROM zkpipe_jobs GROUP BY priority ORDER BY priority DESC) t")
# The claims take the higher priorities first: no job was claimed while a
# job of a higher priority had been waiting for it. A job's created_at is
# its enqueue statement's start, before its commit, so "waiting" counts from
# 250 ms after it. How deep the queue got decides how often the order is
# put to the test; the contested claims count those occasions.
order=$(sql "SELECT
    (SELECT count(*) FROM zkpipe_jobs j JOIN zkpipe_jobs k ON k.priority > j.priority
       AND k.created_at < j.claimed_at - interval '250 milliseconds' AND k.claimed_at > j.claimed_at),
    (SELECT count(DISTINCT j.id) FROM zkpipe_jobs j JOIN zkpipe_jobs k ON k.priority < j.priority
       AND k.created_at < j.claimed_at - interval '250 milliseconds' AND k.claimed_at > j.claimed_at)")
IFS='|' read -r inversions contested <<<"$order"
[ "$inversions" -eq 0 ] &&
    ok "no claim passed over a waiting job of a higher priority ($contested claims taken ahead of waiting lower ones; mean wait by priority: $prio)" ||
    fail "$inversions claims passed over a waiting job of a higher priority (mean wait by priority: $prio)"
refused=$(cat "$WORK"/d*.log | grep -c "was refused" || true)
[ "$refused" -eq 0 ] && ok "no write refused without a takeover" || fail "$refused writes refused"

# Member 2's requests went through the shared directory, and their files
# went with their jobs.
by_path=$(sql "SELECT count(*) FROM zkpipe_jobs WHERE inputs_path IS NOT NULL")
left_files=$(find "$SHARED" -type f | wc -l)
[ "$by_path" -gt 0 ] && [ "$left_files" -eq 0 ] &&
    ok "$by_path jobs' inputs went through queue.inputs_dir, and no file was left" ||
    fail "$by_path jobs by path, $left_files files left in queue.inputs_dir"
# Without the directory, a request too large for the database is refused.
start_member 3 --set queue.inline_max=1KiB --set queue.inputs_dir=
if wait_ready 3; then
    rc=0
    "$ZKPIPE" client --addr "unix://$WORK/d3.sock" prove bn "$BN/witness.wtns" "$WORK/p3.json" \
        "$WORK/q3.json" >"$WORK/big.log" 2>&1 || rc=$?
    [ $rc -ne 0 ] && grep -q "queue.inputs_dir" "$WORK/big.log" &&
        ok "without queue.inputs_dir a request over queue.inline_max is refused: $(tail -n 1 "$WORK/big.log")" ||
        fail "a request over queue.inline_max without queue.inputs_dir: rc $rc, $(cat "$WORK/big.log")"
    kill -TERM "${DPID[3]}"
    wait "${DPID[3]}" || fail "member 3 did not exit cleanly"
else
    fail "member 3 did not start"
fi

# A cuzk.v1 retry attaches to its job too, on another member: the same
# job id, answered from the row.
cz_id=$(sed -n 's/^job \(cluster-[0-9]*\):.*/\1/p' "$WORK/out/2/client.log")
prove 2 0 || true
cz_again=$(sed -n 's/^job \(cluster-[0-9]*\):.*/\1/p' "$WORK/out/2/client.log")
d0=$(sql "SELECT count(*) FROM zkpipe_jobs")
[ -n "$cz_id" ] && [ "$cz_id" = "$cz_again" ] && [ "$d0" -eq "$JOBS" ] &&
    ok "a repeated cuzk.v1 request id, on another member, attaches to its job ($cz_id), no new job" ||
    fail "a repeated cuzk.v1 request id: job '$cz_again', first '$cz_id', $d0 jobs"

# Repeating a request id attaches to the finished job: the same proof.
cp "$WORK/out/0/proof.json" "$WORK/first-proof-0.json"
prove 0 1 || true
d0=$(sql "SELECT count(*) FROM zkpipe_jobs")
[ "$d0" -eq "$JOBS" ] && cmp -s "$WORK/out/0/proof.json" "$WORK/first-proof-0.json" &&
    ok "a repeated request id, on another member, attaches to its job: the same proof, no new job" ||
    fail "a repeated request id made a new job or another proof ($d0 jobs)"

# ---------------------------------------------------------------------------
# 1a. Submit, Await and Cancel through the queue, each on another member:
# job ids are the queue's. A job submitted to member 1 is awaited on member
# 2; a long one (64 partitions) is cancelled through member 2 while some
# member runs it, and awaited on member 0.

sid=$("$ZKPIPE" client --addr "unix://$WORK/d1.sock" submit bn "$BN/witness.wtns" --request-id short-1)
mkdir -p "$WORK/short"
aw=$("$ZKPIPE" client --addr "unix://$WORK/d2.sock" await "$sid" --wait-ms 60000 --out "$WORK/short" || true)
[[ $sid == cluster-* ]] && [[ $aw == *completed* ]] &&
    "$ZKPIPE" verify "$BN/verification_key.json" "$WORK/short/public_0.json" "$WORK/short/proof_0.json" >/dev/null &&
    ok "job $sid submitted to member 1, awaited on member 2: a proof that verifies" ||
    fail "submit on member 1 ($sid), await on member 2: $aw"
sql "DELETE FROM zkpipe_jobs WHERE request_id = 'short-1'" >/dev/null

wl=()
for t in $(seq 1 64); do wl+=("$BLS/witness.wtns"); done
cid=$("$ZKPIPE" client --addr "unix://$WORK/d1.sock" submit bls "${wl[@]}" --request-id long-1)
for t in $(seq 1 200); do
    st=$(sql "SELECT state FROM zkpipe_jobs WHERE request_id = 'long-1'")
    [ "$st" = leased ] && break
    sleep 0.05
done
holder=$(sql "SELECT lease_owner FROM zkpipe_jobs WHERE request_id = 'long-1'")
t_cancel=$(date +%s.%N)
"$ZKPIPE" client --addr "unix://$WORK/d2.sock" cancel "$cid" >/dev/null
aw=$("$ZKPIPE" client --addr "unix://$WORK/d0.sock" await "$cid" --wait-ms 30000 || true)
# The holder stops its engine job at the next stage boundary: its claim
# ends long before 64 partitions could be proved.
for t in $(seq 1 100); do
    running=0
    for i in 0 1 2; do
        r=$("$ZKPIPE" client --addr "unix://$WORK/d$i.sock" metrics |
            awk '/^zkpipe_cluster_claims_running / { print $2 }')
        running=$((running + ${r:-0}))
    done
    [ "$running" -eq 0 ] && break
    sleep 0.05
done
t_done=$(date +%s.%N)
st=$(sql "SELECT state FROM zkpipe_jobs WHERE request_id = 'long-1'")
secs=$(awk -v a="$t_cancel" -v b="$t_done" 'BEGIN { printf "%.2f", b - a }')
[ "$st" = cancelled ] && [[ $aw == *cancelled* ]] && [ "$running" -eq 0 ] &&
    ok "job $cid running on $holder, cancelled through member 2: awaited on member 0 as cancelled, its claim ended ${secs} s later" ||
    fail "cancel: state $st, await '$aw', $running claims still running after ${secs} s"
sql "DELETE FROM zkpipe_jobs WHERE request_id = 'long-1'" >/dev/null

# ---------------------------------------------------------------------------
# 1b. Rows written by someone else: a claimed row is untrusted input

sql "INSERT INTO zkpipe_jobs (request_id, kind, curve, priority, inputs, key, max_attempts)
     VALUES ('bad-frame', 'circom', 'any', 0, '\\x00010203'::bytea, 'bn', 3)"
sql "INSERT INTO zkpipe_jobs (request_id, kind, curve, priority, inputs_path, key, max_attempts)
     VALUES ('bad-path', 'circom', 'any', 0, '/etc/passwd', 'bn', 3)"
sql "INSERT INTO zkpipe_jobs (request_id, kind, curve, priority, inputs, key, max_attempts)
     SELECT 'bad-key', kind, curve, 0, inputs, 'bn', 3 FROM zkpipe_jobs WHERE request_id = 'job-1'"
sql "INSERT INTO zkpipe_jobs (request_id, kind, curve, priority, inputs, key, max_attempts)
     SELECT 'bad-version', kind, curve, 0, overlay(inputs placing '\\x02'::bytea from 5 for 1),
            key, 3 FROM zkpipe_jobs WHERE request_id = 'job-0'"
for t in $(seq 1 100); do
    left=$(sql "SELECT count(*) FROM zkpipe_jobs WHERE request_id LIKE 'bad-%' AND state <> 'failed'")
    [ "$left" -eq 0 ] && break
    sleep 0.1
done
bad_rows=$(sql "SELECT request_id || ': ' || attempts || ' attempt(s), ' || last_error FROM zkpipe_jobs
                WHERE request_id LIKE 'bad-%' ORDER BY request_id")
echo "$bad_rows"
n_ok=$(sql "SELECT count(*) FROM zkpipe_jobs WHERE request_id LIKE 'bad-%' AND state = 'failed'
            AND attempts = 1 AND last_error <> ''")
alive=0
for i in 0 1 2; do kill -0 "${DPID[$i]}" 2>/dev/null && alive=$((alive + 1)); done
[ "$n_ok" -eq 4 ] && [ "$alive" -eq 3 ] &&
    ok "4 malformed rows (bad frame, foreign path, key disagreeing with the inputs, unknown version) failed at once with a message; every member still up" ||
    fail "malformed rows: $n_ok of 4 failed at once, $alive members up"
sql "DELETE FROM zkpipe_jobs WHERE request_id LIKE 'bad-%'" >/dev/null

# ---------------------------------------------------------------------------
# 1c. Filecoin PoRep C2 through the queue: two sealed 2 KiB sectors and a
# C1 with one label byte changed, each sent to another member on cuzk.v1
# Prove as Curio sends it.

N_POREP_BAD=0
if [ "$POREP" != 0 ]; then
    N_POREP_BAD=1
    t_porep=$(date +%s.%N)
    H1=$(printf '%064x' 1)
    H2=$(printf '%064x' 2)
    for s in 21 22; do
        mkdir -p "$WORK/sector$s"
        head -c 2048 /dev/urandom | tr '\100-\177\200-\277\300-\377' '\000-\077\000-\077\000-\077' \
            >"$WORK/sector$s/data"
        "$ZKPIPE" filecoin seal --sector-size 2KiB --data "$WORK/sector$s/data" --prover-id "$H1" \
            --sector-id $s --ticket "$H1" --seed "$H2" --out "$WORK/sector$s" >/dev/null ||
            die "filecoin seal of sector $s"
    done
    # The first byte of c_x's first row: a label the circuit recomputes from
    # its parents, refused as the C1's fault before any proving.
    perl -0pe 's/"rows":\[\[(\d+)/"\"rows\":[[" . ($1 == 7 ? 8 : 7)/e' "$WORK/sector21/c1.json" \
        >"$WORK/bad_c1.json"
    cmp -s "$WORK/bad_c1.json" "$WORK/sector21/c1.json" && die "the label was not changed"
    envelope() { printf '{"SectorNum":%s,"Phase1Out":"%s","SectorSize":2048}' "$1" "$(base64 -w0 <"$2")"; }
    envelope 21 "$WORK/sector21/c1.json" >"$WORK/sector21/envelope.json"
    envelope 22 "$WORK/sector22/c1.json" >"$WORK/sector22/envelope.json"
    envelope 21 "$WORK/bad_c1.json" >"$WORK/bad_envelope.json"
    completed_by() {
        local i
        for i in 0 1 2; do
            "$ZKPIPE" client --addr "unix://$WORK/d$i.sock" metrics |
                awk '/^zkpipe_cluster_results_total\{outcome="completed"\}/ { printf "%s ", $2 }'
        done
    }
    read -r -a before <<<"$(completed_by)"
    # Sector 21 to member 0, sector 22 to member 1, the bad C1 to member 2
    # (by way of the shared directory: its envelope is over 1 KiB).
    porep_client() {
        "$ZKPIPE" client --addr "unix://$WORK/d$1.sock" prove-proof porep_seal_commit "$2" "$3" \
            --registered-proof 5 --request-id "$4" >"$3.log" 2>&1
    }
    porep_client 0 "$WORK/sector21/envelope.json" "$WORK/sector21/proof.bin" porep-21 &
    pa=$!
    # No member has the 2 KiB parameters yet, so none claims the job: one
    # that did would fail it and spend an attempt. Once they are there,
    # every member's next look finds it.
    sleep 2
    early=$(sql "SELECT state || ',' || attempts || ',' || coalesce(key, '') FROM zkpipe_jobs
                 WHERE request_id = 'porep-21'")
    [ "$early" = "queued,0,porep-2KiB" ] &&
        ok "a PoRep job waits, unclaimed, while no member has its parameters (key porep-2KiB)" ||
        fail "a PoRep job before any member had its parameters: $early (want queued,0,porep-2KiB)"
    "$ZKPIPE" setup dev --filecoin porep --sector-size 2KiB --out "$FILP" --seed "$H2" --threads 2 \
        --quiet 2>"$WORK/setup.log" || die "setup dev --filecoin porep: $(cat "$WORK/setup.log")"
    t_prove=$(date +%s.%N)
    porep_client 1 "$WORK/sector22/envelope.json" "$WORK/sector22/proof.bin" porep-22 &
    pb=$!
    porep_client 2 "$WORK/bad_envelope.json" "$WORK/bad_proof.bin" porep-bad &
    pc=$!
    rca=0 rcb=0 rcc=0
    wait $pa || rca=$?
    wait $pb || rcb=$?
    wait $pc || rcc=$?
    t_proved=$(date +%s.%N)
    read -r -a after <<<"$(completed_by)"
    by=""
    for i in 0 1 2; do
        n=$((${after[$i]:-0} - ${before[$i]:-0}))
        [ "$n" -gt 0 ] && by="${by:+$by, }member $i ($n)"
    done
    sql "SELECT request_id || ': ' || state || ', ' || attempts || ' attempt(s)' ||
                coalesce(', ' || last_error, '') FROM zkpipe_jobs
         WHERE request_id LIKE 'porep-%' ORDER BY request_id"
    good=0
    for s in 21 22; do
        [ "$s" = 21 ] && rc=$rca || rc=$rcb
        [ "$rc" -eq 0 ] && grep -q "^job cluster-[0-9]*: completed" "$WORK/sector$s/proof.bin.log" &&
            [ "$(wc -c <"$WORK/sector$s/proof.bin")" -eq 192 ] &&
            "$ZKPIPE" filecoin verify "$WORK/sector$s/c1.json" "$WORK/sector$s/proof.bin" \
                --params "$FILP" >/dev/null 2>&1 && good=$((good + 1))
    done
    row=$(sql "SELECT count(*) FILTER (WHERE state = 'done' AND kind = 'porep_seal_commit' AND attempts = 1),
               count(*) FILTER (WHERE request_id = 'porep-bad' AND state = 'failed' AND attempts = 1
                                AND last_error LIKE 'the engine refused the C1: %vanilla_proofs[0][0]%')
               FROM zkpipe_jobs WHERE request_id LIKE 'porep-%'")
    IFS='|' read -r pdone pbad <<<"$row"
    [ "$good" -eq 2 ] && [ "$pdone" -eq 2 ] &&
        ok "2 PoRep C2 jobs (StackedDrg2KiBV1_1) sent to members 0 and 1, each proved once (by $by): each client got a 192-byte proof that filecoin verify accepts" ||
        fail "PoRep: $good of 2 clients got a proof that verifies (rc $rca, $rcb), $pdone of 2 rows done; $(cat "$WORK"/sector2[12]/proof.bin.log)"
    [ "$rcc" -ne 0 ] && [ "$pbad" -eq 1 ] && [ ! -e "$WORK/bad_proof.bin" ] &&
        grep -q "^job cluster-[0-9]*: failed: the engine refused the C1: .*vanilla_proofs\[0\]\[0\]" \
            "$WORK/bad_proof.bin.log" &&
        ok "a C1 with one label changed failed once, not retried, its client answered: $(head -n 1 "$WORK/bad_proof.bin.log")" ||
        fail "the bad C1: rc $rcc, $pbad of 1 row failed once with the reason; $(cat "$WORK/bad_proof.bin.log")"
    echo "$(awk -v a="$t_porep" -v b="$t_prove" -v c="$t_proved" \
        'BEGIN { printf "PoRep part: %.1f s (parameters and sealing %.1f s, proving %.1f s)", c - a, b - a, c - b }')"
fi

# ---------------------------------------------------------------------------
# 2. A member kill -9'd while it holds a lease, its jobs taken over

# hold_lease <i>: pauses member i at a moment it holds a lease (0 if it does).
hold_lease() {
    local i=$1 t held
    for t in $(seq 1 400); do
        kill -STOP "${DPID[$i]}"
        held=$(sql "SELECT count(*) FROM zkpipe_jobs WHERE state = 'leased'
                    AND lease_owner LIKE '%-${DPID[$i]}-%'")
        [ "$held" -gt 0 ] && return 0
        kill -CONT "${DPID[$i]}"
        sleep 0.02
    done
    return 1
}
# only_member0 <first> <last>: with members 1 and 2 paused, the jobs go to
# member 0 and it claims them; returns once member 0 is paused holding a
# lease, and members 1 and 2 run again. The clients (in $CLIENTS) move to
# another member when theirs dies.
only_member0() {
    kill -STOP "${DPID[1]}" "${DPID[2]}"
    (seq "$1" "$2" | xargs -P 8 -I{} bash -c 'prove_retry {} 0 || true') &
    CLIENTS=$!
    local r=0
    hold_lease 0 || r=1
    kill -CONT "${DPID[1]}" "${DPID[2]}"
    return $r
}
# Twice, as a member that crashes may crash again after its restart.
K1=$((JOBS - 1))
for round in 1 2; do
K0=$((K1 + 1))
K1=$((K0 + 29))
if only_member0 $K0 $K1; then
    victim=${DPID[0]}
    held=$(sql "SELECT string_agg(id::text, ',') FROM zkpipe_jobs WHERE state = 'leased'
                AND lease_owner LIKE '%-$victim-%'")
    kill -KILL "$victim"
    wait "$victim" 2>/dev/null || true
    ok "round $round: member 0 (pid $victim) kill -9'd holding job(s) $held"
    start_member 0
    wait_ready 0 || fail "member 0 did not start again"
else
    fail "member 0 never held a lease"
    held=""
fi
wait $CLIENTS || true
bad=$(verify_all $K0 $K1)
[ "$bad" -eq 0 ] && ok "30 jobs with a member killed: every client got a proof that verifies" ||
    fail "$bad of 30 jobs without a verifying proof after the kill"
if [ -n "$held" ]; then
    row=$(sql "SELECT count(*) FILTER (WHERE state = 'done' AND attempts > 1
                                       AND last_error LIKE 'the lease of %'),
               count(*) FILTER (WHERE state = 'done') FROM zkpipe_jobs WHERE id IN ($held)")
    IFS='|' read -r taken donek <<<"$row"
    n=$(echo "$held" | tr ',' '\n' | wc -l)
    [ "$taken" -eq "$n" ] && ok "the killed member's $n job(s) were taken over and completed" ||
        fail "of the killed member's $n job(s), $taken taken over, $donek done"
fi
done

# ---------------------------------------------------------------------------
# 3. Fencing: a paused member's late result is refused

# The clients wait on member 0 itself: once resumed, it answers them with
# the proofs the others wrote.
F0=$((K1 + 1))
F1=$((F0 + 9))
if only_member0 $F0 $F1; then
    paused=${DPID[0]}
    held=$(sql "SELECT string_agg(id::text, ',') FROM zkpipe_jobs WHERE state = 'leased'
                AND lease_owner LIKE '%-$paused-%'")
    # Past the lease, and until another member has finished the jobs.
    for t in $(seq 1 300); do
        left=$(sql "SELECT count(*) FROM zkpipe_jobs WHERE id IN ($held) AND state <> 'done'")
        [ "$left" -eq 0 ] && break
        sleep 0.1
    done
    before=$(grep -c "was refused" "${DLOG[0]}" || true)
    kill -CONT "$paused"
    for t in $(seq 1 100); do
        after=$(grep -c "was refused" "${DLOG[0]}" || true)
        [ "$after" -gt "$before" ] && break
        sleep 0.1
    done
    [ "$left" -eq 0 ] && [ "$after" -gt "$before" ] &&
        ok "a member paused past its lease on job(s) $held: the others completed them, its own write was refused" ||
        fail "fencing: $left of job(s) $held unfinished, $((after - before)) refused writes"
else
    fail "member 0 never held a lease to pause"
fi
wait $CLIENTS || true
bad=$(verify_all $F0 $F1)
[ "$bad" -eq 0 ] && ok "10 jobs around the pause: every client got a proof that verifies" ||
    fail "$bad of 10 jobs without a verifying proof around the pause"

# ---------------------------------------------------------------------------
# 4. PostgreSQL restarted under load

R0=$((F1 + 1))
R1=$((R0 + 29))
(seq $R0 $R1 | xargs -P 8 -I{} bash -c 'prove_retry {} $(( {} % 3 )) || true') &
CLIENTS=$!
sleep 1
if bash "$HERE/cluster_pg.sh" restart "$STATE"; then
    ok "PostgreSQL restarted under load"
else
    fail "PostgreSQL did not restart"
fi
wait $CLIENTS || true
bad=$(verify_all $R0 $R1)
[ "$bad" -eq 0 ] && ok "30 jobs across the restart: every client got a proof that verifies" ||
    fail "$bad of 30 jobs without a verifying proof across the restart"
row=$(sql "SELECT count(*), count(*) FILTER (WHERE state = 'done') FROM zkpipe_jobs
           WHERE request_id ~ '^job-[0-9]+$' AND substring(request_id from 5)::int BETWEEN $R0 AND $R1")
IFS='|' read -r n done <<<"$row"
# The members saw it: their connections broke and were made again.
seen=$(cat "${DLOG[0]}" "${DLOG[1]}" "${DLOG[2]}" | grep -c "cluster: .*\(watcher\|again in a second\)" || true)
[ "$seen" -gt 0 ] && ok "the members noticed the restart ($seen lost connections logged) and carried on" ||
    fail "no member noticed the restart"
[ "$n" -eq 30 ] && [ "$done" -eq 30 ] && ok "the restart lost no job and made none twice (30 rows, 30 done)" ||
    fail "across the restart: $n rows, $done done (want 30 and 30)"

# ---------------------------------------------------------------------------
# Counts, and a clean stop

row=$(sql "SELECT count(*), count(*) FILTER (WHERE state = 'done'), count(*) FILTER (WHERE attempts > 1),
           count(*) FILTER (WHERE last_error LIKE 'the lease of %'), count(*) FILTER (WHERE state = 'failed')
           FROM zkpipe_jobs")
IFS='|' read -r n done retried taken failedn <<<"$row"
N_FAIL=$((N_CUZK + N_POREP_BAD))
echo "counts: submitted $n, completed $done, retried $retried, taken over $taken, failed $failedn ($N_CUZK of them cuzk.v1 jobs of a kind this zkpipe cannot prove, $N_POREP_BAD a PoRep C1 that does not verify)"
[ "$done" -eq $((n - N_FAIL)) ] && [ "$failedn" -eq "$N_FAIL" ] &&
    ok "no job lost, none failed but the $N_FAIL expected to" ||
    fail "$((n - done)) jobs not completed ($failedn failed, $N_FAIL of them expected)"
for i in 0 1 2; do kill -TERM "${DPID[$i]}"; done
for i in 0 1 2; do
    rc=0
    wait "${DPID[$i]}" || rc=$?
    [ $rc -eq 0 ] || fail "member $i exited $rc on SIGTERM"
done
ok "members drained and exited"
# A sanitizer build's reports, from every run of every member (a killed
# one's too: it reported before it died, or not at all).
reports=$(cat "$WORK"/d*.log | grep -c "ERROR: \(Address\|Leak\|Thread\)Sanitizer\|WARNING: ThreadSanitizer\|runtime error:" || true)
[ "$reports" -eq 0 ] && ok "no sanitizer report in any member's log" || fail "$reports sanitizer reports in the members' logs"
echo "cluster_daemons: $passes passed, $failures failed"
[ $failures -eq 0 ]
