#!/usr/bin/env bash
# A stand-in for `docker run` where there is no Docker daemon nor registry
# (this machine): runs the command in a local root directory
# (CHROOT_DOCKER_ROOT, e.g. a debootstrap) with chroot, as docker would in
# a container of the image: the -v mounts bound in (":ro" read-only), the
# -e variables the environment beside HOME and PATH, /proc mounted, the
# host's network and resolv.conf (--network host). scripts/ci/test-debian13-index.sh
# gives it to scripts/ci/ci-index-root.sh as DOCKER, so the script the CI jobs
# run is the one tested. Only what ci-index-root.sh uses is emulated:
#   chroot-docker.sh run --rm --network host [-e K=V]... [-v SRC:DST[:ro]]... IMAGE CMD...
# Unlike --rm, the root is kept (the test caches it). Needs root.
set -euo pipefail
die() { echo "chroot-docker: $*" >&2; exit 125; }
root="${CHROOT_DOCKER_ROOT:?the root directory standing in for the image}"
[ -x "$root/bin/sh" ] || die "$root is not a root directory"
[ "${1:-}" = run ] || die "only 'run' is emulated"
shift
envs=()
mounts=()
while [ $# -gt 0 ]; do
	case "$1" in
	--rm) shift ;;
	--network) [ "${2:-}" = host ] || die "only --network host is emulated"; shift 2 ;;
	-e) envs+=("${2:?}"); shift 2 ;;
	-v) mounts+=("${2:?}"); shift 2 ;;
	-*) die "option $1 is not emulated" ;;
	*) break ;;
	esac
done
[ $# -ge 2 ] || die "want IMAGE CMD..."
shift # the image: CHROOT_DOCKER_ROOT stands in for it

mounted=()
cleanup() {
	local i
	for ((i = ${#mounted[@]} - 1; i >= 0; i--)); do umount "${mounted[$i]}" || true; done
}
trap cleanup EXIT
if ! mountpoint -q "$root/proc"; then
	mount -t proc proc "$root/proc"
	mounted+=("$root/proc")
fi
for m in ${mounts[@]+"${mounts[@]}"}; do
	src="${m%%:*}" rest="${m#*:}"
	dst="${rest%%:*}" mode=""
	[ "$rest" = "$dst" ] || mode="${rest#*:}"
	[ -e "$src" ] || die "no $src to mount"
	mkdir -p "$root$dst"
	mount --bind "$src" "$root$dst"
	mounted+=("$root$dst")
	if [ "$mode" = ro ]; then mount -o remount,bind,ro "$root$dst"; fi
done
cp /etc/resolv.conf "$root/etc/resolv.conf"
chroot "$root" /usr/bin/env -i HOME=/root PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
	${envs[@]+"${envs[@]}"} "$@"
