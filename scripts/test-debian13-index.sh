#!/usr/bin/env bash
# Builds a Debian 13 (trixie) index here, end to end, from a real root:
# debootstrap (from Debian's mirror) of the minimal system plus the
# common tools of scripts/index-packages.txt, cmdai installed into it in
# its release layout (/opt/cmdai: bin, lib/cmdai, share/cmdai/models),
# `cmdai index init` run inside the root (chroot) against a Chroma server
# outside it on loopback (--chroma-url), an export, and then the proof a
# CI job gives before uploading (scripts/ci-prove-index.sh) plus the
# manifest's package list checked against the root's own dpkg.
# Needs root (chroot, mount) and debootstrap (scripts/install-test-deps.sh).
# Called by `make test`. The root is cached in $CMDAI_TOOLS/debootstrap,
# keyed by the suite, the mirror and the package list.
set -euo pipefail
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
export CMDAI_TOOLS="${CMDAI_TOOLS:-$REPO/.tools}"
SUITE=trixie
DISTRO=debian-13
MIRROR="${DEBIAN_MIRROR:-http://deb.debian.org/debian}"
MIN_COMMANDS=300
BIN="$REPO/bin/cmdai"
log() { echo "test-debian13: $*"; }
fail() { echo "test-debian13: FAIL: $*" >&2; exit 1; }
[ "$(id -u)" -eq 0 ] || fail "needs root (debootstrap, chroot, mount): run it as root, as CI does"
command -v debootstrap >/dev/null || fail "no debootstrap: scripts/install-test-deps.sh installs it"
start=$SECONDS
make -s -C "$REPO" build chroma >/dev/null

# The package set: one Debian name a line, # comments.
packages="$(sed 's/#.*//' "$REPO/scripts/index-packages.txt" | xargs | tr ' ' ',')"
key="$(printf '%s %s %s' "$SUITE" "$MIRROR" "$packages" | sha256sum | cut -c1-12)"
root="$CMDAI_TOOLS/debootstrap/$SUITE-$key"
if [ ! -e "$root/.complete" ]; then
	rm -rf "$root" "$root.tmp"
	mkdir -p "$(dirname "$root")"
	log "debootstrap $SUITE (minbase + $(tr ',' ' ' <<<"$packages" | wc -w) packages) from $MIRROR"
	debootstrap --variant=minbase --include="$packages" "$SUITE" "$root.tmp" "$MIRROR" >"$CMDAI_TOOLS/debootstrap/$SUITE.log" 2>&1 ||
		fail "debootstrap failed: $(tail -3 "$CMDAI_TOOLS/debootstrap/$SUITE.log")"
	touch "$root.tmp/.complete"
	mv "$root.tmp" "$root"
fi
log "root ready in $root ($((SECONDS - start)) s)"

# cmdai in its release layout inside the root (what `make install` and the
# release archive lay out): found relative to the binary, no variables.
opt="$root/opt/cmdai"
rm -rf "$opt" "$root/tmp/cmdai-out" "$root/root/.local/share/cmdai"
mkdir -p "$opt/bin" "$opt/lib/cmdai" "$opt/share/cmdai/models" "$root/tmp/cmdai-out"
cp "$BIN" "$opt/bin/cmdai"
cp -L "$CMDAI_TOOLS/lib/libonnxruntime.so" "$opt/lib/cmdai/libonnxruntime.so"
cp -r "$CMDAI_TOOLS/model/all-MiniLM-L6-v2" "$opt/share/cmdai/models/"

work="$(mktemp -d)"
chroma_pid=""
cleanup() {
	[ -n "$chroma_pid" ] && kill "$chroma_pid" 2>/dev/null && wait "$chroma_pid" 2>/dev/null
	mountpoint -q "$root/proc" && umount "$root/proc"
	rm -rf "$work"
}
trap cleanup EXIT

# A Chroma server outside the root, on loopback: the root needs no Python.
port="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
"$CMDAI_TOOLS/chroma/venv/bin/chroma" run --path "$work/chroma" --host 127.0.0.1 --port "$port" >"$work/chroma.log" 2>&1 &
chroma_pid=$!
url="http://127.0.0.1:$port"
for _ in $(seq 1 120); do
	curl -fsS "$url/api/v2/heartbeat" >/dev/null 2>&1 && break
	sleep 0.5
done
curl -fsS "$url/api/v2/heartbeat" >/dev/null || fail "the Chroma server did not start: $(tail -5 "$work/chroma.log")"

mountpoint -q "$root/proc" || mount -t proc proc "$root/proc" # cmdai finds itself through /proc/self/exe
in_root() { chroot "$root" /usr/bin/env -i HOME=/root PATH=/usr/bin:/bin:/usr/sbin:/sbin "$@"; }
in_root /opt/cmdai/bin/cmdai index init --chroma-url "$url" --batch-mode >"$work/init.json" 2>"$work/init.err" ||
	fail "init in the root: $(tail -5 "$work/init.err")"
python3 - "$work/init.json" "$DISTRO" <<'PY' || fail "init summary: $(tail -c 600 "$work/init.json")"
import json, sys
s = json.loads(open(sys.argv[1]).read().splitlines()[-1])
assert s["distro"] == sys.argv[2], s["distro"]
assert s["collection"] == "cmdai_linux_" + sys.argv[2], s["collection"]
assert s["failed_pages"] == 0 and s["records_count"] == s["chunks_count"] > 0, s
print("test-debian13: init in the root: %d commands, %d records, %.0f s" % (s["commands_count"], s["records_count"], s["total_seconds"]))
PY
in_root /opt/cmdai/bin/cmdai index export /tmp/cmdai-out --chroma-url "$url" --json >"$work/export.json" ||
	fail "export in the root"

# The CI job's proof, from outside (same server, this distribution's collection).
home="$work/home"
mkdir -p "$home"
CMDAI_HOME="$home" "$BIN" model import "$CMDAI_TOOLS/model/all-MiniLM-L6-v2" >/dev/null
CMDAI_HOME="$home" CMDAI_CHROMA_URL="$url" CMDAI_DISTRO="$DISTRO" "$REPO/scripts/ci-prove-index.sh" --min-commands "$MIN_COMMANDS" ||
	fail "the Debian 13 index does not pass the CI job's proof"

# The manifest lists the packages the index was built from, at the versions
# the root's dpkg has.
tarball="$root/tmp/cmdai-out/chroma-index-$DISTRO.tar.gz"
tar -xzOf "$tarball" manifest.json >"$work/manifest.json"
for pkg in coreutils findutils grep tar man-db openssh-client; do
	# shellcheck disable=SC2016 # ${Version} is dpkg-query's field, not the shell's
	want="$(in_root dpkg-query -W -f '${Version}' "$pkg")"
	got="$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1])).get("packages", {}).get(sys.argv[2], ""))' "$work/manifest.json" "$pkg")"
	[ "$got" = "$want" ] || fail "manifest packages[$pkg] = '$got', the root's dpkg says '$want'"
done
log "manifest lists $(python3 -c 'import json, sys; print(len(json.load(open(sys.argv[1]))["packages"]))' "$work/manifest.json") packages at the root's versions"
log "ok in $((SECONDS - start)) s"
