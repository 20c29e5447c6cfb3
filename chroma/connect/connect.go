// Package connect reaches the Chroma a command asked for: a server at a URL
// (a team's shared or distributed Chroma), else the private server over
// a data directory, started here or, when a running cmdai serve owns it,
// lent by serve under its write lease (Lease, given by the caller so that
// this package knows nothing of serve). A Connection is what every
// command and holder opens an index on; Watch tells why a call on one
// failed (the private server died, the disk is full).
package connect

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"sync"
	"time"

	"github.com/cmdai/cmdai/chroma"
	"github.com/cmdai/cmdai/chroma/datalock"
	"github.com/cmdai/cmdai/chroma/diskspace"
	"github.com/cmdai/cmdai/embed"
	"github.com/cmdai/cmdai/internal/errmark"
	"github.com/cmdai/cmdai/internal/exitcode"
)

// Options say which Chroma to use: a server at URL, or (no URL) a
// private one started on loopback over DataDir. The CLI's --chroma-*
// flags bind to them.
type Options struct {
	URL, Tenant, Database, Token, TokenHeader string
	Bin, DataDir                              string
	// NoServe: start the private server even if a serve owns it (serve
	// itself, which must not lease from itself).
	NoServe bool
	// ReadOnly: the command only reads (a one-shot answer, status,
	// doctor, export): a serve that owns the private server lends it
	// under a read lease, which neither holds serve's queries nor makes
	// it reload after.
	ReadOnly bool
	// LockWait and OnLockWait: wait so long for a private server's data
	// directory that another process holds (serve, which outlasts a
	// one-shot command's hold), see chroma.ServerOptions.
	LockWait   time.Duration
	OnLockWait func(holder error)
	// Holder is what the command does with the private server's data,
	// told to another cmdai that finds it held (datalock.Kind): "" is
	// datalock.KindRead with ReadOnly, else datalock.KindWrite.
	Holder datalock.Kind
}

// Lease lends the private server of dataDir when a running cmdai serve
// owns it: its URL and what ends the lease (serve then reloads, unless
// read: a reader's lease). ok false: no serve owns it, start the server
// as usual; an error: one does, and its lease failed.
type Lease func(ctx context.Context, dataDir string, read bool) (url string, release io.Closer, ok bool, err error)

// Env is what Open needs beyond the options: the records' authenticator,
// the environment (where the chroma executable is found) and how to
// lease a running serve's server (nil: never).
type Env struct {
	Auth   chroma.Authenticator
	Getenv func(string) string
	Lease  Lease
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

// LeaseLost tells whether the connection went through a running serve's
// Chroma, under its lease, and that Chroma answers no more (serve died or
// was killed): the call may be made again on a server of its own.
func (c *Connection) LeaseLost(ctx context.Context) bool {
	return c != nil && c.lease != nil && chroma.Answers(ctx, c.URL) != nil
}

type lockWaitKey struct{}

// WithLockWait makes Open wait up to d for a private server's data
// directory that another process holds, when its options wait less: a
// call whose serve just died waits for that serve's Chroma to exit.
func WithLockWait(ctx context.Context, d time.Duration) context.Context {
	return context.WithValue(ctx, lockWaitKey{}, d)
}

// Closed tells whether Close ran.
func (c *Connection) Closed() bool { return c != nil && c.closed }

// OwnsDataDir tells whether this connection started the private server
// itself, and so holds its data directory until Close (not a remote
// server, nor serve's under its lease).
func (c *Connection) OwnsDataDir() bool { return c != nil && c.server != nil && !c.closed }

// Isolation says who can reach the private server this connection
// started (chroma.Isolation); ok false when it started none.
func (c *Connection) Isolation() (iso chroma.Isolation, ok bool) {
	if !c.OwnsDataDir() {
		return chroma.Isolation{}, false
	}
	return c.server.Isolation, true
}

// DataDir is the private server's data directory ("" with a URL).
func (c *Connection) DataDir() string { return c.dataDir }

// CheckSpace refuses, before a write of about records records, a private
// server's disk that cannot hold them. A remote server's disk cannot be
// seen from here: its own error is recognised instead (Watch.Explain).
func (c *Connection) CheckSpace(records, dims int) error {
	if c == nil || c.dataDir == "" {
		return nil
	}
	if dims <= 0 {
		dims = embed.Dims
	}
	return diskspace.Check(c.dataDir, diskspace.Needed(records, dims))
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

// Open connects to the server at o.URL, else to the private one over
// o.DataDir (which the caller sets): through a running serve's when it
// owns that (env.Lease), else started here. Its failures carry their
// exit code and fix, and are marked chroma.ErrUnreachable or
// chroma.ErrLocked, by which the answering layer answers from disk.
func Open(ctx context.Context, o Options, env Env) (*Connection, error) {
	cfg := chroma.Config{URL: o.URL, Tenant: o.Tenant, Database: o.Database, Token: o.Token, TokenHeader: o.TokenHeader, Auth: env.Auth}
	if o.URL != "" {
		st, err := chroma.Connect(ctx, cfg)
		if err != nil {
			return nil, exitcode.With(exitcode.Unreachable, unreachable(fmt.Errorf("%w\n  check that the server runs and the URL is right, or drop --chroma-url (and CMDAI_CHROMA_URL) to let cmdai start its own", err)))
		}
		conn := &Connection{Store: st, Mode: "remote"}
		watch(ctx, conn)
		return conn, nil
	}
	if o.DataDir == "" {
		return nil, errors.New("connect.Open: no Chroma URL and no data directory")
	}
	if !o.NoServe && env.Lease != nil {
		if conn, ok, err := throughServe(ctx, cfg, o.DataDir, o.ReadOnly, env.Lease); ok {
			return conn, err
		}
	}
	bin, err := chroma.FindBin(o.Bin, env.Getenv)
	if err != nil {
		return nil, exitcode.With(exitcode.Unreachable, unreachable(err))
	}
	holder := o.Holder
	if holder == "" {
		holder = datalock.KindWrite
		if o.ReadOnly {
			holder = datalock.KindRead
		}
	}
	if d, ok := ctx.Value(lockWaitKey{}).(time.Duration); ok && d > o.LockWait {
		o.LockWait = d
	}
	srv, err := chroma.StartServer(ctx, chroma.ServerOptions{Bin: bin, DataDir: o.DataDir, LockWait: o.LockWait, OnLockWait: o.OnLockWait, Holder: holder})
	if err != nil {
		if errors.Is(err, chroma.ErrLocked) {
			return nil, exitcode.With(exitcode.Busy, locked(err))
		}
		return nil, exitcode.With(exitcode.Unreachable, unreachable(err))
	}
	cfg.URL = srv.URL
	st, err := chroma.Connect(ctx, cfg)
	if err != nil {
		srv.Stop()
		return nil, exitcode.With(exitcode.Unreachable, unreachable(err))
	}
	conn := &Connection{Store: st, server: srv, Mode: "embedded", dataDir: o.DataDir}
	watch(ctx, conn)
	return conn, nil
}

// throughServe: when a serve owns the private server of dataDir, the
// command uses that server under serve's write lease (serve's queries
// wait, and it reloads when the lease ends) instead of starting its own,
// which the data lock would refuse (exit 6). ok false: no serve, or one
// on another Chroma: start as usual.
func throughServe(ctx context.Context, cfg chroma.Config, dataDir string, read bool, lease Lease) (*Connection, bool, error) {
	url, release, ok, err := lease(ctx, dataDir, read)
	if !ok {
		return nil, false, nil
	}
	if err != nil {
		return nil, true, exitcode.With(exitcode.Busy, locked(fmt.Errorf("cmdai serve runs on this index and its lease failed: %w (stop serve, or run the command again)", err)))
	}
	cfg.URL = url
	st, err := chroma.Connect(ctx, cfg)
	if err != nil {
		release.Close()
		return nil, true, exitcode.With(exitcode.Unreachable, unreachable(fmt.Errorf("reach the Chroma server of cmdai serve: %w (check `cmdai index status`, or restart serve)", err)))
	}
	conn := &Connection{Store: st, Mode: "embedded", dataDir: dataDir, lease: release}
	watch(ctx, conn)
	return conn, true, nil
}

// SameDir tells whether two paths name the same directory (as written,
// made absolute).
func SameDir(a, b string) bool {
	a, errA := filepath.Abs(a)
	b, errB := filepath.Abs(b)
	return errA == nil && errB == nil && filepath.Clean(a) == filepath.Clean(b)
}

// unreachable and locked mark a failure to find, start or reach Chroma,
// or a data directory another cmdai holds, with chroma's sentinels (the
// text unchanged): the answering layer answers from disk by them
// (answer.Degradable), not by exit code.
func unreachable(err error) error { return errmark.As(err, chroma.ErrUnreachable) }
func locked(err error) error      { return errmark.As(err, chroma.ErrLocked) }

// Watch keeps the connections a command opened, so that the app can
// tell why a Chroma call failed (the private server died, the disk is
// full) instead of printing the client's raw text (EOF, HTTP 500).
type Watch struct {
	mu    sync.Mutex
	conns []*Connection
}

type watchKey struct{}

// WithWatch gives ctx a watch that Open registers with.
func WithWatch(ctx context.Context) (context.Context, *Watch) {
	w := &Watch{}
	return context.WithValue(ctx, watchKey{}, w), w
}

func watch(ctx context.Context, c *Connection) {
	if w, ok := ctx.Value(watchKey{}).(*Watch); ok {
		w.mu.Lock()
		w.conns = append(w.conns, c)
		w.mu.Unlock()
	}
}

// Explain turns a failed command's error into the fault behind it when a
// connection knows it: a full disk (exit 1, where and what to do), or a
// private server that died (exit 4, the end of its log).
func (w *Watch) Explain(err error) error {
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
			mount, free := diskspace.DiskOf(c.dataDir)
			if noSpace || (chroma.IsCompactionFailure(err) && free >= 0 && free < chroma.LowSpace) {
				return fmt.Errorf("%w (Chroma's log: %s)", diskspace.Error(mount, 0, free), chroma.LogPath(c.dataDir))
			}
		}
		if lost != nil {
			return exitcode.With(exitcode.Unreachable, lost)
		}
		if c.lease != nil {
			// serve's Chroma, lent: serve (and the server with it) may
			// have stopped or been killed under the lease
			if perr := chroma.Answers(context.Background(), c.URL); perr != nil {
				return exitcode.With(exitcode.Unreachable, fmt.Errorf("%w: the Chroma server of cmdai serve at %s stopped answering while this command wrote through it (%v): serve stopped or was killed; check it (`cmdai index status`), then run the command again (with no serve running it starts its own)", chroma.ErrUnreachable, c.URL, perr))
			}
		}
		if c.dataDir == "" {
			if perr := chroma.Answers(context.Background(), c.URL); perr != nil {
				return exitcode.With(exitcode.Unreachable, fmt.Errorf("%w: the Chroma server at %s stopped answering while cmdai was using it (%v): check that it runs, then run the command again", chroma.ErrUnreachable, c.URL, perr))
			}
		}
	}
	return err
}
