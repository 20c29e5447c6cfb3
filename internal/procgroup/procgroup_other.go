//go:build !unix

package procgroup

import (
	"errors"
	"os/exec"
	"syscall"
)

// errUnsupported: process groups need Unix process control.
var errUnsupported = errors.New("process groups are only supported on Unix here")

// Start fails: a child that cannot be put in a group of its own and
// stopped with it is not started.
func Start(*exec.Cmd, func(error)) error { return errUnsupported }

// Isolate is a no-op where there are no sessions or process groups;
// exec.CommandContext still kills the command itself on cancel.
func Isolate(*exec.Cmd) {}

// Kill kills the command (its children may survive on these systems).
func Kill(cmd *exec.Cmd) error {
	if cmd.Process == nil {
		return nil
	}
	return cmd.Process.Kill()
}

// Signal fails: there are no process groups to signal.
func Signal(int, syscall.Signal) error { return errUnsupported }

// Alive reports false: it cannot be told here.
func Alive(int) bool { return false }
