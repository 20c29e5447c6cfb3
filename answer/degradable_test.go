package answer

import (
	"errors"
	"fmt"
	"testing"

	"github.com/cmdai/cmdai/chroma"
	"github.com/cmdai/cmdai/internal/errmark"
	"github.com/cmdai/cmdai/internal/exitcode"
)

// TestDegradableBySentinel: the answer from disk stands in for Chroma
// when the error says Chroma is unreachable or its data is held, however
// it was wrapped, and never for an error that only carries exit code 4
// or 6 (a download server, a lease on something else).
func TestDegradableBySentinel(t *testing.T) {
	cause := errors.New("no heartbeat")
	for _, c := range []struct {
		name string
		err  error
		want bool
	}{
		{"unreachable", errmark.As(cause, chroma.ErrUnreachable), true},
		{"locked", errmark.As(cause, chroma.ErrLocked), true},
		{"wrapped and coded", exitcode.With(exitcode.Unreachable, fmt.Errorf("serve runs without Chroma: %w", errmark.As(cause, chroma.ErrUnreachable))), true},
		{"the store's own", fmt.Errorf("%w: no heartbeat from x", chroma.ErrUnreachable), true},
		{"exit 4 alone", exitcode.With(exitcode.Unreachable, cause), false},
		{"exit 6 alone", exitcode.With(exitcode.Busy, cause), false},
		{"no index", exitcode.With(exitcode.NoIndex, cause), false},
		{"nil", nil, false},
	} {
		if got := Degradable(c.err); got != c.want {
			t.Errorf("%s: Degradable(%v) = %v, want %v", c.name, c.err, got, c.want)
		}
	}
}
