// Package warm is the answering layer's Answerer for a long-lived
// process (`cmdai serve`): one distribution's index held warm, with one
// Chroma connection and one model for the process's life and the
// searcher (collection, model, keyword index) swapped whole on Reload.
// While Chroma cannot be reached it answers from disk, degraded, and
// tries Chroma again in the background with a backoff (retry.go).
//
// It knows nothing of the CLI: the caller gives it how to connect to
// Chroma, the model (answer.Model), the environment and a log (Options).
package warm

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/cmdai/cmdai/answer"
	"github.com/cmdai/cmdai/chroma"
	"github.com/cmdai/cmdai/chroma/connect"
	"github.com/cmdai/cmdai/config"
	"github.com/cmdai/cmdai/distro"
	"github.com/cmdai/cmdai/embed"
	"github.com/cmdai/cmdai/explain"
	"github.com/cmdai/cmdai/index"
	"github.com/cmdai/cmdai/internal/exitcode"
	"github.com/cmdai/cmdai/search"
	"github.com/cmdai/cmdai/search/descvec"
	"github.com/cmdai/cmdai/search/kwstore"
	"github.com/cmdai/cmdai/search/recvec"
)

// Options are what Open needs from its caller (the CLI fills them from
// its Factory and flags).
type Options struct {
	// Open resolves the distribution whose index is held and makes the
	// first connection to Chroma (which may wait for the data another
	// cmdai holds); its errors carry their exit codes. An unreachable
	// Chroma (exit 4) is not fatal: the Index starts degraded.
	Open func(ctx context.Context) (distro.Info, *connect.Connection, error)
	// Connect makes each later connection (the retries while degraded):
	// it must not wait for the data, which would hold a retry, and so
	// serve's stop, for that long.
	Connect func(ctx context.Context) (*connect.Connection, error)
	// ChromaURL is the server asked for ("": a private one), which Where
	// names while there is no Chroma.
	ChromaURL string
	// Model opens the embedder of a variant; Variant is the one asked for
	// ("": the index's own). Open loads Variant at once (with "" the
	// model's default variant, which open replaces if the index was built
	// with another).
	Model   answer.Model
	Variant string
	// Rerank opens the reranker learned mode's answers use, once for the
	// process's life (nil: none).
	Rerank answer.RerankerSource
	// Getenv reads the environment (the keyword index's directory, the
	// answers from disk).
	Getenv func(string) string
	// Logf reports what the Index does on its own: Chroma lost and found.
	Logf func(format string, a ...any)
	// RetryEvery is how long the Index without Chroma waits before it
	// tries again (0: 10 s), doubled by each failed try up to 6 times it.
	RetryEvery time.Duration
	// KeepCopy keeps the local copy of the index held, from which an
	// index deleted behind cmdai's back is put back (cmdutil's KeepCopy):
	// run in the background once the index is open, and after each
	// writer's lease (nil: none).
	KeepCopy func(ctx context.Context, conn *connect.Connection, collection string) error
}

// Index is serve's Answerer: one Chroma connection and one model for the
// process's life, and the searcher of one distribution's index
// (collection, model, keyword index), swapped whole on Reload. It is
// safe for concurrent use.
type Index struct {
	info    distro.Info
	model   answer.Model
	variant string // the model variant asked for ("": the index's)
	getenv  func(string) string
	keep    func(ctx context.Context, conn *connect.Connection, collection string) error

	mu      sync.RWMutex
	conn    *connect.Connection // nil while Chroma cannot be reached
	e       embed.Embedder      // kept across reloads while it fits the index
	rr      embed.Embedder
	closeRR func()
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

var _ answer.Answerer = (*Index)(nil)

// Open connects to Chroma and opens the searcher. The model loads while
// the private server starts (the variant asked for, else the default
// one, which open replaces if the index was built with another), or
// while Options.Open waits for the data another cmdai holds. No index
// yet is not fatal: the Index answers exit 3 until an init through serve
// builds one. Chroma unreachable is not fatal either: the Index answers
// from disk and tries Chroma again (Start). ctx is serve's: the
// connection lives as long as it.
func Open(ctx context.Context, o Options) (*Index, error) {
	type loaded struct {
		e       embed.Embedder
		rr      embed.Embedder
		closeRR func()
		err     error
	}
	model := make(chan loaded, 1)
	go func() {
		var m loaded
		if m.e, m.err = o.Model(ctx, o.Variant); m.err == nil && o.Rerank != nil {
			if m.rr, m.closeRR, m.err = o.Rerank(ctx); m.err != nil {
				m.e.Close()
				m.e = nil
			}
		}
		model <- m
	}()
	info, conn, err := o.Open(ctx)
	m := <-model
	w := &Index{info: info, model: o.Model, variant: o.Variant, getenv: o.Getenv, keep: o.KeepCopy, e: m.e, rr: m.rr, closeRR: m.closeRR}
	w.retry.logf, w.retry.connect = o.Logf, o.Connect
	if m.err == nil && conn == nil && errors.Is(err, chroma.ErrUnreachable) {
		// Chroma could not be started or reached (its sentinel, as
		// answer.Degradable decides): start anyway and answer from disk;
		// the Index tries Chroma again.
		w.onPath = answer.OnPath(ctx, info)
		return w.setRetry(ctx, o.ChromaURL, err, o.RetryEvery), nil
	}
	if err != nil || m.err != nil {
		if m.e != nil {
			m.e.Close()
		}
		if m.closeRR != nil {
			m.closeRR()
		}
		if conn != nil {
			conn.Close()
		}
		if err == nil {
			err = m.err
		}
		return nil, err
	}
	w.conn, w.onPath = conn, answer.OnPath(ctx, info)
	w.setRetry(ctx, o.ChromaURL, nil, o.RetryEvery)
	if err := w.open(ctx); err != nil && exitcode.Of(err) != exitcode.NoIndex {
		w.Close()
		return nil, err
	} else if err == nil {
		w.keepCopy()
	}
	return w, nil
}

// keepCopy keeps the local copy of the index now open, in the
// background: reading every record takes seconds on a whole machine's
// index, which no query waits for. A writer's lease meanwhile may make
// the copy fail (its records change under it); the reload after that
// lease keeps it again.
func (w *Index) keepCopy() {
	w.mu.RLock()
	conn := w.conn
	w.mu.RUnlock()
	if w.keep == nil || conn == nil {
		return
	}
	go func() {
		if err := w.keep(w.retry.ctx, conn, w.info.CollectionName()); err != nil && w.retry.ctx.Err() == nil {
			w.logf("keep a local copy of the index: %v", err)
		}
	}()
}

// open (re)opens the searcher, reusing the loaded model when the index's
// was built with it; a failure is kept and answered to queries until the
// next reload. Reload runs under serve's write lease: no query is in.
func (w *Index) open(ctx context.Context) error {
	s, err := w.searcher(ctx)
	w.swap(s, err)
	return err
}

func (w *Index) searcher(ctx context.Context) (search.Searcher, error) {
	coll, err := answer.OpenIndex(ctx, w.conn.Store, w.info.CollectionName())
	if err != nil {
		return search.Searcher{}, err
	}
	if err := answer.Answerable(ctx, coll); err != nil {
		return search.Searcher{}, err
	}
	meta := index.ParseMeta(coll.Metadata())
	variant := w.variant
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
		if w.e, err = w.model(ctx, variant); err != nil {
			return search.Searcher{}, err
		}
	}
	if err := answer.CheckModel(meta, w.e.Info()); err != nil {
		return search.Searcher{}, exitcode.With(exitcode.Verification, err)
	}
	dir, err := config.KeywordDir(w.getenv)
	if err != nil {
		return search.Searcher{}, err
	}
	kw, err := kwstore.Open(ctx, coll, dir)
	if err != nil {
		return search.Searcher{}, err
	}
	// the option ranker's vectors, read now rather than by the first
	// query; a failure here is met again, and reported, by that query
	_, _ = recvec.Of(ctx, kw, coll, dir)
	// and learned mode's description vectors, embedded once per index
	// and model (seconds on a whole machine's index): serve answers its
	// first query as fast as its tenth
	_, _ = descvec.Of(ctx, kw, w.e, dir)
	if w.rr != nil {
		_, _ = descvec.Of(ctx, kw, w.rr, dir)
	}
	s := search.Searcher{Coll: coll, Embedder: w.e, Keywords: kw, KeywordDir: dir, Reranker: w.rr}
	// and serve answers one request of its own before any caller's: what
	// a search builds on first use (Chroma loads the collection's vector
	// index from disk, the rankers their tables) took 0.6-0.8 s of the
	// first answer on a whole machine's index
	if req, err := answer.SearchRequest(answer.QueryRequest{Request: "list the files in a directory", K: 1, Mode: string(search.DefaultMode)}); err == nil {
		_, _ = answer.Search(ctx, s, req)
	}
	return s, nil
}

// Where says which Chroma the Index uses; while it has none, it says why
// and gives no data directory, so writers start or reach Chroma
// themselves.
func (w *Index) Where() answer.Holding {
	w.mu.RLock()
	defer w.mu.RUnlock()
	if w.retry.down != nil {
		return answer.Holding{Collection: w.info.CollectionName(), ChromaURL: w.retry.url, Degraded: true, DegradedReason: w.retry.down.Error()}
	}
	return answer.Holding{Collection: w.info.CollectionName(), ChromaURL: w.conn.Store.URL, DataDir: w.conn.DataDir()}
}

// Reload opens the index again after a writer's lease (no request is
// in). When that fails because Chroma stopped answering (its private
// server was killed, a remote one went away), the Index runs degraded
// and retries (lose) rather than answer the raw error, 500, until
// serve is restarted.
func (w *Index) Reload(ctx context.Context) error {
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
	if err == nil {
		w.keepCopy()
	}
	return err
}

// Close closes the model and the connection (and its private server).
// Stop the background retry (Start's stop) first: a try in progress may
// open a connection.
func (w *Index) Close() {
	w.mu.Lock()
	if w.e != nil {
		w.e.Close()
		w.e = nil
	}
	if w.closeRR != nil {
		w.closeRR()
		w.closeRR, w.rr = nil, nil
	}
	conn := w.conn
	w.conn = nil
	w.mu.Unlock()
	if conn != nil {
		conn.Close()
	}
}
