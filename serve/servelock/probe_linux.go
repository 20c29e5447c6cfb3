//go:build linux

package servelock

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

// holdProbe puts an open-file-description lock (F_OFD_SETLK, Linux 3.15
// and later) on serve's lock file, beside its flock: F_OFD_GETLK can test
// it without taking anything (no test of a flock can), and like the flock
// it belongs to this open file and goes when serve closes it or dies. On
// a kernel or file system without OFD locks Starting falls back to the
// pid.
func holdProbe(f *os.File) {
	lk := unix.Flock_t{Type: unix.F_WRLCK, Whence: 0, Start: 0, Len: 0}
	_ = unix.FcntlFlock(f.Fd(), unix.F_OFD_SETLK, &lk)
}

// probeHeld asks the kernel whether a process holds serve's lock file
// (holdProbe); ok false when it cannot tell (no OFD locks here). No
// lock file: nobody holds it.
func probeHeld(path string) (held, ok bool) {
	f, err := os.OpenFile(path, os.O_RDONLY|unix.O_NOFOLLOW, 0) // a link is not serve's lock
	if errors.Is(err, os.ErrNotExist) {
		return false, true
	}
	if err != nil {
		return false, false
	}
	defer f.Close()
	lk := unix.Flock_t{Type: unix.F_WRLCK, Whence: 0, Start: 0, Len: 0}
	if err := unix.FcntlFlock(f.Fd(), unix.F_OFD_GETLK, &lk); err != nil {
		return false, false
	}
	return lk.Type != unix.F_UNLCK, true
}
