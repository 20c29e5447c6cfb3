//go:build unix

package chroma

import (
	"errors"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"syscall"
)

var errWouldBlock = syscall.EWOULDBLOCK

func tryLock(f *os.File) error {
	return syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
}

// startChild starts cmd in its own process group (a terminal's Ctrl-C
// reaches cmdai, which stops the server gracefully) and calls done with
// cmd.Wait's result when it exits.
//
// On Linux the child also gets a parent-death signal, so it ends when
// cmdai is killed. Go delivers that signal when the OS thread that forked
// the child exits, not the process, so the fork happens on a goroutine
// locked to its thread that lives until the child is gone.
func startChild(cmd *exec.Cmd, done func(error)) error {
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

// signalGroup signals the process group led by pid, or pid alone when it
// leads none.
func signalGroup(pid int, sig syscall.Signal) error {
	if err := syscall.Kill(-pid, sig); err == nil {
		return nil
	}
	return syscall.Kill(pid, sig)
}

func alive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

// looksLikeChroma guards against killing an unrelated process that
// reused a recorded pid. Where the command line cannot be read (no
// /proc), it trusts the pid file.
func looksLikeChroma(pid int) bool {
	raw, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
	if err != nil {
		return runtime.GOOS != "linux"
	}
	return strings.Contains(string(raw), "chroma")
}
