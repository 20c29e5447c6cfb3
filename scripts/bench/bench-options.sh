#!/usr/bin/env bash
# What the option ranker (issue #43) costs, against the binary before it:
# warm learned queries through `cmdai serve` of OLD and of this build in
# turn (ROUNDS rounds, 200 NL2Bash test requests each, k 5: p50/p95 of the
# round trip, the answers' bytes as `search -k 5 --json` prints them, and
# serve's RSS after them), then one-shot `index query --no-serve`,
# alternated (median of 8 each, and their ratio).
#
#   OLD=<cmdai built before the option ranker> CMDAI_HOME=<home with an index> scripts/bench/bench-options.sh
#
# Needs `make build chroma`; NL2BASH=DIR (default ../shared/bench/nl2bash).
set -euo pipefail
# shellcheck disable=SC1091 # serve_socket
. "$(dirname "${BASH_SOURCE[0]}")/../lib/serve.sh"
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
export CMDAI_TOOLS="${CMDAI_TOOLS:-$REPO/.tools}"
export CMDAI_CHROMA_BIN="${CMDAI_CHROMA_BIN:-$CMDAI_TOOLS/chroma/venv/bin/chroma}"
export CMDAI_AUTO_SERVE=false
BIN="$REPO/bin/cmdai"
OLD="${OLD:?set OLD to a cmdai built before the option ranker}"
NL2BASH="${NL2BASH:-$REPO/../shared/bench/nl2bash}"
ROUNDS="${ROUNDS:-2}"
[ -n "${CMDAI_HOME:-}" ] || { echo "set CMDAI_HOME to a home that holds an index" >&2; exit 1; }
for f in "$BIN" "$OLD" "$CMDAI_CHROMA_BIN" "$NL2BASH/all.nl"; do
	[ -e "$f" ] || { echo "missing $f: run \`make build chroma\` first (NL2BASH=DIR for the corpus)" >&2; exit 1; }
done
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
python3 "$REPO/scripts/research/nl2bash-queries.py" "$NL2BASH" --split test >"$work/q.jsonl"

warm() { # label, binary
	local label="$1" bin="$2" pid sock
	"$bin" serve 2>"$work/serve.err" &
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
c, ts, sizes = Conn("cmdai"), [], []
for q in [json.loads(l)["query"] for l in open(qf)][:200]:
    t = time.perf_counter()
    c.request("POST", "/v1/query", json.dumps({"request": q, "k": 5}), {"Content-Type": "application/json"})
    r = c.getresponse()
    body = r.read()
    if r.status != 200:
        sys.exit(f"{label}: HTTP {r.status}")
    ts.append((time.perf_counter() - t) * 1000)
    sizes.append(len(body))
ts.sort(); sizes.sort()
rss = int(open(f"/proc/{pid}/status").read().split("VmRSS:")[1].split()[0]) // 1024
print(f"{label}: {len(ts)} warm queries through serve, p50 {ts[len(ts)//2]:.1f} ms, p95 {ts[int(len(ts)*0.95)]:.1f} ms; "
      f"answer p50 {sizes[len(sizes)//2]} B, {100*sum(s < 4096 for s in sizes)/len(sizes):.0f} % under 4 KB; serve RSS {rss} MiB")
PY
	kill -TERM "$pid"
	wait "$pid" 2>/dev/null || true
}

for r in $(seq "$ROUNDS"); do
	warm "round $r, before (OLD)" "$OLD"
	warm "round $r, option ranker" "$BIN"
done

"$BIN" index query "warm the option vectors" --no-serve >/dev/null
for _ in 1 2 3 4 5 6 7 8; do
	for v in old new; do
		bin="$BIN"
		[ "$v" = old ] && bin="$OLD"
		s=$(date +%s%N)
		"$bin" index query "find files changed today" --no-serve >/dev/null
		echo "$v $((($(date +%s%N) - s) / 1000000))"
	done
done >"$work/oneshot"
python3 - "$work/oneshot" <<'PY'
import statistics, sys
t = {}
for line in open(sys.argv[1]):
    v, ms = line.split()
    t.setdefault(v, []).append(int(ms))
a, b = statistics.median(t["old"]), statistics.median(t["new"])
print(f"one-shot index query --no-serve, median of {len(t['old'])}: before {a:.0f} ms, option ranker {b:.0f} ms, ratio {b/a:.2f}")
PY
