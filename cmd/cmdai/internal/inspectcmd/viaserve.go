package inspectcmd

import (
	"context"

	"github.com/cmdai/cmdai/cmd/cmdai/internal/cmdutil"
	"github.com/cmdai/cmdai/distro"
)

// statusThroughServe asks a running serve for the status, unless
// --no-serve, another Chroma (--chroma-url, --chroma-data) or another
// distribution than serve's is asked for, or no serve runs: ok false,
// the caller works it out itself. Staleness is then judged by serve
// against the commands its environment ($PATH, $MANPATH) finds.
func statusThroughServe(ctx context.Context, opts *StatusOptions) (IndexStatus, bool, error) {
	if opts.NoServe || opts.Chroma.URL != "" || opts.Chroma.DataDir != "" || opts.PathDirs != nil || opts.ManPath != nil {
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
	st, err := c.Status(ctx, opts.Detailed)
	if err != nil {
		return st, true, cmdutil.ServeError(err)
	}
	return st, true, nil
}
