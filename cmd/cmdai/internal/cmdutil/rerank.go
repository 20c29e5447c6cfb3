package cmdutil

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"

	"github.com/urfave/cli/v2"

	"github.com/cmdai/cmdai/answer"
	"github.com/cmdai/cmdai/config"
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

// ModelsID names the models a process answers with when started now with
// the model flags mo: the manifests (each file's sha256) of the embedding
// model's directory and of the reranker's, or that there is none. A serve
// says the one it started with (serve.Health.Models); a door compares it
// with its own (serve.Finder.Models), so that a model or reranker
// imported since serve started gets serve replaced, not used.
func (f *Factory) ModelsID(mo ModelOptions) string {
	h := sha256.New()
	if f.Getenv != nil {
		// what the flags' variables give a command run without the flags
		if mo.Dir == "" {
			mo.Dir = f.Getenv("CMDAI_MODEL_DIR")
		}
		if mo.Rerank.Dir == "" {
			mo.Rerank.Dir = f.Getenv("CMDAI_RERANKER_DIR")
		}
		mo.Rerank.Off = mo.Rerank.Off || f.Getenv("CMDAI_NO_RERANK") == "true" || f.Getenv("CMDAI_NO_RERANK") == "1"
	}
	embedDir, err := f.ResolveModelDir(mo.Dir)
	if err != nil {
		embedDir = ""
	}
	rerankDir := mo.Rerank.Dir
	switch {
	case mo.Rerank.Off:
		rerankDir = ""
	case rerankDir == "" && f.Getenv != nil:
		if installed, err := config.ModelDir(f.Getenv, embed.RerankerName); err == nil {
			rerankDir = embed.PickModelDir(installed, config.ThisInstall().ModelDir(embed.RerankerName))
		}
	}
	for _, dir := range []string{embedDir, rerankDir} {
		var manifest []byte
		if dir != "" {
			manifest, _ = os.ReadFile(filepath.Join(dir, embed.ManifestFile)) // none: "none" is the answer
		}
		// the content, not the path: a serve given --model-dir of the same
		// files answers as the door would
		fmt.Fprintf(h, "%d\x00", len(manifest))
		h.Write(manifest)
	}
	return hex.EncodeToString(h.Sum(nil)[:12])
}
