#!/usr/bin/env bash
# The publish job of .github/workflows/release-program.yml: merges the
# SHA256SUMS.<platform> files of each platform's `make dist` in DIR into
# one DIR/SHA256SUMS (sorted by name), refuses a file listed twice with
# two sums, checks every file (`sha256sum -c`; `shasum -a 256 -c` on
# macOS) and removes the parts.
# Usage: scripts/ci/ci-merge-sha256sums.sh DIR
set -euo pipefail
# shellcheck disable=SC1091 # the GNU/macOS helpers: sha256_of, file_size, ...
. "$(dirname "${BASH_SOURCE[0]}")/../lib/portable.sh"
DIR="${1:?usage: ci-merge-sha256sums.sh DIR}"
cd "$DIR"
shopt -s nullglob
parts=(SHA256SUMS.*)
if [ ${#parts[@]} -eq 0 ]; then
	echo "no SHA256SUMS.* in $DIR" >&2
	exit 1
fi
cat "${parts[@]}" | LC_ALL=C sort -u -k2 -k1 >SHA256SUMS.merged
dup="$(awk '{print $2}' SHA256SUMS.merged | uniq -d)"
if [ -n "$dup" ]; then
	echo "listed with two different sums: $dup" >&2
	exit 1
fi
mv SHA256SUMS.merged SHA256SUMS
rm "${parts[@]}"
sha256_check SHA256SUMS
echo "merged ${#parts[@]} SHA256SUMS files into $DIR/SHA256SUMS"
