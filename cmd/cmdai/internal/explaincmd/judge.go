package explaincmd

import (
	"context"
	"sync"
	"time"

	"github.com/cmdai/cmdai/answer"
	"github.com/cmdai/cmdai/cmd/cmdai/internal/cmdutil"
	"github.com/cmdai/cmdai/explain"
	"github.com/cmdai/cmdai/search"
)

// explainHere judges the line in this process. The collection is opened
// on the first lookup, so a line the shell cannot parse, or one of
// builtins only, starts no Chroma; no model is loaded at all.
func explainHere(ctx context.Context, opts *Options) (Result, error) {
	start := time.Now()
	info, err := cmdutil.ResolveDistro(ctx, opts.Distro, nil)
	if err != nil {
		return Result{}, err
	}
	ix := &lazyIndex{base: ctx, opts: opts, collection: info.CollectionName()}
	defer ix.close()
	res, err := answer.Judge(ctx, opts.Line, info.CollectionName(), explain.CachedLookup(ix.lookup), answer.OnPath(ctx, info), start)
	if err != nil {
		// the open's own error carries its exit code and fix, whatever
		// Explain made of it
		if oerr := ix.openErr(); oerr != nil {
			return Result{}, oerr
		}
		return Result{}, err
	}
	if reason := ix.degradedReason(); reason != "" {
		res.Degraded, res.DegradedReason = true, reason
	}
	return res, nil
}

// lazyIndex opens the distribution's collection once, on the first
// lookup (Chroma alone: the collection's records are all explain reads),
// or the keyword index on disk when Chroma cannot be reached.
type lazyIndex struct {
	// base is the command's context: the Chroma server started for the
	// first lookup lives as long as the command, not that lookup.
	base       context.Context
	opts       *Options
	collection string

	mu       sync.Mutex
	opened   bool
	l        explain.Lookup
	err      error
	degraded string
	conn     *cmdutil.Connection
}

func (x *lazyIndex) lookup(ctx context.Context, command string) (search.CommandDoc, error) {
	x.mu.Lock()
	if !x.opened {
		x.opened = true
		x.l, x.err = x.open(x.base)
	}
	l, err := x.l, x.err
	x.mu.Unlock()
	if err != nil {
		return search.CommandDoc{}, err
	}
	return l(ctx, command)
}

// open connects to Chroma (or a running serve's, under its lease) and
// opens the collection; when Chroma cannot be reached, the keyword
// index on disk answers. Callers hold x.mu.
func (x *lazyIndex) open(ctx context.Context) (explain.Lookup, error) {
	conn, err := x.opts.Connect(ctx, x.opts.Chroma)
	if err != nil {
		l, reason, err := answer.DiskLookup(x.opts.Getenv, x.collection, x.opts.Strict, err)
		x.degraded = reason
		return l, err
	}
	x.conn = conn
	coll, err := answer.OpenIndex(ctx, conn.Store, x.collection)
	if err != nil {
		return nil, err
	}
	if err := answer.Answerable(ctx, coll); err != nil {
		return nil, err
	}
	return search.Searcher{Coll: coll}.Docs, nil
}

func (x *lazyIndex) openErr() error {
	x.mu.Lock()
	defer x.mu.Unlock()
	return x.err
}

func (x *lazyIndex) degradedReason() string {
	x.mu.Lock()
	defer x.mu.Unlock()
	return x.degraded
}

// close stops the private Chroma server, if the lookup started one.
func (x *lazyIndex) close() {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.conn.Close()
	x.conn = nil
}
