package answer

import (
	"context"
	"errors"

	"github.com/cmdai/cmdai/search"
)

// ErrServeGone: the serve a call was sent to did not answer it (it
// stopped, or it holds another index). PerCall answers such a call
// itself.
var ErrServeGone = errors.New("cmdai serve did not answer")

// PerCall answers each call through a running serve when one holds the
// index asked for, else through Local: serve may start or stop during an
// agent's hours-long session, and a call must neither fail because serve
// went nor open a second Chroma on serve's data (its lock would refuse).
type PerCall struct {
	// Serve gives the Answerer of the running serve that holds the index
	// asked for (package serve's Remote), and done, told the call's error
	// (ErrServeGone: forget that serve); ok false when there is none.
	Serve func(ctx context.Context) (a Answerer, done func(error), ok bool)
	Local Answerer
}

// viaServe runs f on serve's Answerer when one answers, else (or when
// serve went between the check and the call) on Local.
func viaServe[T any](ctx context.Context, p PerCall, f func(Answerer) (T, error)) (T, error) {
	if p.Serve != nil {
		if a, done, ok := p.Serve(ctx); ok {
			v, err := f(a)
			done(err)
			if !errors.Is(err, ErrServeGone) || ctx.Err() != nil {
				return v, err
			}
		}
	}
	return f(p.Local)
}

// Query implements Answerer.
func (p PerCall) Query(ctx context.Context, q QueryRequest) (QueryResult, error) {
	return viaServe(ctx, p, func(a Answerer) (QueryResult, error) { return a.Query(ctx, q) })
}

// Docs implements Answerer.
func (p PerCall) Docs(ctx context.Context, q DocsRequest) (search.CommandDoc, error) {
	return viaServe(ctx, p, func(a Answerer) (search.CommandDoc, error) { return a.Docs(ctx, q) })
}

// Explain implements Answerer.
func (p PerCall) Explain(ctx context.Context, q ExplainRequest) (ExplainResult, error) {
	return viaServe(ctx, p, func(a Answerer) (ExplainResult, error) { return a.Explain(ctx, q) })
}

// Status implements Answerer.
func (p PerCall) Status(ctx context.Context, q StatusRequest) (IndexStatus, error) {
	return viaServe(ctx, p, func(a Answerer) (IndexStatus, error) { return a.Status(ctx, q) })
}
