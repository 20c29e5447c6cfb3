package modelcmd

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/schollz/progressbar/v3"
	"github.com/urfave/cli/v2"

	"github.com/cmdai/cmdai/cmd/cmdai/internal/cmdutil"
	"github.com/cmdai/cmdai/config"
	"github.com/cmdai/cmdai/embed"
	"github.com/cmdai/cmdai/internal/clix"
	"github.com/cmdai/cmdai/ship/modeldist"
	"github.com/cmdai/cmdai/ship/release"
)

// PullOptions are the inputs of `cmdai model pull`.
type PullOptions struct {
	*cmdutil.Factory
	// Base is the release location the model tarball comes from.
	Base string
	// Hub pulls from the Hugging Face hub (URL) instead: fp32 only, with
	// no checksums but the ones computed on arrival.
	Hub      bool
	URL      string
	ModelDir string
	Dir      string
	Client   *http.Client
	// IdleTimeout (--stall-timeout) ends a file's transfer that receives nothing for this long.
	IdleTimeout time.Duration
}

func newPullCommand(f *cmdutil.Factory, runF func(*PullOptions) error) *cli.Command {
	opts := &PullOptions{Factory: f}
	return &cli.Command{
		Name:      "pull",
		Usage:     "download the model (both variants) and the reranker, checksums pinned in cmdai, from a release (online machines only)",
		UsageText: "cmdai model pull [--base-url URL|DIR]\n   cmdai model pull --hub [--url URL]",
		Description: `Fetches ` + modeldist.TarballName() + ` from the release location
(default: the project's GitHub releases; --base-url for a mirror: http(s)://,
file:// or a directory): the model (` + embed.ModelName + `/) and learned
mode's reranker (` + embed.RerankerName + `/). It checks every file of both
against the sha256s pinned in this cmdai (a tarball of another model, or
damaged, is refused with exit 5) and installs them as "model import" does:
the model in --model-dir (default: the data directory), the reranker beside
it in the data directory, where queries find it. A refused pull leaves both
installed ones as they were. --hub downloads the model's fp32 export from the
Hugging Face hub instead (no reranker; it cannot serve an int8 index).
Machines without a network use "cmdai model import".

EXAMPLES:
   $ cmdai model pull
   $ cmdai model pull --base-url /media/usb/cmdai-v1.2.0
   $ cmdai model pull --hub`,
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "base-url", Usage: "release location: an http(s):// or file:// `URL`, or a directory (a mirror)", Value: release.DefaultBase, EnvVars: []string{"CMDAI_RELEASE_URL"}, Destination: &opts.Base},
			&cli.BoolFlag{Name: "hub", Usage: "download from the Hugging Face hub instead (fp32 only)", Destination: &opts.Hub},
			&cli.StringFlag{Name: "url", Usage: "with --hub: download from `URL` (a mirror of the hub repository); implies --hub", Value: embed.HubURL, EnvVars: []string{"CMDAI_MODEL_URL"}, Destination: &opts.URL},
			&cli.StringFlag{Name: "dir", Usage: "download into `DIR` (default: ~/.cache/cmdai/downloads)", Destination: &opts.Dir},
			cmdutil.ModelDirFlag(&opts.ModelDir),
		}, cmdutil.StallTimeoutFlags(&opts.IdleTimeout, f)...),
		OnUsageError: clix.OnUsageError,
		Action: func(c *cli.Context) error {
			if err := clix.NoArgs(c, "--base-url URL names a mirror"); err != nil {
				return err
			}
			if opts.IdleTimeout <= 0 {
				return cmdutil.UsageError("--stall-timeout must be more than 0, e.g. 30s or 2m")
			}
			if c.IsSet("url") {
				opts.Hub = true
			}
			if opts.Hub && c.IsSet("base-url") {
				return cmdutil.UsageError("--base-url (a release) and --hub/--url (the hub) are two sources: give one")
			}
			if runF != nil {
				return runF(opts)
			}
			if opts.Hub {
				return runPullHub(c.Context, opts)
			}
			return runPull(c.Context, opts)
		},
	}
}

func runPull(ctx context.Context, opts *PullOptions) error {
	dst, err := opts.ModelInstallDir(opts.ModelDir)
	if err != nil {
		return err
	}
	dir := opts.Dir
	if dir == "" {
		if dir, err = config.DownloadDir(opts.Getenv); err != nil {
			return err
		}
	}
	var progress release.Progress
	if opts.IO.ErrTTY {
		var bar *progressbar.ProgressBar
		progress = func(done, total int64) {
			if bar == nil {
				bar = progressbar.DefaultBytes(total, "downloading "+modeldist.TarballName())
			}
			_ = bar.Set64(done)
		}
	}
	// the reranker goes where `cmdai model import` of it puts it
	rerankerDst, err := config.ModelDir(opts.Getenv, embed.RerankerName)
	if err != nil {
		return err
	}
	src := release.Source{Base: opts.Base, Client: opts.Client, IdleTimeout: opts.IdleTimeout}
	in, err := modeldist.Pull(ctx, src, dir, dst, rerankerDst, progress)
	switch {
	case err != nil && in.Model.Name != "":
		// both checked, the model swapped in, the reranker's copy failed
		return fmt.Errorf("model pull: %w (free some space and pull again)", err)
	case errors.Is(err, modeldist.ErrNotPinned), errors.Is(err, modeldist.ErrDamaged), errors.Is(err, embed.ErrCorruptModel), errors.Is(err, embed.ErrCorruptReranker):
		return cmdutil.WithCode(cmdutil.ExitVerification, fmt.Errorf("model pull refused, the installed model and reranker are unchanged: %w", err))
	case err != nil:
		return cmdutil.NetworkCode(err)
	}
	fmt.Fprintf(opts.IO.Out, "installed %s in %s and %s in %s (%d files verified against the sha256s pinned in cmdai, models %s) from %s\n",
		in.Model.Name, dst, in.Reranker.Name, rerankerDst, len(in.Model.Files)+len(in.Reranker.Files)+2, modeldist.Rev(), opts.Base)
	return nil
}

func runPullHub(ctx context.Context, opts *PullOptions) error {
	dst, err := opts.ResolveModelDir(opts.ModelDir)
	if err != nil {
		return err
	}
	m, err := embed.Pull(ctx, opts.Client, opts.URL, dst, opts.IdleTimeout)
	if err != nil {
		return cmdutil.NetworkCode(err)
	}
	fmt.Fprintf(opts.IO.Out, "installed %s from %s in %s\n", m.Name, opts.URL, dst)
	return nil
}
