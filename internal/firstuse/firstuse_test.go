package firstuse

import (
	"context"
	"testing"
)

func TestBegin(t *testing.T) {
	Begin(context.Background(), "nothing listens")() // no Notifier: a no-op

	var said []string
	ended := 0
	ctx := With(context.Background(), func(what string) func() {
		said = append(said, what)
		return func() { ended++ }
	})
	done := Begin(ctx, "building the keyword index")
	if len(said) != 1 || said[0] != "building the keyword index" || ended != 0 {
		t.Fatalf("said %q, ended %d before done", said, ended)
	}
	done()
	if ended != 1 {
		t.Errorf("done ended %d builds, want 1", ended)
	}
	if Begin(With(ctx, nil), "quiet")(); len(said) != 1 {
		t.Errorf("With(ctx, nil) still said %q", said)
	}
}
