#!/usr/bin/env bash
# bench-hostile.sh [BIN...]: the worst case of each hostile request, as
# BENCHMARKS.md records it (issue 30, finding 2): for each probe, the
# bytes answered, the time and the peak memory (VmHWM) of the process that
# answered, through each front door:
#   serve     POST /v1/explain or /v1/query to a `cmdai serve` started
#             fresh for the probe (its peak RSS is the probe's alone)
#   one-shot  `cmdai explain --no-serve --json LINE` (/usr/bin/time's
#             maximum RSS; cmdai's private Chroma not counted)
#   mcp       `cmdai mcp --no-serve`: initialize, then tools/call
#             explain_command, as raw JSON-RPC lines on stdin
# Probes: a line of DEPTH (default 10000) nested $(...), 6,500 nested
# <(...), a 64 KiB line whose long alias name each of its 8,000 commands
# repeated, a 64 KiB line of documented options (ls -l -a -h ...: the
# largest answer under the limit), one 65,000-letter cluster of them (over
# it), and the largest query serve takes (max-k: k 100, every match whole,
# a context of 100,000 tokens). Each BIN (default bin/cmdai) runs every
# probe, side by side in one run: give the base's binary and this one's
# to compare. PROBES (names, space-separated) runs some of them only.
# The index: a small one of ls, tar, grep, find and git-commit, built once
# in a temporary home with the first BIN. Needs `make build model chroma`.
set -euo pipefail
# shellcheck disable=SC1091 # serve_socket
. "$(dirname "${BASH_SOURCE[0]}")/../lib/serve.sh"
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
export CMDAI_TOOLS="${CMDAI_TOOLS:-$REPO/.tools}"
MODEL_SRC="$CMDAI_TOOLS/model/all-MiniLM-L6-v2"
DEPTH="${DEPTH:-10000}"
bins=("$@")
[ ${#bins[@]} -gt 0 ] || bins=("$REPO/bin/cmdai")
for f in "${bins[@]}" "$MODEL_SRC/manifest.json" /usr/bin/time; do
	[ -e "$f" ] || { echo "missing $f: run \`make build model chroma\` first" >&2; exit 1; }
done
work="$(mktemp -d)"
serve_pid=""
cleanup() {
	[ -n "$serve_pid" ] && kill -TERM "$serve_pid" 2>/dev/null && wait "$serve_pid" 2>/dev/null
	rm -rf "$work"
}
trap cleanup EXIT
unset CMDAI_CHROMA_URL CMDAI_CHROMA_DATA CMDAI_NO_SERVE CMDAI_DISTRO CMDAI_JSON
export CMDAI_HOME="$work/home"
"${bins[0]}" model import "$MODEL_SRC" >/dev/null
echo "building an index of ls tar grep find git-commit in $CMDAI_HOME ..." >&2
"${bins[0]}" index init --batch-mode --command ls --command tar --command grep --command find --command git-commit >/dev/null 2>"$work/init.err" ||
	{ tail "$work/init.err" >&2; exit 1; }

# The probes' request bodies, one file each (JSON for serve; the line).
python3 - "$work" "$DEPTH" <<'PY'
import json, sys
work, depth = sys.argv[1], int(sys.argv[2])
lines = {
    "deep-subst": "$(" * depth + "ls" + ")" * depth,
    "deep-procsubst": "ls <(" * 6500 + "ls" + ")" * 6500,
    # 64,009 bytes: each of the 8,000 ls runs "via" the alias's name
    "long-alias": "alias " + "a" * 40000 + "='" + "ls;" * 8000 + "'",
    # the largest answer under the limit, then one over it
    "many-options": ("ls -l -a -h " * 5500)[:65536].rstrip(),
    "long-cluster": "ls -" + "l" * 65000,
}
for name, line in lines.items():
    open(f"{work}/{name}.line", "w").write(line)
    json.dump({"line": line}, open(f"{work}/{name}.json", "w"))
json.dump({"request": "find files modified today and list them by size", "k": 100, "full": True,
           "with_context": True, "max_tokens": 100000}, open(f"{work}/max-k.json", "w"))
PY

hwm() { awk '/^VmHWM:/ {printf "%.0f", $2/1024}' "/proc/$1/status"; }

# serve_probe BIN NAME PATH: a fresh serve answers one request.
serve_probe() {
	local bin="$1" name="$2" path="$3" socket out t0 t1 code
	"$bin" serve 2>"$work/serve.err" &
	serve_pid=$!
	socket="$(serve_socket "$work/serve.err" "$serve_pid")" || exit 1
	t0=$(date +%s.%N)
	code=$(curl -s -o "$work/out" -w '%{http_code}' --unix-socket "$socket" "http://cmdai$path" \
		-H 'Content-Type: application/json' --data-binary "@$work/$name.json")
	t1=$(date +%s.%N)
	out=$(stat -c %s "$work/out")
	printf '| %s | serve | %s | HTTP %s | %s | %.2f | %s |\n' "$name" "$(basename "$bin")" "$code" "$out" "$(echo "$t1 - $t0" | bc)" "$(hwm "$serve_pid")"
	kill -TERM "$serve_pid"
	wait "$serve_pid" 2>/dev/null || true
	serve_pid=""
}

# oneshot_probe BIN NAME: `cmdai explain --no-serve --json LINE`.
oneshot_probe() {
	local bin="$1" name="$2" code=0 t0 t1
	t0=$(date +%s.%N)
	/usr/bin/time -f %M -o "$work/rss" "$bin" explain --no-serve --json - <"$work/$name.line" >"$work/out" 2>/dev/null || code=$?
	t1=$(date +%s.%N)
	printf '| %s | one-shot | %s | exit %s | %s | %.2f | %.0f |\n' "$name" "$(basename "$bin")" "$code" "$(stat -c %s "$work/out")" "$(echo "$t1 - $t0" | bc)" "$(($(tail -1 "$work/rss") / 1024))"
}

# mcp_run BIN: `cmdai mcp --no-serve` on this stdin, its answers in
# mcp.out, its peak RSS in rss.
mcp_run() {
	/usr/bin/time -f %M -o "$work/rss" "$1" mcp --no-serve >"$work/mcp.out" 2>/dev/null
}

# mcp_probe BIN NAME: explain_command through `cmdai mcp --no-serve`.
mcp_probe() {
	local bin="$1" name="$2" code=0 t0 t1
	python3 - "$work/$name.line" >"$work/mcp.in" <<'PY'
import json, sys
line = open(sys.argv[1]).read()
print(json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "bench", "version": "0"}}}))
print(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}))
print(json.dumps({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "explain_command", "arguments": {"line": line}}}))
PY
	rm -f "$work/mcp.out"
	t0=$(date +%s.%N)
	# stdin stays open until the answer to id 2 is out
	{
		cat "$work/mcp.in"
		for _ in $(seq 2400); do grep -q '"id":2' "$work/mcp.out" 2>/dev/null && break; sleep 0.05; done
	} | mcp_run "$bin" || code=$?
	t1=$(date +%s.%N)
	local verdict="answer"
	grep -q '"isError":true' "$work/mcp.out" && verdict="tool error"
	printf '| %s | mcp | %s | %s | %s | %.2f | %.0f |\n' "$name" "$(basename "$bin")" "$verdict" "$(stat -c %s "$work/mcp.out")" "$(echo "$t1 - $t0" | bc)" "$(($(tail -1 "$work/rss") / 1024))"
}

# shellcheck disable=SC1091 # the running system's os-release
echo "# $(nproc) CPUs, $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo), $(. /etc/os-release && echo "$PRETTY_NAME"), load average $(cut -d' ' -f1-3 /proc/loadavg); DEPTH=$DEPTH"
echo "| probe | front door | binary | answer | bytes out | seconds | peak RSS, MiB |"
echo "|---|---|---|---|---|---|---|"
for name in ${PROBES:-deep-subst deep-procsubst long-alias many-options long-cluster max-k}; do
	for bin in "${bins[@]}"; do
		if [ "$name" = max-k ]; then
			serve_probe "$bin" max-k /v1/query
			continue
		fi
		serve_probe "$bin" "$name" /v1/explain
		oneshot_probe "$bin" "$name"
		mcp_probe "$bin" "$name"
	done
done
