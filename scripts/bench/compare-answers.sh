#!/usr/bin/env bash
# compare-answers.sh OLD_BIN NEW_BIN [NEW_BIN...]: do two cmdai binaries
# give the same answers, byte for byte, through every front door, on one
# index? (issue 31's rule: a refactor of the answering layer changes no
# answer.) Each further NEW_BIN is compared with OLD_BIN too, on the same
# Chroma server (to try several builds, e.g. deliberate mutants, at once).
#
# The index: CMDAI_HOME (required), a data home with the model installed
# (cmdai model import DIR). When it holds no index yet (no keywords/), it
# is built once with OLD_BIN (`index init`: minutes); later runs reuse it.
# Both binaries read that one home: the same collection, keyword index and
# record.key. One Chroma server (CMDAI_CHROMA_BIN, default `chroma` on
# PATH) is started on the home's chroma/ for the whole run and every door
# of both sides asks it (--chroma-url): HNSW answers can differ between two
# starts of a server, never within one.
#
# The doors, OLD_BIN's then NEW_BIN's, each side in turn (scripts/
# compare-answers.py does the asking; COMPARE_QUERIES, COMPARE_COMMANDS and
# COMPARE_LINES size the sets; COMPARE_DOORS picks doors):
#   cli            one-shot `index query --json` (--no-serve) over the first
#                  COMPARE_CLI_QUERIES (30) of the COMPARE_QUERIES (150)
#                  requests of eval/requests-own.jsonl (one-shot, each
#                  loads the model and keyword index: the warm doors ask
#                  all 150),
#                  each in modes learned and keyword, some in hybrid,
#                  semantic and fused, with --context, -k, --matches, --full;
#                  `explain --json` over scripts/bench-explain-lines.txt and
#                  COMPARE_LINES (200) lines made from the docs set's
#                  commands; `index status --json` (and --detailed); a few
#                  refused inputs. Exit code, stdout and stderr.
#   serve          `serve --chroma-url URL` (its socket: the home's default
#                  one under XDG_RUNTIME_DIR, set to the work directory): POST /v1/query for
#                  the same requests (with_context for the --context ones),
#                  GET /v1/docs?command=X for COMPARE_COMMANDS (100) commands
#                  of the requests (and git commit, an unknown one), POST
#                  /v1/explain for the same lines, GET /v1/status (and
#                  ?detailed=true), an unknown endpoint. Status, Content-Type
#                  and body.
#   cli-via-serve  `index query --json` and `explain --json` for every other
#                  request and line, answered through that serve (the CLI
#                  as serve's client).
#   mcp-via-serve  `cmdai mcp` (PyPI's mcp client, MCP_PYTHON) with that
#                  serve running: its tools go through serve.
#   mcp            `cmdai mcp --no-serve --chroma-url URL`, its index in
#                  process: tools/list, search_commands (learned, keyword,
#                  hybrid k=3), command_docs (default, a section, an
#                  option), explain_command (text and structured content),
#                  index_status, refused calls. is_error and every text.
#   degraded       Chroma unreachable (--chroma-url of a port nothing
#                  listens on): the cli, serve and mcp doors again over the
#                  first COMPARE_DEGRADED (12) requests, 24 commands and 30
#                  lines, answered keyword-only from the index on disk
#                  (degraded-cli, degraded-serve, degraded-mcp).
# Masked, the only fields that differ run to run: the timings query_ms and
# explain_ms (replaced by 0 wherever they appear). Nothing else is: no
# compared answer holds a pid (GET /v1/health, which does, is not
# compared), both sides use the same socket path and Chroma URL, and
# built_at is the index's. MCP's structured content comes parsed from the
# client and is compared re-encoded (keys in their order); every text is
# compared as sent.
#
# Prints, per door, the answers compared and identical (and how many were
# degraded: answered without Chroma, as only degraded-* should be; the
# via-serve doors get CMDAI_CHROMA_BIN=/bin/false so that one that misses
# serve answers degraded rather than starting a second Chroma on the
# data), the first differences of each door (COMPARE_SHOW, 2: the line
# and byte where an answer first differs, and around it), and exits 1 on
# any difference. The answers stay in COMPARE_WORK (default a new
# /tmp/cmdai-answers.XXXXXX) as old/DOOR.jsonl, new/DOOR.jsonl...
#
# The binaries need ONNX Runtime: installed, or CMDAI_ORT_LIB_DIR (a
# checkout's env: `source env.sh`). MCP_PYTHON: the python of the MCP client
# venv (default .tools/mcp-client/venv/bin/python of this checkout).
set -euo pipefail
[ $# -ge 2 ] || { echo "usage: compare-answers.sh OLD_BIN NEW_BIN [NEW_BIN...]" >&2; exit 2; }
# the sides: old, new, then new2, new3... for further binaries
sides=(old) bins=("$(readlink -f "$1")")
shift
for b in "$@"; do
	sides+=("new$([ ${#sides[@]} -gt 1 ] && echo ${#sides[@]})") bins+=("$(readlink -f "$b")")
done
for b in "${bins[@]}"; do [ -x "$b" ] || { echo "compare-answers: $b is not an executable" >&2; exit 2; }; done
old=${bins[0]}
here=$(cd "$(dirname "$0")" && pwd)
home=${CMDAI_HOME:?set CMDAI_HOME to a data home with the model installed (its index is built when missing)}
chroma_bin=${CMDAI_CHROMA_BIN:-chroma}
root=$(git -C "$here" rev-parse --show-toplevel 2>/dev/null || echo "$here/..")
py=${MCP_PYTHON:-$root/.tools/mcp-client/venv/bin/python}
doors=${COMPARE_DOORS:-cli serve cli-via-serve mcp-via-serve mcp degraded}
work=${COMPARE_WORK:-$(mktemp -d /tmp/cmdai-answers.XXXXXX)}
for side in "${sides[@]}"; do mkdir -p "$work/$side"; done
export CMDAI_HOME=$home CMDAI_BATCH_MODE=1
# no serve of anyone else's is found: only the one started here, whose
# socket is then $work/cmdai-<hash of the home>.sock, the same both sides
export XDG_RUNTIME_DIR=$work
sock=""
unset CMDAI_CHROMA_URL CMDAI_SOCKET CMDAI_CONFIG CMDAI_NO_SERVE CMDAI_DISTRO CMDAI_QUERY_MODE CMDAI_JSON

chroma_pid="" serve_pid=""
# shellcheck disable=SC2317 # run by the EXIT trap, not unreachable
cleanup() {
	if [ -n "$serve_pid" ]; then kill "$serve_pid" 2>/dev/null || true; wait "$serve_pid" 2>/dev/null || true; fi
	if [ -n "$chroma_pid" ]; then kill "$chroma_pid" 2>/dev/null || true; wait "$chroma_pid" 2>/dev/null || true; fi
}
trap cleanup EXIT

if [ ! -d "$home/keywords" ]; then
	echo "compare-answers: no index in $home: building it with $old (index init, minutes)" >&2
	CMDAI_CHROMA_BIN=$chroma_bin "$old" index init --batch-mode >"$work/init.json" 2>"$work/init.err" ||
		{ tail -5 "$work/init.err" >&2; exit 1; }
fi

port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
url=http://127.0.0.1:$port
"$chroma_bin" run --path "$home/chroma" --host 127.0.0.1 --port "$port" >"$work/chroma.log" 2>&1 &
chroma_pid=$!
for _ in $(seq 120); do
	curl -fsS "$url/api/v2/heartbeat" >/dev/null 2>&1 && break
	kill -0 "$chroma_pid" 2>/dev/null || { cat "$work/chroma.log" >&2; exit 1; }
	sleep 0.5
done

"$py" "$here/compare-answers.py" inputs "$work"
"$py" "$here/compare-answers.py" subset "$work" "$work/degraded"
# a port nothing listens on, for the degraded doors (the same both sides:
# it is in their degraded reasons)
dead=http://127.0.0.1:$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
echo "compare-answers: $(wc -l <"$work/queries.txt") requests, $(wc -l <"$work/commands.txt") commands, $(wc -l <"$work/lines.txt") lines; Chroma at $url; answers in $work" >&2

has() { [[ " $doors " == *" $1 "* ]]; }
status=0
for i in "${!sides[@]}"; do
	side=${sides[$i]} bin=${bins[$i]}
	out=$work/$side
	echo "$side: $bin" >&2
	start=$SECONDS
	if has cli; then "$py" "$here/compare-answers.py" cli "$bin" "$url" "$work" "$out/cli.jsonl"; fi
	if has serve || has cli-via-serve || has mcp-via-serve; then
		# at the home's own socket (under XDG_RUNTIME_DIR), where the CLI
		# and mcp look for it (they do not read --socket)
		"$bin" serve --chroma-url "$url" --wait 0 >"$out/serve.log" 2>&1 &
		serve_pid=$!
		for _ in $(seq 240); do
			for s in "$work"/cmdai*.sock; do [ -S "$s" ] && sock=$s; done
			[ -n "$sock" ] && curl -fsS --unix-socket "$sock" http://cmdai/v1/health >/dev/null 2>&1 && break
			kill -0 "$serve_pid" 2>/dev/null || { cat "$out/serve.log" >&2; exit 1; }
			sleep 0.5
		done
		if has serve; then "$py" "$here/compare-answers.py" serve "$sock" "$work" "$out/serve.jsonl"; fi
		if has cli-via-serve; then
			CMDAI_CHROMA_BIN=/bin/false "$py" "$here/compare-answers.py" cli-via-serve "$bin" "$url" "$work" "$out/cli-via-serve.jsonl"
		fi
		if has mcp-via-serve; then
			CMDAI_CHROMA_BIN=/bin/false "$py" "$here/compare-answers.py" mcp "$work" "$out/mcp-via-serve.jsonl" -- "$bin" mcp --keep-open 0
		fi
		kill "$serve_pid"
		wait "$serve_pid" || true
		serve_pid=""
	fi
	if has mcp; then
		"$py" "$here/compare-answers.py" mcp "$work" "$out/mcp.jsonl" -- "$bin" mcp --no-serve --chroma-url "$url" --keep-open 0
	fi
	if has degraded; then
		# Chroma unreachable: keyword-only answers from the index on disk
		"$py" "$here/compare-answers.py" cli "$bin" "$dead" "$work/degraded" "$out/degraded-cli.jsonl"
		"$bin" serve --chroma-url "$dead" --wait 0 >"$out/serve-degraded.log" 2>&1 &
		serve_pid=$!
		sock=""
		for _ in $(seq 240); do
			for s in "$work"/cmdai*.sock; do [ -S "$s" ] && sock=$s; done
			[ -n "$sock" ] && curl -fsS --unix-socket "$sock" http://cmdai/v1/health >/dev/null 2>&1 && break
			kill -0 "$serve_pid" 2>/dev/null || { cat "$out/serve-degraded.log" >&2; exit 1; }
			sleep 0.5
		done
		"$py" "$here/compare-answers.py" serve "$sock" "$work/degraded" "$out/degraded-serve.jsonl"
		kill "$serve_pid"
		wait "$serve_pid" || true
		serve_pid=""
		"$py" "$here/compare-answers.py" mcp "$work/degraded" "$out/degraded-mcp.jsonl" -- "$bin" mcp --no-serve --chroma-url "$dead" --keep-open 0
	fi
	echo "$side: $((SECONDS - start)) s" >&2
done

for i in "${!sides[@]}"; do
	[ "$i" -gt 0 ] || continue
	echo "compare-answers: $old (old) vs ${bins[$i]} (${sides[$i]}); answers in $work"
	"$py" "$here/compare-answers.py" diff "$work/old" "$work/${sides[$i]}" || status=1
done
exit $status
