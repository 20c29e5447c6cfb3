package cmdutil

import (
	"io"
	"os"

	"golang.org/x/term"
)

// IOStreams are a command's terminal: tests pass buffers, main passes the
// process's own streams. Progress bars and colours are drawn only when
// the matching stream is a terminal.
type IOStreams struct {
	In     io.Reader
	Out    io.Writer
	ErrOut io.Writer
	// OutTTY and ErrTTY report whether Out and ErrOut are terminals.
	OutTTY bool
	ErrTTY bool
	// ErrWidth reports ErrOut's terminal's width in columns now (0 when
	// unknown): progress lines are laid out to it at each update, so a
	// resized terminal is followed.
	ErrWidth func() int
}

// SystemIO returns the process's standard streams.
func SystemIO() *IOStreams {
	return &IOStreams{
		In:     os.Stdin,
		Out:    os.Stdout,
		ErrOut: os.Stderr,
		OutTTY: term.IsTerminal(int(os.Stdout.Fd())),
		ErrTTY: term.IsTerminal(int(os.Stderr.Fd())),
		ErrWidth: func() int {
			w, _, err := term.GetSize(int(os.Stderr.Fd()))
			if err != nil {
				return 0
			}
			return w
		},
	}
}
