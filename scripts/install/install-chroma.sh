#!/usr/bin/env bash
# Installs the Chroma server (PyPI's chromadb, pinned with its whole
# dependency closure in scripts/install/chroma-constraints.txt) into a venv:
#   ${CMDAI_TOOLS:-<repo>/.tools}/chroma/venv/bin/chroma
# which is where cmdai looks for it (after --chroma-bin and
# CMDAI_CHROMA_BIN, before $PATH). Idempotent: a stamp records the
# constraints it was built from. About 500 MB; a minute from PyPI.
# Options: --force  reinstall.
set -euo pipefail
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
# shellcheck disable=SC1091 # the GNU/macOS helpers: sha256_of, file_size, ...
. "$REPO/scripts/lib/portable.sh"
TOOLS="${CMDAI_TOOLS:-$REPO/.tools}"
DIR="$TOOLS/chroma"
VENV="$DIR/venv"
CONSTRAINTS="$REPO/scripts/install/chroma-constraints.txt"
VERSION="$(sed -n 's/^chromadb==//p' "$CONSTRAINTS")"
PYTHON="${PYTHON:-python3}"

force=0
[ "${1:-}" = "--force" ] && force=1
want="$(sha256_of "$CONSTRAINTS")"
if [ "$force" = 0 ] && [ -x "$VENV/bin/chroma" ] && [ "$(cat "$DIR/stamp" 2>/dev/null)" = "$want" ]; then
	echo "chroma $VERSION already in $VENV"
	exit 0
fi
start=$(date +%s)
rm -rf "$VENV" "$DIR/stamp"
mkdir -p "$DIR"
"$PYTHON" -m venv "$VENV"
"$VENV/bin/pip" install --quiet --disable-pip-version-check -c "$CONSTRAINTS" "chromadb==$VERSION"
# Check it runs before recording success.
"$VENV/bin/chroma" run --help >/dev/null
echo "$want" >"$DIR/stamp"
echo "installed chroma $VERSION into $VENV in $(($(date +%s) - start))s"
