#!/usr/bin/env bash
# The PostgreSQL server that the cluster_* tests share (a CTest fixture;
# a case run alone starts one of its own the same way).
#
#   cluster_pg.sh start STATE   initdb and start a server in a new temporary
#                               directory, on a unix socket there only, and
#                               write that directory to the file STATE
#   cluster_pg.sh stop STATE    stop it (immediate: the data is thrown away)
#                               and remove the directory and STATE
#   cluster_pg.sh restart STATE restart it (fast: open connections are ended),
#                               keeping the data
#
# The binaries are Debian's (postgresql: /usr/lib/postgresql/<version>/bin)
# or the first initdb on PATH. Without them, start says so on one line and
# writes no STATE, and the cases skip. PostgreSQL refuses to run as root;
# as root the server runs as the unprivileged user nobody (setpriv), in a
# directory it owns, and the tests connect over its socket as the
# database's superuser "postgres" (trust authentication: the socket's
# directory is the only way in).
set -u
cmd=${1:-}
state=${2:-}
if [[ -z $cmd || -z $state ]]; then
  echo "usage: $0 start|stop STATE" >&2
  exit 2
fi

bindir=
for d in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V -r); do
  if [[ -x $d/initdb && -x $d/pg_ctl ]]; then bindir=$d; break; fi
done
if [[ -z $bindir ]] && command -v initdb >/dev/null 2>&1; then
  bindir=$(dirname "$(command -v initdb)")
fi

as_server_user() {
  if [[ $(id -u) == 0 ]]; then
    setpriv --reuid=nobody --regid=nogroup --clear-groups -- "$@"
  else
    "$@"
  fi
}

case $cmd in
start)
  rm -f "$state"
  if [[ -z $bindir ]]; then
    echo "skipped: no PostgreSQL server binaries (initdb, pg_ctl); install Debian's postgresql"
    exit 0
  fi
  dir=$(mktemp -d /tmp/zkpipe-pg.XXXXXX) || exit 1
  if [[ $(id -u) == 0 ]]; then chown nobody:nogroup "$dir" || exit 1; fi
  # -N and fsync=off: the data lives only as long as the tests.
  if ! (cd "$dir" && as_server_user "$bindir/initdb" -D "$dir/data" -U postgres --auth=trust \
          -N -E UTF8 --locale=C >"$dir/initdb.log" 2>&1); then
    cat "$dir/initdb.log" >&2
    rm -rf "$dir"
    echo "cluster_pg.sh: initdb failed" >&2
    exit 1
  fi
  opts="-k $dir -c listen_addresses= -c max_connections=100"
  opts+=" -c fsync=off -c synchronous_commit=off -c full_page_writes=off"
  if ! (cd "$dir" && as_server_user "$bindir/pg_ctl" -D "$dir/data" -l "$dir/server.log" \
          -w -t 30 -o "$opts" start >/dev/null); then
    cat "$dir/server.log" >&2
    rm -rf "$dir"
    echo "cluster_pg.sh: the server did not start" >&2
    exit 1
  fi
  printf '%s\n' "$dir" >"$state"
  echo "PostgreSQL ($("$bindir/postgres" --version)) on $dir"
  ;;
restart)
  [[ -f $state ]] || exit 1
  dir=$(head -n 1 "$state")
  [[ $dir == /tmp/zkpipe-pg.* && -d $dir ]] || exit 1
  # The options of the last start are kept in postmaster.opts.
  (cd "$dir" && as_server_user "$bindir/pg_ctl" -D "$dir/data" -l "$dir/server.log" -m fast \
    -w -t 30 restart >/dev/null)
  ;;
stop)
  [[ -f $state ]] || exit 0
  dir=$(head -n 1 "$state")
  if [[ $dir == /tmp/zkpipe-pg.* && -d $dir ]]; then
    (cd "$dir" && as_server_user "$bindir/pg_ctl" -D "$dir/data" -m immediate -w stop \
      >/dev/null 2>&1)
    rm -rf "$dir"
  fi
  rm -f "$state"
  ;;
*)
  echo "usage: $0 start|stop|restart STATE" >&2
  exit 2
  ;;
esac
