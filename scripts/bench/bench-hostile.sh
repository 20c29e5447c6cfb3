#!/usr/bin/env bash
# What issue #45's checks cost, and its worst cases, against the binary
# before them, on one index (CMDAI_HOME), alternated where both can run:
#   - `index status --no-serve` (the sample now reads vectors), 3 rounds,
#     and `index status --verify --no-serve` (every vector checked);
#   - the first one-shot learned query after the vectors file beside the
#     keyword index is gone (every record's vector read and checked; the
#     binary before read the option and example records' alone), then the
#     next one, and one-shot queries alternated, 3 rounds;
#   - a serve of this build stopped with SIGSTOP: how long `index query`
#     and `index status` take beside it (the issue: 44 s and 88 s).
#
#   OLD=<cmdai before issue 45's checks> CMDAI_HOME=<home with an index> scripts/bench/bench-hostile.sh
#
# Needs `make build chroma`. The index must be of schema 2 (`index init`
# with this build) for this build to answer from it.
set -uo pipefail
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
export CMDAI_TOOLS="${CMDAI_TOOLS:-$REPO/.tools}"
export CMDAI_CHROMA_BIN="${CMDAI_CHROMA_BIN:-$CMDAI_TOOLS/chroma/venv/bin/chroma}"
export CMDAI_AUTO_SERVE=false
BIN="$REPO/bin/cmdai"
OLD="${OLD:?set OLD to a cmdai built before issue 45}"
[ -n "${CMDAI_HOME:-}" ] || { echo "set CMDAI_HOME to a home that holds an index" >&2; exit 1; }
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
timed() { # prints "S s (exit N)" for the command
	local s e rc
	s=$(date +%s.%N)
	"$@" >/dev/null 2>"$work/err"
	rc=$?
	e=$(date +%s.%N)
	printf "%.2f s (exit %d)" "$(echo "$e - $s" | bc)" "$rc"
}
q='find files changed today'
echo "index status --no-serve, old then new, 3 rounds:"
for _ in 1 2 3; do echo "  old $(timed "$OLD" index status --no-serve)  new $(timed "$BIN" index status --no-serve)"; done
echo "index status --verify --no-serve: old $(timed "$OLD" index status --verify --no-serve)  new $(timed "$BIN" index status --verify --no-serve)"
rm -f "$CMDAI_HOME"/keywords/*-records-*.vec
echo "vectors file gone: new first $(timed "$BIN" index query "$q" --no-serve), new next $(timed "$BIN" index query "$q" --no-serve), old first $(timed "$OLD" index query "$q" --no-serve)"
echo "one-shot learned query, old then new, 3 rounds:"
for _ in 1 2 3; do echo "  old $(timed "$OLD" index query "$q" --no-serve)  new $(timed "$BIN" index query "$q" --no-serve)"; done
# shellcheck disable=SC1091 # serve_socket
. "$REPO/scripts/lib/serve.sh"
"$BIN" serve 2>"$work/serve.err" &
pid=$!
serve_socket "$work/serve.err" "$pid" >/dev/null
echo "through a running serve: $(timed "$BIN" index query "$q")"
kill -STOP "$pid"
echo "serve stopped (SIGSTOP): index query $(timed "$BIN" index query "$q"), index status $(timed "$BIN" index status)"
kill -CONT "$pid"
kill "$pid"
wait "$pid" 2>/dev/null
