package answer

import (
	"context"
	"time"

	"github.com/cmdai/cmdai/builder/pages"
	"github.com/cmdai/cmdai/chroma/connect"
	"github.com/cmdai/cmdai/config"
	"github.com/cmdai/cmdai/distro"
	"github.com/cmdai/cmdai/explain"
	"github.com/cmdai/cmdai/search"
)

// OneShot answers each call in this process and keeps nothing between
// calls: it connects to Chroma, opens what the operation needs, answers
// and closes. When Chroma cannot be started or reached, or another
// cmdai holds its data, it returns Connect's error, which Degrade
// answers from disk (Degraded). It is `index query`, `explain`, `show`
// and `index status` when no serve answers for them.
type OneShot struct {
	// Connect reaches Chroma (the CLI's Factory.Connect, bound to the
	// command's Chroma flags). Its failures are marked
	// chroma.ErrUnreachable or chroma.ErrLocked when disk may answer.
	Connect func(ctx context.Context) (*connect.Connection, error)
	// Resolve gives the distribution of an id (the request's Distro, else
	// Distro; "": this machine's), with the error and exit code a bad or
	// undetectable one gets. Nil: distro.Parse, or distro.Detect.
	Resolve func(ctx context.Context, id string) (distro.Info, error)
	Distro  string
	// Model opens a query's embedder, of Variant when it is not "" (else
	// of the index's own variant). Explain, docs and status load none.
	Model   Model
	Variant string
	// Rerank opens the reranker a query's learned mode uses (nil: none).
	Rerank RerankerSource
	// Getenv reads the environment: where the keyword index lives, the
	// man pages read live when Chroma is down, and the $PATH and
	// $MANPATH of a status without Env (nil: os.Getenv).
	Getenv func(string) string
	// PathDirs and ManPath, when either is set, are where a status looks
	// for the installed commands, whatever the environment says (tests).
	PathDirs, ManPath []string
}

var _ Answerer = (*OneShot)(nil)

// resolve is the distribution the request's id names, else o.Distro's.
func (o *OneShot) resolve(ctx context.Context, id string) (distro.Info, error) {
	if id == "" {
		id = o.Distro
	}
	if o.Resolve != nil {
		return o.Resolve(ctx, id)
	}
	if id != "" {
		return distro.Parse(id)
	}
	return distro.Detect(ctx)
}

// Query searches the distribution's index: the searcher of its
// collection and model, with the keyword index unless the mode is
// semantic.
func (o *OneShot) Query(ctx context.Context, q QueryRequest) (QueryResult, error) {
	req, err := SearchRequest(q)
	if err != nil {
		return QueryResult{}, err
	}
	info, err := o.resolve(ctx, q.Distro)
	if err != nil {
		return QueryResult{}, err
	}
	rerank := o.Rerank
	if req.Mode != search.ModeLearned {
		rerank = nil // only learned mode reranks: no model to load
	}
	rerank, cleanup := prefetch(ctx, rerank)
	defer cleanup()
	keywordDir := ""
	if req.Mode != search.ModeSemantic {
		if keywordDir, err = config.KeywordDir(orOS(o.Getenv)); err != nil {
			return QueryResult{}, err
		}
	}
	var res QueryResult
	err = o.onConnection(ctx, func(conn *connect.Connection) error {
		s, closeS, err := OpenSearcher(ctx, conn.Store, info.CollectionName(), o.Variant, o.Model, keywordDir, rerank)
		if err != nil {
			return err
		}
		defer closeS()
		res, err = Search(ctx, s, req)
		return err
	})
	return res, err
}

// onConnection runs op on a connection to Chroma, and once more on a new
// one when the first was a running serve's Chroma, lent under its lease,
// and serve died meanwhile (killed mid-call: issue 45, finding 15): the
// call in flight is answered here, on a private server of its own, which
// waits a few seconds for the dead serve's to let the data go.
func (o *OneShot) onConnection(ctx context.Context, op func(*connect.Connection) error) error {
	conn, err := o.Connect(ctx)
	if err != nil {
		return err
	}
	err = op(conn)
	lost := err != nil && ctx.Err() == nil && conn.LeaseLost(ctx)
	conn.Close()
	if !lost {
		return err
	}
	conn, err = o.Connect(connect.WithLockWait(ctx, leaseLostWait))
	if err != nil {
		return err
	}
	defer conn.Close()
	return op(conn)
}

// leaseLostWait bounds how long a call whose serve died waits for the
// data that serve's Chroma held (it exits with serve, within a second or
// two).
const leaseLostWait = 15 * time.Second

// Docs is one command's records from the distribution's collection (no
// model unless a request narrows it: then the model and the keyword
// index rank its options, as a query's are).
func (o *OneShot) Docs(ctx context.Context, q DocsRequest) (search.CommandDoc, error) {
	info, err := o.resolve(ctx, "")
	if err != nil {
		return search.CommandDoc{}, err
	}
	keywordDir := ""
	if q.Request != "" {
		if keywordDir, err = config.KeywordDir(orOS(o.Getenv)); err != nil {
			return search.CommandDoc{}, err
		}
	}
	var doc search.CommandDoc
	err = o.onConnection(ctx, func(conn *connect.Connection) error {
		if q.Request == "" {
			coll, err := OpenAnswerable(ctx, conn.Store, info.CollectionName())
			if err != nil {
				return err
			}
			doc, err = search.Searcher{Coll: coll}.Docs(ctx, q.Command)
			return err
		}
		s, closeS, err := OpenSearcher(ctx, conn.Store, info.CollectionName(), o.Variant, o.Model, keywordDir, nil)
		if err != nil {
			return err
		}
		defer closeS()
		doc, err = s.Docs(ctx, q.Command)
		doc, err = NarrowDoc(ctx, s, doc, err, q.Request)
		return err
	})
	return doc, err
}

// Explain judges the line by the distribution's option records. The
// collection is opened on the first lookup (lazyIndex), so a line the
// shell cannot parse, or one with no command to look up (assignments,
// export, [[ ]]), starts no Chroma; no model is loaded at all.
func (o *OneShot) Explain(ctx context.Context, q ExplainRequest) (ExplainResult, error) {
	start := time.Now()
	info, err := o.resolve(ctx, q.Distro)
	if err != nil {
		return ExplainResult{}, err
	}
	ix := &lazyIndex{base: ctx, connect: o.Connect, collection: info.CollectionName()}
	defer ix.close()
	res, err := Judge(ctx, q.Line, info.CollectionName(), explain.CachedLookup(ix.lookup), q.OnPath(OnPath(ctx, info)), start)
	if err != nil {
		// the open's own error carries its exit code and fix, whatever
		// Explain made of it
		if oerr := ix.openErr(); oerr != nil {
			return ExplainResult{}, oerr
		}
		return ExplainResult{}, err
	}
	return res, nil
}

// Status is the indexes on the Chroma that Connect reaches, with the
// staleness of the distribution's judged against the commands installed
// for the caller: the request's Env, else this process's environment
// (PathDirs and ManPath when set). A Chroma that cannot be reached is an
// error: status has nothing on disk to tell.
func (o *OneShot) Status(ctx context.Context, q StatusRequest) (IndexStatus, error) {
	info, err := o.resolve(ctx, "")
	if err != nil {
		return IndexStatus{}, err
	}
	po := pages.Options{Distro: info, PathDirs: o.PathDirs, ManPath: o.ManPath}
	if po.PathDirs == nil && po.ManPath == nil {
		getenv := orOS(o.Getenv)
		if q.Env != nil {
			getenv = q.Env.Getenv
		}
		po.PathDirs, po.ManPath = pages.ScanDirs(getenv)
	}
	var st IndexStatus
	err = o.onConnection(ctx, func(conn *connect.Connection) error {
		st, err = CollectStatus(ctx, conn.Store, conn.Mode, info, q.Detailed, q.Verify, po)
		return err
	})
	return st, err
}

// Degraded is o answering from disk when Chroma cannot be reached
// (Degrade): what the CLI's commands ask.
func (o *OneShot) Degraded() Degrade {
	return Degrade{Inner: o, Getenv: o.Getenv, Index: func(ctx context.Context, id string) (string, func(string) bool, error) {
		info, err := o.resolve(ctx, id)
		if err != nil {
			return "", nil, err
		}
		return info.CollectionName(), OnPath(ctx, info), nil
	}}
}
