// Package serveorhere says who answers a read command: a running serve
// (warm: milliseconds), else this process (OneShot), which then starts a
// serve in the background for the calls after it; and, when this process
// finds the index data held by another cmdai, it waits for that one
// rather than fail.
package serveorhere

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"
	"unicode/utf8"

	"github.com/cmdai/cmdai/answer"
	"github.com/cmdai/cmdai/chroma"
	"github.com/cmdai/cmdai/distro"
	"github.com/cmdai/cmdai/explain"
	"github.com/cmdai/cmdai/internal/exitcode"
	"github.com/cmdai/cmdai/search"
	"github.com/cmdai/cmdai/serve"
)

// Answerer answers a command's request through a running serve when the
// command lets it, else Here, this process (OneShot). serve is not asked
// when Local, when no serve runs, or for a request beyond serve's
// limits; a request for a distribution serve does not hold
// (serve.ErrNotHeld) is answered Here too. serve's error answers keep the
// message and exit code the command would have had (ServeError).
type Answerer struct {
	// Client reaches a running serve (Factory.ServeClient); false: none.
	Client func(ctx context.Context) (*serve.Client, bool)
	Here   answer.Answerer
	// Local: the command asks for what serve does not have (--no-serve,
	// another Chroma, another model, an environment serve would refuse).
	Local bool
	// Distro is a status's --distro ("": serve's): serve tells the status
	// of the distribution whose index it holds, no other.
	Distro string
	// Start starts a serve in the background after Here answered
	// because none ran (nil: none is started); Started is its pid.
	Start   func() int
	Started int
}

var _ answer.Answerer = (*Answerer)(nil)

// LockedWait bounds how long a command that finds the index data held by
// another cmdai waits for it: a one-shot command holds it about a
// second, and a serve that starts beside it answers within a few.
var LockedWait = 30 * time.Second

// ask answers q through a running serve (via), else here. Here finding
// the data held by another cmdai (two first commands at once: one
// answers and starts a serve, or a serve starts) waits for that one, and
// takes whichever comes first: the serve answering, or the data free. A
// good answer made here (holdable: there is an index to hold) starts a
// serve in the background.
func ask[Q, R any](ctx context.Context, a *Answerer, q Q, here func(context.Context, Q) (R, error), via func(*serve.Client) (R, error), holdable func(R) bool) (R, error) {
	if c, ok := a.client(ctx); ok {
		res, err := via(c)
		c.Close()
		return servedOrHere(ctx, res, err, here, q)
	}
	res, err := here(ctx, q)
	// Backing off: each try here starts to load the models again, on
	// the cores the holder is answering with.
	wait := 100 * time.Millisecond
	for deadline := time.Now().Add(LockedWait); errors.Is(err, chroma.ErrLocked) && time.Now().Before(deadline) && ctx.Err() == nil; wait = min(2*wait, time.Second) {
		time.Sleep(wait)
		if c, ok := a.client(ctx); ok {
			res, err = via(c)
			c.Close()
			return servedOrHere(ctx, res, err, here, q)
		}
		res, err = here(ctx, q)
	}
	if err == nil && a.Start != nil && !a.Local && holdable(res) {
		a.Started = a.Start()
	}
	return res, err
}

func always[R any](R) bool { return true }

// client is the running serve to ask, unless Local or none runs.
func (a *Answerer) client(ctx context.Context) (*serve.Client, bool) {
	if a.Local {
		return nil, false
	}
	return a.Client(ctx)
}

// Query asks serve unless k or the request is beyond its limits (the
// one-shot path takes them). serve answers with the model it loaded (its
// --model-dir).
func (a *Answerer) Query(ctx context.Context, q answer.QueryRequest) (answer.QueryResult, error) {
	if q.K > serve.MaxK || len(q.Request) > serve.MaxRequestBytes {
		return a.Here.Query(ctx, q)
	}
	return ask(ctx, a, q, a.Here.Query, func(c *serve.Client) (answer.QueryResult, error) { return c.Query(ctx, q) }, always)
}

// Explain asks serve unless the line is one JSON cannot carry as it is
// (not UTF-8) or over the limit: explain refuses it here, before
// anything starts.
func (a *Answerer) Explain(ctx context.Context, q answer.ExplainRequest) (answer.ExplainResult, error) {
	if !utf8.ValidString(q.Line) || len(q.Line) > explain.MaxLine {
		return a.Here.Explain(ctx, q)
	}
	return ask(ctx, a, q, a.Here.Explain, func(c *serve.Client) (answer.ExplainResult, error) { return c.Explain(ctx, q) }, always)
}

// Docs asks serve for one command's records.
func (a *Answerer) Docs(ctx context.Context, q answer.DocsRequest) (search.CommandDoc, error) {
	return ask(ctx, a, q, a.Here.Docs, func(c *serve.Client) (search.CommandDoc, error) {
		return c.Docs(ctx, q.Command, q.Request, q.Strict)
	}, always)
}

// Status asks serve when it holds Distro's index (any, when Distro is
// ""); the request's Env goes as it is (a command keeps one serve would
// refuse Local).
func (a *Answerer) Status(ctx context.Context, q answer.StatusRequest) (answer.IndexStatus, error) {
	return ask(ctx, a, q, a.Here.Status, func(c *serve.Client) (answer.IndexStatus, error) {
		if a.Distro != "" {
			info, err := distro.Parse(a.Distro)
			h, herr := c.Health(ctx)
			if err != nil || herr != nil || info.CollectionName() != h.Collection {
				return answer.IndexStatus{}, serve.ErrNotHeld
			}
		}
		return c.StatusOf(ctx, q)
	}, hasCurrent)
}

// servedOrHere is serve's answer (its client closed), or here's when
// serve does not hold the index asked for; serve's error as the
// command's own.
func servedOrHere[Q, R any](ctx context.Context, res R, err error, here func(context.Context, Q) (R, error), q Q) (R, error) {
	if errors.Is(err, serve.ErrNotHeld) {
		return here(ctx, q)
	}
	if err != nil {
		return res, ServeError(err)
	}
	return res, nil
}

// ServeError turns an error answer of serve into the error the command
// would have returned itself: same message, same exit code.
func ServeError(err error) error {
	var se *serve.Error
	if errors.As(err, &se) && se.Status == http.StatusNotFound && se.ExitCode == exitcode.Usage {
		return exitcode.With(se.ExitCode, unknownCommand(se.Message))
	}
	if errors.As(err, &se) {
		return exitcode.With(se.ExitCode, errors.New(se.Message))
	}
	return exitcode.With(exitcode.Unreachable, fmt.Errorf("%w (run the command again, or with --no-serve)", err))
}

// unknownCommand is serve's 404 for a command's docs (exit 2; no index
// is exit 3), with its message: search.ErrUnknownCommand, as the index
// here would answer.
type unknownCommand string

func (u unknownCommand) Error() string        { return string(u) }
func (u unknownCommand) Is(target error) bool { return target == search.ErrUnknownCommand }

// hasCurrent: the status shows this distribution's index, which a serve
// can hold (without one, a serve started now would only fail).
func hasCurrent(st answer.IndexStatus) bool {
	for _, c := range st.Collections {
		if c.Current {
			return true
		}
	}
	return false
}
