#!/usr/bin/env bash
# bench-answer-bytes.sh BIN CHROMA_URL REQUESTS.jsonl [N] [-- QUERY_ARGS...]:
# how many bytes an assistant reads per answer. Runs the first N (200)
# requests of REQUESTS (scripts/research/nl2bash-queries.py writes them) as
# `BIN index query --json -k 5 QUERY_ARGS` against a running Chroma server
# (the index and model of $CMDAI_HOME), and prints the p50, p95 and
# largest answer in bytes and the share under 4 KB.
set -euo pipefail
bin=${1:?usage: bench-answer-bytes.sh BIN CHROMA_URL REQUESTS [N] [-- QUERY_ARGS]}
url=${2:?} requests=${3:?} n=${4:-200}
shift $(($# < 4 ? $# : 4)); [[ ${1:-} == -- ]] && shift
sizes=$(mktemp)
trap 'rm -f "$sizes"' EXIT
head -n "$n" "$requests" | python3 -c 'import json,sys
for l in sys.stdin: print(json.loads(l)["query"])' | while IFS= read -r q; do
	"$bin" index query --json -k 5 "$@" --chroma-url "$url" -- "$q" 2>/dev/null | wc -c >>"$sizes"
done
python3 - "$sizes" "$*" <<'PY'
import sys
s = sorted(int(l) for l in open(sys.argv[1]) if l.strip())
pct = lambda p: s[min(len(s) - 1, int(p * len(s)))]
under = sum(1 for x in s if x < 4096)
print(f"bench-answer-bytes: {len(s)} answers (-k 5 --json {sys.argv[2]}): p50 {pct(.5)} B, p95 {pct(.95)} B, max {s[-1]} B, {100*under/len(s):.0f} % under 4 KB")
PY
