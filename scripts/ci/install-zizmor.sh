#!/usr/bin/env bash
# Installs zizmor (the GitHub Actions security linter) from PyPI, pinned,
# in its own venv:
#   ${CMDAI_TOOLS:-<repo>/.tools}/zizmor/venv/bin/zizmor
# scripts/ci/lint-workflows.sh runs it offline over .github/workflows.
# Idempotent: a stamp records the version. Options: --force  reinstall.
set -euo pipefail
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
TOOLS="${CMDAI_TOOLS:-$REPO/.tools}"
VERSION="1.32.0"
# shellcheck disable=SC1091 # pinned_venv
. "$REPO/scripts/lib/pinned-venv.sh"
[ "${1:-}" = "--force" ] && export FORCE=1
# The installed version is checked before it is recorded.
check_version() {
	local got
	got="$(zizmor --version)"
	[ "$got" = "zizmor $VERSION" ] || { echo "install-zizmor: wanted zizmor $VERSION, got: $got" >&2; return 1; }
}
pinned_venv "$TOOLS/zizmor" zizmor "$VERSION" zizmor check_version
