#!/usr/bin/env bash
# try-cluster.sh: two chatd processes on one machine as on two, sharing no
# directory: a throwaway PostgreSQL (scripts/with-postgres.sh), a throwaway
# S3 server (scripts/with-s3.sh), and chatd on 127.0.0.1:9991 and :9992,
# each with a data directory of its own. It prints the owner's
# credentials and stops everything on Ctrl-C. PORT_A and PORT_B change
# the ports.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ -z "${CHAT_TEST_POSTGRES_DSN:-}" ]; then
  exec scripts/with-postgres.sh "$0" "$@"
fi
if [ -z "${CHAT_TEST_S3_URL:-}" ]; then
  exec scripts/with-s3.sh "$0" "$@"
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/chat-cluster.XXXXXX")
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
go build -o "$work/chatd" ./cmd/chatd

export CHATD_STORE=postgres CHATD_DSN="$CHAT_TEST_POSTGRES_DSN" CHATD_BLOB="$CHAT_TEST_S3_URL"
export CHATD_UPLOAD_URL_KEY="$(od -An -N24 -tx1 /dev/urandom | tr -d ' \n')"
export CHATD_API_KEY_SECRET="$(od -An -N24 -tx1 /dev/urandom | tr -d ' \n')"
a="127.0.0.1:${PORT_A:-9991}" b="127.0.0.1:${PORT_B:-9992}"
"$work/chatd" serve --listen "$a" --url "http://$a" --data "$work/a" >"$work/a.out" 2>"$work/a.log" &
pids+=($!)
for _ in $(seq 100); do grep -q 'addr=' "$work/a.log" 2>/dev/null && break; sleep 0.1; done
"$work/chatd" serve --listen "$b" --data "$work/b" >"$work/b.out" 2>"$work/b.log" &
pids+=($!)
for _ in $(seq 100); do grep -q 'addr=' "$work/b.log" 2>/dev/null && break; sleep 0.1; done
cat "$work/a.out"
echo
echo "Two processes share the database and the bucket $CHAT_TEST_S3_URL:"
echo "  A: http://$a    B: http://$b    (logs in $work/a.log and b.log)"
echo "Send a request to either; Ctrl-C stops everything."
wait
