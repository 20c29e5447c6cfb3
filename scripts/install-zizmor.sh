#!/usr/bin/env bash
# Installs zizmor (the GitHub Actions security linter) from PyPI, pinned,
# in its own venv:
#   ${CMDAI_TOOLS:-<repo>/.tools}/zizmor/venv/bin/zizmor
# scripts/lint-workflows.sh runs it offline over .github/workflows.
# Idempotent: a stamp records the version. Options: --force  reinstall.
set -euo pipefail
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
TOOLS="${CMDAI_TOOLS:-$REPO/.tools}"
DIR="$TOOLS/zizmor"
VENV="$DIR/venv"
VERSION="1.32.0"
PYTHON="${PYTHON:-python3}"

force=0
[ "${1:-}" = "--force" ] && force=1
if [ "$force" = 0 ] && [ -x "$VENV/bin/zizmor" ] && [ "$(cat "$DIR/stamp" 2>/dev/null)" = "$VERSION" ]; then
	exit 0
fi
start=$(date +%s)
rm -rf "$VENV" "$DIR/stamp"
mkdir -p "$DIR"
"$PYTHON" -m venv "$VENV"
"$VENV/bin/pip" install --quiet --disable-pip-version-check "zizmor==$VERSION"
# Check the installed version before recording success.
got="$("$VENV/bin/zizmor" --version)"
if [ "$got" != "zizmor $VERSION" ]; then
	echo "install-zizmor: wanted zizmor $VERSION, got: $got" >&2
	exit 1
fi
echo "$VERSION" >"$DIR/stamp"
echo "installed zizmor $VERSION into $VENV in $(($(date +%s) - start))s"
