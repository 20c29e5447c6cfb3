package servecmd

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/cmdai/cmdai/answer"
	"github.com/cmdai/cmdai/builder"
	"github.com/cmdai/cmdai/builder/pages"
	"github.com/cmdai/cmdai/chroma"
	"github.com/cmdai/cmdai/cmd/cmdai/internal/cmdutil"
	"github.com/cmdai/cmdai/config"
	"github.com/cmdai/cmdai/distro"
	"github.com/cmdai/cmdai/embed"
	"github.com/cmdai/cmdai/explain"
	"github.com/cmdai/cmdai/index"
	"github.com/cmdai/cmdai/search"
	"github.com/cmdai/cmdai/search/kwstore"
	"github.com/cmdai/cmdai/serve"
)

// warm is serve's Backend: one Chroma connection and one model for the
// process's life, and the searcher of this distribution's index
// (collection, model, keyword index), swapped whole on Reload.
type warm struct {
	f       *cmdutil.Factory
	conn    *cmdutil.Connection
	info    distro.Info
	model   cmdutil.ModelOptions
	dataDir string

	mu      sync.RWMutex
	e       embed.Embedder // kept across reloads while it fits the index
	s       search.Searcher
	openErr error // why there is no searcher (no index yet: exit 3)

	retry retry // Chroma could not be reached: conn is nil until it answers

	// docs is the searcher's Docs, cached: explain asks the same commands
	// line after line. A new one comes with each searcher (open, after a
	// writer's lease: refresh, import), so no answer outlives its index.
	docs explain.Lookup
	// onPath is set when the index is this machine's distribution's (see
	// answer.OnPath): serve's own $PATH, not the caller's.
	onPath func(string) bool
}

// open (re)opens the searcher, reusing the loaded model when the index's
// was built with it; a failure is kept and answered to queries until the
// next reload. Reload runs under serve's write lease: no query is in.
func (w *warm) open(ctx context.Context) error {
	s, err := w.searcher(ctx)
	w.swap(s, err)
	return err
}

func (w *warm) searcher(ctx context.Context) (search.Searcher, error) {
	coll, err := answer.OpenIndex(ctx, w.conn.Store, w.info.CollectionName())
	if err != nil {
		return search.Searcher{}, err
	}
	if err := answer.Answerable(ctx, coll); err != nil {
		return search.Searcher{}, err
	}
	meta := index.ParseMeta(coll.Metadata())
	variant := w.model.Variant
	if variant == "" {
		variant = meta.ModelVariant
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.e == nil || w.e.Info().Variant != variant {
		if w.e != nil {
			w.e.Close()
			w.e = nil
		}
		mo := w.model
		mo.Variant = variant
		if w.e, err = w.f.Embedder(ctx, mo, 0); err != nil {
			return search.Searcher{}, err
		}
	}
	if err := builder.CheckModel(meta, w.e.Info()); err != nil {
		return search.Searcher{}, cmdutil.WithCode(cmdutil.ExitVerification, err)
	}
	dir, err := config.KeywordDir(w.f.Getenv)
	if err != nil {
		return search.Searcher{}, err
	}
	kw, err := kwstore.Open(ctx, coll, dir)
	if err != nil {
		return search.Searcher{}, err
	}
	return search.Searcher{Coll: coll, Embedder: w.e, Keywords: kw, KeywordDir: dir}, nil
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
	req, err := answer.SearchRequest(q)
	if err != nil {
		return serve.QueryResult{}, err
	}
	start := time.Now()
	return answerWarm(ctx, w, func(s search.Searcher, _ explain.Lookup) (answer.QueryResult, error) {
		return answer.Search(ctx, s, req)
	}, func(error) bool { return true }, func(cause error) (answer.QueryResult, error) {
		return answer.QueryFromDisk(ctx, w.f.Getenv, w.info.CollectionName(), req, start, cause)
	})
}

// answerWarm answers a request from the index (fromIndex, with serve's
// searcher held for reading) or, when serve runs without Chroma or
// Chroma stopped answering during it, from disk (fromDisk, given why).
// fromDisk runs with nothing held: it may be slow (a page read live
// from a slow disk) and must not keep other requests, or the swap of a
// reopened index, waiting. check says which errors of fromIndex may be
// Chroma's (then Chroma is asked whether it still answers).
func answerWarm[T any](ctx context.Context, w *warm, fromIndex func(search.Searcher, explain.Lookup) (T, error), check func(error) bool, fromDisk func(cause error) (T, error)) (T, error) {
	w.mu.RLock()
	if w.openErr != nil {
		cause := w.openErr
		w.mu.RUnlock()
		return fromDisk(cause)
	}
	res, err := fromIndex(w.s, w.docs)
	var gone error
	if err != nil && ctx.Err() == nil && check(err) {
		gone = w.chromaGone(ctx)
	}
	w.mu.RUnlock()
	if gone != nil {
		return fromDisk(gone)
	}
	return res, err
}

// chromaGone says, after a failed search, whether Chroma stopped
// answering (then the query is answered keyword-only from disk): nil
// when it answers, so the failure was something else. The next query
// tries Chroma first again, so a --chroma-url server that comes back is
// used again; a private server that died is started again once serve
// reloads (after a writer) and finds it gone (lose). The caller holds
// w.mu.
func (w *warm) chromaGone(ctx context.Context) error {
	if w.conn == nil {
		return w.openErr
	}
	err := chroma.Answers(ctx, w.conn.URL)
	if err == nil {
		return nil
	}
	return cmdutil.WithCode(cmdutil.ExitUnreachable, fmt.Errorf("%w: the Chroma server at %s stopped answering serve (%v)", chroma.ErrUnreachable, w.conn.URL, err))
}

// Docs is one command's records, from the searcher serve holds; when
// Chroma cannot be reached, from the keyword index on disk or the
// command's page parsed live (degraded), as queries degrade; strict
// gets Chroma's error instead.
func (w *warm) Docs(ctx context.Context, command string, strict bool) (search.CommandDoc, error) {
	return answerWarm(ctx, w, func(s search.Searcher, _ explain.Lookup) (search.CommandDoc, error) {
		return s.Docs(ctx, command)
	}, func(err error) bool { return !errors.Is(err, search.ErrUnknownCommand) }, func(cause error) (search.CommandDoc, error) {
		return answer.DocsFromDisk(ctx, w.f.Getenv, w.info.CollectionName(), command, strict, cause)
	})
}

// Explain judges a line by the option records of the index serve holds,
// each command's read once per index (cached until a writer's lease
// ends); when Chroma cannot be reached, by the keyword index on disk
// (degraded), as queries degrade.
func (w *warm) Explain(ctx context.Context, req serve.ExplainRequest) (serve.ExplainResult, error) {
	if req.Distro != "" {
		info, err := distro.Parse(req.Distro)
		if err != nil {
			return serve.ExplainResult{}, cmdutil.WithCode(cmdutil.ExitUsage, fmt.Errorf("--distro: %w", err))
		}
		if info.CollectionName() != w.info.CollectionName() {
			return serve.ExplainResult{}, serve.ErrNotHeld
		}
	}
	start := time.Now()
	collection := w.info.CollectionName()
	return answerWarm(ctx, w, func(_ search.Searcher, docs explain.Lookup) (serve.ExplainResult, error) {
		return answer.Judge(ctx, req.Line, collection, docs, w.onPath, start)
	}, func(err error) bool { return !cmdutil.HasCode(err) }, func(cause error) (serve.ExplainResult, error) {
		return answer.ExplainFromDisk(ctx, w.f.Getenv, collection, req.Line, w.onPath, req.Strict, start, cause)
	})
}

// Status is the indexes on serve's Chroma, with staleness judged against
// the caller's $PATH and $MANPATH when the request carries them (else
// serve's own). Each request scans once, uncached: commands get installed
// or upgraded without telling serve (a cache would answer stale
// staleness), and a scan is ~60 ms here (BENCHMARKS.md), for a command
// people run by hand.
func (w *warm) Status(ctx context.Context, req serve.StatusRequest) (serve.IndexStatus, error) {
	w.mu.RLock()
	conn, down := w.conn, w.retry.down
	w.mu.RUnlock()
	if down != nil {
		return serve.IndexStatus{}, down
	}
	po := pages.Options{Distro: w.info}
	if req.Env != nil {
		// from the request, not os.Setenv: concurrent requests each
		// scan with their own
		po.PathDirs, po.ManPath = pages.ScanDirs(req.Env.Getenv)
	}
	return answer.CollectStatus(ctx, conn.Store, conn.Mode, w.info, req.Detailed, po)
}

// Where says which Chroma serve uses; while it has none, it says why and
// gives no data directory, so writers start or reach Chroma themselves.
func (w *warm) Where() serve.Health {
	w.mu.RLock()
	defer w.mu.RUnlock()
	if w.retry.down != nil {
		return serve.Health{Collection: w.info.CollectionName(), ChromaURL: w.retry.opts.URL, Degraded: true, DegradedReason: w.retry.down.Error()}
	}
	return serve.Health{Collection: w.info.CollectionName(), ChromaURL: w.conn.URL, DataDir: w.dataDir}
}

// Reload opens the index again after a writer's lease (no request is
// in). When that fails because Chroma stopped answering (its private
// server was killed, a remote one went away), serve runs degraded and
// retries (lose) rather than answer the raw error, 500, until restarted.
func (w *warm) Reload(ctx context.Context) error {
	w.mu.RLock()
	down := w.retry.down
	w.mu.RUnlock()
	if down != nil {
		return down // the retry opens the index once Chroma answers
	}
	err := w.open(ctx)
	if gone := w.lostOpening(ctx, err); gone != nil {
		w.lose(gone, "reloading the index after a write")
		return gone
	}
	return err
}

func (w *warm) Close() {
	w.mu.Lock()
	if w.e != nil {
		w.e.Close()
		w.e = nil
	}
	conn := w.conn
	w.conn = nil
	w.mu.Unlock()
	if conn != nil {
		conn.Close()
	}
}
