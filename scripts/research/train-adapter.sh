#!/usr/bin/env bash
# Trains issue #32's query adapter from this repository (`make
# adapter-train`) and measures it by 5-fold CV on TRAIN, the way
# docs/benchmarks/retrieval.md reports it: a linear map of the request's
# vector (train-adapter.py's docstring), fitted on the train requests
# (our own and NL2Bash's train split) against a COPY of an index, never
# the index itself. Deterministic: full-batch Adam from the identity, no
# random numbers (numpy and chromadb as the Chroma venv pins them).
#
#   scripts/research/train-adapter.sh [WORK]
#
# Writes WORK/adapter.bin (fitted on every train request, the penalty the
# CV chose), WORK/adapter.sha256, WORK/folds/ (per fold: the adapter fitted
# without it, its requests, commands.txt) and WORK/cv.txt: learned mode
# without and with the adapter's two features, 5-fold CV with the weights
# refitted per fold and every request's features from an adapter fitted
# without it (adapter-features.py, cv-arms.py; the same with the
# reranker's features needs torch: retrieval.md, "A query adapter beside
# the reranker"). Then installs
# it as scripts/install/reranker/adapter.bin and pins its sha256 in
# scripts/install/build-reranker.sh (`make reranker` ships it beside the
# reranker; learned mode's ranker.WithAdapter weights its two features,
# refitted as retrieval.md says). Needs bin/cmdai (`make build`), an index
# (CMDAI_HOME or the default data directory; `make index`), `make chroma`
# and the NL2Bash corpus (NL2BASH, default ../shared/bench/nl2bash).
# About 2 minutes on 2 cores.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO="$(cd "$HERE/../.." && pwd)"
TOOLS="${CMDAI_TOOLS:-$REPO/.tools}"
OUT="${1:-$TOOLS/adapter-work}"
NL2BASH="${NL2BASH:-$REPO/../shared/bench/nl2bash}"
CMDAI="${CMDAI:-$REPO/bin/cmdai}"
PY="${ADAPTER_PYTHON:-$TOOLS/chroma/venv/bin/python}"
SRC_HOME="${CMDAI_HOME:-${XDG_DATA_HOME:-$HOME/.local/share}/cmdai}"
L2="${ADAPTER_L2:-0.03}" # the penalty the CV chose over 10..0.03 (retrieval.md); a list cross-validates them
log() { echo "train-adapter: $*" >&2; }

[ -x "$CMDAI" ] || { log "no $CMDAI: run \`make build\` first"; exit 1; }
[ -x "$PY" ] || { log "no $PY (numpy and chromadb): run \`make chroma\` first"; exit 1; }
[ -d "$SRC_HOME/chroma" ] || { log "no index in $SRC_HOME: run \`make index\` or set CMDAI_HOME"; exit 1; }
[ -d "$NL2BASH" ] || { log "no NL2Bash corpus at $NL2BASH: set NL2BASH"; exit 1; }
rm -rf "${OUT:?}/home" "${OUT:?}/folds"
mkdir -p "$OUT/folds"

# A copy of the index: chromadb may touch the directory it reads, and the
# description vectors of the embedder alone are wanted (a fresh keywords
# directory gets exactly one file: the reranker is off below).
log "copying the index $SRC_HOME"
cp -a "$SRC_HOME" "$OUT/home"
rm -f "$OUT/home/keywords"/descriptions-*.vec "$OUT/home/chroma/cmdai.pid"
export CMDAI_HOME="$OUT/home" CMDAI_AUTO_SERVE=false

cp "$REPO/search/evaluate/requests/requests-train.jsonl" "$OUT/train.jsonl"
python3 "$REPO/scripts/research/nl2bash-queries.py" "$NL2BASH" --split train >>"$OUT/train.jsonl"
log "the train requests' vectors and learned mode's features (index eval)"
"$CMDAI" index eval --queries "$OUT/train.jsonl" -k 20 --mode learned --no-rerank \
	--vectors "$OUT/vectors.jsonl" --features "$OUT/features.jsonl" >"$OUT/base.txt"
desc=("$OUT/home/keywords"/descriptions-*.vec)
if [ "${#desc[@]}" != 1 ] || [ ! -f "${desc[0]}" ]; then
	log "expected one description-vector file, got: ${desc[*]}"
	exit 1
fi

log "fitting (penalties $L2, 5-fold CV on a proxy; then every request)"
"$PY" "$REPO/scripts/research/train-adapter.py" fit --chroma-dir "$OUT/home/chroma" \
	--desc "${desc[0]}" --vectors "$OUT/vectors.jsonl" --l2 "$L2" \
	--out "$OUT/adapter.bin" --folds-out "$OUT/folds" 2>&1 | tee "$OUT/fit.log" >&2
sha256sum "$OUT/adapter.bin" | tee "$OUT/adapter.sha256" >&2
cp "$OUT/adapter.bin" "$REPO/scripts/install/reranker/adapter.bin"
sed -i "s/^ADAPTER_SHA256=.*/ADAPTER_SHA256=$(cut -d' ' -f1 "$OUT/adapter.sha256")/" "$REPO/scripts/install/build-reranker.sh"

log "5-fold CV: learned mode with the adapter's features, each request's from an adapter fitted without it"
"$PY" "$REPO/scripts/research/adapter-features.py" "$OUT/features.jsonl" "$OUT/features-adapter.jsonl" \
	--folds "$OUT/folds" --vectors "$OUT/vectors.jsonl" --desc "${desc[0]}"
"$PY" "$REPO/scripts/research/cv-arms.py" learned="$OUT/features.jsonl" \
	learned+adapter="$OUT/features-adapter.jsonl" | tee "$OUT/cv.txt"
