#!/usr/bin/env bash
# The same workloads against Mattermost 5.36.1 and chatd, alternating
# (issue 24): builds chatd and runs bench/peer (see bench/peer/main.go for
# the workloads). The first argument is the directory of a snapshot of
# Mattermost's server repository at v5.36.1 (outside this project; its
# binary is built there, offline from its vendor directory, when missing).
# Without -dsn among the other arguments, it runs under
# scripts/with-postgres.sh, whose throwaway server holds every server's
# database. Not run in CI. Extra arguments go to bench/peer, e.g.
#
#   bench/peer.sh /tmp/mm                          # 5 rounds, 1 000 users
#   bench/peer.sh /tmp/mm -rounds 3 -chatd-store sqlite
#   bench/peer.sh /tmp/mm -rounds 0 -grow-to 10000 # user growth alone
set -euo pipefail
if [ $# -lt 1 ] || [ ! -d "$1" ]; then
  echo "usage: $0 MATTERMOST_SNAPSHOT_DIR [bench/peer flags]" >&2
  exit 2
fi
mm=$(cd "$1" && pwd)
shift
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/chatd" ./cmd/chatd
go build -o "$tmp/peer" ./bench/peer
case " $* " in
*" -dsn "* | *" -dsn="*) "$tmp/peer" -chatd "$tmp/chatd" -mattermost "$mm" "$@" ;;
*) scripts/with-postgres.sh bash -c '"$0" -chatd "$1" -mattermost "$2" -dsn "$CHAT_TEST_POSTGRES_DSN" "${@:3}"' \
  "$tmp/peer" "$tmp/chatd" "$mm" "$@" ;;
esac
