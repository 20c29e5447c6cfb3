#!/usr/bin/env bash
# Builds a Debian 13 (trixie) index here, end to end, with the script a
# Linux job of build-indexes.yml runs in its container:
# scripts/ci/ci-index-root.sh, on a stock root, here a debootstrap (minbase,
# from Debian's mirror) standing in for the pinned image, run through
# scripts/ci/chroot-docker.sh in place of `docker run` (this machine has no
# Docker daemon nor registry). Inside the root, scripts/ci/ci-prepare-root.sh
# (the apt path) restores the documentation and installs the package set
# of scripts/ci/index-packages.txt; cmdai in its release layout, mounted at
# /opt/cmdai, runs `index init` against a Chroma server outside the root;
# then the proof, the checksum and the manifest's packages.
#
# Before that, the root is made to look like a minimized image (Ubuntu's
# dpkg path-exclude of /usr/share/man and its /usr/bin/man diversion), grep
# is installed again under it and its page must be gone; after the build,
# the page must be back, the exclude and the diversion gone: the restore
# logic, proved on a real root.
# Needs root (chroot, mount) and debootstrap (scripts/install/install-test-deps.sh).
# Called by `make test`. The root is cached in $CMDAI_TOOLS/debootstrap,
# keyed by the suite, the mirror and the package list.
set -euo pipefail
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
export CMDAI_TOOLS="${CMDAI_TOOLS:-$REPO/.tools}"
SUITE=trixie
DISTRO=debian-13
MIRROR="${DEBIAN_MIRROR:-http://deb.debian.org/debian}"
log() { echo "test-debian13: $*"; }
fail() { echo "test-debian13: FAIL: $*" >&2; exit 1; }
[ "$(id -u)" -eq 0 ] || fail "needs root (debootstrap, chroot, mount): run it as root, as CI does"
command -v debootstrap >/dev/null || fail "no debootstrap: scripts/install/install-test-deps.sh installs it"
start=$SECONDS
make -s -C "$REPO" build chroma >/dev/null

# The stock root: minbase, what Debian's image holds; the package set is
# ci-prepare-root.sh's to install, as in CI.
key="$(sha256sum <"$REPO/scripts/ci/index-packages.txt" | cut -c1-12)"
root="$CMDAI_TOOLS/debootstrap/$SUITE-minbase-$(printf '%s %s %s' "$SUITE" "$MIRROR" "$key" | sha256sum | cut -c1-12)"
if [ ! -e "$root/.complete" ]; then
	rm -rf "$root" "$root.tmp"
	mkdir -p "$(dirname "$root")"
	log "debootstrap $SUITE (minbase) from $MIRROR"
	# debootstrap fetches with wget, whose defaults wait 15 minutes on a
	# stalled transfer and try 20 times: a stalled mirror would eat CI's
	# time. A stall is cut after 60 s and tried again, a few times.
	printf 'read_timeout = 60\ntries = 4\nwaitretry = 5\n' >"$CMDAI_TOOLS/debootstrap/wgetrc"
	WGETRC="$CMDAI_TOOLS/debootstrap/wgetrc" debootstrap --variant=minbase "$SUITE" "$root.tmp" "$MIRROR" >"$CMDAI_TOOLS/debootstrap/$SUITE.log" 2>&1 ||
		fail "debootstrap failed: $(tail -3 "$CMDAI_TOOLS/debootstrap/$SUITE.log")"
	touch "$root.tmp/.complete"
	mv "$root.tmp" "$root"
fi
log "root ready in $root ($((SECONDS - start)) s)"

work="$(mktemp -d)"
umount_proc() { if mountpoint -q "$root/proc"; then umount "$root/proc"; fi; }
cleanup() {
	umount_proc
	rm -rf "$work"
}
trap cleanup EXIT
in_root() { chroot "$root" /usr/bin/env -i HOME=/root PATH=/usr/sbin:/usr/bin:/sbin:/bin DEBIAN_FRONTEND=noninteractive "$@"; }

# A minimized image, as Ubuntu's: man pages excluded from dpkg, and man
# diverted behind a stub. grep installed again under the exclude loses its
# page (from the archive: the cached root's own .deb may be gone from it).
page=/usr/share/man/man1/grep.1.gz
cp /etc/resolv.conf "$root/etc/resolv.conf"
printf '%s\n' '# test-debian13: what Ubuntu minimized images ship' 'path-exclude=/usr/share/man/*' \
	'path-exclude=/usr/share/doc/*' 'path-include=/usr/share/doc/*/copyright' >"$root/etc/dpkg/dpkg.cfg.d/excludes"
in_root apt-get update -q >"$work/apt.log" 2>&1 || fail "apt-get update in the root: $(tail -3 "$work/apt.log")"
in_root sh -c 'cd /tmp && apt-get download grep' >>"$work/apt.log" 2>&1 || fail "apt-get download grep: $(tail -3 "$work/apt.log")"
in_root sh -c 'dpkg -i /tmp/grep_*.deb && rm -f /tmp/grep_*.deb' >>"$work/apt.log" 2>&1 || fail "dpkg -i grep: $(tail -3 "$work/apt.log")"
[ ! -e "$root$page" ] || fail "grep installed under path-exclude=/usr/share/man/* still has $page: the simulation is wrong"
in_root dpkg-divert --quiet --local --add --divert /usr/bin/man.REAL --rename /usr/bin/man
printf '#!/bin/sh\necho "This system has been minimized"\nexit 1\n' >"$root/usr/bin/man"
chmod 0755 "$root/usr/bin/man"
log "minimized: $page gone, /usr/bin/man diverted to man.REAL"

# cmdai in its release layout (what `make dist` archives, the model beside).
opt="$work/opt"
mkdir -p "$opt/bin" "$opt/lib/cmdai" "$opt/share/cmdai/models"
cp "$REPO/bin/cmdai" "$opt/bin/cmdai"
cp -L "$CMDAI_TOOLS/lib/libonnxruntime.so" "$opt/lib/cmdai/libonnxruntime.so"
cp -r "$CMDAI_TOOLS/model/all-MiniLM-L6-v2" "$opt/share/cmdai/models/"

# A container starts with a fresh home: the root's index data goes (its
# embedding cache stays, which is what makes a second run quick).
rm -rf "$root/root/.local/share/cmdai"
umount_proc
DOCKER="$REPO/scripts/ci/chroot-docker.sh" CHROOT_DOCKER_ROOT="$root" \
	"$REPO/scripts/ci/ci-index-root.sh" --distro "$DISTRO" --image "debian:13 (debootstrap $SUITE)" --out "$work/out" \
	--opt "$opt" --chroma "$CMDAI_TOOLS/chroma/venv/bin/chroma" | tee "$work/build.log" ||
	fail "scripts/ci/ci-index-root.sh failed on the Debian 13 root"

# The restore: the page is back, the exclude and the diversion are gone.
[ -e "$root$page" ] || fail "ci-prepare-root.sh did not bring back $page"
! grep -rqs '/usr/share/man' "$root/etc/dpkg/dpkg.cfg.d/" || fail "a dpkg path-exclude of /usr/share/man is left: $(grep -rs /usr/share/man "$root/etc/dpkg/dpkg.cfg.d/")"
[ "$(in_root dpkg-divert --truename /usr/bin/man)" = /usr/bin/man ] || fail "/usr/bin/man is still diverted"
in_root man --version >/dev/null || fail "man in the root is not man-db's after the restore"
grep -q '^ci-prepare-root: reinstalling .*grep' "$work/build.log" || fail "ci-prepare-root.sh did not say it reinstalled grep"
log "restored: $page back, no path-exclude, /usr/bin/man is man-db's"
log "ok in $((SECONDS - start)) s"
