#!/usr/bin/env bash
# `zkpipe serve` end to end, driven by grpc-go (Curio's gRPC stack):
#   - tests/daemon/interop (Go) checks concurrent proofs on both curves, a
#     50 MB request accepted and a 300 MB one refused, malformed requests,
#     a client disconnecting mid-proof, duplicate request ids, GetStatus
#     latency under load and the Prometheus text and status JSON;
#   - GetStatus stays fast while large requests upload, and the daemon's
#     RSS comes back after a large request is cancelled (a daemon of its own);
#   - snarkjs and `zkpipe verify` accept every proof it wrote;
#   - SIGTERM drains: calls in flight complete, new work is refused, the
#     daemon exits 0 and removes its socket;
#   - the socket has mode 0660, a second daemon refuses a live socket, and a
#     stale one left by a killed daemon is cleaned up by the next start;
#   - TCP with TLS (certificates made here by tests/make_test_certs.sh),
#     client certificates and a bearer token, through `zkpipe client`, and
#     the rule for listening beyond loopback.
#
# usage: daemon.sh <path to the zkpipe binary>
# Needs go, protoc, protoc-gen-go-grpc and Debian's grpc-go sources (make
# deps), snarkjs (make js-deps) and the openssl command line. The Go
# program builds in GOPATH mode: no module downloads. Environment:
#   ZKPIPE_TEST_STATUS_MAX_MS  bound on GetStatus latency under load (100)
#   ZKPIPE_TEST_UPLOADS        NxMB: concurrent uploads beside GetStatus (4x8;
#                              10x50 is the full check, with a 2000-witness
#                              request for the RSS check)
#   ZKPIPE_TEST_GOPATH         Go sources to build against (/usr/share/gocode)
set -euo pipefail

T_START=$(date +%s)
[ $# -eq 1 ] || { echo "usage: $0 <path to the zkpipe binary>" >&2; exit 2; }
ZKPIPE=$(realpath "$1")
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/.." && pwd)
FIX="$HERE/fixtures"
SNARKJS="$FIX/node_modules/.bin/snarkjs"

missing=""
for tool in go protoc protoc-gen-go-grpc openssl; do
    command -v "$tool" >/dev/null 2>&1 || missing="$missing $tool"
done
if [ -n "$missing" ]; then
    echo "daemon: missing:$missing; run 'make deps'" >&2
    exit 1
fi
if [ ! -x "$SNARKJS" ]; then
    echo "daemon: snarkjs is not installed; run 'make js-deps'" >&2
    exit 1
fi

WORK=$(mktemp -d "${TMPDIR:-/tmp}/zkpipe-daemon.XXXXXX")
BG_PIDS=() # daemons and Go clients started here, killed on the way out
cleanup() {
    local p
    for p in "${BG_PIDS[@]}"; do kill -KILL "$p" 2>/dev/null || true; done
    rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# A TSan build of the daemon reports races inside the uninstrumented gRPC
# libraries unless told not to (tests/tsan.supp says why); make test-tsan
# passes the file, a bare ctest run gets it here. Races in zkpipe's own
# frames still fail the run (exit status 66). Other builds ignore this.
case "${TSAN_OPTIONS:-}" in
*suppressions=*) ;;
*) export TSAN_OPTIONS="suppressions=$HERE/tsan.supp${TSAN_OPTIONS:+ $TSAN_OPTIONS}" ;;
esac

passes=0
failures=0
fail() { echo "FAIL $*" >&2; failures=$((failures + 1)); }
ok() { echo "PASS $*"; passes=$((passes + 1)); }
die() { fail "$*"; summary; exit 1; }
# Where the time goes, for the summary: phase <name> closes the phase
# running since the last call.
PHASES=""
T_PHASE=$(date +%s)
phase() {
    local now
    now=$(date +%s)
    PHASES="$PHASES $1 $((now - T_PHASE))s,"
    T_PHASE=$now
}
summary() {
    echo "daemon: $passes passed, $failures failed in $(($(date +%s) - T_START)) s:${PHASES%,}"
}

# ---------------------------------------------------------------------------
# The Go program

. "$HERE/go_interop.sh"
go_interop_build "$WORK" "$ZKPIPE" || die "cannot build the Go client (above)"
GEN_GO=$GO_INTEROP_GEN
phase "Go build"
ok "Go client built with grpc-go $(sed -n 's/^const Version = "\(.*\)"/\1/p' \
    "$(go list -f '{{.Dir}}' google.golang.org/grpc)/version.go") ($GEN_GO)"

# ---------------------------------------------------------------------------
# Daemons

RUN="$WORK/run"          # the runtime directory; the daemon creates it
mkdir -p "$WORK/keys"    # keys of the later checks; server.key_dirs names it
SOCK="$RUN/zkpipe.sock"  # its default socket
# Small enough that partitions wait for admission (a poseidon partition
# takes about 0.5 MB, its key about 1 MB), large enough for both keys, a
# few partitions at once and the requests held for the jobs: a 256-witness
# request is 8 MB, and the 50 MB one is charged twice while it is decoded.
BUDGET=192MiB
HTTP_PORT=$("$WORK/interop" -mode=freeport) || die "no free TCP port"

DPID=""
# start_daemon <log> [--set k=v]...: starts one in the background as $DPID.
start_daemon() {
    local log=$1
    shift
    "$ZKPIPE" serve --no-env --set server.runtime_dir="$RUN" --set engine.budget=$BUDGET \
        --set server.drain_timeout_ms=600000 --set server.key_dirs="$FIX,$WORK/keys" "$@" >"$log" 2>&1 &
    DPID=$!
    BG_PIDS+=("$DPID")
}

# wait_ready <pid> <log>: until the daemon logs that it is serving.
wait_ready() {
    local i
    for ((i = 0; i < 1200; i++)); do
        grep -q "ready (pid $1)" "$2" 2>/dev/null && return 0
        kill -0 "$1" 2>/dev/null || { echo "daemon $1 exited at start:" >&2; cat "$2" >&2; return 1; }
        sleep 0.1
    done
    echo "daemon $1 not ready after 120 s" >&2
    return 1
}

# wait_exit <pid> <seconds>: the daemon's exit status, or 124 when it lives on.
wait_exit() {
    local i
    for ((i = 0; i < $2 * 10; i++)); do
        if ! kill -0 "$1" 2>/dev/null; then
            local rc=0
            wait "$1" || rc=$?
            return $rc
        fi
        sleep 0.1
    done
    return 124
}

# show_log <log>: a sanitizer's first report, else the last lines.
show_log() {
    echo "--- $(basename "$1")"
    if grep -q -E '^==[0-9]+==ERROR|^WARNING: ThreadSanitizer|runtime error:' "$1"; then
        awk '/^==[0-9]+==ERROR|^WARNING: ThreadSanitizer|runtime error:/ { on = 1 }
             on && n++ < 80 { print } on && /^SUMMARY:/ { exit }' "$1"
        echo "every report:"
        grep -E '^SUMMARY: |runtime error:' "$1" | sort | uniq -c
    else
        tail -n 20 "$1"
    fi
}

answers() { "$ZKPIPE" client --addr "unix://$SOCK" --timeout-ms 30000 status >/dev/null 2>&1; }

start_daemon "$WORK/d1.log" --set metrics.http="127.0.0.1:$HTTP_PORT"
D1=$DPID
wait_ready "$D1" "$WORK/d1.log" || die "the daemon did not start"
[ -S "$SOCK" ] && ok "socket at the default path <runtime_dir>/zkpipe.sock" || fail "no socket at $SOCK"
mode=$(stat -c %a "$SOCK")
[ "$mode" = 660 ] && ok "socket mode 0660" || fail "socket mode $mode, expected 660"
mode=$(stat -c %a "$RUN")
[ "$mode" = 750 ] && ok "runtime directory created with mode 0750" || fail "runtime directory mode $mode, expected 750"

# A second daemon must leave a live socket alone.
rc=0
timeout 60 "$ZKPIPE" serve --no-env --set server.runtime_dir="$RUN" >"$WORK/d1b.log" 2>&1 || rc=$?
if [ "$rc" -ne 0 ] && [ "$rc" -ne 124 ] && grep -q "another daemon" "$WORK/d1b.log"; then
    ok "a second daemon on a live socket refuses to start (exit $rc): $(tail -n1 "$WORK/d1b.log")"
else
    fail "a second daemon on a live socket: exit $rc, expected a refusal naming the other daemon"
    cat "$WORK/d1b.log" >&2
fi
[ -S "$SOCK" ] && answers && ok "the first daemon still answers on its socket" ||
    fail "the first daemon no longer answers on its socket after the second tried it"

# TCP beyond loopback with neither TLS nor a token: refused unless
# server.allow_insecure_tcp says otherwise.
for addr in 0.0.0.0:0 "[::]:0"; do
    rc=0
    timeout 60 "$ZKPIPE" serve --no-env --listen "$addr" >"$WORK/tcp.log" 2>&1 || rc=$?
    if [ "$rc" -eq 1 ] && grep -qF "refusing to listen on $addr" "$WORK/tcp.log" &&
        grep -q "allow_insecure_tcp" "$WORK/tcp.log"; then
        ok "serve --listen $addr without TLS or a token is refused"
    else
        fail "serve --listen $addr: exit $rc, expected a refusal: $(tail -n 2 "$WORK/tcp.log")"
    fi
done

phase "start"

# ---------------------------------------------------------------------------
# TCP with TLS and a bearer token, certificates made here

CERTS="$WORK/certs"
bash "$HERE/make_test_certs.sh" "$CERTS" || die "cannot make the test certificates"
(umask 077 && od -An -tx1 -N24 /dev/urandom | tr -d ' \n' >"$CERTS/token" && echo >>"$CERTS/token")
TOKEN=$(cat "$CERTS/token")
CA=(--tls-ca "$CERTS/ca.pem")
CLIENT_CERT=(--tls-cert "$CERTS/client.pem" --tls-key "$CERTS/client.key")
TLS_SET=(--set server.tls_cert="$CERTS/server.pem" --set server.tls_key="$CERTS/server.key")

# expect_call <exit> <text in the output or ""> <what> <client args...>
expect_call() {
    local want=$1 says=$2 what=$3 rc=0
    shift 3
    "$ZKPIPE" client --timeout-ms 30000 "$@" status >"$WORK/call.out" 2>&1 || rc=$?
    if [ "$rc" -eq "$want" ] && { [ -z "$says" ] || grep -qF -- "$says" "$WORK/call.out"; }; then
        ok "$what (exit $rc)"
    else
        fail "$what: exit $rc, expected $want${says:+ and \"$says\"}: $(tail -n 2 "$WORK/call.out")"
    fi
}

# One daemon: TLS, client certificates from the test CA, the token; and its
# unix socket, which asks for none of them.
TLS_PORT=$("$WORK/interop" -mode=freeport) || die "no free TCP port"
TLS_ADDR="127.0.0.1:$TLS_PORT"
start_daemon "$WORK/tls.log" --set server.socket="$WORK/tls.sock" --set server.tcp="$TLS_ADDR" \
    "${TLS_SET[@]}" --set server.tls_client_ca="$CERTS/ca.pem" --set server.auth_token_file="$CERTS/token"
DT=$DPID
if wait_ready "$DT" "$WORK/tls.log"; then
    grep -q "listening on $TLS_ADDR (TLS, client certificates required, bearer token required)" \
        "$WORK/tls.log" && ok "the daemon logs what secures its TCP listener" ||
        fail "no log line naming TLS, client certificates and the token: $(grep listening "$WORK/tls.log")"
    expect_call 0 "" "TLS with the right CA, a client certificate and --token-file" \
        --addr "$TLS_ADDR" "${CA[@]}" "${CLIENT_CERT[@]}" --token-file "$CERTS/token"
    ZKPIPE_TOKEN=$TOKEN expect_call 0 "" "the token from \$ZKPIPE_TOKEN" \
        --addr "$TLS_ADDR" "${CA[@]}" "${CLIENT_CERT[@]}"
    expect_call 0 "" "--tls-server-name localhost, the certificate's other name" \
        --addr "$TLS_ADDR" "${CA[@]}" "${CLIENT_CERT[@]}" --token-file "$CERTS/token" --tls-server-name localhost
    expect_call 4 UNAVAILABLE "the daemon's certificate checked against another CA is refused" \
        --addr "$TLS_ADDR" --tls-ca "$CERTS/other-ca.pem" "${CLIENT_CERT[@]}" --token-file "$CERTS/token"
    expect_call 4 UNAVAILABLE "without a client certificate the handshake fails" \
        --addr "$TLS_ADDR" "${CA[@]}" --token-file "$CERTS/token"
    expect_call 4 UNAUTHENTICATED "without the token: UNAUTHENTICATED" \
        --addr "$TLS_ADDR" "${CA[@]}" "${CLIENT_CERT[@]}"
    ZKPIPE_TOKEN=not-the-token-0123456789 expect_call 4 UNAUTHENTICATED "a wrong token: UNAUTHENTICATED" \
        --addr "$TLS_ADDR" "${CA[@]}" "${CLIENT_CERT[@]}"
    expect_call 4 UNAVAILABLE "plaintext to the TLS listener fails" \
        --addr "$TLS_ADDR" --token-file "$CERTS/token"
    expect_call 0 "" "the unix socket asks for no token (its file mode is the check)" \
        --addr "unix://$WORK/tls.sock"
    cp "$CERTS/token" "$WORK/open-token" && chmod 644 "$WORK/open-token"
    expect_call 3 "every user may read it" "the client refuses a token file every user may read" \
        --addr "$TLS_ADDR" "${CA[@]}" "${CLIENT_CERT[@]}" --token-file "$WORK/open-token"
    expect_call 2 "go together" "--tls-cert without --tls-key is a usage error" \
        --addr "$TLS_ADDR" "${CA[@]}" --tls-cert "$CERTS/client.pem"
    # The same from grpc-go, Curio's stack.
    rc=0
    "$WORK/interop" -mode=tls -addr "$TLS_ADDR" -ca "$CERTS/ca.pem" -other-ca "$CERTS/other-ca.pem" \
        -cert "$CERTS/client.pem" -key "$CERTS/client.key" -token "$CERTS/token" >"$WORK/go_tls.out" 2>&1 || rc=$?
    cat "$WORK/go_tls.out"
    passes=$((passes + $(grep -c '^PASS ' "$WORK/go_tls.out" || true)))
    failures=$((failures + $(grep -c '^FAIL ' "$WORK/go_tls.out" || true)))
    if [ "$rc" -ne 0 ] && ! grep -q '^FAIL ' "$WORK/go_tls.out"; then fail "the Go TLS checks exited $rc"; fi
else
    fail "the daemon with TLS and a token did not start: $(tail -n 3 "$WORK/tls.log")"
fi
kill -TERM "$DT" 2>/dev/null || true
wait_exit "$DT" 120 || fail "the TLS daemon did not exit after SIGTERM"

# Beyond loopback: TLS alone, or the token alone, is enough to listen.
for how in tls token; do
    port=$("$WORK/interop" -mode=freeport) || die "no free TCP port"
    if [ "$how" = tls ]; then
        start_daemon "$WORK/wide-$how.log" --listen "0.0.0.0:$port" "${TLS_SET[@]}"
        good=("${CA[@]}")
    else
        start_daemon "$WORK/wide-$how.log" --listen "0.0.0.0:$port" --set server.auth_token_file="$CERTS/token"
        good=(--token-file "$CERTS/token")
    fi
    DW=$DPID
    if wait_ready "$DW" "$WORK/wide-$how.log"; then
        ok "serve --listen 0.0.0.0:$port with only $how starts"
        expect_call 0 "" "0.0.0.0 with only $how: a client with it is answered" --addr "127.0.0.1:$port" "${good[@]}"
        if [ "$how" = tls ]; then
            expect_call 4 UNAVAILABLE "0.0.0.0 with only TLS: a plaintext client is not" --addr "127.0.0.1:$port"
        else
            expect_call 4 UNAUTHENTICATED "0.0.0.0 with only a token: a client without it is not" \
                --addr "127.0.0.1:$port"
            grep -q "can be read off the network" "$WORK/wide-$how.log" &&
                ok "a token without TLS beyond loopback is warned about" ||
                fail "no warning about the token in clear text: $(grep -i warning "$WORK/wide-$how.log")"
        fi
    else
        fail "serve --listen 0.0.0.0:$port with only $how did not start"
    fi
    kill -TERM "$DW" 2>/dev/null || true
    wait_exit "$DW" 120 || fail "the daemon on 0.0.0.0 ($how) did not exit after SIGTERM"
done

# Settings checked at start, before the engine: each refusal says why.
# expect_refusal <what> <text> <serve args...>
expect_refusal() {
    local what=$1 says=$2 rc=0
    shift 2
    timeout 60 "$ZKPIPE" serve --no-env --listen 127.0.0.1:0 "$@" >"$WORK/refusal.log" 2>&1 || rc=$?
    if [ "$rc" -eq 1 ] && grep -qF -- "$says" "$WORK/refusal.log"; then
        ok "$what is refused: $(grep -F -- "$says" "$WORK/refusal.log" | head -n 1 | cut -c 1-160)"
    else
        fail "$what: exit $rc, expected 1 and \"$says\": $(tail -n 2 "$WORK/refusal.log")"
    fi
}
expect_refusal "a token file every user may read" "every user may read it" \
    --set server.auth_token_file="$WORK/open-token"
expect_refusal "a certificate without its key" "server.tls_cert and server.tls_key go together" \
    --set server.tls_cert="$CERTS/server.pem"
expect_refusal "client CAs without TLS" "server.tls_client_ca is set without TLS" \
    --set server.tls_client_ca="$CERTS/ca.pem"
expect_refusal "a missing certificate file" "server.tls_cert $WORK/nonexistent.pem: cannot open" \
    --set server.tls_cert="$WORK/nonexistent.pem" --set server.tls_key="$CERTS/server.key"
expect_refusal "a key that is not the certificate's" "is the key the certificate's?" \
    --set server.tls_cert="$CERTS/server.pem" --set server.tls_key="$CERTS/client.key"

phase "TLS and token"

# ---------------------------------------------------------------------------
# The Go checks

bound=${ZKPIPE_TEST_STATUS_MAX_MS:-100}
rc=0
"$WORK/interop" -mode=all -sock "$SOCK" -fixtures "$FIX" -out "$WORK/proofs" \
    -http "127.0.0.1:$HTTP_PORT" -status-max-ms "$bound" >"$WORK/go_all.out" 2>&1 || rc=$?
cat "$WORK/go_all.out"
passes=$((passes + $(grep -c '^PASS ' "$WORK/go_all.out" || true)))
failures=$((failures + $(grep -c '^FAIL ' "$WORK/go_all.out" || true)))
if [ "$rc" -ne 0 ] && ! grep -q '^FAIL ' "$WORK/go_all.out"; then fail "the Go checks exited $rc"; fi
if ! kill -0 "$D1" 2>/dev/null; then
    rc=0
    wait "$D1" || rc=$?
    fail "the daemon died during the Go checks (exit $rc; its log follows the summary)"
    # A fresh one for the drain and socket checks, which stand on their own.
    mv "$WORK/d1.log" "$WORK/d1-died.log"
    start_daemon "$WORK/d1.log"
    D1=$DPID
    wait_ready "$D1" "$WORK/d1.log" || die "the daemon did not start again"
fi

phase "Go checks"

# Every proof the clients wrote, through both verifiers.
verify_one() { # <fixture> <dir>
    "$SNARKJS" groth16 verify "$FIX/$1/verification_key.json" "$2/public.json" "$2/proof.json" 2>&1 |
        grep -q "OK!" || { echo "snarkjs rejects $2"; return 1; }
    [ "$("$ZKPIPE" verify "$FIX/$1/verification_key.json" "$2/public.json" "$2/proof.json")" = OK ] ||
        { echo "zkpipe verify rejects $2"; return 1; }
}
n=0
bad=0
pids=()
for d in "$WORK"/proofs/*/*/; do
    [ -d "$d" ] || continue
    f=$(basename "$(dirname "$d")")
    verify_one "$f" "${d%/}" >"$d/verify.out" 2>&1 &
    pids+=("$!")
    n=$((n + 1))
    # Two at a time: each snarkjs run is a node process of its own.
    if [ ${#pids[@]} -ge 2 ]; then
        wait "${pids[0]}" || bad=$((bad + 1))
        pids=("${pids[@]:1}")
    fi
done
for p in "${pids[@]}"; do wait "$p" || bad=$((bad + 1)); done
if [ "$n" -ge 12 ] && [ "$bad" -eq 0 ]; then
    ok "snarkjs and zkpipe verify accept all $n proofs from the daemon"
else
    fail "proofs from the daemon: $n written (expected 12), $bad rejected"
    cat "$WORK"/proofs/*/*/verify.out >&2 2>/dev/null || true
fi

phase "proof verification"

# ---------------------------------------------------------------------------
# Large requests: small calls stay fast while they upload, and their memory
# leaves with the job. A daemon of its own, with a budget that holds the
# uploads (each is charged to it while held). ZKPIPE_TEST_UPLOADS=10x50
# runs the full-size check (ten 50 MB uploads, a 2000-witness request;
# make test-daemon-uploads); the default is a scaled-down one (five rounds
# of four 8 MB uploads, a 500-witness request).

UPLOADS=${ZKPIPE_TEST_UPLOADS:-4x8}
n_up=${UPLOADS%x*}
mb_up=${UPLOADS#*x}
# The small load in rounds, so the 99th percentile is over 100 calls and
# more, not the slowest one.
rss_parts=500
rounds=5
if [ "$UPLOADS" = 10x50 ]; then rss_parts=2000 rounds=1; fi
BIG_SOCK="$WORK/big.sock"
# Its uploads leave failed jobs nobody collects: a short drain.
start_daemon "$WORK/dbig.log" --set server.socket="$BIG_SOCK" --set engine.budget=2GiB \
    --set server.drain_timeout_ms=2000
DBIG=$DPID
if wait_ready "$DBIG" "$WORK/dbig.log"; then
    "$WORK/interop" -mode=uploads -sock "$BIG_SOCK" -fixtures "$FIX" -uploads "$n_up" \
        -upload-mb "$mb_up" -rounds "$rounds" -status-max-ms "$bound" >"$WORK/go_uploads.out" 2>&1 || true
    # RSS is the measure only without a sanitizer: ASan's quarantine and
    # shadow keep freed memory resident on purpose.
    # (ldd's whole output first: under pipefail, grep -q leaving early would
    # fail the pipe with ldd's SIGPIPE.)
    rss_check=true
    case "$(ldd "$(dirname "$ZKPIPE")/zkpipe-daemon" 2>/dev/null || true)" in
    *libasan* | *libtsan*) rss_check=false ;;
    esac
    "$WORK/interop" -mode=rss -pid "$DBIG" -sock "$BIG_SOCK" -fixtures "$FIX" -witnesses "$rss_parts" \
        -rss-check="$rss_check" >>"$WORK/go_uploads.out" 2>&1 || true
    cat "$WORK/go_uploads.out"
    passes=$((passes + $(grep -c '^PASS ' "$WORK/go_uploads.out" || true)))
    failures=$((failures + $(grep -c '^FAIL ' "$WORK/go_uploads.out" || true)))
    grep -qE '^(PASS|FAIL) ' "$WORK/go_uploads.out" || fail "the large-request checks reported nothing"
    kill -TERM "$DBIG"
    wait_exit "$DBIG" 120 || fail "the large-request daemon did not exit"
else
    fail "the daemon for the large-request checks did not start"
fi

phase "large requests"

# ---------------------------------------------------------------------------
# SIGTERM with calls in flight

rc=0
"$WORK/interop" -mode=drain -n 4 -sock "$SOCK" -fixtures "$FIX" -ready "$WORK/drain.ready" \
    >"$WORK/go_drain.out" 2>&1 &
GO_DRAIN=$!
BG_PIDS+=("$GO_DRAIN")
for ((i = 0; i < 1200; i++)); do
    [ -e "$WORK/drain.ready" ] && break
    kill -0 "$GO_DRAIN" 2>/dev/null || break
    sleep 0.05
done
if [ -e "$WORK/drain.ready" ]; then
    kill -TERM "$D1"
    # Draining: no new keys either.
    sleep 0.2
    rc=0
    "$ZKPIPE" client --addr "unix://$SOCK" --timeout-ms 30000 register-key late \
        "$FIX/poseidon_small_bn128/circuit.zkey" >"$WORK/late.out" 2>&1 || rc=$?
    if [ "$rc" -eq 4 ] && grep -q "UNAVAILABLE" "$WORK/late.out" && grep -q "shutting down" "$WORK/late.out"; then
        ok "register-key while draining is refused: $(tail -n1 "$WORK/late.out")"
    else
        fail "register-key while draining: exit $rc: $(cat "$WORK/late.out")"
    fi
    rc=0
    wait "$GO_DRAIN" || rc=$?
    cat "$WORK/go_drain.out"
    passes=$((passes + $(grep -c '^PASS ' "$WORK/go_drain.out" || true)))
    failures=$((failures + $(grep -c '^FAIL ' "$WORK/go_drain.out" || true)))
    if [ "$rc" -ne 0 ] && ! grep -q '^FAIL ' "$WORK/go_drain.out"; then fail "the Go drain exited $rc"; fi
    rc=0
    wait_exit "$D1" 600 || rc=$?
    [ "$rc" -eq 0 ] && ok "the daemon exits 0 after the drain" || fail "the daemon exited $rc after SIGTERM"
    grep -q "drained" "$WORK/d1.log" && ok "the daemon logs the drain" || fail "no 'drained' in the log"
    [ ! -e "$SOCK" ] && ok "the daemon removed its socket" || fail "the socket is left after the drain"
else
    wait "$GO_DRAIN" || true
    cat "$WORK/go_drain.out"
    fail "the drain calls never got in flight"
    kill -TERM "$D1" 2>/dev/null || true
    wait_exit "$D1" 600 || true
fi

phase "drain"

# ---------------------------------------------------------------------------
# A stale socket from a daemon killed with SIGKILL

start_daemon "$WORK/d2.log"
D2=$DPID
wait_ready "$D2" "$WORK/d2.log" || die "the second daemon did not start"
{ kill -KILL "$D2" && wait "$D2"; } 2>/dev/null || true
if [ -S "$SOCK" ]; then
    start_daemon "$WORK/d3.log"
    D3=$DPID
    if wait_ready "$D3" "$WORK/d3.log" && answers; then
        ok "a stale socket left by kill -9 is replaced by the next daemon"
    else
        fail "the daemon does not start over a stale socket: $(tail -n 3 "$WORK/d3.log")"
    fi
    kill -TERM "$D3" 2>/dev/null || true
    rc=0
    wait_exit "$D3" 120 || rc=$?
    [ "$rc" -eq 0 ] && [ ! -e "$SOCK" ] && ok "an idle daemon exits 0 on SIGTERM, socket removed" ||
        fail "idle daemon after SIGTERM: exit $rc, socket $([ -e "$SOCK" ] && echo left || echo removed)"
else
    fail "kill -9 left no socket file; the stale-socket start is untested"
fi

phase "stale socket"

# ---------------------------------------------------------------------------
# Job ids across a restart, a key bound to its file, the drain timeout

client() { "$ZKPIPE" client --addr "unix://$SOCK" --timeout-ms 60000 "$@"; }
PZ="$FIX/poseidon_small_bn128/circuit.zkey"
PW="$FIX/poseidon_small_bn128/witness.wtns"
MZ="$FIX/merkle_small_bn128/circuit.zkey"
MW="$FIX/merkle_small_bn128/witness.wtns"
cp "$PZ" "$WORK/keys/k.zkey"

start_daemon "$WORK/d4.log"
D4=$DPID
wait_ready "$D4" "$WORK/d4.log" || die "the daemon for the restart checks did not start"
client register-key k "$WORK/keys/k.zkey" >/dev/null || fail "register-key k"
old_id=$(client submit k "$PW") || fail "submit before the restart"
client await "$old_id" >/dev/null || fail "await $old_id before the restart"

# The file behind the name replaced by another circuit's key.
cp "$MZ" "$WORK/keys/k.zkey.new" && mv "$WORK/keys/k.zkey.new" "$WORK/keys/k.zkey"
rc=0
client prove k "$MW" "$WORK/kp.json" "$WORK/kq.json" >"$WORK/changed.out" 2>&1 || rc=$?
if [ "$rc" -eq 4 ] && grep -q "FAILED_PRECONDITION" "$WORK/changed.out" &&
    grep -q "changed since the key was registered" "$WORK/changed.out" && [ ! -e "$WORK/kp.json" ]; then
    ok "a key whose file was replaced is refused until registered again: $(grep -o "changed since.*" "$WORK/changed.out" | head -n1)"
else
    fail "prove with a replaced key file: exit $rc: $(cat "$WORK/changed.out")"
fi
msize=$(stat -c %s "$MZ")
client register-key k "$WORK/keys/k.zkey" >"$WORK/rereg.out" 2>&1 || fail "register-key k again: $(cat "$WORK/rereg.out")"
if client prove k "$MW" "$WORK/kp.json" "$WORK/kq.json" >/dev/null 2>&1 &&
    [ "$("$ZKPIPE" verify "$FIX/merkle_small_bn128/verification_key.json" "$WORK/kq.json" "$WORK/kp.json")" = OK ]; then
    ok "registered again, the name proves with the new key"
else
    fail "prove after registering the changed key again"
fi
if client status | grep "\"file_bytes\": *$msize\b" >/dev/null; then
    ok "status shows the new file's size ($msize bytes)"
else
    fail "status does not show file_bytes $msize: $(client status | grep -o '"keys".*' | head -c 400)"
fi

kill -TERM "$D4"
wait_exit "$D4" 120 || fail "the restart-check daemon did not exit"
start_daemon "$WORK/d5.log" --set server.drain_timeout_ms=1000
D5=$DPID
wait_ready "$D5" "$WORK/d5.log" || die "the daemon after the restart did not start"
cp "$PZ" "$WORK/keys/k2.zkey"
client register-key k "$WORK/keys/k2.zkey" >/dev/null || fail "register-key after the restart"
new_id=$(client submit k "$PW") || fail "submit after the restart"
rc=0
client await "$old_id" >"$WORK/stale.out" 2>&1 || rc=$?
if [ "$new_id" != "$old_id" ] && [ "$rc" -eq 4 ] && grep -q "NOT_FOUND" "$WORK/stale.out"; then
    ok "a job id of the daemon's previous start is NOT_FOUND ($old_id, now $new_id)"
else
    fail "the old id $old_id after a restart (new job $new_id): exit $rc: $(cat "$WORK/stale.out")"
fi
client await "$new_id" >/dev/null || fail "await $new_id"

# SIGTERM with a request still uploading and a drain timeout of 1 s: the
# call gets what is left of the timeout, not a grace period of its own.
# The bound is not a speed target: a fixed 2 s grace after the 1 s timeout
# took at least 3000 ms, which this bound tells apart from the new exit
# (about 1.2 s here, 2.1 s under ThreadSanitizer on a loaded machine).
DRAIN_BOUND_MS=2900
rm -f "$WORK/stall.ready"
"$WORK/interop" -mode=stall -sock "$SOCK" -fixtures "$FIX" -ready "$WORK/stall.ready" \
    >"$WORK/go_stall.out" 2>&1 &
GO_STALL=$!
BG_PIDS+=("$GO_STALL")
for ((i = 0; i < 600; i++)); do
    [ -e "$WORK/stall.ready" ] && break
    kill -0 "$GO_STALL" 2>/dev/null || break
    sleep 0.05
done
if [ -e "$WORK/stall.ready" ]; then
    t0=$(date +%s%N)
    kill -TERM "$D5"
    rc=0
    wait_exit "$D5" 60 || rc=$?
    ms=$((($(date +%s%N) - t0) / 1000000))
    if [ "$rc" -eq 0 ] && [ "$ms" -lt "$DRAIN_BOUND_MS" ]; then
        ok "with drain_timeout_ms=1000 and a request uploading the daemon exits in $ms ms"
    else
        fail "drain_timeout_ms=1000, a request uploading: exit $rc after $ms ms: $(tail -n 3 "$WORK/d5.log")"
    fi
else
    fail "the stalled upload never started: $(cat "$WORK/go_stall.out")"
    kill -TERM "$D5"
    wait_exit "$D5" 60 || true
fi
kill "$GO_STALL" 2>/dev/null || true
wait "$GO_STALL" 2>/dev/null || true
start_daemon "$WORK/d6.log" --set server.drain_timeout_ms=1000
D5=$DPID
wait_ready "$D5" "$WORK/d6.log" || die "the daemon for the drain check did not start"
client register-key k "$WORK/keys/k2.zkey" >/dev/null || fail "register-key for the drain check"

# SIGTERM with a long job live and a drain timeout of 1 s: the exit
# follows the timeout.
ws=()
for ((i = 0; i < 400; i++)); do ws+=("$PW"); done
long_id=$(client submit k "${ws[@]}") || fail "submit of 400 partitions"
sleep 0.3
t0=$(date +%s%N)
kill -TERM "$D5"
rc=0
wait_exit "$D5" 60 || rc=$?
ms=$((($(date +%s%N) - t0) / 1000000))
if [ "$rc" -eq 0 ] && [ "$ms" -lt "$DRAIN_BOUND_MS" ] && grep -q "drain timeout: cancelled" "$WORK/d6.log"; then
    ok "with drain_timeout_ms=1000 and a live job the daemon exits in $ms ms"
else
    fail "drain_timeout_ms=1000: exit $rc after $ms ms (job $long_id): $(tail -n 3 "$WORK/d6.log")"
fi

phase "restart, key file, drain timeout"
summary
if [ "$failures" -ne 0 ]; then
    for l in "$WORK"/d*.log; do show_log "$l"; done >&2
    exit 1
fi
echo "daemon: all checks passed"
