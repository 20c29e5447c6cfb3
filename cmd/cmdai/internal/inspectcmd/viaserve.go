package inspectcmd

import (
	"context"

	"github.com/cmdai/cmdai/cmd/cmdai/internal/cmdutil"
	"github.com/cmdai/cmdai/distro"
	"github.com/cmdai/cmdai/serve"
)

// statusThroughServe asks a running serve for the status, unless
// --no-serve, another Chroma (--chroma-url, --chroma-data) or another
// distribution than serve's is asked for, or no serve runs: ok false,
// the caller works it out itself. The request carries this process's
// $PATH and $MANPATH, so that serve judges staleness against the
// commands installed for the caller, as the one-shot path does.
func statusThroughServe(ctx context.Context, opts *StatusOptions) (IndexStatus, bool, error) {
	if opts.NoServe || opts.Chroma.URL != "" || opts.Chroma.DataDir != "" || opts.PathDirs != nil || opts.ManPath != nil {
		return IndexStatus{}, false, nil
	}
	env, ok := scanEnv(opts.getenv())
	if !ok {
		return IndexStatus{}, false, nil
	}
	c, ok := opts.ServeClient(ctx)
	if !ok {
		return IndexStatus{}, false, nil
	}
	defer c.Close()
	if opts.Distro != "" {
		info, err := distro.Parse(opts.Distro)
		h, herr := c.Health(ctx)
		if err != nil || herr != nil || info.CollectionName() != h.Collection {
			return IndexStatus{}, false, nil
		}
	}
	st, err := c.StatusOf(ctx, serve.StatusRequest{Detailed: opts.Detailed, Env: &env})
	if err != nil {
		return st, true, cmdutil.ServeError(err)
	}
	return st, true, nil
}

// scanEnv is the caller's $PATH and $MANPATH for serve. ok is false when
// serve would refuse them: a value over serve.MaxEnvBytes, or a relative
// $MANPATH entry, which names a directory of this working directory and
// which staleness fingerprints as written (made absolute it would count
// every page under it as changed). The caller then works alone.
func scanEnv(getenv func(string) string) (serve.ScanEnv, bool) {
	env := serve.ScanEnv{Path: getenv("PATH"), ManPath: getenv("MANPATH")}
	return env, serve.CheckScanEnv(env) == nil
}
