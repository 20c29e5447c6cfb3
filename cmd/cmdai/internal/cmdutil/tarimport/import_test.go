package tarimport

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/cmdai/cmdai/cmd/cmdai/internal/cmdutil"
	"github.com/cmdai/cmdai/packaging"
	"github.com/cmdai/cmdai/ship"
)

// TestImportFailed: a failed import keeps a code it already has (usage,
// 5 for another model), damage is 5, and anything else is 1; all but
// coded errors say the previous index is unchanged.
func TestImportFailed(t *testing.T) {
	for _, tc := range []struct {
		name      string
		err       error
		code      int
		unchanged bool
	}{
		{"usage", cmdutil.UsageError("pass --yes"), cmdutil.ExitUsage, false},
		{"coded", cmdutil.WithCode(cmdutil.ExitBusy, errors.New("locked")), cmdutil.ExitBusy, false},
		{"verification", fmt.Errorf("check: %w", ship.ErrVerification), cmdutil.ExitVerification, false},
		{"damaged", fmt.Errorf("read: %w", packaging.ErrDamaged), cmdutil.ExitVerification, true},
		{"other", errors.New("server said no"), cmdutil.ExitFailure, true},
	} {
		err := failed("x.tar.gz", tc.err)
		if code := cmdutil.ExitCode(err); code != tc.code {
			t.Errorf("%s: exit %d, want %d (%v)", tc.name, code, tc.code, err)
		}
		if got := strings.Contains(err.Error(), "the previous index is unchanged"); got != tc.unchanged {
			t.Errorf("%s: %q says the index is unchanged: %v, want %v", tc.name, err, got, tc.unchanged)
		}
	}
}
