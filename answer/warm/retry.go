package warm

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/cmdai/cmdai/chroma/connect"
	"github.com/cmdai/cmdai/explain"
	"github.com/cmdai/cmdai/internal/exitcode"
	"github.com/cmdai/cmdai/search"
)

// retryEvery is how long serve, running without Chroma, waits before it
// tries to reach (or start) it again; each failed try doubles the wait,
// up to backoffCap times it (a Chroma down for hours is tried about once
// a minute, not every 10 s: a private server's start costs seconds of
// CPU). Requests never try: they answer from disk at once.
const (
	retryEvery = 10 * time.Second
	backoffCap = 6
	// firstRetry is the wait before the first try after serve lost a
	// Chroma it had (lose): then each failure doubles from retryEvery.
	firstRetry = time.Second
)

// retry is the Index's state while Chroma cannot be reached: how to
// connect, why it failed last (down, guarded by Index.mu: health and the
// answers read it), and when to try again (guarded by mu, which is never
// held during a try, nor together with Index.mu).
type retry struct {
	ctx  context.Context // serve's: the connection lives as long as serve
	url  string          // the Chroma asked for ("": a private one)
	down error           // Chroma's error (exit 4); nil while serve has Chroma

	mu     sync.Mutex
	last   time.Time
	base   time.Duration // the first wait (Options.RetryEvery)
	every  time.Duration // the wait now: base, doubled by each failure
	trying bool          // one attempt at a time
	// wake tells the background retry that serve has just lost Chroma.
	wake chan struct{}

	logf    func(format string, a ...any)
	connect func(context.Context) (*connect.Connection, error)
}

// setRetry fills w's retry: url the Chroma asked for, every the first
// wait (0: retryEvery), cause Chroma's error when serve starts without
// it (then queries are answered keyword-only from the keyword index on
// disk until a retry reaches Chroma).
func (w *Index) setRetry(ctx context.Context, url string, cause error, every time.Duration) *Index {
	if every <= 0 {
		every = retryEvery
	}
	w.retry.ctx, w.retry.url, w.retry.down = ctx, url, cause
	w.retry.last, w.retry.base, w.retry.every = time.Now(), every, every
	w.retry.wake = make(chan struct{}, 1)
	if cause != nil {
		w.openErr = cause
	}
	return w
}

func (w *Index) logf(format string, a ...any) {
	if w.retry.logf != nil {
		w.retry.logf(format, a...)
	}
}

// isDown tells whether serve runs without Chroma.
func (w *Index) isDown() bool {
	w.mu.RLock()
	defer w.mu.RUnlock()
	return w.retry.down != nil
}

// reconnect tries Chroma again when serve runs without it and the wait
// is over; once it answers, serve opens the index and answers from it.
// One try at a time; it holds Index.mu only to swap the connection and
// the searcher in, never while it connects or opens.
func (w *Index) reconnect(ctx context.Context) {
	if !w.isDown() {
		return
	}
	r := &w.retry
	r.mu.Lock()
	if r.trying || time.Since(r.last) < r.every {
		r.mu.Unlock()
		return
	}
	r.last, r.trying = time.Now(), true
	r.mu.Unlock()
	defer func() {
		r.mu.Lock()
		r.trying = false
		r.mu.Unlock()
	}()
	conn, err := r.connect(r.ctx)
	if err != nil {
		r.mu.Lock()
		r.every = min(2*r.every, backoffCap*r.base)
		r.mu.Unlock()
		w.mu.Lock()
		r.down = exitcode.With(exitcode.Of(err), fmt.Errorf("serve runs without Chroma: %w", err))
		w.mu.Unlock()
		return
	}
	w.mu.Lock()
	w.conn = conn
	w.mu.Unlock()
	s, err := w.searcher(ctx)
	if gone := w.lostOpening(ctx, err); gone != nil {
		w.lose(gone, "opening the index")
		return
	}
	// degraded (health, status, leases) until the index is open, so that
	// whoever sees health say otherwise is answered from it
	w.swap(s, err)
	w.mu.Lock()
	r.down = nil
	w.mu.Unlock()
	r.mu.Lock()
	r.every = r.base
	r.mu.Unlock()
	if err != nil {
		w.logf("Chroma answers again at %s; opening the index: %v", conn.Store.URL, err)
	} else {
		w.logf("Chroma answers again at %s: answering from the index", conn.Store.URL)
	}
}

// swap puts a newly opened searcher (or why there is none) in place of
// the one serve answers from.
func (w *Index) swap(s search.Searcher, err error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.s, w.openErr = s, err
	w.docs = nil
	if err == nil {
		w.docs = explain.CachedLookup(s.Docs)
	}
}

// lostOpening says, when opening the index failed with err, whether it
// is because Chroma stopped answering (then its error, exit 4): no index
// yet (exit 3) or an index built with another model is an answer, not a
// lost Chroma.
func (w *Index) lostOpening(ctx context.Context, err error) error {
	if err == nil || ctx.Err() != nil || exitcode.Of(err) == exitcode.NoIndex {
		return nil
	}
	w.mu.RLock()
	defer w.mu.RUnlock()
	return w.chromaGone(ctx)
}

// lose makes serve run without Chroma after it stopped answering (when
// serve reloaded after a write, or opened the index after a retry): it
// answers from disk, degraded, health says so with gone as the reason,
// writers are refused its lease, and the background retry tries Chroma
// again (a private server is started anew: this closes the dead one,
// which frees its data directory). Before, a failed reload left serve
// answering its raw error, 500, until it was restarted.
func (w *Index) lose(gone error, when string) {
	w.mu.Lock()
	conn := w.conn
	w.conn = nil
	// the searcher stays: a keyword query needs no Chroma (answerWarm)
	w.openErr, w.retry.down = gone, gone
	w.mu.Unlock()
	if conn != nil {
		conn.Close()
	}
	r := &w.retry
	r.mu.Lock()
	// the first try comes soon: Chroma answered until now, and a
	// private one killed is started again in seconds
	wait := min(r.every, firstRetry)
	r.last = time.Now().Add(wait - r.every)
	r.mu.Unlock()
	select {
	case r.wake <- struct{}{}:
	default:
	}
	w.logf("Chroma stopped answering (%s): %v\n  running degraded: answers come from disk; serve tries Chroma again in %s and answers from the index once it does", when, gone, wait)
}

// nextRetry is how long until the next try is due; down false while
// serve has Chroma (then the retry waits to be woken).
func (w *Index) nextRetry() (wait time.Duration, down bool) {
	if !w.isDown() {
		return 0, false
	}
	r := &w.retry
	r.mu.Lock()
	defer r.mu.Unlock()
	return max(r.every-time.Since(r.last), 0), true
}

// Start runs the background retry (retryInBackground) for as long as
// serve runs, saying first when serve starts without Chroma; stop ends
// it (before Close: a try in progress may open a connection).
func (w *Index) Start() (stop func()) {
	w.mu.RLock()
	down := w.retry.down
	w.mu.RUnlock()
	if down != nil {
		w.retry.mu.Lock()
		every := w.retry.every
		w.retry.mu.Unlock()
		w.logf("running degraded: %v\n  queries are answered keyword-only from the keyword index on disk; serve tries Chroma again in %s (then less often) and answers from the index once it does", down, every)
	}
	return w.retryInBackground()
}

// retryInBackground tries Chroma whenever it is due while serve runs
// without it, whether requests come or not, so that serve is back to
// full answers by itself; while serve has Chroma it sleeps until lose
// wakes it. stop ends it and waits for a try in progress (whose
// connection Close then closes).
func (w *Index) retryInBackground() (stop func()) {
	ctx, cancel := context.WithCancel(w.retry.ctx)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			wait, down := w.nextRetry()
			var due <-chan time.Time
			t := time.NewTimer(wait)
			if down {
				due = t.C
			}
			woken := false
			select {
			case <-ctx.Done():
			case <-w.retry.wake:
				woken = true
			case <-due:
			}
			t.Stop()
			if ctx.Err() != nil { // both were ready: select picks either
				return
			}
			if !woken {
				w.reconnect(ctx)
			}
		}
	}()
	return func() { cancel(); wg.Wait() }
}
