#!/usr/bin/env bash
# Write throughput over HTTP on loopback: chatd (SQLite) status updates
# against a bare net/http handler and against a handler doing one raw
# single-row SQLite upsert, measured in alternation with hey (from the Go
# module proxy), PAIRS rounds of DURATION each, reporting the median ratios.
#
#   bench/run.sh                  # 20 rounds of 2 s at 8 connections
#   PAIRS=5 DURATION=1s bench/run.sh
set -euo pipefail
cd "$(dirname "$0")/.."
PAIRS=${PAIRS:-20}
DURATION=${DURATION:-2s}
CONC=${CONC:-8}

tmp=$(mktemp -d)
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$tmp"; }
trap cleanup EXIT

go build -o "$tmp/chatd" ./cmd/chatd
go build -o "$tmp/baseline" ./bench/baseline
GOBIN="$tmp" go install github.com/rakyll/hey@v0.1.4

org=$("$tmp/chatd" create-org --data "$tmp/data" --name Bench --owner-email owner@example.com \
  --owner-name Owner --host 127.0.0.1)
email=$(sed -E 's/.*"email":"([^"]+)".*/\1/' <<<"$org")
key=$(sed -E 's/.*"api_key":"([^"]+)".*/\1/' <<<"$org")
# hey's own -a flag garbles the credentials; send the header ourselves.
# Requests name the organization's host exactly (-host), as clients of a
# deployed server do (chat.example.com, without the default port).
auth=$(printf '%s' "$email:$key" | base64 -w0)

# start NAME CMD...: runs a server in the background, logging to a file.
start() {
  local name=$1; shift
  "$@" >"$tmp/$name.out" 2>"$tmp/$name.log" &
  pids+=($!)
}
# addr NAME: waits until the server logs its address, and prints it.
addr() {
  for _ in $(seq 100); do
    a=$(grep -oE 'addr=http://[0-9.:]+' "$tmp/$1.log" | head -1 | cut -d/ -f3 || true)
    [ -n "$a" ] && { echo "$a"; return; }
    sleep 0.1
  done
  echo "$1 did not start" >&2; cat "$tmp/$1.log" >&2; exit 1
}
start chatd "$tmp/chatd" serve --data "$tmp/data" --listen 127.0.0.1:0 --rate-limit 0
start bare "$tmp/baseline" -mode bare
start upsert "$tmp/baseline" -mode upsert -data "$tmp"
chatd=$(addr chatd)
bare=$(addr bare)
upsert=$(addr upsert)

# rps URL [hey flags]: requests per second of one run; every answer must
# be a 200, or the numbers would measure errors.
rps() {
  local url=$1; shift
  "$tmp/hey" -z "$DURATION" -c "$CONC" -m POST -T application/x-www-form-urlencoded \
    -d 'status_text=in a meeting' "$@" "$url" >"$tmp/hey.out"
  if grep -E '^\s+\[[0-9]+\]' "$tmp/hey.out" | grep -vq '\[200\]'; then
    echo "non-200 answers from $url:" >&2; sed -n '/Status code distribution/,$p' "$tmp/hey.out" >&2; exit 1
  fi
  awk '/Requests\/sec/ {print $2}' "$tmp/hey.out"
}

: >"$tmp/ratios"
for i in $(seq "$PAIRS"); do
  c=$(rps "http://$chatd/api/v1/users/me/status" -H "Authorization: Basic $auth" -host 127.0.0.1)
  b=$(rps "http://$bare/")
  u=$(rps "http://$upsert/")
  echo "$c $b $u" >>"$tmp/ratios"
  printf 'round %2d: chatd %8.0f/s  bare %8.0f/s  upsert %8.0f/s\n' "$i" "$c" "$b" "$u"
done

median() { sort -n | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
echo
echo "status writes, chatd / bare handler (median): $(awk '{print $1/$2}' "$tmp/ratios" | median)"
echo "status writes, chatd / raw SQLite upsert (median): $(awk '{print $1/$3}' "$tmp/ratios" | median)"
echo "chatd status writes per second (median): $(awk '{print $1}' "$tmp/ratios" | median)"
