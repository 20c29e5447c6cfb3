package chroma

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"github.com/cmdai/cmdai/chroma/launcher"
)

// Isolation says who can reach a private server.
type Isolation struct {
	// Exposed is empty when the server runs in a network namespace of
	// its own, reached only through the unix socket in its private data
	// directory (no other local user can open it); else why it listens
	// on a loopback port every local user can reach.
	Exposed string
}

// Isolated tells whether only this user can reach the server.
func (i Isolation) Isolated() bool { return i.Exposed == "" }

// String says it in one line, for status and doctor.
func (i Isolation) String() string {
	if i.Isolated() {
		return "only you: a network namespace of its own, reached through a unix socket in its private data directory"
	}
	return "every local user: it listens on a loopback port because " + i.Exposed
}

// NoJailEnv, set to 1, starts the private server on a loopback port, as
// builds before the jail did (a platform where the jail misbehaves; the
// tests of the exposed path).
const NoJailEnv = "CMDAI_CHROMA_NO_JAIL"

var getenvJail = os.Getenv

// jailFor is how a server of bin starts: jailed when bin runs lean.py
// with the jail on Linux, else exposed with the reason.
func jailFor(bin string, getenv func(string) string) Isolation {
	switch {
	case runtime.GOOS != "linux":
		return Isolation{Exposed: "network namespaces are Linux's"}
	case getenv(NoJailEnv) == "1":
		return Isolation{Exposed: NoJailEnv + "=1 is set"}
	}
	if _, ok := launcher.Jailed(bin); !ok {
		return Isolation{Exposed: bin + " is not pip's chroma entry point nor the launcher `make install` writes (this build's), which alone run it jailed"}
	}
	return Isolation{}
}

// noNamespace is the isolation of a server whose jail was refused, with
// lean.py's line that says why.
func noNamespace(said string) Isolation {
	why := strings.TrimSpace(said)
	if _, after, ok := strings.Cut(why, "for the Chroma server: "); ok {
		why = after
	}
	return Isolation{Exposed: "this kernel gives it no network namespace of its own (" + why + ")"}
}

// errNoJail: the jailed server found no network namespace to make.
var errNoJail = errors.New("no private network namespace")

// socketName is the jailed server's socket in its data directory.
const socketName = "chroma.sock"

// SocketPathOf is where the jailed server over dataDir listens.
func SocketPathOf(dataDir string) string { return filepath.Join(dataDir, socketName) }

// listenPrivate makes the jailed server's listening socket in dataDir,
// which must be this user's and closed to everyone else (0700, as
// datalock.PrivateDir made it): the directory, not the socket's own mode,
// is what keeps other users out. A socket left by a server that died is
// replaced (the caller holds the data lock, so no live server has it).
// The returned file is the listener, for the server to inherit.
func listenPrivate(dataDir string) (*os.File, error) {
	fi, err := os.Stat(dataDir)
	if err != nil {
		return nil, fmt.Errorf("chroma data directory: %w", err)
	}
	st, ok := fi.Sys().(*unix.Stat_t)
	if ok && (int(st.Uid) != os.Geteuid() || fi.Mode().Perm()&0o077 != 0) {
		return nil, fmt.Errorf("chroma data directory %s is not yours alone (owner uid %d, mode %o): the private server's socket must sit in a directory only you can open; use one with --chroma-data or CMDAI_HOME", dataDir, st.Uid, fi.Mode().Perm())
	}
	path := SocketPathOf(dataDir)
	if fi, err := os.Lstat(path); err == nil {
		if fi.Mode()&os.ModeSocket == 0 {
			return nil, fmt.Errorf("%s is in the way of the private server's socket and is not a socket: move it away", path)
		}
		if err := os.Remove(path); err != nil {
			return nil, fmt.Errorf("remove the old socket %s: %w", path, err)
		}
	}
	l, err := listenUnix(path)
	if err != nil {
		return nil, fmt.Errorf("listen on %s: %w", path, err)
	}
	l.SetUnlinkOnClose(false) // the server's, until Stop
	defer l.Close()
	return l.File()
}

// listenUnix listens on the unix socket at path (shortName: a path too
// long for a socket is bound through its directory's descriptor).
func listenUnix(path string) (*net.UnixListener, error) {
	return shortName(path, func(name string) (*net.UnixListener, error) {
		return net.ListenUnix("unix", &net.UnixAddr{Name: name, Net: "unix"})
	})
}

// removeSocket removes the jailed server's socket once it stopped.
func removeSocket(dataDir string) {
	path := SocketPathOf(dataDir)
	if fi, err := os.Lstat(path); err == nil && fi.Mode()&os.ModeSocket != 0 {
		_ = os.Remove(path)
	}
}

// exitCode is the exit status in a process's wait error (-1: none).
func exitCode(err error) int {
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode()
	}
	return -1
}

// CheckIsolation says how a private server of bin would start here: it
// makes the jail (lean.py's, nothing started in it) and reports whether
// that worked, without a data directory (`cmdai doctor`).
func CheckIsolation(ctx context.Context, bin string) Isolation {
	if i := jailFor(bin, getenvJail); !i.Isolated() {
		return i
	}
	cmd, _ := launcher.JailCheck(bin)
	ctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	var stderr strings.Builder
	cmd.Stderr = &stderr
	err := runCtx(ctx, cmd)
	switch {
	case err == nil:
		return Isolation{}
	case exitCode(err) == launcher.NoJail:
		return noNamespace(stderr.String())
	default:
		return Isolation{Exposed: fmt.Sprintf("its jail could not be checked (%v: %s)", err, strings.TrimSpace(stderr.String()))}
	}
}

// runCtx runs cmd, killed when ctx ends.
func runCtx(ctx context.Context, cmd *exec.Cmd) error {
	if err := cmd.Start(); err != nil {
		return err
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		_ = cmd.Process.Kill()
		<-done
		return ctx.Err()
	}
}
