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

// prefetch starts src at once, in the background, so that loading the
// reranker overlaps with starting or reaching Chroma (a one-shot query
// waits for both). The returned source hands over what src opened; the
// returned cleanup closes it if no one took it.
func prefetch(ctx context.Context, src RerankerSource) (RerankerSource, func()) {
	if src == nil {
		return nil, func() {}
	}
	type opened struct {
		e     embed.Embedder
		close func()
		err   error
	}
	ch := make(chan opened, 1)
	go func() {
		e, closeE, err := src(ctx)
		ch <- opened{e, closeE, err}
	}()
	taken := false // OpenSearcher asks for it once, if it gets that far
	handOver := func(context.Context) (embed.Embedder, func(), error) {
		taken = true
		o := <-ch
		return o.e, o.close, o.err
	}
	cleanup := func() {
		if taken {
			return
		}
		// Not used (a degraded answer from disk): close it once it has
		// loaded, without holding that answer back.
		go func() {
			if o := <-ch; o.close != nil {
				o.close()
			}
		}()
	}
	return handOver, cleanup
}
