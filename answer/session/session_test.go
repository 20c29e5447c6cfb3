package session

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/cmdai/cmdai/answer"
	"github.com/cmdai/cmdai/answer/answertest"
	"github.com/cmdai/cmdai/chroma"
	"github.com/cmdai/cmdai/index"
	"github.com/cmdai/cmdai/search"
	"github.com/cmdai/cmdai/search/bm25"
	"github.com/cmdai/cmdai/search/render"
	"github.com/cmdai/cmdai/search/shown"
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

// A Session opens the index on first use and keeps it; a failed open is
// retried by the next call; a failure of the open index drops it, so the
// next call opens it again (a Chroma that died is started anew).
func TestSessionOpensOnceRetriesAndReopens(t *testing.T) {
	coll := &countColl{}
	opens, closes := 0, 0
	fail := errors.New("no index cmdai_linux_test: build it with `cmdai index init`")
	l := New(context.Background(), func(context.Context) (search.Searcher, func(), error) {
		opens++
		if opens == 1 {
			return search.Searcher{}, nil, fail
		}
		return search.Searcher{Coll: coll}, func() { closes++ }, nil
	}, nil)
	ctx := context.Background()
	if _, err := l.Status(ctx, answer.StatusRequest{}); !errors.Is(err, fail) {
		t.Fatalf("first open: %v, want the opener's error", err)
	}
	for range 3 {
		st, err := l.Status(ctx, answer.StatusRequest{})
		if err != nil || st.Current != "cmdai_linux_test" || len(st.Collections) != 1 || st.Collections[0].Records != 7 || st.Collections[0].Meta.Commands != 2 || !st.Collections[0].Current {
			t.Fatalf("status %+v, %v", st, err)
		}
	}
	if opens != 2 {
		t.Errorf("opened %d times, want 2 (one failed, then kept)", opens)
	}
	coll.broken = true
	if _, err := l.Status(ctx, answer.StatusRequest{}); err == nil || !strings.Contains(err.Error(), "connection refused") {
		t.Errorf("broken collection: %v", err)
	}
	coll.broken = false
	if _, err := l.Status(ctx, answer.StatusRequest{}); err != nil || opens != 3 || closes != 1 {
		t.Errorf("after a failure: %v, opens %d closes %d; want a reopen and the old one closed", err, opens, closes)
	}
	if _, err := l.Query(ctx, answer.QueryRequest{Request: "x", K: 1, Mode: "hybrid"}); err == nil || !strings.Contains(err.Error(), "semantic") {
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
func TestSessionClosesWhenIdle(t *testing.T) {
	opens, closes := 0, 0
	l := New(context.Background(), func(context.Context) (search.Searcher, func(), error) {
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
	l.Status(ctx, answer.StatusRequest{})
	l.Status(ctx, answer.StatusRequest{})
	countdowns[0]() // overtaken by the second call
	if closes != 0 {
		t.Fatalf("an overtaken countdown closed the index")
	}
	countdowns[1]()
	if closes != 1 {
		t.Fatalf("idle: closed %d times, want 1", closes)
	}
	if _, err := l.Status(ctx, answer.StatusRequest{}); err != nil || opens != 2 {
		t.Errorf("after the idle close: %v, opened %d times, want 2", err, opens)
	}
	l.Close()
	if closes != 2 {
		t.Errorf("Close: closed %d times in all, want 2", closes)
	}
}

// A search, docs or explain call whose index cannot be opened is the
// opener's error; answer.Degrade over the session answers it from disk
// (the keyword index, the live pages) for the collection its Index
// names, degraded; a strict one, one whose Index has no collection and a
// status call get the opener's error, and so does an error disk cannot
// help.
func TestSessionFallsBackToDisk(t *testing.T) {
	getenv := answertest.Machine(t)
	answertest.SaveKeywords(t, getenv)
	openErr := down
	l := New(context.Background(), func(context.Context) (search.Searcher, func(), error) {
		return search.Searcher{}, nil, openErr
	}, nil)
	ctx := context.Background()
	q := answer.QueryRequest{Request: "print byte counts", K: 3, Mode: "semantic", Full: true}
	if _, err := l.Query(ctx, q); !errors.Is(err, down) {
		t.Errorf("the session alone: %v, want the opener's error", err)
	}
	asked := 0
	d := answer.Degrade{Inner: l, Getenv: getenv, Index: func(context.Context, string) (string, func(string) bool, error) {
		asked++
		if asked == 1 {
			return "", nil, errors.New("detect distribution: no /etc/os-release")
		}
		return answertest.Collection, func(string) bool { return true }, nil
	}}
	if _, err := d.Query(ctx, q); !errors.Is(err, down) || asked != 1 {
		t.Errorf("Index without a collection: %v (asked %d); want the opener's error", err, asked)
	}
	res, err := d.Query(ctx, q)
	if err != nil || !res.Degraded || !strings.Contains(res.DegradedReason, "keyword-only answer from") || res.Collection != answertest.Collection || len(res.Commands) != 1 || res.Commands[0].Command != "wc" {
		t.Errorf("degraded search: %+v %v", res, err)
	}
	if _, err := d.Query(ctx, answer.QueryRequest{Request: "print byte counts", K: 3, Mode: "semantic", Strict: true}); !errors.Is(err, down) {
		t.Errorf("strict search: %v, want the opener's error", err)
	}
	if doc, err := d.Docs(ctx, answer.DocsRequest{Command: "wc"}); err != nil || !doc.Degraded || doc.Command != "wc" || !strings.Contains(doc.DegradedReason, "from the keyword index") {
		t.Errorf("degraded docs: %+v %v", doc, err)
	}
	if doc, err := d.Docs(ctx, answer.DocsRequest{Command: "frob"}); err != nil || !doc.Degraded || !strings.Contains(doc.DegradedReason, "read live from") {
		t.Errorf("docs of an installed command the keyword index lacks: %+v %v", doc, err)
	}
	if _, err := d.Docs(ctx, answer.DocsRequest{Command: "wc", Strict: true}); !errors.Is(err, down) {
		t.Errorf("strict docs: %v, want the opener's error", err)
	}
	if ex, err := d.Explain(ctx, answer.ExplainRequest{Line: "wc -l f"}); err != nil || !ex.Degraded || ex.Collection != answertest.Collection || len(ex.Commands) != 1 {
		t.Errorf("degraded explain: %+v %v", ex, err)
	}
	n := asked
	if _, err := d.Status(ctx, answer.StatusRequest{}); !errors.Is(err, down) || asked != n {
		t.Errorf("status: %v (Index asked %d more times); want the opener's error, no disk", err, asked-n)
	}
	openErr = errors.New("no index cmdai_linux_test: build it with `cmdai index init`")
	if _, err := d.Query(ctx, q); err != openErr {
		t.Errorf("an error disk cannot help: %v, want it as it is", err)
	}
	if l.Held() {
		t.Error("a failed open is held")
	}
}

// explain_command opens the index without the model (OpenDocs) and keeps
// it for the next lines; the first call that needs the whole index
// (status here) closes that and opens it whole, which explain then uses.
func TestSessionExplainOpensWithoutTheModel(t *testing.T) {
	coll := &countColl{}
	opens, docsOpens, closes := 0, 0, 0
	l := New(context.Background(), func(context.Context) (search.Searcher, func(), error) {
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
		res, err := l.Explain(ctx, answer.ExplainRequest{Line: "ls -l"})
		if err != nil || len(res.Commands) != 1 || res.Commands[0].Verdict != "not installed" || res.Collection != "cmdai_linux_test" {
			t.Fatalf("explain: %+v %v", res, err)
		}
	}
	if opens != 0 || docsOpens != 1 {
		t.Errorf("explain opened %d whole, %d without the model; want 0 and 1", opens, docsOpens)
	}
	if _, err := l.Status(ctx, answer.StatusRequest{}); err != nil || opens != 1 || closes != 1 {
		t.Errorf("status after explain: %v, opens %d closes %d; want the index reopened whole", err, opens, closes)
	}
	if _, err := l.Explain(ctx, answer.ExplainRequest{Line: "ls -l"}); err != nil || opens != 1 || docsOpens != 1 {
		t.Errorf("explain after status: %v, opens %d docs opens %d; want the whole index used", err, opens, docsOpens)
	}
	if _, err := l.Explain(ctx, answer.ExplainRequest{Line: "ls 'a"}); err == nil || !strings.Contains(err.Error(), "bad command line") || closes != 1 {
		t.Errorf("a bad line: %v (closes %d); want its error, the index kept", err, closes)
	}
}

// The search a Session answers is answer.Search over answer.SearchRequest (the search
// of `index query` and POST /v1/query), and with Full it is the
// searcher's own answer, every match of each command whole (the options
// it chose first): the same hits, and so byte for byte the same text of
// search_commands as before it went through answer.Search (when Local
// called the Searcher itself).
func TestSessionSearchIsTheSearchersOwn(t *testing.T) {
	long := strings.Repeat("counts the bytes of each file and prints them ", 12) // over DefaultMatchText
	var docs []bm25.Doc
	for i, kind := range []index.Kind{index.KindSummary, index.KindOption, index.KindOption, index.KindExample, index.KindOption} {
		md := index.Metadata{Command: "wc", Kind: kind, Section: "OPTIONS", Option: fmt.Sprintf("-%c", 'a'+i), Description: "print newline, word, and byte counts"}
		docs = append(docs, bm25.Doc{ID: fmt.Sprintf("wc.1#%d", i), Command: "wc", Text: fmt.Sprintf("wc(1) option -%c bytes %s", 'a'+i, long), Meta: md})
	}
	md := index.Metadata{Command: "du", Kind: index.KindSummary, Section: "NAME", Description: "estimate file space usage"}
	docs = append(docs, bm25.Doc{ID: "du.1#NAME", Command: "du", Text: "du(1) - estimate file space usage, in bytes", Meta: md})
	ix := bm25.Build(docs)
	s := search.Searcher{Coll: &countColl{}, Keywords: ix}
	l := New(context.Background(), func(context.Context) (search.Searcher, func(), error) { return s, func() {}, nil }, nil)
	ctx := context.Background()
	for _, k := range []int{1, 2, 5} {
		a, err := s.Answer(ctx, search.Request{Query: "count the bytes", K: k, Mode: search.ModeKeyword, Matches: -1, MatchText: -1})
		if err != nil {
			t.Fatal(err)
		}
		want := a.Commands
		res, err := l.Query(ctx, answer.QueryRequest{Request: "count the bytes", K: k, Mode: "keyword", Full: true})
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(res.Commands, want) || res.Collection != "cmdai_linux_test" || res.Degraded {
			t.Errorf("k %d: %+v\nwant the searcher's %+v", k, res, want)
		}
		if got, old := render.Brief(res.Commands, render.DefaultBriefMatches), render.Brief(want, render.DefaultBriefMatches); got != old {
			t.Errorf("k %d: search_commands' text\n%s\nwant\n%s", k, got, old)
		}
		if k == 5 && (len(want) != 2 || len(want[0].Matches) <= shown.DefaultMatches || !strings.HasSuffix(res.Commands[0].Matches[0].Text, long) || res.Commands[0].Matches[0].Truncated) {
			t.Errorf("the check needs more matches than kept by default, and whole: %+v", res.Commands)
		}
	}
}

var down = answertest.Down
