package servecmd

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/cmdai/cmdai/cmd/cmdai/internal/cmdutil"
)

// retryEvery bounds how often serve, running without Chroma, tries to
// reach (or start) it again: in the background when idle, or for a
// request that comes when the last try is that old (the others answer
// from disk at once).
const retryEvery = 10 * time.Second

// retry is serve's state while Chroma could not be reached: what to
// connect with, why it failed last, when it was last tried.
type retry struct {
	ctx     context.Context // serve's: the connection lives as long as serve
	opts    cmdutil.ChromaOptions
	down    error // Chroma's error (exit 4); nil once connected
	last    time.Time
	every   time.Duration
	trying  bool // one attempt at a time
	logf    func(format string, a ...any)
	connect func(context.Context, cmdutil.ChromaOptions) (*cmdutil.Connection, error)
}

// degraded is a warm without Chroma: queries are answered keyword-only
// from the keyword index on disk until a retry reaches Chroma. every is
// the retry interval (0: retryEvery).
func degraded(ctx context.Context, co cmdutil.ChromaOptions, w *warm, cause error, every time.Duration) *warm {
	if every <= 0 {
		every = retryEvery
	}
	w.retry = retry{ctx: ctx, opts: co, down: cause, last: time.Now(), every: every, connect: w.f.Connect}
	w.openErr = cause
	return w
}

// reconnect tries Chroma again when serve runs without it and the last
// try is retry.every old; once it answers, serve opens the index and
// answers normally from then on. Only one request (or the background
// retry) tries at a time.
func (w *warm) reconnect(ctx context.Context) {
	w.mu.Lock()
	if w.conn != nil || w.retry.down == nil || w.retry.trying || time.Since(w.retry.last) < w.retry.every {
		w.mu.Unlock()
		return
	}
	w.retry.last, w.retry.trying = time.Now(), true
	w.mu.Unlock()
	conn, err := w.retry.connect(w.retry.ctx, w.retry.opts)
	w.mu.Lock()
	if err != nil {
		w.retry.down = cmdutil.WithCode(cmdutil.ExitCode(err), fmt.Errorf("serve runs without Chroma: %w", err))
		w.retry.trying = false
		w.mu.Unlock()
		return
	}
	w.conn, w.dataDir = conn, conn.DataDir()
	w.mu.Unlock()
	err = w.open(ctx)
	// degraded (health, status, leases) until the index is open, so that
	// whoever sees health say otherwise is answered from it
	w.mu.Lock()
	w.retry.down, w.retry.trying = nil, false
	w.mu.Unlock()
	if w.retry.logf != nil {
		if err != nil {
			w.retry.logf("Chroma answers again at %s; opening the index: %v", conn.URL, err)
		} else {
			w.retry.logf("Chroma answers again at %s: answering from the index", conn.URL)
		}
	}
}

// nextRetry is how long until the next try is due; done once serve has
// Chroma (then nothing is retried again).
func (w *warm) nextRetry() (wait time.Duration, done bool) {
	w.mu.RLock()
	defer w.mu.RUnlock()
	if w.retry.down == nil {
		return 0, true
	}
	if w.retry.trying { // a request's try: look again one interval on
		return w.retry.every, false
	}
	return max(w.retry.every-time.Since(w.retry.last), 0), false
}

// retryInBackground tries Chroma every retry.every while serve runs
// without it and no request does, so that an idle serve is back to full
// answers when the next request comes. It returns at once when serve has
// Chroma; stop ends it and waits for a try in progress (whose connection
// Close then closes).
func (w *warm) retryInBackground() (stop func()) {
	ctx, cancel := context.WithCancel(w.retry.ctx)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			wait, done := w.nextRetry()
			if done {
				return
			}
			t := time.NewTimer(wait)
			select {
			case <-ctx.Done():
				t.Stop()
				return
			case <-t.C:
			}
			if ctx.Err() != nil { // both were ready: select picks either
				return
			}
			w.reconnect(ctx)
		}
	}()
	return func() { cancel(); wg.Wait() }
}
