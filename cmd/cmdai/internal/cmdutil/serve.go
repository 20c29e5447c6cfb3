package cmdutil

import (
	"context"
	"io"

	"github.com/urfave/cli/v2"

	"github.com/cmdai/cmdai/chroma/connect"
	"github.com/cmdai/cmdai/config"
	"github.com/cmdai/cmdai/serve"
)

// NoServeFlag is --no-serve of the commands that use a running serve.
func NoServeFlag(dest *bool) cli.Flag {
	return &cli.BoolFlag{Name: "no-serve", Category: ServeCategory, Usage: "answer in this process even when a cmdai serve runs", EnvVars: []string{"CMDAI_NO_SERVE"}, Destination: dest}
}

// serveClient is the real ServeClient: the serve of this data home, if
// one runs. Any failure to reach it (no socket, a stale one, a refused
// or silent connection) is "none": the caller does the work itself.
func (f *Factory) serveClient(ctx context.Context) (*serve.Client, bool) {
	socket, err := config.ServeSocket(f.Getenv)
	if err != nil {
		return nil, false
	}
	c, err := serve.Dial(ctx, socket)
	if err != nil {
		return nil, false
	}
	return c, true
}

// serveLease lends the private server of dataDir when a running serve
// owns it (connect.Lease): the command then writes through serve's server
// under its write lease (serve's queries wait, and it reloads when the
// lease ends) instead of starting its own, which the data lock would
// refuse. ok false: no serve, or one on another Chroma.
func (f *Factory) serveLease(ctx context.Context, dataDir string) (string, io.Closer, bool, error) {
	c, ok := f.ServeClient(ctx)
	if !ok {
		return "", nil, false, nil
	}
	defer c.Close()
	h, err := c.Health(ctx)
	if err != nil || h.DataDir == "" || !connect.SameDir(h.DataDir, dataDir) {
		return "", nil, false, nil
	}
	lease, err := c.Lease(ctx)
	if err != nil {
		return "", nil, true, err
	}
	return lease.ChromaURL, lease, true, nil
}
