package cmdutil

import (
	"github.com/urfave/cli/v2"

	"github.com/cmdai/cmdai/embed"
	"github.com/cmdai/cmdai/internal/clix"
)

// ModelOptions choose the embedding model and runtime.
type ModelOptions struct {
	Dir, Variant, Backend string
	// Rerank chooses learned mode's reranker (RerankFlags), for the
	// commands that answer requests.
	Rerank RerankOptions
}

// ModelFlags are --model-dir, --model-variant and --embed-backend, shared
// by every command that embeds.
func ModelFlags(o *ModelOptions) []cli.Flag {
	return clix.WithCategory(ModelCategory,
		ModelDirFlag(&o.Dir),
		&cli.StringFlag{Name: "model-variant", Usage: "model weights `VARIANT`: int8 or fp32 (default: int8 with ONNX Runtime; the pure-Go backend runs fp32 only)", EnvVars: []string{"CMDAI_MODEL_VARIANT"}, Destination: &o.Variant},
		&cli.StringFlag{Name: "embed-backend", Usage: "embedding `BACKEND`: ort (ONNX Runtime) or go (pure Go, slow); default: ort when available", EnvVars: []string{"CMDAI_EMBED_BACKEND"}, Destination: &o.Backend},
	)
}

// ModelDirFlag is --model-dir alone, for the commands that only read or
// write the model's files.
func ModelDirFlag(dir *string) cli.Flag {
	return &cli.StringFlag{Name: "model-dir", Usage: "installed model `DIR` (default: ~/.local/share/cmdai/embeddings/all-MiniLM-L6-v2, else the one installed with cmdai)", EnvVars: []string{"CMDAI_MODEL_DIR"}, Destination: dir}
}

// CheckModelFlags refuses a model variant or backend that does not exist,
// before a model is looked for.
func CheckModelFlags(o ModelOptions) error {
	switch o.Variant {
	case "", embed.VariantFP32, embed.VariantInt8:
	default:
		return UsageError("--model-variant %q: use %s or %s", o.Variant, embed.VariantInt8, embed.VariantFP32)
	}
	switch o.Backend {
	case "", embed.BackendORT, embed.BackendGo:
	default:
		return UsageError("--embed-backend %q: use %s or %s", o.Backend, embed.BackendORT, embed.BackendGo)
	}
	return nil
}
