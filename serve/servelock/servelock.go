// Package servelock is the lock file that says a `cmdai serve` runs, or
// is starting, for a socket: taken under flock by serve, read by clients.
package servelock

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// ErrBusy: another serve holds the lock of this socket.
var ErrBusy = errors.New("another cmdai serve is running for this data home")

// Lock is the exclusive lock that says a serve runs for a socket: a file
// beside it (socket + ".lock") under flock, which the kernel releases
// when serve dies however it dies. A socket file alone proves nothing:
// a killed serve leaves it behind.
type Lock struct {
	f      *os.File
	Socket string
}

// Acquire takes the lock of socket, creating its directory (mode 0700)
// when missing. Another serve holding it is ErrBusy. Besides the flock
// (what a second serve contends for) serve holds a lock that others can
// test without taking (holdProbe): Starting asks the kernel, not a pid.
func Acquire(socket string) (*Lock, error) {
	if err := os.MkdirAll(filepath.Dir(socket), 0o700); err != nil {
		return nil, fmt.Errorf("create the socket's directory: %w", err)
	}
	path := socket + ".lock"
	if err := Ours(path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	// O_NOFOLLOW: a link put at the lock's path (in a directory another
	// user can write) is refused, never followed to a file of ours; what
	// was opened is checked by its descriptor, not by the path again.
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|syscall.O_NOFOLLOW, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open serve's lock file %s: %w (remove it if it is a link, or set XDG_RUNTIME_DIR to a directory of yours)", path, err)
	}
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		f.Close()
		return nil, fmt.Errorf("serve's lock file %s is not a regular file: remove it", path)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, fmt.Errorf("%w (its socket: %s; its lock: %s): use it, or stop it first", ErrBusy, socket, path)
		}
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	holdProbe(f)
	f.Truncate(0)
	fmt.Fprintf(f, "%d\n", os.Getpid())
	return &Lock{f: f, Socket: socket}, nil
}

// Release drops the lock (the lock file stays: removing it would race
// with the next serve taking it). Its pid goes first, so that a client
// does not wait for a serve that has stopped (Starting).
func (l *Lock) Release() {
	if l != nil && l.f != nil {
		l.f.Truncate(0)
		l.f.Close()
		l.f = nil
	}
}

// Starting tells whether a serve that has taken the lock of socket may
// still be starting (loading the model, starting Chroma, not yet
// listening). It never takes the lock, which could make a serve starting
// at that instant fail as busy. Where the kernel can say whether the
// lock is held (probeHeld), that is the answer: a serve holds it for its
// whole life and the kernel drops it when serve dies, however it dies, so
// a killed serve's pid left in the file, now another process's (a
// container restarted on the same volume, where serve was pid 1), is not
// waited for. Elsewhere the pid in the file must be a live process.
func Starting(socket string) bool {
	path := socket + ".lock"
	if Ours(path) != nil {
		return false
	}
	if held, ok := probeHeld(path); ok {
		return held
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return false
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil || pid <= 0 {
		return false
	}
	err = syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

// Ours says whether path (serve's socket, or its lock file) is this
// user's or root's. In a shared directory (/tmp, where the socket of a
// data root too long for a socket path goes) another user could make
// either first: a socket of theirs would answer whatever they like to an
// assistant that trusts it, and a lock they hold would have every client
// wait for a serve that never comes. A symlink is judged as the link.
func Ours(path string) error {
	fi, err := os.Lstat(path)
	if err != nil {
		return err
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && int(st.Uid) != os.Getuid() && st.Uid != 0 {
		return fmt.Errorf("%s belongs to uid %d, not to this user (uid %d), and another user's file is never trusted: remove it, or set XDG_RUNTIME_DIR to a directory of yours",
			path, st.Uid, os.Getuid())
	}
	return nil
}
