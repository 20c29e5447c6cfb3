package modelcmd

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/cmdai/cmdai/clix"
	"github.com/cmdai/cmdai/cmd/cmdai/internal/cmdutil"
	"github.com/cmdai/cmdai/embed"
)

// PullOptions are the inputs of `cmdai model pull`.
type PullOptions struct {
	*cmdutil.Factory
	URL      string
	ModelDir string
	Client   *http.Client
	// IdleTimeout ends a file's transfer that receives nothing for this long.
	IdleTimeout time.Duration
}

func newPullCommand(f *cmdutil.Factory, runF func(context.Context, *PullOptions) error) *cli.Command {
	opts := &PullOptions{Factory: f}
	return &cli.Command{
		Name:      "pull",
		Usage:     "download the model from the Hugging Face hub (online machines only)",
		UsageText: "cmdai model pull [--url URL]",
		Description: `Downloads the ONNX export, tokenizer and configs, writes their manifest and
installs them as "model import" does. Machines without a network use
"cmdai model import" instead.

EXAMPLES:
   $ cmdai model pull`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "url", Usage: "download from `URL` (a mirror of the hub repository)", Value: embed.HubURL, EnvVars: []string{"CMDAI_MODEL_URL"}, Destination: &opts.URL},
			cmdutil.IdleTimeoutFlag(&opts.IdleTimeout),
			cmdutil.ModelDirFlag(&opts.ModelDir),
		},
		OnUsageError: clix.OnUsageError,
		Action: func(c *cli.Context) error {
			if err := clix.NoArgs(c, "--url URL names a mirror"); err != nil {
				return err
			}
			if opts.IdleTimeout <= 0 {
				return cmdutil.UsageError("--idle-timeout must be more than 0, e.g. 30s or 2m")
			}
			if runF != nil {
				return runF(c.Context, opts)
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
	m, err := embed.Pull(ctx, opts.Client, opts.URL, dst, opts.IdleTimeout)
	if err != nil {
		return cmdutil.NetworkCode(err)
	}
	fmt.Fprintf(opts.IO.Out, "installed %s from %s in %s\n", m.Name, opts.URL, dst)
	return nil
}
