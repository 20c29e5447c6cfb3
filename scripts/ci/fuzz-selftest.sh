#!/usr/bin/env bash
# Checks that scripts/ci/fuzz.sh tells a good fuzz run from a bad one, on a
# throwaway module with three targets: one that passes, one in which the
# fuzzer finds a failing input, and one that stalls (which go test alone
# reports as PASS). Called by `make test`.
set -euo pipefail
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cat >"$work/go.mod" <<'EOF'
module fuzzselftest

go 1.22
EOF
cat >"$work/fuzz_test.go" <<'EOF'
package fuzzselftest

import (
	"testing"
	"time"
)

func FuzzFine(f *testing.F) {
	f.Add([]byte("a"))
	f.Fuzz(func(t *testing.T, b []byte) {})
}

// The mutator grows inputs within seconds.
func FuzzCrash(f *testing.F) {
	f.Add([]byte("a"))
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) >= 4 {
			t.Fatal("an input of 4 bytes or more")
		}
	})
}

// Workers that hand back nothing for seconds at a time, as when they
// minimize new inputs: each slow input stays under the 10 s after which
// Go's worker gives up on one input, and go test prints PASS.
func FuzzStuck(f *testing.F) {
	f.Add([]byte("a"))
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) >= 4 {
			time.Sleep(9 * time.Second)
		}
	})
}
EOF

expect() { # target, the exit code and what the output must say
	local rc=0
	FUZZ_DIR="$work" FUZZ_PKG=. FUZZ_TARGETS="$1" FUZZTIME=15s FUZZ_STALL=5 FUZZ_PARALLEL=1 \
		"$REPO/scripts/ci/fuzz.sh" >"$work/out" 2>&1 || rc=$?
	if [ "$rc" -ne "$2" ] || ! grep -q -- "$3" "$work/out"; then
		echo "fuzz-selftest: $1: want exit $2 and \"$3\", got exit $rc:"
		cat "$work/out"
		exit 1
	fi
}
expect FuzzFine 0 'ok FuzzFine'
expect FuzzCrash 1 'FAIL FuzzCrash: go test exited'
expect FuzzStuck 1 'FAIL FuzzStuck: stalled'
echo "fuzz-selftest: ok (a clean run passes; a crash and a stall fail)"
