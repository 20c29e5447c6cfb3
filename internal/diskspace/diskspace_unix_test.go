//go:build unix

package diskspace

import (
	"path/filepath"
	"strings"
	"testing"
)

func TestFree(t *testing.T) {
	dir := t.TempDir()
	free, mount, err := Free(dir)
	if err != nil {
		t.Fatal(err)
	}
	if free <= 0 {
		t.Errorf("Free(%s) = %d bytes; a test's temporary directory has room", dir, free)
	}
	// The mount point holds dir: it is dir or one of its ancestors.
	abs, _ := filepath.Abs(dir)
	if rel, err := filepath.Rel(mount, abs); err != nil || strings.HasPrefix(rel, "..") {
		t.Errorf("mount %q does not hold %q", mount, abs)
	}
	if _, _, err := Free(filepath.Join(dir, "absent")); err == nil {
		t.Error("Free of a missing directory succeeded")
	}
}
