package mcpserver

import (
	"context"
	"time"
)

// Holder holds an index that it can give up: session.Index.
type Holder interface {
	// Held tells whether the index is open.
	Held() bool
	// Release closes the index if it is open, and tells whether it was.
	Release() bool
}

// Handover gives the index Local holds up to a `cmdai serve` that wants
// its data. Local's private Chroma locks the data directory; a serve
// starting on the same data home waits for that lock (its --wait), and
// meanwhile the calls of this session wait for serve. Closing Local
// frees the lock, serve starts, and answer.ServeFirst sends the next calls
// to it: none reopens Local while serve is starting, since Dial waits
// for a starting serve.
type Handover struct {
	Local Holder
	// Wanted tells whether a serve that needs the data the open index
	// holds is starting or running.
	Wanted func() bool
	// Logf, when set, is told that the index was handed over.
	Logf func(format string, a ...any)
}

// Check closes Local's index when it is open and a serve wants its
// data, and tells whether it did. Call it before each call, so that a
// call does not wait for a serve that waits for this process.
func (h Handover) Check() bool {
	if !h.Local.Held() || !h.Wanted() {
		return false
	}
	if !h.Local.Release() {
		return false
	}
	if h.Logf != nil {
		h.Logf("a cmdai serve is starting on this index: closed the index held here (its Chroma stopped); the next calls go through serve")
	}
	return true
}

// Watch runs Check every interval until ctx ends: a serve that starts
// while the agent is quiet must not wait for the next call (or for
// KeepOpen, minutes away).
func (h Handover) Watch(ctx context.Context, every time.Duration) {
	tick := time.NewTicker(every)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
			h.Check()
		}
	}
}
