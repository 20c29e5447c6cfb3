package modelcmd

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"

	"github.com/urfave/cli/v2"

	"github.com/cmdai/cmdai/cmd/cmdai/internal/cmdutil"
	"github.com/cmdai/cmdai/internal/clix"
	"github.com/cmdai/cmdai/packaging"
	"github.com/cmdai/cmdai/ship"
)

// ExportOptions are the inputs of `cmdai model export`.
type ExportOptions struct {
	*cmdutil.Factory
	Output   string
	ModelDir string
}

func newExportCommand(f *cmdutil.Factory, runF func(*ExportOptions) error) *cli.Command {
	opts := &ExportOptions{Factory: f}
	return &cli.Command{
		Name:      "export",
		Usage:     "write the installed model to a tarball, with a checksums file, for `model import` elsewhere",
		UsageText: "cmdai model export <output.tar.gz | directory>",
		Description: `Verifies the installed model, then writes all-MiniLM-L6-v2.tar.gz (every file
of its manifest under all-MiniLM-L6-v2/) and OUTPUT.sha256. With an index
tarball, it is all an air-gapped machine needs.

EXAMPLES:
   $ cmdai model export /media/usb/
   $ cmdai model import /media/usb/all-MiniLM-L6-v2.tar.gz      # on the other machine`,
		Flags:        []cli.Flag{cmdutil.ModelDirFlag(&opts.ModelDir)},
		OnUsageError: clix.OnUsageError,
		Action: func(c *cli.Context) error {
			var err error
			if opts.Output, err = clix.OneArg(c, "say where to write the model tarball, e.g. `cmdai model export /media/usb/`"); err != nil {
				return err
			}
			if err := clix.OutputPath(opts.Output); err != nil {
				return err
			}
			if runF != nil {
				return runF(opts)
			}
			return runExport(c.Context, opts)
		},
	}
}

func runExport(ctx context.Context, opts *ExportOptions) error {
	dir, err := opts.ResolveModelDir(opts.ModelDir)
	if err != nil {
		return err
	}
	ex, err := ship.ExportModel(ctx, dir, opts.Output)
	if errors.Is(err, ship.ErrVerification) {
		return cmdutil.WithCode(cmdutil.ExitVerification, err)
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(opts.IO.Out, "exported %s (%d files) to %s\n  sha256 %s in %s\nnext, on the other machine: cmdai model import %s\n",
		ex.Name, ex.Files, ex.Path, ex.SHA256, ex.Path+packaging.ChecksumSuffix, filepath.Base(ex.Path))
	return nil
}
