// Package gate lets many readers of an index through at once and one writer
// alone: a writer waits for the readers already in, readers wait for the
// writer to finish.
package gate

import (
	"context"
	"sync"
)

// Gate keeps queries off an index while a writer holds the lease: a
// query enters unless a write is on (then it waits for the release), a
// writer waits for the queries already in to leave. One writer at a time.
type Gate struct {
	mu       sync.Mutex
	writing  bool
	released chan struct{} // closed when the current write ends
	inflight int
	drained  chan struct{} // closed when inflight falls to 0 during a write
}

// Enter lets a query in, waiting while a write is on; it fails when ctx
// ends first.
func (g *Gate) Enter(ctx context.Context) error {
	for {
		g.mu.Lock()
		if !g.writing {
			g.inflight++
			g.mu.Unlock()
			return nil
		}
		ch := g.released
		g.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

func (g *Gate) Leave() {
	g.mu.Lock()
	g.inflight--
	if g.inflight == 0 && g.drained != nil {
		close(g.drained)
		g.drained = nil
	}
	g.mu.Unlock()
}

// Lock starts a write once the previous one ended and the queries in
// flight left; the caller must unlock.
func (g *Gate) Lock(ctx context.Context) error {
	g.mu.Lock()
	for g.writing {
		ch := g.released
		g.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return ctx.Err()
		}
		g.mu.Lock()
	}
	g.writing = true
	g.released = make(chan struct{})
	var wait chan struct{}
	if g.inflight > 0 {
		g.drained = make(chan struct{})
		wait = g.drained
	}
	g.mu.Unlock()
	if wait != nil {
		select {
		case <-wait:
		case <-ctx.Done():
			g.Unlock()
			return ctx.Err()
		}
	}
	return nil
}

func (g *Gate) Unlock() {
	g.mu.Lock()
	g.writing = false
	close(g.released)
	g.drained = nil
	g.mu.Unlock()
}

func (g *Gate) IsWriting() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.writing
}
