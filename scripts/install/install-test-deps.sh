#!/usr/bin/env bash
# Installs what the tests read on this machine: real man pages (the
# parser is checked against every page installed) and man-db with groff,
# whose "man -P cat" rendering the parser's text is compared with; the
# shells and tools the install test uses.
# Debian/Ubuntu only; does nothing when everything is already there.
set -euo pipefail

need=()
command -v man >/dev/null 2>&1 || need+=(man-db)
command -v groff >/dev/null 2>&1 || need+=(groff-base)
[ -e /usr/share/man/man2/open.2.gz ] || need+=(manpages manpages-dev)
[ -e /usr/share/man/man1/ssh.1.gz ] || need+=(openssh-client)
[ -e /usr/share/man/man1/curl.1.gz ] || need+=(curl)
[ -e /usr/share/man/man1/tar.1.gz ] || need+=(tar)
[ -e /usr/share/man/man1/find.1.gz ] || need+=(findutils)
[ -e /usr/share/man/man1/grep.1.gz ] || need+=(grep)
[ -e /usr/share/man/man1/ls.1.gz ] || need+=(coreutils)
# Subcommand pages (git-commit(1), openssl-req(1ssl)) that explain judges by.
command -v git >/dev/null 2>&1 || need+=(git)
[ -e /usr/share/man/man1/git-commit.1.gz ] || need+=(git-man)
[ -e /usr/share/man/man1/openssl-req.1ssl.gz ] || need+=(openssl)
# The completion scripts are loaded and checked by the shells themselves,
# and the install scripts by shellcheck.
command -v zsh >/dev/null 2>&1 || need+=(zsh)
command -v fish >/dev/null 2>&1 || need+=(fish)
[ -e /usr/share/bash-completion/bash_completion ] || need+=(bash-completion)
command -v shellcheck >/dev/null 2>&1 || need+=(shellcheck)
# A Debian 13 root to build an index in (scripts/ci/test-debian13-index.sh).
command -v debootstrap >/dev/null 2>&1 || need+=(debootstrap)
# The release signer, whose signatures cmdai's check must accept (and the
# tool an air-gapped site verifies a release with).
command -v minisign >/dev/null 2>&1 || need+=(minisign)

if [ ${#need[@]} -eq 0 ]; then
	echo "test dependencies: all present"
	exit 0
fi
if ! command -v apt-get >/dev/null 2>&1; then
	echo "missing: ${need[*]}; install them with your package manager" >&2
	exit 1
fi
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO=sudo
# Minimal images drop man pages at install time; let them through.
if [ -e /etc/dpkg/dpkg.cfg.d/excludes ]; then
	# (-i with an attached suffix: GNU and BSD sed read it alike)
	$SUDO sed -i.cmdai-bak '/usr\/share\/man/d' /etc/dpkg/dpkg.cfg.d/excludes
	$SUDO rm -f /etc/dpkg/dpkg.cfg.d/excludes.cmdai-bak
fi
echo "installing: ${need[*]}"
$SUDO apt-get update -qq
# --reinstall brings back pages of packages installed without them.
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --reinstall "${need[@]}"
