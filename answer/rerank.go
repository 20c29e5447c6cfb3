package answer

import (
	"context"

	"github.com/cmdai/cmdai/embed"
)

// RerankerSource opens the reranker learned mode's answers use: nil, with
// no error, when none is wanted or none is installed (learned mode then
// ranks alone, as before the reranker). A nil RerankerSource is the same
// as one that returns nil. The CLI's (cmdutil.Factory.Reranker) warns
// about a reranker that is installed but does not verify and answers
// without it; one asked for by name that does not verify is an error
// (exit 5).
type RerankerSource func(ctx context.Context) (embed.Embedder, func(), error)

// openReranker runs src (nil: none) and always returns a closer.
func openReranker(ctx context.Context, src RerankerSource) (embed.Embedder, func(), error) {
	if src == nil {
		return nil, func() {}, nil
	}
	r, closeR, err := src(ctx)
	if err != nil {
		return nil, nil, err
	}
	if closeR == nil {
		closeR = func() {}
	}
	return r, closeR, nil
}
