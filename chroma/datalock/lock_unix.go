//go:build unix

package datalock

import (
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"

	"github.com/cmdai/cmdai/internal/termtext"
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

// commandLine is the command pid runs, as a user would type it (its
// program's base name and first arguments), so that an error can say
// which cmdai holds the data: `cmdai mcp` for hours, or a one-shot query
// for a second. "" where it cannot be read (no /proc).
func commandLine(pid int) string {
	raw, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
	if err != nil {
		return ""
	}
	args := strings.Split(strings.TrimRight(string(raw), "\x00"), "\x00")
	if len(args) == 0 || args[0] == "" {
		return ""
	}
	args[0] = filepath.Base(args[0])
	if len(args) > 4 {
		args = append(args[:4], "...")
	}
	line := []rune(termtext.Clean(strings.Join(args, " ")))
	if len(line) > 80 {
		line = append(line[:77], []rune("...")...)
	}
	return string(line)
}
