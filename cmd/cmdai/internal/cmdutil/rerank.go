package cmdutil

import (
	"github.com/urfave/cli/v2"

	"github.com/cmdai/cmdai/answer"
	"github.com/cmdai/cmdai/embed"
	"github.com/cmdai/cmdai/internal/clix"
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

// Reranker opens the reranker mo.Rerank asks for, on mo.Backend: the
// answering layer's one policy (answer.RerankerChoice.Source: a damaged
// installed one warns on stderr and ranks without it; one asked for by
// --reranker-dir that does not verify is exit 5).
func (f *Factory) Reranker(mo ModelOptions) answer.RerankerSource {
	c := answer.RerankerChoice{Dir: mo.Rerank.Dir, Off: mo.Rerank.Off, Backend: mo.Backend, Threads: answerThreads, Getenv: f.Getenv}
	if f.IO != nil {
		c.Warn = f.IO.ErrOut
	}
	return c.Source()
}
