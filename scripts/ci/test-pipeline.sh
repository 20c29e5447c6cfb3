#!/usr/bin/env bash
# Runs the release pipeline's scripts here, as the workflow does, on a few
# commands: ci-build-index.sh for two distribution labels, then
# the model tarball, ci-merge-checksums.sh and ci-release-notes.sh over
# their output, then `cmdai model pull` and `cmdai index download` from
# that directory as a mirror; then the release's signing (release-key.sh,
# ci-sign.sh) and cmdai's check of it on download and import. Also lints the workflows (actionlint,
# zizmor) and the scripts (shellcheck): scripts/ci/lint-workflows.sh.
# Called by `make test`, hence by .ci/run.
set -euo pipefail
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
export CMDAI_TOOLS="${CMDAI_TOOLS:-$REPO/.tools}"
"$REPO/scripts/ci/lint-workflows.sh" # actionlint, zizmor, shellcheck

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
for d in debian-12 ubuntu-24.04; do
	CMDAI_DISTRO=$d CMDAI_MIN_COMMANDS=3 CMDAI_PROVE_REQUESTS="search for a pattern in files=grep" \
		"$REPO/scripts/ci/ci-build-index.sh" "$work/dist-$d" --command ls --command grep --command tar
	mkdir -p "$work/release"
	cp "$work/dist-$d"/chroma-index-*.tar.gz* "$work/release/"
done
# The model tarball beside them, as the workflow's model job makes it
# (`make dist`'s scripts/release/dist, its line of SHA256SUMS as FILE.sha256).
(cd "$REPO" && go run ./scripts/release/dist -version 0 -bin bin/cmdai -lib "$CMDAI_TOOLS/lib" \
	-model "$CMDAI_TOOLS/model/all-MiniLM-L6-v2" -reranker "$CMDAI_TOOLS/model/cmdai-reranker" -docs LICENSE -mtime 1 -out "$work/dist-model")
(cd "$work/dist-model" && for f in cmdai-model_*.tar.gz; do grep -F "  $f" SHA256SUMS >"$f.sha256"; done)
cp "$work/dist-model"/cmdai-model_*.tar.gz* "$work/release/"

# The Linux index jobs' runtime, laid out from those archives as the tools
# job's artifact is (scripts/ci/ci-tools-layout.sh): it runs from there, and
# a binary needing a newer glibc than the matrix's oldest is refused.
layout=(--program "$(ls "$work"/dist-model/cmdai_*_linux_*.tar.gz)" --model "$(ls "$work"/dist-model/cmdai-model_*.tar.gz)")
"$REPO/scripts/ci/ci-tools-layout.sh" "${layout[@]}" --out "$work/layout"
env -i PATH=/usr/bin:/bin HOME="$work" "$work/layout/opt/bin/cmdai" --version >/dev/null
if "$REPO/scripts/ci/ci-tools-layout.sh" "${layout[@]}" --out "$work/layout-old" --max-glibc 2.17 >"$work/glibc.log" 2>&1; then
	echo "test-pipeline: ci-tools-layout.sh accepted a binary for glibc 2.17: $(cat "$work/glibc.log")" >&2
	exit 1
fi
grep -q 'newer than 2.17 (the oldest in the matrix)' "$work/glibc.log"

# The matrix: every container image pinned by digest, every distribution
# ID one cmdai accepts (distro.Parse), and the package list readable for
# each family, a "-" without its reason refused.
wf="$REPO/.github/workflows/build-indexes.yml"
images="$(sed -n 's/^[[:space:]]*image:[[:space:]]*//p' "$wf" | grep -v '^""')"
[ "$(wc -l <<<"$images")" -ge 8 ] || { echo "test-pipeline: fewer than 8 images in $wf: $images" >&2; exit 1; }
if grep -vE '^[a-z0-9./-]+:[A-Za-z0-9._-]+@sha256:[0-9a-f]{64}$' <<<"$images"; then
	echo "test-pipeline: the images above in $wf are not pinned by digest (name:tag@sha256:...)" >&2
	exit 1
fi
sed -n 's/^[[:space:]]*-* *{* *distro:[[:space:]]*\([a-z0-9.-]*\).*/\1/p' "$wf" | sort -u >"$work/distros"
[ "$(wc -l <"$work/distros")" -ge 10 ] || { echo "test-pipeline: fewer than 10 distributions in $wf" >&2; exit 1; }
while read -r d; do
	"$REPO/bin/cmdai" index scan --distro "$d" --command ls --json >/dev/null </dev/null ||
		{ echo "test-pipeline: cmdai refuses the distribution ID $d of $wf" >&2; exit 1; }
done <"$work/distros"
for fam in apt fedora el pacman; do
	[ "$("$REPO/scripts/ci/ci-prepare-root.sh" --family "$fam" --print-packages | wc -l)" -ge 30 ]
done
printf 'htop htop htop - htop\n' >"$work/bad-list.txt"
if "$REPO/scripts/ci/ci-prepare-root.sh" --family el --print-packages "$work/bad-list.txt" >/dev/null 2>"$work/bad-list.log"; then
	echo "test-pipeline: ci-prepare-root.sh took a package absent on a family without a reason" >&2
	exit 1
fi
grep -q 'without a reason' "$work/bad-list.log"
# The documentation switches of each family's image, undone
# (ci-prepare-root.sh --restore-only on copies of them; the package
# managers themselves run only in CI, but for apt in test-debian13).
fake="$work/fake"
mkdir -p "$fake/dnf/etc/dnf" "$fake/dnf/etc/rpm" "$fake/pacman/etc" "$fake/apt/etc/dpkg/dpkg.cfg.d"
printf '[main]\ngpgcheck=1\ntsflags=nodocs\ninstall_weak_deps=False\n' >"$fake/dnf/etc/dnf/dnf.conf"
printf '%%_excludedocs 1\n%%_install_langs C.utf8\n' >"$fake/dnf/etc/rpm/macros.image-language-conf"
printf '%s\n' '[options]' 'NoExtract  = usr/share/help/* !usr/share/help/en*' 'NoExtract  = usr/share/gtk-doc/html/* usr/share/doc/*' \
	'NoExtract   = usr/share/i18n/charmaps/* usr/share/man/* usr/share/info/*' '[core]' >"$fake/pacman/etc/pacman.conf"
printf '%s\n' '# Drop all man pages' 'path-exclude=/usr/share/man/*' 'path-exclude=/usr/share/doc/*' \
	'path-include=/usr/share/doc/*/copyright' >"$fake/apt/etc/dpkg/dpkg.cfg.d/excludes"
printf 'force-unsafe-io\n' >"$fake/apt/etc/dpkg/dpkg.cfg.d/docker-apt-speedup"
for fam in fedora pacman apt; do
	d="$fake/$fam"
	[ "$fam" = fedora ] && d="$fake/dnf"
	CMDAI_PREPARE_ROOT="$d" "$REPO/scripts/ci/ci-prepare-root.sh" --family "$fam" --restore-only >/dev/null
done
[ "$(cat "$fake/dnf/etc/dnf/dnf.conf")" = "$(printf '[main]\ngpgcheck=1\ninstall_weak_deps=False')" ]
[ "$(cat "$fake/dnf/etc/rpm/macros.image-language-conf")" = '%_install_langs C.utf8' ]
[ "$(cat "$fake/pacman/etc/pacman.conf")" = "$(printf '%s\n' '[options]' 'NoExtract = usr/share/help/* !usr/share/help/en*' \
	'NoExtract = usr/share/gtk-doc/html/*' 'NoExtract = usr/share/i18n/charmaps/*' '[core]')" ]
[ "$(ls "$fake/apt/etc/dpkg/dpkg.cfg.d")" = docker-apt-speedup ]
# An index that does not pass the proof is not built for upload.
if CMDAI_DISTRO=debian-12 CMDAI_MIN_COMMANDS=2 CMDAI_PROVE_REQUESTS="search for a pattern in files=grep" \
	"$REPO/scripts/ci/ci-build-index.sh" "$work/dist-short" --command ls >"$work/short.log" 2>&1; then
	echo "test-pipeline: an index of 1 command passed a proof that asks for 2" >&2
	exit 1
fi
grep -q 'prove: FAIL 1 commands indexed, fewer than the 2' "$work/short.log"
grep -q 'prove: FAIL "search for a pattern in files": none of grep' "$work/short.log"
"$REPO/scripts/ci/ci-merge-checksums.sh" "$work/release"
grep -q "chroma-index-debian-12.tar.gz" "$work/release/checksums.txt"
grep -q "chroma-index-ubuntu-24.04.tar.gz" "$work/release/checksums.txt"
grep -q " cmdai-model_all-MiniLM-L6-v2_.*\.tar\.gz$" "$work/release/checksums.txt"
rm "$work/release"/*.sha256 # a release holds the merged file only

# The notes name what passed and what failed (a made-up failed fedora-40
# job: it left no tarball), keeping another workflow's part of the notes.
printf 'the program part\n' >"$work/old-notes.md"
notes="$(printf 'debian-12\tsuccess\nfedora-40\tfailure\nubuntu-24.04\tsuccess\n' |
	"$REPO/scripts/ci/ci-release-notes.sh" "$work/release" "$work/old-notes.md")"
echo "$notes"
grep -qx 'the program part' <<<"$notes"
grep -qx 'Built: debian-12 ubuntu-24.04' <<<"$notes"
grep -qF '**Failed, not in this build:** fedora-40 (failure)' <<<"$notes"
grep -qF "Model: \`cmdai-model_all-MiniLM-L6-v2_" <<<"$notes"

home="$(mktemp -d)"
# The model comes from the release, as a user's does.
CMDAI_HOME="$home" "$REPO/bin/cmdai" model pull --base-url "$work/release" >/dev/null
list="$(CMDAI_HOME="$home" "$REPO/bin/cmdai" index download --list --base-url "$work/release")"
echo "$list"
# Outputs are captured, then checked: `cmdai ... | grep -q` lets grep exit
# at its first match, cmdai die of SIGPIPE on its next write, and
# pipefail fail the script with exit 141 (a flaky CI).
grep -q '^ubuntu-24.04 ' <<<"$list"
# not signed yet (the signing is below): taken as unsigned, on purpose
CMDAI_HOME="$home" "$REPO/bin/cmdai" index download ubuntu-24.04 --base-url "file://$work/release" --batch-mode --allow-unsigned
answer="$(CMDAI_HOME="$home" "$REPO/bin/cmdai" index query "search for a pattern in files" --distro ubuntu-24.04 -k 1)"
echo "$answer"
if [[ "$answer" != "1. grep "* ]]; then
	echo "test-pipeline: the downloaded index does not answer grep first" >&2
	exit 1
fi

# --- Signing: scripts/release/release-key.sh makes the key pair, ci-sign.sh signs
# the release's checksums.txt as the workflow does, and cmdai checks it on
# download and import. A key file of our own: the tree's may pin a key.
pub="$work/release-key.pub"
printf '# no key made yet\n' >"$pub"
export CMDAI_RELEASE_KEY_FILE="$pub"
cdl() { CMDAI_HOME="$home" "$REPO/bin/cmdai" index download "$@" --batch-mode --validate; }
expect_fail() { # CODE TEXT LOG: the last command's exit code was CODE and LOG says TEXT
	if [ "$rc" -ne "$1" ] || ! grep -qF -- "$2" "$3"; then
		echo "test-pipeline: want exit $1 saying '$2', got $rc: $(cat "$3")" >&2
		exit 1
	fi
}
out="$("$REPO/scripts/ci/ci-sign.sh" "cmdai test indexes" "$work/release/checksums.txt")"
grep -q 'stay unsigned' <<<"$out"
[ ! -e "$work/release/checksums.txt.minisig" ]
"$REPO/scripts/release/release-key.sh" new "$work/keys" >"$work/key.log"
key="$(grep -v -e '^#' -e '^untrusted comment:' "$pub")"
grep -qF "minisign -Vm checksums.txt -P $key" "$work/key.log"
[ "$(stat -c %a "$work/keys/cmdai-release.key")" = 600 ]
rc=0; "$REPO/scripts/release/release-key.sh" new "$work/keys2" 2>"$work/err" || rc=$?
expect_fail 1 "pins a key already" "$work/err"
rc=0; "$REPO/scripts/ci/ci-sign.sh" "cmdai test indexes" "$work/release/checksums.txt" 2>"$work/err" || rc=$?
expect_fail 1 "CMDAI_MINISIGN_SECRET_KEY is not set" "$work/err"
minisign -G -W -p "$work/other.pub" -s "$work/other.key" >/dev/null
rc=0; CMDAI_MINISIGN_SECRET_KEY="$(cat "$work/other.key")" "$REPO/scripts/ci/ci-sign.sh" "cmdai test indexes" "$work/release/checksums.txt" 2>"$work/err" || rc=$?
expect_fail 1 "is not its secret half" "$work/err"
CMDAI_MINISIGN_SECRET_KEY="$(cat "$work/keys/cmdai-release.key")" "$REPO/scripts/ci/ci-sign.sh" "cmdai test indexes" "$work/release/checksums.txt"
# What an air-gapped site runs, with the key alone.
minisign -Vm "$work/release/checksums.txt" -P "$key" >/dev/null

# A signed release downloads with the key, says who signed it, and keeps
# the signed sums beside the file.
cdl ubuntu-24.04 --base-url "$work/release" --public-key "$pub" --dir "$work/dl" 2>"$work/err"
grep -qF "signed by key" "$work/err"
[ -e "$work/dl/checksums.txt.minisig" ]
# Tampered: another tarball under the name, checksums.txt rewritten to match.
cp -r "$work/release" "$work/tampered"
cp "$work/tampered/chroma-index-debian-12.tar.gz" "$work/tampered/chroma-index-ubuntu-24.04.tar.gz"
# shellcheck disable=SC1091 # sha256_of
. "$REPO/scripts/lib/portable.sh"
evil="$(sha256_of "$work/tampered/chroma-index-ubuntu-24.04.tar.gz")"
grep -v ' chroma-index-ubuntu-24.04.tar.gz$' "$work/release/checksums.txt" >"$work/tampered/checksums.txt"
echo "$evil  chroma-index-ubuntu-24.04.tar.gz" >>"$work/tampered/checksums.txt"
rc=0; cdl ubuntu-24.04 --base-url "$work/tampered" --public-key "$key" --dir "$work/dl2" 2>"$work/err" || rc=$?
expect_fail 5 "changed after signing" "$work/err"
[ ! -e "$work/dl2/chroma-index-ubuntu-24.04.tar.gz" ]
# Unsigned where a signature is expected: refused, unless --allow-unsigned.
rm "$work/tampered/checksums.txt.minisig"
cp "$work/release/chroma-index-ubuntu-24.04.tar.gz" "$work/tampered/"
cp "$work/release/checksums.txt" "$work/tampered/"
rc=0; cdl ubuntu-24.04 --base-url "$work/tampered" --public-key "$pub" --dir "$work/dl2" 2>"$work/err" || rc=$?
expect_fail 5 "--allow-unsigned" "$work/err"
cdl ubuntu-24.04 --base-url "$work/tampered" --public-key "$pub" --dir "$work/dl2" --allow-unsigned 2>"$work/err"
grep -qF "warning:" "$work/err"

# Across an air gap: the download directory on a stick, imported with the
# key alone; a stick without the signature is refused when one is required.
cp -r "$work/dl" "$work/usb"
ok="$(CMDAI_HOME="$home" "$REPO/bin/cmdai" index import "$work/usb/chroma-index-ubuntu-24.04.tar.gz" --validate --require-signature --public-key "$key" --json)"
grep -qF "\"signed_by\":\"" <<<"$ok"
rm "$work/usb/checksums.txt.minisig"
rc=0; CMDAI_HOME="$home" "$REPO/bin/cmdai" index import "$work/usb/chroma-index-ubuntu-24.04.tar.gz" --validate --require-signature --public-key "$key" 2>"$work/err" || rc=$?
expect_fail 5 "--require-signature refuses" "$work/err"
rc=0; CMDAI_HOME="$home" "$REPO/bin/cmdai" index import "$work/usb/chroma-index-ubuntu-24.04.tar.gz" --validate --require-signature 2>"$work/err" || rc=$?
expect_fail 2 "pins no release key" "$work/err"
unset CMDAI_RELEASE_KEY_FILE
echo "signing: ok"

rm -rf "$home"
echo "pipeline scripts: ok"
"$REPO/scripts/ci/test-macos-userland.sh"
