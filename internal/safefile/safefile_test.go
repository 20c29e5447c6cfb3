package safefile

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// entries lists dir's names, so that a test sees a temporary file left
// behind.
func entries(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range es {
		names = append(names, e.Name())
	}
	return names
}

// content reads path as a string.
func content(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestWriteFileContentAndMode(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "a.sha256")
	if err := WriteBytes(path, []byte("first\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := WriteBytes(path, []byte("second\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := content(t, path); got != "second\n" {
		t.Errorf("content %q, want %q", got, "second\n")
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o644 {
		t.Errorf("mode %v, want 0644 (the mode asked for, not the temp file's 0600)", fi.Mode().Perm())
	}
	if names := entries(t, dir); len(names) != 1 {
		t.Errorf("directory holds %q, want only a.sha256", names)
	}
}

func TestWriteFileFailureKeepsOldFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "manifest.json")
	if err := WriteBytes(path, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("disk full")
	err := WriteFile(path, 0o644, func(w io.Writer) error {
		// Half the new content is written before the failure: it must
		// not reach the target.
		if _, err := w.Write([]byte("new but cut")); err != nil {
			return err
		}
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("error %v, want one wrapping %v", err, boom)
	}
	if got := content(t, path); got != "old" {
		t.Errorf("after a failed write the file holds %q, want the old %q", got, "old")
	}
	if names := entries(t, dir); len(names) != 1 || names[0] != "manifest.json" {
		t.Errorf("directory holds %q: a temporary file was left behind", names)
	}
}

func TestWriteFileNoDirectory(t *testing.T) {
	path := filepath.Join(t.TempDir(), "missing", "x")
	err := WriteBytes(path, []byte("x"), 0o644)
	if err == nil {
		t.Fatal("writing into a missing directory succeeded")
	}
	if !errors.Is(err, os.ErrNotExist) {
		t.Errorf("error %v does not say the directory is missing", err)
	}
}

func TestCopyFile(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "src")
	dst := filepath.Join(dir, "dst")
	if err := os.WriteFile(src, []byte("payload"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, []byte("older and longer content"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := CopyFile(src, dst, 0o644); err != nil {
		t.Fatal(err)
	}
	if got := content(t, dst); got != "payload" {
		t.Errorf("copy holds %q, want %q", got, "payload")
	}
	if fi, _ := os.Stat(dst); fi.Mode().Perm() != 0o644 {
		t.Errorf("copy has mode %v, want 0644", fi.Mode().Perm())
	}
	err := CopyFile(filepath.Join(dir, "nope"), dst, 0o644)
	if !errors.Is(err, os.ErrNotExist) {
		t.Errorf("copying a missing file: %v, want os.ErrNotExist", err)
	}
	if got := content(t, dst); got != "payload" {
		t.Errorf("a failed copy changed dst to %q", got)
	}
	if names := entries(t, dir); len(names) != 2 {
		t.Errorf("directory holds %q, want src and dst only", names)
	}
}
