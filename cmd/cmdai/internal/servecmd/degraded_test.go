package servecmd

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cmdai/cmdai/cmd/cmdai/internal/cmdutil"
)

// fakeChroma is a Chroma that never answers: it counts the tries, the
// most at once, and any made after stopped is set.
type fakeChroma struct {
	tries, inFlight, most atomic.Int64
	stopped, late         atomic.Bool
	hold                  chan struct{} // when set, a try waits on it
}

func (f *fakeChroma) connect(ctx context.Context, _ cmdutil.ChromaOptions) (*cmdutil.Connection, error) {
	if f.stopped.Load() {
		f.late.Store(true)
	}
	f.tries.Add(1)
	n := f.inFlight.Add(1)
	defer f.inFlight.Add(-1)
	for m := f.most.Load(); n > m && !f.most.CompareAndSwap(m, n); m = f.most.Load() {
	}
	if f.hold != nil {
		<-f.hold
	}
	return nil, cmdutil.WithCode(cmdutil.ExitUnreachable, errors.New("chroma unreachable: no heartbeat"))
}

func degradedWarm(f *fakeChroma, every time.Duration) *warm {
	w := &warm{}
	w.retry = retry{ctx: context.Background(), down: errors.New("down at start"), last: time.Now(), every: every, connect: f.connect}
	return w
}

// waitFor polls cond until it holds; the deadline only stops a broken
// test from hanging.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); !cond(); time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("never: %s", what)
		}
	}
}

// TestRetryInBackground: with no request at all, serve without Chroma
// tries it again and again, keeping the last error; requests trying at
// the same time never make two tries at once; after stop no try is made.
func TestRetryInBackground(t *testing.T) {
	f := &fakeChroma{}
	w := degradedWarm(f, time.Millisecond)
	stop := w.retryInBackground()
	waitFor(t, "three tries without a request", func() bool { return f.tries.Load() >= 3 })
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 50 {
				w.reconnect(context.Background())
			}
		}()
	}
	wg.Wait()
	stop()
	f.stopped.Store(true)
	if f.most.Load() != 1 {
		t.Errorf("%d tries at once; want 1", f.most.Load())
	}
	w.mu.RLock()
	down := w.retry.down
	w.mu.RUnlock()
	if cmdutil.ExitCode(down) != cmdutil.ExitUnreachable || down.Error() != "serve runs without Chroma: chroma unreachable: no heartbeat" {
		t.Errorf("after the tries: %v; want the last error, exit 4", down)
	}
	// stopped: the goroutine is gone, nothing tries any more
	w.retry.last = time.Time{}
	if wait, done := w.nextRetry(); done || wait != 0 {
		t.Errorf("nextRetry = %v %v", wait, done)
	}
	if f.late.Load() {
		t.Error("a try after stop")
	}
}

// TestRetryStopWaitsForATry: stop returns only once a try in progress is
// over, so that serve closes the connection it may have opened; a
// request meanwhile does not start a second try.
func TestRetryStopWaitsForATry(t *testing.T) {
	f := &fakeChroma{hold: make(chan struct{})}
	w := degradedWarm(f, time.Millisecond)
	ctx, serveStops := context.WithCancel(context.Background())
	w.retry.ctx = ctx
	stop := w.retryInBackground()
	waitFor(t, "a background try", func() bool { return f.inFlight.Load() == 1 })
	w.mu.Lock()
	w.retry.last = time.Time{} // due, but one try is running
	w.mu.Unlock()
	w.reconnect(context.Background())
	serveStops() // the try is due again, but serve is stopping
	stopped := make(chan struct{})
	go func() { stop(); close(stopped) }()
	select {
	case <-stopped:
		t.Fatal("stop returned during a try")
	case <-time.After(50 * time.Millisecond):
	}
	close(f.hold)
	<-stopped
	if f.tries.Load() != 1 || f.most.Load() != 1 {
		t.Errorf("%d tries, %d at once; want 1 and 1", f.tries.Load(), f.most.Load())
	}
}

// TestRetryNotWhenConnected: a serve that has Chroma runs no retry loop.
func TestRetryNotWhenConnected(t *testing.T) {
	f := &fakeChroma{}
	w := degradedWarm(f, time.Millisecond)
	w.retry.down = nil
	w.retryInBackground()() // returns: the goroutine ended by itself
	if f.tries.Load() != 0 {
		t.Errorf("%d tries with Chroma up", f.tries.Load())
	}
	if d := degraded(context.Background(), cmdutil.ChromaOptions{}, &warm{f: &cmdutil.Factory{}}, errors.New("x"), 0); d.retry.every != retryEvery {
		t.Errorf("default interval %s, want %s", d.retry.every, retryEvery)
	}
}
