package cmdutil

import (
	"context"
	"errors"
	"unicode/utf8"

	"github.com/cmdai/cmdai/answer"
	"github.com/cmdai/cmdai/distro"
	"github.com/cmdai/cmdai/explain"
	"github.com/cmdai/cmdai/search"
	"github.com/cmdai/cmdai/serve"
)

// OneShot answers a command's request in this process (answer.OneShot):
// on the Chroma the flags o choose, for the distribution distroID ("":
// this machine's), a query with the model the flags mo choose (their
// Variant "": the index's own).
func (f *Factory) OneShot(o ChromaOptions, distroID string, mo ModelOptions) *answer.OneShot {
	return &answer.OneShot{
		Connect: func(ctx context.Context) (answer.Conn, error) {
			conn, err := f.Connect(ctx, o)
			if err != nil {
				return answer.Conn{}, err
			}
			return answer.Conn{Store: conn.Store, Mode: conn.Mode, Close: conn.Close}, nil
		},
		Resolve: func(ctx context.Context, id string) (distro.Info, error) {
			return ResolveDistro(ctx, id, f.DetectDistro)
		},
		Distro:  distroID,
		Model:   f.Model(mo),
		Variant: mo.Variant,
		Rerank:  f.Reranker(mo),
		Getenv:  f.Getenv,
	}
}

// ServeOrHere answers a command's request through a running serve (warm:
// a few milliseconds) when the command lets it, else Here, this process
// (OneShot). serve is not asked when Local, when no serve runs, or for a
// request beyond serve's limits; a request for a distribution serve does
// not hold (serve.ErrNotHeld) is answered Here too. serve's error
// answers keep the message and exit code the command would have had
// (ServeError).
type ServeOrHere struct {
	// Client reaches a running serve (Factory.ServeClient); false: none.
	Client func(ctx context.Context) (*serve.Client, bool)
	Here   answer.Answerer
	// Local: the command asks for what serve does not have (--no-serve,
	// another Chroma, another model, an environment serve would refuse).
	Local bool
	// Distro is a status's --distro ("": serve's): serve tells the status
	// of the distribution whose index it holds, no other.
	Distro string
}

var _ answer.Answerer = (*ServeOrHere)(nil)

// ServeOrHere is who answers a command: a running serve unless noServe,
// another Chroma (--chroma-url, --chroma-data) or local (the command's own
// reasons) says otherwise, else here.
func (f *Factory) ServeOrHere(here answer.Answerer, noServe bool, o ChromaOptions, local bool) *ServeOrHere {
	return &ServeOrHere{
		Client: func(ctx context.Context) (*serve.Client, bool) { return f.ServeClient(ctx) },
		Here:   here,
		Local:  local || noServe || o.URL != "" || o.DataDir != "",
	}
}

// client is the running serve to ask, unless Local or none runs.
func (a *ServeOrHere) client(ctx context.Context) (*serve.Client, bool) {
	if a.Local {
		return nil, false
	}
	return a.Client(ctx)
}

// Query asks serve unless k or the request is beyond its limits (the
// one-shot path takes them). serve answers with the model it loaded (its
// --model-dir).
func (a *ServeOrHere) Query(ctx context.Context, q answer.QueryRequest) (answer.QueryResult, error) {
	if q.K > serve.MaxK || len(q.Request) > serve.MaxRequestBytes {
		return a.Here.Query(ctx, q)
	}
	c, ok := a.client(ctx)
	if !ok {
		return a.Here.Query(ctx, q)
	}
	res, err := c.Query(ctx, q)
	c.Close()
	return servedOrHere(ctx, res, err, a.Here.Query, q)
}

// Explain asks serve unless the line is one JSON cannot carry as it is
// (not UTF-8) or over the limit: explain refuses it here, before
// anything starts.
func (a *ServeOrHere) Explain(ctx context.Context, q answer.ExplainRequest) (answer.ExplainResult, error) {
	if !utf8.ValidString(q.Line) || len(q.Line) > explain.MaxLine {
		return a.Here.Explain(ctx, q)
	}
	c, ok := a.client(ctx)
	if !ok {
		return a.Here.Explain(ctx, q)
	}
	res, err := c.Explain(ctx, q)
	c.Close()
	return servedOrHere(ctx, res, err, a.Here.Explain, q)
}

// Docs asks serve for one command's records.
func (a *ServeOrHere) Docs(ctx context.Context, q answer.DocsRequest) (search.CommandDoc, error) {
	c, ok := a.client(ctx)
	if !ok {
		return a.Here.Docs(ctx, q)
	}
	doc, err := c.Docs(ctx, q.Command, q.Strict)
	c.Close()
	return servedOrHere(ctx, doc, err, a.Here.Docs, q)
}

// Status asks serve when it holds Distro's index (any, when Distro is
// ""); the request's Env goes as it is (a command keeps one serve would
// refuse Local).
func (a *ServeOrHere) Status(ctx context.Context, q answer.StatusRequest) (answer.IndexStatus, error) {
	c, ok := a.client(ctx)
	if !ok {
		return a.Here.Status(ctx, q)
	}
	if a.Distro != "" {
		info, err := distro.Parse(a.Distro)
		h, herr := c.Health(ctx)
		if err != nil || herr != nil || info.CollectionName() != h.Collection {
			c.Close()
			return a.Here.Status(ctx, q)
		}
	}
	st, err := c.StatusOf(ctx, q)
	c.Close()
	if err != nil {
		return st, ServeError(err)
	}
	return st, nil
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
