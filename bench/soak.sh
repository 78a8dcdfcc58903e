#!/usr/bin/env bash
# Normal clients' latency with hostile clients beside them, against the
# same traffic alone, and chatd's peak RSS (issue 21): builds chatd and
# runs bench/soak against it on a fresh data directory (see
# bench/soak/main.go for the traffic). Extra arguments go to bench/soak, e.g.
#
#   bench/soak.sh                               # SQLite, 3 rounds of 30 s alone + 30 s mixed
#   bench/soak.sh -rounds 2 -phase 15s
#   scripts/with-postgres.sh bash -c 'bench/soak.sh -dsn "$CHAT_TEST_POSTGRES_DSN"'
set -euo pipefail
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/chatd" ./cmd/chatd
go build -o "$tmp/soak" ./bench/soak
"$tmp/soak" -chatd "$tmp/chatd" "$@"
