package answer

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/cmdai/cmdai/search"
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
	return search.CommandDoc{CommandHit: search.CommandHit{Command: q.Command, Description: f.name}}, f.fail
}

func (f *fakeAnswerer) Explain(_ context.Context, q ExplainRequest) (ExplainResult, error) {
	f.calls++
	return ExplainResult{Collection: f.name}, f.fail
}

func (f *fakeAnswerer) Status(context.Context, StatusRequest) (IndexStatus, error) {
	f.calls++
	return IndexStatus{Holder: f.name}, f.fail
}

// PerCall asks serve while one answers, Local when none does, and Local
// again when serve went between the check and the call; serve's own
// error answers are not retried locally; done is told every call sent
// to serve.
func TestPerCallPrefersServeAndFallsBack(t *testing.T) {
	remote, local := &fakeAnswerer{name: "serve"}, &fakeAnswerer{name: "local"}
	running, dials, dones := true, 0, 0
	var gone []error
	p := PerCall{Local: local, Serve: func(context.Context) (Answerer, func(error), bool) {
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
	if res, err := (PerCall{Local: local}).Query(ctx, q); err != nil || res.Collection != "local" {
		t.Errorf("without Serve: %+v %v", res, err)
	}
}
