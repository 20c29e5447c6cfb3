#!/usr/bin/env bash
# hit@1/5/10 per ranking mode on the two test sets, from one index and one
# binary, as docs/benchmarks/figures.json (BENCHMARKS.md's chart) records
# them: bm25-pages, semantic, hybrid and learned without the reranker, then
# learned with it. Test sets only report: nothing is tuned on them.
#
#   CMDAI_HOME=<home with this machine's whole index> scripts/bench/bench-hit-at-k.sh
#
# NL2BASH (default ../shared/bench/nl2bash) is the NL2Bash corpus;
# RERANKER (default $CMDAI_TOOLS/model/cmdai-reranker) the reranker's
# directory; OUT (default .cache/hit-at-k) receives eval-{own,nl2bash}-{base,rr}.json.
set -euo pipefail
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$REPO"
: "${CMDAI_HOME:?set CMDAI_HOME to a home that holds the whole index of this machine}"
TOOLS="${CMDAI_TOOLS:-$REPO/.tools}"
NL2BASH="${NL2BASH:-$REPO/../shared/bench/nl2bash}"
RERANKER="${RERANKER:-$TOOLS/model/cmdai-reranker}"
OUT="${OUT:-$REPO/.cache/hit-at-k}"
BIN="${BIN:-$REPO/bin/cmdai}"
mkdir -p "$OUT"
python3 scripts/research/nl2bash-queries.py "$NL2BASH" --split test >"$OUT/nl2bash-test.jsonl"
for set in own:search/evaluate/requests/requests-own.jsonl "nl2bash:$OUT/nl2bash-test.jsonl"; do
	name=${set%%:*} file=${set#*:}
	"$BIN" index eval --queries "$file" --mode bm25-pages,semantic,hybrid,learned --no-rerank --json >"$OUT/eval-$name-base.json"
	"$BIN" index eval --queries "$file" --mode learned --reranker-dir "$RERANKER" --json >"$OUT/eval-$name-rr.json"
done
echo "bench-hit-at-k: per mode, JSON lines in $OUT/eval-*.json (hit_at_1, hit_at_5, hit_at_10)"
