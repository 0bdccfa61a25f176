#!/usr/bin/env bash
# Cluster mode's scaling and its cost per job: the same jobs through one
# standalone daemon (no queue.url) and through 1, 2, 4 ... members of a
# cluster on one PostgreSQL, all on this machine.
#
# usage: bench/cluster.sh
#   MEMBERS="1 2 4"   member counts to measure
#   CIRCUIT=bn254:18  the workload: `zkpipe bench synthetic` circuit (curve:log2 rows), one
#                     partition per job, large enough that proving dominates
#   JOBS=48           jobs per throughput run (with the defaults on the CPU, the first run
#                     of the four configurations did not finish within 200 s on 16 cores:
#                     allow well over 10 minutes for RUNS=3, or use a smaller CIRCUIT)
#   LAT_JOBS=10       jobs of the latency runs (one client, one job at a time)
#   RUNS=3            runs per configuration (medians reported)
#   THREADS=N         engine.device_threads of every daemon (default: CPUs / the largest
#                     member count, so that N members use N times the cores of one, and
#                     the standalone daemon, the anchor, has what one member has)
#   CLIENTS=N         concurrent clients of the throughput runs (default 4 x the largest
#                     member count: enough to keep every member's claims busy)
#   BUDGET=4GiB       engine.budget of every daemon
#   DEVICE=cpu        engine.device of every daemon (default cpu: on a machine with one GPU,
#                     members sharing it would measure its contention, not the queue)
#   PGURL=conninfo    a PostgreSQL to use (its schema "zkpipe_bench" is made and dropped);
#                     default: one started by tests/cluster_pg.sh, on a unix socket,
#                     fsync off (what the tests use: the queue's statements, not the disk)
#   ZKPIPE=path       default build/release/zkpipe
#   JSON=file         also write the summary as one JSON object
#
# The members and the standalone daemon prove with engine.verify on (every
# proof is checked before it is answered), and each client checks that it
# got a proof. Prints the machine, then per configuration: the median wall
# time of JOBS jobs, jobs/s, the ratio to the standalone daemon's jobs/s
# measured in the same run, and the largest peak RSS of its daemons; then
# the latency of one job at a time, standalone and through one member, and
# their difference: what the queue adds per job (an insert, a NOTIFY, a
# claim, a result write and the waiter's wake-up); then the same through a
# member that puts every job's inputs in a shared directory, which shows the
# part of that cost that is carrying the witness through the database.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
ZKPIPE=${ZKPIPE:-$ROOT/build/release/zkpipe}
MEMBERS=${MEMBERS:-1 2 4}
CIRCUIT=${CIRCUIT:-bn254:18}
JOBS=${JOBS:-48}
LAT_JOBS=${LAT_JOBS:-10}
RUNS=${RUNS:-3}
BUDGET=${BUDGET:-4GiB}
DEVICE=${DEVICE:-cpu}
max_m=1
for m in $MEMBERS; do [ "$m" -gt "$max_m" ] && max_m=$m; done
THREADS=${THREADS:-$(($(nproc) / max_m > 0 ? $(nproc) / max_m : 1))}
CLIENTS=${CLIENTS:-$((4 * max_m))}
[ -x "$ZKPIPE" ] || { echo "no zkpipe at $ZKPIPE; build first (make build) or set ZKPIPE" >&2; exit 1; }

WORK=$(mktemp -d "${TMPDIR:-/tmp}/zkpipe-bench-cluster.XXXXXX")
chmod 755 "$WORK"
DPIDS=()
OWN_STATE=""
SCHEMA=zkpipe_bench
cleanup() {
    local p
    for p in "${DPIDS[@]}"; do kill -KILL "$p" 2>/dev/null || true; done
    [ -n "${BASE_URL:-}" ] && psql -qX "$BASE_URL" -c "DROP SCHEMA IF EXISTS $SCHEMA CASCADE" \
        >/dev/null 2>&1 || true
    [ -n "$OWN_STATE" ] && bash "$ROOT/tests/cluster_pg.sh" stop "$OWN_STATE" || true
    rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

if [ -n "${PGURL:-}" ]; then
    BASE_URL=$PGURL
    pg_what="given ($PGURL)"
else
    OWN_STATE="$WORK/pg.state"
    bash "$ROOT/tests/cluster_pg.sh" start "$OWN_STATE" >/dev/null
    [ -f "$OWN_STATE" ] || { echo "no PostgreSQL: install Debian's postgresql or set PGURL" >&2; exit 1; }
    BASE_URL="host=$(head -n 1 "$OWN_STATE") user=postgres dbname=postgres"
    pg_what="local, unix socket, fsync off"
fi
psql -qX "$BASE_URL" -c "SET client_min_messages = warning" -c "DROP SCHEMA IF EXISTS $SCHEMA CASCADE" \
    -c "CREATE SCHEMA $SCHEMA" >/dev/null
URL="$BASE_URL options='-c search_path=$SCHEMA'"
"$ZKPIPE" queue migrate --url "$URL" >/dev/null
pg_version=$(psql -qAtX "$BASE_URL" -c "SHOW server_version")

"$ZKPIPE" bench synthetic "$CIRCUIT" "$WORK/w" --seed 7 >/dev/null 2>&1
ZKEY="$WORK/w/circuit.zkey"
WTNS="$WORK/w/witness_0.wtns"

# start_daemon <name> [--set k=v]...: one daemon on $WORK/<name>.sock.
start_daemon() {
    local name=$1 t
    shift
    "$ZKPIPE" serve --no-env --listen "unix://$WORK/$name.sock" --set server.keys="k=$ZKEY" \
        --set engine.budget="$BUDGET" --set engine.device="$DEVICE" \
        --set engine.device_threads="$THREADS" \
        --set engine.synthesis_workers=1 --set engine.finalize_workers=1 "$@" \
        >"$WORK/$name.log" 2>&1 &
    local pid=$!
    DPIDS+=("$pid")
    for t in $(seq 1 600); do
        grep -q "ready (pid $pid)" "$WORK/$name.log" 2>/dev/null && return 0
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.1
    done
    cat "$WORK/$name.log" >&2
    echo "daemon $name did not start" >&2
    exit 1
}
# stop_daemons: SIGTERM to each, and its peak RSS (KiB, the largest) in $PEAK_KIB.
stop_daemons() {
    local p k
    PEAK_KIB=0
    for p in "${DPIDS[@]}"; do
        k=$(awk '/^VmHWM:/ { print $2 }' "/proc/$p/status" 2>/dev/null || echo 0)
        [ "${k:-0}" -gt "$PEAK_KIB" ] && PEAK_KIB=$k
        kill -TERM "$p" 2>/dev/null || true
    done
    for p in "${DPIDS[@]}"; do wait "$p" 2>/dev/null || true; done
    DPIDS=()
}

# prove_one <socket name> <request id>: one job, its proof checked for presence.
prove_one() {
    local dir="$WORK/out/$2"
    mkdir -p "$dir"
    "$ZKPIPE" client --addr "unix://$WORK/$1.sock" prove k "$WTNS" "$dir/proof.json" \
        "$dir/public.json" --request-id "$2" >"$dir/client.log" 2>&1 &&
        [ -s "$dir/proof.json" ] || { cat "$dir/client.log" >&2; return 1; }
}
export -f prove_one
export ZKPIPE WORK WTNS

now() { date +%s.%N; }
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# throughput <label> <n sockets> <prefix>: JOBS jobs from CLIENTS clients,
# spread over the sockets <prefix>0 .. <prefix>n-1; prints the wall seconds.
throughput() {
    local label=$1 n=$2 prefix=$3 t0 t1
    rm -rf "$WORK/out"
    t0=$(now)
    seq 0 $((JOBS - 1)) | xargs -P "$CLIENTS" -I{} bash -c \
        "prove_one $prefix\$(({} % $n)) $label-{}" || { echo "$label: a job failed" >&2; exit 1; }
    t1=$(now)
    awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f\n", b - a }'
}
# latency <socket name> <label>: the median wall time of one job at a time (ms).
latency() {
    local j t0 t1
    rm -rf "$WORK/out"
    for j in $(seq 1 "$LAT_JOBS"); do
        t0=$(now)
        prove_one "$1" "$2-$j" || { echo "$2: a job failed" >&2; exit 1; }
        t1=$(now)
        awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f\n", 1000 * (b - a) }'
    done | median
}
clear_queue() { psql -qAtX "$URL" -c "DELETE FROM zkpipe_jobs" >/dev/null; }

echo "machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) CPUs," \
    "$(awk '/MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo);" \
    "load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "PostgreSQL $pg_version ($pg_what); $("$ZKPIPE" --version | head -n 1)"
echo "workload: $CIRCUIT synthetic, one partition per job; $JOBS jobs from $CLIENTS clients;" \
    "engine.device=$DEVICE, engine.device_threads=$THREADS per daemon; medians of $RUNS runs"

# The anchor first, then each member count; every run is a fresh set of
# daemons, so that no configuration inherits another's hot key or warm
# allocator.
declare -A WALL RSS
configs=(standalone)
for m in $MEMBERS; do configs+=("m$m"); done
for c in "${configs[@]}"; do : >"$WORK/wall.$c"; RSS[$c]=0; done
for r in $(seq 1 "$RUNS"); do
    for c in "${configs[@]}"; do
        if [ "$c" = standalone ]; then
            start_daemon s0
            n=1
        else
            n=${c#m}
            for i in $(seq 0 $((n - 1))); do
                start_daemon "$c-$i" --set queue.url="$URL"
            done
        fi
        prefix=$([ "$c" = standalone ] && echo s || echo "$c-")
        throughput "r$r-$c" "$n" "$prefix" >>"$WORK/wall.$c"
        # Each run as it ends, on stderr: a run stopped early still shows
        # what it measured.
        echo "run $r, $c: $(tail -n 1 "$WORK/wall.$c") s for $JOBS jobs" >&2
        stop_daemons
        [ "$PEAK_KIB" -gt "${RSS[$c]}" ] && RSS[$c]=$PEAK_KIB
        clear_queue
    done
done
base_wall=$(median <"$WORK/wall.standalone")
printf '%-12s %9s %9s %9s %9s\n' config "wall s" "jobs/s" "ratio" "rss MiB"
json_rows=""
for c in "${configs[@]}"; do
    WALL[$c]=$(median <"$WORK/wall.$c")
    row=$(awk -v c="$c" -v w="${WALL[$c]}" -v b="$base_wall" -v n="$JOBS" -v k="${RSS[$c]}" \
        'BEGIN { printf "%-12s %9.2f %9.2f %9.2f %9.1f", c, w, n / w, b / w, k / 1024 }')
    echo "$row"
    json_rows+=$(awk -v c="$c" -v w="${WALL[$c]}" -v b="$base_wall" -v n="$JOBS" -v k="${RSS[$c]}" \
        'BEGIN { printf "{\"config\": \"%s\", \"wall_s\": %.3f, \"jobs_per_s\": %.3f, \"ratio\": %.3f, \"peak_rss_mib\": %.1f},", c, w, n / w, b / w, k / 1024 }')
done

# One job at a time: standalone, then through one member with the inputs in
# the database, then through one member with the inputs in a shared
# directory (queue.inline_max = 0), which tells what carrying the witness
# through the database costs.
lat_claim() {
    # The wait from the enqueue to the claim, the database's clock. The
    # enqueue's now() is its statement's start, so this includes the
    # insert of the inputs.
    psql -qAtX "$URL" -c "SELECT 1000 * percentile_cont(0.5) WITHIN GROUP
        (ORDER BY extract(epoch FROM claimed_at - created_at)) FROM zkpipe_jobs"
}
for f in standalone m1 claim m1dir claimdir; do : >"$WORK/lat.$f"; done
mkdir -p "$WORK/shared"
for r in $(seq 1 "$RUNS"); do
    start_daemon s0
    latency s0 "lat$r-s" >>"$WORK/lat.standalone"
    stop_daemons
    start_daemon l0 --set queue.url="$URL"
    latency l0 "lat$r-m" >>"$WORK/lat.m1"
    stop_daemons
    lat_claim >>"$WORK/lat.claim"
    clear_queue
    start_daemon l1 --set queue.url="$URL" --set queue.inputs_dir="$WORK/shared" \
        --set queue.inline_max=0
    latency l1 "lat$r-d" >>"$WORK/lat.m1dir"
    stop_daemons
    lat_claim >>"$WORK/lat.claimdir"
    clear_queue
done
lat_s=$(median <"$WORK/lat.standalone")
lat_m=$(median <"$WORK/lat.m1")
lat_c=$(median <"$WORK/lat.claim")
lat_md=$(median <"$WORK/lat.m1dir")
lat_cd=$(median <"$WORK/lat.claimdir")
awk -v s="$lat_s" -v m="$lat_m" -v c="$lat_c" -v md="$lat_md" -v cd="$lat_cd" \
    -v w="$(stat -c %s "$WTNS")" 'BEGIN {
    printf "one job at a time: standalone %.1f ms, one member %.1f ms: the queue adds %.1f ms per job (%.2fx);\n", s, m, m - s, m / s
    printf "  of which %.1f ms from the enqueue to the claim (the insert of the %.1f MiB witness included)\n", c, w / 1048576
    printf "with the inputs in a shared directory: one member %.1f ms, the queue adds %.1f ms per job;\n", md, md - s
    printf "  of which %.1f ms from the enqueue to the claim\n", cd }'

if [ -n "${JSON:-}" ]; then
    cat >"$JSON" <<EOF
{"machine": "$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')", "cpus": $(nproc),
 "postgresql": "$pg_version", "circuit": "$CIRCUIT", "jobs": $JOBS, "clients": $CLIENTS,
 "device": "$DEVICE", "device_threads": $THREADS, "runs": $RUNS,
 "throughput": [${json_rows%,}],
 "latency_ms": {"standalone": $lat_s, "one_member": $lat_m, "enqueue_to_claim": $lat_c,
                "one_member_shared_dir": $lat_md, "enqueue_to_claim_shared_dir": $lat_cd}}
EOF
fi
