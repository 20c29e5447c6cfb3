package errmark

import (
	"errors"
	"fmt"
	"testing"
)

func TestAsKeepsTextAndCause(t *testing.T) {
	cause := errors.New("no chroma executable found")
	a, b := errors.New("unreachable"), errors.New("locked")
	err := As(cause, a)
	if err.Error() != cause.Error() {
		t.Errorf("text changed: %q", err)
	}
	if !errors.Is(err, a) || !errors.Is(err, cause) {
		t.Errorf("%v: want both the sentinel and the cause", err)
	}
	if errors.Is(err, b) {
		t.Error("a mark must match its own sentinel only")
	}
	if !errors.Is(fmt.Errorf("wrapped: %w", err), a) {
		t.Error("the mark is lost when wrapped")
	}
	if As(nil, a) != nil {
		t.Error("nil stays nil")
	}
	if already := fmt.Errorf("%w: x", a); As(already, a) != already {
		t.Error("an error that already is the sentinel is returned as it is")
	}
}
