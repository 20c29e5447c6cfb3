#!/usr/bin/env bash
# What a person or an agent calling the CLI waits for, with no serve
# started by hand (issue #33, BENCHMARKS.md "Fast without setup"): 30
# `cmdai index query ... --json` in a row, whole processes, with no serve
# running at the start: the first answers by itself and starts one in the
# background, the next ones go through it. Beside them, in the same run:
# five of the same queries one-shot first (--no-serve, the path before),
# and `apropos -a
# find files` (man-db, what a shell user already has). Then the
# background serve's RSS once idle, and how long after its idle time it
# exits (IDLE, default 20s, given to the run as CMDAI_AUTO_SERVE_IDLE).
# The index: CMDAI_HOME's (it must hold one). Needs `make build model chroma`;
# NL2BASH=DIR (default ../shared/bench/nl2bash) for the requests.
set -euo pipefail
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
export CMDAI_TOOLS="${CMDAI_TOOLS:-$REPO/.tools}"
export CMDAI_CHROMA_BIN="${CMDAI_CHROMA_BIN:-$CMDAI_TOOLS/chroma/venv/bin/chroma}"
BIN="${BIN:-$REPO/bin/cmdai}"
NL2BASH="${NL2BASH:-$REPO/../shared/bench/nl2bash}"
IDLE="${IDLE:-20s}"
[ -n "${CMDAI_HOME:-}" ] || { echo "set CMDAI_HOME to a home that holds an index" >&2; exit 1; }
for f in "$BIN" "$CMDAI_CHROMA_BIN" "$NL2BASH/all.nl"; do
	[ -e "$f" ] || { echo "missing $f: run \`make build model chroma\` first (NL2BASH=DIR for the corpus)" >&2; exit 1; }
done
command -v apropos >/dev/null || { echo "apropos (man-db) is not installed: make test-deps" >&2; exit 1; }
work="$(mktemp -d)"
trap '"$BIN" serve --stop >/dev/null 2>&1 || true; rm -rf "$work"' EXIT
python3 "$REPO/scripts/research/nl2bash-queries.py" "$NL2BASH" --split test >"$work/q.jsonl"
# the run must not be under CI=true, which turns the background serve off
unset CI CMDAI_AUTO_SERVE CMDAI_NO_SERVE CMDAI_BATCH_MODE
export CMDAI_AUTO_SERVE_IDLE="$IDLE"
"$BIN" serve --stop >/dev/null

python3 - "$BIN" "$work/q.jsonl" "$IDLE" <<'PY'
import json, os, re, statistics, subprocess, sys, time
bin_, qf, idle = sys.argv[1:]
reqs = [json.loads(l)["query"] for l in open(qf)][:30]

def run(args):
    t = time.perf_counter()
    p = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    return (time.perf_counter() - t) * 1000, p.returncode, p.stderr.decode()

def pct(xs, q):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(len(xs) * q))]

# before any serve runs: --no-serve neither asks one nor starts one
oneshot = [run([bin_, "index", "query", r, "--json", "--no-serve"])[0] for r in reqs[:5]]
apropos = [run(["apropos", "-a", "find", "files"])[0] for _ in range(5)]
auto, fails = [], 0
for r in reqs:
    ms, code, err = run([bin_, "index", "query", r, "--json"])
    auto.append(ms)
    if code != 0:
        fails += 1
        print(f"  failed: exit {code}: {err.strip()[:200]}", file=sys.stderr)
rest = auto[1:]
st = subprocess.run([bin_, "index", "status"], stdout=subprocess.PIPE).stdout.decode()
m = re.search(r"^serve:   pid (\d+)", st, re.M)
pid = int(m.group(1)) if m else 0
last = time.time()  # status was the serve's last request

print(f"30 index query --json, no serve at the start: first {auto[0]:.0f} ms; calls 2-30 p50 {statistics.median(rest):.0f} ms, p95 {pct(rest, 0.95):.0f} ms, max {max(rest):.0f} ms; {fails} failed")
print(f"one-shot (--no-serve, the path before), median of 5: {statistics.median(oneshot):.0f} ms; ratio to calls 2-30 p50: {statistics.median(oneshot) / statistics.median(rest):.1f}x")
print(f"apropos -a find files, median of 5: {statistics.median(apropos):.0f} ms; calls 2-30 p50 / apropos: {statistics.median(rest) / statistics.median(apropos):.2f}")
if not pid:
    sys.exit("no background serve answered health after the calls")
time.sleep(6)  # past serve's quiet time (5 s): it has handed its garbage back
rss = int(open(f"/proc/{pid}/status").read().split("VmRSS:")[1].split()[0]) // 1024
print(f"background serve (pid {pid}) idle RSS: {rss} MiB")
secs = float(idle.rstrip("s"))
while os.path.exists(f"/proc/{pid}") and time.time() - last < secs + 60:
    time.sleep(0.2)
gone = time.time() - last
print(f"it exited {gone:.1f} s after its last request (idle time {idle}; goal: within idle + 10 s)")
PY
