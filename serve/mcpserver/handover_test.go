package mcpserver

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cmdai/cmdai/answer"
	"github.com/cmdai/cmdai/answer/session"
	"github.com/cmdai/cmdai/chroma"
	"github.com/cmdai/cmdai/search"
)

// stubColl is a search.Collection of 7 records.
type stubColl struct{}

func (stubColl) Name() string                                                 { return "cmdai_linux_test" }
func (stubColl) Metadata() map[string]any                                     { return map[string]any{"complete": true} }
func (stubColl) Count(context.Context) (int, error)                           { return 7, nil }
func (stubColl) Query(context.Context, []float32, int) ([]chroma.Hit, error)  { return nil, nil }
func (stubColl) Get(context.Context, []string) ([]chroma.Record, error)       { return nil, nil }
func (stubColl) All(context.Context, chroma.Include) ([]chroma.Record, error) { return nil, nil }

// countingLocal is an session.Index over stubColl whose opens and
// closes are counted; closed is told each close.
func countingLocal(opens, closes *atomic.Int32, closed chan<- struct{}) *session.Index {
	return session.New(context.Background(), func(context.Context) (search.Searcher, func(), error) {
		opens.Add(1)
		return search.Searcher{Coll: stubColl{}}, func() {
			closes.Add(1)
			if closed != nil {
				closed <- struct{}{}
			}
		}, nil
	}, nil)
}

// TestHandoverCheck: the index is closed only when it is open and a
// serve wants its data; asking serve is skipped while nothing is held;
// the next call opens it again.
func TestHandoverCheck(t *testing.T) {
	var opens, closes atomic.Int32
	l := countingLocal(&opens, &closes, nil)
	wanted, asked := false, 0
	var logged []string
	h := Handover{Local: l, Wanted: func() bool { asked++; return wanted }, Logf: func(f string, _ ...any) { logged = append(logged, f) }}
	if h.Check() || asked != 0 {
		t.Errorf("nothing held: Check closed or asked serve (%d)", asked)
	}
	ctx := context.Background()
	if _, err := l.Status(ctx, answer.StatusRequest{}); err != nil {
		t.Fatal(err)
	}
	if h.Check() || closes.Load() != 0 || !l.Held() {
		t.Errorf("no serve: Check closed the index (closes %d)", closes.Load())
	}
	wanted = true
	if !h.Check() || closes.Load() != 1 || l.Held() || len(logged) != 1 {
		t.Errorf("serve starting: Check closed %d, held %v, logged %q; want the index closed once and said", closes.Load(), l.Held(), logged)
	}
	if h.Check() || closes.Load() != 1 {
		t.Errorf("second Check closed again (closes %d)", closes.Load())
	}
	if _, err := l.Status(ctx, answer.StatusRequest{}); err != nil || opens.Load() != 2 {
		t.Errorf("call after the handover: %v, opens %d; want the index opened again", err, opens.Load())
	}
}

// TestHandoverWatch: the watcher closes the index a serve wants without
// a call, and stops with its context.
func TestHandoverWatch(t *testing.T) {
	var opens, closes atomic.Int32
	closed := make(chan struct{}, 4)
	l := countingLocal(&opens, &closes, closed)
	var wanted atomic.Bool
	h := Handover{Local: l, Wanted: wanted.Load}
	if _, err := l.Status(context.Background(), answer.StatusRequest{}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	stopped := make(chan struct{})
	go func() { h.Watch(ctx, time.Millisecond); close(stopped) }()
	wanted.Store(true)
	select {
	case <-closed:
	case <-time.After(time.Minute):
		t.Fatal("the watcher did not close the index a serve wants")
	}
	cancel()
	<-stopped
	if l.Held() || closes.Load() != 1 {
		t.Errorf("after the watch: held %v, closes %d", l.Held(), closes.Load())
	}
}
