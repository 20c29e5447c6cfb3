//go:build unix

package procgroup

import (
	"errors"
	"os"
	"os/exec"
	"runtime"
	"syscall"
)

// Start starts cmd in its own process group (a terminal's Ctrl-C reaches
// only the parent, which can then stop the child gracefully) and calls
// done with cmd.Wait's result when it exits.
//
// On Linux the child also gets a parent-death signal (SIGTERM), so it ends
// when the parent is killed. Go delivers that signal when the OS thread
// that forked the child exits, not the process, so the fork happens on a
// goroutine locked to its thread that lives until the child is gone.
func Start(cmd *exec.Cmd, done func(error)) error {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	setParentDeathSignal(cmd.SysProcAttr)
	started := make(chan error, 1)
	go func() {
		runtime.LockOSThread() // never unlocked: the thread ends with the goroutine
		if err := cmd.Start(); err != nil {
			started <- err
			return
		}
		started <- nil
		done(cmd.Wait())
	}()
	return <-started
}

// Isolate makes cmd start in a new session: it has no controlling
// terminal (so it cannot open /dev/tty and prompt), and it leads a new
// process group, which cancelling cmd's context kills (Kill) with
// everything it spawned.
func Isolate(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	cmd.Cancel = func() error { return Kill(cmd) }
}

// Kill SIGKILLs the process group led by cmd's process (started by
// Isolate); os.ErrProcessDone when the group is gone.
func Kill(cmd *exec.Cmd) error {
	if cmd.Process == nil {
		return nil
	}
	err := syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	if errors.Is(err, syscall.ESRCH) {
		return os.ErrProcessDone
	}
	return err
}

// Signal signals the process group led by pid, or pid alone when it
// leads none.
func Signal(pid int, sig syscall.Signal) error {
	if err := syscall.Kill(-pid, sig); err == nil {
		return nil
	}
	return syscall.Kill(pid, sig)
}

// Alive reports whether a process with this pid exists (one owned by
// another user counts).
func Alive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
