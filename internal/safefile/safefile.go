// Package safefile reads and writes files the safe ways cmdai knows: it
// writes into a temporary file beside the target, synced, renamed over
// it, and the directory synced, so that a reader (or a crash) sees the
// old file or the new one, never half of either; it reads a regular file
// of bounded size, refusing anything else. It imports nothing of cmdai's, so
// every package can use it.
package safefile

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// WriteFile replaces path with what write produces, atomically, with
// mode perm. On any error the temporary file is removed and whatever was
// at path before is left as it was.
func WriteFile(path string, perm fs.FileMode, write func(io.Writer) error) (err error) {
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if err := write(tmp); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	// CreateTemp makes the file 0600; the target gets the mode asked for
	// whatever the umask, as os.WriteFile's callers here expect.
	if err := tmp.Chmod(perm); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := tmp.Sync(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	// The rename is durable only once the directory entry is on disk.
	if err := SyncDir(dir); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// WriteBytes replaces path with data, atomically (see WriteFile).
func WriteBytes(path string, data []byte, perm fs.FileMode) error {
	return WriteFile(path, perm, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// CopyFile replaces dst with a copy of src, atomically (see WriteFile),
// with mode perm. A missing src gives an error that matches
// os.ErrNotExist.
func CopyFile(src, dst string, perm fs.FileMode) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	return WriteFile(dst, perm, func(w io.Writer) error {
		if _, err := io.Copy(w, in); err != nil {
			return fmt.Errorf("copy %s: %w", src, err)
		}
		return nil
	})
}

// SyncDir flushes a directory's entries (a rename or a new file in it)
// to disk.
func SyncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}
