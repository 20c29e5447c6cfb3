package safefile

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"syscall"
)

// NotRegularError is ReadRegular's refusal of what is not a regular file
// (a FIFO, a device, a directory, a socket), named by what it is.
type NotRegularError struct{ Mode fs.FileMode }

func (e *NotRegularError) Error() string {
	return "is " + FileKind(e.Mode) + ", not a regular file"
}

// TooLargeError is ReadRegular's refusal of a file over its cap; Size is
// -1 when the file grew past it while it was read.
type TooLargeError struct{ Size, Max int64 }

func (e *TooLargeError) Error() string {
	if e.Size < 0 {
		return fmt.Sprintf("grew past the %d bytes allowed while it was read", e.Max)
	}
	return fmt.Sprintf("is %d bytes, over the %d allowed", e.Size, e.Max)
}

// ReadRegular reads path if it is a regular file of at most max bytes,
// and returns its mode too (for the caller's own checks, e.g. who may read
// it). It opens without blocking (a FIFO's open waits for a writer) and
// judges what it opened, not the name: a symlink to /dev/zero or a FIFO is
// refused before a byte is read, and a file growing meanwhile is read to
// max and no further. Files named by a user or left by another process
// (settings, tokens, keys) are read this way.
func ReadRegular(path string, max int64) ([]byte, fs.FileMode, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_NOCTTY, 0)
	if err != nil {
		return nil, 0, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, 0, err
	}
	if !st.Mode().IsRegular() {
		return nil, st.Mode(), &NotRegularError{Mode: st.Mode()}
	}
	if st.Size() > max {
		return nil, st.Mode(), &TooLargeError{Size: st.Size(), Max: max}
	}
	data, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, st.Mode(), err
	}
	if int64(len(data)) > max {
		return nil, st.Mode(), &TooLargeError{Size: -1, Max: max}
	}
	return data, st.Mode(), nil
}

// FileKind names what a file is, for a message: "a named pipe (FIFO)".
func FileKind(m fs.FileMode) string {
	switch {
	case m.IsRegular():
		return "a regular file"
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe (FIFO)"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a device"
	}
	return "not a regular file"
}
