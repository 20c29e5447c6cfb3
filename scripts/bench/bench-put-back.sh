#!/usr/bin/env bash
# An index deleted through an exposed private Chroma, put back from its
# sealed local copy (issue 45): what keeping the copy costs a writer (a
# refresh with nothing to rebuild, the copy made anew) and how long the
# first command after the deletion (`index status`) takes to put it back,
# against the rebuild it saves. Runs on a copy of CMDAI_HOME, which it
# leaves alone; the private server runs exposed (CMDAI_CHROMA_NO_JAIL=1),
# as it does where the kernel gives it no namespace.
#
#   CMDAI_HOME=<home with an index> scripts/bench/bench-put-back.sh
#
# Needs `make build chroma`.
set -euo pipefail
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
export CMDAI_TOOLS="${CMDAI_TOOLS:-$REPO/.tools}"
export CMDAI_CHROMA_BIN="${CMDAI_CHROMA_BIN:-$CMDAI_TOOLS/chroma/venv/bin/chroma}"
export CMDAI_AUTO_SERVE=false CMDAI_CHROMA_NO_JAIL=1
BIN="$REPO/bin/cmdai"
[ -n "${CMDAI_HOME:-}" ] || { echo "set CMDAI_HOME to a home that holds an index" >&2; exit 1; }
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cp -a "$CMDAI_HOME/." "$work/"
rm -rf "$work/copies" "$work"/cmdai.sock*
export CMDAI_HOME="$work"
coll="$("$BIN" index status --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["current_collection"])')"

s=$(date +%s.%N)
"$BIN" index refresh 2>&1 | grep -E '^kept|up to date' || true
echo "refresh keeping a new copy: $(echo "$(date +%s.%N) - $s" | bc) s; copy $(du -h "$work/copies/$coll.tar.gz" | cut -f1)"
s=$(date +%s.%N)
"$BIN" index refresh >/dev/null 2>&1
echo "refresh with the copy current: $(echo "$(date +%s.%N) - $s" | bc) s"

# delete it as another local user would, through the open port
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
"$CMDAI_CHROMA_BIN" run --path "$work/chroma" --port "$port" >/dev/null 2>&1 &
srv=$!
for _ in $(seq 100); do curl -sf "http://127.0.0.1:$port/api/v2/heartbeat" >/dev/null && break; sleep 0.1; done
curl -sf -X DELETE "http://127.0.0.1:$port/api/v2/tenants/default_tenant/databases/default_database/collections/$coll" >/dev/null
kill "$srv"; wait "$srv" 2>/dev/null || true

s=$(date +%s.%N)
"$BIN" index status 2>&1 | grep -E 'put |up to date' || true
echo "status putting it back: $(echo "$(date +%s.%N) - $s" | bc) s"
s=$(date +%s.%N)
"$BIN" index status --verify 2>&1 | grep -E 'verified' || true
echo "status --verify after: $(echo "$(date +%s.%N) - $s" | bc) s"
