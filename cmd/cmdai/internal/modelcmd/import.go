package modelcmd

import (
	"context"
	"errors"
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/cmdai/cmdai/cmd/cmdai/internal/cmdutil"
	"github.com/cmdai/cmdai/config"
	"github.com/cmdai/cmdai/embed"
	"github.com/cmdai/cmdai/internal/clix"
)

// ImportOptions are the inputs of `cmdai model import`.
type ImportOptions struct {
	*cmdutil.Factory
	Source   string
	ModelDir string
}

func newImportCommand(f *cmdutil.Factory, runF func(*ImportOptions) error) *cli.Command {
	opts := &ImportOptions{Factory: f}
	return &cli.Command{
		Name:      "import",
		Usage:     "install the model from a directory or tarball (no network needed)",
		UsageText: "cmdai model import DIR|TAR",
		Description: `Verifies every file against the source's manifest.json, copies it beside the
installed model, verifies the copy, then swaps it in: a failed import leaves
the installed model as it was. A directory or tarball of learned mode's
reranker (its manifest names cmdai-reranker) is installed beside the model,
where queries find it.

EXAMPLES:
   $ cmdai model import .tools/model/all-MiniLM-L6-v2
   $ cmdai model import .tools/model/cmdai-reranker
   $ cmdai model import /media/usb/all-MiniLM-L6-v2.tar.gz`,
		Flags:        []cli.Flag{cmdutil.ModelDirFlag(&opts.ModelDir)},
		OnUsageError: clix.OnUsageError,
		Action: func(c *cli.Context) error {
			var err error
			if opts.Source, err = clix.OneArg(c, "model import takes one DIR or TAR: cmdai model import ./all-MiniLM-L6-v2.tar.gz"); err != nil {
				return err
			}
			if runF != nil {
				return runF(opts)
			}
			return runImport(c.Context, opts)
		},
	}
}

func runImport(ctx context.Context, opts *ImportOptions) error {
	var dst string
	m, err := embed.ImportEither(ctx, opts.Source, func(name string) (string, error) {
		var err error
		if name == embed.RerankerName {
			// learned mode's reranker: beside the model, found there by name
			dst, err = config.ModelDir(opts.Getenv, name)
		} else {
			dst, err = opts.ModelInstallDir(opts.ModelDir)
		}
		return dst, err
	})
	if err != nil {
		if errors.Is(err, embed.ErrCorruptModel) || errors.Is(err, embed.ErrNoModel) || errors.Is(err, embed.ErrCorruptReranker) {
			return cmdutil.WithCode(cmdutil.ExitVerification, err)
		}
		return err
	}
	fmt.Fprintf(opts.IO.Out, "installed %s (%d files verified) in %s\n", m.Name, len(m.Files), dst)
	return nil
}
