package chroma

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/cmdai/cmdai/chroma/datalock"
	"github.com/cmdai/cmdai/chroma/launcher"
	"github.com/cmdai/cmdai/config"
	"github.com/cmdai/cmdai/internal/procgroup"
	"github.com/cmdai/cmdai/internal/termtext"
)

// ChromaVersion is the chromadb release scripts/install/install-chroma.sh pins;
// chroma-go v0.4.0 is tested against it.
const ChromaVersion = "1.5.2"

// ErrNoServerBinary means no `chroma` executable was found.
var ErrNoServerBinary = errors.New("chroma server not found")

// ErrLocked means another process owns the data directory.
var ErrLocked = datalock.ErrLocked

// HeldBriefly tells whether an ErrLocked says the holder lets go, or
// answers through serve, within seconds (datalock.Kind.Brief).
func HeldBriefly(err error) bool { return datalock.HeldBriefly(err) }

// ErrServerStart means the server did not come up.
var ErrServerStart = errors.New("chroma server did not start")

// FindBin picks the `chroma` executable for the running binary (see
// FindBinFor).
func FindBin(explicit string, getenv func(string) string) (string, error) {
	return FindBinFor(explicit, getenv, config.ThisInstall())
}

// FindBinFor picks the `chroma` executable: explicit (--chroma-bin),
// then $CMDAI_CHROMA_BIN, then $CMDAI_TOOLS/chroma/venv/bin/chroma, the
// one installed with cmdai (PREFIX/lib/cmdai/chroma/bin/chroma beside
// PREFIX/bin/cmdai), the checkout's .tools (bin/cmdai ->
// .tools/chroma/venv/bin/chroma, as `make` lays it out), then $PATH
// (`pipx install chromadb==<pin>`).
func FindBinFor(explicit string, getenv func(string) string, inst config.Install) (string, error) {
	if explicit != "" {
		return checkBin(explicit, "--chroma-bin")
	}
	if b := getenv("CMDAI_CHROMA_BIN"); b != "" {
		return checkBin(b, "CMDAI_CHROMA_BIN")
	}
	var bins []string
	if t := getenv("CMDAI_TOOLS"); t != "" {
		bins = append(bins, filepath.Join(t, "chroma", "venv", "bin", "chroma"))
	}
	if inst.Bin != "" {
		bins = append(bins, inst.ChromaBin(), filepath.Join(inst.Tools, "chroma", "venv", "bin", "chroma"))
	}
	for _, b := range bins {
		if isExecutable(b) {
			return b, nil
		}
	}
	if b, err := exec.LookPath("chroma"); err == nil {
		return b, nil
	}
	return "", fmt.Errorf("%w: %s", ErrNoServerBinary, binFix)
}

// binFix says how to get the pinned Chroma server.
var binFix = fmt.Sprintf("install it with `pipx install chromadb==%s` (or `make install` from a cmdai checkout), pass --chroma-bin PATH, or use a running server with --chroma-url URL; `cmdai doctor` checks every part", ChromaVersion)

func checkBin(path, from string) (string, error) {
	if !isExecutable(path) {
		return "", fmt.Errorf("%w: %s from %s is not an executable file; %s", ErrNoServerBinary, path, from, binFix)
	}
	return path, nil
}

func isExecutable(path string) bool {
	st, err := os.Stat(path)
	return err == nil && !st.IsDir() && st.Mode()&0o111 != 0
}

// ServerOptions configure a private server.
type ServerOptions struct {
	// Bin is the `chroma` executable (see FindBin).
	Bin string
	// DataDir is the persistence directory, created if missing.
	DataDir string
	// StartTimeout bounds the wait for the first heartbeat; 0 means 90 s
	// (a first start on a cold disk imports a large Python package).
	StartTimeout time.Duration
	// LockWait is how long to wait for a data directory another process
	// holds (0: ErrLocked at once). A long-lived owner (cmdai serve)
	// waits out a one-shot command that holds it for a second or two.
	LockWait time.Duration
	// OnLockWait, when set, is told once that the wait begins, with the
	// ErrLocked error that names the holder.
	OnLockWait func(holder error)
	// Holder is what the caller does with the data, for another cmdai
	// that finds it held (datalock.Kind).
	Holder datalock.Kind
}

// Server is a private `chroma run`, in a network namespace of its own
// reached through a unix socket in DataDir where the kernel allows (see
// Isolation), else on 127.0.0.1; it owns DataDir through
// an exclusive lock that the server process inherits: the lock is held
// for as long as either cmdai or its server lives, so a server orphaned by
// a killed cmdai still keeps a second one off its files.
type Server struct {
	// URL is the server's address: unix://DATADIR/chroma.sock when it
	// runs jailed (see Isolation), else http://127.0.0.1:PORT.
	URL     string
	Version string
	DataDir string
	// Isolation says who can reach the server: IsolatedNamespace, or why
	// every local user can (Exposed).
	Isolation Isolation
	cmd       *exec.Cmd
	lock      *os.File
	exited    chan struct{}
	waitErr   error
}

const logName = "cmdai-chroma.log"

// StartServer locks o.DataDir, starts `chroma run` on a free loopback
// port and waits for its heartbeat. Call Stop when done. A `chroma` of
// a release cmdai cannot use is refused first (BinVersion), rather than
// waited for until StartTimeout.
func StartServer(ctx context.Context, o ServerOptions) (*Server, error) {
	if o.StartTimeout <= 0 {
		o.StartTimeout = 90 * time.Second
	}
	if _, err := BinVersion(ctx, o.Bin); errors.Is(err, ErrUnsupportedVersion) {
		return nil, err
	}
	if err := datalock.PrivateDir(o.DataDir); err != nil {
		return nil, err
	}
	lock, err := datalock.Take(ctx, o.DataDir, o.LockWait, o.OnLockWait)
	if err != nil {
		return nil, datalock.ReadOnly(o.DataDir, err)
	}
	jail := jailFor(o.Bin, getenvJail)
	var lastErr error
	// A free port can be taken between our probe and the server's bind;
	// try a few.
	for attempt := 0; attempt < 3; attempt++ {
		s, err := startOnce(ctx, o, lock, jail)
		if errors.Is(err, errNoJail) {
			// This kernel gives no private network namespace: the
			// server listens on loopback, open to every local user, and
			// says so (Isolation, doctor).
			jail = noNamespace(tailFile(LogPath(o.DataDir), 1))
			s, err = startOnce(ctx, o, lock, jail)
		}
		if err == nil {
			return s, nil
		}
		lastErr = err
		if ctx.Err() != nil || !strings.Contains(err.Error(), "in use") {
			break
		}
	}
	datalock.Release(lock, o.DataDir)
	return nil, lastErr
}

func startOnce(ctx context.Context, o ServerOptions, lock *os.File, isolation Isolation) (*Server, error) {
	port, err := freePort()
	if err != nil {
		return nil, fmt.Errorf("%w: find a free port: %v", ErrServerStart, err)
	}
	logPath := filepath.Join(o.DataDir, logName)
	logf, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open chroma log: %w", err)
	}
	defer logf.Close() // the child has its own copy
	// The server is deliberately not tied to ctx: it is stopped by Stop,
	// gracefully, not killed when a command's context ends.
	args := []string{"run", "--path", o.DataDir, "--host", "127.0.0.1", "--port", strconv.Itoa(port)}
	s := &Server{
		URL:       "http://127.0.0.1:" + strconv.Itoa(port),
		DataDir:   o.DataDir,
		Isolation: isolation,
		lock:      lock,
		exited:    make(chan struct{}),
	}
	extra := []*os.File{lock} // fd 3: the inherited lock
	if isolation.Exposed == "" {
		sock, err := listenPrivate(o.DataDir)
		if err != nil {
			return nil, fmt.Errorf("%w: %v", ErrServerStart, err)
		}
		defer sock.Close() // the child has its own copy
		s.cmd, _ = launcher.Jailed(o.Bin, args...)
		s.URL = SocketAddress(SocketPathOf(o.DataDir))
		extra = append(extra, sock) // fd 4 (launcher.JailFD): the socket
	} else {
		s.cmd = launcher.Command(o.Bin, args...)
	}
	cmd := s.cmd
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.Env = append(os.Environ(), "ANONYMIZED_TELEMETRY=False", "CHROMA_ANONYMIZED_TELEMETRY=False", "NO_COLOR=1")
	cmd.ExtraFiles = extra
	if err := procgroup.Start(cmd, func(err error) { s.waitErr = err; close(s.exited) }); err != nil {
		return nil, fmt.Errorf("%w: run %s: %v", ErrServerStart, o.Bin, err)
	}
	datalock.Record(o.DataDir, cmd.Process.Pid, port, o.Holder)
	if err := s.waitReady(ctx, o.StartTimeout, logPath); err != nil {
		s.kill()
		if isolation.Isolated() {
			removeSocket(o.DataDir)
		}
		return nil, err
	}
	return s, nil
}

// waitReady polls the heartbeat until it answers, the process exits, the
// timeout passes or ctx ends.
func (s *Server) waitReady(ctx context.Context, timeout time.Duration, logPath string) error {
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-s.exited:
			if s.Isolation.Exposed == "" && exitCode(s.waitErr) == launcher.NoJail {
				return errNoJail
			}
			return fmt.Errorf("%w: %s exited (%v) before answering; its log %s ends:\n%s", ErrServerStart, s.cmd.Path, s.waitErr, logPath, tailFile(logPath, 12))
		case <-deadline.C:
			return fmt.Errorf("%w: no heartbeat from %s within %s; its log %s ends:\n%s", ErrServerStart, s.URL, timeout, logPath, tailFile(logPath, 12))
		case <-tick.C:
			if v, err := probe(ctx, s.URL, 2*time.Second); err == nil {
				s.Version = v
				return nil
			}
		}
	}
}

// probe checks the heartbeat of the server at addr and returns its
// version, each request bounded by timeout.
func probe(ctx context.Context, addr string, timeout time.Duration) (string, error) {
	base, client := HTTPClient(addr, timeout)
	get := func(path string) ([]byte, error) {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+path, nil)
		if err != nil {
			return nil, err
		}
		resp, err := client.Do(req)
		if err != nil {
			return nil, err
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
		if resp.StatusCode != http.StatusOK {
			return nil, fmt.Errorf("%s: %s", path, resp.Status)
		}
		return body, nil
	}
	if _, err := get("/api/v2/heartbeat"); err != nil {
		return "", err
	}
	v, err := get("/api/v2/version")
	if err != nil {
		return "", err
	}
	return strings.Trim(strings.TrimSpace(string(v)), `"`), nil
}

// Stop ends the server: SIGTERM, then SIGKILL after 10 s. It releases the
// data directory's lock. Safe to call twice.
func (s *Server) Stop() error {
	if s == nil || s.cmd == nil {
		return nil
	}
	select {
	case <-s.exited:
	default:
		_ = procgroup.Signal(s.cmd.Process.Pid, syscall.SIGTERM)
		select {
		case <-s.exited:
		case <-time.After(10 * time.Second):
			_ = procgroup.Signal(s.cmd.Process.Pid, syscall.SIGKILL)
			<-s.exited
		}
	}
	if s.Isolation.Exposed == "" {
		removeSocket(s.DataDir)
	}
	datalock.Release(s.lock, s.DataDir)
	s.cmd = nil
	return nil
}

func (s *Server) kill() {
	_ = procgroup.Signal(s.cmd.Process.Pid, syscall.SIGKILL)
	<-s.exited
}

// Exited is closed when the server process ends.
func (s *Server) Exited() <-chan struct{} { return s.exited }

// PID is the server process's id.
func (s *Server) PID() int { return s.cmd.Process.Pid }

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

func tailFile(path string, n int) string {
	raw, err := os.ReadFile(path)
	if err != nil {
		return "(no log)"
	}
	// The log is the server's text: printed without its escape sequences.
	lines := strings.Split(strings.TrimRight(termtext.Clean(string(raw)), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return "  " + strings.Join(lines, "\n  ")
}
