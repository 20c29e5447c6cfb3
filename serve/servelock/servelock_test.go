//go:build unix

package servelock

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// staleLock writes socket's lock file as a serve killed with SIGKILL
// leaves it: its pid, nobody holding the lock.
func staleLock(t *testing.T, socket string, pid int) {
	t.Helper()
	if err := os.WriteFile(socket+".lock", []byte(fmt.Sprintf("%d\n", pid)), 0o600); err != nil {
		t.Fatal(err)
	}
}

// liveStranger starts a process that has nothing to do with serve and
// lives until the test ends: the process a killed serve's pid now names.
func liveStranger(t *testing.T) int {
	t.Helper()
	cmd := exec.Command("sleep", "600")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	return cmd.Process.Pid
}

// TestStartingIgnoresAReusedPid: a lock file left by a killed serve whose
// pid now names a live process (this test's sleep child; pid 1, which a
// restarted container's serve would have had; a process of another user,
// whom kill(pid, 0) answers EPERM) is not a serve starting: nobody holds
// the lock. (Before: Starting said yes, and every query waited 20 s for a
// serve that was gone.)
func TestStartingIgnoresAReusedPid(t *testing.T) {
	socket := filepath.Join(t.TempDir(), "cmdai.sock")
	for _, pid := range []int{liveStranger(t), 1, os.Getpid()} {
		staleLock(t, socket, pid)
		if Starting(socket) {
			t.Errorf("lock file naming live pid %d, held by nobody: Starting says a serve is starting", pid)
		}
	}
}

// TestStartingWhileHeld: a serve holding the lock (before it listens) is
// starting, whatever its file says, and no longer once it releases it;
// a second serve is refused meanwhile; no lock file: nobody.
func TestStartingWhileHeld(t *testing.T) {
	socket := filepath.Join(t.TempDir(), "run", "cmdai.sock")
	if Starting(socket) {
		t.Error("no lock file: Starting says yes")
	}
	l, err := Acquire(socket)
	if err != nil {
		t.Fatal(err)
	}
	if !Starting(socket) {
		t.Error("lock held: Starting says no")
	}
	// the file's pid is not what counts
	if err := os.WriteFile(socket+".lock", []byte("0\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if !Starting(socket) {
		t.Error("lock held, its file overwritten: Starting says no")
	}
	if _, err := Acquire(socket); !errors.Is(err, ErrBusy) {
		t.Errorf("second Acquire: %v, want ErrBusy", err)
	}
	l.Release()
	if Starting(socket) {
		t.Error("lock released: Starting says yes")
	}
	l2, err := Acquire(socket)
	if err != nil {
		t.Fatalf("Acquire after Release: %v", err)
	}
	l2.Release()
}

// asStranger makes path another user's (uid 4321), as a file someone
// else put in a shared directory would be: chown needs root, which
// `make test` is.
func asStranger(t *testing.T, path string) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Fatal("this test gives a file to another user: run it as root (make test does)")
	}
	if err := os.Lchown(path, 4321, 4321); err != nil {
		t.Fatal(err)
	}
}

// TestForeignFilesAreNotTrusted: another user's socket or lock file (or
// a symlink of theirs to one of ours) beside the socket is not this
// user's serve: Ours says whose it is, a lock of theirs held by their
// process is not a serve starting (before: every client waited 20 s for
// it), and Acquire refuses to lock their file.
func TestForeignFilesAreNotTrusted(t *testing.T) {
	dir := t.TempDir()
	mine := filepath.Join(dir, "mine")
	if err := os.WriteFile(mine, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := Ours(mine); err != nil {
		t.Errorf("own file: %v", err)
	}
	theirs := filepath.Join(dir, "theirs")
	if err := os.WriteFile(theirs, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	asStranger(t, theirs)
	link := filepath.Join(dir, "link")
	if err := os.Symlink(mine, link); err != nil {
		t.Fatal(err)
	}
	asStranger(t, link)
	for _, p := range []string{theirs, link} {
		if err := Ours(p); err == nil || !strings.Contains(err.Error(), "belongs to uid 4321") {
			t.Errorf("%s: %v, want it to name uid 4321", p, err)
		}
	}
	if err := Ours(filepath.Join(dir, "none")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("no file: %v", err)
	}

	socket := filepath.Join(dir, "cmdai.sock")
	l, err := Acquire(socket) // their serve, holding its lock
	if err != nil {
		t.Fatal(err)
	}
	defer l.Release()
	asStranger(t, socket+".lock")
	if Starting(socket) {
		t.Error("another user's held lock: Starting says a serve of ours is starting")
	}
	if _, err := Acquire(socket); err == nil || !strings.Contains(err.Error(), "belongs to uid 4321") {
		t.Errorf("Acquire over another user's lock file: %v", err)
	}
}

// A link at the lock's path (put there by another user in a shared
// socket directory) is refused, never followed: the file it names is
// left as it was (before: truncated and overwritten with serve's pid).
func TestAcquireRefusesALinkAtTheLock(t *testing.T) {
	dir := t.TempDir()
	victim := filepath.Join(dir, "victim")
	if err := os.WriteFile(victim, []byte("precious\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	socket := filepath.Join(dir, "s.sock")
	if err := os.Symlink(victim, socket+".lock"); err != nil {
		t.Fatal(err)
	}
	l, err := Acquire(socket)
	if err == nil {
		l.Release()
		t.Fatal("a link at the lock's path was taken as the lock")
	}
	if !strings.Contains(err.Error(), socket+".lock") {
		t.Errorf("error %q does not name the lock file", err)
	}
	if b, _ := os.ReadFile(victim); string(b) != "precious\n" {
		t.Errorf("the linked file now holds %q", b)
	}
}
