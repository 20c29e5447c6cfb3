// Package downloadcmd is `cmdai index download`: fetching a published
// index for a distribution, verifying it, and importing it as `cmdai index
// import` does. It parses its flags, makes one call into ship to fetch,
// then runs cmdutil/tarimport (the import both commands share), and
// prints.
package downloadcmd

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/cmdai/cmdai/cmd/cmdai/internal/cmdutil"
	"github.com/cmdai/cmdai/cmd/cmdai/internal/cmdutil/tarimport"
	"github.com/cmdai/cmdai/config"
	"github.com/cmdai/cmdai/distro"
	"github.com/cmdai/cmdai/internal/clix"
	"github.com/cmdai/cmdai/internal/jsonout"
	"github.com/cmdai/cmdai/internal/termbar"
	"github.com/cmdai/cmdai/ship"
	"github.com/cmdai/cmdai/ship/release"
)

// DownloadOptions are the inputs of `cmdai index download`.
type DownloadOptions struct {
	Import tarimport.Options
	Distro string
	Base   string
	Dir    string
	List   bool
	Verify bool // --validate: check, do not import
	JSON   bool
	// AllowUnsigned takes a release that publishes no signature although
	// this cmdai trusts a release key.
	AllowUnsigned bool
	// IdleTimeout (--stall-timeout) ends a transfer that receives nothing for this long.
	IdleTimeout time.Duration
}

// NewCmdDownload is `cmdai index download`; runF, when not nil, replaces
// the run function (tests see the parsed options).
func NewCmdDownload(f *cmdutil.Factory, runF func(*DownloadOptions) error) *cli.Command {
	opts := &DownloadOptions{Import: tarimport.Options{Factory: f}}
	flags := []cli.Flag{
		&cli.StringFlag{Name: "base-url", Usage: "release location: an http(s):// or file:// `URL`, or a directory (a mirror)", Value: release.DefaultBase, EnvVars: []string{"CMDAI_RELEASE_URL"}, Destination: &opts.Base},
		&cli.BoolFlag{Name: "list", Usage: "list the indexes the location offers", Destination: &opts.List},
	}
	flags = append(flags, cmdutil.ValidateFlags("download and verify only (signature, checksums, manifest, every record); do not import", &opts.Verify, f)...)
	flags = append(flags,
		cmdutil.PublicKeyFlag(&opts.Import.PublicKey),
		&cli.BoolFlag{Name: "allow-unsigned", Usage: "accept a release location that publishes no signature (a bad signature is refused all the same)", Destination: &opts.AllowUnsigned},
	)
	flags = append(flags, cmdutil.StallTimeoutFlags(&opts.IdleTimeout, f)...)
	flags = append(flags,
		&cli.StringFlag{Name: "dir", Usage: "keep downloads in `DIR` (default: ~/.cache/cmdai/downloads)", Destination: &opts.Dir},
		&cli.BoolFlag{Name: "json", Usage: "print the result as JSON", EnvVars: []string{"CMDAI_JSON"}, Destination: &opts.JSON},
		&cli.BoolFlag{Name: "batch-mode", Usage: "no progress bar", EnvVars: []string{"CMDAI_BATCH_MODE"}, Destination: &opts.Import.BatchMode},
		&cli.StringFlag{Name: "model-dir", Usage: "installed model `DIR` the index must match", EnvVars: []string{"CMDAI_MODEL_DIR"}, Destination: &opts.Import.ModelDir},
	)
	flags = append(flags, cmdutil.ChromaFlags(&opts.Import.Chroma)...)
	return &cli.Command{
		Name:      "download",
		Usage:     "fetch a published index for a distribution, verify it, import it",
		UsageText: "cmdai index download <distro-id> [--validate] [--base-url URL]\n   cmdai index download --list [--base-url URL]",
		Description: `Fetches chroma-index-<distro-id>.tar.gz from the release location (default:
the project's GitHub releases; --base-url for a mirror: http(s)://, file://
or a directory), resuming a download that was cut, checks it against the
published sha256 (<file>.sha256 or the release's checksums.txt) before
anything else reads it, then imports it as ` + "`cmdai index import`" + ` does.

Releases are signed: checksums.txt.minisig is a minisign signature of
checksums.txt, checked offline with the release key pinned in cmdai (and
--public-key's). When cmdai trusts a key, the sum is taken from the signed
checksums.txt only: a bad signature, or none, is refused with exit 5
(--allow-unsigned takes an unsigned mirror you trust). The checksums.txt
and its signature are kept beside the download, so that an import of it,
here or across an air gap, checks the signature again.
A server that sends nothing for --stall-timeout ends the download with exit
4; the partial file is kept and the next run resumes it.

EXAMPLES:
   $ cmdai index download ubuntu-24.04
   $ cmdai index download --list
   $ cmdai index download debian-12 --base-url https://mirror.internal/cmdai/v1.2.0
   $ cmdai index download debian-12 --base-url /media/usb --validate
   $ cmdai index download fedora-40 --stall-timeout 2m   # a slow mirror
   $ cmdai index download debian-12 --base-url https://mirror.internal/cmdai --public-key site.pub`,
		Flags:        flags,
		OnUsageError: clix.OnUsageError,
		Action: func(c *cli.Context) error {
			opts.Import.BatchMode = opts.Import.BatchMode || clix.GlobalBool(c, "batch-mode")
			if opts.IdleTimeout <= 0 {
				return cmdutil.UsageError("--stall-timeout must be more than 0, e.g. 30s or 2m")
			}
			switch {
			case opts.List && c.NArg() == 0:
			case opts.List:
				return cmdutil.UsageError("--list takes no distribution: unexpected argument %q", c.Args().First())
			default:
				var err error
				if opts.Distro, err = clix.OneArg(c, "say which distribution, e.g. `cmdai index download ubuntu-24.04` (`--list` shows what there is)"); err != nil {
					return err
				}
				if _, err := distro.Parse(opts.Distro); err != nil {
					return cmdutil.UsageError("%q: %v", opts.Distro, err)
				}
			}
			if runF != nil {
				return runF(opts)
			}
			return runDownload(c.Context, opts)
		},
	}
}

func runDownload(ctx context.Context, opts *DownloadOptions) error {
	io := opts.Import.IO
	src := release.Source{Base: opts.Base, IdleTimeout: opts.IdleTimeout}
	if opts.List {
		entries, err := src.List(ctx)
		if err != nil {
			return cmdutil.NetworkCode(err)
		}
		if opts.JSON {
			// an object, as every JSON output: a bare list has no room
			// for the schema version
			if entries == nil {
				entries = []release.Entry{}
			}
			return jsonout.Encode(io.Out, struct {
				Indexes []release.Entry `json:"indexes"`
			}{entries})
		}
		if len(entries) == 0 {
			fmt.Fprintf(io.Out, "%s offers no indexes\n", opts.Base)
			return nil
		}
		for _, e := range entries {
			fmt.Fprintf(io.Out, "%-16s %s\n", e.Distro, e.File)
		}
		return nil
	}
	info, err := distro.Parse(opts.Distro)
	if err != nil {
		return cmdutil.WithCode(cmdutil.ExitUsage, fmt.Errorf("%q: %w", opts.Distro, err))
	}
	dir := opts.Dir
	if dir == "" {
		if dir, err = config.DownloadDir(opts.Import.Getenv); err != nil {
			return err
		}
	}
	name := release.TarballName(info.ID)
	var progress release.Progress
	if !opts.Import.BatchMode && !opts.JSON && io.ErrTTY {
		bar := termbar.New(io.ErrOut, io.ErrWidth)
		defer bar.Done()
		progress = func(done, total int64) {
			if total <= 0 { // the server did not say how much
				total = done + 1
			}
			// in KiB: the bar counts in ints
			bar.Set(int(done>>10), int(total>>10),
				fmt.Sprintf("downloading %s: %s of %s", name, termbar.Bytes(done), termbar.Bytes(total)),
				fmt.Sprintf("%s of %s", termbar.Bytes(done), termbar.Bytes(total)))
		}
	}
	keys, err := cmdutil.TrustedKeys(opts.Import.PublicKey)
	if err != nil {
		return err
	}
	got, err := ship.Fetch(ctx, src, info.ID, dir, ship.Trust{Keys: keys, AllowUnsigned: opts.AllowUnsigned}, progress)
	switch {
	case errors.Is(err, ship.ErrVerification):
		return cmdutil.WithCode(cmdutil.ExitVerification, err)
	case err != nil:
		return cmdutil.NetworkCode(err)
	}
	path, want := got.Path, got.SHA256
	if !opts.JSON {
		switch {
		case got.Signed != nil:
			fmt.Fprintf(io.ErrOut, "downloaded %s, sha256 %s verified against checksums.txt signed by key %s (%s)\n", path, want, got.Signed.KeyID, got.Signed.TrustedComment)
		case got.Unsigned != "":
			fmt.Fprintf(io.ErrOut, "warning: %s; taken unsigned as --allow-unsigned asks\ndownloaded %s, sha256 %s verified\n", got.Unsigned, path, want)
		case len(keys) == 0:
			fmt.Fprintf(io.ErrOut, "downloaded %s, sha256 %s verified (no signature checked: this build pins no release key; pass --public-key to check one)\n", path, want)
		default:
			fmt.Fprintf(io.ErrOut, "downloaded %s, sha256 %s verified\n", path, want)
		}
	}
	imp := opts.Import
	imp.Path = path
	imp.Validate = opts.Verify
	imp.JSON = opts.JSON
	imp.Yes = true // the distribution was named on the command line
	imp.Distro = ""
	imp.Expect = info.ID
	// what the download took unsigned (--allow-unsigned) is imported so
	imp.AllowUnsigned = opts.AllowUnsigned
	return tarimport.Run(ctx, &imp)
}
