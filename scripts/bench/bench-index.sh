#!/usr/bin/env bash
# Benchmarks a full `cmdai index init` of this machine and `index query`,
# as BENCHMARKS.md records them. In one run, side by side:
#   default   the default build (int8 model, --prose-budget default)
#   baseline  fp32 and every chunk (--model-variant fp32 --prose-budget 0),
#             the build before the budget and int8 (skip: BASELINE=0)
# each from an empty home (no embedding cache, a fresh Chroma), with wall
# time, time per stage and peak RSS (the largest of cmdai and its Chroma
# server); then, on the default index, query latency p50/p95 warm
# (BenchmarkQueryWarm: server up, model loaded) and as one-shot CLI runs,
# `index export` / `index import` of it (time, tarball size), and a
# refresh with nothing changed.
# Needs `make build model chroma` (`make bench` does that).
set -euo pipefail
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
export CMDAI_TOOLS="${CMDAI_TOOLS:-$REPO/.tools}"
MODEL_SRC="$CMDAI_TOOLS/model/all-MiniLM-L6-v2"
BIN="$REPO/bin/cmdai"
cd "$REPO"
for f in "$BIN" "$MODEL_SRC/manifest.json" "$CMDAI_TOOLS/chroma/venv/bin/chroma"; do
	[ -e "$f" ] || { echo "missing $f: run \`make build model chroma\` first" >&2; exit 1; }
done
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# measure LABEL CMD...: runs CMD, prints "LABEL wall_s maxrss_mib" to stderr
# and CMD's stdout to stdout. Python measures the peak RSS of the command
# and of the processes it waited for (the Chroma server).
measure() {
	python3 - "$@" <<'PY'
import resource, subprocess, sys, time
t = time.monotonic()
p = subprocess.run(sys.argv[2:], stdout=subprocess.PIPE)
wall = time.monotonic() - t
rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
sys.stdout.buffer.write(p.stdout)
print(f"{sys.argv[1]} {wall:.1f} {rss:.0f}", file=sys.stderr)
sys.exit(p.returncode)
PY
}

# init LABEL FLAGS...: a full init from an empty home; prints a table row.
init() {
	local label=$1
	shift
	local home="$work/$label"
	mkdir -p "$home"
	CMDAI_HOME="$home" "$BIN" model import "$MODEL_SRC" >/dev/null
	CMDAI_HOME="$home" measure "$label" "$BIN" index init --batch-mode --no-cache "$@" \
		>"$work/$label.json" 2>"$work/$label.err" || { cat "$work/$label.err" >&2; exit 1; }
	local m
	m="$(tail -1 "$work/$label.err")" # the measure line
	python3 - "$work/$label.json" "$m" "$*" <<'PY'
import json, sys
s = json.loads(open(sys.argv[1]).read().strip().splitlines()[-1])
label, wall, rss = sys.argv[2].split()
p = s["pipeline"]
print(f"| {label} ({sys.argv[3] or 'defaults'}) | {s['model_variant']} | {s['commands_count']} | {s['chunks_count']} | {p.get('trimmed_chunks', 0)} "
      f"| {s['parse_seconds']:.0f} | {s['embed_seconds']:.0f} | {s['write_seconds']:.0f} | {float(wall):.0f} | {rss} |")
PY
}

echo "# $(nproc) CPUs, $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //')"
echo
echo "| build | model | commands | chunks | left out | parse s | embed s (busy, all workers) | write s (busy) | wall s | peak RSS MiB |"
echo "|---|---|---|---|---|---|---|---|---|---|"
init default
if [ "${BASELINE:-1}" != 0 ]; then
	init baseline --model-variant fp32 --prose-budget 0
	python3 -c "import sys; d,b=(float(open(f).read().splitlines()[-1].split()[1]) for f in sys.argv[1:]); print(f'\nwall time default/baseline: {d/b:.2f} ({b/d:.1f}x faster)')" \
		"$work/default.err" "$work/baseline.err"
fi

echo
echo "Query latency on the default index:"
export CMDAI_HOME="$work/default"
CGO_ENABLED=1 CGO_LDFLAGS="-L$CMDAI_TOOLS/lib" CMDAI_ORT_LIB_DIR="$CMDAI_TOOLS/lib" \
	go test -tags ORT -run '^$' -bench BenchmarkQueryWarm -benchtime 360x ./cmd/cmdai | grep -E '^Benchmark' || true
python3 - "$BIN" <<'PY'
import json, subprocess, sys, time
reqs = [json.loads(l)["request"] for l in open("cmd/cmdai/testdata/requests.jsonl")][:20]
ts = []
for r in reqs:
    t = time.monotonic()
    subprocess.run([sys.argv[1], "index", "query", r], check=True, stdout=subprocess.DEVNULL)
    ts.append((time.monotonic() - t) * 1000)
ts.sort()
pct = lambda p: ts[min(len(ts) - 1, max(0, (len(ts) * p + 99) // 100 - 1))]
print(f"one-shot CLI (`cmdai index query`, {len(ts)} requests, starts its own Chroma): p50 {pct(50):.0f} ms, p95 {pct(95):.0f} ms")
PY

echo
echo "Export and import of the default index:"
python3 - "$BIN" "$work" <<'PY'
import json, os, subprocess, sys, time
bin, work = sys.argv[1], sys.argv[2]
out = os.path.join(work, "export")
os.makedirs(out)
t = time.monotonic()
ex = json.loads(subprocess.run([bin, "index", "export", out, "--json"], check=True, capture_output=True).stdout)
te = time.monotonic() - t
t = time.monotonic()
subprocess.run([bin, "index", "import", ex["path"], "--validate"], check=True, capture_output=True)
tv = time.monotonic() - t
t = time.monotonic()
subprocess.run([bin, "index", "import", ex["path"], "--batch-mode", "--allow-unsigned"], check=True, capture_output=True)
ti = time.monotonic() - t
print(f"| records | tarball | export | import --validate | import (atomic replace) |")
print(f"|---|---|---|---|---|")
print(f"| {ex['records_count']} | {ex['bytes']/1e6:.1f} MB | {te:.1f} s | {tv:.1f} s | {ti:.1f} s |")
PY

echo
echo "Refresh with nothing changed (whole command, private Chroma started and stopped):"
python3 - "$BIN" <<'PY'
import json, subprocess, sys, time
ts, inner = [], []
for _ in range(5):
    t = time.monotonic()
    out = subprocess.run([sys.argv[1], "index", "refresh", "--json"], check=True, capture_output=True).stdout
    ts.append(time.monotonic() - t)
    inner.append(json.loads(out)["total_seconds"])
ts.sort(); inner.sort()
print(f"wall p50 {ts[2]:.2f} s (min {ts[0]:.2f}, max {ts[-1]:.2f}); of which the refresh itself (scan, compare) p50 {inner[2]:.2f} s")
PY
