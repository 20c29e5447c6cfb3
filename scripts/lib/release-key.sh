# shellcheck shell=bash
# The release public keys pinned in this tree (packaging/release-key.pub,
# embedded in every cmdai built from it), for the scripts that sign with
# or check against them: one base64 key a line on stdout, comments and
# minisign's "untrusted comment:" lines left out. Nothing when no key has
# been made yet. CMDAI_RELEASE_KEY_FILE names another file (tests).
release_key_file() {
	echo "${CMDAI_RELEASE_KEY_FILE:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/packaging/release-key.pub}"
}
release_keys() {
	grep -v -e '^[[:space:]]*#' -e '^untrusted comment:' -e '^[[:space:]]*$' "$(release_key_file)" || true
}
