#!/usr/bin/env bash
# Runs each fuzz target for FUZZTIME and fails when one finds a failing
# input, or when the run stalls. `make fuzz` and `make test` call it.
#
# Why the stall check: Go's fuzzer has no per-input timeout and reports a
# worker's executions only when the worker hands back its work. A worker
# stuck on one input, or minimizing a new input for up to
# -fuzzminimizetime (60 s by default), shows "execs: N (0/sec)" line after
# line, and when -fuzztime runs out during it the work is dropped and the
# run still prints PASS. So: minimization is bounded (FUZZ_MINIMIZE), the
# targets bound each input themselves (manparse/fuzz_test.go), and a run
# whose execution count stays still for more than FUZZ_STALL seconds, or
# never starts fuzzing, fails here.
#
# Environment (defaults in brackets):
#   FUZZTIME       how long each target fuzzes [60s]
#   FUZZ_PARALLEL  fuzzing workers [2]
#   FUZZ_MINIMIZE  -fuzzminimizetime [10s]
#   FUZZ_STALL     seconds without a finished input that fail the run [30]
#   FUZZ_DIR, FUZZ_PKG, FUZZ_TARGETS  where and what to fuzz
#                  [the repository, ./manparse, "FuzzParse FuzzParseHelp"]
set -uo pipefail
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
FUZZTIME="${FUZZTIME:-60s}"
FUZZ_PARALLEL="${FUZZ_PARALLEL:-2}"
FUZZ_MINIMIZE="${FUZZ_MINIMIZE:-10s}"
FUZZ_STALL="${FUZZ_STALL:-30}"
FUZZ_DIR="${FUZZ_DIR:-$REPO}"
FUZZ_PKG="${FUZZ_PKG:-./manparse}"
FUZZ_TARGETS="${FUZZ_TARGETS:-FuzzParse FuzzParseHelp}"
GO="${GO:-go}"

log="$(mktemp)"
trap 'rm -f "$log"' EXIT

# progress reads go test's fuzz log and prints "<final execs> <longest
# stretch in seconds without a new execution> <where it started>", or
# nothing if fuzzing never started. Elapsed times look like 3s, 1m0s, 1h2m3s.
progress() {
	awk '
	function secs(d,   n, s) {
		s = 0
		while (match(d, /^[0-9]+[hms]/)) {
			n = substr(d, 1, RLENGTH - 1) + 0
			u = substr(d, RLENGTH, 1)
			s += (u == "h") ? n * 3600 : (u == "m") ? n * 60 : n
			d = substr(d, RLENGTH + 1)
		}
		return s
	}
	/^fuzz: elapsed: .*, execs: [0-9]+ / {
		split($0, a, /elapsed: |, execs: | \(/)
		t = secs(a[2]); n = a[3] + 0
		if (!seen || n != last) { since = t; last = n; seen = 1 }
		if (t - since > worst) { worst = t - since; at = since }
	}
	END { if (seen) printf "%d %d %d\n", last, worst, at }
	' "$1"
}

# deadline_race tells the Go fuzz coordinator's deadline race (see its
# caller) from a real failure: the log's only failure line is "context
# deadline exceeded", no failing input was written, and the target's seeds
# and saved corpus pass when replayed.
deadline_race() {
	grep -q '^    context deadline exceeded$' "$1" || return 1
	grep -qE 'Failing input written|panic:|_test\.go:[0-9]+:' "$1" && return 1
	(cd "$FUZZ_DIR" && "$GO" test "$FUZZ_PKG" -run "^$2\$" -count=1 >/dev/null 2>&1)
}

failed=()
for target in $FUZZ_TARGETS; do
	echo "== $target: fuzzing for $FUZZTIME ($FUZZ_PARALLEL workers)"
	(cd "$FUZZ_DIR" && "$GO" test "$FUZZ_PKG" -run '^$' -fuzz "^$target\$" -fuzztime "$FUZZTIME" \
		-fuzzminimizetime "$FUZZ_MINIMIZE" -parallel "$FUZZ_PARALLEL") 2>&1 | tee "$log"
	rc=${PIPESTATUS[0]}
	if [ "$rc" -ne 0 ] && deadline_race "$log" "$target"; then
		# Go before 1.27 (go.dev/issue/75804): when -fuzztime ends while a
		# worker is busy, the coordinator may report its own deadline as the
		# target's failure. A real finding always writes a failing input;
		# none was, and the corpus replays clean, so the run counts.
		echo "note $target: go test exited $rc with only \"context deadline exceeded\" at the -fuzztime boundary and no failing input (go.dev/issue/75804); the corpus replays clean"
		rc=0
	fi
	if [ "$rc" -ne 0 ]; then
		echo "FAIL $target: go test exited $rc (see above). An input the fuzzer found is saved under $FUZZ_PKG/testdata/fuzz/$target/:"
		echo "  reproduce it with: go test $FUZZ_PKG -run '$target/<file name>'; fix the code and commit the file as a seed"
		failed+=("$target")
		continue
	fi
	read -r execs stall at <<<"$(progress "$log")"
	if [ -z "${execs:-}" ]; then
		echo "FAIL $target: it never started fuzzing (no progress line after the baseline coverage)"
		failed+=("$target")
	elif [ "$execs" -eq 0 ]; then
		echo "FAIL $target: 0 inputs run in $FUZZTIME"
		failed+=("$target")
	elif [ "$stall" -gt "$FUZZ_STALL" ]; then
		echo "FAIL $target: stalled: no input finished for ${stall}s from ${at}s on (more than FUZZ_STALL=${FUZZ_STALL}s)"
		echo "  the workers handed nothing back: stuck or very slow on an input; rerun with GODEBUG=fuzzdebug=1 to see which"
		failed+=("$target")
	else
		echo "ok $target: $execs inputs, longest pause ${stall}s"
	fi
	execs='' stall='' at=''
done
if [ "${#failed[@]}" -gt 0 ]; then
	echo "fuzz: FAILED: ${failed[*]}"
	exit 1
fi
echo "fuzz: ok"
