#!/usr/bin/env bash
# Prepares a distribution's stock root for indexing, as root inside it (a
# container of the pinned image in .github/workflows/build-indexes.yml, a
# debootstrap chroot in scripts/ci/test-debian13-index.sh):
#   1. restores the documentation the image strips:
#        apt     path-exclude/path-include of /usr/share/{man,doc,info,groff,
#                locale} in /etc/dpkg/dpkg.cfg.d/* (Ubuntu's minimized
#                images, Debian slim), and Ubuntu's /usr/bin/man diversion
#                (what `unminimize` undoes);
#        dnf     tsflags=nodocs in dnf.conf (Fedora, AlmaLinux, Rocky), and
#                rpm's %_excludedocs if a macros file sets it;
#        pacman  NoExtract of usr/share/{man,doc,info} in pacman.conf (Arch);
#   2. brings the root up to date (the index is of the distribution's current
#      packages, and a reinstall needs the installed version in the archive);
#   3. installs the common tools of the package list, the column of this
#      root's family (scripts/ci/index-packages.txt: apt, fedora, el, pacman);
#   4. reinstalls every installed package whose man pages are missing, so
#      the image's own packages get their pages back;
#   5. fails if a package still misses a page it lists.
# Needs only bash and the package manager: the stock image has no Python.
# Usage: ci-prepare-root.sh [--family apt|fedora|el|pacman] [--print-packages|--restore-only] [LIST]
#   --print-packages  print the family's package names (one a line) and exit
#   --restore-only    step 1 only (with CMDAI_PREPARE_ROOT=DIR: the files
#                     under DIR, no package manager run: how test-pipeline
#                     checks the dnf and pacman rewrites here)
#   LIST              default: index-packages.txt beside this script
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
list="$here/index-packages.txt"
family=""
print_only=0
restore_only=0
# Tests only: the root whose configuration --restore-only rewrites.
R="${CMDAI_PREPARE_ROOT:-}"
while [ $# -gt 0 ]; do
	case "$1" in
	--family) family="${2:?--family needs apt, fedora, el or pacman}"; shift 2 ;;
	--print-packages) print_only=1; shift ;;
	--restore-only) restore_only=1; shift ;;
	-*) echo "ci-prepare-root: unknown option $1 (see the comment at the top)" >&2; exit 2 ;;
	*) list="$1"; shift ;;
	esac
done
log() { echo "ci-prepare-root: $*"; }
die() { echo "ci-prepare-root: $*" >&2; exit 1; }

# os_release_field KEY: the value of KEY in /etc/os-release, unquoted.
os_release_field() {
	local line v
	[ -r /etc/os-release ] || return 0
	while IFS= read -r line; do
		case "$line" in
		"$1="*)
			v="${line#*=}"
			v="${v#\"}" v="${v%\"}"
			printf '%s\n' "$v"
			return 0
			;;
		esac
	done </etc/os-release
}

if [ -z "$family" ]; then
	if command -v apt-get >/dev/null 2>&1; then
		family=apt
	elif command -v dnf >/dev/null 2>&1; then
		if [ "$(os_release_field ID)" = fedora ]; then family=fedora; else family=el; fi
	elif command -v pacman >/dev/null 2>&1; then
		family=pacman
	else
		die "no apt-get, dnf or pacman here: which family is this root?"
	fi
fi
case "$family" in
apt) col=2 ;;
fedora) col=3 ;;
el) col=4 ;;
pacman) col=5 ;;
*) die "unknown family $family (apt, fedora, el, pacman)" ;;
esac

# The package list: "tool apt fedora el pacman  # why", "-" for absent
# (which needs its reason in the comment).
[ -r "$list" ] || die "no package list $list"
packages=()
absent=()
n=0
while IFS= read -r line || [ -n "$line" ]; do
	n=$((n + 1))
	body="${line%%#*}"
	comment=""
	case "$line" in *"#"*) comment="${line#*#}" ;; esac
	# shellcheck disable=SC2206 # split the columns on blanks
	cols=($body)
	[ ${#cols[@]} -eq 0 ] && continue
	[ ${#cols[@]} -eq 5 ] || die "$list:$n: want 5 columns (tool apt fedora el pacman), got ${#cols[@]}: $line"
	name="${cols[$((col - 1))]}"
	if [ "$name" = - ]; then
		[ -n "${comment// /}" ] || die "$list:$n: ${cols[0]} is absent (-) on a family without a reason in a comment"
		absent+=("${cols[0]}")
	else
		packages+=("$name")
	fi
done <"$list"
[ ${#packages[@]} -gt 0 ] || die "$list lists no package for $family"
if [ "$print_only" = 1 ]; then
	printf '%s\n' "${packages[@]}"
	exit 0
fi
[ "$(id -u)" -eq 0 ] || [ -n "$R" ] || die "run it as root inside the root (container or chroot)"

# rewrite FILE AWK-PROGRAM: replaces FILE by the program's output when
# the program reports (on stderr) something it dropped; logs that.
rewrite() {
	local f="$1"
	awk "$2" "$f" >"$f.ci-prepare" 2>"$f.ci-dropped"
	if [ -s "$f.ci-dropped" ]; then
		log "${f#"$R"}: removed $(tr '\n' ' ' <"$f.ci-dropped")"
		cat "$f.ci-prepare" >"$f"
	fi
	rm -f "$f.ci-prepare" "$f.ci-dropped"
}
# strip_lines FILE AWK-CONDITION: drops the lines matching the condition.
strip_lines() { rewrite "$1" "$2 { print > \"/dev/stderr\"; next } { print }"; }

# restore_docs: step 1, the image's documentation switches undone.
restore_docs() {
	local f
	case "$family" in
	apt)
		for f in "$R"/etc/dpkg/dpkg.cfg.d/*; do
			[ -f "$f" ] || continue
			strip_lines "$f" '/^[[:space:]]*path-(exclude|include)[[:space:]=]+\/usr\/share\/(man|doc|info|groff|locale)/'
			# A file left with comments only (Ubuntu's "excludes") goes.
			if ! grep -qv '^[[:space:]]*\(#.*\)\{0,1\}$' "$f"; then
				rm -f "$f"
				log "removed ${f#"$R"} (nothing left in it)"
			fi
		done
		# Ubuntu's minimized images divert man to man.REAL behind a stub.
		if [ -z "$R" ] && [ "$(dpkg-divert --truename /usr/bin/man)" = /usr/bin/man.REAL ]; then
			rm -f /usr/bin/man
			dpkg-divert --quiet --remove --rename /usr/bin/man
			log "removed the diversion of /usr/bin/man (minimized image)"
		fi
		;;
	fedora | el)
		for f in "$R"/etc/dnf/dnf.conf "$R"/etc/yum.conf "$R"/etc/dnf/libdnf5.conf.d/*.conf "$R"/usr/share/dnf5/libdnf.conf.d/*.conf; do
			if [ ! -f "$f" ] || [ -L "$f" ]; then continue; fi
			# tsflags=nodocs (alone or among other flags: only nodocs goes).
			# shellcheck disable=SC2016 # awk's $0, not the shell's
			rewrite "$f" '/^[[:space:]]*tsflags[[:space:]]*=/ && /nodocs/ {
				v = $0; sub(/^[^=]*=/, "", v); gsub(/nodocs/, "", v); gsub(/[[:space:],]+/, " ", v); gsub(/^ | $/, "", v)
				print $0 > "/dev/stderr"
				if (v != "") print "tsflags=" v
				next
			} { print }'
		done
		# rpm's own switch, if an image sets it in a macros file.
		for f in "$R"/etc/rpm/macros*; do
			if [ -f "$f" ]; then strip_lines "$f" '/^[[:space:]]*%_excludedocs[[:space:]]+1/'; fi
		done
		;;
	pacman)
		# NoExtract lines lose their man/doc/info patterns, keep the rest.
		# shellcheck disable=SC2016 # awk's $0, not the shell's
		rewrite "$R/etc/pacman.conf" '/^[[:space:]]*NoExtract[[:space:]]*=/ {
			v = $0; sub(/^[^=]*=/, "", v); n = split(v, t, /[[:space:]]+/); keep = ""; dropped = ""
			for (i = 1; i <= n; i++) {
				if (t[i] == "") continue
				if (t[i] ~ /^!?\/?usr\/share\/(man|doc|info)\//) dropped = dropped " " t[i]; else keep = keep " " t[i]
			}
			if (dropped != "") print "NoExtract" dropped > "/dev/stderr"
			if (keep != "") print "NoExtract =" keep
			next
		} { print }'
		;;
	esac
}

# missing_man_owners: the installed packages whose man pages (files their
# package database lists under /usr/share/man) are not on disk.
missing_man_owners() {
	case "$family" in
	apt)
		awk '/^\/usr\/share\/man\/[^/]+\/./ { n = FILENAME; sub(/.*\//, "", n); sub(/\.list$/, "", n); print n "\t" $0 }' \
			/var/lib/dpkg/info/*.list
		;;
	fedora | el)
		rpm -qa --qf '[%{NAME}\t%{FILENAMES}\n]' | awk -F'\t' '$2 ~ /^\/usr\/share\/man\/[^\/]+\/./'
		;;
	pacman)
		pacman -Ql | awk '$2 ~ /^\/usr\/share\/man\/[^\/]+\/./ { print $1 "\t" $2 }'
		;;
	esac | while IFS='	' read -r pkg f; do
		[ -e "$f" ] || [ -L "$f" ] || printf '%s\n' "$pkg"
	done | sort -u
}

start=$(date +%s)
restore_docs
if [ "$restore_only" = 1 ]; then
	log "$family: documentation switches restored under ${R:-/}"
	exit 0
fi
# Steps 2 and 3: up to date, then the package set.
case "$family" in
apt)
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -q
	apt-get -y -q -o Dpkg::Options::=--force-confold dist-upgrade
	apt-get -y -q -o Dpkg::Options::=--force-confold install --no-install-recommends "${packages[@]}"
	reinstall() { apt-get -y -q -o Dpkg::Options::=--force-confold install --reinstall --no-install-recommends "$@"; }
	;;
fedora | el)
	dnf -y -q upgrade
	# --allowerasing: the images' curl-minimal makes way for curl.
	dnf -y -q install --allowerasing "${packages[@]}"
	reinstall() { dnf -y -q reinstall "$@"; }
	;;
pacman)
	pacman -Sy --noconfirm --needed archlinux-keyring
	pacman -Su --noconfirm
	pacman -S --noconfirm --needed "${packages[@]}"
	reinstall() { pacman -S --noconfirm "$@"; }
	;;
esac

# Steps 4 and 5: the packages whose pages are missing, installed again.
missing="$(missing_man_owners)"
count=0
if [ -n "$missing" ]; then
	# shellcheck disable=SC2086 # one package name a word
	set -- $missing
	count=$#
	log "reinstalling $count packages whose man pages are missing: $*"
	reinstall "$@"
fi
still="$(missing_man_owners)"
[ -z "$still" ] || die "still missing man pages after the reinstall: $(tr '\n' ' ' <<<"$still")"
pages="$(find /usr/share/man -type f -o -type l 2>/dev/null | wc -l | tr -d ' ')"
absent_note=""
[ ${#absent[@]} -eq 0 ] || absent_note=" (absent on $family: ${absent[*]})"
log "$family: ${#packages[@]} listed packages installed$absent_note, $count reinstalled for their pages, $pages files under /usr/share/man, $(($(date +%s) - start)) s"
