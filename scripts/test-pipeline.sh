#!/usr/bin/env bash
# Runs the release pipeline's scripts here, as the workflow does, on a few
# commands: ci-build-index.sh for two distribution labels, then
# ci-merge-checksums.sh over their output, then `cmdai index download`
# from that directory as a mirror. Also lints the workflows (actionlint).
# Called by `make test`, hence by .ci/run.
set -euo pipefail
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
export CMDAI_TOOLS="${CMDAI_TOOLS:-$REPO/.tools}"
"$REPO/scripts/install-actionlint.sh"
"$CMDAI_TOOLS/bin/actionlint" -no-color "$REPO"/.github/workflows/*.yml
echo "actionlint: workflows ok"

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
for d in debian-12 ubuntu-24.04; do
	CMDAI_DISTRO=$d "$REPO/scripts/ci-build-index.sh" "$work/dist-$d" --command ls --command grep --command tar
	mkdir -p "$work/release"
	cp "$work/dist-$d"/chroma-index-*.tar.gz* "$work/release/"
done
"$REPO/scripts/ci-merge-checksums.sh" "$work/release"
grep -q "chroma-index-debian-12.tar.gz" "$work/release/checksums.txt"
grep -q "chroma-index-ubuntu-24.04.tar.gz" "$work/release/checksums.txt"
rm "$work/release"/*.sha256 # a release holds the merged file only

home="$(mktemp -d)"
CMDAI_HOME="$home" "$REPO/bin/cmdai" model import "$CMDAI_TOOLS/model/all-MiniLM-L6-v2" >/dev/null
list="$(CMDAI_HOME="$home" "$REPO/bin/cmdai" index download --list --base-url "$work/release")"
echo "$list"
# Outputs are captured, then checked: `cmdai ... | grep -q` lets grep exit
# at its first match, cmdai die of SIGPIPE on its next write, and
# pipefail fail the script with exit 141 (a flaky CI).
grep -q '^ubuntu-24.04 ' <<<"$list"
CMDAI_HOME="$home" "$REPO/bin/cmdai" index download ubuntu-24.04 --base-url "file://$work/release" --batch-mode
answer="$(CMDAI_HOME="$home" "$REPO/bin/cmdai" index query "search for a pattern in files" --distro ubuntu-24.04 -k 1)"
echo "$answer"
if [[ "$answer" != "1. grep "* ]]; then
	echo "test-pipeline: the downloaded index does not answer grep first" >&2
	exit 1
fi
rm -rf "$home"
echo "pipeline scripts: ok"
"$REPO/scripts/test-macos-userland.sh"
