#!/usr/bin/env bash
# Issue #33 item 2: a full `cmdai index init` of this machine by a baseline
# binary (OLD) and by this one (bin/cmdai), alternated ROUNDS times, each
# from an empty home (no embedding cache, a fresh private Chroma), with
# wall time, the CPU seconds of cmdai and of its Chroma server, and the
# summary's stage times; then `apropos -a find files` beside it, and the
# embedding rate of init against a bare ONNX Runtime run of the same
# chunks (BenchmarkVersusBareORT/init-int8-t1, scripts/bench/bench-embed.sh).
# The machine may be shared: compare the two binaries by the ratio within
# a round, not by the seconds.
# Usage: OLD=/tmp/cmdai-main [ROUNDS=2] [BARE=0] scripts/bench/bench-init-speed.sh
# Build OLD from main: git worktree add /tmp/old main && (cd /tmp/old && go build -tags ORT -o /tmp/cmdai-main ./cmd/cmdai)
set -euo pipefail
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
export CMDAI_TOOLS="${CMDAI_TOOLS:-$REPO/.tools}"
export CMDAI_CHROMA_BIN="${CMDAI_CHROMA_BIN:-$CMDAI_TOOLS/chroma/venv/bin/chroma}"
MODEL_SRC="$CMDAI_TOOLS/model/all-MiniLM-L6-v2"
NEW="$REPO/bin/cmdai"
OLD="${OLD:?set OLD to the baseline cmdai binary}"
ROUNDS="${ROUNDS:-2}"
for f in "$NEW" "$OLD" "$MODEL_SRC/manifest.json" "$CMDAI_CHROMA_BIN"; do
	[ -e "$f" ] || { echo "missing $f: run \`make build model chroma\` first" >&2; exit 1; }
done
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# run LABEL BIN: one init from an empty home; prints a table row. The
# watcher samples the CPU time of cmdai and of every process under it
# (the Chroma server) every 0.2 s.
run() {
	local label=$1 bin=$2 home="$work/home-$1"
	rm -rf "$home" && mkdir -p "$home"
	CMDAI_HOME="$home" "$bin" model import "$MODEL_SRC" >/dev/null
	CMDAI_HOME="$home" python3 - "$work/$label.json" "$label" "$bin" index init --batch-mode <<'PY'
import json, os, subprocess, sys, time
tck = os.sysconf("SC_CLK_TCK")
def procs():
    out = {}
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                s = open(f"/proc/{d}/stat").read()
            except OSError:
                continue
            f = s[s.rindex(")") + 2:].split()
            out[int(d)] = (int(f[1]), (int(f[11]) + int(f[12])) / tck)
    return out
load = open("/proc/loadavg").read().split()[0]
t0 = time.monotonic()
p = subprocess.Popen(sys.argv[3:], stdout=open(sys.argv[1], "w"), stderr=subprocess.DEVNULL)
last = {}
while p.poll() is None:
    ps = procs()
    kids, grew = {p.pid}, True
    while grew:
        grew = False
        for pid, (pp, _) in ps.items():
            if pp in kids and pid not in kids:
                kids.add(pid); grew = True
    for pid in kids:
        if pid in ps:
            last[pid] = ps[pid][1]
    time.sleep(0.2)
wall = time.monotonic() - t0
if p.returncode:
    sys.exit(f"{sys.argv[2]}: init failed ({p.returncode})")
me = last.pop(p.pid, 0.0)
s = json.loads(open(sys.argv[1]).read().strip().splitlines()[-1])
open(sys.argv[1] + ".wall", "w").write(f"{wall}")
print(f"| {sys.argv[2]} | {load} | {s['chunks_count']} | {s['embedded']} | {s['embed_seconds']:.0f} | {s['write_seconds']:.0f} "
      f"| {me:.0f} | {sum(last.values()):.0f} | {s['embedded'] / s['embed_seconds']:.1f} | **{wall:.1f}** |")
PY
}

echo "# $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //'); $(date -u +%FT%TZ)"
echo "# OLD=$OLD NEW=$NEW"
echo
echo "| run | load before | chunks | embedded | embed s (busy, all workers) | write s (busy) | cmdai CPU s | Chroma CPU s | chunks/s per busy worker | wall s |"
echo "|---|---|---|---|---|---|---|---|---|---|"
for r in $(seq 1 "$ROUNDS"); do
	# alternate which goes first, so neither always finds a warm page cache
	if [ $((r % 2)) = 1 ]; then run "old-$r" "$OLD"; run "new-$r" "$NEW"; else run "new-$r" "$NEW"; run "old-$r" "$OLD"; fi
done
python3 - "$work" "$ROUNDS" <<'PY'
import sys
work, rounds = sys.argv[1], int(sys.argv[2])
wall = lambda l: float(open(f"{work}/{l}.json.wall").read())
rs = [wall(f"new-{r}") / wall(f"old-{r}") for r in range(1, rounds + 1)]
print("\nwall new/old by round: " + ", ".join(f"{x:.3f}" for x in rs))
PY

echo
python3 - <<'PY'
import subprocess, time
ts = []
for _ in range(5):
    t = time.monotonic()
    subprocess.run(["apropos", "-a", "find", "files"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    ts.append((time.monotonic() - t) * 1000)
ts.sort()
print(f"apropos -a find files (man-db), same run: median {ts[2]:.0f} ms of 5")
PY

if [ "${BARE:-1}" != 0 ]; then
	echo
	echo "Embedding of the same chunks (a sample of every 10th of the init's, as it embeds them), ours against bare ONNX Runtime, one thread:"
	CMDAI_BENCH_INIT_CHUNKS=10 "$REPO/scripts/bench/bench-embed.sh" 'BenchmarkVersusBareORT/^init-int8-t1$'
fi
