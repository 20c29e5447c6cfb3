#!/usr/bin/env bash
# One job of .github/workflows/build-indexes.yml: build cmdai and what it
# needs, index this machine from a clean home, export the index with its
# checksums file into OUTDIR, and check the result. .ci/run runs it too
# (scripts/ci/test-pipeline.sh, on a few commands), so the pipeline's logic is
# tested on every change, not only in the release workflow.
#
# Usage: scripts/ci/ci-build-index.sh OUTDIR [cmdai index init flags...]
# Env: CMDAI_DISTRO to label the index (default: detected).
set -euo pipefail
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
# shellcheck disable=SC1091 # the GNU/macOS helpers: sha256_of, file_size, ...
. "$REPO/scripts/lib/portable.sh"
OUT="${1:?usage: ci-build-index.sh OUTDIR [init flags...]}"
shift
mkdir -p "$OUT"
OUT="$(cd "$OUT" && pwd)"
export CMDAI_TOOLS="${CMDAI_TOOLS:-$REPO/.tools}"
BIN="$REPO/bin/cmdai"

make -C "$REPO" build model chroma
# A home of its own: the index holds this build only, nothing cached.
home="$(mktemp -d)"
trap 'rm -rf "$home"' EXIT
export CMDAI_HOME="$home" CMDAI_BATCH_MODE=1
"$BIN" model import "$CMDAI_TOOLS/model/all-MiniLM-L6-v2"
"$BIN" index init --batch-mode "$@" > "$OUT/init-summary.json"
"$BIN" index export "$OUT" --json > "$OUT/export.json"

# The tarball must verify, validate and answer.
tarball="$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["path"])' "$OUT/export.json")"
(cd "$OUT" && sha256_check "$(basename "$tarball").sha256")
"$BIN" index import "$tarball" --validate
# The proof before upload: at least CMDAI_MIN_COMMANDS commands and the
# canonical requests (or CMDAI_PROVE_REQUESTS) answered in the top 3.
"$REPO/scripts/ci/ci-prove-index.sh"
echo "built $(basename "$tarball") in $OUT"
