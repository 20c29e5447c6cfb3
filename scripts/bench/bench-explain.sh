#!/usr/bin/env bash
# Benchmarks the accuracy of `cmdai explain` (issue #21), as BENCHMARKS.md
# records it ("cmdai explain: accuracy on NL2Bash"): NL2Bash's real
# command lines (all.cm) checked against an index of this machine's
# installed commands by scripts/bench/explainbench (coverage and its misses by
# cause, lines flagged `unknown option`, detection of seeded mutations,
# warm time per line; train and test halves).
#
#   NL2BASH_CM  the corpus (default: ../shared/bench/nl2bash/all.cm beside
#               the repo; not in the repo). Missing: the benchmark is
#               skipped with a note, so that `make bench` still runs.
#   CMDAI_HOME  a home holding this machine's whole index (`cmdai index
#               init`); unset: one is built in a temporary home (a few
#               minutes: every installed page).
#   OUT         where the reports go (default .cache/explainbench)
#   BASE_REV    a git revision: the same program is also built against
#               that revision's explain/ and run first, and the report
#               pairs the two runs line by line (McNemar)
#   HANDCHECK   the hand check of the flagged lines (default
#               search/evaluate/requests/explain-nl2bash-handcheck.tsv)
# Needs `make build chroma` (`make bench` does that; the model only when
# an index is built here).
set -euo pipefail
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
export CMDAI_TOOLS="${CMDAI_TOOLS:-$REPO/.tools}"
CORPUS="${NL2BASH_CM:-$REPO/../shared/bench/nl2bash/all.cm}"
OUT="${OUT:-$REPO/.cache/explainbench}"
HANDCHECK="${HANDCHECK:-$REPO/search/evaluate/requests/explain-nl2bash-handcheck.tsv}"
BIN="$REPO/bin/cmdai"
cd "$REPO"
if [ ! -f "$CORPUS" ]; then
	echo "bench-explain: no NL2Bash corpus at $CORPUS (set NL2BASH_CM): skipped" >&2
	exit 0
fi
work="$(mktemp -d)"
base_tree=""
cleanup() {
	[ -n "$base_tree" ] && git -C "$REPO" worktree remove --force "$base_tree" 2>/dev/null
	rm -rf "$work"
}
trap cleanup EXIT
unset CMDAI_CHROMA_URL CMDAI_CHROMA_DATA CMDAI_NO_SERVE CMDAI_DISTRO CMDAI_JSON

if [ -z "${CMDAI_HOME:-}" ]; then
	[ -x "$BIN" ] || { echo "missing $BIN: run \`make build\` first" >&2; exit 1; }
	export CMDAI_HOME="$work/home"
	"$BIN" model import "$CMDAI_TOOLS/model/all-MiniLM-L6-v2" >/dev/null
	echo "building an index of this machine's commands in $CMDAI_HOME (a few minutes) ..." >&2
	"$BIN" index init --batch-mode >/dev/null 2>"$work/init.err" || { tail "$work/init.err" >&2; exit 1; }
fi

# shellcheck disable=SC1091 # the running system's os-release
echo "# $(nproc) CPUs, $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo), $(. /etc/os-release && echo "$PRETTY_NAME"), load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "# explain at $(git rev-parse --short HEAD)$(git diff --quiet HEAD -- explain || echo ' (explain/ modified)')"
args=(-lines "$CORPUS" -home "$CMDAI_HOME")
[ -f "$HANDCHECK" ] && args+=(-handcheck "$HANDCHECK")

if [ -n "${BASE_REV:-}" ]; then
	# The same program, built against BASE_REV's explain/.
	base_tree="$work/base"
	git worktree add --detach "$base_tree" "$BASE_REV" >/dev/null 2>&1
	rm -rf "$base_tree/scripts/bench/explainbench" && mkdir -p "$base_tree/scripts/bench"
	cp -r "$REPO/scripts/bench/explainbench" "$base_tree/scripts/bench/explainbench"
	(cd "$base_tree" && go build -o "$work/explainbench-base" ./scripts/bench/explainbench)
	echo "# baseline: explain at $(git rev-parse --short "$BASE_REV")"
	"$work/explainbench-base" "${args[@]}" -out "$OUT/base" >/dev/null
	args+=(-baseline "$OUT/base/lines.jsonl")
fi
go build -o "$work/explainbench" ./scripts/bench/explainbench
"$work/explainbench" "${args[@]}" -out "$OUT"
echo "# reports: $OUT/summary.md, report.json, lines.jsonl, mutations.jsonl, flagged-sample.tsv"
