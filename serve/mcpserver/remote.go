package mcpserver

import (
	"context"
	"errors"
	"fmt"

	"github.com/cmdai/cmdai/search"
	"github.com/cmdai/cmdai/serve"
)

// ServeAPI is what the tools need of a running `cmdai serve`: package
// serve's Client.
type ServeAPI interface {
	Query(ctx context.Context, q serve.QueryRequest) (serve.QueryResult, error)
	Docs(ctx context.Context, command string, strict bool) (search.CommandDoc, error)
	Status(ctx context.Context, detailed bool) (serve.IndexStatus, error)
	Explain(ctx context.Context, req serve.ExplainRequest) (serve.ExplainResult, error)
}

// ErrServeGone: the serve a call was sent to did not answer it (it
// stopped, or it holds another index). PerCall answers such a call
// itself.
var ErrServeGone = errors.New("cmdai serve did not answer")

// Remote is the Backend of a running serve: the same answers as Local
// over the same index, from serve's warm searcher.
type Remote struct {
	C ServeAPI
	// Collection is the index serve holds (its health's), which
	// index_status reports.
	Collection string
	// Socket names serve in index_status.
	Socket string
	// Distro is the distribution asked for ("": serve's): a serve that
	// holds another one (restarted so mid-session) is not asked.
	Distro string
}

// Query implements Backend. Full: every match of each command, whole, as
// Local's search gives them, so that the tools render the same text.
func (r Remote) Query(ctx context.Context, q Query) (search.Answer, error) {
	res, err := r.C.Query(ctx, serve.QueryRequest{Request: q.Request, K: q.K, Mode: string(q.Mode), Full: true, Distro: r.Distro})
	if err != nil {
		return search.Answer{}, remoteError(err)
	}
	return search.Answer{Commands: res.Commands, Degraded: res.DegradedReason}, nil
}

// Docs implements Backend.
func (r Remote) Docs(ctx context.Context, command string) (search.CommandDoc, error) {
	doc, err := r.C.Docs(ctx, command, false)
	if err != nil {
		return search.CommandDoc{}, remoteError(err)
	}
	return doc, nil
}

// Status implements Backend: the collection serve holds, from its status.
func (r Remote) Status(ctx context.Context) (Status, error) {
	st, err := r.C.Status(ctx, false)
	if err != nil {
		return Status{}, remoteError(err)
	}
	for _, c := range st.Collections {
		if c.Name == r.Collection {
			return Status{Collection: c.Name, Records: c.Records, Meta: c.Meta, Holder: "cmdai serve on " + r.Socket, Verification: c.Verification}, nil
		}
	}
	return Status{}, fmt.Errorf("no index %s in the Chroma of cmdai serve (%s): build it with `cmdai index init`", r.Collection, r.Socket)
}

// Explain implements Backend.
func (r Remote) Explain(ctx context.Context, line string) (serve.ExplainResult, error) {
	res, err := r.C.Explain(ctx, serve.ExplainRequest{Line: line, Distro: r.Distro})
	if err != nil {
		return serve.ExplainResult{}, remoteError(err)
	}
	return res, nil
}

// remoteError is serve's error answer as Local would have returned it
// (the same message); a call serve did not answer is ErrServeGone.
func remoteError(err error) error {
	var se *serve.Error
	switch {
	case errors.As(err, &se) && se.Status == 404:
		return unknownCommand(se.Message)
	case errors.As(err, &se):
		return errors.New(se.Message)
	default:
		return fmt.Errorf("%w: %v", ErrServeGone, err)
	}
}

// unknownCommand is serve's 404 for a command: search.ErrUnknownCommand
// with serve's message.
type unknownCommand string

func (u unknownCommand) Error() string        { return string(u) }
func (u unknownCommand) Is(target error) bool { return target == search.ErrUnknownCommand }

// PerCall answers each call through a running serve when one holds the
// index asked for, else through Local: serve may start or stop during an
// agent's hours-long session, and a call must neither fail because serve
// went nor open a second Chroma on serve's data (its lock would refuse).
type PerCall struct {
	// Serve gives the Backend of the running serve that holds the index
	// asked for, and done, told the call's error (ErrServeGone: forget
	// that serve); ok false when there is none.
	Serve func(ctx context.Context) (b Backend, done func(error), ok bool)
	Local Backend
}

// viaServe runs f on serve's Backend when one answers, else (or when serve
// went between the check and the call) on Local.
func viaServe[T any](ctx context.Context, p PerCall, f func(Backend) (T, error)) (T, error) {
	if p.Serve != nil {
		if b, done, ok := p.Serve(ctx); ok {
			v, err := f(b)
			done(err)
			if !errors.Is(err, ErrServeGone) || ctx.Err() != nil {
				return v, err
			}
		}
	}
	return f(p.Local)
}

// Query implements Backend.
func (p PerCall) Query(ctx context.Context, q Query) (search.Answer, error) {
	return viaServe(ctx, p, func(b Backend) (search.Answer, error) { return b.Query(ctx, q) })
}

// Docs implements Backend.
func (p PerCall) Docs(ctx context.Context, command string) (search.CommandDoc, error) {
	return viaServe(ctx, p, func(b Backend) (search.CommandDoc, error) { return b.Docs(ctx, command) })
}

// Explain implements Backend.
func (p PerCall) Explain(ctx context.Context, line string) (serve.ExplainResult, error) {
	return viaServe(ctx, p, func(b Backend) (serve.ExplainResult, error) { return b.Explain(ctx, line) })
}

// Status implements Backend.
func (p PerCall) Status(ctx context.Context) (Status, error) {
	return viaServe(ctx, p, func(b Backend) (Status, error) { return b.Status(ctx) })
}
