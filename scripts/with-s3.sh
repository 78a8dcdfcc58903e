#!/usr/bin/env bash
# with-s3.sh COMMAND [ARG...]: runs COMMAND with a throwaway S3-compatible
# server on loopback, CHAT_TEST_S3_URL naming its bucket "chat", and its
# credentials in AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY.
#
# The server is the Versity S3 Gateway (versitygw, Apache-2.0) on a
# temporary directory: a real S3 server speaking Signature V4, multipart
# uploads and presigned URLs, not a fake. It is installed from the Go
# module proxy into GOBIN (GOPATH/bin) when missing, once per machine
# (about 2 minutes to build); S3_SERVER names another binary. Everything
# is removed when the command ends. It composes with with-postgres.sh:
#   scripts/with-postgres.sh scripts/with-s3.sh go test ./...
set -euo pipefail

if [ $# -eq 0 ]; then
  echo "usage: $0 COMMAND [ARG...]" >&2
  exit 2
fi

VERSITYGW_VERSION=v1.8.0
gobin="$(go env GOBIN)"
[ -n "$gobin" ] || gobin="$(go env GOPATH)/bin"
server="${S3_SERVER:-$gobin/versitygw}"
if [ ! -x "$server" ]; then
  echo "with-s3: installing versitygw $VERSITYGW_VERSION" >&2
  GOFLAGS= go install "github.com/versity/versitygw/cmd/versitygw@$VERSITYGW_VERSION" >&2
fi

dir=$(mktemp -d "${TMPDIR:-/tmp}/chat-s3.XXXXXX")
pid=
cleanup() {
  if [ -n "$pid" ]; then kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; fi
  rm -rf "$dir"
}
trap cleanup EXIT
mkdir -p "$dir/root/chat"

export AWS_ACCESS_KEY_ID="chat$(od -An -N6 -tx1 /dev/urandom | tr -d ' \n')"
export AWS_SECRET_ACCESS_KEY="$(od -An -N18 -tx1 /dev/urandom | tr -d ' \n')"
unset AWS_SESSION_TOKEN AWS_PROFILE

# A random port, tried again when another server holds it.
for _ in 1 2 3 4 5 6 7 8; do
  port=$((20000 + RANDOM % 40000))
  ROOT_ACCESS_KEY="$AWS_ACCESS_KEY_ID" ROOT_SECRET_KEY="$AWS_SECRET_ACCESS_KEY" \
    "$server" --port "127.0.0.1:$port" posix "$dir/root" >"$dir/server.log" 2>&1 &
  pid=$!
  for _ in $(seq 50); do
    if curl -s -o /dev/null "http://127.0.0.1:$port/"; then break 2; fi
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  kill "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
  pid=
done
if [ -z "$pid" ]; then
  echo "with-s3: the server did not start:" >&2
  cat "$dir/server.log" >&2 || true
  exit 1
fi

export CHAT_TEST_S3_URL="s3://chat?endpoint=http://127.0.0.1:$port&region=us-east-1"
echo "with-s3: versitygw on 127.0.0.1:$port" >&2
set +e
"$@"
status=$?
exit $status
