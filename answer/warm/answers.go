package warm

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/cmdai/cmdai/answer"
	"github.com/cmdai/cmdai/builder/pages"
	"github.com/cmdai/cmdai/chroma"
	"github.com/cmdai/cmdai/chroma/connect"
	"github.com/cmdai/cmdai/distro"
	"github.com/cmdai/cmdai/explain"
	"github.com/cmdai/cmdai/internal/exitcode"
	"github.com/cmdai/cmdai/search"
)

// Query answers a search from the searcher the Index holds; when Chroma
// cannot be reached, Chroma's error (Held answers it from disk).
func (w *Index) Query(ctx context.Context, q answer.QueryRequest) (answer.QueryResult, error) {
	if err := w.holds(q.Distro); err != nil {
		return answer.QueryResult{}, err
	}
	req, err := answer.SearchRequest(q)
	if err != nil {
		return answer.QueryResult{}, err
	}
	return answerWarm(ctx, w, func(s search.Searcher, _ explain.Lookup) (answer.QueryResult, error) {
		return answer.Search(ctx, s, req)
	}, func(error) bool { return true })
}

// holds refuses a request for another distribution's index than the one
// held (answer.ErrNotHeld: the caller answers it itself), and a
// distribution that names none (a usage error).
func (w *Index) holds(id string) error {
	if id == "" {
		return nil
	}
	info, err := distro.Parse(id)
	if err != nil {
		return exitcode.With(exitcode.Usage, fmt.Errorf("--distro: %w", err))
	}
	if info.CollectionName() != w.info.CollectionName() {
		return answer.ErrNotHeld
	}
	return nil
}

// answerWarm answers a request from the index (fromIndex, with the
// searcher held for reading); when the Index runs without Chroma or
// Chroma stopped answering during it, the error says so (marked
// chroma.ErrUnreachable: Held answers from disk, with nothing held,
// since that may be slow, a page read live from a slow disk, and must
// not keep other requests, or the swap of a reopened index, waiting).
// check says which errors of fromIndex may be Chroma's (then Chroma is
// asked whether it still answers).
//
// An index deleted behind cmdai's back while serve holds it is put back
// from its local copy, when one is kept (putBack), and the request
// answered from it.
func answerWarm[T any](ctx context.Context, w *Index, fromIndex func(search.Searcher, explain.Lookup) (T, error), check func(error) bool) (T, error) {
	res, coll, err := answerWarmOnce(ctx, w, fromIndex, check)
	if errors.Is(err, chroma.ErrNoCollection) && ctx.Err() == nil && w.putBack(ctx, coll) {
		res, _, err = answerWarmOnce(ctx, w, fromIndex, check)
	}
	return res, err
}

// putBack puts the index held back on serve's Chroma from its local
// copy when it was deleted (chroma.Store.RestoreMissing) and opens it
// again: true when the searcher is now another than the one that found
// it gone (coll), put back by this request or another.
func (w *Index) putBack(ctx context.Context, coll search.Collection) bool {
	now := func() (*connect.Connection, search.Collection) {
		w.mu.RLock()
		defer w.mu.RUnlock()
		return w.conn, w.s.Coll
	}
	conn, held := now()
	if conn == nil {
		return false
	}
	if held != coll {
		return true
	}
	if _, err := conn.Store.RestoreMissing(ctx, w.info.CollectionName()); err != nil {
		w.logf("%v", err)
		return false
	}
	if _, held = now(); held != coll {
		return true
	}
	if err := w.open(ctx); err != nil {
		return false
	}
	w.logf("the index %s was deleted outside cmdai while serve held it: put back from its local copy, and answering from it", w.info.CollectionName())
	return true
}

// answerWarmOnce is answerWarm's one try, with the collection it was
// answered from.
func answerWarmOnce[T any](ctx context.Context, w *Index, fromIndex func(search.Searcher, explain.Lookup) (T, error), check func(error) bool) (T, search.Collection, error) {
	var zero T
	w.mu.RLock()
	coll := w.s.Coll
	// Chroma lost (lose): the searcher stays for what needs no Chroma
	// (a keyword query, from the keyword index in memory, whole); the
	// rest fails on the closed connection and gets Chroma's error
	lost := w.retry.down != nil && w.s.Keywords != nil
	if w.openErr != nil && !lost {
		defer w.mu.RUnlock()
		return zero, coll, w.openErr
	}
	res, err := fromIndex(w.s, w.docs)
	if err != nil && lost {
		defer w.mu.RUnlock()
		return zero, coll, w.openErr
	}
	var gone error
	if err != nil && ctx.Err() == nil && check(err) {
		gone = w.chromaGone(ctx)
	}
	w.mu.RUnlock()
	if gone != nil {
		// serve runs degraded from now (health says so) and its retry
		// starts Chroma again, without waiting for a writer to find it
		// dead (issue 45, finding 11)
		w.lose(gone, "answering a request")
		return zero, coll, gone
	}
	return res, coll, err
}

// chromaGone says, after a failed search, whether Chroma stopped
// answering (then the query is answered keyword-only from disk): nil
// when it answers, so the failure was something else. The next query
// tries Chroma first again, so a --chroma-url server that comes back is
// used again; a private server that died is started again by the retry
// (answerWarm then loses it). The caller holds w.mu.
func (w *Index) chromaGone(ctx context.Context) error {
	if w.conn == nil {
		return w.openErr
	}
	url := w.conn.Store.URL
	err := chroma.Answers(ctx, url)
	if err == nil {
		return nil
	}
	return exitcode.With(exitcode.Unreachable, fmt.Errorf("%w: the Chroma server at %s stopped answering serve (%v)", chroma.ErrUnreachable, url, err))
}

// Docs is one command's records, from the searcher the Index holds; when
// Chroma cannot be reached, Chroma's error, as Query's.
func (w *Index) Docs(ctx context.Context, q answer.DocsRequest) (search.CommandDoc, error) {
	return answerWarm(ctx, w, func(s search.Searcher, _ explain.Lookup) (search.CommandDoc, error) {
		doc, err := s.Docs(ctx, q.Command)
		return answer.NarrowDoc(ctx, s, doc, err, q.Request)
	}, func(err error) bool { return !errors.Is(err, search.ErrUnknownCommand) })
}

// Explain judges a line by the option records of the index held, each
// command's read once per index (cached until a writer's lease ends);
// when Chroma cannot be reached, Chroma's error, as Query's.
func (w *Index) Explain(ctx context.Context, req answer.ExplainRequest) (answer.ExplainResult, error) {
	if err := w.holds(req.Distro); err != nil {
		return answer.ExplainResult{}, err
	}
	start := time.Now()
	collection := w.info.CollectionName()
	return answerWarm(ctx, w, func(_ search.Searcher, docs explain.Lookup) (answer.ExplainResult, error) {
		return answer.Judge(ctx, req.Line, collection, docs, req.OnPath(w.onPath), start)
	}, func(err error) bool { return !exitcode.Has(err) })
}

// Status is the indexes on the Index's Chroma, with staleness judged
// against the caller's $PATH and $MANPATH when the request carries them
// (else serve's own). Each request scans once, uncached: commands get
// installed or upgraded without telling serve (a cache would answer
// stale staleness), and a scan is ~60 ms here (BENCHMARKS.md), for a
// command people run by hand.
func (w *Index) Status(ctx context.Context, req answer.StatusRequest) (answer.IndexStatus, error) {
	w.mu.RLock()
	conn, down := w.conn, w.retry.down
	w.mu.RUnlock()
	if down != nil {
		return answer.IndexStatus{}, down
	}
	po := pages.Options{Distro: w.info}
	if req.Env != nil {
		// from the request, not os.Setenv: concurrent requests each
		// scan with their own
		po.PathDirs, po.ManPath = pages.ScanDirs(req.Env.Getenv)
	}
	return answer.CollectStatus(ctx, conn.Store, conn.Mode, w.info, req.Detailed, req.Verify, po)
}

// Held is what serve holds (serve.Backend): the warm index, its answers
// degraded from disk when Chroma cannot be reached as every door's
// (answer.Degrade).
type Held struct {
	answer.Degrade
	Index *Index
}

// Held is w as serve holds it.
func (w *Index) Held() Held {
	return Held{Index: w, Degrade: answer.Degrade{Inner: w, Getenv: w.getenv, Index: func(context.Context, string) (string, func(string) bool, error) {
		return w.info.CollectionName(), w.onPath, nil
	}}}
}

// Where says what the Index holds (Index.Where).
func (h Held) Where() answer.Holding { return h.Index.Where() }

// Reload re-reads the index after a writer (Index.Reload).
func (h Held) Reload(ctx context.Context) error { return h.Index.Reload(ctx) }

// Close closes the index (Index.Close).
func (h Held) Close() { h.Index.Close() }
