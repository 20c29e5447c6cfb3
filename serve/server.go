package serve

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cmdai/cmdai/serve/gate"
	"github.com/cmdai/cmdai/serve/guard"
	"github.com/cmdai/cmdai/serve/servelock"
)

// Options configure a Server; zero values take the defaults.
type Options struct {
	// Listen is an extra TCP address (loopback only) for every endpoint
	// but the lease, which is only offered on the socket; TCP, when set,
	// is that address already bound (guard.ListenTCP), so that a bad address
	// fails before anything starts. Token is what its clients must send
	// ("Authorization: Bearer <token>"); without one Run refuses to
	// listen unless InsecureNoAuth says the user asked for no
	// authentication.
	Listen         string
	TCP            net.Listener
	Token          string
	InsecureNoAuth bool
	// IdleTimeout: exit after this long without a request (0: never).
	IdleTimeout time.Duration
	// Background: started by a command, not by hand (Health says so).
	Background bool
	// Models names the models serve answers with (Health.Models).
	Models string
	// QueryWait bounds how long a query waits for a writer's lease to end
	// before it is answered 503 (default 2 minutes).
	QueryWait time.Duration
	// HeaderTimeout drops a client that connects and does not send its
	// request (default 5 s).
	HeaderTimeout time.Duration
	// Code gives an error of the Backend its exit code (default 1).
	Code func(error) int
	// Ready is called once serve listens.
	Ready func(socket string, tcp net.Addr)
	// Logf reports what serve does on its own (reloads, idle exit).
	Logf func(format string, a ...any)
	// OnQuiet is called once each time serve turns quiet: requests ran,
	// then none for QuietAfter (default 5 s). `cmdai serve` returns the
	// memory its queries freed to the system there, so that what it holds
	// while nobody asks is what it needs, not its last burst's garbage.
	OnQuiet    func()
	QuietAfter time.Duration
}

// Server answers the API for one Backend.
type Server struct {
	b    Backend
	opts Options
	gate gate.Gate
	// lastActive (unix nanoseconds) and active drive the idle timeout.
	lastActive atomic.Int64
	active     atomic.Int64
	// requests counts the requests served (OnQuiet waits for the first).
	requests atomic.Int64
}

// New makes a Server of b.
func New(b Backend, opts Options) *Server {
	if opts.QueryWait <= 0 {
		opts.QueryWait = 2 * time.Minute
	}
	if opts.HeaderTimeout <= 0 {
		opts.HeaderTimeout = 5 * time.Second
	}
	if opts.Code == nil {
		opts.Code = func(error) int { return 1 }
	}
	if opts.Logf == nil {
		opts.Logf = func(string, ...any) {}
	}
	if opts.QuietAfter <= 0 {
		opts.QuietAfter = 5 * time.Second
	}
	s := &Server{b: b, opts: opts}
	s.lastActive.Store(time.Now().UnixNano())
	return s
}

// Run listens on the locked socket (replacing a stale one, mode 0600) and
// on opts.Listen, and serves until ctx ends or the idle timeout passes;
// then it stops accepting, lets the requests in flight finish (up to 5 s)
// and removes the socket. It does not close the Backend.
func (s *Server) Run(ctx context.Context, l *servelock.Lock) error {
	tl := s.opts.TCP
	if (tl != nil || s.opts.Listen != "") && s.opts.Token == "" && !s.opts.InsecureNoAuth {
		return errors.New("--listen needs a token (or the explicit --listen-insecure-no-auth)")
	}
	if tl == nil && s.opts.Listen != "" {
		var err error
		if tl, err = guard.ListenTCP(s.opts.Listen); err != nil {
			return err
		}
	}
	ul, err := listenSocket(l.Socket)
	if err != nil {
		if tl != nil {
			tl.Close()
		}
		return err
	}
	defer os.Remove(l.Socket)
	srvs := []*http.Server{s.httpServer(s.routes(true))}
	lns := []net.Listener{guard.Listener(ul, tooLarge)}
	if tl != nil {
		srvs = append(srvs, s.httpServer(s.guardTCP(tl)))
		lns = append(lns, guard.Listener(tl, tooLarge))
	}
	errc := make(chan error, len(srvs))
	for i := range srvs {
		go func(i int) { errc <- srvs[i].Serve(lns[i]) }(i)
	}
	if s.opts.Ready != nil {
		var addr net.Addr
		if tl != nil {
			addr = tl.Addr()
		}
		s.opts.Ready(l.Socket, addr)
	}
	idle := s.idleWatch(ctx)
	s.quietWatch(ctx)
	var runErr error
	select {
	case <-ctx.Done():
	case <-idle:
		s.opts.Logf("idle for %s: stopping", s.opts.IdleTimeout)
	case runErr = <-errc:
		runErr = fmt.Errorf("serve stopped listening: %w", runErr)
	}
	shut, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	var wg sync.WaitGroup
	for _, srv := range srvs {
		wg.Add(1)
		go func(srv *http.Server) {
			defer wg.Done()
			if srv.Shutdown(shut) != nil {
				srv.Close() // a lease or a slow client: cut it
			}
		}(srv)
	}
	wg.Wait()
	return runErr
}

// guardTCP is the TCP listener's handler: the API but the lease, behind
// the token, Host, Origin and content-type checks.
func (s *Server) guardTCP(tl net.Listener) http.Handler {
	g := guard.TCP{Listen: s.opts.Listen, Addr: tl.Addr(), Token: s.opts.Token, Health: func() guard.PublicHealth {
		return guard.PublicHealth{OK: true, Writing: s.gate.IsWriting(), Degraded: s.b.Where().Degraded}
	}}
	return g.Wrap(s.routes(false))
}

// maxHeader bounds a request's header: a status request carries the
// caller's $PATH and $MANPATH (MaxEnvBytes each) in its URL.
const maxHeader = 64 << 10

// tooLarge is the 431 answer's message.
const tooLarge = "request line and headers over 64 KiB: send less (a status request's path and manpath at most 8 KiB each)"

func (s *Server) httpServer(h http.Handler) *http.Server {
	return &http.Server{
		Handler:           h,
		ReadHeaderTimeout: s.opts.HeaderTimeout,
		ReadTimeout:       s.opts.HeaderTimeout + 10*time.Second,
		IdleTimeout:       time.Minute,
		MaxHeaderBytes:    maxHeader,
		ErrorLog:          nil,
	}
}

// idleWatch fires once no request has run for IdleTimeout (never when 0).
func (s *Server) idleWatch(ctx context.Context) <-chan struct{} {
	ch := make(chan struct{})
	if s.opts.IdleTimeout <= 0 {
		return ch
	}
	tick := min(max(s.opts.IdleTimeout/10, 10*time.Millisecond), time.Second)
	go func() {
		t := time.NewTicker(tick)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				quiet := time.Since(time.Unix(0, s.lastActive.Load()))
				if s.active.Load() == 0 && quiet >= s.opts.IdleTimeout {
					close(ch)
					return
				}
			}
		}
	}()
	return ch
}

// quietWatch calls OnQuiet once after each stretch of requests, when
// none has run for QuietAfter; never while a request runs, and not again
// until another request has come.
func (s *Server) quietWatch(ctx context.Context) {
	if s.opts.OnQuiet == nil {
		return
	}
	tick := min(max(s.opts.QuietAfter/10, 10*time.Millisecond), time.Second)
	go func() {
		t := time.NewTicker(tick)
		defer t.Stop()
		var done int64 // the lastActive that OnQuiet last ran after
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				last := s.lastActive.Load()
				if last != done && s.requests.Load() > 0 && s.active.Load() == 0 && time.Since(time.Unix(0, last)) >= s.opts.QuietAfter {
					s.opts.OnQuiet()
					done = last
				}
			}
		}
	}()
}

// listenSocket binds socket with mode 0600 from the start: it binds a
// temporary name in a private directory beside it (0700, made here: no
// one else can put a link or another file in its place between the bind
// and the chmod), sets the mode, then renames it into place over a stale
// socket a killed serve left (the lock says none runs). Any failure,
// e.g. a directory at the socket's path, ends serve with its error.
func listenSocket(socket string) (*net.UnixListener, error) {
	dir, err := os.MkdirTemp(filepath.Dir(socket), ".cs")
	if err != nil {
		return nil, fmt.Errorf("listen on %s: %w (is the directory writable? set XDG_RUNTIME_DIR or CMDAI_HOME elsewhere)", socket, err)
	}
	defer os.RemoveAll(dir)
	tmp := filepath.Join(dir, "s")
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: tmp, Net: "unix"})
	if err != nil {
		return nil, fmt.Errorf("listen on %s: %w (is the directory writable? set XDG_RUNTIME_DIR or CMDAI_HOME elsewhere)", socket, err)
	}
	ln.SetUnlinkOnClose(false)
	err = os.Chmod(tmp, 0o600)
	if err == nil {
		err = os.Rename(tmp, socket)
	}
	if err != nil {
		ln.Close()
		return nil, fmt.Errorf("put serve's socket at %s: %w (remove what is there, or give serve another --socket)", socket, err)
	}
	return ln, nil
}
