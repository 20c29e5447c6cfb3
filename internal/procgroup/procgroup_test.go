//go:build unix

package procgroup

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// startSpawner starts a shell that leaves a background sleep behind and
// returns the shell and that descendant's pid.
func startSpawner(t *testing.T, start func(*exec.Cmd) error) (*exec.Cmd, int) {
	t.Helper()
	pidFile := filepath.Join(t.TempDir(), "child.pid")
	cmd := exec.Command("/bin/sh", "-c", "sleep 30 >/dev/null 2>&1 &\necho $! > "+pidFile+".tmp; mv "+pidFile+".tmp "+pidFile+"\nsleep 30\n")
	if err := start(cmd); err != nil {
		t.Fatal(err)
	}
	for end := time.Now().Add(30 * time.Second); time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
		if b, err := os.ReadFile(pidFile); err == nil {
			pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
			if err != nil {
				t.Fatal(err)
			}
			return cmd, pid
		}
	}
	t.Fatal("the shell did not write its child's pid")
	return nil, 0
}

// gone waits until pid no longer runs (zombies count as gone: an init
// that does not reap may leave them in a container).
func gone(pid int) bool {
	for end := time.Now().Add(10 * time.Second); time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
		b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		if err != nil && !Alive(pid) {
			return true
		}
		if s := string(b); err == nil {
			if i := strings.LastIndexByte(s, ')'); i >= 0 && i+2 < len(s) && s[i+2] == 'Z' {
				return true
			}
		}
	}
	return false
}

func TestStartSignalKillsGroup(t *testing.T) {
	exited := make(chan error, 1)
	cmd, child := startSpawner(t, func(c *exec.Cmd) error { return Start(c, func(err error) { exited <- err }) })
	if !Alive(cmd.Process.Pid) || !Alive(child) {
		t.Fatal("the started processes are not alive")
	}
	if err := Signal(cmd.Process.Pid, syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case <-exited:
	case <-time.After(10 * time.Second):
		t.Fatal("done was not called after the group was signalled")
	}
	if !gone(child) {
		t.Errorf("descendant %d survived the group's signal", child)
	}
}

func TestIsolateCancelKillsGroup(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	var cmd *exec.Cmd
	_, child := startSpawner(t, func(c *exec.Cmd) error {
		cmd = exec.CommandContext(ctx, c.Path, c.Args[1:]...)
		Isolate(cmd)
		return cmd.Start()
	})
	cancel()
	_ = cmd.Wait()
	if !gone(child) {
		t.Errorf("descendant %d survived the cancel", child)
	}
}
