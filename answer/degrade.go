package answer

import (
	"context"
	"time"

	"github.com/cmdai/cmdai/chroma"
	"github.com/cmdai/cmdai/search"
)

// Degrade is the one rule of how an answer degrades: when Inner (a
// holder: OneShot, the MCP session's index, serve's warm index) cannot
// reach Chroma, or another cmdai holds its data (Degradable), queries,
// docs and explain are answered from disk (QueryFromDisk, DocsFromDisk,
// ExplainFromDisk), marked degraded with why, so that an assistant is
// not blocked. Any other error, a strict request, and a status (there is
// nothing on disk to tell) keep Inner's error. The holders only open,
// hold and answer, returning Chroma's sentinel errors.
type Degrade struct {
	Inner Answerer
	// Index gives the collection a request for distribution id asks for
	// ("": the holder's), and which commands are installed for it (what
	// explain judges a line from disk against). An error keeps Inner's.
	Index func(ctx context.Context, id string) (collection string, onPath func(string) bool, err error)
	// Getenv reads where the keyword index lives and the man pages read
	// live (nil: os.Getenv).
	Getenv func(string) string
}

var _ Answerer = Degrade{}

// fromDisk says whether err may be answered from disk, and from which
// collection.
func (d Degrade) fromDisk(ctx context.Context, id string, err error) (string, func(string) bool, bool) {
	if !Degradable(err) || ctx.Err() != nil || d.Index == nil {
		return "", nil, false
	}
	if waitingForHolder(ctx) && chroma.HeldBriefly(err) {
		return "", nil, false // ServeFirst waits for the holder, then asks again
	}
	collection, onPath, ierr := d.Index(ctx, id)
	return collection, onPath, ierr == nil
}

// Query implements Answerer.
func (d Degrade) Query(ctx context.Context, q QueryRequest) (QueryResult, error) {
	start := time.Now()
	res, err := d.Inner.Query(ctx, q)
	collection, _, ok := d.fromDisk(ctx, q.Distro, err)
	if !ok {
		return res, err
	}
	req, rerr := SearchRequest(q)
	if rerr != nil {
		return QueryResult{}, rerr
	}
	return QueryFromDisk(ctx, d.Getenv, collection, req, start, err)
}

// Docs implements Answerer: a request narrows the doc from disk by the
// keyword ranking alone.
func (d Degrade) Docs(ctx context.Context, q DocsRequest) (search.CommandDoc, error) {
	doc, err := d.Inner.Docs(ctx, q)
	collection, _, ok := d.fromDisk(ctx, "", err)
	if !ok {
		return doc, err
	}
	doc, err = DocsFromDisk(ctx, d.Getenv, collection, q.Command, q.Strict, err)
	return NarrowDoc(ctx, search.Searcher{}, doc, err, q.Request)
}

// Explain implements Answerer.
func (d Degrade) Explain(ctx context.Context, q ExplainRequest) (ExplainResult, error) {
	start := time.Now()
	res, err := d.Inner.Explain(ctx, q)
	collection, onPath, ok := d.fromDisk(ctx, q.Distro, err)
	if !ok {
		return res, err
	}
	return ExplainFromDisk(ctx, d.Getenv, collection, q.Line, q.OnPath(onPath), q.Strict, start, err)
}

// Status implements Answerer: Inner's, degraded or not.
func (d Degrade) Status(ctx context.Context, q StatusRequest) (IndexStatus, error) {
	return d.Inner.Status(ctx, q)
}
