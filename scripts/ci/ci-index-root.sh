#!/usr/bin/env bash
# Builds one distribution's index inside its stock image and proves it: a
# Linux job of .github/workflows/build-indexes.yml runs it on the
# distribution's image pinned by digest, and scripts/ci/test-debian13-index.sh
# (`make test`) on a debootstrap root of Debian 13 behind a stand-in for
# `docker run` (this machine has no Docker daemon nor registry).
#   outside the container: the pinned Chroma server on loopback (the image
#     needs no Python, compiler or Go; `--network host` lets cmdai reach it);
#   inside, as root: scripts/ci/ci-prepare-root.sh (documentation restored,
#     the package set of scripts/ci/index-packages.txt installed), then cmdai
#     in its release layout mounted at /opt/cmdai (what `make dist`
#     archives: bin/cmdai, lib/cmdai/libonnxruntime.so*, and the model in
#     share/cmdai/models/all-MiniLM-L6-v2) runs `index init --chroma-url`
#     and `index export`;
#   outside again: the tarball's checksum, `index import --validate`, the
#     proof a job gives before uploading (scripts/ci/ci-prove-index.sh) and the
#     manifest's package versions against the root's own package database.
# Writes into OUT: chroma-index-DISTRO.tar.gz, its .sha256, init-summary.json.
#
# Usage: ci-index-root.sh --distro ID --image IMAGE --out DIR --opt DIR --chroma EXE
#   --opt DIR     cmdai in its release layout (mounted read-only at /opt/cmdai)
#   --chroma EXE  the Chroma server to run outside the container
# Env: CMDAI_MIN_COMMANDS (default 300), CMDAI_PROVE_REQUESTS (see
# ci-prove-index.sh); DOCKER (default docker).
set -euo pipefail
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
# shellcheck disable=SC1091 # the GNU/macOS helpers: sha256_check, ...
. "$REPO/scripts/lib/portable.sh"
distro="" out="" opt="" chroma="" image=""
while [ $# -gt 0 ]; do
	case "$1" in
	--distro) distro="${2:?}"; shift 2 ;;
	--out) out="${2:?}"; shift 2 ;;
	--opt) opt="${2:?}"; shift 2 ;;
	--chroma) chroma="${2:?}"; shift 2 ;;
	--image) image="${2:?}"; shift 2 ;;
	*) echo "ci-index-root: unknown argument $1 (see the comment at the top)" >&2; exit 2 ;;
	esac
done
log() { echo "ci-index-root: $*"; }
fail() { echo "ci-index-root: FAIL: $*" >&2; exit 1; }
if [ -z "$distro" ] || [ -z "$image" ] || [ -z "$out" ] || [ -z "$opt" ] || [ -z "$chroma" ]; then
	fail "--distro, --image, --out, --opt and --chroma are needed"
fi
for f in bin/cmdai lib/cmdai/libonnxruntime.so share/cmdai/models/all-MiniLM-L6-v2/manifest.json; do
	[ -e "$opt/$f" ] || fail "$opt is not cmdai's release layout: no $f"
done
mkdir -p "$out"
out="$(cd "$out" && pwd)" opt="$(cd "$opt" && pwd)"
min="${CMDAI_MIN_COMMANDS:-300}"
start=$SECONDS

work="$(mktemp -d)"
chroma_pid=""
cleanup() {
	if [ -n "$chroma_pid" ]; then kill "$chroma_pid" 2>/dev/null && wait "$chroma_pid" 2>/dev/null; fi
	rm -rf "$work"
}
trap cleanup EXIT

# The Chroma server outside the root, on loopback (the container shares the
# host's network: --network host).
port="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
"$chroma" run --path "$work/chroma" --host 127.0.0.1 --port "$port" >"$work/chroma.log" 2>&1 &
chroma_pid=$!
url="http://127.0.0.1:$port"
for _ in $(seq 1 120); do
	curl -fsS "$url/api/v2/heartbeat" >/dev/null 2>&1 && break
	sleep 0.5
done
curl -fsS "$url/api/v2/heartbeat" >/dev/null || fail "the Chroma server did not start: $(tail -5 "$work/chroma.log")"

# What runs in the container: bash and the distribution's own tools only.
# It leaves in /tmp/cmdai-out the index, its summary and the root's
# package versions (name<TAB>version, the database cmdai reads).
# shellcheck disable=SC2016 # expanded by the root's bash
inner='set -euo pipefail
bash /tmp/cmdai-ci/ci-prepare-root.sh /tmp/cmdai-ci/index-packages.txt
export CMDAI_HOME=/tmp/cmdai-home
s=$SECONDS
/opt/cmdai/bin/cmdai index init --chroma-url "$URL" --distro "$DISTRO" --batch-mode >/tmp/cmdai-out/init-summary.json 2>/tmp/cmdai-out/init.err ||
	{ tail -20 /tmp/cmdai-out/init.err >&2; exit 1; }
echo "ci-index-root: index init in the root took $((SECONDS - s)) s"
/opt/cmdai/bin/cmdai index export /tmp/cmdai-out --chroma-url "$URL" --distro "$DISTRO" --json >/tmp/cmdai-out/export.json
# The key its records are sealed with, for the proof on the same server
# outside (a shared Chroma is read with the record.key of the cmdai that
# wrote it); mode 644: written by root here, read by the runner outside,
# which removes it.
install -m 644 "$CMDAI_HOME/record.key" /tmp/cmdai-out/record.key
if command -v dpkg-query >/dev/null; then
	dpkg-query -W -f "\${Package}\t\${Version}\n" >/tmp/cmdai-out/root-packages.tsv
elif command -v rpm >/dev/null; then
	rpm -qa --qf "%{NAME}\t%{VERSION}-%{RELEASE}\n" >/tmp/cmdai-out/root-packages.tsv
else
	: >/tmp/cmdai-out/root-packages.tsv # pacman: cmdai reads no pacman database
fi'
log "$distro in a container of $image"
"${DOCKER:-docker}" run --rm --network host -e URL="$url" -e DISTRO="$distro" \
	-v "$REPO/scripts/ci:/tmp/cmdai-ci:ro" -v "$opt:/opt/cmdai:ro" -v "$out:/tmp/cmdai-out" \
	"$image" bash -c "$inner" || fail "the build in the container of $image failed"

# The summary, the tarball and its checksum.
python3 - "$out/init-summary.json" "$distro" <<'PY' || fail "init summary: $(tail -c 600 "$out/init-summary.json")"
import json, sys
s = json.loads(open(sys.argv[1]).read().splitlines()[-1])
assert s["distro"] == sys.argv[2], s["distro"]
assert s["collection"] == "cmdai_linux_" + sys.argv[2], s["collection"]
assert s["failed_pages"] == 0 and s["records_count"] == s["chunks_count"] > 0, s
print("ci-index-root: init in the root: %d commands, %d records, %.0f s" % (s["commands_count"], s["records_count"], s["total_seconds"]))
PY
tarball="$out/chroma-index-$distro.tar.gz"
[ -f "$tarball" ] || fail "no $tarball after the export"
(cd "$out" && sha256_check "chroma-index-$distro.tar.gz.sha256") || fail "the tarball does not match its .sha256"
home="$work/home"
mkdir -p "$home"
CMDAI_HOME="$home" "$opt/bin/cmdai" index import "$tarball" --validate >/dev/null || fail "index import --validate refuses $tarball"

# The proof a job gives before uploading, from outside (same server, this
# distribution's collection).
CMDAI_HOME="$home" "$opt/bin/cmdai" model import "$opt/share/cmdai/models/all-MiniLM-L6-v2" >/dev/null
install -m 600 "$out/record.key" "$home/record.key" && rm -f "$out/record.key"
CMDAI="$opt/bin/cmdai" CMDAI_HOME="$home" CMDAI_CHROMA_URL="$url" CMDAI_DISTRO="$distro" \
	"$REPO/scripts/ci/ci-prove-index.sh" --min-commands "$min" || fail "the $distro index does not pass the proof"

# The manifest lists the packages the index was built from, at the versions
# the root's package database has (dpkg or rpm; cmdai reads no other).
tar -xzOf "$tarball" manifest.json >"$work/manifest.json"
python3 - "$work/manifest.json" "$out/root-packages.tsv" "$REPO/scripts/ci/index-packages.txt" <<'PY' || fail "manifest packages"
import json, sys
manifest = json.load(open(sys.argv[1])).get("packages", {})
root = dict(l.rstrip("\n").split("\t", 1) for l in open(sys.argv[2]) if "\t" in l)
if not root:
    assert not manifest, "no package database cmdai reads, yet the manifest lists %d packages" % len(manifest)
    print("ci-index-root: no dpkg or rpm database in the root: the manifest lists no packages")
    sys.exit(0)
# The listed tools' packages, in whichever family's name the root has.
names = set()
for line in open(sys.argv[3]):
    cols = line.split("#", 1)[0].split()
    if len(cols) == 5 and cols[0] in ("coreutils", "findutils", "grep", "tar", "man-db", "ssh-client"):
        names.update(c for c in cols[1:] if c in root)
assert len(names) == 6, "want the 6 checked tools installed in the root, found %s" % sorted(names)
for n in sorted(names):
    assert manifest.get(n) == root[n], "manifest packages[%s] = %r, the root's database says %r" % (n, manifest.get(n), root[n])
print("ci-index-root: manifest lists %d packages; %s at the root's versions" % (len(manifest), ", ".join(sorted(names))))
PY
rm -f "$out/export.json" "$out/init.err" "$out/root-packages.tsv"
log "ok: $distro in $((SECONDS - start)) s"
