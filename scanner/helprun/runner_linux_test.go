package helprun

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// alive reports whether pid runs (zombies, which an init that does not
// reap may leave in a container, count as dead).
func alive(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || i+2 >= len(s) || s[i+2] != 'Z'
}

// TestHelpTimeoutKillsDescendants checks that giving up on a command
// (its timeout or the caller's cancel: both kill through cmd.Cancel) kills
// what the command spawned, not just the command itself.
func TestHelpTimeoutKillsDescendants(t *testing.T) {
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "child.pid")
	p := script(t, dir, "spawner", "sleep 30 >/dev/null 2>&1 &\necho $! > "+pidFile+"\nsleep 30\n")
	// Give up once the child's pid is written, not after a fixed 300 ms:
	// on a loaded machine the script had not always written it by then.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		defer cancel()
		for end := time.Now().Add(30 * time.Second); time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
			if b, err := os.ReadFile(pidFile); err == nil && strings.HasSuffix(string(b), "\n") {
				return
			}
		}
	}()
	if _, err := (Runner{Timeout: time.Minute}).Run(ctx, p); err == nil {
		t.Fatal("Run(spawner) succeeded")
	}
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	// A bound, not a measure: the kill is immediate, but reaping the
	// orphan on a loaded machine is not.
	deadline := time.Now().Add(10 * time.Second)
	for alive(pid) {
		if time.Now().After(deadline) {
			t.Fatalf("background child %d survived the timeout", pid)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
