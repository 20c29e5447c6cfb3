package cmdutil

import (
	"context"
	"errors"
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/cmdai/cmdai/answer"
	"github.com/cmdai/cmdai/config"
	"github.com/cmdai/cmdai/embed"
	"github.com/cmdai/cmdai/internal/clix"
	"github.com/cmdai/cmdai/search/adapter"
)

// RerankOptions choose learned mode's reranker.
type RerankOptions struct {
	// Dir asks for the reranker in DIR: one that is missing or does not
	// verify is an error (exit 5). "": the installed one, if any.
	Dir string
	// Off answers without a reranker.
	Off bool
}

// RerankFlags are --reranker-dir and --no-rerank, for the commands that
// answer requests in learned mode.
func RerankFlags(o *RerankOptions) []cli.Flag {
	return clix.WithCategory(ModelCategory,
		RerankerDirFlag(&o.Dir),
		&cli.BoolFlag{Name: "no-rerank", Usage: "rank by learned mode's features alone, without the reranker", EnvVars: []string{"CMDAI_NO_RERANK"}, Destination: &o.Off},
	)
}

// RerankerDirFlag is --reranker-dir alone (doctor checks that reranker).
func RerankerDirFlag(dir *string) cli.Flag {
	return &cli.StringFlag{Name: "reranker-dir", Usage: "use the reranker in `DIR`; fail (exit 5) if it is missing or does not verify (default: ~/.local/share/cmdai/embeddings/" + embed.RerankerName + ", else the one installed with cmdai, when there)", EnvVars: []string{"CMDAI_RERANKER_DIR"}, Destination: dir}
}

// Reranker opens the reranker mo.Rerank asks for (answer.RerankerSource),
// on mo.Backend. Without
// --reranker-dir it looks where one is installed: none there is no
// reranker, quietly (learned mode answers as before it); one there that
// does not verify or load gets a warning on stderr and no reranker, so a
// damaged file costs ranking quality, never a wrong answer or a failure.
func (f *Factory) Reranker(mo ModelOptions) answer.RerankerSource {
	o := mo.Rerank
	return func(ctx context.Context) (embed.Embedder, func(), error) {
		dir, asked := o.Dir, o.Dir != ""
		if o.Off || (!asked && (!embed.ORTAvailable() || mo.Backend == embed.BackendGo)) {
			// Off, or the pure-Go backend, which cannot run the int8
			// reranker: learned mode as before it, nothing to fix.
			return nil, nil, nil
		}
		if !asked {
			installed, err := config.ModelDir(f.Getenv, embed.RerankerName)
			if err != nil {
				return nil, nil, err
			}
			dir = embed.PickModelDir(installed, config.ThisInstall().ModelDir(embed.RerankerName))
		}
		// The embedder's backend; the variant is the backend's default
		// (int8 with ONNX Runtime): the reranker embeds only the request
		// and the descriptions, so it need not match the index's.
		e, err := embed.OpenReranker(ctx, embed.Options{Dir: dir, Backend: mo.Backend, Threads: answerThreads})
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
			return nil, nil, WithCode(ExitVerification, fmt.Errorf("--reranker-dir: %w", err))
		case errors.Is(err, embed.ErrNoReranker):
			// Not installed: learned mode as before the reranker.
			return nil, nil, nil
		}
		fmt.Fprintf(f.IO.ErrOut, "warning: %v; answering without the reranker (learned mode alone)\n", err)
		return nil, nil, nil
	}
}
