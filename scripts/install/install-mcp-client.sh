#!/usr/bin/env bash
# Installs the MCP client the tests of `cmdai mcp` talk through: PyPI's
# `mcp` (the reference Python SDK, a client we did not write), pinned, in
# its own venv:
#   ${CMDAI_TOOLS:-<repo>/.tools}/mcp-client/venv/bin/python
# cmd/cmdai's MCP test runs scripts/ci/mcp-client-check.py with that python
# and fails when it is missing. Idempotent: a stamp records the version.
# Options: --force  reinstall.
set -euo pipefail
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
TOOLS="${CMDAI_TOOLS:-$REPO/.tools}"
VERSION="2.3.0"
# shellcheck disable=SC1091 # pinned_venv
. "$REPO/scripts/lib/pinned-venv.sh"
[ "${1:-}" = "--force" ] && export FORCE=1
# The stdio client must import before the install is recorded.
pinned_venv "$TOOLS/mcp-client" mcp "$VERSION" python python -c 'import mcp, mcp.client.stdio'
