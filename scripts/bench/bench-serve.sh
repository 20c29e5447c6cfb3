#!/usr/bin/env bash
# Benchmarks `cmdai serve`, as BENCHMARKS.md records it. Over the NL2Bash
# requests (scripts/research/nl2bash-queries.py, at least 200 different ones):
#   - serve start to first answer, and its idle RSS (serve, and its
#     Chroma server) after that answer;
#   - one-shot `cmdai index query` wall time with serve running (p50/p95
#     of 30 runs: the CLI finds serve and asks it);
#   - BenchmarkServe: warm queries through the socket, semantic, hybrid, fused and learned,
#     p50/p95, against the raw Chroma query with a precomputed vector (the
#     floor) in the same run; then 16 clients for 60 s (errors, lost
#     answers, p95).
# The index: CMDAI_HOME's if set (it must hold one), else a full init of
# this machine in a temporary home (about 75 s more).
# Needs `make build model chroma`; NL2BASH=DIR (default ../shared/bench/nl2bash).
set -euo pipefail
# shellcheck disable=SC1091 # serve_socket
. "$(dirname "${BASH_SOURCE[0]}")/../lib/serve.sh"
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
export CMDAI_TOOLS="${CMDAI_TOOLS:-$REPO/.tools}"
MODEL_SRC="$CMDAI_TOOLS/model/all-MiniLM-L6-v2"
BIN="$REPO/bin/cmdai"
NL2BASH="${NL2BASH:-$REPO/../shared/bench/nl2bash}"
cd "$REPO"
for f in "$BIN" "$MODEL_SRC/manifest.json" "$CMDAI_TOOLS/chroma/venv/bin/chroma" "$NL2BASH/all.nl"; do
	[ -e "$f" ] || { echo "missing $f: run \`make build model chroma\` first (NL2BASH=DIR for the corpus)" >&2; exit 1; }
done
work="$(mktemp -d)"
serve_pid=""
cleanup() {
	[ -n "$serve_pid" ] && kill -TERM "$serve_pid" 2>/dev/null && wait "$serve_pid" 2>/dev/null
	rm -rf "$work"
}
trap cleanup EXIT
unset CMDAI_CHROMA_URL CMDAI_CHROMA_DATA CMDAI_NO_SERVE

if [ -z "${CMDAI_HOME:-}" ]; then
	export CMDAI_HOME="$work/home"
	"$BIN" model import "$MODEL_SRC" >/dev/null
	echo "building a full index of this machine in $CMDAI_HOME ..." >&2
	"$BIN" index init --batch-mode >/dev/null 2>"$work/init.err" || { tail "$work/init.err" >&2; exit 1; }
fi
export CMDAI_MODEL_DIR="${CMDAI_MODEL_DIR:-$MODEL_SRC}"
python3 scripts/research/nl2bash-queries.py "$NL2BASH" >"$work/queries.jsonl"
export CMDAI_BENCH_QUERIES="$work/queries.jsonl"
records="$("$BIN" index status --json --no-serve | python3 -c 'import json,sys; s=json.load(sys.stdin); print(sum(c["records_count"] for c in s["collections"] if c["current"]))')"
echo "index: $records records; $(wc -l <"$work/queries.jsonl") requests" >&2

# serve: start to first answer (polling its log for the ready line, not
# with `index query`, which would start a private server of its own
# until serve takes the data lock)
start=$(date +%s.%N)
"$BIN" serve 2>"$work/serve.err" &
serve_pid=$!
socket="$(serve_socket "$work/serve.err" "$serve_pid")" || exit 1
curl -sf --unix-socket "$socket" http://cmdai/v1/query -d '{"request": "list files", "k": 1}' >/dev/null
first=$(python3 -c "import time; print(f'{time.time() - $start:.2f}')")
sleep 2
rss() { awk '/VmRSS/ {print int($2/1024)}' "/proc/$1/status"; }
children="$(pgrep -P "$serve_pid")"
chroma_pid="${children%%$'\n'*}"
echo "serve start to first answer: ${first} s; idle RSS: serve $(rss "$serve_pid") MiB, its Chroma $(rss "$chroma_pid") MiB" >&2

# one-shot CLI with serve running
python3 - "$BIN" "$work/queries.jsonl" <<'PY'
import json, subprocess, sys, time
bin_, path = sys.argv[1], sys.argv[2]
reqs = [json.loads(l)["query"] for l in open(path)][:30]
d = []
for r in reqs:
    t = time.monotonic()
    subprocess.run([bin_, "index", "query", r, "-k", "5", "--json"], stdout=subprocess.DEVNULL, check=True)
    d.append((time.monotonic() - t) * 1000)
d.sort()
print(f"one-shot index query via serve, {len(d)} runs: p50 {d[len(d)//2]:.0f} ms, p95 {d[int(len(d)*0.95)-1]:.0f} ms", file=sys.stderr)
PY

CGO_ENABLED=1 CGO_LDFLAGS="-L$CMDAI_TOOLS/lib" CMDAI_ORT_LIB_DIR="$CMDAI_TOOLS/lib" \
	go test -tags ORT -run '^$' -bench BenchmarkServe -benchtime 1x -timeout 30m ./cmd/cmdai 2>&1 | grep -E '^Benchmark|FAIL|_test.go|clients for'
echo "serve's own log:" >&2
cat "$work/serve.err" >&2
echo "machine: $(nproc) cores, $(awk '/MemTotal/ {print int($2/1024/1024)}' /proc/meminfo) GiB, $(uname -sr)" >&2
