package querycmd

import (
	"context"
	"errors"

	"github.com/cmdai/cmdai/cmd/cmdai/internal/cmdutil"
	"github.com/cmdai/cmdai/serve"
)

// queryThroughServe asks a running serve, unless --no-serve, another
// Chroma (--chroma-url, --chroma-data) or another model variant or
// backend is asked for, k or a request beyond serve's limits (which
// the one-shot path takes), or no serve runs: ok false, the caller answers
// itself. A distribution serve does not hold is answered here too.
// serve answers with the model it loaded (its --model-dir).
func queryThroughServe(ctx context.Context, opts *QueryOptions) (QueryResult, bool, error) {
	if opts.NoServe || opts.Chroma.URL != "" || opts.Chroma.DataDir != "" || opts.Model.Variant != "" || opts.Model.Backend != "" ||
		opts.K > serve.MaxK || len(opts.Request) > serve.MaxRequestBytes {
		return QueryResult{}, false, nil
	}
	c, ok := opts.ServeClient(ctx)
	if !ok {
		return QueryResult{}, false, nil
	}
	defer c.Close()
	res, err := c.Query(ctx, opts.request())
	if errors.Is(err, serve.ErrNotHeld) {
		return res, false, nil
	}
	if err != nil {
		return res, true, cmdutil.ServeError(err)
	}
	return res, true, nil
}
