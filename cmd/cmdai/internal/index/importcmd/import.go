// Package importcmd is `cmdai index import`: loading an exported index
// tarball into Chroma, verified and atomically. It parses its flags and
// makes one call into cmdutil/tarimport (which `index download` runs too),
// which calls ship and prints.
package importcmd

import (
	"github.com/urfave/cli/v2"

	"github.com/cmdai/cmdai/cmd/cmdai/internal/cmdutil"
	"github.com/cmdai/cmdai/cmd/cmdai/internal/cmdutil/tarimport"
	"github.com/cmdai/cmdai/internal/clix"
)

// ImportOptions are the inputs of `cmdai index import`.
type ImportOptions = tarimport.Options

// ImportResult is what `index import --json` prints.
type ImportResult = tarimport.Result

// NewCmdImport is `cmdai index import`; runF, when not nil, replaces the
// run function (tests see the parsed options).
func NewCmdImport(f *cmdutil.Factory, runF func(*ImportOptions) error) *cli.Command {
	opts := &ImportOptions{Factory: f}
	flags := cmdutil.ValidateFlags("verify the tarball (signature, checksums, manifest, every record) without loading it", &opts.Validate, f)
	flags = append(flags,
		cmdutil.PublicKeyFlag(&opts.PublicKey),
		&cli.BoolFlag{Name: "require-signature", Usage: "refuse a tarball without a signed checksums.txt beside it (checksums.txt.minisig)", Destination: &opts.RequireSignature},
		&cli.BoolFlag{Name: "allow-unsigned", Usage: "import a tarball no verified signature vouches for (your own export, a mirror you keep): the index is marked unsigned until rebuilt", Destination: &opts.AllowUnsigned},
		&cli.StringFlag{Name: "distro", Usage: "import as the index of distribution `ID` (default: the tarball's)", EnvVars: []string{"CMDAI_DISTRO"}, Destination: &opts.Distro},
		&cli.BoolFlag{Name: "yes", Aliases: []string{"y"}, Usage: "do not ask when the tarball is for another distribution than this machine's", Destination: &opts.Yes},
		&cli.BoolFlag{Name: "json", Usage: "print the result as JSON", EnvVars: []string{"CMDAI_JSON"}, Destination: &opts.JSON},
		&cli.BoolFlag{Name: "batch-mode", Usage: "no progress bar", EnvVars: []string{"CMDAI_BATCH_MODE"}, Destination: &opts.BatchMode},
		&cli.IntFlag{Name: "write-batch", Usage: "write at most `N` records per request (0: as many as the server takes)", Destination: &opts.WriteBatch},
		&cli.StringFlag{Name: "model-dir", Usage: "installed model `DIR` the index must match (default: ~/.local/share/cmdai/embeddings/all-MiniLM-L6-v2, else the one installed with cmdai)", EnvVars: []string{"CMDAI_MODEL_DIR"}, Destination: &opts.ModelDir},
	)
	flags = append(flags, cmdutil.ChromaFlags(&opts.Chroma)...)
	return &cli.Command{
		Name:      "import",
		Usage:     "load an exported index tarball into Chroma, verified and atomically",
		UsageText: "cmdai index import <chroma-index-DISTRO.tar.gz> [--validate] [--distro ID] [--require-signature]",
		Description: `Checks the tarball against the checksums file beside it (FILE.sha256, or
a checksums.txt listing it), then its manifest (format, model, distribution)
and every record, while loading them into a temporary collection that
replaces the index only when complete. A failed or interrupted import
leaves the previous index as it was.

A release's checksums.txt is signed (checksums.txt.minisig, minisign).
When the signature stands beside the tarball, it is checked offline with
the release key pinned in cmdai (and --public-key's), and the tarball
against the signed sums: a bad signature is refused with exit 5. A
tarball without a verified signature (your own export, an unsigned
mirror, or any tarball when this build pins no release key) is refused
too, unless --allow-unsigned: it is then imported, and ` + "`cmdai index status`" + `
marks the index unsigned until ` + "`cmdai index init --force`" + ` rebuilds it here.
--require-signature refuses a tarball without a signature file beside
it whatever else is passed, for sites that take indexes only from a
signed release.

The installed model must be the one the index was built with (same
sha256); install it with ` + "`cmdai model import`" + `. A tarball built for another
distribution than this machine's is imported under its own distribution
after asking (or with --yes); --distro ID places it as ID's index.

EXAMPLES:
   $ cmdai index import /media/usb/chroma-index-debian-12.tar.gz
   $ cmdai index import chroma-index-debian-12.tar.gz --validate
   $ cmdai index import /media/usb/chroma-index-debian-12.tar.gz --require-signature
   $ cmdai index import ~/exports/chroma-index-debian-12.tar.gz --allow-unsigned
   $ cmdai index import chroma-index-ubuntu-24.04.tar.gz --chroma-url http://chroma.internal:8000 --yes`,
		Flags:        flags,
		OnUsageError: clix.OnUsageError,
		Action: func(c *cli.Context) error {
			var err error
			if opts.Path, err = clix.OneArg(c, "say which tarball to import, e.g. `cmdai index import chroma-index-debian-12.tar.gz`"); err != nil {
				return err
			}
			if err := clix.FirstErr(cmdutil.CheckDistroFlag(opts.Distro), clix.NotNegative("write-batch", opts.WriteBatch)); err != nil {
				return err
			}
			opts.BatchMode = opts.BatchMode || clix.GlobalBool(c, "batch-mode")
			if runF != nil {
				return runF(opts)
			}
			return tarimport.Run(c.Context, opts)
		},
	}
}
