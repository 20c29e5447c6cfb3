package diskspace

import (
	"errors"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/cmdai/cmdai/chroma"
)

// TestCheckSpace: a disk with too little room (a fake statfs) is refused
// before anything is written, with where, how much and what to do; a disk
// with room is not.
func TestCheckSpace(t *testing.T) {
	defer func(f func(string) (int64, string, error)) { freeSpace = f }(freeSpace)
	var asked string
	freeSpace = func(dir string) (int64, string, error) { asked = dir; return 3 << 20, "/mnt/small", nil }
	dir := filepath.Join(t.TempDir(), "not", "yet")
	need := Needed(1000, 384)
	err := Check(dir, need)
	if !errors.Is(err, chroma.ErrNoSpace) {
		t.Fatalf("err = %v, want chroma.ErrNoSpace", err)
	}
	want := "no space left on /mnt/small (need about " + strconv.FormatInt(mb(need), 10) + " MB, 3 MB free): free some space or use --chroma-data on a larger disk"
	if err.Error() != want {
		t.Errorf("message\n got %q\nwant %q", err, want)
	}
	if asked != filepath.Dir(filepath.Dir(dir)) {
		t.Errorf("statfs asked about %s, want the nearest existing ancestor of %s", asked, dir)
	}
	freeSpace = func(string) (int64, string, error) { return need, "/mnt/big", nil }
	if err := Check(dir, need); err != nil {
		t.Errorf("enough room refused: %v", err)
	}
	if Needed(2000, 384) <= Needed(1000, 384) || Needed(0, 384) < minSpace {
		t.Error("the estimate does not grow with the records")
	}
}

// TestDiskOfRealDisk: the real statfs finds a mount point above the
// directory and some free space.
func TestDiskOfRealDisk(t *testing.T) {
	dir := t.TempDir()
	mount, free := DiskOf(dir)
	if free < 0 || !strings.HasPrefix(dir, mount) {
		t.Errorf("DiskOf(%s) = %s, %d", dir, mount, free)
	}
}
