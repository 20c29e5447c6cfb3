#!/usr/bin/env bash
# Installs the MCP client the tests of `cmdai mcp` talk through: PyPI's
# `mcp` (the reference Python SDK, a client we did not write), pinned, in
# its own venv:
#   ${CMDAI_TOOLS:-<repo>/.tools}/mcp-client/venv/bin/python
# cmd/cmdai's MCP test runs scripts/mcp-client-check.py with that python
# and fails when it is missing. Idempotent: a stamp records the version.
# Options: --force  reinstall.
set -euo pipefail
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
TOOLS="${CMDAI_TOOLS:-$REPO/.tools}"
DIR="$TOOLS/mcp-client"
VENV="$DIR/venv"
VERSION="2.3.0"
PYTHON="${PYTHON:-python3}"

force=0
[ "${1:-}" = "--force" ] && force=1
if [ "$force" = 0 ] && [ -x "$VENV/bin/python" ] && [ "$(cat "$DIR/stamp" 2>/dev/null)" = "$VERSION" ]; then
	echo "mcp $VERSION already in $VENV"
	exit 0
fi
start=$(date +%s)
rm -rf "$VENV" "$DIR/stamp"
mkdir -p "$DIR"
"$PYTHON" -m venv "$VENV"
"$VENV/bin/pip" install --quiet --disable-pip-version-check "mcp==$VERSION"
# Check that the stdio client imports before recording success.
"$VENV/bin/python" -c 'import mcp, mcp.client.stdio'
echo "$VERSION" >"$DIR/stamp"
echo "installed mcp $VERSION into $VENV in $(($(date +%s) - start))s"
