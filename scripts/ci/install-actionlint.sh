#!/usr/bin/env bash
# Installs actionlint (the GitHub Actions workflow linter) from the Go
# module proxy into $CMDAI_TOOLS/bin. Idempotent.
set -euo pipefail
VERSION=v1.7.12
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
TOOLS="${CMDAI_TOOLS:-$REPO/.tools}"
# sed, not head: it reads all of the output, so actionlint never meets a
# closed pipe (SIGPIPE) after the first line.
if [ -x "$TOOLS/bin/actionlint" ] && [ "$("$TOOLS/bin/actionlint" -version | sed -n 1p)" = "$VERSION" ]; then
	exit 0
fi
mkdir -p "$TOOLS/bin"
GOBIN="$TOOLS/bin" go install "github.com/rhysd/actionlint/cmd/actionlint@$VERSION"
