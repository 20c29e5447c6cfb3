#!/usr/bin/env bash
# bench-verify-cost.sh BASE NEW: what sealed records cost on this machine's
# whole index (issue 30, finding 5): `index init` from an empty home with
# each binary, then `index status` and a one-shot query, three rounds, the
# two binaries side by side. Needs `make build model chroma` (CMDAI_TOOLS).
set -u
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
tools="${CMDAI_TOOLS:-$REPO/.tools}"
export LD_LIBRARY_PATH="$tools/lib" CMDAI_CHROMA_BIN="${CMDAI_CHROMA_BIN:-$tools/chroma/venv/bin/chroma}"
model="$tools/model/all-MiniLM-L6-v2"
declare -A bin=([base]="${1:?usage: bench-verify-cost.sh BASE NEW}" [new]="${2:?usage: bench-verify-cost.sh BASE NEW}")
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
secs() { local s; s=$(date +%s.%N); "$@" >/dev/null 2>&1; local rc=$?; printf 'rc=%d %.2f s' "$rc" "$(echo "$(date +%s.%N) - $s" | bc)"; }
for b in base new; do
	mkdir -p "$work/$b"
	CMDAI_HOME="$work/$b" "${bin[$b]}" model import "$model" >/dev/null 2>&1
	echo "$b init $(CMDAI_HOME="$work/$b" secs "${bin[$b]}" index init --batch-mode)"
done
for _ in 1 2 3; do
	for b in base new; do
		echo "$b status $(CMDAI_HOME="$work/$b" secs "${bin[$b]}" index status --no-serve)"
		echo "$b query $(CMDAI_HOME="$work/$b" secs "${bin[$b]}" index query "find files changed today" --no-serve -k 5)"
	done
done
