package answer

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/cmdai/cmdai/config"
	"github.com/cmdai/cmdai/embed"
	"github.com/cmdai/cmdai/internal/exitcode"
	"github.com/cmdai/cmdai/search/adapter"
)

// RerankerSource opens the reranker learned mode's answers use: nil, with
// no error, when none is wanted or none is installed (learned mode then
// ranks alone, as before the reranker). A nil RerankerSource is the same
// as one that returns nil. RerankerChoice.Source is every door's.
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

// RerankerChoice is the reranker a door asks for (the CLI's --reranker-dir
// and --no-rerank, on its embedding backend).
type RerankerChoice struct {
	// Dir asks for the reranker in Dir: one that is missing or does not
	// verify is an error (exit 5). "": the installed one, if any.
	Dir string
	// Off answers without a reranker.
	Off bool
	// Backend is the embedder's (embed.BackendGo cannot run the int8
	// reranker); Threads its pool.
	Backend string
	Threads int
	// Getenv finds the installed reranker; Warn gets the warning about
	// one installed that does not verify or load.
	Getenv func(string) string
	Warn   io.Writer
}

// Source is the one policy of choosing a reranker, warning and
// degrading: without Dir it looks where one is installed: none there is
// no reranker, quietly (learned mode answers as before it); one there
// that does not verify or load gets a warning on Warn and no reranker,
// so a damaged file costs ranking quality, never a wrong answer or a
// failure. The query adapter shipped beside it is attached.
func (c RerankerChoice) Source() RerankerSource {
	return func(ctx context.Context) (embed.Embedder, func(), error) {
		dir, asked := c.Dir, c.Dir != ""
		if c.Off || (!asked && (!embed.ORTAvailable() || c.Backend == embed.BackendGo)) {
			// Off, or the pure-Go backend, which cannot run the int8
			// reranker: learned mode as before it, nothing to fix.
			return nil, nil, nil
		}
		if !asked {
			installed, err := config.ModelDir(orOS(c.Getenv), embed.RerankerName)
			if err != nil {
				return nil, nil, err
			}
			dir = embed.PickModelDir(installed, config.ThisInstall().ModelDir(embed.RerankerName))
		}
		// The embedder's backend; the variant is the backend's default
		// (int8 with ONNX Runtime): the reranker embeds only the request
		// and the descriptions, so it need not match the index's.
		e, err := embed.OpenReranker(ctx, embed.Options{Dir: dir, Backend: c.Backend, Threads: c.Threads})
		if err == nil {
			// The query adapter ships beside the reranker (its manifest
			// lists it; a reranker built before it has none).
			var a *adapter.Adapter
			if a, err = adapter.FromDir(dir, e.Info().Dims); err == nil {
				return adapter.Attach(e, a), func() { e.Close() }, nil
			}
			e.Close()
		}
		switch {
		case asked:
			return nil, nil, exitcode.With(exitcode.Verification, fmt.Errorf("--reranker-dir: %w", err))
		case errors.Is(err, embed.ErrNoReranker):
			// Not installed: learned mode as before the reranker.
			return nil, nil, nil
		}
		if c.Warn != nil {
			fmt.Fprintf(c.Warn, "warning: %v; answering without the reranker (learned mode alone)\n", err)
		}
		return nil, nil, nil
	}
}
