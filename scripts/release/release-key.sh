#!/usr/bin/env bash
# Makes the project's release key pair, once, for a maintainer: minisign
# (Ed25519). The public half goes into packaging/release-key.pub, which
# every cmdai built afterwards pins, and which checks the signatures the
# release workflows make; the secret half goes into a new file that is to
# be stored as the repository secret CMDAI_MINISIGN_SECRET_KEY and then
# destroyed. Refuses when a key is pinned already (rotating is a decision:
# add the new key's line by hand, keep the old one until no supported
# release is signed with it).
#
# Usage: scripts/release/release-key.sh new [DIR]   (the secret file goes to DIR,
#        default: a new private temporary directory)
# Env: CMDAI_RELEASE_KEY_FILE  the public key file to write (tests).
set -euo pipefail
# shellcheck disable=SC1091 # release_keys, release_key_file
. "$(dirname "${BASH_SOURCE[0]}")/../lib/release-key.sh"
fail() {
	echo "release-key: $*" >&2
	exit 1
}
[ "${1:-}" = new ] || fail "usage: release-key.sh new [DIR]"
command -v minisign >/dev/null 2>&1 || fail "minisign is not installed (apt-get install minisign; brew install minisign)"
pub="$(release_key_file)"
[ -z "$(release_keys)" ] || fail "$pub pins a key already; to rotate, add the new key's line by hand and keep the old one until no supported release is signed with it"
dir="${2:-$(mktemp -d)}"
mkdir -p "$dir"
chmod 700 "$dir"
secret="$dir/cmdai-release.key"
[ ! -e "$secret" ] || fail "$secret exists: give another DIR"

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
# No password (-W): the secret lives only in the repository's secret store.
minisign -G -W -p "$work/release.pub" -s "$secret" >/dev/null
chmod 600 "$secret"
{
	echo "# The minisign public key that signs cmdai's releases (checksums.txt and"
	echo "# SHA256SUMS), pinned into every cmdai built from this tree. Its secret"
	echo "# half is the repository secret CMDAI_MINISIGN_SECRET_KEY. Made $(date -u +%Y-%m-%d)."
	cat "$work/release.pub"
} >"$pub.tmp"
mv "$pub.tmp" "$pub"
key="$(release_keys)"
cat <<MSG
release-key: the public key is in $pub:
  $key
Next, in this order:
  1. gh secret set CMDAI_MINISIGN_SECRET_KEY <"$secret"
  2. shred -u "$secret"   (or keep it offline, never in the repository)
  3. commit $pub, and tag a release: its indexes and program are signed, and
     cmdai built from it refuses unsigned ones.
Anyone verifies a release with the key alone:
  minisign -Vm checksums.txt -P $key
MSG
