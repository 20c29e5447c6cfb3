#!/usr/bin/env bash
# The first answer after an index is written (issue 46): a fresh home gets
# the index by `index import` of TARBALL (as a new user, auto-serve at
# its default), then `cmdai search` three times; for OLD and for this
# build in turn, in the same run. Prints each build's import time and its
# three search times.
#
#   OLD=<cmdai before> TARBALL=<an export> MODEL_HOME=<a CMDAI_HOME holding the model> scripts/bench/bench-first-answer.sh
#
# Needs `make build chroma`.
set -uo pipefail
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
export CMDAI_TOOLS="${CMDAI_TOOLS:-$REPO/.tools}"
export CMDAI_CHROMA_BIN="${CMDAI_CHROMA_BIN:-$CMDAI_TOOLS/chroma/venv/bin/chroma}"
unset CI CMDAI_AUTO_SERVE CMDAI_BATCH_MODE
OLD="${OLD:?set OLD to a cmdai built before}"
TARBALL="${TARBALL:?set TARBALL to an index export}"
MODEL_HOME="${MODEL_HOME:?set MODEL_HOME to a CMDAI_HOME holding the model}"
q='find files changed in the last day'
secs() { echo "$(date +%s.%N) - $1" | bc; }
for bin in "$OLD" "$REPO/bin/cmdai"; do
	home="$(mktemp -d)"
	mkdir -p "$home" && cp -a "$MODEL_HOME/embeddings" "$home/"
	export CMDAI_HOME="$home"
	s=$(date +%s.%N)
	"$bin" index import "$TARBALL" --allow-unsigned >/dev/null 2>&1 || echo "import failed: $bin" >&2
	imp=$(secs "$s")
	times=""
	for _ in 1 2 3; do
		s=$(date +%s.%N)
		"$bin" search "$q" -k 3 >/dev/null 2>&1
		times="$times $(secs "$s")"
	done
	echo "$bin: import $imp s; searches$times s"
	"$bin" serve --stop >/dev/null 2>&1
	sleep 1
	rm -rf "$home"
done
