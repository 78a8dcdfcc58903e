#!/usr/bin/env bash
# Resident memory of chatd on SQLite around a fixed load over HTTP: builds
# chatd and runs bench/rss against it on a fresh data directory (see
# bench/rss/main.go for the load). Extra arguments go to bench/rss, e.g.
#
#   bench/rss.sh                    # 1 000 users, 200 channels, 20 000 messages, 200 queues, 1 min idle
#   bench/rss.sh -messages 2000 -idle 10s
set -euo pipefail
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/chatd" ./cmd/chatd
go build -o "$tmp/rss" ./bench/rss
"$tmp/rss" -chatd "$tmp/chatd" "$@"
