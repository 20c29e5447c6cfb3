package cmdutil

import (
	"context"
	"path/filepath"
	"strings"
	"time"

	"github.com/cmdai/cmdai/answer"
	"github.com/cmdai/cmdai/chroma/connect"
	"github.com/cmdai/cmdai/distro"
	"github.com/cmdai/cmdai/serve"
)

// OneShot answers a command's request in this process (answer.OneShot):
// on the Chroma the flags o choose, for the distribution distroID ("":
// this machine's), a query with the model the flags mo choose (their
// Variant "": the index's own).
func (f *Factory) OneShot(o ChromaOptions, distroID string, mo ModelOptions) *answer.OneShot {
	AbsPaths(&o, &mo)
	o.ReadOnly = true // it answers: a running serve's read lease will do
	return &answer.OneShot{
		Connect: func(ctx context.Context) (*connect.Connection, error) {
			return f.Connect(ctx, o)
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

// ServeOrHere is who answers a command's request (answer.ServeFirst,
// the rule every door shares): a running serve that holds the index
// asked for, else this process, which then starts a serve in the
// background when none ran (Started: its pid).
type ServeOrHere struct {
	answer.ServeFirst
	// Distro is the distribution whose index a serve must hold to answer
	// ("": any, serve's own).
	Distro  string
	Started int
}

// LockedWait bounds how long a command that finds the index data held by
// another cmdai waits for it: a one-shot command holds it about a
// second, and a serve that starts beside it answers within a few.
var LockedWait = 30 * time.Second

// ServeLimits are serve's: a request past them is answered here, which
// takes or refuses it with the command's own message.
var ServeLimits = serve.Limits // a variable: tests set their own

// ServeRuledOut is the one rule of which options keep a door's answers
// in its own process whatever serve runs, used by every door that may
// ask serve (the CLI's read commands, MCP): --no-serve; another Chroma
// than serve's (--chroma-url, --chroma-data); or another model variant,
// backend or reranker than the ones serve loaded (--model-variant,
// --embed-backend, --reranker-dir, --no-rerank), since serve answers
// with its own.
func ServeRuledOut(noServe bool, o ChromaOptions, mo ModelOptions) bool {
	return noServe || o.URL != "" || o.DataDir != "" ||
		mo.Variant != "" || mo.Backend != "" || mo.Rerank != RerankOptions{}
}

// ServeOrHere is who answers a command: a running serve holding the
// index of auto.Distro, unless ruledOut (ServeRuledOut, or the command's
// own reasons); else here (the command's OneShot.Degraded). When none runs, the command answers here, then starts one
// in the background (auto, Factory.AutoServeOff) for the calls after it,
// unless it asked for what serve would not give it.
func (f *Factory) ServeOrHere(here answer.Answerer, ruledOut bool, auto AutoServeOptions) *ServeOrHere {
	a := &ServeOrHere{ServeFirst: answer.ServeFirst{Local: here, Limits: ServeLimits, LockedWait: LockedWait}, Distro: auto.Distro}
	if ruledOut {
		return a
	}
	// the doors that use serve answer with the installed models (a flag
	// that names others rules serve out: ServeRuledOut)
	models := func() string { return f.ModelsID(ModelOptions{}) }
	finder := &serve.Finder{Distro: auto.Distro, Once: true, OtherBuild: f.OtherBuild, Held: f.serveHeld, Models: models, Dial: func(ctx context.Context) (serve.Conn, bool) {
		c, ok := f.ServeClient(ctx)
		if !ok {
			return nil, false
		}
		return c, true
	}}
	a.Serve = finder.Answerer
	a.StillHeld = func() bool { return f.serveHeld() || f.dataHeldBriefly() }
	if start := f.AutoStart(auto); start != nil {
		a.AnsweredHere = func(holdable bool) {
			if holdable {
				a.Started = start()
			}
		}
	}
	return a
}

// AbsPaths makes the paths a command was given (--chroma-data,
// --chroma-bin, --model-dir, --reranker-dir) absolute, before any work
// starts in parallel: loading a model with ONNX Runtime (hugot) changes
// the process's working directory into the model's for the while, and a
// relative path resolved meanwhile (the private server started while
// the reranker loads) would name the wrong file. A path that cannot be
// made absolute is left as it was.
func AbsPaths(o *ChromaOptions, mo *ModelOptions) {
	paths := []*string{&o.DataDir, &mo.Dir, &mo.Rerank.Dir}
	if strings.ContainsRune(o.Bin, filepath.Separator) {
		paths = append(paths, &o.Bin) // a bare name is looked up on $PATH
	}
	for _, p := range paths {
		if *p == "" || filepath.IsAbs(*p) {
			continue
		}
		if abs, err := filepath.Abs(*p); err == nil {
			*p = abs
		}
	}
}
