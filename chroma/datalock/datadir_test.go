package datalock

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// The private server's data directory is made private (an older
// cmdai's 0755 becomes 0700); a path that cannot be one says why.
func TestPrivateDataDir(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "chroma")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := PrivateDir(dir); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(dir); err != nil || fi.Mode().Perm() != 0o700 {
		t.Fatalf("mode %v (%v), want 0700", fi.Mode().Perm(), err)
	}
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	err := PrivateDir(file)
	if err == nil || !strings.Contains(err.Error(), "create chroma data directory") || !strings.Contains(err.Error(), "not a directory") {
		t.Errorf("a file in the way: %v", err)
	}
}

// A data directory on a read-only filesystem (issue #33's faults) is
// named as such, with the way on, never "<nil>" (the check used to
// report the MkdirAll error when the Chmod after it had failed) nor a
// bare lock error. The filesystem is a real read-only bind mount (make
// test runs as root).
func TestPrivateDataDirReadOnly(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Fatal("this test bind-mounts a directory read-only: run it as root (make test does)")
	}
	src := t.TempDir()
	if err := os.Mkdir(filepath.Join(src, "chroma"), 0o755); err != nil { // an older cmdai's mode: a chmod is due
		t.Fatal(err)
	}
	ro := t.TempDir()
	if out, err := exec.Command("mount", "--bind", src, ro).CombinedOutput(); err != nil {
		t.Fatalf("mount --bind: %v\n%s", err, out)
	}
	t.Cleanup(func() { _ = syscall.Unmount(ro, 0) })
	if out, err := exec.Command("mount", "-o", "remount,bind,ro", ro).CombinedOutput(); err != nil {
		t.Fatalf("remount read-only: %v\n%s", err, out)
	}
	// an older cmdai's 0755 (a chmod), a directory to make, and one
	// already private (the lock file is the first write)
	if err := os.Mkdir(filepath.Join(src, "private"), 0o700); err != nil {
		t.Fatal(err)
	}
	for _, dir := range []string{filepath.Join(ro, "chroma"), filepath.Join(ro, "new"), filepath.Join(ro, "private")} {
		err := PrivateDir(dir)
		if err == nil {
			var f *os.File
			if f, err = Take(context.Background(), dir, 0, nil); f != nil {
				Release(f, dir)
			}
			err = ReadOnly(dir, err)
		}
		if err == nil {
			t.Fatalf("%s: no error on a read-only filesystem", dir)
		}
		msg := err.Error()
		for _, want := range []string{"read-only filesystem", "--chroma-data", "CMDAI_HOME", "--chroma-url"} {
			if !strings.Contains(msg, want) {
				t.Errorf("%s: %q does not say %q", dir, msg, want)
			}
		}
		if strings.Contains(msg, "<nil>") {
			t.Errorf("%s: %q", dir, msg)
		}
	}
}
