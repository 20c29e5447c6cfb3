//go:build unix

package diskspace

import (
	"fmt"
	"path/filepath"
	"syscall"
)

// Free returns the bytes available to unprivileged users on the file
// system holding dir (statfs), and its mount point, found by walking up
// while the device stays the same. dir must exist.
func Free(dir string) (free int64, mount string, err error) {
	var fs syscall.Statfs_t
	if err := syscall.Statfs(dir, &fs); err != nil {
		return 0, "", fmt.Errorf("free space of %s: %w", dir, err)
	}
	free = int64(fs.Bavail) * int64(fs.Bsize)
	mount, err = filepath.Abs(dir)
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
