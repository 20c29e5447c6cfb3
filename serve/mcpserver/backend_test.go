package mcpserver

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/cmdai/cmdai/chroma"
	"github.com/cmdai/cmdai/search"
)

// countColl is a search.Collection whose Count fails while broken.
type countColl struct{ broken bool }

func (c *countColl) Name() string             { return "cmdai_linux_test" }
func (c *countColl) Metadata() map[string]any { return map[string]any{"complete": true, "commands": 2} }
func (c *countColl) Count(context.Context) (int, error) {
	if c.broken {
		return 0, errors.New("connection refused")
	}
	return 7, nil
}
func (c *countColl) Query(context.Context, []float32, int) ([]chroma.Hit, error) { return nil, nil }
func (c *countColl) Get(context.Context, []string) ([]chroma.Record, error)      { return nil, nil }
func (c *countColl) All(context.Context, chroma.Include) ([]chroma.Record, error) {
	return nil, nil
}

// Local opens the index on first use and keeps it; a failed open is
// retried by the next call; a failure of the open index drops it, so the
// next call opens it again (a Chroma that died is started anew).
func TestLocalOpensOnceRetriesAndReopens(t *testing.T) {
	coll := &countColl{}
	opens, closes := 0, 0
	fail := errors.New("no index cmdai_linux_test: build it with `cmdai index init`")
	l := NewLocal(context.Background(), func(context.Context) (search.Searcher, func(), error) {
		opens++
		if opens == 1 {
			return search.Searcher{}, nil, fail
		}
		return search.Searcher{Coll: coll}, func() { closes++ }, nil
	}, nil)
	ctx := context.Background()
	if _, err := l.Status(ctx); !errors.Is(err, fail) {
		t.Fatalf("first open: %v, want the opener's error", err)
	}
	for range 3 {
		st, err := l.Status(ctx)
		if err != nil || st.Records != 7 || st.Meta.Commands != 2 {
			t.Fatalf("status %+v, %v", st, err)
		}
	}
	if opens != 2 {
		t.Errorf("opened %d times, want 2 (one failed, then kept)", opens)
	}
	coll.broken = true
	if _, err := l.Status(ctx); err == nil || !strings.Contains(err.Error(), "connection refused") {
		t.Errorf("broken collection: %v", err)
	}
	coll.broken = false
	if _, err := l.Status(ctx); err != nil || opens != 3 || closes != 1 {
		t.Errorf("after a failure: %v, opens %d closes %d; want a reopen and the old one closed", err, opens, closes)
	}
	if _, err := l.Query(ctx, Query{Request: "x", K: 1, Mode: search.ModeHybrid}); err == nil || !strings.Contains(err.Error(), "semantic") {
		t.Errorf("hybrid without a keyword loader: %v", err)
	}
	l.Close()
	if closes != 2 {
		t.Errorf("Close closed %d times in all, want 2", closes)
	}
}

// With KeepOpen, the index is closed when no call came for that long
// (freeing the private server's data directory), and opened again by
// the next call; a countdown overtaken by a call closes nothing.
func TestLocalClosesWhenIdle(t *testing.T) {
	opens, closes := 0, 0
	l := NewLocal(context.Background(), func(context.Context) (search.Searcher, func(), error) {
		opens++
		return search.Searcher{Coll: &countColl{}}, func() { closes++ }, nil
	}, nil)
	l.KeepOpen = time.Minute
	var countdowns []func()
	l.afterFunc = func(d time.Duration, f func()) *time.Timer {
		if d != time.Minute {
			t.Errorf("countdown of %v, want KeepOpen", d)
		}
		countdowns = append(countdowns, f)
		return time.AfterFunc(time.Hour, func() {}) // never fires here: the test fires f itself
	}
	ctx := context.Background()
	l.Status(ctx)
	l.Status(ctx)
	countdowns[0]() // overtaken by the second call
	if closes != 0 {
		t.Fatalf("an overtaken countdown closed the index")
	}
	countdowns[1]()
	if closes != 1 {
		t.Fatalf("idle: closed %d times, want 1", closes)
	}
	if _, err := l.Status(ctx); err != nil || opens != 2 {
		t.Errorf("after the idle close: %v, opened %d times, want 2", err, opens)
	}
	l.Close()
	if closes != 2 {
		t.Errorf("Close: closed %d times in all, want 2", closes)
	}
}

// A search whose index cannot be opened goes to FromDisk with the
// opener's error, a docs call to DocsFromDisk (a status call does not:
// it needs the index); their own errors are the call's.
func TestLocalSearchFallsBackToDisk(t *testing.T) {
	down := errors.New("chroma unreachable: no heartbeat from http://127.0.0.1:9")
	l := NewLocal(context.Background(), func(context.Context) (search.Searcher, func(), error) {
		return search.Searcher{}, nil, down
	}, nil)
	var causes []error
	l.FromDisk = func(_ context.Context, q Query, cause error) (search.Answer, error) {
		causes = append(causes, cause)
		if q.Request == "strict" {
			return search.Answer{}, cause
		}
		return search.Answer{Commands: []search.CommandHit{{Command: "find"}}, Degraded: "keyword-only"}, nil
	}
	ctx := context.Background()
	a, err := l.Query(ctx, Query{Request: "find files", K: 1, Mode: search.ModeSemantic})
	if err != nil || a.Degraded != "keyword-only" || len(causes) != 1 || !errors.Is(causes[0], down) {
		t.Errorf("degraded search: %+v %v, causes %v", a, err, causes)
	}
	if _, err := l.Query(ctx, Query{Request: "strict", K: 1}); !errors.Is(err, down) {
		t.Errorf("FromDisk's refusal: %v, want the cause", err)
	}
	if _, err := l.Docs(ctx, "grep"); !errors.Is(err, down) || len(causes) != 2 {
		t.Errorf("docs without DocsFromDisk: %v (FromDisk asked %d times); want the opener's error", err, len(causes))
	}
	l.DocsFromDisk = func(_ context.Context, command string, cause error) (search.CommandDoc, error) {
		causes = append(causes, cause)
		if command == "nosuch" {
			return search.CommandDoc{}, cause
		}
		return search.CommandDoc{CommandHit: search.CommandHit{Command: command}, Degraded: true, DegradedReason: "live"}, nil
	}
	if doc, err := l.Docs(ctx, "grep"); err != nil || !doc.Degraded || doc.Command != "grep" || len(causes) != 3 || !errors.Is(causes[2], down) {
		t.Errorf("degraded docs: %+v %v, causes %v", doc, err, causes)
	}
	if _, err := l.Docs(ctx, "nosuch"); !errors.Is(err, down) {
		t.Errorf("DocsFromDisk's refusal: %v, want the cause", err)
	}
	if _, err := l.Status(ctx); !errors.Is(err, down) || len(causes) != 4 {
		t.Errorf("status: %v; want the opener's error, no disk", err)
	}
}

// explain_command opens the index without the model (OpenDocs) and keeps
// it for the next lines; the first call that needs the whole index
// (status here) closes that and opens it whole, which explain then uses.
func TestLocalExplainOpensWithoutTheModel(t *testing.T) {
	coll := &countColl{}
	opens, docsOpens, closes := 0, 0, 0
	l := NewLocal(context.Background(), func(context.Context) (search.Searcher, func(), error) {
		opens++
		return search.Searcher{Coll: coll}, func() { closes++ }, nil
	}, nil)
	l.OpenDocs = func(context.Context) (search.Searcher, func(), error) {
		docsOpens++
		return search.Searcher{Coll: coll}, func() { closes++ }, nil
	}
	ctx := context.Background()
	for range 2 {
		// countColl holds no records: ls is not installed, by the index alone
		res, err := l.Explain(ctx, "ls -l")
		if err != nil || len(res.Commands) != 1 || res.Commands[0].Verdict != "not installed" || res.Collection != "cmdai_linux_test" {
			t.Fatalf("explain: %+v %v", res, err)
		}
	}
	if opens != 0 || docsOpens != 1 {
		t.Errorf("explain opened %d whole, %d without the model; want 0 and 1", opens, docsOpens)
	}
	if _, err := l.Status(ctx); err != nil || opens != 1 || closes != 1 {
		t.Errorf("status after explain: %v, opens %d closes %d; want the index reopened whole", err, opens, closes)
	}
	if _, err := l.Explain(ctx, "ls -l"); err != nil || opens != 1 || docsOpens != 1 {
		t.Errorf("explain after status: %v, opens %d docs opens %d; want the whole index used", err, opens, docsOpens)
	}
	if _, err := l.Explain(ctx, "ls 'a"); err == nil || !strings.Contains(err.Error(), "bad command line") || closes != 1 {
		t.Errorf("a bad line: %v (closes %d); want its error, the index kept", err, closes)
	}
}
