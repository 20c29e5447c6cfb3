package homemove

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/cmdai/cmdai/internal/safefile"
)

// copyTree copies the directory src to dst (which must not exist):
// directories, regular files (synced) and symbolic links, with their
// permission bits. Anything else (a socket, a fifo) is left out: cmdai's
// data holds none, and a server's socket is not data.
func copyTree(src, dst string) error {
	return filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, path)
		if err != nil {
			return err
		}
		target := filepath.Join(dst, rel)
		info, err := d.Info()
		if err != nil {
			return err
		}
		switch {
		case d.IsDir():
			return os.MkdirAll(target, info.Mode().Perm()|0o700)
		case d.Type()&fs.ModeSymlink != 0:
			link, err := os.Readlink(path)
			if err != nil {
				return err
			}
			return os.Symlink(link, target)
		case d.Type().IsRegular():
			return safefile.CopyFile(path, target, info.Mode().Perm())
		}
		return nil
	})
}

// sameTree checks that every directory, regular file and link of src is
// in dst with the same content (sha256) or target.
func sameTree(src, dst string) error {
	return filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, path)
		if err != nil {
			return err
		}
		target := filepath.Join(dst, rel)
		switch {
		case d.IsDir():
			if fi, err := os.Stat(target); err != nil || !fi.IsDir() {
				return fmt.Errorf("directory %s missing from the copy", rel)
			}
		case d.Type()&fs.ModeSymlink != 0:
			a, err1 := os.Readlink(path)
			b, err2 := os.Readlink(target)
			if err1 != nil || err2 != nil || a != b {
				return fmt.Errorf("link %s differs in the copy", rel)
			}
		case d.Type().IsRegular():
			a, err := fileSum(path)
			if err != nil {
				return err
			}
			b, err := fileSum(target)
			if err != nil || !bytes.Equal(a, b) {
				return fmt.Errorf("file %s differs in the copy", rel)
			}
		}
		return nil
	})
}

func fileSum(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	return h.Sum(nil), nil
}
