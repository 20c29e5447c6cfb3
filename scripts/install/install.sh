#!/usr/bin/env bash
# `make install`, `make uninstall` and the relocatable Chroma server they
# install (docs/install.md). The run-time layout under PREFIX:
#   bin/cmdai                                   the program (ONNX Runtime build)
#   lib/cmdai/libonnxruntime.so                 ONNX Runtime
#   lib/cmdai/chroma/bin/chroma                 the pinned Chroma server: a launcher,
#   lib/cmdai/chroma/lean.py                    the program it runs (chroma/launcher's)
#   lib/cmdai/chroma/site-packages/             and its packages (pip --target)
#   share/cmdai/models/all-MiniLM-L6-v2/        the model, as .tools/model holds it
#   share/cmdai/models/cmdai-reranker/          learned mode's reranker (`make reranker`), when built
#   share/man/man1/cmdai.1                      made by `cmdai __man`
#   share/bash-completion/completions/cmdai     made by `cmdai completion ...`
#   share/zsh/site-functions/_cmdai
#   share/fish/vendor_completions.d/cmdai.fish
#   share/doc/cmdai/{LICENSE,THIRD_PARTY_NOTICES}   when the checkout has them
# Every file goes under $DESTDIR$PREFIX; what is written into files (the
# man page's FILES) names $PREFIX. Nothing outside it is touched: cmdai
# uses the model installed here when the user's data directory has none,
# so one copy of it (110 MB) serves every user (issue 46).
#
#   scripts/install/install.sh chroma      build the Chroma server install copies, once per
#                                  scripts/install/chroma-constraints.txt and Python version,
#                                  into $CMDAI_TOOLS/chroma/portable (about 500 MB)
#   scripts/install/install.sh install     PREFIX=... [DESTDIR=...] [BIN=bin/cmdai]
#   scripts/install/install.sh uninstall   PREFIX=... [DESTDIR=...]: removes what install
#                                  wrote (the model with it); the user's index stays
#   scripts/install/install.sh launcher DIR VERSION   writes the launcher (DIR/bin/chroma, for
#                                  Python VERSION) and DIR/lean.py as install does (tests)
set -euo pipefail
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
# shellcheck disable=SC1091 # the GNU/macOS helpers: sha256_of, file_size, ...
. "$REPO/scripts/lib/portable.sh"
TOOLS="${CMDAI_TOOLS:-$REPO/.tools}"
STAGE="$TOOLS/chroma/portable"
CONSTRAINTS="$REPO/scripts/install/chroma-constraints.txt"
PYTHON="${PYTHON:-python3}"
MODEL=all-MiniLM-L6-v2
RERANKER=cmdai-reranker
ORTLIB=libonnxruntime.so
if [ "$(uname -s)" = Darwin ]; then
	ORTLIB=libonnxruntime.dylib
fi

die() {
	echo "install: $*" >&2
	exit 1
}

# The files install writes, relative to PREFIX; the directories it owns
# whole; and its own directories, deepest first, which uninstall removes
# when they are left empty. Shared ones (bin, share/man/man1, ...) stay,
# even empty: /usr/local/bin is not ours to remove.
FILES=(
	bin/cmdai
	"lib/cmdai/$ORTLIB"
	share/man/man1/cmdai.1
	share/bash-completion/completions/cmdai
	share/zsh/site-functions/_cmdai
	share/fish/vendor_completions.d/cmdai.fish
	share/doc/cmdai/LICENSE
	share/doc/cmdai/THIRD_PARTY_NOTICES
)
OWNED_DIRS=(lib/cmdai/chroma "share/cmdai/models/$MODEL" "share/cmdai/models/$RERANKER")
OWN_PARENTS=(lib/cmdai share/cmdai/models share/cmdai share/doc/cmdai)

# root sets ROOT=$DESTDIR$PREFIX, refusing a relative PREFIX: paths
# written into files must mean the same from any directory.
root() {
	PREFIX="${PREFIX:-$HOME/.local}"
	case "$PREFIX" in
	/*) ;;
	*) die "PREFIX must be an absolute path, not \"$PREFIX\" (e.g. make install PREFIX=\$HOME/.local)" ;;
	esac
	PREFIX="${PREFIX%/}"
	DESTDIR="${DESTDIR:-}"
	ROOT="${DESTDIR%/}$PREFIX"
}

python_version() {
	"$PYTHON" -c 'import sys; print("%d.%d" % sys.version_info[:2])'
}

chroma_version() {
	sed -n 's/^chromadb==//p' "$CONSTRAINTS"
}

# stage_chroma installs chromadb with `pip install --target`: a plain
# directory of packages that works wherever it is copied (a venv does not:
# its scripts and pyvenv.cfg name its own path). Binary wheels only, so
# no compiler is needed and what is installed is what PyPI built. Without
# its dependencies (issue 46): the launcher (lean.py) runs the Rust server
# of chromadb's own wheel (chromadb_rust_bindings), which imports none of
# them; numpy, onnxruntime, kubernetes, grpc and the rest served only the
# Python client and server cmdai never runs: 61 MB installed, not 488.
stage_chroma() {
	command -v "$PYTHON" >/dev/null || die "$PYTHON not found: the Chroma server needs Python 3 with venv (Debian: apt-get install python3-venv)"
	local want version tmp start
	version="$(chroma_version)"
	want="$(sha256_of "$CONSTRAINTS") no-deps python$(python_version)"
	if [ -x "$STAGE/bin/chroma" ] && [ "$(cat "$STAGE/stamp" 2>/dev/null)" = "$want" ]; then
		echo "chroma $version (relocatable) already in $STAGE"
		return
	fi
	start=$(date +%s)
	tmp="$STAGE.tmp"
	rm -rf "$tmp"
	mkdir -p "$tmp/bin"
	# A throwaway venv lends its pip (python3-venv, as `make model` needs;
	# no python3-pip); what it installs with --target is the venv's
	# Python's, not the venv's.
	"$PYTHON" -m venv "$tmp/pip-venv"
	"$tmp/pip-venv/bin/pip" install --quiet --disable-pip-version-check --root-user-action=ignore --no-warn-conflicts \
		--only-binary=:all: --no-deps --target "$tmp/site-packages" "chromadb==$version"
	# Console scripts pip wrote there name the venv's Python by path: unused.
	rm -rf "$tmp/site-packages/bin" "$tmp/pip-venv"
	write_launcher "$tmp" "$(python_version)"
	# Check it runs, the Rust server alone, before recording success.
	"$tmp/bin/chroma" run --help >/dev/null
	"$PYTHON" -I -c 'import sys; sys.path.insert(0, sys.argv[1]); import chromadb_rust_bindings' "$tmp/site-packages" ||
		die "chromadb $version has no chromadb_rust_bindings: the staged server would need its Python dependencies"
	rm -rf "$STAGE"
	mv "$tmp" "$STAGE"
	echo "$want" >"$STAGE/stamp"
	echo "installed chroma $version (pip --target, Python $(python_version)) into $STAGE in $(($(date +%s) - start))s"
}

# write_launcher DIR VERSION writes DIR/bin/chroma, the launcher for
# Python VERSION, and DIR/lean.py, the program it runs: the file cmdai
# embeds for pip's entry point (chroma/launcher), copied as it is, so that
# both start the server with one program.
write_launcher() {
	install -d -m 0755 "$1/bin"
	sed "s/@PYTHON_VERSION@/$2/" "$REPO/scripts/install/chroma-launcher.sh" >"$1/bin/chroma"
	chmod 0755 "$1/bin/chroma"
	install -m 0644 "$REPO/chroma/launcher/lean.py" "$1/lean.py"
}

# generated runs the built binary in an empty environment, so that the
# user's settings and configuration file do not reach what it writes.
generated() {
	local home
	home="$(mktemp -d)"
	env -i HOME="$home" PATH=/usr/bin:/bin "$BIN" "$@"
	rm -rf "$home"
}

install_file() { # mode source destination-under-ROOT
	install -d -m 0755 "$(dirname "$ROOT/$3")"
	install -m "$1" "$2" "$ROOT/$3"
}

install_generated() { # destination-under-ROOT cmdai-arguments...
	local dst="$1" tmp
	shift
	tmp="$(mktemp)"
	generated "$@" >"$tmp"
	install_file 0644 "$tmp" "$dst"
	rm -f "$tmp"
}

# replace_dir copies directory src to ROOT/dst through a temporary
# sibling, so that a reinstall never leaves half of each.
replace_dir() {
	local src="$1" dst="$ROOT/$2"
	install -d -m 0755 "$(dirname "$dst")"
	rm -rf "$dst.tmp"
	cp -pR "$src" "$dst.tmp"
	rm -rf "$dst"
	mv "$dst.tmp" "$dst"
}

do_install() {
	root
	BIN="${BIN:-$REPO/bin/cmdai}"
	local ort model_src stamp
	ort="$(realpath_of "$TOOLS/lib/$ORTLIB" 2>/dev/null)" || true
	model_src="$TOOLS/model/$MODEL"
	[ -x "$BIN" ] || die "$BIN not built: run \`make install\` (it builds it first)"
	[ -f "$ort" ] || die "no ONNX Runtime in $TOOLS/lib: run \`make tools\`"
	[ -f "$model_src/manifest.json" ] || die "no model in $model_src: run \`make model\`"
	stamp="$(cat "$STAGE/stamp" 2>/dev/null)" || die "no relocatable Chroma in $STAGE: run \`make chroma-portable\`"

	echo "installing cmdai into ${DESTDIR:+$DESTDIR}$PREFIX"
	install_file 0755 "$BIN" bin/cmdai
	# One file: cmdai loads it by path, and its SONAME (libonnxruntime.so.1)
	# is needed by nothing else installed.
	install_file 0755 "$ort" "lib/cmdai/$ORTLIB"
	replace_dir "$STAGE/site-packages" lib/cmdai/chroma/site-packages
	write_launcher "$ROOT/lib/cmdai/chroma" "${stamp##* python}"
	replace_dir "$model_src" "share/cmdai/models/$MODEL"
	chmod -R u+rwX,go+rX,go-w "$ROOT/share/cmdai/models/$MODEL"
	# learned mode's reranker, found here by name (optional: without it
	# learned mode ranks as before it)
	if [ -f "$TOOLS/model/$RERANKER/manifest.json" ]; then
		replace_dir "$TOOLS/model/$RERANKER" "share/cmdai/models/$RERANKER"
		chmod -R u+rwX,go+rX,go-w "$ROOT/share/cmdai/models/$RERANKER"
	fi
	install_generated share/man/man1/cmdai.1 __man --prefix "$PREFIX"
	install_generated share/bash-completion/completions/cmdai completion bash
	install_generated share/zsh/site-functions/_cmdai completion zsh
	install_generated share/fish/vendor_completions.d/cmdai.fish completion fish
	for doc in LICENSE THIRD_PARTY_NOTICES; do
		if [ -f "$REPO/$doc" ]; then
			install_file 0644 "$REPO/$doc" "share/doc/cmdai/$doc"
		fi
	done

	if [ -n "$DESTDIR" ]; then
		echo "staged under $DESTDIR"
		return
	fi
	# what it wrote, and how much (issue 46)
	echo "installed under $PREFIX: bin/cmdai $(du -sh "$ROOT/bin/cmdai" | cut -f1), lib/cmdai $(du -sh "$ROOT/lib/cmdai" | cut -f1) (ONNX Runtime, the Chroma server), share/cmdai/models $(du -sh "$ROOT/share/cmdai/models" | cut -f1) (the model and the reranker, used by every user who has none of their own), man page and completions"
	note_own_model
	case ":$PATH:" in
	*":$PREFIX/bin:"*) ;;
	*) echo "note: $PREFIX/bin is not on your PATH: add it (e.g. in ~/.profile: export PATH=\"$PREFIX/bin:\$PATH\")" ;;
	esac
	echo "done: run \`cmdai doctor\`, then \`cmdai index init\`"
}

# note_own_model says so when the installing user's data directory holds a
# copy of the model identical to the installed one (an earlier `make
# install` imported it there): cmdai reads the user's copy first, so it
# is a second 110 MB that nothing needs. It is the user's to remove.
note_own_model() {
	local own
	own="$("$PREFIX/bin/cmdai" model status --json 2>/dev/null | "$PYTHON" -c 'import json, sys; print(json.load(sys.stdin).get("dir", ""))' 2>/dev/null)" || return 0
	case "$own" in
	"" | "$PREFIX/share/cmdai/models/"*) return 0 ;;
	esac
	if cmp -s "$own/manifest.json" "$ROOT/share/cmdai/models/$MODEL/manifest.json"; then
		echo "note: $own is a copy of the installed model ($(du -sh "$own" | cut -f1)); cmdai reads it first. Remove it to keep one copy: rm -r '$own'"
	fi
}

do_uninstall() {
	root
	local f d
	echo "removing cmdai from ${DESTDIR:+$DESTDIR}$PREFIX"
	for f in "${FILES[@]}"; do
		rm -f "${ROOT:?}/$f"
	done
	for d in "${OWNED_DIRS[@]}"; do
		rm -rf "${ROOT:?}/$d" "${ROOT:?}/$d.tmp"
	done
	for d in "${OWN_PARENTS[@]}"; do
		if [ -d "$ROOT/$d" ]; then
			rmdir "$ROOT/$d" 2>/dev/null || true
		fi
	done
	echo "done: your index stays in your data directory (~/.local/share/cmdai unless XDG_DATA_HOME or CMDAI_HOME moves it); the model went with the program (\`make install\` or \`cmdai model import\` brings it back)"
}

case "${1:-}" in
chroma) stage_chroma ;;
install) do_install ;;
uninstall) do_uninstall ;;
launcher) write_launcher "${2:?launcher DIR VERSION}" "${3:?launcher DIR VERSION}" ;;
*) die "usage: $0 chroma|install|uninstall|launcher (PREFIX, DESTDIR and BIN from the environment; see the header)" ;;
esac
