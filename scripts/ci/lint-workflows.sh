#!/usr/bin/env bash
# Lints the pipeline: the GitHub Actions workflows with actionlint (Go
# module proxy) and zizmor (PyPI, --offline: no GitHub API), both pinned
# and installed into $CMDAI_TOOLS, and every scripts/*/*.sh with shellcheck
# (scripts/install/install-test-deps.sh installs it). Fails on any finding. No
# zizmor config: a false positive gets an inline `# zizmor: ignore[rule]`
# with the reason beside it. Called by scripts/ci/test-pipeline.sh
# (`make pipeline`, `make test`).
set -euo pipefail
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
export CMDAI_TOOLS="${CMDAI_TOOLS:-$REPO/.tools}"
"$REPO/scripts/ci/install-actionlint.sh"
"$REPO/scripts/ci/install-zizmor.sh"
if ! command -v shellcheck >/dev/null 2>&1; then
	echo "lint-workflows: shellcheck missing: run scripts/install/install-test-deps.sh (make test-deps)" >&2
	exit 1
fi

"$CMDAI_TOOLS/bin/actionlint" -no-color "$REPO"/.github/workflows/*.yml
echo "actionlint: workflows ok"
# --no-config: a zizmor.yml somewhere up the tree must not silence anything.
"$CMDAI_TOOLS/zizmor/venv/bin/zizmor" --offline --no-config --no-progress --format plain "$REPO/.github/workflows"
echo "zizmor: workflows ok"
shellcheck "$REPO"/scripts/*/*.sh
echo "shellcheck: scripts ok"
