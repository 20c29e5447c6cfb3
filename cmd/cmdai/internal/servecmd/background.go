package servecmd

import (
	"context"
	"errors"
	"fmt"
	"os"
	"syscall"
	"time"

	"github.com/cmdai/cmdai/cmd/cmdai/internal/cmdutil"
	"github.com/cmdai/cmdai/config"
	"github.com/cmdai/cmdai/serve"
)

// stamp is the time a background serve's log lines start with.
func stamp() string { return time.Now().Format("2006-01-02T15:04:05") }

// exeCheckEvery is how often a background serve looks at cmdai's binary.
var exeCheckEvery = 2 * time.Second

// watchExe calls stop once cmdai's executable is replaced or removed
// (an upgrade, `make install`): a background serve must not answer with
// an old binary's code and ranking after the user installed a new one.
// The path is the one this process started from; a new file there has
// another inode, size or time.
func watchExe(ctx context.Context, stop context.CancelFunc, logf func(string, ...any)) {
	exe, err := os.Executable()
	if err != nil {
		return
	}
	first, err := os.Stat(exe)
	if err != nil {
		return
	}
	t := time.NewTicker(exeCheckEvery)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		now, err := os.Stat(exe)
		if err != nil || !os.SameFile(first, now) || now.Size() != first.Size() || !now.ModTime().Equal(first.ModTime()) {
			logf("cmdai's binary %s changed: stopping (the next command starts the new one)", exe)
			stop()
			return
		}
	}
}

// stopWait bounds how long --stop waits for serve to exit.
const stopWait = 15 * time.Second

// RunStop stops the serve of this data home (--stop): SIGTERM to the
// pid its health gives, then waits until it exits. None running is not
// an error: there is nothing to stop.
func RunStop(ctx context.Context, opts *ServeOptions) error {
	socket := opts.Socket
	if socket == "" {
		var err error
		if socket, err = config.ServeSocket(opts.Getenv); err != nil {
			return err
		}
	}
	c, err := serve.Dial(ctx, socket)
	if errors.Is(err, serve.ErrNotRunning) {
		fmt.Fprintf(opts.IO.Out, "no cmdai serve runs for this data home (%s)\n", socket)
		return nil
	}
	if err != nil {
		return err
	}
	h, err := c.Health(ctx)
	c.Close()
	if err != nil {
		return cmdutil.WithCode(cmdutil.ExitUnreachable, fmt.Errorf("ask the serve on %s for its pid: %w", socket, err))
	}
	if err := opts.StopServe(socket, h.PID); err != nil {
		return fmt.Errorf("cmdai serve --stop: %w", err)
	}
	for deadline := time.Now().Add(stopWait); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if err := syscall.Kill(h.PID, 0); errors.Is(err, syscall.ESRCH) {
			fmt.Fprintf(opts.IO.Out, "stopped cmdai serve (pid %d)\n", h.PID)
			return nil
		}
	}
	return fmt.Errorf("cmdai serve (pid %d) did not exit within %s of SIGTERM: see its log, or kill it", h.PID, stopWait)
}
