#!/usr/bin/env bash
# What learned mode's reranker costs, as BENCHMARKS.md ("A reranker trained
# here") records it: warm learned queries through `cmdai serve` started
# with --no-rerank and with the reranker in turn (ROUNDS rounds, 200
# NL2Bash requests each, k 5: p50/p95 and serve's RSS after them), then
# one-shot `index query --no-serve` without and with it, alternated
# (median of 8 each, and their ratio).
# The index: CMDAI_HOME's (it must hold one). Needs `make build model
# reranker chroma`; NL2BASH=DIR (default ../shared/bench/nl2bash).
# BASELINE_RERANKER=DIR compares against the reranker in DIR instead of
# none (a reranker without its query adapter, say: "none" then means it).
set -euo pipefail
# shellcheck disable=SC1091 # serve_socket
. "$(dirname "${BASH_SOURCE[0]}")/../lib/serve.sh"
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
export CMDAI_TOOLS="${CMDAI_TOOLS:-$REPO/.tools}"
export CMDAI_CHROMA_BIN="${CMDAI_CHROMA_BIN:-$CMDAI_TOOLS/chroma/venv/bin/chroma}"
BIN="$REPO/bin/cmdai"
RERANKER="$CMDAI_TOOLS/model/cmdai-reranker"
NL2BASH="${NL2BASH:-$REPO/../shared/bench/nl2bash}"
ROUNDS="${ROUNDS:-2}"
BASE=(--no-rerank)
[ -z "${BASELINE_RERANKER:-}" ] || BASE=(--reranker-dir "$BASELINE_RERANKER")
[ -n "${CMDAI_HOME:-}" ] || { echo "set CMDAI_HOME to a home that holds an index" >&2; exit 1; }
for f in "$BIN" "$RERANKER/manifest.json" "$CMDAI_CHROMA_BIN" "$NL2BASH/all.nl"; do
	[ -e "$f" ] || { echo "missing $f: run \`make build model reranker chroma\` first (NL2BASH=DIR for the corpus)" >&2; exit 1; }
done
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
python3 "$REPO/scripts/research/nl2bash-queries.py" "$NL2BASH" --split test >"$work/q.jsonl"

warm() { # label, serve flags...
	local label="$1" pid sock
	shift
	"$BIN" serve "$@" 2>"$work/serve.err" &
	pid=$!
	sock="$(serve_socket "$work/serve.err" "$pid")"
	curl -s --unix-socket "$sock" -H 'Content-Type: application/json' -d '{"request":"list files"}' http://cmdai/v1/query >/dev/null
	python3 - "$sock" "$work/q.jsonl" "$label" "$pid" <<'PY'
import http.client, json, socket, sys, time
sock, qf, label, pid = sys.argv[1:]
class Conn(http.client.HTTPConnection):
    def connect(self):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.connect(sock)
c, ts = Conn("cmdai"), []
for q in [json.loads(l)["query"] for l in open(qf)][:200]:
    t = time.perf_counter()
    c.request("POST", "/v1/query", json.dumps({"request": q, "k": 5}), {"Content-Type": "application/json"})
    r = c.getresponse()
    r.read()
    if r.status != 200:
        sys.exit(f"{label}: HTTP {r.status}")
    ts.append((time.perf_counter() - t) * 1000)
ts.sort()
rss = int(open(f"/proc/{pid}/status").read().split("VmRSS:")[1].split()[0]) // 1024
print(f"{label}: {len(ts)} warm learned queries through serve, p50 {ts[len(ts)//2]:.1f} ms, p95 {ts[int(len(ts)*0.95)]:.1f} ms; serve RSS {rss} MiB")
PY
	kill -TERM "$pid"
	wait "$pid" 2>/dev/null || true
}

for r in $(seq "$ROUNDS"); do
	warm "round $r, no reranker (or BASELINE_RERANKER)" "${BASE[@]}"
	warm "round $r, reranker" --reranker-dir "$RERANKER"
done

"$BIN" index query "warm the reranker's description vectors" --no-serve --reranker-dir "$RERANKER" >/dev/null
for _ in 1 2 3 4 5 6 7 8; do
	for v in none reranker; do
		flags=("${BASE[@]}")
		[ "$v" = reranker ] && flags=(--reranker-dir "$RERANKER")
		s=$(date +%s%N)
		"$BIN" index query "find files changed today" --no-serve "${flags[@]}" >/dev/null
		echo "$v $((($(date +%s%N) - s) / 1000000))"
	done
done >"$work/oneshot"
python3 - "$work/oneshot" <<'PY'
import statistics, sys
t = {}
for line in open(sys.argv[1]):
    v, ms = line.split()
    t.setdefault(v, []).append(int(ms))
a, b = statistics.median(t["none"]), statistics.median(t["reranker"])
print(f"one-shot index query --no-serve, median of {len(t['none'])}: no reranker {a:.0f} ms, reranker {b:.0f} ms, ratio {b/a:.2f}")
PY
