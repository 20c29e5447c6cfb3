//go:build unix

package chroma

import (
	"path/filepath"
	"syscall"
)

// diskFree asks statfs for the space available to unprivileged users and
// finds the mount point by walking up while the device stays the same.
func diskFree(dir string) (int64, string, error) {
	var fs syscall.Statfs_t
	if err := syscall.Statfs(dir, &fs); err != nil {
		return 0, "", err
	}
	free := int64(fs.Bavail) * int64(fs.Bsize)
	mount, err := filepath.Abs(dir)
	if err != nil {
		return free, dir, nil
	}
	var st syscall.Stat_t
	if syscall.Stat(mount, &st) != nil {
		return free, mount, nil
	}
	for mount != "/" {
		var up syscall.Stat_t
		parent := filepath.Dir(mount)
		if syscall.Stat(parent, &up) != nil || up.Dev != st.Dev {
			break
		}
		mount = parent
	}
	return free, mount, nil
}
