#!/usr/bin/env bash
# The proof a CI job gives of its index before uploading it
# (.github/workflows/build-indexes.yml, through ci-build-index.sh): the
# index of this machine's distribution is complete, holds at least
# MIN commands (what its package set must give), and answers each
# canonical request with one of the expected commands in its top 3.
# Exits 1 naming every check that failed; prints one line per check.
#
# Usage: scripts/ci/ci-prove-index.sh [--min-commands N] [--request "TEXT=cmd1|cmd2"]...
#   --request replaces the default requests (give it once per request).
# Env: CMDAI_HOME, CMDAI_DISTRO as for the build; CMDAI (the binary,
# default bin/cmdai of this checkout); CMDAI_MIN_COMMANDS (default 1);
# CMDAI_PROVE_REQUESTS, one TEXT=cmd1|cmd2 a line, when no --request.
set -euo pipefail
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
BIN="${CMDAI:-$REPO/bin/cmdai}"
min="${CMDAI_MIN_COMMANDS:-1}"
requests=()
while [ $# -gt 0 ]; do
	case "$1" in
	--min-commands) min="${2:?--min-commands needs a number}"; shift 2 ;;
	--request) requests+=("${2:?--request needs TEXT=cmd1|cmd2}"); shift 2 ;;
	*) echo "ci-prove-index: unknown argument $1 (see the comment at the top)" >&2; exit 2 ;;
	esac
done
if [ ${#requests[@]} -eq 0 ] && [ -n "${CMDAI_PROVE_REQUESTS:-}" ]; then
	while IFS= read -r line; do
		[ -n "$line" ] && requests+=("$line")
	done <<<"$CMDAI_PROVE_REQUESTS"
fi
if [ ${#requests[@]} -eq 0 ]; then
	# The issue's canonical requests: what any assistant asks first.
	requests=(
		"find files modified today=find"
		"extract a tar archive=tar"
		"search text in files=grep"
		"copy files over ssh=scp|rsync"
	)
fi
distro=()
[ -n "${CMDAI_DISTRO:-}" ] && distro=(--distro "$CMDAI_DISTRO")

failed=0
status="$("$BIN" index status --json --no-serve)"
count="$(python3 -c '
import json, sys
s = json.load(sys.stdin)
cur = [c for c in s["collections"] if c.get("current")]
if not cur or not cur[0]["metadata"].get("complete"):
    print(-1)
else:
    print(cur[0]["metadata"].get("commands_count", 0))
' <<<"$status")"
if [ "$count" -lt 0 ]; then
	echo "prove: FAIL this distribution's index is missing or incomplete"
	failed=1
elif [ "$count" -lt "$min" ]; then
	echo "prove: FAIL $count commands indexed, fewer than the $min its package set gives"
	failed=1
else
	echo "prove: ok $count commands indexed (at least $min)"
fi

for r in "${requests[@]}"; do
	text="${r%%=*}" want="${r#*=}"
	out="$("$BIN" index query "$text" -k 3 --json --no-serve "${distro[@]}")" || {
		echo "prove: FAIL \"$text\": the query failed"
		failed=1
		continue
	}
	top="$(python3 -c 'import json, sys; print(" ".join(c["command"] for c in json.load(sys.stdin)["commands"]))' <<<"$out")"
	hit=""
	for c in $top; do
		case "|$want|" in *"|$c|"*) hit="$c" ;; esac
		[ -n "$hit" ] && break
	done
	if [ -n "$hit" ]; then
		echo "prove: ok \"$text\" -> $hit in the top 3 ($top)"
	else
		echo "prove: FAIL \"$text\": none of $want in the top 3 ($top)"
		failed=1
	fi
done
exit "$failed"
