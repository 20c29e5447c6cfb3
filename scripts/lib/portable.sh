# shellcheck shell=bash
# The one place for the tools GNU and macOS spell differently. The scripts
# the workflows run (build-indexes.yml, release-program.yml) run on Linux
# runners and containers (GNU coreutils, bash 5) and on the macOS runners
# (BSD userland, /bin/bash 3.2, no sha256sum, no nproc, no GNU `stat -c`,
# no `readlink -f` or realpath before macOS 12.3/13). Source it:
#   . "$REPO/scripts/lib/portable.sh"
# scripts/ci/test-macos-userland.sh runs these helpers and the scripts using
# them under a PATH that behaves like a Mac's, and lints the scripts for
# GNU-only tools and bash-4-only syntax. Keep this file bash 3.2.

# sha256_of [FILE]: the hex sha256 of FILE, or of stdin without one.
sha256_of() {
	local out
	if command -v sha256sum >/dev/null 2>&1; then
		if [ $# -eq 0 ]; then out="$(sha256sum)"; else out="$(sha256sum "$1")"; fi
	else # macOS: shasum (perl, in the base system)
		if [ $# -eq 0 ]; then out="$(shasum -a 256)"; else out="$(shasum -a 256 "$1")"; fi
	fi || return 1
	out="${out#\\}" # GNU marks an escaped file name with a leading backslash
	printf '%s\n' "${out%% *}"
}

# sha256_check SUMS: checks the files SUMS lists ("<sha256>  <name>" lines,
# names relative to the current directory), as `sha256sum -c` does.
sha256_check() {
	if command -v sha256sum >/dev/null 2>&1; then
		sha256sum -c "$1"
	else
		shasum -a 256 -c "$1"
	fi
}

# file_size FILE: its size in bytes (GNU `stat -c %s`, BSD `stat -f %z`;
# not `wc -c`, which pads its number on macOS).
file_size() {
	local n
	n="$(stat -c %s "$1" 2>/dev/null)" || n="$(stat -f %z "$1")" || return 1
	printf '%s\n' "$n"
}

# ncpu: the number of online CPUs (nproc is GNU only).
ncpu() {
	local n
	n="$(nproc 2>/dev/null)" ||
		n="$(getconf _NPROCESSORS_ONLN 2>/dev/null)" ||
		n="$(sysctl -n hw.ncpu 2>/dev/null)" || n=1
	printf '%s\n' "${n:-1}"
}

# realpath_of PATH: the absolute path of the existing PATH with every
# symlink resolved, as `readlink -f` does; in the shell itself, the same
# on every system (no `readlink -f` or realpath on older macOS).
realpath_of() {
	local p="$1" target dir base hops=0
	while [ -L "$p" ]; do
		hops=$((hops + 1))
		if [ "$hops" -gt 40 ]; then
			echo "realpath_of: too many levels of symlinks: $1" >&2
			return 1
		fi
		target="$(readlink "$p")" || return 1
		case "$target" in
		/*) p="$target" ;;
		*) if [ "${p%/*}" != "$p" ]; then p="${p%/*}/$target"; else p="$target"; fi ;;
		esac
	done
	if [ -d "$p" ]; then
		(cd -P "$p" && pwd -P)
		return
	fi
	[ -e "$p" ] || { echo "realpath_of: no such file: $1" >&2; return 1; }
	case "$p" in
	*/*) dir="${p%/*}" base="${p##*/}" ;;
	*) dir=. base="$p" ;;
	esac
	dir="$(cd -P "${dir:-/}" && pwd -P)" || return 1
	if [ "$dir" = / ]; then printf '/%s\n' "$base"; else printf '%s/%s\n' "$dir" "$base"; fi
}

# sed_inplace FILE SED-ARGS...: edits FILE in place. GNU sed takes `-i`,
# BSD sed `-i ''` (its next argument is the backup suffix): both take an
# attached suffix, removed afterwards.
sed_inplace() {
	local f="$1"
	shift
	sed -i.portable-bak "$@" "$f" && rm -f "$f.portable-bak"
}
