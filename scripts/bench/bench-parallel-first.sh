#!/usr/bin/env bash
# Parallel first calls (issue #45, finding 9): N (default 10) `cmdai
# search --json` at once on a home where no serve runs, as an agent's
# parallel tool calls are, with the serve they start; for OLD and for
# this build in turn, ROUNDS rounds (default 3): how many answered
# degraded (keyword-only from disk), the median and the slowest call's
# time.
#
#   OLD=<cmdai before the fix> CMDAI_HOME=<home with an index> scripts/bench/bench-parallel-first.sh
#
# Needs `make build chroma`; the index must be one both builds answer from.
set -uo pipefail
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
export CMDAI_TOOLS="${CMDAI_TOOLS:-$REPO/.tools}"
export CMDAI_CHROMA_BIN="${CMDAI_CHROMA_BIN:-$CMDAI_TOOLS/chroma/venv/bin/chroma}"
export CMDAI_AUTO_SERVE=true
unset CI
BIN="$REPO/bin/cmdai"
OLD="${OLD:?set OLD to a cmdai built before the fix}"
N="${N:-10}"
ROUNDS="${ROUNDS:-3}"
[ -n "${CMDAI_HOME:-}" ] || { echo "set CMDAI_HOME to a home that holds an index" >&2; exit 1; }
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
q='show the files in this folder sorted by date'
one() { # bin: N parallel calls; prints degraded count and slowest
	local bin="$1" s
	"$bin" serve --stop >/dev/null 2>&1
	sleep 1
	s=$(date +%s.%N)
	for i in $(seq "$N"); do
		("$bin" search "$q" -k 3 --json >"$work/out.$i" 2>"$work/err.$i"; echo $? >"$work/rc.$i"; date +%s.%N >"$work/end.$i") &
	done
	wait
	local degraded failed times
	degraded=$(grep -l '"degraded":true' "$work"/out.* 2>/dev/null | wc -l)
	failed=$(grep -L '^0$' "$work"/rc.* | wc -l)
	times=$(for i in $(seq "$N"); do echo "$(cat "$work/end.$i") - $s" | bc; done | sort -n)
	printf "%d of %d degraded, %d failed, median %.2f s, slowest %.2f s" "$degraded" "$N" "$failed" \
		"$(echo "$times" | sed -n "$(((N + 1) / 2))p")" "$(echo "$times" | tail -1)"
	"$bin" serve --stop >/dev/null 2>&1
	sleep 1
}
for r in $(seq "$ROUNDS"); do
	echo "round $r: old $(one "$OLD")   new $(one "$BIN")"
done
