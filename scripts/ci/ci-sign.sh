#!/usr/bin/env bash
# Signs a release's checksums files (checksums.txt of the indexes,
# SHA256SUMS of the program) with the project's minisign key, writing
# FILE.minisig beside each, then checks every signature against the public
# key pinned in this tree, so that a secret that does not match the pinned
# key fails the job instead of publishing what every cmdai would refuse.
# The release workflows run it before they upload.
#
# Usage: scripts/ci/ci-sign.sh COMMENT FILE...
#   COMMENT is the signed ("trusted") comment, e.g. "cmdai v1.2.0 indexes".
# Env: CMDAI_MINISIGN_SECRET_KEY  the secret key file's text (repository
#                                 secret; scripts/release/release-key.sh makes it)
#      CMDAI_MINISIGN_PASSWORD    its password, if it was made with one
#
# No key pinned yet (packaging/release-key.pub holds comments only): the
# files stay unsigned, said on stdout, exit 0; cmdai built from this tree
# expects no signature. A key pinned but no secret: exit 1, since cmdai
# built from this tree refuses an unsigned release.
set -euo pipefail
# shellcheck disable=SC1091 # release_keys, release_key_file
. "$(dirname "${BASH_SOURCE[0]}")/../lib/release-key.sh"
fail() {
	echo "ci-sign: $*" >&2
	exit 1
}
[ $# -ge 2 ] || fail "usage: ci-sign.sh COMMENT FILE..."
comment="$1"
shift
keys="$(release_keys)"
if [ -z "$keys" ]; then
	[ -z "${CMDAI_MINISIGN_SECRET_KEY:-}" ] ||
		fail "a signing key is set, but $(release_key_file) pins no public key to check it with: commit the public half (scripts/release/release-key.sh)"
	echo "ci-sign: no release key pinned in $(release_key_file): $* stay unsigned (scripts/release/release-key.sh new makes the key)"
	exit 0
fi
[ -n "${CMDAI_MINISIGN_SECRET_KEY:-}" ] ||
	fail "$(release_key_file) pins a release key, so cmdai built from this tree refuses unsigned releases, but the secret CMDAI_MINISIGN_SECRET_KEY is not set: set it (docs/ci-and-releases.md, "Signing releases"); nothing was signed"
command -v minisign >/dev/null 2>&1 || fail "minisign is not installed (apt-get install minisign; brew install minisign)"

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
(umask 077 && printf '%s\n' "$CMDAI_MINISIGN_SECRET_KEY" >"$tmp/release.key")
for f in "$@"; do
	[ -f "$f" ] || fail "no file $f to sign"
	rm -f "$f.minisig"
	if [ -n "${CMDAI_MINISIGN_PASSWORD:-}" ]; then
		printf '%s\n' "$CMDAI_MINISIGN_PASSWORD" | minisign -S -s "$tmp/release.key" -m "$f" -t "$comment" >/dev/null
	else
		minisign -S -s "$tmp/release.key" -m "$f" -t "$comment" </dev/null >/dev/null
	fi
	ok=""
	for k in $keys; do
		if minisign -V -q -P "$k" -m "$f" >/dev/null 2>&1; then
			ok="$k"
			break
		fi
	done
	[ -n "$ok" ] || fail "the signature of $f does not verify with the key pinned in $(release_key_file): CMDAI_MINISIGN_SECRET_KEY is not its secret half"
	echo "ci-sign: signed $f ($f.minisig), verified with the pinned key $ok"
done
