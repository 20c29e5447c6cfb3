//go:build unix

package helprun

import (
	"os"
	"syscall"
)

// fileIDOf is the identity of the file at p (symlinks followed).
func fileIDOf(p string) (fileID, bool) {
	fi, err := os.Stat(p)
	if err != nil {
		return fileID{}, false
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return fileID{}, false
	}
	return fileID{dev: uint64(st.Dev), ino: uint64(st.Ino)}, true
}
