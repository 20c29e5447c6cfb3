#!/usr/bin/env bash
# Builds libtokenizers.a (the Rust half of github.com/daulet/tokenizers,
# which hugot links when built with -tags ORT) into $CMDAI_TOOLS/lib.
#
# The crate ships inside the Go module, so the source comes from the Go
# module proxy; its Rust dependencies come from crates.io. One dependency
# upstream is a git branch on GitHub (steved/tiktoken-rs, only used for
# tiktoken-format tokenizers, not by hugot/BERT); we swap it for the
# crates.io release with the same API so no GitHub access is needed.
#
# Idempotent: does nothing when the library for this version is present;
# the cargo target dir is cached under $CMDAI_TOOLS/build so rebuilds are
# incremental. Needs: go, cargo/rustc (>= 1.85).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck disable=SC1091 # the GNU/macOS helpers: sha256_of, file_size, ...
. "$here/../lib/portable.sh"
repo="$(cd "$here/../.." && pwd)"
tools="${CMDAI_TOOLS:-$repo/.tools}"
lib="$tools/lib"
build="$tools/build"

# Version: whatever the repo's go.mod requires (it appears there, as an
# indirect requirement, once hugot is added); v1.24.0 is what hugot v0.6.1 needs.
ver="${TOKENIZERS_VERSION:-}"
if [ -z "$ver" ] && [ -f "$repo/go.mod" ]; then
	# (awk exits at the first match itself: `| head -n1` could kill it with
	# SIGPIPE, which pipefail turns into a failure)
	ver="$(awk '$1 == "github.com/daulet/tokenizers" {print $2; exit} $2 == "github.com/daulet/tokenizers" {print $3; exit}' "$repo/go.mod")"
fi
ver="${ver:-v1.24.0}"

# crates.io stand-in for the git-only tiktoken-rs fork (same CoreBPE API).
tiktoken_req='tiktoken-rs = "=0.9.1"'
stamp_want="tokenizers=$ver;$tiktoken_req"
stamp="$lib/libtokenizers.a.stamp"

if [ -f "$lib/libtokenizers.a" ] && [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$stamp_want" ]; then
	echo "libtokenizers.a ($ver) already in $lib"
	exit 0
fi

command -v cargo >/dev/null 2>&1 || { echo "cargo not found; install Rust (rustup or apt-get install cargo)" >&2; exit 1; }
command -v go >/dev/null 2>&1 || { echo "go not found" >&2; exit 1; }
mkdir -p "$lib" "$build"

# Download outside any module so the repo's go.mod/go.sum are never touched.
moddir="$(cd "$build" && GO111MODULE=on GOFLAGS=-mod=mod go mod download -json "github.com/daulet/tokenizers@$ver" |
	sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')"
if [ -z "$moddir" ] || [ ! -f "$moddir/Cargo.toml" ]; then
	echo "could not get the Rust crate of daulet/tokenizers $ver" >&2
	exit 1
fi

# The module cache is read-only: build from a writable copy. The copy is
# kept (keyed by version + patch) so cargo's fingerprints stay valid and a
# re-run after deleting lib/libtokenizers.a only relinks.
src="$build/tokenizers-$ver"
if [ ! -f "$src/.prepared" ] || [ "$(cat "$src/.prepared")" != "$stamp_want" ]; then
	rm -rf "$src"
	mkdir -p "$src"
	cp -Rp "$moddir/Cargo.toml" "$moddir/Cargo.lock" "$moddir/src" "$src/"
	[ -d "$moddir/benches" ] && cp -Rp "$moddir/benches" "$src/"
	chmod -R u+w "$src"
	sed_inplace "$src/Cargo.toml" -E "s|^tiktoken-rs[[:space:]]*=.*git.*$|$tiktoken_req|"
	if grep -q 'git *=' "$src/Cargo.toml"; then
		echo "Cargo.toml still has a git dependency:" >&2
		grep 'git *=' "$src/Cargo.toml" >&2
		exit 1
	fi
	echo "$stamp_want" >"$src/.prepared"
fi

echo "building libtokenizers.a ($ver) with $(cargo --version)..."
start=$(date +%s)
(cd "$src" && CARGO_TARGET_DIR="$build/cargo-target" cargo build --release --lib)
echo "cargo build took $(($(date +%s) - start))s"

out="$build/cargo-target/release/libtokenizers.a"
[ -f "$out" ] || { echo "cargo produced no $out" >&2; exit 1; }
# The Go side checks the crate version at link time (tokenizers_version_X_Y_Z).
if command -v nm >/dev/null 2>&1; then
	# (grep without -q: -q exits early, nm gets SIGPIPE and pipefail fails the test)
	syms="$(nm -g --defined-only "$out" 2>/dev/null | grep ' T tokenizers_version_' || true)"
	[ -n "$syms" ] || echo "warning: no tokenizers_version_* symbol in $out" >&2
	[ -z "$syms" ] || echo "link-time version symbol: ${syms##* }"
fi
cp "$out" "$lib/libtokenizers.a.tmp"
mv "$lib/libtokenizers.a.tmp" "$lib/libtokenizers.a"
echo "$stamp_want" >"$stamp"
echo "installed $lib/libtokenizers.a ($(du -h "$lib/libtokenizers.a" | cut -f1))"
