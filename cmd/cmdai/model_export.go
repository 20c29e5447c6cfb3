package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/cmdai/cmdai/embed"
	"github.com/cmdai/cmdai/packaging"
)

// ModelExportOptions are the inputs of `cmdai model export`.
type ModelExportOptions struct {
	IO       *IOStreams
	Getenv   func(string) string
	Output   string
	ModelDir string
}

// modelEpoch stamps model tarball entries: a model has no build time of
// its own, and a fixed one keeps exports byte-identical.
var modelEpoch = time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)

func newModelExportCommand(f *Factory) *cli.Command {
	opts := &ModelExportOptions{IO: f.IO, Getenv: f.Getenv}
	var variant, backend string
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
		Flags:        modelFlags(&opts.ModelDir, &variant, &backend)[:1],
		OnUsageError: onUsageError,
		Action: func(c *cli.Context) error {
			var err error
			if opts.Output, err = oneArg(c, "say where to write the model tarball, e.g. `cmdai model export /media/usb/`"); err != nil {
				return err
			}
			if err := outputPath(opts.Output); err != nil {
				return err
			}
			return runModelExport(c.Context, opts)
		},
	}
}

func runModelExport(ctx context.Context, opts *ModelExportOptions) error {
	dir, err := resolveModelDir(opts.Getenv, opts.ModelDir)
	if err != nil {
		return err
	}
	m, err := embed.Verify(dir, "")
	if err != nil {
		return withCode(ExitVerification, err)
	}
	out := opts.Output
	if st, err := os.Stat(out); err == nil && st.IsDir() {
		out = filepath.Join(out, m.Name+".tar.gz")
	}
	names := []string{embed.ManifestFile}
	for n := range m.Files {
		names = append(names, n)
	}
	sort.Strings(names)
	var entries []packaging.Entry
	for _, n := range names {
		p := filepath.Join(dir, n)
		st, err := os.Stat(p)
		if err != nil {
			return err
		}
		entries = append(entries, packaging.Entry{Name: m.Name + "/" + n, Size: st.Size(), Open: func() (io.ReadCloser, error) { return os.Open(p) }})
	}
	sum, err := packaging.WriteFile(out, func(w io.Writer) error { return packaging.WriteTarGz(ctx, w, modelEpoch, entries) })
	if err != nil {
		return fmt.Errorf("model export: %w", err)
	}
	fmt.Fprintf(opts.IO.Out, "exported %s (%d files) to %s\n  sha256 %s in %s\nnext, on the other machine: cmdai model import %s\n",
		m.Name, len(names), out, sum, out+packaging.ChecksumSuffix, filepath.Base(out))
	return nil
}
