#!/usr/bin/env bash
# Measures `cmdai serve`'s idle memory, and that the memory work does not
# slow queries, for one or more cmdai binaries side by side in one run
# (same machine, same index), as BENCHMARKS.md records it:
#
#   scripts/bench/bench-serve-rss.sh [BIN...]      (default: bin/cmdai)
#
# For each binary, ROUNDS times (binaries alternating, so that a busy
# moment of the machine does not fall on one of them only):
#   - start `BIN serve` on a socket of its own and wait for its ready line
#     (start s: from the launch to that line, the model and the private
#     Chroma server loaded);
#   - WARM queries through the socket (NL2Bash requests, learned (the
#     default), semantic and hybrid in turn, k 5, one client): p50 and p95
#     per mode, client-side (a binary from before learned mode: exit 1);
#   - wait IDLE seconds without a request, then read VmRSS (and its anon
#     and file parts) of serve and of its private Chroma server;
#   - stop serve with SIGTERM.
# A BIN may be a wrapper script that sets an environment and execs cmdai.
# The index: CMDAI_HOME's if set (it must hold one), else a full init of
# this machine in a temporary home (about 75 s more).
# Needs `make build model chroma`; NL2BASH=DIR (default ../shared/bench/nl2bash).
# WARM (default 300), IDLE (default 10), ROUNDS (default 2).
set -euo pipefail
# shellcheck disable=SC1091 # serve_socket
. "$(dirname "${BASH_SOURCE[0]}")/../lib/serve.sh"
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
export CMDAI_TOOLS="${CMDAI_TOOLS:-$REPO/.tools}"
MODEL_SRC="$CMDAI_TOOLS/model/all-MiniLM-L6-v2"
NL2BASH="${NL2BASH:-$REPO/../shared/bench/nl2bash}"
WARM="${WARM:-300}" IDLE="${IDLE:-10}" ROUNDS="${ROUNDS:-2}"
[ $# -gt 0 ] || set -- "$REPO/bin/cmdai"
for f in "$@" "$MODEL_SRC/manifest.json" "$CMDAI_TOOLS/chroma/venv/bin/chroma" "$NL2BASH/all.nl"; do
	[ -e "$f" ] || { echo "missing $f: run \`make build model chroma\` first (NL2BASH=DIR for the corpus)" >&2; exit 1; }
done
work="$(mktemp -d)"
serve_pid=""
cleanup() {
	[ -n "$serve_pid" ] && kill -TERM "$serve_pid" 2>/dev/null && wait "$serve_pid" 2>/dev/null
	rm -rf "$work"
}
trap cleanup EXIT
unset CMDAI_CHROMA_URL CMDAI_CHROMA_DATA CMDAI_NO_SERVE CMDAI_SOCKET

if [ -z "${CMDAI_HOME:-}" ]; then
	export CMDAI_HOME="$work/home"
	"$1" model import "$MODEL_SRC" >/dev/null
	echo "building a full index of this machine in $CMDAI_HOME ..." >&2
	"$1" index init --batch-mode >/dev/null 2>"$work/init.err" || { tail "$work/init.err" >&2; exit 1; }
fi
export CMDAI_MODEL_DIR="${CMDAI_MODEL_DIR:-$MODEL_SRC}"
python3 "$REPO/scripts/research/nl2bash-queries.py" "$NL2BASH" >"$work/queries.jsonl"
records="$("$1" index status --json --no-serve | python3 -c 'import json,sys; s=json.load(sys.stdin); print(sum(c["records_count"] for c in s["collections"] if c["current"]))')"
echo "index: $records records in $CMDAI_HOME; $WARM warm-up queries, then $IDLE s idle; $ROUNDS rounds" >&2

# The client: one keep-alive connection over the Unix socket, as an
# assistant's would be; times are from the request to the whole answer.
cat >"$work/load.py" <<'PY'
import http.client, json, socket, sys, time
class Unix(http.client.HTTPConnection):
    def __init__(self, path):
        super().__init__("cmdai")
        self.unix = path
    def connect(self):
        self.sock = socket.socket(socket.AF_UNIX)
        self.sock.connect(self.unix)
sock, path, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
reqs = [json.loads(l)["query"] for l in open(path)]
conn, lat = Unix(sock), {"learned": [], "semantic": [], "hybrid": []}
for i in range(n):
    mode = ("learned", "semantic", "hybrid")[i % 3]
    body = json.dumps({"request": reqs[i % len(reqs)], "k": 5, "mode": mode})
    t = time.monotonic()
    conn.request("POST", "/v1/query", body=body)
    r = conn.getresponse()
    r.read()
    if r.status != 200:
        sys.exit(f"query {i}: HTTP {r.status}")
    lat[mode].append((time.monotonic() - t) * 1000)
out = []
for mode, d in lat.items():
    d = sorted(d[5:])  # the first few of each mode warm caches
    out.append(f"{d[len(d) // 2]:.1f} / {d[int(len(d) * 0.95)]:.1f}")
print(" | ".join(out))
PY

kib() { awk -v k="$2" '$1 == k":" {print $2}' "/proc/$1/status"; }
mib() { echo $(( ($1 + 512) / 1024 )); }
echo "| binary | round | serve MiB (anon + file) | Chroma MiB (anon + file) | total MiB | learned p50 / p95 ms | semantic p50 / p95 ms | hybrid p50 / p95 ms | start s |"
echo "|---|---|---|---|---|---|---|---|---|"
for round in $(seq "$ROUNDS"); do
	bins=("$@")
	if [ $((round % 2)) -eq 0 ]; then # every other round in reverse
		bins=()
		for ((i = $#; i >= 1; i--)); do bins+=("${!i}"); done
	fi
	for bin in "${bins[@]}"; do
		sock="$work/s.sock"
		t0=$(date +%s.%N)
		"$bin" serve --socket "$sock" 2>"$work/serve.err" &
		serve_pid=$!
		serve_socket "$work/serve.err" "$serve_pid" >/dev/null || exit 1
		started=$(python3 -c "import time; print(f'{time.time() - $t0:.2f}')")
		lat="$(python3 "$work/load.py" "$sock" "$work/queries.jsonl" "$WARM")"
		sleep "$IDLE"
		children="$(pgrep -P "$serve_pid")"
		chroma_pid="${children%%$'\n'*}"
		s_rss=$(kib "$serve_pid" VmRSS) s_anon=$(kib "$serve_pid" RssAnon) s_file=$(kib "$serve_pid" RssFile)
		c_rss=$(kib "$chroma_pid" VmRSS) c_anon=$(kib "$chroma_pid" RssAnon) c_file=$(kib "$chroma_pid" RssFile)
		echo "| $(basename "$bin") | $round | $(mib "$s_rss") ($(mib "$s_anon") + $(mib "$s_file")) | $(mib "$c_rss") ($(mib "$c_anon") + $(mib "$c_file")) | **$(mib $((s_rss + c_rss)))** | $lat | $started |"
		kill -TERM "$serve_pid"
		wait "$serve_pid" || true
		serve_pid=""
	done
done
echo "machine: $(nproc) cores, $(awk '/MemTotal/ {print int($2/1024/1024)}' /proc/meminfo) GiB, $(uname -sr), load $(cut -d' ' -f1-3 /proc/loadavg)" >&2
