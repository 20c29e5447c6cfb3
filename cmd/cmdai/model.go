package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/cmdai/cmdai/config"
	"github.com/cmdai/cmdai/embed"
)

// modelDirFlag and friends are shared by every command that embeds.
func modelFlags(dir, variant, backend *string) []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "model-dir", Usage: "installed model `DIR` (default: ~/.cache/cmdai/embeddings/all-MiniLM-L6-v2)", EnvVars: []string{"CMDAI_MODEL_DIR"}, Destination: dir},
		&cli.StringFlag{Name: "model-variant", Usage: "model weights: int8 or fp32 (default: int8 with ONNX Runtime; the pure-Go backend runs fp32 only)", EnvVars: []string{"CMDAI_MODEL_VARIANT"}, Destination: variant},
		&cli.StringFlag{Name: "embed-backend", Usage: "ort (ONNX Runtime) or go (pure Go, slow); default: ort when available", EnvVars: []string{"CMDAI_EMBED_BACKEND"}, Destination: backend},
	}
}

// resolveModelDir applies --model-dir or the XDG default.
func resolveModelDir(getenv func(string) string, dir string) (string, error) {
	if dir != "" {
		return dir, nil
	}
	return config.ModelDir(getenv, embed.ModelName)
}

func newModelCommand(f *Factory) *cli.Command {
	return &cli.Command{
		Name:  "model",
		Usage: "install and inspect the embedding model (all-MiniLM-L6-v2)",
		Description: `cmdai embeds with all-MiniLM-L6-v2 on this machine's CPU. The model lives in
~/.cache/cmdai/embeddings/all-MiniLM-L6-v2/ (XDG_CACHE_HOME and CMDAI_HOME
move it) with a manifest of sha256s that is checked every time it loads.

EXAMPLES:
   $ cmdai model status
   $ cmdai model export /media/usb/                # carry it across an air gap
   $ cmdai model import ./all-MiniLM-L6-v2.tar.gz   # air-gapped machines
   $ cmdai model pull                              # online machines`,
		Subcommands: []*cli.Command{
			newModelStatusCommand(f, nil),
			newModelImportCommand(f, nil),
			newModelPullCommand(f, nil),
			newModelExportCommand(f),
		},
		OnUsageError: onUsageError,
		Action:       groupAction,
	}
}

// ModelStatusOptions are the inputs of `cmdai model status`.
type ModelStatusOptions struct {
	IO       *IOStreams
	Getenv   func(string) string
	JSON     bool
	ModelDir string
	Variant  string
	Backend  string
}

// ModelStatus is what `model status --json` prints.
type ModelStatus struct {
	Dir          string            `json:"dir"`
	Installed    bool              `json:"installed"`
	Verified     bool              `json:"verified"`
	Error        string            `json:"error,omitempty"`
	Source       string            `json:"source,omitempty"`
	Variants     []string          `json:"variants,omitempty"`
	SHA256       map[string]string `json:"sha256,omitempty"`
	ORTBuiltIn   bool              `json:"ort_built_in"`
	ORTLibDir    string            `json:"ort_lib_dir,omitempty"`
	Backend      string            `json:"backend"`
	VerifyMillis int64             `json:"verify_ms"`
}

func newModelStatusCommand(f *Factory, runF func(context.Context, *ModelStatusOptions) error) *cli.Command {
	opts := &ModelStatusOptions{IO: f.IO, Getenv: f.Getenv}
	return &cli.Command{
		Name:      "status",
		Usage:     "show the installed model, whether its files verify, and the backend in use",
		UsageText: "cmdai model status [--json]",
		Description: `Checks every file of the installed model against its manifest's sha256.
Exits 5 when a file does not verify, 3 when no model is installed.

EXAMPLES:
   $ cmdai model status
   $ cmdai model status --json | jq .verified`,
		Flags: append([]cli.Flag{
			&cli.BoolFlag{Name: "json", Usage: "print a JSON object", EnvVars: []string{"CMDAI_JSON"}, Destination: &opts.JSON},
		}, modelFlags(&opts.ModelDir, &opts.Variant, &opts.Backend)...),
		OnUsageError: onUsageError,
		Action: func(c *cli.Context) error {
			if err := firstErr(noArgs(c, ""), checkModelFlags(ModelOptions{Variant: opts.Variant, Backend: opts.Backend})); err != nil {
				return err
			}
			if runF != nil {
				return runF(c.Context, opts)
			}
			return runModelStatus(c.Context, opts)
		},
	}
}

func runModelStatus(_ context.Context, opts *ModelStatusOptions) error {
	dir, err := resolveModelDir(opts.Getenv, opts.ModelDir)
	if err != nil {
		return err
	}
	st := ModelStatus{Dir: dir, ORTBuiltIn: embed.ORTAvailable(), ORTLibDir: embed.FindORTLibDir(opts.Getenv)}
	st.Backend = embed.BackendGo
	if opts.Backend != "" {
		st.Backend = opts.Backend
	} else if st.ORTBuiltIn && st.ORTLibDir != "" {
		st.Backend = embed.BackendORT
	}
	start := time.Now()
	m, verr := embed.Verify(dir, "")
	st.VerifyMillis = time.Since(start).Milliseconds()
	st.Installed = !errors.Is(verr, embed.ErrNoModel)
	st.Verified = verr == nil
	if verr != nil {
		st.Error = verr.Error()
	}
	if st.Installed {
		st.Source = m.Source
		st.SHA256 = m.Files
		for _, v := range []string{embed.VariantFP32, embed.VariantInt8} {
			if m.HasVariant(v) {
				st.Variants = append(st.Variants, v)
			}
		}
	}
	if opts.JSON {
		enc := json.NewEncoder(opts.IO.Out)
		enc.SetIndent("", "  ")
		if err := enc.Encode(st); err != nil {
			return err
		}
	} else {
		w := opts.IO.Out
		fmt.Fprintf(w, "model:     %s (%d dims)\n", embed.ModelName, embed.Dims)
		fmt.Fprintf(w, "directory: %s\n", st.Dir)
		switch {
		case !st.Installed:
			fmt.Fprintf(w, "installed: no\n")
		case st.Verified:
			fmt.Fprintf(w, "installed: yes, every file matches its sha256 (%d ms)\n", st.VerifyMillis)
			fmt.Fprintf(w, "variants:  %v\n", st.Variants)
			fmt.Fprintf(w, "source:    %s\n", st.Source)
			for _, v := range st.Variants {
				fmt.Fprintf(w, "sha256:    %s %s\n", v, m.ModelSHA256(v))
			}
		default:
			fmt.Fprintf(w, "installed: yes, but it does NOT verify\n")
		}
		ort := "not built in (build with `make tools build`)"
		if st.ORTBuiltIn {
			ort = "built in, library not found (run `make tools` or set CMDAI_ORT_LIB_DIR)"
			if st.ORTLibDir != "" {
				ort = "built in, library in " + st.ORTLibDir
			}
		}
		fmt.Fprintf(w, "onnx runtime: %s\n", ort)
		fmt.Fprintf(w, "backend:   %s\n", st.Backend)
	}
	switch {
	case !st.Installed:
		return withCode(ExitNoIndex, verr)
	case !st.Verified:
		return withCode(ExitVerification, verr)
	}
	return nil
}

// ModelImportOptions are the inputs of `cmdai model import`.
type ModelImportOptions struct {
	IO       *IOStreams
	Getenv   func(string) string
	Source   string
	ModelDir string
}

func newModelImportCommand(f *Factory, runF func(context.Context, *ModelImportOptions) error) *cli.Command {
	opts := &ModelImportOptions{IO: f.IO, Getenv: f.Getenv}
	var variant, backend string
	return &cli.Command{
		Name:      "import",
		Usage:     "install the model from a directory or tarball (no network needed)",
		UsageText: "cmdai model import DIR|TAR",
		Description: `Verifies every file against the source's manifest.json, copies it beside the
installed model, verifies the copy, then swaps it in: a failed import leaves
the installed model as it was.

EXAMPLES:
   $ cmdai model import .tools/model/all-MiniLM-L6-v2
   $ cmdai model import /media/usb/all-MiniLM-L6-v2.tar.gz`,
		Flags:        modelFlags(&opts.ModelDir, &variant, &backend)[:1],
		OnUsageError: onUsageError,
		Action: func(c *cli.Context) error {
			var err error
			if opts.Source, err = oneArg(c, "model import takes one DIR or TAR: cmdai model import ./all-MiniLM-L6-v2.tar.gz"); err != nil {
				return err
			}
			if runF != nil {
				return runF(c.Context, opts)
			}
			return runModelImport(c.Context, opts)
		},
	}
}

func runModelImport(ctx context.Context, opts *ModelImportOptions) error {
	dst, err := resolveModelDir(opts.Getenv, opts.ModelDir)
	if err != nil {
		return err
	}
	m, err := embed.Import(ctx, opts.Source, dst)
	if err != nil {
		if errors.Is(err, embed.ErrCorruptModel) || errors.Is(err, embed.ErrNoModel) {
			return withCode(ExitVerification, err)
		}
		return err
	}
	fmt.Fprintf(opts.IO.Out, "installed %s (%d files verified) in %s\n", m.Name, len(m.Files), dst)
	return nil
}

// ModelPullOptions are the inputs of `cmdai model pull`.
type ModelPullOptions struct {
	IO       *IOStreams
	Getenv   func(string) string
	URL      string
	ModelDir string
	Client   *http.Client
	// IdleTimeout ends a file's transfer that receives nothing for this long.
	IdleTimeout time.Duration
}

func newModelPullCommand(f *Factory, runF func(context.Context, *ModelPullOptions) error) *cli.Command {
	opts := &ModelPullOptions{IO: f.IO, Getenv: f.Getenv}
	var variant, backend string
	return &cli.Command{
		Name:      "pull",
		Usage:     "download the model from the Hugging Face hub (online machines only)",
		UsageText: "cmdai model pull [--url URL]",
		Description: `Downloads the ONNX export, tokenizer and configs, writes their manifest and
installs them as "model import" does. Machines without a network use
"cmdai model import" instead.

EXAMPLES:
   $ cmdai model pull`,
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "url", Usage: "download from `URL` (a mirror of the hub repository)", Value: embed.HubURL, EnvVars: []string{"CMDAI_MODEL_URL"}, Destination: &opts.URL},
			idleTimeoutFlag(&opts.IdleTimeout),
		}, modelFlags(&opts.ModelDir, &variant, &backend)[:1]...),
		OnUsageError: onUsageError,
		Action: func(c *cli.Context) error {
			if err := noArgs(c, "--url URL names a mirror"); err != nil {
				return err
			}
			if opts.IdleTimeout <= 0 {
				return usageError("--idle-timeout must be more than 0, e.g. 30s or 2m")
			}
			if runF != nil {
				return runF(c.Context, opts)
			}
			return runModelPull(c.Context, opts)
		},
	}
}

func runModelPull(ctx context.Context, opts *ModelPullOptions) error {
	dst, err := resolveModelDir(opts.Getenv, opts.ModelDir)
	if err != nil {
		return err
	}
	m, err := embed.Pull(ctx, opts.Client, opts.URL, dst, opts.IdleTimeout)
	if err != nil {
		return networkCode(err)
	}
	fmt.Fprintf(opts.IO.Out, "installed %s from %s in %s\n", m.Name, opts.URL, dst)
	return nil
}
