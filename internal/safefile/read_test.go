package safefile

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestReadRegular: a regular file under the cap is read with its mode; a
// FIFO (whose open would wait for a writer), a symlink to /dev/zero and a
// directory are refused by what they are, before a byte is read; a file
// over the cap is refused by its size.
func TestReadRegular(t *testing.T) {
	dir := t.TempDir()
	ok := filepath.Join(dir, "ok")
	if err := os.WriteFile(ok, []byte("abc"), 0o600); err != nil {
		t.Fatal(err)
	}
	data, mode, err := ReadRegular(ok, 3)
	if err != nil || string(data) != "abc" || mode.Perm() != 0o600 {
		t.Fatalf("ReadRegular(ok) = %q %v %v", data, mode, err)
	}
	var tooLarge *TooLargeError
	if _, _, err := ReadRegular(ok, 2); !errors.As(err, &tooLarge) || tooLarge.Size != 3 {
		t.Errorf("over the cap: %v", err)
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	zero := filepath.Join(dir, "zero")
	if err := os.Symlink("/dev/zero", zero); err != nil {
		t.Fatal(err)
	}
	for path, kind := range map[string]string{fifo: "a named pipe (FIFO)", zero: "a character device", dir: "a directory"} {
		var notRegular *NotRegularError
		_, _, err := ReadRegular(path, 1<<20)
		if !errors.As(err, &notRegular) || !strings.Contains(err.Error(), "is "+kind+", not a regular file") {
			t.Errorf("ReadRegular(%s) = %v, want %q refused", path, err, kind)
		}
	}
}
