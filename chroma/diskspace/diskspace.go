// Package diskspace tells whether the disk under a Chroma server's data
// has room for a write, and says so in one message when it has not.
package diskspace

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/cmdai/cmdai/chroma"
	"github.com/cmdai/cmdai/internal/diskspace"
)

// Space figures for one record: its vector (dims float32s) stored twice
// (SQLite's embeddings queue and the HNSW segment), its text and metadata
// (perRecordText, a man-page chunk's typical size with its metadata),
// all times spaceFactor for SQLite's pages, indexes and write-ahead log.
// minSpace is what a server needs to start and compact at all.
const (
	perRecordText = 2 << 10
	spaceFactor   = 2
	minSpace      = 4 << 20
)

// Needed estimates the bytes Chroma needs to store records of dims
// dimensions.
func Needed(records, dims int) int64 {
	per := int64(2*dims*4 + perRecordText)
	return minSpace + int64(records)*per*spaceFactor
}

// freeSpace returns the bytes available to an unprivileged writer on the
// file system holding dir, and that file system's mount point; a variable
// so that tests can inject a full disk.
var freeSpace = diskspace.Free

// Check refuses, before anything is written, a write of need bytes
// into dir (the private server's data directory) that the disk cannot
// hold. It says where, how much is needed and free, and what to do.
func Check(dir string, need int64) error {
	abs, err := filepath.Abs(dir)
	if err != nil {
		abs = dir
	}
	// The data directory may not exist yet: its nearest existing
	// ancestor is on the same file system.
	probe := abs
	for {
		if _, err := os.Stat(probe); err == nil || filepath.Dir(probe) == probe {
			break
		}
		probe = filepath.Dir(probe)
	}
	free, mount, err := freeSpace(probe)
	if err != nil {
		return nil // a file system that cannot say: let the write find out
	}
	if free >= need {
		return nil
	}
	return Error(mount, need, free)
}

// Error is the one message for a full disk, whether cmdai saw it
// coming or Chroma ran into it (need 0: not known).
func Error(where string, need, free int64) error {
	amounts := fmt.Sprintf("%d MB free", mb(free))
	if need > 0 {
		amounts = fmt.Sprintf("need about %d MB, %s", mb(need), amounts)
	}
	return fmt.Errorf("%w on %s (%s): free some space or use --chroma-data on a larger disk", chroma.ErrNoSpace, where, amounts)
}

// DiskOf returns the mount point holding dir and the bytes free there
// (-1 when it cannot be told).
func DiskOf(dir string) (string, int64) {
	free, mount, err := freeSpace(dir)
	if err != nil {
		return dir, -1
	}
	return mount, free
}

func mb(b int64) int64 { return (b + 1<<20 - 1) >> 20 }
