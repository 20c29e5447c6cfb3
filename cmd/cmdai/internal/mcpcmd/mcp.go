// Package mcpcmd is `cmdai mcp`: the index's search, documentation and
// status as a Model Context Protocol server on stdin and stdout, for AI
// agents. It parses flags and makes one call into mcpserver.
package mcpcmd

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/urfave/cli/v2"

	"github.com/cmdai/cmdai/answer"
	"github.com/cmdai/cmdai/chroma"
	"github.com/cmdai/cmdai/cmd/cmdai/internal/cmdutil"
	"github.com/cmdai/cmdai/config"
	"github.com/cmdai/cmdai/distro"
	"github.com/cmdai/cmdai/index"
	"github.com/cmdai/cmdai/internal/clix"
	"github.com/cmdai/cmdai/search"
	"github.com/cmdai/cmdai/search/kwstore"
	"github.com/cmdai/cmdai/serve"
	"github.com/cmdai/cmdai/serve/mcpserver"
	"github.com/cmdai/cmdai/serve/servelock"
)

// Options are the inputs of `cmdai mcp`.
type Options struct {
	*cmdutil.Factory
	Distro string
	// KeepOpen is how long the index stays open after the last call.
	KeepOpen time.Duration
	// NoServe answers every call in this process even when serve runs.
	NoServe bool
	Chroma  cmdutil.ChromaOptions
	Model   cmdutil.ModelOptions
	// Transport is stdio in use; tests may give another.
	Transport mcp.Transport
}

// DefaultKeepOpen: an agent asks in bursts; between them, `index
// refresh` or `init` may need the private server's data directory.
const DefaultKeepOpen = 5 * time.Minute

// NewCmdMCP is `cmdai mcp`.
func NewCmdMCP(f *cmdutil.Factory) *cli.Command {
	opts := &Options{Factory: f}
	flags := []cli.Flag{
		&cli.StringFlag{Name: "distro", Usage: "answer from the index of distribution `ID` (default: this machine's)", EnvVars: []string{"CMDAI_DISTRO"}, Destination: &opts.Distro},
		&cli.DurationFlag{Name: "keep-open", Value: DefaultKeepOpen, Usage: "close the index (and stop the private Chroma server, freeing its data for other cmdai commands) after `DURATION` without a call; the next call opens it again (0: keep it open for the whole session)", Destination: &opts.KeepOpen},
	}
	flags = append(flags, cmdutil.ModelFlags(&opts.Model)...)
	flags = append(flags, cmdutil.NoServeFlag(&opts.NoServe))
	flags = append(flags, cmdutil.ChromaFlags(&opts.Chroma)...)
	return &cli.Command{
		Name:      "mcp",
		Usage:     "serve the index to AI agents as a Model Context Protocol server on stdio",
		UsageText: "cmdai mcp [--distro ID] [--chroma-url URL]",
		Description: `Speaks MCP (JSON-RPC) on stdin and stdout, one message per line, until
the client closes stdin; logs go to stderr. A line that is no JSON-RPC
message (or is over 4 MiB) gets a JSON-RPC error, and the session goes on. An MCP client starts it. Tools:
   search_commands  the commands for a task (query, k, mode), a few lines each
   command_docs     one command's summary, synopsis, options, examples, or
                    one option's text (command, option, section, max_tokens)
   explain_command  a shell command line checked word by word against the
                    index's option records (line): ok or NOT OK first
   index_status     which index answers, its counts, model and build time
Each call goes to a running "cmdai serve" that holds the index asked for
(checked per call: serve may start or stop during a session), else the
index is opened in this process on the first call that needs it and kept
until --keep-open passes without a call, or until a "cmdai serve" starts
on the same data: mcp then closes its index (freeing the data serve waits
for) and the next calls wait for serve and go through it. When Chroma
cannot be started or reached, search_commands answers keyword-only from
the keyword index on disk (none: from the live pages of the commands it
names), command_docs from the keyword index or the command's live man page or
--help, and explain_command from the keyword index, their first line
saying so. A tool that cannot answer (no index, no
model) gives an error saying what to run, and the server keeps serving.

EXAMPLES:
   $ claude mcp add cmdai -- cmdai mcp
   $ cmdai mcp --distro debian-12`,
		Flags:        flags,
		OnUsageError: clix.OnUsageError,
		Action: func(c *cli.Context) error {
			if err := clix.NoArgs(c, "an MCP client sends its requests on stdin"); err != nil {
				return err
			}
			if opts.KeepOpen < 0 {
				return cmdutil.UsageError("--keep-open must be 0 (the whole session) or more, not %v", opts.KeepOpen)
			}
			if err := clix.FirstErr(cmdutil.CheckDistroFlag(opts.Distro), cmdutil.CheckModelFlags(opts.Model)); err != nil {
				return err
			}
			// The collection decides the model variant unless one is asked for.
			if !c.IsSet("model-variant") {
				opts.Model.Variant = ""
			}
			return Run(c.Context, opts)
		},
	}
}

// Run serves until the client goes or ctx ends, then closes the index
// (and stops the private Chroma server, if it started one).
func Run(ctx context.Context, opts *Options) error {
	b, closeB := backend(ctx, opts)
	defer closeB()
	t := opts.Transport
	if t == nil {
		// a bad line gets its JSON-RPC error and the session goes on
		t = &mcpserver.StdioTransport{In: os.Stdin, Out: os.Stdout,
			Logf: func(format string, a ...any) { fmt.Fprintf(opts.IO.ErrOut, "cmdai mcp: "+format+"\n", a...) }}
	}
	err := mcpserver.New(b, opts.Version).Run(ctx, t)
	if err != nil && ctx.Err() == nil {
		return fmt.Errorf("MCP session: %w", err)
	}
	return nil
}

// handoverEvery is how often mcp, holding the index, looks for a serve
// that starts on its data: that serve waits for the data lock (up to its
// --wait, 30 s by default) and its clients wait for it.
const handoverEvery = time.Second

// backend is what answers the tools, per call: a running serve that
// holds the index asked for, else the index held in this process, which
// is handed over to a serve that starts (Handover).
func backend(ctx context.Context, opts *Options) (mcpserver.Backend, func()) {
	var owns atomic.Bool // the open index runs its own private Chroma
	local := mcpserver.NewLocal(ctx, opener(opts, &owns), loadKeywords(opts.Factory))
	local.KeepOpen = opts.KeepOpen
	local.Verify = verify
	local.FromDisk = fromDisk(opts)
	local.DocsFromDisk = docsFromDisk(opts)
	local.ExplainFromDisk = explainFromDisk(opts)
	local.OpenDocs = docsOpener(opts, &owns)
	if info, err := cmdutil.ResolveDistro(ctx, opts.Distro, nil); err == nil {
		local.OnPath = answer.OnPath(ctx, info)
	}
	p := mcpserver.PerCall{Local: local}
	sc := &serveConn{opts: opts}
	wctx, stopWatch := context.WithCancel(ctx)
	// another Chroma or model than serve's: serve cannot answer as we would
	if !opts.NoServe && opts.Chroma.URL == "" && opts.Chroma.DataDir == "" && opts.Model.Variant == "" && opts.Model.Backend == "" {
		if socket, err := config.ServeSocket(opts.Getenv); err == nil {
			h := mcpserver.Handover{Local: local, Wanted: func() bool { return owns.Load() && serveStarting(socket) },
				Logf: func(format string, a ...any) { fmt.Fprintf(opts.IO.ErrOut, "cmdai mcp: "+format+"\n", a...) }}
			go h.Watch(wctx, handoverEvery)
			p.Serve = func(ctx context.Context) (mcpserver.Backend, func(error), bool) {
				h.Check()
				return sc.backend(ctx)
			}
		} else {
			p.Serve = sc.backend
		}
	}
	return p, func() { stopWatch(); sc.drop(nil); local.Close() }
}

// serveConn keeps the client of the running serve between calls (one
// connection, kept alive) until a call finds serve gone; then the next
// call looks for a serve again.
type serveConn struct {
	opts       *Options
	mu         sync.Mutex
	c          *serve.Client
	collection string
}

// backend is serve's Backend when a serve holding the distribution's
// index answers.
func (s *serveConn) backend(ctx context.Context) (mcpserver.Backend, func(error), bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.c == nil {
		c, ok := s.opts.ServeClient(ctx)
		if !ok {
			return nil, nil, false
		}
		h, err := c.Health(ctx)
		if err == nil {
			var info distro.Info
			if info, err = cmdutil.ResolveDistro(ctx, s.opts.Distro, nil); err == nil && info.CollectionName() != h.Collection {
				err = serve.ErrNotHeld
			}
		}
		if err != nil {
			c.Close()
			return nil, nil, false
		}
		s.c, s.collection = c, h.Collection
	}
	c := s.c
	done := func(err error) {
		if errors.Is(err, mcpserver.ErrServeGone) {
			s.drop(c)
		}
	}
	return mcpserver.Remote{C: c, Collection: s.collection, Socket: c.Socket(), Distro: s.opts.Distro}, done, true
}

// drop forgets the client c (nil: any).
func (s *serveConn) drop(c *serve.Client) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.c != nil && (c == nil || s.c == c) {
		s.c.Close()
		s.c = nil
	}
}

// fromDisk answers a search keyword-only from the keyword index on disk
// when the index could not be opened because Chroma is down or busy,
// every match whole as a search gives them.
func fromDisk(opts *Options) func(context.Context, mcpserver.Query, error) (search.Answer, error) {
	return func(ctx context.Context, q mcpserver.Query, cause error) (search.Answer, error) {
		info, err := cmdutil.ResolveDistro(ctx, opts.Distro, nil)
		if err != nil {
			return search.Answer{}, cause
		}
		req := search.Request{Query: q.Request, K: q.K, Mode: q.Mode, Matches: -1, MatchText: -1}
		res, err := answer.QueryFromDisk(ctx, opts.Getenv, info.CollectionName(), req, time.Now(), cause)
		if err != nil {
			return search.Answer{}, err
		}
		return search.Answer{Commands: res.Commands, Degraded: res.DegradedReason}, nil
	}
}

// docsFromDisk answers command_docs from the keyword index on disk, or
// the command's page parsed live, when the index could not be opened
// because Chroma is down or busy.
func docsFromDisk(opts *Options) func(context.Context, string, error) (search.CommandDoc, error) {
	return func(ctx context.Context, command string, cause error) (search.CommandDoc, error) {
		info, err := cmdutil.ResolveDistro(ctx, opts.Distro, nil)
		if err != nil {
			return search.CommandDoc{}, cause
		}
		return answer.DocsFromDisk(ctx, opts.Getenv, info.CollectionName(), command, false, cause)
	}
}

// explainFromDisk judges a line by the keyword index on disk when the
// index could not be opened because Chroma is down or busy.
func explainFromDisk(opts *Options) func(context.Context, string, error) (serve.ExplainResult, error) {
	return func(ctx context.Context, line string, cause error) (serve.ExplainResult, error) {
		info, err := cmdutil.ResolveDistro(ctx, opts.Distro, nil)
		if err != nil {
			return serve.ExplainResult{}, cause
		}
		return answer.ExplainFromDisk(ctx, opts.Getenv, info.CollectionName(), line, answer.OnPath(ctx, info), false, time.Now(), cause)
	}
}

// serveStarting tells whether a serve holds its lock on socket but does
// not listen yet: it is starting, and may be waiting for the data this
// process holds. A serve that listens has its own data (another Chroma,
// or the same one it holds itself) and needs nothing of ours.
func serveStarting(socket string) bool {
	if !servelock.Starting(socket) {
		return false
	}
	c, err := net.DialTimeout("unix", socket, 500*time.Millisecond)
	if err != nil {
		return true
	}
	c.Close()
	return false
}

// opener opens the index as `index query` does: the distribution's
// collection on the configured Chroma, and the embedder of its model.
// owns says, while the index is open, whether it started its own private
// Chroma (which holds the data directory a serve would need).
func opener(opts *Options, owns *atomic.Bool) mcpserver.Opener {
	return func(ctx context.Context) (search.Searcher, func(), error) {
		info, conn, err := opts.OpenDistroIndex(ctx, opts.Distro, opts.Chroma)
		if err != nil {
			return search.Searcher{}, nil, err
		}
		s, closeS, err := opts.OpenSearcher(ctx, conn, info, opts.Model, false)
		if err != nil {
			conn.Close()
			return search.Searcher{}, nil, err
		}
		owns.Store(conn.OwnsDataDir())
		return s, func() { owns.Store(false); closeS(); conn.Close() }, nil
	}
}

// docsOpener opens the distribution's collection alone, without the
// model: what explain_command reads (see Local.OpenDocs).
func docsOpener(opts *Options, owns *atomic.Bool) mcpserver.Opener {
	return func(ctx context.Context) (search.Searcher, func(), error) {
		info, conn, err := opts.OpenDistroIndex(ctx, opts.Distro, opts.Chroma)
		if err != nil {
			return search.Searcher{}, nil, err
		}
		coll, err := answer.OpenAnswerable(ctx, conn.Store, info.CollectionName())
		if err != nil {
			conn.Close()
			return search.Searcher{}, nil, err
		}
		owns.Store(conn.OwnsDataDir())
		return search.Searcher{Coll: coll}, func() { owns.Store(false); conn.Close() }, nil
	}
}

// loadKeywords gives an open searcher its keyword index (from the cache,
// else built from the collection), for keyword and hybrid requests.
func loadKeywords(f *cmdutil.Factory) func(context.Context, *search.Searcher) error {
	return func(ctx context.Context, s *search.Searcher) error {
		dir, err := config.KeywordDir(f.Getenv)
		if err != nil {
			return err
		}
		s.KeywordDir = dir
		s.Keywords, err = kwstore.Open(ctx, s.Coll, dir)
		return err
	}
}

// verify is index_status' check of the open index (answer.VerifyIndex):
// what `cmdai index status` reports.
func verify(ctx context.Context, coll search.Collection) (*index.Verification, error) {
	c, ok := coll.(*chroma.Collection)
	if !ok {
		return nil, nil
	}
	return answer.VerifyIndex(ctx, c)
}
