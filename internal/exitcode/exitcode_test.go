package exitcode

import (
	"errors"
	"fmt"
	"testing"

	"github.com/cmdai/cmdai/internal/clix"
)

func TestOf(t *testing.T) {
	base := errors.New("boom")
	for _, c := range []struct {
		err  error
		code int
		has  bool
	}{
		{nil, OK, false},
		{base, Failure, false},
		{clix.Usagef("bad"), Usage, true},
		{With(NoIndex, base), NoIndex, true},
		{fmt.Errorf("context: %w", With(Busy, base)), Busy, true},
	} {
		if got := Of(c.err); got != c.code {
			t.Errorf("Of(%v) = %d, want %d", c.err, got, c.code)
		}
		if got := Has(c.err); got != c.has {
			t.Errorf("Has(%v) = %v, want %v", c.err, got, c.has)
		}
	}
	if With(Usage, nil) != nil {
		t.Error("With(code, nil) must stay nil")
	}
	if !errors.Is(With(Unreachable, base), base) {
		t.Error("With must keep the cause for errors.Is")
	}
}
