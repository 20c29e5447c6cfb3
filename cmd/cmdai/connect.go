package main

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/urfave/cli/v2"

	"github.com/cmdai/cmdai/chroma"
	"github.com/cmdai/cmdai/config"
	"github.com/cmdai/cmdai/distro"
	"github.com/cmdai/cmdai/embed"
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
	// dataDir is the private server's data directory ("" when remote).
	dataDir string
	// lost is the private server's death, found by Close before it
	// stops the server (after which a death can no longer be told).
	lost   error
	closed bool
}

func (c *connection) Close() {
	if c == nil || c.closed {
		return
	}
	c.closed = true
	if c.Store != nil {
		c.Store.Close()
	}
	if c.server != nil {
		c.lost = c.server.Lost()
		c.server.Stop()
	}
}

// chromaWatch keeps the connections a command opened, so that run can
// tell why a Chroma call failed (the private server died, the disk is
// full) instead of printing the client's raw text (EOF, HTTP 500).
type chromaWatch struct {
	mu    sync.Mutex
	conns []*connection
}

type chromaWatchKey struct{}

// withChromaWatch gives ctx a watch that connectChroma registers with.
func withChromaWatch(ctx context.Context) (context.Context, *chromaWatch) {
	w := &chromaWatch{}
	return context.WithValue(ctx, chromaWatchKey{}, w), w
}

func watchConnection(ctx context.Context, c *connection) {
	if w, ok := ctx.Value(chromaWatchKey{}).(*chromaWatch); ok {
		w.mu.Lock()
		w.conns = append(w.conns, c)
		w.mu.Unlock()
	}
}

// explain turns a failed command's error into the fault behind it when a
// connection knows it: a full disk (exit 1, where and what to do), or a
// private server that died (exit 4, the end of its log).
func (w *chromaWatch) explain(err error) error {
	if err == nil || errors.Is(err, chroma.ErrNoSpace) {
		return err
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, c := range w.conns {
		lost := c.lost
		if !c.closed && c.server != nil {
			lost = c.server.Lost()
		}
		noSpace := chroma.IsNoSpace(err) || (lost != nil && chroma.IsNoSpace(lost))
		if c.dataDir == "" && noSpace {
			return fmt.Errorf("%w on the disk of the Chroma server at %s: free some space there and run the command again", chroma.ErrNoSpace, c.URL)
		}
		if c.dataDir != "" {
			// A failed compaction is a full disk only when the disk is
			// nearly full.
			mount, free := chroma.DiskOf(c.dataDir)
			if noSpace || (chroma.IsCompactionFailure(err) && free >= 0 && free < chroma.LowSpace) {
				return fmt.Errorf("%w (Chroma's log: %s)", chroma.NoSpaceError(mount, 0, free), chroma.LogPath(c.dataDir))
			}
		}
		if lost != nil {
			return withCode(ExitUnreachable, lost)
		}
		if c.dataDir == "" {
			if perr := chroma.Answers(context.Background(), c.URL); perr != nil {
				return withCode(ExitUnreachable, fmt.Errorf("%w: the Chroma server at %s stopped answering while cmdai was using it (%v): check that it runs, then run the command again", chroma.ErrUnreachable, c.URL, perr))
			}
		}
	}
	return err
}

// checkSpace refuses, before a write of about records records, a private
// server's disk that cannot hold them. A remote server's disk cannot be
// seen from here: its own error is recognised instead (explain).
func (c *connection) checkSpace(records, dims int) error {
	if c == nil || c.dataDir == "" {
		return nil
	}
	if dims <= 0 {
		dims = embed.Dims
	}
	return chroma.CheckSpace(c.dataDir, chroma.SpaceNeeded(records, dims))
}

// A first init's space estimate: about what a desktop's commands give
// (BENCHMARKS.md: 15-20 thousand chunks), or per named command (--command)
// a long page's worth.
const (
	firstBuildRecords = 20000
	recordsPerCommand = 64
)

// checkBuildSpace is checkSpace for init and refresh: they may rewrite
// every record of the collection, or build a first one (of commands
// commands, 0: all of them).
func (c *connection) checkBuildSpace(ctx context.Context, collection string, commands int) error {
	if c == nil || c.dataDir == "" {
		return nil
	}
	records := firstBuildRecords
	if commands > 0 {
		records = commands * recordsPerCommand
	}
	if coll, err := c.OpenCollection(ctx, collection); err == nil {
		if n, err := coll.Count(ctx); err == nil {
			records = n
		}
	}
	return c.checkSpace(records, embed.Dims)
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
		conn := &connection{Store: st, Mode: "remote"}
		watchConnection(ctx, conn)
		return conn, nil
	}
	bin, err := chroma.FindBin(o.Bin, getenv)
	if err != nil {
		return nil, withCode(ExitUnreachable, err)
	}
	dir := o.DataDir
	if dir == "" {
		if dir, err = config.ChromaDir(getenv); err != nil {
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
	conn := &connection{Store: st, server: srv, Mode: "embedded", dataDir: dir}
	watchConnection(ctx, conn)
	return conn, nil
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
