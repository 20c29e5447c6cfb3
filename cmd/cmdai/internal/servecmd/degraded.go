package servecmd

import (
	"context"
	"fmt"
	"time"

	"github.com/cmdai/cmdai/cmd/cmdai/internal/cmdutil"
)

// retryEvery bounds how often serve, running without Chroma, tries to
// reach (or start) it again: a request at most every 10 s pays for one
// attempt, the others answer from disk at once.
const retryEvery = 10 * time.Second

// retry is serve's state while Chroma could not be reached: what to
// connect with, why it failed last, when it was last tried.
type retry struct {
	ctx  context.Context // serve's: the connection lives as long as serve
	opts cmdutil.ChromaOptions
	down error // Chroma's error (exit 4); nil once connected
	last time.Time
	logf func(format string, a ...any)
}

// degraded is a warm without Chroma: queries are answered keyword-only
// from the keyword index on disk until a retry reaches Chroma.
func degraded(ctx context.Context, co cmdutil.ChromaOptions, w *warm, cause error) *warm {
	w.retry = retry{ctx: ctx, opts: co, down: cause, last: time.Now()}
	w.openErr = cause
	return w
}

// reconnect tries Chroma again when serve runs without it and the last
// try is retryEvery old; once it answers, serve opens the index and
// answers normally from then on. Only one request tries at a time.
func (w *warm) reconnect(ctx context.Context) {
	w.mu.Lock()
	if w.conn != nil || w.retry.down == nil || time.Since(w.retry.last) < retryEvery {
		w.mu.Unlock()
		return
	}
	w.retry.last = time.Now()
	w.mu.Unlock()
	conn, err := w.f.Connect(w.retry.ctx, w.retry.opts)
	w.mu.Lock()
	if err != nil {
		w.retry.down = cmdutil.WithCode(cmdutil.ExitCode(err), fmt.Errorf("serve runs without Chroma: %w", err))
		w.mu.Unlock()
		return
	}
	w.conn, w.dataDir, w.retry.down = conn, conn.DataDir(), nil
	w.mu.Unlock()
	err = w.open(ctx)
	if w.retry.logf != nil {
		if err != nil {
			w.retry.logf("Chroma answers again at %s; opening the index: %v", conn.URL, err)
		} else {
			w.retry.logf("Chroma answers again at %s: answering from the index", conn.URL)
		}
	}
}
