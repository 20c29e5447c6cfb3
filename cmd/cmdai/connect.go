package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/cmdai/cmdai/chroma"
	"github.com/cmdai/cmdai/distro"
	"github.com/cmdai/cmdai/embed"
	"github.com/cmdai/cmdai/paths"
)

// ExitBusy: another cmdai holds the private server's data directory.
const ExitBusy = 6

// ChromaOptions say which Chroma to use: a server at URL, or (no URL) a
// private one cmdai starts on loopback over DataDir.
type ChromaOptions struct {
	URL, Tenant, Database, Token, TokenHeader string
	Bin, DataDir                              string
}

func chromaFlags(o *ChromaOptions) []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "chroma-url", Usage: "use the Chroma server at `URL` (default: start a private one on 127.0.0.1)", EnvVars: []string{"CMDAI_CHROMA_URL"}, Destination: &o.URL},
		&cli.StringFlag{Name: "chroma-tenant", Usage: "Chroma `TENANT` (with --chroma-url)", EnvVars: []string{"CMDAI_CHROMA_TENANT"}, Destination: &o.Tenant},
		&cli.StringFlag{Name: "chroma-database", Usage: "Chroma `DATABASE` (with --chroma-url)", EnvVars: []string{"CMDAI_CHROMA_DATABASE"}, Destination: &o.Database},
		&cli.StringFlag{Name: "chroma-token", Usage: "auth `TOKEN` for --chroma-url", EnvVars: []string{"CMDAI_CHROMA_TOKEN"}, Destination: &o.Token},
		&cli.StringFlag{Name: "chroma-token-header", Usage: "send the token as `HEADER`: Authorization (Bearer) or X-Chroma-Token", Value: "Authorization", EnvVars: []string{"CMDAI_CHROMA_TOKEN_HEADER"}, Destination: &o.TokenHeader},
		&cli.StringFlag{Name: "chroma-bin", Usage: "the `chroma` executable for the private server", EnvVars: []string{"CMDAI_CHROMA_BIN"}, Destination: &o.Bin},
		&cli.StringFlag{Name: "chroma-data", Usage: "data `DIR` of the private server (default: ~/.cache/cmdai/chroma)", EnvVars: []string{"CMDAI_CHROMA_DATA"}, Destination: &o.DataDir},
	}
}

// connection is an open Store plus, in embedded mode, the server to stop.
type connection struct {
	*chroma.Store
	server *chroma.Server
	Mode   string // "embedded" or "remote"
}

func (c *connection) Close() {
	if c == nil {
		return
	}
	if c.Store != nil {
		c.Store.Close()
	}
	if c.server != nil {
		c.server.Stop()
	}
}

// connectChroma reaches the configured server, starting the private one
// when no URL is given. Errors carry the exit code and the fix.
func connectChroma(ctx context.Context, getenv func(string) string, o ChromaOptions) (*connection, error) {
	cfg := chroma.Config{URL: o.URL, Tenant: o.Tenant, Database: o.Database, Token: o.Token, TokenHeader: o.TokenHeader}
	if o.URL != "" {
		st, err := chroma.Connect(ctx, cfg)
		if err != nil {
			return nil, withCode(ExitUnreachable, fmt.Errorf("%w\n  check that the server runs and the URL is right, or drop --chroma-url (and CMDAI_CHROMA_URL) to let cmdai start its own", err))
		}
		return &connection{Store: st, Mode: "remote"}, nil
	}
	bin, err := chroma.FindBin(o.Bin, getenv)
	if err != nil {
		return nil, withCode(ExitUnreachable, err)
	}
	dir := o.DataDir
	if dir == "" {
		if dir, err = paths.ChromaDir(getenv); err != nil {
			return nil, err
		}
	}
	srv, err := chroma.StartServer(ctx, chroma.ServerOptions{Bin: bin, DataDir: dir})
	if err != nil {
		if errors.Is(err, chroma.ErrLocked) {
			return nil, withCode(ExitBusy, err)
		}
		return nil, withCode(ExitUnreachable, err)
	}
	cfg.URL = srv.URL
	st, err := chroma.Connect(ctx, cfg)
	if err != nil {
		srv.Stop()
		return nil, withCode(ExitUnreachable, err)
	}
	return &connection{Store: st, server: srv, Mode: "embedded"}, nil
}

// openDistroIndex resolves the distribution (--distro, else detected)
// and connects to Chroma: the start of every command that reads or
// changes an index. The caller closes the connection.
func openDistroIndex(ctx context.Context, getenv func(string) string, distroID string, o ChromaOptions) (distro.Info, *connection, error) {
	info, err := resolveDistro(ctx, distroID, nil)
	if err != nil {
		return info, nil, err
	}
	conn, err := connectChroma(ctx, getenv, o)
	return info, conn, err
}

// ModelOptions choose the embedding model and runtime.
type ModelOptions struct {
	Dir, Variant, Backend string
}

// openEmbedder opens the installed model; a missing model is exit 5 with
// the command that installs it.
func openEmbedder(ctx context.Context, io *IOStreams, getenv func(string) string, o ModelOptions, threads int) (embed.Embedder, error) {
	dir, err := resolveModelDir(getenv, o.Dir)
	if err != nil {
		return nil, err
	}
	e, err := embed.Open(ctx, embed.Options{
		Dir: dir, Variant: o.Variant, Backend: o.Backend, Threads: threads,
		Notice: func(s string) { fmt.Fprintln(io.ErrOut, s) },
	})
	if err != nil {
		return nil, withCode(ExitVerification, err)
	}
	return e, nil
}
