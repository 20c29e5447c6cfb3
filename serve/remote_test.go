package serve

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/cmdai/cmdai/answer"
	"github.com/cmdai/cmdai/builder"
	"github.com/cmdai/cmdai/explain"
	"github.com/cmdai/cmdai/index"
	"github.com/cmdai/cmdai/internal/exitcode"
	"github.com/cmdai/cmdai/search"
	"github.com/cmdai/cmdai/search/shown"
)

// fakeServe answers as serve's client does: its answers, its *Error
// answers, or a transport failure (a serve that went).
type fakeServe struct {
	gone     bool
	asked    []answer.QueryRequest
	explains []answer.ExplainRequest
	statuses []answer.StatusRequest
	strict   []bool
	answer   answer.QueryResult
	records  int
}

func (f *fakeServe) Query(_ context.Context, q answer.QueryRequest) (answer.QueryResult, error) {
	f.asked = append(f.asked, q)
	if f.gone {
		return answer.QueryResult{}, errors.New("dial unix /run/cmdai.sock: connect: connection refused")
	}
	if q.Request == "bad" {
		return answer.QueryResult{}, &Error{Status: 400, Message: "request of 3000 bytes: at most 2000", ExitCode: 2}
	}
	return f.answer, nil
}

func (f *fakeServe) Docs(_ context.Context, command, _ string, strict bool) (search.CommandDoc, error) {
	f.strict = append(f.strict, strict)
	if f.gone {
		return search.CommandDoc{}, errors.New("connection refused")
	}
	if command == "noindex" {
		return search.CommandDoc{}, &Error{Status: 404, Message: "no index cmdai_linux_test: build it with `cmdai index init`", ExitCode: exitcode.NoIndex}
	}
	if command != "grep" {
		return search.CommandDoc{}, &Error{Status: 404, Message: fmt.Sprintf("unknown command %q: it is not in the index", command), ExitCode: 2}
	}
	return search.CommandDoc{CommandHit: shown.CommandHit{Command: "grep"}}, nil
}

func (f *fakeServe) Explain(_ context.Context, req answer.ExplainRequest) (answer.ExplainResult, error) {
	f.explains = append(f.explains, req)
	if f.gone {
		return answer.ExplainResult{}, errors.New("connection refused")
	}
	if strings.Contains(req.Line, "'") {
		return answer.ExplainResult{}, &Error{Status: 400, Message: "bad command line: unbalanced quote", ExitCode: 2}
	}
	return answer.ExplainResult{Result: explain.Result{Line: req.Line, OK: true}}, nil
}

func (f *fakeServe) StatusOf(_ context.Context, req answer.StatusRequest) (answer.IndexStatus, error) {
	f.statuses = append(f.statuses, req)
	if f.gone {
		return answer.IndexStatus{}, errors.New("connection refused")
	}
	st := answer.IndexStatus{Current: "cmdai_linux_test"}
	if f.records > 0 {
		st.Collections = []builder.CollectionStatus{{Name: "cmdai_linux_other", Records: 1}, {Name: "cmdai_linux_test", Records: f.records, Meta: index.Meta{Commands: 3, Complete: true}}}
	}
	return st, nil
}

var (
	_ RemoteAPI       = (*Client)(nil)
	_ answer.Answerer = Remote{}
)

// Remote passes the request on (every match whole when the tools ask
// Full, the distribution asked for when the request names none), carries
// the degraded answer, and gives serve's errors their messages; a 404 is
// ErrUnknownCommand; a status names serve and its collection.
func TestRemoteAsksAsToldAndKeepsErrors(t *testing.T) {
	hit := shown.CommandHit{Command: "find", Matches: []shown.Match{{ID: "find:1", Text: "whole text"}}}
	f := &fakeServe{answer: answer.QueryResult{Commands: []shown.CommandHit{hit}, Degraded: true, DegradedReason: "Chroma unavailable (x): keyword-only answer from /k"}, records: 42}
	r := Remote{C: f, Collection: "cmdai_linux_test", Socket: "/run/cmdai.sock", Distro: "debian-12"}
	ctx := context.Background()
	res, err := r.Query(ctx, answer.QueryRequest{Request: "find files", K: 3, Mode: "hybrid", Full: true})
	if err != nil || len(res.Commands) != 1 || res.Commands[0].Matches[0].Text != "whole text" || !strings.Contains(res.DegradedReason, "keyword-only") {
		t.Errorf("query: %+v %v", res, err)
	}
	if want := (answer.QueryRequest{Request: "find files", K: 3, Mode: "hybrid", Full: true, Distro: "debian-12"}); len(f.asked) != 1 || f.asked[0] != want {
		t.Errorf("asked serve %+v, want %+v", f.asked, want)
	}
	if _, err := r.Query(ctx, answer.QueryRequest{Request: "x", Distro: "fedora-40"}); err != nil || f.asked[1].Distro != "fedora-40" {
		t.Errorf("a request's own distribution: %+v %v", f.asked[1], err)
	}
	if _, err := r.Query(ctx, answer.QueryRequest{Request: "bad", K: 1}); err == nil || err.Error() != "request of 3000 bytes: at most 2000" || errors.Is(err, answer.ErrServeGone) || exitcode.Of(err) != exitcode.Usage {
		t.Errorf("serve's error answer: %v; want its message as it is", err)
	}
	if _, err := r.Docs(ctx, answer.DocsRequest{Command: "nosuch"}); !errors.Is(err, search.ErrUnknownCommand) || err.Error() != `unknown command "nosuch": it is not in the index` || exitcode.Of(err) != exitcode.Usage {
		t.Errorf("unknown command: %v (exit %d); want ErrUnknownCommand, exit 2", err, exitcode.Of(err))
	}
	// the exit code the command would have had: a 404 of exit 3 is no
	// index, not an unknown command
	if _, err := r.Docs(ctx, answer.DocsRequest{Command: "noindex"}); errors.Is(err, search.ErrUnknownCommand) || exitcode.Of(err) != exitcode.NoIndex || err.Error() != "no index cmdai_linux_test: build it with `cmdai index init`" {
		t.Errorf("no index: %v (exit %d); want serve's message and exit 3", err, exitcode.Of(err))
	}
	if doc, err := r.Docs(ctx, answer.DocsRequest{Command: "grep", Strict: true}); err != nil || doc.Command != "grep" || !f.strict[2] {
		t.Errorf("docs: %+v %v (strict asked %v)", doc, err, f.strict)
	}
	if ex, err := r.Explain(ctx, answer.ExplainRequest{Line: "ls -l"}); err != nil || !ex.OK || f.explains[0] != (answer.ExplainRequest{Line: "ls -l", Distro: "debian-12"}) {
		t.Errorf("explain: %+v %v, asked %+v", ex, err, f.explains)
	}
	if _, err := r.Explain(ctx, answer.ExplainRequest{Line: "ls 'a"}); err == nil || err.Error() != "bad command line: unbalanced quote" {
		t.Errorf("a bad line: %v", err)
	}
	st, err := r.Status(ctx, answer.StatusRequest{Detailed: true})
	if err != nil || st.Current != "cmdai_linux_test" || len(st.Collections) != 2 || st.Collections[1].Records != 42 || st.Holder != "cmdai serve on /run/cmdai.sock" || !f.statuses[0].Detailed {
		t.Errorf("status: %+v %v", st, err)
	}
	f.records = 0
	if _, err := r.Status(ctx, answer.StatusRequest{}); err == nil || err.Error() != "no index cmdai_linux_test in the Chroma of cmdai serve (/run/cmdai.sock): build it with `cmdai index init`" {
		t.Errorf("status without the index: %v; want what to run", err)
	}
	f.gone = true
	for name, call := range map[string]func() error{
		"query":   func() error { _, err := r.Query(ctx, answer.QueryRequest{Request: "x"}); return err },
		"docs":    func() error { _, err := r.Docs(ctx, answer.DocsRequest{Command: "grep"}); return err },
		"explain": func() error { _, err := r.Explain(ctx, answer.ExplainRequest{Line: "ls"}); return err },
		"status":  func() error { _, err := r.Status(ctx, answer.StatusRequest{}); return err },
	} {
		if err := call(); !errors.Is(err, answer.ErrServeGone) || !strings.Contains(err.Error(), "connection refused") {
			t.Errorf("%s, serve gone: %v; want ErrServeGone with why", name, err)
		}
	}
}

// Without a Collection, Status reports serve's current one.
func TestRemoteStatusOfServesCurrent(t *testing.T) {
	r := Remote{C: &fakeServe{records: 5}, Socket: "/s"}
	if st, err := r.Status(context.Background(), answer.StatusRequest{}); err != nil || st.Current != "cmdai_linux_test" || st.Holder != "cmdai serve on /s" {
		t.Errorf("status: %+v %v", st, err)
	}
}

// TestFinderAnswersHereBesideAFrozenServe (issue 45, finding 12): when
// no serve answers but one holds its lock (stopped or frozen: Dial has
// already waited for one starting), the door answers itself at once:
// the Finder gives an Answerer that is never serve's (answer.ErrNotHeld),
// so that ServeFirst asks Local without waiting and starts no serve.
// With no serve holding the lock, there is none.
func TestFinderAnswersHereBesideAFrozenServe(t *testing.T) {
	held := true
	f := &Finder{Dial: func(context.Context) (Conn, bool) { return nil, false }, Held: func() bool { return held }}
	a, done, ok := f.Answerer(context.Background())
	if !ok || a == nil || done == nil {
		t.Fatalf("beside a frozen serve: %v %v; want an Answerer that sends the call here", a, ok)
	}
	if _, err := a.Query(context.Background(), answer.QueryRequest{Request: "x", K: 1}); !errors.Is(err, answer.ErrNotHeld) {
		t.Errorf("its answer: %v; want answer.ErrNotHeld", err)
	}
	held = false
	if _, _, ok := f.Answerer(context.Background()); ok {
		t.Error("no serve at all: the Finder found one")
	}
}
