//go:build linux

package procgroup

import (
	"os"
	"os/exec"
	"testing"
)

// TestSame: a pid with its recorded start time is the same process; with
// another start time (its pid reused) or once it has ended, it is not;
// no start time recorded falls back to Alive.
func TestSame(t *testing.T) {
	start, ok := StartTime(os.Getpid())
	if !ok || start == 0 {
		t.Fatalf("StartTime(self) = %d %v", start, ok)
	}
	if !Same(os.Getpid(), start) || Same(os.Getpid(), start+1) || !Same(os.Getpid(), 0) {
		t.Error("Same of this process")
	}
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	if Same(cmd.Process.Pid, start) {
		t.Error("Same of an ended process")
	}
	if _, ok := StartTime(cmd.Process.Pid); ok {
		t.Error("StartTime of an ended process")
	}
}
