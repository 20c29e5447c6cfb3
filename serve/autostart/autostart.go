// Package autostart starts `cmdai serve` in the background for a command
// that had to answer by itself because no serve ran, the way the Gradle
// daemon or sccache start on first use: detached from the terminal (a
// session of its own, stdin from /dev/null), its output appended to a
// log file, gone by itself once idle. It also says where a background
// process is unwelcome.
package autostart

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/cmdai/cmdai/serve/servelock"
)

// Spec is the serve to start.
type Spec struct {
	// Exe and Args are the command line: cmdai's own executable, then
	// "serve", "--background" and its flags.
	Exe  string
	Args []string
	// Socket is where that serve listens: one that holds its lock
	// already (running or starting) is not started again.
	Socket string
	// Log receives serve's stdout and stderr, appended.
	Log string
}

// maxLog is the size past which the log is moved to Log+".1" before a
// serve starts: the two never hold much more than twice it.
const maxLog = 1 << 20

// ErrRunning: a serve already holds the socket's lock; none was started.
var ErrRunning = errors.New("a cmdai serve already runs or starts for this data home")

// Start starts the serve of spec and returns its pid without waiting for
// it to answer (ErrRunning when one holds the lock already). Two callers
// racing past that check start two; the second finds the lock taken and
// exits at once (servecmd), so one serve runs.
func Start(spec Spec) (int, error) {
	if servelock.Starting(spec.Socket) {
		return 0, ErrRunning
	}
	// A serve that cannot make its socket would only fail in its log, on
	// every call: say so here, where the user sees it.
	if err := SocketDirUsable(spec.Socket); err != nil {
		return 0, err
	}
	log, err := openLog(spec.Log)
	if err != nil {
		return 0, err
	}
	defer log.Close()
	cmd := exec.Command(spec.Exe, spec.Args...)
	cmd.Stdout, cmd.Stderr = log, log
	// A session of its own: no terminal, and the shell's job control or
	// a Ctrl-C of the command that started it does not reach it.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return 0, fmt.Errorf("start %s: %w", spec.Exe, err)
	}
	pid := cmd.Process.Pid
	// Reaped here if it ends while this process lives (a second serve
	// that lost the race); otherwise it outlives us, adopted by init.
	go func() { _ = cmd.Wait() }()
	return pid, nil
}

// SocketDirUsable makes socket's directory, then says why a serve could
// not use socket there (SocketUsable), or nil.
func SocketDirUsable(socket string) error {
	if err := os.MkdirAll(filepath.Dir(socket), 0o700); err != nil {
		return fmt.Errorf("serve's socket directory: %w", err)
	}
	return SocketUsable(socket)
}

// SocketUsable says why a serve could not make socket in its existing
// directory (nothing can be made there: a read-only filesystem), or use
// it (another user's socket or lock file in the way), or nil. It makes
// nothing that stays, for status and doctor; a directory yet to be made
// is nil.
func SocketUsable(socket string) error {
	dir := filepath.Dir(socket)
	if _, err := os.Stat(dir); errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err := writable(dir); err != nil {
		return fmt.Errorf("serve cannot make its socket in %s: %w (set XDG_RUNTIME_DIR to a directory of yours)", dir, err)
	}
	for _, p := range []string{socket, socket + ".lock"} {
		if err := servelock.Ours(p); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("serve cannot use its socket: %w", err)
		}
	}
	return nil
}

// writable checks that a file can be made in dir, as serve's socket and
// lock will be: access(2) says yes to root even where nothing can be made.
func writable(dir string) error {
	f, err := os.CreateTemp(dir, ".cmdai-probe-")
	if err != nil {
		return err
	}
	f.Close()
	return os.Remove(f.Name())
}

// openLog opens the log for appending, moving a large one aside first.
func openLog(path string) (*os.File, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("create the directory of serve's log: %w", err)
	}
	if st, err := os.Stat(path); err == nil && st.Size() > maxLog {
		_ = os.Rename(path, path+".1")
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open serve's log: %w", err)
	}
	return f, nil
}

// Unwelcome says why a background process would be out of place ("":
// it is welcome): in CI (CI=true, as GitHub Actions, GitLab and most CI
// systems set it), in batch mode, or with neither a home directory nor a
// runtime directory, where no user session would own it.
func Unwelcome(getenv func(string) string, batch bool) string {
	switch ci := strings.ToLower(getenv("CI")); {
	case ci == "true" || ci == "1":
		return "CI is set"
	case batch:
		return "--batch-mode"
	case getenv("HOME") == "" && getenv("XDG_RUNTIME_DIR") == "":
		return "neither $HOME nor $XDG_RUNTIME_DIR is set"
	}
	return ""
}
