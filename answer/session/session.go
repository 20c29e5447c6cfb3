// Package session holds an index for an MCP session (cmdai mcp): opened
// on the first call that needs it (without the model for explain alone),
// kept while calls come, closed after --keep-open idle or when a serve
// takes over. Its errors are Chroma's: answer.Degrade answers from disk
// while Chroma is down.
package session

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/cmdai/cmdai/answer"
	"github.com/cmdai/cmdai/builder"
	"github.com/cmdai/cmdai/chroma"
	"github.com/cmdai/cmdai/config"
	"github.com/cmdai/cmdai/explain"
	"github.com/cmdai/cmdai/index"
	"github.com/cmdai/cmdai/search"
	"github.com/cmdai/cmdai/search/kwstore"
)

// Opener opens the index once for an Index: the searcher (its
// collection and embedder; Keywords may be nil) and what closes it.
type Opener func(ctx context.Context) (search.Searcher, func(), error)

// Index is the answer.Answerer that holds the index in this process for a
// long session (an agent's, through `cmdai mcp`): it opens the index on
// the first call that needs it (a session that only lists tools starts
// no Chroma and loads no model) and keeps it until Close, or until it
// has been idle for KeepOpen. A failed open is not kept: the next call
// tries again, so that an agent can run `cmdai index init` and retry.
type Index struct {
	// base outlives every request: the Chroma server and the model opened
	// for one call serve the whole session.
	base   context.Context
	open   Opener
	loadKW func(ctx context.Context, s *search.Searcher) error
	// OpenDocs, when set, opens the index without its model (the
	// collection alone): all Explain reads. A session that only checks
	// lines loads no model; its first search, docs or status call reopens
	// the index whole.
	OpenDocs Opener
	// OnPath tells explain whether a command the index lacks is
	// installed here (see explain.Options): nil for an index of another
	// distribution.
	OnPath func(command string) bool
	// Holder names this process in Status's answers (answer.IndexStatus.Holder).
	Holder string
	// KeepOpen is how long the index stays open after the last call (0:
	// until Close). Closing it stops the private Chroma server and frees
	// its data directory for other cmdai commands (one holder at a time):
	// an agent's session lasts hours, a refresh must not wait for it.
	KeepOpen time.Duration
	// afterFunc is time.AfterFunc; tests call the function themselves.
	afterFunc func(time.Duration, func()) *time.Timer

	mu      sync.Mutex
	s       *search.Searcher
	closeFn func()
	// docs is s.Docs cached for explain, as long as s is open.
	docs explain.Lookup
	// docsOnly: s was opened by OpenDocs (no model).
	docsOnly bool
	timer    *time.Timer
	// calls counts calls, so that an idle close that waited for the lock
	// while a call ran does not close what that call just used.
	calls int
}

// New is an Index over open; loadKeywords (LoadKeywords) fills
// a searcher's Keywords the first time a request that is not semantic
// comes (nil: such requests are refused).
func New(base context.Context, open Opener, loadKeywords func(ctx context.Context, s *search.Searcher) error) *Index {
	return &Index{base: base, open: open, loadKW: loadKeywords, afterFunc: time.AfterFunc}
}

// LoadKeywords gives an open searcher its keyword index (from the cache
// under getenv's data home, else built from the collection and saved
// there), for an Index's keyword, hybrid, fused and learned requests.
func LoadKeywords(getenv func(string) string) func(context.Context, *search.Searcher) error {
	if getenv == nil {
		getenv = os.Getenv
	}
	return func(ctx context.Context, s *search.Searcher) error {
		dir, err := config.KeywordDir(getenv)
		if err != nil {
			return err
		}
		s.KeywordDir = dir
		s.Keywords, err = kwstore.Open(ctx, s.Coll, dir)
		return err
	}
}

// rearm restarts the idle countdown after a call. Callers hold l.mu.
func (l *Index) rearm() {
	l.calls++
	if l.timer != nil {
		l.timer.Stop()
		l.timer = nil
	}
	if l.KeepOpen <= 0 || l.s == nil {
		return
	}
	call := l.calls
	l.timer = l.afterFunc(l.KeepOpen, func() { l.closeIdle(call) })
}

// closeIdle closes the index if no call came since the one numbered call.
func (l *Index) closeIdle(call int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.calls == call {
		l.closeLocked()
	}
}

// closeLocked closes the open index, if any. Callers hold l.mu.
func (l *Index) closeLocked() {
	if l.closeFn != nil {
		l.closeFn()
	}
	l.s, l.closeFn, l.docs, l.docsOnly = nil, nil, nil, false
}

// searcher opens the index when it is not yet, and loads the keyword
// index when asked and not yet. Callers hold l.mu.
func (l *Index) searcher(withKeywords bool) (*search.Searcher, error) {
	if l.docsOnly {
		l.closeLocked() // opened for explain alone: reopen it whole
	}
	if l.s == nil {
		s, closeFn, err := l.open(l.base)
		if err != nil {
			return nil, err
		}
		l.s, l.closeFn = &s, closeFn
	}
	if withKeywords && l.s.Keywords == nil {
		if l.loadKW == nil {
			return nil, fmt.Errorf("this server has no keyword index: use mode semantic")
		}
		if err := l.loadKW(l.base, l.s); err != nil {
			return nil, fmt.Errorf("load the keyword index: %w (mode semantic needs none)", err)
		}
	}
	return l.s, nil
}

// docsSearcher is the open index, or the index opened by OpenDocs when
// none is (searcher's when OpenDocs is not set). Callers hold l.mu.
func (l *Index) docsSearcher() (*search.Searcher, error) {
	if l.s != nil {
		return l.s, nil
	}
	if l.OpenDocs == nil {
		return l.searcher(false)
	}
	s, closeFn, err := l.OpenDocs(l.base)
	if err != nil {
		return nil, err
	}
	l.s, l.closeFn, l.docsOnly = &s, closeFn, true
	return l.s, nil
}

// fail forgets the open index after a failure that may come from it (a
// Chroma server that died), so that the next call opens it again, and
// says so. A request's own mistake (an unknown command) or its
// cancellation keeps the index. Callers hold l.mu.
func (l *Index) fail(ctx context.Context, err error) error {
	if err == nil || ctx.Err() != nil || errors.Is(err, search.ErrUnknownCommand) || errors.Is(err, explain.ErrBadLine) || l.s == nil {
		return err
	}
	l.closeLocked()
	return fmt.Errorf("%w (the index was closed: the next call opens it again)", err)
}

// Query implements answer.Answerer with answer.Search, the search of every front door.
// When the index cannot be opened, the opener's error (answer.Degrade
// answers from disk when Chroma cannot be started or reached); a Chroma
// that dies mid-session is an error once, and the next call starts it
// again.
func (l *Index) Query(ctx context.Context, q answer.QueryRequest) (answer.QueryResult, error) {
	req, err := answer.SearchRequest(q)
	if err != nil {
		return answer.QueryResult{}, err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	defer l.rearm()
	s, err := l.searcher(req.Mode != search.ModeSemantic)
	if err != nil {
		return answer.QueryResult{}, err
	}
	res, err := answer.Search(ctx, *s, req)
	return res, l.fail(ctx, err)
}

// Docs implements answer.Answerer; the opener's error as Query's.
func (l *Index) Docs(ctx context.Context, q answer.DocsRequest) (search.CommandDoc, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	defer l.rearm()
	s, err := l.searcher(q.Request != "") // a request's options are ranked with the keyword index too
	if err != nil {
		return search.CommandDoc{}, err
	}
	doc, err := s.Docs(ctx, q.Command)
	doc, err = answer.NarrowDoc(ctx, *s, doc, err, q.Request)
	return doc, l.fail(ctx, err)
}

// Explain implements answer.Answerer with answer.Judge: each command's records read
// once while the index stays open; the opener's error as Query's.
func (l *Index) Explain(ctx context.Context, q answer.ExplainRequest) (answer.ExplainResult, error) {
	start := time.Now()
	l.mu.Lock()
	defer l.mu.Unlock()
	defer l.rearm()
	s, err := l.docsSearcher()
	if err != nil {
		return answer.ExplainResult{}, err
	}
	if l.docs == nil {
		l.docs = explain.CachedLookup(s.Docs)
	}
	res, err := answer.Judge(ctx, q.Line, s.Coll.Name(), l.docs, q.OnPath(l.OnPath), start)
	if err != nil {
		return answer.ExplainResult{}, l.fail(ctx, err)
	}
	return res, nil
}

// Status implements answer.Answerer: the open index alone, as its Current
// collection (records, metadata and, for a Chroma collection, the check
// of its records); no server, no other collection, no staleness (the
// request's Detailed and Env are not read).
func (l *Index) Status(ctx context.Context, _ answer.StatusRequest) (answer.IndexStatus, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	defer l.rearm()
	s, err := l.searcher(false)
	if err != nil {
		return answer.IndexStatus{}, err
	}
	name := s.Coll.Name()
	n, err := s.Coll.Count(ctx)
	if err != nil {
		return answer.IndexStatus{}, l.fail(ctx, fmt.Errorf("count the records of %s: %w", name, err))
	}
	c := builder.CollectionStatus{Name: name, Records: n, Meta: index.ParseMeta(s.Coll.Metadata()), Current: true}
	if coll, ok := s.Coll.(*chroma.Collection); ok {
		if c.Verification, err = answer.CheckIndex(ctx, coll, false); err != nil {
			return answer.IndexStatus{}, l.fail(ctx, err)
		}
	}
	return answer.IndexStatus{Holder: l.Holder, Current: name, Collections: []builder.CollectionStatus{c}}, nil
}

// Held tells whether the index is open (waiting for a call in progress).
func (l *Index) Held() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.s != nil
}

// Release closes the index if it is open, and tells whether it was: the
// next call opens it again. A serve that wants the data takes it over
// so (see mcpserver.Handover).
func (l *Index) Release() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.s == nil {
		return false
	}
	if l.timer != nil {
		l.timer.Stop()
		l.timer = nil
	}
	l.closeLocked()
	return true
}

// Close closes the index, if it was opened.
func (l *Index) Close() { l.Release() }
