#!/usr/bin/env bash
# with-postgres.sh COMMAND [ARG...]: runs COMMAND with a throwaway PostgreSQL
# cluster and CHAT_TEST_POSTGRES_DSN naming its database.
#
# The cluster lives in a temporary directory, listens on a free loopback
# port (and a socket in that directory only), trusts local connections and
# is tuned for tests (no fsync): it is removed when the command ends. The
# server refuses to run as root, so under root (as in CI) it runs as the
# unprivileged user "nobody". With PG_STAT_STATEMENTS=1 the server loads
# pg_stat_statements, for a statement profile of what COMMAND ran (CREATE
# EXTENSION pg_stat_statements in the database, then read the view; see
# BENCHMARKS.md). The binaries come from PG_BIN, else
# /usr/lib/postgresql/15/bin, installed with the Debian package
# postgresql-15 when they are missing and this script may use apt-get.
set -euo pipefail

if [ $# -eq 0 ]; then
  echo "usage: $0 COMMAND [ARG...]" >&2
  exit 2
fi

PG_BIN="${PG_BIN:-/usr/lib/postgresql/15/bin}"
if [ ! -x "$PG_BIN/postgres" ]; then
  if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null; then
    echo "with-postgres: installing postgresql-15" >&2
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq >&2
    apt-get install -y -qq --no-install-recommends postgresql-15 >&2
  fi
  if [ ! -x "$PG_BIN/postgres" ]; then
    echo "with-postgres: no PostgreSQL server in $PG_BIN (set PG_BIN)" >&2
    exit 1
  fi
fi

dir=$(mktemp -d "${TMPDIR:-/tmp}/chat-pg.XXXXXX")
as_owner() { "$@"; }
if [ "$(id -u)" -eq 0 ]; then
  chown nobody "$dir"
  chmod 700 "$dir"
  as_owner() { runuser -u nobody -- "$@"; }
fi

cleanup() {
  as_owner "$PG_BIN/pg_ctl" -D "$dir/data" -m immediate stop >/dev/null 2>&1 || true
  rm -rf "$dir"
}
trap cleanup EXIT

as_owner "$PG_BIN/initdb" -D "$dir/data" -U chat -A trust -E UTF8 --locale=C.UTF-8 --no-sync >"$dir/initdb.log" 2>&1 ||
  { cat "$dir/initdb.log" >&2; exit 1; }

stats=
if [ -n "${PG_STAT_STATEMENTS:-}" ]; then
  stats="-c shared_preload_libraries=pg_stat_statements -c pg_stat_statements.track=all"
fi

# A random port, tried again when another server holds it.
started=
for _ in 1 2 3 4 5 6 7 8; do
  port=$((20000 + RANDOM % 40000))
  if as_owner "$PG_BIN/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 30 \
    -o "-c listen_addresses=127.0.0.1 -p $port -k $dir -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200 $stats" \
    start >/dev/null; then
    started=1
    break
  fi
done
if [ -z "$started" ]; then
  echo "with-postgres: the server did not start:" >&2
  cat "$dir/server.log" >&2 || true
  exit 1
fi

as_owner "$PG_BIN/createdb" -h 127.0.0.1 -p "$port" -U chat chat
export CHAT_TEST_POSTGRES_DSN="postgres://chat@127.0.0.1:$port/chat?sslmode=disable"
echo "with-postgres: PostgreSQL $("$PG_BIN/postgres" --version | awk '{print $3}') on 127.0.0.1:$port" >&2
set +e
"$@"
status=$?
exit $status
