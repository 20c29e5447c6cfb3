package cmdutil

import (
	"io"
	"os"

	"golang.org/x/term"

	"github.com/cmdai/cmdai/internal/termstyle"
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
	// StyledOut is Out itself, past the app's cleaning writer: only for
	// a printer that cleans every text it prints and adds its own colour
	// (internal/termstyle); nil in tests, where Out is used.
	StyledOut io.Writer
	// OutWidth reports Out's terminal's width in columns (0 when unknown
	// or not a terminal): answers are laid out to it.
	OutWidth func() int
	// ErrWidth reports ErrOut's terminal's width in columns now (0 when
	// unknown): progress lines are laid out to it at each update, so a
	// resized terminal is followed.
	ErrWidth func() int
}

// SystemIO returns the process's standard streams.
func SystemIO() *IOStreams {
	return &IOStreams{
		In:        os.Stdin,
		Out:       os.Stdout,
		ErrOut:    os.Stderr,
		OutTTY:    term.IsTerminal(int(os.Stdout.Fd())),
		ErrTTY:    term.IsTerminal(int(os.Stderr.Fd())),
		StyledOut: os.Stdout,
		OutWidth:  func() int { return width(os.Stdout) },
		ErrWidth:  func() int { return width(os.Stderr) },
	}
}

// width is f's terminal's width in columns, 0 when it is not one.
func width(f *os.File) int {
	w, _, err := term.GetSize(int(f.Fd()))
	if err != nil {
		return 0
	}
	return w
}

// Styled is how to print an answer for a person: the style --color
// (mode) and the environment ask for (termstyle.Enabled), the writer
// (StyledOut when colouring and one is set: the cleaning Out would
// strip the colours; the style cleans every text itself), and the width
// to lay lines out to (0 when Out is no terminal: one line each).
func (s *IOStreams) Styled(mode string, getenv func(string) string) (io.Writer, termstyle.Style, int) {
	st := termstyle.Style{On: termstyle.Enabled(mode, s.OutTTY, getenv)}
	w := s.Out
	if st.On && s.StyledOut != nil {
		w = s.StyledOut
	}
	width := 0
	if s.OutTTY && s.OutWidth != nil {
		width = s.OutWidth()
	}
	return w, st, width
}
