package serveorhere

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/cmdai/cmdai/answer"
	"github.com/cmdai/cmdai/chroma"
	"github.com/cmdai/cmdai/internal/errmark"
	"github.com/cmdai/cmdai/search"
	"github.com/cmdai/cmdai/serve"
)

// lockedHere answers as this process does while another cmdai holds the
// index data: locked for its first `locked` calls, then an answer.
type lockedHere struct{ locked, calls int }

func (h *lockedHere) Query(context.Context, answer.QueryRequest) (answer.QueryResult, error) {
	h.calls++
	if h.calls <= h.locked {
		return answer.QueryResult{}, errmark.As(fmt.Errorf("the private server's data is in use by cmdai (pid 7)"), chroma.ErrLocked)
	}
	return answer.QueryResult{Collection: "here"}, nil
}
func (h *lockedHere) Docs(context.Context, answer.DocsRequest) (search.CommandDoc, error) {
	return search.CommandDoc{}, nil
}
func (h *lockedHere) Explain(context.Context, answer.ExplainRequest) (answer.ExplainResult, error) {
	return answer.ExplainResult{}, nil
}
func (h *lockedHere) Status(context.Context, answer.StatusRequest) (answer.IndexStatus, error) {
	return answer.IndexStatus{}, nil
}

func noServe(context.Context) (*serve.Client, bool) { return nil, false }

// TestWaitsForTheDataHolder: two first commands at once: the one that
// finds the data held waits for it, answers, and starts a serve like
// the other; one held past LockedWait gets the holder's error (exit 6).
func TestWaitsForTheDataHolder(t *testing.T) {
	h, starts := &lockedHere{locked: 3}, 0
	a := &Answerer{Client: noServe, Here: h, Start: func() int { starts++; return 9 }}
	res, err := a.Query(context.Background(), answer.QueryRequest{Request: "x", K: 1})
	if err != nil || res.Collection != "here" || h.calls != 4 || starts != 1 || a.Started != 9 {
		t.Errorf("after the holder let go: %+v %v, %d calls, %d starts", res, err, h.calls, starts)
	}

	defer func(w time.Duration) { LockedWait = w }(LockedWait)
	LockedWait = 500 * time.Millisecond
	h, starts = &lockedHere{locked: 1 << 30}, 0
	a = &Answerer{Client: noServe, Here: h, Start: func() int { starts++; return 9 }}
	began := time.Now()
	_, err = a.Query(context.Background(), answer.QueryRequest{Request: "x", K: 1})
	if !errors.Is(err, chroma.ErrLocked) || starts != 0 || time.Since(began) > 5*time.Second {
		t.Errorf("held past LockedWait: %v, %d starts, after %s", err, starts, time.Since(began))
	}

	// --no-serve (Local) waits too, and starts nothing
	h = &lockedHere{locked: 2}
	a = &Answerer{Client: noServe, Here: h, Local: true, Start: func() int { starts++; return 9 }}
	if res, err := a.Query(context.Background(), answer.QueryRequest{Request: "x", K: 1}); err != nil || res.Collection != "here" || starts != 0 {
		t.Errorf("local: %+v %v, %d starts", res, err, starts)
	}
}
