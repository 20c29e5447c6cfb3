package cmdutil

import (
	"errors"
	"fmt"
	"testing"

	"github.com/cmdai/cmdai/internal/clix"
	"github.com/cmdai/cmdai/internal/netwait"
)

// TestExitCode: every kind of error a command returns gets its code,
// wrapped or not, and the message is the error's own.
func TestExitCode(t *testing.T) {
	for _, tc := range []struct {
		name string
		err  error
		want int
	}{
		{"nil", nil, ExitOK},
		{"plain", errors.New("boom"), ExitFailure},
		{"usage", UsageError("--k must be 1 or more, not %d", 0), ExitUsage},
		{"clix usage, wrapped", fmt.Errorf("import: %w", clix.Usagef("pass --yes")), ExitUsage},
		{"no index", WithCode(ExitNoIndex, errors.New("no index")), ExitNoIndex},
		{"busy, wrapped", fmt.Errorf("init: %w", WithCode(ExitBusy, errors.New("locked"))), ExitBusy},
		{"network", NetworkCode(fmt.Errorf("fetch: %w", netwait.ErrNetwork)), ExitUnreachable},
		{"not network", NetworkCode(errors.New("disk")), ExitFailure},
		{"explain --check", WithCode(ExitUnknownOption, errors.New("the line does not check")), 7},
	} {
		if got := ExitCode(tc.err); got != tc.want {
			t.Errorf("%s: ExitCode(%v) = %d, want %d", tc.name, tc.err, got, tc.want)
		}
	}
	if err := WithCode(ExitVerification, errors.New("bad sum")); err.Error() != "bad sum" {
		t.Errorf("WithCode changed the message: %q", err)
	}
	if WithCode(ExitFailure, nil) != nil {
		t.Error("WithCode(nil) is not nil")
	}
}

func TestHasCode(t *testing.T) {
	if HasCode(errors.New("plain")) {
		t.Error("a plain error has a code")
	}
	if !HasCode(fmt.Errorf("x: %w", UsageError("bad"))) || !HasCode(WithCode(ExitVerification, errors.New("bad"))) {
		t.Error("a usage error or a coded one has no code")
	}
}
