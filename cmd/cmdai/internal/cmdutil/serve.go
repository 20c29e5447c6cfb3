package cmdutil

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/urfave/cli/v2"

	"github.com/cmdai/cmdai/chroma"
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

// connectThroughServe: when a serve owns the private server of dataDir,
// the command uses that server under serve's write lease (serve's queries
// wait, and it reloads when the lease ends) instead of starting its own,
// which the data lock would refuse (exit 6). ok false: no serve, or one
// on another Chroma: start as usual.
func (f *Factory) connectThroughServe(ctx context.Context, o ChromaOptions, dataDir string) (*Connection, bool, error) {
	if o.NoServe {
		return nil, false, nil
	}
	c, ok := f.ServeClient(ctx)
	if !ok {
		return nil, false, nil
	}
	defer c.Close()
	h, err := c.Health(ctx)
	if err != nil || h.DataDir == "" || !sameDir(h.DataDir, dataDir) {
		return nil, false, nil
	}
	lease, err := c.Lease(ctx)
	if err != nil {
		return nil, true, WithCode(ExitBusy, locked(fmt.Errorf("cmdai serve runs on this index and its write lease failed: %w (stop serve, or run the command again)", err)))
	}
	key, err := f.RecordKey()
	if err != nil {
		lease.Close()
		return nil, true, err
	}
	cfg := chroma.Config{URL: lease.ChromaURL, Tenant: o.Tenant, Database: o.Database, Token: o.Token, TokenHeader: o.TokenHeader, Auth: key}
	st, err := chroma.Connect(ctx, cfg)
	if err != nil {
		lease.Close()
		return nil, true, WithCode(ExitUnreachable, unreachable(fmt.Errorf("reach the Chroma server of cmdai serve: %w (check `cmdai index status`, or restart serve)", err)))
	}
	conn := &Connection{Store: st, Mode: "embedded", dataDir: dataDir, lease: lease}
	watchConnection(ctx, conn)
	return conn, true, nil
}

func sameDir(a, b string) bool {
	a, errA := filepath.Abs(a)
	b, errB := filepath.Abs(b)
	return errA == nil && errB == nil && filepath.Clean(a) == filepath.Clean(b)
}

// DataDir is the private server's data directory ("" with --chroma-url).
func (c *Connection) DataDir() string { return c.dataDir }
