package servecmd

import (
	"context"
	"fmt"
	"sync"

	"github.com/cmdai/cmdai/build/pages"
	"github.com/cmdai/cmdai/cmd/cmdai/internal/buildcmd"
	"github.com/cmdai/cmdai/cmd/cmdai/internal/cmdutil"
	"github.com/cmdai/cmdai/cmd/cmdai/internal/querycmd"
	"github.com/cmdai/cmdai/distro"
	"github.com/cmdai/cmdai/search"
	"github.com/cmdai/cmdai/serve"
)

// warm is serve's Backend: one Chroma connection for the process's life,
// and the searcher of this distribution's index (collection, model,
// keyword index), swapped whole on Reload.
type warm struct {
	f       *cmdutil.Factory
	conn    *cmdutil.Connection
	info    distro.Info
	model   cmdutil.ModelOptions
	dataDir string

	mu      sync.RWMutex
	s       search.Searcher
	closeS  func()
	openErr error // why there is no searcher (no index yet: exit 3)
}

// open opens (or reopens) the searcher; a failure is kept and answered
// to queries until the next reload.
func (w *warm) open(ctx context.Context) error {
	s, closeS, err := querycmd.OpenSearcher(ctx, w.f, w.conn, w.info, w.model)
	w.mu.Lock()
	old := w.closeS
	w.s, w.closeS, w.openErr = s, closeS, err
	w.mu.Unlock()
	if old != nil {
		old()
	}
	return err
}

func (w *warm) Query(ctx context.Context, q serve.QueryRequest) (serve.QueryResult, error) {
	if q.Distro != "" {
		info, err := distro.Parse(q.Distro)
		if err != nil {
			return serve.QueryResult{}, cmdutil.WithCode(cmdutil.ExitUsage, fmt.Errorf("--distro: %w", err))
		}
		if info.CollectionName() != w.info.CollectionName() {
			return serve.QueryResult{}, serve.ErrNotHeld
		}
	}
	mode, err := search.ParseMode(q.Mode)
	if err != nil {
		return serve.QueryResult{}, cmdutil.WithCode(cmdutil.ExitUsage, err)
	}
	w.mu.RLock()
	defer w.mu.RUnlock()
	if w.openErr != nil {
		return serve.QueryResult{}, w.openErr
	}
	return querycmd.Answer(ctx, w.s, q.Request, q.K, mode)
}

func (w *warm) Status(ctx context.Context, detailed bool) (serve.IndexStatus, error) {
	return buildcmd.CollectStatus(ctx, w.conn, w.info, detailed, pages.Options{Distro: w.info})
}

func (w *warm) Where() serve.Health {
	return serve.Health{Collection: w.info.CollectionName(), ChromaURL: w.conn.URL, DataDir: w.dataDir}
}

func (w *warm) Reload(ctx context.Context) error { return w.open(ctx) }

func (w *warm) Close() {
	w.mu.Lock()
	if w.closeS != nil {
		w.closeS()
		w.closeS = nil
	}
	w.mu.Unlock()
	w.conn.Close()
}
