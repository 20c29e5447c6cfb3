#!/bin/bash
# Finding 8 figure: kill -9 serve's private Chroma, run a writer (exit 4),
# then ask /v1/query once a second for 40 s: status codes, health, and
# when serve answers from the index again. usage: scripts/bench/bench-failed-reload.sh CMDAI
set -u
bin=$1
CMDAI_HOME=$(mktemp -d)
export CMDAI_HOME CMDAI_SOCKET
CMDAI_SOCKET=$CMDAI_HOME/cmdai.sock
tools=${CMDAI_TOOLS:-$(cd "$(dirname "$0")/../.." && pwd)/.tools}
export CMDAI_MODEL_DIR=${CMDAI_MODEL_DIR:-$tools/model/all-MiniLM-L6-v2} CMDAI_CHROMA_BIN=${CMDAI_CHROMA_BIN:-$tools/chroma/venv/bin/chroma}
"$bin" index init --command ls --command grep --distro debian-12 >/dev/null 2>&1
"$bin" index query "list files" --mode keyword --distro debian-12 >/dev/null 2>&1 # saves the keyword index
"$bin" serve --distro debian-12 2>"$CMDAI_HOME/serve.log" & serve=$!
for _ in $(seq 600); do [ -S "$CMDAI_SOCKET" ] && break; sleep 0.1; done
sleep 1
kill -9 "$(cut -d' ' -f2 "$CMDAI_HOME/chroma/cmdai.pid")"
"$bin" index init --command ls --distro debian-12 >/dev/null 2>&1; echo "writer: exit $?"
start=$(date +%s.%N)
for _ in $(seq 40); do
	code=$(curl -s -o /dev/null -w '%{http_code}' --unix-socket "$CMDAI_SOCKET" http://cmdai/v1/query -H 'Content-Type: application/json' -d '{"request":"list directory contents","k":1}')
	deg=$(curl -s --unix-socket "$CMDAI_SOCKET" http://cmdai/v1/health | python3 -c 'import json,sys; print(json.load(sys.stdin).get("degraded", False))')
	q=$(curl -s --unix-socket "$CMDAI_SOCKET" http://cmdai/v1/query -H 'Content-Type: application/json' -d '{"request":"list directory contents","k":1}' | python3 -c 'import json,sys; d=json.load(sys.stdin); print("degraded" if d.get("degraded") else ("error" if "error" in d else "index"))')
	printf '%5.1f s  query %s (%s)  health degraded=%s\n' "$(echo "$(date +%s.%N) - $start" | bc)" "$code" "$q" "$deg"
	sleep 1
done | awk '{k=$3" "$4" "$5" "$6; if (k!=last) print; last=k}'
kill "$serve"; wait "$serve" 2>/dev/null
rm -rf "$CMDAI_HOME"
