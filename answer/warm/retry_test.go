package warm

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cmdai/cmdai/answer"
	"github.com/cmdai/cmdai/chroma"
	"github.com/cmdai/cmdai/chroma/connect"
	"github.com/cmdai/cmdai/explain"
	"github.com/cmdai/cmdai/internal/errmark"
	"github.com/cmdai/cmdai/internal/exitcode"
	"github.com/cmdai/cmdai/search"
)

// fakeChroma is a Chroma that never answers: it counts the tries, the
// most at once, and any made after stopped is set.
type fakeChroma struct {
	tries, inFlight, most atomic.Int64
	stopped, late         atomic.Bool
	hold                  chan struct{} // when set, a try waits on it
}

func (f *fakeChroma) connect(ctx context.Context) (*connect.Connection, error) {
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
	return nil, exitcode.With(exitcode.Unreachable, errors.New("chroma unreachable: no heartbeat"))
}

func degradedWarm(f *fakeChroma, every time.Duration) *Index {
	w := &Index{}
	w.retry.connect = f.connect
	return w.setRetry(context.Background(), "", errors.New("down at start"), every)
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
	if exitcode.Of(down) != exitcode.Unreachable || down.Error() != "serve runs without Chroma: chroma unreachable: no heartbeat" {
		t.Errorf("after the tries: %v; want the last error, exit 4", down)
	}
	// stopped: the goroutine is gone, nothing tries any more
	w.retry.last = time.Time{}
	if wait, down := w.nextRetry(); !down || wait != 0 {
		t.Errorf("nextRetry = %v %v", wait, down)
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
	w.retry.mu.Lock()
	w.retry.last = time.Time{} // due, but one try is running
	w.retry.mu.Unlock()
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

// TestRetryNotWhenConnected: a serve that has Chroma tries nothing: its
// retry waits to be woken.
func TestRetryNotWhenConnected(t *testing.T) {
	f := &fakeChroma{}
	w := degradedWarm(f, time.Millisecond)
	w.retry.down, w.openErr = nil, nil
	stop := w.retryInBackground()
	time.Sleep(50 * time.Millisecond) // 50 retry intervals
	stop()
	if f.tries.Load() != 0 {
		t.Errorf("%d tries with Chroma up", f.tries.Load())
	}
	if d := (&Index{}).setRetry(context.Background(), "", errors.New("x"), 0); d.retry.every != retryEvery {
		t.Errorf("default interval %s, want %s", d.retry.every, retryEvery)
	}
}

// TestRetryBacksOff: each failed try doubles the wait, up to backoffCap
// times the first; the last error is kept.
func TestRetryBacksOff(t *testing.T) {
	f := &fakeChroma{}
	w := degradedWarm(f, time.Millisecond)
	stop := w.retryInBackground()
	waitFor(t, "six tries", func() bool { return f.tries.Load() >= 6 })
	stop()
	w.retry.mu.Lock()
	every := w.retry.every
	w.retry.mu.Unlock()
	if every != backoffCap*time.Millisecond {
		t.Errorf("after %d failed tries the wait is %s; want %s", f.tries.Load(), every, backoffCap*time.Millisecond)
	}
}

// TestLoseWakesTheRetry: serve that had Chroma and lost it (lose: a
// reload found it gone) answers degraded (health with the reason, the
// answers from disk with it) and its background retry, asleep while it
// had Chroma, starts trying.
func TestLoseWakesTheRetry(t *testing.T) {
	f := &fakeChroma{}
	w := degradedWarm(f, time.Millisecond)
	w.retry.down, w.openErr = nil, nil
	stop := w.retryInBackground()
	defer stop()
	time.Sleep(20 * time.Millisecond) // 20 retry intervals: nothing tried
	if f.tries.Load() != 0 {
		t.Fatalf("%d tries with Chroma up", f.tries.Load())
	}
	gone := exitcode.With(exitcode.Unreachable, errors.New("the Chroma server at http://x stopped answering serve"))
	w.lose(gone, "reloading the index after a write")
	if h := w.Where(); !h.Degraded || h.DegradedReason != gone.Error() || h.DataDir != "" {
		t.Errorf("health after: %+v; want degraded, the reason, no data dir", h)
	}
	_, cause := answerWarm(context.Background(), w, func(search.Searcher, explain.Lookup) (int, error) {
		t.Error("answered from the index serve lost")
		return 0, nil
	}, nil)
	if exitcode.Of(cause) != exitcode.Unreachable {
		t.Errorf("answered from disk because of %v; want Chroma's error, exit 4 (degraded, not 500)", cause)
	}
	waitFor(t, "a try after lose", func() bool { return f.tries.Load() >= 1 })
}

// TestSlowAnswerFromDiskHoldsNothing: a request answered from disk (a
// page read live, slow) holds no lock: other requests are answered
// meanwhile, and a reopened index can be swapped in. (Before: every
// request took the Index's write lock to see whether to retry Chroma, so
// each waited for the slow ones before it: ten slow requests finished
// one after another and a fast one waited for all.)
func TestSlowAnswerFromDiskHoldsNothing(t *testing.T) {
	w := degradedWarm(&fakeChroma{}, time.Hour)
	w.openErr = errmark.As(errors.New("down at start"), chroma.ErrUnreachable)
	release := make(chan struct{})
	var inSlow sync.WaitGroup
	const slow = 10
	inSlow.Add(slow)
	done := make(chan struct{}, slow)
	held := w.Held()
	slowDisk := held
	slowDisk.Degrade.Index = func(context.Context, string) (string, func(string) bool, error) {
		inSlow.Done()
		<-release
		return "", nil, errors.New("no answer from disk in this test")
	}
	q := answer.QueryRequest{Request: "x", K: 1, Mode: "keyword"}
	for range slow {
		go func() {
			slowDisk.Query(context.Background(), q)
			done <- struct{}{}
		}()
	}
	inSlow.Wait() // all ten at once: none waits for another
	fast := make(chan struct{})
	go func() {
		answerWarm[int](context.Background(), w, nil, nil)
		w.Where()
		w.swap(search.Searcher{}, errors.New("reopened"))
		close(fast)
	}()
	select {
	case <-fast:
	case <-time.After(30 * time.Second):
		t.Fatal("a fast request (and a swap) waited for the slow ones")
	}
	close(release)
	for range slow {
		<-done
	}
}
