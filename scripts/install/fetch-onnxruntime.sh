#!/usr/bin/env bash
# Puts the ONNX Runtime shared library (CPU) into $CMDAI_TOOLS/lib. On
# linux/x86_64 (and linux/aarch64, for the release workflow's arm64 job):
#   libonnxruntime.so.1.23.2   the library (SONAME libonnxruntime.so.1)
#   libonnxruntime.so.1        -> libonnxruntime.so.1.23.2
#   libonnxruntime.so          -> libonnxruntime.so.1.23.2  (what hugot is pointed at)
# On macOS (arm64, x86_64; for the release workflow's macOS jobs, not
# exercised on the Linux machine the tests run on):
#   libonnxruntime.1.23.2.dylib, and libonnxruntime.dylib -> it
#
# Source: the npm package onnxruntime-node, which bundles the official
# libonnxruntime build under bin/napi-v6/linux/x64/. The tarball is fetched
# with `npm pack` (never `npm install`: its postinstall script downloads
# from GitHub) and checked against the sha256/sha512 pinned below.
#
# 1.23.2 matches github.com/yalue/onnxruntime_go v1.25.0 (used by hugot
# v0.6.1), which is built against the 1.23.2 headers (ORT_API_VERSION 23).
# A newer library also serves API 23; an older one (<= 1.22) does not.
#
# Idempotent: does nothing when the pinned library is already installed.
set -euo pipefail

ORT_VERSION=1.23.2
# Observed for onnxruntime-node-1.23.2.tgz (97,134,627 bytes):
TGZ_SHA256=fe70e8de46560c57c2dfb7170770da32dbb21684504a5c904346c44a56e154f2
TGZ_INTEGRITY=sha512-OBTsG0W8ddBVOeVVVychpVBS87A9YV5sa2hJ6lc025T97Le+J4v++PwSC4XFs1C62SWyNdof0Mh4KvnZgtt4aw==
# The library inside it, per platform (member, sha256):
case "$(uname -s)/$(uname -m)" in
Linux/x86_64)
	MEMBER=package/bin/napi-v6/linux/x64/libonnxruntime.so.1
	SO_SHA256=733854c3d7ce45256cc1c22cd4a30373247e1f7b7de8f40beab24211ef8e2a76
	so="libonnxruntime.so.$ORT_VERSION"
	links=(libonnxruntime.so.1 libonnxruntime.so)
	;;
Linux/aarch64 | Linux/arm64)
	MEMBER=package/bin/napi-v6/linux/arm64/libonnxruntime.so.1
	SO_SHA256=648ffa64fbe027ae27139109410900cf776a030dec2dbbac51053318cc44c286
	so="libonnxruntime.so.$ORT_VERSION"
	links=(libonnxruntime.so.1 libonnxruntime.so)
	;;
Darwin/arm64)
	MEMBER=package/bin/napi-v6/darwin/arm64/libonnxruntime.$ORT_VERSION.dylib
	SO_SHA256=7d5ac8528f16a5d157c53eadb4c766bc23f0dbf02c994fb900303e27806e372c
	so="libonnxruntime.$ORT_VERSION.dylib"
	links=(libonnxruntime.dylib)
	;;
Darwin/x86_64)
	MEMBER=package/bin/napi-v6/darwin/x64/libonnxruntime.$ORT_VERSION.dylib
	SO_SHA256=0576e3f8dd16833c291fddd037444672ae20cdc6797db00928cc7527541c5a4a
	so="libonnxruntime.$ORT_VERSION.dylib"
	links=(libonnxruntime.dylib)
	;;
*)
	echo "fetch-onnxruntime.sh: no ONNX Runtime build wired up for $(uname -s)/$(uname -m); cmdai falls back to its pure-Go backend (slow)" >&2
	exit 1
	;;
esac

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck disable=SC1091 # the GNU/macOS helpers: sha256_of, file_size, ...
. "$here/../lib/portable.sh"
repo="$(cd "$here/../.." && pwd)"
tools="${CMDAI_TOOLS:-$repo/.tools}"
lib="$tools/lib"
dl="$tools/build/npm"

link() {
	for l in "${links[@]}"; do ln -sfn "$so" "$lib/$l"; done
}

if [ -f "$lib/$so" ] && [ "$(sha256_of "$lib/$so")" = "$SO_SHA256" ]; then
	link
	echo "onnxruntime $ORT_VERSION already in $lib"
	exit 0
fi

mkdir -p "$lib" "$dl"
tgz="$dl/onnxruntime-node-$ORT_VERSION.tgz"
if [ ! -f "$tgz" ] || [ "$(sha256_of "$tgz")" != "$TGZ_SHA256" ]; then
	rm -f "$tgz"
	if command -v npm >/dev/null 2>&1; then
		(cd "$dl" && npm pack --ignore-scripts --silent "onnxruntime-node@$ORT_VERSION" >/dev/null)
	else
		# Same file, straight from the npm registry.
		curl -fsSL -o "$tgz.part" "https://registry.npmjs.org/onnxruntime-node/-/onnxruntime-node-$ORT_VERSION.tgz"
		mv "$tgz.part" "$tgz"
	fi
fi

got="$(sha256_of "$tgz")"
if [ "$got" != "$TGZ_SHA256" ]; then
	echo "sha256 mismatch for $tgz: got $got, want $TGZ_SHA256" >&2
	rm -f "$tgz"
	exit 1
fi
got="sha512-$(openssl dgst -sha512 -binary "$tgz" | openssl base64 -A)"
if [ "$got" != "$TGZ_INTEGRITY" ]; then
	echo "sha512 integrity mismatch for $tgz: got $got, want $TGZ_INTEGRITY" >&2
	exit 1
fi
# Cross-check with what the registry publishes, when it can be asked.
if command -v npm >/dev/null 2>&1; then
	reg="$(npm view "onnxruntime-node@$ORT_VERSION" dist.integrity 2>/dev/null || true)"
	if [ -n "$reg" ] && [ "$reg" != "$TGZ_INTEGRITY" ]; then
		echo "registry integrity $reg differs from the pinned $TGZ_INTEGRITY" >&2
		exit 1
	fi
fi

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
tar -xzf "$tgz" -C "$tmp" "$MEMBER"
got="$(sha256_of "$tmp/$MEMBER")"
if [ "$got" != "$SO_SHA256" ]; then
	echo "sha256 mismatch for $MEMBER in the tarball: got $got" >&2
	exit 1
fi
install -m 0755 "$tmp/$MEMBER" "$lib/$so.tmp"
mv "$lib/$so.tmp" "$lib/$so"
link
echo "installed $lib/$so (+ ${links[*]} symlinks)"
