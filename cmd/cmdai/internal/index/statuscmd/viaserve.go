package statuscmd

import (
	"github.com/cmdai/cmdai/answer"
	"github.com/cmdai/cmdai/cmd/cmdai/internal/cmdutil"
	"github.com/cmdai/cmdai/serve"
)

// answerer is who tells the status: a running serve, unless --no-serve,
// another Chroma (--chroma-url, --chroma-data), the scan seams, an
// environment serve would refuse (envOK false), --verify (the whole
// check, here) or another distribution than serve's is asked for, else
// this process. The request carries this
// process's $PATH and $MANPATH, so that serve judges staleness against
// the commands installed for the caller, as this process does.
func (opts *StatusOptions) answerer(envOK bool) *cmdutil.ServeOrHere {
	here := opts.OneShot(opts.Chroma, opts.Distro, cmdutil.ModelOptions{})
	here.PathDirs, here.ManPath = opts.PathDirs, opts.ManPath
	a := opts.ServeOrHere(here.Degraded(), cmdutil.ServeRuledOut(opts.NoServe, opts.Chroma, cmdutil.ModelOptions{}) || opts.PathDirs != nil || opts.ManPath != nil || !envOK || opts.Verify, opts.AutoServe.For(opts.Distro))
	return a
}

// scanEnv is the caller's $PATH and $MANPATH for serve. ok is false when
// serve would refuse them: a value over serve.MaxEnvBytes, or a relative
// $MANPATH entry, which names a directory of this working directory and
// which staleness fingerprints as written (made absolute it would count
// every page under it as changed). The caller then works alone.
func scanEnv(getenv func(string) string) (answer.ScanEnv, bool) {
	env := answer.ScanEnv{Path: getenv("PATH"), ManPath: getenv("MANPATH")}
	return env, serve.CheckScanEnv(env) == nil
}
