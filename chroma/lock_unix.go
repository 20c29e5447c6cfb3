//go:build unix

package chroma

import (
	"os"
	"runtime"
	"strconv"
	"strings"
	"syscall"
)

var errWouldBlock = syscall.EWOULDBLOCK

func tryLock(f *os.File) error {
	return syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
}

// looksLikeChroma guards against killing an unrelated process that
// reused a recorded pid. Where the command line cannot be read (no
// /proc), it trusts the pid file.
func looksLikeChroma(pid int) bool {
	raw, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
	if err != nil {
		return runtime.GOOS != "linux"
	}
	return strings.Contains(string(raw), "chroma")
}
