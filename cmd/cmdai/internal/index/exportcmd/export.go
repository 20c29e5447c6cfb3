// Package exportcmd is `cmdai index export`: writing a distribution's
// index to a tarball, with a checksums file, to carry to another machine. It parses
// its flags, makes one call into ship, and prints.
package exportcmd

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/cmdai/cmdai/answer"
	"github.com/cmdai/cmdai/chroma/datalock"
	"github.com/cmdai/cmdai/cmd/cmdai/internal/cmdutil"
	"github.com/cmdai/cmdai/internal/clix"
	"github.com/cmdai/cmdai/internal/jsonout"
	"github.com/cmdai/cmdai/packaging"
	"github.com/cmdai/cmdai/ship"
	"github.com/cmdai/cmdai/ship/release"
)

// ExportOptions are the inputs of `cmdai index export`.
type ExportOptions struct {
	*cmdutil.Factory
	Output string
	Distro string
	JSON   bool
	Chroma cmdutil.ChromaOptions
}

// NewCmdExport is `cmdai index export`; runF, when not nil, replaces the
// run function (tests see the parsed options).
func NewCmdExport(f *cmdutil.Factory, runF func(*ExportOptions) error) *cli.Command {
	opts := &ExportOptions{Factory: f}
	flags := []cli.Flag{
		&cli.StringFlag{Name: "distro", Usage: "export the index of distribution `ID` (default: this machine's)", EnvVars: []string{"CMDAI_DISTRO"}, Destination: &opts.Distro},
		&cli.BoolFlag{Name: "json", Usage: "print the result as JSON", EnvVars: []string{"CMDAI_JSON"}, Destination: &opts.JSON},
	}
	flags = append(flags, cmdutil.ChromaFlags(&opts.Chroma)...)
	return &cli.Command{
		Name:      "export",
		Usage:     "write this distribution's index to a tarball, with a checksums file",
		UsageText: "cmdai index export <output.tar.gz | directory>",
		Description: `Writes the index (manifest.json and records.jsonl: ids, documents,
metadata, embeddings) as a gzip tarball that any Chroma server can be
loaded from with ` + "`cmdai index import`" + `, and OUTPUT.sha256 beside it
(check it with sha256sum -c). Given a directory, the file is
chroma-index-<distro>.tar.gz in it. Exporting the same index twice gives
the same bytes.

EXAMPLES:
   $ cmdai index export /media/usb/
   $ cmdai index export chroma-index-debian-12.tar.gz --chroma-url http://chroma.internal:8000`,
		Flags:        flags,
		OnUsageError: clix.OnUsageError,
		Action: func(c *cli.Context) error {
			var err error
			if opts.Output, err = clix.OneArg(c, "say where to write the tarball, e.g. `cmdai index export chroma-index.tar.gz`"); err != nil {
				return err
			}
			if err := clix.FirstErr(clix.OutputPath(opts.Output), cmdutil.CheckDistroFlag(opts.Distro)); err != nil {
				return err
			}
			if runF != nil {
				return runF(opts)
			}
			return runExport(c.Context, opts)
		},
	}
}

// ExportResult is what `index export --json` prints.
type ExportResult struct {
	Path      string  `json:"path"`
	Checksums string  `json:"checksums"`
	SHA256    string  `json:"sha256"`
	Bytes     int64   `json:"bytes"`
	Records   int     `json:"records_count"`
	Commands  int     `json:"commands_count"`
	Distro    string  `json:"distro"`
	Seconds   float64 `json:"seconds"`
}

func runExport(ctx context.Context, opts *ExportOptions) error {
	start := time.Now()
	ro := opts.Chroma
	ro.ReadOnly = true             // export writes nothing: serve's queries go on
	ro.Holder = datalock.KindWrite // but reads the index whole: minutes
	info, conn, err := opts.OpenDistroIndex(ctx, opts.Distro, ro)
	if err != nil {
		return err
	}
	defer conn.Close()
	coll, err := answer.OpenIndex(ctx, conn.Store, info.CollectionName())
	if err != nil {
		return err
	}
	out := opts.Output
	if st, err := os.Stat(out); err == nil && st.IsDir() {
		out = filepath.Join(out, release.TarballName(info.ID))
	}
	var m packaging.Manifest
	sum, err := packaging.WriteFile(out, func(w io.Writer) (err error) {
		m, err = ship.Export(ctx, coll, w, conn.Version)
		return err
	})
	if err != nil {
		return fmt.Errorf("export %s: %w", coll.Name(), err)
	}
	st, err := os.Stat(out)
	if err != nil {
		return err
	}
	res := ExportResult{Path: out, Checksums: out + packaging.ChecksumSuffix, SHA256: sum, Bytes: st.Size(),
		Records: m.Records, Commands: m.Commands, Distro: m.Distro, Seconds: time.Since(start).Seconds()}
	if opts.JSON {
		return jsonout.Encode(opts.IO.Out, res)
	}
	fmt.Fprintf(opts.IO.Out, "exported %s (%d records, %d commands) to %s (%.1f MB) in %.1fs\n", coll.Name(), res.Records, res.Commands, out, float64(res.Bytes)/1e6, res.Seconds)
	fmt.Fprintf(opts.IO.Out, "  sha256 %s in %s\n", sum, res.Checksums)
	fmt.Fprintf(opts.IO.Out, "next, on the other machine: cmdai index import %s\n", filepath.Base(out))
	return nil
}
