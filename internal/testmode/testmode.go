// Package testmode lets `make unit` run only the tests that need nothing
// installed: no Debian packages (man pages, man-db), no Rust tokenizers
// library, no model, no Chroma. The tests that need one of these call
// Heavy first; `make test` runs them all, and there a missing component
// still fails them, never skips them.
package testmode

import (
	"os"
	"testing"
)

// Env is the variable `make unit` sets to 1.
const Env = "CMDAI_UNIT"

// Heavy leaves the calling test out under `make unit`, saying what it
// needs; anywhere else it does nothing.
func Heavy(t testing.TB, needs string) {
	t.Helper()
	if os.Getenv(Env) == "1" {
		t.Skipf("needs %s: `make unit` leaves it out, `make test` runs it", needs)
	}
}
