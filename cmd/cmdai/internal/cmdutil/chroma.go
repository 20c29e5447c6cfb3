package cmdutil

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/cmdai/cmdai/chroma"
	"github.com/cmdai/cmdai/chroma/room"
	"github.com/cmdai/cmdai/config"
	"github.com/cmdai/cmdai/embed"
	"github.com/cmdai/cmdai/internal/clix"
	"github.com/cmdai/cmdai/internal/errmark"
)

// ChromaOptions say which Chroma to use: a server at URL, or (no URL) a
// private one cmdai starts on loopback over DataDir.
type ChromaOptions struct {
	URL, Tenant, Database, Token, TokenHeader string
	Bin, DataDir                              string
	// NoServe: start the private server even if a serve owns it (serve
	// itself, which must not lease from itself).
	NoServe bool
	// LockWait and OnLockWait: wait so long for a private server's data
	// directory that another process holds (serve, which outlasts a
	// one-shot command's hold), see chroma.ServerOptions.
	LockWait   time.Duration
	OnLockWait func(holder error)
}

// The headings the shared flags are listed under in help.
const (
	ChromaCategory = "CHROMA OPTIONS"
	ModelCategory  = "MODEL OPTIONS"
	ServeCategory  = "SERVE OPTIONS"
)

// ChromaFlags are the --chroma-* flags of every command that uses Chroma.
// They are listed under their own heading in each command's help, after
// the command's own flags.
func ChromaFlags(o *ChromaOptions) []cli.Flag {
	return clix.WithCategory(ChromaCategory,
		&cli.StringFlag{Name: "chroma-url", Usage: "use the Chroma server at `URL` (default: start a private one on 127.0.0.1)", EnvVars: []string{"CMDAI_CHROMA_URL"}, Destination: &o.URL},
		&cli.StringFlag{Name: "chroma-tenant", Usage: "Chroma `TENANT` (with --chroma-url)", EnvVars: []string{"CMDAI_CHROMA_TENANT"}, Destination: &o.Tenant},
		&cli.StringFlag{Name: "chroma-database", Usage: "Chroma `DATABASE` (with --chroma-url)", EnvVars: []string{"CMDAI_CHROMA_DATABASE"}, Destination: &o.Database},
		&cli.StringFlag{Name: "chroma-token", Usage: "auth `TOKEN` for --chroma-url", EnvVars: []string{"CMDAI_CHROMA_TOKEN"}, Destination: &o.Token},
		&cli.StringFlag{Name: "chroma-token-header", Usage: "send the token as `HEADER`: Authorization (Bearer) or X-Chroma-Token", Value: "Authorization", EnvVars: []string{"CMDAI_CHROMA_TOKEN_HEADER"}, Destination: &o.TokenHeader},
		&cli.StringFlag{Name: "chroma-bin", Usage: "`PATH` of the chroma executable for the private server", EnvVars: []string{"CMDAI_CHROMA_BIN"}, Destination: &o.Bin},
		&cli.StringFlag{Name: "chroma-data", Usage: "data `DIR` of the private server (default: ~/.local/share/cmdai/chroma)", EnvVars: []string{"CMDAI_CHROMA_DATA"}, Destination: &o.DataDir},
	)
}

// Connection is an open Store plus, in embedded mode, the server to stop.
type Connection struct {
	*chroma.Store
	server *chroma.Server
	Mode   string // "embedded" or "remote"
	// dataDir is the private server's data directory ("" when remote).
	dataDir string
	// lost is the private server's death, found by Close before it
	// stops the server (after which a death can no longer be told).
	lost   error
	closed bool
	// lease is a running serve's write lease when the connection goes
	// through serve's private server; Close ends it.
	lease io.Closer
}

// Close closes the store and stops the private server, if any.
func (c *Connection) Close() {
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
	if c.lease != nil {
		c.lease.Close()
	}
}

// ChromaWatch keeps the connections a command opened, so that the app can
// tell why a Chroma call failed (the private server died, the disk is
// full) instead of printing the client's raw text (EOF, HTTP 500).
type ChromaWatch struct {
	mu    sync.Mutex
	conns []*Connection
}

type chromaWatchKey struct{}

// WithChromaWatch gives ctx a watch that Connect registers with.
func WithChromaWatch(ctx context.Context) (context.Context, *ChromaWatch) {
	w := &ChromaWatch{}
	return context.WithValue(ctx, chromaWatchKey{}, w), w
}

func watchConnection(ctx context.Context, c *Connection) {
	if w, ok := ctx.Value(chromaWatchKey{}).(*ChromaWatch); ok {
		w.mu.Lock()
		w.conns = append(w.conns, c)
		w.mu.Unlock()
	}
}

// Explain turns a failed command's error into the fault behind it when a
// connection knows it: a full disk (exit 1, where and what to do), or a
// private server that died (exit 4, the end of its log).
func (w *ChromaWatch) Explain(err error) error {
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
			mount, free := room.DiskOf(c.dataDir)
			if noSpace || (chroma.IsCompactionFailure(err) && free >= 0 && free < chroma.LowSpace) {
				return fmt.Errorf("%w (Chroma's log: %s)", room.Error(mount, 0, free), chroma.LogPath(c.dataDir))
			}
		}
		if lost != nil {
			return WithCode(ExitUnreachable, lost)
		}
		if c.lease != nil {
			// serve's Chroma, lent: serve (and the server with it) may
			// have stopped or been killed under the lease
			if perr := chroma.Answers(context.Background(), c.URL); perr != nil {
				return WithCode(ExitUnreachable, fmt.Errorf("%w: the Chroma server of cmdai serve at %s stopped answering while this command wrote through it (%v): serve stopped or was killed; check it (`cmdai index status`), then run the command again (with no serve running it starts its own)", chroma.ErrUnreachable, c.URL, perr))
			}
		}
		if c.dataDir == "" {
			if perr := chroma.Answers(context.Background(), c.URL); perr != nil {
				return WithCode(ExitUnreachable, fmt.Errorf("%w: the Chroma server at %s stopped answering while cmdai was using it (%v): check that it runs, then run the command again", chroma.ErrUnreachable, c.URL, perr))
			}
		}
	}
	return err
}

// OwnsDataDir tells whether this connection started the private server
// itself, and so holds its data directory until Close (not a remote
// server, nor serve's under its lease).
func (c *Connection) OwnsDataDir() bool { return c != nil && c.server != nil && !c.closed }

// CheckSpace refuses, before a write of about records records, a private
// server's disk that cannot hold them. A remote server's disk cannot be
// seen from here: its own error is recognised instead (Explain).
func (c *Connection) CheckSpace(records, dims int) error {
	if c == nil || c.dataDir == "" {
		return nil
	}
	if dims <= 0 {
		dims = embed.Dims
	}
	return room.Check(c.dataDir, room.Needed(records, dims))
}

// A first init's space estimate: about what a desktop's commands give
// (BENCHMARKS.md: 15-20 thousand chunks), or per named command (--command)
// a long page's worth.
const (
	firstBuildRecords = 20000
	recordsPerCommand = 64
)

// CheckBuildSpace is CheckSpace for init and refresh: they may rewrite
// every record of the collection, or build a first one (of commands
// commands, 0: all of them).
func (c *Connection) CheckBuildSpace(ctx context.Context, collection string, commands int) error {
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
	return c.CheckSpace(records, embed.Dims)
}

// connect is the real Connect: the server at o.URL, else the private
// one over o.DataDir (through a running serve's when it owns that).
func (f *Factory) connect(ctx context.Context, o ChromaOptions) (*Connection, error) {
	key, err := f.RecordKey()
	if err != nil {
		return nil, err
	}
	cfg := chroma.Config{URL: o.URL, Tenant: o.Tenant, Database: o.Database, Token: o.Token, TokenHeader: o.TokenHeader, Auth: key}
	if o.URL != "" {
		st, err := chroma.Connect(ctx, cfg)
		if err != nil {
			return nil, WithCode(ExitUnreachable, unreachable(fmt.Errorf("%w\n  check that the server runs and the URL is right, or drop --chroma-url (and CMDAI_CHROMA_URL) to let cmdai start its own", err)))
		}
		conn := &Connection{Store: st, Mode: "remote"}
		watchConnection(ctx, conn)
		return conn, nil
	}
	dir := o.DataDir
	if dir == "" {
		if dir, err = config.ChromaDir(f.Getenv); err != nil {
			return nil, err
		}
	}
	if conn, ok, err := f.connectThroughServe(ctx, o, dir); ok {
		return conn, err
	}
	bin, err := chroma.FindBin(o.Bin, f.Getenv)
	if err != nil {
		return nil, WithCode(ExitUnreachable, unreachable(err))
	}
	srv, err := chroma.StartServer(ctx, chroma.ServerOptions{Bin: bin, DataDir: dir, LockWait: o.LockWait, OnLockWait: o.OnLockWait})
	if err != nil {
		if errors.Is(err, chroma.ErrLocked) {
			return nil, WithCode(ExitBusy, locked(err))
		}
		return nil, WithCode(ExitUnreachable, unreachable(err))
	}
	cfg.URL = srv.URL
	st, err := chroma.Connect(ctx, cfg)
	if err != nil {
		srv.Stop()
		return nil, WithCode(ExitUnreachable, unreachable(err))
	}
	conn := &Connection{Store: st, server: srv, Mode: "embedded", dataDir: dir}
	watchConnection(ctx, conn)
	return conn, nil
}

// unreachable and locked mark a failure to find, start or reach Chroma,
// or a data directory another cmdai holds, with chroma's sentinels (the
// text unchanged): the answering layer answers from disk by them
// (answer.Degradable), not by exit code.
func unreachable(err error) error { return errmark.As(err, chroma.ErrUnreachable) }
func locked(err error) error      { return errmark.As(err, chroma.ErrLocked) }
