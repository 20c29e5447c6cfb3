package serve

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
)

// Lock is the exclusive lock that says a serve runs for a socket: a file
// beside it (socket + ".lock") under flock, which the kernel releases
// when serve dies however it dies. A socket file alone proves nothing:
// a killed serve leaves it behind.
type Lock struct {
	f      *os.File
	Socket string
}

// Acquire takes the lock of socket, creating its directory (mode 0700)
// when missing. Another serve holding it is ErrBusy.
func Acquire(socket string) (*Lock, error) {
	if err := os.MkdirAll(filepath.Dir(socket), 0o700); err != nil {
		return nil, fmt.Errorf("create the socket's directory: %w", err)
	}
	path := socket + ".lock"
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open serve's lock file: %w", err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, fmt.Errorf("%w (its socket: %s; its lock: %s): use it, or stop it first", ErrBusy, socket, path)
		}
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	f.Truncate(0)
	fmt.Fprintf(f, "%d\n", os.Getpid())
	return &Lock{f: f, Socket: socket}, nil
}

// Release drops the lock (the lock file stays: removing it would race
// with the next serve taking it).
func (l *Lock) Release() {
	if l != nil && l.f != nil {
		l.f.Close()
		l.f = nil
	}
}
