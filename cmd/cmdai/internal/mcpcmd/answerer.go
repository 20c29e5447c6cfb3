package mcpcmd

import (
	"context"
	"fmt"
	"net"
	"sync/atomic"
	"time"

	"github.com/cmdai/cmdai/answer"
	"github.com/cmdai/cmdai/answer/session"
	"github.com/cmdai/cmdai/chroma/datalock"
	"github.com/cmdai/cmdai/cmd/cmdai/internal/cmdutil"
	"github.com/cmdai/cmdai/config"
	"github.com/cmdai/cmdai/distro"
	"github.com/cmdai/cmdai/search"
	"github.com/cmdai/cmdai/serve"
	"github.com/cmdai/cmdai/serve/mcpserver"
	"github.com/cmdai/cmdai/serve/servelock"
)

// handoverEvery is how often mcp, holding the index, looks for a serve
// that starts on its data: that serve waits for the data lock (up to its
// --wait, 30 s by default) and its clients wait for it.
const handoverEvery = time.Second

// holder names this process in index_status.
const holder = "this process (cmdai mcp)"

// indexOpener opens the index once: the searcher, what closes it, and
// whether it runs its own private Chroma (which holds the data directory
// a serve would need).
type indexOpener func(ctx context.Context) (s search.Searcher, closeFn func(), ownsData bool, err error)

// parts are what the Answerer of `cmdai mcp` is built from: realParts
// opens Chroma and the model and dials serve; tests give fakes.
type parts struct {
	// resolve is the distribution asked for (--distro, else this
	// machine's).
	resolve func(ctx context.Context) (distro.Info, error)
	// open opens the index whole; openDocs without its model (what
	// explain_command reads).
	open, openDocs indexOpener
	loadKeywords   func(ctx context.Context, s *search.Searcher) error
	// dial reaches the running serve of this data home, if one runs.
	dial func(ctx context.Context) (serve.Conn, bool)
	// socket is serve's socket (an error: no handover to a serve).
	socket func() (string, error)
	// starting tells whether a serve is starting on socket.
	starting func(socket string) bool
}

// realParts are the parts of opts: the index opened as `index query`
// opens it, serve reached on this data home's socket.
func realParts(opts *Options) parts {
	return parts{
		resolve: func(ctx context.Context) (distro.Info, error) {
			return cmdutil.ResolveDistro(ctx, opts.Distro, opts.DetectDistro)
		},
		open:         opener(opts),
		openDocs:     docsOpener(opts),
		loadKeywords: session.LoadKeywords(opts.Getenv),
		dial: func(ctx context.Context) (serve.Conn, bool) {
			c, ok := opts.ServeClient(ctx)
			if !ok {
				return nil, false
			}
			return c, true
		},
		socket:   func() (string, error) { return config.ServeSocket(opts.Getenv) },
		starting: serveStarting,
	}
}

// NewAnswerer is what answers the tools of `cmdai mcp` run with opts
// (newAnswerer on the real parts).
func NewAnswerer(ctx context.Context, opts *Options) (answer.Answerer, func()) {
	return newAnswerer(ctx, opts, realParts(opts))
}

// newAnswerer is what answers the tools, per call (answer.ServeFirst): a
// running serve that holds the index asked for (serve.Remote), else the
// index held in this process (session.Index), which is handed over to a
// serve that starts on its data (mcpserver.Handover). The returned
// function ends it all.
func newAnswerer(ctx context.Context, opts *Options, p parts) (answer.Answerer, func()) {
	var owns atomic.Bool // the open index runs its own private Chroma
	track := func(open indexOpener) session.Opener {
		return func(ctx context.Context) (search.Searcher, func(), error) {
			s, closeFn, own, err := open(ctx)
			if err != nil {
				return search.Searcher{}, nil, err
			}
			owns.Store(own)
			return s, func() { owns.Store(false); closeFn() }, nil
		}
	}
	local := session.New(ctx, track(p.open), p.loadKeywords)
	local.KeepOpen = opts.KeepOpen
	local.OpenDocs = track(p.openDocs)
	local.Holder = holder
	if info, err := p.resolve(ctx); err == nil {
		local.OnPath = answer.OnPath(ctx, info)
	}
	// the session's answers degrade as every door's (answer.Degrade)
	degraded := answer.Degrade{Inner: local, Getenv: opts.Getenv, Index: func(ctx context.Context, _ string) (string, func(string) bool, error) {
		info, err := p.resolve(ctx)
		return info.CollectionName(), local.OnPath, err
	}}
	pc := answer.ServeFirst{Local: degraded}
	sc := &serve.Finder{Dial: p.dial, Resolve: p.resolve, Distro: opts.Distro, OtherBuild: opts.Factory.OtherBuild,
		Models: func() string { return opts.Factory.ModelsID(cmdutil.ModelOptions{}) }}
	wctx, stopWatch := context.WithCancel(ctx)
	// another Chroma, model or reranker than serve's: serve cannot answer
	// as we would (the rule `index query` follows too)
	if !cmdutil.ServeRuledOut(opts.NoServe, opts.Chroma, opts.Model) {
		if socket, err := p.socket(); err == nil {
			h := mcpserver.Handover{Local: local, Wanted: func() bool { return owns.Load() && p.starting(socket) },
				Logf: func(format string, a ...any) { fmt.Fprintf(opts.IO.ErrOut, "cmdai mcp: "+format+"\n", a...) }}
			go h.Watch(wctx, handoverEvery)
			pc.Serve = func(ctx context.Context) (answer.Answerer, func(error), bool) {
				h.Check()
				return sc.Answerer(ctx)
			}
		} else {
			pc.Serve = sc.Answerer
		}
	}
	return pc, func() { stopWatch(); sc.Close(); local.Close() }
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
func opener(opts *Options) indexOpener {
	return func(ctx context.Context) (search.Searcher, func(), bool, error) {
		info, conn, err := opts.OpenDistroIndex(ctx, opts.Distro, sessionChroma(opts))
		if err != nil {
			return search.Searcher{}, nil, false, err
		}
		s, closeS, err := opts.OpenSearcher(ctx, conn, info, opts.Model, false)
		if err != nil {
			conn.Close()
			return search.Searcher{}, nil, false, err
		}
		return s, func() { closeS(); conn.Close() }, conn.OwnsDataDir(), nil
	}
}

// sessionChroma is the session's Chroma options: its index is held until
// a serve wants it (Handover), which another cmdai that finds the data
// held does not wait for.
func sessionChroma(opts *Options) cmdutil.ChromaOptions {
	co := opts.Chroma
	co.Holder = datalock.KindSession
	return co
}

// docsOpener opens the distribution's collection alone, without the
// model: what explain_command reads (see session.Index's OpenDocs).
func docsOpener(opts *Options) indexOpener {
	return func(ctx context.Context) (search.Searcher, func(), bool, error) {
		info, conn, err := opts.OpenDistroIndex(ctx, opts.Distro, sessionChroma(opts))
		if err != nil {
			return search.Searcher{}, nil, false, err
		}
		coll, err := answer.OpenAnswerable(ctx, conn.Store, info.CollectionName())
		if err != nil {
			conn.Close()
			return search.Searcher{}, nil, false, err
		}
		return search.Searcher{Coll: coll}, func() { conn.Close() }, conn.OwnsDataDir(), nil
	}
}
