#!/usr/bin/env bash
# Benchmarks `cmdai explain`, as BENCHMARKS.md records it. Over the same
# 20 command lines (scripts/bench/bench-explain-lines.txt), side by side in one
# run, the wall time per line of:
#   oneshot   `cmdai explain --no-serve LINE`: cmdai starts its private
#             Chroma server for the line (no model: none is loaded)
#   url       `cmdai explain --chroma-url URL LINE`: a Chroma server
#             already runs (chroma run over the same data)
#   cli-serve `cmdai explain LINE` with `cmdai serve` running: the CLI
#             asks serve (process start, socket, answer)
#   serve     POST /v1/explain on serve's socket (curl): the warm answer,
#             with serve's own time (explain_ms) beside it
# The index: CMDAI_HOME's if set (it must hold one of this machine), else
# a small one of the lines' commands in a temporary home. Each line is
# run once untimed first in each mode (the page cache, serve's docs
# cache), then RUNS times (default 3); the table gives each line's median.
# Needs `make build model chroma` (`make bench` does that).
set -euo pipefail
# shellcheck disable=SC1091 # serve_socket
. "$(dirname "${BASH_SOURCE[0]}")/../lib/serve.sh"
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
export CMDAI_TOOLS="${CMDAI_TOOLS:-$REPO/.tools}"
MODEL_SRC="$CMDAI_TOOLS/model/all-MiniLM-L6-v2"
CHROMA="$CMDAI_TOOLS/chroma/venv/bin/chroma"
BIN="$REPO/bin/cmdai"
RUNS="${RUNS:-3}"
cd "$REPO"
for f in "$BIN" "$MODEL_SRC/manifest.json" "$CHROMA"; do
	[ -e "$f" ] || { echo "missing $f: run \`make build model chroma\` first" >&2; exit 1; }
done
work="$(mktemp -d)"
serve_pid="" chroma_pid=""
cleanup() {
	[ -n "$serve_pid" ] && kill -TERM "$serve_pid" 2>/dev/null && wait "$serve_pid" 2>/dev/null
	[ -n "$chroma_pid" ] && kill -TERM "$chroma_pid" 2>/dev/null && wait "$chroma_pid" 2>/dev/null
	rm -rf "$work"
}
trap cleanup EXIT
unset CMDAI_CHROMA_URL CMDAI_CHROMA_DATA CMDAI_NO_SERVE CMDAI_DISTRO CMDAI_JSON

# The 20 lines (scripts/bench/bench-explain-lines.txt, data: never run):
# pipelines, lists, wrappers, clusters, long options with values, a
# subcommand, an unknown option and a command not installed.
cp "$REPO/scripts/bench/bench-explain-lines.txt" "$work/lines"
commands="tar grep find xargs ls head cp du gzip cut sort uniq sed awk ps df chmod mkdir mv rm tail wc curl ssh git tr"

if [ -z "${CMDAI_HOME:-}" ]; then
	export CMDAI_HOME="$work/home"
	"$BIN" model import "$MODEL_SRC" >/dev/null
	args=()
	for c in $commands; do args+=(--command "$c"); done
	echo "building an index of $(wc -w <<<"$commands") commands in $CMDAI_HOME ..." >&2
	"$BIN" index init --batch-mode "${args[@]}" >/dev/null 2>"$work/init.err" || { tail "$work/init.err" >&2; exit 1; }
fi
data="$CMDAI_HOME/chroma"

# shellcheck disable=SC1091 # the running system's os-release
echo "# $(nproc) CPUs, $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo), $(. /etc/os-release && echo "$PRETTY_NAME"), load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "# index: $("$BIN" index status --json --no-serve | python3 -c 'import json,sys; s=json.load(sys.stdin); c=[c for c in s["collections"] if c["current"]][0]; print(c["name"], c["metadata"]["commands_count"], "commands,", c["records_count"], "records")')"

# times MODE CMD...: runs CMD LINE for each line (once untimed, then RUNS
# times) and writes "MODE INDEX MEDIAN_MS [SERVER_MS]" lines.
times() {
	python3 - "$work/lines" "$RUNS" "$@" <<'PY'
import json, statistics, subprocess, sys, time
lines = [l for l in open(sys.argv[1]).read().splitlines() if l]
runs, mode, cmd = int(sys.argv[2]), sys.argv[3], sys.argv[4:]
for i, line in enumerate(lines):
    argv = [a.replace("@LINE@", json.dumps({"line": line})) for a in cmd]
    if "@LINE@" not in " ".join(cmd):
        argv = cmd + [line]
    walls, server = [], []
    for r in range(runs + 1):
        t = time.monotonic()
        p = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        wall = (time.monotonic() - t) * 1000
        if p.returncode not in (0, 7):
            sys.exit(f"{mode}: {argv!r} exit {p.returncode}: {p.stderr.decode()}")
        if r == 0:
            continue
        walls.append(wall)
        try:
            server.append(json.loads(p.stdout)["explain_ms"])
        except Exception:
            pass
    out = f"{mode} {i} {statistics.median(walls):.1f}"
    if server:
        out += f" {statistics.median(server):.2f}"
    print(out)
PY
}

times oneshot "$BIN" explain --json --no-serve >"$work/oneshot"

port="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
"$CHROMA" run --path "$data" --host 127.0.0.1 --port "$port" >"$work/chroma.log" 2>&1 &
chroma_pid=$!
for _ in $(seq 300); do curl -sf "http://127.0.0.1:$port/api/v2/heartbeat" >/dev/null && break; sleep 0.2; done
times url "$BIN" explain --json --chroma-url "http://127.0.0.1:$port" >"$work/url"
if kill -TERM "$chroma_pid"; then wait "$chroma_pid" 2>/dev/null || true; fi
chroma_pid=""

"$BIN" serve 2>"$work/serve.err" &
serve_pid=$!
socket="$(serve_socket "$work/serve.err" "$serve_pid")" || exit 1
times cli-serve "$BIN" explain --json >"$work/cli-serve"
times serve curl -s --unix-socket "$socket" http://cmdai/v1/explain -d @LINE@ >"$work/serve"

python3 - "$work/lines" "$work/oneshot" "$work/url" "$work/cli-serve" "$work/serve" <<'PY'
import statistics, sys
lines = [l for l in open(sys.argv[1]).read().splitlines() if l]
cols = {}
for f in sys.argv[2:]:
    for row in open(f).read().split("\n"):
        if row:
            mode, i, ms, *server = row.split()
            cols.setdefault(mode, {})[int(i)] = (float(ms), float(server[0]) if server else None)
modes = ["oneshot", "url", "cli-serve", "serve"]
print()
print("| # | line | one-shot, cmdai starts Chroma | one-shot, --chroma-url | CLI through serve | POST /v1/explain (serve's explain_ms) |")
print("|---|---|---|---|---|---|")
for i, l in enumerate(lines):
    cells = [f"{cols[m][i][0]:.0f}" for m in modes[:3]]
    wall, srv = cols["serve"][i]
    cells.append(f"{wall:.1f} ({srv:.2f})")
    shown = l.replace("|", "\\|")
    print(f"| {i+1} | `{shown}` | " + " | ".join(cells) + " |")
def stat(m, k):
    v = sorted(cols[m][i][k] for i in cols[m])
    return statistics.median(v), v[min(len(v) - 1, int(len(v) * 0.95))]
cells = []
for m in modes[:3]:
    p50, p95 = stat(m, 0)
    cells.append(f"**{p50:.0f} / {p95:.0f}**")
p50, p95 = stat("serve", 0)
s50, s95 = stat("serve", 1)
cells.append(f"**{p50:.1f} / {p95:.1f}** ({s50:.2f} / {s95:.2f})")
print("| | median / p95 over the lines, ms | " + " | ".join(cells) + " |")
PY
