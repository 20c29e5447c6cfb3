package helprun

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"time"

	"github.com/cmdai/cmdai/internal/procgroup"
)

// Runner runs "cmd --help" for commands without a man page, as safely
// as a child process can be run: stdin is /dev/null, stdout and stderr are
// pipes (no terminal), it gets its own session (no controlling tty, and
// the whole process group is killed on timeout), a throwaway HOME and
// working directory, and an environment with nothing of ours in it.
// The zero value uses the defaults.
type Runner struct {
	// Timeout bounds one run; 0 means 2s.
	Timeout time.Duration
	// MaxOutput caps the help text kept; 0 means 256 KiB. The command is
	// killed once it has written that much.
	MaxOutput int64
	// Deny adds path.Match patterns to the default deny list. A pattern
	// with a "/" matches the full path, otherwise the base name.
	Deny []string
	// DenyFiles adds files refused by what they are: any path that is
	// one of them (the same file through a hard link or a symlink, by
	// device and inode) is denied, whatever it is called.
	DenyFiles []string
}

// Result is one --help run.
type Result struct {
	Output     []byte
	FromStderr bool // stdout was empty; the help came from stderr
	Truncated  bool // the output hit MaxOutput and was cut
	ExitCode   int  // -1 if killed; non-zero is common and not an error
}

// Run returns the --help output of the executable at path. A non-zero exit
// status is fine (many tools exit 1 or 2 after printing usage); no output,
// a timeout or a denied command (ErrDenied) are errors.
func (h Runner) Run(ctx context.Context, path string) ([]byte, error) {
	r, err := h.Exec(ctx, path)
	if err != nil {
		return nil, err
	}
	return r.Output, nil
}

// Exec is Run with details: truncation, exit code, and which stream the
// help came from.
func (h Runner) Exec(ctx context.Context, path string) (*Result, error) {
	if why := h.denied(path); why != "" {
		return nil, fmt.Errorf("%s: %w (%s)", path, ErrDenied, why)
	}
	timeout := h.Timeout
	if timeout <= 0 {
		timeout = 2 * time.Second
	}
	limit := h.MaxOutput
	if limit <= 0 {
		limit = 256 << 10
	}

	// A fresh HOME keeps the command from reading our dotfiles or leaving
	// its own in a real home directory.
	home, err := os.MkdirTemp("", "cmdai-help-")
	if err != nil {
		return nil, fmt.Errorf("run %s --help: make temporary HOME: %w", path, err)
	}
	defer os.RemoveAll(home)

	cctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(cctx, path, "--help")
	cmd.Dir = home
	cmd.Env = []string{"PATH=/usr/bin:/bin", "LANG=C", "LC_ALL=C", "HOME=" + home, "TERM=dumb", "COLUMNS=100"}
	cmd.Stdin = nil // os/exec opens /dev/null: a read gets EOF at once
	stop := func() { _ = procgroup.Kill(cmd) }
	stdout := &capBuffer{max: limit, full: stop}
	stderr := &capBuffer{max: limit, full: stop}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	// If a descendant escaped the process group and holds our pipes open,
	// stop waiting for it shortly after the kill.
	cmd.WaitDelay = 500 * time.Millisecond
	procgroup.Isolate(cmd)

	runErr := cmd.Run()
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("run %s --help: %w", path, err)
	}
	res := &Result{ExitCode: -1}
	if cmd.ProcessState != nil {
		res.ExitCode = cmd.ProcessState.ExitCode()
	}
	truncated := stdout.truncated || stderr.truncated
	var exitErr *exec.ExitError
	switch {
	case truncated:
		// We killed it ourselves after enough output.
	case errors.Is(cctx.Err(), context.DeadlineExceeded):
		return nil, fmt.Errorf("run %s --help: no answer within %v, killed (it may wait for a device or the network; add it to the deny list or raise the timeout)", path, timeout)
	case runErr != nil && !errors.As(runErr, &exitErr) && !errors.Is(runErr, exec.ErrWaitDelay):
		return nil, fmt.Errorf("run %s --help: %w", path, runErr)
	}

	res.Output, res.Truncated = stdout.buf.Bytes(), stdout.truncated
	if len(bytes.TrimSpace(res.Output)) == 0 {
		res.Output, res.Truncated, res.FromStderr = stderr.buf.Bytes(), stderr.truncated, true
	}
	if len(bytes.TrimSpace(res.Output)) == 0 {
		return nil, fmt.Errorf("run %s --help: printed nothing (exit status %d); the command has no --help", path, res.ExitCode)
	}
	return res, nil
}

// errOutputFull stops os/exec's copy goroutine; it closes the pipe, so a
// writer that survived the kill gets EPIPE instead of blocking.
var errOutputFull = errors.New("help output limit reached")

// capBuffer keeps the first max bytes written and calls full once when
// more arrive.
type capBuffer struct {
	buf       bytes.Buffer
	max       int64
	truncated bool
	full      func()
}

func (c *capBuffer) Write(p []byte) (int, error) {
	room := c.max - int64(c.buf.Len())
	if int64(len(p)) <= room {
		return c.buf.Write(p)
	}
	c.buf.Write(p[:room])
	if !c.truncated {
		c.truncated = true
		c.full()
	}
	return int(room), errOutputFull
}
