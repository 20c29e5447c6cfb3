//go:build !unix

package scanner

import "os/exec"

// isolate is a no-op where there are no sessions or process groups;
// exec.CommandContext still kills the command itself on timeout.
func isolate(cmd *exec.Cmd) {}

// killTree kills the command (its children may survive on these systems).
func killTree(cmd *exec.Cmd) error {
	if cmd.Process == nil {
		return nil
	}
	return cmd.Process.Kill()
}
