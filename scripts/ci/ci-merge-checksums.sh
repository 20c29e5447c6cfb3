#!/usr/bin/env bash
# The release job of .github/workflows/build-indexes.yml: verifies each
# chroma-index-*.tar.gz (and the model's cmdai-model_*.tar.gz) in DIR
# against its .sha256 and merges those into DIR/checksums.txt, the file
# `cmdai index download` reads (--list, and the sums when there is no
# per-file one).
# Usage: scripts/ci/ci-merge-checksums.sh DIR
set -euo pipefail
# shellcheck disable=SC1091 # the GNU/macOS helpers: sha256_of, file_size, ...
. "$(dirname "${BASH_SOURCE[0]}")/../lib/portable.sh"
DIR="${1:?usage: ci-merge-checksums.sh DIR}"
cd "$DIR"
shopt -s nullglob
sums=(chroma-index-*.tar.gz.sha256)
indexes=${#sums[@]}
sums+=(cmdai-model_*.tar.gz.sha256)
if [ "$indexes" -eq 0 ]; then
	echo "no chroma-index-*.tar.gz.sha256 in $DIR" >&2
	exit 1
fi
for s in "${sums[@]}"; do
	sha256_check "$s"
done
cat "${sums[@]}" | LC_ALL=C sort -k2 > checksums.txt
sha256_check checksums.txt
echo "merged ${#sums[@]} checksums into $DIR/checksums.txt"
