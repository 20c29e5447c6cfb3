package answer

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/cmdai/cmdai/chroma"
	"github.com/cmdai/cmdai/chroma/datalock"
	"github.com/cmdai/cmdai/explain"
	"github.com/cmdai/cmdai/internal/errmark"
	"github.com/cmdai/cmdai/search"
	"github.com/cmdai/cmdai/search/shown"
)

// fakeAnswerer answers every call with its name, or fails with fail; it
// counts the calls it got.
type fakeAnswerer struct {
	name  string
	fail  error
	calls int
}

func (f *fakeAnswerer) Query(_ context.Context, q QueryRequest) (QueryResult, error) {
	f.calls++
	return QueryResult{Request: q.Request, Collection: f.name}, f.fail
}

func (f *fakeAnswerer) Docs(_ context.Context, q DocsRequest) (search.CommandDoc, error) {
	f.calls++
	return search.CommandDoc{CommandHit: shown.CommandHit{Command: q.Command, Description: f.name}}, f.fail
}

func (f *fakeAnswerer) Explain(_ context.Context, q ExplainRequest) (ExplainResult, error) {
	f.calls++
	return ExplainResult{Collection: f.name}, f.fail
}

func (f *fakeAnswerer) Status(context.Context, StatusRequest) (IndexStatus, error) {
	f.calls++
	return IndexStatus{Holder: f.name}, f.fail
}

// ServeFirst asks serve while one answers, Local when none does, and
// Local again when serve went between the check and the call; serve's
// own error answers are not retried locally; done is told every call
// sent to serve.
func TestServeFirstPrefersServeAndFallsBack(t *testing.T) {
	remote, local := &fakeAnswerer{name: "serve"}, &fakeAnswerer{name: "local"}
	running, dials, dones := true, 0, 0
	var gone []error
	p := ServeFirst{Local: local, Serve: func(context.Context) (Answerer, func(error), bool) {
		dials++
		if !running {
			return nil, nil, false
		}
		return remote, func(err error) {
			dones++
			if errors.Is(err, ErrServeGone) {
				gone = append(gone, err)
			}
		}, true
	}}
	ctx := context.Background()
	q := QueryRequest{Request: "find files", K: 1, Mode: "semantic"}
	if res, err := p.Query(ctx, q); err != nil || res.Collection != "serve" || local.calls != 0 {
		t.Errorf("with serve: %+v %v, local asked %d times", res, err, local.calls)
	}
	running = false
	if res, err := p.Query(ctx, q); err != nil || res.Collection != "local" || local.calls != 1 {
		t.Errorf("without serve: %+v %v; want Local's answer", res, err)
	}
	running, remote.fail = true, fmt.Errorf("%w: connection refused", ErrServeGone)
	if res, err := p.Query(ctx, q); err != nil || res.Collection != "local" || local.calls != 2 {
		t.Errorf("serve gone mid-call: %+v %v; want Local's answer", res, err)
	}
	if doc, err := p.Docs(ctx, DocsRequest{Command: "grep"}); err != nil || doc.Description != "local" {
		t.Errorf("docs, serve gone: %+v %v", doc, err)
	}
	if ex, err := p.Explain(ctx, ExplainRequest{Line: "ls"}); err != nil || ex.Collection != "local" {
		t.Errorf("explain, serve gone: %+v %v", ex, err)
	}
	if st, err := p.Status(ctx, StatusRequest{}); err != nil || st.Holder != "local" {
		t.Errorf("status, serve gone: %+v %v", st, err)
	}
	remote.fail = errors.New("request of 3000 bytes: at most 2000")
	if _, err := p.Query(ctx, q); err != remote.fail || local.calls != 5 {
		t.Errorf("serve's error answer: %v, local asked %d times; want serve's error, Local not asked", err, local.calls)
	}
	if dials != dones+1 {
		t.Errorf("%d dials (one without serve), %d done: every call through serve must be done", dials, dones)
	}
	if len(gone) != 4 {
		t.Errorf("done told of %d calls serve did not answer, want 4: %v", len(gone), gone)
	}
	// a call cancelled while serve answered is not asked again locally
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	remote.fail = fmt.Errorf("%w: %w", ErrServeGone, context.Canceled)
	if _, err := p.Query(cctx, q); !errors.Is(err, ErrServeGone) || local.calls != 5 {
		t.Errorf("cancelled: %v, local asked %d times; want serve's error, Local not asked", err, local.calls)
	}
	// no Serve at all: Local answers every call
	if res, err := (ServeFirst{Local: local}).Query(ctx, q); err != nil || res.Collection != "local" {
		t.Errorf("without Serve: %+v %v", res, err)
	}
}

// A request past serve's limits goes to Local without asking serve; one
// for an index serve does not hold (ErrNotHeld) is answered by Local,
// and neither counts as "no serve ran" (AnsweredHere is not told).
func TestServeFirstLimitsAndNotHeld(t *testing.T) {
	remote, local := &fakeAnswerer{name: "serve"}, &fakeAnswerer{name: "local"}
	dials, told := 0, 0
	p := ServeFirst{Local: local, Limits: Limits{MaxK: 100, MaxRequestBytes: 2000},
		Serve: func(context.Context) (Answerer, func(error), bool) {
			dials++
			return remote, func(error) {}, true
		},
		AnsweredHere: func(bool) { told++ }}
	ctx := context.Background()
	for _, q := range []QueryRequest{{Request: "x", K: 101}, {Request: "x", K: 0}, {Request: strings.Repeat("x", 2001), K: 5}} {
		if res, _ := p.Query(ctx, q); res.Collection != "local" {
			t.Errorf("k %d, %d bytes: answered by %s; want local", q.K, len(q.Request), res.Collection)
		}
	}
	for _, line := range []string{"wc \xff", strings.Repeat("x", explain.MaxLine+1)} {
		if res, _ := p.Explain(ctx, ExplainRequest{Line: line}); res.Collection != "local" {
			t.Errorf("line of %d bytes: answered by %s; want local", len(line), res.Collection)
		}
	}
	if doc, _ := p.Docs(ctx, DocsRequest{Command: "grep", Request: strings.Repeat("x", 2001)}); doc.Description != "local" {
		t.Errorf("docs past the limit: answered by %s; want local", doc.Description)
	}
	if dials != 0 {
		t.Errorf("past serve's limits: %d dials; want none", dials)
	}
	remote.fail = fmt.Errorf("%w: serve holds debian-12", ErrNotHeld)
	if res, err := p.Query(ctx, QueryRequest{Request: "x", K: 5}); err != nil || res.Collection != "local" || dials != 1 {
		t.Errorf("not held: %+v %v after %d dials; want local's answer", res, err, dials)
	}
	if told != 0 {
		t.Errorf("AnsweredHere told %d times while a serve ran; want 0", told)
	}
}

// lockedLocal answers as this process does while another cmdai holds
// the index data: locked for its first `locked` calls, then an answer.
type lockedLocal struct {
	fakeAnswerer
	locked int
}

func (h *lockedLocal) Query(ctx context.Context, q QueryRequest) (QueryResult, error) {
	res, _ := h.fakeAnswerer.Query(ctx, q)
	if h.calls <= h.locked {
		return QueryResult{}, errmark.As(errors.New("the private server's data is in use by cmdai (pid 7)"), chroma.ErrLocked)
	}
	return res, nil
}

// Two first calls at once: the one that finds the data held waits for
// the holder (asking serve again, and Local), answers, and is told as
// answered here; one held past LockedWait gets the holder's error; with
// no Serve at all (--no-serve) it waits too.
func TestServeFirstWaitsForTheDataHolder(t *testing.T) {
	ctx := context.Background()
	h, holdable := &lockedLocal{fakeAnswerer: fakeAnswerer{name: "here"}, locked: 3}, 0
	serveRuns := false
	dials := 0
	p := ServeFirst{Local: h, LockedWait: 30 * time.Second, AnsweredHere: func(bool) { holdable++ },
		Serve: func(context.Context) (Answerer, func(error), bool) {
			dials++
			return nil, nil, serveRuns
		}}
	res, err := p.Query(ctx, QueryRequest{Request: "x", K: 1})
	if err != nil || res.Collection != "here" || h.calls != 4 || holdable != 1 || dials != 4 {
		t.Errorf("after the holder let go: %+v %v, %d calls, %d dials, told %d", res, err, h.calls, dials, holdable)
	}

	h, holdable = &lockedLocal{fakeAnswerer: fakeAnswerer{name: "here"}, locked: 1 << 30}, 0
	p.Local, p.LockedWait = h, 500*time.Millisecond
	began := time.Now()
	if _, err := p.Query(ctx, QueryRequest{Request: "x", K: 1}); !errors.Is(err, chroma.ErrLocked) || holdable != 0 || time.Since(began) > 5*time.Second {
		t.Errorf("held past LockedWait: %v, told %d, after %s", err, holdable, time.Since(began))
	}

	// a serve that starts meanwhile answers the waiting call
	h = &lockedLocal{fakeAnswerer: fakeAnswerer{name: "here"}, locked: 1 << 30}
	remote := &fakeAnswerer{name: "serve"}
	calls := 0
	p = ServeFirst{Local: h, LockedWait: 30 * time.Second, Serve: func(context.Context) (Answerer, func(error), bool) {
		calls++
		return remote, func(error) {}, calls > 2
	}}
	if res, err := p.Query(ctx, QueryRequest{Request: "x", K: 1}); err != nil || res.Collection != "serve" {
		t.Errorf("serve started while waiting: %+v %v; want serve's answer", res, err)
	}

	h = &lockedLocal{fakeAnswerer: fakeAnswerer{name: "here"}, locked: 2}
	if res, err := (ServeFirst{Local: h, LockedWait: 30 * time.Second}).Query(ctx, QueryRequest{Request: "x", K: 1}); err != nil || res.Collection != "here" || h.calls != 3 {
		t.Errorf("no serve at all: %+v %v after %d calls", res, err, h.calls)
	}
}

// heldLocal answers as a one-shot does while another cmdai of kind holds
// the index data: locked for its first `locked` calls, then an answer.
type heldLocal struct {
	fakeAnswerer
	locked int
	kind   datalock.Kind
}

func (h *heldLocal) Query(ctx context.Context, q QueryRequest) (QueryResult, error) {
	res, _ := h.fakeAnswerer.Query(ctx, q)
	if h.calls <= h.locked {
		return QueryResult{}, &datalock.LockedError{Kind: h.kind}
	}
	return res, nil
}

// TestParallelFirstCallsWaitInsteadOfDegrading (issue 45, finding 9):
// the CLI's Local is Degrade over a one-shot, which answers from disk
// when the index data is held. Ten parallel first calls found it held by
// the first one (or by the serve it started) and nine answered degraded
// at once. Now a call that finds a holder that lets go within seconds (a
// read, a serve, one that has not said) waits for it and answers whole;
// one held past the wait, or by a holder that keeps the data (an MCP
// session, a writer), answers from disk as before.
func TestParallelFirstCallsWaitInsteadOfDegrading(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		kind       datalock.Kind
		locked     int
		wait       time.Duration
		fromDisk   int // Degrade's tries to answer from disk
		answeredBy string
	}{
		{datalock.KindRead, 3, 30 * time.Second, 0, "here"},
		{datalock.KindServe, 3, 30 * time.Second, 0, "here"},
		{"", 3, 30 * time.Second, 0, "here"},
		{datalock.KindRead, 1 << 30, 500 * time.Millisecond, 1, ""},
		{datalock.KindSession, 3, 30 * time.Second, 1, ""},
		{datalock.KindWrite, 3, 30 * time.Second, 1, ""},
	} {
		h := &heldLocal{fakeAnswerer: fakeAnswerer{name: "here"}, locked: tc.locked, kind: tc.kind}
		fromDisk := 0
		local := Degrade{Inner: h, Index: func(context.Context, string) (string, func(string) bool, error) {
			fromDisk++
			return "", nil, errors.New("no keyword index here")
		}}
		began := time.Now()
		res, err := (ServeFirst{Local: local, LockedWait: tc.wait}).Query(ctx, QueryRequest{Request: "show the files in this folder sorted by date", K: 1})
		if fromDisk != tc.fromDisk || res.Collection != tc.answeredBy || (tc.answeredBy != "" && err != nil) || time.Since(began) > tc.wait+5*time.Second {
			t.Errorf("held by %q for %d calls, wait %s: answered by %q (%v), %d tries from disk after %s; want %q, %d",
				tc.kind, tc.locked, tc.wait, res.Collection, err, fromDisk, time.Since(began), tc.answeredBy, tc.fromDisk)
		}
	}
}

// TestServeFirstWaitsWithoutRetryingWhileHeld: while StillHeld says the
// holder still holds (or a serve is starting), a waiting call asks serve
// only: Local, which loads the models on each try, is tried again only
// once it says no more.
func TestServeFirstWaitsWithoutRetryingWhileHeld(t *testing.T) {
	h := &heldLocal{fakeAnswerer: fakeAnswerer{name: "here"}, locked: 1, kind: datalock.KindRead}
	checks := 0
	p := ServeFirst{Local: h, LockedWait: 30 * time.Second, StillHeld: func() bool { checks++; return checks <= 3 }}
	res, err := p.Query(context.Background(), QueryRequest{Request: "x", K: 1})
	if err != nil || res.Collection != "here" || h.calls != 2 || checks != 4 {
		t.Errorf("answered by %q (%v) after %d tries here and %d checks; want here, 2 tries, 4 checks", res.Collection, err, h.calls, checks)
	}
}
