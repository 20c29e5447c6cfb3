package answer

import (
	"context"
	"sync"

	"github.com/cmdai/cmdai/chroma/connect"
	"github.com/cmdai/cmdai/explain"
	"github.com/cmdai/cmdai/search"
)

// lazyIndex opens a distribution's collection once, on the first lookup
// (Chroma alone: the collection's records are all explain reads).
type lazyIndex struct {
	// base is the call's context: the Chroma server started for the
	// first lookup lives as long as the call, not that lookup.
	base       context.Context
	connect    func(context.Context) (*connect.Connection, error)
	collection string

	mu     sync.Mutex
	opened bool
	l      explain.Lookup
	err    error
	conn   *connect.Connection
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
// opens the collection. Callers hold x.mu.
func (x *lazyIndex) open(ctx context.Context) (explain.Lookup, error) {
	conn, err := x.connect(ctx)
	if err != nil {
		return nil, err
	}
	x.conn = conn
	coll, err := OpenAnswerable(ctx, conn.Store, x.collection)
	if err != nil {
		return nil, err
	}
	return search.Searcher{Coll: coll}.Docs, nil
}

func (x *lazyIndex) openErr() error {
	x.mu.Lock()
	defer x.mu.Unlock()
	return x.err
}

// close ends the connection (a private Chroma server stops), if the
// first lookup made one.
func (x *lazyIndex) close() {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.conn.Close()
	x.conn = nil
}
