// Package mcpserver serves an index's search, documentation, status and
// command-line checks as Model Context Protocol tools, for AI agents (Claude Code, Cursor,
// Codex, ...), through a small Backend: the index held in this process
// (Local), or a running `cmdai serve` (Remote), chosen per call (PerCall).
package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/cmdai/cmdai/explain"
	"github.com/cmdai/cmdai/index"
	"github.com/cmdai/cmdai/search"
	"github.com/cmdai/cmdai/serve"
)

// Backend answers the tools. Its methods carry plain data, so that a
// client of a warm process (package serve's) can implement it as well as
// Local; the tools render the answers.
type Backend interface {
	// Query returns the best commands for a request, every match of each
	// whole (the tools pick); a degraded answer (keyword-only from disk,
	// Chroma unreachable) says why in its Degraded.
	Query(ctx context.Context, q Query) (search.Answer, error)
	// Docs returns one command's records (search.ErrUnknownCommand when
	// the index does not hold it).
	Docs(ctx context.Context, command string) (search.CommandDoc, error)
	// Status describes the index that answers.
	Status(ctx context.Context) (Status, error)
	// Explain judges a shell command line by the index's option records
	// (a line the shell cannot parse: an error wrapping
	// explain.ErrBadLine).
	Explain(ctx context.Context, line string) (serve.ExplainResult, error)
}

// Query is one search request, already checked.
type Query struct {
	Request string      `json:"query"`
	K       int         `json:"k"`
	Mode    search.Mode `json:"mode"`
}

// Status is what index_status reports.
type Status struct {
	Collection string     `json:"collection"`
	Records    int        `json:"records_count"`
	Meta       index.Meta `json:"meta"`
	// Holder says who holds the index: this process, or a serve at an
	// address.
	Holder string `json:"holder"`
	// Verification is the check of the index's metadata and records
	// against their authenticators (nil: not checked), as `cmdai index
	// status` reports it.
	Verification *index.Verification `json:"verification,omitempty"`
}

// Opener opens the index once: the searcher (its collection and
// embedder; Keywords may be nil) and what closes it.
type Opener func(ctx context.Context) (search.Searcher, func(), error)

// Local is the Backend that holds the index in this process: it opens
// it on the first call that needs it (a session that only lists tools
// starts no Chroma and loads no model) and keeps it until the session
// ends, or until it has been idle for KeepOpen. A failed open is not
// kept: the next call tries again, so that an agent can run
// `cmdai index init` and retry.
type Local struct {
	// base outlives every request: the Chroma server and the model opened
	// for one call serve the whole session.
	base   context.Context
	open   Opener
	loadKW func(ctx context.Context, s *search.Searcher) error
	// FromDisk, when set, answers a search the index could not be opened
	// for (cause) keyword-only from the keyword index on disk, or returns
	// cause when that does not apply (not a Chroma that is down or busy).
	FromDisk func(ctx context.Context, q Query, cause error) (search.Answer, error)
	// DocsFromDisk, when set, answers command_docs the index could not be
	// opened for (cause) from the keyword index on disk or the command's
	// page parsed live (a degraded CommandDoc), or returns cause when that
	// does not apply.
	DocsFromDisk func(ctx context.Context, command string, cause error) (search.CommandDoc, error)
	// ExplainFromDisk, when set, judges a line the index could not be
	// opened for (cause) by the keyword index on disk (a degraded
	// result), or returns cause when that does not apply.
	ExplainFromDisk func(ctx context.Context, line string, cause error) (serve.ExplainResult, error)
	// OpenDocs, when set, opens the index without its model (the
	// collection alone): all explain_command reads. A session that only
	// checks lines loads no model; its first search, docs or status call
	// reopens the index whole.
	OpenDocs Opener
	// OnPath tells explain whether a command the index lacks is
	// installed here (see explain.Options): nil for an index of another
	// distribution.
	OnPath func(command string) bool
	// Verify, when set, checks the open index's metadata and records
	// against their authenticators for index_status (cmdutil.VerifyIndex).
	Verify func(ctx context.Context, coll search.Collection) (*index.Verification, error)
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

// NewLocal is a Local over open; loadKeywords fills a searcher's
// Keywords the first time a keyword or hybrid request comes.
func NewLocal(base context.Context, open Opener, loadKeywords func(ctx context.Context, s *search.Searcher) error) *Local {
	return &Local{base: base, open: open, loadKW: loadKeywords, afterFunc: time.AfterFunc}
}

// rearm restarts the idle countdown after a call. Callers hold l.mu.
func (l *Local) rearm() {
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
func (l *Local) closeIdle(call int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.calls == call {
		l.closeLocked()
	}
}

// closeLocked closes the open index, if any. Callers hold l.mu.
func (l *Local) closeLocked() {
	if l.closeFn != nil {
		l.closeFn()
	}
	l.s, l.closeFn, l.docs, l.docsOnly = nil, nil, nil, false
}

// searcher opens the index when it is not yet, and loads the keyword
// index when asked and not yet. Callers hold l.mu.
func (l *Local) searcher(withKeywords bool) (*search.Searcher, error) {
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
func (l *Local) docsSearcher() (*search.Searcher, error) {
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
func (l *Local) fail(ctx context.Context, err error) error {
	if err == nil || ctx.Err() != nil || errors.Is(err, search.ErrUnknownCommand) || errors.Is(err, explain.ErrBadLine) || l.s == nil {
		return err
	}
	l.closeLocked()
	return fmt.Errorf("%w (the index was closed: the next call opens it again)", err)
}

// Query implements Backend. When the index cannot be opened because
// Chroma cannot be started or reached, FromDisk answers (the assistant
// is not blocked); a Chroma that dies mid-session is an error once, and
// the next call starts it again.
func (l *Local) Query(ctx context.Context, q Query) (search.Answer, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	defer l.rearm()
	s, err := l.searcher(q.Mode != search.ModeSemantic)
	if err != nil {
		if l.FromDisk != nil && ctx.Err() == nil {
			return l.FromDisk(ctx, q, err)
		}
		return search.Answer{}, err
	}
	hits, err := s.Search(ctx, q.Request, q.K, q.Mode)
	return search.Answer{Commands: hits}, l.fail(ctx, err)
}

// Docs implements Backend. When the index cannot be opened because
// Chroma cannot be started or reached, DocsFromDisk answers, as Query's
// FromDisk does.
func (l *Local) Docs(ctx context.Context, command string) (search.CommandDoc, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	defer l.rearm()
	s, err := l.searcher(false)
	if err != nil {
		if l.DocsFromDisk != nil && ctx.Err() == nil {
			return l.DocsFromDisk(ctx, command, err)
		}
		return search.CommandDoc{}, err
	}
	doc, err := s.Docs(ctx, command)
	return doc, l.fail(ctx, err)
}

// Explain implements Backend: each command's records read once while
// the index stays open. When the index cannot be opened because Chroma
// cannot be started or reached, ExplainFromDisk answers, as Query's
// FromDisk does.
func (l *Local) Explain(ctx context.Context, line string) (serve.ExplainResult, error) {
	start := time.Now()
	l.mu.Lock()
	defer l.mu.Unlock()
	defer l.rearm()
	s, err := l.docsSearcher()
	if err != nil {
		if l.ExplainFromDisk != nil && ctx.Err() == nil {
			return l.ExplainFromDisk(ctx, line, err)
		}
		return serve.ExplainResult{}, err
	}
	if l.docs == nil {
		l.docs = explain.CachedLookup(s.Docs)
	}
	r, err := explain.Explain(ctx, line, l.docs, explain.Options{OnPath: l.OnPath})
	if err != nil {
		return serve.ExplainResult{}, l.fail(ctx, err)
	}
	ms := float64(time.Since(start).Microseconds()) / 1000
	return serve.ExplainResult{Result: r, Collection: s.Coll.Name(), Millis: ms}, nil
}

// Status implements Backend.
func (l *Local) Status(ctx context.Context) (Status, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	defer l.rearm()
	s, err := l.searcher(false)
	if err != nil {
		return Status{}, err
	}
	n, err := s.Coll.Count(ctx)
	if err != nil {
		return Status{}, l.fail(ctx, fmt.Errorf("count the records of %s: %w", s.Coll.Name(), err))
	}
	st := Status{Collection: s.Coll.Name(), Records: n, Meta: index.ParseMeta(s.Coll.Metadata()), Holder: "this process (cmdai mcp)"}
	if l.Verify != nil {
		if st.Verification, err = l.Verify(ctx, s.Coll); err != nil {
			return Status{}, l.fail(ctx, err)
		}
	}
	return st, nil
}

// Held tells whether the index is open (waiting for a call in progress).
func (l *Local) Held() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.s != nil
}

// closeHeld closes the index if it is open, and tells whether it was:
// the next call opens it again.
func (l *Local) closeHeld() bool {
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
func (l *Local) Close() { l.closeHeld() }

// statusText renders a Status in a few lines: with what failed
// verification and the rebuild, and nothing of metadata that failed its
// check (anyone who reaches Chroma could have written it).
func statusText(st Status) string {
	v := st.Verification
	if v != nil && v.MetadataFailed() {
		return fmt.Sprintf("index %s: %d records\n%s\nheld by %s\n", st.Collection, st.Records, v.Summary(), st.Holder)
	}
	checked := ""
	if v != nil && !v.OK() {
		checked = v.Summary() + "\n"
	}
	m := st.Meta
	state := "complete"
	if !m.Complete {
		state = "INCOMPLETE (a build was interrupted: run `cmdai index init`)"
	}
	built := "unknown"
	if !m.BuiltAt.IsZero() {
		built = m.BuiltAt.UTC().Format(time.RFC3339)
	}
	return fmt.Sprintf("index %s: %d commands, %d records, %s\n%sdistribution %s (%s); built %s by cmdai %s\nmodel %s (%s, %d dims)\nheld by %s\n",
		st.Collection, m.Commands, st.Records, state, checked, m.Distro, m.OS, built, m.ToolVersion, m.Model, m.ModelVariant, m.Dims, st.Holder)
}
