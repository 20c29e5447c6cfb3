#!/usr/bin/env bash
# Measures `cmdai mcp` through PyPI's mcp client: the bytes of typical
# search_commands and command_docs answers and the time of warm tool calls
# (scripts/ci/mcp-client-check.py --requests), against the index of this
# machine (CMDAI_HOME and the other CMDAI_* settings apply).
# Needs bin/cmdai (make build), an index (cmdai index init) and the client
# (make mcp-client). Prints the figures as one JSON line.
# Usage: scripts/bench/bench-mcp.sh [REQUESTS.jsonl]   (default: cmd/cmdai/testdata/requests.jsonl)
set -euo pipefail
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
TOOLS="${CMDAI_TOOLS:-$REPO/.tools}"
PY="$TOOLS/mcp-client/venv/bin/python"
REQUESTS="${1:-$REPO/cmd/cmdai/testdata/requests.jsonl}"
[ -x "$PY" ] || { echo "no MCP client in $PY: run make mcp-client" >&2; exit 1; }
[ -x "$REPO/bin/cmdai" ] || { echo "no bin/cmdai: run make build" >&2; exit 1; }
export CMDAI_ORT_LIB_DIR="${CMDAI_ORT_LIB_DIR:-$TOOLS/lib}"
"$PY" "$REPO/scripts/ci/mcp-client-check.py" --calls 50 --requests "$REQUESTS" -- "$REPO/bin/cmdai" mcp
