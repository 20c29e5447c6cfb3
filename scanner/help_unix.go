//go:build unix

package scanner

import (
	"errors"
	"os"
	"os/exec"
	"syscall"
)

// isolate starts the command in a new session: it has no controlling
// terminal (so it cannot open /dev/tty and prompt), and it leads a new
// process group that killTree can kill with everything it spawned.
func isolate(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	cmd.Cancel = func() error { return killTree(cmd) }
}

// killTree SIGKILLs the command's process group.
func killTree(cmd *exec.Cmd) error {
	if cmd.Process == nil {
		return nil
	}
	err := syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	if errors.Is(err, syscall.ESRCH) {
		return os.ErrProcessDone
	}
	return err
}
