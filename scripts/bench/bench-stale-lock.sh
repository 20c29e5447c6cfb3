#!/bin/bash
# Finding 7 figure: index status / index query past a killed serve's socket
# and lock file whose pid (1) is a live process. usage: scripts/bench/bench-stale-lock.sh BASE FIXED
set -eu
base=$1 fixed=$2
CMDAI_HOME=$(mktemp -d)
export CMDAI_HOME CMDAI_SOCKET
CMDAI_SOCKET=$CMDAI_HOME/cmdai.sock
tools=${CMDAI_TOOLS:-$(cd "$(dirname "$0")/../.." && pwd)/.tools}
export CMDAI_MODEL_DIR=${CMDAI_MODEL_DIR:-$tools/model/all-MiniLM-L6-v2} CMDAI_CHROMA_BIN=${CMDAI_CHROMA_BIN:-$tools/chroma/venv/bin/chroma}
"$fixed" index init --command ls --distro debian-12 >/dev/null 2>&1
python3 -c "import socket,sys; s=socket.socket(socket.AF_UNIX); s.bind(sys.argv[1]); s.close()" "$CMDAI_SOCKET"
echo 1 > "$CMDAI_SOCKET.lock"   # pid 1 lives: as a restarted container's serve was
for bin in "$base" "$fixed"; do
	for args in "index status --distro debian-12" "index query list_directory_contents --distro debian-12 -k 1"; do
		s=$(date +%s.%N); read -ra words <<<"$args"; "$bin" "${words[@]}" >/dev/null 2>&1; rc=$?; e=$(date +%s.%N)
		printf '%-18s %-60s exit %d  %.2f s\n' "$(basename "$bin")" "$args" "$rc" "$(echo "$e - $s" | bc)"
	done
done
rm -rf "$CMDAI_HOME"
