package cmdutil

import (
	"context"

	"github.com/cmdai/cmdai/answer"
	"github.com/cmdai/cmdai/cmd/cmdai/internal/cmdutil/serveorhere"
	"github.com/cmdai/cmdai/distro"
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

// ServeOrHere answers a command's request through a running serve, else
// in this process (package serveorhere).
type ServeOrHere = serveorhere.Answerer

// AnswersHere says a command answers in this process whatever serve
// runs: --no-serve, or another Chroma than serve's (--chroma-url,
// --chroma-data). The command's model options add theirs
// (ModelOptions.RulesOutServe).
func AnswersHere(noServe bool, o ChromaOptions) bool {
	return noServe || o.URL != "" || o.DataDir != ""
}

// ServeOrHere is who answers a command: a running serve unless noServe,
// another Chroma (--chroma-url, --chroma-data) or local (the command's own
// reasons) says otherwise, else here.
// When none runs, the command answers here, then starts one in the
// background (auto, Factory.AutoServeOff) for the calls after it, unless
// it asked for what serve would not give it (local, another Chroma).
func (f *Factory) ServeOrHere(here answer.Answerer, noServe bool, o ChromaOptions, local bool, auto AutoServeOptions) *ServeOrHere {
	a := &ServeOrHere{
		Client: func(ctx context.Context) (*serve.Client, bool) { return f.ServeClient(ctx) },
		Here:   here,
		Local:  local || AnswersHere(noServe, o),
	}
	if !a.Local {
		a.Start = f.autoStart(auto)
	}
	return a
}
