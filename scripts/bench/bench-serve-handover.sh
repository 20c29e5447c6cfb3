#!/usr/bin/env bash
# Benchmarks `cmdai serve` started while another cmdai holds the index
# data (issue #17's start-up races), as BENCHMARKS.md records it: serve
# start to ready line (RUNS runs each, median and max) when
#   - nobody holds the data (the baseline);
#   - a one-shot `index query --no-serve` holds it (serve started the
#     moment the query's private Chroma is up): serve waits for it;
#   - a `cmdai mcp` session holds it (one search answered, the session
#     left open): mcp hands its index over; then the session's next
#     search is checked to answer through serve (index_status's holder).
# Index: a small one (grep, find, ls, tar) in a temporary home.
# Needs `make build model chroma`.
set -euo pipefail
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
export CMDAI_TOOLS="${CMDAI_TOOLS:-$REPO/.tools}"
MODEL_SRC="$CMDAI_TOOLS/model/all-MiniLM-L6-v2"
BIN="$REPO/bin/cmdai"
RUNS="${RUNS:-5}"
for f in "$BIN" "$MODEL_SRC/manifest.json" "$CMDAI_TOOLS/chroma/venv/bin/chroma"; do
	[ -e "$f" ] || { echo "missing $f: run \`make build model chroma\` first" >&2; exit 1; }
done
work="$(mktemp -d)"
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill -TERM "$p" 2>/dev/null || true; done
	wait 2>/dev/null || true
	rm -rf "$work"
}
trap cleanup EXIT
unset CMDAI_CHROMA_URL CMDAI_CHROMA_DATA CMDAI_NO_SERVE CMDAI_SOCKET
export CMDAI_HOME="$work/home" XDG_RUNTIME_DIR="$work/run" CMDAI_MODEL_DIR="$MODEL_SRC"
mkdir -p "$XDG_RUNTIME_DIR" && chmod 700 "$XDG_RUNTIME_DIR"
"$BIN" index init --batch-mode --command grep --command find --command ls --command tar >/dev/null 2>"$work/init.err" || { tail "$work/init.err" >&2; exit 1; }
pidfile="$CMDAI_HOME/chroma/cmdai.pid"

# serve_ready starts serve and prints the seconds from its start to its
# ready line; it leaves serve running as $serve_pid.
serve_ready() {
	local start log="$work/serve.err"
	start=$(date +%s.%N)
	"$BIN" serve 2>"$log" 7>&- 8<&- &  # not the fifos to mcp: its stdin must end with ours
	serve_pid=$!
	pids+=("$serve_pid")
	for _ in $(seq 3000); do
		grep -q '^cmdai serve: .* on .* (pid ' "$log" && { echo "$(date +%s.%N) - $start" | bc; return 0; }
		kill -0 "$serve_pid" 2>/dev/null || { cat "$log" >&2; return 1; }
		sleep 0.02
	done
	cat "$log" >&2
	return 1
}

stop_serve() {
	if kill -TERM "$serve_pid"; then wait "$serve_pid" || true; fi
}

stats() { # label, then one figure a line on stdin
	sort -n | awk -v l="$1" '{a[NR]=$1} END {printf "%-40s median %.2f s, max %.2f s (%d runs)\n", l, a[int((NR+1)/2)], a[NR], NR}'
}

for _ in $(seq "$RUNS"); do serve_ready; stop_serve; done | stats "serve alone"

for _ in $(seq "$RUNS"); do
	"$BIN" index query "search text in files" --no-serve -k 1 >/dev/null 2>"$work/oneshot.err" &
	q=$!
	for _ in $(seq 1500); do [ -s "$pidfile" ] && break; sleep 0.02; done
	serve_ready
	wait "$q" || { echo "the one-shot query failed:" >&2; cat "$work/oneshot.err" >&2; exit 1; }
	grep -q 'waiting up to' "$work/serve.err" || echo "note: serve did not have to wait" >&2
	stop_serve
done | stats "serve, a one-shot query holding the data"

# An MCP session over two fifos: newline-delimited JSON-RPC.
mkfifo "$work/to-mcp" "$work/from-mcp"
mcp_call() { # id, tool, arguments (JSON)
	printf '{"jsonrpc":"2.0","id":%s,"method":"tools/call","params":{"name":"%s","arguments":%s}}\n' "$1" "$2" "$3" >&7
	local line
	IFS= read -r -t 60 line <&8 || { echo "no answer from mcp" >&2; return 1; }
	echo "$line"
}
for _ in $(seq "$RUNS"); do
	"$BIN" mcp <"$work/to-mcp" >"$work/from-mcp" 2>"$work/mcp.err" &
	mcp_pid=$!
	pids+=("$mcp_pid")
	exec 7>"$work/to-mcp" 8<"$work/from-mcp"
	printf '%s\n' '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}' >&7
	IFS= read -r -t 60 _ <&8
	printf '%s\n' '{"jsonrpc":"2.0","method":"notifications/initialized"}' >&7
	expect() { # what the answer must hold, then mcp_call's arguments
		local want="$1" ans
		shift
		ans="$(mcp_call "$@")"
		[[ "$ans" == *"$want"* && "$ans" != *'"isError":true'* ]] || { echo "call $* answered: $ans" >&2; cat "$work/mcp.err" >&2; exit 1; }
	}
	expect '"text":"1. ' 2 search_commands '{"query":"search text in files","k":1}'
	expect 'held by this process' 3 index_status '{}'
	serve_ready >>"$work/mcp.figures"
	expect '"text":"1. ' 4 search_commands '{"query":"search text in files","k":1}'
	expect 'held by cmdai serve' 5 index_status '{}'
	exec 7>&- 8<&-
	wait "$mcp_pid" || true
	stop_serve
done
stats "serve, a cmdai mcp session holding it" <"$work/mcp.figures"
