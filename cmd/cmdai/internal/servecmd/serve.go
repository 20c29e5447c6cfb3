// Package servecmd is `cmdai serve`: flags, then this distribution's
// index held warm (answer/warm, given the Factory's Chroma and model),
// then serve's HTTP API (package serve) until a signal or the idle
// timeout, and what it prints.
package servecmd

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"sync"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/cmdai/cmdai/answer/warm"
	"github.com/cmdai/cmdai/chroma/connect"
	"github.com/cmdai/cmdai/chroma/datalock"
	"github.com/cmdai/cmdai/cmd/cmdai/internal/cmdutil"
	"github.com/cmdai/cmdai/cmd/cmdai/internal/cmdutil/afterwrite"
	"github.com/cmdai/cmdai/config"
	"github.com/cmdai/cmdai/distro"
	"github.com/cmdai/cmdai/internal/clix"
	"github.com/cmdai/cmdai/serve"
	"github.com/cmdai/cmdai/serve/servelock"
)

// ServeOptions are the inputs of `cmdai serve`.
type ServeOptions struct {
	*cmdutil.Factory
	Socket string
	Listen string
	// InsecureNoAuth: --listen without a token (--listen-insecure-no-auth).
	InsecureNoAuth bool
	IdleTimeout    time.Duration
	// Background: started by a command that answered alone (`--background`,
	// package autostart): it idle-exits after BackgroundIdle by default,
	// exits when cmdai's binary is replaced, and stamps its log lines.
	Background bool
	// Stop: stop the serve of this data home instead (`--stop`).
	Stop bool
	// Wait is how long serve waits for the index data another cmdai
	// holds (0: exit 6 at once).
	Wait   time.Duration
	Distro string
	Chroma cmdutil.ChromaOptions
	Model  cmdutil.ModelOptions
	// RetryEvery is how long serve without Chroma waits before it tries
	// again (0: 10 s), doubled by each failed try up to 6 times it;
	// tests shorten it.
	RetryEvery time.Duration
}

// NewCmdServe is `cmdai serve`: it parses and checks the flags, then
// calls runF with the options (nil: RunServe; tests pass their own to
// see what the flags gave).
func NewCmdServe(f *cmdutil.Factory, runF func(context.Context, *ServeOptions) error) *cli.Command {
	opts := &ServeOptions{Factory: f}
	flags := []cli.Flag{
		&cli.StringFlag{Name: "socket", Usage: "listen on the Unix socket `PATH` (default: $XDG_RUNTIME_DIR/cmdai.sock, one per data home; see README)", EnvVars: []string{"CMDAI_SOCKET"}, Destination: &opts.Socket},
		&cli.StringFlag{Name: "listen", Usage: "also answer on the loopback TCP address `127.0.0.1:PORT` (everything but the writer's lease), to clients that send the token serve keeps in serve.token in the data directory (made and shown on first use)", Destination: &opts.Listen},
		&cli.BoolFlag{Name: "listen-insecure-no-auth", Usage: "with --listen, ask no token: every program and user of this machine can use serve (web pages are still refused)", Destination: &opts.InsecureNoAuth},
		&cli.DurationFlag{Name: "wait", Value: DefaultWait, Usage: "when another cmdai holds the index data, wait up to `DURATION` for it to let go before exiting 6 (0: exit at once)", Destination: &opts.Wait},
		&cli.DurationFlag{Name: "idle-timeout", Usage: "exit after `DURATION` without a request (0: never)", Destination: &opts.IdleTimeout},
		&cli.StringFlag{Name: "distro", Usage: "hold the index of distribution `ID` (default: this machine's)", EnvVars: []string{"CMDAI_DISTRO"}, Destination: &opts.Distro},
		&cli.BoolFlag{Name: "stop", Usage: "stop the serve of this data home (one you started, or one a command started in the background) and exit", Destination: &opts.Stop},
		&cli.BoolFlag{Name: "background", Hidden: true, Usage: "started by a command in the background: idle-exit, exit when cmdai's binary changes", Destination: &opts.Background},
	}
	flags = append(flags, cmdutil.ModelFlags(&opts.Model)...)
	flags = append(flags, cmdutil.RerankFlags(&opts.Model.Rerank)...)
	flags = append(flags, cmdutil.ChromaFlags(&opts.Chroma)...)
	return &cli.Command{
		Name:      "serve",
		Usage:     "keep the index warm and answer queries over a Unix socket in milliseconds",
		UsageText: "cmdai serve [--listen 127.0.0.1:PORT] [--idle-timeout 30m]",
		Description: `Holds this distribution's index (its private Chroma server or --chroma-url,
the model, the keyword index) and answers JSON over HTTP on a Unix socket
(mode 0600): POST /v1/query, GET /v1/docs?command=NAME, POST /v1/explain,
GET /v1/status, GET /v1/health. "cmdai index query", "index status",
"cmdai explain" and "cmdai mcp" use it
automatically (--no-serve: not); init, refresh, import, clear and docs
write through its Chroma while queries wait, and it reloads after them.
When Chroma stops answering, queries are answered keyword-only from the
keyword index on disk ("degraded": true; "strict": true refuses); serve
that cannot reach or start Chroma starts so too, and serve whose Chroma
is found gone when it reloads after a writer turns so (health says so,
and why). It tries Chroma again (its private server: starts it again)
after 10 s, then less often, up to once a minute, idle or not; requests
never wait for a try. "index status" through serve judges staleness
against the caller's $PATH and $MANPATH. SIGTERM or SIGINT stop it with
its Chroma server. A second serve on the same data home exits 6 at once.
When another cmdai holds the index data (a one-shot query, or "cmdai mcp"
holding it for an agent), serve says which one and waits up to --wait for
it (mcp hands its index over to a serve that starts): clients wait for
serve meanwhile. Past --wait it exits 6, naming the holder.

Started by hand or not at all: "index query", "explain" and "index
status" that find no serve answer by themselves, then start one in the
background (serve --background: its output goes to serve.log in the state
directory, ~/.local/state/cmdai, it exits after --auto-serve-idle without a request, 5m by
default, and when cmdai's binary is replaced). They do not under CI=true
or --batch-mode, nor with --auto-serve=false (CMDAI_AUTO_SERVE=false, or
auto-serve: false in the configuration file). "index status" and "cmdai
doctor" say which serve runs; "cmdai serve --stop" stops it.

--listen 127.0.0.1:PORT also answers on loopback TCP (all but the
writer's lease), to clients that send "Authorization: Bearer TOKEN" (else
401): the token is made on first use, shown once, and kept with mode 0600
in serve.token in the data directory. Only a loopback address is taken,
checked before anything starts. The Host header must name the listener
(its address, localhost, 127.0.0.1 or [::1], with its port; else 403), a
request from a web page (another Origin) is 403, a POST body must be sent
as Content-Type: application/json (else 415), and health over TCP is for
the token's holders. --listen-insecure-no-auth drops the token (serve
warns: every local program and user can then ask it; health says only
ok, writing and degraded); the other checks stay.

EXAMPLES:
   $ cmdai serve --idle-timeout 30m &
   $ cmdai serve --stop            # stop the serve of this data home
   $ cmdai serve --wait 5m &      # outlast an index refresh that runs now
   $ curl --unix-socket "$XDG_RUNTIME_DIR/cmdai.sock" http://cmdai/v1/query -d '{"request": "find files modified today", "k": 3}'
   $ cmdai serve --listen 127.0.0.1:8765 &
   $ curl -H "Authorization: Bearer $(cat ~/.local/share/cmdai/serve.token)" -H 'Content-Type: application/json' http://127.0.0.1:8765/v1/query -d '{"request": "count lines"}'`,
		Flags:        flags,
		OnUsageError: clix.OnUsageError,
		Action: func(c *cli.Context) error {
			if err := clix.FirstErr(clix.NoArgs(c, ""), cmdutil.CheckDistroFlag(opts.Distro), cmdutil.CheckModelFlags(opts.Model)); err != nil {
				return err
			}
			if opts.IdleTimeout < 0 {
				return cmdutil.UsageError("--idle-timeout must be 0 (never) or more, not %s", opts.IdleTimeout)
			}
			if opts.Background && !c.IsSet("idle-timeout") {
				opts.IdleTimeout = cmdutil.DefaultAutoServeIdle
			}
			if opts.Wait < 0 {
				return cmdutil.UsageError("--wait must be 0 (do not wait) or more, not %s", opts.Wait)
			}
			if err := checkListen(opts); err != nil {
				return err
			}
			if !c.IsSet("model-variant") {
				opts.Model.Variant = ""
			}
			if runF != nil {
				return runF(c.Context, opts)
			}
			if opts.Stop {
				return RunStop(c.Context, opts)
			}
			return RunServe(c.Context, opts)
		},
	}
}

// RunServe holds the index and serves until ctx ends or the idle timeout
// (its flags checked by NewCmdServe).
func RunServe(ctx context.Context, opts *ServeOptions) error {
	cmdutil.AbsPaths(&opts.Chroma, &opts.Model)
	socket := opts.Socket
	if socket == "" {
		var err error
		if socket, err = config.ServeSocket(opts.Getenv); err != nil {
			return err
		}
	}
	// The lock first: a second serve must fail before it starts a Chroma.
	lock, err := servelock.Acquire(socket)
	if err != nil {
		if errors.Is(err, servelock.ErrBusy) && opts.Background {
			// Two commands raced to start one: the other one runs.
			fmt.Fprintf(opts.IO.ErrOut, "%s cmdai serve: %v; leaving it to that one\n", stamp(), err)
			return nil
		}
		if errors.Is(err, servelock.ErrBusy) {
			return cmdutil.WithCode(cmdutil.ExitBusy, err)
		}
		return err
	}
	defer lock.Release()
	errOut := opts.IO.ErrOut
	// serve logs from its handlers and its background retry at once: one
	// line at a time, whatever errOut is
	var logMu sync.Mutex
	logf := func(format string, a ...any) {
		logMu.Lock()
		defer logMu.Unlock()
		if opts.Background {
			fmt.Fprint(errOut, stamp()+" ") // a log file read later: when it happened
		}
		fmt.Fprintf(errOut, "cmdai serve: "+format+"\n", a...)
	}
	if opts.Background {
		// A replaced binary stops serve: the next command starts the new one.
		var stop context.CancelFunc
		ctx, stop = context.WithCancel(ctx)
		defer stop()
		go watchExe(ctx, stop, logf)
	}
	tcp, token, err := tcpSetup(opts, logf)
	if err != nil {
		return err
	}
	if tcp != nil {
		defer tcp.Close() // Run closes it; this is for a stop before Run
	}
	// Serve's lock is held while it waits for the data: clients see a
	// starting serve and wait for it rather than take the data themselves.
	// named before they load: one imported meanwhile gets serve replaced
	models := opts.ModelsID(opts.Model)
	w, err := openWarm(ctx, opts, logf)
	if ctx.Err() != nil {
		// SIGINT or SIGTERM, maybe while waiting for the data: a clean stop.
		if w != nil {
			w.Close()
		}
		logf("stopped")
		return nil
	}
	if cmdutil.ExitCode(err) == cmdutil.ExitBusy { // another cmdai holds the data (connect.Open)
		return cmdutil.WithCode(cmdutil.ExitBusy, fmt.Errorf("cmdai serve cannot hold the index: %w\n  stop that process (or let it finish) and start serve again, or give it longer with --wait", err))
	}
	if err != nil {
		return err
	}
	defer w.Close()
	releaseMemory()
	// deferred after w.Close: the retry is stopped (and a try in progress
	// waited for) before the connection it may open is closed. It runs
	// while serve has Chroma too: a reload that finds Chroma gone wakes
	// it. Start says first when serve runs degraded.
	defer w.Start()()
	srv := serve.New(w.Held(), serve.Options{
		Models:         models,
		Listen:         opts.Listen,
		TCP:            tcp,
		Token:          token,
		InsecureNoAuth: opts.InsecureNoAuth,
		IdleTimeout:    opts.IdleTimeout,
		Background:     opts.Background,
		Code:           cmdutil.ExitCode,
		Ready: func(socket string, tcp net.Addr) {
			line := fmt.Sprintf("%s on %s (pid %d)", w.Where().Collection, socket, os.Getpid())
			if tcp != nil {
				line += fmt.Sprintf(" and http://%s", tcp)
			}
			logf("%s", line) // requests may be logging already
		},
		Logf:    logf,
		OnQuiet: releaseMemory,
	})
	err = srv.Run(ctx, lock)
	if err == nil && ctx.Err() != nil {
		logf("stopped")
	}
	return err
}

// DefaultWait outlasts a one-shot command's hold on the data (about 2 s)
// and a `cmdai mcp` handing its index over (about 1-2 s), with room for
// a busy machine.
const DefaultWait = 30 * time.Second

// openWarm holds the index warm (warm.Open) with the Factory's Chroma
// and model: the first connection may wait for the data another cmdai
// holds (--wait), the retries of a serve without Chroma do not (they
// must not hold a request or serve's stop). Serve never leases from a
// serve (NoServe): it is the one.
func openWarm(ctx context.Context, opts *ServeOptions, logf func(string, ...any)) (*warm.Index, error) {
	co := opts.Chroma
	co.NoServe = true
	co.Holder = datalock.KindServe // callers that find it held wait for it to answer
	first := co
	first.LockWait = opts.Wait
	first.OnLockWait = func(holder error) {
		logf("%v\n  waiting up to %s for it to let go (--wait); queries wait for serve meanwhile", holder, opts.Wait)
	}
	return warm.Open(ctx, warm.Options{
		Open: func(ctx context.Context) (distro.Info, *connect.Connection, error) {
			return opts.OpenDistroIndex(ctx, opts.Distro, first)
		},
		Connect: func(ctx context.Context) (*connect.Connection, error) {
			return opts.Connect(ctx, co)
		},
		ChromaURL:  co.URL,
		Model:      opts.Factory.Model(opts.Model),
		Variant:    opts.Model.Variant,
		Rerank:     opts.Factory.Reranker(opts.Model),
		Getenv:     opts.Getenv,
		Logf:       logf,
		RetryEvery: opts.RetryEvery,
		KeepCopy: func(ctx context.Context, conn *connect.Connection, collection string) error {
			return afterwrite.KeepCopy(ctx, opts.Factory, conn, collection)
		},
	})
}
