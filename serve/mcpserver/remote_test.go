package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/cmdai/cmdai/builder"
	"github.com/cmdai/cmdai/explain"
	"github.com/cmdai/cmdai/index"
	"github.com/cmdai/cmdai/search"
	"github.com/cmdai/cmdai/serve"
)

// fakeServe answers as serve's client does: its answers, its *serve.Error
// answers, or a transport failure (a serve that went).
type fakeServe struct {
	gone    bool
	asked   []serve.QueryRequest
	answer  serve.QueryResult
	records int
}

func (f *fakeServe) Query(_ context.Context, q serve.QueryRequest) (serve.QueryResult, error) {
	f.asked = append(f.asked, q)
	if f.gone {
		return serve.QueryResult{}, errors.New("dial unix /run/cmdai.sock: connect: connection refused")
	}
	if q.Request == "bad" {
		return serve.QueryResult{}, &serve.Error{Status: 400, Message: "request of 3000 bytes: at most 2000", ExitCode: 2}
	}
	return f.answer, nil
}

func (f *fakeServe) Docs(_ context.Context, command string, _ bool) (search.CommandDoc, error) {
	if f.gone {
		return search.CommandDoc{}, errors.New("connection refused")
	}
	if command != "grep" {
		return search.CommandDoc{}, &serve.Error{Status: 404, Message: fmt.Sprintf("unknown command %q: it is not in the index", command), ExitCode: 2}
	}
	return search.CommandDoc{CommandHit: search.CommandHit{Command: "grep"}}, nil
}

func (f *fakeServe) Explain(_ context.Context, req serve.ExplainRequest) (serve.ExplainResult, error) {
	if f.gone {
		return serve.ExplainResult{}, errors.New("connection refused")
	}
	if strings.Contains(req.Line, "'") {
		return serve.ExplainResult{}, &serve.Error{Status: 400, Message: "bad command line: unbalanced quote", ExitCode: 2}
	}
	return serve.ExplainResult{Result: explain.Result{Line: req.Line, OK: true}}, nil
}

func (f *fakeServe) Status(context.Context, bool) (serve.IndexStatus, error) {
	if f.gone {
		return serve.IndexStatus{}, errors.New("connection refused")
	}
	st := serve.IndexStatus{Current: "cmdai_linux_test"}
	if f.records > 0 {
		st.Collections = []builder.CollectionStatus{{Name: "cmdai_linux_other", Records: 1}, {Name: "cmdai_linux_test", Records: f.records, Meta: index.Meta{Commands: 3, Complete: true}}}
	}
	return st, nil
}

// Remote asks serve for every match whole (Local's search gives them so:
// the tools render the same text), carries the degraded reason, and
// gives serve's errors their messages; a 404 is ErrUnknownCommand.
func TestRemoteAsksForEveryMatchAndKeepsErrors(t *testing.T) {
	hit := search.CommandHit{Command: "find", Matches: []search.Match{{ID: "find:1", Text: "whole text"}}}
	f := &fakeServe{answer: serve.QueryResult{Commands: []search.CommandHit{hit}, Degraded: true, DegradedReason: "Chroma unavailable (x): keyword-only answer from /k"}, records: 42}
	r := Remote{C: f, Collection: "cmdai_linux_test", Socket: "/run/cmdai.sock"}
	ctx := context.Background()
	a, err := r.Query(ctx, Query{Request: "find files", K: 3, Mode: search.ModeHybrid})
	if err != nil || len(a.Commands) != 1 || a.Commands[0].Matches[0].Text != "whole text" || !strings.Contains(a.Degraded, "keyword-only") {
		t.Errorf("query: %+v %v", a, err)
	}
	if want := (serve.QueryRequest{Request: "find files", K: 3, Mode: "hybrid", Full: true}); len(f.asked) != 1 || f.asked[0] != want {
		t.Errorf("asked serve %+v, want %+v", f.asked, want)
	}
	if _, err := r.Query(ctx, Query{Request: "bad", K: 1}); err == nil || err.Error() != "request of 3000 bytes: at most 2000" || errors.Is(err, ErrServeGone) {
		t.Errorf("serve's error answer: %v; want its message as it is", err)
	}
	if _, err := r.Docs(ctx, "nosuch"); !errors.Is(err, search.ErrUnknownCommand) || err.Error() != `unknown command "nosuch": it is not in the index` {
		t.Errorf("unknown command: %v", err)
	}
	st, err := r.Status(ctx)
	if err != nil || st.Records != 42 || st.Meta.Commands != 3 || !strings.Contains(st.Holder, "cmdai serve on /run/cmdai.sock") {
		t.Errorf("status: %+v %v", st, err)
	}
	f.records = 0
	if _, err := r.Status(ctx); err == nil || !strings.Contains(err.Error(), "cmdai index init") {
		t.Errorf("status without the index: %v; want what to run", err)
	}
}

// PerCall asks serve while one answers, Local when none does, and Local
// again when serve went between the check and the call; serve's own
// error answers are not retried locally.
func TestPerCallPrefersServeAndFallsBack(t *testing.T) {
	f := &fakeServe{answer: serve.QueryResult{Commands: []search.CommandHit{{Command: "from-serve"}}}, records: 1}
	local := &fakeBackend{}
	running, dials, closes := true, 0, 0
	var gone []error
	p := PerCall{Local: local, Serve: func(context.Context) (Backend, func(error), bool) {
		dials++
		if !running {
			return nil, nil, false
		}
		return Remote{C: f, Collection: "cmdai_linux_test"}, func(err error) {
			closes++
			if errors.Is(err, ErrServeGone) {
				gone = append(gone, err)
			}
		}, true
	}}
	ctx := context.Background()
	q := Query{Request: "find files", K: 1, Mode: search.ModeSemantic}
	if a, err := p.Query(ctx, q); err != nil || a.Commands[0].Command != "from-serve" || len(local.queries) != 0 {
		t.Errorf("with serve: %+v %v, local asked %d times", a, err, len(local.queries))
	}
	running = false
	if a, err := p.Query(ctx, q); err != nil || a.Commands[0].Command != "find" || len(local.queries) != 1 {
		t.Errorf("without serve: %+v %v; want Local's answer", a, err)
	}
	running, f.gone = true, true
	if a, err := p.Query(ctx, q); err != nil || a.Commands[0].Command != "find" || len(local.queries) != 2 {
		t.Errorf("serve gone mid-call: %+v %v; want Local's answer", a, err)
	}
	if doc, err := p.Docs(ctx, "grep"); err != nil || doc.Command != "grep" {
		t.Errorf("docs, serve gone: %+v %v", doc, err)
	}
	if st, err := p.Status(ctx); err != nil || st.Holder != "a test" {
		t.Errorf("status, serve gone: %+v %v", st, err)
	}
	f.gone = false
	if _, err := p.Query(ctx, Query{Request: "bad", K: 1}); err == nil || len(local.queries) != 2 {
		t.Errorf("serve's error answer: %v, local asked %d times; want serve's error, Local not asked", err, len(local.queries))
	}
	if dials != closes+1 {
		t.Errorf("%d dials (one without serve), %d done: every call through serve must be done", dials, closes)
	}
	if len(gone) != 3 {
		t.Errorf("done told of %d calls serve did not answer, want 3: %v", len(gone), gone)
	}
}
